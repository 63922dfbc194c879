package main

// The structure search within gputrain train (package search): running it,
// recording it in the model file and saving a loop it chose.

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"time"

	"github.com/passivenfir/gputrain/classes"
	"github.com/passivenfir/gputrain/classes/baseline"
	"github.com/passivenfir/gputrain/classes/loopclass"
	"github.com/passivenfir/gputrain/classes/meanclass"
	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/model"
	"github.com/passivenfir/gputrain/resample"
	"github.com/passivenfir/gputrain/search"
	"github.com/passivenfir/gputrain/trainer"
)

// searchJob is a structure search within a training run.
type searchJob struct {
	fixed search.Fixed
	opt   search.Options
	extra map[string]any // settings' extra keys (data paths, columns)
	res   *search.Result // after the run
	// refitAll, when set, is all of --data, which the chosen model
	// continues on once the search has chosen on the held-out part
	// (package refit), for at most refitTime (0: no bound); refitted is
	// its record in the model file.
	refitAll  *data.Dataset
	refitTime time.Duration
	refitted  map[string]any
}

// fit runs the search, or trains cfg when there is none.
func (job *trainJob) fit(ctx context.Context, cfg trainer.Config) (*trainer.Result, trainer.Config, error) {
	if job.search == nil {
		res, err := trainer.Train(ctx, cfg, job.train, job.val)
		return res, cfg, err
	}
	sj := job.search
	opt := sj.opt
	if p := job.prog; p != nil {
		opt.Progress = func(ev search.Event) {
			p.note("%s", ev)
			if ev.Stage == "memory" {
				p.note("note: %s", memoryNote(ev.LinearTaps, job.train))
			}
		}
	}
	opt.Progress = job.log.wrapSearch(opt.Progress)
	sr, err := search.Select(ctx, cfg, sj.fixed, opt, job.train, job.val)
	if sr == nil || sr.Result == nil {
		return nil, cfg, err
	}
	sj.res = sr
	if n := timeCutNote(sr); n != "" && job.prog != nil {
		job.prog.note("note: %s", n)
	}
	if sj.refitAll != nil && err == nil {
		job.refitChosen(ctx, sr)
	}
	chosen := sr.Config
	chosen.Progress = nil
	extra := maps.Clone(sj.extra)
	extra[searchKey] = sj.summary()
	job.settings = settings(chosen, extra)
	if sr.MeanChosen {
		// No class trains a mean: the training object stays the search's
		// settings, which train again with no structure flag.
		job.settings = settings(cfg, extra)
	} else if sr.RENChosen {
		// The REN's settings as train --model ren takes them.
		delete(extra, "decay")
		renSettings(extra, sr, chosen)
		job.settings, _ = json.Marshal(extra)
	} else if sr.LoopChosen {
		// The loop's settings as train --model loop takes them, so that the
		// training object stays a --config that trains the same loop.
		delete(extra, "decay")
		extra["model"], extra["loop-memory"] = "loop", sr.Loop.Model.L1
		extra["seed"], extra["workers"], extra["val-skip"] = chosen.Seed, chosen.Workers, chosen.ValSkip
		job.settings, _ = json.Marshal(extra)
	}
	return sr.Result, chosen, err
}

// renSettings sets in extra the chosen REN's settings as train --model ren
// takes them, the memory its start and schedule used included, as its row
// records it (the search measures it as class ren does, but on its own
// FIR grid, or for its long-memory REN from the records' length).
func renSettings(extra map[string]any, sr *search.Result, chosen trainer.Config) {
	extra["model"], extra["ren-states"], extra["ren-neurons"] = "ren", sr.REN.States, sr.REN.Neurons
	row := sr.Rows[renRowOf(sr)].REN
	extra["seed"], extra["workers"], extra["val-skip"] = row.Seed, chosen.Workers, chosen.ValSkip
	if row.Memory > 0 {
		extra["ren-memory"] = row.Memory
	}
	if sr.REN.Biased {
		extra["ren-biased"] = true
	}
	if sr.REN.Gated {
		extra["ren-gated"] = true
	}
}

// renRowOf is the row of the chosen REN.
func renRowOf(sr *search.Result) int {
	for i, r := range sr.Rows {
		if r.REN != nil && r.Chosen {
			return i
		}
	}
	return 0
}

