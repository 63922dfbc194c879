package convex

// Soundness and tightness of Certify against exact minima and against the 256-bit
// reference of certify_ref_test.go, on the inputs an audit found hard: taps in the
// subnormal range (where rounding is absolute, and Certify once certified filters whose
// minimum is negative), hundreds of flat minima (which once exhausted the evaluation
// budget), and a fourth-order zero.

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

func newRng(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)) }

// TestCertifySubnormal: exact minima worked out by hand, x = cos ω, d = 2^-1074:
//
//	d·[1,1,1]:  p = d(2x² + x), min −d/8 at x = −1/4
//	d·[4,6,2]:  p = 2d(2x+1)(x+1), min −d/4 at x = −3/4
//	s·[1,1,1]:  min −s/8
//
// Floats there are multiples of d, so MinRe ≤ true min means MinRe ≤ the next multiple of d
// below the true minimum (the second column).
func TestCertifySubnormal(t *testing.T) {
	d := math.SmallestNonzeroFloat64
	cases := []struct {
		g     []float64
		below float64 // an upper bound on the true minimum, < 0
	}{
		{[]float64{d, d, d}, -d},
		{[]float64{4 * d, 6 * d, 2 * d}, -d},
		{[]float64{9 * d, 9 * d, 1 * d, -5 * d}, -2 * d}, // true ≈ −1.36 d
		{[]float64{100 * d, 100 * d, 100 * d}, -13 * d},  // true −12.5 d
		{[]float64{0x1p-1072, 0x1p-1072, 0x1p-1072}, -0x1p-1074},
	}
	for _, tc := range cases {
		c, err := Certify(tc.g)
		if err != nil {
			t.Fatal(err)
		}
		if c.Passive {
			t.Errorf("g = %v: certified passive (MinRe %g), but the true minimum is negative", tc.g, c.MinRe)
		}
		if c.MinRe > tc.below {
			t.Errorf("g = %v: MinRe = %g is above the true minimum (< %g)", tc.g, c.MinRe, tc.below)
		}
	}
	// and the passive ones stay certified: d·[2,1] has min d at ω = π
	if c, _ := Certify([]float64{2 * d, d}); !c.Passive || c.MinRe > d {
		t.Errorf("d·[2,1]: %+v, want passive with MinRe ≤ d", c)
	}
}

// TestCertifyAgainstReference: random filters over the whole floating-point range,
// nudged to a minimum just below or above zero; Certify must never certify one whose
// reference minimum is negative, nor report a MinRe above it, and in the normal range it
// must be tight to its rounding allowance and branch-and-bound gap, (4e-15·len(g) + 1.5e-13)·Σ|g|.
func TestCertifyAgainstReference(t *testing.T) {
	d := math.SmallestNonzeroFloat64
	rng := newRng(11)
	check := func(desc string, g []float64, tight bool) {
		t.Helper()
		c, err := Certify(g)
		if err != nil {
			t.Fatalf("%s: %v", desc, err)
		}
		r := refMin(g)
		if r.FromUnbr {
			return // the reference's own minimum is only an upper estimate
		}
		if c.Passive && r.Min.Sign() < 0 {
			t.Errorf("%s: g = %v certified passive (MinRe %g), reference minimum %s", desc, g, c.MinRe, r.Min.Text('g', 6))
		}
		if new(big.Float).SetFloat64(c.MinRe).Cmp(r.Min) > 0 {
			t.Errorf("%s: g = %v: MinRe %g above the reference minimum %s", desc, g, c.MinRe, r.Min.Text('g', 6))
		}
		if tight {
			S := 0.0
			for _, v := range g {
				S += math.Abs(v)
			}
			ref, _ := r.Min.Float64()
			if gap := ref - c.MinRe; gap > (4e-15*float64(len(g))+1.5e-13)*S {
				t.Errorf("%s: L = %d: MinRe %g is %.3g·Σ|g| below the reference minimum %g", desc, len(g), c.MinRe, gap/S, ref)
			}
		}
	}
	// small integer multiples of the smallest subnormal
	for range 600 {
		g := make([]float64, 2+rng.IntN(7))
		for k := range g {
			g[k] = float64(rng.IntN(21)-10) * d
		}
		check("multiples of 2^-1074", g, false)
	}
	// ordinary filters moved to a minimum of ±10^-(1…16)·Σ|g| and scaled by 2^s, from the
	// subnormal range to near the largest float
	for _, s := range []int{-1044, -1035, -1000, -40, 0, 40, 900, 980} {
		for range 40 {
			g := make([]float64, 2+rng.IntN(40))
			for k := range g {
				g[k] = rng.NormFloat64() * math.Pow(0.9, float64(k))
			}
			S := 0.0
			for _, v := range g {
				S += math.Abs(v)
			}
			m0, _ := refMin(g).Min.Float64()
			g[0] += -m0 + math.Copysign(math.Pow(10, -1-15*rng.Float64()), rng.Float64()-0.5)*S
			for k := range g {
				g[k] = math.Ldexp(g[k], s)
			}
			check("scaled by 2^"+itoa(s), g, s > -1000)
		}
	}
}

