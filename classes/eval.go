package classes

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/internal/gopanic"
	"github.com/passivenfir/gputrain/model"
)

// Evaluate simulates m on every record of d from rest and returns the Fit
// of the free-run output per record and summarized, with the conventions of
// trainer.Evaluate's closed loop: scored from sample skip on, against YClean
// when the data set has it, else against Y; a record whose scored output is
// zero has no Fit (NaN, left out of the summary; an error only when no record
// has one). workers bounds the records simulated at once (0: GOMAXPROCS).
func Evaluate(m Model, d *data.Dataset, skip, workers int) (model.Summary, error) {
	if d == nil || len(d.Batches) == 0 {
		return model.Summary{}, errors.New("classes: Evaluate: no data")
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	fits := make([]float64, len(d.Batches))
	errs := make([]error, len(d.Batches))
	var wg sync.WaitGroup
	var pc gopanic.Catcher // a worker's panic is raised again below, not in its goroutine
	sem := make(chan struct{}, workers)
	for i := range d.Batches {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			defer pc.Catch()
			b := d.Batches[i]
			target, name := b.Y, "y"
			if b.YClean != nil {
				target, name = b.YClean, "y_clean"
			}
			if len(b.U) != len(target) {
				errs[i] = fmt.Errorf("classes: %s: u has %d samples, %s %d", b.Name(i), len(b.U), name, len(target))
				return
			}
			if fits[i], errs[i] = model.Fit(target, m.Simulate(b.U), skip); errs[i] != nil {
				errs[i] = fmt.Errorf("classes: %s, scored against %s: %w", b.Name(i), name, errs[i])
			}
		}()
	}
	wg.Wait()
	pc.Repanic()
	var zero error
	for i, err := range errs {
		switch {
		case errors.Is(err, model.ErrZeroOutput):
			fits[i], zero = math.NaN(), err
		case err != nil:
			return model.Summary{}, err
		}
	}
	s := model.Summarize(fits)
	if math.IsNaN(s.Median) {
		return model.Summary{}, zero
	}
	return s, nil
}
