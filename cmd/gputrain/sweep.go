package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/passivenfir/gputrain/sweep"
	"github.com/passivenfir/gputrain/trainer"
)

const sweepHelp = `Usage: gputrain sweep plan|run|collect [flags]

  plan     expand a spec (TOML or YAML) into DIR/plan.json; --emit k8s|slurm renders the job
  run      run trials of a plan: one by index (--index, JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_ID),
           a shard (--shard i/k), or all pending ones, --local P at a time
  collect  rank the finished trials per plant, certify their models, list failed and missing ones

Run 'gputrain sweep plan --help' (run, collect) for the flags.
`

func runSweep(e *env, args []string) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		if len(args) > 0 && slices.Contains([]string{"-h", "--help", "-help"}, args[0]) {
			fmt.Fprint(e.stdout, sweepHelp)
			return errHelp
		}
		return usagef("which step? gputrain sweep plan|run|collect (see 'gputrain sweep --help')")
	}
	switch args[0] {
	case "plan":
		return runSweepPlan(e, args[1:])
	case "run":
		return runSweepRun(e, args[1:])
	case "collect":
		return runSweepCollect(e, args[1:])
	}
	return usagef("unknown step %q; use plan, run or collect", args[0])
}

// sweepTrain is the TrainFunc of every trial: the train command itself,
// in-process, so that a trial is exactly 'gputrain train' with its flags
// whether it runs under a scheduler or beside others on one machine.
func sweepTrain(ctx context.Context, args []string, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			code = internalError(stderr, "train", r)
		}
	}()
	e := &env{ctx: ctx, stdout: stdout, stderr: stderr, args: append([]string{"train"}, args...), start: time.Now()}
	return report(stderr, "gputrain train", runTrain(e, args))
}

// checkTrainFlags parses args with the train command's own flag set: a
// trailing --help stops runTrain after parsing, so an unknown flag or a
// value of the wrong type is reported exactly as train reports it, and a
// good set does nothing.
func checkTrainFlags(args []string) error {
	quiet := &env{ctx: context.Background(), stdout: io.Discard, stderr: io.Discard}
	err := runTrain(quiet, append(slices.Clone(args), "--help"))
	if err == nil || errors.Is(err, errHelp) {
		return nil
	}
	return err
}

// sweepSpecError reports the problems of a spec as one exit-2 error.
func sweepSpecError(path string, err error) error {
	var lines []string
	for _, e := range unjoin(err) {
		lines = append(lines, e.Error())
	}
	return usagef("%s: %s", path, strings.Join(lines, "; "))
}

func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

