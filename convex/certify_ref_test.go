package convex

// An independent high-precision reference for min_ω Σ g_k cos(kω), against which
// certify_audit_test.go checks Certify: it shares no code with it.
//
// Method: candidate brackets from a dense float64 scan (p and p′ on M+1 points,
// M ≥ 40·(L−1), direct evaluation for small L, a separate DCT for large L), float64
// bisection on p′ to rank candidates, then 256-bit refinement in x = cos ω:
// p(x) = Σ g_k T_k(x), dp/dx = Σ k g_k U_{k−1}(x), bisection on dp/dx, value at the root.
// The ends x = ±1 (ω = 0, π) are evaluated exactly in big precision.

import (
	"math"
	"math/big"
	"sort"

	"gonum.org/v1/gonum/dsp/fourier"
)

const refPrec = 256

type bigPoly struct {
	g []*big.Float
	// scratch
	t0, t1, t2, u0, u1, u2, x2, tmp, p, dp *big.Float
}

func nb() *big.Float { return new(big.Float).SetPrec(refPrec) }

func newBigPoly(g []float64) *bigPoly {
	bp := &bigPoly{}
	for _, v := range g {
		bp.g = append(bp.g, nb().SetFloat64(v))
	}
	bp.t0, bp.t1, bp.t2, bp.u0, bp.u1, bp.u2 = nb(), nb(), nb(), nb(), nb(), nb()
	bp.x2, bp.tmp, bp.p, bp.dp = nb(), nb(), nb(), nb()
	return bp
}

// evalX returns p(x) and dp/dx (copies).
func (bp *bigPoly) evalX(x *big.Float) (*big.Float, *big.Float) {
	L := len(bp.g)
	// T_0 = 1, T_1 = x; U_0 = 1, U_1 = 2x
	bp.t0.SetInt64(1)
	bp.t1.Set(x)
	bp.u0.SetInt64(1)
	bp.x2.Mul(x, big.NewFloat(2))
	bp.u1.Set(bp.x2)
	bp.p.Set(bp.g[0])
	bp.dp.SetInt64(0)
	if L > 1 {
		bp.tmp.Mul(bp.g[1], bp.t1)
		bp.p.Add(bp.p, bp.tmp)
		bp.dp.Add(bp.dp, bp.g[1]) // 1*g1*U0
	}
	fk := nb()
	for k := 2; k < L; k++ {
		// T_k = 2x T_{k-1} − T_{k-2}
		bp.t2.Mul(bp.x2, bp.t1)
		bp.t2.Sub(bp.t2, bp.t0)
		bp.t0, bp.t1, bp.t2 = bp.t1, bp.t2, bp.t0
		if bp.g[k].Sign() != 0 {
			bp.tmp.Mul(bp.g[k], bp.t1)
			bp.p.Add(bp.p, bp.tmp)
			// k g_k U_{k−1}: U_{k-1} is bp.u1
			fk.SetInt64(int64(k))
			bp.tmp.Mul(bp.g[k], bp.u1)
			bp.tmp.Mul(bp.tmp, fk)
			bp.dp.Add(bp.dp, bp.tmp)
		}
		// advance U: U_k = 2x U_{k-1} − U_{k-2}
		bp.u2.Mul(bp.x2, bp.u1)
		bp.u2.Sub(bp.u2, bp.u0)
		bp.u0, bp.u1, bp.u2 = bp.u1, bp.u2, bp.u0
	}
	return nb().Set(bp.p), nb().Set(bp.dp)
}

// bigCos returns cos(w) to about 2^-250 relative (Taylor series; w in [0, π]).
func bigCos(w float64) *big.Float {
	// reduce: cos(w) via w/2^8 then double-angle 8 times
	x := nb().SetFloat64(w)
	x.SetMantExp(x, -8)
	x2 := nb().Mul(x, x)
	sum := nb().SetInt64(1)
	term := nb().SetInt64(1)
	for n := 1; n < 40; n++ {
		term.Mul(term, x2)
		term.Quo(term, nb().SetInt64(int64((2*n-1)*(2*n))))
		term.Neg(term)
		sum.Add(sum, term)
	}
	two := nb().SetInt64(2)
	one := nb().SetInt64(1)
	for i := 0; i < 8; i++ { // cos 2a = 2cos²a − 1
		sum.Mul(sum, sum)
		sum.Mul(sum, two)
		sum.Sub(sum, one)
	}
	return sum
}

// f64 direct evaluation of p and p′ at w (for the scan and float refinement).
func f64eval(g []float64, w float64) (p, p1 float64) {
	for k, v := range g {
		s, c := math.Sincos(float64(k) * w)
		p += v * c
		p1 -= float64(k) * v * s
	}
	return
}

type refResult struct {
	Min       *big.Float
	Omega     float64
	Unbracket int // candidates whose big bracket had no sign change (fell back to ends)
	Cands     int
	FromUnbr  bool // the minimum came from an unbracketed candidate (upper estimate)
}

