package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/kernels"
	"github.com/passivenfir/gputrain/model"
	"github.com/passivenfir/gputrain/trainer"
)

// cli runs the program in-process and returns its exit code and output.
func cli(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = run(args, &o, &e)
	return code, o.String(), e.String()
}

// mustRun runs a command that must succeed.
func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errOut := cli(t, args...)
	if code != 0 {
		t.Fatalf("gputrain %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, out, errOut)
	}
	return out
}

// tiny are the training flags of the end-to-end tests: seconds, not minutes.
var tiny = []string{"--branches", "2", "--taps", "10", "--iters", "1", "--epochs", "3", "--quiet"}

// genData writes a small mass-spring-damper data set into dir.
func genData(t *testing.T, dir string, batches int, seed string, extra ...string) string {
	t.Helper()
	path := filepath.Join(dir, "msd-"+seed+".csv")
	mustRun(t, append([]string{"gen", "msd", "--batches", itoa(batches), "--seed", seed, "--out", path}, extra...)...)
	return path
}

// tinyModel generates batches of MSD data in dir and trains a small model
// on them (the tiny settings); it returns the data and model paths.
func tinyModel(t *testing.T, dir string, batches int) (dataPath, modelPath string) {
	t.Helper()
	dataPath = genData(t, dir, batches, "1")
	modelPath = filepath.Join(dir, "model.json")
	mustRun(t, append([]string{"train", "--data", dataPath, "--out", modelPath}, tiny...)...)
	return dataPath, modelPath
}

func itoa(i int) string { return strconv.Itoa(i) }

func decode(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("not one JSON object: %v\n%s", err, s)
	}
	return m
}

func TestEndToEnd(t *testing.T) {
	dir := t.TempDir()
	train := genData(t, dir, 8, "1")
	test := genData(t, dir, 3, "2", "--snr", "20")
	modelPath := filepath.Join(dir, "model.json")
	plots := filepath.Join(dir, "plots")

	// train --json: one object on stdout.
	out := mustRun(t, append([]string{"train", "--data", train, "--out", modelPath, "--json", "--plot", plots}, tiny...)...)
	tr := decode(t, out)
	for _, k := range []string{"model", "saved", "interrupted", "seconds", "best_val_fit", "certificate", "train_batches", "val_batches"} {
		if _, ok := tr[k]; !ok {
			t.Errorf("train --json lacks %q: %s", k, out)
		}
	}
	if tr["saved"] != true || tr["interrupted"] != false || tr["val_batches"] != 1.0 || tr["train_batches"] != 7.0 {
		t.Errorf("train --json: %s", out)
	}
	m, meta, err := model.Load(modelPath)
	if err != nil {
		t.Fatal(err)
	}
	if m.Branches != 2 || m.Taps != 10 || meta.Mode != "exact" {
		t.Errorf("model has %d branches × %d taps, mode %q", m.Branches, m.Taps, meta.Mode)
	}
	var training map[string]any
	if err := json.Unmarshal(meta.Training, &training); err != nil || training["taps"] != 10.0 || training["passivity"] != "exact" {
		t.Errorf("model training settings %s (%v)", meta.Training, err)
	}
	for _, f := range []string{"training", "re_g", "fit"} {
		for _, ext := range []string{".png", ".svg"} {
			if _, err := os.Stat(filepath.Join(plots, f+ext)); err != nil {
				t.Errorf("plot: %v", err)
			}
		}
	}

	// eval --json: {"fit": {"closed_loop": {...}, "open_loop": {...}}}.
	out = mustRun(t, "eval", "--model", modelPath, "--data", test, "--json", "--skip", "5")
	ev := decode(t, out)
	fit, ok := ev["fit"].(map[string]any)
	if !ok {
		t.Fatalf("eval --json has no fit object: %s", out)
	}
	for _, loop := range []string{"closed_loop", "open_loop"} {
		s, ok := fit[loop].(map[string]any)
		if !ok {
			t.Fatalf("eval --json: no fit.%s: %s", loop, out)
		}
		for _, k := range []string{"mean", "median", "min", "max"} {
			if _, ok := s[k].(float64); !ok {
				t.Errorf("fit.%s.%s missing or not a number", loop, k)
			}
		}
		if pb, ok := s["per_batch"].([]any); !ok || len(pb) != 3 {
			t.Errorf("fit.%s.per_batch: %v", loop, s["per_batch"])
		}
	}
	if ev["scored_on"] != "y_clean" {
		t.Errorf("noisy data scored on %v, want y_clean", ev["scored_on"])
	}
	// One worker gives the same figures as one per CPU.
	if one := mustRun(t, "eval", "--model", modelPath, "--data", test, "--json", "--skip", "5", "--workers", "1"); one != out {
		t.Errorf("eval --workers 1:\n%s\nwant\n%s", one, out)
	}
	if text := mustRun(t, "eval", "--model", modelPath, "--data", test); !strings.Contains(text, "closed loop") || !strings.Contains(text, "open loop") {
		t.Errorf("eval table:\n%s", text)
	}

	// certify --json: {"passive": true, "branches": [{"min_re", "omega"}, …]}.
	out = mustRun(t, "certify", "--model", modelPath, "--json")
	c := decode(t, out)
	if c["passive"] != true {
		t.Errorf("certify: %s", out)
	}
	br, ok := c["branches"].([]any)
	if !ok || len(br) != 2 {
		t.Fatalf("certify branches: %s", out)
	}
	for _, b := range br {
		bm := b.(map[string]any)
		if re, ok := bm["min_re"].(float64); !ok || re < 0 {
			t.Errorf("branch min_re %v", bm["min_re"])
		}
		if _, ok := bm["omega"].(float64); !ok {
			t.Errorf("branch omega %v", bm["omega"])
		}
	}

	// simulate: one row per input row, columns batch,u,y_sim.
	sim := filepath.Join(dir, "sim.csv")
	mustRun(t, "simulate", "--model", modelPath, "--data", test, "--out", sim)
	simText, err := os.ReadFile(sim)
	if err != nil {
		t.Fatal(err)
	}
	inText, _ := os.ReadFile(test)
	simLines := strings.Split(strings.TrimSpace(string(simText)), "\n")
	inLines := strings.Split(strings.TrimSpace(string(inText)), "\n")
	if simLines[0] != "batch,u,y_sim" || len(simLines) != len(inLines) {
		t.Errorf("simulate wrote %d lines with header %q; input has %d lines", len(simLines), simLines[0], len(inLines))
	}
	// The simulation agrees with the reference closed loop of the model.
	ys, _ := m.Simulate([]float64{1, 2, 3})
	if len(ys) != 3 {
		t.Fatal("reference simulation")
	}

	// simulate accepts a CSV with u only.
	uOnly := filepath.Join(dir, "u.csv")
	os.WriteFile(uOnly, []byte("u\n1\n2\n3\n0\n"), 0o644)
	out = mustRun(t, "simulate", "--model", modelPath, "--data", uOnly, "--out", "-")
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 5 || lines[0] != "batch,u,y_sim" {
		t.Errorf("simulate of u only:\n%s", out)
	}
}

func TestConfigFile(t *testing.T) {
	dir := t.TempDir()
	train := genData(t, dir, 3, "1")
	for _, tc := range []struct{ name, text string }{
		{"c.toml", "branches = 3\ntaps = 12\nhidden = [3]\niters = 1\nepochs = 2\nquiet = true\nno-feedback = true\n"},
		{"c.yaml", "branches: 3\ntaps: 12\nhidden: [3]\niters: 1\nepochs: 2\nquiet: true\nno_feedback: true\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := filepath.Join(dir, tc.name)
			os.WriteFile(cfg, []byte(tc.text), 0o644)
			out := filepath.Join(dir, tc.name+".json")
			// --taps on the command line overrides the file.
			mustRun(t, "train", "--config", cfg, "--data", train, "--taps", "8", "--out", out)
			m, _, err := model.Load(out)
			if err != nil {
				t.Fatal(err)
			}
			if m.Branches != 3 || m.Taps != 8 || m.Feedback || len(m.Hidden) != 1 || m.Hidden[0] != 3 {
				t.Errorf("structure %+v, want 3 branches, 8 taps (flag beats file), FF, hidden [3]", m.Structure)
			}
			// --feedback on the command line beats the file's no-feedback:
			// the two flags are one switch.
			mustRun(t, "train", "--config", cfg, "--data", train, "--feedback", "--force", "--out", out)
			if m, _, err = model.Load(out); err != nil {
				t.Fatal(err)
			}
			if !m.Feedback {
				t.Errorf("--feedback with no-feedback in the file: an FF model")
			}
		})
	}
}

