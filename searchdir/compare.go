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
	"strings"
	"time"

	"github.com/passivenfir/gputrain/classes"
	"github.com/passivenfir/gputrain/compare"
	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/sweep"
)

// ComparePlant is the plant name of compare's trials: sweep collect ranks
// the classes together.
const ComparePlant = "compare"

// CompareDir is the folder of compare's trials in dir.
func CompareDir(dir string) string { return filepath.Join(dir, "compare") }

// ComparePlan is the sweep plan of a comparison of the classes cs: one
// trial per class, train --model CLASS --class-budget B with the seed,
// workers and validation skip of fo, the settings compare gives every
// class, so that the trial trains the model compare trains in one process.
func (t *Trainer) ComparePlan(cs []classes.Class, fo classes.FitOptions) *sweep.Plan {
	p := &sweep.Plan{}
	for i, c := range cs {
		set := map[string]any{
			"model": c.Name(), "class-budget": fo.Budget.String(), "seed": json.Number(strconv.FormatUint(fo.Seed, 10)),
			"workers": fo.Workers, "val-skip": fo.ValSkip,
		}
		tr := sweep.Trial{Index: i, Plant: ComparePlant, Name: c.Name(), Model: c.Name(), Settings: set, Ts: t.ts,
			Data: filepath.Join("..", t.trainFile), Val: filepath.Join("..", t.valFile), Dir: fmt.Sprintf("trial-%04d", i)}
		if t.testFile != "" {
			tr.Test = filepath.Join("..", t.testFile)
		}
		p.Trials = append(p.Trials, tr)
	}
	return p
}

// Compare is compare.Run with every class trained as a trial of the plan
// CompareDir(t.Dir)/plan.json: the pending trials run here, Local/workers
// at a time (workers: each class's share, as compare gives it), or in Wait
// mode on other machines; then each class's model is read back and scored
// on val and test as compare scores it, in the same table. A class whose
// trial failed gets a row with the last line of its log. The test data, if
// any, are written to the folder too, for sweep collect; the trials never
// see them. When ctx is cancelled, the rows of the classes that finished
// are read all the same and the others say so, with ctx's error.
func (t *Trainer) Compare(ctx context.Context, train, val, test *data.Dataset, opt compare.Options) (compare.Table, error) {
	start := time.Now()
	cs, fo, err := opt.Classes()
	if err != nil {
		return compare.Table{}, err
	}
	if test != nil && test.Len() > 0 {
		if t.testFile, err = keep(t.Dir, "test", test); err != nil {
			return compare.Table{}, err
		}
	}
	dir := CompareDir(t.Dir)
	plan := t.ComparePlan(cs, fo)
	var b bytes.Buffer
	if err := plan.Encode(&b); err != nil {
		return compare.Table{}, fmt.Errorf("searchdir: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return compare.Table{}, fmt.Errorf("searchdir: %w", err)
	}
	planPath := filepath.Join(dir, sweep.PlanFile)
	if err := keepFile(planPath, b.Bytes()); err != nil {
		return compare.Table{}, err
	}
	if plan, err = sweep.ReadPlan(planPath); err != nil {
		return compare.Table{}, err
	}
	r := &sweep.Runner{Plan: plan, Dir: dir, Train: t.Train, Log: t.Log}
	pending := r.Pending(sweep.Shard{})
	t.logf("compare: %d trials in %s, %d finished before", len(plan.Trials), planPath, len(plan.Trials)-len(pending))
	// A trial that did not finish gets a row saying so; an error is ctx's,
	// and the finished trials' rows are read below all the same.
	codes, _ := t.runPending(ctx, r, planPath, t.Local/fo.Workers)
	byName := map[string]int{}
	for i, tr := range plan.Trials {
		byName[tr.Name] = i
	}
	opt.Progress = nil // the runner's log said what ran
	opt.Fit = func(_ context.Context, c classes.Class, _, _ *data.Dataset, _ classes.FitOptions) (classes.Model, float64, error) {
		return readClass(ctx, r, byName[c.Name()], codes)
	}
	// Reading and scoring the finished trials takes moments: they are
	// read even after an interruption.
	tab, err := compare.Run(context.WithoutCancel(ctx), train, val, test, opt)
	tab.Seconds = time.Since(start).Seconds()
	if err == nil {
		err = ctx.Err()
	}
	return tab, err
}

// readClass returns the model of compare's trial i from its folder with its
// training time, or why there is none: the last line of the log of a trial
// that failed, or of the last run of one that did not finish.
func readClass(ctx context.Context, r *sweep.Runner, i int, codes map[int]int) (classes.Model, float64, error) {
	tr := r.Plan.Trials[i]
	trialDir := filepath.Join(r.Dir, tr.Dir)
	switch r.State(i) {
	case sweep.Done:
	case sweep.Failed:
		return nil, 0, errors.New(logReason(filepath.Join(trialDir, sweep.LogFile)))
	default:
		if ctx.Err() != nil {
			return nil, 0, errors.New("not run: interrupted")
		}
		// The runner keeps the work folder of a run that did not finish,
		// for its log: ".trial-NNNN.work-*".
		logs, _ := filepath.Glob(filepath.Join(r.Dir, "."+tr.Dir+".work-*", sweep.LogFile))
		why := "no log"
		if len(logs) > 0 {
			why = logReason(logs[len(logs)-1])
		}
		return nil, 0, fmt.Errorf("did not finish (train exited %d): %s; run again to retry it", codes[i], why)
	}
	raw, err := os.ReadFile(filepath.Join(trialDir, sweep.MetricsFile))
	if err != nil {
		return nil, 0, fmt.Errorf("searchdir: %w", err)
	}
	var m struct {
		Seconds float64 `json:"seconds"`
		Class   string  `json:"class"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, 0, fmt.Errorf("searchdir: %s: %w", filepath.Join(trialDir, sweep.MetricsFile), err)
	}
	if m.Class != tr.Model {
		return nil, m.Seconds, fmt.Errorf("searchdir: %s: class %q, want %q: not this trial's", filepath.Join(trialDir, sweep.MetricsFile), m.Class, tr.Model)
	}
	cm, _, err := classes.Load(filepath.Join(trialDir, sweep.ModelFile))
	if err != nil {
		return nil, m.Seconds, fmt.Errorf("searchdir: %w", err)
	}
	return cm, m.Seconds, nil
}

// logReason is the last line of a trial's log without train's prefix.
func logReason(path string) string {
	return strings.TrimPrefix(sweep.LastLine(path), "gputrain train: ")
}
