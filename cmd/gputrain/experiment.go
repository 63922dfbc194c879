package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/experiment"
	"github.com/passivenfir/gputrain/trainer"
)

func runExperiment(e *env, args []string) error {
	fs := newFlags("gputrain experiment")
	var o experiment.Options
	var out, robotDir, only, config string
	var quick, jsonOut, quiet bool
	fs.StringVar(&out, "out", "docs/results", "directory for NAME.md, NAME.json and the box plots")
	fs.StringVar(&robotDir, "robot", data.RobotDir(), "folder with robot_200Hz_u.csv and robot_200Hz_y.csv")
	fs.StringVar(&only, "only", "", "comma-separated model names to run (default: all of the experiment)")
	fs.Uint64Var(&o.Seed, "seed", 1, "seed of data and training")
	fs.IntVar(&o.Workers, "workers", 0, "worker threads (0: all cores)")
	fs.IntVar(&o.Epochs, "epochs", 0, "override Adam epochs per θ_N step (0: the paper's)")
	fs.IntVar(&o.Patience, "patience", 0, "override the early-stopping patience (0: the paper's)")
	fs.IntVar(&o.BPTTEpochs, "bptt-epochs", 0, "override the BPTT epochs of FB-BP (0: the paper's 100)")
	fs.IntVar(&o.Batches, "batches", 0, "mass-spring-damper training batches (0: the paper's 300/100/100 split)")
	fs.Float64Var(&o.Holdout, "holdout", 0, "robot: fraction of record e held out to validate every model (each then trains without it), scored after a lead-in of the model's longest memory (0: the paper's protocol)")
	fs.StringVar(&o.HoldoutAt, "holdout-at", "end", "robot: where the --holdout part of e lies: end or middle (the two folds of a two-fold cross-validation)")
	fs.BoolVar(&o.Select, "select", false, "robot: apply the two-fold selection rule to the --only models: train each without the end --holdout of e (default 0.2), then without the middle one, and train only the one with the best mean validation Fit on all of e; v1-v3 are scored for that model alone")
	fs.IntVar(&o.Seeds, "seeds", 1, "robot: train each NFIR model with this many seeds (--seed, --seed+1, …), one row each plus their median")
	fs.IntVar(&o.Members, "members", 0, "robot: train every NFIR model as the mean of this many members (seeds --seed, --seed+1, …), merged into one passive NFIR (0: one model, and 10 for \"NFIR average\")")
	fs.BoolVar(&quick, "quick", false, "a fast smoke run: 30 batches, 20 epochs, 5 BPTT epochs")
	fs.BoolVar(&jsonOut, "json", false, "print the report as one JSON object on stdout (progress stays on stderr; add --quiet for none)")
	fs.BoolVar(&quiet, "quiet", false, "no progress lines on stderr")
	fs.StringVar(&config, "config", "", "TOML or YAML file of flag values")
	spec := flagSpec{
		usage: "gputrain experiment msd|msd-noisy|robot [flags]",
		about: `Reproduces the paper's evaluation (Section VI) and writes NAME.md, NAME.json and plots to --out:
  msd        Fig. 4 left: FIR, N4SID(np), MLP(np), REN, FF(np), FF, FB(np), FB, FB-BP on noise-free data
  msd-noisy  Fig. 4 right: the same trained on SNR 10 dB data, scored against the noise-free output
  robot      Table II: passive FIR (500 taps) and FIR + NFIR on the robot arm (train e, test v1-v3);
             NFIR(paper code) uses the settings of the authors' released code
Test data is never used for any choice: model selection uses validation batches only.`,
		example: `gputrain experiment msd --only FIR,FB
gputrain experiment robot --robot ../shared/data/robot
gputrain experiment robot --only "NFIR(paper code)" --seeds 5
gputrain experiment robot --only "NFIR(paper code)" --members 5 --holdout 0.2 --holdout-at middle
gputrain experiment robot --select --only "FIR,NFIR average"`,
	}
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		if err := parseFlags(e, fs, spec, args); err != nil {
			return err
		}
		return usagef("which experiment? want one of %s", strings.Join(experiment.Names, ", "))
	}
	name := args[0]
	if err := parseFlags(e, fs, spec, args[1:]); err != nil {
		return err
	}
	known := false
	for _, n := range experiment.Names {
		known = known || n == name
	}
	if !known {
		return usagef("unknown experiment %q; want one of %s", name, strings.Join(experiment.Names, ", "))
	}
	if !(o.Holdout >= 0 && o.Holdout < 1) {
		return usagef("--holdout %g: want a fraction in [0, 1)", o.Holdout)
	}
	if o.HoldoutAt != "end" && o.HoldoutAt != "middle" {
		return usagef("--holdout-at %q: want end or middle", o.HoldoutAt)
	}
	if o.Seeds < 1 || o.Seeds > 1000 {
		return usagef("--seeds %d: want 1 to 1000", o.Seeds)
	}
	if o.Members < 0 || o.Members > 1000 {
		return usagef("--members %d: want 0 to 1000", o.Members)
	}
	if err := checkOutDir("out", out); err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if name != "robot" {
		for _, f := range []string{"holdout", "holdout-at", "seeds", "members", "select", "robot"} {
			if set[f] {
				return usagef("--%s is for the robot experiment only", f)
			}
		}
	}
	for _, v := range []struct {
		flag string
		n    int
	}{{"epochs", o.Epochs}, {"patience", o.Patience}, {"bptt-epochs", o.BPTTEpochs}, {"batches", o.Batches}} {
		if v.n < 0 {
			return usagef("--%s %d: want ≥ 0 (0: the paper's)", v.flag, v.n)
		}
	}
	if o.Select {
		switch {
		case set["holdout-at"]:
			return usagef("--select uses both folds, the end and the middle of e: drop --holdout-at")
		case o.Seeds > 1:
			return usagef("--select with --seeds %d: a candidate is one model; use --members to average several", o.Seeds)
		}
	}
	if quick {
		o.Batches, o.Epochs, o.Patience, o.BPTTEpochs = 30, 20, 10, 5
	}
	if only != "" {
		o.Only = strings.Split(only, ",")
		models := experiment.MSDOrder
		if name == "robot" {
			models = experiment.RobotOrder
		}
		for _, m := range o.Only {
			if !slices.Contains(models, m) {
				return usagef("--only: %s has no model %q; its models are %s", name, m, strings.Join(models, ", "))
			}
		}
	}
	if name == "robot" {
		if _, err := os.Stat(robotDir); robotDir == "" || err != nil {
			return usagef("--robot: the robot data folder %q was not found; pass the folder holding robot_200Hz_u.csv", robotDir)
		}
	}
	if err := makeOutDir("out", out); err != nil {
		return err
	}
	if !quiet {
		// Progress goes to stderr, so --json (the report on stdout) keeps it.
		o.Log = func(s string) { fmt.Fprintln(e.stderr, s) }
		o.Progress = func(name string, ev trainer.Event) {
			// Per-epoch lines would drown the log of a long experiment: the
			// convex steps, evaluations and every 50th epoch are enough.
			if ev.Stage == "adam" || ev.Stage == "bptt" || ev.Stage == "ren" {
				if (ev.Epoch+1)%50 != 0 {
					return
				}
			}
			fmt.Fprintf(e.stderr, "  %s: %s\n", name, ev)
		}
	}
	if o.Workers == 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	command := "gputrain experiment " + shellJoin(args)
	rep, err := experiment.Run(e.ctx, name, o, robotDir, out, command)
	if rep != nil {
		if jsonOut {
			if werr := writeJSON(e.stdout, rep); werr != nil {
				return werr
			}
		} else {
			fmt.Fprint(e.stdout, rep.Markdown)
		}
	}
	if err != nil {
		return failf("%v", err)
	}
	return nil
}

// shellJoin joins args so that the recorded command can be pasted back into a
// POSIX shell: arguments with spaces or shell metacharacters are single-quoted.
func shellJoin(args []string) string {
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = a
		if a == "" || strings.ContainsAny(a, " \t()'\"$*?;&|<>\\`") {
			quoted[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(quoted, " ")
}
