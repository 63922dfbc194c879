package convex

import (
	"context"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/passivenfir/gputrain/internal/chol"
)

// The reduced (dual) method: Q = P + γI is factorized once, Q = UᵀU, and the working rows
// a_iᵀθ ≥ h_i enter only through u_i = U⁻ᵀa_i. With θ_u = Q⁻¹b and V = [u_i], the problem is the
// dual bound-constrained QP (a monotone linear complementarity problem)
//
//	w = Sz + c ≥ 0, z ≥ 0, z∘w = 0,   S = VᵀV = GQ⁻¹Gᵀ,  c = Gθ_u − h,
//
// and θ = θ_u + U⁻¹Vz, so that Qθ − b − Gᵀz = 0 holds by construction and w = Gθ − h is the
// slack of the rows. The working set is small (the contact frequencies and clusters around them,
// the active decay bounds): one O(n³/3) Cholesky per Solve, O(n²) per added row, and
// interior-point iterations on the m×m matrix S + diag(w/z).

// dualRow is one working row of the reduced method.
type dualRow struct {
	w    int // index into works
	kind int // rowFreq: i-th frequency of the block; rowUpper: −g(k) ≥ −ub[k]; rowLower: g(k) ≥ −ub[k]
	i    int // frequency index into works[w].ib.omega, or tap k
}

const (
	rowFreq = iota
	rowUpper
	rowLower
)

type dualSolver struct {
	ctx   context.Context // nil: never cancelled
	n     int
	U     blas64.Triangular // Q = UᵀU
	xu    []float64         // Q⁻¹b
	works []*blockWork
	rows  []dualRow
	u     [][]float64 // U⁻ᵀa_i (zero before the block's offset)
	first []int       // first possibly nonzero index of u_i
	c     []float64   // a_iᵀθ_u − h_i
	h     []float64
	S     []float64 // m×m, row-major with stride sst
	sst   int
	z, w  []float64
	iters int
	obj0  float64 // −½bᵀθ_u
	// per work: bound rows already in the working set
	upIn, loIn [][]bool
	nfIn       []int // frequency rows of each work already in rows
	pending    []dualRow
}

// newDualSolver factorizes Q; it returns nil when Q is not numerically positive definite.
func newDualSolver(Q *mat.SymDense, b []float64, works []*blockWork) *dualSolver {
	n := len(b)
	raw := Q.RawSymmetric()
	data := make([]float64, n*n)
	for i := 0; i < n; i++ {
		copy(data[i*n+i:i*n+n], raw.Data[i*raw.Stride+i:i*raw.Stride+n])
	}
	sym := blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: n, Data: data}
	if !chol.Upper(sym) {
		return nil
	}
	d := &dualSolver{n: n, works: works}
	d.U = blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: n, Stride: n, Data: data}
	// reject a badly conditioned factor (diagonal ratio as a cheap proxy)
	dmin, dmax := math.Inf(1), 0.0
	for i := 0; i < n; i++ {
		v := math.Abs(data[i*n+i])
		dmin, dmax = math.Min(dmin, v), math.Max(dmax, v)
	}
	if !(dmin > 1e-7*dmax) {
		return nil
	}
	d.xu = append([]float64(nil), b...)
	cholSolve(d.U, d.xu)
	d.obj0 = -0.5 * dot(b, d.xu)
	d.upIn = make([][]bool, len(works))
	d.loIn = make([][]bool, len(works))
	d.nfIn = make([]int, len(works))
	for i, w := range works {
		if w.ib.ub != nil {
			d.upIn[i] = make([]bool, w.bl.Len)
			d.loIn[i] = make([]bool, w.bl.Len)
		}
	}
	return d
}

