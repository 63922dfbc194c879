package kyp

import (
	"errors"
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
	Q := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		if v := b[i]; math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("kyp: b[%d] = %v: %w", i, v, ErrNonFinite)
		}
		for j := i; j < n; j++ {
			v := P.At(i, j)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("kyp: P[%d,%d] = %v: %w", i, j, v, ErrNonFinite)
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
	if sv.best == nil {
		sv.recover()
	}
	rp := sv.best
	sol := &Solution{
		X:          rp.theta,
		Objective:  rp.obj,
		Gap:        rp.obj - sv.bestDual,
		Iterations: sv.iters,
	}
	for i, cb := range sv.cones {
		g := sol.X[cb.off : cb.off+cb.m]
		scale := 1.0
		for _, v := range g {
			scale = math.Max(scale, math.Abs(v))
		}
		c := Certificate{Block: cb.index, X: rp.xs[i]}
		c.MinEigX, c.MinEigLMI, c.OK = Check(g, c.X, opt.CertTol*scale)
		sol.Certificates = append(sol.Certificates, c)
	}
	return sol, runErr
}

// recovered is a primal point read off the dual iterate, with its KYP matrices.
type recovered struct {
	theta []float64
	obj   float64
	xs    []*mat.SymDense
}

// recover reads a certified primal point off the current dual iterate and
// keeps it if it is the best so far; it also records the dual bound −f(w).
//
// On the central path Y_j = (2/t)·T(z_j)⁻¹ ⪰ 0 has the diagonal sums of
// g_j − margin·e_0 exactly; off it, and through the rounding of the inverse of
// the nearly singular T(z_j) at large t, the two differ slightly. The taps are
// therefore read off Y_j (scaled, if needed, to respect the decay bounds), so
// that the certificate X_j built from Y_j holds exactly (up to rounding) for
// the returned θ; the free coordinates keep θ(w). Because the rounding grows
// with t while the duality gap shrinks, the best point over all stages is kept.
func (sv *solver) recover() {
	sv.computeTheta()
	if d := -sv.dualObjective(); d > sv.bestDual || sv.best == nil {
		sv.bestDual = d
	}
	rp := &recovered{theta: append([]float64(nil), sv.theta...)}
	for _, cb := range sv.cones {
		var X *mat.SymDense
		if Y := certY(cb, sv.w[cb.zoff:cb.zoff+cb.m], sv.theta[cb.off:cb.off+cb.m]); Y != nil {
			h := diagSums(Y)
			if alpha := boundScale(h, cb); alpha < 1 {
				Y.ScaleSym(alpha, Y)
				for k := range h {
					h[k] *= alpha
				}
			}
			h[0] += cb.margin
			copy(rp.theta[cb.off:cb.off+cb.m], h)
			X = xFromY(Y)
		}
		rp.xs = append(rp.xs, X)
	}
	copy(sv.tmp, rp.theta)
	save := append([]float64(nil), sv.theta...)
	copy(sv.theta, rp.theta)
	rp.obj = sv.primalObjective()
	copy(sv.theta, save)
	if sv.best == nil || rp.obj < sv.best.obj {
		sv.best = rp
	}
}

// diagSums returns h with 2h(0) = tr Y and h(k) = Σ_i Y_{i,i+k}: the FIR taps
// whose KYP matrix (with X = xFromY(Y)) is Y.
func diagSums(Y *mat.SymDense) []float64 {
	m := Y.SymmetricDim()
	h := make([]float64, m)
	for k := 0; k < m; k++ {
		s := 0.0
		for i := 0; i+k < m; i++ {
			s += Y.At(i, i+k)
		}
		h[k] = s
	}
	h[0] /= 2
	return h
}

// boundScale returns the largest α ∈ [0, 1] with |α·h(k) + margin·[k=0]| ≤
// rho·decay^k for all k (1 when the block has no bounds, or when no α helps).
func boundScale(h []float64, cb *coneBlock) float64 {
	if !(cb.rho > 0) {
		return 1
	}
	alpha := 1.0
	for k, v := range h {
		r := cb.rho * math.Pow(cb.decay, float64(k))
		c := 0.0
		if k == 0 {
			c = cb.margin
		}
		if x := v + c; x > r && v > 0 {
			alpha = math.Min(alpha, (r-c)/v)
		} else if x < -r && v < 0 {
			alpha = math.Min(alpha, (-r-c)/v)
		}
	}
	if alpha < 0 {
		return 1
	}
	return alpha
}

func isIterLimit(err error) bool { return errors.Is(err, ErrIterationLimit) }

// certY returns the Gram matrix Y ⪰ 0 of the trace parameterization of
// h = g − margin·e_0 read off the dual iterate: Y = c·T(z)⁻¹ with the scalar c
// chosen so that tr(Y)… ⟨diag sums of Y, z⟩ = ⟨h, z⟩ (c = 2/t exactly on the
// central path, where ⟨h,z⟩ = m/t). Y ⪰ 0 by construction.
func certY(cb *coneBlock, z, g []float64) *mat.SymDense {
	m := cb.m
	tb := newToepBarrier(m)
	if !tb.factor(z) {
		return nil
	}
	if err := tb.invert(); err != nil && !isCondition(err) {
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
