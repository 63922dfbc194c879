package trainer

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/internal/gopanic"
	"github.com/passivenfir/gputrain/model"
)

// Eval is the Fit of a model on a data set, per batch and summarized.
type Eval struct {
	ClosedLoop model.Summary `json:"closed_loop"` // the deployed model: q(t) = ŷ(t−1)
	OpenLoop   model.Summary `json:"open_loop"`   // q(t) = y(t−1) from the data (one-step-ahead); equals ClosedLoop for FF models
	// NRMSE scores the same predictions with MATLAB compare's fit
	// (model.NRMSEFit: against the mean of the output instead of zero); a
	// batch whose scored output is constant has none (NaN, left out).
	NRMSE struct {
		ClosedLoop model.Summary `json:"closed_loop"`
		OpenLoop   model.Summary `json:"open_loop"`
	} `json:"nrmse"`
}

// Evaluate simulates m on every batch of d and scores Fit % from sample skip
// on, against the noise-free output when the data set has it (YClean), else
// against the measured output. A batch whose output is zero over the scored
// samples has no Fit: it is NaN in PerBatch and left out of the summaries
// (an error only when no batch has a Fit).
func Evaluate(m *model.NFIR, d *data.Dataset, skip int) (Eval, error) {
	return EvaluateContext(context.Background(), m, d, skip)
}

// EvaluateContext is Evaluate that stops when ctx is cancelled (between
// batches and every few thousand samples of a closed-loop simulation) and
// returns an error wrapping ctx.Err().
func EvaluateContext(ctx context.Context, m *model.NFIR, d *data.Dataset, skip int) (Eval, error) {
	if d == nil || len(d.Batches) == 0 {
		return Eval{}, ErrNoData
	}
	if err := m.Check(); err != nil {
		return Eval{}, err
	}
	nb := len(d.Batches)
	closed := make([]float64, nb)
	open := make([]float64, nb)
	closedN, openN := make([]float64, nb), make([]float64, nb)
	errs := make([]error, nb)
	var wg sync.WaitGroup
	var pc gopanic.Catcher // a worker's panic is raised again below, not in its goroutine
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i := range d.Batches {
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		sem <- struct{}{}
		go func(i int) {
			defer wg.Done()
			defer func() { <-sem }()
			defer pc.Catch()
			b := d.Batches[i]
			target, name := b.Y, "y"
			if b.YClean != nil {
				target, name = b.YClean, "y_clean"
			}
			if len(b.U) != len(b.Y) {
				errs[i] = fmt.Errorf("trainer: %s: u has %d samples, y %d", b.Name(i), len(b.U), len(b.Y))
				return
			}
			// SimulateInto and ForwardInto hold the output only, not the
			// gains: m_N values per sample of a record of millions.
			ys := make([]float64, len(b.U))
			if err := m.SimulateInto(ctx, b.U, ys); err != nil {
				errs[i] = err
				return
			}
			if closed[i], errs[i] = model.Fit(target, ys, skip); errs[i] != nil {
				errs[i] = fmt.Errorf("trainer: %s, scored against %s: %w", b.Name(i), name, errs[i])
				return
			}
			closedN[i] = nrmseFit(target, ys, skip)
			if !m.Feedback {
				open[i], openN[i] = closed[i], closedN[i]
				return
			}
			if errs[i] = ctx.Err(); errs[i] != nil {
				return
			}
			yo := ys // the closed-loop output is scored: its buffer is free
			err := m.ForwardInto(ctx, b.U, data.Q(b.Y), yo)
			if err == nil {
				open[i], err = model.Fit(target, yo, skip)
				openN[i] = nrmseFit(target, yo, skip)
			}
			if err != nil {
				errs[i] = fmt.Errorf("trainer: %s: %w", b.Name(i), err)
			}
		}(i)
	}
	wg.Wait()
	pc.Repanic()
	if err := ctx.Err(); err != nil {
		return Eval{}, fmt.Errorf("trainer: evaluation interrupted: %w", err)
	}
	var zero error
	for i, err := range errs {
		switch {
		case errors.Is(err, model.ErrZeroOutput):
			// Fit is undefined on this batch alone: it is NaN in PerBatch
			// and left out of the summaries, unless every batch is so.
			closed[i], open[i] = math.NaN(), math.NaN()
			closedN[i], openN[i] = math.NaN(), math.NaN()
			zero = err
		case err != nil:
			return Eval{}, err
		}
	}
	ev := Eval{ClosedLoop: model.Summarize(closed), OpenLoop: model.Summarize(open)}
	ev.NRMSE.ClosedLoop, ev.NRMSE.OpenLoop = model.Summarize(closedN), model.Summarize(openN)
	if math.IsNaN(ev.ClosedLoop.Median) {
		return Eval{}, zero
	}
	return ev, nil
}

// nrmseFit is model.NRMSEFit with NaN for "undefined" (a constant output),
// which Summarize leaves out; shapes were checked by model.Fit before.
func nrmseFit(y, yhat []float64, skip int) float64 {
	f, err := model.NRMSEFit(y, yhat, skip)
	if err != nil {
		return math.NaN()
	}
	return f
}
