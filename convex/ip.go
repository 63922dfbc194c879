package convex

import (
	"context"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/passivenfir/gputrain/internal/chol"
)

// ipBlock is the working set of one constrained block inside the interior-point method.
// Rows, in order: frequency rows Σ_k 2cos(ω_i k)·g(k) ≥ rhs (i < len(omega)), then, when ub is
// not nil, upper rows −g(k) ≥ −ub[k] and lower rows g(k) ≥ −ub[k] (k < L).
//
// When gridH > 0 the block also has the gridH+1 uniform rows Σ_k 2cos(hπk/gridH)·g(k) ≥ rhs,
// h = 0..gridH, placed last; they are applied with a DCT-I of length gridH+1 (gridH ≥ L), and
// their share of AᵀDA, c(m) = Σ_h d_h cos(hπm/gridH), is one more DCT-I.
type ipBlock struct {
	off, L int
	omega  []float64
	tab    []float64 // len(omega) × (2L−1): cos(ω_i·m), m = 0..2L−2
	tabOm  []float64 // the frequencies tab was built for (buildTab reuses its rows)
	rhs    float64
	ub     []float64
	row0   int

	gridH      int
	dct        dct1
	gsrc, gdst []float64
}

func (b *ipBlock) nrows() int {
	n := b.gridOff()
	if b.gridH > 0 {
		n += b.gridH + 1
	}
	return n
}

// gridOff is the offset of the uniform rows within the block's rows.
func (b *ipBlock) gridOff() int {
	n := len(b.omega)
	if b.ub != nil {
		n += 2 * b.L
	}
	return n
}

func (b *ipBlock) initGrid() {
	if b.gridH > 0 && b.dct == nil {
		b.dct = newDCT1(b.gridH + 1)
		b.gsrc = make([]float64, b.gridH+1)
		b.gdst = make([]float64, b.gridH+1)
	}
}

// cosTable fills dst[m] = cos(ω·m) for m < len(dst) by rotation, re-anchored with math.Sincos
// every 32 steps so that the error stays at a few ulps.
func cosTable(dst []float64, w float64) {
	sw, cw := math.Sincos(w)
	var c, s float64
	for m := range dst {
		if m%32 == 0 {
			s, c = math.Sincos(w * float64(m))
		} else {
			c, s = c*cw-s*sw, s*cw+c*sw
		}
		dst[m] = c
	}
}

// cosTable4 is cosTable for the rows rows[0..3] of tab (row length w, frequencies omega[row]),
// interleaved: the rotation of one row is a chain of dependent multiplications, and four
// independent chains keep the multipliers busy. Each row is computed exactly as cosTable
// computes it (TestCosTable4).
func cosTable4(tab []float64, w int, rows [4]int, omega []float64) {
	var cw, sw, c, s [4]float64
	var dst [4][]float64
	for j, i := range rows {
		sw[j], cw[j] = math.Sincos(omega[i])
		dst[j] = tab[i*w : (i+1)*w]
	}
	for m := 0; m < w; m++ {
		for j := range 4 {
			if m%32 == 0 {
				s[j], c[j] = math.Sincos(omega[rows[j]] * float64(m))
			} else {
				c[j], s[j] = c[j]*cw[j]-s[j]*sw[j], s[j]*cw[j]+c[j]*sw[j]
			}
			dst[j][m] = c[j]
		}
	}
}

// buildTab fills tab for the current frequencies. The exchange only appends frequencies, so the
// rows of earlier rounds are kept (rows whose frequency changed are rebuilt): recomputing them
// took 6 % of an exact-mode solve at m_G = 200. A table of up to tabSlackMax values is allocated
// at twice its size, so that the later rounds' few added rows do not copy it each time
// (allocating and copying was 4 % of a solve at m_G = 200); larger ones (30 MB a block at the
// robot's size) grow exactly. New rows are filled four at a time (cosTable4).
func (b *ipBlock) buildTab() {
	w := 2*b.L - 1
	need := len(b.omega) * w
	if cap(b.tab) >= need {
		b.tab = b.tab[:need]
	} else {
		c := need
		if need <= tabSlackMax {
			c += need
		}
		t := make([]float64, need, c)
		copy(t, b.tab[:min(len(b.tab), len(b.tabOm)*w)])
		b.tab = t
	}
	var rows [4]int
	nr := 0
	for i, om := range b.omega {
		if i < len(b.tabOm) && b.tabOm[i] == om {
			continue
		}
		rows[nr] = i
		if nr++; nr == 4 {
			cosTable4(b.tab, w, rows, b.omega)
			nr = 0
		}
	}
	for _, i := range rows[:nr] {
		cosTable(b.tab[i*w:(i+1)*w], b.omega[i])
	}
	b.tabOm = append(b.tabOm[:0], b.omega...)
}

