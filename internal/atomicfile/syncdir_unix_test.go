//go:build unix

package atomicfile

import (
	"fmt"
	"syscall"
	"testing"
)

// TestCannotSyncDir: EINVAL and ENOTSUP (a file system that cannot sync a
// directory) are ignored, wrapped or not; an I/O error is not.
func TestCannotSyncDir(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{syscall.EINVAL, true},
		{fmt.Errorf("sync /x: %w", syscall.EINVAL), true},
		{syscall.ENOTSUP, true},
		{syscall.EIO, false},
		{syscall.ENOSPC, false},
	} {
		if got := cannotSyncDir(c.err); got != c.want {
			t.Errorf("cannotSyncDir(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
