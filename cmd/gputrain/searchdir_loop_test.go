package main

import (
	"github.com/passivenfir/gputrain/baselines"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/passivenfir/gputrain/loop"
)

// searchLoopArgs are a tiny default structure search: no structure flag,
// so the loop family trains after the rungs.
func searchLoopArgs(train, val, out string, extra ...string) []string {
	return append([]string{"train", "--data", train, "--val", val, "--out", out, "--force",
		"--budget", "2", "--iters", "1", "--epochs", "1", "--workers", "2", "--quiet", "--json"}, extra...)
}

// shortLoops makes the search's loops train a few epochs, and its RENs ten
// times as many, until the test ends.
func shortLoops(t *testing.T, epochs int) {
	t.Helper()
	old := searchLoopConfig
	searchLoopConfig = func() loop.Config {
		c := old()
		c.Epochs = epochs
		return c
	}
	oldREN := searchRENConfig
	searchRENConfig = func() baselines.RENConfig {
		c := oldREN()
		c.Epochs, c.Patience = 10*epochs, 5*epochs
		return c
	}
	t.Cleanup(func() { searchLoopConfig, searchRENConfig = old, oldREN })
}

// TestSearchDirLoops: a default search through --search-dir trains its
// four loops as trials too (DIR/loops: the linear FIR they start from, the
// plan, train --model loop --loop-shape … --loop-init fir.json with the
// search's --workers), and chooses the same model with the same table,
// loop rows and their validation Fits included, bit for bit, as the search
// in one process. Run again, it trains nothing and changes no file; with
// another --workers, which changes the loops, it refuses the folder before
// training anything.
func TestSearchDirLoops(t *testing.T) {
	shortLoops(t, 2)
	dir := t.TempDir()
	train, val := genData(t, dir, 8, "1", "--samples", "100"), genData(t, dir, 3, "2", "--samples", "100")
	mustRun(t, searchLoopArgs(train, val, filepath.Join(dir, "in.json"))...)
	wantParams, wantTable := searchOutcome(t, filepath.Join(dir, "in.json"))
	// records of 100 samples and a 50-tap FIR: the loops train again
	// leaving out min(50, 100/8) = 12 samples (loop.AutoSkip), as trials of
	// --loop-skip 12
	if !strings.Contains(wantTable, `"linear_taps":50,"linear_val_fit"`) {
		t.Fatalf("the search chose another FIR than the test expects: %s", wantTable)
	}
	if n, want := strings.Count(wantTable, `"loop":`), len(loop.Runs(50, 1, 12)); n != want {
		t.Fatalf("the search trained %d loops, want %d: %s", n, want, wantTable)
	}
	if n, want := strings.Count(wantTable, `"skip":12,`), len(loop.Runs(50, 1, 0)); n != want {
		t.Fatalf("%d loops skip 12 samples, want %d: %s", n, want, wantTable)
	}
	check := func(name string) {
		t.Helper()
		params, table := searchOutcome(t, filepath.Join(dir, name))
		if params != wantParams {
			t.Errorf("%s: the model differs from the in-process search's", name)
		}
		if table != wantTable {
			t.Errorf("%s: table\n%s\nwant\n%s", name, table, wantTable)
		}
	}
	sd := filepath.Join(dir, "search")
	mustRun(t, searchLoopArgs(train, val, filepath.Join(dir, "sd.json"), "--search-dir", sd)...)
	check("sd.json")
	for _, p := range []string{"loops/fir.json", "loops/plan.json", "loops/trial-0000/done", "loops/trial-0003/model.json"} {
		if _, err := os.Stat(filepath.Join(sd, p)); err != nil {
			t.Errorf("the folder lacks %s: %v", p, err)
		}
	}
	plan, err := os.ReadFile(filepath.Join(sd, "loops", "plan.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"loop-shape": "wide"`, `"loop-init": "fir.json"`, `"workers": 2`, `"loop-epochs": 2`} {
		if !strings.Contains(string(plan), want) {
			t.Errorf("the loops' plan lacks %s:\n%s", want, plan)
		}
	}

	before := fileTimes(t, sd)
	mustRun(t, searchLoopArgs(train, val, filepath.Join(dir, "again.json"), "--search-dir", sd)...)
	check("again.json")
	if after := fileTimes(t, sd); !reflect.DeepEqual(after, before) {
		t.Errorf("the rerun changed the folder:\n%v\nwas\n%v", after, before)
	}

	code, _, stderr := cli(t, searchLoopArgs(train, val, filepath.Join(dir, "other.json"), "--search-dir", sd, "--workers", "1")...)
	if code != 2 || !strings.Contains(stderr, "holds another search") || !strings.Contains(stderr, "--workers, 1 here") {
		t.Errorf("another --workers: exit %d, %q; want 2, the folder refused, the workers named", code, stderr)
	}
	if after := fileTimes(t, sd); !reflect.DeepEqual(after, before) {
		t.Errorf("the refused run changed the folder")
	}
}

// TestSearchDirLoopsWait: with --search-wait, the loops' plan waits for
// 'sweep run' as the rungs' do, and the search then reads the loops back.
func TestSearchDirLoopsWait(t *testing.T) {
	shortLoops(t, 1)
	defer func(p time.Duration) { searchDirPoll = p }(searchDirPoll)
	searchDirPoll = 20 * time.Millisecond
	dir := t.TempDir()
	train, val := genData(t, dir, 8, "1", "--samples", "100"), genData(t, dir, 3, "2", "--samples", "100")
	mustRun(t, searchLoopArgs(train, val, filepath.Join(dir, "in.json"))...)
	wantParams, wantTable := searchOutcome(t, filepath.Join(dir, "in.json"))
	sd := filepath.Join(dir, "search")
	var wg sync.WaitGroup
	var code int
	var stderr string
	wg.Add(1)
	go func() {
		defer wg.Done()
		code, _, stderr = cli(t, searchLoopArgs(train, val, filepath.Join(dir, "waited.json"), "--search-dir", sd, "--search-wait")...)
	}()
	for _, plan := range []string{"rung-1/plan.json", "rung-2/plan.json", "loops/plan.json"} {
		runPlanWhenWritten(t, filepath.Join(sd, plan))
	}
	wg.Wait()
	if code != 0 {
		t.Fatalf("train --search-wait: exit %d: %s", code, stderr)
	}
	params, table := searchOutcome(t, filepath.Join(dir, "waited.json"))
	if params != wantParams || table != wantTable {
		t.Errorf("--search-wait: the model or table differs from the in-process search's:\n%s\nwant\n%s", table, wantTable)
	}
}

// TestTrainLoopBadInput: unusable loop trial flags are bad input (exit 2).
func TestTrainLoopBadInput(t *testing.T) {
	dir := t.TempDir()
	train := genData(t, dir, 8, "1", "--samples", "100")
	nfir := filepath.Join(dir, "nfir.json")
	mustRun(t, append([]string{"train", "--data", train, "--out", nfir}, tiny...)...)
	out := filepath.Join(dir, "loop.json")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--loop-shape", "round"}, "want all, sized, wide, sized-states, wide-states, sized-rec or wide-rec"},
		{[]string{"--loop-init", nfir}, "want a linear FIR"},
		{[]string{"--loop-init", filepath.Join(dir, "none.json"), "--loop-shape", "sized"}, "--loop-init"},
		{[]string{"--loop-init", nfir, "--loop-memory", "8"}, "give one"},
	} {
		code, _, stderr := cli(t, append([]string{"train", "--model", "loop", "--data", train, "--out", out, "--quiet"}, tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("a model was written")
	}
}