// rowSlackMax is the number of rows up to which setBlocks allocates its vectors with slack.
const rowSlackMax = 1 << 16

// tabSlackMax is the size (values) up to which buildTab allocates a cosine table with slack.
const tabSlackMax = 1 << 22

// ipSolver is a Mehrotra predictor-corrector interior-point method for
// min ½xᵀQx − bᵀx s.t. Gx ≥ h, with G block structured as described by ipBlock.
// The Newton matrix Q + GᵀDG is formed blockwise: for the frequency rows of a block,
// Σ_i d_i a_i a_iᵀ with a_i(k) = 2cos(ω_i k) has entries 2[c(k−l) + c(k+l)],
// c(m) = Σ_i d_i cos(ω_i m) (Toeplitz plus Hankel); bounds add a diagonal.
type ipSolver struct {
	ctx    context.Context // nil: never cancelled
	n, m   int
	Q      *mat.SymDense
	b      []float64
	blocks []*ipBlock
	h      []float64

	x, s, z []float64

	rd, rp, dx, ds, dz, dsa, dza, rc, d, wm, wn, qx, gx []float64
	gtz                                                 []float64 // Gᵀz
	r1, dx1                                             []float64 // iterative refinement
	cdx, cds, cdz, cwm                                  []float64 // centrality corrector
	gondzio                                             int       // centrality correctors per iteration
	accept                                              float64   // Options.AcceptTol
	warmCut                                             int       // > 0: a run still far off by then stops (warmExtra)
	cbuf                                                []float64
	M                                                   *mat.SymDense
	fac                                                 blas64.Triangular // Cholesky factor (in M's storage)
	hnorm, bnorm                                        float64
	keep                                                []float64
	par                                                 gemvPar // the products with the cosine rows

	// best iterate
	bx, bs, bz []float64
	bmerit     float64
	res        Residuals
	obj        float64
	iters      int
}

func newIPSolver(Q *mat.SymDense, b []float64) *ipSolver {
	n := len(b)
	ip := &ipSolver{n: n, Q: Q, b: b}
	ip.x = make([]float64, n)
	ip.rd = make([]float64, n)
	ip.dx = make([]float64, n)
	ip.wn = make([]float64, n)
	ip.gtz = make([]float64, n)
	ip.r1 = make([]float64, n)
	ip.cdx = make([]float64, n)
	ip.dx1 = make([]float64, n)
	ip.qx = make([]float64, n)
	ip.bx = make([]float64, n)
	ip.bnorm = normInf(b)
	return ip
}