// TestFewBatchesValidation: with fewer than five batches and no --val, an
// NFIR validates on the last 20% of each batch after a lead-in of its memory
// (the 250-sample MSD batches), a linear FIR and batches too short for the
// lead-in train without validation; the model is saved in every case.
func TestFewBatchesValidation(t *testing.T) {
	shortLoops(t, 3)
	dir := t.TempDir()
	train := genData(t, dir, 2, "1")
	for _, c := range []struct {
		name  string
		flags []string
		note  string
		val   bool    // a validation Fit is reported
		skip  float64 // the stored val-skip (0: not checked)
	}{
		{"nfir", []string{"--branches", "1", "--taps", "5"}, "validating on the last 20% of each batch", true, 5},
		{"nfir, longer --val-skip kept", []string{"--branches", "1", "--taps", "5", "--val-skip", "30"}, "validating on the last 20% of each batch", true, 30},
		{"fir", []string{"--branches", "0", "--linear-taps", "5"}, "nothing to select", false, 0},
		{"memory longer than the head", []string{"--branches", "1", "--taps", "210"}, "training without validation", false, 0},
		// a search judged on the tails is told what they cannot show
		{"search", []string{"--budget", "1"}, "cannot show how a model extrapolates to inputs of other amplitudes or frequencies", true, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(dir, "m.json")
			args := append([]string{"train", "--data", train, "--iters", "1", "--epochs", "2", "--force", "--out", out}, c.flags...)
			code, stdout, stderr := cli(t, args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if !strings.Contains(stderr, c.note) {
				t.Errorf("no note %q:\n%s", c.note, stderr)
			}
			if got := strings.Contains(stdout, "validation fit"); got != c.val {
				t.Errorf("validation fit reported %v, want %v:\n%s", got, c.val, stdout)
			}
			if _, _, err := loadSimulator(out); err != nil { // an NFIR, or the loop a search chose
				t.Error(err)
			}
			if got := storedTraining(t, out)["val-skip"]; c.skip > 0 && got != c.skip {
				t.Errorf("stored val-skip %v, want %v", got, c.skip)
			}
		})
	}
}

func TestLinearFIR(t *testing.T) {
	dir := t.TempDir()
	train := genData(t, dir, 2, "1")
	out := filepath.Join(dir, "fir.json")
	mustRun(t, "train", "--data", train, "--branches", "0", "--linear-taps", "20", "--iters", "1", "--quiet", "--out", out)
	c := decode(t, mustRun(t, "certify", "--model", out, "--json"))
	if c["passive"] != true || c["linear"] == nil {
		t.Errorf("certify of a linear FIR: %v", c)
	}
	// A decay bound far below the plant's gain holds taps at the bound: the
	// summary says so, and --json counts them.
	tight := []string{"train", "--data", train, "--branches", "0", "--linear-taps", "20", "--iters", "1", "--rho", "1e-4", "--force", "--out", out}
	if text := mustRun(t, tight...); !strings.Contains(text, "taps end on the decay bound") || !strings.Contains(text, "for example --rho 0.001") {
		t.Errorf("no decay-bound note with a value to try in the summary:\n%s", text)
	}
	r := decode(t, mustRun(t, append(tight, "--json")...))
	if n, _ := r["taps_at_bound"].(float64); n < 1 || n > 20 {
		t.Errorf("taps_at_bound %v, want 1..20", r["taps_at_bound"])
	}
	if notes, _ := r["notes"].([]any); len(notes) != 1 || !strings.Contains(fmt.Sprint(notes[0]), "--rho 0.001") {
		t.Errorf("--json notes %v, want the decay-bound note", r["notes"])
	}
	if text := mustRun(t, "train", "--data", train, "--branches", "0", "--linear-taps", "20", "--iters", "1", "--rho", "0", "--force", "--out", out); strings.Contains(text, "decay bound") || strings.Contains(text, "ridge") {
		t.Errorf("decay-bound or ridge note without decay bounds, at the default γ_G:\n%s", text)
	}
	// A ridge weight far above the Gram matrix's diagonal: a note, and its ratio in --json.
	ridge := []string{"train", "--data", train, "--branches", "0", "--linear-taps", "20", "--rho", "0", "--gamma-g", "1e9", "--force", "--out", out}
	if text := mustRun(t, ridge...); !strings.Contains(text, "the ridge rather than the data sets the taps") {
		t.Errorf("no ridge note in the summary:\n%s", text)
	}
	r = decode(t, mustRun(t, append(ridge, "--json")...))
	if v, _ := r["ridge_ratio"].(float64); !(v > 1) {
		t.Errorf("ridge_ratio %v, want > 1", r["ridge_ratio"])
	}
}

func TestCertifyNotPassive(t *testing.T) {
	dir := t.TempDir()
	m, err := model.New(model.Structure{LinearTaps: 2})
	if err != nil {
		t.Fatal(err)
	}
	m.Lin[0], m.Lin[1] = 0.1, 1 // Re G(π) = 0.1 − 1 < 0
	path := filepath.Join(dir, "np.json")
	if err := model.Save(path, m, model.Meta{Mode: "none"}); err != nil {
		t.Fatal(err)
	}
	code, out, _ := cli(t, "certify", "--model", path, "--json")
	if code != exitFailure {
		t.Errorf("certify of a non-passive model: exit %d, want 1", code)
	}
	if c := decode(t, out); c["passive"] != false {
		t.Errorf("certify: %s", out)
	}
}

func TestHelp(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		example bool // a command's own help shows an example
	}{
		{[]string{"help"}, false}, {[]string{"--help"}, false}, {[]string{"gen", "--help"}, false}, {[]string{"bench", "--help"}, false},
		{[]string{"demo", "--help"}, true}, {[]string{"gen", "msd", "--help"}, true}, {[]string{"train", "--help"}, true},
		{[]string{"eval", "--help"}, true}, {[]string{"simulate", "--help"}, true}, {[]string{"certify", "--help"}, true},
		{[]string{"bench", "qp", "--help"}, true}, {[]string{"bench", "epoch", "--help"}, true}, {[]string{"help", "train"}, true},
		{[]string{"train", "-h"}, true},
	} {
		code, out, _ := cli(t, tc.args...)
		if code != 0 || out == "" {
			t.Errorf("%v: exit %d, output %q", tc.args, code, out)
		}
		if tc.example && !strings.Contains(out, "Example:") {
			t.Errorf("%v: no example in the help:\n%s", tc.args, out)
		}
	}
	if !strings.Contains(mustRun(t, "train", "--help"), "--passivity") {
		t.Error("train --help does not list --passivity")
	}
}

