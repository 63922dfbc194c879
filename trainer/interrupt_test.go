package trainer

import (
	"context"
	"errors"
	"math/rand/v2"
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
