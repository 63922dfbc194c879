package experiment

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/trainer"
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

// TestSplitHoldout: the held-out segment (at the end or in the middle) is
// preceded by the lead-in, clipped to the data before it; the training
// pieces are the rest, in order, without the segment.
func TestSplitHoldout(t *testing.T) {
	u := make([]float64, 100)
	for i := range u {
		u[i] = float64(i)
	}
	d := &data.Dataset{Name: "e", Ts: 1, Batches: []data.Batch{{U: u, Y: u}}}
	for _, c := range []struct {
		frac    float64
		at      string
		lead    int
		pieces  [][2]int // training pieces [first, last]
		val     [2]int   // validation record [first, last]
		valSkip int
		wantErr bool
	}{
		{0.2, "end", 0, [][2]int{{0, 79}}, [2]int{80, 99}, 0, false},
		{0.2, "", 30, [][2]int{{0, 79}}, [2]int{50, 99}, 30, false},
		{0.2, "end", 500, [][2]int{{0, 79}}, [2]int{0, 99}, 80, false},
		{0.5, "end", 10, [][2]int{{0, 49}}, [2]int{40, 99}, 10, false},
		{0.2, "middle", 30, [][2]int{{0, 39}, {60, 99}}, [2]int{10, 59}, 30, false},
		{0.2, "middle", 500, [][2]int{{0, 39}, {60, 99}}, [2]int{0, 59}, 40, false},
		{0.5, "middle", 5, [][2]int{{0, 24}, {75, 99}}, [2]int{20, 74}, 5, false},
		{0, "end", 10, nil, [2]int{}, 0, true},
		{1, "end", 10, nil, [2]int{}, 0, true},
		{0.999, "end", 10, nil, [2]int{}, 0, true}, // nothing left to train on
		{0.999, "middle", 10, nil, [2]int{}, 0, true},
		{0.2, "start", 10, nil, [2]int{}, 0, true},
	} {
		fit, val, skip, err := splitHoldout(d, c.frac, c.at, c.lead)
		if c.wantErr {
			if err == nil {
				t.Errorf("frac %g at %q: no error", c.frac, c.at)
			}
			continue
		}
		if err != nil {
			t.Fatalf("frac %g at %q: %v", c.frac, c.at, err)
		}
		span := func(b data.Batch) [2]int { return [2]int{int(b.U[0]), int(b.Y[len(b.Y)-1])} }
		var pieces [][2]int
		for _, b := range fit.Batches {
			pieces = append(pieces, span(b))
			if len(b.U) != int(b.U[len(b.U)-1]-b.U[0])+1 {
				t.Errorf("frac %g at %q: training piece %v is not contiguous", c.frac, c.at, span(b))
			}
		}
		if fmt.Sprint(pieces) != fmt.Sprint(c.pieces) || span(val.Batches[0]) != c.val || skip != c.valSkip {
			t.Errorf("frac %g at %q lead %d: training %v, validation %v after %d; want %v, %v after %d",
				c.frac, c.at, c.lead, pieces, span(val.Batches[0]), skip, c.pieces, c.val, c.valSkip)
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
	if c.GammaG != 20 || c.WeightDecay != 5 || c.Epochs != 20 || c.Rho != 100 || c.Decay != 0.99 || c.H != 15000 || c.Eps != 1e-2 || c.GramGains != trainer.GramGainsData || c.Skip != 50 || c.Init != trainer.InitFanIn || !c.Structure.HoldStart {
		t.Errorf("paper code settings: %+v", c)
	}
	if a := cfgs[RobotAverage]; a.Skip != 0 || a.Eps != 5e-3 || a.Init != trainer.InitGlorot || a.Iters != 1 || a.Structure.Taps != 100 || a.Structure.HoldStart {
		t.Errorf("%s keeps the settings it was selected with: %+v", RobotAverage, a)
	}
}

// TestRobotFIRMatchesPaper trains the Table II FIR with the released code's
// settings on the robot records and checks the paper's FIR row. The problem
// is strictly convex, so its optimum is unique: agreement to the printed
// digits checks the data (resampling, alignment), the θ_G solver, the skip
// and the closed-loop Fit at once. Skipped without the robot data.
func TestRobotFIRMatchesPaper(t *testing.T) {
	dir := data.RobotDir()
	if dir == "" {
		t.Skip("robot data not found (../shared/data/robot relative to the module root); skipping")
	}
	rows, err := Robot(context.Background(), Options{Seed: 1, Workers: 1, Only: []string{"FIR"}}, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 {
		t.Fatalf("%d rows, want 1", len(rows))
	}
	paper := map[string]float64{"e": 85.19, "v1": 85.54, "v2": 47.60, "v3": 86.17} // Table II, FIR
	for rec, want := range paper {
		if got := rows[0].Fit[rec]; math.Abs(got-want) > 0.006 {
			t.Errorf("FIR on %s: Fit %.4f, the paper's %.2f", rec, got, want)
		}
	}
	if rows[0].Passive != "certified" {
		t.Errorf("FIR passivity %q", rows[0].Passive)
	}
}

// TestWriteRobotTable: every line has the header's number of cells, and a
// validation column appears exactly when a row has a validation Fit.
func TestWriteRobotTable(t *testing.T) {
	re := 1e-3
	plain := RobotRow{Model: "FIR", Fit: map[string]float64{"e": 85, "v1": 85, "v2": 49, "v3": 85}, Passive: "certified", MinRe: &re, Params: 500}
	held := RobotRow{Model: "NFIR", Fit: map[string]float64{"validation": 91.5, "e": 86, "v1": 84, "v2": 50, "v3": 84}, Passive: "certified", Params: 900}
	for _, c := range []struct {
		rows    []RobotRow
		cells   int
		val     bool
		wantSub []string
	}{
		{[]RobotRow{plain}, 9, false, []string{"| **FIR (ours)** | 85.00 | 85.00 | 49.00 | 85.00 | certified | 0.001 | 500 |"}},
		{[]RobotRow{plain, held}, 10, true, []string{"| model | validation | e |", "| **FIR (ours)** | – | 85.00 |", "| **NFIR (ours)** | 91.50 | 86.00 |", "| paper NFIR | | 92.29 |"}},
	} {
		var b strings.Builder
		WriteRobotTable(&b, c.rows)
		out := b.String()
		for i, line := range strings.Split(strings.TrimSpace(out), "\n") {
			if n := strings.Count(line, "|") - 1; n != c.cells {
				t.Errorf("line %d has %d cells, want %d: %s", i, n, c.cells, line)
			}
		}
		if got := strings.Contains(out, "validation"); got != c.val {
			t.Errorf("validation column present %v, want %v:\n%s", got, c.val, out)
		}
		for _, s := range c.wantSub {
			if !strings.Contains(out, s) {
				t.Errorf("missing %q in\n%s", s, out)
			}
		}
	}
}

// TestWriteSelectionTable: every table line has five cells, and only the
// selected candidate is marked.
func TestWriteSelectionTable(t *testing.T) {
	folds := []RobotFold{
		{Model: "FIR", End: 90.16, Middle: 89.95, Mean: 90.055, Seconds: 1},
		{Model: "NFIR average of 10 (seeds 1–10)", End: 91.71, Middle: 89.12, Mean: 90.415, Selected: true, Seconds: 26},
	}
	var b strings.Builder
	WriteSelectionTable(&b, folds)
	out := b.String()
	lines := 0
	for _, line := range strings.Split(out, "\n") {
		if !strings.HasPrefix(line, "|") {
			continue
		}
		lines++
		if n := strings.Count(line, "|") - 1; n != 5 {
			t.Errorf("%d cells, want 5: %s", n, line)
		}
	}
	if lines != 4 || strings.Count(out, "(selected)") != 1 {
		t.Errorf("want a header, a rule and two rows, one selected:\n%s", out)
	}
	for _, s := range []string{"| FIR | 90.16 | 89.95 | 90.06 | 1 s |", "| 91.71 | 89.12 | **90.42** (selected) | 26 s |"} {
		if !strings.Contains(out, s) {
			t.Errorf("missing %q in\n%s", s, out)
		}
	}
}
