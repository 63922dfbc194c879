package convex

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/passivenfir/gputrain/internal/chol"
)

// Method selects the inner solver of Solve. It implements flag.Value.
type Method int

const (
	// MethodDefault, the zero value, is MethodInteriorPoint: on the exact-mode benchmarks the
	// active-set method is slower (docs/BENCHMARKS.md, issue 28, active set).
	MethodDefault Method = iota
	// MethodInteriorPoint is the primal-dual interior-point method over the exchange's working
	// set (with the reduced variant tried first when every constrained block is Exact): one
	// factorization of an n×n Newton matrix per iteration.
	MethodInteriorPoint
	// MethodActiveSet is the dual active-set method of Goldfarb and Idnani over the exchange's
	// working set: Q = P + γI is factorized once per Solve, and each constraint that enters or
	// leaves the active set updates a Cholesky factor of the active rows' Gram matrix.
	MethodActiveSet
)

func (m Method) String() string {
	switch m {
	case MethodDefault:
		return "default"
	case MethodInteriorPoint:
		return "interior-point"
	case MethodActiveSet:
		return "active-set"
	}
	return fmt.Sprintf("Method(%d)", int(m))
}

// Set parses "default", "interior-point" (or "ip") and "active-set" (or "as").
func (m *Method) Set(s string) error {
	switch s {
	case "default", "":
		*m = MethodDefault
	case "interior-point", "ip":
		*m = MethodInteriorPoint
	case "active-set", "as":
		*m = MethodActiveSet
	default:
		return fmt.Errorf("convex: unknown method %q (want default, interior-point or active-set): %w", s, ErrInvalid)
	}
	return nil
}

// resolve maps MethodDefault to the method it stands for.
func (m Method) resolve() Method {
	if m == MethodDefault {
		return MethodInteriorPoint
	}
	return m
}

// The active-set method works on the reduced (dual) form of the inner QP set up by dualSolver:
// with Q = UᵀU factorized once and v_i = U⁻ᵀa_i for the working rows a_iᵀθ ≥ h_i, the multipliers
// z ≥ 0 give θ = θ_u + U⁻¹Vz and slacks w = Sz + c, S = VᵀV. Goldfarb–Idnani keeps an active set
// A (w_A = 0, z_A ≥ 0, z = 0 elsewhere), which is dual feasible throughout, and adds the most
// violated row p: increasing z_p by t moves z_A by −t·r with r = S_AA⁻¹S_Ap and w_p by t·(S_pp −
// S_pAr); a multiplier of A that reaches 0 first leaves A (a partial step), otherwise p joins A
// (a full step). The Cholesky factor R of S_AA, RᵀR = S_AA, is the R of GI's QR factorization of
// U⁻ᵀN_A (J = U⁻¹Q in their notation); it is updated by appending a column when p enters and by
// Givens rotations when a row leaves, O(|A|²) each. Where GI updates J, an n×n matrix, at O(n²)
// per step, this keeps v_i instead (computed once per row, when it enters the working set), so
// that a step costs O(|A|² + m·|A|) for m working rows. The price is the Gram matrix: its
// Cholesky factor squares the condition number of V_A. A row whose projection onto the
// complement of V_A is below depTol of its norm (sin² of its angle to the span) is treated as
// dependent on A: GI then takes a pure dual step, which removes a row of A before p enters.
// Rows of nearly equal frequency, where this matters, are what the exchange produces around a
// contact point; the exchange therefore adds each round's local minima alone (no clusters) and
// prunes rows that have stayed out of A for a few rounds, so that the working set stays near
// the active set.

// depTol is the smallest squared sine of the angle between an entering row and the span of A.
const depTol = 1e-12

// pruneAge is the number of exchange rounds a row may stay inactive before prune removes it.
// Removing rows as soon as they leave the active set made the exchange cycle (rows dropped one
// round were violated again the next); on the robot-like problem at n = 500 keeping them 3
// rounds cost the same as keeping them all (3.7 against 4.5 CPU-s, loaded machine).
const pruneAge = 3

