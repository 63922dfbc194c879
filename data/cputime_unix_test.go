//go:build unix

package data

import "syscall"

// cpuTime returns the process's user+system CPU time in nanoseconds; the
// benchmarks report it per op because wall time on a shared 2-core machine
// depends on what else runs.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
