package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestWriteSyncsDir: Write syncs the destination's directory after the
// rename (the new content is in place when it does), and reports a failed
// directory sync.
func TestWriteSyncsDir(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	var synced []string
	failWith := error(nil)
	syncDir = func(d string) error {
		b, _ := os.ReadFile(path)
		synced = append(synced, d+":"+string(b))
		return failWith
	}
	t.Cleanup(func() { syncDir = syncDirOS })
	put := func(s string) error {
		return Write(path, func(w io.Writer) error { _, err := io.WriteString(w, s); return err })
	}
	if err := put("one"); err != nil {
		t.Fatal(err)
	}
	if want := dir + ":one"; len(synced) != 1 || synced[0] != want {
		t.Errorf("directory syncs %q, want [%q]: once, after the rename", synced, want)
	}
	failWith = errors.New("EIO")
	if err := put("two"); err == nil || !errors.Is(err, failWith) {
		t.Errorf("a failed directory sync gave %v, want it reported", err)
	}
}

// TestSyncDirOS: a real directory syncs, a missing one is an error, and
// errors.ErrUnsupported means that a directory cannot be synced here.
func TestSyncDirOS(t *testing.T) {
	if err := syncDirOS(t.TempDir()); err != nil {
		t.Errorf("sync of a temporary directory: %v", err)
	}
	if err := syncDirOS(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("sync of a missing directory succeeded")
	}
	if !cannotSyncDir(errors.ErrUnsupported) {
		t.Error("errors.ErrUnsupported is not taken for 'cannot sync a directory here'")
	}
}

// TestBackup: the backup holds the old content after the file is replaced,
// replaces an older backup, and nothing is made for a missing file.
func TestBackup(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "model.json")
	if bak, err := Backup(path); err != nil || bak != "" {
		t.Fatalf("Backup of a missing file = %q, %v; want \"\", nil", bak, err)
	}
	put := func(s string) {
		t.Helper()
		if err := Write(path, func(w io.Writer) error { _, err := io.WriteString(w, s); return err }); err != nil {
			t.Fatal(err)
		}
	}
	put("first")
	for _, next := range []string{"second", "third"} {
		old, _ := os.ReadFile(path)
		bak, err := Backup(path)
		if err != nil || bak != path+".bak" {
			t.Fatalf("Backup = %q, %v", bak, err)
		}
		put(next)
		if b, _ := os.ReadFile(bak); string(b) != string(old) {
			t.Errorf("backup holds %q, want %q", b, old)
		}
		if b, _ := os.ReadFile(path); string(b) != next {
			t.Errorf("file holds %q, want %q", b, next)
		}
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 2 {
		t.Errorf("directory holds %v, want the file and its backup only", ents)
	}
}
