package convex

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

const (
	defaultTol     = 1e-9
	defaultMaxIter = 100
	maxRounds      = 50
	// deltaRel is the internal safety margin of Exact blocks relative to max(|Margin|, Σ|g|).
	deltaRel = 1e-8
	looseTol = 1e-9
	// exactGrid·Len is about the size of the uniform grid of an Exact block.
	exactGrid = 8
)

// quickDip: a dip below Margin by more than quickDip·Σ|g| at an evaluated point adds rows
// without a certificate (certifyBelow). Deep dips are those of the early exchange rounds;
// for shallow ones the branch and bound's best point is a candidate the next round needs.
const quickDip = 1e-6

// warmBudget bounds the iterations of a warm-started inner solve: a warm start
// that has not converged by then is no better than a cold one (which takes
// 20–30 iterations here) and is restarted cold, unless it is nearly there
// (warmCutMerit: then up to warmExtra more). In the trainer the previous
// θ_G step's solution seeds a problem with new gains; at n = 2000 such a warm
// start once ran 100 iterations (45 s) before failing.
const warmBudget = 30

// fullSampledLen is the block length from which a Sampled block keeps all H+1 rows (applied
// with DCTs) instead of running the exchange over a subset of them.
const fullSampledLen = 64

// allRowsCost decides when the shorter Sampled blocks keep all their rows too (allRowsSampled).
// An iteration costs about n³/3 flops for the Cholesky factorization of the Newton matrix, plus,
// for every all-rows block, three DCTs of length H+1. One all-rows solve takes about 30
// iterations; the exchange takes 100–200 over its rounds, but its iterations skip the DCTs. So
// the all-rows path pays when the factorization dominates: n³/3 ≥ allRowsCost·Σ H·log₂H over the
// short blocks. Measured (n³/3 over Σ H·log₂H in brackets) on one θ_G step of the MSD problem
// (trainer's BenchmarkThetaGStepMSD, H = 10000): ten 50-tap blocks, n = 500 [31], 0.81 s all rows
// against 1.33 s exchange; four 50-tap blocks, n = 200 [5], 0.21 s against 0.08 s; one 50-tap
// block of Table I, H = 1000–4000 [< 1], 3.5–13 ms against 2–4 ms. 15 sits between 5 and 31.
const allRowsCost = 15

// allRowsSampled reports whether the Sampled blocks of p shorter than fullSampledLen should also
// keep all H+1 rows in one interior-point solve rather than run the exchange (see allRowsCost).
// Either way the solution is the optimum of the full sampled problem; only the time differs.
func allRowsSampled(p *Problem, n int) bool {
	dct := 0.0
	for _, bl := range p.Blocks {
		if bl.Kind == Sampled && bl.Len < fullSampledLen && bl.H >= bl.Len {
			dct += float64(bl.H) * math.Log2(float64(bl.H)+1)
		}
	}
	nf := float64(n)
	return dct > 0 && nf*nf*nf/3 >= allRowsCost*dct
}

// fineGrid, fineGridCost and fineGridRows decide the uniform grid of Exact blocks under a
// ShiftTol (exactGridMul).
const (
	fineGrid     = 256
	fineGridCost = 64
	fineGridRows = 1 << 20
)

