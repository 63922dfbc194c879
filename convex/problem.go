package convex

import (
	"context"
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"
)

// Problem is the θ_G step: minimize ½θᵀ(P + γ_G I)θ − bᵀθ subject to per-block constraints.
type Problem struct {
	P      *mat.SymDense // n×n symmetric PSD Gram matrix (the caller forms it; the solver never sees T)
	B      []float64     // length n
	GammaG float64       // ≥ 0, Tikhonov weight
	Blocks []Block       // disjoint index ranges; variables outside every block are unconstrained
}

// Kind selects the passivity constraint of a block.
type Kind int

const (
	// None: no constraint at all (the paper's "np" variants); Rho is ignored.
	None Kind = iota
	// Sampled: Theorem 3, Σ_k g(k)·2cos(hπk/H) ≥ Eps for h = 0..H (the 2cos convention).
	Sampled
	// Exact: min over ω ∈ [0,π] of Re G(e^{iω}) = Σ_k g(k)cos(kω) ≥ Margin, certified.
	Exact
)

func (k Kind) String() string {
	switch k {
	case None:
		return "None"
	case Sampled:
		return "Sampled"
	case Exact:
		return "Exact"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Block is one FIR filter g(0..Len-1) = θ[Offset:Offset+Len] and its constraints.
type Block struct {
	Offset, Len int
	Kind        Kind
	// H is the sampling horizon of a Sampled block: constraints at ω_h = hπ/H, h = 0..H.
	H int
	// Eps is the right-hand side of a Sampled block in the 2cos convention:
	// Σ_k g(k)·2cos(hπk/H) ≥ Eps, i.e. Re G(ω_h) ≥ Eps/2.
	Eps float64
	// If Rho > 0 (and Kind != None): decay bounds |g(k)| ≤ Rho·Decay^k.
	Rho, Decay float64
	// Margin of an Exact block: certified min_ω Re G(e^{iω}) ≥ Margin (1cos convention: Re G = Σ g(k)cos(kω)).
	Margin float64
}

// Options tune Solve. The zero value (or nil) selects the defaults.
type Options struct {
	// Tol is the target relative KKT residual (default 1e-9). An interior-point
	// run that stalls short of it (six iterations without halving its largest
	// residual, as happens when the Newton matrix is too badly conditioned for
	// more) returns its best iterate without error if that iterate's residuals
	// are at most 1e-8; Solution.KKT always says what was reached.
	Tol float64
	// MaxIter bounds the interior-point iterations of one inner solve (default 100); the exchange
	// loop runs at most 50 rounds.
	MaxIter int
	// AcceptTol, when larger than 1e-8, is the largest relative KKT residual a caller will take
	// from an inner solve that cannot reach Tol: a run that stalls, or reaches MaxIter, with its
	// best iterate's residuals at most AcceptTol returns that iterate without error, where it
	// would otherwise end in ErrIterationLimit. Passivity is not traded away by it: Exact
	// blocks are still certified and fixed up (see the package doc); a Sampled block may miss
	// its ε by up to the accepted residual, and its Certificate tells whether it is passive.
	// Solution.KKT reports what was reached. The trainer uses it so that a θ_G step at the edge
	// of what the normal equations resolve (exact mode at n = 2000) does not abort a long run.
	AcceptTol float64
	// ShiftTol, when positive, ends the exchange loop of an Exact block as soon as the
	// certified minimum of its taps is within ShiftTol·Σ|g| below the margin, where by default
	// it goes on until the minimum is at the margin (see the package doc); the final fix-up then
	// raises g(0) by the deficit (Solution.Shift). Passivity is not traded away: the returned
	// taps are certified ≥ Margin either way. What is given up is at most that uniform shift of
	// Re G from the optimum over the working set. A large filter in contact with its margin
	// over whole frequency bands (500 taps fitted to the robot data) otherwise spends most of
	// its rounds cutting off one new dip of 1e-8·Σ|g| to 2e-7·Σ|g| after another, each a
	// little elsewhere; the trainer takes the shift (ShiftTol 1e-6) rather than those rounds.
	// With ShiftTol, large problems (n = 1000 and more in four blocks) also start from a grid
	// of about 256·Len frequencies instead of 8·Len, fine enough that the first inner solve is
	// usually the last (see the package doc).
	// A value that is not a finite positive number means 0, the default.
	ShiftTol float64
	// Warm is a previous solution of a problem with the same block layout; its iterate, duals
	// and constraint set (sampled indices, exact-mode frequencies) seed this solve.
	Warm *Solution
	// Method selects the inner solver; the zero value is the default (see Method).
	Method Method
	// Context, when not nil, cancels the solve: every interior-point iteration checks it, and
	// a cancelled solve returns its error (errors.Is(err, context.Canceled)) and no solution.
	// A large exact-mode problem takes minutes, which a user pressing Ctrl-C should not wait.
	Context context.Context
}

// Residuals are relative KKT residuals of the full problem (every sampled row, the exact-mode
// frequency set, every bound) at the returned point and multipliers:
//
//	Primal          = max_i max(0, h_i − (Gθ)_i) / (1 + |h_i|)
//	Dual            = ‖(P+γI)θ − b − Gᵀz‖∞ / (1 + max(‖b‖∞, ‖(P+γI)θ‖∞))
//	Complementarity = Σ_i z_i·|(Gθ)_i − h_i| / (1 + |objective|)
//
// with z ≥ 0 and constraints written Gθ ≥ h (rows not in the working set have z_i = 0).
type Residuals struct{ Primal, Dual, Complementarity float64 }

// BlockState is the constraint working set of a block at the solution, with its multipliers.
// Frequency rows are Σ_k g(k)·2cos(Omega[i]·k) ≥ RHS; for a Sampled block Omega[i] = h_iπ/H
// (Samples[i] = h_i) and RHS = Eps; for an Exact block RHS = 2·(Margin + Delta).
// ZUpper[k], ZLower[k] are the multipliers of g(k) ≤ Rho·Decay^k and −g(k) ≤ Rho·Decay^k.
type BlockState struct {
	Omega   []float64
	Samples []int
	Z       []float64
	ZUpper  []float64
	ZLower  []float64
	RHS     float64
	// Delta is the internal safety margin of an Exact block (see the package doc).
	Delta float64
	// GridH > 0: the block also has the uniform rows Σ_k g(k)·2cos(hπk/GridH) ≥ RHS,
	// h = 0..GridH, with multipliers GridZ (a Sampled block that keeps all its H+1 rows has
	// GridH = H and no Omega; an Exact block has its base grid here and its refinements in Omega).
	GridH int
	GridZ []float64
	// Rounds is the number of exchange rounds this block took part in.
	Rounds int
}

// Solution is the result of Solve.
type Solution struct {
	X          []float64
	Objective  float64
	KKT        Residuals
	Iterations int // interior-point iterations, summed over exchange rounds
	Rounds     int // exchange rounds (inner solves)
	// Certificates has one entry per block (index as in Problem.Blocks); entries of None blocks
	// are computed too (Passive tells whether that unconstrained filter happens to be passive).
	Certificates []Certificate
	// State is the per-block working set and multipliers, reused by a warm start.
	State []BlockState
	// Shift[j] is the amount added to g_j(0) by the final fix-up of an Exact block (normally 0;
	// see the package doc).
	Shift []float64
}

// Objective returns ½xᵀ(P + γ_G I)x − bᵀx.
func Objective(p *Problem, x []float64) float64 {
	n := len(x)
	var q, lin, sq float64
	raw := p.P.RawSymmetric()
	for i := 0; i < n; i++ {
		row := raw.Data[i*raw.Stride:]
		// diagonal and upper part, doubled
		s := 0.0
		for j := i + 1; j < n; j++ {
			s += row[j] * x[j]
		}
		q += x[i] * (row[i]*x[i] + 2*s)
		lin += p.B[i] * x[i]
		sq += x[i] * x[i]
	}
	return 0.5*(q+p.GammaG*sq) - lin
}

// SymFromDense converts a general square matrix to a *mat.SymDense, returning ErrNotSymmetric
// when some |a_ij − a_ji| > 1e-12·max|a| and ErrNonFinite for NaN/Inf entries.
func SymFromDense(a mat.Matrix) (*mat.SymDense, error) {
	r, c := a.Dims()
	if r != c {
		return nil, fmt.Errorf("convex: SymFromDense: %d×%d matrix: %w", r, c, ErrDimension)
	}
	mx := 0.0
	for i := 0; i < r; i++ {
		for j := 0; j < r; j++ {
			v := a.At(i, j)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("convex: SymFromDense: entry (%d,%d): %w", i, j, ErrNonFinite)
			}
			mx = math.Max(mx, math.Abs(v))
		}
	}
	s := mat.NewSymDense(r, nil)
	for i := 0; i < r; i++ {
		for j := i; j < r; j++ {
			u, v := a.At(i, j), a.At(j, i)
			if math.Abs(u-v) > 1e-12*mx {
				return nil, fmt.Errorf("convex: SymFromDense: (%d,%d)=%g vs (%d,%d)=%g: %w", i, j, u, j, i, v, ErrNotSymmetric)
			}
			s.SetSym(i, j, 0.5*(u+v))
		}
	}
	return s, nil
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// validate checks the problem and returns n.
func (p *Problem) validate() (int, error) {
	if p == nil || p.P == nil {
		return 0, fmt.Errorf("convex: nil problem or P: %w", ErrNotSymmetric)
	}
	n := p.P.SymmetricDim()
	if len(p.B) != n {
		return 0, fmt.Errorf("convex: P is %d×%d but len(B) = %d: %w", n, n, len(p.B), ErrDimension)
	}
	if !finite(p.GammaG) {
		return 0, fmt.Errorf("convex: GammaG = %g: %w", p.GammaG, ErrNonFinite)
	}
	if p.GammaG < 0 {
		return 0, fmt.Errorf("convex: GammaG = %g < 0: %w", p.GammaG, ErrInvalid)
	}
	raw := p.P.RawSymmetric()
	for i := 0; i < n; i++ {
		if !finite(p.B[i]) {
			return 0, fmt.Errorf("convex: B[%d] = %g: %w", i, p.B[i], ErrNonFinite)
		}
		row := raw.Data[i*raw.Stride : i*raw.Stride+n]
		for j := i; j < n; j++ {
			if !finite(row[j]) {
				return 0, fmt.Errorf("convex: P[%d,%d] = %g: %w", i, j, row[j], ErrNonFinite)
			}
		}
	}
	idx := make([]int, len(p.Blocks))
	for j := range p.Blocks {
		idx[j] = j
		bl := &p.Blocks[j]
		be := func(err error, format string, a ...any) error {
			return &BlockError{Block: j, Err: err, Msg: fmt.Sprintf(format, a...)}
		}
		if bl.Len < 1 || bl.Offset < 0 || bl.Offset+bl.Len > n {
			return 0, be(ErrDimension, "range [%d,%d) not inside [0,%d) or empty", bl.Offset, bl.Offset+bl.Len, n)
		}
		for _, v := range []float64{bl.Eps, bl.Rho, bl.Decay, bl.Margin} {
			if !finite(v) {
				return 0, be(ErrNonFinite, "non-finite setting %g", v)
			}
		}
		switch bl.Kind {
		case None:
			continue
		case Sampled:
			if bl.H < 1 {
				return 0, be(ErrInvalid, "H = %d < 1", bl.H)
			}
		case Exact:
		default:
			return 0, be(ErrInvalid, "unknown kind %v", bl.Kind)
		}
		if bl.Rho > 0 {
			if bl.Decay <= 0 {
				return 0, be(ErrInvalid, "Decay = %g ≤ 0 with Rho = %g", bl.Decay, bl.Rho)
			}
			if bl.Kind == Sampled && bl.Eps > 2*bl.Rho {
				return 0, be(ErrInfeasible, "Eps = %g > 2·Rho = %g", bl.Eps, 2*bl.Rho)
			}
			if bl.Kind == Exact && bl.Margin > bl.Rho {
				return 0, be(ErrInfeasible, "Margin = %g > Rho = %g", bl.Margin, bl.Rho)
			}
		} else if bl.Rho < 0 {
			return 0, be(ErrInvalid, "Rho = %g < 0", bl.Rho)
		}
	}
	sort.Slice(idx, func(a, b int) bool { return p.Blocks[idx[a]].Offset < p.Blocks[idx[b]].Offset })
	for i := 1; i < len(idx); i++ {
		a, b := p.Blocks[idx[i-1]], p.Blocks[idx[i]]
		if a.Offset+a.Len > b.Offset {
			return 0, &BlockError{Block: idx[i], Err: ErrDimension, Msg: fmt.Sprintf("overlaps block %d", idx[i-1])}
		}
	}
	return n, nil
}
