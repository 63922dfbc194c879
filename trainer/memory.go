package trainer

import (
	"fmt"
	"runtime"
	"strings"

	"github.com/passivenfir/gputrain/data"
)

// DataShape is what EstimateMemory needs to know of the data: the samples
// and trajectories of the training and validation sets and the longest
// trajectory (a mini-batch holds Batch of them).
type DataShape struct {
	TrainSamples, TrainBatches int
	ValSamples, ValBatches     int
	Longest                    int
	// Clean is true when the data carry a noise-free output (y_clean), a
	// third column kept in memory.
	Clean bool
}

// ShapeOf returns the DataShape of a training and a validation set (val may
// be nil).
func ShapeOf(train, val *data.Dataset) DataShape {
	var s DataShape
	add := func(d *data.Dataset, samples, batches *int) {
		if d == nil {
			return
		}
		for _, b := range d.Batches {
			*samples += len(b.U)
			*batches++
			s.Longest = max(s.Longest, len(b.U))
			s.Clean = s.Clean || b.YClean != nil
		}
	}
	add(train, &s.TrainSamples, &s.TrainBatches)
	add(val, &s.ValSamples, &s.ValBatches)
	return s
}

// MemoryPart is one term of a MemoryEstimate.
type MemoryPart struct {
	Name  string // what it holds
	Bytes float64
	// Flags are the settings that scale it, for a run that does not fit.
	Flags string
}

// MemoryEstimate is the peak memory a training run needs, in bytes, and
// its terms. The terms add up: each stage keeps its buffers (the tapes of
// its computation graphs) for the next iteration, so they are all held at
// the end of a run.
type MemoryEstimate struct {
	Total float64
	Parts []MemoryPart // data first, then the stages in the order they run
}

// Largest is the largest term: the one to shrink first.
func (e MemoryEstimate) Largest() MemoryPart {
	var l MemoryPart
	for _, p := range e.Parts {
		if p.Bytes > l.Bytes {
			l = p
		}
	}
	return l
}

// String is the estimate with its breakdown, largest term first after the
// total, in GiB or MiB.
func (e MemoryEstimate) String() string {
	parts := make([]string, 0, len(e.Parts))
	for _, p := range e.Parts {
		if p.Bytes > 0 {
			parts = append(parts, fmt.Sprintf("%s %s", p.Name, Bytes(p.Bytes)))
		}
	}
	return fmt.Sprintf("%s (%s)", Bytes(e.Total), strings.Join(parts, ", "))
}

// Bytes formats a byte count for people: B, KiB, MiB, GiB, TiB, PiB.
func Bytes(b float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	i := 0
	for b >= 1024 && i+1 < len(units) {
		b /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%.0f B", b)
	}
	return fmt.Sprintf("%.3g %s", b, units[i])
}