// setBlocks installs a new working set and (re)allocates the row vectors.
func (ip *ipSolver) setBlocks(blocks []*ipBlock) {
	ip.blocks = blocks
	m := 0
	maxL := 0
	for _, bl := range blocks {
		bl.row0 = m
		m += bl.nrows()
		if bl.L > maxL {
			maxL = bl.L
		}
	}
	ip.m = m
	// The exchange adds a few rows a round: vectors of up to rowSlackMax rows get half their
	// length to spare, so that they are not reallocated every round.
	c := m
	if m <= rowSlackMax {
		c += m / 2
	}
	grow := func(v []float64) []float64 {
		if cap(v) >= m {
			return v[:m]
		}
		return make([]float64, m, c)
	}
	ip.h = grow(ip.h)
	ip.s = grow(ip.s)
	ip.z = grow(ip.z)
	ip.rp = grow(ip.rp)
	ip.ds = grow(ip.ds)
	ip.dz = grow(ip.dz)
	ip.dsa = grow(ip.dsa)
	ip.cds = grow(ip.cds)
	ip.cdz = grow(ip.cdz)
	ip.cwm = grow(ip.cwm)
	ip.dza = grow(ip.dza)
	ip.rc = grow(ip.rc)
	ip.d = grow(ip.d)
	ip.wm = grow(ip.wm)
	ip.gx = grow(ip.gx)
	ip.bs = grow(ip.bs)
	ip.bz = grow(ip.bz)
	if cap(ip.cbuf) < 2*maxL {
		ip.cbuf = make([]float64, 2*maxL)
	}
	for _, bl := range blocks {
		r := ip.h[bl.row0:]
		nf := len(bl.omega)
		for i := 0; i < nf; i++ {
			r[i] = bl.rhs
		}
		if bl.ub != nil {
			for k := 0; k < bl.L; k++ {
				r[nf+k] = -bl.ub[k]
				r[nf+bl.L+k] = -bl.ub[k]
			}
		}
		if bl.gridH > 0 {
			bl.initGrid()
			go0 := bl.gridOff()
			for i := 0; i <= bl.gridH; i++ {
				r[go0+i] = bl.rhs
			}
		}
	}
	ip.hnorm = normInf(ip.h)
	// correctors per iteration by the cost of a factorization (n³/3) relative to that of a
	// corrector (two triangular solves and the products with G)
	n := ip.n
	ops := 2 * float64(n) * float64(n)
	for _, bl := range blocks {
		ops += 4 * float64(len(bl.omega)*bl.L)
		if bl.gridH > 0 {
			ops += 10 * float64(bl.gridH) * math.Log2(float64(bl.gridH))
		}
	}
	switch r := float64(n) * float64(n) * float64(n) / 3 / ops; {
	case r >= 200:
		ip.gondzio = 4
	case r >= 50:
		ip.gondzio = 2
	case r >= 20:
		ip.gondzio = 1
	default:
		ip.gondzio = 0
	}
}

// gen returns the first cols columns of the block's cosine table as a general matrix.
func (b *ipBlock) gen(cols int) blas64.General {
	return blas64.General{Rows: len(b.omega), Cols: cols, Stride: 2*b.L - 1, Data: b.tab}
}

// mulG computes out = G x.
func (ip *ipSolver) mulG(x, out []float64) {
	for _, bl := range ip.blocks {
		L := bl.L
		g := x[bl.off : bl.off+L]
		o := out[bl.row0:]
		nf := len(bl.omega)
		if nf > 0 {
			ip.par.gemv(false, 2, bl.gen(L), g, o[:nf])
		}
		if bl.ub != nil {
			for k, v := range g {
				o[nf+k] = -v
				o[nf+L+k] = v
			}
		}
	}
	ip.gridEach(func(bl *ipBlock) {
		L := bl.L
		g := x[bl.off : bl.off+L]
		src := bl.gsrc
		for i := range src {
			src[i] = 0
		}
		src[0] = 2 * g[0]
		copy(src[1:L], g[1:])
		go0 := bl.row0 + bl.gridOff()
		bl.dct.Transform(out[go0:go0+bl.gridH+1], src)
	})
}

// mulGT computes out = Gᵀ z (out has length n and is overwritten).
func (ip *ipSolver) mulGT(z, out []float64) {
	for i := range out {
		out[i] = 0
	}
	ip.gridEach(func(bl *ipBlock) {
		go0 := bl.row0 + bl.gridOff()
		bl.dct.Transform(bl.gdst, z[go0:go0+bl.gridH+1])
	})
	for _, bl := range ip.blocks {
		L := bl.L
		o := out[bl.off : bl.off+L]
		zz := z[bl.row0:]
		nf := len(bl.omega)
		if nf > 0 {
			ip.par.gemv(true, 2, bl.gen(L), zz[:nf], o)
		}
		if bl.ub != nil {
			for k := range o {
				o[k] += zz[nf+L+k] - zz[nf+k]
			}
		}
		if bl.gridH > 0 {
			H := bl.gridH
			zg := zz[bl.gridOff() : bl.gridOff()+H+1]
			// 2Σ_h z_h cos(hπk/H) = DCT[k] + z_0 + (−1)^k z_H
			sg := 1.0
			for k := range o {
				o[k] += bl.gdst[k] + zg[0] + sg*zg[H]
				sg = -sg
			}
		}
	}
}

