package convex

import (
	"container/heap"
	"fmt"
	"math"
	"sort"
	"sync"

	"gonum.org/v1/gonum/dsp/fourier"
)

// Certificate is a certified minimum of Re G(e^{iω}) = Σ_k g(k)cos(kω) over ω ∈ [0, π].
type Certificate struct {
	// MinRe is a guaranteed lower bound on min_ω Re G (rounding errors included); it is within
	// about (4e-15·len(g) + 1.5e-13)·Σ|g(k)| of the true minimum (3e-11·Σ|g| at 20 000 taps), unless
	// branch and bound runs out of its evaluation budget (hundreds of flat minima in one
	// filter), which only loosens it.
	MinRe float64
	// Omega is where the minimum is attained (to working precision).
	Omega float64
	// Upper is Re G(Omega) as computed, so the true minimum lies in [MinRe, Upper] (up to the
	// rounding error of Upper itself).
	Upper float64
	// Passive reports MinRe ≥ 0: the filter is certified passive. A filter whose true minimum is
	// zero up to rounding (|min| below the certificate's error bound) is reported as not
	// certified rather than risk certifying a non-passive one.
	Passive bool
}

// Certify computes the certified minimum over ω ∈ [0, π] of Re G(e^{iω}) = Σ_k g(k)cos(kω).
//
// Method: with p(ω) = Re G(ω), p, p′ and p″ are evaluated on the grid ω_i = iπ/N (N ≥ 16·(len(g)−1))
// with a DCT-I and a DST-I. On each cell [a, b] around an evaluation point c, Taylor's theorem
// gives p(ω) ≥ p(c) + p′(c)t + ½p″(c)t² − M₃|t|³/6 (t = ω − c, M₃ = Σ k³|g(k)| ≥ max|p‴|), so the
// exact minimum of that quadratic over the cell, less M₃R³/6 and an explicit bound on the rounding
// error of p, p′, p″, is a rigorous lower bound on the cell. Cells whose bound is not within a few
// ulps·Σ|g| of the best value found are bisected (branch and bound) and evaluated directly; the
// best value is polished by Newton's method on p′. MinRe is the smallest bound over all leaves.
// Each open grid cell gets an equal share of the evaluation budget left (and cells left
// unresolved share the rest again), so that a filter with very many flat minima leaves every
// one of them its share.
//
// The taps are first multiplied by the power of two that brings max|g(k)| into [1, 2), an
// exact operation: the error bounds above are relative, and taps near the bottom of the
// floating-point range (subnormal numbers, where rounding errors are absolute) or near its
// top (where Σk³|g(k)| overflows) would otherwise escape them.
func Certify(g []float64) (Certificate, error) {
	if len(g) == 0 {
		return Certificate{}, fmt.Errorf("convex: Certify: no taps: %w", ErrDimension)
	}
	for k, v := range g {
		if !finite(v) {
			return Certificate{}, fmt.Errorf("convex: Certify: g(%d) = %g: %w", k, v, ErrNonFinite)
		}
	}
	c, _ := certify(g, math.Inf(-1))
	return c, nil
}

// poly holds the cosine polynomial and its constants.
type poly struct {
	g          []float64
	S, S1, S2  float64 // Σ|g|, Σk|g|, Σk²|g|
	M3         float64 // Σk³|g| ≥ max|p‴|
	eDir, eFFT float64 // relative rounding error factors of direct and FFT evaluation
}

func newPoly(g []float64) *poly {
	pl := &poly{g: g}
	for k, v := range g {
		a := math.Abs(v)
		fk := float64(k)
		pl.S += a
		pl.S1 += fk * a
		pl.S2 += fk * fk * a
		pl.M3 += fk * fk * fk * a
	}
	pl.M3 *= 1 + 1e-12
	L := float64(len(g))
	const eps = 0x1p-52
	// direct: argument rounding (kω·eps/2 ≤ Lπ/2·eps), Sincos and ≤16 rotations (≤ 70 eps),
	// summation (L eps); doubled for the quadratic-model arithmetic.
	pl.eDir = 2.2 * (2.6*L + 70) * eps
	return pl
}

