package main

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/model"
	"github.com/passivenfir/gputrain/search"
	"github.com/passivenfir/gputrain/trainer"
)

// writeCSV writes a single-batch u,y CSV and returns its path.
func writeCSV(t *testing.T, dir, name string, u, y []float64) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("u,y\n")
	for i := range u {
		fmt.Fprintf(&b, "%g,%g\n", u[i], y[i])
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestEvalBothFits checks that eval reports the paper's Fit and MATLAB
// compare's NRMSE fit, each by name, in text and --json, with the values of
// model.Fit and model.NRMSEFit on the model's simulation.
func TestEvalBothFits(t *testing.T) {
	dir := t.TempDir()
	m, err := model.New(model.Structure{LinearTaps: 3})
	if err != nil {
		t.Fatal(err)
	}
	copy(m.Lin, []float64{1, 0.5, 0.25})
	modelPath := filepath.Join(dir, "fir.json")
	if err := model.Save(modelPath, m, model.Meta{Mode: "exact"}); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(9, 9))
	u, y := make([]float64, 200), make([]float64, 200)
	for i := range u {
		u[i] = rng.NormFloat64()
	}
	ysim, _ := m.Simulate(u)
	for i := range y {
		y[i] = ysim[i] + 1 + 0.2*rng.NormFloat64() // an offset: the two measures differ
	}
	dataPath := writeCSV(t, dir, "d.csv", u, y)
	wantFit, _ := model.Fit(y, ysim, 0)
	wantN, _ := model.NRMSEFit(y, ysim, 0)

	text := mustRun(t, "eval", "--model", modelPath, "--data", dataPath)
	for _, s := range []string{"Fit = 100·(1 − ‖y − ŷ‖/‖y‖)", "NRMSE fit = 100·(1 − ‖y − ŷ‖/‖y − mean(y)‖)", fmt.Sprintf("%.2f", wantN), fmt.Sprintf("%.2f", wantFit)} {
		if !strings.Contains(text, s) {
			t.Errorf("eval text lacks %q:\n%s", s, text)
		}
	}
	type loops struct {
		ClosedLoop struct{ Median float64 } `json:"closed_loop"`
		OpenLoop   struct{ Median float64 } `json:"open_loop"`
	}
	var r struct {
		Fit      loops             `json:"fit"`
		NRMSEFit loops             `json:"nrmse_fit"`
		Measures map[string]string `json:"measures"`
	}
	out := mustRun(t, "eval", "--model", modelPath, "--data", dataPath, "--json")
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if math.Abs(r.Fit.ClosedLoop.Median-wantFit) > 1e-9 || math.Abs(r.NRMSEFit.ClosedLoop.Median-wantN) > 1e-9 || math.Abs(r.NRMSEFit.OpenLoop.Median-wantN) > 1e-9 {
		t.Errorf("eval --json: fit %g, nrmse_fit %g/%g; want %g and %g", r.Fit.ClosedLoop.Median, r.NRMSEFit.ClosedLoop.Median, r.NRMSEFit.OpenLoop.Median, wantFit, wantN)
	}
	if !(wantN < wantFit-5) {
		t.Fatalf("the test data should separate the measures: %g vs %g", wantN, wantFit)
	}
	if r.Measures["fit"] != fitPaperFormula || r.Measures["nrmse_fit"] != fitNRMSEFormula {
		t.Errorf("measures %v", r.Measures)
	}
}

// readRows reads a CSV written by simulate into its header and columns.
func readRows(t *testing.T, path string) (header []string, cols [][]float64) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	header = strings.Split(lines[0], ",")
	cols = make([][]float64, len(header))
	for _, l := range lines[1:] {
		for j, f := range strings.Split(l, ",") {
			var v float64
			if _, err := fmt.Sscan(f, &v); err != nil {
				t.Fatalf("%s: %q: %v", path, l, err)
			}
			cols[j] = append(cols[j], v)
		}
	}
	return header, cols
}