// formM sets M = Q + Gᵀ diag(d) G.
func (ip *ipSolver) formM(d []float64) {
	n := ip.n
	if ip.M == nil {
		ip.M = mat.NewSymDense(n, nil)
	}
	src := ip.Q.RawSymmetric()
	dst := ip.M.RawSymmetric()
	for i := 0; i < n; i++ {
		copy(dst.Data[i*dst.Stride+i:i*dst.Stride+n], src.Data[i*src.Stride+i:i*src.Stride+n])
	}
	ip.gridEach(func(bl *ipBlock) {
		go0 := bl.row0 + bl.gridOff()
		bl.dct.Transform(bl.gdst, d[go0:go0+bl.gridH+1])
	})
	for _, bl := range ip.blocks {
		L := bl.L
		w := 2*L - 1
		c := ip.cbuf[:w]
		dd := d[bl.row0:]
		nf := len(bl.omega)
		if nf > 0 {
			// c(m) = Σ_i d_i cos(ω_i m), m = 0..2L−2
			ip.par.gemv(true, 1, bl.gen(w), dd[:nf], c)
		} else {
			for i := range c {
				c[i] = 0
			}
		}
		if bl.gridH > 0 {
			H := bl.gridH
			dg := dd[bl.gridOff() : bl.gridOff()+H+1]
			for m := range c {
				mm := m % (2 * H)
				if mm > H {
					mm = 2*H - mm
				}
				v := bl.gdst[mm] + dg[0]
				if mm%2 == 0 {
					v += dg[H]
				} else {
					v -= dg[H]
				}
				c[m] += 0.5 * v
			}
		}
		for k := 0; k < L; k++ {
			row := dst.Data[(bl.off+k)*dst.Stride+bl.off:]
			if nf > 0 || bl.gridH > 0 {
				for l := k; l < L; l++ {
					row[l] += 2 * (c[l-k] + c[l+k])
				}
			}
			if bl.ub != nil {
				row[k] += dd[nf+k] + dd[nf+L+k]
			}
		}
	}
}

// factor computes the Cholesky factor of M in place with chol.Upper (LAPACK's dpotrf, blocked
// with an AVX2 trailing update; mat.Cholesky would also estimate the condition number, which
// costs as much again). If M is not numerically positive definite, a growing multiple of the
// identity is added to a fresh copy.
func (ip *ipSolver) factor() bool {
	raw := ip.M.RawSymmetric()
	n := ip.n
	if ip.keep == nil || len(ip.keep) < n*n {
		ip.keep = make([]float64, n*n)
	}
	copy(ip.keep, raw.Data[:n*n])
	ip.fac = blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: n, Stride: raw.Stride, Data: raw.Data}
	if chol.Upper(raw) {
		return true
	}
	tr := 0.0
	for i := 0; i < n; i++ {
		tr = math.Max(tr, math.Abs(ip.keep[i*raw.Stride+i]))
	}
	if tr == 0 {
		tr = 1
	}
	reg := 1e-14 * tr
	for try := 0; try < 8; try++ {
		copy(raw.Data[:n*n], ip.keep)
		for i := 0; i < n; i++ {
			raw.Data[i*raw.Stride+i] += reg
		}
		if chol.Upper(raw) {
			return true
		}
		reg *= 100
	}
	return false
}

// solveM solves M v = v in place with the factor from factor (M = UᵀU).
func (ip *ipSolver) solveM(v []float64) { cholSolve(ip.fac, v) }

// cholSolve solves UᵀU v = v in place for an upper Cholesky factor U. It is
// lapack64.Potrs for one right-hand side, done with two triangular solves:
// gonum's Potrs goes through Dtrsm, which for a single column is about ten
// times slower than Dtrsv (BenchmarkCholSolve).
// From parSolveMin on it is the blocked, parallel solve of cholSolvePar.
func cholSolve(U blas64.Triangular, v []float64) {
	if U.N >= parSolveMin {
		cholSolvePar(U, v)
		return
	}
	x := blas64.Vector{N: U.N, Inc: 1, Data: v}
	blas64.Trsv(blas.Trans, U, x)
	blas64.Trsv(blas.NoTrans, U, x)
}

