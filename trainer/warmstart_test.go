package trainer

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/passivenfir/gputrain/model"
)

// TestWarmStart: a run from Config.Start begins at the start's parameters
// (with no Adam epochs and no gain to the θ_G step it returns them) and is
// never worse on validation than the start, with and without the automatic
// scaling, which converts the start into the scaled units and back.
func TestWarmStart(t *testing.T) {
	st := model.Structure{Branches: 2, Taps: 6, R1: 1, R2: 1, Hidden: []int{3}, Feedback: true}
	truth, _ := model.RandomPassive(st, rand.New(rand.NewPCG(8, 8)))
	train := simulate(truth, 10, 60, 9)
	val := simulate(truth, 4, 60, 10)
	for i := range train.Batches { // units far from the defaults': --scale auto rescales
		for j := range train.Batches[i].Y {
			train.Batches[i].U[j] *= 40
			train.Batches[i].Y[j] *= 40 * 40
		}
	}
	for i := range val.Batches {
		for j := range val.Batches[i].Y {
			val.Batches[i].U[j] *= 40
			val.Batches[i].Y[j] *= 40 * 40
		}
	}
	for _, scale := range []Scale{"none", "auto"} {
		cfg := DefaultConfig()
		cfg.Structure, cfg.Scale = st, scale
		cfg.Iters, cfg.Epochs, cfg.Workers = 1, 3, 1
		first, err := Train(context.Background(), cfg, train, val)
		if err != nil {
			t.Fatal(err)
		}
		start, _ := Evaluate(first.Model, val, 0)

		var events []Event
		cfg.Start, cfg.Seed = first.Model, 2
		cfg.Progress = func(e Event) { events = append(events, e) }
		again, err := Train(context.Background(), cfg, train, val)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := Evaluate(again.Model, val, 0)
		if got.ClosedLoop.Median < start.ClosedLoop.Median-1e-9 {
			t.Errorf("scale %s: warm start ended at validation Fit %.6f, below the start's %.6f", scale, got.ClosedLoop.Median, start.ClosedLoop.Median)
		}
		if len(events) == 0 || events[0].Stage != "eval" || events[0].Iter != -1 || events[0].ValFit != start.ClosedLoop.Median {
			t.Errorf("scale %s: the first event should score the start (Fit %g): %+v", scale, start.ClosedLoop.Median, events[:min(1, len(events))])
		}
		if !again.Cert.Passive {
			t.Errorf("scale %s: not passive", scale)
		}
	}

	// The start is checked against the configuration.
	cfg := DefaultConfig()
	cfg.Structure = st
	other := st
	other.Taps = 7
	cfg.Start, _ = model.New(other)
	if err := cfg.Check(); !errors.Is(err, ErrConfig) {
		t.Errorf("a start of another structure: %v; want ErrConfig", err)
	}
	cfg.Start, cfg.Members = truth, 2
	if err := cfg.Check(); !errors.Is(err, ErrConfig) {
		t.Errorf("members with a start: %v; want ErrConfig", err)
	}
}
