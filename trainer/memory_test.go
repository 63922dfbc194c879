package trainer

import (
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/model"
)

// peakHeap runs f and returns the largest heap in use while it ran, above
// what was in use before, sampled every millisecond with a GC target of 5%
// so that the heap in use is close to the live data.
func peakHeap(f func()) float64 {
	defer debug.SetGCPercent(debug.SetGCPercent(5))
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	peak := base
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		var m runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				runtime.ReadMemStats(&m)
				peak = max(peak, m.HeapAlloc)
			}
		}
	}()
	f()
	close(stop)
	wg.Wait()
	return float64(peak - base)
}

func randomData(batches, T int, seed uint64) *data.Dataset {
	rng := rand.New(rand.NewPCG(seed, seed))
	d := &data.Dataset{Name: "random", Ts: 1}
	for range batches {
		u, y := make([]float64, T), make([]float64, T)
		for t := range u {
			u[t] = rng.NormFloat64()
			if t > 0 {
				y[t] = 0.7*y[t-1] + 0.3*u[t] + 0.1*rng.NormFloat64()
			}
		}
		d.Batches = append(d.Batches, data.Batch{U: u, Y: y})
	}
	return d
}

var memoryCases = []struct {
	name             string
	st               model.Structure
	passivity        Passivity
	batches, T       int
	batch, bpttEpoch int
}{
	{"gram", model.Structure{Branches: 2, Taps: 500, LinearTaps: 200, R1: 1, R2: 1, Hidden: []int{4}, Feedback: true}, "none", 10, 600, 8, 0},
	{"adam", model.Structure{Branches: 8, Taps: 10, R1: 2, R2: 2, Hidden: []int{32, 32}, Feedback: true}, "sampled", 20, 5000, 8, 0},
	{"adam-narrow", model.Structure{Branches: 8, Taps: 10, R1: 2, R2: 2, Hidden: []int{8, 8}, Feedback: true}, "sampled", 20, 5000, 1, 0},
	{"bptt", model.Structure{Branches: 8, Taps: 10, R1: 2, R2: 2, Hidden: []int{32, 32}, Feedback: true}, "sampled", 20, 5000, 8, 1},
	// records longer than a chunk: the open-loop passes stream (stream.go)
	{"stream", model.Structure{Branches: 4, Taps: 20, R1: 1, R2: 1, Hidden: []int{8, 8}, Feedback: true}, "none", 4, 150_000, 8, 0},
}

// TestEstimateMemory: the estimate is within a factor of 2 of the heap a
// training run measurably uses, for runs dominated by the Gram matrices, by
// the Adam tapes, by the BPTT tapes and by the tapes of streamed passes
// over records longer than a chunk. Each case runs in a process of its
// own (this test binary again), so that one case's freed memory, reused by
// the next, does not hide part of its peak.
func TestEstimateMemory(t *testing.T) {
	if name := os.Getenv("GPUTRAIN_MEMORY_CASE"); name != "" {
		measureCase(t, name)
		return
	}
	if testing.Short() {
		t.Skip("runs child processes; skipped with -short")
	}
	for _, tc := range memoryCases {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestEstimateMemory$", "-test.v")
			cmd.Env = append(os.Environ(), "GPUTRAIN_MEMORY_CASE="+tc.name)
			out, err := cmd.CombinedOutput()
			for _, l := range strings.Split(string(out), "\n") {
				if strings.Contains(l, "measured") || strings.Contains(l, "estimate") {
					t.Log(strings.TrimSpace(l))
				}
			}
			if err != nil {
				t.Errorf("%v\n%s", err, out)
			}
		})
	}
}

// measureCase is TestEstimateMemory's child: it trains one case and compares.
func measureCase(t *testing.T, name string) {
	i := slices.IndexFunc(memoryCases, func(c struct {
		name             string
		st               model.Structure
		passivity        Passivity
		batches, T       int
		batch, bpttEpoch int
	}) bool {
		return c.name == name
	})
	if i < 0 {
		t.Fatalf("no case %q", name)
	}
	tc := memoryCases[i]
	cfg := DefaultConfig()
	cfg.Structure, cfg.Passivity = tc.st, tc.passivity
	cfg.Iters, cfg.Epochs, cfg.Workers, cfg.BPTTEpochs, cfg.Batch, cfg.BPTTBatch = 1, 1, 2, tc.bpttEpoch, tc.batch, tc.batch
	var shape DataShape
	used := peakHeap(func() {
		train := randomData(tc.batches, tc.T, 1)
		val := randomData(tc.batches/4, tc.T, 2)
		shape = ShapeOf(train, val)
		if _, err := Train(context.Background(), cfg, train, val); err != nil {
			t.Fatal(err)
		}
	})
	est := EstimateMemory(cfg, shape)
	t.Logf("%s: measured %s, estimate %s", name, Bytes(used), est)
	if r := est.Total / used; r < 0.5 || r > 2 {
		t.Errorf("estimate %s is %.2f× the measured %s", Bytes(est.Total), r, Bytes(used))
	}
}

// TestEstimateMemoryAbsurd: 100 000 branches of 50 taps make a Gram matrix
// of (5·10⁶)² float64s, 182 TiB: the estimate says so and names the θ_G
// step and its flags as the term to shrink.
func TestEstimateMemoryAbsurd(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Structure.Branches = 100_000
	cfg.Workers = 1
	e := EstimateMemory(cfg, DataShape{TrainSamples: 75_000, TrainBatches: 300, ValSamples: 25_000, ValBatches: 100, Longest: 250})
	nt := 100_000.0 * 50
	if e.Total < 4*8*nt*nt {
		t.Errorf("estimate %s, below the four Gram-sized matrices of %g taps", e, nt)
	}
	if l := e.Largest(); !strings.HasPrefix(l.Name, "theta_g") || !strings.Contains(l.Flags, "--branches") {
		t.Errorf("largest term %+v, want the θ_G step with its flags", l)
	}
	if s := e.String(); !strings.Contains(s, "PiB") && !strings.Contains(s, "TiB") {
		t.Errorf("String() = %q", s)
	}
}