// qmul computes out = Q x.
func (ip *ipSolver) qmul(x, out []float64) {
	blas64.Symv(1, ip.Q.RawSymmetric(), blas64.Vector{N: ip.n, Inc: 1, Data: x}, 0, blas64.Vector{N: ip.n, Inc: 1, Data: out})
}

// warmS sets how far a warm start is pushed into the interior, relative to the scales of h
// and z.
const warmS = 1e-6

// Without decay bounds, h is 2(Margin + Δ) on every row, about 0, and says nothing of the
// scale of the slacks: warmStart then pushes them to warmSFree·(1 + ‖Gx‖∞) instead (Gx is
// 2Re G on the frequency rows). With warmS·(1 + ‖h‖∞) the robot-like problem's rows (Re G of
// order 20, no bounds) started 1e-6 from their bounds, and two of its five warm runs at
// n = 2000 crawled into warmBudget and restarted cold (60 of 206 iterations). Problems with
// bounds keep warmS·(1 + ‖h‖∞); Table I gains little from the change, and the path of small
// degenerate problems (TestSolveUnits) moves.
const warmSFree = 1e-5

// A warm run (see warmBudget) whose best merit is at most warmCutMerit after warmBudget
// iterations is converging, at about a decade per three iterations there, and may go on for
// warmExtra more; one still further off restarts cold at once. At n = 2000 a warm run at merit
// 1e-5 after 30 iterations, one more iteration from the trainer's AcceptTol, went back to a
// cold start of 34 iterations.
const (
	warmCutMerit = 1e-4
	warmExtra    = 15
)

func normInf(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		if a := math.Abs(x); a > m {
			m = a
		}
	}
	return m
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i, v := range a {
		s += v * b[i]
	}
	return s
}

// coldStart sets x, s, z from the least-squares point of ½xᵀQx − bᵀx + ½‖Gx − h‖²
// followed by the usual positivity shift (Nocedal & Wright §16.6).
func (ip *ipSolver) coldStart() bool {
	if ip.m == 0 {
		return true
	}
	for i := range ip.wm {
		ip.wm[i] = 1
	}
	ip.formM(ip.wm)
	if !ip.factor() {
		return false
	}
	ip.mulGT(ip.h, ip.x)
	for i := range ip.x {
		ip.x[i] += ip.b[i]
	}
	ip.solveM(ip.x)
	ip.mulG(ip.x, ip.gx)
	for i := range ip.s {
		r := ip.gx[i] - ip.h[i]
		ip.s[i] = r
		ip.z[i] = -r
	}
	shiftPositive(ip.s, ip.z)
	return true
}

func shiftPositive(s, z []float64) {
	ms, mz := math.Inf(1), math.Inf(1)
	for i := range s {
		ms = math.Min(ms, s[i])
		mz = math.Min(mz, z[i])
	}
	ds := math.Max(-1.5*ms, 0)
	dz := math.Max(-1.5*mz, 0)
	var sz, ss, zz float64
	for i := range s {
		s[i] += ds
		z[i] += dz
		sz += s[i] * z[i]
		ss += s[i]
		zz += z[i]
	}
	if sz <= 0 || ss <= 0 || zz <= 0 {
		for i := range s {
			s[i] = math.Max(s[i], 1)
			z[i] = math.Max(z[i], 1)
		}
		return
	}
	a, b := 0.5*sz/zz, 0.5*sz/ss
	for i := range s {
		s[i] += a
		z[i] += b
	}
}

// warmStart sets s from the current x (x and z must already be set; z ≤ 0 entries count as
// unknown), pushing both s and z away from zero so that the start is interior and centred at
// a small duality measure.
func (ip *ipSolver) warmStart() {
	if ip.m == 0 {
		return
	}
	ip.mulG(ip.x, ip.gx)
	for i := range ip.s {
		ip.s[i] = ip.gx[i] - ip.h[i]
	}
	// scales
	ts := warmS * (1 + ip.hnorm)
	if !ip.bounded() {
		ts = warmSFree * (1 + math.Max(ip.hnorm, normInf(ip.gx)))
	}
	zmax := normInf(ip.z)
	ip.qmul(ip.x, ip.qx)
	zs := math.Max(zmax, 1e-3*(1+math.Max(ip.bnorm, normInf(ip.qx))))
	tz := warmS * zs
	mu := ts * tz
	for i := range ip.s {
		s, z := ip.s[i], ip.z[i]
		if s < 0 {
			s = -s // a violated row starts as far inside as it is outside
		}
		if s < ts {
			s = ts
		}
		if z < mu/s {
			z = mu / s
		}
		ip.s[i], ip.z[i] = s, z
	}
}

