package model

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// ErrZeroOutput reports a Fit that is undefined because the output it is
// scored against is zero over the scored samples (‖y‖ = 0).
var ErrZeroOutput = errors.New("model: zero output")

// Fit returns 100·(1 − ‖y − ŷ‖/‖y‖) over samples skip..end, the paper's
// metric (eq. (25)); 100 is a perfect fit, and it is unbounded below: a
// prediction that overflows or is NaN scores −Inf.
func Fit(y, yhat []float64, skip int) (float64, error) {
	if len(y) != len(yhat) {
		return 0, fmt.Errorf("%w: fit of %d samples against %d", ErrShape, len(yhat), len(y))
	}
	if skip < 0 || skip >= len(y) {
		return 0, fmt.Errorf("%w: skip %d of %d samples", ErrShape, skip, len(y))
	}
	// Both norms are taken of the signals divided by max|y|, so that an
	// output of 1e-300 or 1e300 neither underflows to "zero" nor overflows.
	var scale float64
	for t := skip; t < len(y); t++ {
		scale = math.Max(scale, math.Abs(y[t]))
	}
	if scale == 0 {
		return 0, fmt.Errorf("%w: the output scored against is zero from sample %d on; Fit is undefined", ErrZeroOutput, skip)
	}
	var e, s float64
	for t := skip; t < len(y); t++ {
		d := y[t]/scale - yhat[t]/scale
		e += d * d
		s += (y[t] / scale) * (y[t] / scale)
	}
	if math.IsNaN(e) {
		// A prediction that is NaN somewhere (a diverged simulation) is
		// as far from y as can be; NaN is kept for "no Fit" (Summarize).
		return math.Inf(-1), nil
	}
	return 100 * (1 - math.Sqrt(e)/math.Sqrt(s)), nil
}

// NRMSEFit returns 100·(1 − ‖y − ŷ‖/‖y − mean(y)‖) over samples skip..end,
// the mean taken over the same samples: the fit of MATLAB's compare (its
// NRMSE measure), which scores a prediction against the best constant where
// Fit scores it against zero. Since ‖y − mean(y)‖ ≤ ‖y‖ it is at most Fit's
// value, equal when y has zero mean. A prediction that overflows or is NaN
// scores −Inf; an output constant over the scored samples has no NRMSE fit
// (ErrZeroOutput).
func NRMSEFit(y, yhat []float64, skip int) (float64, error) {
	if len(y) != len(yhat) {
		return 0, fmt.Errorf("%w: fit of %d samples against %d", ErrShape, len(yhat), len(y))
	}
	if skip < 0 || skip >= len(y) {
		return 0, fmt.Errorf("%w: skip %d of %d samples", ErrShape, skip, len(y))
	}
	var scale float64
	for t := skip; t < len(y); t++ {
		scale = math.Max(scale, math.Abs(y[t]))
	}
	if scale == 0 {
		return 0, fmt.Errorf("%w: the output scored against is zero from sample %d on; the NRMSE fit is undefined", ErrZeroOutput, skip)
	}
	var mean float64
	for t := skip; t < len(y); t++ {
		mean += y[t] / scale
	}
	mean /= float64(len(y) - skip)
	var e, s float64
	for t := skip; t < len(y); t++ {
		d := y[t]/scale - yhat[t]/scale
		e += d * d
		c := y[t]/scale - mean
		s += c * c
	}
	if !(s > 0) {
		return 0, fmt.Errorf("%w: the output scored against is constant from sample %d on; the NRMSE fit (against its mean) is undefined", ErrZeroOutput, skip)
	}
	if math.IsNaN(e) {
		return math.Inf(-1), nil
	}
	return 100 * (1 - math.Sqrt(e)/math.Sqrt(s)), nil
}

// Summary condenses per-batch Fit values.
type Summary struct {
	Mean     float64   `json:"mean"`
	Median   float64   `json:"median"`
	Min      float64   `json:"min"`
	Max      float64   `json:"max"`
	PerBatch []float64 `json:"per_batch"`
}

// Summarize returns the mean, median, min and max of fits. A NaN entry (a
// batch whose Fit is undefined, ErrZeroOutput) stays in PerBatch and is left
// out of the statistics; with no other entry they are all NaN.
func Summarize(fits []float64) Summary {
	s := Summary{PerBatch: append([]float64(nil), fits...)}
	if len(fits) == 0 {
		return s
	}
	sorted := slices.DeleteFunc(slices.Clone(fits), math.IsNaN)
	if len(sorted) == 0 {
		nan := math.NaN()
		s.Mean, s.Median, s.Min, s.Max = nan, nan, nan, nan
		return s
	}
	slices.Sort(sorted)
	n := len(sorted)
	if n%2 == 1 {
		s.Median = sorted[n/2]
	} else {
		s.Median = (sorted[n/2-1] + sorted[n/2]) / 2
	}
	s.Min, s.Max = sorted[0], sorted[n-1]
	for _, v := range sorted {
		s.Mean += v
	}
	s.Mean /= float64(n)
	return s
}
