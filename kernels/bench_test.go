package kernels

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// msd is the paper's mass-spring-damper training set shape: 300 trajectories
// × 250 samples, m_N = 10, m_G = 50, features R1 = R2 = 1, MLP 2→4→4→10.
const (
	msdB, msdT, msdN, msdG = 300, 250, 10, 50
)

var msdSizes = []int{2, 4, 4, 10}

type openLoop struct {
	s         Seqs
	u, ytrue  []float64
	x0        []float64 // features, N × 2
	w, b      [][]float64
	h         [][]float64 // activations h_1 … h_L (h_L = gains)
	dh        [][]float64
	dw, db    [][]float64
	g, z, y   []float64
	dy, dn    []float64
	rows, mNG int
}

func newOpenLoop(s Seqs, rng *rand.Rand) *openLoop {
	N := s.Total()
	e := &openLoop{s: s, rows: N}
	e.u, e.ytrue = randVec(rng, N, 1), randVec(rng, N, 1)
	e.x0 = randVec(rng, N*msdSizes[0], 1)
	for l := 0; l+1 < len(msdSizes); l++ {
		in, out := msdSizes[l], msdSizes[l+1]
		e.w = append(e.w, randVec(rng, out*in, 0.8))
		e.b = append(e.b, randVec(rng, out, 0.3))
		e.dw = append(e.dw, make([]float64, out*in))
		e.db = append(e.db, make([]float64, out))
		e.h = append(e.h, make([]float64, N*out))
		e.dh = append(e.dh, make([]float64, N*out))
	}
	e.g = randVec(rng, msdN*msdG, 0.02)
	e.z, e.y = make([]float64, N*msdN), make([]float64, N)
	e.dy = make([]float64, N)
	return e
}

// step is one forward and backward pass of the open-loop loss
// ℓ = Σ_t (ŷ(t) − y(t))² w.r.t. θ_N (dg not needed: dg == nil).
func (e *openLoop) step(c *CPU) float64 {
	L := len(e.w)
	in := e.x0
	for l := range L {
		c.DenseTanhForward(e.rows, msdSizes[l], msdSizes[l+1], in, e.w[l], e.b[l], e.h[l])
		in = e.h[l]
	}
	n := e.h[L-1]
	c.ConvForward(e.s, msdN, msdG, e.u, n, e.g, e.z, e.y)
	loss := 0.0
	for i, v := range e.y {
		d := v - e.ytrue[i]
		loss += d * d
		e.dy[i] = 2 * d
	}
	c.ConvBackward(e.s, msdN, msdG, e.u, n, e.g, e.z, e.dy, e.dh[L-1], nil)
	for l := L - 1; l >= 0; l-- {
		x := e.x0
		var dx []float64
		if l > 0 {
			x, dx = e.h[l-1], e.dh[l-1]
		}
		c.DenseTanhBackward(e.rows, msdSizes[l], msdSizes[l+1], x, e.w[l], e.h[l], e.dh[l], dx, e.dw[l], e.db[l])
	}
	return loss
}

// BenchmarkOpenLoopEpoch: forward + backward of the open-loop loss over the
// whole msd training set (one op = one epoch). "full" does it as one batch of
// 300 trajectories; "minibatch8" as 38 steps of 8 trajectories (the paper's
// Adam batch size), which pays the per-call overhead 38 times.
func BenchmarkOpenLoopEpoch(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	b.Run("full", func(b *testing.B) {
		e := newOpenLoop(Uniform(msdB, msdT), rng)
		c := &CPU{}
		e.step(c)
		b.ReportAllocs()
		for b.Loop() {
			e.step(c)
		}
	})
	b.Run("minibatch8", func(b *testing.B) {
		var es []*openLoop
		for done := 0; done < msdB; done += 8 {
			es = append(es, newOpenLoop(Uniform(min(8, msdB-done), msdT), rng))
		}
		c := &CPU{}
		b.ReportAllocs()
		for b.Loop() {
			for _, e := range es {
				e.step(c)
			}
		}
	})
}

func convInputs(rng *rand.Rand) (s Seqs, u, n, g, z, y, dy, dn, dg []float64) {
	s = Uniform(msdB, msdT)
	N := s.Total()
	return s, randVec(rng, N, 1), randVec(rng, N*msdN, 1), randVec(rng, msdN*msdG, 0.02),
		make([]float64, N*msdN), make([]float64, N), randVec(rng, N, 1), make([]float64, N*msdN), make([]float64, msdN*msdG)
}

