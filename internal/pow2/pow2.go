// Package pow2 rounds scale factors to powers of two. Multiplying a float64 by a power of two
// is exact (short of overflow and the subnormal range), so data, problems and models rescaled
// by one, and back, carry no rounding error: the trainer's automatic data scaling and the
// convex solver's unit normalization rely on it.
package pow2

import "math"

// NearestRatio returns the power of two nearest num/den in ratio, 2^round(log2 num − log2 den),
// clamped to the normal range [2^-1022, 2^1023], computed without forming num/den (which may
// overflow). It returns 1 when num or den is not a positive finite number.
func NearestRatio(num, den float64) float64 {
	if !(num > 0) || !(den > 0) || math.IsInf(num, 0) || math.IsInf(den, 0) {
		return 1
	}
	e := math.Round(math.Log2(num) - math.Log2(den))
	return math.Ldexp(1, int(math.Max(-1022, math.Min(1023, e))))
}

// Scale returns a copy of x with every element multiplied by f (nil for nil); exact when f is a
// power of two.
func Scale(x []float64, f float64) []float64 {
	if x == nil {
		return nil
	}
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = v * f
	}
	return out
}