// gi is the Goldfarb–Idnani state over the rows of a dualSolver.
type gi struct {
	d     *dualSolver
	act   []int       // active rows, in the order of R's columns
	in    []bool      // in[i]: row i is in act
	idle  []int       // idle[i]: exchange rounds since row i was last active
	R     [][]float64 // R[k][:k+1] is column k of the upper triangular factor of S_AA
	steps int
	// scratch
	rho, r []float64
}

// reset empties the active set (after the right-hand sides changed).
func (g *gi) reset() {
	d := g.d
	g.act, g.R = g.act[:0], g.R[:0]
	for i := range g.in {
		g.in[i] = false
	}
	for i := range d.z {
		d.z[i] = 0
	}
}

// slacks computes w = c + S z over the m rows from the active multipliers.
func (g *gi) slacks() {
	d := g.d
	m := len(d.rows)
	w := d.w[:m]
	copy(w, d.c[:m])
	for _, j := range g.act {
		if zj := d.z[j]; zj != 0 {
			blas64.Axpy(zj, blas64.Vector{N: m, Inc: 1, Data: d.S[j*d.sst:]}, blas64.Vector{N: m, Inc: 1, Data: w})
		}
	}
}

// direction computes ρ = R⁻ᵀS_Ap, r = R⁻¹ρ and returns S_pp − ρᵀρ, the growth of w_p per unit
// of z_p along the step.
func (g *gi) direction(p int) float64 {
	d := g.d
	q := len(g.act)
	row := d.S[p*d.sst:]
	g.rho = g.rho[:q]
	g.r = g.r[:q]
	for k, j := range g.act {
		col := g.R[k]
		g.rho[k] = (row[j] - dot(col[:k], g.rho[:k])) / col[k]
	}
	copy(g.r, g.rho)
	for k := q - 1; k >= 0; k-- {
		col := g.R[k]
		g.r[k] /= col[k]
		if v := g.r[k]; v != 0 {
			for i := 0; i < k; i++ {
				g.r[i] -= v * col[i]
			}
		}
	}
	return row[p] - dot(g.rho, g.rho)
}

// add appends row p to A with the column (ρ, √dwp) of R.
func (g *gi) add(p int, dwp float64) {
	q := len(g.act)
	var col []float64
	if cap(g.R) > q && cap(g.R[:q+1][q]) >= q+1 {
		col = g.R[:q+1][q][:q+1] // the storage of a dropped column
	} else {
		col = make([]float64, q+1, q+64)
	}
	copy(col, g.rho[:q])
	col[q] = math.Sqrt(dwp)
	g.R = append(g.R[:q], col)
	g.act = append(g.act, p)
	g.in[p] = true
}

// drop removes the k-th active row and restores R to triangular form by Givens rotations.
func (g *gi) drop(k int) {
	g.in[g.act[k]] = false
	g.d.z[g.act[k]] = 0
	q := len(g.act)
	copy(g.act[k:], g.act[k+1:])
	g.act = g.act[:q-1]
	old := g.R[k]
	copy(g.R[k:], g.R[k+1:])
	g.R[q-1] = old[:0] // keep its storage for a later column
	R := g.R[:q-1]
	for j := k; j < q-1; j++ {
		// column j (formerly j+1) has length j+2: rotate rows j, j+1 to zero its last entry
		col := R[j]
		a, b := col[j], col[j+1]
		h := math.Hypot(a, b)
		c, s := a/h, b/h
		col[j] = h
		R[j] = col[:j+1]
		for t := j + 1; t < q-1; t++ {
			x, y := R[t][j], R[t][j+1]
			R[t][j], R[t][j+1] = c*x+s*y, -s*x+c*y
		}
	}
	g.R = R
}

