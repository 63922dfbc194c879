package search

import (
	"fmt"
	"math"

	"github.com/passivenfir/gputrain/data"
)

// Never worse than linear, on evidence. The nonlinear model that scores
// best on validation replaces the passive linear FIR only when its gain is
// larger than the validation data can blur: a near-linear plant measured
// with output noise can hand a model of thousands of parameters a fraction
// of a point over the FIR by chance. (On the zoo's softspring-noisy20 case,
// session 25, the loop won validation by 0.93 points and lost the test by
// 2.2; its block gain, +0.92 ± 0.78, still clears this rule: the loop's
// members were chosen on the same validation data, whose Fit then flatters
// them, which this rule does not correct. On the other zoo cases the
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
	return fmt.Sprintf("%+.2f ± %.2f points over %d blocks", m.Gain, m.SE, m.Blocks)
}

// linearMargin compares the free-run simulations sim and fir on the
// validation records, the first skip samples of each simulated but not
// scored, against the noise-free output where the records keep it
// (YClean), as trainer.Evaluate scores them.
func linearMargin(val *data.Dataset, skip int, sim, fir func(u []float64) []float64) Margin {
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
	m := Margin{Blocks: len(d)}
	if len(d) == 0 {
		return m
	}
	for _, v := range d {
		m.Gain += v
	}
	m.Gain /= float64(len(d))
	if len(d) > 1 {
		var ss float64
		for _, v := range d {
			ss += (v - m.Gain) * (v - m.Gain)
		}
		m.SE = math.Sqrt(ss / float64(len(d)-1) / float64(len(d)))
	}
	return m
}

// clearOfLinear reports whether the model simulated by sim, called name,
// beats the linear FIR clearly on validation (Margin.Clear), and records
// the margin of the model that is kept: the winner's when it is clear, and
// says so in the progress when it is not.
func (s *searcher) clearOfLinear(res *Result, name string, sim func(u []float64) []float64) bool {
	if res.linear == nil {
		return true
	}
	fir := func(u []float64) []float64 { y, _ := res.linear.Simulate(u); return y }
	m := linearMargin(s.val, s.base.ValSkip, sim, fir)
	if m.Clear() {
		res.Margin = m
		return true
	}
	s.emit(Event{Stage: "fir", Candidate: Name(res.linear.Structure), ValFit: res.LinearFit,
		Note: fmt.Sprintf("kept: %s gains %s on validation, within one standard error", name, m)})
	res.Margin = m
	return false
}
