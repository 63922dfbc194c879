package main

// --search-dir and --search-wait of gputrain compare: every class as a trial
// of a sweep plan in a folder (package searchdir), run here through the
// sweep runner or by a cluster's array jobs, resumable; the flags are
// train's, for the same folder of trials.

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/passivenfir/gputrain/compare"
	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/searchdir"
)

func addCompareDirFlags(fs *flag.FlagSet) *searchDirFlags {
	f := &searchDirFlags{fs: fs}
	fs.StringVar(&f.dir, "search-dir", "", "train the classes as the trials of a sweep in this folder: the data once, DIR/compare/plan.json with one trial per class ('train --model CLASS --class-budget …' with compare's seed and workers), run --workers at a time through the sweep runner; finished trials are kept, so the same command resumes a stopped comparison, and the table is the one without the folder")
	fs.BoolVar(&f.wait, "search-wait", false, "with --search-dir: run no trial here, but wait for other machines to run them ('gputrain sweep run --plan DIR/compare/plan.json', a Slurm array or a Kubernetes Indexed Job; the commands are printed), then read them back into the table")
	return f
}

// checkCompare refuses --search-wait without a folder, and a folder that
// cannot be one.
func (f *searchDirFlags) checkCompare() error {
	if f.wait && f.dir == "" {
		return usagef("--search-wait waits for the trials of --search-dir DIR: give the folder")
	}
	if f.dir == "" {
		return nil
	}
	return checkOutDir("search-dir", f.dir)
}

// compare runs the comparison, in the folder when one is given.
func (f *searchDirFlags) compare(e *env, train, val, test *data.Dataset, opt compare.Options, quiet bool) (compare.Table, error) {
	if f.dir == "" {
		return compare.Run(e.ctx, train, val, test, opt)
	}
	if _, _, err := opt.Classes(); err != nil {
		return compare.Table{}, usagef("%s", strings.TrimPrefix(err.Error(), "compare: "))
	}
	t, err := searchdir.Open(f.dir, train, val, nil)
	if err != nil {
		return compare.Table{}, usagef("--search-dir %s: %s", f.dir, strings.TrimPrefix(err.Error(), "searchdir: "))
	}
	t.Train, t.Wait, t.Poll = sweepTrain, f.wait, searchDirPoll
	t.Local = opt.Workers
	if t.Local <= 0 {
		t.Local = runtime.GOMAXPROCS(0)
	}
	if !quiet {
		t.Log = e.stderr
	} else {
		t.Log = io.Discard
	}
	tab, err := t.Compare(e.ctx, train, val, test, opt)
	if errors.Is(err, searchdir.ErrOther) {
		return tab, usagef("--search-dir %s: %s (another comparison: other classes, --quick, --seed or --workers)", f.dir, strings.TrimPrefix(err.Error(), "searchdir: "))
	}
	if err != nil && len(tab.Rows) == 0 {
		return tab, fmt.Errorf("--search-dir %s: %w", f.dir, err)
	}
	return tab, err
}
