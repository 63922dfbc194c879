package sweep

import (
	"runtime"
	"testing"
)

// TestOversubscribe: RunAll's GOMAXPROCS is two per concurrent trial while
// it runs, never lowered, and put back afterwards.
func TestOversubscribe(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, c := range []struct{ start, parallel, during int }{
		{1, 1, 1},
		{1, 2, 4},
		{2, 2, 4},
		{2, 3, 6},
		{8, 2, 8},
		{4, 0, 4},
	} {
		runtime.GOMAXPROCS(c.start)
		restore := oversubscribe(c.parallel)
		if got := runtime.GOMAXPROCS(0); got != c.during {
			t.Errorf("start %d, parallel %d: GOMAXPROCS %d while running, want %d", c.start, c.parallel, got, c.during)
		}
		restore()
		if got := runtime.GOMAXPROCS(0); got != c.start {
			t.Errorf("start %d, parallel %d: GOMAXPROCS %d afterwards, want %d", c.start, c.parallel, got, c.start)
		}
	}
}
