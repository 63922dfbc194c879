package loop

import (
	"math"
	"math/rand/v2"
	"testing"
)

func randomModel(t *testing.T, s Structure, seed uint64) *Model {
	t.Helper()
	m, err := New(s)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, seed))
	m.init(rng)
	for l := range m.Lift.B { // non-zero biases everywhere
		for i := range m.Lift.B[l] {
			m.Lift.B[l][i] += 0.3 * rng.NormFloat64()
		}
	}
	for _, f := range [][]float64{m.F1, m.FL1, m.F2, m.FL2} {
		for i := range f {
			f[i] += 0.3 * rng.NormFloat64()
		}
	}
	return m
}

func randomInput(seed uint64, n int) []float64 {
	rng := rand.New(rand.NewPCG(seed, 1))
	u := make([]float64, n)
	for i := range u {
		u[i] = rng.NormFloat64()
	}
	return u
}

// loss is ½Σ(y − target)² over samples from skip on.
func loss(m *Model, u, target []float64, skip int) float64 {
	y := make([]float64, len(u))
	m.forward(m.taps(), u, y, nil)
	s := 0.0
	for i := skip; i < len(u); i++ {
		d := y[i] - target[i]
		s += d * d / 2
	}
	return s
}

// TestGradient: backward (through the taps' factorization) agrees with
// central finite differences of the simulation loss, for every parameter,
// on random models of several structures.
func TestGradient(t *testing.T) {
	for i, s := range []Structure{
		{R1: 1, R2: 1, Hidden: []int{3}, B1: 2, T1: 4, L1: 3, B2: 1, T2: 3, L2: 2},
		{R1: 2, R2: 3, Hidden: []int{4, 3}, B1: 1, T1: 5, B2: 2, T2: 2},
		{R1: 0, R2: 2, B1: 0, L1: 6, B2: 2, T2: 4, L2: 0},
		{R1: 3, R2: 0, Hidden: []int{2}, B1: 3, T1: 3, L1: 0, B2: 0, L2: 4},
	} {
		m := randomModel(t, s, uint64(i+1))
		u := randomInput(uint64(i+10), 40)
		target := randomInput(uint64(i+20), 40)
		skip := 3
		y := make([]float64, len(u))
		tp := newTape(m, len(u))
		tps := m.taps()
		m.forward(tps, u, y, tp)
		dy := make([]float64, len(u))
		for k := skip; k < len(u); k++ {
			dy[k] = y[k] - target[k]
		}
		gr := newGrads(m)
		m.backward(tps, u, y, dy, tp, gr)
		m.factorGrads(gr)
		got := gr.flat()
		theta := m.Flatten()
		worst := 0.0
		for p := range theta {
			h := 1e-6 * math.Max(1, math.Abs(theta[p]))
			orig := theta[p]
			theta[p] = orig + h
			m.SetFlat(theta)
			lp := loss(m, u, target, skip)
			theta[p] = orig - h
			m.SetFlat(theta)
			lm := loss(m, u, target, skip)
			theta[p] = orig
			m.SetFlat(theta)
			fd := (lp - lm) / (2 * h)
			err := math.Abs(fd-got[p]) / math.Max(1, math.Abs(fd))
			worst = math.Max(worst, err)
			if err > 1e-5 {
				t.Errorf("structure %d, parameter %d of %d: backward %.8g, finite differences %.8g", i, p, len(theta), got[p], fd)
			}
		}
		t.Logf("structure %d: %d parameters, worst relative error %.2g", i, len(theta), worst)
	}
}

// TestTapsPassive: the taps of any factors have Re G ≥ Margin·Σf² on a
// dense grid, and the exact certificate agrees.
func TestTapsPassive(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for _, m := range []int{1, 2, 7, 50} {
		f := make([]float64, m)
		for i := range f {
			f[i] = rng.NormFloat64()
		}
		g := make([]float64, m)
		Taps(f, g)
		ff := 0.0
		for _, v := range f {
			ff += v * v
		}
		for w := 0; w <= 2000; w++ {
			om := math.Pi * float64(w) / 2000
			re := 0.0
			for k, v := range g {
				re += v * math.Cos(float64(k)*om)
			}
			if re < Margin*ff*(1-1e-9)-1e-12 {
				t.Fatalf("m %d: Re G(%.3f) = %g < margin %g", m, om, re, Margin*ff)
			}
		}
	}
	mod := randomModel(t, Structure{R1: 1, R2: 1, B1: 2, T1: 30, L1: 40, B2: 2, T2: 10, L2: 5}, 9)
	c, err := mod.Certify()
	if err != nil || !c.Passive || c.FIRs != 6 {
		t.Fatalf("certificate %+v, err %v", c, err)
	}
}

// TestPassiveLoop: the simulated loop never creates energy: the running
// supply Σ u·y stays ≥ 0 from rest, for random models and inputs (the
// passivity theorem; a check of forward against the doc's claim).
func TestPassiveLoop(t *testing.T) {
	for i := 0; i < 20; i++ {
		m := randomModel(t, Structure{R1: 2, R2: 2, Hidden: []int{5}, B1: 3, T1: 6, L1: 4, B2: 2, T2: 4, L2: 3}, uint64(100+i))
		u := randomInput(uint64(200+i), 300)
		y := m.Simulate(u)
		s := 0.0
		for k := range u {
			s += u[k] * y[k]
			if s < -1e-9 {
				t.Fatalf("model %d: supply %g < 0 at sample %d", i, s, k)
			}
		}
	}
}

// TestFactor: the taps of Factor(g) reproduce a passive FIR g (a
// certified-passive one of the data package, and one with a near-zero of
// Re G) to a small relative error.
func TestFactor(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for _, m := range []int{1, 5, 40, 300} {
		f0 := make([]float64, m)
		for i := range f0 {
			f0[i] = rng.NormFloat64() * math.Exp(-float64(i)/float64(m))
		}
		g := make([]float64, m)
		Taps(f0, g) // a passive FIR, |F0|² possibly near 0 somewhere
		g[0] += 1e-3 * g[0]
		back := make([]float64, m)
		Taps(Factor(g), back)
		num, den := 0.0, 0.0
		for k := range g {
			num += (back[k] - g[k]) * (back[k] - g[k])
			den += g[k] * g[k]
		}
		if e := math.Sqrt(num / den); e > 1e-3 {
			t.Errorf("m %d: Taps(Factor(g)) off by %.2g relative", m, e)
		}
	}
}