// errBound is the rounding error bound on the quadratic model over a cell of half-width R.
func (pl *poly) errBound(f, R float64) float64 {
	return f * (pl.S + R*pl.S1 + R*R*pl.S2)
}

// eval computes p, p′, p″ at w directly.
func (pl *poly) eval(w float64) (p, p1, p2 float64) {
	sw, cw := math.Sincos(w)
	var c, s float64
	for k, v := range pl.g {
		if k%16 == 0 {
			s, c = math.Sincos(w * float64(k))
		} else {
			c, s = c*cw-s*sw, s*cw+c*sw
		}
		fk := float64(k)
		p += v * c
		p1 -= fk * v * s
		p2 -= fk * fk * v * c
	}
	return
}

// eval2 is eval at two points, each computed exactly as eval computes it: the rotation of
// one point is a chain of dependent multiplications, and two independent chains in one loop
// keep the multipliers busy (the branch and bound evaluates the two halves of a cell).
func (pl *poly) eval2(wa, wb float64) (pa, pa1, pa2, pb, pb1, pb2 float64) {
	swa, cwa := math.Sincos(wa)
	swb, cwb := math.Sincos(wb)
	var ca, sa, cb, sb float64
	for k, v := range pl.g {
		if k%16 == 0 {
			sa, ca = math.Sincos(wa * float64(k))
			sb, cb = math.Sincos(wb * float64(k))
		} else {
			ca, sa = ca*cwa-sa*swa, sa*cwa+ca*swa
			cb, sb = cb*cwb-sb*swb, sb*cwb+cb*swb
		}
		fk := float64(k)
		pa += v * ca
		pa1 -= fk * v * sa
		pa2 -= fk * fk * v * ca
		pb += v * cb
		pb1 -= fk * v * sb
		pb2 -= fk * fk * v * cb
	}
	return
}

type cell struct {
	a, b, c    float64
	p, p1, p2  float64
	fft        bool
	modelT     float64 // argmin of the quadratic model (offset from c)
	modelValue float64
	lb         float64 // lower(), once computed
}

// cellHeap is a min-heap of cells by lower bound (container/heap); it holds only the cells
// left when a share of the evaluation budget ran out, which is rare.
type cellHeap []cell