// TestBadInput: every bad input exits 2 with one line naming the problem,
// and writes no output file.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	good := genData(t, dir, 2, "1")
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	badCSV := write("bad.csv", "u,y\n1,2\n3,abc\n")
	badU := write("badu.csv", "u,y\n1,2\nabc,3\n")
	zeroU := write("zerou.csv", "u,y\n"+strings.Repeat("0,1\n", 200))
	huge := write("huge.csv", "u,y\n"+strings.Repeat("1e300,1\n", 200))
	unknownCol := write("unknown.csv", "u,y,zzz\n1,2,3\n")
	ragged := write("ragged.csv", "u,y\n1,2\n3\n")
	empty := write("empty.csv", "")
	notModel := write("notmodel.json", "{\"hello\": 1}")
	badToml := write("bad.toml", "taps = = 3\n")
	unknownKey := write("unknown.toml", "tapz = 3\n")
	wrongType := write("wrongtype.toml", "lr = \"fast\"\n")
	badYaml := write("bad.yaml", "taps: [1, 2\n")
	wrongBool := write("wrongbool.toml", "feedback = \"maybe\"\n")
	wrongList := write("wronglist.yaml", "hidden: [a, b]\n")
	table := write("table.toml", "[taps]\nbranch = 3\n")
	out := filepath.Join(dir, "out", "never.json") // in a directory that must stay empty
	os.Mkdir(filepath.Join(dir, "out"), 0o755)
	outCSV := filepath.Join(dir, "out", "never.csv")

	modelPath := filepath.Join(dir, "model.json")
	mustRun(t, append([]string{"train", "--data", good, "--out", modelPath}, tiny...)...)

	trainArgs := func(extra ...string) []string {
		return append([]string{"train", "--data", good, "--out", out, "--quiet", "--iters", "1", "--epochs", "1", "--branches", "1", "--taps", "5"}, extra...)
	}
	cases := []struct {
		name string
		args []string
		want string // in the message
	}{
		{"no command", nil, "COMMAND"},
		{"unknown command", []string{"fly"}, "unknown command"},
		{"missing file", []string{"train", "--data", filepath.Join(dir, "nope.csv"), "--out", out}, "no such file"},
		{"missing --data", []string{"train", "--out", out}, "--data FILE is required"},
		{"bad CSV", []string{"train", "--data", badCSV, "--out", out}, "is not a number"},
		{"ragged CSV", []string{"train", "--data", ragged, "--out", out}, "fields"},
		{"empty CSV", []string{"train", "--data", empty, "--out", out}, "empty"},
		{"unknown column", []string{"train", "--data", unknownCol, "--out", out}, "unknown column"},
		{"missing column", trainArgs("--u", "force"), "missing column"},
		{"bad extension", []string{"train", "--data", notModel, "--out", out}, "extension"},
		{"taps -1", trainArgs("--taps", "-1"), "--taps -1"},
		{"branches -2", trainArgs("--branches", "-2"), "--branches -2"},
		{"passivity foo", trainArgs("--passivity", "foo"), `invalid value "foo" for flag -passivity: want exact, sampled, kyp or none`},
		{"device tpu", trainArgs("--device", "tpu"), `invalid value "tpu" for flag -device: want cpu or cuda`},
		{"lr 0", trainArgs("--lr", "0"), "--lr 0"},
		{"val-skip -1", trainArgs("--val-skip", "-1"), "--val-skip -1"},
		{"skip -1", trainArgs("--skip", "-1"), "--skip -1"},
		{"init bogus", trainArgs("--init", "he"), `invalid value "he" for flag -init: want glorot or fan-in`},
		{"members 0", trainArgs("--members", "0"), "--members 0"},
		{"members of a linear FIR", trainArgs("--branches", "0", "--linear-taps", "5", "--members", "3"), "--members 3"},
		{"hold-start of a linear FIR", trainArgs("--branches", "0", "--linear-taps", "5", "--hold-start"), "--hold-start true"},
		{"skip too long", trainArgs("--skip", "100000"), "not more than skip"},
		{"seeds 0", []string{"experiment", "robot", "--seeds", "0", "--out", dir}, "--seeds 0"},
		{"members -1", []string{"experiment", "robot", "--members", "-1", "--out", dir}, "--members -1"},
		{"holdout-at start", []string{"experiment", "robot", "--holdout", "0.2", "--holdout-at", "start", "--out", dir}, "--holdout-at \"start\""},
		{"huge values", []string{"train", "--data", huge, "--out", out, "--branches", "1", "--taps", "5"}, "rescale the data"},
		{"zero input", []string{"train", "--data", zeroU, "--out", out, "--branches", "1", "--taps", "5"}, "zero in every sample"},
		{"gen too large", []string{"gen", "msd", "--batches", "1000000", "--samples", "1000", "--out", outCSV}, "at most 50000000 samples"},
		{"gen snr", []string{"gen", "msd", "--snr", "-1e308", "--out", outCSV}, "--snr"},
		{"experiment out is a file", []string{"experiment", "msd", "--quick", "--out", good}, "is not a directory"},
		{"train out is the data", []string{"train", "--data", good, "--out", good}, "is the --data file"},
		{"train out is the validation data", trainArgs("--val", badCSV, "--out", badCSV), "is the --val file"},
		{"train out is stdout", trainArgs("--out", "-"), "written to a file"},
		{"train plot is a file", trainArgs("--plot", good), "is not a directory"},
		{"simulate out is the data", []string{"simulate", "--model", modelPath, "--data", good, "--out", good}, "is the --data file"},
		{"simulate out is the model", []string{"simulate", "--model", modelPath, "--data", good, "--out", modelPath}, "is the --model file"},
		{"select with holdout-at", []string{"experiment", "robot", "--select", "--holdout-at", "end", "--out", dir}, "drop --holdout-at"},
		{"select with seeds", []string{"experiment", "robot", "--select", "--seeds", "3", "--out", dir}, "--seeds 3"},
		{"select msd", []string{"experiment", "msd", "--select", "--out", dir}, "--select is for the robot experiment only"},
		{"holdout msd", []string{"experiment", "msd", "--holdout", "0.2", "--out", dir}, "--holdout is for the robot experiment only"},
		{"experiment epochs -1", []string{"experiment", "msd", "--epochs", "-1", "--out", dir}, "--epochs -1"},
		{"only unknown robot model", []string{"experiment", "robot", "--only", "FIR,NFIR avg", "--out", dir}, "no model \"NFIR avg\""},
		{"only unknown msd model", []string{"experiment", "msd", "--only", "FB-BPTT", "--out", dir}, "no model \"FB-BPTT\""},
		{"not a number", trainArgs("--epochs", "many"), "invalid value"},
		{"hidden 4,x", trainArgs("--hidden", "4,x"), "comma-separated"},
		{"feedback contradiction", trainArgs("--feedback", "--no-feedback"), "contradict"},
		{"taps of a linear FIR", trainArgs("--branches", "0", "--linear-taps", "5"), "--taps has no effect"},
		{"r2 without feedback", trainArgs("--no-feedback", "--r2", "3"), "--r2 has no effect"},
		{"eps above 2 rho", trainArgs("--passivity", "sampled", "--eps", "1", "--rho", "0.1"), "lower --eps"},
		{"config wrong type under a command-line flag", trainArgs("--lr", "1e-3", "--config", wrongType), "want a value of type float"},
		{"no parameters", trainArgs("--branches", "0", "--linear-taps", "0"), "no branches"},
		{"batch shorter than memory", trainArgs("--taps", "300"), "fewer than the model memory"},
		{"unknown flag", trainArgs("--tapz", "3"), "not defined"},
		{"stray argument", []string{"train", "--data", good, "--out", out, "extra.csv"}, "unexpected argument"},
		{"out dir missing", []string{"train", "--data", good, "--out", filepath.Join(dir, "no", "m.json")}, "does not exist"},
		{"out is a dir", []string{"train", "--data", good, "--out", dir}, "is a directory"},
		{"val missing", trainArgs("--val", filepath.Join(dir, "nope.csv")), "no such file"},
		{"config bad toml", trainArgs("--config", badToml), "TOML"},
		{"config bad yaml", trainArgs("--config", badYaml), "YAML"},
		{"config unknown key", trainArgs("--config", unknownKey), "unknown key \"tapz\""},
		{"config wrong type", trainArgs("--config", wrongType), "want a value of type float"},
		{"config wrong bool", trainArgs("--config", wrongBool), "want a boolean"},
		{"config wrong list", trainArgs("--config", wrongList), "want a list of whole numbers"},
		{"config table", trainArgs("--config", table), "is not a flag value; give every key at the top level"},
		{"config missing", trainArgs("--config", filepath.Join(dir, "nope.toml")), "--config"},
		{"config extension", trainArgs("--config", good), "extension"},
		{"eval missing model", []string{"eval", "--model", filepath.Join(dir, "nope.json"), "--data", good}, "no such file"},
		{"eval not a model", []string{"eval", "--model", notModel, "--data", good}, "not a valid model file"},
		{"eval bad CSV", []string{"eval", "--model", modelPath, "--data", badCSV}, "is not a number"},
		{"eval skip", []string{"eval", "--model", modelPath, "--data", good, "--skip", "-1"}, "--skip"},
		{"eval workers", []string{"eval", "--model", modelPath, "--data", good, "--workers", "-2"}, "--workers -2"},
		{"eval skip too long", []string{"eval", "--model", modelPath, "--data", good, "--skip", "1000"}, "none left to score"},
		{"simulate missing out", []string{"simulate", "--model", modelPath, "--data", good}, "--out"},
		{"simulate bad CSV", []string{"simulate", "--model", modelPath, "--data", badU, "--out", outCSV}, "is not a number"},
		{"simulate out dir missing", []string{"simulate", "--model", modelPath, "--data", good, "--out", filepath.Join(dir, "no", "s.csv")}, "does not exist"},
		{"certify no model", []string{"certify"}, "--model"},
		{"certify not a model", []string{"certify", "--model", notModel}, "not a valid model file"},
		{"gen no generator", []string{"gen"}, "msd"},
		{"gen unknown", []string{"gen", "robot"}, "unknown generator"},
		{"gen batches 0", []string{"gen", "msd", "--batches", "0", "--out", outCSV}, "--batches 0"},
		{"gen no out", []string{"gen", "msd"}, "--out"},
		{"gen bad snr", []string{"gen", "msd", "--snr", "loud", "--out", outCSV}, "not a finite number"},
		{"gen bad ext", []string{"gen", "msd", "--out", filepath.Join(dir, "out", "x.txt")}, "extension"},
		{"bench unknown", []string{"bench", "gpu"}, "unknown benchmark"},
		{"bench qp mode", []string{"bench", "qp", "--modes", "magic"}, "--modes"},
		{"bench epoch missing data", []string{"bench", "epoch", "--data", filepath.Join(dir, "nope.csv")}, "no such file"},
		{"demo bad device", []string{"demo", "--device", "tpu", "--out", filepath.Join(dir, "out", "demo")}, `invalid value "tpu" for flag -device: want cpu or cuda`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := cli(t, tc.args...)
			if code != exitUsage {
				t.Errorf("exit %d, want 2\nstdout: %s\nstderr: %s", code, stdout, stderr)
			}
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr %q does not contain %q", stderr, tc.want)
			}
			if n := strings.Count(strings.TrimSpace(stderr), "\n"); n > 0 && tc.args != nil {
				t.Errorf("message has %d lines, want one:\n%s", n+1, stderr)
			}
			if strings.Contains(stderr, "goroutine") || strings.Contains(stderr, "panic") {
				t.Errorf("stack trace or panic:\n%s", stderr)
			}
			if strings.Contains(stderr, "ReadOptions") || strings.Contains(stderr, "from Go") {
				t.Errorf("a hint for Go callers in a command's message:\n%s", stderr)
			}
			if entries, _ := os.ReadDir(filepath.Join(dir, "out")); len(entries) > 0 {
				t.Errorf("files written: %v", entries)
				for _, e := range entries {
					os.RemoveAll(filepath.Join(dir, "out", e.Name()))
				}
			}
		})
	}
}

