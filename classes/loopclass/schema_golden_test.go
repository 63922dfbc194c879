package loopclass_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/passivenfir/gputrain/classes"
	"github.com/passivenfir/gputrain/classes/loopclass"
	"github.com/passivenfir/gputrain/internal/schema"
	"github.com/passivenfir/gputrain/loop"
)

var updateSchema = flag.Bool("update", false, "rewrite the golden file-format shapes in testdata/schema")

// TestSchemaGolden holds the shape of a loop file, one loop, a mean of two, a weighted mean,
// a loop with sections and one with slow states and a recurrent lift (every key and its JSON type, internal/schema), to
// testdata/schema/*.golden, as model's test does for an NFIR file. Run
// 'go test ./classes/loopclass -run TestSchemaGolden -update' to rewrite.
func TestSchemaGolden(t *testing.T) {
	a, b := randomLoop(t, loop.Sized(6), 1), randomLoop(t, loop.Wide(6), 2)
	withP1 := loop.Sized(6)
	withP1.P1 = 2
	c := randomLoop(t, withP1, 3)
	rec := loop.WithRec(loop.WithStates(loop.Sized(6)))
	d := randomLoop(t, rec, 4)
	for name, m := range map[string]loop.Mean{"loop": loop.Of(a), "loop_mean": loop.Of(a, b), "loop_mean_weighted": {{Model: a, Count: 3}, {Model: b, Count: 1}}, "loop_sections": loop.Of(c), "loop_states_rec": loop.Of(d)} {
		var buf bytes.Buffer
		if err := classes.Encode(&buf, &loopclass.Model{Mean: m}, classes.Meta{Ts: 0.01, Training: []byte(`{"seed":1}`)}); err != nil {
			t.Fatal(err)
		}
		got, err := schema.Of(buf.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("testdata", "schema", name+".golden")
		if *updateSchema {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run with -update to create it)", err)
		}
		if got != string(want) {
			t.Errorf("%s: the file's shape differs from %s (update docs/MODEL_FORMAT.md, then run with -update):\ngot:\n%s\nwant:\n%s", name, path, got, want)
		}
	}
}
