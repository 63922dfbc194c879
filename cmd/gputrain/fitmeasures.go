package main

import (
	"math"

	"github.com/passivenfir/gputrain/classes"
	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/model"
)

// The two fit measures eval reports, as they are labelled in its output:
// the paper's (model.Fit) and MATLAB compare's (model.NRMSEFit). They
// differ by the reference the error is measured against: zero or the mean.
const (
	fitPaperFormula = "Fit = 100·(1 − ‖y − ŷ‖/‖y‖) (the paper's)"
	fitNRMSEFormula = "NRMSE fit = 100·(1 − ‖y − ŷ‖/‖y − mean(y)‖) (MATLAB compare)"
)

// fitMeasures names the formula of each fit key of eval --json.
func fitMeasures() map[string]string {
	return map[string]string{"fit": fitPaperFormula, "nrmse_fit": fitNRMSEFormula}
}

// fitJSON is one fit measure in closed and open loop, as eval --json writes it.
type fitJSON struct {
	ClosedLoop summaryJSON `json:"closed_loop"`
	OpenLoop   summaryJSON `json:"open_loop"`
}

func toFitJSON(closed, open model.Summary) fitJSON {
	return fitJSON{ClosedLoop: toSummaryJSON(closed), OpenLoop: toSummaryJSON(open)}
}

// classNRMSE is the NRMSE fit of a model of another class (which sees u
// only: closed and open loop are one) per batch of d, scored as
// classes.Evaluate scores Fit: against y_clean where the data has it.
func classNRMSE(m classes.Model, d *data.Dataset, skip int) model.Summary {
	fits := make([]float64, d.Len())
	for i, b := range d.Batches {
		target := b.Y
		if b.YClean != nil {
			target = b.YClean
		}
		f, err := model.NRMSEFit(target, m.Simulate(b.U), skip)
		if err != nil {
			f = math.NaN()
		}
		fits[i] = f
	}
	return model.Summarize(fits)
}
