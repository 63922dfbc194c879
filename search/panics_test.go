package search

import (
	"context"
	"errors"
	"testing"

	"github.com/passivenfir/gputrain/trainer"
)

// TestTrainSafe: a panic while a candidate trains (here in its progress
// callback, on the worker's goroutine) comes back as a *trainer.PanicError,
// the candidate's failure, instead of ending the process.
func TestTrainSafe(t *testing.T) {
	cfg := tiny()
	cfg.Progress = func(trainer.Event) { panic("boom") }
	d := msd(t, 2, 1)
	res, err := trainSafe(context.Background(), cfg, d, d)
	var pe *trainer.PanicError
	if res != nil || !errors.As(err, &pe) || pe.Value != "boom" {
		t.Fatalf("trainSafe = %v, %v; want nil and a *trainer.PanicError", res, err)
	}
}
