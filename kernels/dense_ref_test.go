package kernels

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// denseFwdLoops is the one-output-at-a-time small-layer forward that
// denseFwdSmall replaced, its bit-exact reference.
func denseFwdLoops(r0, r1, in, out int, x, w, b, y []float64) {
	w = w[:out*in]
	b = b[:out]
	for r := r0; r < r1; r++ {
		xr := x[r*in : (r+1)*in]
		yr := y[r*out : (r+1)*out]
		for o := range yr {
			s := b[o]
			wr := w[o*in : (o+1)*in]
			for i, v := range xr {
				s += wr[i] * v
			}
			yr[o] = tanhScalar(s)
		}
	}
}

// denseBwdLoops is the row-by-row small-layer backward that denseBwdSmall
// replaced, kept as its bit-exact reference and for the A/B benchmark.
func denseBwdLoops(r0, r1, in, out int, x, w, y, dy, dx, dW, dB []float64) {
	w = w[:out*in]
	dW = dW[:out*in]
	dB = dB[:out]
	for r := r0; r < r1; r++ {
		xr := x[r*in : (r+1)*in]
		yr := y[r*out : (r+1)*out]
		dyr := dy[r*out : (r+1)*out]
		var dxr []float64
		if dx != nil {
			dxr = dx[r*in : (r+1)*in]
			clear(dxr)
		}
		for o, yv := range yr {
			d := dyr[o] * (1 - yv*yv)
			dB[o] += d
			wr := w[o*in : (o+1)*in]
			dwr := dW[o*in : (o+1)*in]
			for i, v := range xr {
				dwr[i] += d * v
			}
			if dxr != nil {
				for i, v := range wr {
					dxr[i] += d * v
				}
			}
		}
	}
}

// TestDenseBwdSmall checks denseBwdSmall against denseBwdLoops bit for bit
// on seeded random inputs, with and without dx, on an inner row range.
func TestDenseBwdSmall(t *testing.T) { forDensePaths(t, testDenseBwdSmall) }

func testDenseBwdSmall(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for _, c := range []struct{ rows, r0, r1, in, out int }{
		{1, 0, 1, 1, 1}, {10, 0, 10, 2, 4}, {37, 3, 30, 4, 4}, {50, 0, 50, 4, 10}, {20, 5, 20, 7, 3}, {9, 0, 9, 9, 5},
		{30, 2, 29, 5, 9}, {12, 0, 12, 12, 5}, {8, 0, 0, 4, 4}, {16, 4, 16, 2, 16},
	} {
		for _, withDx := range []bool{false, true} {
			t.Run(fmt.Sprintf("%d×%d→%d/rows=[%d,%d)/dx=%v", c.rows, c.in, c.out, c.r0, c.r1, withDx), func(t *testing.T) {
				x := randVec(rng, c.rows*c.in, 1)
				w := randVec(rng, c.out*c.in, 1)
				y := randVec(rng, c.rows*c.out, 1)
				dy := randVec(rng, c.rows*c.out, 1)
				dW0, dB0 := randVec(rng, c.out*c.in, 1), randVec(rng, c.out, 1)
				dW1, dB1 := append([]float64(nil), dW0...), append([]float64(nil), dB0...)
				var dx0, dx1 []float64
				if withDx {
					dx0, dx1 = randVec(rng, c.rows*c.in, 1), make([]float64, c.rows*c.in)
					copy(dx1, dx0)
				}
				denseBwdLoops(c.r0, c.r1, c.in, c.out, x, w, y, dy, dx0, dW0, dB0)
				denseBwdSmall(c.r0, c.r1, c.in, c.out, x, w, y, dy, dx1, dW1, dB1, make([]float64, (c.r1-c.r0)*c.out), make([]float64, c.in*c.out))
				for _, p := range []struct {
					name      string
					want, got []float64
				}{{"dW", dW0, dW1}, {"dB", dB0, dB1}, {"dx", dx0, dx1}} {
					for i := range p.want {
						if p.got[i] != p.want[i] {
							t.Fatalf("%s[%d] = %v, want %v", p.name, i, p.got[i], p.want[i])
						}
					}
				}
			})
		}
	}
}

