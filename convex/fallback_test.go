package convex

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestExactDelta checks the safety margin Δ of Exact blocks against the
// package doc, Δ = max(1e-8·max(|Margin|, Σ|g|), 10·Tol), for margins of both
// signs and zero: a positive margin used to get 1e-8·Margin alone, below the
// rounding floor 10·Tol.
func TestExactDelta(t *testing.T) {
	P, b := msdGram(t, 30)
	for _, margin := range []float64{0, 5e-3, -5e-3} {
		p := &Problem{P: P, B: b, GammaG: 1, Blocks: []Block{{Offset: 0, Len: 30, Kind: Exact, Margin: margin}}}
		s, err := Solve(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		g := s.X[:30]
		want := math.Max(1e-8*math.Max(math.Abs(margin), sumAbs(g)), 10*defaultTol)
		// Δ is set from the first inner solve's taps; the final taps differ a little.
		if d := s.State[0].Delta; d < want/2 || d > 2*want {
			t.Errorf("margin %g: Delta %.3g, want about %.3g", margin, d, want)
		}
		if c := s.Certificates[0]; c.MinRe < margin {
			t.Errorf("margin %g: certified minimum %.6g", margin, c.MinRe)
		}
	}
}

// TestExactFallbackFromSampled is the trainer's fallback: a Sampled block whose
// optimum dips below zero between its samples is re-solved in exact mode,
// warm-started from the sampled solution. The warm solve must keep the finer
// sampled grid, reach the cold exact optimum, and take fewer interior-point
// iterations than the cold solve; with ShiftTol it must still return
// certified taps, within the documented shift of that optimum.
func TestExactFallbackFromSampled(t *testing.T) {
	const L = 80
	P, b := msdGram(t, L)
	rng := rand.New(rand.NewPCG(21, 21))
	tried := 0
	for trial := 0; trial < 20 && tried < 3; trial++ {
		bb, sampled, ss := fallbackCase(t, P, b, rng)
		if ss.Certificates[0].Passive {
			continue // the samples happened to suffice
		}
		tried++
		exact := Block{Offset: 0, Len: L, Kind: Exact}
		pe := &Problem{P: P, B: bb, GammaG: 1e-3, Blocks: []Block{exact}}
		cold, err := Solve(pe, nil)
		if err != nil {
			t.Fatal(err)
		}
		warm, err := Solve(pe, &Options{Warm: ss})
		if err != nil {
			t.Fatal(err)
		}
		if warm.State[0].GridH != sampled.H {
			t.Errorf("trial %d: warm exact grid H = %d, want the sampled grid %d", trial, warm.State[0].GridH, sampled.H)
		}
		for name, s := range map[string]*Solution{"cold": cold, "warm": warm} {
			if c := s.Certificates[0]; !c.Passive || c.MinRe < 0 {
				t.Errorf("trial %d: %s exact solve not certified: %+v", trial, name, c)
			}
		}
		if d := math.Abs(warm.Objective - cold.Objective); d > 1e-7*(1+math.Abs(cold.Objective)) {
			t.Errorf("trial %d: warm objective %.12g, cold %.12g (shifts %.2g, %.2g)", trial, warm.Objective, cold.Objective, warm.Shift[0], cold.Shift[0])
		}
		if warm.Iterations >= cold.Iterations {
			t.Errorf("trial %d: warm start from the sampled solution took %d iterations, cold %d", trial, warm.Iterations, cold.Iterations)
		}
		const shiftTol = 1e-6
		sh, err := Solve(pe, &Options{Warm: ss, ShiftTol: shiftTol})
		if err != nil {
			t.Fatal(err)
		}
		if c := sh.Certificates[0]; !c.Passive || c.MinRe < 0 {
			t.Errorf("trial %d: ShiftTol solve not certified: %+v", trial, c)
		}
		S := sumAbs(sh.X)
		if sh.Shift[0] > 1.01*shiftTol*S+1e-12 {
			t.Errorf("trial %d: shift %.3g above ShiftTol·Σ|g| = %.3g", trial, sh.Shift[0], shiftTol*S)
		}
		if sh.Rounds > warm.Rounds {
			t.Errorf("trial %d: ShiftTol took %d rounds, without it %d", trial, sh.Rounds, warm.Rounds)
		}
		// The shift moves g(0) only; the objective can rise by at most what
		// that costs at the exact optimum: ½Q₀₀s² + s·|∂f/∂g(0)|.
		q00 := P.At(0, 0) + 1e-3
		grad0 := -bb[0]
		for j := 0; j < L; j++ {
			grad0 += P.At(0, j) * cold.X[j]
		}
		grad0 += 1e-3 * cold.X[0]
		s := sh.Shift[0] + 1e-9*S
		bound := 0.5*q00*s*s + s*math.Abs(grad0) + 1e-7*(1+math.Abs(cold.Objective))
		if sh.Objective-cold.Objective > bound || sh.Objective < cold.Objective-1e-7*(1+math.Abs(cold.Objective)) {
			t.Errorf("trial %d: ShiftTol objective %.12g, exact %.12g (allowed rise %.3g)", trial, sh.Objective, cold.Objective, bound)
		}
		t.Logf("trial %d: cold %d it/%d rounds, warm %d/%d, ShiftTol %d/%d (shift %.2g)", trial,
			cold.Iterations, cold.Rounds, warm.Iterations, warm.Rounds, sh.Iterations, sh.Rounds, sh.Shift[0])
	}
	if tried == 0 {
		t.Fatal("no trial had a sampled solution that fails its certificate: the test checks nothing")
	}
}

// fallbackCase perturbs the right-hand side b of an L-tap FIR problem at
// random (data-like: the perturbation decays along the taps) and solves it
// with Sampled constraints Re G ≥ 0 on H = 2000 samples, which an optimum in
// contact with them may violate between the samples.
func fallbackCase(tb testing.TB, P *mat.SymDense, b []float64, rng *rand.Rand) ([]float64, Block, *Solution) {
	bb := append([]float64(nil), b...)
	for i := range bb {
		bb[i] += 0.3 * math.Abs(b[0]) * rng.NormFloat64() / float64(1+i)
	}
	sampled := Block{Offset: 0, Len: len(b), Kind: Sampled, H: 2000, Eps: 0}
	ss, err := Solve(&Problem{P: P, B: bb, GammaG: 1e-3, Blocks: []Block{sampled}}, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return bb, sampled, ss
}

// BenchmarkExactFallback times the trainer's re-solve of a Sampled FIR (80 taps, the
// mass-spring-damper data, H = 2000) that failed its certificate, in exact mode: cold, warm
// from the sampled solution, and warm with the trainer's ShiftTol.
func BenchmarkExactFallback(b *testing.B) {
	P, bb := msdGram(b, 80)
	rng := rand.New(rand.NewPCG(21, 21))
	for {
		bb2, _, ss := fallbackCase(b, P, bb, rng)
		if ss.Certificates[0].Passive {
			continue
		}
		p := &Problem{P: P, B: bb2, GammaG: 1e-3, Blocks: []Block{{Offset: 0, Len: 80, Kind: Exact}}}
		b.Run("cold", func(b *testing.B) { benchSolve(b, p, nil) })
		b.Run("warm", func(b *testing.B) { benchSolve(b, p, &Options{Warm: ss}) })
		b.Run("warm/ShiftTol=1e-6", func(b *testing.B) { benchSolve(b, p, &Options{Warm: ss, ShiftTol: 1e-6}) })
		return
	}
}

// TestShiftTolInvalid: a ShiftTol that is not a finite positive number is
// the default, 0 (an infinite one would otherwise accept any dip, and NaN
// none, running the exchange to its round limit).
func TestShiftTolInvalid(t *testing.T) {
	P, b := msdGram(t, 30)
	p := &Problem{P: P, B: b, GammaG: 1, Blocks: []Block{{Offset: 0, Len: 30, Kind: Exact}}}
	ref, err := Solve(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range []float64{math.NaN(), -1, math.Inf(1), math.Inf(-1)} {
		s, err := Solve(p, &Options{ShiftTol: st})
		if err != nil {
			t.Fatalf("ShiftTol %g: %v", st, err)
		}
		for i := range s.X {
			if s.X[i] != ref.X[i] {
				t.Errorf("ShiftTol %g: x[%d] = %g, default %g", st, i, s.X[i], ref.X[i])
				break
			}
		}
	}
}