// exactGridMul returns the size of the uniform grid of the Exact blocks of p, as a multiple
// of Len (the grid has niceSize(mul·Len) + 1 rows): exactGrid, or fineGrid when the caller
// accepts a shift (shiftTol > 0) and the problem is large. The dips of Re G between the grid's
// rows shrink with the square of their spacing; on the fine grid they stay below the accepted
// deficit, so that the first inner solve is the last and no cluster rows are needed: the
// robot-sized problem (four 500-tap blocks, n = 2000) took four rounds, 122 iterations, on the
// 8·Len grid, and takes one, 38 iterations, on the 256·Len grid. The grid's transforms,
// O(H log H) each and several per iteration, then cost about as much as the factorization, so
// the fine grid is taken when fineGridCost·Σ H·log₂H ≤ n³/3 over the Exact blocks (n = 1000
// and 2000 in four blocks, not n = 500, where it took 2.25 s against 0.84 s) and Σ H stays
// below fineGridRows. Grids in between were worse than either: 64·Len at n = 1000 took 257
// iterations in 8 rounds against 174 in 6 (docs/BENCHMARKS.md, session 20).
func exactGridMul(p *Problem, n int, shiftTol float64) int {
	if !(shiftTol > 0) {
		return exactGrid
	}
	cost, rows := 0.0, 0
	for _, bl := range p.Blocks {
		if bl.Kind == Exact {
			H := niceSize(fineGrid * bl.Len)
			cost += float64(H) * math.Log2(float64(H))
			rows += H + 1
		}
	}
	nf := float64(n)
	if rows == 0 || rows > fineGridRows || fineGridCost*cost > nf*nf*nf/3 {
		return exactGrid
	}
	return fineGrid
}

// exactGridMulFn is exactGridMul; the tests replace it to solve on the 8·Len grid as the
// reference.
var exactGridMulFn = exactGridMul

// blockWork is the exchange-method state of one constrained block.
type blockWork struct {
	idx     int
	bl      Block
	ib      *ipBlock
	samples []int // Sampled: indices h of the working rows (parallel to ib.omega)
	inSet   map[int]bool
	delta   float64
	rounds  int
	nfRun   int // working rows in the last inner solve
	cert    Certificate
	certG   []float64 // the taps cert belongs to (see certOf)
	shift   float64
	// deltaMax > 0 caps delta (see capBounds).
	deltaMax float64
}

// Solve minimizes ½θᵀ(P + γ_G I)θ − bᵀθ subject to the block constraints. See the package
// documentation for the method. On ErrIterationLimit or ErrNumerical the best iterate found is
// returned together with the error.
func Solve(p *Problem, opt *Options) (*Solution, error) {
	n, err := p.validate()
	if err != nil {
		return nil, err
	}
	if sigma, kappa := unitScale(p); sigma != 1 || kappa != 1 {
		return solveScaled(p, opt, n, sigma, kappa)
	}
	return solve(p, opt, n)
}