func itoa(i int) string { return big.NewInt(int64(i)).String() }

// TestCertifyFlatMinima: p(ω) = (1 − cos Kω)² + c has K/2+1 quartic-flat minima of value c:
// depth-first refinement in ω order once spent its 200 000 evaluations on the first ones and
// left MinRe ≈ c − 9.5e-4 < 0, refusing a filter with a margin of 1.25e-4·Σ|g|.
func TestCertifyFlatMinima(t *testing.T) {
	const K, c = 4000, 5e-4
	g := make([]float64, 2*K+1)
	g[0], g[K], g[2*K] = 1.5+c, -2, 0.5
	cert, err := Certify(g)
	if err != nil {
		t.Fatal(err)
	}
	S := 4 + c
	if !cert.Passive || cert.MinRe < c-1e-10*S || cert.MinRe > c {
		t.Errorf("L = %d: MinRe = %g, want within 1e-10·Σ|g| below the true minimum %g", len(g), cert.MinRe, c)
	}
}

// TestCertifyQuarticZero: |H|² with a fourth-order zero at ω = 0, H = (32 − 64z + 32z²)²·R(z),
// raised by 1e-6·Σ|g|, 501 taps (MinRe was −1.8e-4·Σ|g| before best-first refinement).
func TestCertifyQuarticZero(t *testing.T) {
	rng := newRng(5)
	conv := func(a, b []int64) []int64 {
		o := make([]int64, len(a)+len(b)-1)
		for i, x := range a {
			for j, y := range b {
				o[i+j] += x * y
			}
		}
		return o
	}
	f := conv([]int64{32, -64, 32}, []int64{32, -64, 32})
	r := make([]int64, 501-len(f)+1)
	for i := range r {
		r[i] = int64(rng.IntN(7) - 3)
	}
	if r[0] == 0 {
		r[0] = 1
	}
	h := conv(r, f)
	g := make([]float64, len(h))
	S := 0.0
	for k := range h {
		var s int64
		for j := 0; j+k < len(h); j++ {
			s += h[j] * h[j+k]
		}
		if k > 0 {
			s *= 2
		}
		g[k] = float64(s) // exact: |s| < 2^53
		S += math.Abs(g[k])
	}
	g0 := g[0]
	g[0] += 1e-6 * S
	trueMin := g[0] - g0 // exact (Sterbenz); min |H|² = 0 at ω = 0
	cert, err := Certify(g)
	if err != nil {
		t.Fatal(err)
	}
	if cert.MinRe > trueMin {
		t.Fatalf("MinRe %g above the true minimum %g", cert.MinRe, trueMin)
	}
	if trueMin-cert.MinRe > 1e-10*S {
		t.Errorf("L = %d: MinRe = %g (%.3g·S), true minimum %g (%.3g·S): not tight, not certified", len(g), cert.MinRe, cert.MinRe/S, trueMin, trueMin/S)
	}
}
