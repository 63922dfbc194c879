//go:build nfircuda

package kernels

import (
	"math/rand/v2"
	"testing"
)

// The benchmark cases of issue #6, matching bench/torch_nfir.py:
//
//	msd:   300 trajectories × 250 samples, m_N = 10, m_G = 50,  R1 = R2 = 1, MLP 2→4→4→10
//	large: 10 000 × 1 000,                 m_N = 20, m_G = 200, R1 = R2 = 1, MLP 2→4→4→20
//
// Epoch: the open-loop loss and its gradient over all trajectories (one
// OpenLoopLossGrad, data resident on the device). BPTT epoch: closed-loop
// forward and backward over all trajectories in batches of bpttBatch
// trajectories (msd: 8, the paper's; large: 1000).
type benchCase struct {
	name         string
	B, T, mN, mG int
	bpttBatch    int
}

var benchCases = []benchCase{
	{"msd", 300, 250, 10, 50, 8},
	{"large", 10000, 1000, 20, 200, 1000},
}

func benchSetup(bc benchCase) (cl *ClosedLoop, s Seqs, theta, g, lin, u, q, y []float64) {
	rng := rand.New(rand.NewPCG(42, 42))
	cl = &ClosedLoop{MN: bc.mN, MG: bc.mG, R1: 1, R2: 1, Feedback: true, UA: 1, QA: 1}
	cl.Sizes = []int{2, 4, 4, bc.mN}
	s = Uniform(bc.B, bc.T)
	N := s.Total()
	theta = cuRand(rng, cl.NumParams(), 0.5)
	g = cuRand(rng, bc.mN*bc.mG, 0.05)
	u, y = cuRand(rng, N, 1), cuRand(rng, N, 1)
	q = make([]float64, N)
	for b := range bc.B {
		for t := s.Off[b] + 1; t < s.Off[b+1]; t++ {
			q[t] = y[t-1]
		}
	}
	return cl, s, theta, g, nil, u, q, y
}

func BenchmarkCUDAEpoch(b *testing.B) {
	c := newTestCUDA(b)
	defer c.Close()
	for _, bc := range benchCases {
		b.Run(bc.name, func(b *testing.B) {
			cl, s, theta, g, lin, u, q, y := benchSetup(bc)
			if err := c.Resident(u, q, y); err != nil {
				b.Fatal(err)
			}
			defer c.Release(u, q, y)
			grad := make([]float64, cl.NumParams()+cl.MN*cl.MG)
			c.OpenLoopLossGrad(cl, s, theta, g, lin, u, q, y, grad) // warm-up (JIT, allocations)
			for b.Loop() {
				c.OpenLoopLossGrad(cl, s, theta, g, lin, u, q, y, grad)
			}
		})
	}
}

// BenchmarkCPUEpoch is the same epoch composed from the CPU backend's
// kernels (cpuOpenLoopLossGrad), for the speed-up ratio.
func BenchmarkCPUEpoch(b *testing.B) {
	for _, bc := range benchCases {
		b.Run(bc.name, func(b *testing.B) {
			cl, s, theta, g, lin, u, q, y := benchSetup(bc)
			grad := make([]float64, cl.NumParams()+cl.MN*cl.MG)
			cpu := &CPU{}
			for b.Loop() {
				cpuOpenLoopLossGrad(cpu, cl, s, theta, g, lin, u, q, y, grad)
			}
		})
	}
}

func benchBPTT(b *testing.B, be Backend, bc benchCase) {
	cl, s, theta, g, lin, u, _, y := benchSetup(bc)
	np := cl.NumParams()
	dth, dg := make([]float64, np), make([]float64, cl.MN*cl.MG)
	type batch struct {
		s       Seqs
		u, y, d []float64
	}
	var batches []batch
	for b0 := 0; b0 < bc.B; b0 += bc.bpttBatch {
		nb := min(bc.bpttBatch, bc.B-b0)
		lo, hi := s.Off[b0], s.Off[b0+nb]
		batches = append(batches, batch{Uniform(nb, bc.T), u[lo:hi], make([]float64, hi-lo), y[lo:hi]})
	}
	var tape Tape
	epoch := func() {
		for _, bt := range batches {
			be.ClosedLoopForward(cl, bt.s, theta, g, lin, bt.u, bt.y, &tape)
			be.ClosedLoopBackward(cl, bt.s, theta, g, lin, bt.u, &tape, bt.d, dth, dg, nil)
		}
	}
	epoch()
	for b.Loop() {
		epoch()
	}
}

func BenchmarkCUDABPTTEpoch(b *testing.B) {
	c := newTestCUDA(b)
	defer c.Close()
	for _, bc := range benchCases {
		b.Run(bc.name, func(b *testing.B) { benchBPTT(b, c, bc) })
	}
}

func BenchmarkCPUBPTTEpoch(b *testing.B) {
	for _, bc := range benchCases {
		b.Run(bc.name, func(b *testing.B) { benchBPTT(b, &CPU{}, bc) })
	}
}
