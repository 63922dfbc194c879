package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/passivenfir/gputrain/trainer"
)

// TestOutExisting: an existing --out is refused before any work (exit 2,
// file untouched) unless --force, which keeps the old file as NAME.bak and
// says so; for train, simulate, gen, export and compare.
func TestOutExisting(t *testing.T) {
	dir := t.TempDir()
	dataPath, modelPath := tinyModel(t, dir, 3)
	old, _ := os.ReadFile(modelPath)

	code, _, stderr := cli(t, append([]string{"train", "--data", dataPath, "--out", modelPath}, tiny...)...)
	if code != exitUsage || !strings.Contains(stderr, "exists") || !strings.Contains(stderr, "--force") {
		t.Fatalf("train over an existing --out: exit %d, stderr %q; want 2 naming --force", code, stderr)
	}
	if b, _ := os.ReadFile(modelPath); !bytes.Equal(b, old) {
		t.Error("a refused train changed the existing model")
	}
	stdout := mustRun(t, append([]string{"train", "--data", dataPath, "--out", modelPath, "--force", "--seed", "2"}, tiny[:len(tiny)-1]...)...)
	if b, _ := os.ReadFile(modelPath + ".bak"); !bytes.Equal(b, old) {
		t.Error("--force did not keep the old model as model.json.bak")
	}
	if b, _ := os.ReadFile(modelPath); bytes.Equal(b, old) {
		t.Error("--force did not replace the model")
	}
	if !strings.Contains(stdout, modelPath+".bak") {
		t.Errorf("train --force does not say where the old model is: %q", stdout)
	}

	sim := filepath.Join(dir, "sim.csv")
	mustRun(t, "simulate", "--model", modelPath, "--data", dataPath, "--out", sim)
	if code, _, stderr := cli(t, "simulate", "--model", modelPath, "--data", dataPath, "--out", sim); code != exitUsage || !strings.Contains(stderr, "--force") {
		t.Errorf("simulate over an existing --out: exit %d, %q; want 2 naming --force", code, stderr)
	}
	mustRun(t, "simulate", "--model", modelPath, "--data", dataPath, "--out", sim, "--force")
	if _, err := os.Stat(sim + ".bak"); err != nil {
		t.Errorf("simulate --force kept no backup: %v", err)
	}
	if code, _, stderr := cli(t, "gen", "msd", "--batches", "1", "--out", dataPath); code != exitUsage || !strings.Contains(stderr, "--force") {
		t.Errorf("gen over an existing data file: exit %d, %q; want 2 naming --force", code, stderr)
	}
	if code, _, stderr := cli(t, "gen", "rlc", "--batches", "1", "--out", dataPath); code != exitUsage || !strings.Contains(stderr, "--force") {
		t.Errorf("gen PLANT over an existing data file: exit %d, %q; want 2 naming --force", code, stderr)
	}
	exp := filepath.Join(dir, "c")
	mustRun(t, "export", "--model", modelPath, "--format", "c", "--out", exp, "--quiet")
	if code, _, stderr := cli(t, "export", "--model", modelPath, "--format", "c", "--out", exp); code != exitUsage || !strings.Contains(stderr, "--force") {
		t.Errorf("export over existing files: exit %d, %q; want 2 naming --force", code, stderr)
	}
	mustRun(t, "export", "--model", modelPath, "--format", "c", "--out", exp, "--force", "--quiet")
	if _, err := os.Stat(filepath.Join(exp, "nfir.h.bak")); err != nil {
		t.Errorf("export --force kept no backup: %v", err)
	}
	models := filepath.Join(dir, "models")
	cmp := []string{"compare", "--data", dataPath, "--val", dataPath, "--only", "toy-gain", "--quick", "--quiet", "--out", models}
	mustRun(t, cmp...)
	if code, _, stderr := cli(t, cmp...); code != exitUsage || !strings.Contains(stderr, "--force") {
		t.Errorf("compare over existing model files: exit %d, %q; want 2 naming --force", code, stderr)
	}
	mustRun(t, append(cmp, "--force")...)
	if _, err := os.Stat(filepath.Join(models, "toy-gain.json.bak")); err != nil {
		t.Errorf("compare --force kept no backup: %v", err)
	}
}