// solve is Solve on a validated problem of n variables.
func solve(p *Problem, opt *Options, n int) (*Solution, error) {
	var o Options
	if opt != nil {
		o = *opt
	}
	if !(o.Tol > 0) {
		o.Tol = defaultTol
	}
	if o.MaxIter <= 0 {
		o.MaxIter = defaultMaxIter
	}
	if !(o.ShiftTol > 0) || math.IsInf(o.ShiftTol, 1) {
		o.ShiftTol = 0 // NaN, negative or infinite: the default
	}
	warm := o.Warm
	if warm != nil && (len(warm.X) != n || len(warm.State) != len(p.Blocks)) {
		warm = nil
	}

	Q := mat.NewSymDense(n, nil)
	Q.CopySym(p.P)
	if p.GammaG != 0 {
		raw := Q.RawSymmetric()
		for i := 0; i < n; i++ {
			raw.Data[i*raw.Stride+i] += p.GammaG
		}
	}
	allRows := allRowsSampled(p, n)
	gridMul := exactGridMulFn(p, n, o.ShiftTol)
	var works []*blockWork
	for j, bl := range p.Blocks {
		if bl.Kind == None {
			continue
		}
		w := &blockWork{idx: j, bl: bl, ib: &ipBlock{off: bl.Offset, L: bl.Len}}
		if bl.Rho > 0 {
			w.ib.ub = make([]float64, bl.Len)
			for k := range w.ib.ub {
				w.ib.ub[k] = bl.Rho * math.Pow(bl.Decay, float64(k))
			}
		}
		var ws *BlockState
		if warm != nil {
			ws = &warm.State[j]
			if len(ws.ZUpper) != len(w.ib.ub) || len(ws.Omega) != len(ws.Z) {
				ws = nil
			}
		}
		switch bl.Kind {
		case Sampled:
			w.ib.rhs = bl.Eps
			if (bl.Len >= fullSampledLen || allRows) && bl.H >= bl.Len {
				// all H+1 rows at once, applied with DCTs: no exchange
				w.ib.gridH = bl.H
				break
			}
			w.inSet = map[int]bool{}
			m0 := min(bl.H, max(2*bl.Len, 8))
			for i := 0; i <= m0; i++ {
				w.addSample(int(math.Round(float64(i) * float64(bl.H) / float64(m0))))
			}
			if ws != nil && len(ws.Samples) == len(ws.Z) {
				zmax := normInf(ws.Z)
				for i, h := range ws.Samples {
					if h >= 0 && h <= bl.H && ws.Z[i] > 1e-9*zmax {
						w.addSample(h)
					}
				}
			}
		case Exact:
			// Δ is set by setDelta after the first inner solve, when Σ|g| is known.
			w.ib.gridH = niceSize(gridMul * bl.Len)
			if ws != nil {
				if ws.Delta > 0 {
					w.delta = ws.Delta
				}
				if ws.GridH > w.ib.gridH {
					// A warm start from a finer uniform grid, as when the trainer re-solves
					// in exact mode a Sampled block that failed its certificate: the warm
					// iterate dips below zero only between those rows, and keeping them
					// (with their multipliers) leaves the exchange just those dips to cut
					// off, where on the default grid it would dip everywhere again.
					w.ib.gridH = ws.GridH
				}
				// all previous frequencies: the refinement clusters around the contact points
				// are what makes the next certificate pass in one round.
				for _, om := range ws.Omega {
					w.addOmega(om)
				}
			}
			w.ib.rhs = 2 * (bl.Margin + w.delta)
		}
		works = append(works, w)
	}

	capBounds(p, Q, works, o.Tol)

	sol := &Solution{}
	var ip *ipSolver
	var runErr error
	switch {
	case o.Method.resolve() == MethodActiveSet:
		ip, runErr = solveActiveSet(p, &o, warm, Q, works, sol)
	case reducedMethod(works):
		ip, runErr = solveReduced(p, &o, warm, Q, works, sol)
	}
	if ip == nil {
		ip = newIPSolver(Q, p.B)
		ip.accept = o.AcceptTol
		ip.ctx = o.Context
		if err := solveIP(p, &o, warm, ip, works, sol, &runErr); err != nil {
			return nil, err
		}
	}
	if err := ctxErr(o.Context); err != nil {
		return nil, fmt.Errorf("convex: Solve: %w", err)
	}
	return finish(p, ip, works, sol, runErr)
}

// ctxErr is ctx.Err(), and nil for a nil ctx.
func ctxErr(ctx context.Context) error {
	if ctx == nil {
		return nil
	}
	return ctx.Err()
}

