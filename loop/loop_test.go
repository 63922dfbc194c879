package loop

import (
	"math"
	"math/rand/v2"
	"testing"
)

func randomModel(t testing.TB, s Structure, seed uint64) *Model {
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
	for _, f := range [][]float64{m.F1, m.FL1, m.F2, m.FL2, m.SA, m.SB, m.RT} {
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

// TestGradient: backward (through the taps' factorization, the sections'
// parameterization, the slow states and the recurrent lift) agrees with central finite differences of
// the simulation loss, for every parameter, on random models of several
// structures, with and without H1's sections.
func TestGradient(t *testing.T) {
	for i, s := range []Structure{
		{R1: 1, R2: 1, Hidden: []int{3}, B1: 2, T1: 4, L1: 3, B2: 1, T2: 3, L2: 2},
		{R1: 2, R2: 3, Hidden: []int{4, 3}, B1: 1, T1: 5, B2: 2, T2: 2},
		{R1: 0, R2: 2, B1: 0, L1: 6, B2: 2, T2: 4, L2: 0},
		{R1: 3, R2: 0, Hidden: []int{2}, B1: 3, T1: 3, L1: 0, B2: 0, L2: 4},
		{R1: 1, R2: 1, Hidden: []int{3}, B1: 2, T1: 4, L1: 3, B2: 1, T2: 3, L2: 2, P1: 2},
		{R1: 0, R2: 2, B1: 0, L1: 6, B2: 2, T2: 4, L2: 0, P1: 3},
		{R1: 3, R2: 0, Hidden: []int{2}, B1: 3, T1: 3, L1: 0, B2: 0, L2: 4, P1: 1},
		{R1: 1, R2: 1, Hidden: []int{3}, B1: 2, T1: 4, L1: 3, B2: 1, T2: 3, L2: 2, S: 2},
		{R1: 0, R2: 0, Hidden: []int{4}, B1: 1, T1: 3, L1: 20, B2: 2, T2: 2, L2: 1, P1: 1, S: 1},
		{R1: 1, R2: 1, Hidden: []int{3}, B1: 2, T1: 4, L1: 3, B2: 1, T2: 3, L2: 2, Rec: 3},
		{R1: 0, R2: 0, Hidden: []int{4}, B1: 1, T1: 3, L1: 5, B2: 2, T2: 2, L2: 1, P1: 1, S: 1, Rec: 2},
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
// passivity theorem; a check of forward against the doc's claim), with
// and without slow states and a recurrent lift, whose GRU weights are
// scaled up so that its state swings hard.
func TestPassiveLoop(t *testing.T) {
	for i := 0; i < 30; i++ {
		st := Structure{R1: 2, R2: 2, Hidden: []int{5}, B1: 3, T1: 6, L1: 4, B2: 2, T2: 4, L2: 3}
		if i >= 10 {
			st.S, st.Rec = i%3, 4
		}
		m := randomModel(t, st, uint64(100+i))
		for k := range m.RT {
			m.RT[k] *= 5
		}
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

// TestSectionsPassive: for random parameters, far ones included, every
// section is stable, Re S(e^{iω}) on a dense grid stays ≥ SectionMinRe's
// bound, which the grid attains, and Certify counts the sections and
// passes them.
func TestSectionsPassive(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	alpha, beta := make([]float64, 200), make([]float64, 200)
	for k := range alpha {
		alpha[k] = 4 * rng.NormFloat64()
		beta[k] = rng.NormFloat64()
	}
	alpha[0], alpha[1] = 40, -40 // tanh rounds to ±1: the margin keeps the pole inside
	a, b := make([]float64, len(alpha)), make([]float64, len(alpha))
	Sections(alpha, beta, a, b)
	for k := range a {
		if !(math.Abs(a[k]) < 1) || !(b[k] >= 0) {
			t.Fatalf("α %g, β %g: pole %g, gain %g", alpha[k], beta[k], a[k], b[k])
		}
		lo, om := SectionMinRe(a[k], b[k])
		least, at := math.Inf(1), 0.0
		for w := 0; w <= 2000; w++ {
			o := math.Pi * float64(w) / 2000
			re := b[k] * (1 - a[k]*math.Cos(o)) / (1 - 2*a[k]*math.Cos(o) + a[k]*a[k])
			if re < least {
				least, at = re, o
			}
		}
		if lo > least || least-lo > 1e-12*math.Max(1, least) || (b[k] > 0 && at != om) {
			t.Errorf("a %g, b %g: bound %g at %g, grid min %g at %g", a[k], b[k], lo, om, least, at)
		}
	}
	m := randomModel(t, Structure{R1: 1, R2: 1, B1: 1, T1: 3, L1: 4, B2: 1, T2: 2, P1: 3}, 4)
	c, err := m.Certify()
	if err != nil || !c.Passive || c.FIRs != 3 || c.Sections != 3 {
		t.Fatalf("certificate %+v, err %v", c, err)
	}
	tp := m.FIRTaps()
	for k := range tp.Poles {
		if re, _ := SectionMinRe(tp.Poles[k], tp.Gains[k]); re < c.MinRe {
			t.Errorf("section %d: bound %g below the certificate's MinRe %g", k, re, c.MinRe)
		}
	}
}

// TestSectionsFirstOrder: a loop whose H1 is one section and whose H2 is
// nothing but a zero FIR is the first-order filter y(t) = a y(t−1) + b u(t)
// of the section's pole and gain, in the data's units.
func TestSectionsFirstOrder(t *testing.T) {
	m, err := New(Structure{R1: 1, B1: 1, T1: 1, P1: 1})
	if err != nil {
		t.Fatal(err)
	}
	m.SA[0], m.SB[0] = 3, 1.5 // F1 = 0: the branch adds nothing
	m.SU, m.SY = 2, 0.5
	tp := m.FIRTaps()
	a, b := tp.Poles[0], tp.Gains[0]
	u := randomInput(3, 3000)
	y := m.Simulate(u)
	prev := 0.0
	for k, v := range u {
		want := a*prev + b*v/m.SU
		if math.Abs(y[k]-m.SY*want) > 1e-12*math.Max(1, math.Abs(y[k])) {
			t.Fatalf("y(%d) = %.17g, the section gives %.17g", k, y[k], m.SY*want)
		}
		prev = want
	}
	if dc := b / (1 - a); math.Abs(dc-1.5*1.5) > 1e-12 {
		t.Errorf("DC gain %g, want β² = %g", dc, 1.5*1.5)
	}
}

// TestHistoryAdjoint: historyAdjoint and tapsAdjoint, which read the
// recorded adjoints of a whole record, sum what the scatter form adds
// sample by sample (for every t, lag k from 1 to min(len(g)−1, t): the
// input at t−k gets h(t)·g(k), the tap at k gets h(t)·x(t−k)), on random
// records shorter and longer than the taps.
func TestHistoryAdjoint(t *testing.T) {
	for i, tc := range []struct{ taps, n int }{{1, 5}, {2, 1}, {3, 7}, {8, 5}, {20, 20}, {50, 37}, {5, 200}} {
		g := randomInput(uint64(3*i+1), tc.taps)
		h := randomInput(uint64(3*i+2), tc.n)
		x := randomInput(uint64(3*i+3), tc.n)
		wantX, wantG := make([]float64, tc.n), make([]float64, tc.taps)
		for tt := 0; tt < tc.n; tt++ {
			for k := 1; k <= min(tc.taps-1, tt); k++ {
				wantX[tt-k] += h[tt] * g[k]
				wantG[k] += h[tt] * x[tt-k]
			}
		}
		gb := make([]float64, tc.taps) // reversed, as backward keeps them
		tapsAdjoint(gb, h, x)
		for k := range wantG {
			if got := gb[tc.taps-1-k]; math.Abs(got-wantG[k]) > 1e-12*(1+math.Abs(wantG[k])) {
				t.Errorf("case %d: tap %d: tapsAdjoint %v, scatter %v", i, k, got, wantG[k])
			}
		}
		if gb[tc.taps-1] != 0 {
			t.Errorf("case %d: tapsAdjoint touched lag 0: %v", i, gb[tc.taps-1])
		}
		for tt := range wantX {
			if got := historyAdjoint(g, h, tt); math.Abs(got-wantX[tt]) > 1e-12*(1+math.Abs(wantX[tt])) {
				t.Errorf("case %d: sample %d: historyAdjoint %v, scatter %v", i, tt, got, wantX[tt])
			}
		}
	}
}