// bounded reports whether a block has decay-bound rows.
func (ip *ipSolver) bounded() bool {
	for _, bl := range ip.blocks {
		if bl.ub != nil {
			return true
		}
	}
	return false
}

// residuals computes rd, rp at the current iterate and returns the relative residuals. With
// exact set, Qx, Gx and Gᵀz are recomputed; otherwise the values updated by run's step are
// used.
func (ip *ipSolver) residuals(exact bool) (Residuals, float64) {
	if exact {
		ip.qmul(ip.x, ip.qx)
		ip.mulG(ip.x, ip.gx)
		ip.mulGT(ip.z, ip.gtz)
	}
	for i := range ip.rd {
		ip.rd[i] = ip.qx[i] - ip.b[i] - ip.gtz[i]
	}
	for i := range ip.rp {
		ip.rp[i] = ip.gx[i] - ip.s[i] - ip.h[i]
	}
	obj := 0.5*dot(ip.x, ip.qx) - dot(ip.b, ip.x)
	sz := dot(ip.s, ip.z)
	pr := 0.0
	for i, v := range ip.rp {
		pr = math.Max(pr, math.Abs(v)/(1+math.Abs(ip.h[i])))
	}
	r := Residuals{
		Primal:          pr,
		Dual:            normInf(ip.rd) / (1 + math.Max(ip.bnorm, normInf(ip.qx))),
		Complementarity: sz / (1 + math.Abs(obj)),
	}
	return r, obj
}

func (r Residuals) max() float64 { return math.Max(r.Primal, math.Max(r.Dual, r.Complementarity)) }

// newton solves the reduced Newton system for the complementarity right-hand side rc,
// leaving the direction in dx, ds, dz.
func (ip *ipSolver) newton(rc []float64) {
	for i := range ip.wm {
		ip.wm[i] = rc[i]/ip.s[i] - ip.d[i]*ip.rp[i]
	}
	ip.mulGT(ip.wm, ip.dx)
	for i := range ip.dx {
		ip.dx[i] -= ip.rd[i]
	}
	ip.solveM(ip.dx)
	ip.mulG(ip.dx, ip.ds)
	for i := range ip.ds {
		ip.ds[i] += ip.rp[i]
		ip.dz[i] = (rc[i] - ip.z[i]*ip.ds[i]) / ip.s[i]
	}
}

// Late in the iterations z/s spans many orders of magnitude and the Newton
// matrix M = Q + GᵀDG is so badly conditioned that its solution leaves a
// dual residual Q dx − Gᵀdz + rd of about 1e-8 relative, which then stalls
// the method (it did at n = 2000, the robot's θ_G step). From residuals of
// refineFrom on, each direction is refined: the residual of the unreduced
// equation, which holds no z/s, is computed with a transform, and the
// correction M δx = −r1, δs = G δx, δz = −(z/s)δs keeps the other two
// Newton equations exact.
const (
	refineFrom  = 1e-6
	refineSteps = 2
)

// A run whose best merit (largest relative residual) has not halved in
// stallIters iterations stops there when that merit is at most acceptTol, the
// accuracy the package promises (Options.Tol asks for more by default).
const (
	stallIters = 6
	acceptTol  = 1e-8
)

