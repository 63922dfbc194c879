package loop

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// laguerreRef is the i-th Laguerre function of pole a on m samples by
// convolution, independently of Laguerre's recurrence: the first-order
// filter's impulse response √(1−a²)·a^t convolved i times with the
// all-pass's, −a at t = 0 and (1−a²)·a^(t−1) after.
func laguerreRef(m, i int, a float64) []float64 {
	h := make([]float64, m)
	for t := range h {
		h[t] = math.Sqrt(1-a*a) * math.Pow(a, float64(t))
	}
	p := make([]float64, m)
	p[0] = -a
	for t := 1; t < m; t++ {
		p[t] = (1 - a*a) * math.Pow(a, float64(t-1))
	}
	for range i {
		next := make([]float64, m)
		for t := range next {
			for s := 0; s <= t; s++ {
				next[t] += p[s] * h[t-s]
			}
		}
		h = next
	}
	return h
}

// TestLaguerre: the columns are orthonormal; where the functions have
// decayed within the window they are the Laguerre functions themselves
// (the QR changes nothing), computed by convolution; pole 0 gives unit
// vectors; bad sizes and poles are refused.
func TestLaguerre(t *testing.T) {
	compared := 0
	for _, c := range []struct {
		m, k int
		a    float64
	}{{400, 6, 0.5}, {300, 4, 0.9}, {60, 5, 0.2}, {250, 16, 0.95}, {20, 20, 0.7}} {
		q, err := Laguerre(c.m, c.k, c.a)
		if err != nil {
			t.Fatal(err)
		}
		var g mat.Dense
		g.Mul(q.T(), q)
		if !mat.EqualApprox(&g, eye(c.k), 1e-10) {
			t.Errorf("m %d, k %d, a %g: QᵀQ is not the identity", c.m, c.k, c.a)
		}
		// where the functions' tails beyond the window are negligible
		if tail := math.Pow(c.a, float64(c.m-4*c.k)); tail < 1e-12 {
			compared++
			for i := range c.k {
				want := laguerreRef(c.m, i, c.a)
				if got := mat.Col(nil, i, q); !floats.EqualApprox(got, want, 1e-9) {
					t.Errorf("m %d, a %g: function %d differs from the convolution's", c.m, c.a, i)
				}
			}
		}
	}
	if compared < 3 {
		t.Fatalf("only %d cases compared with the convolution", compared)
	}
	q, _ := Laguerre(10, 3, 0)
	for i := range 10 {
		for j := range 3 {
			want := 0.0
			if i == j {
				want = 1
			}
			if math.Abs(q.At(i, j)-want) > 1e-15 {
				t.Fatalf("pole 0: Q[%d,%d] = %g, want %g", i, j, q.At(i, j), want)
			}
		}
	}
	for _, c := range []struct {
		m, k int
		a    float64
	}{{10, 0, 0.5}, {10, 11, 0.5}, {10, 3, 1}, {10, 3, -0.1}, {10, 3, math.NaN()}} {
		if _, err := Laguerre(c.m, c.k, c.a); !errors.Is(err, ErrShape) {
			t.Errorf("m %d, k %d, a %g: err %v, want ErrShape", c.m, c.k, c.a, err)
		}
	}
}

func eye(n int) *mat.Dense {
	d := mat.NewDense(n, n, nil)
	for i := range n {
		d.Set(i, i, 1)
	}
	return d
}

// TestChoosePole: a factor made of Laguerre functions of a pole of the
// grid is recognized, with all of its energy; a pole between grid points
// gets a neighbour.
func TestChoosePole(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range []struct {
		a        float64
		want     []float64
		minShare float64
	}{{0.9, []float64{0.9}, 1 - 1e-12}, {0.97, []float64{0.97}, 1 - 1e-12}, {0.5, []float64{0.5}, 1 - 1e-12}, {0.96, []float64{0.95, 0.97}, 0.99}} {
		f := make([]float64, 200)
		for i := range 4 {
			floats.AddScaled(f, rng.NormFloat64(), laguerreRef(200, i, c.a))
		}
		pole, share, err := ChoosePole(f, 8)
		if err != nil {
			t.Fatal(err)
		}
		ok := false
		for _, w := range c.want {
			ok = ok || pole == w
		}
		if !ok || share < c.minShare || share > 1+1e-12 {
			t.Errorf("functions of pole %g: chose %g holding %.6f of the energy, want one of %v and ≥ %g", c.a, pole, share, c.want, c.minShare)
		}
	}
	if p, s, err := ChoosePole(make([]float64, 5), 2); err != nil || p != 0 || s != 1 {
		t.Errorf("zero factor: %g, %g, %v", p, s, err)
	}
	if _, _, err := ChoosePole(make([]float64, 5), 6); !errors.Is(err, ErrShape) {
		t.Errorf("more functions than samples: err %v", err)
	}
}

