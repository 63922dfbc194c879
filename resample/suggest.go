package resample

import (
	"math"

	"gonum.org/v1/gonum/dsp/fourier"
	"gonum.org/v1/gonum/dsp/window"

	"github.com/passivenfir/gputrain/data"
)

// Band is the share of the power of u and of y (each record's mean
// removed) that Suggest keeps in the pass band. The rest, 0.1 %, is what a
// model of the decimated data no longer sees: a response that lost it
// scores at most 100·(1 − √0.001) = 96.8 % Fit against the original, so
// a smaller share (1 %: 90 %) would cap the models worth having.
const Band = 0.999

// bins is the resolution of the power spectrum Suggest reads, in bins over
// [0, Nyquist].
const bins = 2048

// PassEdge returns the upper edge of Filter(factor)'s pass band in cycles
// per sample: the cutoff less half the transition band's width.
func PassEdge(factor int) float64 {
	return (Cutoff*0.5 - 0.5*3.3/TapsPerFactor) / float64(factor)
}

// Rate is how many times the band of u and y (Suggest's) the new sampling
// frequency keeps at least: identification practice samples about ten
// times the bandwidth (Ljung, System Identification, 2nd ed., Sec. 13.7),
// which leaves a model's closed-loop simulation the time resolution a
// coarser rate would take away, and the band well inside Filter's pass
// band (PassEdge: 0.33 of the new rate).
const Rate = 10

// Suggest returns the largest factor up to MaxFactor at which the new
// sampling frequency is at least Rate times the band where Band of the
// power of u and of y lie (their periodograms summed over the records),
// and that band's upper edge in cycles per sample; factor 1 means the data
// need their rate. Records too short for Filter(factor) cap the factor.
// Suggest reads the measured y, so broadband noise on it, which a model
// cannot predict anyway, keeps the factor low: the suggestion errs towards
// keeping the rate.
func Suggest(d *data.Dataset) (factor int, band float64) {
	if d == nil || len(d.Batches) == 0 {
		return 1, 0.5
	}
	fu, fy := bandEdge(d, func(b data.Batch) []float64 { return b.U }), bandEdge(d, func(b data.Batch) []float64 { return b.Y })
	band = max(fu, fy)
	factor = 1
	shortest := math.MaxInt
	for _, b := range d.Batches {
		shortest = min(shortest, len(b.U))
	}
	for f := 2; f <= MaxFactor; f++ {
		if Rate*band*float64(f) > 1 || FilterLen(f)/2+1 > shortest {
			break
		}
		factor = f
	}
	return factor, band
}

// bandEdge returns the frequency (cycles per sample) below which Band of
// the power of the signal sig picks from every record lies: the records'
// Hann-windowed periodograms, summed.
func bandEdge(d *data.Dataset, sig func(data.Batch) []float64) float64 {
	var power [bins + 1]float64
	ffts := map[int]*fourier.FFT{}
	var buf []float64
	for _, b := range d.Batches {
		x := sig(b)
		n := len(x)
		if n < 2 {
			continue
		}
		t, ok := ffts[n]
		if !ok {
			t = fourier.NewFFT(n)
			ffts[n] = t
		}
		mean := 0.0
		for _, v := range x {
			mean += v
		}
		mean /= float64(n)
		buf = append(buf[:0], x...)
		for i := range buf {
			buf[i] -= mean
		}
		// A record's ends leak power of a sine off its frequency, in tails
		// that fall as 1/f² and would hold more than the 0.1 % Band leaves
		// out: the Hann window's fall as 1/f⁶.
		window.Hann(buf)
		coef := t.Coefficients(nil, buf)
		for k, c := range coef {
			f := float64(k) / float64(n) // cycles per sample, 0 … 0.5
			p := real(c)*real(c) + imag(c)*imag(c)
			power[min(bins, int(f/0.5*bins))] += p
		}
	}
	total := 0.0
	for _, p := range power {
		total += p
	}
	if total == 0 {
		return 0
	}
	acc := 0.0
	for i, p := range power {
		acc += p
		if acc >= Band*total {
			return float64(i+1) / bins * 0.5
		}
	}
	return 0.5
}