// TestCertifyFailedClaim: certify reports on a file whose passivity claim
// its taps fail (which every other command refuses to load) with the same
// table and JSON as for any model, and exits 1; eval refuses it (exit 2).
func TestCertifyFailedClaim(t *testing.T) {
	dir := t.TempDir()
	good, path := tinyModel(t, dir, 2)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f map[string]any
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	f["g"].([]any)[1].([]any)[0] = -100.0 // branch 1: Re G ≤ −100 + Σ_{k>0}|g(k)| < 0
	if b, err = json.Marshal(f); err != nil {
		t.Fatal(err)
	}
	forged := filepath.Join(dir, "forged.json")
	if err := os.WriteFile(forged, b, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := cli(t, "certify", "--model", forged)
	if code != exitFailure || !strings.Contains(stdout, "branch 1") || !strings.Contains(stderr, "claims it") {
		t.Errorf("certify: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	code, stdout, _ = cli(t, "certify", "--model", forged, "--json")
	var cert struct {
		Passive  bool `json:"passive"`
		Branches []struct {
			MinRe float64 `json:"min_re"`
		} `json:"branches"`
	}
	if err := json.Unmarshal([]byte(stdout), &cert); err != nil || code != exitFailure || cert.Passive || len(cert.Branches) != 2 || !(cert.Branches[1].MinRe < -50) || !(cert.Branches[0].MinRe >= 0) {
		t.Errorf("certify --json: exit %d, %+v (%v) from %q", code, cert, err, stdout)
	}
	if code, _, stderr := cli(t, "eval", "--model", forged, "--data", good); code != exitUsage || !strings.Contains(stderr, "passivity claim fails") {
		t.Errorf("eval of the forged file: exit %d, %s", code, stderr)
	}
}

// TestEvalZeroBatch: a batch whose output is zero (a record where the plant
// did not move) is left out of eval's Fit, says so, and is null in the
// JSON; the other batches are scored as without it.
func TestEvalZeroBatch(t *testing.T) {
	dir := t.TempDir()
	good, path := tinyModel(t, dir, 3)
	b, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	header := strings.Split(lines[0], ",")
	iy, ib := slices.Index(header, "y"), slices.Index(header, "batch")
	var zeroed, dropped strings.Builder
	zeroed.WriteString(lines[0] + "\n")
	dropped.WriteString(lines[0] + "\n")
	for _, l := range lines[1:] {
		f := strings.Split(l, ",")
		if f[ib] == "1" {
			f[iy] = "0"
			zeroed.WriteString(strings.Join(f, ",") + "\n")
			continue
		}
		zeroed.WriteString(l + "\n")
		if f[ib] == "2" {
			f[ib] = "1"
		}
		dropped.WriteString(strings.Join(f, ",") + "\n")
	}
	zp, dp := filepath.Join(dir, "zero.csv"), filepath.Join(dir, "dropped.csv")
	os.WriteFile(zp, []byte(zeroed.String()), 0o644)
	os.WriteFile(dp, []byte(dropped.String()), 0o644)
	out := mustRun(t, "eval", "--model", path, "--data", zp)
	if !strings.Contains(out, `left out: batch "1" (from line 252),`) {
		t.Errorf("eval does not say batch 1 is left out:\n%s", out)
	}
	var z, d struct {
		Fit struct {
			ClosedLoop struct {
				Median   *float64   `json:"median"`
				PerBatch []*float64 `json:"per_batch"`
			} `json:"closed_loop"`
		} `json:"fit"`
	}
	json.Unmarshal([]byte(mustRun(t, "eval", "--model", path, "--data", zp, "--json")), &z)
	json.Unmarshal([]byte(mustRun(t, "eval", "--model", path, "--data", dp, "--json")), &d)
	pz, pd := z.Fit.ClosedLoop.PerBatch, d.Fit.ClosedLoop.PerBatch
	if len(pz) != 3 || len(pd) != 2 || pz[1] != nil || pz[0] == nil || pz[2] == nil || *pz[0] != *pd[0] || *pz[2] != *pd[1] || *z.Fit.ClosedLoop.Median != *d.Fit.ClosedLoop.Median {
		t.Errorf("per batch %v (median %v) with batch 1 zeroed, %v (median %v) without it", pz, z.Fit.ClosedLoop.Median, pd, d.Fit.ClosedLoop.Median)
	}
	// Every batch zero: the message says which signal is zero (here the
	// y_clean that Fit is scored against, while y is not) and calls it no
	// dimension error.
	var allZero strings.Builder
	allZero.WriteString("u,y,y_clean\n")
	for i := range 100 {
		fmt.Fprintf(&allZero, "%g,%g,0\n", math.Sin(float64(i)), math.Cos(float64(i)))
	}
	ap := filepath.Join(dir, "allzero.csv")
	os.WriteFile(ap, []byte(allZero.String()), 0o644)
	code, _, stderr := cli(t, "eval", "--model", path, "--data", ap)
	if code != exitUsage || !strings.Contains(stderr, "scored against y_clean") || strings.Contains(stderr, "dimension") {
		t.Errorf("all-zero y_clean: exit %d, %q", code, stderr)
	}
}

// TestInterrupt cancels training (as Ctrl-C does) in the middle of the
// Adam epochs: the run exits 1 and leaves a valid model or none, never a
// partial file.
func TestInterrupt(t *testing.T) {
	dir := t.TempDir()
	train := genData(t, dir, 6, "1")
	for _, tc := range []struct {
		at   string
		iter int
	}{{"theta_g", 0}, {"theta_g", 1}, {"adam", 1}, {"eval", 1}} {
		at := tc.at
		t.Run(at+"-"+strconv.Itoa(tc.iter), func(t *testing.T) {
			out := filepath.Join(dir, at+strconv.Itoa(tc.iter)+".json")
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var once sync.Once
			testHookContext = func() (context.Context, context.CancelFunc) { return ctx, cancel }
			testHookEvent = func(ev trainer.Event) {
				if ev.Stage == at && ev.Iter == tc.iter {
					once.Do(cancel)
				}
			}
			defer func() { testHookContext, testHookEvent = nil, nil }()
			code, _, stderr := cli(t, "train", "--data", train, "--out", out, "--branches", "2", "--taps", "10",
				"--iters", "3", "--epochs", "20", "--quiet")
			if code != exitFailure {
				t.Fatalf("interrupted training: exit %d, want 1; stderr %s", code, stderr)
			}
			if !strings.Contains(stderr, "interrupted") {
				t.Errorf("message %q does not say interrupted", stderr)
			}
			if _, err := os.Stat(out); err == nil {
				if _, _, err := model.Load(out); err != nil {
					t.Errorf("interrupted run left an invalid model: %v", err)
				}
			} else if !strings.Contains(stderr, "nothing written") {
				t.Errorf("no model and no message saying so: %s", stderr)
			}
			left, _ := filepath.Glob(filepath.Join(dir, ".*tmp*"))
			if len(left) > 0 {
				t.Errorf("temporary files left: %v", left)
			}
			t.Logf("stderr: %s", strings.TrimSpace(stderr))
		})
	}
}

func TestProgressModes(t *testing.T) {
	var b bytes.Buffer
	p := &progress{w: &b, bar: true, iters: 2, columns: func() int { return 120 }}
	for ep := 0; ep < 4; ep++ {
		p.event(trainer.Event{Stage: "adam", Iter: 0, Epoch: ep, Epochs: 4, Loss: 0.1, ValFit: 80})
	}
	p.event(trainer.Event{Stage: "eval", Iter: 0, ValFit: 81})
	p.finish()
	s := b.String()
	if !strings.Contains(s, "\r") || !strings.Contains(s, "[########################] 4/4") || !strings.Contains(s, "iter 1/2") {
		t.Errorf("bar output %q", s)
	}
	b.Reset()
	p = &progress{w: &b, iters: 2}
	p.event(trainer.Event{Stage: "adam", Iter: 1, Epoch: 9, Epochs: 10, Loss: 0.5, TrainFit: 70, ValFit: 71})
	if s := b.String(); !strings.Contains(s, "adam") || !strings.Contains(s, "iter 2/2") || !strings.Contains(s, "epoch   10/10") || strings.Contains(s, "\r") {
		t.Errorf("line output %q", s)
	}
	if newProgress(&b, &b, true, false, 1) != nil {
		t.Error("--quiet still reports progress")
	}
	// Plain lines: about twenty a stage (the first and last epoch among them),
	// not one an epoch, and the Adam stage's validation Fit named open loop.
	b.Reset()
	p = &progress{w: &b, iters: 1}
	for ep := range 1000 {
		p.event(trainer.Event{Stage: "adam", Iter: 0, Epoch: ep, Epochs: 1000, Loss: 0.1, ValFit: 80})
	}
	p.event(trainer.Event{Stage: "eval", Iter: 0, ValFit: 81})
	s = b.String()
	lines := strings.Count(s, "\n")
	if lines < 20 || lines > 23 || !strings.Contains(s, "epoch    1/1000") || !strings.Contains(s, "epoch 1000/1000") {
		t.Errorf("%d plain lines for 1000 epochs:\n%s", lines, s)
	}
	if !strings.Contains(s, "open-loop val fit") || !strings.Contains(s, "eval    iter 1/1 closed-loop val fit") {
		t.Errorf("validation Fits not named:\n%s", s)
	}
	// the start of a θ_G step is a line of its own, in both modes
	for _, bar := range []bool{false, true} {
		b.Reset()
		p = &progress{w: &b, iters: 2, bar: bar}
		p.event(trainer.Event{Stage: "solve", Iter: 1, Note: "θ_G step: 3000 taps, exact passivity"})
		p.finish()
		if s := b.String(); !strings.Contains(s, "theta_g iter 2/2 θ_G step: 3000 taps, exact passivity ...") || !strings.HasSuffix(s, "\n") {
			t.Errorf("bar %v: θ_G start %q", bar, s)
		}
	}
}

// TestDeviceCUDAWithoutCUDA: asking a binary without CUDA support for the
// GPU is bad usage with a message that says how to get one.
func TestDeviceCUDAWithoutCUDA(t *testing.T) {
	if _, err := kernels.NewBackend("cuda"); err == nil {
		t.Skip("this build has a usable CUDA backend")
	}
	dir := t.TempDir()
	train := genData(t, dir, 2, "1")
	out := filepath.Join(dir, "m.json")
	code, _, stderr := cli(t, append([]string{"train", "--data", train, "--out", out, "--device", "cuda"}, tiny...)...)
	if code != exitUsage || !strings.Contains(stderr, "--device cuda") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a model was written")
	}
}

func TestBench(t *testing.T) {
	out := mustRun(t, "bench", "qp", "--batches", "5", "--taps", "10,20", "--H", "100", "--modes", "sampled,kyp", "--repeat", "1", "--json")
	var qp struct {
		Rows []map[string]any `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &qp); err != nil {
		t.Fatalf("bench qp --json: %v\n%s", err, out)
	}
	if len(qp.Rows) != 4 {
		t.Fatalf("bench qp: %d rows, want 4 (2 taps × sampled, kyp):\n%s", len(qp.Rows), out)
	}
	for _, r := range qp.Rows {
		for _, k := range []string{"taps", "H", "mode", "seconds", "objective"} {
			if _, ok := r[k]; !ok {
				t.Errorf("bench qp row lacks %q: %v", k, r)
			}
		}
	}
	out = mustRun(t, "bench", "epoch", "--batches", "4", "--branches", "2", "--taps", "10", "--repeat", "1", "--json")
	var ep struct {
		Rows []struct {
			Name string  `json:"name"`
			MS   float64 `json:"ms"`
		} `json:"rows"`
		Structure map[string]any `json:"structure"`
		Workers   int            `json:"workers"`
	}
	if err := json.Unmarshal([]byte(out), &ep); err != nil {
		t.Fatalf("bench epoch --json: %v\n%s", err, out)
	}
	if len(ep.Rows) != 2 || ep.Rows[0].Name != "open_loop" || ep.Rows[1].Name != "bptt" || !(ep.Rows[0].MS > 0) {
		t.Errorf("bench epoch: %s", out)
	}
	// The structure has the model file's keys, and workers the number used.
	if ep.Structure["branches"] != 2.0 || ep.Structure["taps"] != 10.0 || ep.Workers < 1 {
		t.Errorf("bench epoch: structure %v, workers %d", ep.Structure, ep.Workers)
	}
}

// TestDemoQuick runs the built-in job end to end (about 15 s on two cores).
func TestDemoQuick(t *testing.T) {
	if testing.Short() {
		t.Skip("trains the demo model; skipped with -short")
	}
	dir := filepath.Join(t.TempDir(), "demo")
	out := mustRun(t, "demo", "--quick", "--quiet", "--json", "--out", dir)
	r := decode(t, out)
	fit, ok := r["fit"].(map[string]any)
	if !ok || fit["closed_loop"] == nil || fit["open_loop"] == nil {
		t.Fatalf("demo --json: %s", out)
	}
	if c, ok := r["certificate"].(map[string]any); !ok || c["passive"] != true {
		t.Errorf("demo certificate: %v", r["certificate"])
	}
	if _, _, err := model.Load(filepath.Join(dir, "model.json")); err != nil {
		t.Error(err)
	}
	for _, f := range []string{"fit_test", "fit", "re_g", "training"} {
		for _, ext := range []string{".png", ".svg"} {
			if _, err := os.Stat(filepath.Join(dir, f+ext)); err != nil {
				t.Error(err)
			}
		}
	}
}

func TestShellJoin(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"robot", "--seeds", "5"}, "robot --seeds 5"},
		{[]string{"--only", "NFIR(paper code)"}, "--only 'NFIR(paper code)'"},
		{[]string{"--only", "FIR,NFIR average"}, "--only 'FIR,NFIR average'"},
		{[]string{"it's"}, `'it'\''s'`},
		{[]string{""}, "''"},
	} {
		if got := shellJoin(c.args); got != c.want {
			t.Errorf("shellJoin(%q) = %s, want %s", c.args, got, c.want)
		}
	}
}

// syntheticRobot writes a robot data folder whose four records (e, v1, v2,
// v3) are white-noise inputs through one random 30-tap passive FIR.
func syntheticRobot(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	g, err := data.PassiveFIR(3, 30, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 3))
	var ub, yb strings.Builder
	ub.WriteString("ue,uv1,uv2,uv3\n")
	yb.WriteString("ye,yv1,yv2,yv3\n")
	const T = 1400
	var us, ys [4][]float64
	for r := range us {
		us[r] = make([]float64, T)
		for i := range us[r] {
			us[r][i] = rng.NormFloat64()
		}
		ys[r] = g.Simulate(us[r])
	}
	for i := range T {
		for r := range us {
			sep := ","
			if r == 3 {
				sep = "\n"
			}
			fmt.Fprintf(&ub, "%.17g%s", us[r][i], sep)
			fmt.Fprintf(&yb, "%.17g%s", ys[r][i], sep)
		}
	}
	for name, s := range map[string]string{"robot_200Hz_u.csv": ub.String(), "robot_200Hz_y.csv": yb.String()} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestExperimentRobotHoldout runs the robot experiment end to end on a
// synthetic robot folder (records of a random passive FIR): with a holdout in
// the middle of e the linear FIR reports its validation Fit beside e, v1–v3,
// and --quiet keeps stderr empty.
func TestExperimentRobotHoldout(t *testing.T) {
	dir := syntheticRobot(t)
	out := t.TempDir()
	code, stdout, stderr := cli(t, "experiment", "robot", "--robot", dir, "--only", "FIR", "--holdout", "0.2",
		"--holdout-at", "middle", "--workers", "1", "--quiet", "--json", "--out", out)
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	var rep struct {
		Robot []struct {
			Model  string             `json:"model"`
			Fit    map[string]float64 `json:"fit"`
			Config string             `json:"config"`
		} `json:"robot"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Robot) != 1 || rep.Robot[0].Model != "FIR" {
		t.Fatalf("rows %+v, want one FIR row", rep.Robot)
	}
	r := rep.Robot[0]
	for _, k := range []string{"validation", "e", "v1", "v2", "v3"} {
		// Noise-free data of a 30-tap passive FIR: the 500-tap passive FIR fits it.
		if v, ok := r.Fit[k]; !ok || !(v > 95) {
			t.Errorf("Fit[%s] = %v (present %v), want > 95", k, v, ok)
		}
	}
	if !strings.Contains(r.Config, "without its middle 20%") {
		t.Errorf("config %q does not describe the middle holdout", r.Config)
	}
	if _, err := os.Stat(filepath.Join(out, "robot.json")); err != nil {
		t.Errorf("report not written: %v", err)
	}
}

// TestExperimentRobotSelect runs the two-fold selection rule end to end on a
// synthetic robot folder: every candidate gets an end and a middle
// validation Fit and their mean, the best mean is selected, only that model
// is trained on all of e and scored on v1–v3, and no record of v1–v3 is
// scored before the choice (the log says which records each run scored).
func TestExperimentRobotSelect(t *testing.T) {
	dir := syntheticRobot(t)
	out := t.TempDir()
	code, stdout, stderr := cli(t, "experiment", "robot", "--robot", dir, "--select", "--only", "FIR,NFIR average",
		"--members", "2", "--workers", "1", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	chosen := strings.Index(stderr, "robot: selected ")
	if chosen < 0 {
		t.Fatalf("no selection in the log:\n%s", stderr)
	}
	for _, line := range strings.Split(stderr[:chosen], "\n") {
		if strings.HasPrefix(line, "robot: ") && strings.Contains(line, " fit") && (strings.Contains(line, " v1 ") || strings.Contains(line, " e ")) {
			t.Errorf("scored on a record before the choice: %q", line)
		}
	}
	b, err := os.ReadFile(filepath.Join(out, "robot.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Selection []struct {
			Model             string
			End, Middle, Mean float64
			Selected          bool
		} `json:"selection"`
		Robot []struct {
			Model string             `json:"model"`
			Fit   map[string]float64 `json:"fit"`
		} `json:"robot"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Selection) != 2 || len(rep.Robot) != 1 {
		t.Fatalf("%d candidates and %d rows, want 2 and 1: %s", len(rep.Selection), len(rep.Robot), b)
	}
	best, n := -1, 0
	for i, f := range rep.Selection {
		if !(f.End > 90 && f.Middle > 90) || math.Abs(f.Mean-(f.End+f.Middle)/2) > 1e-9 {
			t.Errorf("candidate %+v: want both folds > 90 (a linear plant) and their mean", f)
		}
		if best < 0 || f.Mean > rep.Selection[best].Mean {
			best = i
		}
		if f.Selected {
			n++
		}
	}
	if n != 1 || !rep.Selection[best].Selected {
		t.Errorf("selected %+v, want exactly the best mean", rep.Selection)
	}
	row := rep.Robot[0]
	if row.Model != rep.Selection[best].Model {
		t.Errorf("trained %q on all of e, selected %q", row.Model, rep.Selection[best].Model)
	}
	for _, k := range []string{"e", "v1", "v2", "v3"} {
		if v, ok := row.Fit[k]; !ok || !(v > 90) {
			t.Errorf("Fit[%s] = %v (present %v), want > 90", k, v, ok)
		}
	}
	if _, ok := row.Fit["validation"]; ok {
		t.Errorf("the selected model, trained on all of e, reports a validation Fit: %v", row.Fit)
	}
	if !strings.Contains(stdout, "(selected)") || !strings.Contains(stdout, "| candidate | end fold | middle fold | mean | time |") {
		t.Errorf("report without the selection table:\n%s", stdout)
	}
}

// TestTrainingSettingsAreAConfig: the "training" object a model file stores
// (here from a single-record run, which validates on the tail of its batch)
// is itself a valid --config file, and training again from it stores the
// same settings.
func TestTrainingSettingsAreAConfig(t *testing.T) {
	dir := t.TempDir()
	train := genData(t, dir, 1, "1")
	first := filepath.Join(dir, "first.json")
	// FF: the stored object then holds r2, which the model ignores; from a
	// config file that is no error (on the command line it is).
	mustRun(t, append([]string{"train", "--data", train, "--out", first, "--skip", "3", "--members", "2", "--no-feedback"}, tiny...)...)
	before := storedTraining(t, first)
	if before["members"] != 2.0 {
		t.Errorf("stored members %v, want 2", before["members"])
	}
	if before["skip"] != 3.0 || before["val-skip"] != 10.0 {
		t.Errorf("stored skip %v, val-skip %v; want 3 and the 10-tap memory", before["skip"], before["val-skip"])
	}
	cfgFile := filepath.Join(dir, "settings.yaml")
	b, _ := json.Marshal(before) // YAML reads JSON
	if err := os.WriteFile(cfgFile, b, 0o644); err != nil {
		t.Fatal(err)
	}
	second := filepath.Join(dir, "second.json")
	mustRun(t, "train", "--config", cfgFile, "--out", second, "--quiet")
	after := storedTraining(t, second)
	for k, v := range before {
		if k == provenanceKey {
			continue // the run's own record: its command line and times differ
		}
		if fmt.Sprint(after[k]) != fmt.Sprint(v) {
			t.Errorf("setting %s: %v after the round trip, %v before", k, after[k], v)
		}
	}
}

// storedTraining reads the "training" object of a model file.
func storedTraining(t *testing.T, path string) map[string]any {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Training map[string]any `json:"training"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	return f.Training
}

// TestMembers: --members 3 saves one passive NFIR with three times the
// branches, reports each member's progress and the merged model's
// validation Fit, and eval scores the saved model at that Fit.
func TestMembers(t *testing.T) {
	dir := t.TempDir()
	train := genData(t, dir, 6, "1")
	val := genData(t, dir, 3, "2")
	path := filepath.Join(dir, "avg.json")
	args := []string{"train", "--data", train, "--val", val, "--force", "--out", path, "--members", "3", "--branches", "2", "--taps", "10", "--iters", "1", "--epochs", "3"}
	out := mustRunAll(t, args...)
	for m := 1; m <= 3; m++ {
		if !strings.Contains(out, fmt.Sprintf("member %d/3 iter 1/1", m)) {
			t.Errorf("no progress of member %d:\n%s", m, out)
		}
	}
	m, _, err := model.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if m.Branches != 6 {
		t.Errorf("saved %d branches, want 3 members × 2", m.Branches)
	}
	res := decode(t, mustRun(t, append(args, "--quiet", "--json")...))
	cert := res["certificate"].(map[string]any)
	if cert["passive"] != true {
		t.Errorf("certificate %v", cert)
	}
	ev := decode(t, mustRun(t, "eval", "--model", path, "--data", val, "--json", "--skip", "0"))
	got := ev["fit"].(map[string]any)["closed_loop"].(map[string]any)["median"].(float64)
	if want := res["best_val_fit"].(float64); math.Abs(got-want) > 1e-9 {
		t.Errorf("eval of the saved mean: median Fit %g, train reported %g", got, want)
	}
}

// TestHoldStart: --hold-start is stored in the model (a version-2 file with
// structure.hold_start) and in its training settings, and eval of the saved
// model gives the validation Fit train reported, so evaluation uses the
// same padding as training.
func TestHoldStart(t *testing.T) {
	dir := t.TempDir()
	train := genData(t, dir, 6, "1")
	val := genData(t, dir, 3, "2")
	path := filepath.Join(dir, "hold.json")
	res := decode(t, mustRun(t, "train", "--data", train, "--val", val, "--out", path, "--hold-start", "--r1", "4",
		"--branches", "2", "--taps", "10", "--iters", "1", "--epochs", "3", "--quiet", "--json"))
	m, _, err := model.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if !m.HoldStart {
		t.Error("the saved model does not hold u(0)")
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Version   int `json:"version"`
		Structure struct {
			HoldStart bool `json:"hold_start"`
		} `json:"structure"`
		Training map[string]any `json:"training"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	if f.Version != 2 || !f.Structure.HoldStart || f.Training["hold-start"] != true {
		t.Errorf("file: version %d, hold_start %v, training hold-start %v", f.Version, f.Structure.HoldStart, f.Training["hold-start"])
	}
	ev := decode(t, mustRun(t, "eval", "--model", path, "--data", val, "--json", "--skip", "0"))
	got := ev["fit"].(map[string]any)["closed_loop"].(map[string]any)["median"].(float64)
	if want := res["best_val_fit"].(float64); math.Abs(got-want) > 1e-9 {
		t.Errorf("eval of the saved model: median Fit %g, train reported %g", got, want)
	}
}

// TestIgnoreExtra: a CSV with a column the command does not use (a note
// column) is refused with a message naming --ignore-extra, and read with it.
func TestIgnoreExtra(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("note,force,vel\n")
	for i := range 200 {
		u := math.Sin(0.3*float64(i)) + 0.5*math.Cos(0.07*float64(i))
		fmt.Fprintf(&b, "%g,%g,%g\n", 0.01*float64(i), u, 0.5*u)
	}
	path := filepath.Join(dir, "rec.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "fir.json")
	args := []string{"train", "--data", path, "--u", "force", "--y", "vel", "--branches", "0", "--linear-taps", "5", "--quiet", "--out", out}
	code, _, stderr := cli(t, args...)
	if code != exitUsage || !strings.Contains(stderr, "--ignore-extra") || strings.Contains(stderr, "--data: data:") {
		t.Errorf("without --ignore-extra: exit %d, %q", code, stderr)
	}
	mustRun(t, append(args, "--ignore-extra")...)
	r := decode(t, mustRun(t, "eval", "--model", out, "--data", path, "--u", "force", "--y", "vel", "--ignore-extra", "--json"))
	if r["fit"] == nil {
		t.Errorf("eval --json: %v", r)
	}
}

// TestTimeColumn: a CSV time column gives the model file its sampling time
// when --ts is not given, must agree with --ts when it is, and a record
// with a row missing is refused on its line; --time - makes it an extra
// column again.
func TestTimeColumn(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, skip int) string {
		var b strings.Builder
		b.WriteString("Time [s],u,y\n")
		for i := range 200 {
			if i == skip {
				continue
			}
			u := math.Sin(0.3*float64(i)) + 0.5*math.Cos(0.07*float64(i))
			fmt.Fprintf(&b, "%.4f,%g,%g\n", 0.005*float64(i), u, 0.5*u)
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	good, gap := write("rec.csv", -1), write("gap.csv", 120)
	out := filepath.Join(dir, "fir.json")
	code, _, stderr := cli(t, "train", "--data", good, "--branches", "0", "--linear-taps", "5", "--out", out)
	if code != 0 || !strings.Contains(stderr, `note: sampling time 0.005 s, the step of the time column "Time [s]" of --data`) {
		t.Errorf("train: exit %d, %q; want 0 and a note naming the time column", code, stderr)
	}
	var m struct{ Ts float64 }
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &m); err != nil || m.Ts != 0.005 {
		t.Errorf("model file ts = %v (%v), want 0.005 from the time column", m.Ts, err)
	}
	for _, c := range []struct {
		name    string
		args    []string
		mention string
	}{
		{"--ts disagrees", []string{"--data", good, "--ts", "0.01"}, "steps by 0.005 s, but the sampling time expected is 0.01 s"},
		{"gap", []string{"--data", gap}, `gap.csv line 122 column "Time [s]": the time steps from 0.595 to 0.605`},
		{"--time -", []string{"--data", good, "--time", "-"}, `unknown column "Time [s]"`},
	} {
		args := append([]string{"train", "--branches", "0", "--linear-taps", "5", "--quiet", "--force", "--out", out}, c.args...)
		code, _, stderr := cli(t, args...)
		if code != exitUsage || !strings.Contains(stderr, c.mention) {
			t.Errorf("%s: exit %d, %q; want %d mentioning %q", c.name, code, stderr, exitUsage, c.mention)
		}
	}
	// a validation file at another rate is refused
	half := filepath.Join(dir, "half.csv")
	var b strings.Builder
	b.WriteString("time,u,y\n")
	for i := range 100 {
		fmt.Fprintf(&b, "%g,%g,%g\n", 0.01*float64(i), math.Sin(0.3*float64(i)), 0.5*math.Sin(0.3*float64(i)))
	}
	if err := os.WriteFile(half, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"train", "--data", good, "--val", half, "--branches", "0", "--linear-taps", "5", "--quiet", "--force", "--out", out},
		{"train", "--model", "fir", "--data", good, "--val", half, "--quiet", "--force", "--out", out},
		{"compare", "--data", good, "--val", half, "--only", "fir", "--quiet"},
	} {
		code, _, stderr := cli(t, args...)
		if code != exitUsage || !strings.Contains(stderr, "--val: ") || !strings.Contains(stderr, "steps by 0.01 s, but the sampling time expected is 0.005 s") {
			t.Errorf("%v: exit %d, %q; want %d naming the two rates", args, code, stderr, exitUsage)
		}
	}
	// eval and simulate check the data's time column against the model's
	// sampling time, unless --allow-ts-mismatch
	code, _, stderr = cli(t, "eval", "--model", out, "--data", good)
	if code != 0 {
		t.Errorf("eval on the training file: exit %d, %q", code, stderr)
	}
	for _, cmd := range [][]string{
		{"eval", "--model", out, "--data", half},
		{"simulate", "--model", out, "--data", half, "--out", "-"},
	} {
		code, _, stderr = cli(t, cmd...)
		if code != exitUsage || !strings.Contains(stderr, `its time column "time" steps by 0.01 s, but the model`) {
			t.Errorf("%v: exit %d, %q; want %d naming the two rates", cmd, code, stderr, exitUsage)
		}
		if code, _, stderr = cli(t, append(cmd, "--allow-ts-mismatch")...); code != 0 {
			t.Errorf("%v --allow-ts-mismatch: exit %d, %q", cmd, code, stderr)
		}
	}
}

// TestModelColumns: eval and simulate read the columns a model was trained
// on without --u and --y, fall back to u and y for a file that has those,
// let the flags win, and name the model's columns when neither is found.
func TestModelColumns(t *testing.T) {
	dir := t.TempDir()
	write := func(name, header string) string {
		var b strings.Builder
		b.WriteString(header + "\n")
		for i := range 200 {
			u := math.Sin(0.3*float64(i)) + 0.5*math.Cos(0.07*float64(i))
			if strings.Contains(header, ",") {
				fmt.Fprintf(&b, "%g,%g\n", u, 0.5*u)
			} else {
				fmt.Fprintf(&b, "%g\n", u)
			}
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	named := write("named.csv", "force,vel")
	plain := write("plain.csv", "u,y")
	other := write("other.csv", "a,b")
	inputOnly := write("input.csv", "force")
	out := filepath.Join(dir, "fir.json")
	mustRun(t, "train", "--data", named, "--u", "force", "--y", "vel", "--branches", "0", "--linear-taps", "5", "--quiet", "--out", out)
	fit := func(args ...string) float64 {
		r := decode(t, mustRun(t, append([]string{"eval", "--model", out, "--json"}, args...)...))
		return r["fit"].(map[string]any)["closed_loop"].(map[string]any)["median"].(float64)
	}
	want := fit("--data", named, "--u", "force", "--y", "vel")
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"model's names", []string{"--data", named}},
		{"fallback to u,y", []string{"--data", plain}},
		{"flags win", []string{"--data", other, "--u", "a", "--y", "b"}},
	} {
		if got := fit(tc.args...); math.Abs(got-want) > 1e-9 {
			t.Errorf("%s: Fit %g, want %g", tc.name, got, want)
		}
	}
	code, _, stderr := cli(t, "eval", "--model", out, "--data", other)
	if code != exitUsage || !strings.Contains(stderr, "trained with --u force --y vel") {
		t.Errorf("columns not found: exit %d, %q", code, stderr)
	}
	// The hint names the model's columns, not the ones given on the command line.
	code, _, stderr = cli(t, "eval", "--model", out, "--data", other, "--u", "a")
	if code != exitUsage || !strings.Contains(stderr, "trained with --u force --y vel") {
		t.Errorf("--u a on a file without vel: exit %d, %q", code, stderr)
	}
	// An explicit --u is not replaced by the fallback: only y may fall back.
	code, _, _ = cli(t, "eval", "--model", out, "--data", plain, "--u", "force")
	if code != exitUsage {
		t.Errorf("explicit --u force on a u,y file: exit %d, want %d", code, exitUsage)
	}
	// simulate reads the input only: whatever the output column is called,
	// and whatever else the file holds, it is skipped.
	outputY := write("force-y.csv", "force,y")
	otherY := write("in-out.csv", "in,out")
	timed := write("note.csv", "note,force")
	for _, tc := range []struct {
		file string
		args []string
	}{
		{named, nil}, {plain, nil}, {inputOnly, nil}, {outputY, nil}, {timed, nil},
		{otherY, []string{"--u", "in"}},
		{named, []string{"--y", "nonexistent"}},
	} {
		sim := mustRun(t, append([]string{"simulate", "--model", out, "--data", tc.file, "--out", "-"}, tc.args...)...)
		if lines := strings.Count(sim, "\n"); lines != 201 {
			t.Errorf("simulate %s %v: %d lines, want 201", filepath.Base(tc.file), tc.args, lines)
		}
	}
	code, _, stderr = cli(t, "simulate", "--model", out, "--data", other, "--out", "-")
	if code != exitUsage || !strings.Contains(stderr, "trained with --u force)") {
		t.Errorf("simulate without the input column: exit %d, %q", code, stderr)
	}
}

// unwritableDir returns an existing directory in which no file can be
// created: a read-only temporary directory, or /proc for root (who ignores
// mode bits).
func unwritableDir(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		dir := filepath.Join(t.TempDir(), "ro")
		if err := os.Mkdir(dir, 0o555); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	if fi, err := os.Stat("/proc/self"); err == nil && fi.IsDir() {
		return "/proc"
	}
	t.Skip("running as root without /proc: no directory is unwritable")
	return ""
}

// TestUnwritableOutput: an output that cannot be written is bad input found
// before training (exit 2, nothing written), not a failure after it.
func TestUnwritableOutput(t *testing.T) {
	dir := t.TempDir()
	good := genData(t, dir, 2, "1")
	ro := unwritableDir(t)
	model := filepath.Join(dir, "model.json")
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"train out", []string{"train", "--data", good, "--out", filepath.Join(ro, "m.json")}, "--out"},
		{"train plot", []string{"train", "--data", good, "--out", model, "--plot", filepath.Join(ro, "plots")}, "--plot"},
		{"gen out", []string{"gen", "msd", "--batches", "2", "--out", filepath.Join(ro, "d.csv")}, "--out"},
		{"demo out", []string{"demo", "--quick", "--out", filepath.Join(ro, "demo")}, "--out"},
		{"experiment out", []string{"experiment", "msd", "--quick", "--out", filepath.Join(ro, "results")}, "--out"},
		{"out under a file", []string{"train", "--data", good, "--out", filepath.Join(good, "m.json")}, "is a file, not a directory"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args := append(tc.args, "--quiet")
			if tc.args[0] == "train" {
				args = append(args, tiny...)
			}
			code, _, stderr := cli(t, args...)
			if code != exitUsage {
				t.Fatalf("exit %d, want 2; stderr: %s", code, stderr)
			}
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr %q does not name %s", stderr, tc.want)
			}
			if _, err := os.Stat(model); err == nil {
				t.Errorf("%s was written although an output was unwritable", model)
			}
		})
	}
}

