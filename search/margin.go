package search

import (
	"fmt"
	"math"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/loop"
	"github.com/passivenfir/gputrain/model"
	"gonum.org/v1/gonum/stat"
)

// Never worse than linear, on evidence. The nonlinear model that scores
// best on validation replaces the passive linear FIR only when its gain is
// larger than the validation data can blur: a near-linear plant measured
// with output noise can hand a model of thousands of parameters a fraction
// of a point over the FIR by chance. (On the zoo's softspring-noisy20 case,
// session 25, the loop won validation by 0.93 points and lost the test by
// 2.2; its block gain, +0.92 ± 0.78, cleared the rule measured on the
// records the loops' mean was chosen on. Measured cross-fitted (loopMargin,
// session 26) it does not, the FIR's rival is then the best NFIR, and the
// test Fit is 92.88 against the FIR's 92.81. On the other zoo cases the
// winner's validation gain over the FIR is 6 points or more.)
//
// The gain is measured block by block: the scored samples of each
// validation record are cut into valBlocks equal blocks, both models are
// simulated free-running over the whole record, and each block gives one
// paired difference of Fit. The winner must beat the FIR by more than one
// standard error of their mean (the one-standard-error rule of model
// selection, which prefers the simpler model within the noise).

// valBlocks is the number of blocks of each validation record.
const valBlocks = 4

// minBlock is the fewest samples a block may hold: shorter records get
// fewer blocks.
const minBlock = 16

// Margin is a nonlinear model's validation gain over the passive linear
// FIR: Gain the mean over Blocks blocks of Fit(model) − Fit(FIR) in points,
// SE its standard error.
type Margin struct {
	Gain, SE float64
	Blocks   int
	// CrossFit is whether each block's gain is that of a model chosen
	// without the block's record (searcher.loopMargin).
	CrossFit bool
}

// Clear reports whether the gain exceeds one standard error; with fewer
// than two blocks there is no error to measure, and any gain is clear.
func (m Margin) Clear() bool {
	if m.Blocks < 2 {
		return true
	}
	return m.Gain > m.SE
}

func (m Margin) String() string {
	s := fmt.Sprintf("%+.2f ± %.2f points over %d blocks", m.Gain, m.SE, m.Blocks)
	if m.CrossFit {
		s += ", cross-fitted"
	}
	return s
}

// linearMargin compares the free-run simulations sim and fir on the
// validation records, the first skip samples of each simulated but not
// scored, against the noise-free output where the records keep it
// (YClean), as trainer.Evaluate scores them.
func linearMargin(val *data.Dataset, skip int, sim, fir func(u []float64) []float64) Margin {
	return marginOf(blockGains(val, skip, sim, fir))
}

// blockGains are the paired differences Fit(sim) − Fit(fir), in points, on
// the blocks of val's records (valBlocks a record, fewer where a record is
// short).
func blockGains(val *data.Dataset, skip int, sim, fir func(u []float64) []float64) []float64 {
	var d []float64
	for _, b := range val.Batches {
		y := b.Y
		if b.YClean != nil { // the target trainer.Evaluate scores against
			y = b.YClean
		}
		n := len(y) - skip
		if n <= 0 {
			continue
		}
		nb := max(1, min(valBlocks, n/minBlock))
		ys, yf := sim(b.U), fir(b.U)
		for k := range nb {
			lo, hi := skip+k*n/nb, skip+(k+1)*n/nb
			var ny, es, ef float64
			for t := lo; t < hi; t++ {
				ny += y[t] * y[t]
				es += (y[t] - ys[t]) * (y[t] - ys[t])
				ef += (y[t] - yf[t]) * (y[t] - yf[t])
			}
			if !(ny > 0) || math.IsNaN(es) || math.IsNaN(ef) {
				continue
			}
			// Fit(model) − Fit(FIR) = 100·(‖e_F‖ − ‖e_M‖)/‖y‖ on the block
			d = append(d, 100*(math.Sqrt(ef)-math.Sqrt(es))/math.Sqrt(ny))
		}
	}
	return d
}

// marginOf is the mean and standard error of the block gains d.
func marginOf(d []float64) Margin {
	m := Margin{Blocks: len(d)}
	if len(d) == 0 {
		return m
	}
	var sd float64
	m.Gain, sd = stat.MeanStdDev(d, nil) // sd: the unbiased estimate, n−1
	if len(d) > 1 {
		m.SE = sd / math.Sqrt(float64(len(d)))
	}
	return m
}

