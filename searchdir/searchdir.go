package searchdir

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/internal/atomicfile"
	"github.com/passivenfir/gputrain/model"
	"github.com/passivenfir/gputrain/search"
	"github.com/passivenfir/gputrain/sweep"
	"github.com/passivenfir/gputrain/trainer"
)

// ErrOther reports a folder that holds another search: other data, other
// settings, or a rung planned otherwise. Its trials would not be this
// search's.
var ErrOther = errors.New("searchdir: the folder holds another search")

// SettingsFile records the search a folder is for.
const SettingsFile = "search.json"

// Plant is the plant name of every trial: sweep collect then ranks a rung's
// candidates together.
const Plant = "search"

// Trainer trains a search's rungs as sweeps in Dir. It implements
// search.RungTrainer; make one with Open.
type Trainer struct {
	Dir string
	// Train runs one trial (gputrain train with its flags).
	Train sweep.TrainFunc
	// Local is the number of trials this process runs at a time, through
	// sweep.Runner.RunAll as 'gputrain sweep run --local' does.
	Local int
	// Wait, when set, runs no trial here: TrainRung waits, polling every
	// Poll (0: 2 s), for other processes to finish the rung's trials.
	Wait bool
	Poll time.Duration
	// Log, when not nil, gets a few lines per rung: where its plan is, how
	// many trials finished before, and in Wait mode how to run them.
	Log io.Writer
	// Command is the gputrain binary named in the commands that Wait mode
	// prints ("gputrain" when empty).
	Command string

	trainFile, valFile, testFile string // in Dir
	ts                           float64
}

