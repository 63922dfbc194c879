package searchdir

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/passivenfir/gputrain/classes"
	"github.com/passivenfir/gputrain/classes/loopclass"
	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/loop"
	"github.com/passivenfir/gputrain/model"
	"github.com/passivenfir/gputrain/search"
	"github.com/passivenfir/gputrain/sweep"
)

// FIRFile is the passive linear FIR that the loop trials start from (train
// --loop-init), in LoopsDir: no train flag passes taps, so the search
// writes them once.
const FIRFile = "fir.json"

// LoopsDir is the folder of the loop family's trials in dir.
func LoopsDir(dir string) string { return filepath.Join(dir, "loops") }

// LoopPlan is the sweep plan of the loop family: one trial per run, train
// --model loop of the run's shape (--loop-shape) from its seed, started
// from FIRFile, with the run's --workers (a loop's result depends on
// them: its gradient is split over the workers).
func (t *Trainer) LoopPlan(loops search.Loops) (*sweep.Plan, error) {
	if loops.Linear == nil {
		return nil, errors.New("searchdir: the loops need the linear FIR they start from")
	}
	L := loops.Linear.LinearTaps
	p := &sweep.Plan{}
	for i, cfg := range loops.Configs {
		set, err := loopFlags(cfg, L, loops.Linear.Lin)
		if err != nil {
			return nil, fmt.Errorf("searchdir: %s: %w", loops.Names[i], err)
		}
		p.Trials = append(p.Trials, sweep.Trial{Index: i, Plant: Plant, Name: loops.Names[i], Model: "loop", Settings: set, Ts: t.ts,
			Data: filepath.Join("..", t.trainFile), Val: filepath.Join("..", t.valFile), Files: map[string]string{"loop-init": FIRFile},
			Dir: fmt.Sprintf("trial-%04d", i)})
	}
	return p, nil
}

// loopFlags are cfg's settings as train flags of class loop, refused when
// train --model loop would not train cfg exactly: a setting no flag passes,
// another shape, or other initial taps than the FIR's.
func loopFlags(cfg loop.Config, L int, fir []float64) (map[string]any, error) {
	shape, ok := loopclass.ShapeOf(cfg.Structure, L)
	if !ok {
		return nil, fmt.Errorf("the structure %+v is no shape of --loop-shape for a memory of %d taps", cfg.Structure, L)
	}
	// train --model loop starts from the FIR where the lengths agree.
	if starts := len(fir) == cfg.Structure.L1; starts != (cfg.InitLinear != nil) || (starts && &cfg.InitLinear[0] != &fir[0]) {
		return nil, errors.New("its initial taps are not the linear FIR's")
	}
	d := loop.DefaultConfig()
	for _, f := range []struct {
		name      string
		got, want float64
	}{
		{"patience", float64(cfg.Patience), float64(d.Patience)}, {"batch", float64(cfg.Batch), float64(d.Batch)},
		{"learning rate", cfg.LR, d.LR}, {"learning-rate decay", cfg.LRDecay, d.LRDecay}, {"clip", cfg.Clip, d.Clip}, {"window", float64(cfg.Window), float64(d.Window)},
		{"burn-in", float64(cfg.BurnIn), float64(d.BurnIn)}, {"sample bound", float64(cfg.MaxSamples), float64(d.MaxSamples)},
	} {
		if f.got != f.want {
			return nil, fmt.Errorf("its %s %v is not train --model loop's %v, and no flag passes it", f.name, f.got, f.want)
		}
	}
	if cfg.Workers < 1 {
		return nil, fmt.Errorf("%d workers: the loop trials need the search's count (their result depends on it)", cfg.Workers)
	}
	set := map[string]any{
		"model": "loop", "loop-shape": shape.String(), "loop-epochs": cfg.Epochs,
		"seed": json.Number(strconv.FormatUint(cfg.Seed, 10)), "workers": cfg.Workers, "val-skip": cfg.ValSkip,
	}
	if cfg.Skip > 0 {
		set["loop-skip"] = cfg.Skip
	}
	if cfg.Basis > 0 {
		set["loop-basis"] = cfg.Basis
	}
	return set, nil
}

