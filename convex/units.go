package convex

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/passivenfir/gputrain/internal/pow2"
)

// The interior-point method's tolerances and floors are relative where it matters, but some
// carry an absolute term (1 + |h| in a residual, an absolute floor of the exact-mode margin)
// that is right for taps, right-hand sides and objectives of order one and wrong for data in
// very different units: with y in units 1e4 times smaller than u's, taps of order 1e-10 met a
// margin floor of 1e-8 and came out a static gain, or ran into the iteration limit. Solve
// therefore solves a problem far from order one in the variables θ' = θ/σ and the objective
// f/κ, with σ and κ powers of two (every conversion exact), and converts the solution back.
// Problems near order one, the trainer's with its default scaling among them, are solved as
// given, so their results do not depend on this.

// unitScale returns the powers of two σ (taps) and κ (objective) for p: σ ≈ max|b|/max diag(P+γI),
// the size of a tap that explains the data, and κ ≈ σ²·max diag(P+γI), the size of the
// objective; both are 1 when σ lies within [2^-6, 2^6] and κ ≥ 1, where the absolute terms
// are harmless.
func unitScale(p *Problem) (sigma, kappa float64) {
	n := len(p.B)
	d := 0.0
	raw := p.P.RawSymmetric()
	for i := range n {
		d = math.Max(d, raw.Data[i*raw.Stride+i]+p.GammaG)
	}
	b := normInf(p.B)
	if !(b > 0) || !(d > 0) || math.IsInf(d, 0) {
		return 1, 1 // b = 0 or P = 0: nothing to measure the units by
	}
	sigma = pow2.NearestRatio(b, d)
	kappa = pow2.NearestRatio(sigma*sigma*d, 1)
	if sigma >= 0x1p-6 && sigma <= 0x1p6 && kappa >= 1 {
		return 1, 1
	}
	return sigma, kappa
}

// solveScaled solves p in the variables θ/σ with the objective divided by κ and returns the
// solution in p's units.
func solveScaled(p *Problem, opt *Options, n int, sigma, kappa float64) (*Solution, error) {
	q := sigma * sigma / kappa // P and γ
	r := sigma / kappa         // b
	P := mat.NewSymDense(n, nil)
	P.CopySym(p.P)
	raw := P.RawSymmetric()
	for i := range n {
		row := raw.Data[i*raw.Stride+i : i*raw.Stride+n]
		for j := range row {
			row[j] *= q
		}
	}
	ps := &Problem{P: P, B: pow2.Scale(p.B, r), GammaG: p.GammaG * q, Blocks: append([]Block(nil), p.Blocks...)}
	for j := range ps.Blocks {
		bl := &ps.Blocks[j]
		bl.Eps, bl.Rho, bl.Margin = bl.Eps/sigma, bl.Rho/sigma, bl.Margin/sigma
	}
	var o Options
	if opt != nil {
		o = *opt
	}
	if o.Warm != nil {
		o.Warm = convertSolution(o.Warm, 1/sigma, 1/kappa)
	}
	sol, err := solve(ps, &o, n)
	if sol != nil {
		sol = convertSolution(sol, sigma, kappa)
	}
	return sol, err
}

// convertSolution returns a copy of s for the variables θ·a and the objective f·c: taps,
// right-hand sides, margins and certificates scale by a, the objective by c, multipliers
// (∂f/∂h) by c/a; frequencies and residuals (relative) stay.
func convertSolution(s *Solution, a, c float64) *Solution {
	out := *s
	out.X = pow2.Scale(s.X, a)
	out.Objective = s.Objective * c
	out.Shift = pow2.Scale(s.Shift, a)
	out.Certificates = append([]Certificate(nil), s.Certificates...)
	for i := range out.Certificates {
		out.Certificates[i].MinRe *= a
		out.Certificates[i].Upper *= a
	}
	z := c / a
	out.State = make([]BlockState, len(s.State))
	for j, st := range s.State {
		st.Omega = append([]float64(nil), st.Omega...)
		st.Samples = append([]int(nil), st.Samples...)
		st.Z, st.ZUpper, st.ZLower, st.GridZ = pow2.Scale(st.Z, z), pow2.Scale(st.ZUpper, z), pow2.Scale(st.ZLower, z), pow2.Scale(st.GridZ, z)
		st.RHS *= a
		st.Delta *= a
		out.State[j] = st
	}
	return &out
}
