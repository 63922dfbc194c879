package kyp

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// solveBlocks validates the data, runs the barrier method and assembles the
// Solution with its certificates. The blocks must already be validated for
// range and overlap.
func solveBlocks(P *mat.SymDense, b []float64, gamma float64, blocks []block, o *Options) (*Solution, error) {
	opt := o.withDefaults()
	n := len(b)
	if P == nil || P.SymmetricDim() != n {
		pn := 0
		if P != nil {
			pn = P.SymmetricDim()
		}
		return nil, fmt.Errorf("kyp: P is %d×%d, b has %d entries: %w", pn, pn, n, ErrDimension)
	}
	if math.IsNaN(gamma) || math.IsInf(gamma, 0) {
		return nil, fmt.Errorf("kyp: γ = %v: %w", gamma, ErrNotFinite)
	}
	Q := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		if v := b[i]; math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("kyp: b[%d] = %v: %w", i, v, ErrNotFinite)
		}
		for j := i; j < n; j++ {
			v := P.At(i, j)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("kyp: P[%d,%d] = %v: %w", i, j, v, ErrNotFinite)
			}
			if i == j {
				v += gamma
			}
			Q.SetSym(i, j, v)
		}
	}
	sv, err := newSolver(&problem{Q: Q, b: b, blocks: blocks})
	if err != nil {
		return nil, err
	}
	runErr := sv.run(opt)
	if runErr != nil && !isIterLimit(runErr) {
		return nil, runErr
	}
	sv.computeTheta()
	sv.gradF()
	sol := &Solution{
		X:          append([]float64(nil), sv.theta...),
		Objective:  sv.primalObjective(),
		Gap:        sv.gap(),
		Iterations: sv.iters,
	}
	// Certificates: on the central path Y_j = (2/t)·T(z_j)⁻¹ satisfies the trace
	// parameterization of g_j − margin·e_0 up to the centering residual; it is
	// rescaled here so that its diagonal sums reproduce g_j exactly in the
	// mean (the scale 1/t is folded in through the gap, see certY).
	for _, cb := range sv.cones {
		g := sol.X[cb.off : cb.off+cb.m]
		cert := Certificate{Block: cb.index}
		var Y *mat.SymDense
		if cb.m > 1 {
			Y = certY(cb, sv.w[cb.zoff:cb.zoff+cb.m], g)
		}
		if Y != nil {
			cert.X = xFromY(Y)
		}
		scale := 1.0
		for _, v := range g {
			scale = math.Max(scale, math.Abs(v))
		}
		cert.MinEigX, cert.MinEigLMI, cert.OK = Check(g, cert.X, opt.CertTol*scale)
		sol.Certificates = append(sol.Certificates, cert)
	}
	return sol, runErr
}

func isIterLimit(err error) bool {
	for e := err; e != nil; {
		if e == ErrIterationLimit {
			return true
		}
		u, ok := e.(interface{ Unwrap() error })
		if !ok {
			return false
		}
		e = u.Unwrap()
	}
	return false
}

// certY returns the Gram matrix Y ⪰ 0 of the trace parameterization of
// h = g − margin·e_0 read off the dual iterate: Y = c·T(z)⁻¹ with the scalar c
// chosen so that tr(Y)… ⟨diag sums of Y, z⟩ = ⟨h, z⟩ (c = 2/t exactly on the
// central path, where ⟨h,z⟩ = m/t). Y ⪰ 0 by construction.
func certY(cb *coneBlock, z, g []float64) *mat.SymDense {
	m := cb.m
	tb := newToepBarrier(m)
	if !tb.factor(z) || tb.invert() != nil {
		return nil
	}
	// ⟨h, z⟩ with h the target diagonal sums; for Y = c R: ⟨r(Y), z⟩ = c·tr(R T(z))/2 = c·m/2.
	hz := (g[0] - cb.margin) * z[0]
	for k := 1; k < m; k++ {
		hz += g[k] * z[k]
	}
	c := 2 * hz / float64(m)
	if !(c > 0) {
		return nil
	}
	Y := mat.NewSymDense(m, nil)
	Y.ScaleSym(c, tb.R)
	return Y
}
