package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// corrRef is the plain double loop of corr, the reference for both paths.
func corrRef(dst, h, x []float64) {
	for t := range dst {
		s := 0.0
		for i, hv := range h {
			s += hv * x[t+i]
		}
		dst[t] = s
	}
}

var corrShapes = []struct{ T, m int }{
	{1, 1}, {5, 3}, {31, 50}, {32, 1}, {32, 50}, {33, 7}, {64, 50}, {95, 2}, {250, 50}, {251, 200}, {1000, 13},
}

// TestCorrFMA checks the assembly against its bit-exact Go version and both
// correlations against the plain loop, to a bound of a few roundings of
// Σ|h_i x_{t+i}|.
func TestCorrFMA(t *testing.T) {
	if !haveFMA {
		t.Skip("no AVX2/FMA")
	}
	rng := rand.New(rand.NewPCG(3, 3))
	for _, c := range corrShapes {
		t.Run(fmt.Sprintf("T=%d/m=%d", c.T, c.m), func(t *testing.T) {
			h, x := randVec(rng, c.m, 1), randVec(rng, c.T+c.m-1, 1)
			// Guard cells around dst catch writes out of range.
			buf := make([]float64, c.T+2)
			buf[0], buf[c.T+1] = 7, 7
			got := buf[1 : c.T+1]
			corrFMA(got, h, x)
			if buf[0] != 7 || buf[c.T+1] != 7 {
				t.Fatal("corrFMA wrote outside dst")
			}
			exact := make([]float64, c.T)
			corrFMAGo(exact, h, x)
			old := make([]float64, c.T)
			corrAxpy(old, h, x)
			ref := make([]float64, c.T)
			corrRef(ref, h, x)
			for i := range got {
				if got[i] != exact[i] {
					t.Fatalf("dst[%d] = %v, Go FMA gives %v", i, got[i], exact[i])
				}
				var mag float64
				for k, hv := range h {
					mag += math.Abs(hv * x[i+k])
				}
				tol := 4 * float64(c.m) * 0x1p-52 * mag
				if d := math.Abs(got[i] - ref[i]); d > tol {
					t.Fatalf("corrFMA dst[%d] = %v, reference %v (|Δ| %g > %g)", i, got[i], ref[i], d, tol)
				}
				if d := math.Abs(old[i] - ref[i]); d > tol {
					t.Fatalf("corrAxpy dst[%d] = %v, reference %v (|Δ| %g > %g)", i, old[i], ref[i], d, tol)
				}
			}
		})
	}
}

// BenchmarkCorr compares the two paths of corr at the mini-batch step's
// size (T = 250, m_G = 50) in one run.
func BenchmarkCorr(b *testing.B) {
	rng := rand.New(rand.NewPCG(4, 4))
	const T, m = 250, 50
	h, x, dst := randVec(rng, m, 1), randVec(rng, T+m-1, 1), make([]float64, T)
	for _, c := range []struct {
		name string
		f    func(dst, h, x []float64)
	}{{"axpy", corrAxpy}, {"fma", corrFMA}} {
		if c.name == "fma" && !haveFMA {
			continue
		}
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				c.f(dst, h, x)
			}
			b.ReportMetric(2*T*m*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}
