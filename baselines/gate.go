package baselines

import (
	"context"
	"fmt"
)

// Gate bounds how many trainings running side by side compute at once:
// each step of work holds one of its cap slots (a nil Gate: no bound), so
// together they keep to that many cores whatever the runtime's GOMAXPROCS.
// Waiting steps take their turns first in, first out (a channel's blocked
// senders are served in order). It changes when work runs, never what it
// computes.
type Gate chan struct{}

// NewGate returns a Gate of n slots. It panics for n < 1, as make does
// for a negative length: a gate without slots would stall every caller.
func NewGate(n int) Gate {
	if n < 1 {
		panic(fmt.Sprintf("baselines: NewGate(%d): a gate needs at least one slot", n))
	}
	return make(Gate, n)
}

// Do runs f holding one slot, given back even if f panics. It returns
// ctx's error, without running f, when ctx is done before a slot frees.
func (g Gate) Do(ctx context.Context, f func()) error {
	if g == nil {
		f()
		return nil
	}
	select {
	case g <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-g }()
	f()
	return nil
}
