package kyp

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/passivenfir/gputrain/convex"
)

// Sentinel errors. Every error returned by Solve wraps exactly one of them.
// Those shared with package convex are the same values, so a caller that
// switches routes can keep its errors.Is tests.
var (
	// ErrDimension: P, b and the blocks do not fit together (sizes, block
	// ranges, empty or overlapping blocks).
	ErrDimension = convex.ErrDimension
	// ErrNonFinite: P, b, γ or a block parameter is NaN or ±Inf.
	ErrNonFinite = convex.ErrNonFinite
	// ErrInvalid: a setting outside its domain (γ < 0, Rho < 0, Rho > 0 with
	// Decay ≤ 0, unknown Kind, nil problem).
	ErrInvalid = convex.ErrInvalid
	// ErrInfeasible: the constraints admit no strictly feasible point
	// (Margin ≥ Rho on a block with decay bounds).
	ErrInfeasible = convex.ErrInfeasible
	// ErrIterationLimit: Options.MaxIter Newton steps did not reach Options.Tol;
	// Solve returns its last (feasible, certified) iterate with this error.
	ErrIterationLimit = convex.ErrIterationLimit
	// ErrNumerical: the Newton system broke down (should not happen on sane data).
	ErrNumerical = convex.ErrNumerical
	// ErrNotPositiveDefinite: P + γI is not numerically positive definite; the
	// dual method needs (P + γI)⁻¹ (use γ > 0).
	ErrNotPositiveDefinite = errors.New("kyp: P + γI not positive definite")
)

// Options tunes Solve. Zero fields take the defaults.
type Options struct {
	// Tol is the target duality gap relative to max(1, |objective|); default 1e-9.
	// The gap of the barrier method is ν/t exactly on the central path, so this
	// bounds the distance of Objective from the true optimum.
	Tol float64
	// MaxIter limits the total number of Newton steps; default 500.
	MaxIter int
	// Growth is the factor by which the barrier parameter t grows after each
	// centering; default 20.
	Growth float64
	// CertTol is the eigenvalue tolerance of the certificates, relative to
	// max(1, max_k |g_j(k)|); default 1e-8.
	CertTol float64

	centering float64 // λ² accepted as centered in intermediate stages (tests)
}

func (o *Options) withDefaults() Options {
	var r Options
	if o != nil {
		r = *o
	}
	if !(r.Tol > 0) {
		r.Tol = 1e-9
	}
	if r.MaxIter <= 0 {
		r.MaxIter = 500
	}
	if !(r.Growth > 1) {
		r.Growth = 20
	}
	if !(r.centering > 0) {
		r.centering = 0.25
	}
	if !(r.CertTol > 0) {
		r.CertTol = 1e-8
	}
	return r
}

// Solution is the result of Solve.
type Solution struct {
	// X is θ, the minimizer.
	X []float64
	// Objective is ½θᵀ(P+γI)θ − bᵀθ at X.
	Objective float64
	// Gap is the duality gap (Objective minus the dual objective) at the returned
	// primal-dual pair; Objective is within Gap of the optimum.
	Gap float64
	// Iterations counts Newton steps.
	Iterations int
	// Certificates holds one entry per constrained block, in block order.
	Certificates []Certificate
}

// Certificate is the KYP certificate of one FIR block.
type Certificate struct {
	// Block is the index of the block in Problem.Blocks.
	Block int
	// X is the (m−1)×(m−1) KYP matrix X_j of Theorem 4 (nil when m = 1, where the
	// LMI reduces to 2g(0) ≥ 0).
	X *mat.SymDense
	// MinEigX and MinEigLMI are the smallest eigenvalues of X_j and of the KYP
	// block matrix, as computed by Check.
	MinEigX, MinEigLMI float64
	// OK reports that both are ≥ −tol (see Options.CertTol).
	OK bool
}

// block is the internal description of one constrained or bounded FIR block.
type block struct {
	index  int // position in the caller's block list
	off, m int
	cone   bool    // positive-real (KYP) constraint
	margin float64 // Re G ≥ margin
	rho    float64 // > 0: |g(k)| ≤ rho·decay^k
	decay  float64
}

