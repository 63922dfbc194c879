package kernels

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestTanhFMA checks the vector tanh against math.Tanh bit for bit: on the
// probes, on a million seeded random arguments spread over the working
// range (|x| up to 50, many near the branch switch at 0.625), and through
// tanhTo with lengths that leave a scalar tail.
func TestTanhFMA(t *testing.T) {
	if !haveFMA {
		t.Skip("no AVX2/FMA")
	}
	if !exactTanh {
		t.Fatal("the vector tanh failed its probes")
	}
	defer func(f bool) { fastTanh = f }(fastTanh)
	fastTanh = false
	rng := rand.New(rand.NewPCG(8, 8))
	x := tanhProbes()
	for range 1 << 20 {
		var v float64
		switch rng.IntN(3) {
		case 0:
			v = rng.NormFloat64()
		case 1:
			v = 0.625 * (1 + 1e-3*rng.NormFloat64())
		default:
			v = 50 * (2*rng.Float64() - 1)
		}
		x = append(x, v, -v)
	}
	for _, n := range []int{len(x), 1, 3, 5, 7} {
		got := make([]float64, n)
		tanhTo(got, x[:n])
		for i, v := range x[:n] {
			if w := math.Tanh(v); math.Float64bits(got[i]) != math.Float64bits(w) {
				t.Fatalf("tanh(%v) = %v, math.Tanh gives %v", v, got[i], w)
			}
		}
	}
	// In place.
	y := append([]float64(nil), x[:1000]...)
	tanhTo(y, y)
	for i, v := range x[:1000] {
		if math.Float64bits(y[i]) != math.Float64bits(math.Tanh(v)) {
			t.Fatalf("in place: tanh(%v) = %v", v, y[i])
		}
	}
}

// BenchmarkTanh compares math.Tanh in a loop with tanhTo (exact: tanh4FMA;
// fast: tanh4Fast) on the activations
// of one mini-batch step (2000 rows × 18 units).
func BenchmarkTanh(b *testing.B) {
	rng := rand.New(rand.NewPCG(9, 9))
	x := randVec(rng, 36000, 2)
	y := make([]float64, len(x))
	b.Run("math", func(b *testing.B) {
		for b.Loop() {
			for i, v := range x {
				y[i] = math.Tanh(v)
			}
		}
	})
	if !exactTanh {
		return
	}
	defer func(f bool) { fastTanh = f }(fastTanh)
	fastTanh = false
	b.Run("fma", func(b *testing.B) {
		for b.Loop() {
			tanhTo(y, x)
		}
	})
	fastTanh = true
	defer func(w bool) { wideTanh = w }(wideTanh)
	wideTanh = false
	b.Run("fast", func(b *testing.B) {
		for b.Loop() {
			tanhTo(y, x)
		}
	})
	if !haveAVX512 {
		return
	}
	wideTanh = true
	b.Run("fast8", func(b *testing.B) {
		for b.Loop() {
			tanhTo(y, x)
		}
	})
}
