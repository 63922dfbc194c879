package baselines

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
)

// TestGate: a nil Gate runs f at once; a Gate of n slots never runs more
// than n at a time; a slot comes back when f panics; a done context ends
// the wait with its error and f not run.
func TestGate(t *testing.T) {
	ran := false
	if err := Gate(nil).Do(context.Background(), func() { ran = true }); err != nil || !ran {
		t.Errorf("nil gate: ran %v, error %v", ran, err)
	}

	for _, n := range []int{1, 2, 3} {
		g := NewGate(n)
		var now, most atomic.Int32
		var wg sync.WaitGroup
		for range 8 * n {
			wg.Go(func() {
				_ = g.Do(context.Background(), func() {
					c := now.Add(1)
					for {
						m := most.Load()
						if c <= m || most.CompareAndSwap(m, c) {
							break
						}
					}
					for range 1000 {
						_ = fmt.Sprint(c) // some work, so that callers overlap
					}
					now.Add(-1)
				})
			})
		}
		wg.Wait()
		if most.Load() > int32(n) {
			t.Errorf("gate of %d: %d ran at once", n, most.Load())
		}
	}

	for _, n := range []int{0, -1} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("NewGate(%d) did not panic", n)
				}
			}()
			NewGate(n)
		}()
	}

	g := NewGate(1)
	func() {
		defer func() { _ = recover() }()
		_ = g.Do(context.Background(), func() { panic("f") })
	}()
	if len(g) != 0 {
		t.Error("a panicking f kept its slot")
	}

	g <- struct{}{} // the only slot taken
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ran = false
	if err := g.Do(ctx, func() { ran = true }); !errors.Is(err, context.Canceled) || ran {
		t.Errorf("done context: error %v, ran %v; want context.Canceled, not run", err, ran)
	}
}

// Trainings side by side on a gate of one slot compute one step at a
// time, whatever GOMAXPROCS is; each gets the same result as alone.
func ExampleGate() {
	gate := NewGate(1)
	var wg sync.WaitGroup
	sums := make([]int, 3)
	for k := range sums {
		wg.Go(func() {
			for step := range 100 {
				_ = gate.Do(context.Background(), func() { sums[k] += step * (k + 1) })
			}
		})
	}
	wg.Wait()
	fmt.Println(sums)
	// Output: [4950 9900 14850]
}
