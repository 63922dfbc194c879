package loop

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/passivenfir/gputrain/data"
)

// loopData simulates records of a random loop (the true plant) driven by
// Gaussian inputs.
func loopData(t *testing.T, truth *Model, seed uint64, records, samples int) *data.Dataset {
	t.Helper()
	d := &data.Dataset{Ts: 0.01}
	for r := range records {
		u := randomInput(seed*100+uint64(r), samples)
		d.Batches = append(d.Batches, data.Batch{U: u, Y: truth.Simulate(u)})
	}
	return d
}

// TestTrainLearnsLoop: Train, started from its own random initialization,
// fits a loop plant of its own structure far better than the zero model
// (Fit 0) and better than it started; the result stays certified and the
// run is deterministic.
func TestTrainLearnsLoop(t *testing.T) {
	s := Structure{R1: 1, R2: 1, Hidden: []int{4}, B1: 1, T1: 6, L1: 8, B2: 1, T2: 4, L2: 4}
	truth := randomModel(t, s, 42)
	truth.SU, truth.SY = 2, 0.5
	train, val := loopData(t, truth, 1, 12, 150), loopData(t, truth, 2, 4, 150)
	cfg := DefaultConfig()
	cfg.Structure, cfg.Epochs, cfg.Patience, cfg.Workers = s, 60, 0, 2
	var first float64 = math.NaN()
	cfg.Progress = func(ep int, _, f float64) {
		if ep == 0 {
			first = f
		}
	}
	res, err := Train(context.Background(), cfg, train, val)
	if err != nil {
		t.Fatal(err)
	}
	if !(res.ValFit > 80) || !(res.ValFit > first) {
		t.Errorf("validation Fit %.2f after the first epoch's %.2f; want > 80", res.ValFit, first)
	}
	if c, err := res.Model.Certify(); err != nil || !c.Passive {
		t.Errorf("certificate %+v, %v", c, err)
	}
	cfg.Progress = nil
	again, err := Train(context.Background(), cfg, train, val)
	if err != nil || again.ValFit != res.ValFit {
		t.Errorf("second run: Fit %v (first %v), err %v", again.ValFit, res.ValFit, err)
	}
}

// TestTrainWindows: a record longer than Window+BurnIn is trained in
// windows; Train still runs and is interrupted cleanly.
func TestTrainWindows(t *testing.T) {
	s := Structure{R1: 1, R2: 1, B1: 1, T1: 4, L1: 4, B2: 1, T2: 2}
	truth := randomModel(t, s, 7)
	train, val := loopData(t, truth, 3, 1, 900), loopData(t, truth, 4, 1, 300)
	cfg := DefaultConfig()
	cfg.Structure, cfg.Epochs, cfg.Window, cfg.BurnIn = s, 3, 200, 50
	ctx, cancel := context.WithCancel(context.Background())
	cfg.Progress = func(ep int, _, _ float64) {
		if ep == 1 {
			cancel()
		}
	}
	res, err := Train(ctx, cfg, train, val)
	if !errors.Is(err, context.Canceled) || res == nil || res.Model == nil || res.Epochs != 2 {
		t.Fatalf("interrupted run: %+v, err %v", res, err)
	}
}

func TestConfigCheck(t *testing.T) {
	good := DefaultConfig()
	if err := good.Check(); err != nil {
		t.Fatal(err)
	}
	for name, mut := range map[string]func(*Config){
		"no forward FIR": func(c *Config) { c.Structure.B1, c.Structure.L1 = 0, 0 },
		"no branch":      func(c *Config) { c.Structure.B1, c.Structure.B2 = 0, 0 },
		"no window":      func(c *Config) { c.Structure.R1, c.Structure.R2 = 0, 0 },
		"lr":             func(c *Config) { c.LR = 0 },
		"epochs":         func(c *Config) { c.Epochs = 0 },
		"taps":           func(c *Config) { c.Structure.T1 = 0 },
	} {
		c := good
		c.Structure.Hidden = append([]int{}, good.Structure.Hidden...)
		mut(&c)
		if err := c.Check(); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: err %v, want ErrConfig", name, err)
		}
	}
	if _, err := Train(context.Background(), good, &data.Dataset{}, nil); !errors.Is(err, ErrConfig) {
		t.Errorf("no data: err %v", err)
	}
}

func TestRuns(t *testing.T) {
	rs := Runs(64, 7)
	if len(rs) != len(Shapes(64))*Seeds {
		t.Fatalf("%d runs, want %d shapes × %d seeds", len(rs), len(Shapes(64)), Seeds)
	}
	seen := map[string]bool{}
	for i, r := range rs {
		// seed-major: a pass over the shapes per seed
		want := Shapes(64)[i%len(Shapes(64))]
		if r.Seed != 7+uint64(i/len(Shapes(64))) || r.Structure.Check() != nil || fmt.Sprint(r.Structure) != fmt.Sprint(want) {
			t.Errorf("run %d: %+v, want shape %+v seed %d", i, r, want, 7+i/len(Shapes(64)))
		}
		key := fmt.Sprint(r)
		if seen[key] {
			t.Errorf("run %d repeats %s", i, key)
		}
		seen[key] = true
	}
}
