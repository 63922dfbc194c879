//go:build !unix

package atomicfile

// cannotSyncDir is true for every error: outside Unix (Windows, for one) a
// directory cannot be opened for syncing, and its rename is made durable by
// the file system itself.
func cannotSyncDir(error) bool { return true }
