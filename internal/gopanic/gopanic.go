package gopanic

import (
	"fmt"
	"runtime/debug"
	"sync"
)

// Panic is a worker's panic raised again by Repanic: the value the worker
// panicked with and its stack, which the raising goroutine's stack no
// longer shows.
type Panic struct {
	Value any
	Stack []byte
}

// String is the value, as a recovered panic is printed.
func (p *Panic) String() string { return fmt.Sprint(p.Value) }

// Error is String, so that a recovered *Panic can be returned as an error.
func (p *Panic) Error() string { return p.String() }

// Catcher holds the first panic of a pool of workers. The zero value is
// ready to use; it is safe for concurrent use.
type Catcher struct {
	mu sync.Mutex
	p  *Panic
}

// Catch, deferred directly by a worker goroutine, recovers its panic and
// keeps the first one of the pool:
//
//	var c gopanic.Catcher
//	for … {
//		wg.Add(1)
//		go func() {
//			defer wg.Done()
//			defer c.Catch()
//			…
//		}()
//	}
//	wg.Wait()
//	c.Repanic()
func (c *Catcher) Catch() {
	r := recover()
	if r == nil {
		return
	}
	p, ok := r.(*Panic) // a nested pool's panic keeps its first stack
	if !ok {
		p = &Panic{Value: r, Stack: debug.Stack()}
	}
	c.mu.Lock()
	if c.p == nil {
		c.p = p
	}
	c.mu.Unlock()
}

// Repanic panics with the first panic caught, as a *Panic, and does
// nothing when no worker panicked. Call it after every worker has ended.
func (c *Catcher) Repanic() {
	c.mu.Lock()
	p := c.p
	c.mu.Unlock()
	if p != nil {
		panic(p)
	}
}