// TestScaleUnits: the same plant measured in other units (u in kN instead
// of N, y in mm instead of m, say) trains to the same model with the
// default --scale auto, which says what it did; with --scale none the
// paper's settings, in the wrong units, cost the fit (the control).
func TestScaleUnits(t *testing.T) {
	dir := t.TempDir()
	orig := genData(t, dir, 20, "1")
	d, err := data.ReadFile(orig, data.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range d.Batches {
		for k := range b.U {
			d.Batches[i].U[k] *= 1e-3
			d.Batches[i].Y[k] *= 1000
		}
	}
	other := filepath.Join(dir, "other-units.csv")
	if err := data.WriteCSV(other, d); err != nil {
		t.Fatal(err)
	}
	fir := []string{"--branches", "0", "--linear-taps", "30"}
	fit := func(dataPath string, flags ...string) float64 {
		t.Helper()
		out := filepath.Join(dir, "m.json")
		mustRun(t, append(append([]string{"train", "--data", dataPath, "--force", "--out", out, "--quiet"}, fir...), flags...)...)
		ev := decode(t, mustRun(t, "eval", "--model", out, "--data", dataPath, "--json"))
		return ev["fit"].(map[string]any)["closed_loop"].(map[string]any)["median"].(float64)
	}
	ref, got, bare := fit(orig), fit(other), fit(other, "--scale", "none")
	t.Logf("median closed-loop Fit: original units %.6f%%, other units %.6f%% (--scale none: %.2f%%)", ref, got, bare)
	if math.Abs(got-ref) > 1e-3 {
		t.Errorf("Fit %.6f%% in other units, %.6f%% in the original ones", got, ref)
	}
	if bare > ref-1 {
		t.Errorf("--scale none in other units fits %.2f%%, the original %.2f%%: the control shows no effect of units", bare, ref)
	}
	args := append([]string{"train", "--data", other, "--force", "--out", filepath.Join(dir, "n.json")}, fir...)
	if text := mustRunAll(t, args...); !strings.Contains(text, "--scale auto: training on u×2^10 and y×2^-10") {
		t.Errorf("no note on the scaling:\n%s", text)
	}
	r := decode(t, mustRun(t, append(args, "--json")...))
	if s, _ := r["scale"].(map[string]any); s["mode"] != "auto" || s["u"] != 0x1p10 || s["y"] != 0x1p-10 {
		t.Errorf("--json scale %v, want auto with u 2^10 and y 2^-10", r["scale"])
	}
	if st := storedTraining(t, filepath.Join(dir, "n.json")); st["scale"] != "auto" {
		t.Errorf("stored scale %v, want auto", st["scale"])
	}
	if code, _, errOut := cli(t, "train", "--data", orig, "--scale", "rms"); code != 2 || !strings.Contains(errOut, `flag -scale: want auto or none`) {
		t.Errorf("--scale rms: exit %d, %q; want a usage error naming --scale", code, errOut)
	}
}

func TestAutoDecay(t *testing.T) {
	paper := trainer.DefaultConfig().Decay
	for _, c := range []struct {
		s    model.Structure
		want float64
	}{
		{model.Structure{Branches: 10, Taps: 50}, paper},
		{model.Structure{LinearTaps: 50}, paper},
		{model.Structure{LinearTaps: 500}, math.Pow(paper, 0.1)},
		{model.Structure{Branches: 3, Taps: 100, LinearTaps: 500}, math.Pow(paper, 0.1)},
		{model.Structure{Branches: 3, Taps: 200, LinearTaps: 25}, math.Pow(paper, 0.25)},
		{model.Structure{Branches: 0, Taps: 900, LinearTaps: 100}, math.Pow(paper, 0.5)}, // taps unused without branches
	} {
		if got := autoDecay(c.s); got != c.want {
			t.Errorf("%+v: decay %v, want %v", c.s, got, c.want)
		}
	}
	// A plant whose impulse response lasts 300 samples, fitted with 300 taps:
	// the paper's fixed 0.93 holds most taps at the bound and costs the fit;
	// --decay auto does not.
	dir := t.TempDir()
	g := make(data.FIR, 300)
	for k := range g {
		g[k] = 0.05 * math.Exp(-float64(k)/100)
	}
	d := &data.Dataset{Name: "slow", Ts: 1}
	for _, u := range data.GaussianInputs(1, 6, 1000, 1) {
		d.Batches = append(d.Batches, data.Batch{U: u, Y: g.Simulate(u)})
	}
	path := filepath.Join(dir, "slow.csv")
	if err := data.WriteCSV(path, d); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "m.json")
	train := func(flags ...string) map[string]any {
		t.Helper()
		return decode(t, mustRun(t, append([]string{"train", "--data", path, "--branches", "0", "--linear-taps", "300", "--force", "--out", out, "--json"}, flags...)...))
	}
	fixed, auto := train("--decay", "0.93"), train()
	if st := storedTraining(t, out); st["decay"] != "auto" {
		t.Errorf("stored decay %v, want auto (resolved per filter length when the object is reused as --config)", st["decay"])
	}
	fa, ff := auto["best_val_fit"].(float64), fixed["best_val_fit"].(float64)
	t.Logf("validation Fit: --decay auto %.4f%% (%v taps at the bound), 0.93 %.2f%% (%v)", fa, auto["taps_at_bound"], ff, fixed["taps_at_bound"])
	if fa < 99 || auto["taps_at_bound"] != 0.0 {
		t.Errorf("--decay auto: Fit %.2f%%, %v taps at the bound; want ≥ 99%% and none", fa, auto["taps_at_bound"])
	}
	if ff > fa-5 || fixed["taps_at_bound"] == 0.0 {
		t.Errorf("--decay 0.93: Fit %.2f%%, %v taps at the bound; the control shows no effect of the bound", ff, fixed["taps_at_bound"])
	}
	if code, _, errOut := cli(t, "train", "--data", path, "--decay", "fast"); code != 2 || !strings.Contains(errOut, "decay") {
		t.Errorf("--decay fast: exit %d, %q; want a usage error naming --decay", code, errOut)
	}
}

