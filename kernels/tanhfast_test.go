package kernels

import (
	"math"
	"math/rand/v2"
	"testing"
)

// ulps is the distance of a and b in units in the last place (the number of
// float64 values between them), for finite values of equal sign.
func ulps(a, b float64) int64 {
	d := int64(math.Float64bits(a)) - int64(math.Float64bits(b))
	if d < 0 {
		d = -d
	}
	return d
}

// tanhArgs are the probes and n seeded arguments with their negatives: normal
// around the working range, uniform to |x| = 25, log-uniform from 1e-310 to
// 1, and clustered at the reduction's switch points (|x| = ln2/4 (k: 0 → −1),
// (j+½)·ln2/2) and at the clamp.
func tanhArgs(n int, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, seed))
	x := tanhProbes()
	for range n {
		var v float64
		switch rng.IntN(4) {
		case 0:
			v = 2 * rng.NormFloat64()
		case 1:
			v = 25 * rng.Float64()
		case 2:
			v = math.Pow(10, -310*rng.Float64())
		default:
			v = (float64(rng.IntN(56)) + 0.5) * math.Ln2 / 2 * (1 + 1e-12*rng.NormFloat64())
		}
		x = append(x, v, -v)
	}
	return append(x, 20, math.Nextafter(20, 0), math.Nextafter(20, 30), 19.06, math.Ln2/4, math.Nextafter(math.Ln2/4, 0))
}

// TestTanhFast checks tanhFast against math.Tanh to a few ulp on 4 million
// seeded arguments and the edge cases (signed zeros, subnormals, the clamp,
// ±Inf, NaN), and tanh4Fast and tanh8Fast against tanhFast bit for bit
// through tanhTo, with lengths that leave a scalar tail and in place.
func TestTanhFast(t *testing.T) {
	const maxUlps = 3
	x := tanhArgs(1<<21, 11)
	var worst int64
	var worstX float64
	for _, v := range x {
		got, want := tanhFast(v), math.Tanh(v)
		switch {
		case math.IsNaN(want):
			if !math.IsNaN(got) {
				t.Fatalf("tanhFast(%v) = %v, want NaN", v, got)
			}
			continue
		case want == 0 || math.IsInf(v, 0):
			if math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("tanhFast(%v) = %v, want %v", v, got, want)
			}
			continue
		case math.Signbit(got) != math.Signbit(want):
			t.Fatalf("tanhFast(%v) = %v, math.Tanh gives %v", v, got, want)
		}
		if d := ulps(got, want); d > worst {
			worst, worstX = d, v
		}
	}
	t.Logf("largest difference from math.Tanh: %d ulp at x = %v", worst, worstX)
	if worst > maxUlps {
		t.Fatalf("tanhFast(%v) is %d ulp from math.Tanh, want ≤ %d", worstX, worst, maxUlps)
	}
	if !fastTanh {
		t.Skip("no vector tanh: tanhTo is math.Tanh")
	}
	defer func(w bool) { wideTanh = w }(wideTanh)
	for _, wide := range []bool{false, true} {
		if wide && !haveAVX512 {
			continue
		}
		wideTanh = wide
		for _, n := range []int{len(x), 1, 3, 5, 7, 8, 12, 13, 15} {
			got := make([]float64, n)
			tanhTo(got, x[:n])
			for i, v := range x[:n] {
				if w := tanhFast(v); math.Float64bits(got[i]) != math.Float64bits(w) && !(math.IsNaN(w) && math.IsNaN(got[i])) {
					t.Fatalf("wide %v: tanhTo(%v) = %v, tanhFast gives %v", wide, v, got[i], w)
				}
			}
		}
		y := append([]float64(nil), x[:1001]...)
		tanhTo(y, y)
		for i, v := range x[:1001] {
			if w := tanhFast(v); math.Float64bits(y[i]) != math.Float64bits(w) && !(math.IsNaN(w) && math.IsNaN(y[i])) {
				t.Fatalf("wide %v, in place: tanhTo(%v) = %v, tanhFast gives %v", wide, v, y[i], w)
			}
		}
	}
}

// tanhScalar is the tanh tanhTo computes, one argument at a time: the
// reference of the kernels' bit-exact tests.
func tanhScalar(x float64) float64 {
	if fastTanh {
		return tanhFast(x)
	}
	return math.Tanh(x)
}
