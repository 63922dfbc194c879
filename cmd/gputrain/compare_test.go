package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/passivenfir/gputrain/classes"
	"github.com/passivenfir/gputrain/data"
)

// toyGain is a class registered by this test only, y = k·u with k fitted by
// least squares (or fixed by its flag --toy-gain-fixed): that it trains,
// compares, evaluates, simulates and certifies through the commands shows
// that a class needs one package and one registration line.
type toyGain struct{ Fixed float64 }

func (toyGain) Name() string  { return "toy-gain" }
func (toyGain) About() string { return "static gain (test class)" }

func (c toyGain) AddFlags(fs classes.FlagSet) func() classes.Class {
	fs.Float64Var(&c.Fixed, "toy-gain-fixed", 0, "--model toy-gain: the gain (0: least squares)")
	return func() classes.Class { return c }
}

func (c toyGain) Fit(ctx context.Context, train, val *data.Dataset, opt classes.FitOptions) (classes.Model, error) {
	if c.Fixed != 0 {
		return toyGainModel{K: c.Fixed}, nil
	}
	var uy, uu float64
	for _, b := range train.Batches {
		for t := range b.U {
			uy += b.U[t] * b.Y[t]
			uu += b.U[t] * b.U[t]
		}
	}
	return toyGainModel{K: uy / uu}, nil
}

func (toyGain) DecodeParams(raw json.RawMessage) (classes.Model, error) {
	var m toyGainModel
	err := json.Unmarshal(raw, &m)
	return m, err
}

type toyGainModel struct{ K float64 }

func (toyGainModel) Class() string { return "toy-gain" }
func (m toyGainModel) Simulate(u []float64) []float64 {
	y := make([]float64, len(u))
	for t, v := range u {
		y[t] = m.K * v
	}
	return y
}
func (toyGainModel) NumParams() int { return 1 }
func (m toyGainModel) Certify() (classes.Certificate, error) {
	if m.K < 0 {
		return classes.Certificate{Reason: "a negative gain is not passive"}, nil
	}
	return classes.Certificate{Passive: true, Reason: "a gain ≥ 0 is passive"}, nil
}
func (m toyGainModel) MarshalParams() (json.RawMessage, error) { return json.Marshal(m) }

func init() { classes.Register(toyGain{}) }

func TestTrainModelToyClass(t *testing.T) {
	dir := t.TempDir()
	train := genData(t, dir, 6, "1")
	test := genData(t, dir, 2, "2")
	out := filepath.Join(dir, "toy.json")
	r := decode(t, mustRun(t, "train", "--model", "toy-gain", "--data", train, "--out", out, "--json", "--quiet"))
	if r["class"] != "toy-gain" || r["passive"] != true || r["params"] != 1.0 || r["best_val_fit"] == nil {
		t.Errorf("train --json: %v", r)
	}
	ev := decode(t, mustRun(t, "eval", "--model", out, "--data", test, "--json"))
	fit := ev["fit"].(map[string]any)
	if fit["closed_loop"].(map[string]any)["median"] != fit["open_loop"].(map[string]any)["median"] {
		t.Errorf("a class without an open loop: closed- and open-loop Fit differ: %v", fit)
	}
	if s := mustRun(t, "simulate", "--model", out, "--data", test, "--out", "-"); !strings.HasPrefix(s, "batch,u,y_sim\n0,") {
		t.Errorf("simulate: %.80q", s)
	}
	if s := mustRun(t, "certify", "--model", out); !strings.Contains(s, "passive, a gain ≥ 0 is passive") {
		t.Errorf("certify: %q", s)
	}

	// the class's own flag, and a negative gain: no certificate, exit 1 with the reason
	neg := filepath.Join(dir, "neg.json")
	mustRun(t, "train", "--model", "toy-gain", "--toy-gain-fixed", "-2", "--data", train, "--out", neg, "--quiet")
	code, _, errOut := cli(t, "certify", "--model", neg)
	if code != exitFailure || !strings.Contains(errOut, "a negative gain is not passive") {
		t.Errorf("certify of a negative gain: exit %d, %q", code, errOut)
	}
	m, _, err := classes.Load(neg)
	if err != nil {
		t.Fatal(err)
	}
	if k := m.(toyGainModel).K; k != -2 {
		t.Errorf("loaded gain %v, want the --toy-gain-fixed -2", k)
	}
}

