package main

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/internal/schema"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden help texts in testdata/help")

// helpPages are the help texts under golden-file test: the command list and
// every command's --help, subcommands included.
func helpPages() [][]string {
	pages := [][]string{{"help"}}
	for _, c := range commands() {
		pages = append(pages, []string{c.name, "--help"})
	}
	for _, sub := range [][]string{
		{"sweep", "plan"}, {"sweep", "run"}, {"sweep", "collect"},
		{"bench", "qp"}, {"bench", "epoch"}, {"bench", "train"}, {"bench", "zoo"},
	} {
		pages = append(pages, append(sub, "--help"))
	}
	return pages
}

// TestHelpGolden holds every help text to testdata/help/NAME.golden, as
// gofmt's tests hold its output: a change of a flag, a default or a word of
// help shows in review as a change of a golden file. Run
// 'go test ./cmd/gputrain -run TestHelpGolden -update' to rewrite them.
func TestHelpGolden(t *testing.T) {
	dir := filepath.Join("testdata", "help")
	if *updateGolden {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	seen := map[string]bool{}
	for _, args := range helpPages() {
		name := strings.Join(strings.FieldsFunc(strings.Join(args, "_"), func(r rune) bool { return r == '-' }), "")
		name = strings.TrimSuffix(name, "_") + ".golden"
		seen[name] = true
		code, out, errOut := cli(t, args...)
		if code != 0 || out == "" {
			t.Errorf("gputrain %s: exit %d, stdout %d bytes, stderr %q", strings.Join(args, " "), code, len(out), errOut)
			continue
		}
		// The one default that depends on where the tree is checked out
		// (and is shown only where the robot data are there) is left out.
		if rd := data.RobotDir(); rd != "" {
			out = strings.ReplaceAll(out, " (default "+rd+")", "")
		}
		path := filepath.Join(dir, name)
		if *updateGolden {
			if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%v (run with -update to create it)", err)
			continue
		}
		if got := out; got != string(want) {
			t.Errorf("gputrain %s: help differs from %s (run with -update if the change is intended):\n%s", strings.Join(args, " "), path, firstDiff(string(want), got))
		}
	}
	// A golden file whose page is gone is stale.
	files, _ := filepath.Glob(filepath.Join(dir, "*.golden"))
	for _, f := range files {
		if !seen[filepath.Base(f)] {
			if *updateGolden {
				os.Remove(f)
				continue
			}
			t.Errorf("%s has no help page any more (run with -update to remove it)", f)
		}
	}
}

// firstDiff shows the first line where want and got differ.
func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return "line " + strconv.Itoa(i+1) + ":\n  want: " + a + "\n  got:  " + b
		}
	}
	return "(only the final newline differs)"
}

// TestTrainingObjectGolden holds the shape of the training object that
// train writes into a model file (every setting's key and JSON type, the
// data check, the provenance) to testdata/schema/training.golden: the keys
// are --config's, so a renamed setting must show in review. The
// provenance's VCS keys, present only in builds that stamp them, are left
// out. Run with -update to rewrite it.
func TestTrainingObjectGolden(t *testing.T) {
	dir := t.TempDir()
	train, val := genData(t, dir, 4, "1"), genData(t, dir, 2, "2")
	path := filepath.Join(dir, "m.json")
	mustRunAll(t, "train", "--data", train, "--val", val, "--out", path, "--branches", "2", "--taps", "6", "--iters", "1", "--epochs", "1", "--quiet")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Training json.RawMessage `json:"training"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	shape, err := schema.Of(f.Training)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.SplitAfter(shape, "\n") {
		if !strings.HasPrefix(l, "provenance.revision") && !strings.HasPrefix(l, "provenance.modified") {
			lines = append(lines, l)
		}
	}
	got := strings.Join(lines, "")
	golden := filepath.Join("testdata", "schema", "training.golden")
	if *updateGolden {
		if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("the training object's shape differs from %s (update docs/MODEL_FORMAT.md, then run with -update):\n%s", golden, firstDiff(string(want), got))
	}
}