// TestDataNotes: train says before training when the data supply negative
// energy (the output's sign flipped) or carry an output offset, and --json
// lists those notes with the check's figures; clean data give none. A
// negative validation Fit gets a note of its own.
func TestDataNotes(t *testing.T) {
	dir := t.TempDir()
	orig := genData(t, dir, 10, "1")
	variant := func(name string, f func(y []float64)) string {
		d, err := data.ReadFile(orig, data.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range d.Batches {
			f(b.Y)
		}
		path := filepath.Join(dir, name+".csv")
		if err := data.WriteCSV(path, d); err != nil {
			t.Fatal(err)
		}
		return path
	}
	flipped := variant("flipped", func(y []float64) {
		for i := range y {
			y[i] = -y[i]
		}
	})
	biased := variant("biased", func(y []float64) {
		for i := range y {
			y[i] += 0.5
		}
	})
	for _, c := range []struct {
		path, want string
	}{{orig, ""}, {flipped, "negative energy"}, {biased, "has an offset"}} {
		args := []string{"train", "--data", c.path, "--branches", "0", "--linear-taps", "30", "--force", "--out", filepath.Join(dir, "m.json")}
		r := decode(t, mustRun(t, append(args, "--json")...))
		notes := fmt.Sprint(r["notes"])
		if c.want == "" && strings.Contains(notes, "energy") || strings.Contains(notes, "offset") != (c.want == "has an offset") {
			t.Errorf("%s: notes %s", c.path, notes)
		}
		if c.want != "" && !strings.Contains(notes, c.want) {
			t.Errorf("%s: notes %s, want one on %q", c.path, notes, c.want)
		}
		if _, ok := r["data_check"].(map[string]any)["supply"]; !ok {
			t.Errorf("%s: --json data_check %v", c.path, r["data_check"])
		}
		if c.want != "" {
			if text := mustRunAll(t, args...); !strings.Contains(text, c.want) {
				t.Errorf("%s: no note %q in the output:\n%s", c.path, c.want, text)
			}
		}
	}
	if n := resultNotes(trainer.DefaultConfig(), &trainer.Result{BestValFit: -12}, 1); len(n) != 1 || !strings.Contains(n[0], "below 0") {
		t.Errorf("validation Fit −12%%: notes %q", n)
	}
	if n := resultNotes(trainer.DefaultConfig(), &trainer.Result{BestValFit: math.NaN()}, 1); len(n) != 0 {
		t.Errorf("no validation Fit: notes %q", n)
	}
}

// TestTrainDataEdges: an output that is zero everywhere (training data or
// every validation batch) is bad input, named; zero validation batches
// among others are named as left out; --scale none on data far from the
// defaults' scale says so; a linear FIR's memory is its own taps, so
// batches shorter than the (unused) --taps default train.
func TestTrainDataEdges(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, d *data.Dataset) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := data.WriteCSV(p, d); err != nil {
			t.Fatal(err)
		}
		return p
	}
	orig := genData(t, dir, 6, "1")
	d, err := data.ReadFile(orig, data.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	zeroed := func(which ...int) *data.Dataset {
		c := &data.Dataset{Name: d.Name, Ts: d.Ts}
		for i, b := range d.Batches {
			nb := data.Batch{U: b.U, Y: append([]float64(nil), b.Y...)}
			if slices.Contains(which, i) {
				clear(nb.Y)
			}
			c.Batches = append(c.Batches, nb)
		}
		return c
	}
	fir := []string{"--branches", "0", "--linear-taps", "20", "--force", "--out", filepath.Join(dir, "m.json")}
	if code, _, errOut := cli(t, append([]string{"train", "--data", write("zero.csv", zeroed(0, 1, 2, 3, 4, 5))}, fir...)...); code != 2 || !strings.Contains(errOut, "output \"y\" is zero in every sample") {
		t.Errorf("all-zero output: exit %d, %q", code, errOut)
	}
	allZeroVal := write("zval.csv", zeroed(0, 1, 2, 3, 4, 5))
	if code, _, errOut := cli(t, append([]string{"train", "--data", orig, "--val", allZeroVal}, fir...)...); code != 2 || !strings.Contains(errOut, "--val "+allZeroVal+": the output is zero in every batch") {
		t.Errorf("all-zero validation output: exit %d, %q", code, errOut)
	}
	someZeroVal := write("sval.csv", zeroed(2))
	if out := mustRunAll(t, append([]string{"train", "--data", orig, "--val", someZeroVal}, fir...)...); !strings.Contains(out, `left out of every validation score, their output being zero (Fit undefined): batch "2" (from line`) {
		t.Errorf("a zero validation batch is not named:\n%s", out)
	}
	small := zeroed()
	for _, b := range small.Batches {
		for i := range b.Y {
			b.Y[i] *= 1e-6
		}
	}
	smallPath := write("small.csv", small)
	if out := mustRunAll(t, append([]string{"train", "--data", smallPath, "--scale", "none"}, fir...)...); !strings.Contains(out, "--scale auto would multiply u by 1 and y by 2^20") {
		t.Errorf("no note on --scale none far from the defaults' scale:\n%s", out)
	}
	// there the sampled margin, in the data's units, is the whole response: a note names --eps
	sampled := append([]string{"train", "--data", smallPath, "--scale", "none", "--passivity", "sampled"}, fir...)
	if out := mustRun(t, sampled...); !strings.Contains(out, "--eps 0.01 sets the taps rather than the data") {
		t.Errorf("no note on --eps:\n%s", out)
	}
	if out := mustRun(t, append([]string{"train", "--data", smallPath, "--passivity", "sampled"}, fir...)...); strings.Contains(out, "sets the taps rather than the data") {
		t.Errorf("a note on --eps with --scale auto:\n%s", out)
	}
	short := &data.Dataset{Name: "short"}
	for _, b := range d.Batches {
		short.Batches = append(short.Batches, data.Batch{U: b.U[:30], Y: b.Y[:30]})
	}
	mustRun(t, "train", "--data", write("short.csv", short), "--branches", "0", "--linear-taps", "10", "--quiet", "--out", filepath.Join(dir, "s.json"))
}