// TestSimulateOpenLoop checks that simulate --open-loop writes the one-step
// predictions of a feedback model (q = measured y(t−1)), which differ from
// its closed-loop simulation, and says that a feed-forward model's are its
// simulation.
func TestSimulateOpenLoop(t *testing.T) {
	dir := t.TempDir()
	dataPath, modelPath := tinyModel(t, dir, 2)
	m, _, err := model.Load(modelPath)
	if err != nil || !m.Feedback {
		t.Fatalf("tiny model: %v, feedback %v", err, m != nil && m.Feedback)
	}
	pred := filepath.Join(dir, "pred.csv")
	code, _, stderr := cli(t, "simulate", "--model", modelPath, "--data", dataPath, "--open-loop", "--out", pred)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	header, cols := readRows(t, pred)
	if strings.Join(header, ",") != "batch,u,y,y_pred" {
		t.Fatalf("header %v", header)
	}
	// batch 0 of the file: rows until the batch column changes
	n := 0
	for n < len(cols[0]) && cols[0][n] == 0 {
		n++
	}
	u, y, got := cols[1][:n], cols[2][:n], cols[3][:n]
	want, _ := m.Forward(u, data.Q(y))
	closed, _ := m.Simulate(u)
	differs := false
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12*math.Max(1, math.Abs(want[i])) {
			t.Fatalf("y_pred[%d] = %g; want %g (one-step prediction)", i, got[i], want[i])
		}
		differs = differs || math.Abs(closed[i]-want[i]) > 1e-9
	}
	if !differs {
		t.Error("the feedback model's open-loop prediction equals its simulation: the test does not tell them apart")
	}

	// A feed-forward model: the same as the simulation, and said so.
	ff, err := model.New(model.Structure{LinearTaps: 2})
	if err != nil {
		t.Fatal(err)
	}
	copy(ff.Lin, []float64{1, 0.5})
	ffPath := filepath.Join(dir, "ff.json")
	if err := model.Save(ffPath, ff, model.Meta{Mode: "exact"}); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = cli(t, "simulate", "--model", ffPath, "--data", dataPath, "--open-loop", "--force", "--out", pred)
	if code != 0 || !strings.Contains(stderr, "equals its closed-loop simulation") {
		t.Fatalf("FF model: exit %d, stderr %q", code, stderr)
	}
	_, cols = readRows(t, pred)
	sim, _ := ff.Simulate(cols[1][:n])
	for i := range sim {
		if math.Abs(cols[3][i]-sim[i]) > 1e-12 {
			t.Fatalf("FF y_pred[%d] = %g; want the simulation %g", i, cols[3][i], sim[i])
		}
	}

	// The measured output is needed: a file without it is bad input.
	uOnly := filepath.Join(dir, "u.csv")
	if err := os.WriteFile(uOnly, []byte("u\n1\n2\n3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := cli(t, "simulate", "--model", modelPath, "--data", uOnly, "--open-loop", "--out", filepath.Join(dir, "x.csv")); code != 2 || !strings.Contains(stderr, "y") {
		t.Errorf("no y column: exit %d, %q; want 2", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "x.csv")); err == nil {
		t.Error("a refused run wrote its output")
	}
}

// TestMetricsLog checks train --log: one JSON object per θ_G step, epoch
// and evaluation, written as training goes, with the fields documented in
// docs/MODEL_FORMAT.md; CSV for a .csv name; a log path that would
// overwrite the model or cannot be written is refused before training.
func TestMetricsLog(t *testing.T) {
	dir := t.TempDir()
	train := genData(t, dir, 5, "1")
	logPath := filepath.Join(dir, "metrics.jsonl")
	var lines int
	testHookEvent = func(ev trainer.Event) {
		// written through at once: every event before this one is in the file
		if ev.Stage == "eval" {
			b, _ := os.ReadFile(logPath)
			lines = strings.Count(string(b), "\n")
		}
	}
	defer func() { testHookEvent = nil }()
	mustRun(t, "train", "--data", train, "--branches", "2", "--taps", "10", "--iters", "2", "--epochs", "3", "--patience", "0",
		"--quiet", "--log", logPath, "--out", filepath.Join(dir, "m.json"))
	b, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	var phases []string
	for i, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r map[string]any
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("line %d %q: %v", i+1, l, err)
		}
		for _, k := range []string{"iteration", "epoch", "phase", "loss", "train_fit", "open_loop_val_fit", "closed_loop_val_fit", "seconds"} {
			if _, ok := r[k]; !ok {
				t.Errorf("line %d lacks %q: %s", i+1, k, l)
			}
		}
		p := r["phase"].(string)
		phases = append(phases, p)
		switch p {
		case "adam":
			if r["open_loop_val_fit"] == nil || r["epoch"] == nil || r["loss"] == nil {
				t.Errorf("adam line without its figures: %s", l)
			}
		case "eval":
			if r["closed_loop_val_fit"] == nil {
				t.Errorf("eval line without the closed-loop validation fit: %s", l)
			}
		case "thetaG":
			if r["loss"] == nil || r["epoch"] != nil {
				t.Errorf("thetaG line: %s", l)
			}
		}
	}
	want := "thetaG adam adam adam eval thetaG adam adam adam eval"
	if got := strings.Join(phases, " "); got != want {
		t.Errorf("phases %q; want %q", got, want)
	}
	if lines != 10 {
		t.Errorf("at the last evaluation the file held %d lines; want 10 (written as training goes)", lines)
	}

	csvPath := filepath.Join(dir, "metrics.csv")
	mustRun(t, "train", "--data", train, "--branches", "2", "--taps", "10", "--iters", "1", "--epochs", "2",
		"--quiet", "--log", csvPath, "--out", filepath.Join(dir, "m2.json"))
	header, cols := readCSVText(t, csvPath)
	if strings.Join(header, ",") != strings.Join(metricsHeader, ",") || len(cols) != 4 {
		t.Errorf("CSV log: header %v, %d rows", header, len(cols))
	}

	for _, tc := range []struct{ log, want string }{
		{filepath.Join(dir, "m3.json"), "is the --out file"},
		{filepath.Join(dir, "nosuch", "m.jsonl"), "does not exist"},
		{train, "is the --data file"},
	} {
		code, _, stderr := cli(t, "train", "--data", train, "--branches", "2", "--quiet", "--log", tc.log, "--out", filepath.Join(dir, "m3.json"))
		if code != 2 || !strings.Contains(stderr, tc.want) || !strings.Contains(stderr, "--log") {
			t.Errorf("--log %s: exit %d, %q; want 2 and %q", tc.log, code, stderr, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "m3.json")); err == nil {
		t.Error("a refused --log still trained")
	}
}