// solve runs GI from the current active set until every row satisfies w_i ≥ −tol·(1+|h_i|).
func (g *gi) solve(tol float64, maxSteps int) error {
	d := g.d
	m := len(d.rows)
	for len(g.in) < m {
		g.in = append(g.in, false)
	}
	if cap(g.rho) < m {
		g.rho = make([]float64, 0, m)
		g.r = make([]float64, 0, m)
	}
	refined := false
	for {
		g.slacks()
		p, best := -1, 0.0
		for i := 0; i < m; i++ {
			if g.in[i] || d.w[i] >= -tol*(1+math.Abs(d.h[i])) {
				continue
			}
			if v := d.w[i] / math.Sqrt(d.S[i*d.sst+i]); v < best {
				p, best = i, v
			}
		}
		if p < 0 {
			if refined || len(g.act) == 0 {
				return nil
			}
			// one step of iterative refinement of z_A against w_A = 0, then check again
			refined = true
			g.refine()
			continue
		}
		wp, zp := d.w[p], 0.0
		for {
			if g.steps++; g.steps > maxSteps {
				return ErrIterationLimit
			}
			if g.steps%64 == 0 {
				if err := ctxErr(d.ctx); err != nil {
					return err
				}
			}
			dwp := g.direction(p)
			t1, l := math.Inf(1), -1
			for k, j := range g.act {
				if g.r[k] > 0 {
					if v := d.z[j] / g.r[k]; v < t1 {
						t1, l = v, k
					}
				}
			}
			t2 := math.Inf(1)
			if dwp > depTol*d.S[p*d.sst+p] || (l < 0 && dwp > 0) {
				t2 = -wp / dwp
			}
			t := math.Min(t1, t2)
			if math.IsInf(t, 1) {
				return fmt.Errorf("convex: active set: row %d cannot be satisfied: %w", p, ErrInfeasible)
			}
			for k, j := range g.act {
				d.z[j] = math.Max(0, d.z[j]-t*g.r[k])
			}
			zp += t
			wp += t * dwp
			d.z[p] = zp
			if t2 <= t1 {
				g.add(p, dwp)
				break
			}
			g.drop(l)
		}
	}
}

// refine corrects z_A by one Newton step on S_AA z_A = −c_A.
func (g *gi) refine() {
	d := g.d
	res := make([]float64, len(g.act))
	for k, j := range g.act {
		res[k] = d.w[j]
	}
	g.solveR(res)
	for k, j := range g.act {
		d.z[j] = math.Max(0, d.z[j]-res[k])
	}
}

// prune removes the frequency rows of Exact blocks that have not been active for more than
// pruneAge rounds; the active set (and R) is kept, its indices remapped.
func (g *gi) prune() {
	d := g.d
	m := len(d.rows)
	newIdx := make([]int, m)
	for len(g.idle) < m {
		g.idle = append(g.idle, 0)
	}
	k := 0
	for i := 0; i < m; i++ {
		r := d.rows[i]
		if g.in[i] {
			g.idle[i] = 0
		} else {
			g.idle[i]++
		}
		if g.idle[i] > pruneAge && r.kind == rowFreq && d.works[r.w].bl.Kind == Exact {
			newIdx[i] = -1
			continue
		}
		newIdx[i] = k
		k++
	}
	if k == m {
		return
	}
	st := d.sst
	for i := 0; i < m; i++ {
		ni := newIdx[i]
		if ni < 0 {
			continue
		}
		src := d.S[i*st : i*st+m]
		dst := d.S[ni*st : ni*st+k]
		for j := 0; j < m; j++ { // in place: ni ≤ i and newIdx[j] ≤ j
			if nj := newIdx[j]; nj >= 0 {
				dst[nj] = src[j]
			}
		}
		d.rows[ni], d.u[ni], d.first[ni], d.h[ni], d.c[ni], d.z[ni], d.w[ni] = d.rows[i], d.u[i], d.first[i], d.h[i], d.c[i], d.z[i], d.w[i]
		g.in[ni], g.idle[ni] = g.in[i], g.idle[i]
	}
	d.rows, d.u, d.first, d.h, d.c, d.z, d.w = d.rows[:k], d.u[:k], d.first[:k], d.h[:k], d.c[:k], d.z[:k], d.w[:k]
	g.in, g.idle = g.in[:k], g.idle[:k]
	act := g.act[:0]
	for _, j := range g.act {
		if newIdx[j] >= 0 {
			act = append(act, newIdx[j])
		}
	}
	g.act = act
}

