// Package resample lowers the sampling rate of input-output data by an
// integer factor, for plants sampled far faster than their dynamics need.
//
// A plant sampled at ten times the rate its response needs has ten times
// the memory in samples: a passive FIR then needs thousands of taps (the
// structure search stops at trainer.MaxLinearTaps), and a recurrent model
// trained through time needs ten times the steps to learn the same slow
// modes. Identification practice is to decimate such data first (Ljung,
// System Identification, 2nd ed., Sec. 13.7; MATLAB's idresamp). Decimate
// does it the way that keeps the input-output relation in the retained band:
// the same zero-phase low-pass filter on u, y and y_clean, then every
// factor-th sample. Suggest proposes a factor from the output's spectrum.
//
// The data flow is data → resample → data: a model trained on the result
// has the sampling time Ts·factor and is evaluated on data resampled the
// same way.
package resample

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"gonum.org/v1/gonum/dsp/window"

	"github.com/passivenfir/gputrain/data"
)

// ErrFactor is returned for a factor below 1 or above MaxFactor.
var ErrFactor = errors.New("resample: bad factor")

// ErrShort is returned for a record too short for the filter of a factor;
// the error matches data.ErrTooShort too.
var ErrShort = errors.New("resample: record too short")

// MaxFactor bounds the factor: beyond it the filter (FilterLen taps) grows
// past what a record of a few thousand samples supports.
const MaxFactor = 100

// Cutoff is the filter's cutoff as a fraction of the new Nyquist frequency
// (0.5/factor cycles per sample): the band above it, where the filter's
// transition lies, is what aliasing may still reach, so components a model
// needs should lie below it. MATLAB's decimate uses 0.8 too.
const Cutoff = 0.8

// TapsPerFactor sets the filter length, TapsPerFactor·factor + 1 taps: with
// a Hamming window the transition band is then about 3.3/(TapsPerFactor·factor)
// cycles per sample wide, 0.14/factor, centred on the cutoff, and the
// stopband is at least 53 dB down.
const TapsPerFactor = 24

// FilterLen returns the number of taps of the filter for factor.
func FilterLen(factor int) int { return TapsPerFactor*factor + 1 }

// Filter returns the anti-aliasing low-pass filter for factor: a
// Hamming-windowed sinc of FilterLen(factor) taps, symmetric (linear phase:
// applied centred it shifts nothing), cutting off at Cutoff times the new
// Nyquist frequency, with a DC gain of exactly 1. Factor 1 gives the
// identity, the single tap 1.
func Filter(factor int) ([]float64, error) {
	if factor < 1 || factor > MaxFactor {
		return nil, fmt.Errorf("%w: %d; want an integer from 1 to %d", ErrFactor, factor, MaxFactor)
	}
	if factor == 1 {
		return []float64{1}, nil
	}
	n := FilterLen(factor)
	m := n / 2
	fc := Cutoff * 0.5 / float64(factor) // cycles per sample
	h := make([]float64, n)
	for k := range h {
		x := float64(k - m)
		if x == 0 {
			h[k] = 2 * fc
		} else {
			h[k] = math.Sin(2*math.Pi*fc*x) / (math.Pi * x)
		}
	}
	window.Hamming(h)
	// The window's cosines round differently on the two sides: mirror them
	// so that the phase is exactly linear.
	for k := range m {
		h[k] = (h[k] + h[n-1-k]) / 2
		h[n-1-k] = h[k]
	}
	s := 0.0
	for _, v := range h {
		s += v
	}
	for k := range h {
		h[k] /= s
	}
	return h, nil
}

// Decimate returns d at factor times its sampling interval: every record's
// u, y and (where present) y_clean filtered by Filter(factor), centred, and
// kept at samples 0, factor, 2·factor, …. A record's ends are extended by
// odd reflection about its first and last samples (x(−j) = 2x(0) − x(j), as
// filtfilt pads), so that a record that starts from rest starts from rest
// after filtering too. The result's Ts is d.Ts·factor to 12 significant
// digits (0 stays 0: unknown); labels and names are kept, and d is not
// modified. Every record needs at least FilterLen(factor)/2 + 1 samples.
func Decimate(d *data.Dataset, factor int) (*data.Dataset, error) {
	h, err := Filter(factor)
	if err != nil {
		return nil, err
	}
	if d == nil || len(d.Batches) == 0 {
		return nil, fmt.Errorf("resample: no records: %w", data.ErrEmpty)
	}
	half := len(h) / 2
	for i, b := range d.Batches {
		if len(b.U) != len(b.Y) || (b.YClean != nil && len(b.YClean) != len(b.U)) {
			return nil, fmt.Errorf("resample: %s: u, y and y_clean have %d, %d and %d samples: %w", b.Name(i), len(b.U), len(b.Y), len(b.YClean), data.ErrLengthMismatch)
		}
		if len(b.U) < half+1 {
			return nil, fmt.Errorf("resample: %s has %d samples; factor %d filters over %d on each side, so it needs at least %d (a smaller factor needs fewer): %w: %w", b.Name(i), len(b.U), factor, half, half+1, ErrShort, data.ErrTooShort)
		}
	}
	// Rounded to 12 significant digits: 0.001·18 is 0.018, not
	// 0.018000000000000002, in messages and in --ts.
	ts, _ := strconv.ParseFloat(strconv.FormatFloat(d.Ts*float64(factor), 'g', 12, 64), 64)
	out := &data.Dataset{Name: d.Name, Ts: ts, UCol: d.UCol, YCol: d.YCol, Batches: make([]data.Batch, len(d.Batches))}
	for i, b := range d.Batches {
		nb := data.Batch{Label: b.Label, Line: b.Line}
		nb.U = decimate(b.U, h, factor)
		nb.Y = decimate(b.Y, h, factor)
		if b.YClean != nil {
			nb.YClean = decimate(b.YClean, h, factor)
		}
		out.Batches[i] = nb
	}
	return out, nil
}

// decimate filters x by the symmetric h, centred, and keeps every factor-th
// sample from the first; len(x) ≥ len(h)/2 + 1.
func decimate(x, h []float64, factor int) []float64 {
	n, half := len(x), len(h)/2
	at := func(t int) float64 {
		switch {
		case t < 0:
			return 2*x[0] - x[-t]
		case t >= n:
			return 2*x[n-1] - x[2*(n-1)-t]
		}
		return x[t]
	}
	y := make([]float64, (n+factor-1)/factor)
	for i := range y {
		t := i * factor
		s := 0.0
		for k, hk := range h {
			s += hk * at(t+half-k)
		}
		y[i] = s
	}
	return y
}