func runSweepPlan(e *env, args []string) error {
	fs := newFlags("gputrain sweep plan")
	var (
		specPath, out                 string
		emit                          sweep.Emit
		job                           sweep.Job
		quiet                         bool
		parallel, gpus, cpus, retries int
	)
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		specPath, args = args[0], args[1:]
	}
	fs.StringVar(&out, "out", "", "the sweep's folder: plan.json, then a folder per trial and the summary (created if needed)")
	fs.Var(&emit, "emit", "also render the scheduler's job for the plan on stdout: k8s (an Indexed Job) or slurm (a job array); the command that submits it goes to stderr")
	fs.IntVar(&parallel, "parallel", 0, "trials running at once on the cluster (0: all)")
	fs.IntVar(&gpus, "gpus", -1, "GPUs per trial (-1: 1 when the trials train with --device cuda, else 0)")
	fs.IntVar(&cpus, "cpus", 0, "CPU cores per trial (0: the trials' --workers, at least 1)")
	fs.IntVar(&retries, "retries", 3, "k8s: retries of a trial whose pod failed other than by bad input (backoffLimitPerIndex)")
	fs.StringVar(&job.Name, "name", "gputrain-sweep", "the job's name")
	fs.StringVar(&job.Image, "image", "", "k8s: container image (default gputrain-cuda with GPUs, from Dockerfile.cuda, else gputrain-cpu, from deploy/Dockerfile.cpu)")
	fs.StringVar(&job.Claim, "claim", "gputrain-sweep", "k8s: PersistentVolumeClaim that holds the sweep's folder (and the data) at its root")
	fs.StringVar(&job.Mount, "mount", "/sweep", "k8s: where the pods mount the claim")
	fs.StringVar(&job.Memory, "memory", "2Gi", "k8s: memory per trial")
	fs.StringVar(&job.Binary, "binary", "", "slurm: the gputrain binary on the nodes (default: this one)")
	fs.BoolVar(&quiet, "quiet", false, "no message but errors")
	spec := flagSpec{
		usage: "gputrain sweep plan SPEC.toml --out DIR [--emit k8s|slurm] [flags]",
		about: `Expand a sweep spec into DIR/plan.json: for every [[plant]], every combination of the [grid]
values (train flag names, or model for the model class), with the [fixed] train flags. Paths in the
spec are relative to its folder. Unknown keys, empty grids, missing files and values that train
refuses are bad input (exit 2), and nothing is written then. A folder that holds another plan is
refused: its trials would not match.`,
		example: `gputrain sweep plan sweep.toml --out runs
gputrain sweep plan sweep.toml --out runs --emit k8s > sweep-job.yaml
gputrain sweep plan sweep.toml --out /shared/runs --emit slurm --parallel 8 > sweep.sbatch`,
	}
	if err := parseFlags(e, fs, spec, args); err != nil {
		return err
	}
	if specPath == "" {
		return usagef("give the spec file first: gputrain sweep plan SPEC.toml --out DIR")
	}
	if out == "" {
		return usagef("--out DIR is required: the sweep's folder")
	}
	if err := checkOutDir("out", out); err != nil {
		return err
	}
	s, err := sweep.ReadSpec(specPath)
	if err != nil {
		return usagef("%s", strings.TrimPrefix(err.Error(), "sweep: "))
	}
	plan, err := sweep.Expand(s, out, checkTrainFlags)
	if err != nil {
		return sweepSpecError(specPath, err)
	}
	if emit != sweep.EmitNone {
		// the job is checked before the folder is written
		if job, err = sweepJob(emit, job, plan, out, parallel, gpus, cpus, retries); err != nil {
			return err
		}
	}
	if err := writePlan(plan, out); err != nil {
		return err
	}
	if !quiet {
		fmt.Fprintf(e.stderr, "%d trials planned in %s\n", len(plan.Trials), filepath.Join(out, sweep.PlanFile))
	}
	if emit == sweep.EmitNone {
		return nil
	}
	if err := sweep.Render(e.stdout, emit, job); err != nil {
		return failf("%v", err)
	}
	if emit == sweep.EmitK8s {
		for _, t := range plan.Trials {
			if strings.HasPrefix(t.Data, "..") || filepath.IsAbs(t.Data) || strings.HasPrefix(t.Val, "..") || filepath.IsAbs(t.Val) {
				fmt.Fprintf(e.stderr, "note: plant %s's data lie outside %s: the pods see only the volume, so put the data under the folder and plan again\n", t.Plant, out)
				break
			}
		}
	}
	file := map[sweep.Emit]string{sweep.EmitK8s: "sweep-job.yaml", sweep.EmitSlurm: "sweep.sbatch"}[emit]
	fmt.Fprintf(e.stderr, "submit it with (stdout saved as %s):\n  %s\n", file, sweep.SubmitCommand(emit, file))
	return nil
}