// warmStart makes A the active set: S_AA is factorized afresh and z_A = −S_AA⁻¹c_A; rows with
// negative multipliers leave A one at a time (most negative first), so that the start is dual
// feasible as GI requires. A that cannot be factorized (dependent rows) is emptied.
func (g *gi) warmStart(A []int) {
	d := g.d
	g.reset()
	for len(g.in) < len(d.rows) {
		g.in = append(g.in, false)
	}
	q := len(A)
	if q == 0 {
		return
	}
	K := make([]float64, q*q)
	for a, i := range A {
		for b := a; b < q; b++ {
			K[a*q+b] = d.S[i*d.sst+A[b]]
		}
	}
	if !chol.Upper(blas64.Symmetric{Uplo: blas.Upper, N: q, Stride: q, Data: K}) {
		return
	}
	for a := range q {
		if !(K[a*q+a] > math.Sqrt(depTol*d.S[A[a]*d.sst+A[a]])) {
			return
		}
	}
	g.R = g.R[:0]
	for b := range q {
		col := make([]float64, b+1, b+64)
		for a := 0; a <= b; a++ {
			col[a] = K[a*q+b]
		}
		g.R = append(g.R, col)
	}
	g.act = append(g.act[:0], A...)
	for _, i := range A {
		g.in[i] = true
	}
	for {
		q := len(g.act)
		zA := make([]float64, q)
		for k, j := range g.act {
			zA[k] = -d.c[j]
		}
		g.solveR(zA)
		worst, kw := 0.0, -1
		for k, v := range zA {
			if v < worst {
				worst, kw = v, k
			}
		}
		if kw < 0 {
			for k, j := range g.act {
				d.z[j] = zA[k]
			}
			return
		}
		g.drop(kw)
	}
}

// solveR overwrites v with S_AA⁻¹v = R⁻¹R⁻ᵀv.
func (g *gi) solveR(v []float64) {
	q := len(v)
	for k := range q {
		col := g.R[k]
		v[k] = (v[k] - dot(col[:k], v[:k])) / col[k]
	}
	for k := q - 1; k >= 0; k-- {
		col := g.R[k]
		v[k] /= col[k]
		if x := v[k]; x != 0 {
			for i := 0; i < k; i++ {
				v[i] -= x * col[i]
			}
		}
	}
}

