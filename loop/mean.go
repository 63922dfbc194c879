package loop

import (
	"fmt"
	"math"
	"slices"

	"github.com/passivenfir/gputrain/data"
)

// Mean is the weighted mean of the outputs of loops driven by one input,
// y = Σ c_i y_i / Σ c_i with integer counts c_i ≥ 1: the parallel
// interconnection of the loops, each scaled by c_i / Σ c. It is passive
// when every loop is: ⟨u, y⟩ = Σ c_i ⟨u, y_i⟩ / Σ c ≥ 0 from rest. Loops of
// different shapes trained on the same data err in different ways; their
// mean has a smaller simulation error variance than either, which matters
// most where data are few (the search keeps the mean only when it scores
// better on validation data). The counts are those of ensemble selection
// with replacement (Choose): a loop drawn twice weighs twice.
type Mean []Member

// Member is one loop of a Mean and its count, its weight in the mean.
type Member struct {
	*Model
	Count int // ≥ 1
}

// MaxCount bounds a member's count, so that the total stays exact in
// float64 arithmetic and in the C export's double constants.
const MaxCount = 1 << 20

// Of is the mean of the loops ls, each counted once.
func Of(ls ...*Model) Mean {
	m := make(Mean, len(ls))
	for i, l := range ls {
		m[i] = Member{l, 1}
	}
	return m
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
	for _, l := range m {
		if l.Count != 1 {
			return true
		}
	}
	return false
}

// Check reports an empty mean, a nil member or a count outside 1 to
// MaxCount.
func (m Mean) Check() error {
	if len(m) == 0 {
		return fmt.Errorf("%w: a mean of no loops", ErrShape)
	}
	for i, l := range m {
		if l.Model == nil {
			return fmt.Errorf("%w: member %d is nil", ErrShape, i)
		}
		if l.Count < 1 || l.Count > MaxCount {
			return fmt.Errorf("%w: member %d has count %d, want 1 to %d", ErrShape, i, l.Count, MaxCount)
		}
	}
	return nil
}

// Simulate returns the mean closed-loop output of one record from rest:
// in member order y += c_i·y_i, then y /= Σ c (c_i·y_i is y_i exactly when
// c_i = 1, so a mean of counts 1 is the plain mean, to the bit).
func (m Mean) Simulate(u []float64) []float64 {
	y := make([]float64, len(u))
	for _, l := range m {
		c := float64(l.Count)
		for i, v := range l.Simulate(u) {
			y[i] += float64(c * v) // rounded: never fused, as in C
		}
	}
	n := float64(m.Total())
	for i := range y {
		y[i] /= n
	}
	return y
}

// NumParams is the sum over the members (a member's parameters are held
// once, whatever its count).
func (m Mean) NumParams() int {
	n := 0
	for _, l := range m {
		n += l.NumParams()
	}
	return n
}

// Certify certifies every FIR and section of every member: the mean is
// passive when all are.
func (m Mean) Certify() (Certificate, error) {
	c := Certificate{Passive: true, MinRe: math.Inf(1)}
	for i, l := range m {
		mc, err := l.Certify()
		if err != nil {
			return c, fmt.Errorf("loop: member %d: %w", i, err)
		}
		c.Passive = c.Passive && mc.Passive
		c.MinRe = math.Min(c.MinRe, mc.MinRe)
		c.FIRs += mc.FIRs
		c.Sections += mc.Sections
	}
	return c, nil
}

// ValFit is the median closed-loop Fit of the mean over the records of d,
// the first skip samples of each simulated but not scored (as Train scores
// its candidates).
func (m Mean) ValFit(d *data.Dataset, skip int) (float64, error) {
	if err := m.Check(); err != nil {
		return math.NaN(), err
	}
	return valFit(m, d, skip)
}

// ChoosePasses is Choose over the loops of the two passes of Runs: first
// trained without the automatic skip, second with it (AutoSkip). The
// second pass joins the choice only when its own choice scores higher on
// val than the first pass's: then Choose takes loops of both; otherwise
// the first pass's choice is kept. Deciding for the pass as a whole before
// choosing loops from it keeps the choice from drawing loops of a pass
// the validation data do not prefer, whose small gains on val did not
// hold on test: on the quick plant zoo (docs/BENCHMARKS.md, session 24),
// choosing among all loops of both passes lowered the test Fit of 4 cases
// by 0.1 to 0.8 points where the second pass validated worse, and this
// rule kept those at the first pass's choice while taking the second
// pass's gains (stribeck recorded mid-motion, 71.1 → 78.0 %). With one
// pass empty (none trained, or all failed) it is Choose over the other.
func ChoosePasses(val *data.Dataset, skip int, first, second []*Result) (m Mean, fit float64, mean bool, err error) {
	if !anyTrained(second) {
		return Choose(val, skip, first...)
	}
	if !anyTrained(first) {
		return Choose(val, skip, second...)
	}
	m1, f1, mean1, err := Choose(val, skip, first...)
	if err != nil {
		return nil, math.NaN(), false, err
	}
	_, f2, _, err := Choose(val, skip, second...)
	if err != nil {
		return nil, math.NaN(), false, err
	}
	if !(f2 > f1) {
		return m1, f1, mean1, nil
	}
	return Choose(val, skip, append(slices.Clone(first), second...)...)
}

