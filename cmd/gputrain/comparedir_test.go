package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// compareDirArgs are a small comparison: four classes that train in
// moments on the quick budget, toy-gain among them (registered by
// compare_test.go: a class of the test binary trains as a trial too).
func compareDirArgs(train, val, test string, extra ...string) []string {
	return append([]string{"compare", "--data", train, "--val", val, "--test", test, "--only", "toy-gain,n4sid,fir,mlp",
		"--quick", "--workers", "2", "--json", "--quiet"}, extra...)
}

// compareOutcome is the table of compare --json without the times, which
// are all that may depend on where the classes trained. Go writes every
// float64 in the shortest form that reads back as it, so equal text is
// equal bits.
func compareOutcome(t *testing.T, out string) string {
	t.Helper()
	tab := decode(t, out)
	delete(tab, "seconds")
	for _, r := range tab["rows"].([]any) {
		delete(r.(map[string]any), "seconds")
	}
	b, err := json.MarshalIndent(tab, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestCompareDir: compare --search-dir (every class a trial of a sweep
// plan, trained by 'train --model CLASS --class-budget quick' through the
// sweep runner and read back) prints the table of compare in one process,
// fits bit for bit. Run again, it trains nothing and changes no file; with
// one trial's folder half-written (no done marker) and another killed
// part-way, it trains those two only. With --search-wait it runs nothing
// itself and goes on when 'sweep run --index N' has run each trial, as the
// array tasks of a cluster do.
func TestCompareDir(t *testing.T) {
	dir := t.TempDir()
	train, val, test := genData(t, dir, 4, "1", "--samples", "100"), genData(t, dir, 2, "2", "--samples", "100"), genData(t, dir, 2, "3", "--samples", "100")
	want := compareOutcome(t, mustRun(t, compareDirArgs(train, val, test)...))
	check := func(what, out string) {
		t.Helper()
		if got := compareOutcome(t, out); got != want {
			t.Errorf("%s: table\n%s\nwant\n%s", what, got, want)
		}
	}
	sd := filepath.Join(dir, "cmp")
	check("--search-dir", mustRun(t, compareDirArgs(train, val, test, "--search-dir", sd)...))
	for _, p := range []string{"train.npy", "val.npy", "test.npy", "compare/plan.json", "compare/trial-0000/done", "compare/trial-0003/model.json"} {
		if _, err := os.Stat(filepath.Join(sd, p)); err != nil {
			t.Errorf("the folder lacks %s: %v", p, err)
		}
	}
	plan, err := os.ReadFile(filepath.Join(sd, "compare", "plan.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`"model": "n4sid"`, `"class-budget": "quick"`, `"workers": 1`, `"test": "../test.npy"`} {
		if !strings.Contains(string(plan), s) {
			t.Errorf("the plan lacks %s:\n%s", s, plan)
		}
	}

	before := fileTimes(t, sd)
	check("rerun", mustRun(t, compareDirArgs(train, val, test, "--search-dir", sd)...))
	if after := fileTimes(t, sd); !reflect.DeepEqual(after, before) {
		t.Errorf("the rerun changed the folder:\n%v\nwas\n%v", after, before)
	}

	// trial 1 (n4sid) half-written: its folder without the done marker;
	// trial 2 (fir) killed part-way: no folder, a work folder left.
	half, killed := filepath.Join(sd, "compare", "trial-0001"), filepath.Join(sd, "compare", "trial-0002")
	if err := os.Remove(filepath.Join(half, "done")); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(killed); err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(sd, "compare", ".trial-0002.work-123")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "model.json"), []byte(`{"format": "gputr`), 0o644); err != nil {
		t.Fatal(err)
	}
	check("resumed", mustRun(t, compareDirArgs(train, val, test, "--search-dir", sd)...))
	after := fileTimes(t, sd)
	for p, tm := range before {
		redone := strings.HasPrefix(p, half+string(filepath.Separator)) || strings.HasPrefix(p, killed+string(filepath.Separator))
		if _, ok := after[p]; !ok || redone == after[p].Equal(tm) {
			t.Errorf("%s: redone %v, want only the two unfinished trials' files redone", p, !after[p].Equal(tm))
		}
	}
	if _, err := os.Stat(work); !os.IsNotExist(err) {
		t.Errorf("the killed run's work folder is left: %v", err)
	}

	t.Run("wait", func(t *testing.T) {
		defer func(p time.Duration) { searchDirPoll = p }(searchDirPoll)
		searchDirPoll = 20 * time.Millisecond
		sd := filepath.Join(dir, "waited")
		var wg sync.WaitGroup
		var code int
		var stdout, stderr string
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, stdout, stderr = cli(t, compareDirArgs(train, val, test, "--search-dir", sd, "--search-wait")...)
		}()
		plan := filepath.Join(sd, "compare", "plan.json")
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			if _, err := os.Stat(plan); err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("no %s after 30 s", plan)
			}
		}
		time.Sleep(100 * time.Millisecond) // it waits: nothing ran
		if _, err := os.Stat(filepath.Join(sd, "compare", "trial-0000")); err == nil {
			t.Errorf("--search-wait ran a trial itself")
		}
		for i := 3; i >= 0; i-- { // separate processes, in any order
			mustRun(t, "sweep", "run", "--plan", plan, "--index", itoa(i), "--quiet")
		}
		wg.Wait()
		if code != 0 {
			t.Fatalf("compare --search-wait: exit %d: %s", code, stderr)
		}
		check("--search-wait", stdout)
	})
}

