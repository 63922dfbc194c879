package loop

import (
	"math"
	"math/cmplx"

	"gonum.org/v1/gonum/dsp/fourier"
)

// Factor returns factors f, len(g) of them, whose Taps approximate the taps
// g of a passive FIR (Re G ≥ 0): the minimum-phase spectral factor of
// R(ω) = g(0)/(1/2 + Margin) + 2 Σ_k≥1 g(k) cos(kω) by the cepstral method
// on a grid of at least 32·len(g) frequencies. It lets a loop start from a
// FIR fitted by the convex solver; the result is exact up to the spectral
// factor's truncation and the floor put under R where it vanishes, and
// Taps(f) is passive whatever the accuracy.
func Factor(g []float64) []float64 {
	m := len(g)
	if m == 0 {
		return nil
	}
	n := 64
	for n < 32*m {
		n *= 2
	}
	fft := fourier.NewCmplxFFT(n)
	seq := make([]complex128, n)
	seq[0] = complex(g[0]/(0.5+Margin), 0)
	for k := 1; k < m; k++ {
		seq[k] = complex(g[k], 0)
		seq[n-k] = complex(g[k], 0)
	}
	spec := fft.Coefficients(nil, seq)
	top := 0.0
	for _, v := range spec {
		top = math.Max(top, real(v))
	}
	if !(top > 0) {
		return make([]float64, m)
	}
	for i, v := range spec {
		spec[i] = complex(0.5*math.Log(math.Max(real(v), 1e-12*top)), 0) // log |F|
	}
	cep := fft.Sequence(nil, spec)
	for i := range cep {
		cep[i] /= complex(float64(n), 0)
	}
	// fold the even cepstrum onto n ≥ 0: the minimum-phase factor's
	for i := 1; i < n/2; i++ {
		cep[i] *= 2
		cep[n-i] = 0
	}
	logF := fft.Coefficients(nil, cep)
	for i, v := range logF {
		logF[i] = cmplx.Exp(v)
	}
	f := fft.Sequence(nil, logF)
	out := make([]float64, m)
	for i := range out {
		out[i] = real(f[i]) / float64(n)
	}
	return out
}
