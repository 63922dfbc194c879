package convex

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// FIRGram forms the normal equations of the least-squares FIR fit y ≈ Φ g over several batches:
// P = Σ_batches ΦᵀΦ and b = Σ_batches Φᵀy, where Φ is the T×mG Toeplitz matrix of the batch's
// input with zero initial conditions, Φ[t][k] = u(t−k) (0 for t < k).
//
// It runs in O(T·mG) per batch: the first row P[0][r] = Σ_s u(s)u(s+r) is an autocorrelation,
// and the rest follows from P[k+1][l+1] = P[k][l] − u(T−1−k)·u(T−1−l).
func FIRGram(u, y [][]float64, mG int) (*mat.SymDense, []float64, error) {
	if mG < 1 {
		return nil, nil, fmt.Errorf("convex: FIRGram: mG = %d: %w", mG, ErrInvalid)
	}
	if len(u) != len(y) {
		return nil, nil, fmt.Errorf("convex: FIRGram: %d input batches, %d output batches: %w", len(u), len(y), ErrDimension)
	}
	P := mat.NewSymDense(mG, nil)
	raw := P.RawSymmetric()
	b := make([]float64, mG)
	row := make([]float64, mG)
	for bi := range u {
		ub, yb := u[bi], y[bi]
		T := len(ub)
		if len(yb) != T {
			return nil, nil, fmt.Errorf("convex: FIRGram: batch %d: len(u) = %d, len(y) = %d: %w", bi, T, len(yb), ErrDimension)
		}
		for t := 0; t < T; t++ {
			if !finite(ub[t]) || !finite(yb[t]) {
				return nil, nil, fmt.Errorf("convex: FIRGram: batch %d, t = %d: %w", bi, t, ErrNonFinite)
			}
		}
		uat := func(i int) float64 {
			if i < 0 {
				return 0
			}
			return ub[i]
		}
		for r := 0; r < mG; r++ {
			s, sb := 0.0, 0.0
			for t := 0; t+r < T; t++ {
				s += ub[t] * ub[t+r]
				sb += ub[t] * yb[t+r]
			}
			row[r] = s
			b[r] += sb
		}
		// diagonal r = l − k: walk down with the recursion.
		for r := 0; r < mG; r++ {
			v := row[r]
			for k := 0; k+r < mG; k++ {
				l := k + r
				if k > 0 {
					v -= uat(T-k) * uat(T-l)
				}
				raw.Data[k*raw.Stride+l] += v
			}
		}
	}
	return P, b, nil
}
