package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTrainSearch: train with no structure flag searches the structure on
// the validation data, reports the table in --json and in the model file's
// training object, which stays a valid --config (that reproduces the chosen
// structure without searching again); --search off trains the default.
func TestTrainSearch(t *testing.T) {
	// The loops' full schedule (minutes of the package's ten) is not what
	// this test checks: the table, the file and the --config round trip.
	shortLoops(t, 3)
	dir := t.TempDir()
	train := genData(t, dir, 10, "1")
	out := filepath.Join(dir, "m.json")
	sched := []string{"--iters", "1", "--epochs", "2", "--budget", "1", "--quiet", "--json"}
	res := decode(t, mustRun(t, append([]string{"train", "--data", train, "--out", out}, sched...)...))
	ss, ok := res["structure_search"].(map[string]any)
	if !ok {
		t.Fatalf("no structure_search in %v", res)
	}
	rows, _ := ss["candidates"].([]any)
	chosen := ss["chosen"].(string)
	found := false
	for _, r := range rows {
		r := r.(map[string]any)
		if r["chosen"] == true {
			found = r["name"] == chosen
		}
	}
	if len(rows) < 3 || !found {
		t.Fatalf("chosen %q not marked among %d candidates: %v", chosen, len(rows), rows)
	}
	t.Logf("chosen %q, linear_margin %v", chosen, ss["linear_margin"])
	// a nonlinear choice carries its clear margin over the FIR; a kept FIR
	// carries none, or the margin that did not clear
	lm, hasMargin := ss["linear_margin"].(map[string]any)
	isFIR := strings.HasPrefix(chosen, "FIR ")
	switch {
	case !isFIR && (!hasMargin || lm["clear"] != true || !(lm["blocks"].(float64) >= 2)):
		t.Errorf("nonlinear %q chosen with linear_margin %v", chosen, ss["linear_margin"])
	case isFIR && hasMargin && lm["clear"] == true:
		t.Errorf("the FIR kept though the margin %v cleared", lm)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Structure map[string]any `json:"structure"`
		Training  map[string]any `json:"training"`
	}
	if err := json.Unmarshal(b, &file); err != nil {
		t.Fatal(err)
	}
	if _, ok := file.Training["structure_search"]; !ok {
		t.Fatalf("the model file's training object has no structure_search: %v", file.Training)
	}
	// The training object as --config: the chosen structure, no new search.
	cfg := filepath.Join(dir, "again.yaml")
	tr, _ := json.Marshal(file.Training)
	if err := os.WriteFile(cfg, tr, 0o644); err != nil {
		t.Fatal(err)
	}
	short := []string{"--loop-epochs", "3"} // the chosen model's own schedule, short
	if strings.HasPrefix(chosen, "ren ") {
		short = []string{"--ren-epochs", "30"}
	}
	again := decode(t, mustRun(t, append([]string{"train", "--config", cfg, "--data", train, "--out", filepath.Join(dir, "again.json"), "--quiet", "--json"}, short...)...))
	if _, ok := again["structure_search"]; ok {
		t.Errorf("a config with the chosen structure searched again")
	}
	// --search off: the paper's default structure.
	off := filepath.Join(dir, "off.json")
	mustRun(t, append([]string{"train", "--data", train, "--out", off, "--search", "off"}, sched...)...)
	if b, err = os.ReadFile(off); err != nil || !strings.Contains(string(b), `"branches": 10`) && !strings.Contains(string(b), `"branches":10`) {
		t.Errorf("--search off did not train the default 10 branches (err %v)", err)
	}
	for _, bad := range [][]string{{"--search", "maybe"}, {"--budget", "0"}, {"--time-limit", "-1s"}, {"--time-limit", "soon"}} {
		if code, _, errOut := cli(t, append([]string{"train", "--data", train, "--out", filepath.Join(dir, "x.json")}, bad...)...); code != 2 || !strings.Contains(errOut, strings.TrimPrefix(bad[0], "--")) {
			t.Errorf("%v: exit %d, %q", bad, code, errOut)
		}
	}
}

// TestBenchZooUsage: unknown cases and classes exit 2 naming the valid ones;
// a tiny run writes its Markdown report.
func TestBenchZooUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"bench", "zoo", "--cases", "nope"}, "twomass"},
		{[]string{"bench", "zoo", "--only", "nope"}, "valid: fir"},
		{[]string{"bench", "zoo", "--workers", "-1"}, "--workers"},
	} {
		if code, _, errOut := cli(t, tc.args...); code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %q", tc.args, code, errOut)
		}
	}
	out := filepath.Join(t.TempDir(), "ZOO.md")
	mustRun(t, "bench", "zoo", "--quick", "--cases", "boucwen", "--only", "fir", "--out", out, "--quiet")
	b, err := os.ReadFile(out)
	if err != nil || !strings.Contains(string(b), "| boucwen |") {
		t.Errorf("report %q, err %v", b, err)
	}
}

// TestTrainShortVal: a --val whose records are shorter than the memories
// the search may try gets a note saying so before the search starts, and
// validation records as long as the training ones get none.
func TestTrainShortVal(t *testing.T) {
	shortLoops(t, 1)
	dir := t.TempDir()
	train := genData(t, dir, 4, "1")
	sched := []string{"--iters", "1", "--epochs", "1", "--budget", "1", "--time-limit", "2s", "--json"}
	for _, tc := range []struct {
		name    string
		samples string
		short   bool
	}{
		{"short", "20", true},
		{"as long as training", "", false},
	} {
		extra := []string{"--batches", "2", "--seed", "2"}
		if tc.samples != "" {
			extra = append(extra, "--samples", tc.samples)
		}
		val := filepath.Join(dir, "val-"+tc.name+".csv")
		mustRun(t, append([]string{"gen", "msd", "--out", val}, extra...)...)
		code, _, stderr := cli(t, append([]string{"train", "--data", train, "--val", val, "--out", filepath.Join(dir, tc.name+".json")}, sched...)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.name, code, stderr)
		}
		found := strings.Contains(stderr, "its longest record scores 20 samples (after --val-skip 0), fewer than the longest memory the structure search may try")
		if found != tc.short {
			t.Errorf("%s validation records: the note is there: %v, want %v; stderr:\n%s", tc.name, found, tc.short, stderr)
		}
	}
}