// refMin computes the true minimum of p over [0, π] to ~2^-200·S.
func refMin(g []float64) refResult {
	L := len(g)
	bp := newBigPoly(g)
	one := nb().SetInt64(1)
	pa, _ := bp.evalX(one)
	best := pa
	bestW := 0.0
	pb, _ := bp.evalX(nb().SetInt64(-1))
	if pb.Cmp(best) < 0 {
		best, bestW = pb, math.Pi
	}
	if L <= 2 {
		return refResult{Min: best, Omega: bestW}
	}
	// the float64 stage works on g scaled exactly by a power of two (max |g| in [1, 2))
	amax := 0.0
	for _, v := range g {
		amax = math.Max(amax, math.Abs(v))
	}
	if amax > 0 {
		_, e := math.Frexp(amax)
		gs := make([]float64, L)
		for k, v := range g {
			gs[k] = math.Ldexp(v, 1-e)
		}
		g = gs
	}
	S := 0.0
	for _, v := range g {
		S += math.Abs(v)
	}
	M := 1
	for M < 40*(L-1) {
		M *= 2
	}
	if M < 4096 {
		M = 4096
	}
	h := math.Pi / float64(M)
	P := make([]float64, M+1)
	D := make([]float64, M+1)
	if L <= 400 {
		for j := 0; j <= M; j++ {
			P[j], D[j] = f64eval(g, float64(j)*h)
		}
	} else {
		dct := fourier.NewDCT(M + 1)
		src := make([]float64, M+1)
		src[0] = g[0]
		for k := 1; k < L; k++ {
			src[k] = 0.5 * g[k]
		}
		dct.Transform(P, src)
		dst := fourier.NewDST(M - 1)
		s1 := make([]float64, M-1)
		for k := 1; k < L; k++ {
			s1[k-1] = -0.5 * float64(k) * g[k]
		}
		dst.Transform(D[1:M], s1)
	}
	// candidate brackets [j, j+1] where p′ goes from ≤0 to ≥0, and discrete local minima
	type br struct {
		a, b int
		v    float64
	}
	var cands []br
	for j := 0; j < M; j++ {
		if D[j] <= 0 && D[j+1] >= 0 {
			cands = append(cands, br{j, j + 1, math.Min(P[j], P[j+1])})
		}
	}
	for j := 1; j < M; j++ {
		if P[j] <= P[j-1] && P[j] <= P[j+1] {
			cands = append(cands, br{j - 1, j + 1, P[j]})
		}
	}
	pmin := math.Inf(1)
	for _, c := range cands {
		pmin = math.Min(pmin, c.v)
	}
	S2 := 0.0
	for k, v := range g {
		S2 += float64(k*k) * math.Abs(v)
	}
	margin := S2*h*h + 1e-9*S
	// float64 refinement of each candidate within margin
	type fc struct {
		a, b float64
		w, v float64
	}
	var fcs []fc
	seen := map[int]bool{}
	for _, c := range cands {
		if c.v > pmin+margin || seen[c.a*2+c.b-c.a-1] {
			continue
		}
		seen[c.a*2+c.b-c.a-1] = true
		a, b := float64(c.a)*h, float64(c.b)*h
		lo, hi := a, b
		_, da := f64eval(g, lo)
		_, db := f64eval(g, hi)
		var w float64
		if da <= 0 && db >= 0 {
			for it := 0; it < 60 && hi-lo > 1e-17; it++ {
				m := 0.5 * (lo + hi)
				_, dm := f64eval(g, m)
				if dm < 0 {
					lo = m
				} else {
					hi = m
				}
			}
			w = 0.5 * (lo + hi)
		} else {
			// golden section
			for it := 0; it < 80; it++ {
				m1 := lo + 0.382*(hi-lo)
				m2 := lo + 0.618*(hi-lo)
				p1, _ := f64eval(g, m1)
				p2, _ := f64eval(g, m2)
				if p1 < p2 {
					hi = m2
				} else {
					lo = m1
				}
			}
			w = 0.5 * (lo + hi)
		}
		v, _ := f64eval(g, w)
		fcs = append(fcs, fc{a, b, w, v})
	}
	sort.Slice(fcs, func(i, j int) bool { return fcs[i].v < fcs[j].v })
	res := refResult{Min: best, Omega: bestW}
	for i, c := range fcs {
		if c.v > fcs[0].v+1e-9*S+1e-300 || i >= 24 {
			break
		}
		res.Cands++
		// big refinement in x. x decreasing in ω: xa = cos(b) < xb = cos(a).
		xa, xb := bigCos(c.b), bigCos(c.a)
		pA, dA := bp.evalX(xa)
		pB, dB := bp.evalX(xb)
		var xm, pm *big.Float
		unbr := false
		if dA.Sign() <= 0 && dB.Sign() >= 0 {
			lo, hi := xa, xb
			stop := nb().Sub(hi, lo)
			stop.SetMantExp(stop, -110)
			for it := 0; it < 200; it++ {
				if w := nb().Sub(hi, lo); w.Cmp(stop) < 0 {
					break
				}
				m := nb().Add(lo, hi)
				m.SetMantExp(m, -1)
				_, dm := bp.evalX(m)
				if dm.Sign() < 0 {
					lo = m
				} else {
					hi = m
				}
			}
			xm = nb().Add(lo, hi)
			xm.SetMantExp(xm, -1)
			pm, _ = bp.evalX(xm)
		} else {
			res.Unbracket++
			unbr = true
			xm, pm = xa, pA
			if pB.Cmp(pm) < 0 {
				xm, pm = xb, pB
			}
			// also the float refined point
			xw := bigCos(c.w)
			if pw, _ := bp.evalX(xw); pw.Cmp(pm) < 0 {
				xm, pm = xw, pw
			}
		}
		if pm.Cmp(res.Min) < 0 {
			xf, _ := xm.Float64()
			res.Min, res.Omega = pm, math.Acos(math.Max(-1, math.Min(1, xf)))
			res.FromUnbr = unbr
		}
	}
	if res.FromUnbr {
		refFromUnbr++
	}
	refCalls++
	return res
}

var refFromUnbr, refCalls int

// bigOf returns the exact value of f as a big.Float.
func bigOf(f float64) *big.Float { return nb().SetFloat64(f) }

// diffF returns a − b as float64 (rounded).
func diffF(a, b *big.Float) float64 {
	d := nb().Sub(a, b)
	f, _ := d.Float64()
	return f
}