// TestOutInterruptedForce: Ctrl-C with --force over an existing model
// writes the best model so far to --out, keeps the old one as .bak, and the
// message names both.
func TestOutInterruptedForce(t *testing.T) {
	dir := t.TempDir()
	dataPath, modelPath := tinyModel(t, dir, 6)
	old, _ := os.ReadFile(modelPath)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var once sync.Once
	testHookContext = func() (context.Context, context.CancelFunc) { return ctx, cancel }
	testHookEvent = func(ev trainer.Event) {
		if ev.Stage == "adam" && ev.Iter == 1 {
			once.Do(cancel)
		}
	}
	defer func() { testHookContext, testHookEvent = nil, nil }()
	code, _, stderr := cli(t, "train", "--data", dataPath, "--out", modelPath, "--force", "--branches", "2", "--taps", "10",
		"--iters", "3", "--epochs", "20", "--quiet")
	if code != exitFailure {
		t.Fatalf("interrupted training: exit %d, want 1; stderr %s", code, stderr)
	}
	if !strings.Contains(stderr, "saved the best model so far") || !strings.Contains(stderr, modelPath+".bak") {
		t.Errorf("the message does not say what was written where: %q", stderr)
	}
	if b, _ := os.ReadFile(modelPath + ".bak"); !bytes.Equal(b, old) {
		t.Error("the old model is not kept as .bak")
	}
}