func (h cellHeap) Len() int           { return len(h) }
func (h cellHeap) Less(i, j int) bool { return h[i].lb < h[j].lb }
func (h cellHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *cellHeap) Push(x any)        { *h = append(*h, x.(cell)) }
func (h *cellHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// lower returns the rigorous lower bound of p over the cell and sets the model minimum.
func (cl *cell) lower(pl *poly) float64 {
	ta, tb := cl.a-cl.c, cl.b-cl.c
	q := func(t float64) float64 { return cl.p + t*(cl.p1+0.5*cl.p2*t) }
	lo, at := q(ta), ta
	if v := q(tb); v < lo {
		lo, at = v, tb
	}
	if cl.p2 > 0 {
		if t := -cl.p1 / cl.p2; t > ta && t < tb {
			if v := q(t); v < lo {
				lo, at = v, t
			}
		}
	}
	if cl.p < lo {
		lo, at = cl.p, 0
	}
	cl.modelT, cl.modelValue = at, lo
	R := math.Max(-ta, tb)
	f := pl.eDir
	if cl.fft {
		f = pl.eFFT
	}
	return lo - pl.M3*R*R*R/6 - pl.errBound(f, R)
}

var transforms struct {
	sync.Mutex
	dct map[int]*sync.Pool
	dst map[int]*sync.Pool
}

func getDCT(n int) (*fourier.DCT, func()) {
	transforms.Lock()
	if transforms.dct == nil {
		transforms.dct = map[int]*sync.Pool{}
	}
	pool := transforms.dct[n]
	if pool == nil {
		pool = &sync.Pool{New: func() any { return fourier.NewDCT(n) }}
		transforms.dct[n] = pool
	}
	transforms.Unlock()
	t := pool.Get().(*fourier.DCT)
	return t, func() { pool.Put(t) }
}

func getDST(n int) (*fourier.DST, func()) {
	transforms.Lock()
	if transforms.dst == nil {
		transforms.dst = map[int]*sync.Pool{}
	}
	pool := transforms.dst[n]
	if pool == nil {
		pool = &sync.Pool{New: func() any { return fourier.NewDST(n) }}
		transforms.dst[n] = pool
	}
	transforms.Unlock()
	t := pool.Get().(*fourier.DST)
	return t, func() { pool.Put(t) }
}

// niceSize returns the smallest 2^a·3^b·5^c ≥ n.
func niceSize(n int) int {
	best := math.MaxInt
	for p2 := 1; p2 < 2*n; p2 *= 2 {
		for p3 := p2; p3 < 2*n; p3 *= 3 {
			for p5 := p3; p5 < 2*n; p5 *= 5 {
				if p5 >= n && p5 < best {
					best = p5
				}
			}
		}
	}
	return best
}

// certify returns the certificate of g and, when thresh > −∞, the local minimizers whose
// value is below thresh (sorted by value), used by the exchange method. g must be finite.
func certify(g []float64, thresh float64) (Certificate, []float64) {
	c, ws, _ := certifyBelow(g, thresh, math.Inf(-1))
	return c, ws
}

// certifyBelow is certify, except when a local minimizer below thresh has a value below
// below ≤ thresh (as evaluated): then it returns the minimizers at once, without the branch and bound
// of the certificate, and ok = false (the Certificate is then zero). Re G is below below there,
// so the exchange method needs no certificate to know it must add rows; the branch and bound
// over the hundreds of flat minima of a filter in contact with its margin took most of the
// certificates' 18 % of an exact-mode solve at m_G = 200.
func certifyBelow(g []float64, thresh, below float64) (c Certificate, ws []float64, ok bool) {
	L := len(g)
	if L == 1 {
		return Certificate{MinRe: g[0], Omega: 0, Upper: g[0], Passive: g[0] >= 0}, nil, true
	}
	peak := 0.0
	for _, v := range g {
		peak = math.Max(peak, math.Abs(v))
	}
	if peak == 0 {
		return Certificate{Passive: true}, nil, true // Re G ≡ 0
	}
	_, e := math.Frexp(peak) // peak = f·2^e, f ∈ [0.5, 1): 2^(1−e)·peak ∈ [1, 2)
	e--
	gs := make([]float64, L)
	for k, v := range g {
		gs[k] = math.Ldexp(v, -e) // exact, but for taps below 2^(e−1022), which round
	}
	ts, bs := thresh, below
	if !math.IsInf(thresh, -1) {
		ts = math.Ldexp(thresh, -e)
	}
	if !math.IsInf(below, -1) {
		bs = math.Ldexp(below, -e)
	}
	c, ws, ok = certifyUnit(gs, ts, bs)
	if !ok {
		return Certificate{}, ws, false
	}
	// Rounding of subnormal intermediate values (scaled taps far below the peak, the halved
	// taps of the transforms, the products of direct evaluation) is absolute, at most
	// 2^-1075 per term: an allowance for every term of p, p′t and p″t²/2 (|t| ≤ π) and for
	// the rounding of the scaled taps themselves. Below 1e-300 while Σ|g| ≥ 1, it changes
	// nothing but the rigour.
	c.MinRe -= 16 * float64(L) * math.SmallestNonzeroFloat64
	c.Passive = c.MinRe >= 0
	lo := math.Ldexp(c.MinRe, e)
	if math.Ldexp(lo, -e) > c.MinRe {
		// rounded up into the subnormal range: a lower bound must round down
		lo = math.Nextafter(lo, math.Inf(-1))
	}
	c.MinRe, c.Upper = lo, math.Ldexp(c.Upper, e)
	return c, ws, true
}

// certGrid·(len(g)−1) is about the number of cells of the certificate's grid. Most of a
// certificate's time goes to the branch and bound over the cells near the hundreds of flat
// minima of a filter at its margin, each bisected until the cubic remainder M₃R³/6 of its
// half-width R is below the gap to the best value; halving R on the grid divides that term by
// 8 and saves levels of bisection, for two more transforms. With 16 instead of 8, the
// exact-mode solve of Table I at m_G = 200 took 38–40 CPU-ms instead of 46–49 (and, its
// candidate frequencies changing, 53 iterations in 4 rounds instead of 61 in 5;
// docs/BENCHMARKS.md, session 20); 32 was slower again.
const certGrid = 16

// certifyUnit is certifyBelow for taps whose largest magnitude lies in [1, 2).
func certifyUnit(g []float64, thresh, below float64) (Certificate, []float64, bool) {
	L := len(g)
	pl := newPoly(g)
	N := niceSize(max(certGrid*(L-1), 64))
	const eps = 0x1p-52
	pl.eFFT = 8 * math.Sqrt(float64(N)) * (math.Log2(float64(N)) + 1) * eps
	pl.eFFT = math.Max(pl.eFFT, pl.eDir)

	// grid values via DCT-I (size N+1) and DST-I (size N−1)
	p0 := make([]float64, N+1)
	p2 := make([]float64, N+1)
	p1 := make([]float64, N+1)
	src := make([]float64, N+1)
	dct, put := getDCT(N + 1)
	src[0] = g[0]
	for k := 1; k < L; k++ {
		src[k] = 0.5 * g[k]
	}
	dct.Transform(p0, src)
	for k := 1; k < L; k++ {
		src[k] = -0.5 * float64(k) * float64(k) * g[k]
	}
	src[0] = 0
	dct.Transform(p2, src)
	put()
	dst, put2 := getDST(N - 1)
	s1 := src[:N-1]
	for i := range s1 {
		s1[i] = 0
	}
	for k := 1; k < L; k++ {
		s1[k-1] = -0.5 * float64(k) * g[k]
	}
	dst.Transform(p1[1:N], s1)
	put2()
	p1[0], p1[N] = 0, 0

	h := math.Pi / float64(N)
	r0 := 0.5 * h
	cells := make([]cell, N+1)
	ub, wb := math.Inf(1), 0.0
	// Neighbouring cells share one computed edge, so that no ω falls between them.
	edge := func(i int) float64 { return math.Max(0, math.Min(math.Pi, (float64(i)-0.5)*h)) }
	for i := 0; i <= N; i++ {
		c := float64(i) * h
		if i == N {
			c = math.Pi
		}
		cl := cell{a: edge(i), b: edge(i + 1), c: c, p: p0[i], p1: p1[i], p2: p2[i], fft: true}
		if i == N {
			cl.b = math.Pi
		}
		cells[i] = cl
		if p0[i] < ub {
			ub, wb = p0[i], c
		}
	}
	// Newton polish of the best grid point, evaluated directly.
	polish := func(w, lo, hi float64) (float64, float64) { return pl.newtonMin(w, lo, hi, 12, false) }
	if w, p := polish(wb, math.Max(0, wb-h), math.Min(math.Pi, wb+h)); p < ub {
		ub, wb = p, w
	}
	if p, _, _ := pl.eval(wb); p > ub {
		// keep Upper a direct evaluation
		ub = p
	}

	tolGap := 2*pl.errBound(pl.eDir, 0) + 1e-14*pl.S
	lb := math.Inf(1)
	var open, cands []cell
	for i := range cells {
		cl := cells[i]
		cl.lb = cl.lower(pl)
		if thresh > math.Inf(-1) && cl.modelValue < thresh {
			cands = append(cands, cl)
		}
		if cl.lb >= ub-tolGap {
			lb = math.Min(lb, cl.lb)
			continue
		}
		open = append(open, cl)
	}
	// The local minima below thresh: the cells whose model goes below it, polished (once),
	// and the best point found; minimizers returns them sorted by value.
	type cand struct{ w, v float64 }
	var polished []cand
	vmin := math.Inf(1)
	polishCands := func() {
		if polished != nil {
			return
		}
		polished = []cand{}
		for _, cl := range cands {
			w0 := cl.c + cl.modelT
			w, v := polish(w0, math.Max(0, cl.a-h), math.Min(math.Pi, cl.b+h))
			if v < thresh {
				polished = append(polished, cand{w, v})
				vmin = math.Min(vmin, v)
			}
		}
	}
	minimizers := func() []float64 {
		polishCands()
		cs := append([]cand(nil), polished...)
		if ub < thresh {
			cs = append(cs, cand{wb, ub})
		}
		sort.Slice(cs, func(i, j int) bool { return cs[i].w < cs[j].w })
		var out []cand
		for _, c := range cs {
			if n := len(out); n > 0 && c.w-out[n-1].w < r0 {
				if c.v < out[n-1].v {
					out[n-1] = c
				}
				continue
			}
			out = append(out, c)
		}
		sort.Slice(out, func(i, j int) bool { return out[i].v < out[j].v })
		ws := make([]float64, len(out))
		for i, c := range out {
			ws[i] = c.w
		}
		return ws
	}
	if below > math.Inf(-1) {
		if polishCands(); math.Min(vmin, ub) < below {
			// Re G < below at an evaluated point: the caller adds rows, no certificate needed
			return Certificate{}, minimizers(), false
		}
	}
	// Depth first within each open cell, each with an equal share of what is left of the
	// budget: while the budget does not bind, plain depth-first refinement, the cheapest
	// order in the exchange loop of every exact-mode solve (a global best-first order cost a
	// tenth more time there). Cells whose share ran out are then refined lowest bound first
	// with what the others left. Depth first alone, in ω order, spent the whole budget on the
	// first of hundreds of flat minima and left the others at their grid bounds (MinRe ≈
	// −2e-4·Σ|g| where the true minimum was +1.25e-4·Σ|g|).
	const maxEvals = 200000
	evals := 0
	// split halves cur and evaluates the halves (updating the best value found).
	split := func(cur cell) [2]cell {
		m := 0.5 * (cur.a + cur.b)
		ch := [2]cell{{a: cur.a, b: m, c: 0.5 * (cur.a + m)}, {a: m, b: cur.b, c: 0.5 * (m + cur.b)}}
		ch[0].p, ch[0].p1, ch[0].p2, ch[1].p, ch[1].p1, ch[1].p2 = pl.eval2(ch[0].c, ch[1].c)
		for i := range ch {
			c := ch[i]
			evals++
			if c.p < ub {
				ub, wb = c.p, c.c
			}
			c.lb = c.lower(pl)
			ch[i] = c
		}
		return ch
	}
	done := func(cl cell) bool { return cl.lb >= ub-tolGap || cl.b-cl.a < 1e-13 }
	var late cellHeap
	stack := make([]cell, 0, 64)
	for i, cl := range open {
		budget := evals + (maxEvals-evals)/(len(open)-i)
		stack = append(stack[:0], cl)
		for len(stack) > 0 {
			cur := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			switch {
			case done(cur):
				lb = math.Min(lb, cur.lb)
			case evals >= budget:
				late = append(late, cur)
			default:
				ch := split(cur)
				stack = append(stack, ch[0], ch[1])
			}
		}
	}
	heap.Init(&late)
	for late.Len() > 0 {
		cur := heap.Pop(&late).(cell)
		if done(cur) || evals >= maxEvals {
			lb = math.Min(lb, cur.lb)
			if !done(cur) {
				break // every cell left has a bound ≥ cur.lb
			}
			continue
		}
		ch := split(cur)
		heap.Push(&late, ch[0])
		heap.Push(&late, ch[1])
	}
	cert := Certificate{MinRe: math.Min(lb, ub), Omega: wb, Upper: ub}
	cert.Passive = cert.MinRe >= 0
	if thresh == math.Inf(-1) {
		return cert, nil, true
	}
	return cert, minimizers(), true
}

// newtonMin runs Newton's method on p′ from w inside [lo, hi], for at most maxIt steps, while p
// is convex there and each step lowers p; it returns the last point and its value. A step
// leaving [lo, hi] is clamped to it (clamp) or ends the iteration.
func (pl *poly) newtonMin(w, lo, hi float64, maxIt int, clamp bool) (float64, float64) {
	p, d1, d2 := pl.eval(w)
	for it := 0; it < maxIt && d2 > 0; it++ {
		wn := w - d1/d2
		if clamp {
			wn = math.Min(hi, math.Max(lo, wn))
		} else if wn < lo || wn > hi {
			break
		}
		pn, n1, n2 := pl.eval(wn)
		if pn > p {
			break
		}
		step := math.Abs(wn - w)
		w, p, d1, d2 = wn, pn, n1, n2
		if step < 1e-15 {
			break
		}
	}
	return w, p
}
