package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"strings"

	"github.com/passivenfir/gputrain/classes"
	"github.com/passivenfir/gputrain/classes/meanclass"
	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/kernels"
	"github.com/passivenfir/gputrain/model"
	"github.com/passivenfir/gputrain/search"
	"github.com/passivenfir/gputrain/trainer"
)

// hyper binds the hyper-parameter flags of train to a
// trainer.Config whose values are the flag defaults (trainer.DefaultConfig).
type hyper struct {
	fs         *flag.FlagSet
	cfg        trainer.Config
	hidden     intList
	decay      autoFloat
	feedback   bool
	noFeedback bool
	// cmdline holds the flags given on the command line (flagSpec.cmdline).
	cmdline map[string]bool
}

func addHyperFlags(fs *flag.FlagSet) *hyper {
	h := &hyper{fs: fs, cfg: trainer.DefaultConfig(), cmdline: map[string]bool{}}
	c := &h.cfg
	h.hidden = append(intList{}, c.Structure.Hidden...)
	h.decay = autoFloat(math.NaN())
	h.feedback = c.Structure.Feedback
	fs.IntVar(&c.Structure.Branches, "branches", c.Structure.Branches, "m_N, number of lifted FIR branches (0 with --linear-taps N: a plain passive linear FIR)")
	fs.IntVar(&c.Structure.Taps, "taps", c.Structure.Taps, "m_G, taps of each branch FIR")
	fs.IntVar(&c.Structure.R1, "r1", c.Structure.R1, "R1, input memory of the lifting network")
	fs.IntVar(&c.Structure.R2, "r2", c.Structure.R2, "R2, memory of the fed-back output q(t) = y(t−1) in the lifting network")
	fs.Var(&h.hidden, "hidden", "hidden layer widths of the lifting MLP, comma-separated (\"\" for none)")
	fs.BoolVar(&h.feedback, "feedback", h.feedback, "FB model: the lifting network also sees q(t) = y(t−1)")
	fs.BoolVar(&h.noFeedback, "no-feedback", false, "FF model: the lifting network sees u only (same as --feedback=false)")
	fs.IntVar(&c.Structure.LinearTaps, "linear-taps", c.Structure.LinearTaps, "taps of a parallel passive linear FIR (0: none)")
	fs.BoolVar(&c.Structure.HoldStart, "hold-start", c.Structure.HoldStart, "the lifting network sees u(0) for its input window's samples before a record starts, instead of zeros: for records that begin mid-motion (stored in the model file)")
	fs.Var(&c.Passivity, "passivity", "how the FIR taps are kept passive: exact (certified, no ε to guess; minutes per θ_G step beyond about 2000 taps in all), sampled (Theorem 3 on H+1 frequencies; every FIR is still certified, and one that fails is re-solved in exact mode; the faster choice for long filters), kyp (Theorem 4 LMI) or none (the paper's np variants)")
	fs.IntVar(&c.H, "H", c.H, "sampled passivity: frequency samples h = 0..H")
	fs.Float64Var(&c.Eps, "eps", c.Eps, "sampled passivity: margin ε in Σ_k g(k)·2cos(hπk/H) ≥ ε, in the taps' units (output per input; see --scale)")
	fs.Float64Var(&c.Rho, "rho", c.Rho, "decay bound |g(k)| ≤ rho·decay^k, in the taps' units (output per input; see --scale), or 0 for no decay bounds; the θ_G progress line counts taps held at the bound")
	fs.Var(&h.decay, "decay", "decay rate of the tap bound, in (0, 1]; auto: 0.93^(50/L) for filters of L taps (the longer of --taps and --linear-taps), so that the bound ends at 2.7% of rho whatever the length: the paper's 0.93 for its 50 taps, 0.993 for 500")
	fs.Float64Var(&c.GammaG, "gamma-g", c.GammaG, "ridge weight γ_G on the taps in the θ_G step, against the sum of squared output errors (in units of u² times samples; see --scale)")
	c.Scale = trainer.ScaleAuto // train's default; the library's is none
	fs.Var(&c.Scale, "scale", "auto: train on u and y multiplied by the powers of two that bring their RMS near that of the paper's mass-spring-damper data (6.7 and 1.5), where the defaults were chosen, so that --rho, --eps, --gamma-g, --clip and --bptt-clip mean the same on data of any units; the model is written in the data's units (the conversion is exact). none: those settings are in the data's own units (to reproduce a run with settings in given units)")
	fs.IntVar(&c.Iters, "iters", c.Iters, "K, alternations of Algorithm 1 (θ_G step, then Adam on θ_N)")
	fs.IntVar(&c.Epochs, "epochs", c.Epochs, "Adam epochs per alternation")
	fs.IntVar(&c.Patience, "patience", c.Patience, "early stopping: epochs without validation improvement")
	fs.IntVar(&c.Batch, "batch", c.Batch, "trajectories per Adam mini-batch")
	fs.Float64Var(&c.LR, "lr", c.LR, "Adam learning rate")
	fs.Float64Var(&c.WeightDecay, "weight-decay", c.WeightDecay, "Adam decoupled weight decay")
	fs.Float64Var(&c.Clip, "clip", c.Clip, "global gradient-norm clip (0: none)")
	fs.Var(&c.Monitor, "monitor", "what Adam's early stopping watches on validation data: open (one-step-ahead loss) or closed (closed-loop simulation error)")
	fs.Var(&c.GramGains, "gram-gains", "FB models: fit the θ_G step for the gains of the measured output (data, the paper's), of the closed-loop simulation (closed), or both, keeping the better on validation (auto)")
	fs.IntVar(&c.Skip, "skip", c.Skip, "samples at the start of each training trajectory that are simulated but left out of the loss (the transient of an unknown initial state)")
	fs.IntVar(&c.ValSkip, "val-skip", c.ValSkip, "samples at the start of each validation trajectory that are simulated but not scored (warm-up or start-up transient)")
	fs.IntVar(&c.BPTTEpochs, "bptt-epochs", c.BPTTEpochs, "epochs of the closed-loop backpropagation-through-time step that replaces the Adam step of the last --iters iteration, as in Algorithm 1 (with --iters 1 there is then no Adam step at all; 0: none)")
	fs.IntVar(&c.BPTTBatch, "bptt-batch", c.BPTTBatch, "trajectories per BPTT mini-batch")
	fs.IntVar(&c.BPTTPatience, "bptt-patience", c.BPTTPatience, "BPTT early stopping patience in epochs")
	fs.Float64Var(&c.BPTTLR, "bptt-lr", c.BPTTLR, "peak learning rate of the BPTT step")
	fs.Float64Var(&c.BPTTClip, "bptt-clip", c.BPTTClip, "gradient-norm clip of the BPTT step (0: none)")
	c.Init = trainer.InitGlorot // named, where the library spells it ""
	fs.Var(&c.Init, "init", "random initialization of the lifting network: glorot (Glorot uniform weights, zero biases) or fan-in (weights and biases uniform on ±1/√fan_in, PyTorch's default, as in the paper's released code)")
	fs.Uint64Var(&c.Seed, "seed", c.Seed, "random seed (initialization, mini-batches, validation hold-out)")
	fs.IntVar(&c.Members, "members", 1, "train this many models with the seeds --seed, --seed+1, … and save their mean as one passive NFIR (their branches side by side, each FIR divided by the number of members): less of the variance the random initialization leaves; up to --workers members train at a time")
	fs.IntVar(&c.Workers, "workers", c.Workers, "worker goroutines (0: one per CPU)")
	fs.Var(&c.Device, "device", "cpu, or cuda (needs a binary built with -tags nfircuda)")
	return h
}

