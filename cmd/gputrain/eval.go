package main

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/model"
	"github.com/passivenfir/gputrain/trainer"
)

// loadModel reads a model file; a missing or invalid file is bad input.
func loadModel(path string) (*model.NFIR, model.Meta, error) {
	if path == "" {
		return nil, model.Meta{}, usagef("--model FILE is required (a model.json written by 'gputrain train')")
	}
	m, meta, err := model.Load(path)
	if err != nil {
		return nil, meta, modelFileError(err)
	}
	return m, meta, nil
}

// evalJSON is the --json shape of eval: {"fit": {"closed_loop": …, "open_loop": …},
// "nrmse_fit": {…}, "measures": {"fit": formula, "nrmse_fit": formula}}.
type evalJSON struct {
	Fit      fitJSON           `json:"fit"`       // the paper's Fit (fitPaperFormula)
	NRMSEFit fitJSON           `json:"nrmse_fit"` // MATLAB compare's fit (fitNRMSEFormula)
	Measures map[string]string `json:"measures"`  // each measure's formula, by key
	Model    string            `json:"model"`
	Data     string            `json:"data"`
	Skip     int               `json:"skip"`
	Batches  int               `json:"batches"`
	ScoredOn string            `json:"scored_on"` // "y" or "y_clean"
}

func runEval(e *env, args []string) error {
	fs := newFlags("gputrain eval")
	var (
		modelPath, dataPath, plotDir, config string
		skip, plotBatches, workers           int
		ts                                   float64
		jsonOut                              bool
	)
	fs.StringVar(&modelPath, "model", "", "model file written by 'gputrain train'")
	fs.StringVar(&dataPath, "data", "", "data file: .csv (columns u,y[,batch][,y_clean]), .npy, .npz or .mat; - reads standard input")
	fs.IntVar(&skip, "skip", 0, "score from sample N on (e.g. 50 to skip a transient, as the paper does for the robot)")
	fs.StringVar(&plotDir, "plot", "", "directory for measured-vs-simulated and Re G plots (PNG and SVG)")
	fs.IntVar(&workers, "workers", 0, "batches simulated at once (0: one per CPU)")
	fs.IntVar(&plotBatches, "plot-batches", 3, "number of batches in the measured-vs-simulated plot")
	fs.StringVar(&config, "config", "", "TOML or YAML file of flag values")
	cols := addColumnFlags(fs, "name of the output column (CSV) or variable (.npz, .mat)")
	cols.note(fs)
	fs.Float64Var(&ts, "ts", 0, "sampling time in seconds for the plots' time axis (0: the model's, else samples)")
	allowTs := fs.Bool("allow-ts-mismatch", false, allowTsUsage)
	allowNonfinite := fs.Bool("allow-nonfinite", false, allowNonfiniteUsage)
	fs.BoolVar(&jsonOut, "json", false, `print {"fit": {"closed_loop": {"mean","median","min","max","per_batch"}, "open_loop": {…}}, "nrmse_fit": {…}, "measures": {"fit": formula, "nrmse_fit": formula}} on stdout`)
	spec := flagSpec{
		usage: "gputrain eval --model model.json --data FILE [--skip N] [--plot DIR] [--json]",
		about: `Fit [%] = 100·(1 − ‖y − ŷ‖/‖y‖) per batch, and its mean, median, min and max, in closed loop
(the deployed model feeds back its own output, q(t) = ŷ(t−1)) and open loop (q(t) = y(t−1) from
the data, the one-step-ahead predictor). When the data has a y_clean column, Fit is scored
against it (noise-free output), as in the paper. Beside it, MATLAB compare's NRMSE fit [%] =
100·(1 − ‖y − ŷ‖/‖y − mean(y)‖), which scores against the mean of y instead of zero. A simulation
that goes non-finite fails (exit 1) unless --allow-nonfinite; --ts that differs from the model's
sampling time is refused (exit 2) unless --allow-ts-mismatch.`,
		example: `gputrain eval --model model.json --data test.csv
gputrain eval --model model.json --data test.csv --skip 50 --plot plots --json`,
	}
	if err := parseFlags(e, fs, spec, args); err != nil {
		return err
	}
	if skip < 0 {
		return usagef("--skip %d: must be ≥ 0", skip)
	}
	if workers < 0 {
		return usagef("--workers %d: must be ≥ 0", workers)
	}
	if workers > 0 {
		// trainer.Evaluate runs GOMAXPROCS batches at once; eval does
		// nothing else in parallel, so this bounds the CPUs it takes.
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(workers))
	}
	if plotBatches < 1 {
		return usagef("--plot-batches %d: must be ≥ 1", plotBatches)
	}
	if !finite(ts) || ts < 0 {
		return usagef("--ts %v: must be a finite number ≥ 0", ts)
	}
	cm, cmeta, isClass, err := classFile(modelPath)
	if err != nil {
		return err
	}
	var m *model.NFIR
	meta := model.Meta{Ts: cmeta.Ts, Training: cmeta.Training}
	if !isClass {
		if m, meta, err = loadModel(modelPath); err != nil {
			return err
		}
	}
	if err := checkTs(modelPath, meta.Ts, ts, *allowTs); err != nil {
		return err
	}
	cols.useModel(fs, meta.Training)
	d, err := cols.read(ts, func(opt data.ReadOptions) (*data.Dataset, error) { return readData(e.ctx, "data", dataPath, opt, 1) })
	if err != nil {
		return err
	}
	if err := checkColumnTs(modelPath, meta.Ts, d, *allowTs); err != nil {
		return err
	}
	if d.Ts == 0 {
		d.Ts = meta.Ts
	}
	for i, b := range d.Batches {
		if b.Len() <= skip {
			return usagef("--skip %d: %s of %s has only %d samples, none left to score; lower --skip", skip, b.Name(i), dataPath, b.Len())
		}
	}
	if plotDir != "" {
		if err := makePlotDir(plotDir); err != nil {
			return err
		}
	}
	var ev trainer.Eval
	if isClass {
		ev, err = orInterrupt(e.ctx, func() (trainer.Eval, error) { return evalClass(cm, d, skip) })
	} else {
		ev, err = trainer.EvaluateContext(e.ctx, m, d, skip)
	}
	if isInterrupt(err) {
		return interrupted("before the Fit was computed; nothing written")
	}
	if err != nil {
		return badInput(fmt.Errorf("evaluating %s on %s: %w", modelPath, dataPath, err))
	}
	if !*allowNonfinite {
		if err := nonfiniteFit(ev, d, skip, dataPath); err != nil {
			return err
		}
	}
	if plotDir != "" && e.ctx.Err() != nil {
		return interrupted("after the Fit, before the plots; nothing written")
	}
	if plotDir != "" && isClass {
		if err := classResponsePlot(filepath.Join(plotDir, "fit"), cm, d, plotBatches, skip); err != nil {
			return err
		}
	} else if plotDir != "" {
		if err := responsePlot(filepath.Join(plotDir, "fit"), m, d, plotBatches, skip); err != nil {
			return err
		}
		if err := realPartPlot(filepath.Join(plotDir, "re_g"), m, storedBound(meta)); err != nil {
			return err
		}
	}
	scored := "y"
	if d.Batches[0].YClean != nil {
		scored = "y_clean"
	}
	if jsonOut {
		var r evalJSON
		r.Fit, r.NRMSEFit, r.Measures = toFitJSON(ev.ClosedLoop, ev.OpenLoop), toFitJSON(ev.NRMSE.ClosedLoop, ev.NRMSE.OpenLoop), fitMeasures()
		r.Model, r.Data, r.Skip, r.Batches, r.ScoredOn = modelPath, dataPath, skip, d.Len(), scored
		return writeJSON(e.stdout, r)
	}
	fmt.Fprintf(e.stdout, "%s on %s: %d batches, Fit scored against %s from sample %d\n", modelPath, dataPath, d.Len(), scored, skip)
	var undefined []string
	for i, v := range ev.ClosedLoop.PerBatch {
		if math.IsNaN(v) {
			undefined = append(undefined, d.Batches[i].Name(i))
		}
	}
	if len(undefined) > 0 {
		fmt.Fprintf(e.stdout, "left out: %s, whose %s is zero from sample %d on (Fit undefined)\n", strings.Join(undefined, ", "), scored, skip)
	}
	fitTable(e.stdout, ev)
	if plotDir != "" {
		fmt.Fprintf(e.stdout, "plots written to %s\n", plotDir)
	}
	return nil
}

