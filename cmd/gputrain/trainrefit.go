package main

// The refit after a structure search chose on data held out of --data:
// the chosen model continues on all of it (package refit).

import (
	"context"
	"fmt"
	"time"

	"github.com/passivenfir/gputrain/baselines"
	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/refit"
	"github.com/passivenfir/gputrain/search"
	"github.com/passivenfir/gputrain/trainer"
)

// refitAbout is the help of train --refit.
var refitAbout = fmt.Sprintf("when the structure search chooses on a part held out of --data (no --val), continue training the chosen model on all of --data afterwards, from where it is, for %.0f%% of its family's schedule, within %.1f%% of --time-limit (which the search then leaves to it), and keep the result only where its closed-loop fit on all of --data does not fall (no refit where the held-out tails repeat the training inputs, as those of a record whose input repeats too often to split it by phase do: they hold nothing new to learn); the validation fit reported stays the chosen model's, from before the refit (false: keep the chosen model as validated)", 100*refit.DefaultShare, 100*refit.TimeShare)

// planRefit sets the search up for a refit on all: the search's time limit
// gives up refit.TimeShare of itself to it, and the plan is told.
func (sj *searchJob) planRefit(all *data.Dataset, prog *progress) {
	sj.refitAll = all
	what := "after the search the chosen model continues training on all of --data (--refit; false: no refit)"
	if lim := sj.opt.TimeLimit; lim > 0 {
		sj.refitTime = time.Duration(float64(lim) * refit.TimeShare)
		sj.opt.TimeLimit = lim - sj.refitTime
		what += fmt.Sprintf(" for at most %v, which --time-limit sets aside: the search itself has %v", sj.refitTime.Round(time.Second), sj.opt.TimeLimit.Round(time.Second))
	}
	prog.note("note: %s", what)
}

// refitChosen continues the model the search chose on sj.refitAll and
// puts the result in sr where refit.Keep keeps it; sj.refitted records
// what happened. A refit that fails or is interrupted leaves sr as it was.
func (job *trainJob) refitChosen(ctx context.Context, sr *search.Result) {
	sj := job.search
	all := sj.refitAll
	o := refit.Options{Workers: job.cfg.Workers, Skip: job.cfg.Skip}
	if sj.refitTime > 0 {
		o.Deadline = time.Now().Add(sj.refitTime)
	}
	start := time.Now()
	var oc refit.Outcome
	err := func() error {
		// each family: its refit, the two models' simulations, and how
		// the refit takes the chosen model's place
		var before, after func(u []float64) []float64
		var replace func()
		var ren baselines.RENConfig // the search's RENs' configuration, their memory included
		if sj.opt.REN != nil {
			ren = *sj.opt.REN
			if ren.Memory == 0 {
				ren.Memory = sr.Memory
			}
		}
		switch {
		case sr.MeanChosen:
			// each member continues at the memory it trained with
			m, err := refit.RENs(ctx, sr.Mean, func(m *baselines.PassiveREN) baselines.RENConfig {
				c := ren
				c.Memory = sr.RENMemory(m)
				return c
			}, all, o)
			if err != nil {
				return err
			}
			before, after, replace = sr.Mean.Simulate, m.Simulate, func() { sr.Mean = m }
		case sr.RENChosen:
			ren.Memory = sr.RENMemory(sr.REN)
			m, err := refit.REN(ctx, sr.REN, ren, all, o)
			if err != nil {
				return err
			}
			before, after, replace = sr.REN.Simulate, m.Simulate, func() { sr.REN = m }
		case sr.LoopChosen:
			m, err := refit.Loops(ctx, sr.LoopModel, *sj.opt.Loop, all, o)
			if err != nil {
				return err
			}
			before, after, replace = sr.LoopModel.Simulate, m.Simulate, func() { sr.LoopModel = m }
		default:
			r, err := refit.NFIR(ctx, sr.Result.Model, sr.Config, all, o)
			if err != nil {
				return err
			}
			before, after = nfirSim(sr.Result), nfirSim(r)
			replace = func() { sr.Result.Model, sr.Result.Cert = r.Model, r.Cert }
		}
		var err error
		if oc, err = refit.Keep(all, o.Skip, before, after); err == nil && oc.Kept {
			replace()
		}
		return err
	}()
	seconds := time.Since(start).Seconds()
	sj.refitted = map[string]any{"share": refit.DefaultShare, "seconds": seconds}
	if sj.refitTime > 0 {
		sj.refitted["time_limit_s"] = sj.refitTime.Seconds()
	}
	if err != nil {
		sj.refitted["error"] = err.Error()
		what := fmt.Sprintf("failed (%v)", err)
		if ctx.Err() != nil {
			what = "was interrupted"
		}
		job.prog.note("note: the refit on all of --data %s: the chosen model is kept as validated", what)
		return
	}
	sj.refitted["fit_before"], sj.refitted["fit_after"], sj.refitted["kept"] = jsonFloat(oc.Before), jsonFloat(oc.After), oc.Kept
	job.prog.note("refit on all of --data in %.1fs: %s", seconds, oc)
}

// nfirSim is r's model's closed-loop simulation.
func nfirSim(r *trainer.Result) func(u []float64) []float64 {
	return func(u []float64) []float64 {
		y, _ := r.Model.Simulate(u)
		return y
	}
}
