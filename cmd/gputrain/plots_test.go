package main

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/loop"
	"github.com/passivenfir/gputrain/model"
	"github.com/passivenfir/gputrain/plot"
	"github.com/passivenfir/gputrain/search"
	"github.com/passivenfir/gputrain/trainer"
)

// namedData writes batches of mass-spring-damper data into dir with the
// columns named force and position rather than u and y.
func namedData(t *testing.T, dir string, batches int) string {
	t.Helper()
	path := genData(t, dir, batches, "1")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	header, rest, _ := strings.Cut(string(b), "\n")
	if header != "batch,u,y" {
		t.Fatalf("gen msd wrote the header %q", header)
	}
	if err := os.WriteFile(path, []byte("batch,force,position\n"+rest), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// svgTexts returns the text elements of an SVG figure.
func svgTexts(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(string(b), "</text>")
	var texts []string
	for _, p := range parts[:len(parts)-1] {
		texts = append(texts, html.UnescapeString(p[strings.LastIndex(p, ">")+1:]))
	}
	return texts
}

func hasText(texts []string, sub string) bool {
	return slices.ContainsFunc(texts, func(s string) bool { return strings.Contains(s, sub) })
}

// TestPlotsFitAndColumns: the figures of train --plot and eval --plot carry
// each record's Fit in its title, the very Fit the commands report, and the
// output column's name on the y axis; the training figure marks the θ_G
// steps and draws the closed-loop validation Fit; Re G is on a symlog axis,
// with ε/2 drawn for a sampled constraint.
func TestPlotsFitAndColumns(t *testing.T) {
	dir := t.TempDir()
	path := namedData(t, dir, 8)
	m := filepath.Join(dir, "m.json")
	plots := filepath.Join(dir, "plots")
	res := decode(t, mustRun(t, append([]string{"train", "--data", path, "--u", "force", "--y", "position", "--out", m, "--plot", plots, "--json",
		"--iters", "2", "--passivity", "sampled", "--H", "200", "--eps", "0.02", "--scale", "none"}, tiny...)...))
	if res["val_batches"] != 1.0 {
		t.Fatalf("want one validation batch: %v", res)
	}
	fit := filepath.Join(plots, "fit.svg")
	if texts, want := svgTexts(t, fit), fmt.Sprintf("Fit %.2f%%", res["best_val_fit"].(float64)); !hasText(texts, want) || !slices.Contains(texts, "position") {
		t.Errorf("%s: want a title with %q (train's validation Fit) and the y label \"position\" among %q", fit, want, texts)
	}
	training := filepath.Join(plots, "training.svg")
	for _, want := range []string{"θ_G step", "after θ_G step", "closed-loop validation Fit after each iteration", "epochs done"} {
		if texts := svgTexts(t, training); !slices.Contains(texts, want) {
			t.Errorf("%s: no %q among %q", training, want, texts)
		}
	}
	reg := filepath.Join(plots, "re_g.svg")
	for _, want := range []string{"Re G (symlog)", "ε/2 = 0.01"} {
		if texts := svgTexts(t, reg); !slices.Contains(texts, want) {
			t.Errorf("%s: no %q among %q", reg, want, texts)
		}
	}

	// eval --plot: the per-batch Fit of --json in the titles.
	evalPlots := filepath.Join(dir, "eval")
	var ev struct {
		Fit struct {
			ClosedLoop struct {
				PerBatch []float64 `json:"per_batch"`
			} `json:"closed_loop"`
		} `json:"fit"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, "eval", "--model", m, "--data", path, "--skip", "20", "--plot", evalPlots, "--json")), &ev); err != nil {
		t.Fatal(err)
	}
	texts := svgTexts(t, filepath.Join(evalPlots, "fit.svg"))
	for i, f := range ev.Fit.ClosedLoop.PerBatch[:3] {
		if want := fmt.Sprintf("batch %q (from line %d) (closed loop): Fit %.2f%%", itoa(i), 2+250*i, f); !hasText(texts, want) {
			t.Errorf("eval fit.svg: no title %q among %q", want, texts)
		}
	}
	if texts := svgTexts(t, filepath.Join(evalPlots, "re_g.svg")); !hasText(texts, "ε/2 = 0.01") {
		t.Errorf("eval re_g.svg: the model's ε/2 is not drawn: %q", texts)
	}
}

// TestTrainLoopPlot: train --model loop --plot draws the loop's output
// against the measured one, with the Fit train reports.
func TestTrainLoopPlot(t *testing.T) {
	dir := t.TempDir()
	path := namedData(t, dir, 8)
	plots := filepath.Join(dir, "plots")
	res := decode(t, mustRun(t, "train", "--model", "loop", "--loop-memory", "8", "--loop-epochs", "2", "--data", path, "--u", "force", "--y", "position",
		"--out", filepath.Join(dir, "loop.json"), "--plot", plots, "--json", "--quiet"))
	texts := svgTexts(t, filepath.Join(plots, "fit.svg"))
	if want := fmt.Sprintf("(loop, free run): Fit %.2f%%", res["best_val_fit"].(float64)); !hasText(texts, want) || !slices.Contains(texts, "position") {
		t.Errorf("loop fit.svg: want %q and the y label \"position\" among %q", want, texts)
	}
}

func TestHistoryPoints(t *testing.T) {
	nan := math.NaN()
	h := []trainer.Event{
		{Stage: "theta_g", Iter: 0, Loss: 2},
		{Stage: "adam", Iter: 0, Epoch: 0, Loss: 1.5, ValFit: 10},
		{Stage: "adam", Iter: 0, Epoch: 1, Loss: 1.2, ValFit: 20},
		{Stage: "eval", Iter: 0, ValFit: -364},
		{Stage: "theta_g", Iter: 1, Loss: 1.1},
		{Stage: "adam", Iter: 1, Epoch: 0, Loss: 1, ValFit: 30},
		{Stage: "bptt", Iter: 1, Epoch: 0, Loss: 0.9, ValFit: 40},
		{Stage: "eval", Iter: 1, ValFit: 45},
		{Stage: "done", Iter: 1, ValFit: 45},
	}
	want := []plot.Point{
		{Step: 0, Stage: plot.StageThetaG, Loss: 2, ValFit: nan},
		{Step: 1, Stage: "adam", Loss: 1.5, ValFit: 10},
		{Step: 2, Stage: "adam", Loss: 1.2, ValFit: 20},
		{Step: 2, Stage: plot.StageEval, Loss: nan, ValFit: -364},
		{Step: 2, Stage: plot.StageThetaG, Loss: 1.1, ValFit: nan},
		{Step: 3, Stage: "adam", Loss: 1, ValFit: 30},
		{Step: 4, Stage: "bptt", Loss: 0.9, ValFit: 40},
		{Step: 4, Stage: plot.StageEval, Loss: nan, ValFit: 45},
	}
	same := func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }
	got := historyPoints(h)
	if !slices.EqualFunc(got, want, func(a, b plot.Point) bool {
		return a.Step == b.Step && a.Stage == b.Stage && same(a.Loss, b.Loss) && same(a.ValFit, b.ValFit)
	}) {
		t.Errorf("historyPoints:\n got %v\nwant %v", got, want)
	}
}

func TestSampledBound(t *testing.T) {
	d := &data.Dataset{Batches: []data.Batch{{U: []float64{100, -100, 100, -100}, Y: []float64{0.01, -0.01, 0.01, -0.01}}}}
	a, b := trainer.AutoScale(d)
	if a == 1 && b == 1 {
		t.Fatalf("AutoScale of the test data is 1, 1: the test checks nothing")
	}
	for _, tc := range []struct {
		name string
		cfg  trainer.Config
		want float64
	}{
		{"sampled", trainer.Config{Passivity: "sampled", Eps: 0.02}, 0.01},
		{"sampled, scaled", trainer.Config{Passivity: "sampled", Eps: 0.02, Scale: "auto"}, 0.01 * a / b},
		{"exact", trainer.Config{Passivity: "exact", Eps: 0.02}, 0},
		{"no eps", trainer.Config{Passivity: "sampled"}, 0},
	} {
		if got := sampledBound(tc.cfg, d); math.Abs(got-tc.want) > 1e-15*tc.want {
			t.Errorf("%s: sampledBound = %v, want %v", tc.name, got, tc.want)
		}
	}
	for _, tc := range []struct {
		mode, training string
		want           float64
	}{
		{"sampled", `{"eps": 0.02, "scale": "none"}`, 0.01},
		{"sampled", `{"eps": 0.02, "scale": "auto"}`, 0}, // the factors are not stored
		{"exact", `{"eps": 0.02, "scale": "none"}`, 0},
		{"sampled", `not json`, 0},
	} {
		if got := storedBound(model.Meta{Mode: tc.mode, Training: json.RawMessage(tc.training)}); got != tc.want {
			t.Errorf("storedBound(%s, %s) = %v, want %v", tc.mode, tc.training, got, tc.want)
		}
	}
}

// TestSaveLoopPlot: a loop that a structure search chose gets the output
// figure that train --model loop draws (before, --plot stayed empty).
func TestSaveLoopPlot(t *testing.T) {
	dir := t.TempDir()
	d, err := data.ReadFile(namedData(t, dir, 6), data.ReadOptions{UCol: "force", YCol: "position"})
	if err != nil {
		t.Fatal(err)
	}
	train, val := data.HoldOut(d, 1)
	cfg := loop.DefaultConfig()
	cfg.Structure, cfg.Epochs, cfg.Window, cfg.BurnIn = loop.Sized(8), 1, 100, 20
	lr, err := loop.Train(context.Background(), cfg, train, val)
	if err != nil {
		t.Fatal(err)
	}
	plots := filepath.Join(dir, "plots")
	if err := makePlotDir(plots); err != nil {
		t.Fatal(err)
	}
	job := trainJob{out: filepath.Join(dir, "loop.json"), plotDir: plots, train: train, val: val}
	if _, err := saveLoop(&job, &search.Result{Loop: lr, LoopModel: loop.Of(lr.Model), LoopFit: lr.ValFit, LoopChosen: true}, trainOutcome{}); err != nil {
		t.Fatal(err)
	}
	texts := svgTexts(t, filepath.Join(plots, "fit.svg"))
	if want := fmt.Sprintf("(loop, free run): Fit %.2f%%", lr.ValFit); !hasText(texts, want) || !slices.Contains(texts, "position") {
		t.Errorf("fit.svg: want %q and the y label \"position\" among %q", want, texts)
	}
}
