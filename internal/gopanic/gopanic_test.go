package gopanic

import (
	"strings"
	"sync"
	"testing"
)

// TestRepanic: a worker's panic is raised again in the waiting goroutine,
// with its value and the worker's stack; a pool without one returns.
func TestRepanic(t *testing.T) {
	pool := func(bad int) (got any) {
		defer func() { got = recover() }()
		var c Catcher
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Catch()
				if w == bad {
					panic("boom")
				}
			}()
		}
		wg.Wait()
		c.Repanic()
		return nil
	}
	if got := pool(-1); got != nil {
		t.Errorf("a pool without a panic raised %v", got)
	}
	p, ok := pool(2).(*Panic)
	if !ok || p.Value != "boom" || p.String() != "boom" || !strings.Contains(string(p.Stack), "gopanic") {
		t.Errorf("raised %#v, want a *Panic of boom with the worker's stack", p)
	}
}

// TestNested: a pool inside a pool's worker keeps the innermost value.
func TestNested(t *testing.T) {
	var outer Catcher
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer outer.Catch()
		var inner Catcher
		ch := make(chan struct{})
		go func() { defer close(ch); defer inner.Catch(); panic(7) }()
		<-ch
		inner.Repanic()
	}()
	<-done
	defer func() {
		if p, ok := recover().(*Panic); !ok || p.Value != 7 {
			t.Errorf("raised %v, want the inner *Panic of 7", p)
		}
	}()
	outer.Repanic()
}