// readCSVText splits a CSV without quoted fields into its header and rows.
func readCSVText(t *testing.T, path string) (header []string, rows [][]string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	for _, l := range lines[1:] {
		rows = append(rows, strings.Split(l, ","))
	}
	return strings.Split(lines[0], ","), rows
}

// TestWarmStart checks train --warm-start: the run continues from the
// file's parameters and structure with no structure search, its validation
// Fit is at least the starting model's, and structure flags that disagree
// with the file are refused before any work, each named.
func TestWarmStart(t *testing.T) {
	dir := t.TempDir()
	train := genData(t, dir, 5, "1")
	val := genData(t, dir, 3, "2")
	first := filepath.Join(dir, "first.json")
	mustRun(t, append([]string{"train", "--data", train, "--val", val, "--out", first}, tiny...)...)
	startModel, _, err := model.Load(first)
	if err != nil {
		t.Fatal(err)
	}

	second := filepath.Join(dir, "second.json")
	mustRun(t, "train", "--data", train, "--val", val, "--warm-start", first, "--iters", "1", "--epochs", "2", "--seed", "5", "--quiet", "--out", second)
	m, _, err := model.Load(second)
	if err != nil {
		t.Fatal(err)
	}
	if !sameStructureForTest(m.Structure, startModel.Structure) {
		t.Errorf("warm start changed the structure: %+v, started from %+v", m.Structure, startModel.Structure)
	}
	tr := storedTraining(t, second)
	if tr["warm-start"] != first || tr[searchKey] != nil {
		t.Errorf("training object: warm-start %v, structure_search %v; want %s and none", tr["warm-start"], tr[searchKey], first)
	}
	fitOf := func(path string) float64 {
		var r struct {
			Fit struct {
				ClosedLoop struct{ Median float64 } `json:"closed_loop"`
			} `json:"fit"`
		}
		if err := json.Unmarshal([]byte(mustRun(t, "eval", "--model", path, "--data", val, "--json")), &r); err != nil {
			t.Fatal(err)
		}
		return r.Fit.ClosedLoop.Median
	}
	if a, b := fitOf(first), fitOf(second); b < a-1e-9 {
		t.Errorf("validation Fit after the warm start %.6f < the starting model's %.6f", b, a)
	}

	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"--taps", "11", "--hidden", "3"}, []string{"--taps 11 (the model has 10)", `--hidden "3"`}},
		{[]string{"--no-feedback"}, []string{"--no-feedback (the model has feedback)"}},
		{[]string{"--members", "2"}, []string{"--members 2"}},
		{[]string{"--search", "on"}, []string{"--search on"}},
		{[]string{"--model", "gru"}, []string{"--warm-start"}},
	} {
		out := filepath.Join(dir, "refused.json")
		args := append([]string{"train", "--data", train, "--warm-start", first, "--quiet", "--out", out}, tc.args...)
		code, _, stderr := cli(t, args...)
		if code != 2 {
			t.Errorf("%v: exit %d; want 2 (%s)", tc.args, code, stderr)
		}
		for _, w := range tc.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%v: %q lacks %q", tc.args, stderr, w)
			}
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: a refused run wrote %s", tc.args, out)
		}
	}
}

func sameStructureForTest(a, b model.Structure) bool {
	return fmt.Sprint(a) == fmt.Sprint(b)
}

// TestMetricsLogSearch: during a structure search (whose candidates log no
// epochs) each search event is one line of phase search, with its rung,
// candidate and closed-loop validation fit (null when it has none).
func TestMetricsLogSearch(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.jsonl")
	l, err := openMetricsLog(path, trainer.DefaultConfig(), os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	log := l.wrapSearch(nil)
	log(search.Event{Stage: "plan", ValFit: math.NaN(), Note: "9 candidates"})
	log(search.Event{Stage: "candidate", Rung: 1, Rungs: 3, Candidate: "FF 10×64", ValFit: 80.5, Elapsed: 1500 * time.Millisecond})
	l.close()
	b, _ := os.ReadFile(path)
	want := `{"iteration":0,"epoch":null,"phase":"search","loss":null,"train_fit":null,"open_loop_val_fit":null,"closed_loop_val_fit":null,"seconds":0,"stage":"plan","note":"9 candidates"}
{"iteration":2,"epoch":null,"phase":"search","loss":null,"train_fit":null,"open_loop_val_fit":null,"closed_loop_val_fit":80.5,"seconds":1.5,"stage":"candidate","candidate":"FF 10×64"}
`
	if string(b) != want {
		t.Errorf("search log:\n%s\nwant:\n%s", b, want)
	}
}
