package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	if err := Write(path, func(w io.Writer) error { _, err := io.WriteString(w, "one"); return err }); err != nil {
		t.Fatal(err)
	}
	// A failing writer leaves the previous content and no temporary file.
	boom := errors.New("boom")
	err := Write(path, func(w io.Writer) error {
		io.WriteString(w, "partial")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
	b, _ := os.ReadFile(path)
	if string(b) != "one" {
		t.Errorf("content %q after a failed write, want the old one", b)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("directory holds %d entries, want 1: %v", len(ents), ents)
	}
	st, _ := os.Stat(path)
	if st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", st.Mode().Perm())
	}
	if err := Write(filepath.Join(dir, "missing", "x"), func(io.Writer) error { return nil }); err == nil {
		t.Error("write into a missing directory succeeded")
	}
}

// TestWriteSpecial: a symbolic link is followed (its target replaced, the
// link kept), a replaced file keeps its permission bits, and a directory is
// refused.
func TestWriteSpecial(t *testing.T) {
	dir := t.TempDir()
	put := func(path, s string) error {
		return Write(path, func(w io.Writer) error { _, err := io.WriteString(w, s); return err })
	}
	target, link := filepath.Join(dir, "target.json"), filepath.Join(dir, "link.json")
	if err := os.WriteFile(target, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("target.json", link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	if err := put(link, "new"); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", fi, err)
	}
	if b, _ := os.ReadFile(target); string(b) != "new" {
		t.Errorf("target holds %q, want new", b)
	}
	if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o600 {
		t.Errorf("target mode %v, want 0600 kept", fi.Mode().Perm())
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := put(sub, "x"); err == nil || !strings.Contains(err.Error(), "a directory") {
		t.Errorf("writing over a directory: %v", err)
	}
	dangling := filepath.Join(dir, "dangling")
	if err := os.Symlink("nowhere/x", dangling); err != nil {
		t.Fatal(err)
	}
	if err := put(dangling, "x"); err == nil {
		t.Error("wrote through a dangling link")
	}
}
