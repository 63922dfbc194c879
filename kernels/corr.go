package kernels

import (
	"math"

	"gonum.org/v1/gonum/floats"
)

// fastCorr selects corrFMA for corr. It is a variable so that the tests and
// benchmarks can run the previous path (corrAxpy) beside it.
var fastCorr = haveFMA

// corr computes the valid correlation dst[t] = Σ_i h[i] x[t+i] for
// t < len(dst); x must hold len(dst)+len(h)−1 entries and must not overlap
// dst. Both convolutions of the bank reduce to it once the signals are in the
// branch-major padded scratch (see doc.go).
//
// On amd64 with AVX2 and FMA it is corrFMA (measured 3–4× faster than the
// AXPYs at T = 250, m = 50); otherwise corrAxpy. The two differ only in
// rounding: corrFMA rounds once per tap, corrAxpy twice.
func corr(dst, h, x []float64) {
	if len(x) < len(dst)+len(h)-1 {
		panic("kernels: corr: x too short")
	}
	if fastCorr {
		corrFMA(dst, h, x)
		return
	}
	corrAxpy(dst, h, x)
}

// corrAxpy runs tap by tap as len(h) AXPYs of length len(dst) (gonum's SSE2
// assembly): about 5 GMAC/s for T = 250, m = 50 on the 2-core machine,
// against about 4 GMAC/s for one dot product per output and for a
// 4-output register-blocked Go loop. It is the path on machines without FMA.
func corrAxpy(dst, h, x []float64) {
	T := len(dst)
	if len(h) == 0 {
		clear(dst)
		return
	}
	floats.ScaleTo(dst, h[0], x[:T])
	for i := 1; i < len(h); i++ {
		floats.AddScaled(dst, h[i], x[i:i+T])
	}
}

// corrFMA is corr with every output accumulated in tap order by fused
// multiply-adds from 0: dst[t] = fma(h[m−1], x[t+m−1], … fma(h[0], x[t], 0)).
// Outputs are computed 32 at a time in registers (corr32FMA), so x is
// loaded once per tap and block instead of dst being loaded and stored per
// tap; a trailing partial block is recomputed as the last 32 outputs, which
// gives the same values. corrFMAGo is its bit-exact Go reference, also the
// path for fewer than 32 outputs.
func corrFMA(dst, h, x []float64) {
	T, m := len(dst), len(h)
	if m == 0 {
		clear(dst)
		return
	}
	if T < 32 {
		corrFMAGo(dst, h, x)
		return
	}
	_ = x[T+m-2]
	blocks := T / 32
	corr32FMA(&dst[0], &h[0], &x[0], blocks, m)
	if T%32 != 0 {
		corr32FMA(&dst[T-32], &h[0], &x[T-32], 1, m)
	}
}

// corrFMAGo is corrFMA in plain Go (math.FMA), bit for bit.
func corrFMAGo(dst, h, x []float64) {
	for t := range dst {
		s := 0.0
		xt := x[t : t+len(h)]
		for i, hv := range h {
			s = math.FMA(hv, xt[i], s)
		}
		dst[t] = s
	}
}
