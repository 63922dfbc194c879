package main

import (
	"context"
	"errors"
	"fmt"
)

// orInterrupt runs f and returns its result, or ctx's error as soon as ctx
// is cancelled, for work that cannot look at a context itself (a model of
// another class simulating a long record). The abandoned f runs on in the
// background until the process exits, which it does right after.
func orInterrupt[T any](ctx context.Context, f func() (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := f()
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}

// interrupted is the exit-1 error of a command stopped by Ctrl-C (or
// SIGTERM): what says what was or was not written.
func interrupted(what string) error {
	return failf("interrupted: %s", what)
}

// isInterrupt reports whether err comes from a cancelled context.
func isInterrupt(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// wroteRows says how much of a simulation reached stdout before Ctrl-C.
func wroteRows(rows, total int) string {
	if rows == 0 {
		return "nothing written to stdout"
	}
	return fmt.Sprintf("%d of %d rows written to stdout (the output is incomplete)", rows, total)
}