func BenchmarkConvForward(b *testing.B) {
	s, u, n, g, z, y, _, _, _ := convInputs(rand.New(rand.NewPCG(2, 2)))
	for _, W := range []int{1, 2} {
		b.Run(fmt.Sprintf("W%d", W), func(b *testing.B) {
			c := &CPU{Workers: W}
			c.ConvForward(s, msdN, msdG, u, n, g, z, y)
			for b.Loop() {
				c.ConvForward(s, msdN, msdG, u, n, g, z, y)
			}
			b.ReportMetric(float64(s.Total()*msdN*msdG)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GMAC/s")
		})
	}
}

func BenchmarkConvBackward(b *testing.B) {
	s, u, n, g, z, y, dy, dn, dg := convInputs(rand.New(rand.NewPCG(3, 3)))
	c0 := &CPU{}
	c0.ConvForward(s, msdN, msdG, u, n, g, z, y)
	for _, tc := range []struct {
		name string
		W    int
		dg   []float64
	}{{"dn/W1", 1, nil}, {"dn/W2", 2, nil}, {"dn+dg/W2", 2, dg}} {
		b.Run(tc.name, func(b *testing.B) {
			c := &CPU{Workers: tc.W}
			c.ConvBackward(s, msdN, msdG, u, n, g, z, dy, dn, tc.dg)
			for b.Loop() {
				c.ConvBackward(s, msdN, msdG, u, n, g, z, dy, dn, tc.dg)
			}
		})
	}
}

// BenchmarkGram: msd (300 × 250 samples, nθ = 10·50 = 500) and robot
// (1 × 1984 samples, nθ = 3·600 + 200 = 2000), gonum's Dsyrk against the
// AVX2 path.
func BenchmarkGram(b *testing.B) {
	for _, tc := range []struct {
		name       string
		s          Seqs
		mN, mG, mL int
	}{
		{"msd", Uniform(msdB, msdT), msdN, msdG, 0},
		{"robot", Uniform(1, 1984), 3, 600, 200},
	} {
		rng := rand.New(rand.NewPCG(4, 4))
		N := tc.s.Total()
		u, n, y := randVec(rng, N, 1), randVec(rng, N*tc.mN, 1), randVec(rng, N, 1)
		nt := tc.mN*tc.mG + tc.mL
		P, bv := make([]float64, nt*nt), make([]float64, nt)
		for _, fast := range gramPaths() {
			path := map[bool]string{false: "dsyrk", true: "avx2"}[fast]
			b.Run(tc.name+"/"+path, func(b *testing.B) {
				defer setFastGram(fast)()
				c := &CPU{}
				c.Gram(tc.s, tc.mN, tc.mG, tc.mL, u, n, y, P, bv)
				b.ReportAllocs()
				for b.Loop() {
					c.Gram(tc.s, tc.mN, tc.mG, tc.mL, u, n, y, P, bv)
				}
				// multiply-adds of the upper triangle: N·nθ(nθ+1)/2
				b.ReportMetric(float64(N)*float64(nt*(nt+1)/2)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GMAC/s")
			})
		}
	}
}

// BenchmarkClosedLoop: closed-loop forward + BPTT over the msd set (FB,
// R1 = R2 = 1, MLP 2→4→4→10), gradients w.r.t. θ_N and g.
func BenchmarkClosedLoop(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 5))
	cl := &ClosedLoop{MN: msdN, MG: msdG, R1: 1, R2: 1, Feedback: true, Sizes: msdSizes, UA: 1, QA: 1}
	s := Uniform(msdB, msdT)
	N := s.Total()
	theta, g := randVec(rng, cl.NumParams(), 0.8), randVec(rng, msdN*msdG, 0.005)
	u, y, dy := randVec(rng, N, 1), make([]float64, N), randVec(rng, N, 1)
	dth, dg := make([]float64, len(theta)), make([]float64, len(g))
	c := &CPU{}
	var tape Tape
	c.ClosedLoopForward(cl, s, theta, g, nil, u, y, &tape)
	b.ReportAllocs()
	for b.Loop() {
		c.ClosedLoopForward(cl, s, theta, g, nil, u, y, &tape)
		c.ClosedLoopBackward(cl, s, theta, g, nil, u, &tape, dy, dth, dg, nil)
	}
}
