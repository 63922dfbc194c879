package experiment

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/passivenfir/gputrain/data"
)

// TestRunMSDTiny runs the mass-spring-damper comparison at toy size through
// Run and checks what it writes: the Markdown table, the JSON report and the
// box plot, with the passive models certified and the np ones marked.
func TestRunMSDTiny(t *testing.T) {
	dir := t.TempDir()
	o := Options{Seed: 3, Batches: 9, Epochs: 2, Patience: 2, Workers: 1,
		Only: []string{"FIR", "N4SID(np)", "REN", "FB", "FB(np)"}}
	rep, err := Run(context.Background(), "msd", o, "", dir, "test")
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.MSD) != 5 {
		t.Fatalf("%d rows, want 5", len(rep.MSD))
	}
	for _, r := range rep.MSD {
		if len(r.ClosedLoop.PerBatch) != 3 || math.IsNaN(r.ClosedLoop.Median) {
			t.Errorf("%s: per-batch fits %v", r.Model, r.ClosedLoop.PerBatch)
		}
		want := "certified"
		switch {
		case strings.Contains(r.Model, "np"):
			want = "no (np)"
		case r.Model == "REN":
			want = "by construction"
		}
		if !strings.HasPrefix(r.Passive, want) {
			t.Errorf("%s: passive = %q, want %q", r.Model, r.Passive, want)
		}
		if (r.Model == "FB" || r.Model == "FB(np)") != (r.OpenLoop != nil) {
			t.Errorf("%s: open-loop score present = %v", r.Model, r.OpenLoop != nil)
		}
	}
	md, err := os.ReadFile(filepath.Join(dir, "msd.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"| FIR |", "| N4SID(np) |", "| REN |", "msd-fit.png", "Command: `test`"} {
		if !strings.Contains(string(md), s) {
			t.Errorf("msd.md lacks %q", s)
		}
	}
	var back Report
	js, _ := os.ReadFile(filepath.Join(dir, "msd.json"))
	if err := json.Unmarshal(js, &back); err != nil || len(back.MSD) != 5 {
		t.Errorf("msd.json: %v, %d rows", err, len(back.MSD))
	}
	if st, err := os.Stat(filepath.Join(dir, "msd-fit.png")); err != nil || st.Size() == 0 {
		t.Errorf("box plot: %v", err)
	}
}

func TestRunErrors(t *testing.T) {
	if _, err := Run(context.Background(), "nope", Options{}, "", t.TempDir(), ""); err == nil {
		t.Error("unknown experiment accepted")
	}
	if _, err := Run(context.Background(), "robot", Options{}, "", t.TempDir(), ""); err == nil {
		t.Error("robot without data folder accepted")
	}
}

// TestSplitTail: the head is the first (1−frac) of the record; the tail is
// the rest preceded by the lead-in, clipped to the head's length.
func TestSplitTail(t *testing.T) {
	u := make([]float64, 100)
	for i := range u {
		u[i] = float64(i)
	}
	d := &data.Dataset{Name: "e", Ts: 1, Batches: []data.Batch{{U: u, Y: u}}}
	for _, c := range []struct {
		frac        float64
		lead        int
		head, tail0 int // head length, first sample of the tail
		wantErr     bool
	}{
		{0.2, 0, 80, 80, false},
		{0.2, 30, 80, 50, false},
		{0.2, 500, 80, 0, false},
		{0.5, 10, 50, 40, false},
		{0, 10, 0, 0, true},
		{1, 10, 0, 0, true},
		{0.999, 10, 0, 0, true}, // nothing left to train on
	} {
		h, tl, err := splitTail(d, c.frac, c.lead)
		if c.wantErr {
			if err == nil {
				t.Errorf("frac %g: no error", c.frac)
			}
			continue
		}
		if err != nil {
			t.Fatalf("frac %g: %v", c.frac, err)
		}
		hb, tb := h.Batches[0], tl.Batches[0]
		if len(hb.U) != c.head || tb.U[0] != float64(c.tail0) || tb.U[len(tb.U)-1] != 99 {
			t.Errorf("frac %g lead %d: head %d samples, tail %v..%v; want %d, %d..99", c.frac, c.lead, len(hb.U), tb.U[0], tb.U[len(tb.U)-1], c.head, c.tail0)
		}
	}
}

// TestMedianRow: per-record medians over the seeds, the smallest certified
// min Re G, the summed time.
func TestMedianRow(t *testing.T) {
	re := func(v float64) *float64 { return &v }
	rows := []RobotRow{
		{Fit: map[string]float64{"e": 90, "v1": 80}, MinRe: re(3e-3), Seconds: 10, Params: 7},
		{Fit: map[string]float64{"e": 92, "v1": -40}, MinRe: re(1e-4), Seconds: 20, Params: 7},
		{Fit: map[string]float64{"e": 91, "v1": 85}, MinRe: re(2e-3), Seconds: 30, Params: 7},
	}
	m := medianRow("NFIR", rows)
	if m.Fit["e"] != 91 || m.Fit["v1"] != 80 {
		t.Errorf("medians %v, want e 91, v1 80", m.Fit)
	}
	if m.MinRe == nil || *m.MinRe != 1e-4 || m.Seconds != 60 || m.Params != 7 {
		t.Errorf("min Re %v, seconds %v, params %d", m.MinRe, m.Seconds, m.Params)
	}
	if !strings.Contains(m.Model, "median of 3 seeds") {
		t.Errorf("model %q", m.Model)
	}
}

// TestRobotConfigsValid: every robot configuration passes the trainer's
// checks, and the released-code one has the settings it documents.
func TestRobotConfigsValid(t *testing.T) {
	cfgs := RobotConfigs(Options{Seed: 1, Workers: 1})
	for _, name := range RobotOrder {
		if name == "REN" { // a baseline, not a trainer configuration
			if c := RobotRENConfig(Options{}); c.Skip != RobotSkip || c.Batch != 1 {
				t.Errorf("REN: %+v", c)
			}
			continue
		}
		c, ok := cfgs[name]
		if !ok {
			t.Fatalf("%s: no configuration", name)
		}
		if err := c.Check(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	c := cfgs["NFIR(paper code)"]
	if c.GammaG != 20 || c.WeightDecay != 5 || c.Epochs != 20 || c.Rho != 100 || c.Decay != 0.99 || c.H != 15000 || c.Eps != 5e-3 || c.GramGains != "data" {
		t.Errorf("paper code settings: %+v", c)
	}
}