// resolve finishes and checks the configuration after parsing: every bad
// value is a usage error naming its flag.
func (h *hyper) resolve() (trainer.Config, error) {
	c := h.cfg
	c.Structure.Hidden = append([]int{}, h.hidden...)
	if h.noFeedback {
		if isSet(h.fs, "feedback") && h.feedback {
			return c, usagef("--feedback and --no-feedback contradict each other; give one")
		}
		h.feedback = false
	}
	c.Structure.Feedback = h.feedback
	c.Decay = float64(h.decay)
	if h.decay.auto() {
		c.Decay = autoDecay(c.Structure)
	}
	s := c.Structure
	// Every setting is checked by the library (trainer.Config.Check); the
	// one rule of the flag alone: --members counts models, from 1.
	if c.Members < 1 {
		return c, usagef("--members %d: must be ≥ 1; see '%s --help'", c.Members, h.fs.Name())
	}
	if err := c.Check(); err != nil {
		var fe *trainer.FieldError
		if errors.As(err, &fe) && fe.Value != nil {
			return c, usagef("--%s %v: %v; see '%s --help'", fe.Flag(), fe.Value, fe.Err, h.fs.Name())
		}
		if errors.Is(err, model.ErrShape) {
			return c, usagef("%v; choose --branches/--taps/--linear-taps/--r1/--r2/--hidden accordingly", err)
		}
		return c, usagef("%v; see '%s --help'", err, h.fs.Name())
	}
	// A flag typed on the command line that the model ignores is a mistake
	// worth stopping for (--taps meant as --linear-taps, say). The same keys in
	// a config file are not: a stored training object lists every flag.
	unused := func(flag, why string) error {
		if !h.cmdline[flag] {
			return nil
		}
		return usagef("--%s has no effect %s; leave it out", flag, why)
	}
	if s.Branches == 0 {
		for _, f := range []string{"taps", "r1", "r2", "hidden", "feedback", "no-feedback", "init"} {
			if err := unused(f, "on a linear FIR (--branches 0; its length is --linear-taps)"); err != nil {
				return c, err
			}
		}
	}
	if s.Branches > 0 && !s.Feedback {
		if err := unused("r2", "without feedback (the lifting network of an FF model does not see q)"); err != nil {
			return c, err
		}
	}
	if c.Passivity == trainer.PassivitySampled && c.Rho > 0 && c.Eps > 2*c.Rho {
		// no filter meets both (the paper's feasibility condition): g(0) ≤ rho
		return c, usagef("--eps %g > 2·--rho %g: no FIR meets Σ_k g(k)·2cos(hπk/H) ≥ eps with |g(0)| ≤ rho; lower --eps or raise --rho", c.Eps, c.Rho)
	}
	if c.Device == trainer.DeviceCUDA {
		// Fail now, not after reading gigabytes: the build or the machine may lack CUDA.
		if _, err := kernels.NewBackend("cuda"); err != nil {
			return c, usagef("--device cuda: %v", err)
		}
	}
	if s.Branches == 0 {
		// a linear FIR has no θ_N to train: one convex solve (as the trainer does)
		c.BPTTEpochs, c.Iters = 0, 1
	}
	return c, nil
}