// sweepJob fills the job's sizes from the plan and the flags.
func sweepJob(emit sweep.Emit, job sweep.Job, plan *sweep.Plan, out string, parallel, gpus, cpus, retries int) (sweep.Job, error) {
	n := len(plan.Trials)
	job.Trials, job.Retries = n, retries
	job.Parallel = parallel
	if parallel == 0 {
		job.Parallel = n
	}
	job.Parallel = min(job.Parallel, n)
	if gpus < 0 {
		gpus = 0
		for _, t := range plan.Trials {
			if v, _ := t.Settings["device"].(string); trainer.Device(v) == trainer.DeviceCUDA {
				gpus = 1
			}
		}
	}
	job.GPUs = gpus
	if cpus == 0 {
		cpus = 1
		for _, t := range plan.Trials {
			if w, err := strconv.Atoi(fmt.Sprint(t.Settings["workers"])); err == nil {
				cpus = max(cpus, w)
			}
		}
	}
	job.CPUs = cpus
	if job.Image == "" {
		job.Image = "gputrain-cpu"
		if gpus > 0 {
			job.Image = "gputrain-cuda"
		}
	}
	switch emit {
	case sweep.EmitK8s:
		job.Dir = job.Mount
		job.Plan = strings.TrimSuffix(job.Mount, "/") + "/" + sweep.PlanFile
	case sweep.EmitSlurm:
		abs, err := filepath.Abs(out)
		if err != nil {
			return job, failf("%v", err)
		}
		job.Dir, job.Plan = abs, filepath.Join(abs, sweep.PlanFile)
		if job.Binary == "" {
			if job.Binary, err = os.Executable(); err != nil {
				return job, usagef("--binary: %v; give the gputrain binary's path on the nodes", err)
			}
		}
	}
	if err := job.Check(emit); err != nil {
		var lines []string
		for _, e := range unjoin(err) {
			lines = append(lines, e.Error())
		}
		return job, usagef("--emit %s: %s", emit, strings.Join(lines, "; "))
	}
	return job, nil
}

// writePlan writes plan.json in out, creating the folder; an existing plan
// must be the same one.
func writePlan(plan *sweep.Plan, out string) error {
	var b bytes.Buffer
	if err := plan.Encode(&b); err != nil {
		return failf("%v", err)
	}
	path := filepath.Join(out, sweep.PlanFile)
	if old, err := os.ReadFile(path); err == nil {
		if bytes.Equal(old, b.Bytes()) {
			return nil
		}
		return usagef("--out %s holds another plan (%s), whose trials may have run: use a new folder, or remove it first", out, path)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return usagef("--out %s: %v", out, err)
	}
	if err := plan.Write(out); err != nil {
		return failf("%v", err)
	}
	return nil
}

// sweepIndex finds the trial of a scheduler's array task in the environment.
func sweepIndex() (int, string, bool, error) {
	for _, name := range []string{"JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID"} {
		if v, ok := os.LookupEnv(name); ok && v != "" {
			i, err := strconv.Atoi(v)
			if err != nil || i < 0 {
				return 0, name, true, usagef("%s=%q is not a trial index (a whole number ≥ 0)", name, v)
			}
			return i, name, true, nil
		}
	}
	return 0, "", false, nil
}

