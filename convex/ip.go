package convex

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// ipBlock is the working set of one constrained block inside the interior-point method.
// Rows, in order: frequency rows Σ_k 2cos(ω_i k)·g(k) ≥ rhs (i < len(omega)), then, when ub is
// not nil, upper rows −g(k) ≥ −ub[k] and lower rows g(k) ≥ −ub[k] (k < L).
type ipBlock struct {
	off, L int
	omega  []float64
	tab    []float64 // len(omega) × (2L−1): cos(ω_i·m), m = 0..2L−2
	rhs    float64
	ub     []float64
	row0   int
}

func (b *ipBlock) nrows() int {
	n := len(b.omega)
	if b.ub != nil {
		n += 2 * b.L
	}
	return n
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

func (b *ipBlock) buildTab() {
	w := 2*b.L - 1
	if cap(b.tab) >= len(b.omega)*w {
		b.tab = b.tab[:len(b.omega)*w]
	} else {
		b.tab = make([]float64, len(b.omega)*w)
	}
	for i, om := range b.omega {
		cosTable(b.tab[i*w:(i+1)*w], om)
	}
}

// ipSolver is a Mehrotra predictor-corrector interior-point method for
// min ½xᵀQx − bᵀx s.t. Gx ≥ h, with G block structured as described by ipBlock.
// The Newton matrix Q + GᵀDG is formed blockwise: for the frequency rows of a block,
// Σ_i d_i a_i a_iᵀ with a_i(k) = 2cos(ω_i k) has entries 2[c(k−l) + c(k+l)],
// c(m) = Σ_i d_i cos(ω_i m) (Toeplitz plus Hankel); bounds add a diagonal.
type ipSolver struct {
	n, m   int
	Q      *mat.SymDense
	b      []float64
	blocks []*ipBlock
	h      []float64

	x, s, z []float64

	rd, rp, dx, ds, dz, dsa, dza, rc, d, wm, wn, qx, gx []float64
	cbuf                                                []float64
	M                                                   *mat.SymDense
	chol                                                mat.Cholesky
	hnorm, bnorm                                        float64

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
	ip.M = mat.NewSymDense(n, nil)
	ip.x = make([]float64, n)
	ip.rd = make([]float64, n)
	ip.dx = make([]float64, n)
	ip.wn = make([]float64, n)
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
	grow := func(v []float64) []float64 {
		if cap(v) >= m {
			return v[:m]
		}
		return make([]float64, m)
	}
	ip.h = grow(ip.h)
	ip.s = grow(ip.s)
	ip.z = grow(ip.z)
	ip.rp = grow(ip.rp)
	ip.ds = grow(ip.ds)
	ip.dz = grow(ip.dz)
	ip.dsa = grow(ip.dsa)
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
	}
	ip.hnorm = normInf(ip.h)
}

// mulG computes out = G x.
func (ip *ipSolver) mulG(x, out []float64) {
	for _, bl := range ip.blocks {
		L := bl.L
		w := 2*L - 1
		g := x[bl.off : bl.off+L]
		o := out[bl.row0:]
		for i := range bl.omega {
			t := bl.tab[i*w : i*w+L]
			s := 0.0
			for k, v := range g {
				s += t[k] * v
			}
			o[i] = 2 * s
		}
		if bl.ub != nil {
			nf := len(bl.omega)
			for k, v := range g {
				o[nf+k] = -v
				o[nf+L+k] = v
			}
		}
	}
}

// mulGT computes out = Gᵀ z (out has length n and is overwritten).
func (ip *ipSolver) mulGT(z, out []float64) {
	for i := range out {
		out[i] = 0
	}
	for _, bl := range ip.blocks {
		L := bl.L
		w := 2*L - 1
		o := out[bl.off : bl.off+L]
		zz := z[bl.row0:]
		for i := range bl.omega {
			t := bl.tab[i*w : i*w+L]
			zi := 2 * zz[i]
			for k := range o {
				o[k] += zi * t[k]
			}
		}
		if bl.ub != nil {
			nf := len(bl.omega)
			for k := range o {
				o[k] += zz[nf+L+k] - zz[nf+k]
			}
		}
	}
}