// rowVec writes the row a (length n, zero outside the block) and returns h.
func (d *dualSolver) rowVec(r dualRow, a []float64) float64 {
	w := d.works[r.w]
	g := a[w.bl.Offset : w.bl.Offset+w.bl.Len]
	switch r.kind {
	case rowFreq:
		cosTable(g, w.ib.omega[r.i])
		for k := range g {
			g[k] *= 2
		}
		return w.ib.rhs
	case rowUpper:
		g[r.i] = -1
		return -w.ib.ub[r.i]
	default:
		g[r.i] = 1
		return -w.ib.ub[r.i]
	}
}

// addRows appends rows: u_i by triangular solves (one multi-right-hand-side solve per block),
// c_i, and the new rows and columns of S.
func (d *dualSolver) addRows(nr []dualRow) {
	if len(nr) == 0 {
		return
	}
	n := d.n
	m0 := len(d.rows)
	// group by work
	byWork := map[int][]int{}
	for i, r := range nr {
		byWork[r.w] = append(byWork[r.w], i)
	}
	us := make([][]float64, len(nr))
	hs := make([]float64, len(nr))
	for wi, idx := range byWork {
		off := d.works[wi].bl.Offset
		nn := n - off
		k := len(idx)
		B := make([]float64, nn*k)
		a := make([]float64, n)
		for j, i := range idx {
			for t := range a {
				a[t] = 0
			}
			hs[i] = d.rowVec(nr[i], a)
			for t := 0; t < nn; t++ {
				B[t*k+j] = a[off+t]
			}
		}
		// Uᵀ[off:,off:] X = B (rows before off of u are zero: Uᵀ is lower triangular)
		Ut := blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: nn, Stride: n, Data: d.U.Data[off*n+off:]}
		blas64.Trsm(blas.Left, blas.Trans, 1, Ut, blas64.General{Rows: nn, Cols: k, Stride: k, Data: B})
		for j, i := range idx {
			u := make([]float64, n)
			for t := 0; t < nn; t++ {
				u[off+t] = B[t*k+j]
			}
			us[i] = u
		}
	}
	for i, r := range nr {
		d.rows = append(d.rows, r)
		d.u = append(d.u, us[i])
		d.first = append(d.first, d.works[r.w].bl.Offset)
		d.h = append(d.h, hs[i])
		a := make([]float64, n)
		d.rowVec(r, a)
		d.c = append(d.c, dot(a, d.xu)-hs[i])
	}
	// grow S
	m := len(d.rows)
	if m > d.sst {
		st := max(m, 2*d.sst, 64)
		S := make([]float64, st*st)
		for i := 0; i < m0; i++ {
			copy(S[i*st:i*st+m0], d.S[i*d.sst:i*d.sst+m0])
		}
		d.S, d.sst = S, st
	}
	for i := m0; i < m; i++ {
		ui := d.u[i]
		for j := 0; j <= i; j++ {
			f := max(d.first[i], d.first[j])
			v := blas64.Dot(blas64.Vector{N: n - f, Inc: 1, Data: ui[f:]}, blas64.Vector{N: n - f, Inc: 1, Data: d.u[j][f:]})
			d.S[i*d.sst+j] = v
			d.S[j*d.sst+i] = v
		}
	}
	d.z = append(d.z, make([]float64, len(nr))...)
	d.w = append(d.w, make([]float64, len(nr))...)
}

// setRHS changes h of the frequency rows of work wi (after its Delta was set).
func (d *dualSolver) setRHS(wi int, rhs float64) {
	for i, r := range d.rows {
		if r.w == wi && r.kind == rowFreq {
			d.c[i] += d.h[i] - rhs
			d.h[i] = rhs
		}
	}
}

// theta returns θ = θ_u + U⁻¹Vz.
func (d *dualSolver) theta() []float64 {
	n := d.n
	v := make([]float64, n)
	for i, zi := range d.z {
		if zi == 0 {
			continue
		}
		f := d.first[i]
		blas64.Axpy(zi, blas64.Vector{N: n - f, Inc: 1, Data: d.u[i][f:]}, blas64.Vector{N: n - f, Inc: 1, Data: v[f:]})
	}
	blas64.Trsv(blas.NoTrans, d.U, blas64.Vector{N: n, Inc: 1, Data: v})
	for i := range v {
		v[i] += d.xu[i]
	}
	return v
}