// refine applies up to refineSteps steps of iterative refinement to (dx, ds, dz).
func (ip *ipSolver) refine() {
	scale := 1 + math.Max(ip.bnorm, normInf(ip.qx))
	for k := 0; k < refineSteps; k++ {
		ip.mulGT(ip.dz, ip.r1)
		ip.qmul(ip.dx, ip.dx1)
		for i := range ip.r1 {
			ip.r1[i] = ip.dx1[i] - ip.r1[i] + ip.rd[i]
		}
		if normInf(ip.r1) <= 1e-3*(normInf(ip.rd)+1e-12*scale) {
			return
		}
		for i := range ip.dx1 {
			ip.dx1[i] = -ip.r1[i]
		}
		ip.solveM(ip.dx1)
		ip.mulG(ip.dx1, ip.wm)
		for i := range ip.dx {
			ip.dx[i] += ip.dx1[i]
		}
		for i := range ip.ds {
			ip.ds[i] += ip.wm[i]
			ip.dz[i] -= ip.d[i] * ip.wm[i]
		}
	}
}

// Gondzio's multiple centrality correctors (Colombo & Gondzio 2008): after the
// Mehrotra direction with step a, aim at the step a+gondzioStep, and move the
// complementarity products of that trial point that fall outside
// [gondzioLo·μt, gondzioHi·μt] back towards the target μt, with one more solve
// of the factorized system per corrector. A corrector is kept while it
// lengthens the step by at least gondzioGain·gondzioStep. The problems here
// are degenerate (Re G at the margin over whole bands) and otherwise crawl
// with steps of 0.3–0.7; a corrector costs a solve and two transforms, so
// it pays where the factorization dominates (see setBlocks).
const (
	gondzioStep = 0.2
	gondzioLo   = 0.1
	gondzioHi   = 10
	gondzioGain = 0.1
)

// centrality applies up to ip.gondzio correctors to the direction (dx, ds, dz)
// with step a and returns the new step.
func (ip *ipSolver) centrality(a, mut float64) float64 {
	for k := 0; k < ip.gondzio && a < 1; k++ {
		at := math.Min(1, a+gondzioStep)
		for i := range ip.cwm {
			v := (ip.s[i] + at*ip.ds[i]) * (ip.z[i] + at*ip.dz[i])
			t := 0.0
			switch {
			case v < gondzioLo*mut:
				t = gondzioLo*mut - v
			case v > gondzioHi*mut:
				t = math.Max(gondzioHi*mut-v, -gondzioHi*mut)
			}
			ip.cdz[i] = t // the complementarity right-hand side, used for dz below
			ip.cwm[i] = t / ip.s[i]
		}
		// Newton step for the right-hand side (0, 0, t): M dx = Gᵀ(t/s), ds = G dx,
		// dz = (t − z ds)/s.
		ip.mulGT(ip.cwm, ip.cdx)
		ip.solveM(ip.cdx)
		ip.mulG(ip.cdx, ip.cds)
		for i := range ip.cdz {
			ip.cdz[i] = (ip.cdz[i] - ip.z[i]*ip.cds[i]) / ip.s[i]
			ip.cds[i] += ip.ds[i]
			ip.cdz[i] += ip.dz[i]
		}
		an := math.Min(maxStep(ip.s, ip.cds), maxStep(ip.z, ip.cdz))
		if an < a+gondzioGain*gondzioStep {
			break
		}
		for i := range ip.dx {
			ip.dx[i] += ip.cdx[i]
		}
		copy(ip.ds, ip.cds)
		copy(ip.dz, ip.cdz)
		a = an
	}
	return a
}

// exactEvery is how often run recomputes Gx and Gᵀz instead of updating them.
const exactEvery = 8

func maxStep(v, dv []float64) float64 {
	a := 1.0
	for i, d := range dv {
		if d < 0 {
			if t := -v[i] / d; t < a {
				a = t
			}
		}
	}
	return a
}