// TestBasisAdjoint: project is the transpose of expand (⟨expand c, v⟩ =
// ⟨c, project v⟩, which makes project of the model's gradient the gradient
// of the coefficients), project∘expand is the identity, and factors no
// longer than k and the other parameters pass through.
func TestBasisAdjoint(t *testing.T) {
	for i, s := range []Structure{
		{R1: 2, R2: 2, Hidden: []int{5}, B1: 2, T1: 30, L1: 60, B2: 2, T2: 30, L2: 30},
		{R1: 1, R2: 1, Hidden: []int{3}, B1: 1, T1: 4, L1: 40, B2: 2, T2: 12, L2: 0, P1: 2, Rec: 2},
		{R1: 1, R2: 0, B1: 0, L1: 9, B2: 1, T2: 3},
	} {
		m := randomModel(t, s, uint64(i+1))
		b, err := newBasis(m, 8, 0.8)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(uint64(i), 9))
		c, v := make([]float64, b.reduced), make([]float64, b.full)
		for j := range c {
			c[j] = rng.NormFloat64()
		}
		for j := range v {
			v[j] = rng.NormFloat64()
		}
		ec, pv := make([]float64, b.full), make([]float64, b.reduced)
		b.expand(c, ec)
		b.project(v, pv)
		if l, r := floats.Dot(ec, v), floats.Dot(c, pv); math.Abs(l-r) > 1e-10*math.Max(1, math.Abs(l)) {
			t.Errorf("structure %d: ⟨expand c, v⟩ = %g, ⟨c, project v⟩ = %g", i, l, r)
		}
		back := make([]float64, b.reduced)
		b.project(ec, back)
		if !floats.EqualApprox(back, c, 1e-10) {
			t.Errorf("structure %d: project(expand c) ≠ c", i)
		}
		// the lift's parameters lead, unchanged
		nl := m.Lift.NumParams()
		if !floats.Equal(ec[:nl], c[:nl]) {
			t.Errorf("structure %d: the lift's parameters changed", i)
		}
		if b.full != m.NumParams() || b.reduced >= b.full {
			t.Errorf("structure %d: %d coefficients for %d parameters", i, b.reduced, b.full)
		}
	}
}

// TestTrainBasis: with a basis, the trained loop's long factors lie in the
// span of the Laguerre functions of the pole chosen for the FIR it started
// from, the loop is certified, training is deterministic and no worse than
// where it started.
func TestTrainBasis(t *testing.T) {
	s := Structure{R1: 1, R2: 1, Hidden: []int{4}, B1: 1, T1: 20, L1: 40, B2: 1, T2: 6, L2: 20}
	truth := randomModel(t, s, 42)
	truth.SU, truth.SY = 2, 0.5
	train, val := loopData(t, truth, 1, 8, 150), loopData(t, truth, 2, 3, 150)
	cfg := DefaultConfig()
	cfg.Structure, cfg.Epochs, cfg.Patience, cfg.Workers, cfg.Basis = s, 30, 0, 2, 8
	// a passive FIR of 40 taps to start from: a slow first-order response
	cfg.InitLinear = make([]float64, 40)
	for k := range cfg.InitLinear {
		cfg.InitLinear[k] = 0.1 * math.Pow(0.93, float64(k))
	}
	cfg.InitLinear[0] *= 2
	first := math.NaN()
	cfg.Progress = func(ep int, _, f float64) {
		if ep == 0 {
			first = f
		}
	}
	res, err := Train(context.Background(), cfg, train, val)
	if err != nil {
		t.Fatal(err)
	}
	if res.Pole <= 0 {
		t.Errorf("pole %g: want one chosen for the FIR's slow response", res.Pole)
	}
	if !(res.ValFit >= first) {
		t.Errorf("validation Fit %.2f, after the first epoch %.2f", res.ValFit, first)
	}
	m := res.Model
	for _, f := range []struct {
		name   string
		f      []float64
		blocks int
	}{{"F1", m.F1, m.B1}, {"FL1", m.FL1, 1}, {"F2", m.F2, m.B2}, {"FL2", m.FL2, 1}} {
		n := len(f.f) / f.blocks
		if n <= cfg.Basis {
			continue
		}
		q, _ := Laguerre(n, cfg.Basis, res.Pole)
		for j := range f.blocks {
			x := mat.NewVecDense(n, append([]float64(nil), f.f[j*n:(j+1)*n]...))
			var c, r mat.VecDense
			c.MulVec(q.T(), x)
			r.MulVec(q, &c)
			r.SubVec(&r, x)
			if mat.Norm(&r, 2) > 1e-10*math.Max(1, mat.Norm(x, 2)) {
				t.Errorf("%s block %d leaves the span by %g", f.name, j, mat.Norm(&r, 2))
			}
		}
	}
	// H2's 6-tap branch is shorter than the basis: free
	if cert, err := m.Certify(); err != nil || !cert.Passive {
		t.Errorf("certificate %+v, %v", cert, err)
	}
	cfg.Progress = nil
	again, err := Train(context.Background(), cfg, train, val)
	if err != nil || again.ValFit != res.ValFit || again.Pole != res.Pole {
		t.Errorf("second run: Fit %v pole %v (first %v, %v), err %v", again.ValFit, again.Pole, res.ValFit, res.Pole, err)
	}
	// without a FIR to start from, a pole whose functions span the memory
	cfg.InitLinear = nil
	cold, err := Train(context.Background(), cfg, train, val)
	if err != nil {
		t.Fatal(err)
	}
	if want, _, _ := ChoosePole(decay(s.Memory()), cfg.Basis); cold.Pole != want || want <= 0.5 {
		t.Errorf("no initial FIR: pole %g, want %g (> 0.5: the memory of %d taps spanned)", cold.Pole, want, s.Memory())
	}
	cfg.Basis = -1
	if _, err := Train(context.Background(), cfg, train, val); !errors.Is(err, ErrConfig) {
		t.Errorf("basis -1: err %v, want ErrConfig", err)
	}
}

func decay(n int) []float64 {
	f := make([]float64, n)
	for k := range f {
		f[k] = math.Exp(-3 * float64(k) / float64(n))
	}
	return f
}
