package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/passivenfir/gputrain/classes"
	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/model"
	"github.com/passivenfir/gputrain/plot"
	"github.com/passivenfir/gputrain/trainer"
)

// makePlotDir creates the --plot directory (and parents) if needed and checks
// that files can be written in it.
func makePlotDir(dir string) error { return makeOutDir("plot", dir) }

// makeOutDir creates the directory of flag --name (and parents) if needed
// and checks that files can be written in it.
func makeOutDir(name, dir string) error {
	if err := checkLexicalParents(name, dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return usagef("--%s %s: %v; choose a directory you can write", name, dir, err)
	}
	return probeWritable(name, dir, dir)
}

// responsePlot writes base.{png,svg}: measured against closed-loop simulated
// output for the first n batches of d, each with its Fit from sample skip
// on.
func responsePlot(base string, m *model.NFIR, d *data.Dataset, n, skip int) error {
	sim := func(u []float64) []float64 { y, _ := m.Simulate(u); return y }
	return drawResponses(base, d, n, skip, sim, "closed loop")
}

// classResponsePlot is responsePlot for a model of another class.
func classResponsePlot(base string, m classes.Model, d *data.Dataset, n, skip int) error {
	return drawResponses(base, d, n, skip, m.Simulate, m.Class()+", free run")
}

// drawResponses writes base.{png,svg}: the first n batches of d against
// sim's output from rest (what names the simulation in the titles). Each
// panel's title carries the Fit as eval reports it (model.Fit from sample
// skip on, against y_clean where the data have it), and its y axis the name
// of the data's output column.
func drawResponses(base string, d *data.Dataset, n, skip int, sim func([]float64) []float64, what string) error {
	if d == nil || d.Len() == 0 {
		return nil
	}
	var traces []plot.Trace
	for i, b := range d.Batches[:min(n, d.Len())] {
		traces = append(traces, responseTrace(fmt.Sprintf("%s, %s (%s)", d.Name, b.Name(i), what), b, d.YCol, skip, sim(b.U)))
	}
	if err := plot.Responses(base, traces, d.Ts); err != nil {
		return failf("%v", err)
	}
	return nil
}

// responseTrace is batch b against ysim, titled title, with its Fit from
// sample skip on (NaN, no Fit shown, where it is undefined) and the output
// named ylabel.
func responseTrace(title string, b data.Batch, ylabel string, skip int, ysim []float64) plot.Trace {
	target := b.Y
	if b.YClean != nil {
		target = b.YClean
	}
	fit, err := model.Fit(target, ysim, skip)
	if err != nil {
		fit = math.NaN()
	}
	return plot.Trace{Title: title, Y: b.Y, YSim: ysim, YClean: b.YClean, Fit: fit, YLabel: ylabel}
}

// realPartPlot writes base.{png,svg}: Re G_j(e^{iω}) of every FIR of m, with
// the level bound (ε/2 of a sampled constraint; 0 for none) drawn.
func realPartPlot(base string, m *model.NFIR, bound float64) error {
	branches := make([][]float64, m.Branches)
	for j := range branches {
		branches[j] = m.Branch(j)
	}
	if err := plot.RealParts(base, branches, m.Lin, bound); err != nil {
		return failf("%v", err)
	}
	return nil
}

// sampledBound is the level a sampled passivity constraint kept Re G above
// in the units of the model trained by cfg on train: ε/2 of Σ_k g(k)·2cos(kω_h)
// ≥ ε, times a/b where --scale auto trained on u×a and y×b (model.Rescale);
// 0 for the other passivity modes, which impose no ε.
func sampledBound(cfg trainer.Config, train *data.Dataset) float64 {
	if cfg.Passivity != trainer.PassivitySampled || cfg.Eps <= 0 {
		return 0
	}
	bound := cfg.Eps / 2
	if cfg.Scale == trainer.ScaleAuto && train != nil {
		a, b := trainer.AutoScale(train)
		bound *= a / b
	}
	return bound
}

// storedBound is sampledBound for a model file: its training object's eps
// when it was trained with passivity sampled on unscaled data (the factors
// of --scale auto are not stored); 0 otherwise.
func storedBound(meta model.Meta) float64 {
	var t struct {
		Eps   float64       `json:"eps"`
		Scale trainer.Scale `json:"scale"`
	}
	mode := trainer.Passivity(meta.Mode)
	if mode != trainer.PassivitySampled || json.Unmarshal(meta.Training, &t) != nil || t.Scale == trainer.ScaleAuto {
		return 0
	}
	return sampledBound(trainer.Config{Passivity: mode, Eps: t.Eps}, nil)
}

// historyPoints turns the trainer's events into the points of the training
// figure: its epochs, numbered over the whole run, its θ_G steps and its
// closed-loop evaluations, each at the number of epochs done before it.
func historyPoints(h []trainer.Event) []plot.Point {
	var pts []plot.Point
	epochs := 0
	for _, ev := range h {
		switch ev.Stage {
		case "adam", "bptt":
			epochs++
			pts = append(pts, plot.Point{Step: epochs, Stage: ev.Stage, Loss: ev.Loss, ValFit: ev.ValFit})
		case "theta_g":
			pts = append(pts, plot.Point{Step: epochs, Stage: plot.StageThetaG, Loss: ev.Loss, ValFit: math.NaN()})
		case "eval":
			pts = append(pts, plot.Point{Step: epochs, Stage: plot.StageEval, Loss: math.NaN(), ValFit: ev.ValFit})
		}
	}
	return pts
}

// trainingPlots writes the figures of a training run of cfg into dir:
// training.*, re_g.* and fit.* (first three validation batches, or training
// batches when there is no validation set).
func trainingPlots(dir string, res *trainer.Result, cfg trainer.Config, val, train *data.Dataset) error {
	if err := makePlotDir(dir); err != nil {
		return err
	}
	if pts := historyPoints(res.History); len(pts) > 0 {
		if err := plot.TrainingCurves(filepath.Join(dir, "training"), pts); err != nil {
			return failf("%v", err)
		}
	}
	if err := realPartPlot(filepath.Join(dir, "re_g"), res.Model, sampledBound(cfg, train)); err != nil {
		return err
	}
	d := val
	if d == nil {
		d = train
	}
	return responsePlot(filepath.Join(dir, "fit"), res.Model, d, 3, cfg.ValSkip)
}