// problem is the solver's input: minimize ½θᵀQθ − bᵀθ, Q = P + γI.
type problem struct {
	Q      *mat.SymDense
	b      []float64
	blocks []block
}

// coneBlock is the per-block state of the dual cone variable z_j.
type coneBlock struct {
	block
	zoff int // offset of z_j in w
	tb   *toepBarrier
	H    *mat.SymDense // Hessian of −log det T(z_j)
	g    []float64     // gradient of log det T(z_j)
}

// solver holds the dual barrier method state. The dual variables are
// w = (z_1, …, z_J, u, l): z_j ∈ R^{m_j} with T(z_j) ⪰ 0 for each cone block,
// u, l ≥ 0 for the upper and lower decay bounds. For s = Eᵀz − Dᵀu + Dᵀl the
// primal minimizer of the Lagrangian is θ(w) = Q⁻¹(b + s), and the dual
// objective (minimized) is f(w) = ½(b+s)ᵀQ⁻¹(b+s) − Σ_j margin_j z_j(0) + ρᵀ(u+l).
type solver struct {
	n     int
	Q     *mat.SymDense
	qchol mat.Cholesky
	b     []float64
	cones []*coneBlock
	nz    int       // Σ m_j over cone blocks
	idx   []int     // bounded coordinates
	rho   []float64 // their bounds
	nu    float64   // barrier parameter (complexity): Σ m_j + 2·len(idx)

	w, dw     []float64
	theta     []float64
	gf, grad  []float64
	dtheta    []float64
	s, tmp    []float64
	iters     int
	qbChol    mat.Cholesky
	qb        *mat.SymDense
	eqe       *mat.SymDense // t-free E Q⁻¹ Eᵀ, cached when there are no bounds
	k         *mat.SymDense
	kchol     mat.Cholesky
	v         *mat.Dense // Qb⁻¹ Eᵀ
	et        *mat.Dense // Eᵀ
	zTrial    []float64
	trialTBs  []*toepBarrier
	haveBound bool

	best     *recovered // best certified primal point so far
	bestDual float64    // best dual bound −f(w) so far
}

func newSolver(p *problem) (*solver, error) {
	n := len(p.b)
	sv := &solver{n: n, Q: p.Q, b: p.b}
	if !sv.qchol.Factorize(p.Q) {
		return nil, fmt.Errorf("kyp: Cholesky of P + γI failed: %w", ErrNotPositiveDefinite)
	}
	for _, bl := range p.blocks {
		if bl.cone {
			cb := &coneBlock{block: bl, zoff: sv.nz, tb: newToepBarrier(bl.m),
				H: mat.NewSymDense(bl.m, nil), g: make([]float64, bl.m)}
			sv.cones = append(sv.cones, cb)
			sv.nz += bl.m
			sv.trialTBs = append(sv.trialTBs, newToepBarrier(bl.m))
		}
		if bl.rho > 0 {
			for k := 0; k < bl.m; k++ {
				sv.idx = append(sv.idx, bl.off+k)
				sv.rho = append(sv.rho, bl.rho*math.Pow(bl.decay, float64(k)))
			}
		}
	}
	nb := len(sv.idx)
	sv.haveBound = nb > 0
	sv.nu = float64(sv.nz + 2*nb)
	nw := sv.nz + 2*nb
	sv.w = make([]float64, nw)
	sv.dw = make([]float64, nw)
	sv.gf = make([]float64, nw)
	sv.grad = make([]float64, nw)
	sv.theta = make([]float64, n)
	sv.dtheta = make([]float64, n)
	sv.s = make([]float64, n)
	sv.tmp = make([]float64, n)
	sv.zTrial = make([]float64, sv.nz)
	if sv.nz > 0 {
		sv.k = mat.NewSymDense(sv.nz, nil)
		sv.v = mat.NewDense(n, sv.nz, nil)
		sv.et = mat.NewDense(n, sv.nz, nil)
		for _, cb := range sv.cones {
			for k := 0; k < cb.m; k++ {
				sv.et.Set(cb.off+k, cb.zoff+k, 1)
			}
		}
	}
	if nb > 0 {
		sv.qb = mat.NewSymDense(n, nil)
	}
	return sv, nil
}

