package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/passivenfir/gputrain/baselines"
	"github.com/passivenfir/gputrain/classes"
	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/ensemble"
	"github.com/passivenfir/gputrain/loop"
	"github.com/passivenfir/gputrain/search"
)

// TestSaveMean: the mean of a REN and a loop that the structure search
// chose is written as a gputrain-model file of class mean (version 5)
// that reads back to the same operator with its certificate, and that
// eval reads.
func TestSaveMean(t *testing.T) {
	dir := t.TempDir()
	d, err := data.ReadFile(namedData(t, dir, 6), data.ReadOptions{UCol: "force", YCol: "position"})
	if err != nil {
		t.Fatal(err)
	}
	train, val := data.HoldOut(d, 1)
	cfg := baselines.SimulationRENConfig()
	cfg.States, cfg.Neurons, cfg.Epochs = 2, 3, 2
	r, err := baselines.TrainREN(train, val, cfg)
	if err != nil {
		t.Fatal(err)
	}
	l, err := loop.New(loop.Structure{R1: 1, R2: 1, Hidden: []int{2}, B1: 1, T1: 3, L1: 4, B2: 1, T2: 2, L2: 2})
	if err != nil {
		t.Fatal(err)
	}
	l.SU, l.SY = 1, 1
	mean := ensemble.Mean{{Model: r, Count: 2}, {Model: l, Count: 1}}
	out := filepath.Join(dir, "mean.json")
	job := trainJob{out: out, train: train, val: val}
	sr := &search.Result{Mean: mean, MeanFit: 55.5, MeanChosen: true,
		Rows: []search.Row{{Name: "weighted mean of 2 models (1 REN, 1 loop; counts 2+1)", MeanOf: []string{"ren", "loop"}, Counts: []int{2, 1}, ValFit: 55.5, Chosen: true}}}
	oc, err := saveLoop(&job, sr, trainOutcome{})
	if err != nil {
		t.Fatal(err)
	}
	if !oc.saved || oc.class != "mean" || oc.res.BestValFit != 55.5 || !oc.res.Cert.Passive || !strings.Contains(oc.loop, "member 1 (loop)") {
		t.Errorf("outcome %+v", oc)
	}
	back, meta, err := classes.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if meta.Version != 5 || back.Class() != "mean" {
		t.Errorf("file version %d class %s, want 5 and mean", meta.Version, back.Class())
	}
	u := train.Batches[0].U
	if got, want := back.Simulate(u), mean.Simulate(u); !slices.Equal(got, want) {
		t.Errorf("the file's mean simulates differently: %v… against %v…", got[:3], want[:3])
	}
	b, err := os.ReadFile(out)
	if err != nil || !strings.Contains(string(b), `"class": "ren"`) || !strings.Contains(string(b), `"count": 2`) {
		t.Errorf("the file does not list its members: %v\n%.400s", err, b)
	}
}
