package trials

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"
)

func TestLocal(t *testing.T) {
	for _, tc := range []struct {
		name     string
		n, par   int
		wantPeak int // the most tasks running at once
	}{
		{"serial", 5, 1, 1},
		{"two at a time", 6, 2, 2},
		{"more workers than tasks", 3, 8, 3},
		{"none", 0, 2, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var running, peak atomic.Int32
			order := make(chan int, tc.n)
			errs := Local{Parallel: tc.par}.Run(context.Background(), tc.n, func(_ context.Context, i int) error {
				order <- i
				r := running.Add(1)
				for p := peak.Load(); r > p && !peak.CompareAndSwap(p, r); p = peak.Load() {
				}
				time.Sleep(50 * time.Millisecond)
				running.Add(-1)
				if i%2 == 1 {
					return fmt.Errorf("odd %d", i)
				}
				return nil
			})
			if len(errs) != tc.n {
				t.Fatalf("%d errors for %d tasks", len(errs), tc.n)
			}
			for i, err := range errs {
				if (err != nil) != (i%2 == 1) || (err != nil && err.Error() != fmt.Sprintf("odd %d", i)) {
					t.Errorf("task %d: error %v", i, err)
				}
			}
			if int(peak.Load()) != tc.wantPeak {
				t.Errorf("%d tasks ran at once, want %d", peak.Load(), tc.wantPeak)
			}
			if tc.par == 1 {
				close(order)
				k := 0
				for i := range order {
					if i != k {
						t.Errorf("task %d started as number %d: not in index order", i, k)
					}
					k++
				}
			}
		})
	}
}

func TestLocalPanic(t *testing.T) {
	errs := Local{Parallel: 2}.Run(context.Background(), 3, func(_ context.Context, i int) error {
		if i == 1 {
			panic("boom")
		}
		return nil
	})
	var pe *PanicError
	if !errors.As(errs[1], &pe) || pe.Value != "boom" || len(pe.Stack) == 0 {
		t.Fatalf("task 1's error %v, want the panic with its stack", errs[1])
	}
	if errs[0] != nil || errs[2] != nil {
		t.Errorf("the other tasks failed too: %v", errs)
	}
}

func TestLocalCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var calls atomic.Int32
	errs := Local{Parallel: 1}.Run(ctx, 5, func(ctx context.Context, i int) error {
		calls.Add(1)
		if i == 1 {
			cancel()
		}
		return ctx.Err()
	})
	if calls.Load() != 2 {
		t.Errorf("%d tasks called, want 2 (the rest were not started)", calls.Load())
	}
	for i, err := range errs {
		notStarted := i >= 2
		if Started(err) == notStarted || (notStarted && !errors.Is(err, context.Canceled)) {
			t.Errorf("task %d: error %v", i, err)
		}
	}
}
