package main

import (
	"fmt"
	"os"
	"path/filepath"

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
// output for the first n batches of d.
func responsePlot(base string, m *model.NFIR, d *data.Dataset, n int) error {
	if d == nil || d.Len() == 0 {
		return nil
	}
	var traces []plot.Trace
	for i, b := range d.Batches[:min(n, d.Len())] {
		ysim, _ := m.Simulate(b.U)
		traces = append(traces, plot.Trace{Title: fmt.Sprintf("%s, %s (closed loop)", d.Name, b.Name(i)), Y: b.Y, YSim: ysim, YClean: b.YClean})
	}
	if err := plot.Responses(base, traces, d.Ts); err != nil {
		return failf("%v", err)
	}
	return nil
}

// realPartPlot writes base.{png,svg}: Re G_j(e^{iω}) of every FIR of m.
func realPartPlot(base string, m *model.NFIR) error {
	branches := make([][]float64, m.Branches)
	for j := range branches {
		branches[j] = m.Branch(j)
	}
	if err := plot.RealParts(base, branches, m.Lin); err != nil {
		return failf("%v", err)
	}
	return nil
}

// historyPoints turns the trainer's events into per-epoch points, numbering
// the epochs over the whole run.
func historyPoints(h []trainer.Event) []plot.Point {
	var pts []plot.Point
	for _, ev := range h {
		if ev.Stage != "adam" && ev.Stage != "bptt" {
			continue
		}
		pts = append(pts, plot.Point{Step: len(pts) + 1, Stage: ev.Stage, Loss: ev.Loss, ValFit: ev.ValFit})
	}
	return pts
}

// trainingPlots writes the figures of a training run into dir: training.*,
// re_g.* and fit.* (first three validation batches, or training batches
// when there is no validation set).
func trainingPlots(dir string, res *trainer.Result, val, train *data.Dataset) error {
	if err := makePlotDir(dir); err != nil {
		return err
	}
	if pts := historyPoints(res.History); len(pts) > 0 {
		if err := plot.TrainingCurves(filepath.Join(dir, "training"), pts); err != nil {
			return failf("%v", err)
		}
	}
	if err := realPartPlot(filepath.Join(dir, "re_g"), res.Model); err != nil {
		return err
	}
	d := val
	if d == nil {
		d = train
	}
	return responsePlot(filepath.Join(dir, "fit"), res.Model, d, 3)
}
