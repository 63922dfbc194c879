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
// 1 ∓ 2^k are exact (k ≥ −58), so for k = 0 (|x| < 0.17) the numerator is −p
// exactly and the result keeps its relative accuracy down to the subnormals;
// Taylor's first omitted term, r^14/14!, is below 2^−56·|r|. The sign of x is
// put back last, so ±0 → ±0, ±Inf → ±1 and NaN → NaN.
func tanhFast(x float64) float64 {
	a := math.Abs(x)
	if 20 < a { // as VMINPD: a NaN stays
		a = 20
	}
	r := -2 * a
	const magic = 0x1.8p52
	kk := float64(r*math.Log2E) + magic // the low bits of kk hold k = round(−2a·log2e)
	kf := kk - magic
	r = math.FMA(-kf, ln2Hi, r)
	r = math.FMA(-kf, ln2Lo, r)
	r2 := r * r
	q := expm1C[0]
	for _, c := range expm1C[1:] {
		q = math.FMA(r, q, c)
	}
	p := math.FMA(r2, q, r)
	twok := math.Float64frombits((math.Float64bits(kk) + 1023) << 52)
	num := math.FMA(-twok, p, 1-twok)
	den := math.FMA(twok, p, 1+twok)
	t := num / den
	return math.Float64frombits(math.Float64bits(t) | math.Float64bits(x)&(1<<63))
}

// ln2 in two parts, as in package math's exp: k·ln2Hi is exact for |k| < 2^20.
const (
	ln2Hi = 6.93147180369123816490e-01
	ln2Lo = 1.90821492927058770002e-10
)

// expm1C are 1/13!, 1/12!, …, 1/2! (Horner order), as tanhfast_amd64.s has them.
var expm1C = func() []float64 {
	c := make([]float64, 12)
	f := 1.0
	for n := 1; n <= 13; n++ {
		f *= float64(n)
		if n >= 2 {
			c[13-n] = 1 / f
		}
	}
	return c
}()