// anyTrained reports whether some result holds a model.
func anyTrained(rs []*Result) bool {
	return slices.ContainsFunc(rs, func(r *Result) bool { return r != nil && r.Model != nil })
}

// Choose returns the loop to keep among trained results: the one with the
// best validation Fit, or a weighted mean of several when that scores
// better on val (first skip samples of each record not scored). The mean
// is found by ensemble selection with replacement (Caruana et al., 2004):
// from the best loop, add the loop (any, again or for the first time)
// whose addition raises the mean's validation Fit most, or lowers it
// least, for up to ChooseSteps additions, stopping after ChooseStale
// additions without a new best; the best mean seen is kept, its counts
// divided by their greatest common divisor. With loops of several shapes,
// the mean of all of them can be worse than the mean of a few (a shape
// that does not suit the plant drags it down), and drawing a good loop
// again weighs it more without a fixed rule. On the quick plant zoo,
// selection with replacement raised the test Fit on 13 of 16 cases against
// selection without it (docs/BENCHMARKS.md, sessions 22 and 23). Nil
// results (a shape that failed) are passed over; fit is the kept model's
// validation Fit (exactly its ValFit), and mean says whether it has more
// than one member. Members keep the order of rs.
func Choose(val *data.Dataset, skip int, rs ...*Result) (m Mean, fit float64, mean bool, err error) {
	var all []*Model
	best, fit := -1, math.Inf(-1)
	for _, r := range rs {
		if r == nil || r.Model == nil {
			continue
		}
		if best < 0 || r.ValFit > fit {
			best, fit = len(all), r.ValFit
		}
		all = append(all, r.Model)
	}
	if len(all) == 0 {
		return nil, math.NaN(), false, fmt.Errorf("%w: no trained loop to choose from", ErrConfig)
	}
	if len(all) < 2 {
		return Of(all...), fit, false, nil
	}
	// every member's outputs on val, once; a mean is scored from them with
	// the arithmetic of Mean.Simulate, so that its Fit is its ValFit
	outs := make([][][]float64, len(all))
	for i, l := range all {
		for _, b := range val.Batches {
			outs[i] = append(outs[i], l.Simulate(b.U))
		}
	}
	score := func(counts []int) (float64, error) {
		return fitRecords(val, skip, func(r int) []float64 { return meanOn(outs, counts, r) })
	}
	counts := make([]int, len(all))
	counts[best] = 1
	keep := slices.Clone(counts)
	for step, stale := 0, 0; step < ChooseSteps && stale < ChooseStale; step++ {
		add, addFit := -1, math.Inf(-1)
		for i := range all {
			counts[i]++
			f, err := score(counts)
			counts[i]--
			if err != nil {
				return nil, math.NaN(), false, err
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
	for i, c := range keep {
		keep[i] = c / g
	}
	if g > 1 {
		// the reduced counts round differently: score what is kept
		if fit, err = score(keep); err != nil {
			return nil, math.NaN(), false, err
		}
	}
	for i, c := range keep {
		if c > 0 {
			m = append(m, Member{all[i], c})
		}
	}
	return m, fit, len(m) > 1, nil
}

// ChooseSteps and ChooseStale bound Choose's selection: at most
// ChooseSteps additions, and none after ChooseStale in a row that found no
// better mean. Measured with these values (docs/BENCHMARKS.md, sessions 22
// and 23).
const (
	ChooseSteps = 25
	ChooseStale = 5
)

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// meanOn is the output on validation record r of the mean of the loops
// whose outputs outs holds, loop i counted counts[i] times (0: left out):
// Mean.Simulate's sums in member order, then the division.
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
		w := float64(c)
		for k, v := range outs[i][r] {
			y[k] += float64(w * v)
		}
		n += c
	}
	for k := range y {
		y[k] /= float64(n)
	}
	return y
}