// uOff and lOff locate u and l in w.
func (sv *solver) uOff() int { return sv.nz }
func (sv *solver) lOff() int { return sv.nz + len(sv.idx) }

// computeTheta sets θ = Q⁻¹(b + s(w)).
func (sv *solver) computeTheta() {
	copy(sv.s, sv.b)
	for _, cb := range sv.cones {
		for k := 0; k < cb.m; k++ {
			sv.s[cb.off+k] += sv.w[cb.zoff+k]
		}
	}
	uo, lo := sv.uOff(), sv.lOff()
	for i, j := range sv.idx {
		sv.s[j] += -sv.w[uo+i] + sv.w[lo+i]
	}
	dst := mat.NewVecDense(sv.n, sv.theta)
	_ = sv.qchol.SolveVecTo(dst, mat.NewVecDense(sv.n, sv.s))
}

// dualObjective returns f(w) = ½(b+s)ᵀθ + cᵀw for the current θ (computeTheta).
func (sv *solver) dualObjective() float64 {
	f := 0.0
	for i := range sv.s {
		f += 0.5 * sv.s[i] * sv.theta[i]
	}
	for _, cb := range sv.cones {
		f -= cb.margin * sv.w[cb.zoff]
	}
	uo, lo := sv.uOff(), sv.lOff()
	for i, r := range sv.rho {
		f += r * (sv.w[uo+i] + sv.w[lo+i])
	}
	return f
}

// primalObjective returns ½θᵀQθ − bᵀθ.
func (sv *solver) primalObjective() float64 {
	t := mat.NewVecDense(sv.n, sv.theta)
	q := mat.NewVecDense(sv.n, sv.tmp)
	q.MulVec(sv.Q, t)
	p := 0.0
	for i := range sv.theta {
		p += sv.theta[i] * (0.5*sv.tmp[i] - sv.b[i])
	}
	return p
}

// gradF sets gf = ∇f(w) = Wθ + c: the primal constraint values.
func (sv *solver) gradF() {
	for _, cb := range sv.cones {
		for k := 0; k < cb.m; k++ {
			sv.gf[cb.zoff+k] = sv.theta[cb.off+k]
		}
		sv.gf[cb.zoff] -= cb.margin
	}
	uo, lo := sv.uOff(), sv.lOff()
	for i, j := range sv.idx {
		sv.gf[uo+i] = sv.rho[i] - sv.theta[j]
		sv.gf[lo+i] = sv.rho[i] + sv.theta[j]
	}
}

// gap returns wᵀ(Wθ + c), the duality gap of the pair (θ(w), w).
func (sv *solver) gap() float64 {
	g := 0.0
	for i := range sv.w {
		g += sv.w[i] * sv.gf[i]
	}
	return g
}

