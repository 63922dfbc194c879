package graph

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/passivenfir/gputrain/kernels"
	"github.com/passivenfir/gputrain/model"
)

// msdStructure is the paper's mass-spring-damper model: m_N = 10,
// m_G = 50, R1 = R2 = 1, MLP 2→4→4→10 (FB).
var msdStructure = model.Structure{Branches: 10, Taps: 50, R1: 1, R2: 1, Hidden: []int{4, 4}, Feedback: true}

func benchSetup(b *testing.B, batches, T int) (*model.NFIR, *Batch) {
	b.Helper()
	rng := rand.New(rand.NewPCG(7, 7))
	m, err := model.RandomPassive(msdStructure, rng)
	if err != nil {
		b.Fatal(err)
	}
	us := make([][]float64, batches)
	ys := make([][]float64, batches)
	for i := range us {
		us[i] = make([]float64, T)
		ys[i] = make([]float64, T)
		for t := range us[i] {
			us[i][t] = rng.NormFloat64()
			ys[i][t] = rng.NormFloat64()
		}
	}
	bt, err := NewBatch(m, us, nil, ys)
	if err != nil {
		b.Fatal(err)
	}
	return m, bt
}

func benchOpen(b *testing.B, batches, T int) {
	m, bt := benchSetup(b, batches, T)
	o, err := NewOpenLoop(m, &kernels.CPU{})
	if err != nil {
		b.Fatal(err)
	}
	theta := m.Lift.Flatten()
	grad := make([]float64, len(theta))
	if _, err := o.LossGrad(bt, theta, m.G, m.Lin, grad); err != nil { // compile outside the timing
		b.Fatal(err)
	}
	// Every step's wall time, for the minimum and median that
	// bench/torch_nfir.py reports of PyTorch's steps: on a shared machine
	// the mean (ns/op) carries the other processes' work.
	steps := make([]time.Duration, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	c0 := cpuTime()
	for i := range b.N {
		t0 := time.Now()
		if _, err := o.LossGrad(bt, theta, m.G, m.Lin, grad); err != nil {
			b.Fatal(err)
		}
		steps[i] = time.Since(t0)
	}
	reportCPU(b, c0)
	slices.Sort(steps)
	b.ReportMetric(float64(steps[0])/1e6, "min-ms")
	b.ReportMetric(float64(steps[len(steps)/2])/1e6, "median-ms")
}

// reportCPU reports the CPU time (all threads) per op since c0, in ms.
func reportCPU(b *testing.B, c0 int64) {
	if c1 := cpuTime(); c1 > c0 {
		b.ReportMetric(float64(c1-c0)/1e6/float64(b.N), "cpu-ms/op")
	}
}

// BenchmarkOpenLoopEpochGraph is one open-loop epoch in one step: forward
// and backward of the loss over 300 trajectories × 250 samples (issue 4
// target: ≤ 60 ms on the 2-core machine, float64).
func BenchmarkOpenLoopEpochGraph(b *testing.B) { benchOpen(b, 300, 250) }

// BenchmarkMiniBatchStep is one Adam step's forward and backward on 8
// trajectories × 250 samples: the per-step overhead of the graph shows here.
func BenchmarkMiniBatchStep(b *testing.B) { benchOpen(b, 8, 250) }

// BenchmarkBPTTEpoch is one closed-loop (BPTT) epoch over 300 × 250 samples
// in mini-batches of 8 trajectories, as the paper's BPTT step runs it.
func BenchmarkBPTTEpoch(b *testing.B) {
	m, bt := benchSetup(b, 300, 250)
	cl, err := NewClosedLoop(m, &kernels.CPU{})
	if err != nil {
		b.Fatal(err)
	}
	// Split the full batch into mini-batches of 8 trajectories (the last
	// one shorter), views into the full one.
	var mbs []*Batch
	for i := 0; i < bt.Seqs.Batches(); i += 8 {
		j := min(i+8, bt.Seqs.Batches())
		lo, hi := bt.Seqs.Off[i], bt.Seqs.Off[j]
		off := make([]int, j-i+1)
		for k := range off {
			off[k] = bt.Seqs.Off[i+k] - lo
		}
		mbs = append(mbs, &Batch{Seqs: kernels.Seqs{Off: off}, U: bt.U[lo:hi], Y: bt.Y[lo:hi]})
	}
	theta := m.Lift.Flatten()
	grad := make([]float64, len(theta))
	for _, mb := range mbs {
		if _, err := cl.LossGrad(mb, theta, m.G, m.Lin, grad); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	c0 := cpuTime()
	for range b.N {
		for _, mb := range mbs {
			if _, err := cl.LossGrad(mb, theta, m.G, m.Lin, grad); err != nil {
				b.Fatal(err)
			}
		}
	}
	reportCPU(b, c0)
}

// BenchmarkOpenLoopEpochKernels is the same epoch as
// BenchmarkOpenLoopEpochGraph calling the Backend directly, without the
// graph: the difference is gorgonia's overhead.
func BenchmarkOpenLoopEpochKernels(b *testing.B) { benchKernels(b, 300, 250) }

// BenchmarkMiniBatchStepKernels is BenchmarkMiniBatchStep without the graph.
func BenchmarkMiniBatchStepKernels(b *testing.B) { benchKernels(b, 8, 250) }

// BenchmarkStepOverhead is a step on a 1-sample batch: almost all of it is
// the graph's fixed cost per step.
func BenchmarkStepOverhead(b *testing.B) { benchOpen(b, 1, 1) }

func benchKernels(b *testing.B, batches, T int) {
	m, bt := benchSetup(b, batches, T)
	be := &kernels.CPU{}
	rows, mN, mG := bt.Rows(), m.Branches, m.Taps
	sizes := m.Lift.Sizes
	L := len(sizes) - 1
	// The kernels the graph runs on a CPU backend: the feature-major lifting
	// network and branch-major convolutions (graph/lift.go).
	theta := m.Lift.Flatten()
	dtheta := make([]float64, len(theta))
	acts := make([][]float64, L)
	for l := range L {
		acts[l] = make([]float64, rows*sizes[l+1])
	}
	n := acts[L-1]
	z := make([]float64, rows*mN)
	dn := make([]float64, rows*mN)
	yh := make([]float64, rows)
	dy := make([]float64, rows)
	b.ReportAllocs()
	b.ResetTimer()
	c0 := cpuTime()
	defer reportCPU(b, c0)
	for range b.N {
		be.LiftForwardT(rows, sizes, theta, bt.X, acts)
		be.ConvForwardT(bt.Seqs, mN, mG, bt.U, n, m.G, z, yh)
		for i := range yh {
			dy[i] = 2 * (yh[i] - bt.Y[i]) / float64(rows)
		}
		be.ConvBackwardT(bt.Seqs, mN, mG, bt.U, n, m.G, z, dy, dn, nil)
		clear(dtheta)
		be.LiftBackwardT(rows, sizes, theta, bt.X, acts, dn, dtheta)
	}
}
