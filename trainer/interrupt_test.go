package trainer

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/model"
)

// TestCancelDuringGram: Ctrl-C while the θ_G step assembles the Gram
// matrix of a long record (≈ 30 s of work at one worker) stops the run
// within a second or so, with context.Canceled; before the assembly checked
// the context it ran to the end.
func TestCancelDuringGram(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 2))
	const T = 400_000
	u, y := make([]float64, T), make([]float64, T)
	for i := range u {
		u[i] = rng.NormFloat64()
		if i > 0 {
			y[i] = 0.5*u[i] + 0.3*u[i-1]
		}
	}
	train := &data.Dataset{Name: "long", Ts: 1, Batches: []data.Batch{{U: u, Y: y}}}
	cfg := DefaultConfig()
	cfg.Structure = model.Structure{LinearTaps: 800}
	cfg.Workers = 1
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	at := make(chan time.Time, 1)
	cfg.Progress = func(e Event) {
		if e.Stage == "solve" {
			time.AfterFunc(20*time.Millisecond, func() { at <- time.Now(); cancel() })
		}
	}
	_, err := Train(ctx, cfg, train, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	var cancelled time.Time
	select {
	case cancelled = <-at:
	default:
		t.Fatal("returned before the cancellation: the test checks nothing")
	}
	if d := time.Since(cancelled); d > 2*time.Second {
		t.Errorf("Train took %v to stop after Ctrl-C during the Gram assembly", d)
	}
}

// TestCancelSkipsEvaluation: Ctrl-C during the second iteration's Adam
// step ends the run without scoring that iterate (its eval event is NaN and
// says so), and the model returned is the first iteration's, the best
// scored; before, the interrupted iterate was simulated on the whole
// validation set first.
func TestCancelSkipsEvaluation(t *testing.T) {
	train, err := data.GenerateMSD(data.MSDConfig{Batches: 4, Seed: 1, Samples: 150})
	if err != nil {
		t.Fatal(err)
	}
	val, err := data.GenerateMSD(data.MSDConfig{Batches: 2, Seed: 2, Samples: 150})
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Structure = model.Structure{Branches: 2, Taps: 10, R1: 1, R2: 1, Hidden: []int{4}, Feedback: true}
	cfg.Iters, cfg.Epochs, cfg.Patience, cfg.Workers = 3, 50, 0, 1
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var evals []Event
	cfg.Progress = func(e Event) {
		switch {
		case e.Stage == "adam" && e.Iter == 1 && e.Epoch == 2:
			cancel()
		case e.Stage == "eval":
			evals = append(evals, e)
		}
	}
	res, err := Train(ctx, cfg, train, val)
	if !errors.Is(err, context.Canceled) || res == nil {
		t.Fatalf("err = %v, result %v; want context.Canceled with the best model", err, res != nil)
	}
	if len(evals) != 2 || math.IsNaN(evals[0].ValFit) || !math.IsNaN(evals[1].ValFit) || !strings.Contains(evals[1].Note, "not scored") {
		t.Fatalf("eval events %+v: want iteration 1 scored, iteration 2 not", evals)
	}
	if math.Abs(res.BestValFit-evals[0].ValFit) > 1e-4 { // rescaled back to the data's units: rounding
		t.Errorf("returned the model scoring %v, want the first iteration's %v", res.BestValFit, evals[0].ValFit)
	}
}