// EstimateMemory estimates the peak memory of Train with cfg on data of the
// given shape, so that a run that cannot fit is refused before it starts
// rather than killed by the runtime once it has allocated. Terms, in
// float64s, each for every member training at a time (Config.Members):
//
//   - data: u and y (and y_clean) of every sample, held by the caller, and
//     their scaled copy with Scale "auto" (made when the data are not at the
//     reference scale already); the features of a small data set
//     (featureCache);
//   - θ_G step: the Gram matrix P and the solver's copies of it (the
//     ridge-shifted matrix, the Newton matrix and its factor; P of the
//     rows left out with Skip or a chunk's history, and of one chunk when
//     the pass streams), one accumulator per further worker, the constraint
//     rows of the frequency grids (about 8·L² per FIR of L taps), and the
//     forward tape of the gains of one chunk (stream.go); with the
//     closed-loop gains of an FB model, the simulated output of the training
//     set, its fed-back copy and the tapes of the closed loop over a group
//     of whole trajectories (closedSim);
//   - Adam: the tapes of the open-loop loss and gradient over a chunk of a
//     mini-batch of Batch of the longest trajectories and over a chunk of
//     the validation set;
//   - BPTT (or a closed-loop monitor): the tapes of the closed-loop rollout
//     over BPTTBatch whole trajectories (and their batch) and over groups of
//     whole trajectories of the validation set, and its output;
//   - evaluation: the closed-loop and open-loop outputs of the batches
//     evaluated at a time (one per worker).
//
// A pass over more rows than one chunk holds the tapes of a full chunk
// (shared by every streamed pass) and of its last, shorter chunk, so the
// open-loop terms stop growing with the record there. The per-sample coefficients were measured on the
// CPU backend (TestEstimateMemory checks configurations dominated by each
// term within a factor of 2); the Go runtime's own few MiB are not counted.
func EstimateMemory(cfg Config, shape DataShape) MemoryEstimate {
	const f8 = 8.0
	st := cfg.Structure
	F := float64(st.NumFeatures())
	mN, mG, mL := float64(st.Branches), float64(st.Taps), float64(st.LinearTaps)
	nt := mN*mG + mL
	hidden := 0.0
	for _, h := range st.Hidden {
		hidden += float64(h)
	}
	workers := cfg.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	evalWorkers := float64(workers)
	par := 1.0 // members training at a time, each with its own session
	if cfg.Members > 1 {
		par = float64(min(cfg.Members, workers))
		workers = max(1, workers/cfg.Members)
	}
	St, Sv := float64(shape.TrainSamples), float64(shape.ValSamples)
	watched := Sv // what early stopping evaluates: the validation set, else the training set
	if Sv == 0 {
		watched = St
	}
	cols := 2.0
	if shape.Clean {
		cols = 3
	}
	C := float64(chunkRows)
	// own is the rows of the graph tapes a pass over n rows has to itself:
	// all n on the dense path; streamed, the last, shorter chunk (C/2 on
	// average), beside the graph of a full chunk, which every streamed pass
	// shares (the graphs are cached by rows).
	shared := 0.0
	own := func(n float64) float64 {
		if n <= C {
			return n
		}
		shared = C
		return C / 2
	}
	// group is the rows of the closed-loop tapes of a pass over n rows,
	// simulated in groups of whole trajectories (closedSim): all n when they
	// fit in a chunk, else about two groups' worth.
	group := func(n float64) float64 {
		if n <= C {
			return n
		}
		return min(n, 2*max(C, float64(shape.Longest)))
	}
	perClosed := F + 4 + 2*(hidden+mN)
	nets := st.Branches > 0
	copies := 1.0
	if cfg.Scale == ScaleAuto {
		copies = 2
	}
	cached := 0.0
	if nets {
		for _, n := range []float64{St, Sv} {
			if n*F <= featureCache {
				cached += n * F
			}
		}
	}
	dataPart := MemoryPart{Name: "data", Bytes: f8 * (copies*cols*(St+Sv) + par*cached),
		Flags: "shorter records in --data/--val, --members"}

	gramMats := (4 + float64(workers-1)) * nt * nt
	if cfg.Skip > 0 || St > C {
		gramMats += nt * nt
	}
	if St > C {
		gramMats += nt * nt
	}
	grid := 0.0
	if cfg.Passivity != PassivityNone {
		grid = 8 * (mN*mG*mG + mL*mL)
	}
	gains := 0.0
	if nets {
		gains = (F + 2 + 2*(hidden+mN)) * own(St)
		if st.Feedback && cfg.Iters > 1 && cfg.GramGains != GramGainsData {
			// the closed-loop candidate: its output and fed-back copy, and
			// the tapes of its simulation
			gains += 2*St + perClosed*group(St)
		}
	}
	thetaG := MemoryPart{Name: "theta_g (Gram matrices and gains)", Bytes: par * f8 * (gramMats + grid + gains),
		Flags: "--branches, --taps, --linear-taps (the Gram matrix holds (branches·taps + linear-taps)² float64s, several copies), --workers, --members"}

	batchRows := func(batch int) float64 {
		return float64(min(batch, max(shape.TrainBatches, 1))) * float64(shape.Longest)
	}
	adam := MemoryPart{Name: "adam tapes", Flags: "--batch, --hidden, --branches, --members"}
	if nets && cfg.Epochs > 0 && (cfg.Iters > 1 || cfg.BPTTEpochs == 0) {
		perOpen := F + 4 + 3*(hidden+mN) + 3*mN
		adam.Bytes = par * f8 * perOpen * (own(batchRows(cfg.Batch)) + own(watched) + shared)
	} else if shared > 0 {
		thetaG.Bytes += par * f8 * (F + 2 + 2*(hidden+mN)) * shared
	}
	bptt := MemoryPart{Name: "bptt tapes", Flags: "--bptt-batch, --hidden, --branches, --members"}
	if nets && cfg.BPTTEpochs > 0 {
		bptt.Bytes = par * f8 * ((perClosed+F+2)*batchRows(cfg.BPTTBatch) + perClosed*group(watched) + watched)
	} else if nets && st.Feedback && cfg.Monitor == MonitorClosed {
		bptt.Name = "closed-loop monitor"
		bptt.Bytes = par * f8 * (perClosed*group(watched) + watched)
	}
	eval := MemoryPart{Name: "evaluation", Flags: "shorter records in --val, --workers"}
	if Sv > 0 {
		eval.Bytes = f8 * 3 * float64(shape.Longest) * min(evalWorkers, float64(shape.ValBatches))
	}
	e := MemoryEstimate{Parts: []MemoryPart{dataPart, thetaG, adam, bptt, eval}}
	for _, p := range e.Parts {
		e.Total += p.Bytes
	}
	return e
}