// TestCompareDirFailedClass: a class that cannot run on the data (N4SID on
// records too short for its block rows) fails in its trial as bad input,
// recorded and not retried, and its row says why, as in one process; the
// other classes' rows are those of one process.
func TestCompareDirFailedClass(t *testing.T) {
	dir := t.TempDir()
	train, val := genData(t, dir, 4, "1", "--samples", "12"), genData(t, dir, 2, "2", "--samples", "12")
	args := []string{"compare", "--data", train, "--val", val, "--only", "n4sid,fir", "--quick", "--workers", "2", "--json", "--quiet"}
	sd := filepath.Join(dir, "cmp")
	in, through := decode(t, mustRun(t, args...)), decode(t, mustRun(t, append(args, "--search-dir", sd)...))
	why := "no order could be identified"
	for _, tab := range []map[string]any{in, through} {
		rows := tab["rows"].([]any)
		if len(rows) != 2 {
			t.Fatalf("%d rows, want 2: %v", len(rows), tab)
		}
		fir, n4sid := rows[0].(map[string]any), rows[1].(map[string]any)
		if fir["class"] != "fir" || fir["error"] != nil || n4sid["class"] != "n4sid" || !strings.Contains(n4sid["error"].(string), why) {
			t.Errorf("rows %v, %v: want fir, and n4sid failed with %q", fir, n4sid, why)
		}
	}
	if a, b := in["rows"].([]any)[0].(map[string]any), through["rows"].([]any)[0].(map[string]any); a["val_fit"] != b["val_fit"] || a["params"] != b["params"] {
		t.Errorf("the fir row through the folder %v, in one process %v", b, a)
	}
	if _, err := os.Stat(filepath.Join(sd, "compare", "trial-0000", "failed")); err != nil {
		t.Errorf("the failed class's trial has no failed marker: %v", err)
	}
	before := fileTimes(t, sd)
	again := decode(t, mustRun(t, append(args, "--search-dir", sd)...))
	if after := fileTimes(t, sd); !reflect.DeepEqual(after, before) {
		t.Errorf("the rerun retried the failed trial:\n%v\nwas\n%v", after, before)
	}
	if e := again["rows"].([]any)[1].(map[string]any)["error"]; e != through["rows"].([]any)[1].(map[string]any)["error"] {
		t.Errorf("the rerun's reason %q, the first run's %q", e, through["rows"].([]any)[1].(map[string]any)["error"])
	}
}

// TestCompareDirBadInput: --search-wait without a folder, a folder that
// cannot be one, and the folder of another comparison are bad input (exit
// 2) with a message.
func TestCompareDirBadInput(t *testing.T) {
	dir := t.TempDir()
	train, val := genData(t, dir, 4, "1", "--samples", "100"), genData(t, dir, 2, "2", "--samples", "100")
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	args := func(extra ...string) []string {
		return append([]string{"compare", "--data", train, "--val", val, "--only", "toy-gain", "--quick", "--quiet"}, extra...)
	}
	sd := filepath.Join(dir, "cmp")
	mustRun(t, args("--search-dir", sd)...)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"wait without folder", args("--search-wait"), "--search-wait waits for the trials of --search-dir"},
		{"a file", args("--search-dir", file), "not a directory"},
		{"another comparison", args("--search-dir", sd, "--seed", "2"), "another comparison"},
		{"other data", []string{"compare", "--data", val, "--val", val, "--only", "toy-gain", "--quick", "--search-dir", sd}, "not this search's train data"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := cli(t, tc.args...)
			if code != exitUsage || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, %q; want 2 and %q", code, stderr, tc.want)
			}
		})
	}
}
