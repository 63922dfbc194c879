package search

import (
	"fmt"
	"math"
	"strings"

	"github.com/passivenfir/gputrain/ensemble"
)

// meanCandidate is one trained model the mean may draw, with its row.
type meanCandidate struct {
	model ensemble.Simulator
	row   int
}

// mean offers the weighted mean of the trained RENs as Result.Mean:
// ensemble selection with replacement on validation (ensemble.Select)
// from the best of them, kept when it has two members or more and
// validates above the best REN. The RENs of the several kinds and seeds
// often validate within a point of each other and then test a few points
// apart either way (the plant zoo's gearbox, sessions 31 and 32: the
// choice among them is noise); their mean errs less than each where their
// errors differ, and it is passive when every member is. The loops are
// left out: they have a mean of their own (loop.Choose), and on the quick
// plant zoo a mean drawn from RENs and loops together lowered the test Fit
// of three cases by 0.2 to 2.6 points where the RENs' own mean lowered none
// (docs/BENCHMARKS.md, session 33). It costs one simulation of the
// validation data per REN and sums of their outputs.
func (s *searcher) mean(res *Result) error {
	var cands []meanCandidate
	for i, r := range res.rens {
		cands = append(cands, meanCandidate{r, res.renRows[i]})
	}
	if len(cands) < 2 {
		return nil
	}
	skip := s.base.ValSkip
	outs := make([][][]float64, len(cands))
	best, bestFit := -1, math.Inf(-1)
	for i, c := range cands {
		for _, b := range s.val.Batches {
			outs[i] = append(outs[i], c.model.Simulate(b.U))
		}
		f, err := ensemble.FitRecords(s.val, skip, func(r int) []float64 { return outs[i][r] })
		if err != nil {
			return nil // no record to score: the best REN stands
		}
		if f > bestFit {
			best, bestFit = i, f
		}
	}
	if best < 0 {
		return nil
	}
	counts, fit, err := ensemble.Select(s.val, skip, outs, best, bestFit)
	if err != nil {
		return fmt.Errorf("search: the mean of the RENs: %w", err)
	}
	var m ensemble.Mean
	row := Row{ValFit: fit, Rung: max(res.Rungs-1, 0)}
	for i, c := range counts {
		if c > 0 {
			m = append(m, ensemble.Member{Model: cands[i].model, Count: c})
			row.MeanOf = append(row.MeanOf, res.Rows[cands[i].row].Name)
			row.Counts = append(row.Counts, c)
		}
	}
	if len(m) < 2 || !(fit > res.RENFit) {
		return nil
	}
	if !m.Weighted() {
		row.Counts = nil
	}
	row.Name = meanName(m)
	res.Mean, res.MeanFit, res.meanRow = m, fit, len(res.Rows)
	for _, c := range cands {
		res.meanCands = append(res.meanCands, c.model)
	}
	res.Rows = append(res.Rows, row)
	s.emit(Event{Stage: "candidate", Rung: max(res.Rungs-1, 0), Rungs: max(res.Rungs, 1), Candidate: row.Name, ValFit: fit})
	return nil
}

// meanName is a mean row's name: "mean of 3 RENs", or "weighted mean of 3
// RENs (counts 3+1+2)".
func meanName(m ensemble.Mean) string {
	if !m.Weighted() {
		return fmt.Sprintf("mean of %d RENs", len(m))
	}
	c := make([]string, len(m))
	for i, l := range m {
		c[i] = fmt.Sprint(l.Count)
	}
	return fmt.Sprintf("weighted mean of %d RENs (counts %s)", len(m), strings.Join(c, "+"))
}

// meanClear reports whether the mean clears the linear FIR on validation
// (Margin.Clear of its block gains), its margin cross-fitted as the loops'
// is (meanMargin).
func (s *searcher) meanClear(res *Result) bool {
	if res.linear == nil {
		return true
	}
	name := res.Rows[res.meanRow].Name
	m, err := s.meanMargin(res)
	if err != nil {
		s.emit(Event{Stage: "fir", Candidate: Name(res.linear.Structure), ValFit: res.LinearFit,
			Note: fmt.Sprintf("kept: the margin of %s could not be measured: %v", name, err)})
		return false
	}
	return s.clearOfLinear(res, name, m)
}

// meanMargin is the mean's margin over the linear FIR, cross-fitted as
// the loops' is (loopMargin, valFolds): the mean is chosen again on each
// fold from the same candidates (ensemble.Select from the fold's best), and
// its block gains over the FIR are measured on the other fold. Where
// validation cannot be folded, it is linearMargin's.
func (s *searcher) meanMargin(res *Result) (Margin, error) {
	folds, ok := valFolds(s.val, s.base.ValSkip)
	if !ok {
		return linearMargin(s.val, s.base.ValSkip, res.Mean.Simulate, res.firSim), nil
	}
	var d []float64
	for k, out := range folds {
		on := folds[1-k]
		outs := make([][][]float64, len(res.meanCands))
		best, bestFit := -1, math.Inf(-1)
		for i, c := range res.meanCands {
			for _, b := range on.val.Batches {
				outs[i] = append(outs[i], c.Simulate(b.U))
			}
			f, err := ensemble.FitRecords(on.val, on.skip, func(r int) []float64 { return outs[i][r] })
			if err != nil {
				return Margin{}, err
			}
			if f > bestFit {
				best, bestFit = i, f
			}
		}
		counts, _, err := ensemble.Select(on.val, on.skip, outs, best, bestFit)
		if err != nil {
			return Margin{}, err
		}
		var m ensemble.Mean
		for i, c := range counts {
			if c > 0 {
				m = append(m, ensemble.Member{Model: res.meanCands[i], Count: c})
			}
		}
		d = append(d, blockGains(out.val, out.skip, m.Simulate, res.firSim)...)
	}
	mg := marginOf(d)
	mg.CrossFit = true
	return mg, nil
}