// solveIP is the exchange loop over full interior-point solves (the Newton matrix is
// P + γI + GᵀDG, refactorized every iteration).
func solveIP(p *Problem, opt *Options, warm *Solution, ip *ipSolver, works []*blockWork, sol *Solution, runErrp *error) error {
	o := *opt
	var runErr error
	defer func() { *runErrp = runErr }()
	var prevZ [][]float64 // per work: z of its rows (freq rows then bounds) from the previous round
	useWarm := warm != nil
	// Intermediate rounds only identify the working set: solve them to looseTol, then finish with
	// a tight solve (which may still add constraints).
	tight := len(works) == 0 || looseTol <= o.Tol
	for round := 0; ; round++ {
		blocks := make([]*ipBlock, len(works))
		for i, w := range works {
			w.nfRun = len(w.ib.omega)
			w.ib.buildTab()
			blocks[i] = w.ib
			w.rounds++
		}
		ip.setBlocks(blocks)
		switch {
		case round == 0 && useWarm:
			copy(ip.x, warm.X)
			for i := range ip.z {
				ip.z[i] = 0
			}
			for _, w := range works {
				ws := &warm.State[w.idx]
				if len(ws.ZUpper) != len(w.ib.ub) || len(ws.Omega) != len(ws.Z) {
					continue
				}
				z := ip.z[w.ib.row0:]
				// match frequency rows by value
				idx := map[float64]float64{}
				for i, om := range ws.Omega {
					idx[om] = ws.Z[i]
				}
				for i, om := range w.ib.omega {
					z[i] = idx[om]
				}
				if w.ib.ub != nil {
					nf := len(w.ib.omega)
					copy(z[nf:], ws.ZUpper)
					copy(z[nf+w.bl.Len:], ws.ZLower)
				}
				if w.ib.gridH > 0 && len(ws.GridZ) == w.ib.gridH+1 {
					copy(z[w.ib.gridOff():], ws.GridZ)
				}
			}
			ip.warmStart()
		case round == 0:
			if ip.m > 0 && !ip.coldStart() {
				return fmt.Errorf("convex: cannot factorize P + γI + GᵀG: %w", ErrNumerical)
			}
		default:
			for i := range ip.z {
				ip.z[i] = 0
			}
			for i, w := range works {
				z := ip.z[w.ib.row0:]
				old := prevZ[i]
				nf := len(w.ib.omega)
				nfOld := len(old) - (w.ib.nrows() - nf)
				copy(z, old[:nfOld])
				copy(z[nf:], old[nfOld:])
			}
			ip.warmStart()
		}
		rtol := o.Tol
		if !tight {
			rtol = math.Max(o.Tol, looseTol)
		}
		warmRun := round > 0 || useWarm
		budget := o.MaxIter
		ip.warmCut = 0
		if warmRun {
			budget = min(o.MaxIter, warmBudget+warmExtra)
			ip.warmCut = warmBudget
		}
		runErr = ip.run(rtol, budget)
		ip.warmCut = 0
		sol.Iterations += ip.iters
		if runErr != nil && warmRun && ctxErr(ip.ctx) == nil {
			// a warm start that stalls: start again cold on the same working set
			if ip.coldStart() {
				runErr = ip.run(rtol, o.MaxIter)
				sol.Iterations += ip.iters
			}
		}
		sol.Rounds++
		if runErr != nil {
			break
		}
		prevZ = prevZ[:0]
		for _, w := range works {
			prevZ = append(prevZ, append([]float64(nil), ip.z[w.ib.row0:w.ib.row0+w.ib.nrows()]...))
		}
		changed := false
		for _, w := range works {
			g := ip.x[w.bl.Offset : w.bl.Offset+w.bl.Len]
			switch w.bl.Kind {
			case Sampled:
				if w.inSet == nil {
					continue // every row is in the working set
				}
				vtol := 0.1 * o.Tol * (1 + math.Abs(w.bl.Eps))
				if w.addViolated(g, vtol) {
					changed = true
				}
			case Exact:
				if w.delta == 0 {
					// Δ, once set, calls for another round with the rows at Margin + Δ; but
					// not with ShiftTol, which accepts a dip below Margin itself (then the
					// round's taps are final if they pass the check below).
					if w.setDelta(g, o.Tol) && !(o.ShiftTol > 0) {
						changed = true
					}
				}
				// Below the margin? In intermediate rounds a dip within the inner solve's
				// accuracy is accepted, and so is one the caller takes as a shift of g(0)
				// (Options.ShiftTol, applied by finish). Accepting dips of up to Delta/2, as
				// this loop once did, left a shift of g(0) behind in some solves, and with it a
				// stationarity residual above 1e-8 (TestSolveKKTRandom and TestReducedMethod,
				// once Delta followed the package doc); the rows at Margin + Delta leave room
				// for the dips between them to end above the margin instead.
				accept := (rtol - o.Tol) * (1 + ip.hnorm)
				if o.ShiftTol > 0 {
					accept = math.Max(accept, o.ShiftTol*sumAbs(g))
				}
				// A deep dip needs no certificate (certifyBelow). Shallow ones get the
				// certificate's branch and bound, whose best point joins the candidates: without
				// it, the last rounds at m_G = 200 missed a minimum and took a round more.
				cert, cands, ok := certifyBelow(g, w.bl.Margin+0.5*w.delta, w.bl.Margin-math.Max(accept, quickDip*sumAbs(g)))
				if ok {
					w.cert = cert
					w.certG = append(w.certG[:0], g...)
					if cert.MinRe >= w.bl.Margin-accept {
						continue
					}
				}
				added := false
				for _, om := range cands {
					if w.addCluster(om) {
						added = true
					}
				}
				if added {
					changed = true
				}
			}
		}
		if !changed {
			if tight {
				break
			}
			tight = true
		}
		if round+1 >= maxRounds {
			runErr = ErrIterationLimit
			for _, w := range works { // drop rows the last solve did not see
				w.ib.omega = w.ib.omega[:w.nfRun]
				if w.samples != nil {
					w.samples = w.samples[:w.nfRun]
				}
			}
			break
		}
	}

	return nil
}