// symv computes out = S z.
func (d *dualSolver) symv(z, out []float64) {
	m := len(z)
	blas64.Gemv(blas.NoTrans, 1, blas64.General{Rows: m, Cols: m, Stride: d.sst, Data: d.S}, blas64.Vector{N: m, Inc: 1, Data: z}, 0, blas64.Vector{N: m, Inc: 1, Data: out})
}

// solve runs a Mehrotra predictor-corrector interior-point method on the LCP from a cold start.
// Convergence: max_i max(0, −w_i)/(1+|h_i|) ≤ tol and Σ z_i|w_i|/(1+|obj|) ≤ tol for the true
// slacks w = Sz + c.
func (d *dualSolver) solve(tol float64, maxIter int) error {
	m := len(d.rows)
	d.iters = 0
	if m == 0 {
		return nil
	}
	z, w := d.z[:m], d.w[:m]
	st := d.sst
	K := make([]float64, m*m)
	sz := make([]float64, m)
	r := make([]float64, m)
	wt := make([]float64, m)
	rc := make([]float64, m)
	dz, dw := make([]float64, m), make([]float64, m)
	dza, dwa := make([]float64, m), make([]float64, m)
	Ks := blas64.Symmetric{Uplo: blas.Upper, N: m, Stride: m, Data: K}
	factor := func() bool {
		for i := 0; i < m; i++ {
			copy(K[i*m+i:i*m+m], d.S[i*st+i:i*st+m])
			K[i*m+i] += w[i] / z[i]
		}
		if chol.Upper(Ks) {
			return true
		}
		tr := 0.0
		for i := 0; i < m; i++ {
			tr = math.Max(tr, d.S[i*st+i])
		}
		reg := 1e-14 * math.Max(tr, 1e-300)
		for try := 0; try < 8; try++ {
			for i := 0; i < m; i++ {
				copy(K[i*m+i:i*m+m], d.S[i*st+i:i*st+m])
				K[i*m+i] += w[i]/z[i] + reg
			}
			if chol.Upper(Ks) {
				return true
			}
			reg *= 100
		}
		return false
	}
	// cold start: (S + δI)z = −c, w = Sz + c, then shift both positive
	trS := 0.0
	for i := 0; i < m; i++ {
		trS += d.S[i*st+i]
	}
	delta := math.Max(trS/float64(m), 1e-300)
	for i := 0; i < m; i++ {
		copy(K[i*m+i:i*m+m], d.S[i*st+i:i*st+m])
		K[i*m+i] += delta
	}
	if !chol.Upper(Ks) {
		return ErrNumerical
	}
	for i := range z {
		z[i] = -d.c[i]
	}
	cholSolve(blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: m, Stride: m, Data: K}, z)
	d.symv(z, sz)
	for i := range w {
		w[i] = sz[i] + d.c[i]
	}
	shiftPositive(w, z)
	solveK := func(v []float64) {
		cholSolve(blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: m, Stride: m, Data: K}, v)
	}
	// direction for complementarity right-hand side rc: (S + W/Z)dz = rc/z − r, dw = (rc − w dz)/z
	dir := func(rc, dz, dw []float64) {
		for i := range dz {
			dz[i] = rc[i]/z[i] - r[i]
		}
		solveK(dz)
		for i := range dw {
			dw[i] = (rc[i] - w[i]*dz[i]) / z[i]
		}
	}
	fm := float64(m)
	for it := 0; ; it++ {
		if err := ctxErr(d.ctx); err != nil {
			return err
		}
		d.symv(z, sz)
		var viol, comp, zc, zsz float64
		for i := range r {
			wt[i] = sz[i] + d.c[i]
			r[i] = wt[i] - w[i]
			viol = math.Max(viol, -wt[i]/(1+math.Abs(d.h[i])))
			comp += z[i] * math.Abs(wt[i])
			zc += z[i] * d.c[i]
			zsz += z[i] * sz[i]
		}
		obj := d.obj0 - zc - 0.5*zsz
		if viol <= tol && comp/(1+math.Abs(obj)) <= tol {
			return nil
		}
		if it >= maxIter {
			return ErrIterationLimit
		}
		d.iters++
		mu := dot(z, w) / fm
		if !factor() {
			return ErrNumerical
		}
		for i := range rc {
			rc[i] = -z[i] * w[i]
		}
		dir(rc, dza, dwa)
		a := math.Min(maxStep(z, dza), maxStep(w, dwa))
		muAff := 0.0
		for i := range z {
			muAff += (z[i] + a*dza[i]) * (w[i] + a*dwa[i])
		}
		muAff /= fm
		sigma := math.Pow(muAff/mu, 3)
		for i := range rc {
			rc[i] = -z[i]*w[i] - dza[i]*dwa[i] + sigma*mu
		}
		dir(rc, dz, dw)
		a = math.Min(1, 0.995*math.Min(maxStep(z, dz), maxStep(w, dw)))
		for i := range z {
			z[i] += a * dz[i]
			w[i] += a * dw[i]
		}
	}
}

