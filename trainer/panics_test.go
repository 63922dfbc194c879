package trainer

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/passivenfir/gputrain/internal/gopanic"
	"github.com/passivenfir/gputrain/model"
)

// TestMembersPanic: a panic in a member's goroutine (here in its progress
// callback) fails the run with a *PanicError instead of ending the process.
func TestMembersPanic(t *testing.T) {
	st := model.Structure{Branches: 2, Taps: 6, R1: 1, R2: 1, Hidden: []int{3}, Feedback: true}
	truth, _ := model.RandomPassive(st, rand.New(rand.NewPCG(8, 8)))
	train := simulate(truth, 6, 40, 9)
	cfg := DefaultConfig()
	cfg.Structure = st
	cfg.Iters, cfg.Epochs, cfg.Members, cfg.Workers = 1, 2, 2, 1
	cfg.Progress = func(e Event) {
		if e.Member == 2 {
			panic("boom in member 2")
		}
	}
	_, err := Train(context.Background(), cfg, train, train)
	var pe *PanicError
	if !errors.As(err, &pe) || pe.Value != "boom in member 2" || len(pe.Stack) == 0 {
		t.Fatalf("err = %v, want a *PanicError with the value and a stack", err)
	}
	if !strings.Contains(err.Error(), "member 2") || !strings.Contains(err.Error(), "internal error") {
		t.Errorf("message %q does not name the member and the internal error", err)
	}
}

// TestCatchPanic: CatchPanic stores a panic as a *PanicError and leaves err
// alone otherwise.
func TestCatchPanic(t *testing.T) {
	f := func(p bool) (err error) {
		defer CatchPanic(&err)
		if p {
			panic(42)
		}
		return errors.New("plain")
	}
	var pe *PanicError
	if err := f(true); !errors.As(err, &pe) || pe.Value != 42 {
		t.Errorf("panic: err = %v", err)
	}
	if err := f(false); err == nil || err.Error() != "plain" {
		t.Errorf("no panic: err = %v, want plain", err)
	}
}

// TestCatchPanicPool: a panic a worker pool raised again (gopanic) keeps
// the worker's value and stack.
func TestCatchPanicPool(t *testing.T) {
	f := func() (err error) {
		defer CatchPanic(&err)
		var c gopanic.Catcher
		done := make(chan struct{})
		go func() { defer close(done); defer c.Catch(); panic("in a worker") }()
		<-done
		c.Repanic()
		return nil
	}
	var pe *PanicError
	if err := f(); !errors.As(err, &pe) || pe.Value != "in a worker" || !strings.Contains(string(pe.Stack), "TestCatchPanicPool.func1.1") {
		t.Errorf("err = %v, want the worker's value and stack", err)
	}
}
