package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/passivenfir/gputrain/classes"
	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/trainer"
)

// defaultModel is the class train fits with no --model: the NFIR of
// Algorithm 1, trained by the flags of addHyperFlags.
const defaultModel = "nfir"

// classFlags are the settings of the classes (classes.Flagged), registered
// on train's flag set.
type classFlags struct {
	owner     map[string]string               // flag name → class name
	configure map[string]func() classes.Class // class name → the class with its parsed settings
}

func addClassFlags(fs *flag.FlagSet) *classFlags {
	cf := &classFlags{owner: map[string]string{}, configure: map[string]func() classes.Class{}}
	for _, c := range classes.All() {
		f, ok := c.(classes.Flagged)
		if !ok {
			continue
		}
		before := map[string]bool{}
		fs.VisitAll(func(fl *flag.Flag) { before[fl.Name] = true })
		cf.configure[c.Name()] = f.AddFlags(fs)
		fs.VisitAll(func(fl *flag.Flag) {
			if !before[fl.Name] {
				cf.owner[fl.Name] = c.Name()
			}
		})
	}
	return cf
}

// check refuses the flags of other classes than name given on the command
// line: they would have no effect.
func (cf *classFlags) check(name string, cmdline map[string]bool) error {
	for _, f := range slices.Sorted(mapKeys(cmdline)) {
		if o, ok := cf.owner[f]; ok && o != name {
			return usagef("--%s has no effect with --model %s (it sets --model %s); leave it out", f, name, o)
		}
	}
	return nil
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// class returns the class name with the settings parsed from its flags.
func (cf *classFlags) class(name string) (classes.Class, error) {
	if f, ok := cf.configure[name]; ok {
		return f(), nil
	}
	return classes.Lookup(name)
}

// settings returns the values of the class's own flags by name.
func (cf *classFlags) settings(fs *flag.FlagSet, name string) map[string]any {
	m := map[string]any{}
	for f, o := range cf.owner {
		if o == name {
			m[f] = fs.Lookup(f).Value.String()
		}
	}
	return m
}

// sharedFlags are the flags of addHyperFlags that every class takes.
var sharedFlags = []string{"seed", "workers", "val-skip"}

// classLead is the lead-in of a validation tail cut from a training record
// (train with few records and no --val) for a class other than the NFIR,
// whose memory the lead-in is otherwise.
const classLead = 50

// classTrain is train --model NAME for a class other than the default: the
// flags of the NFIR's training (addHyperFlags) other than sharedFlags are
// refused, the data are split as for the NFIR, and the model is written
// through the registry.
type classTrain struct {
	name                            string
	fs                              *flag.FlagSet
	h                               *hyper
	cf                              *classFlags
	dataPath, valPath, out, plotDir string
	config                          string
	cols                            *columns
	ts                              float64
	quiet, jsonOut                  bool
	force                           bool           // --force: replace an existing --out, keeping it as .bak
	budget                          classes.Budget // --class-budget
}

func (j *classTrain) run(e *env) error {
	hyper := flag.NewFlagSet("", flag.ContinueOnError)
	addHyperFlags(hyper)
	for _, f := range slices.Sorted(mapKeys(j.h.cmdline)) {
		if hyper.Lookup(f) == nil || slices.Contains(sharedFlags, f) {
			continue
		}
		return usagef("--%s has no effect with --model %s (it sets the training of --model nfir); leave it out", f, j.name)
	}
	cls, err := j.cf.class(j.name)
	if err != nil {
		return usagef("--model: %v", err)
	}
	cfg := j.h.cfg
	switch {
	case cfg.Workers < 0:
		return usagef("--workers %d: must be ≥ 0", cfg.Workers)
	case cfg.ValSkip < 0:
		return usagef("--val-skip %d: must be ≥ 0", cfg.ValSkip)
	case !finite(j.ts) || j.ts < 0:
		return usagef("--ts %v: must be a finite number ≥ 0", j.ts)
	}
	dest, err := newOutFile("out", j.out, j.force, map[string]string{"data": j.dataPath, "val": j.valPath, "config": j.config})
	if err != nil {
		return err
	}
	if j.plotDir != "" {
		if err := checkOutDir("plot", j.plotDir); err != nil {
			return err
		}
	}
	opt := j.cols.options(j.ts)
	trainSet, err := readData(e.ctx, "data", j.dataPath, opt, 1)
	if err != nil {
		return err
	}
	if zeroInput(trainSet) {
		return usagef("--data %s: the input %q is zero in every sample; nothing can be identified from it", j.dataPath, j.cols.u)
	}
	if z := zeroScored(trainSet, 0); len(z) == trainSet.Len() {
		return usagef("--data %s: the output %q is zero in every sample; nothing can be identified from it", j.dataPath, j.cols.y)
	}
	say := func(format string, a ...any) {
		if !j.quiet {
			fmt.Fprintf(e.stderr, format+"\n", a...)
		}
	}
	check, dataNotes := checkData(e.ctx, trainSet, cfg)
	if n := timeColNote(trainSet); n != "" {
		say("%s", n)
	}
	for _, n := range dataNotes {
		say("note: %s", n)
	}
	var valSet *data.Dataset
	valSkip := cfg.ValSkip
	if j.valPath != "" {
		// a time column in --data sets the rate the validation file's must have
		opt.Ts = cmp.Or(opt.Ts, trainSet.Ts)
		if valSet, err = readData(e.ctx, "val", j.valPath, opt, valSkip+1); err != nil {
			return err
		}
		if n := sharedInputNote("val", trainSet, valSet); n != "" {
			say("%s", n)
		}
	} else {
		n := trainSet.Len()
		held, heldVal, notes := holdOutGroups(trainSet, cfg.Seed)
		for _, s := range notes {
			say("%s", s)
		}
		if heldVal != nil {
			trainSet, valSet = held, heldVal
		} else if tr, va, err := data.HoldOutTails(trainSet, data.TailFraction, classLead); err == nil {
			say("note: %d batch(es) and no --val: validating on the last %.0f%% of each batch, scored after a lead-in of %d samples, training on the rest; give --val FILE to use your own", n, 100*data.TailFraction, classLead)
			for _, s := range repeatNotes(trainSet, data.TailFraction, classLead) {
				say("%s", s)
			}
			trainSet, valSet, valSkip = tr, va, max(valSkip, classLead)
		} else {
			say("note: %d batch(es) and no --val, too short to hold out: training without validation data; give --val FILE", n)
		}
	}
	if j.plotDir != "" {
		if err := makePlotDir(j.plotDir); err != nil {
			return err
		}
	}
	fo := classes.FitOptions{Seed: cfg.Seed, Workers: cfg.Workers, ValSkip: valSkip, Budget: j.budget}
	if !j.quiet {
		fo.Progress = func(l string) { fmt.Fprintln(e.stderr, l) }
	}
	say("training %s: %s", j.name, cls.About())
	start := time.Now()
	m, fitErr := cls.Fit(e.ctx, trainSet, valSet, fo)
	seconds := time.Since(start).Seconds()
	interrupted := fitErr != nil && errors.Is(fitErr, context.Canceled)
	if errors.Is(fitErr, classes.ErrSettings) {
		return usagef("--model %s: %s", j.name, strings.TrimPrefix(fitErr.Error(), classes.ErrSettings.Error()+": "))
	}
	var panicked *trainer.PanicError
	if fitErr != nil && !interrupted && errors.As(fitErr, &panicked) {
		return failf("training %s failed: %v", j.name, fitErr)
	}
	if fitErr != nil && !interrupted {
		// A class's fit reads nothing but its settings and the data, so it
		// fails again on the same input: bad input, which a sweep records
		// as failed instead of retrying it (compare says why in its row).
		if valSet == nil && j.valPath == "" {
			// the notes that said so may have been --quiet
			fitErr = fmt.Errorf("%w (no validation data: --data %s is too short to hold out a part of it; give --val FILE)", fitErr, j.dataPath)
		}
		return badInput(fmt.Errorf("training %s failed: %w", j.name, fitErr))
	}
	if m == nil {
		return failf("interrupted before a model was trained; nothing written")
	}
	extra := j.cf.settings(j.fs, j.name)
	extra["model"], extra["data"], extra["u"], extra["y"] = j.name, j.dataPath, j.cols.u, j.cols.y
	extra["seed"], extra["workers"], extra["val-skip"] = cfg.Seed, cfg.Workers, cfg.ValSkip
	if isSet(j.fs, "class-budget") {
		extra["class-budget"] = j.budget.String()
	}
	if j.valPath != "" {
		extra["val"] = j.valPath
	}
	training, _ := json.Marshal(extra)
	meta := classes.Meta{Ts: j.ts, Training: withProvenance(training, e)}
	if meta.Ts == 0 {
		meta.Ts = trainSet.Ts
	}
	if err := dest.write(func(p string) error { return classes.Save(p, m, meta) }); err != nil {
		return failf("%v; nothing written", err)
	}
	valFit := math.NaN()
	if valSet != nil {
		if s, err := classes.Evaluate(m, valSet, valSkip, cfg.Workers); err == nil {
			valFit = s.Median
		}
	}
	cert, err := m.Certify()
	if err != nil {
		cert.Reason = "certificate failed: " + err.Error()
	}
	if j.plotDir != "" && !interrupted {
		d := valSet
		if d == nil {
			d = trainSet
		}
		if err := classResponsePlot(filepath.Join(j.plotDir, "fit"), m, d, 3, valSkip); err != nil {
			return err
		}
	}
	if j.jsonOut {
		r := map[string]any{
			"model": dest.target(), "class": j.name, "saved": true, "interrupted": interrupted, "seconds": seconds,
			"best_val_fit": jsonFloat(valFit), "passive": cert.Passive, "certificate": cert.Reason, "params": m.NumParams(),
			"train_batches": numBatches(trainSet), "val_batches": numBatches(valSet), "data_check": check, "notes": append([]string{}, dataNotes...),
		}
		if e, ok := m.(interface{ EpochsRun() int }); ok && e.EpochsRun() > 0 {
			r["epochs"] = e.EpochsRun() // one loop's (--loop-shape): the search's table lists them
		}
		if err := writeJSON(e.stdout, r); err != nil {
			return err
		}
	} else if !j.quiet {
		fmt.Fprintf(e.stdout, "trained %s (%d parameters) in %.1fs%s; certificate: %s\nmodel written to %s\n",
			j.name, m.NumParams(), seconds, valFitText(valFit), passiveText(cert), dest.where())
		if j.plotDir != "" {
			fmt.Fprintf(e.stdout, "plots written to %s\n", j.plotDir)
		}
	}
	if interrupted {
		return failf("interrupted: saved the best model so far%s to %s", valFitText(valFit), dest.where())
	}
	return nil
}

// passiveText is a class certificate in one line.
func passiveText(c classes.Certificate) string {
	if c.Passive {
		return "passive, " + c.Reason
	}
	return "NOT passive: " + strings.TrimSpace(c.Reason)
}