// finish applies the final fix-up of Exact blocks and fills in the solution from ip (x, z and
// the working sets of the blocks).
func finish(p *Problem, ip *ipSolver, works []*blockWork, sol *Solution, runErr error) (*Solution, error) {
	// Exact blocks still below the margin (only after the round limit or when no new frequency
	// could be added): raise g(0) by the deficit, which shifts Re G uniformly.
	x := append([]float64(nil), ip.x...)
	sol.Shift = make([]float64, len(p.Blocks))
	for _, w := range works {
		if w.bl.Kind != Exact {
			continue
		}
		g := x[w.bl.Offset : w.bl.Offset+w.bl.Len]
		c := w.certOf(g)
		if c.MinRe < w.bl.Margin {
			d := w.bl.Margin - c.MinRe + 1e-3*w.delta + 1e-12*(1+math.Abs(w.bl.Margin))
			g[0] += d
			w.shift = d
			sol.Shift[w.idx] = d
		}
	}
	for _, w := range works {
		// A capped bound cannot bind (capBounds); its multiplier is the interior-point
		// method's leftover of order μ, which against the original bound's slack would
		// read as a complementarity gap. It is 0 at the optimum of the given problem.
		if w.ib.ub == nil {
			continue
		}
		z := ip.z[w.ib.row0+len(w.ib.omega):]
		for k, u := range w.ib.ub {
			if u < w.bl.Rho*math.Pow(w.bl.Decay, float64(k)) {
				z[k], z[w.bl.Len+k] = 0, 0
			}
		}
	}
	sol.X = x
	sol.Objective = Objective(p, x)
	sol.Certificates = make([]Certificate, len(p.Blocks))
	exact := map[int]*blockWork{}
	for _, w := range works {
		if w.bl.Kind == Exact {
			exact[w.idx] = w
		}
	}
	for j, bl := range p.Blocks {
		g := x[bl.Offset : bl.Offset+bl.Len]
		if w := exact[j]; w != nil {
			sol.Certificates[j] = w.certOf(g)
			continue
		}
		sol.Certificates[j], _ = certify(g, math.Inf(-1))
	}
	sol.State = make([]BlockState, len(p.Blocks))
	for _, w := range works {
		z := ip.z[w.ib.row0:]
		nf := len(w.ib.omega)
		st := BlockState{
			Omega:  append([]float64(nil), w.ib.omega...),
			Z:      append([]float64(nil), z[:nf]...),
			RHS:    w.ib.rhs,
			Delta:  w.delta,
			Rounds: w.rounds,
		}
		if w.samples != nil {
			st.Samples = append([]int(nil), w.samples...)
		}
		if w.ib.ub != nil {
			st.ZUpper = append([]float64(nil), z[nf:nf+w.bl.Len]...)
			st.ZLower = append([]float64(nil), z[nf+w.bl.Len:nf+2*w.bl.Len]...)
		}
		if w.ib.gridH > 0 {
			st.GridH = w.ib.gridH
			st.GridZ = append([]float64(nil), z[w.ib.gridOff():w.ib.gridOff()+w.ib.gridH+1]...)
		}
		sol.State[w.idx] = st
	}
	sol.KKT = fullKKT(p, ip, works, x)
	if runErr != nil {
		if errors.Is(runErr, ErrIterationLimit) {
			return sol, fmt.Errorf("convex: Solve after %d iterations, %d rounds: %w", sol.Iterations, sol.Rounds, runErr)
		}
		return sol, fmt.Errorf("convex: Solve: %w", runErr)
	}
	return sol, nil
}