// TestDenseFwdSmall checks denseFwdSmall against denseFwdLoops bit for bit
// on seeded random inputs, on an inner row range.
func TestDenseFwdSmall(t *testing.T) { forDensePaths(t, testDenseFwdSmall) }

// forDensePaths runs f with the Go loops and, where the machine has them,
// with the vector kernels.
func forDensePaths(t *testing.T, f func(*testing.T)) {
	keep := fastDense
	defer func() { fastDense = keep }()
	for _, fast := range []bool{false, true} {
		if fast && !haveFMA {
			continue
		}
		fastDense = fast
		t.Run(fmt.Sprintf("vector=%v", fast), f)
	}
}

func testDenseFwdSmall(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for _, c := range []struct{ rows, r0, r1, in, out int }{
		{1, 0, 1, 1, 1}, {10, 0, 10, 2, 4}, {37, 3, 30, 4, 4}, {50, 0, 50, 4, 10}, {20, 5, 20, 7, 3}, {9, 0, 9, 9, 5},
		{30, 2, 29, 5, 9}, {12, 0, 12, 12, 5}, {8, 0, 0, 4, 4}, {16, 4, 16, 2, 16},
	} {
		t.Run(fmt.Sprintf("%d×%d→%d/rows=[%d,%d)", c.rows, c.in, c.out, c.r0, c.r1), func(t *testing.T) {
			x := randVec(rng, c.rows*c.in, 2)
			w := randVec(rng, c.out*c.in, 2)
			b := randVec(rng, c.out, 1)
			want, got := make([]float64, c.rows*c.out), make([]float64, c.rows*c.out)
			denseFwdLoops(c.r0, c.r1, c.in, c.out, x, w, b, want)
			denseFwdSmall(c.r0, c.r1, c.in, c.out, x, w, b, got, make([]float64, c.in*c.out))
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("y[%d] = %v, want %v", i, got[i], want[i])
				}
			}
		})
	}
}

// BenchmarkDenseFwdSmall compares the two small-layer forward loops on the
// mini-batch step's last layer (2000 rows, 4 → 10) in one run.
func BenchmarkDenseFwdSmall(b *testing.B) {
	rng := rand.New(rand.NewPCG(6, 6))
	const rows, in, out = 2000, 4, 10
	x, w, bias := randVec(rng, rows*in, 1), randVec(rng, out*in, 1), randVec(rng, out, 1)
	y := make([]float64, rows*out)
	b.Run("loops", func(b *testing.B) {
		for b.Loop() {
			denseFwdLoops(0, rows, in, out, x, w, bias, y)
		}
	})
	wT := make([]float64, in*out)
	keep := fastDense
	defer func() { fastDense = keep }()
	for _, fast := range []bool{false, true} {
		fastDense = fast && haveFMA
		b.Run(fmt.Sprintf("small/vector=%v", fastDense), func(b *testing.B) {
			for b.Loop() {
				denseFwdSmall(0, rows, in, out, x, w, bias, y, wT)
			}
		})
	}
}

// BenchmarkDenseBwdSmall compares the two small-layer backward loops on the
// mini-batch step's last layer (2000 rows, 4 → 10) in one run.
func BenchmarkDenseBwdSmall(b *testing.B) {
	rng := rand.New(rand.NewPCG(6, 6))
	const rows, in, out = 2000, 4, 10
	x, w := randVec(rng, rows*in, 1), randVec(rng, out*in, 1)
	y, dy := randVec(rng, rows*out, 1), randVec(rng, rows*out, 1)
	dx, dW, dB, d := make([]float64, rows*in), make([]float64, out*in), make([]float64, out), make([]float64, rows*out)
	b.Run("loops", func(b *testing.B) {
		for b.Loop() {
			denseBwdLoops(0, rows, in, out, x, w, y, dy, dx, dW, dB)
		}
	})
	dWT := make([]float64, in*out)
	keep := fastDense
	defer func() { fastDense = keep }()
	for _, fast := range []bool{false, true} {
		fastDense = fast && haveFMA
		b.Run(fmt.Sprintf("small/vector=%v", fastDense), func(b *testing.B) {
			for b.Loop() {
				denseBwdSmall(0, rows, in, out, x, w, y, dy, dx, dW, dB, d, dWT)
			}
		})
	}
}