// run iterates from the current (x, s, z). It returns the number of iterations and
// ErrIterationLimit or ErrNumerical on failure (the best iterate is restored).
func (ip *ipSolver) run(tol float64, maxIter int) error {
	ip.bmerit = math.Inf(1)
	ip.iters = 0
	if ip.m == 0 {
		ip.formM(nil)
		if !ip.factor() {
			return ErrNumerical
		}
		copy(ip.x, ip.b)
		ip.solveM(ip.x)
		ip.iters = 1
		ip.res, ip.obj = ip.residuals(true)
		return nil
	}
	m := float64(ip.m)
	var err error
	late := false // residuals below refineFrom on a factorization-bound problem
	bestIt := 0   // iteration of the best merit
	for it := 0; ; it++ {
		if err := ctxErr(ip.ctx); err != nil {
			return err
		}
		exact := it%exactEvery == 0 || late
		res, obj := ip.residuals(exact)
		if !exact && res.max() <= tol {
			res, obj = ip.residuals(true) // converged on the updated values: confirm
		}
		if mr := res.max(); mr < ip.bmerit {
			if mr < 0.5*ip.bmerit {
				bestIt = it
			}
			ip.bmerit = mr
			copy(ip.bx, ip.x)
			copy(ip.bs, ip.s)
			copy(ip.bz, ip.z)
			ip.res, ip.obj = res, obj
		}
		if res.Primal <= tol && res.Dual <= tol && res.Complementarity <= tol {
			break
		}
		accept := math.Max(acceptTol, ip.accept)
		if it-bestIt >= stallIters && ip.bmerit <= accept {
			// Stalled at the accuracy the normal equations allow, within the package's
			// promise: return the best iterate (its residuals are reported).
			copy(ip.x, ip.bx)
			copy(ip.s, ip.bs)
			copy(ip.z, ip.bz)
			break
		}
		if ip.warmCut > 0 && it >= ip.warmCut && ip.bmerit > warmCutMerit {
			err = ErrIterationLimit
			break
		}
		if it >= maxIter || (ip.warmCut > 0 && it >= ip.warmCut && ip.bmerit <= ip.accept) {
			if ip.bmerit <= ip.accept {
				copy(ip.x, ip.bx)
				copy(ip.s, ip.bs)
				copy(ip.z, ip.bz)
				break
			}
			err = ErrIterationLimit
			break
		}
		ip.iters++
		mu := dot(ip.s, ip.z) / m
		for i := range ip.d {
			ip.d[i] = ip.z[i] / ip.s[i]
		}
		ip.formM(ip.d)
		if !ip.factor() {
			err = ErrNumerical
			break
		}
		// predictor
		for i := range ip.rc {
			ip.rc[i] = -ip.s[i] * ip.z[i]
		}
		ip.newton(ip.rc)
		a := math.Min(maxStep(ip.s, ip.ds), maxStep(ip.z, ip.dz))
		muAff := 0.0
		for i := range ip.s {
			muAff += (ip.s[i] + a*ip.ds[i]) * (ip.z[i] + a*ip.dz[i])
		}
		muAff /= m
		sigma := math.Pow(muAff/mu, 3)
		if res.Complementarity <= tol {
			// Complementarity is done but feasibility lags: keep μ, so that z/s (the
			// conditioning of M) stops growing while the steps remove the residuals.
			sigma = 1
		}
		copy(ip.dsa, ip.ds)
		copy(ip.dza, ip.dz)
		// corrector
		for i := range ip.rc {
			ip.rc[i] = -ip.s[i]*ip.z[i] - ip.dsa[i]*ip.dza[i] + sigma*mu
		}
		ip.newton(ip.rc)
		a = math.Min(maxStep(ip.s, ip.ds), maxStep(ip.z, ip.dz))
		a = ip.centrality(a, sigma*mu)
		late = ip.gondzio > 0 && res.max() <= refineFrom
		if late {
			ip.refine()
			a = math.Min(maxStep(ip.s, ip.ds), maxStep(ip.z, ip.dz))
		}
		a = math.Min(1, 0.995*a)
		// The Newton equations give G dx = ds − rp and Gᵀdz = Q dx + rd: Gx and Gᵀz are
		// updated without a transform, and Qx with the Q dx at hand (all three recomputed
		// every exactEvery iterations).
		ip.qmul(ip.dx, ip.wn)
		for i := range ip.x {
			ip.x[i] += a * ip.dx[i]
			ip.qx[i] += a * ip.wn[i]
			ip.gtz[i] += a * (ip.wn[i] + ip.rd[i])
		}
		for i := range ip.s {
			ip.s[i] += a * ip.ds[i]
			ip.z[i] += a * ip.dz[i]
			ip.gx[i] += a * (ip.ds[i] - ip.rp[i])
		}
	}
	if err != nil {
		copy(ip.x, ip.bx)
		copy(ip.s, ip.bs)
		copy(ip.z, ip.bz)
	}
	return err
}
