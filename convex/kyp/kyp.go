package kyp

import (
	"fmt"
	"math"
	"sort"

	"github.com/passivenfir/gputrain/convex"
)

// Solve minimizes ½θᵀ(P + γI)θ − bᵀθ (P = p.P, b = p.B, γ = p.GammaG) subject
// to, for every block with Kind ≠ convex.None, the KYP LMI of Theorem 4 on its
// taps g = θ[Offset:Offset+Len] — equivalently Re G(e^{iω}) ≥ Margin for all ω
// (Margin = 0 is the theorem; H and Eps are ignored) — and, when Rho > 0, the
// decay bounds |g(k)| ≤ Rho·Decay^k, with the same semantics as convex.Solve.
// Blocks of Kind None and coordinates outside every block are unconstrained.
//
// The returned Solution carries one Certificate per constrained block: the
// matrix X_j of Theorem 4 and the smallest eigenvalues of X_j and of the LMI,
// evaluated by Check on the returned taps. On ErrIterationLimit the last
// iterate (still feasible and certified) is returned with the error.
func Solve(p *convex.Problem, opt *Options) (*Solution, error) {
	if p == nil || p.P == nil {
		return nil, fmt.Errorf("kyp: nil problem or P: %w", ErrInvalid)
	}
	n := p.P.SymmetricDim()
	if len(p.B) != n {
		return nil, fmt.Errorf("kyp: P is %d×%d but len(B) = %d: %w", n, n, len(p.B), ErrDimension)
	}
	if !finite(p.GammaG) {
		return nil, fmt.Errorf("kyp: GammaG = %v: %w", p.GammaG, ErrNonFinite)
	}
	if p.GammaG < 0 {
		return nil, fmt.Errorf("kyp: GammaG = %v < 0: %w", p.GammaG, ErrInvalid)
	}
	blocks := make([]block, 0, len(p.Blocks))
	order := make([]int, len(p.Blocks))
	for j, bl := range p.Blocks {
		order[j] = j
		if bl.Len < 1 || bl.Offset < 0 || bl.Offset+bl.Len > n {
			return nil, fmt.Errorf("kyp: block %d: range [%d,%d) empty or not inside [0,%d): %w",
				j, bl.Offset, bl.Offset+bl.Len, n, ErrDimension)
		}
		for _, v := range []float64{bl.Eps, bl.Rho, bl.Decay, bl.Margin} {
			if !finite(v) {
				return nil, fmt.Errorf("kyp: block %d: setting %v: %w", j, v, ErrNonFinite)
			}
		}
		switch bl.Kind {
		case convex.None:
			continue
		case convex.Sampled, convex.Exact:
		default:
			return nil, fmt.Errorf("kyp: block %d: unknown kind %v: %w", j, bl.Kind, ErrInvalid)
		}
		ib := block{index: j, off: bl.Offset, m: bl.Len, cone: true, margin: bl.Margin}
		switch {
		case bl.Rho > 0:
			if bl.Decay <= 0 {
				return nil, fmt.Errorf("kyp: block %d: Decay = %v ≤ 0 with Rho = %v: %w", j, bl.Decay, bl.Rho, ErrInvalid)
			}
			if bl.Margin >= bl.Rho {
				// The mean of Re G over [0, π] is g(0) ≤ Rho: Margin > Rho is
				// infeasible and Margin = Rho leaves the single point g = Rho·e_0,
				// which has no interior for the barrier method.
				return nil, fmt.Errorf("kyp: block %d: Margin = %v ≥ Rho = %v: %w", j, bl.Margin, bl.Rho, ErrInfeasible)
			}
			ib.rho, ib.decay = bl.Rho, bl.Decay
		case bl.Rho < 0:
			return nil, fmt.Errorf("kyp: block %d: Rho = %v < 0: %w", j, bl.Rho, ErrInvalid)
		}
		blocks = append(blocks, ib)
	}
	sort.Slice(order, func(a, b int) bool { return p.Blocks[order[a]].Offset < p.Blocks[order[b]].Offset })
	for i := 1; i < len(order); i++ {
		a, b := p.Blocks[order[i-1]], p.Blocks[order[i]]
		if a.Offset+a.Len > b.Offset {
			return nil, fmt.Errorf("kyp: block %d overlaps block %d: %w", order[i], order[i-1], ErrDimension)
		}
	}
	return solveBlocks(p.P, p.B, p.GammaG, blocks, opt)
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
