package kernels

import "math"

// tanhFast is the tanh of the training kernels on machines with AVX2 and FMA
// (tanh4Fast is it four lanes at a time, bit for bit). It is not math.Tanh:
// it agrees with it to a few ulp (TestTanhFast measures the largest
// difference over millions of seeded arguments), but it has one branch for
// every argument and one division, where math.Tanh has two branches (a
// vector version must compute both) and each ends in a division. math.Tanh
// stays the reference and the noasm path, and tanh4FMA its bit-exact vector
// version (fastTanh = false).
//
// With a = min(|x|, 20) (tanh(20) rounds to 1) and the reduction
// −2a = k·ln2 + r, |r| ≤ ln2/2:
//
//	expm1(−2a) = 2^k (1 + p) − 1,  p = expm1(r) = r + r²(1/2! + r/3! + … + r^11/13!)
//	tanh(a)    = −expm1(−2a)/(2 + expm1(−2a)) = (1 − 2^k − 2^k p)/(1 + 2^k + 2^k p)
//
// with the polynomial by Estrin's scheme (expm1Poly). 1 ∓ 2^k are exact
// (k ≥ −58), so for k = 0 (|x| < 0.17) the numerator is −p
// exactly and the result keeps its relative accuracy down to the subnormals;
// Taylor's first omitted term, r^14/14!, is below 2^−56·|r|. The sign of x is
// put back last, so ±0 → ±0, ±Inf → ±1 and NaN → NaN.
func tanhFast(x float64) float64 {
	a := math.Abs(x)
	if 20 < a { // as VMINPD: a NaN stays
		a = 20
	}
	const magic = 0x1.8p52
	// k's rounding does not wait for −2a: a·(−2·log2e) is (−2a)·log2e bit
	// for bit (the factor 2 is exact).
	kk := float64(a*(-2*math.Log2E)) + magic // the low bits of kk hold k = round(−2a·log2e)
	kf := kk - magic
	r := math.FMA(-kf, ln2Hi, -2*a)
	r = math.FMA(-kf, ln2Lo, r)
	p := expm1Poly(r)
	twok := math.Float64frombits((math.Float64bits(kk) + 1023) << 52)
	num := math.FMA(-twok, p, 1-twok)
	den := math.FMA(twok, p, 1+twok)
	t := num / den
	return math.Float64frombits(math.Float64bits(t) | math.Float64bits(x)&(1<<63))
}

// expm1Poly is r + r²·q(r), q = Σ_{i<12} c_i r^i with c_i = 1/(i+2)!,
// evaluated by Estrin's scheme: pairs c_{2j} + c_{2j+1}·r, then pairs of
// those with r², with r⁴, and the last with r⁸. Its dependency chain is
// five FMAs deep where Horner's is twelve; tanh4Fast runs one chain per
// block of four and is bound by its latency, not by its operations.
func expm1Poly(r float64) float64 {
	c := &expm1C
	r2 := r * r
	r4 := r2 * r2
	r8 := r4 * r4
	e0 := math.FMA(c[1], r, c[0])
	e1 := math.FMA(c[3], r, c[2])
	e2 := math.FMA(c[5], r, c[4])
	e3 := math.FMA(c[7], r, c[6])
	e4 := math.FMA(c[9], r, c[8])
	e5 := math.FMA(c[11], r, c[10])
	f0 := math.FMA(e1, r2, e0)
	f1 := math.FMA(e3, r2, e2)
	f2 := math.FMA(e5, r2, e4)
	q := math.FMA(f2, r8, math.FMA(f1, r4, f0))
	return math.FMA(r2, q, r)
}

// ln2 in two parts, as in package math's exp: k·ln2Hi is exact for |k| < 2^20.
const (
	ln2Hi = 6.93147180369123816490e-01
	ln2Lo = 1.90821492927058770002e-10
)

// expm1C are 1/2!, 1/3!, …, 1/13! (c_i = 1/(i+2)!), as tanhfast_amd64.s
// has them.
var expm1C = func() (c [12]float64) {
	f := 1.0
	for n := 1; n <= 13; n++ {
		f *= float64(n)
		if n >= 2 {
			c[n-2] = 1 / f
		}
	}
	return c
}()
