//go:build unix

package atomicfile

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestWriteFifo: a named pipe is refused and left in place (renaming over
// it would replace the pipe, as it would a device such as /dev/null).
func TestWriteFifo(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	err := Write(fifo, func(w io.Writer) error { _, err := io.WriteString(w, "x"); return err })
	if err == nil || !strings.Contains(err.Error(), "a named pipe") {
		t.Errorf("writing over a named pipe: %v", err)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the pipe was replaced: %v %v", fi, err)
	}
}