// solveActiveSet runs the exchange loop with Goldfarb–Idnani as the inner solver. It returns
// nil when Q = P + γI cannot be factorized reliably (the caller then uses the interior-point
// method).
//
// The exchange adds, after each inner solve, every local minimum of Re G below the margin as a
// row (no clusters: each row costs a triangular solve and a row of S, and GI's steps grow with
// the rows that become active). Rows keep their place while GI continues from its active set
// (new rows only add constraints, so the previous solution stays dual feasible); rows inactive
// for more than pruneAge rounds are removed. Dropping them at once, or replacing each row by the
// minimum found next to it (a local reduction), was tried: both made the exchange cycle
// (BENCHMARKS.md, issue 28, active set).
func solveActiveSet(p *Problem, o *Options, warm *Solution, Q *mat.SymDense, works []*blockWork, sol *Solution) (*ipSolver, error) {
	d := newDualSolver(Q, p.B, works)
	if d == nil {
		return nil, nil
	}
	d.ctx = o.Context
	g := &gi{d: d}
	seedReduced(d, works, warm)
	maxSteps := 20 * (len(p.B) + 100)
	var runErr error
	for round := 0; ; round++ {
		for wi, w := range works {
			for i := d.nfIn[wi]; i < len(w.ib.omega); i++ {
				d.pending = append(d.pending, dualRow{w: wi, kind: rowFreq, i: i})
			}
			d.nfIn[wi] = len(w.ib.omega)
			w.rounds++
		}
		d.addRows(d.pending)
		d.pending = d.pending[:0]
		if round == 0 && len(d.rows) > 0 {
			// the rows of a warm start were active there: start GI from them
			A := make([]int, len(d.rows))
			for i := range A {
				A[i] = i
			}
			g.warmStart(A)
		}
		s0 := g.steps
		runErr = g.solve(0.5*o.Tol, maxSteps)
		sol.Iterations += g.steps - s0
		sol.Rounds++
		if runErr != nil {
			break
		}
		x := d.theta()
		changed := false
		for wi, w := range works {
			gw := x[w.bl.Offset : w.bl.Offset+w.bl.Len]
			if d.queueViolated(wi, w, gw, o.Tol) {
				changed = true
			}
			switch w.bl.Kind {
			case Exact:
				if w.delta == 0 {
					if w.setDelta(gw, o.Tol) {
						// new right-hand sides: the active set is still a good guess
						d.setRHS(wi, w.ib.rhs)
						A := append([]int(nil), g.act...)
						g.warmStart(A)
						changed = true
					}
				}
				cert, _ := certify(gw, math.Inf(-1))
				w.cert = cert
				if cert.MinRe >= w.bl.Margin-o.ShiftTol*sumAbs(gw) {
					continue
				}
				cands := localMinima(gw, w.bl.Margin+0.5*w.delta)
				if len(cands) == 0 {
					cands = []float64{cert.Omega}
				}
				added := false
				for _, om := range cands {
					if _, ok := g.addFreq(wi, om); ok {
						added = true
					}
				}
				if !added {
					// every minimum is already a row (within 1e-9): refine around them
					for _, om := range cands {
						if w.addCluster(om) {
							added = true
						}
					}
				}
				changed = changed || added
			}
		}
		if !changed {
			break
		}
		if round+1 >= maxRounds {
			runErr = ErrIterationLimit
			break
		}
		g.prune()
	}
	g.compactOmega()
	return handoverReduced(p, Q, works, d), runErr
}

// compactOmega drops the frequencies whose rows were pruned (or never solved) from the works, so
// that the hand-over holds only rows the last solve saw, each with its multiplier.
func (g *gi) compactOmega() {
	d := g.d
	for wi, w := range d.works {
		newIdx := make([]int, len(w.ib.omega))
		for i := range newIdx {
			newIdx[i] = -1
		}
		var om []float64
		var smp []int
		for k, r := range d.rows {
			if r.w != wi || r.kind != rowFreq {
				continue
			}
			newIdx[r.i] = len(om)
			om = append(om, w.ib.omega[r.i])
			if w.samples != nil {
				smp = append(smp, w.samples[r.i])
			}
			d.rows[k].i = newIdx[r.i]
		}
		w.ib.omega = om
		if w.samples != nil {
			w.samples = smp
		}
		d.nfIn[wi] = len(om)
	}
}

// addFreq adds a row at frequency om to work wi: a new frequency, or the row of an existing one
// that prune removed. It returns the frequency's index and whether a row was added.
func (g *gi) addFreq(wi int, om float64) (int, bool) {
	d := g.d
	w := d.works[wi]
	for i, v := range w.ib.omega {
		if math.Abs(v-om) >= 1e-9 {
			continue
		}
		if i >= d.nfIn[wi] {
			return i, false // already pending
		}
		key := dualRow{w: wi, kind: rowFreq, i: i}
		for _, r := range d.rows {
			if r == key {
				return i, false
			}
		}
		for _, r := range d.pending {
			if r == key {
				return i, false
			}
		}
		d.pending = append(d.pending, key)
		return i, true
	}
	w.ib.omega = append(w.ib.omega, om)
	return len(w.ib.omega) - 1, true
}