func runSweepRun(e *env, args []string) error {
	fs := newFlags("gputrain sweep run")
	var (
		planPath     string
		index, local int
		shard        sweep.Shard
		quiet        bool
	)
	fs.StringVar(&planPath, "plan", "", "the plan file, DIR/plan.json")
	fs.IntVar(&index, "index", -1, "run this trial only (default: JOB_COMPLETION_INDEX, else SLURM_ARRAY_TASK_ID, else every pending trial)")
	fs.Var(&shard, "shard", "i/k: run the pending trials i, i+k, i+2k, … (k pods for more trials)")
	fs.IntVar(&local, "local", runtime.NumCPU(), "trials at a time when running several")
	fs.BoolVar(&quiet, "quiet", false, "no progress lines")
	spec := flagSpec{
		usage: "gputrain sweep run --plan DIR/plan.json [--index N | --shard i/k | --local P]",
		about: `Run trials of a plan through the train command, each in DIR/trial-NNNN (model.json,
metrics.json, train.log, and a done marker), which appears complete or not at all. Finished
trials are skipped at once; a trial killed part-way is redone from the start, with the same
result. A trial whose settings or data are bad input is marked failed and not retried: run by
index, it exits 2. Ctrl-C (or SIGTERM) stops; stopped trials stay pending.`,
		example: `gputrain sweep run --plan runs/plan.json --local 2
gputrain sweep run --plan runs/plan.json --index 3
JOB_COMPLETION_INDEX=3 gputrain sweep run --plan runs/plan.json`,
	}
	if err := parseFlags(e, fs, spec, args); err != nil {
		return err
	}
	if planPath == "" {
		return usagef("--plan DIR/plan.json is required; write one with 'gputrain sweep plan'")
	}
	if local < 1 {
		return usagef("--local %d: must be ≥ 1", local)
	}
	if isSet(fs, "index") && isSet(fs, "shard") {
		return usagef("--index and --shard both select trials; give one")
	}
	plan, err := sweep.ReadPlan(planPath)
	if err != nil {
		return usagef("--plan: %s", strings.TrimPrefix(err.Error(), "sweep: "))
	}
	r := &sweep.Runner{Plan: plan, Dir: filepath.Dir(planPath), Train: sweepTrain}
	if !quiet {
		r.Log = e.stderr
	}
	source := "--index"
	if index < 0 && !isSet(fs, "shard") {
		var ok bool
		if index, source, ok, err = sweepIndex(); err != nil {
			return err
		} else if !ok {
			index = -1
		}
	}
	if index >= 0 {
		if index >= len(plan.Trials) {
			return usagef("%s %d: the plan has trials 0 to %d", source, index, len(plan.Trials)-1)
		}
		o, err := r.Run(e.ctx, index)
		if err != nil {
			return failf("%v", err)
		}
		if o.Skipped && !quiet {
			fmt.Fprintf(e.stderr, "trial %d: %s before; nothing to do\n", index, o.Status)
		}
		if o.Status == sweep.Failed {
			return usagef("trial %d failed on bad input: %s", index, sweep.LastLine(filepath.Join(r.Dir, plan.Trials[index].Dir, sweep.LogFile)))
		}
		return nil
	}
	todo := r.Pending(shard)
	if !quiet {
		fmt.Fprintf(e.stderr, "%d pending trials of %d, %d at a time\n", len(todo), len(plan.Trials), min(local, max(len(todo), 1)))
	}
	_, err = r.RunAll(e.ctx, todo, local)
	if err != nil {
		return failf("%d of %d trials did not finish (run again to redo them): %v", len(unjoin(err)), len(todo), err)
	}
	// failed trials, of this run or an earlier one, are not retried: they
	// make the sweep incomplete all the same
	failed, selected := 0, 0
	for i := range plan.Trials {
		if shard.Has(i) {
			selected++
			if r.State(i) == sweep.Failed {
				failed++
			}
		}
	}
	if failed > 0 {
		return failf("%d of %d trials failed on bad input and are not retried; see 'gputrain sweep collect %s'", failed, selected, r.Dir)
	}
	return nil
}

func runSweepCollect(e *env, args []string) error {
	fs := newFlags("gputrain sweep collect")
	var (
		dir            string
		jsonOut, quiet bool
	)
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		dir, args = args[0], args[1:]
	}
	fs.BoolVar(&jsonOut, "json", false, "print summary.json instead of summary.md")
	fs.BoolVar(&quiet, "quiet", false, "print nothing; write the files only")
	spec := flagSpec{
		usage: "gputrain sweep collect DIR [--json]",
		about: `Collect a sweep: rank the done trials of each plant by validation fit (a plant's test data,
test = FILE in the spec, give a test fit that is shown, never ranked by), certify each model
(loading it checks the certificate of a passive model), and list the failed and missing trials
with the last line of their log. Writes DIR/summary.md and DIR/summary.json and prints the
first. Exit 1 when a trial failed or is missing, 0 when all are done.`,
		example: `gputrain sweep collect runs`,
	}
	if err := parseFlags(e, fs, spec, args); err != nil {
		return err
	}
	if dir == "" {
		return usagef("give the sweep's folder: gputrain sweep collect DIR")
	}
	plan, err := sweep.ReadPlan(filepath.Join(dir, sweep.PlanFile))
	if err != nil {
		return usagef("%s", strings.TrimPrefix(err.Error(), "sweep: "))
	}
	s := sweep.Collect(plan, dir)
	if err := s.Write(dir); err != nil {
		return failf("%v", err)
	}
	if !quiet {
		w := s.WriteMarkdown
		if jsonOut {
			w = s.WriteJSON
		}
		if err := w(e.stdout); err != nil {
			return failf("%v", err)
		}
	}
	if done, failed, missing := s.Counts(); failed+missing > 0 {
		return failf("%d failed and %d missing of %d trials (%d done); see %s", failed, missing, len(s.Trials), done, filepath.Join(dir, sweep.SummaryMarkdown))
	}
	return nil
}