// TestDipNote: records that give energy back partway, in most batches, get
// a note, even though each record's total supply is positive.
func TestDipNote(t *testing.T) {
	dir := t.TempDir()
	d := &data.Dataset{Name: "dips"}
	for k := range 8 {
		u := make([]float64, 200)
		y := make([]float64, 200)
		for i := range u {
			u[i] = math.Sin(0.1*float64(i) + float64(k))
			y[i] = u[i]
			if i < 60 {
				y[i] = -0.8 * u[i] // energy flows out first, then in
			}
		}
		d.Batches = append(d.Batches, data.Batch{U: u, Y: y})
	}
	path := filepath.Join(dir, "dips.csv")
	if err := data.WriteCSV(path, d); err != nil {
		t.Fatal(err)
	}
	r := decode(t, mustRun(t, "train", "--data", path, "--branches", "0", "--linear-taps", "10", "--json", "--out", filepath.Join(dir, "m.json")))
	if notes := fmt.Sprint(r["notes"]); !strings.Contains(notes, "falls below zero partway") {
		t.Errorf("notes %s, want the dip note (data_check %v)", notes, r["data_check"])
	}
}

// TestClassTooShortToHoldOut: a class that needs validation data, trained
// on a file too short to hold any out, says so even under --quiet.
func TestClassTooShortToHoldOut(t *testing.T) {
	path := filepath.Join(t.TempDir(), "one.csv")
	if err := os.WriteFile(path, []byte("u,y\n1,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"fir", "n4sid", "loop"} {
		code, _, stderr := cli(t, "train", "--model", m, "--data", path, "--quiet", "--out", filepath.Join(t.TempDir(), "m.json"))
		if code != exitUsage || !strings.Contains(stderr, "one.csv is too short to hold out a part of it; give --val FILE") {
			t.Errorf("--model %s: exit %d, %q", m, code, stderr)
		}
	}
}