// certOf returns the certificate of the taps g. The exchange's last certificate is reused when
// g is the same taps (a certificate does not depend on certify's threshold): finish would
// otherwise certify the final taps twice more, 2 of the 7 certificates of an exact-mode solve.
func (w *blockWork) certOf(g []float64) Certificate {
	if w.certG != nil && slices.Equal(w.certG, g) {
		return w.cert
	}
	c, _ := certify(g, math.Inf(-1))
	w.cert, w.certG = c, append(w.certG[:0], g...)
	return c
}

func (w *blockWork) addSample(h int) bool {
	if w.inSet[h] {
		return false
	}
	w.inSet[h] = true
	w.samples = append(w.samples, h)
	w.ib.omega = append(w.ib.omega, math.Pi*float64(h)/float64(w.bl.H))
	return true
}

// addCluster adds ω and 8 points around it at spacing Δ/8, Δ the distance from ω to the nearest
// working frequency, a row of the uniform grid included: the next minimum is expected within
// that distance, and the dip of the next iterate between constraint points shrinks with the
// square of their spacing (by 64 rather than 4 per round when adding ω alone).
func (w *blockWork) addCluster(om float64) bool {
	d := math.Pi
	if H := w.ib.gridH; H > 0 {
		// The grid rows hπ/H are constraints too. Measuring Δ from the
		// refinements alone made a first cluster span ±π/2 around a dip
		// between two grid rows π/H apart, and the exchange needed a
		// round per halving to come back down to the grid's scale.
		x := om * float64(H) / math.Pi
		d = math.Abs(x-math.Round(x)) * math.Pi / float64(H)
	}
	for _, v := range w.ib.omega {
		d = math.Min(d, math.Abs(v-om))
	}
	added := w.addOmega(om)
	if d < 1e-9 {
		return added
	}
	for j := 1; j <= 4; j++ {
		for _, v := range []float64{om - float64(j)*d/8, om + float64(j)*d/8} {
			if v >= 0 && v <= math.Pi && w.addOmega(v) {
				added = true
			}
		}
	}
	return added
}

func (w *blockWork) addOmega(om float64) bool {
	for _, v := range w.ib.omega {
		if math.Abs(v-om) < 1e-9 {
			return false
		}
	}
	w.ib.omega = append(w.ib.omega, om)
	return true
}

// sampledValues returns v_h = Σ_k g(k)·2cos(hπk/H), h = 0..H, by one DCT-I of length H+1
// (taps beyond H are folded with cos(hπk/H) = cos(hπ(2H−k)/H)).
func sampledValues(g []float64, H int, dst []float64) []float64 {
	src := make([]float64, H+1)
	for k, v := range g {
		kk := k % (2 * H)
		if kk > H {
			kk = 2*H - kk
		}
		if kk == 0 || kk == H {
			src[kk] += 2 * v
		} else {
			src[kk] += v
		}
	}
	if dst == nil {
		dst = make([]float64, H+1)
	}
	t, put := getDCT(H + 1)
	t.Transform(dst, src)
	put()
	return dst
}