// formM sets M = Q + Gᵀ diag(d) G.
func (ip *ipSolver) formM(d []float64) {
	n := ip.n
	src := ip.Q.RawSymmetric()
	dst := ip.M.RawSymmetric()
	for i := 0; i < n; i++ {
		copy(dst.Data[i*dst.Stride+i:i*dst.Stride+n], src.Data[i*src.Stride+i:i*src.Stride+n])
	}
	for _, bl := range ip.blocks {
		L := bl.L
		w := 2*L - 1
		c := ip.cbuf[:w]
		for i := range c {
			c[i] = 0
		}
		dd := d[bl.row0:]
		for i := range bl.omega {
			di := dd[i]
			t := bl.tab[i*w : (i+1)*w]
			for m, v := range t {
				c[m] += di * v
			}
		}
		nf := len(bl.omega)
		for k := 0; k < L; k++ {
			row := dst.Data[(bl.off+k)*dst.Stride+bl.off:]
			if nf > 0 {
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

// factor factorizes M, adding a growing multiple of the identity if needed.
func (ip *ipSolver) factor() bool {
	if ip.chol.Factorize(ip.M) {
		return true
	}
	raw := ip.M.RawSymmetric()
	tr := 0.0
	for i := 0; i < ip.n; i++ {
		tr = math.Max(tr, math.Abs(raw.Data[i*raw.Stride+i]))
	}
	if tr == 0 {
		tr = 1
	}
	reg := 1e-14 * tr
	for try := 0; try < 8; try++ {
		for i := 0; i < ip.n; i++ {
			raw.Data[i*raw.Stride+i] += reg
		}
		if ip.chol.Factorize(ip.M) {
			return true
		}
		reg *= 100
	}
	return false
}

// solveM solves M v = v in place.
func (ip *ipSolver) solveM(v []float64) {
	vv := mat.NewVecDense(len(v), v)
	_ = ip.chol.SolveVecTo(vv, vv)
}

// qmul computes out = Q x.
func (ip *ipSolver) qmul(x, out []float64) {
	blas64.Symv(1, ip.Q.RawSymmetric(), blas64.Vector{N: ip.n, Inc: 1, Data: x}, 0, blas64.Vector{N: ip.n, Inc: 1, Data: out})
}

var _ = blas.Upper

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
	ts := 1e-3 * (1 + ip.hnorm)
	zmax := normInf(ip.z)
	ip.qmul(ip.x, ip.qx)
	zs := math.Max(zmax, 1e-3*(1+math.Max(ip.bnorm, normInf(ip.qx))))
	tz := 1e-3 * zs
	mu := ts * tz
	for i := range ip.s {
		s, z := ip.s[i], ip.z[i]
		if s < ts {
			s = ts
		}
		if z < mu/s {
			z = mu / s
		}
		ip.s[i], ip.z[i] = s, z
	}
}

// residuals computes rd, rp at the current iterate and returns the relative residuals.
func (ip *ipSolver) residuals() (Residuals, float64) {
	ip.qmul(ip.x, ip.qx)
	ip.mulG(ip.x, ip.gx)
	ip.mulGT(ip.z, ip.wn)
	for i := range ip.rd {
		ip.rd[i] = ip.qx[i] - ip.b[i] - ip.wn[i]
	}
	for i := range ip.rp {
		ip.rp[i] = ip.gx[i] - ip.s[i] - ip.h[i]
	}
	obj := 0.5*dot(ip.x, ip.qx) - dot(ip.b, ip.x)
	sz := dot(ip.s, ip.z)
	r := Residuals{
		Primal:          normInf(ip.rp) / (1 + ip.hnorm),
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
		ip.res, ip.obj = ip.residuals()
		return nil
	}
	m := float64(ip.m)
	var err error
	for it := 0; ; it++ {
		res, obj := ip.residuals()
		if mr := res.max(); mr < ip.bmerit {
			ip.bmerit = mr
			copy(ip.bx, ip.x)
			copy(ip.bs, ip.s)
			copy(ip.bz, ip.z)
			ip.res, ip.obj = res, obj
		}
		if res.Primal <= tol && res.Dual <= tol && res.Complementarity <= tol {
			break
		}
		if it >= maxIter {
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
		copy(ip.dsa, ip.ds)
		copy(ip.dza, ip.dz)
		// corrector
		for i := range ip.rc {
			ip.rc[i] = -ip.s[i]*ip.z[i] - ip.dsa[i]*ip.dza[i] + sigma*mu
		}
		ip.newton(ip.rc)
		a = math.Min(maxStep(ip.s, ip.ds), maxStep(ip.z, ip.dz))
		a = math.Min(1, 0.995*a)
		for i := range ip.x {
			ip.x[i] += a * ip.dx[i]
		}
		for i := range ip.s {
			ip.s[i] += a * ip.ds[i]
			ip.z[i] += a * ip.dz[i]
		}
	}
	if err != nil {
		copy(ip.x, ip.bx)
		copy(ip.s, ip.bs)
		copy(ip.z, ip.bz)
	}
	return err
}
