package loop

import (
	"fmt"
	"math"
	"slices"

	"github.com/passivenfir/gputrain/data"
)

// Mean is the mean of the outputs of loops driven by one input,
// y = (1/n) Σ y_i: the parallel interconnection of the loops, scaled by 1/n.
// It is passive when every loop is: ⟨u, y⟩ = (1/n) Σ ⟨u, y_i⟩ ≥ 0 from
// rest. Loops of different shapes trained on the same data err in
// different ways; their mean has a smaller simulation error variance than
// either, which matters most where data are few (the search keeps the mean
// only when it scores better on validation data).
type Mean []*Model

// Check reports an empty mean or a nil member.
func (m Mean) Check() error {
	if len(m) == 0 {
		return fmt.Errorf("%w: a mean of no loops", ErrShape)
	}
	for i, l := range m {
		if l == nil {
			return fmt.Errorf("%w: member %d is nil", ErrShape, i)
		}
	}
	return nil
}

// Simulate returns the mean closed-loop output of one record from rest.
func (m Mean) Simulate(u []float64) []float64 {
	y := make([]float64, len(u))
	for _, l := range m {
		for i, v := range l.Simulate(u) {
			y[i] += v
		}
	}
	for i := range y {
		y[i] /= float64(len(m))
	}
	return y
}

// NumParams is the sum over the members.
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

// Choose returns the loop to keep among trained results: the one with the
// best validation Fit, or the mean of several when that scores better on
// val (first skip samples of each record not scored). The mean's members
// are chosen by greedy forward selection, the ensemble selection of
// Caruana et al. (2004): from the best loop, add the loop whose addition
// raises the mean's validation Fit most, while one does. With loops of
// several shapes, the mean of all of them can be worse than the mean of a
// few (a shape that does not suit the plant drags it down), and a subset
// can beat both. Nil results (a shape that failed) are passed over; fit is
// the kept model's validation Fit (exactly its ValFit), and mean says
// whether it has more than one member. Members keep the order of rs.
func Choose(val *data.Dataset, skip int, rs ...*Result) (m Mean, fit float64, mean bool, err error) {
	var all Mean
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
		return all, fit, false, nil
	}
	// every member's outputs on val, once; a mean is scored from them with
	// the arithmetic of Mean.Simulate, so that its Fit is its ValFit
	outs := make([][][]float64, len(all))
	for i, l := range all {
		for _, b := range val.Batches {
			outs[i] = append(outs[i], l.Simulate(b.U))
		}
	}
	sel := []int{best}
	for {
		add, addFit := -1, fit
		for i := range all {
			if slices.Contains(sel, i) {
				continue
			}
			try := append(slices.Clone(sel), i)
			slices.Sort(try)
			f, err := fitRecords(val, skip, func(r int) []float64 { return meanOn(outs, try, r) })
			if err != nil {
				return nil, math.NaN(), false, err
			}
			if f > addFit {
				add, addFit = i, f
			}
		}
		if add < 0 {
			break
		}
		sel = append(sel, add)
		slices.Sort(sel)
		fit = addFit
	}
	for _, i := range sel {
		m = append(m, all[i])
	}
	return m, fit, len(m) > 1, nil
}

// meanOn is the output of the mean of the members sel on validation
// record r, from their outputs: Mean.Simulate's sums in member order, then
// the division.
func meanOn(outs [][][]float64, sel []int, r int) []float64 {
	y := make([]float64, len(outs[sel[0]][r]))
	for _, i := range sel {
		for k, v := range outs[i][r] {
			y[k] += v
		}
	}
	for k := range y {
		y[k] /= float64(len(sel))
	}
	return y
}