// nonfiniteFit is the failure of a simulation that went non-finite on a
// batch of d, which shows as a Fit of −Inf or NaN on a batch whose scored
// output is not zero (those have no Fit, and are NaN by design).
func nonfiniteFit(ev trainer.Eval, d *data.Dataset, skip int, dataPath string) error {
	for _, r := range []struct {
		what string
		s    model.Summary
	}{{"closed-loop simulation", ev.ClosedLoop}, {"open-loop prediction", ev.OpenLoop}} {
		for i, v := range r.s.PerBatch {
			if finite(v) || math.IsNaN(v) && len(zeroScored(&data.Dataset{Batches: d.Batches[i : i+1]}, skip)) == 1 {
				continue
			}
			return failf("the %s of %s of %s is not finite (Fit %v): the model diverges on this input, and no Fit can be reported; --allow-nonfinite reports it anyway (as null in --json)", r.what, d.Batches[i].Name(i), dataPath, v)
		}
	}
	return nil
}

// fitTable prints the closed- and open-loop summaries of both fit measures
// (fitmeasures.go), each under its name and formula.
func fitTable(w io.Writer, ev trainer.Eval) {
	for _, t := range []struct {
		head, formula string
		closed, open  model.Summary
	}{{"Fit [%]", fitPaperFormula, ev.ClosedLoop, ev.OpenLoop}, {"NRMSE fit [%]", fitNRMSEFormula, ev.NRMSE.ClosedLoop, ev.NRMSE.OpenLoop}} {
		fmt.Fprintf(w, "%-13s %8s %8s %8s %8s   %s\n", t.head, "median", "mean", "min", "max", t.formula)
		for _, r := range []struct {
			name string
			s    model.Summary
		}{{"closed loop", t.closed}, {"open loop", t.open}} {
			fmt.Fprintf(w, "%-13s %8.2f %8.2f %8.2f %8.2f\n", r.name, r.s.Median, r.s.Mean, r.s.Min, r.s.Max)
		}
	}
}

// summaryJSON is model.Summary with non-finite values (a diverging
// simulation) as null, which JSON can carry.
type summaryJSON struct {
	Mean     *float64   `json:"mean"`
	Median   *float64   `json:"median"`
	Min      *float64   `json:"min"`
	Max      *float64   `json:"max"`
	PerBatch []*float64 `json:"per_batch"`
}

func toSummaryJSON(s model.Summary) summaryJSON {
	r := summaryJSON{Mean: jsonFloat(s.Mean), Median: jsonFloat(s.Median), Min: jsonFloat(s.Min), Max: jsonFloat(s.Max),
		PerBatch: make([]*float64, len(s.PerBatch))}
	for i, v := range s.PerBatch {
		r.PerBatch[i] = jsonFloat(v)
	}
	return r
}