// addViolated checks every sampled constraint and adds, for each run of violated samples, its
// minimizer and the two neighbours. It reports whether anything was added.
func (w *blockWork) addViolated(g []float64, vtol float64) bool {
	H := w.bl.H
	v := sampledValues(g, H, nil)
	lim := w.bl.Eps - vtol
	added := false
	for h := 0; h <= H; {
		if v[h] >= lim {
			h++
			continue
		}
		best := h
		for ; h <= H && v[h] < lim; h++ {
			if v[h] < v[best] {
				best = h
			}
		}
		for c := best - sampledNbr; c <= best+sampledNbr; c++ {
			if c >= 0 && c <= H && w.addSample(c) {
				added = true
			}
		}
	}
	return added
}

// fullKKT evaluates the relative KKT residuals of the full problem (all H+1 rows of Sampled
// blocks, the working set of Exact blocks, all bounds) at x and the multipliers of ip.
func fullKKT(p *Problem, ip *ipSolver, works []*blockWork, x []float64) Residuals {
	n := len(x)
	qx := make([]float64, n)
	ip.qmul(x, qx)
	gx := make([]float64, ip.m)
	ip.mulG(x, gx)
	gtz := make([]float64, n)
	ip.mulGT(ip.z, gtz)
	obj := Objective(p, x)
	var rd float64
	for i := range qx {
		rd = math.Max(rd, math.Abs(qx[i]-p.B[i]-gtz[i]))
	}
	var viol, comp float64
	for i := range gx {
		s := gx[i] - ip.h[i]
		viol = math.Max(viol, -s/(1+math.Abs(ip.h[i])))
		comp += ip.z[i] * math.Abs(s)
	}
	for _, w := range works {
		if w.bl.Kind != Sampled {
			continue
		}
		v := sampledValues(x[w.bl.Offset:w.bl.Offset+w.bl.Len], w.bl.H, nil)
		for _, vh := range v {
			viol = math.Max(viol, (w.bl.Eps-vh)/(1+math.Abs(w.bl.Eps)))
		}
	}
	return Residuals{
		Primal:          math.Max(0, viol),
		Dual:            rd / (1 + math.Max(normInf(p.B), normInf(qx))),
		Complementarity: comp / (1 + math.Abs(obj)),
	}
}

// sampledNbr is the number of neighbours on each side added with a violated sample.
const sampledNbr = 3

// setDelta sets the exact mode's safety margin Δ once the first solution g
// is known: the rows are then imposed at Margin + Δ, with
// Δ = max(deltaRel·max(|Margin|, Σ|g|), 10·tol), so that rounding cannot leave
// the returned taps below the margin. It reports whether Δ was set (g ≠ 0).
func (w *blockWork) setDelta(g []float64, tol float64) bool {
	S := sumAbs(g)
	if S == 0 {
		return false
	}
	w.delta = math.Max(deltaRel*math.Max(math.Abs(w.bl.Margin), S), 10*tol)
	if w.deltaMax > 0 {
		w.delta = math.Min(w.delta, w.deltaMax) // keeps θ_f of capBounds feasible
	}
	w.ib.rhs = 2 * (w.bl.Margin + w.delta)
	return true
}

func sumAbs(g []float64) float64 {
	s := 0.0
	for _, v := range g {
		s += math.Abs(v)
	}
	return s
}

// boundCapRatio: decay bounds more than this many times the a-priori size of the optimum are
// capped at that size (see capBounds).
const boundCapRatio = 1e6

