package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/passivenfir/gputrain/classes"
	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/loop"
)

// TestTrainRefit: a structure search that chose on a part held out of
// --data is followed by a refit on all of it, told before the search and
// after it, and recorded in the model file's structure_search with its
// fits on all the data; --refit=false and --val leave it out, and so does
// a record whose held-out tail repeats its training input, saying why. The
// model written is the refitted one where the refit is kept, whichever
// family the search chose (with a structure flag fixed, an NFIR).
func TestTrainRefit(t *testing.T) {
	shortLoops(t, 3)
	dir := t.TempDir()
	train := genData(t, dir, 10, "1")
	val := genData(t, dir, 3, "2")
	sched := []string{"--iters", "1", "--epochs", "2", "--budget", "1", "--time-limit", "0", "--json"}
	odd := filepath.Join(dir, "odd.csv") // one record, antiperiodic every 60 samples, too few to split by: its tail repeats training input
	writeRepeats(t, odd, 1, 1, 60, 20, -1)
	nfir := []string{"--search", "on", "--taps", "10"} // a structure flag leaves the RENs and loops out
	for _, tc := range []struct {
		name  string
		data  string
		flags []string
		refit bool
	}{
		{"held out", train, nil, true},
		{"nfir", train, nfir, true},
		{"no refit", train, []string{"--refit=false"}, false},
		{"--val", train, []string{"--val", val}, false},
		{"antiperiodic", odd, nfir, false},
	} {
		out := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".json")
		code, stdout, stderr := cli(t, append(append([]string{"train", "--data", tc.data, "--out", out}, sched...), tc.flags...)...)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s", tc.name, code, stderr)
		}
		ss, _ := decode(t, stdout)["structure_search"].(map[string]any)
		rf, has := ss["refit"].(map[string]any)
		told := strings.Contains(stderr, "continues training on all of --data") && strings.Contains(stderr, "refit on all of --data in")
		if has != tc.refit || told != tc.refit {
			t.Fatalf("%s: refit record %v, told %v; want %v\n%s", tc.name, rf, told, tc.refit, stderr)
		}
		if said := strings.Contains(stderr, "no refit on all of --data"); said != (tc.name == "antiperiodic") {
			t.Errorf("%s: said no refit: %v\n%s", tc.name, said, stderr)
		}
		if !tc.refit {
			continue
		}
		before, _ := rf["fit_before"].(float64)
		after, _ := rf["fit_after"].(float64)
		kept, ok := rf["kept"].(bool)
		if !ok || kept != (after >= before) || rf["error"] != nil {
			t.Errorf("%s: refit record %v", tc.name, rf)
		}
		t.Logf("%s: chosen %v; refit %v", tc.name, ss["chosen"], rf)
		m, meta, err := classes.Load(out)
		if err != nil {
			t.Fatal(err)
		}
		// The model written scores on all of --data what the record says.
		all, err := data.ReadFile(train, data.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		fit, err := loop.FitOf(all, 0, m.Simulate)
		if err != nil {
			t.Fatal(err)
		}
		want := before
		if kept {
			want = after
		}
		if d := fit - want; d > 1e-6 || d < -1e-6 {
			t.Errorf("%s: the model file scores %.4f%% on all of --data; the record says %.4f%% (kept %v)", tc.name, fit, want, kept)
		}
		if meta.Training == nil {
			t.Errorf("%s: no training object", tc.name)
		}
	}
}