// Open makes dir ready for a search on train and val: it creates the folder,
// writes the data once and the search's settings (any JSON value that
// identifies the search; nil: not recorded). When the folder holds them
// already, they must be these, bit for bit: the error is then ErrOther.
func Open(dir string, train, val *data.Dataset, settings any) (*Trainer, error) {
	if train == nil || val == nil || train.Len() == 0 || val.Len() == 0 {
		return nil, errors.New("searchdir: the search needs training and validation data")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("searchdir: %w", err)
	}
	t := &Trainer{Dir: dir, ts: train.Ts, Poll: 2 * time.Second}
	var err error
	if t.trainFile, err = keep(dir, "train", train); err != nil {
		return nil, err
	}
	if t.valFile, err = keep(dir, "val", val); err != nil {
		return nil, err
	}
	if settings != nil {
		b, err := json.MarshalIndent(settings, "", "  ")
		if err != nil {
			return nil, fmt.Errorf("searchdir: the search's settings: %w", err)
		}
		if err := keepFile(filepath.Join(dir, SettingsFile), append(b, '\n')); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// keep writes d as dir/name.npy (records of equal lengths) or dir/name.csv,
// unless the file is there, and checks that it reads back as d bit for bit.
func keep(dir, name string, d *data.Dataset) (string, error) {
	file, write := name+".npy", data.WriteNPY
	for _, b := range d.Batches {
		if len(b.U) != len(d.Batches[0].U) || len(b.U) < 2 {
			file, write = name+".csv", data.WriteCSV
			break
		}
	}
	path := filepath.Join(dir, file)
	if _, err := os.Stat(path); err != nil {
		if err := write(path, d); err != nil {
			return "", fmt.Errorf("searchdir: %w", err)
		}
	}
	back, err := data.ReadFile(path, data.ReadOptions{UCol: "u", YCol: "y"})
	if err != nil {
		return "", fmt.Errorf("searchdir: %w", err)
	}
	if !same(back, d) {
		return "", fmt.Errorf("%w: %s is not this search's %s data; use another folder, or remove it", ErrOther, path, name)
	}
	return file, nil
}

// same reports whether a and b hold the same samples, bit for bit.
func same(a, b *data.Dataset) bool {
	eq := func(x, y []float64) bool {
		if len(x) != len(y) {
			return false
		}
		for i := range x {
			if math.Float64bits(x[i]) != math.Float64bits(y[i]) {
				return false
			}
		}
		return true
	}
	if a.Len() != b.Len() {
		return false
	}
	for i := range a.Batches {
		p, q := a.Batches[i], b.Batches[i]
		if !eq(p.U, q.U) || !eq(p.Y, q.Y) || !eq(p.YClean, q.YClean) {
			return false
		}
	}
	return true
}

// keepFile writes b to path atomically, or checks that the file there holds b.
func keepFile(path string, b []byte) error {
	if old, err := os.ReadFile(path); err == nil {
		if !bytes.Equal(old, b) {
			return fmt.Errorf("%w: %s differs (other settings); use another folder, or remove it", ErrOther, path)
		}
		return nil
	}
	return atomicfile.Write(path, func(w io.Writer) error { _, err := w.Write(b); return err })
}

// RungDir is the folder of rung r (0-based) in dir.
func RungDir(dir string, r int) string { return filepath.Join(dir, fmt.Sprintf("rung-%d", r+1)) }

// Plan is the sweep plan of a rung: one trial per candidate, its settings
// the candidate's configuration as train flags with --search off.
func (t *Trainer) Plan(rung search.Rung) (*sweep.Plan, error) {
	p := &sweep.Plan{}
	for i, cfg := range rung.Configs {
		set, err := flags(cfg)
		if err != nil {
			return nil, fmt.Errorf("searchdir: candidate %s: %w", rung.Names[i], err)
		}
		p.Trials = append(p.Trials, sweep.Trial{Index: i, Plant: Plant, Name: rung.Names[i], Settings: set, Ts: t.ts,
			Data: filepath.Join("..", t.trainFile), Val: filepath.Join("..", t.valFile), Dir: fmt.Sprintf("trial-%04d", i)})
	}
	return p, nil
}

// flags are cfg's settings as train flags, numbers exact (as a plan read
// back from its file has them), with the search off.
func flags(cfg trainer.Config) (map[string]any, error) {
	b, err := json.Marshal(cfg.Settings())
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var set map[string]any
	if err := dec.Decode(&set); err != nil {
		return nil, err
	}
	set["search"] = "off"
	if cfg.Structure.Branches > 0 && !cfg.Structure.Feedback {
		// An FF model does not use R2, and train refuses --r2 beside
		// --feedback=false; TrainRung gives the result the candidate's R2.
		delete(set, "r2")
	}
	return set, nil
}

// TrainRung implements search.RungTrainer: it writes the rung's plan (or
// checks the one there), runs its pending trials here or waits for them,
// and hands every finished trial's result to done.
func (t *Trainer) TrainRung(ctx context.Context, rung search.Rung, _, _ *data.Dataset, done func(int, search.Trained)) error {
	dir := RungDir(t.Dir, rung.Index)
	plan, err := t.Plan(rung)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := plan.Encode(&b); err != nil {
		return fmt.Errorf("searchdir: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("searchdir: %w", err)
	}
	planPath := filepath.Join(dir, sweep.PlanFile)
	if err := keepFile(planPath, b.Bytes()); err != nil {
		return err
	}
	// Read back, as a process of the cluster reads it: the same flags.
	if plan, err = sweep.ReadPlan(planPath); err != nil {
		return err
	}
	r := &sweep.Runner{Plan: plan, Dir: dir, Train: t.Train}
	pending := r.Pending(sweep.Shard{})
	t.logf("rung %d/%d: %d trials in %s, %d finished before", rung.Index+1, rung.Rungs, len(plan.Trials), planPath, len(plan.Trials)-len(pending))
	codes, err := t.runPending(ctx, r, planPath, t.Local) // a trial that did not finish is a failed candidate below
	if err != nil {
		return err
	}
	for i := range plan.Trials {
		trialDir, finished, err := outcome(ctx, r, i, codes)
		switch {
		case finished:
			res, secs, err := Read(trialDir)
			if st := rung.Configs[i].Structure; res != nil && !st.Feedback {
				res.Model.R2 = st.R2 // left out of the trial (flags)
			}
			done(i, search.Trained{Result: res, Err: err, Seconds: secs})
		case err != nil:
			done(i, search.Trained{Err: err})
		}
	}
	return ctx.Err()
}

// outcome is what became of trial i of r's plan after a run (codes: the
// exit codes of the trials run): finished, with its folder to read; or the
// error of a trial that failed on bad input or did not finish; or neither,
// for a trial left pending by an interruption (ctx), to run next time.
func outcome(ctx context.Context, r *sweep.Runner, i int, codes map[int]int) (trialDir string, finished bool, err error) {
	trialDir = filepath.Join(r.Dir, r.Plan.Trials[i].Dir)
	switch r.State(i) {
	case sweep.Done:
		return trialDir, true, nil
	case sweep.Failed:
		return trialDir, false, fmt.Errorf("trial %s failed on bad input: %s", trialDir, sweep.LastLine(filepath.Join(trialDir, sweep.LogFile)))
	}
	if ctx.Err() != nil {
		return trialDir, false, nil
	}
	return trialDir, false, fmt.Errorf("trial %s did not finish (train exited %d); run again to retry it", trialDir, codes[i])
}

// runPending runs the pending trials of r (its plan at planPath), parallel
// at a time, and returns the exit codes of those it ran; in Wait mode it
// runs none, but says how to run them elsewhere and waits for them (an
// error is then ctx's).
func (t *Trainer) runPending(ctx context.Context, r *sweep.Runner, planPath string, parallel int) (map[int]int, error) {
	codes := map[int]int{}
	pending := r.Pending(sweep.Shard{})
	switch {
	case len(pending) == 0:
	case t.Wait:
		t.instructions(planPath, len(r.Plan.Trials))
		return codes, t.wait(ctx, r)
	default:
		outs, _ := r.RunAll(ctx, pending, max(1, parallel))
		for _, o := range outs {
			codes[o.Index] = o.Code
		}
	}
	return codes, nil
}

// wait polls r's folder until no trial is pending.
func (t *Trainer) wait(ctx context.Context, r *sweep.Runner) error {
	last := -1
	told := map[string]bool{} // the ended attempts already reported
	for {
		pending := r.Pending(sweep.Shard{})
		n := len(pending)
		if n == 0 {
			return nil
		}
		if n != last {
			t.logf("waiting for %d of %d trials", n, len(r.Plan.Trials))
			last = n
		}
		// A trial whose train crashed stays pending, and the scheduler may
		// or may not run it again: say so, so that a wait on a trial that
		// keeps crashing does not look like a slow one.
		for _, i := range pending {
			for _, a := range r.Attempts(i) {
				key := fmt.Sprintf("%d %d %s", i, a.Code, a.Line)
				if !told[key] {
					told[key] = true
					t.logf("trial %s ended without finishing (train exited %d: %s); it stays pending until a run finishes it, and Ctrl-C stops the wait", r.Plan.Trials[i].Dir, a.Code, a.Line)
				}
			}
		}
		poll := t.Poll
		if poll <= 0 {
			poll = 2 * time.Second
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(poll):
		}
	}
}

// instructions say how to run a rung's trials elsewhere.
func (t *Trainer) instructions(planPath string, n int) {
	abs, err := filepath.Abs(planPath)
	if err != nil {
		abs = planPath
	}
	cmd := t.Command
	if cmd == "" {
		cmd = "gputrain"
	}
	t.logf("run its trials where the folder is shared, for example:\n  %s sweep run --plan %s --local P\n  sbatch --array=0-%d --wrap '%s sweep run --plan %s'\n  (a Kubernetes Indexed Job of %d completions running '%s sweep run --plan %s')",
		cmd, abs, n-1, cmd, abs, n, cmd, abs)
}

func (t *Trainer) logf(format string, a ...any) {
	if t.Log != nil {
		fmt.Fprintf(t.Log, format+"\n", a...)
	}
}

// metrics are the fields of a trial's metrics.json (train's --json
// output) that make up its trainer.Result.
type metrics struct {
	BestValFit  *float64          `json:"best_val_fit"`
	Seconds     float64           `json:"seconds"`
	Certificate model.Certificate `json:"certificate"`
	TapsAtBound int               `json:"taps_at_bound"`
	RidgeRatio  *float64          `json:"ridge_ratio"`
}

// Read returns the result of a finished trial from its folder: the model
// from model.json, its validation Fit and certificate from metrics.json
// (no training history: train does not write it), and the training time.
func Read(trialDir string) (*trainer.Result, float64, error) {
	raw, err := os.ReadFile(filepath.Join(trialDir, sweep.MetricsFile))
	if err != nil {
		return nil, 0, fmt.Errorf("searchdir: %w", err)
	}
	var m metrics
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, 0, fmt.Errorf("searchdir: %s: %w", filepath.Join(trialDir, sweep.MetricsFile), err)
	}
	nfir, meta, err := model.Load(filepath.Join(trialDir, sweep.ModelFile))
	if err != nil {
		return nil, m.Seconds, fmt.Errorf("searchdir: %w", err)
	}
	res := &trainer.Result{Model: nfir, Meta: meta, Cert: m.Certificate, BestValFit: math.NaN(), TapsAtBound: m.TapsAtBound}
	if m.BestValFit != nil {
		res.BestValFit = *m.BestValFit
	}
	if m.RidgeRatio != nil {
		res.RidgeRatio = *m.RidgeRatio
	}
	return res, m.Seconds, nil
}
