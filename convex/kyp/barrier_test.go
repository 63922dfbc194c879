package kyp

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// randomDualPoint returns z with T(z) ≻ 0: the autocorrelation of a random
// sequence plus a ridge, scaled.
func randomDualPoint(seed uint64, m int) []float64 {
	rng := rand.New(rand.NewPCG(seed, seed))
	h := make([]float64, m+3)
	for i := range h {
		h[i] = rng.NormFloat64()
	}
	z := make([]float64, m)
	for k := range z {
		for i := 0; i+k < len(h); i++ {
			z[k] += h[i] * h[i+k]
		}
	}
	z[0] += 0.1
	return z
}

// TestBarrierDerivatives checks ∇ log det T(z) and the Hessian of −log det T(z)
// (direct and FFT routes) against central finite differences.
func TestBarrierDerivatives(t *testing.T) {
	for _, m := range []int{1, 2, 3, 7, 16, 17, 30, 45} {
		z := randomDualPoint(uint64(m), m)
		tb := newToepBarrier(m)
		if !tb.factor(z) {
			t.Fatalf("m=%d: T(z) not PD", m)
		}
		if err := tb.invert(); err != nil {
			t.Fatal(err)
		}
		g := make([]float64, m)
		gradLogDet(tb.R, g)
		H := mat.NewSymDense(m, nil)
		tb.hessian(H)

		logdet := func(z []float64) float64 {
			w := newToepBarrier(m)
			if !w.factor(z) {
				t.Fatalf("m=%d: FD point not PD", m)
			}
			return w.logDet()
		}
		grad := func(z []float64) []float64 {
			w := newToepBarrier(m)
			w.factor(z)
			if err := w.invert(); err != nil {
				t.Fatal(err)
			}
			d := make([]float64, m)
			gradLogDet(w.R, d)
			return d
		}
		const h = 1e-5
		zp := append([]float64(nil), z...)
		for k := 0; k < m; k++ {
			zp[k] = z[k] + h
			fp, gp := logdet(zp), grad(zp)
			zp[k] = z[k] - h
			fm, gm := logdet(zp), grad(zp)
			zp[k] = z[k]
			fd := (fp - fm) / (2 * h)
			if math.Abs(fd-g[k]) > 1e-6*(1+math.Abs(g[k])) {
				t.Errorf("m=%d: grad[%d] = %g, finite difference %g", m, k, g[k], fd)
			}
			for l := 0; l < m; l++ {
				// Hessian of −log det: −∂g_l/∂z_k.
				fdh := -(gp[l] - gm[l]) / (2 * h)
				if math.Abs(fdh-H.At(k, l)) > 1e-5*(1+math.Abs(H.At(k, l))) {
					t.Errorf("m=%d: H[%d,%d] = %g, finite difference %g", m, k, l, H.At(k, l), fdh)
				}
			}
		}
		// The trace definition, by brute force, on the small sizes.
		if m <= 17 {
			for a := 0; a < m; a++ {
				for c := 0; c < m; c++ {
					Ea, Ec := basis(m, a), basis(m, c)
					var t1, t2 mat.Dense
					t1.Mul(tb.R, Ea)
					t2.Mul(tb.R, Ec)
					var p mat.Dense
					p.Mul(&t1, &t2)
					if d := math.Abs(mat.Trace(&p) - H.At(a, c)); d > 1e-9*(1+math.Abs(H.At(a, c))) {
						t.Errorf("m=%d: H[%d,%d] = %g, tr(R E_a R E_b) = %g", m, a, c, H.At(a, c), mat.Trace(&p))
					}
				}
			}
		}
	}
}

// basis returns E_k = J^k + J^kᵀ (E_0 = I).
func basis(m, k int) *mat.Dense {
	E := mat.NewDense(m, m, nil)
	for i := 0; i+k < m; i++ {
		E.Set(i, i+k, 1)
		E.Set(i+k, i, 1)
	}
	return E
}

// TestFFTMatchesDirect compares the two Hessian routes on larger orders.
func TestFFTMatchesDirect(t *testing.T) {
	for _, m := range []int{17, 40, 97} {
		z := randomDualPoint(uint64(100+m), m)
		tb := newToepBarrier(m)
		tb.factor(z)
		if err := tb.invert(); err != nil {
			t.Fatal(err)
		}
		tb.autocorrFFT()
		maxAC := 0.0
		for s := -(m - 1); s < m; s++ {
			for q := 0; q < m; q++ {
				maxAC = math.Max(maxAC, math.Abs(autocorrDirect(tb.R, s, q)))
			}
		}
		for s := -(m - 1); s < m; s++ {
			for q := 0; q < m; q++ {
				d := autocorrDirect(tb.R, s, q)
				if f := tb.ac[s+m-1][q]; math.Abs(f-d) > 1e-12*maxAC {
					t.Fatalf("m=%d: AC(%d,%d) FFT %g, direct %g", m, s, q, f, d)
				}
			}
		}
	}
}
