//go:build unix

package atomicfile

import (
	"errors"
	"syscall"
)

// cannotSyncDir reports an error that says a directory cannot be synced here
// (some network and FUSE file systems answer fsync on a directory with
// EINVAL or ENOTSUP), as opposed to a failed sync.
func cannotSyncDir(err error) bool {
	return errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOTSUP) ||
		errors.Is(err, syscall.EOPNOTSUPP) || errors.Is(err, errors.ErrUnsupported)
}
