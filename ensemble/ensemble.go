// Package ensemble averages passive operators: the weighted mean of several
// models driven by one input, y = Σ c_i y_i / Σ c_i with integer counts
// c_i ≥ 1, and its choice on validation data by ensemble selection with
// replacement (Caruana et al., 2004).
//
// The mean is the parallel interconnection of its members, each scaled by
// c_i / Σ c: passive whenever every member is, since ⟨u, y⟩ = Σ c_i ⟨u,
// y_i⟩ / Σ c ≥ 0 from rest, whatever the members' structures. Models of
// different structures trained on the same data err in different ways; a
// mean of a few has a smaller simulation error than each where the data
// are few or noisy, and it makes the choice among near-equal candidates,
// which validation cannot rank, matter less.
//
// The arithmetic is fixed, so that a mean's output is the same to the bit
// wherever it is computed (package export repeats it in C): in member
// order y += c_i·y_i, the product rounded before the sum (never fused),
// then y /= Σ c.
package ensemble

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/model"
)

// ErrMean reports a mean that cannot be formed: no members, a nil member,
// a count out of range, outputs of mismatched sizes.
var ErrMean = errors.New("ensemble: bad mean")

// ErrNoRecord reports validation data with no record to score.
var ErrNoRecord = errors.New("ensemble: no validation record with a non-zero output")

// Simulator is a model with a closed-loop (free-run) output from rest.
type Simulator interface {
	Simulate(u []float64) []float64
}

// Member is one model of a Mean and its count, its weight in the mean.
type Member struct {
	Model Simulator
	Count int // 1 to MaxCount
}

// Mean is the weighted mean of its members' outputs for one input.
type Mean []Member

// MaxCount bounds a member's count, so that the total stays exact in
// float64 arithmetic and in the C export's double constants.
const MaxCount = 1 << 20

// Check reports an empty mean, a nil member or a count outside 1 to
// MaxCount.
func (m Mean) Check() error {
	if len(m) == 0 {
		return fmt.Errorf("%w: a mean of no models", ErrMean)
	}
	for i, l := range m {
		if l.Model == nil {
			return fmt.Errorf("%w: member %d is nil", ErrMean, i)
		}
		if l.Count < 1 || l.Count > MaxCount {
			return fmt.Errorf("%w: member %d has count %d, want 1 to %d", ErrMean, i, l.Count, MaxCount)
		}
	}
	return nil
}

// Total is the sum of the counts, the divisor of the mean.
func (m Mean) Total() int {
	n := 0
	for _, l := range m {
		n += l.Count
	}
	return n
}

// Weighted reports whether any member counts more than once.
func (m Mean) Weighted() bool {
	return slices.ContainsFunc(m, func(l Member) bool { return l.Count != 1 })
}

// Simulate returns the mean output of one record from rest.
func (m Mean) Simulate(u []float64) []float64 {
	y := make([]float64, len(u))
	for _, l := range m {
		Accumulate(y, l.Model.Simulate(u), l.Count)
	}
	Divide(y, m.Total())
	return y
}

// Accumulate adds count·yi to y, sample by sample, the product rounded
// before the sum (c·y_i is y_i exactly when c = 1).
func Accumulate(y, yi []float64, count int) {
	c := float64(count)
	yi = yi[:len(y)]
	for k, v := range yi {
		y[k] += float64(c * v) // rounded: never fused, as in C
	}
}

// Divide divides y by the total of the counts.
func Divide(y []float64, total int) {
	n := float64(total)
	for k := range y {
		y[k] /= n
	}
}