// newton computes the Newton step of Φ_t(w) = t·f(w) − Σ log det T(z_j) −
// Σ log u − Σ log l at the current w (θ and gf up to date) and returns the
// squared Newton decrement.
//
// The system (t W Q⁻¹ Wᵀ + ∇²B) Δw = −∇Φ_t is solved through the equivalent
// KKT form Q Δθ = Wᵀ Δw, t W Δθ + ∇²B Δw = −∇Φ_t: the diagonal bound blocks are
// eliminated into Qb = Q + t Dᵀ diag(u²+l²) D, leaving the dense system
// (t E Qb⁻¹ Eᵀ + blockdiag H_j) Δz = −∇_zΦ_t − t E Qb⁻¹ r of order Σ m_j.
func (sv *solver) newton(t float64) (float64, error) {
	for _, cb := range sv.cones {
		if !cb.tb.factor(sv.w[cb.zoff : cb.zoff+cb.m]) {
			return 0, fmt.Errorf("kyp: iterate left the dual cone: %w", ErrNumerical)
		}
		if err := cb.tb.invert(); err != nil && !isCondition(err) {
			return 0, fmt.Errorf("kyp: Toeplitz inverse: %v: %w", err, ErrNumerical)
		}
		gradLogDet(cb.tb.R, cb.g)
		cb.tb.hessian(cb.H)
		for k := 0; k < cb.m; k++ {
			sv.grad[cb.zoff+k] = t*sv.gf[cb.zoff+k] - cb.g[k]
		}
	}
	uo, lo := sv.uOff(), sv.lOff()
	nb := len(sv.idx)
	for i := 0; i < nb; i++ {
		u, l := sv.w[uo+i], sv.w[lo+i]
		sv.grad[uo+i] = t*sv.gf[uo+i] - 1/u
		sv.grad[lo+i] = t*sv.gf[lo+i] - 1/l
	}
	// r = Dᵀ(u² ∇_uΦ − l² ∇_lΦ).
	r := sv.tmp
	clear(r)
	for i, j := range sv.idx {
		u, l := sv.w[uo+i], sv.w[lo+i]
		r[j] += u*u*sv.grad[uo+i] - l*l*sv.grad[lo+i]
	}
	chol := &sv.qchol
	if nb > 0 {
		sv.qb.CopySym(sv.Q)
		for i, j := range sv.idx {
			u, l := sv.w[uo+i], sv.w[lo+i]
			sv.qb.SetSym(j, j, sv.qb.At(j, j)+t*(u*u+l*l))
		}
		if !sv.qbChol.Factorize(sv.qb) {
			return 0, fmt.Errorf("kyp: Cholesky of the bound-augmented Gram failed: %w", ErrNumerical)
		}
		chol = &sv.qbChol
	}
	// qr = Qb⁻¹ r.
	qr := make([]float64, sv.n)
	if nb > 0 {
		_ = chol.SolveVecTo(mat.NewVecDense(sv.n, qr), mat.NewVecDense(sv.n, r))
	}
	if sv.nz > 0 {
		if nb > 0 || sv.eqe == nil {
			if err := chol.SolveTo(sv.v, sv.et); err != nil && !isCondition(err) {
				return 0, fmt.Errorf("kyp: %v: %w", err, ErrNumerical)
			}
			if nb == 0 {
				sv.eqe = mat.NewSymDense(sv.nz, nil)
				sv.fillEQE(sv.eqe)
			}
		}
		// K = t E V + blockdiag H.
		if nb == 0 {
			sv.k.ScaleSym(t, sv.eqe)
		} else {
			sv.fillEQE(sv.k)
			sv.k.ScaleSym(t, sv.k)
		}
		for _, cb := range sv.cones {
			for a := 0; a < cb.m; a++ {
				for c := a; c < cb.m; c++ {
					i, j := cb.zoff+a, cb.zoff+c
					sv.k.SetSym(i, j, sv.k.At(i, j)+cb.H.At(a, c))
				}
			}
		}
		rhs := make([]float64, sv.nz)
		for _, cb := range sv.cones {
			for k := 0; k < cb.m; k++ {
				rhs[cb.zoff+k] = -sv.grad[cb.zoff+k] - t*qr[cb.off+k]
			}
		}
		if !sv.kchol.Factorize(sv.k) {
			// Rounding can make K indefinite when t is huge; add a tiny ridge.
			ridge := 0.0
			for i := 0; i < sv.nz; i++ {
				ridge = math.Max(ridge, sv.k.At(i, i))
			}
			for i := 0; i < sv.nz; i++ {
				sv.k.SetSym(i, i, sv.k.At(i, i)+1e-14*ridge)
			}
			if !sv.kchol.Factorize(sv.k) {
				return 0, fmt.Errorf("kyp: Newton system not positive definite: %w", ErrNumerical)
			}
		}
		dz := mat.NewVecDense(sv.nz, sv.dw[:sv.nz])
		_ = sv.kchol.SolveVecTo(dz, mat.NewVecDense(sv.nz, rhs))
	}
	// Δθ = Qb⁻¹(EᵀΔz + r) = V Δz + qr.
	if sv.nz > 0 {
		{
			dt := mat.NewVecDense(sv.n, sv.dtheta)
			dt.MulVec(sv.v, mat.NewVecDense(sv.nz, sv.dw[:sv.nz]))
		}
	} else {
		clear(sv.dtheta)
	}
	for i := range sv.dtheta {
		sv.dtheta[i] += qr[i]
	}
	for i, j := range sv.idx {
		u, l := sv.w[uo+i], sv.w[lo+i]
		sv.dw[uo+i] = u * u * (-sv.grad[uo+i] + t*sv.dtheta[j])
		sv.dw[lo+i] = l * l * (-sv.grad[lo+i] - t*sv.dtheta[j])
	}
	lam2 := 0.0
	for i := range sv.dw {
		lam2 -= sv.grad[i] * sv.dw[i]
	}
	return lam2, nil
}

