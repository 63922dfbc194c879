package main

import (
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/passivenfir/gputrain/baselines"
	"github.com/passivenfir/gputrain/classes"
	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/model"
	"github.com/passivenfir/gputrain/search"
	"github.com/passivenfir/gputrain/trainer"
)

// TestSaveREN: a passive REN that the structure search chose is written as
// a gputrain-model file of class ren that reads back to the same operator,
// with its certificate and its output figure, and the outcome names the
// class for --json; a biased REN's file is version 3, a gated one's 4.
func TestSaveREN(t *testing.T) {
	for _, kind := range []struct {
		biased, gated bool
		version       int
	}{{false, false, 1}, {true, false, 3}, {false, true, 4}} {
		t.Run(fmt.Sprintf("biased=%v,gated=%v", kind.biased, kind.gated), func(t *testing.T) { testSaveREN(t, kind.biased, kind.gated, kind.version) })
	}
}

func testSaveREN(t *testing.T, biased, gated bool, version int) {
	dir := t.TempDir()
	d, err := data.ReadFile(namedData(t, dir, 6), data.ReadOptions{UCol: "force", YCol: "position"})
	if err != nil {
		t.Fatal(err)
	}
	train, val := data.HoldOut(d, 1)
	cfg := baselines.SimulationRENConfig()
	cfg.States, cfg.Neurons, cfg.Epochs, cfg.Biased, cfg.Gated = 2, 3, 2, biased, gated
	m, err := baselines.TrainREN(train, val, cfg)
	if err != nil {
		t.Fatal(err)
	}
	plots := filepath.Join(dir, "plots")
	if err := makePlotDir(plots); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "ren.json")
	job := trainJob{out: out, plotDir: plots, train: train, val: val}
	sr := &search.Result{REN: m, RENFit: 42.5, RENChosen: true,
		Rows: []search.Row{{Name: "ren 2 states × 3 neurons, seed 1", REN: &search.RENStructure{States: 2, Neurons: 3, Seed: 1, Biased: biased, Gated: gated}, ValFit: 42.5, Chosen: true}}}
	oc, err := saveLoop(&job, sr, trainOutcome{})
	if err != nil {
		t.Fatal(err)
	}
	if !oc.saved || oc.class != "ren" || oc.res.BestValFit != 42.5 || !oc.res.Cert.Passive {
		t.Errorf("outcome %+v", oc)
	}
	back, meta, err := classes.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if meta.Version != version {
		t.Errorf("file version %d, want %d", meta.Version, version)
	}
	cert, err := back.Certify()
	if err != nil || !cert.Passive || back.Class() != "ren" {
		t.Fatalf("read back: class %s, certificate %+v, %v", back.Class(), cert, err)
	}
	u := train.Batches[0].U
	if got, want := back.Simulate(u), m.Simulate(u); !slices.Equal(got, want) {
		t.Errorf("the file's REN simulates differently: %v… against %v…", got[:3], want[:3])
	}
	texts := svgTexts(t, filepath.Join(plots, "fit.svg"))
	b := val.Batches[0]
	fit, err := model.Fit(b.Y, m.Simulate(b.U), 0)
	if want := fmt.Sprintf("(ren, free run): Fit %.2f%%", fit); err != nil || math.IsNaN(fit) || !hasText(texts, want) {
		t.Errorf("fit.svg: want %q among %q (%v)", want, texts, err)
	}
}

// TestRENSettings: the training object of a REN the search chose holds its
// settings as train --model ren takes them, its memory included, and train
// accepts them back as flags.
func TestRENSettings(t *testing.T) {
	sr := &search.Result{REN: &baselines.PassiveREN{States: 2, Neurons: 3, Gated: true}, RENChosen: true, Memory: 600,
		Rows: []search.Row{{Name: "fir"}, {Name: "ren", REN: &search.RENStructure{States: 2, Neurons: 3, Seed: 7, Gated: true, Memory: 600}, Chosen: true}}}
	chosen := trainer.DefaultConfig()
	chosen.Workers, chosen.ValSkip = 1, 5
	got := map[string]any{}
	renSettings(got, sr, chosen)
	want := map[string]any{"model": "ren", "ren-states": 2, "ren-neurons": 3, "seed": uint64(7), "workers": 1, "val-skip": 5, "ren-memory": 600, "ren-gated": true}
	if !maps.Equal(got, want) {
		t.Fatalf("settings %v, want %v", got, want)
	}
	// the long-memory REN: its own memory, not the FIR's
	sr.Memory = 128
	sr.Rows[1].REN.Long, sr.Rows[1].REN.Memory = true, 2000
	long := map[string]any{}
	if renSettings(long, sr, chosen); long["ren-memory"] != 2000 {
		t.Errorf("the long-memory REN chosen: ren-memory %v, want 2000", long["ren-memory"])
	}
	sr.Memory, sr.Rows[1].REN.Memory = 0, 0
	none := map[string]any{}
	if renSettings(none, sr, chosen); none["ren-memory"] != nil {
		t.Errorf("no memory measured: ren-memory %v, want absent", none["ren-memory"])
	}
	dir := t.TempDir()
	args := []string{"train", "--data", namedData(t, dir, 6), "--u", "force", "--y", "position", "--out", filepath.Join(dir, "m.json"), "--ren-epochs", "1", "--quiet"}
	for _, k := range slices.Sorted(maps.Keys(want)) {
		if b, ok := want[k].(bool); ok && b {
			args = append(args, "--"+k)
			continue
		}
		args = append(args, "--"+k, fmt.Sprint(want[k]))
	}
	if code, _, stderr := cli(t, args...); code != 0 {
		t.Errorf("train %v: exit %d, %s", args[1:], code, stderr)
	}
}