// loopMargin is the margin of the loop family's offer, cross-fitted
// (valFolds). The offer is chosen on validation (which loops, how often
// each counts: loop.ChoosePasses), and its Fit there flatters it by what
// that choice fitted to the noise; a margin measured on the same samples
// inherits the flattery. Cross-fitted, the validation data fall into two
// folds, the choice is made again on each fold from the same trained
// loops, scored on that fold alone, and measured against the FIR on the
// other: every block gain then comes from a choice that did not see the
// block. This is Margin.CrossFit. The loops themselves were still
// early-stopped on all of validation; that smaller bias stays. Where
// validation cannot be folded, the margin is linearMargin's.
func (s *searcher) loopMargin(res *Result, fir func(u []float64) []float64) (Margin, error) {
	folds, ok := valFolds(s.val, s.base.ValSkip)
	if !ok {
		return linearMargin(s.val, s.base.ValSkip, res.LoopModel.Simulate, fir), nil
	}
	var d []float64
	for k, out := range folds {
		on := folds[1-k]
		var passes [2][]*loop.Result
		for p, pass := range res.loopPasses {
			for _, r := range pass {
				if r == nil || r.Model == nil {
					continue
				}
				f, err := loop.Of(r.Model).ValFit(on.val, on.skip)
				if err != nil {
					return Margin{}, err
				}
				rr := *r
				rr.ValFit = f
				passes[p] = append(passes[p], &rr)
			}
		}
		m, _, _, err := loop.ChoosePasses(on.val, on.skip, passes[0], passes[1])
		if err != nil {
			return Margin{}, err
		}
		d = append(d, blockGains(out.val, out.skip, m.Simulate, fir)...)
	}
	mg := marginOf(d)
	mg.CrossFit = true
	return mg, nil
}

// A fold is part of the validation data: its records, simulated from
// their start, and the samples of each left unscored at the start.
type fold struct {
	val  *data.Dataset
	skip int
}

// valFolds splits the validation data val, whose records are scored after
// skip samples, into two folds for cross-fitting. With two records or more
// of over skip samples, the folds are the even and the odd ones. With one
// (one long record held out by its tail, say, the commonest case of a user
// with a single experiment), it is split in time: the first fold scores
// the first half of its scored samples (the record cut there), the second
// the rest (the record whole, the first half simulated but not scored).
// Each half then holds at least minBlock samples. ok is false where
// neither split is possible: a record too short, or none.
func valFolds(val *data.Dataset, skip int) (folds [2]fold, ok bool) {
	var long []data.Batch
	for _, b := range val.Batches {
		if len(b.U) > skip {
			long = append(long, b)
		}
	}
	switch {
	case len(long) >= 2:
		for i, b := range long {
			k := i % 2
			if folds[k].val == nil {
				folds[k] = fold{val: &data.Dataset{Ts: val.Ts}, skip: skip}
			}
			folds[k].val.Batches = append(folds[k].val.Batches, b)
		}
		return folds, true
	case len(long) == 1 && len(long[0].U)-skip >= 2*minBlock:
		b := long[0]
		mid := skip + (len(b.U)-skip)/2
		first := data.Batch{U: b.U[:mid], Y: b.Y[:mid], Label: b.Label, Line: b.Line}
		if b.YClean != nil {
			first.YClean = b.YClean[:mid]
		}
		folds[0] = fold{val: &data.Dataset{Ts: val.Ts, Batches: []data.Batch{first}}, skip: skip}
		folds[1] = fold{val: &data.Dataset{Ts: val.Ts, Batches: []data.Batch{b}}, skip: mid}
		return folds, true
	}
	return folds, false
}

// clearOfLinear reports whether the model called name, whose margin over
// the linear FIR on validation is m, beats the FIR clearly (Margin.Clear),
// and records the margin of the model that is kept: the winner's when it
// is clear, and says so in the progress when it is not.
func (s *searcher) clearOfLinear(res *Result, name string, m Margin) bool {
	if res.linear == nil {
		return true
	}
	res.Margin = m
	if m.Clear() {
		return true
	}
	s.emit(Event{Stage: "fir", Candidate: Name(res.linear.Structure), ValFit: res.LinearFit,
		Note: fmt.Sprintf("kept: %s gains %s on validation, within one standard error", name, m)})
	return false
}

// firSim is the linear FIR's free-run simulation.
func (res *Result) firSim(u []float64) []float64 {
	y, _ := res.linear.Simulate(u)
	return y
}

// loopClear reports whether the loop family's offer clears the FIR
// (loopMargin). A margin that cannot be measured keeps the FIR: the loop
// cannot show its gain.
func (s *searcher) loopClear(res *Result) bool {
	if res.linear == nil {
		return true
	}
	name := res.Rows[res.loopRow].Name
	m, err := s.loopMargin(res, res.firSim)
	if err != nil {
		s.emit(Event{Stage: "fir", Candidate: Name(res.linear.Structure), ValFit: res.LinearFit,
			Note: fmt.Sprintf("kept: the margin of %s could not be measured: %v", name, err)})
		return false
	}
	return s.clearOfLinear(res, name, m)
}

// nfirMargin is an NFIR's margin over the linear FIR on validation.
func (s *searcher) nfirMargin(res *Result, m *model.NFIR) Margin {
	if res.linear == nil {
		return Margin{}
	}
	return linearMargin(s.val, s.base.ValSkip, func(u []float64) []float64 { y, _ := m.Simulate(u); return y }, res.firSim)
}