// fillEQE writes E V (the cone rows of V = Qb⁻¹Eᵀ) into dst.
func (sv *solver) fillEQE(dst *mat.SymDense) {
	for _, ca := range sv.cones {
		for a := 0; a < ca.m; a++ {
			row := ca.off + a
			i := ca.zoff + a
			for j := i; j < sv.nz; j++ {
				dst.SetSym(i, j, sv.v.At(row, j))
			}
		}
	}
}

// step performs a line search along Δw and moves w; it returns the step length.
func (sv *solver) step(t, lam2 float64) (float64, error) {
	lam := math.Sqrt(math.Max(lam2, 0))
	// Quadratic part of Φ_t along the step: t(α gfᵀΔw + ½α² ΔθᵀQΔθ), exact.
	lin := 0.0
	for i := range sv.dw {
		lin += sv.gf[i] * sv.dw[i]
	}
	qd := mat.NewVecDense(sv.n, sv.tmp)
	qd.MulVec(sv.Q, mat.NewVecDense(sv.n, sv.dtheta))
	quad := 0.0
	for i := range sv.dtheta {
		quad += sv.dtheta[i] * sv.tmp[i]
	}
	uo, lo := sv.uOff(), sv.lOff()
	nb := len(sv.idx)
	// Largest α keeping u, l > 0 (with a 1 % margin).
	amax := math.Inf(1)
	for i := 0; i < nb; i++ {
		if d := sv.dw[uo+i]; d < 0 {
			amax = math.Min(amax, -0.99*sv.w[uo+i]/d)
		}
		if d := sv.dw[lo+i]; d < 0 {
			amax = math.Min(amax, -0.99*sv.w[lo+i]/d)
		}
	}
	logdet0 := 0.0
	for _, cb := range sv.cones {
		logdet0 += cb.tb.logDet()
	}
	// trial returns Φ_t(w + αΔw) − Φ_t(w), or ok = false outside the domain.
	trial := func(alpha float64) (float64, bool) {
		if alpha > amax {
			return 0, false
		}
		logdet := 0.0
		for ci, cb := range sv.cones {
			z := sv.zTrial[cb.zoff : cb.zoff+cb.m]
			for k := range z {
				z[k] = sv.w[cb.zoff+k] + alpha*sv.dw[cb.zoff+k]
			}
			if !sv.trialTBs[ci].factor(z) {
				return 0, false
			}
			logdet += sv.trialTBs[ci].logDet()
		}
		dphi := t*(alpha*lin+0.5*alpha*alpha*quad) - (logdet - logdet0)
		for i := 0; i < nb; i++ {
			dphi -= math.Log1p(alpha*sv.dw[uo+i]/sv.w[uo+i]) + math.Log1p(alpha*sv.dw[lo+i]/sv.w[lo+i])
		}
		return dphi, true
	}
	damped := 1 / (1 + lam)
	alpha := math.Min(1, amax)
	var dphi float64
	for {
		d, ok := trial(alpha)
		if ok && (lam < 0.25 || d <= -0.1*alpha*lam2 || alpha <= damped) {
			dphi = d
			break
		}
		if alpha <= damped {
			// The damped step 1/(1+λ) is always feasible for a self-concordant
			// Φ_t; failing here means rounding has taken over.
			return 0, fmt.Errorf("kyp: damped Newton step infeasible: %w", ErrNumerical)
		}
		alpha = math.Max(0.5*alpha, damped)
	}
	// Far from the center a full step can be short: Newton on −log u at
	// most doubles u, so a multiplier that must grow by orders of magnitude
	// (a bound or a frequency becoming active) would take one step per
	// doubling. Extrapolate along Δw while Φ_t keeps decreasing.
	if alpha == 1 && lam > 1 {
		for k := 0; k < 30; k++ {
			d, ok := trial(2 * alpha)
			if !ok || d >= dphi {
				break
			}
			alpha, dphi = 2*alpha, d
		}
	}
	for i := range sv.w {
		sv.w[i] += alpha * sv.dw[i]
	}
	return alpha, nil
}