// reducedMethod tells whether Solve tries the reduced (dual) method first: every constrained
// block is Exact. The attempt is abandoned (see reducedBudget) when the working set grows large,
// which happens when Re G touches the margin over whole bands rather than at a few points.
var reducedMethod = func(works []*blockWork) bool {
	for _, w := range works {
		if w.bl.Kind != Exact {
			return false
		}
	}
	return len(works) > 0
}

// reducedBudget is the largest working set of the reduced method for n variables: with at most
// n/8 rows its cost (one Cholesky of Q, n² per row, the m×m interior-point iterations) stays
// below that of about two iterations of the full method, so an abandoned attempt costs little.
var reducedBudget = func(n int) int { return max(48, n/8) }

// solveReduced runs the exchange loop with the reduced method. It returns nil (and leaves the
// works untouched) when Q = P + γI cannot be factorized reliably; the caller then falls back
// to the full interior-point method.
func solveReduced(p *Problem, o *Options, warm *Solution, Q *mat.SymDense, works []*blockWork, sol *Solution) (*ipSolver, error) {
	d := newDualSolver(Q, p.B, works)
	if d != nil {
		d.ctx = o.Context
	}
	if d == nil {
		return nil, nil
	}
	// snapshot of the works, restored when the attempt is abandoned
	type saved struct {
		omega      []float64
		gridH      int
		samples    []int
		inSet      map[int]bool
		delta, rhs float64
		rounds     int
	}
	snap := make([]saved, len(works))
	for i, w := range works {
		snap[i] = saved{append([]float64(nil), w.ib.omega...), w.ib.gridH, append([]int(nil), w.samples...), w.inSet, w.delta, w.ib.rhs, w.rounds}
	}
	it0, r0 := sol.Iterations, sol.Rounds
	abandon := func() {
		sol.Iterations, sol.Rounds = it0, r0
		for i, w := range works {
			sv := snap[i]
			w.ib.omega, w.ib.gridH, w.samples, w.inSet, w.delta, w.ib.rhs, w.rounds = sv.omega, sv.gridH, sv.samples, sv.inSet, sv.delta, sv.rhs, sv.rounds
			if len(sv.samples) == 0 {
				w.samples = nil
			}
		}
	}
	budget := reducedBudget(d.n)
	seedReduced(d, works, warm)
	var runErr error
	for round := 0; ; round++ {
		for wi, w := range works {
			for i := d.nfIn[wi]; i < len(w.ib.omega); i++ {
				d.pending = append(d.pending, dualRow{w: wi, kind: rowFreq, i: i})
			}
			d.nfIn[wi] = len(w.ib.omega)
			w.rounds++
		}
		if len(d.rows)+len(d.pending) > budget {
			abandon()
			return nil, nil
		}
		d.addRows(d.pending)
		d.pending = d.pending[:0]
		runErr = d.solve(0.5*o.Tol, o.MaxIter)
		sol.Iterations += d.iters
		sol.Rounds++
		if runErr != nil {
			break
		}
		x := d.theta()
		changed := false
		for wi, w := range works {
			g := x[w.bl.Offset : w.bl.Offset+w.bl.Len]
			if d.queueViolated(wi, w, g, o.Tol) {
				changed = true
			}
			switch w.bl.Kind {
			case Exact:
				if w.delta == 0 {
					if w.setDelta(g, o.Tol) {
						d.setRHS(wi, w.ib.rhs)
						changed = true
					}
				}
				cert, _ := certify(g, math.Inf(-1))
				w.cert = cert
				if cert.MinRe >= w.bl.Margin-o.ShiftTol*sumAbs(g) {
					continue
				}
				cands := localMinima(g, w.bl.Margin+0.5*w.delta)
				if len(cands) == 0 {
					cands = []float64{cert.Omega}
				}
				fresh := len(w.ib.omega) == 0
				for _, om := range cands {
					// the first rows of a block are the local minima alone (the unconstrained
					// optimum can have many of them); later ones come with a cluster
					if fresh && w.addOmega(om) || !fresh && w.addCluster(om) {
						changed = true
					}
				}
			}
		}
		if !changed {
			break
		}
		if round+1 >= maxRounds {
			runErr = ErrIterationLimit
			break
		}
	}
	return handoverReduced(p, Q, works, d), runErr
}

