package kyp

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestNewtonStepDense checks the structured Newton step (bounds eliminated,
// Toeplitz Hessians) against the dense system (t W Q⁻¹ Wᵀ + ∇²B) Δw = −∇Φ_t
// formed explicitly, and the gradient of Φ_t against finite differences.
func TestNewtonStepDense(t *testing.T) {
	for _, tc := range []struct {
		n, m int
		rho  float64
		tt   float64
	}{{6, 6, 0, 0.3}, {9, 6, 2, 0.7}, {30, 20, 5, 2}, {40, 40, 3, 0.05}} {
		P, b := randomProblem(uint64(tc.n*7+tc.m), tc.n)
		Q := mat.NewSymDense(tc.n, nil)
		Q.CopySym(P)
		for i := 0; i < tc.n; i++ {
			Q.SetSym(i, i, Q.At(i, i)+1)
		}
		bl := []block{{off: tc.n - tc.m, m: tc.m, cone: true, margin: 0.01, rho: tc.rho, decay: 0.9}}
		sv, err := newSolver(&problem{Q: Q, b: b, blocks: bl})
		if err != nil {
			t.Fatal(err)
		}
		nw := len(sv.w)
		copy(sv.w[:tc.m], randomDualPoint(uint64(tc.m), tc.m))
		for i := tc.m; i < nw; i++ {
			sv.w[i] = 0.5 + 0.1*float64(i%7)
		}
		sv.computeTheta()
		sv.gradF()
		lam2, err := sv.newton(tc.tt)
		if err != nil {
			t.Fatal(err)
		}
		phi := func(w []float64) float64 {
			save := append([]float64(nil), sv.w...)
			copy(sv.w, w)
			sv.computeTheta()
			f := tc.tt * sv.dualObjective()
			for _, cb := range sv.cones {
				tb := newToepBarrier(cb.m)
				if !tb.factor(sv.w[cb.zoff : cb.zoff+cb.m]) {
					t.Fatal("FD point infeasible")
				}
				f -= tb.logDet()
			}
			for i := sv.nz; i < nw; i++ {
				f -= math.Log(sv.w[i])
			}
			copy(sv.w, save)
			sv.computeTheta()
			return f
		}
		// Gradient by finite differences.
		w := append([]float64(nil), sv.w...)
		H := mat.NewSymDense(nw, nil)
		gradAt := func(w []float64) []float64 {
			g := make([]float64, nw)
			const h = 1e-6
			wp := append([]float64(nil), w...)
			for i := 0; i < nw; i++ {
				wp[i] = w[i] + h
				fp := phi(wp)
				wp[i] = w[i] - h
				fm := phi(wp)
				wp[i] = w[i]
				g[i] = (fp - fm) / (2 * h)
			}
			return g
		}
		g := gradAt(w)
		for i := 0; i < nw; i++ {
			if math.Abs(g[i]-sv.grad[i]) > 1e-5*(1+math.Abs(g[i])) {
				t.Errorf("n=%d: grad[%d] = %g, FD %g", tc.n, i, sv.grad[i], g[i])
			}
		}
		// Dense Hessian: t W Q⁻¹ Wᵀ + ∇²B.
		W := mat.NewDense(nw, tc.n, nil)
		for k := 0; k < tc.m; k++ {
			W.Set(k, bl[0].off+k, 1)
		}
		for i, j := range sv.idx {
			W.Set(sv.uOff()+i, j, -1)
			W.Set(sv.lOff()+i, j, 1)
		}
		var qi mat.Dense
		if err := qi.Inverse(Q); err != nil {
			t.Fatal(err)
		}
		var wq, wqw mat.Dense
		wq.Mul(W, &qi)
		wqw.Mul(&wq, W.T())
		cb := sv.cones[0]
		for i := 0; i < nw; i++ {
			for j := i; j < nw; j++ {
				v := tc.tt * wqw.At(i, j)
				if i < tc.m && j < tc.m {
					v += cb.H.At(i, j)
				}
				if i == j && i >= tc.m {
					v += 1 / (sv.w[i] * sv.w[i])
				}
				H.SetSym(i, j, v)
			}
		}
		var dw mat.VecDense
		neg := make([]float64, nw)
		for i := range neg {
			neg[i] = -sv.grad[i]
		}
		var ch mat.Cholesky
		if !ch.Factorize(H) {
			t.Fatal("dense Hessian not PD")
		}
		if err := ch.SolveVecTo(&dw, mat.NewVecDense(nw, neg)); err != nil {
			t.Fatal(err)
		}
		scale := 0.0
		for i := 0; i < nw; i++ {
			scale = math.Max(scale, math.Abs(dw.AtVec(i)))
		}
		for i := 0; i < nw; i++ {
			if math.Abs(dw.AtVec(i)-sv.dw[i]) > 1e-8*scale {
				t.Errorf("n=%d: Δw[%d] = %g, dense %g", tc.n, i, sv.dw[i], dw.AtVec(i))
			}
		}
		if d := mat.Dot(&dw, mat.NewVecDense(nw, neg)); math.Abs(d-lam2) > 1e-8*math.Abs(d) {
			t.Errorf("n=%d: λ² = %g, dense %g", tc.n, lam2, d)
		}
	}
}