func TestTrainModelUsage(t *testing.T) {
	dir := t.TempDir()
	train := genData(t, dir, 5, "1")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--model", "nope"}, "valid: fir, nfir-ff, nfir-fb, nfir, loop, mlp, gru, n4sid, ren"},
		{[]string{"--model", "gru", "--taps", "5"}, "--taps has no effect with --model gru"},
		{[]string{"--model", "mlp", "--gru-units", "3"}, "--gru-units has no effect with --model mlp"},
		{[]string{"--toy-gain-fixed", "1"}, "--toy-gain-fixed has no effect with --model nfir"},
	} {
		code, _, errOut := cli(t, append([]string{"train", "--data", train, "--out", filepath.Join(dir, "m.json")}, c.args...)...)
		if code != exitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("train %v: exit %d, %q; want exit 2 and %q", c.args, code, errOut, c.want)
		}
	}
}

// TestTrainModelGRU trains a GRU for a few epochs and reads its file back
// in eval and certify (no certificate: exit 1 with the reason).
func TestTrainModelGRU(t *testing.T) {
	dir := t.TempDir()
	train := genData(t, dir, 5, "1")
	out := filepath.Join(dir, "gru.json")
	mustRun(t, "train", "--model", "gru", "--gru-units", "4", "--gru-epochs", "2", "--data", train, "--out", out, "--quiet")
	if s := mustRun(t, "eval", "--model", out, "--data", train); !strings.Contains(s, "closed loop") {
		t.Errorf("eval: %q", s)
	}
	code, _, errOut := cli(t, "certify", "--model", out, "--json")
	if code != exitFailure || !strings.Contains(errOut, "GRU: not a passive class") {
		t.Errorf("certify of a GRU: exit %d, %q", code, errOut)
	}
}

func TestCompare(t *testing.T) {
	dir := t.TempDir()
	train, val := genData(t, dir, 4, "1", "--samples", "100"), genData(t, dir, 2, "2", "--samples", "100")
	models := filepath.Join(dir, "models")
	r := decode(t, mustRun(t, "compare", "--data", train, "--val", val, "--test", val, "--only", "toy-gain,n4sid,fir", "--quick", "--json", "--quiet", "--out", models))
	rows := r["rows"].([]any)
	if len(rows) != 3 {
		t.Fatalf("%d rows: %v", len(rows), r)
	}
	for _, row := range rows {
		m := row.(map[string]any)
		if m["error"] != nil || m["val_fit"] == nil {
			t.Errorf("row %v", m)
		}
		if m["class"] == "fir" && m["passive"] != true {
			t.Errorf("fir not certified: %v", m)
		}
	}
	if r["data_check"].(map[string]any)["supply"].(float64) <= 0 {
		t.Errorf("data check %v", r["data_check"])
	}
	mustRun(t, "certify", "--model", filepath.Join(models, "fir.json"))
	out := mustRun(t, "compare", "--data", train, "--val", val, "--only", "toy-gain", "--quiet")
	for _, want := range []string{"data check: energy supply", "toy-gain", "val fit"} {
		if !strings.Contains(out, want) {
			t.Errorf("compare table lacks %q:\n%s", want, out)
		}
	}
	// validation records as long as the training ones: no note on their
	// length; records shorter than the FIR grid's longest (50 taps of 100
	// training samples): a note before the classes train
	_, _, errOut := cli(t, "compare", "--data", train, "--val", val, "--only", "toy-gain")
	if strings.Contains(errOut, "fewer than the longest memory") {
		t.Errorf("validation as long as training: %q", errOut)
	}
	short := genData(t, dir, 2, "3", "--samples", "30")
	_, _, errOut = cli(t, "compare", "--data", train, "--val", short, "--only", "toy-gain")
	if !strings.Contains(errOut, "its longest record scores 30 samples (after --val-skip 0), fewer than the longest memory the classes may try (50 samples") {
		t.Errorf("validation records of 30 samples: no note in %q", errOut)
	}
	code, _, errOut := cli(t, "compare", "--data", train, "--val", val, "--only", "fir,nope")
	if code != exitUsage || !strings.Contains(errOut, "valid: fir") {
		t.Errorf("--only with an unknown class: exit %d, %q", code, errOut)
	}
	if code, _, _ := cli(t, "compare", "--data", train); code != exitUsage {
		t.Errorf("no --val: exit %d, want 2", code)
	}
}
