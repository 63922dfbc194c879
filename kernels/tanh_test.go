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

// TestTanhExact: TanhExact is math.Tanh bit for bit on the probes and on
// seeded random arguments, for lengths with and without a scalar tail, in
// place, and with the vector kernel off (exactTanh false: the scalar path
// every machine without AVX2 and FMA takes).
func TestTanhExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	x := tanhProbes()
	for range 1 << 16 {
		v := 3 * rng.NormFloat64()
		x = append(x, v, -v)
	}
	defer func(e bool) { exactTanh = e }(exactTanh)
	for _, vector := range []bool{exactTanh, false} {
		exactTanh = vector
		for _, n := range []int{len(x), 0, 1, 3, 4, 5, 8, 31, 32, 33} {
			got := make([]float64, n)
			TanhExact(got, x[:n])
			in := append([]float64(nil), x[:n]...)
			TanhExact(in, in)
			for i, v := range x[:n] {
				w := math.Float64bits(math.Tanh(v))
				if math.Float64bits(got[i]) != w || math.Float64bits(in[i]) != w {
					t.Fatalf("vector %v, n %d: tanh(%v) = %v (in place %v), math.Tanh gives %v", vector, n, v, got[i], in[i], math.Tanh(v))
				}
			}
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