// TrainLoops implements search.LoopTrainer: it writes the linear FIR and
// the loops' plan in LoopsDir (or checks those there), runs the pending
// trials here, Local/workers at a time, or waits for them, and hands every
// finished trial's loop to done.
func (t *Trainer) TrainLoops(ctx context.Context, loops search.Loops, _, val *data.Dataset, done func(int, search.TrainedLoop)) error {
	if len(loops.Configs) == 0 {
		return nil
	}
	dir := LoopsDir(t.Dir)
	plan, err := t.LoopPlan(loops)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("searchdir: %w", err)
	}
	var fir bytes.Buffer
	if err := model.Encode(&fir, loops.Linear, model.Meta{Ts: t.ts}); err != nil {
		return fmt.Errorf("searchdir: the linear FIR: %w", err)
	}
	if err := keepFile(filepath.Join(dir, FIRFile), fir.Bytes()); err != nil {
		return err
	}
	var b bytes.Buffer
	if err := plan.Encode(&b); err != nil {
		return fmt.Errorf("searchdir: %w", err)
	}
	planPath := filepath.Join(dir, sweep.PlanFile)
	workers := loops.Configs[0].Workers
	if err := keepFile(planPath, b.Bytes()); err != nil {
		return fmt.Errorf("%w (a loop's result depends on its workers: these train with --workers %d)", err, workers)
	}
	if plan, err = sweep.ReadPlan(planPath); err != nil {
		return err
	}
	// A loop trains for minutes: a line as each finishes.
	r := &sweep.Runner{Plan: plan, Dir: dir, Train: t.Train, Log: t.Log}
	pending := r.Pending(sweep.Shard{})
	t.logf("loops: %d trials in %s, %d finished before", len(plan.Trials), planPath, len(plan.Trials)-len(pending))
	// Each trial splits its gradients over its workers: no more trials at
	// a time than the workers allow.
	codes, err := t.runPending(ctx, r, planPath, t.Local/workers)
	if err != nil {
		return err
	}
	for i := range plan.Trials {
		trialDir, finished, err := outcome(ctx, r, i, codes)
		switch {
		case finished:
			res, secs, err := ReadLoop(trialDir, val, loops.Configs[i].ValSkip)
			done(i, search.TrainedLoop{Result: res, Err: err, Seconds: secs})
		case err != nil:
			done(i, search.TrainedLoop{Err: err})
		}
	}
	return ctx.Err()
}

// ReadLoop returns the loop a finished loop trial trained, from its
// folder: the loop from model.json (class loop), the epochs it ran and the
// training time from metrics.json, and its validation Fit scored again on
// val as loop.Train scores it (the median closed-loop Fit from sample skip).
func ReadLoop(trialDir string, val *data.Dataset, skip int) (*loop.Result, float64, error) {
	raw, err := os.ReadFile(filepath.Join(trialDir, sweep.MetricsFile))
	if err != nil {
		return nil, 0, fmt.Errorf("searchdir: %w", err)
	}
	var m struct {
		Seconds float64 `json:"seconds"`
		Epochs  int     `json:"epochs"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, 0, fmt.Errorf("searchdir: %s: %w", filepath.Join(trialDir, sweep.MetricsFile), err)
	}
	if m.Epochs < 1 {
		return nil, m.Seconds, fmt.Errorf("searchdir: %s: no epochs: not one loop's trial (train --model loop --loop-shape)", filepath.Join(trialDir, sweep.MetricsFile))
	}
	path := filepath.Join(trialDir, sweep.ModelFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, m.Seconds, fmt.Errorf("searchdir: %w", err)
	}
	class, params, _, err := classes.DecodeEnvelope(b)
	if err == nil && class != loopclass.Class.Name() {
		err = fmt.Errorf("class %q, want %q", class, loopclass.Class.Name())
	}
	var cm classes.Model
	if err == nil {
		cm, err = loopclass.Class.DecodeParams(params)
	}
	if err != nil {
		return nil, m.Seconds, fmt.Errorf("searchdir: %s: %w", path, err)
	}
	lm, ok := cm.(*loopclass.Model)
	if !ok || len(lm.Mean) != 1 || lm.Mean[0].Count != 1 {
		return nil, m.Seconds, fmt.Errorf("searchdir: %s: not one loop", path)
	}
	fit, err := lm.Mean.ValFit(val, skip)
	if err != nil {
		return nil, m.Seconds, fmt.Errorf("searchdir: %s: %w", path, err)
	}
	return &loop.Result{Model: lm.Mean[0].Model, ValFit: fit, Epochs: m.Epochs}, m.Seconds, nil
}

var _ search.LoopTrainer = (*Trainer)(nil)
