package main

import (
	"runtime/debug"

	"github.com/passivenfir/gputrain/internal/sysmem"
	"github.com/passivenfir/gputrain/trainer"
)

// testHookMemAvailable, when set by a test, replaces the machine's
// available memory (sysmem.Available), so that the memory check is
// deterministic.
var testHookMemAvailable func() (uint64, bool)

// checkMemory refuses (exit 2) a training run whose estimated peak memory
// exceeds what the machine has available, with the estimate, its terms and
// the flags that shrink the largest; it does nothing where the available
// memory is unknown. A run estimated at more than half of it gets a soft
// memory limit at the available memory, so that the garbage collector works
// harder rather than let the heap grow to twice the live data.
// estimate is called only where the available memory is known.
func checkMemory(estimate func() trainer.MemoryEstimate, prog *progress) error {
	avail, ok := sysmem.Available()
	if testHookMemAvailable != nil {
		avail, ok = testHookMemAvailable()
	}
	if !ok {
		return nil
	}
	est := estimate()
	a := float64(avail)
	if est.Total > a {
		l := est.Largest()
		return usagef("this run needs about %s of memory, more than the %s available: %s is the largest term; to fit, change %s (memory estimate: %s)",
			trainer.Bytes(est.Total), trainer.Bytes(a), l.Name, l.Flags, est)
	}
	if est.Total > a/2 {
		debug.SetMemoryLimit(int64(a))
		prog.note("note: this run needs about %s of the %s of memory available; the garbage collector is held to the latter", trainer.Bytes(est.Total), trainer.Bytes(a))
	}
	return nil
}