// TestOutFileAppeared: a file that appears at --out while the command runs
// (absent when checked) is not replaced without --force: the output goes to
// NAME-1.EXT, and where says so.
func TestOutFileAppeared(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "model.json")
	o, err := newOutFile("out", path, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("theirs"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := o.write(func(p string) error { return os.WriteFile(p, []byte("ours"), 0o644) }); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(dir, "model-1.json")
	if b, _ := os.ReadFile(path); string(b) != "theirs" {
		t.Errorf("the file that appeared holds %q, want it left as it was", b)
	}
	if b, _ := os.ReadFile(want); string(b) != "ours" || o.target() != want {
		t.Errorf("wrote %s holding %q, want %s holding ours", o.target(), b, want)
	}
	if w := o.where(); !strings.Contains(w, want) || !strings.Contains(w, "appeared") {
		t.Errorf("where() = %q, want it to name %s and why", w, want)
	}
}

// TestOutPathChecked: an output path through a directory that does not
// exist ("nosuch/..") is refused with exit 2 before any work, and nothing
// is created.
func TestOutPathChecked(t *testing.T) {
	dir := t.TempDir()
	dataPath, modelPath := tinyModel(t, dir, 3)
	bad := dir + string(filepath.Separator) + "nosuch" + string(filepath.Separator) + ".." + string(filepath.Separator)
	for _, args := range [][]string{
		append([]string{"train", "--data", dataPath, "--out", bad + "m.json"}, tiny...),
		append([]string{"train", "--data", dataPath, "--out", filepath.Join(dir, "m2.json"), "--plot", bad + "plots"}, tiny...),
		{"simulate", "--model", modelPath, "--data", dataPath, "--out", bad + "sim.csv"},
		{"eval", "--model", modelPath, "--data", dataPath, "--plot", bad + "plots"},
		{"gen", "msd", "--batches", "1", "--out", bad + "d.csv"},
		{"export", "--model", modelPath, "--format", "c", "--out", bad + "c"},
	} {
		start := time.Now()
		code, _, stderr := cli(t, args...)
		if code != exitUsage || !strings.Contains(stderr, "nosuch") {
			t.Errorf("%s: exit %d, stderr %q; want 2 naming nosuch", strings.Join(args, " "), code, stderr)
		}
		if s := time.Since(start); s > 2*time.Second {
			t.Errorf("%s: refused after %v, not before the work", args[0], s)
		}
	}
	for _, p := range []string{"nosuch", "m.json", "m2.json", "plots", "sim.csv", "d.csv", "c"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err == nil {
			t.Errorf("%s was created by a refused command", p)
		}
	}
}

// TestInternalError: a panic ends with one line naming the version and
// exit 3, never a stack trace; so does a panic a worker goroutine turned
// into a *trainer.PanicError.
func TestInternalError(t *testing.T) {
	defer func(v string) { version = v }(version)
	version = "v9.8.7-test"
	var stderr bytes.Buffer
	// A nil stdout makes the version command panic when it prints.
	code := run([]string{"version"}, nil, &stderr)
	msg := stderr.String()
	if code != exitInternal || strings.Count(msg, "\n") != 1 || !strings.Contains(msg, "v9.8.7-test") || !strings.Contains(msg, "internal error") {
		t.Errorf("panic: exit %d, stderr %q; want 3 and one line with the version", code, msg)
	}
	if strings.Contains(msg, "goroutine") {
		t.Errorf("a stack trace reached the user: %q", msg)
	}
	stderr.Reset()
	err := fmt.Errorf("training failed: %w", &trainer.PanicError{Value: "index out of range\n[3]"})
	if code := report(&stderr, "gputrain train", err); code != exitInternal || strings.Count(stderr.String(), "\n") != 1 || !strings.Contains(stderr.String(), "v9.8.7-test") {
		t.Errorf("worker panic: exit %d, stderr %q; want 3 and one line with the version", code, stderr.String())
	}
	if _, out, _ := cli(t, "help"); !strings.Contains(out, "3 internal error") {
		t.Errorf("the usage text does not document exit code 3:\n%s", out)
	}
}

// TestVersion: --version and the version command print the version set at
// build time, the Go version and the platform; train records the version,
// the command line and the start and end times in the model file.
func TestVersion(t *testing.T) {
	defer func(v string) { version = v }(version)
	version = "v1.2.3-test"
	for _, args := range [][]string{{"--version"}, {"version"}} {
		out := mustRun(t, args...)
		if !strings.HasPrefix(out, "gputrain v1.2.3-test") || !strings.Contains(out, "go1.") || !strings.Contains(out, "/") {
			t.Errorf("%v: %q, want the version, Go version and platform", args, out)
		}
	}
	var b buildInfo
	if err := json.Unmarshal([]byte(mustRun(t, "version", "--json")), &b); err != nil || b.Version != "v1.2.3-test" || b.Go == "" || b.Platform == "" {
		t.Errorf("version --json: %+v, %v", b, err)
	}

	dir := t.TempDir()
	before := time.Now().UTC().Truncate(time.Second)
	_, modelPath := tinyModel(t, dir, 3)
	p, ok := storedTraining(t, modelPath)[provenanceKey].(map[string]any)
	if !ok {
		t.Fatalf("no training.%s in the model file", provenanceKey)
	}
	if p["version"] != "v1.2.3-test" || p["tool"] != "gputrain" {
		t.Errorf("provenance %v: want tool gputrain, version v1.2.3-test", p)
	}
	if cl, _ := p["command_line"].(string); !strings.HasPrefix(cl, "gputrain train --data ") || !strings.Contains(cl, "--out "+modelPath) {
		t.Errorf("command_line %q, want the full train command", cl)
	}
	start, err1 := time.Parse(time.RFC3339, fmt.Sprint(p["start"]))
	end, err2 := time.Parse(time.RFC3339, fmt.Sprint(p["end"]))
	if err1 != nil || err2 != nil || start.Before(before) || end.Before(start) || !strings.HasSuffix(fmt.Sprint(p["end"]), "Z") {
		t.Errorf("start %v, end %v (%v, %v): want UTC RFC 3339 times, start ≤ end", p["start"], p["end"], err1, err2)
	}
}

// TestModelVersionRefused: a model file of a newer version is refused with
// exit 2, naming its version, the versions this tool reads and the tool
// version; version 0 is refused as no version.
func TestModelVersionRefused(t *testing.T) {
	defer func(v string) { version = v }(version)
	version = "v1.2.3-test"
	dir := t.TempDir()
	dataPath, modelPath := tinyModel(t, dir, 3)
	raw, _ := os.ReadFile(modelPath)
	var f map[string]any
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		version float64
		want    []string
	}{
		{99, []string{"version 99", "newer", "1 to 2", "v1.2.3-test"}},
		{0, []string{"version 0", "start at 1"}},
	} {
		f["version"] = c.version
		b, _ := json.Marshal(f)
		p := filepath.Join(dir, fmt.Sprintf("v%g.json", c.version))
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{
			{"eval", "--model", p, "--data", dataPath},
			{"certify", "--model", p},
			{"simulate", "--model", p, "--data", dataPath, "--out", "-"},
		} {
			code, _, stderr := cli(t, args...)
			if code != exitUsage {
				t.Errorf("%s of version %g: exit %d, want 2", args[0], c.version, code)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("%s of version %g: %q does not say %q", args[0], c.version, stderr, w)
				}
			}
		}
	}
}

