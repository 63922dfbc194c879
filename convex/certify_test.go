package convex

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// gridMin is the brute-force reference: Re G on an M-point uniform grid of [0, π].
func gridMin(g []float64, M int) (float64, float64) {
	best, wb := math.Inf(1), 0.0
	for i := 0; i < M; i++ {
		w := math.Pi * float64(i) / float64(M-1)
		s := 0.0
		for k, v := range g {
			s += v * math.Cos(float64(k)*w)
		}
		if s < best {
			best, wb = s, w
		}
	}
	return best, wb
}

func reG(g []float64, w float64) float64 {
	s := 0.0
	for k, v := range g {
		s += v * math.Cos(float64(k)*w)
	}
	return s
}

func TestCertifyAgainstGrid(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	M := 1_000_000
	if testing.Short() {
		M = 100_000
	}
	cases := []struct {
		name  string
		L     int
		decay float64
	}{
		{"L2", 2, 1}, {"L5", 5, 1}, {"L20-decay", 20, 0.8}, {"L60", 60, 1}, {"L100-decay", 100, 0.95},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := make([]float64, tc.L)
			for k := range g {
				g[k] = rng.NormFloat64() * math.Pow(tc.decay, float64(k))
			}
			g[0] += 0.3
			c, err := Certify(g)
			if err != nil {
				t.Fatal(err)
			}
			gm, gw := gridMin(g, M)
			S := 0.0
			for _, v := range g {
				S += math.Abs(v)
			}
			if c.MinRe > gm+1e-9 {
				t.Errorf("certified min %.15g above grid min %.15g (at %g)", c.MinRe, gm, gw)
			}
			// the grid spacing is π/1e6; a minimum between points is lower by ≤ ½p″Δ²
			if c.MinRe < gm-1e-9*S {
				t.Errorf("certified min %.15g far below grid min %.15g", c.MinRe, gm)
			}
			if d := c.Upper - c.MinRe; d < 0 || d > 1e-11*S {
				t.Errorf("gap Upper−MinRe = %g (S = %g)", d, S)
			}
			if v := reG(g, c.Omega); math.Abs(v-c.Upper) > 1e-12*S {
				t.Errorf("Re G(Omega) = %.15g, Upper = %.15g", v, c.Upper)
			}
			if c.Passive != (c.MinRe >= 0) {
				t.Error("Passive inconsistent")
			}
		})
	}
}

func TestCertifyExactCases(t *testing.T) {
	for _, tc := range []struct {
		g       []float64
		min, at float64
	}{
		{[]float64{2}, 2, 0},
		{[]float64{1, -0.5}, 0.5, 0},
		{[]float64{1, 0.5}, 0.5, math.Pi},
		{[]float64{0, 0, 1}, -1, math.Pi / 2},
		{[]float64{1, 0, 0, 0, -1}, 0, 0},
	} {
		c, err := Certify(tc.g)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(c.MinRe-tc.min) > 1e-12 || c.MinRe > tc.min {
			t.Errorf("%v: MinRe = %.17g want %g", tc.g, c.MinRe, tc.min)
		}
		if math.Abs(reG(tc.g, c.Omega)-tc.min) > 1e-12 {
			t.Errorf("%v: Omega = %g has Re G %g", tc.g, c.Omega, reG(tc.g, c.Omega))
		}
	}
	if _, err := Certify(nil); !errors.Is(err, ErrDimension) {
		t.Errorf("empty taps: %v", err)
	}
	if _, err := Certify([]float64{1, math.NaN()}); !errors.Is(err, ErrNonFinite) {
		t.Errorf("NaN taps: %v", err)
	}
}

func BenchmarkCertify500(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	g := make([]float64, 500)
	for k := range g {
		g[k] = rng.NormFloat64() * math.Pow(0.99, float64(k))
	}
	for b.Loop() {
		if _, err := Certify(g); err != nil {
			b.Fatal(err)
		}
	}
}
