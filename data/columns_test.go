package data

import (
	"os"
	"path/filepath"
	"testing"
)

// TestReadFileNamesColumns: a data set read from a file knows the names of
// its input and output (figures label their axes with them).
func TestReadFileNamesColumns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.csv")
	if err := os.WriteFile(path, []byte("force,Position\n1,2\n3,4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		opt          ReadOptions
		wantU, wantY string
	}{
		{ReadOptions{UCol: "force", YCol: "Position"}, "force", "Position"},
		{ReadOptions{UCol: "force", YCol: "position"}, "force", "position"}, // as asked: CSV names match case-insensitively
	} {
		d, err := ReadFile(path, tc.opt)
		if err != nil {
			t.Fatal(err)
		}
		if d.UCol != tc.wantU || d.YCol != tc.wantY {
			t.Errorf("ReadFile(%+v): columns %q, %q, want %q, %q", tc.opt, d.UCol, d.YCol, tc.wantU, tc.wantY)
		}
	}
}
