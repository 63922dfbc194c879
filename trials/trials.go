package trials

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
)

// Task is trial i. It should return soon after ctx is cancelled.
type Task func(ctx context.Context, i int) error

// An Executor runs the trials 0 … n−1 and returns their errors by index.
// Run returns when every task that started has returned.
type Executor interface {
	Run(ctx context.Context, n int, task Task) []error
}

// ErrNotStarted is the error of a task that was not called because the
// context was cancelled first; it is joined with the context's error.
var ErrNotStarted = errors.New("trials: not started")

// PanicError is a task's panic, returned as its error.
type PanicError struct {
	Value any
	Stack []byte
}

func (e *PanicError) Error() string { return fmt.Sprintf("internal error: panic: %v", e.Value) }

// Local runs tasks in goroutines of this process, Parallel at a time (0:
// GOMAXPROCS), started in index order.
type Local struct {
	Parallel int
}

var _ Executor = Local{}

// Run implements Executor.
func (l Local) Run(ctx context.Context, n int, task Task) []error {
	errs := make([]error, n)
	if n == 0 {
		return errs
	}
	par := l.Parallel
	if par <= 0 {
		par = runtime.GOMAXPROCS(0)
	}
	par = min(par, n)
	next := make(chan int)
	var wg sync.WaitGroup
	for range par {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if ctx.Err() != nil { // cancelled while i was handed over
					errs[i] = errors.Join(ErrNotStarted, ctx.Err())
					continue
				}
				errs[i] = call(ctx, task, i)
			}
		}()
	}
	for i := range n {
		if ctx.Err() != nil {
			errs[i] = errors.Join(ErrNotStarted, ctx.Err())
			continue
		}
		next <- i
	}
	close(next)
	wg.Wait()
	return errs
}

// call runs task i with its panic as its error.
func call(ctx context.Context, task Task, i int) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &PanicError{Value: p, Stack: debug.Stack()}
		}
	}()
	return task(ctx, i)
}

// Started reports whether a task with this error was called.
func Started(err error) bool { return !errors.Is(err, ErrNotStarted) }