// searchMinLen is the shortest record a structure search accepts: its
// filters are fitted to the records it gets (at most half their length).
const searchMinLen = 16

// autoDecay is the decay rate of --decay auto (trainer.AutoDecay).
func autoDecay(s model.Structure) float64 { return trainer.AutoDecay(s) }

// orNone names the default scaling of trainer.Config, which it spells "".
func orNone(scale trainer.Scale) trainer.Scale {
	if scale == "" {
		return trainer.ScaleNone
	}
	return scale
}

// settings is the training configuration as JSON keyed by flag names: it is
// stored as the model file's "training" object, and is itself a valid
// --config file (YAML reads JSON).
func settings(c trainer.Config, extra map[string]any) json.RawMessage {
	m := c.Settings()
	for k, v := range extra {
		m[k] = v
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil
	}
	return b
}

func runTrain(e *env, args []string) error {
	fs := newFlags("gputrain train")
	h := addHyperFlags(fs)
	var (
		dataPath, valPath, out, plotDir, config string
		ts                                      float64
		quiet, jsonOut                          bool
	)
	fs.StringVar(&dataPath, "data", "", "training data file: .csv (columns u,y[,batch]), .npy, .npz or .mat; - reads standard input")
	fs.StringVar(&valPath, "val", "", "validation data file (default: a seeded 20% of the batches when ≥ 5 have inputs of their own, batches that repeat one another's input held out together; else the last 20% of each batch, of each period where a batch's input is periodic, after a lead-in of the model memory)")
	fs.StringVar(&out, "out", "model.json", "model file to write (atomically); an existing file is refused unless --force")
	force := addForceFlag(fs)
	fs.StringVar(&plotDir, "plot", "", "directory for training-curve, Re G and fit plots (PNG and SVG)")
	fs.StringVar(&config, "config", "", "TOML or YAML file of flag values")
	cols := addColumnFlags(fs, "name of the output column (CSV) or variable (.npz, .mat)")
	fs.Float64Var(&ts, "ts", 0, "sampling time in seconds, recorded in the model file (0: the step of the data file's time column, --time, else unknown)")
	fs.BoolVar(&quiet, "quiet", false, "no progress output")
	fs.BoolVar(&jsonOut, "json", false, "print one JSON object on stdout (progress goes to stderr)")
	var searchMode search.Mode
	fs.Var(&searchMode, "search", "choose the structure from the data: auto (when no structure flag is given: --branches, --taps, --r1, --r2, --hidden, --feedback, --no-feedback, --linear-taps), on (search what those flags leave free) or off (the flags and their defaults, the paper's mass-spring-damper structure); candidates are scored by closed-loop Fit on the validation data only, and the passive linear FIR is one of them")
	logPath := fs.String("log", "", metricsLogAbout)
	warmPath := fs.String("warm-start", "", warmStartAbout)
	sdir := addSearchDirFlags(fs)
	budget := fs.Int("budget", search.DefaultBudget, "rungs of the structure search's successive halving: about its cost in training runs of the final schedule; 3^(budget−1) candidates start")
	timeLimit := fs.Duration("time-limit", search.DefaultTimeLimit, "wall-clock bound of the structure search (0: none): the successive halving ends when half of it is spent (a quarter where the passive FIR is best at the longest length tried, 1000 taps; candidates unfinished then do not count), the passive RENs take at most half of what is left, and the loop family trains in the rest, as many loops as the time allows at the pace of those before (the others not started), a loop's schedule shortened only where it would overrun; the choice then depends on the machine's speed (0 makes the search reproducible); --search-dir trials keep their plan; without --val, the refit on all of --data (--refit) takes its share of it")
	refitOn := fs.Bool("refit", true, refitAbout)
	modelName := classes.Choice(defaultModel)
	fs.Var(&modelName, "model", "model class to train: "+strings.Join(classes.Names(), ", ")+"; the flags of the NFIR's training apply to nfir (the default) only, and each class's own flags (--fir-taps, --gru-units, …) to it only")
	cf := addClassFlags(fs)
	var classBudget classes.Budget
	fs.Var(&classBudget, "class-budget", "train --model CLASS exactly as compare does, with this budget: full, or quick as compare --quick; with --model nfir, the class nfir of compare (its own structure search and loop) instead of the NFIR training that the other flags set")
	spec := flagSpec{
		usage: "gputrain train --data FILE [--val FILE] [--out model.json] [--model CLASS] [flags]",
		about: `Train a passive lifted FIR (NFIR) model with Algorithm 1 of the paper: alternate the convex
θ_G step (passive FIR least squares) and Adam on the lifting network θ_N, then an optional
closed-loop backpropagation-through-time step. With no structure flag (--search auto) the structure
is chosen on the validation data: the passive linear FIR's length, NFIR structures around it by
successive halving (--budget), passive RENs (a state of their own, trained on the simulation error)
and the passive feedback loop of two NFIRs; the best closed-loop validation Fit wins, never below
the passive FIR's. Ctrl-C stops and saves the best model so far (exit 1).
An existing --out is refused before any work unless --force, which keeps the old file as NAME.bak.`,
		example: `gputrain gen msd --batches 50 --seed 1 --out train.csv
gputrain train --data train.csv --branches 4 --taps 30 --iters 2 --epochs 50 --out model.json
gputrain train --data robot.csv --u ue --y ye --branches 0 --linear-taps 500 --out fir.json
gputrain train --config settings.toml --data train.csv --lr 1e-3`,
	}
	spec.cmdline = h.cmdline
	if err := parseFlags(e, fs, spec, args); err != nil {
		return err
	}
	if err := cf.check(string(modelName), h.cmdline); err != nil {
		return err
	}
	classFit := modelName != defaultModel || isSet(fs, "class-budget")
	what := "--model " + string(modelName)
	if modelName == defaultModel {
		what = "--class-budget"
	}
	if *logPath != "" && classFit {
		return usagef("--log records the NFIR's θ_G steps and epochs; %s does not write one: leave --log out", what)
	}
	if *warmPath != "" && classFit {
		return usagef("--warm-start continues an NFIR's training; %s starts afresh: leave --warm-start out", what)
	}
	if sdir.dir != "" && classFit {
		return usagef("--search-dir holds the trials of train's structure search; %s runs none: leave --search-dir out", what)
	}
	start, err := h.warmStart(*warmPath)
	if err != nil {
		return err
	}
	if classFit {
		return (&classTrain{name: string(modelName), fs: fs, h: h, cf: cf, dataPath: dataPath, valPath: valPath, out: out,
			plotDir: plotDir, config: config, cols: cols, ts: ts, quiet: quiet, jsonOut: jsonOut, force: *force, budget: classBudget}).run(e)
	}
	cfg, err := h.resolve()
	if err != nil {
		return err
	}
	if !finite(ts) || ts < 0 {
		return usagef("--ts %v: must be a finite number ≥ 0", ts)
	}
	dest, err := newOutFile("out", out, *force, map[string]string{"data": dataPath, "val": valPath, "config": config})
	if err != nil {
		return err
	}
	if err := checkLogPath(*logPath, out, map[string]string{"data": dataPath, "val": valPath, "config": config}); err != nil {
		return err
	}
	if plotDir != "" {
		if err := checkOutDir("plot", plotDir); err != nil {
			return err
		}
	}
	fixed := search.Fixed{Branches: isSet(fs, "branches"), Taps: isSet(fs, "taps"), R1: isSet(fs, "r1"), R2: isSet(fs, "r2"),
		Hidden: isSet(fs, "hidden"), Feedback: isSet(fs, "feedback") || isSet(fs, "no-feedback"), LinearTaps: isSet(fs, "linear-taps")}
	searching := searchMode.Searches(fixed)
	if searching, err = useWarmStart(&cfg, start, searchMode, isSet(fs, "search"), searching); err != nil {
		return err
	}
	if err := sdir.check(searching); err != nil {
		return err
	}
	if *timeLimit < 0 {
		return usagef("--time-limit %v: must be ≥ 0 (0: no limit)", *timeLimit)
	}
	if *budget < 1 {
		return usagef("--budget %d: must be ≥ 1 (1: every candidate trains once with the full schedule)", *budget)
	}
	if searching {
		// The search's final schedule, unless given: its rungs then cost a
		// few runs of it (search.DefaultIters).
		for _, d := range []struct {
			flag string
			v    *int
			def  int
		}{{"iters", &cfg.Iters, search.DefaultIters}, {"epochs", &cfg.Epochs, search.DefaultEpochs}, {"patience", &cfg.Patience, search.DefaultPatience}} {
			if !isSet(fs, d.flag) {
				*d.v = d.def
			}
		}
	}
	opt := cols.options(ts)
	mem := cfg.Structure.Memory()
	if searching {
		// The search fits its filters to the records it gets.
		mem = min(mem, searchMinLen)
	}
	trainSet, err := readData(e.ctx, "data", dataPath, opt, mem)
	if err != nil {
		return err
	}
	if v, which := largest(trainSet); v > maxDataMagnitude {
		return usagef("--data %s: |%s| reaches %.3g; squared sums of such values overflow: rescale the data (for example to SI units near 1)", dataPath, which, v)
	}
	if zeroInput(trainSet) {
		// y is then 0 for every model: the least-squares problem has no
		// information, and a "trained" model would be all zeros.
		return usagef("--data %s: the input %q is zero in every sample; nothing can be identified from it", dataPath, cols.u)
	}
	if z := zeroScored(trainSet, 0); len(z) == trainSet.Len() {
		return usagef("--data %s: the output %q is zero in every sample; nothing can be identified from it", dataPath, cols.y)
	}
	prog := newProgress(e.stdout, e.stderr, quiet, jsonOut, cfg.Iters)
	prog.setMonitor(cfg.Monitor)
	check, dataNotes := checkData(e.ctx, trainSet, cfg)
	if n := timeColNote(trainSet); n != "" {
		prog.note("%s", n)
	}
	for _, n := range dataNotes {
		prog.note("note: %s", n)
	}
	if n := cfg.Structure.Branches*cfg.Structure.Taps + cfg.Structure.LinearTaps; cfg.Passivity == trainer.PassivityExact && n > 2000 {
		prog.note("note: %d taps in all with --passivity exact: each θ_G step may take minutes; --passivity sampled is faster at this size and still certified", n)
	}
	var valSet *data.Dataset
	if valPath != "" {
		// a time column in --data sets the rate the validation file's must have
		opt.Ts = cmp.Or(opt.Ts, trainSet.Ts)
		if valSet, err = readData(e.ctx, "val", valPath, opt, mem); err != nil {
			return err
		}
		same := false
		if a, errA := os.Stat(valPath); errA == nil {
			if b, errB := os.Stat(dataPath); errB == nil && os.SameFile(a, b) {
				same = true
				prog.note("note: --val is the --data file: early stopping and the choice of the best iteration are then judged on the training data, which rewards overfitting; give held-out data, or leave --val out to hold out part of --data")
			}
		}
		if n := sharedInputNote("val", trainSet, valSet); n != "" && !same {
			prog.note("%s", n)
		}
	}
	extra := map[string]any{"data": dataPath, "u": cols.u, "y": cols.y}
	if check != nil {
		extra["data-check"] = check // a record, not a flag: --config skips it
	}
	if h.decay.auto() {
		// as given: a training object reused as --config for other filter
		// lengths then stretches the bound again (0.93^(50/L))
		extra["decay"] = "auto"
	}
	sopt := search.Options{Budget: *budget, Workers: cfg.Workers, AutoDecay: h.decay.auto(), AutoSkip: !isSet(fs, "skip"), TimeLimit: *timeLimit}
	all := trainSet // before any hold-out: what a refit trains on
	// whether the held-out part holds input the training part lacks: not
	// where every tail repeats its record's training input (a period or
	// an antiperiod too short to split by phase)
	heldNew := true
	if valPath == "" {
		n := trainSet.Len()
		held, heldVal, notes := holdOutGroups(trainSet, cfg.Seed)
		for _, s := range notes {
			prog.note("%s", s)
		}
		switch {
		case heldVal != nil:
			trainSet, valSet = held, heldVal
		case cfg.Structure.Branches == 0:
			prog.note("note: %d batch(es) and no --val: a linear FIR is one convex solve with nothing to select, so it is fitted to all the data without validation", n)
		default:
			// Few records (a single long experiment is common): without held-out
			// data every choice (early stopping, the best iteration) would be
			// judged on the training data, which rewards overfitting.
			// The lead-in is the model's memory, so that the scored
			// samples see a warm one; before a search, the longest memory
			// it may choose on the training part, so that every candidate
			// is scored warm and on the same samples.
			lead, memory := cfg.Structure.Memory(), "the model memory"
			if searching {
				memory = "the longest memory the structure search may choose"
				if head, _, err := data.HoldOutTails(trainSet, data.TailFraction, 0); err == nil {
					lead = search.MaxMemory(cfg.Structure, fixed, sopt, head)
				}
			}
			whole := trainSet
			tr, va, err := data.HoldOutTails(trainSet, data.TailFraction, lead)
			if err != nil {
				prog.note("note: %d batch(es) and no --val, too short to hold out their last %.0f%% after a %d-sample lead-in (%s): training without validation (no early stopping on held-out data); give --val FILE to validate", n, 100*data.TailFraction, lead, memory)
				break
			}
			// The lead-in is never scored; a longer --val-skip is kept.
			trainSet, valSet, cfg.ValSkip = tr, va, max(cfg.ValSkip, lead)
			own := "give --val FILE to use your own"
			if searching {
				// The robot arm (docs/BENCHMARKS.md, session 22): loops
				// chosen on e's tail fail on experiments excited where
				// e is not, and no split of e shows it.
				own = "the structure search then judges every model on data like its training data, which cannot show how a model extrapolates to inputs of other amplitudes or frequencies; a second experiment with other inputs, given as --val FILE, can"
			}
			prog.note("note: %d batch(es) and no --val: validating on the last %.0f%% of each batch, scored after a lead-in of %s (%d samples), training on the rest; %s", n, 100*data.TailFraction, memory, lead, own)
			for _, s := range repeatNotes(whole, data.TailFraction, lead) {
				prog.note("%s", s)
			}
			heldNew = !data.TailsRepeat(whole, data.TailFraction, lead)
		}
	}
	if valPath != "" {
		extra["val"] = valPath
	}
	if *warmPath != "" {
		extra["warm-start"] = *warmPath
	}
	scaleU, scaleY := 1.0, 1.0
	if a, b := trainer.AutoScale(trainSet); cfg.Scale == trainer.ScaleAuto {
		if scaleU, scaleY = a, b; a != 1 || b != 1 {
			prog.note("note: --scale auto: training on u×%s and y×%s, which bring their RMS near that of the mass-spring-damper data the defaults were chosen for; --rho, --eps, --gamma-g and the clips apply to the scaled data, and the model is written in your data's units (--scale none: settings in your data's units)", pow2Text(a), pow2Text(b))
		}
	} else if far := func(f float64) bool { return f < 1.0/64 || f > 64 }; far(a) || far(b) {
		prog.note("note: --scale none: the data are far from the scale the defaults were chosen for (--scale auto would multiply u by %s and y by %s), so the defaults of --rho, --eps, --gamma-g and the clips, in your data's units, may set the model instead of the data, and Adam's steps may stall on a loss of this size; give them for your data, or use --scale auto", pow2Text(a), pow2Text(b))
	}
	if valSet != nil {
		name := "the held-out part of --data"
		if valPath != "" {
			name = "--val " + valPath
		}
		switch z := zeroScored(valSet, cfg.ValSkip); {
		case len(z) == valSet.Len():
			return usagef("%s: the output is zero in every batch (from sample %d on), so no validation Fit is defined; give validation data whose output is not zero", name, cfg.ValSkip)
		case len(z) > 0:
			prog.note("note: left out of every validation score, their output being zero (Fit undefined): %s of %s", strings.Join(z, ", "), name)
		}
	}
	if searching && valPath != "" {
		if scored, memory, short := search.ShortValidation(cfg.Structure, fixed, sopt, trainSet, valSet, cfg.ValSkip); short {
			prog.note("%s", shortValNote(valPath, "the structure search", cfg.ValSkip, scored, memory))
		}
	}
	estimate := func() trainer.MemoryEstimate { return trainer.EstimateMemory(cfg, trainer.ShapeOf(trainSet, valSet)) }
	if searching && valSet != nil {
		estimate = func() trainer.MemoryEstimate { return search.EstimateMemory(cfg, fixed, sopt, trainSet, valSet) }
	}
	if err := checkMemory(estimate, prog); err != nil {
		return err
	}
	if plotDir != "" {
		// Created now, not after training: a --plot that cannot be written
		// must not be found out once the model is.
		if err := makePlotDir(plotDir); err != nil {
			return err
		}
	}
	job := trainJob{cfg: cfg, train: trainSet, val: valSet, out: out, dest: dest, plotDir: plotDir,
		settings: settings(cfg, extra), prog: prog}
	if searching && valSet == nil {
		prog.note("note: no validation data to choose a structure on: training the paper's default structure; give --val FILE")
	} else if searching {
		lc := searchLoopConfig()
		lc.Workers = cfg.Workers
		sopt.Loop = &lc
		rc := searchRENConfig()
		sopt.REN = &rc
		job.search = &searchJob{fixed: fixed, extra: extra, opt: sopt}
		switch {
		case *refitOn && valPath == "" && !heldNew:
			prog.note("note: no refit on all of --data after the search (--refit): the held-out tails repeat the training inputs, so they hold nothing new to learn, and training past the point validation chose would only fit the training record closer")
		case *refitOn && valPath == "":
			job.search.planRefit(all, prog)
		}
	}
	if err := sdir.use(job.search, cfg, trainSet, valSet, prog); err != nil {
		return err
	}
	if job.log, err = openMetricsLog(*logPath, cfg, e.stderr); err != nil {
		return err
	}
	defer job.log.close()
	oc, err := runTraining(e, job)
	var notes []string // after training; the data's notes were shown before it
	if oc.res != nil {
		notes = resultNotes(oc.cfg, oc.res, scaleU/scaleY)
		if n := closedLoopNote(oc.res.Model, valSet, oc.cfg.ValSkip); n != "" {
			notes = append(notes, n)
		}
	}
	if jsonOut && oc.res != nil {
		r := map[string]any{
			"model": dest.target(), "saved": oc.saved, "interrupted": oc.interrupted, "seconds": oc.seconds,
			"best_val_fit": jsonFloat(oc.res.BestValFit), "certificate": oc.res.Cert,
			"train_batches": numBatches(trainSet), "val_batches": numBatches(valSet),
			"taps_at_bound": oc.res.TapsAtBound, "ridge_ratio": jsonFloat(oc.res.RidgeRatio),
			"scale":      map[string]any{"mode": orNone(cfg.Scale), "u": scaleU, "y": scaleY},
			"data_check": check,
			"decay":      oc.cfg.Decay, // resolved (--decay auto is stored as "auto" in the model)
			"notes":      append(append([]string{}, dataNotes...), notes...),
		}
		if dest.backup != "" {
			r["backup"] = dest.backup
		}
		if job.search != nil && job.search.res != nil {
			r["structure_search"] = job.search.summary()
		}
		if oc.loop != "" {
			r["class"] = oc.class
			r["certificate"] = map[string]any{"passive": true, "reason": oc.loop}
		}
		if err := writeJSON(e.stdout, r); err != nil {
			return err
		}
	}
	if err != nil {
		return err
	}
	if !jsonOut && !quiet {
		cert := certText(oc.res.Cert)
		if oc.loop != "" {
			switch oc.class {
			case "ren":
				cert = "passive REN, " + oc.loop
			case meanclass.Name:
				cert = "passive weighted mean, " + oc.loop
			default:
				cert = "passive loop of two NFIRs, " + oc.loop
			}
		}
		fmt.Fprintf(e.stdout, "trained in %.1fs%s; certificate: %s\nmodel written to %s\n",
			oc.seconds, valFitText(oc.res.BestValFit), cert, dest.where())
		for _, n := range notes {
			fmt.Fprintln(e.stdout, "note: "+n)
		}
		if plotDir != "" {
			fmt.Fprintf(e.stdout, "plots written to %s\n", plotDir)
		}
	}
	return nil
}
