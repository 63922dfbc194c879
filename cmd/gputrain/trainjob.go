package main

// The training job of gputrain train: one run of the trainer (or of a
// structure search), saved atomically with its provenance, and its plots.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/model"
	"github.com/passivenfir/gputrain/trainer"
)

// trainJob is one training run with its outputs.
type trainJob struct {
	cfg        trainer.Config
	train, val *data.Dataset
	out        string          // model file
	dest       *outFile        // how to write it (nil: replace out, keeping the old file as out.bak)
	plotDir    string          // "" for no plots
	settings   json.RawMessage // stored as the model's training object
	prog       *progress
	env        *env        // the command's, for the model file's provenance (set by runTraining)
	log        *metricsLog // --log (nil: none)
	// search, when set, chooses the structure (package search) instead of
	// training cfg's; settings are then made for the chosen one.
	search *searchJob
}

// trainOutcome is what a run produced.
type trainOutcome struct {
	res         *trainer.Result
	cfg         trainer.Config // what was trained: the chosen structure after a search
	loop        string         // the certificate of a loop or REN the search chose ("" otherwise)
	class       string         // its class, loop or ren
	seconds     float64
	saved       bool
	interrupted bool
}

// runTraining trains, saves the model atomically (also the best model so far
// when Ctrl-C cancels e.ctx) and writes the plots. An interrupted run is a
// failure (exit 1) even when its best model was saved.
func runTraining(e *env, job trainJob) (trainOutcome, error) {
	var out trainOutcome
	if job.dest == nil {
		job.dest = &outFile{flag: "out", path: job.out, force: true}
	}
	job.env = e
	cfg := job.cfg
	cfg.Progress = job.log.wrap(job.prog.callback())
	if job.search != nil {
		cfg.Progress = nil // the search reports per candidate
	}
	start := time.Now()
	res, cfg, err := job.fit(e.ctx, cfg)
	job.prog.finish()
	out.res, out.seconds, out.cfg = res, time.Since(start).Seconds(), cfg
	if errors.Is(err, trainer.ErrConfig) {
		// Settings that do not fit the data (e.g. --skip longer than a trajectory): bad usage.
		return out, usagef("%v", err)
	}
	if err != nil && !errors.Is(err, context.Canceled) && e.ctx.Err() == nil {
		if pe := (*trainer.PanicError)(nil); errors.As(err, &pe) {
			return out, fmt.Errorf("training failed: %w", err) // a bug: report gives it exit 3
		}
		return out, failf("training failed: %v", err)
	}
	out.interrupted = err != nil || e.ctx.Err() != nil
	if sj := job.search; sj != nil && sj.res != nil && (sj.res.LoopChosen || sj.res.RENChosen || sj.res.MeanChosen) {
		return saveLoop(&job, sj.res, out)
	}
	if res == nil || res.Model == nil {
		if out.interrupted {
			return out, failf("interrupted before a model was trained; nothing written")
		}
		return out, failf("the trainer returned no model; nothing written")
	}
	meta := res.Meta
	meta.Training = withProvenance(job.settings, e)
	if meta.Mode == "" {
		meta.Mode = string(cfg.Passivity)
	}
	if meta.Ts == 0 && job.train != nil {
		meta.Ts = job.train.Ts
	}
	if err := job.dest.write(func(p string) error { return model.Save(p, res.Model, meta) }); err != nil {
		return out, failf("%v; nothing written", err)
	}
	out.saved = true
	if out.interrupted {
		return out, failf("interrupted: saved the best model so far%s to %s", valFitText(res.BestValFit), job.dest.where())
	}
	if job.plotDir != "" {
		if err := trainingPlots(job.plotDir, res, cfg, job.val, job.train); err != nil {
			return out, err
		}
	}
	return out, nil
}

func valFitText(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) || f == 0 {
		return ""
	}
	return fmt.Sprintf(" (validation fit %.2f%%)", f)
}

// jsonFloat turns NaN and ±Inf (not representable in JSON) into null.
func jsonFloat(f float64) *float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	return &f
}
