package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// searchDirArgs are a tiny structure search: two rungs of three and one
// candidates, a few epochs, no loop family (--hidden is fixed).
func searchDirArgs(train, val, out string, extra ...string) []string {
	return append([]string{"train", "--data", train, "--val", val, "--out", out, "--force", "--search", "on", "--hidden", "4,4",
		"--budget", "2", "--iters", "1", "--epochs", "3", "--workers", "2", "--quiet", "--json"}, extra...)
}

// searchOutcome is what must not depend on where the candidates trained:
// the model file without its training object, and the search's table
// without the seconds.
func searchOutcome(t *testing.T, path string) (params, table string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var file map[string]any
	if err := json.Unmarshal(b, &file); err != nil {
		t.Fatal(err)
	}
	training := file["training"].(map[string]any)
	delete(file, "training")
	ss := training["structure_search"].(map[string]any)
	for _, r := range ss["candidates"].([]any) {
		delete(r.(map[string]any), "seconds")
	}
	p, _ := json.Marshal(file)
	s, _ := json.Marshal(ss)
	return string(p), string(s)
}

// fileTimes are the modification times of the files under dir.
func fileTimes(t *testing.T, dir string) map[string]time.Time {
	t.Helper()
	m := map[string]time.Time{}
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			m[p] = fi.ModTime()
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestSearchDir: a search through --search-dir (its candidates trained as
// trials of sweep plans, through the sweep runner) chooses the same model,
// bit for bit, and writes the same table as the search in one process. Run
// again, it trains nothing and changes no file; with one trial killed
// part-way (its folder gone, a work folder left), it trains that trial
// only. With --search-wait it runs nothing itself and goes on when 'sweep
// run' has run each rung's trials.
func TestSearchDir(t *testing.T) {
	dir := t.TempDir()
	train, val := genData(t, dir, 8, "1"), genData(t, dir, 3, "2")
	mustRun(t, searchDirArgs(train, val, filepath.Join(dir, "in.json"))...)
	wantParams, wantTable := searchOutcome(t, filepath.Join(dir, "in.json"))
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
	out := decode(t, mustRun(t, searchDirArgs(train, val, filepath.Join(dir, "sd.json"), "--search-dir", sd)...))
	check("sd.json")
	if _, ok := out["structure_search"]; !ok {
		t.Errorf("--json without the structure_search: %v", out)
	}
	for _, p := range []string{"train.npy", "val.npy", "search.json", "rung-1/plan.json", "rung-1/trial-0002/done", "rung-2/trial-0000/model.json"} {
		if _, err := os.Stat(filepath.Join(sd, p)); err != nil {
			t.Errorf("the folder lacks %s: %v", p, err)
		}
	}

	before := fileTimes(t, sd)
	mustRun(t, searchDirArgs(train, val, filepath.Join(dir, "again.json"), "--search-dir", sd)...)
	check("again.json")
	if after := fileTimes(t, sd); !reflect.DeepEqual(after, before) {
		t.Errorf("the rerun changed the folder:\n%v\nwas\n%v", after, before)
	}

	killed := filepath.Join(sd, "rung-1", "trial-0001")
	if err := os.RemoveAll(killed); err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(sd, "rung-1", ".trial-0001.work-123")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "model.json"), []byte(`{"format": "gputr`), 0o644); err != nil {
		t.Fatal(err)
	}
	mustRun(t, searchDirArgs(train, val, filepath.Join(dir, "redone.json"), "--search-dir", sd)...)
	check("redone.json")
	after := fileTimes(t, sd)
	for p, tm := range before {
		redone := strings.HasPrefix(p, killed+string(filepath.Separator))
		if _, ok := after[p]; !ok || redone == after[p].Equal(tm) {
			t.Errorf("%s: redone %v, want only the killed trial's files redone", p, !after[p].Equal(tm))
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
		var stderr string
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, _, stderr = cli(t, searchDirArgs(train, val, filepath.Join(dir, "waited.json"), "--search-dir", sd, "--search-wait")...)
		}()
		for k := 1; k <= 2; k++ {
			runPlanWhenWritten(t, filepath.Join(sd, "rung-"+itoa(k), "plan.json"))
		}
		wg.Wait()
		if code != 0 {
			t.Fatalf("train --search-wait: exit %d: %s", code, stderr)
		}
		check("waited.json")
	})
}

// TestSearchDirBadInput: --search-dir where no search runs, --search-wait
// without a folder, a folder that cannot be one, and a folder of another
// search are bad input (exit 2) with a message, before any training.
func TestSearchDirBadInput(t *testing.T) {
	dir := t.TempDir()
	train, val := genData(t, dir, 8, "1"), genData(t, dir, 3, "2")
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "other")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, "search.json"), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "m.json")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"search off", []string{"train", "--data", train, "--val", val, "--out", out, "--search", "off", "--search-dir", filepath.Join(dir, "s")}, "no structure search runs"},
		{"structure given", []string{"train", "--data", train, "--val", val, "--out", out, "--branches", "2", "--search-dir", filepath.Join(dir, "s")}, "no structure search runs"},
		{"wait without folder", searchDirArgs(train, val, out, "--search-wait"), "--search-wait waits for the trials of --search-dir"},
		{"a file", searchDirArgs(train, val, out, "--search-dir", file), "not a directory"},
		{"under a file", searchDirArgs(train, val, out, "--search-dir", filepath.Join(file, "s")), "--search-dir"},
		{"another search", searchDirArgs(train, val, out, "--search-dir", other), "holds another search"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := cli(t, tc.args...)
			if code != 2 || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, %q; want 2 and %q", code, stderr, tc.want)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("a model was written")
			}
			if _, err := os.Stat(filepath.Join(other, "rung-1")); err == nil {
				t.Errorf("a rung was planned in another search's folder")
			}
		})
	}
}

// BenchmarkSearchDir times the tiny search of TestSearchDir in one process
// and through --search-dir (a fresh folder each time: every trial runs),
// for the cost of the trials' files and the data written and read again:
//
//	go test ./cmd/gputrain -run '^$' -bench SearchDir -benchtime 1x -count 3
func BenchmarkSearchDir(b *testing.B) {
	dir := b.TempDir()
	must := func(args ...string) {
		b.Helper()
		var o, e bytes.Buffer
		if code := run(args, &o, &e); code != 0 {
			b.Fatalf("gputrain %s: exit %d: %s", strings.Join(args, " "), code, e.String())
		}
	}
	train, val := filepath.Join(dir, "train.csv"), filepath.Join(dir, "val.csv")
	must("gen", "msd", "--batches", "8", "--seed", "1", "--out", train)
	must("gen", "msd", "--batches", "3", "--seed", "2", "--out", val)
	n := 0
	for _, mode := range []string{"in-process", "search-dir"} {
		b.Run(mode, func(b *testing.B) {
			for range b.N {
				var extra []string
				if mode == "search-dir" {
					n++
					extra = []string{"--search-dir", filepath.Join(dir, "search-"+itoa(n))}
				}
				must(searchDirArgs(train, val, filepath.Join(dir, "m.json"), extra...)...)
			}
		})
	}
}

// runPlanWhenWritten waits (up to 30 s) for a waiting search to write plan,
// then runs its trials as another machine would, with sweep run.
func runPlanWhenWritten(t *testing.T, plan string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(plan); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s after 30 s", plan)
		}
	}
	mustRun(t, "sweep", "run", "--plan", plan, "--local", "2", "--quiet")
}
