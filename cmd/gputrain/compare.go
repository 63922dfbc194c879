package main

import (
	"cmp"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/passivenfir/gputrain/classes"
	_ "github.com/passivenfir/gputrain/classes/all"
	"github.com/passivenfir/gputrain/compare"
	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/internal/atomicfile"
	"github.com/passivenfir/gputrain/plot"
	"github.com/passivenfir/gputrain/search"
	"github.com/passivenfir/gputrain/trainer"
)

func runCompare(e *env, args []string) error {
	fs := newFlags("gputrain compare")
	var (
		dataPath, valPath, testPath, plotDir, outDir, config string
		only                                                 classes.List
		seed                                                 uint64
		workers, valSkip, skip                               int
		ts                                                   float64
		quick, quiet, jsonOut                                bool
	)
	fs.StringVar(&dataPath, "data", "", "training data file: .csv (columns u,y[,batch]), .npy, .npz or .mat")
	fs.StringVar(&valPath, "val", "", "validation data file: every class selects its size or stops early on it, and the table shows its Fit")
	fs.StringVar(&testPath, "test", "", "test data file (optional): the table shows its Fit, and is sorted by it")
	fs.Var(&only, "only", "comma-separated classes to train (default: all of "+fmt.Sprint(classes.Names())+")")
	fs.BoolVar(&quick, "quick", false, "smaller training budgets (fewer epochs, smaller searches) for a first look")
	fs.Uint64Var(&seed, "seed", 1, "random seed of every class")
	fs.IntVar(&workers, "workers", 0, "goroutines in all (0: one per CPU); classes train side by side, sharing them")
	fs.IntVar(&valSkip, "val-skip", 0, "samples at the start of each validation record simulated but not scored")
	fs.IntVar(&skip, "skip", 0, "samples at the start of each test record simulated but not scored")
	fs.StringVar(&outDir, "out", "", "directory for every trained model's file, CLASS.json (eval, simulate and certify read them); existing ones are refused unless --force")
	force := addForceFlag(fs)
	fs.StringVar(&plotDir, "plot", "", "directory for the plot of every class's free-run output on the first test (else validation) record")
	fs.StringVar(&config, "config", "", "TOML or YAML file of flag values")
	cols := addColumnFlags(fs, "name of the output column (CSV) or variable (.npz, .mat)")
	fs.Float64Var(&ts, "ts", 0, "sampling time in seconds, recorded in the model files (0: the step of the data file's time column, --time, else unknown)")
	fs.BoolVar(&quiet, "quiet", false, "no progress on stderr")
	sdir := addCompareDirFlags(fs)
	fs.BoolVar(&jsonOut, "json", false, `print the table as one JSON object on stdout: {"data", "data_check", "rows": [{"class", "val_fit", "test_fit", "passive", "certificate", "params", "seconds", "error"}…]}`)
	spec := flagSpec{
		usage: "gputrain compare --data FILE --val FILE [--test FILE] [--only fir,nfir,…] [--quick] [--json] [--plot DIR] [--out DIR] [--search-dir DIR [--search-wait]]",
		about: `Train every model class a user would otherwise pick on the same data and print one table:
closed-loop (free-run) Fit on validation and test data (median over records), whether the model
is certified passive, its parameters and training time, with the data check of the training data
(energy supply Σu·y, output offset). A class that cannot run on the data says why in its row.
Classes train side by side on --workers goroutines; one line per class start and end on stderr.`,
		example: `gputrain gen msd --batches 60 --seed 1 --out train.csv
gputrain gen msd --batches 20 --seed 2 --out val.csv
gputrain gen msd --batches 20 --seed 3 --out test.csv
gputrain compare --data train.csv --val val.csv --test test.csv --quick`,
	}
	if err := parseFlags(e, fs, spec, args); err != nil {
		return err
	}
	switch {
	case valPath == "":
		return usagef("--val FILE is required: every class selects or stops early on validation data")
	case workers < 0 || valSkip < 0 || skip < 0:
		return usagef("--workers, --val-skip and --skip must be ≥ 0")
	case !finite(ts) || ts < 0:
		return usagef("--ts %v: must be a finite number ≥ 0", ts)
	}
	if err := sdir.checkCompare(); err != nil {
		return err
	}
	for flag, dir := range map[string]string{"out": outDir, "plot": plotDir} {
		if dir == "" {
			continue
		}
		if err := checkOutDir(flag, dir); err != nil {
			return err
		}
		if err := makeOutDir(flag, dir); err != nil {
			return err
		}
	}
	if outDir != "" {
		// The model files compare will write: refused when they exist,
		// unless --force, which keeps each as CLASS.json.bak.
		names := []string(only)
		if names == nil {
			names = classes.Names()
		}
		var paths []string
		for _, n := range names {
			paths = append(paths, filepath.Join(outDir, n+".json"))
		}
		if err := refuseExisting("out", *force, paths...); err != nil {
			return err
		}
		for _, p := range paths {
			if _, err := atomicfile.Backup(p); err != nil {
				return failf("--out %s: keeping the existing file: %v; nothing written", outDir, err)
			}
		}
	}
	opt := cols.options(ts)
	train, err := readData(e.ctx, "data", dataPath, opt, 1)
	if err != nil {
		return err
	}
	if zeroInput(train) {
		return usagef("--data %s: the input %q is zero in every sample; nothing can be identified from it", dataPath, cols.u)
	}
	// a time column in --data sets the rate the other files' must have
	opt.Ts = cmp.Or(opt.Ts, train.Ts)
	val, err := readData(e.ctx, "val", valPath, opt, valSkip+1)
	if err != nil {
		return err
	}
	var test *data.Dataset
	if testPath != "" {
		if test, err = readData(e.ctx, "test", testPath, opt, skip+1); err != nil {
			return err
		}
	}
	if !quiet {
		if n := timeColNote(train); n != "" {
			fmt.Fprintln(e.stderr, n)
		}
		for _, o := range []struct {
			name string
			d    *data.Dataset
		}{{"val", val}, {"test", test}} {
			if o.d == nil {
				continue
			}
			if n := sharedInputNote(o.name, train, o.d); n != "" {
				fmt.Fprintln(e.stderr, n)
			}
		}
		// The classes' longest memory is the structure search's (class
		// nfir), from the FIR grid's longest length on these records.
		st := trainer.DefaultConfig().Structure
		if scored, memory, short := search.ShortValidation(st, search.Fixed{}, search.Options{}, train, val, valSkip); short {
			fmt.Fprintln(e.stderr, shortValNote(valPath, "the classes", valSkip, scored, memory))
		}
	}
	copt := compare.Options{Only: only, Seed: seed, Workers: workers, ValSkip: valSkip, TestSkip: skip, OutDir: outDir}
	if quick {
		copt.Budget = classes.Quick
	}
	if !quiet {
		copt.Progress = func(l string) { fmt.Fprintln(e.stderr, l) }
	}
	tab, err := sdir.compare(e, train, val, test, copt, quiet)
	if ce := (*cliError)(nil); errors.As(err, &ce) {
		return err
	}
	if len(tab.Rows) == 0 {
		return failf("%v", err)
	}
	interrupted := err != nil
	if plotDir != "" && !interrupted {
		if err := comparePlot(filepath.Join(plotDir, "compare"), tab, val, test, valSkip, skip); err != nil {
			return err
		}
	}
	if jsonOut {
		if err := writeJSON(e.stdout, tab); err != nil {
			return err
		}
	} else {
		tab.Write(e.stdout)
	}
	if interrupted {
		return failf("interrupted: %v; the rows above are the classes finished before", err)
	}
	for _, r := range tab.Rows {
		if r.Error == "" {
			return nil
		}
	}
	return failf("no class could run on the data; see the table")
}

// comparePlot draws every class's free-run output on the first record of
// test (else val) against the measured one, with its Fit from sample
// testSkip (else valSkip) on.
func comparePlot(base string, tab compare.Table, val, test *data.Dataset, valSkip, testSkip int) error {
	d, skip := test, testSkip
	if d == nil {
		d, skip = val, valSkip
	}
	b := d.Batches[0]
	var traces []plot.Trace
	for _, r := range tab.Rows {
		if r.Model == nil {
			continue
		}
		traces = append(traces, responseTrace(fmt.Sprintf("%s, %s: %s", r.Class, d.Name, b.Name(0)), b, d.YCol, skip, r.Model.Simulate(b.U)))
	}
	if len(traces) == 0 {
		return nil
	}
	if err := plot.Responses(base, traces, d.Ts); err != nil {
		return failf("%v", err)
	}
	return nil
}