// run executes the barrier method.
func (sv *solver) run(opt Options) (err error) {
	sv.computeTheta()
	if sv.nu == 0 {
		return nil
	}
	// Initial point. θ_unc = Q⁻¹b (w = 0) sets the scales: t0 = ν/|p_unc|
	// makes the first target gap ν/t0 the size of the objective, and the dual
	// variables are chosen so that the point would be central for taps of the
	// size of θ_unc: T(z_j) = α_j I with t0·g_j(0) = m_j/α_j, and
	// u_k = l_k = 1/(t0·ρ_k) (slack ρ_k at θ = 0).
	punc := 0.0
	for i := range sv.b {
		punc += 0.5 * sv.b[i] * sv.theta[i]
	}
	t := sv.nu / math.Max(math.Abs(punc), 1e-300)
	for _, cb := range sv.cones {
		gs := 0.0
		for k := 0; k < cb.m; k++ {
			gs = math.Max(gs, math.Abs(sv.theta[cb.off+k]))
		}
		if !(gs > 0) {
			gs = 1
		}
		sv.w[cb.zoff] = float64(cb.m) / (t * gs)
	}
	uo, lo := sv.uOff(), sv.lOff()
	for i, r := range sv.rho {
		sv.w[uo+i] = 1 / (t * r)
		sv.w[lo+i] = 1 / (t * r)
	}
	sv.computeTheta()
	sv.gradF()
	for {
		// Centering.
		final := false
		objScale := math.Max(1, math.Abs(sv.dualObjective()))
		if sv.nu/t <= opt.Tol*objScale {
			final = true
		}
		stall := 0
		for {
			if sv.iters >= opt.MaxIter {
				return fmt.Errorf("kyp: %d Newton steps, gap %.3g: %w", sv.iters, sv.nu/t, ErrIterationLimit)
			}
			lam2, err := sv.newton(t)
			if err != nil {
				return err
			}
			sv.iters++
			tolC := opt.centering
			if final {
				tolC = 1e-8
			}
			if lam2 <= tolC {
				break
			}
			if final && lam2 < 1e-4 {
				// Rounding (the Toeplitz matrices are nearly singular at this
				// point) keeps λ² from dropping further; the objective is within
				// the reported gap anyway.
				stall++
				if stall > 3 {
					break
				}
			}
			alpha, err := sv.step(t, lam2)
			if err != nil {
				return err
			}
			if debugSolve {
				fmt.Printf("it %3d t %.3e lam2 %.3e alpha %.3e\n", sv.iters, t, lam2, alpha)
			}
			sv.computeTheta()
			sv.gradF()
		}
		if final || sv.nu/t <= 1e3*opt.Tol*objScale {
			sv.recover()
		}
		if debugSolve {
			fmt.Printf("stage t %.3e nu/t %.3e gap %.3e obj %.10g\n", t, sv.nu/t, sv.gap(), sv.primalObjective())
		}
		if final {
			return nil
		}
		t *= opt.Growth
	}
}

// isCondition reports gonum's ill-conditioning warning, which still comes with
// a computed result.
func isCondition(err error) bool {
	_, ok := err.(mat.Condition)
	return ok
}

const debugSolve = false