// saveLoop writes the loop, the passive REN or the mean of several the
// search chose: a gputrain-model file of class loop, ren or mean
// (docs/MODEL_FORMAT.md), whose
// training object records the search as an NFIR's does. out.res then
// carries the model's validation Fit and certificate verdict; out.loop the
// certificate's words.
func saveLoop(job *trainJob, sr *search.Result, out trainOutcome) (trainOutcome, error) {
	var m classes.Model = &loopclass.Model{Mean: sr.LoopModel}
	fit, what := sr.LoopFit, "loop"
	switch {
	case sr.RENChosen:
		m, fit, what = baseline.NewREN(sr.REN), sr.RENFit, "REN"
	case sr.MeanChosen:
		mm, err := meanclass.FromEnsemble(sr.Mean)
		if err != nil {
			return out, failf("internal error: the mean of the RENs: %v; nothing written", err)
		}
		m, fit, what = mm, sr.MeanFit, "mean"
	}
	cert, err := m.Certify()
	if err != nil {
		return out, failf("certifying the %s: %v; nothing written", what, err)
	}
	if !cert.Passive {
		// Loops and RENs are passive for every parameter value (loop.Taps,
		// the REN's direct parameterization); reaching this line is a
		// bug, and a non-passive model must not leave.
		return out, failf("internal error: the %s fails its certificate (%s); nothing written", what, cert.Reason)
	}
	var ts float64
	if job.train != nil {
		ts = job.train.Ts
	}
	meta := classes.Meta{Ts: ts, Training: withProvenance(job.settings, job.env)}
	if job.dest == nil {
		job.dest = &outFile{flag: "out", path: job.out, force: true}
	}
	if err := job.dest.write(func(p string) error { return classes.Save(p, m, meta) }); err != nil {
		return out, failf("%v; nothing written", err)
	}
	out.saved, out.loop, out.class = true, cert.Reason, m.Class()
	out.res = &trainer.Result{BestValFit: fit, Cert: model.Certificate{Passive: true}}
	if out.interrupted {
		return out, failf("interrupted: saved the best model so far%s to %s", valFitText(fit), job.dest.where())
	}
	if job.plotDir != "" {
		// The loop's output is its figure (fit.*), as for train --model
		// loop; the NFIR's training curves and Re G are not the loop's.
		d := job.val
		if d == nil {
			d = job.train
		}
		if err := classResponsePlot(filepath.Join(job.plotDir, "fit"), m, d, 3, job.cfg.ValSkip); err != nil {
			return out, err
		}
	}
	return out, nil
}

// searchKey is the training object's record of the structure search: the
// chosen candidate and the table of all (docs/MODEL_FORMAT.md). --config
// skips it, so that the training object stays a valid config file.
const searchKey = "structure_search"

// summary is the search's record: the chosen candidate, the table of all
// and the refit that followed, if any.
func (sj *searchJob) summary() map[string]any {
	sr := sj.res
	out := map[string]any{
		"chosen": sr.Chosen, "rungs": sr.Rungs, "val_fit": jsonFloat(sr.ValFit()),
		"linear_taps": sr.LinearTaps, "linear_val_fit": jsonFloat(sr.LinearFit),
		"candidates": sr.Rows,
	}
	if sr.TimeLimit > 0 {
		out["time_limit_s"], out["time_cut"] = sr.TimeLimit.Seconds(), sr.TimeCut
	}
	if m := sr.Margin; m.Blocks > 0 {
		out["linear_margin"] = map[string]any{"gain": jsonFloat(m.Gain), "se": jsonFloat(m.SE), "blocks": m.Blocks, "clear": m.Clear(), "cross_fitted": m.CrossFit}
	}
	if sj.refitted != nil {
		out["refit"] = sj.refitted
	}
	return out
}

// timeCutNote says what the time limit cut from the search, and how to give
// it more time; "" when it cut nothing.
func timeCutNote(sr *search.Result) string {
	if !sr.TimeCut {
		return ""
	}
	var cut, left, unfinished int
	for _, r := range sr.Rows {
		switch {
		case r.Cut && r.Loop != nil:
			cut++
		case r.Cut:
			unfinished++
		case r.Error == search.ErrTimeLimit.Error():
			left++
		}
	}
	return fmt.Sprintf("the time limit (--time-limit %v) cut the search short: %s unfinished, %s trained shorter than planned, %d not started; a longer --time-limit (0: none) may find a better model", sr.TimeLimit, count(unfinished, "NFIR candidate"), count(cut, "loop"), left)
}

// memoryNote says, for the search's "memory" event (the passive FIR still
// gaining at taps, the longest length the search tries), that the data may
// be sampled faster than the plant needs, and what resampling them would
// keep (resample.Suggest on the training data).
func memoryNote(taps int, train *data.Dataset) string {
	span := fmt.Sprintf("%d samples", taps)
	if train.Ts > 0 {
		span += fmt.Sprintf(", %.3g s", float64(taps)*train.Ts)
	}
	note := fmt.Sprintf("the passive FIR validated best at %d taps, the longest the search tries (%s), above every shorter one: the plant's response outlasts it, which no FIR of the search holds and the recurrent models learn slowly at this rate, so the data may be sampled faster than the plant needs", taps, span)
	factor, band := resample.Suggest(train)
	if factor < 2 {
		return note + fmt.Sprintf("; but 99.9 %% of the power of u and y spreads up to %.3g of the sampling frequency, so resampling would cut into it", band)
	}
	ts := "--ts multiplied by it"
	if train.Ts > 0 {
		ts = fmt.Sprintf("--ts %g", train.Ts*float64(factor))
	}
	return note + fmt.Sprintf("; 99.9 %% of the power of u and y lies below %.3g of the sampling frequency, so 'gputrain resample --factor %d' on the training, validation and test files, then train with %s, may give a better model (Ctrl-C keeps the best model so far)", band, factor, ts)
}

// count is "1 loop", "3 loops".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
