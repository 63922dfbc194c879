package model

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/passivenfir/gputrain/internal/schema"
)

var updateSchema = flag.Bool("update", false, "rewrite the golden file-format shapes in testdata/schema")

// TestSchemaGolden holds the shape of a model file (every key and its JSON
// type, internal/schema) to testdata/schema/nfir.golden: a key renamed,
// added or dropped is a change of docs/MODEL_FORMAT.md and of every
// independent reader, and shows in review as a change of the golden file.
// Run 'go test ./model -run TestSchemaGolden -update' to rewrite it.
func TestSchemaGolden(t *testing.T) {
	m, err := New(Structure{Branches: 2, Taps: 3, R1: 2, R2: 1, Hidden: []int{2}, Feedback: true, LinearTaps: 2})
	if err != nil {
		t.Fatal(err)
	}
	copy(m.G, []float64{1, 0.1, 0.05, 0.8, -0.1, 0.02})
	copy(m.Lin, []float64{0.5, 0.1})
	var buf bytes.Buffer
	if err := Encode(&buf, m, Meta{Ts: 0.01, Mode: "exact", Training: json.RawMessage(`{"seed": 1}`)}); err != nil {
		t.Fatal(err)
	}
	got, err := schema.Of(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "schema", "nfir.golden")
	if *updateSchema {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("the model file's shape differs from %s (update docs/MODEL_FORMAT.md, then run with -update):\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}