// queue schedules a bound row for the next round.
func (d *dualSolver) queue(wi, kind, k int) {
	if kind == rowUpper {
		if d.upIn[wi][k] {
			return
		}
		d.upIn[wi][k] = true
	} else {
		if d.loIn[wi][k] {
			return
		}
		d.loIn[wi][k] = true
	}
	d.pending = append(d.pending, dualRow{w: wi, kind: kind, i: k})
}

// localMinima returns the local minimizers of Re G(ω) = Σ g(k)cos(kω) on [0, π] whose value is
// below thresh: the local minima of a uniform grid of about 8·Len points (one DCT-I), polished
// by Newton's method.
func localMinima(g []float64, thresh float64) []float64 {
	L := len(g)
	if L == 1 {
		if g[0] < thresh {
			return []float64{0}
		}
		return nil
	}
	N := niceSize(max(8*(L-1), 64))
	src := make([]float64, N+1)
	p := make([]float64, N+1)
	src[0] = g[0]
	for k := 1; k < L; k++ {
		src[k] = 0.5 * g[k]
	}
	t, put := getDCT(N + 1)
	t.Transform(p, src)
	put()
	pl := newPoly(g)
	h := math.Pi / float64(N)
	var out []float64
	for i := 0; i <= N; i++ {
		if (i > 0 && p[i] > p[i-1]) || (i < N && p[i] > p[i+1]) {
			continue
		}
		if i > 0 && p[i] == p[i-1] {
			continue // plateau: keep its first point
		}
		w := float64(i) * h
		lo, hi := math.Max(0, w-h), math.Min(math.Pi, w+h)
		w, v := pl.newtonMin(w, lo, hi, 20, true)
		if v < thresh {
			out = append(out, w)
		}
	}
	return out
}