// linearModel writes a model file of one linear tap lin, sampling time ts,
// without a passivity claim.
func linearModel(t *testing.T, dir, name string, lin, ts float64) string {
	t.Helper()
	s := fmt.Sprintf(`{"format": "gputrain-nfir", "version": 1, "structure": {"linear_taps": 1}, "ts": %g,
 "scalers": {"u": {"scale": 1, "mean": 0, "std": 1}, "q": {"scale": 1, "mean": 0, "std": 1}},
 "linear": [%g], "passivity": {"mode": "none"}}`, ts, lin)
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestNonfinite: a simulation that overflows fails (exit 1) and writes
// nothing, unless --allow-nonfinite.
func TestNonfinite(t *testing.T) {
	dir := t.TempDir()
	huge := linearModel(t, dir, "huge.json", 1e300, 0)
	dataPath := filepath.Join(dir, "d.csv")
	if err := os.WriteFile(dataPath, []byte("u,y\n1e10,1\n2e10,2\n-1e10,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sim := filepath.Join(dir, "sim.csv")
	for _, args := range [][]string{
		{"simulate", "--model", huge, "--data", dataPath, "--out", sim},
		{"simulate", "--model", huge, "--data", dataPath, "--out", "-"},
		{"eval", "--model", huge, "--data", dataPath},
		{"eval", "--model", huge, "--data", dataPath, "--json"},
	} {
		code, stdout, stderr := cli(t, args...)
		if code != exitFailure || !strings.Contains(stderr, "--allow-nonfinite") || !strings.Contains(stderr, "Inf") {
			t.Errorf("%v: exit %d, stderr %q; want 1 naming Inf and --allow-nonfinite", args, code, stderr)
		}
		if stdout != "" {
			t.Errorf("%v wrote %q to stdout", args, stdout)
		}
	}
	if _, err := os.Stat(sim); err == nil {
		t.Error("simulate wrote a non-finite output")
	}
	mustRun(t, "simulate", "--model", huge, "--data", dataPath, "--out", sim, "--allow-nonfinite")
	if b, _ := os.ReadFile(sim); !strings.Contains(string(b), "Inf") {
		t.Errorf("--allow-nonfinite output lacks the Inf:\n%s", b)
	}
	mustRun(t, "eval", "--model", huge, "--data", dataPath, "--allow-nonfinite")
}

// TestTsMismatch: --ts that differs from the model's sampling time is
// refused (exit 2) unless --allow-ts-mismatch, in eval, simulate and export
// (the FMU's step); an unknown one is not.
func TestTsMismatch(t *testing.T) {
	dir := t.TempDir()
	m := linearModel(t, dir, "m.json", 0.5, 0.02)
	dataPath := filepath.Join(dir, "d.csv")
	if err := os.WriteFile(dataPath, []byte("u,y\n1,0.5\n2,1\n-1,-0.5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range [][]string{{"eval"}, {"simulate", "--out", "-"}} {
		args := append(append([]string{}, cmd...), "--model", m, "--data", dataPath)
		code, _, stderr := cli(t, append(args, "--ts", "0.01")...)
		if code != exitUsage || !strings.Contains(stderr, "0.02") || !strings.Contains(stderr, "--allow-ts-mismatch") {
			t.Errorf("%s --ts 0.01 on a 0.02 s model: exit %d, %q; want 2 naming both and the override", cmd[0], code, stderr)
		}
		mustRun(t, append(args, "--ts", "0.01", "--allow-ts-mismatch")...)
		mustRun(t, append(args, "--ts", "0.02")...)
		mustRun(t, args...)
	}
	fmu := []string{"export", "--model", m, "--format", "fmu", "--quiet", "--out"}
	if code, _, stderr := cli(t, append(fmu, filepath.Join(dir, "fmu1"), "--ts", "0.01")...); code != exitUsage || !strings.Contains(stderr, "--allow-ts-mismatch") {
		t.Errorf("export --ts 0.01 of a 0.02 s model: exit %d, %q; want 2 naming the override", code, stderr)
	}
	mustRun(t, append(fmu, filepath.Join(dir, "fmu2"), "--ts", "0.01", "--allow-ts-mismatch")...)
}
