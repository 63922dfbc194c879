package trainer

import (
	"fmt"
	"runtime/debug"

	"github.com/passivenfir/gputrain/internal/gopanic"
)

// PanicError is a panic in a worker goroutine (a member of Config.Members,
// a candidate of a structure search), turned into an error: Go ends the
// whole process with a stack trace for a panic that its own goroutine does
// not recover, which no caller could report as a bug in one line. Stack is
// the worker's stack, for a bug report.
type PanicError struct {
	Value any
	Stack []byte
}

func (e *PanicError) Error() string { return fmt.Sprintf("internal error: panic: %v", e.Value) }

// CatchPanic, deferred directly by a worker goroutine, stores a panic of
// that goroutine in *err as a *PanicError:
//
//	go func() {
//		var err error
//		defer trainer.CatchPanic(&err)
//		…
//	}()
func CatchPanic(err *error) {
	if p := recover(); p != nil {
		if gp, ok := p.(*gopanic.Panic); ok {
			// raised again from a pool of workers below: keep the worker's stack
			*err = &PanicError{Value: gp.Value, Stack: gp.Stack}
			return
		}
		*err = &PanicError{Value: p, Stack: debug.Stack()}
	}
}
