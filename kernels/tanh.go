package kernels

import "math"

// fastTanh selects tanh4Fast (tanhFast, a few ulp from math.Tanh) in
// tanhTo; exactTanh selects tanh4FMA, which is math.Tanh bit for bit, when
// fastTanh is off. exactTanh is set only where the vector kernel reproduces
// math.Tanh on a fixed set of probes (its exp is math's FMA path, which math
// takes where AVX and FMA exist, and the probes would catch a toolchain that
// evaluated math.Tanh otherwise). Variables, so that the tests and the A/B
// benchmarks run every path.
var (
	fastTanh  = haveFMA
	exactTanh = haveFMA && tanhProbe()
	wideTanh  = haveAVX512 // tanh8Fast for tanhFast where AVX-512 exists
)

// tanhTo sets dst[i] = tanh(x[i]) (tanhFast with AVX2 and FMA, math.Tanh
// otherwise); dst may equal x.
func tanhTo(dst, x []float64) {
	n := len(x)
	dst = dst[:n]
	i := 0
	if n >= 4 {
		switch {
		case fastTanh:
			if wideTanh && n >= 8 {
				tanh8Fast(&dst[0], &x[0], n/8)
				i = n &^ 7
			}
			if i+4 <= n {
				tanh4Fast(&dst[i], &x[i], (n-i)/4)
				i = n &^ 3
			}
		case exactTanh:
			tanh4FMA(&dst[0], &x[0], n/4)
			i = n &^ 3
		}
	}
	if fastTanh {
		for ; i < n; i++ {
			dst[i] = tanhFast(x[i])
		}
		return
	}
	for ; i < n; i++ {
		dst[i] = math.Tanh(x[i])
	}
}

// TanhExact sets dst[i] = math.Tanh(x[i]), bit for bit: four lanes at a
// time with AVX2 and FMA where the vector kernel reproduces math.Tanh on the
// probes (exactTanh), one at a time otherwise; dst may equal x. It is for
// code outside the graph whose outputs must not depend on the machine (the
// loops of package loop, whose Stepper and C export evaluate tanh one value
// at a time), where tanhTo's fast path would move them by a few ulp.
func TanhExact(dst, x []float64) {
	n := len(x)
	dst = dst[:n]
	i := 0
	if exactTanh && n >= 4 {
		tanh4FMA(&dst[0], &x[0], n/4)
		i = n &^ 3
	}
	for ; i < n; i++ {
		dst[i] = math.Tanh(x[i])
	}
}

// tanhProbes covers both branches of math.Tanh, their boundaries, the
// saturation, signed zeros, infinities, NaN and subnormals.
func tanhProbes() []float64 {
	p := []float64{0, math.Copysign(0, -1), 5e-324, -5e-324, 1e-300, 1e-8, 0.1, 0.5,
		math.Nextafter(0.625, 0), 0.625, math.Nextafter(0.625, 1), 0.7, 1, 2, 3.5, 10, 19, 20, 22,
		math.Nextafter(44.014845965556525, 0), 44.014845965556525, math.Nextafter(44.014845965556525, 100),
		50, 1e300, math.Inf(1), math.NaN()}
	for _, v := range p[:len(p)-1] {
		p = append(p, -v)
	}
	// A sweep through the working range.
	for x := -8.0; x <= 8; x += 1.0/64 + 1e-9 {
		p = append(p, x)
	}
	for len(p)%4 != 0 {
		p = append(p, 0.3)
	}
	return p
}

func tanhProbe() bool {
	p := tanhProbes()
	got := make([]float64, len(p))
	tanh4FMA(&got[0], &p[0], len(p)/4)
	for i, x := range p {
		if math.Float64bits(got[i]) != math.Float64bits(math.Tanh(x)) {
			return false
		}
	}
	return true
}