// FitRecords is the median closed-loop Fit over the records of d of the
// output sim(r) of record r, the first skip samples of each simulated but
// not scored, against the record's noise-free output where it has one
// and its measured one otherwise. A record whose output is zero after skip
// is passed over (Fit is undefined there); a Fit that is NaN counts as −∞.
func FitRecords(d *data.Dataset, skip int, sim func(r int) []float64) (float64, error) {
	var fits []float64
	for r, b := range d.Batches {
		target := b.Y
		if b.YClean != nil {
			target = b.YClean
		}
		if len(target) <= skip {
			continue
		}
		f, err := model.Fit(target, sim(r), skip)
		if err != nil {
			continue // a zero output: Fit undefined
		}
		if math.IsNaN(f) {
			f = math.Inf(-1)
		}
		fits = append(fits, f)
	}
	if len(fits) == 0 {
		return math.NaN(), fmt.Errorf("%w after %d samples", ErrNoRecord, skip)
	}
	return model.Summarize(fits).Median, nil
}

// Steps and Stale bound Select: at most Steps additions, and none after
// Stale in a row that found no better mean. Measured with these values on
// the loops of the plant zoo (docs/BENCHMARKS.md, sessions 22 and 23).
const (
	Steps = 25
	Stale = 5
)

// Select chooses the counts of a weighted mean of candidates by ensemble
// selection with replacement on val: outs[i][r] is candidate i's output on
// record r of val, and best the candidate to start from (its own Fit
// bestFit, which a mean must beat). From it, the candidate (any, again or
// for the first time) whose addition raises the mean's Fit (FitRecords,
// skip samples not scored) most, or lowers it least, is added, for up to
// Steps additions and until Stale in a row found no new best; the best
// mean seen is kept, its counts divided by their greatest common divisor.
// A candidate that does not suit the data drags a plain mean of all down;
// drawing a good one again weighs it more without a fixed rule. counts[i]
// is candidate i's count (0: left out), and fit the kept mean's Fit (the
// start's bestFit when no mean beat it: counts is then 1 at best).
func Select(val *data.Dataset, skip int, outs [][][]float64, best int, bestFit float64) (counts []int, fit float64, err error) {
	if best < 0 || best >= len(outs) {
		return nil, math.NaN(), fmt.Errorf("%w: start %d of %d candidates", ErrMean, best, len(outs))
	}
	for i, o := range outs {
		if len(o) != len(val.Batches) {
			return nil, math.NaN(), fmt.Errorf("%w: candidate %d has outputs of %d records, validation %d", ErrMean, i, len(o), len(val.Batches))
		}
	}
	return selectBy(len(outs), best, bestFit, func(counts []int) (float64, error) {
		return FitRecords(val, skip, func(r int) []float64 { return meanOn(outs, counts, r) })
	})
}

// selectBy is Select's greedy search over n candidates from best (whose
// score is bestFit), a mean scored by score.
func selectBy(n, best int, bestFit float64, score func(counts []int) (float64, error)) (counts []int, fit float64, err error) {
	counts = make([]int, n)
	counts[best] = 1
	keep := slices.Clone(counts)
	fit = bestFit
	for step, stale := 0, 0; n > 1 && step < Steps && stale < Stale; step++ {
		add, addFit := -1, math.Inf(-1)
		for i := range n {
			counts[i]++
			f, err := score(counts)
			counts[i]--
			if err != nil {
				return nil, math.NaN(), err
			}
			if add < 0 || f > addFit {
				add, addFit = i, f
			}
		}
		counts[add]++
		if addFit > fit {
			keep, fit, stale = slices.Clone(counts), addFit, 0
		} else {
			stale++
		}
	}
	g := 0
	for _, c := range keep {
		g = gcd(g, c)
	}
	for i := range keep {
		keep[i] /= g
	}
	if g > 1 {
		// the reduced counts round differently: score what is kept
		if fit, err = score(keep); err != nil {
			return nil, math.NaN(), err
		}
	}
	return keep, fit, nil
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// meanOn is the output on record r of the mean of the candidates whose
// outputs outs holds, candidate i counted counts[i] times (0: left out),
// with Mean.Simulate's arithmetic.
func meanOn(outs [][][]float64, counts []int, r int) []float64 {
	var y []float64
	n := 0
	for i, c := range counts {
		if c == 0 {
			continue
		}
		if y == nil {
			y = make([]float64, len(outs[i][r]))
		}
		Accumulate(y, outs[i][r], c)
		n += c
	}
	Divide(y, n)
	return y
}