// seedReduced empties the working sets of the works and seeds them with the rows the warm start
// says are active.
func seedReduced(d *dualSolver, works []*blockWork, warm *Solution) {
	for wi, w := range works {
		bl := w.bl
		w.ib.omega = w.ib.omega[:0]
		w.ib.gridH = 0
		w.samples = nil
		if bl.Kind == Sampled {
			w.inSet = map[int]bool{}
		}
		if warm == nil {
			continue
		}
		ws := &warm.State[w.idx]
		zmax := math.Max(normInf(ws.Z), normInf(ws.GridZ))
		thr := 1e-9 * zmax
		if len(ws.Omega) == len(ws.Z) {
			for i, om := range ws.Omega {
				if ws.Z[i] > thr {
					switch {
					case bl.Kind == Exact:
						w.addOmega(om)
					case i < len(ws.Samples) && ws.Samples[i] >= 0 && ws.Samples[i] <= bl.H:
						w.addSample(ws.Samples[i])
					}
				}
			}
		}
		if ws.GridH > 0 && len(ws.GridZ) == ws.GridH+1 {
			for h, zv := range ws.GridZ {
				if zv > thr {
					switch {
					case bl.Kind == Exact:
						w.addOmega(math.Pi * float64(h) / float64(ws.GridH))
					case ws.GridH == bl.H:
						w.addSample(h)
					}
				}
			}
		}
		if w.ib.ub != nil && len(ws.ZUpper) == bl.Len && len(ws.ZLower) == bl.Len {
			bmax := math.Max(normInf(ws.ZUpper), normInf(ws.ZLower))
			for k := 0; k < bl.Len; k++ {
				if ws.ZUpper[k] > 1e-9*bmax {
					d.queue(wi, rowUpper, k)
				}
				if ws.ZLower[k] > 1e-9*bmax {
					d.queue(wi, rowLower, k)
				}
			}
		}
	}
}

// handoverReduced returns the result of the reduced method in the layout of the full method.
func handoverReduced(p *Problem, Q *mat.SymDense, works []*blockWork, d *dualSolver) *ipSolver {
	blocks := make([]*ipBlock, len(works))
	for i, w := range works {
		// rows added after the last solve have no multiplier: drop them
		w.ib.omega = w.ib.omega[:d.nfIn[i]]
		if w.samples != nil {
			w.samples = w.samples[:d.nfIn[i]]
		}
		w.ib.buildTab()
		blocks[i] = w.ib
	}
	ip := newIPSolver(Q, p.B)
	ip.setBlocks(blocks)
	copy(ip.x, d.theta())
	for i := range ip.z {
		ip.z[i] = 0
	}
	for i, r := range d.rows {
		ib := works[r.w].ib
		z := ip.z[ib.row0:]
		nf := len(ib.omega)
		switch r.kind {
		case rowFreq:
			z[r.i] = d.z[i]
		case rowUpper:
			z[nf+r.i] = d.z[i]
		case rowLower:
			z[nf+ib.L+r.i] = d.z[i]
		}
	}
	return ip
}

// queueViolated queues the rows of block wi that the taps g violate beyond
// a tenth of tol: decay bounds not yet in the problem, and for a sampled
// block the frequency samples (addViolated). It reports whether it queued
// any. The exchange rounds of both dual methods (interior point and active
// set) share it; an exact block's certificate check is theirs.
func (d *dualSolver) queueViolated(wi int, w *blockWork, g []float64, tol float64) bool {
	changed := false
	if ub := w.ib.ub; ub != nil {
		for k, v := range g {
			vtol := 0.1 * tol * (1 + ub[k])
			if v > ub[k]+vtol && !d.upIn[wi][k] {
				d.queue(wi, rowUpper, k)
				changed = true
			}
			if v < -ub[k]-vtol && !d.loIn[wi][k] {
				d.queue(wi, rowLower, k)
				changed = true
			}
		}
	}
	if w.bl.Kind == Sampled && w.addViolated(g, 0.1*tol*(1+math.Abs(w.bl.Eps))) {
		changed = true
	}
	return changed
}
