package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestCorrT checks the interleaved correlation against corrFMAGo bit for
// bit: the assembly path through corrT (on work buffers of every alignment,
// with random values in x's padding, which must not reach the T outputs)
// and the Go twins of its two kernels.
func TestCorrT(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	shapes := append(corrShapes, struct{ T, m int }{63, 4}, struct{ T, m int }{64, 1}, struct{ T, m int }{250, 1}, struct{ T, m int }{256, 50}, struct{ T, m int }{257, 51})
	for _, c := range shapes {
		t.Run(fmt.Sprintf("T=%d/m=%d", c.T, c.m), func(t *testing.T) {
			h := randVec(rng, c.m, 1)
			x := randVec(rng, corrTPad(c.T, c.m), 1)
			want := make([]float64, c.T)
			corrFMAGo(want, h, x[:c.T+c.m-1])
			check := func(what string, got []float64) {
				t.Helper()
				for i := range want {
					if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
						t.Fatalf("%s: dst[%d] = %v, corrFMAGo gives %v", what, i, got[i], want[i])
					}
				}
			}
			if c.T >= corrTMin {
				S, rows := corrTShape(c.T, c.m)
				xT, out := make([]float64, 4*rows), make([]float64, 4*S)
				interleave4Go(xT, x, rows, S)
				corrT4Go(out, h, xT, S)
				check("Go twins", out)
			}
			if !haveFMA {
				return
			}
			big := make([]float64, 8*(c.T+c.m)+64)
			for k := range 4 {
				work := big[k:k]
				// Guard cells around dst catch writes out of range.
				g := make([]float64, c.T+2)
				g[0], g[c.T+1] = 7, 7
				corrT(g[1:c.T+1], h, x, &work)
				if g[0] != 7 || g[c.T+1] != 7 {
					t.Fatal("corrT wrote outside dst")
				}
				check(fmt.Sprintf("corrT, work at %d", k), g[1:c.T+1])
			}
		})
	}
}

// TestInterleave4 checks the assembly interleave against its Go twin.
func TestInterleave4(t *testing.T) {
	if !haveFMA {
		t.Skip("no AVX2/FMA")
	}
	rng := rand.New(rand.NewPCG(6, 6))
	for _, c := range []struct{ rows, S int }{{4, 1}, {8, 8}, {116, 64}, {52, 40}} {
		x := randVec(rng, 3*c.S+c.rows, 1)
		want := make([]float64, 4*c.rows)
		interleave4Go(want, x, c.rows, c.S)
		got := make([]float64, 4*c.rows+4)
		off := 0
		for uintptrOf(got[off:])%32 != 0 {
			off++
		}
		interleave4(&got[off], &x[0], c.rows, c.S)
		for i := range want {
			if got[off+i] != want[i] {
				t.Fatalf("rows=%d S=%d: xT[%d] = %v, want %v", c.rows, c.S, i, got[off+i], want[i])
			}
		}
	}
}

// BenchmarkCorrT compares corr (corr32FMA) and corrT at the mini-batch
// step's size (T = 250, m_G = 50).
func BenchmarkCorrT(b *testing.B) {
	rng := rand.New(rand.NewPCG(4, 4))
	const T, m = 250, 50
	h, x, dst := randVec(rng, m, 1), randVec(rng, corrTPad(T, m), 1), make([]float64, T)
	var work []float64
	for _, c := range []struct {
		name string
		f    func()
	}{{"corr", func() { corr(dst, h, x[:T+m-1]) }}, {"corrT", func() { corrT(dst, h, x, &work) }}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				c.f()
			}
			b.ReportMetric(2*T*m*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}
