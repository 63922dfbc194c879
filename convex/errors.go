package convex

import (
	"errors"
	"fmt"
)

// Sentinel errors returned (wrapped, with context) by Solve and Certify. Test with errors.Is.
var (
	// ErrNonFinite reports a NaN or ±Inf in P, B, GammaG, a block setting, or the taps given to Certify.
	ErrNonFinite = errors.New("convex: non-finite value")
	// ErrNotSymmetric reports a matrix that is not symmetric: a *mat.SymDense always is, so Solve
	// reports it only for a nil P; SymFromDense reports it for a general matrix whose entries
	// differ from their transposes by more than a relative 1e-12.
	ErrNotSymmetric = errors.New("convex: P is not symmetric")
	// ErrDimension reports inconsistent sizes: P vs B, a block outside [0,n), overlapping blocks,
	// an empty block, or empty taps.
	ErrDimension = errors.New("convex: dimension mismatch")
	// ErrInvalid reports a setting outside its domain: GammaG < 0, H < 1, Decay ≤ 0, unknown Kind.
	ErrInvalid = errors.New("convex: invalid setting")
	// ErrInfeasible reports settings that no filter can meet: Eps > 2·Rho for a Sampled block with
	// decay bounds (the paper's condition ε_j ≤ 2|g_j(0)| ≤ 2ρ), or Margin > Rho for an Exact block
	// with decay bounds (the mean of Re G over [0,π] is g(0) ≤ ρ).
	ErrInfeasible = errors.New("convex: infeasible settings")
	// ErrIterationLimit reports that the interior-point method or the exchange loop ran out of
	// iterations; Solve returns its best iterate together with this error.
	ErrIterationLimit = errors.New("convex: iteration limit reached")
	// ErrNumerical reports a breakdown (a Newton matrix that cannot be factorized even after
	// regularization); Solve returns its best iterate together with this error.
	ErrNumerical = errors.New("convex: numerical breakdown")
)

// BlockError locates a problem in one block; it wraps one of the sentinels above, so both
// errors.Is(err, ErrInfeasible) and errors.As(err, &be) work.
type BlockError struct {
	Block int   // index into Problem.Blocks
	Err   error // one of the sentinel errors
	Msg   string
}

func (e *BlockError) Error() string {
	return fmt.Sprintf("convex: block %d: %s: %v", e.Block, e.Msg, e.Err)
}

// Unwrap returns the sentinel error.
func (e *BlockError) Unwrap() error { return e.Err }