// capBounds lowers decay bounds that are so loose they cannot bind to a bound K that provably
// cannot bind either, so the optimum is unchanged. Why: an interior-point method starts the
// slacks of its bound rows near the bounds, and a bound of 1e100 (a user's "no limit") then
// swamps the complementarity measure of every other row, which ends in ErrNumerical or the
// iteration limit although the problem is as easy as without the bound.
//
// K comes from strong convexity. θ_f, with g_j(0) = c_j and every other entry 0, is feasible:
// c_j = max(Eps, 0)/2 for a Sampled block, max(Margin + Δmax, 0) for an Exact one, whose
// internal margin Δ is then held at most Δmax (deltaMax). f(θ) = ½θᵀQθ − bᵀθ with Q ⪰ γ_G·I,
// so the optimum θ* satisfies f(θ*) ≤ f(θ_f), hence ½γ_G‖θ* − θ_f‖² ≤ −∇f(θ_f)ᵀ(θ* − θ_f) and
// ‖θ*‖∞ ≤ ‖θ_f‖∞ + 2‖Qθ_f − b‖₂/γ_G =: B. That holds for the optimum over any feasible set
// that contains θ_f, so with the bounds capped at K = 2B the capped problem's optimum lies
// strictly inside the caps, satisfies the original bounds, and is the original optimum.
// Without a Tikhonov term (γ_G = 0) there is no such B and nothing is capped; nor when every
// bound is within boundCapRatio·K, so ordinary problems are solved exactly as before.
func capBounds(p *Problem, Q *mat.SymDense, works []*blockWork, tol float64) {
	if !(p.GammaG > 0) {
		return
	}
	bounded := false
	for _, w := range works {
		bounded = bounded || w.ib.ub != nil
	}
	if !bounded {
		return
	}
	n := len(p.B)
	c := make([]float64, len(works))
	dmax := make([]float64, len(works))
	// bound returns B for g_j(0) = c_j, or false when θ_f violates a bound.
	bound := func() (float64, bool) {
		cmax := 0.0
		grad := make([]float64, n) // ∇f(θ_f) = Qθ_f − b, θ_f sparse
		for i := range grad {
			grad[i] = -p.B[i]
		}
		for i, w := range works {
			if w.ib.ub != nil && c[i] > w.ib.ub[0] {
				return 0, false
			}
			cmax = math.Max(cmax, c[i])
			if c[i] == 0 {
				continue
			}
			for r := 0; r < n; r++ {
				grad[r] += c[i] * Q.At(r, w.bl.Offset)
			}
		}
		s := 0.0
		for _, v := range grad {
			s = math.Hypot(s, v)
		}
		B := cmax + 2*s/p.GammaG
		return B, finite(B)
	}
	// Δ = max(deltaRel·max(|Margin|, Σ|g|), 10·tol) (setDelta); Σ|g| ≤ Len·B0 for the optimum
	// bounded with Δ's other terms alone, so Δmax leaves Δ as it would be in all but odd cases.
	for i, w := range works {
		switch w.bl.Kind {
		case Sampled:
			c[i] = math.Max(w.bl.Eps, 0) / 2
		case Exact:
			dmax[i] = 10*tol + deltaRel*math.Abs(w.bl.Margin)
			c[i] = math.Max(w.bl.Margin+dmax[i], 0)
		}
	}
	B0, ok := bound()
	if !ok {
		return
	}
	for i, w := range works {
		if w.bl.Kind == Exact {
			dmax[i] += deltaRel * float64(w.bl.Len) * B0
			c[i] = math.Max(w.bl.Margin+dmax[i], 0)
		}
	}
	B, ok := bound()
	if !ok {
		return
	}
	K := 2 * B
	capped := false
	for _, w := range works {
		for _, u := range w.ib.ub { // not only ub[0]: Decay > 1 is allowed
			if u > boundCapRatio*K {
				capped = true
			}
		}
	}
	if !capped {
		return
	}
	for i, w := range works {
		if w.bl.Kind == Exact {
			w.deltaMax = dmax[i]
			w.delta = math.Min(w.delta, dmax[i])
			w.ib.rhs = 2 * (w.bl.Margin + w.delta)
		}
		for k := range w.ib.ub {
			w.ib.ub[k] = math.Min(w.ib.ub[k], K)
		}
	}
}
