package main

// --search-dir and --search-wait of gputrain train: the structure search's
// rungs as sweeps in a folder (package searchdir), run here through the
// sweep runner or by a cluster's array jobs, resumable.

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"github.com/passivenfir/gputrain/baselines"
	"runtime"
	"strings"
	"time"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/loop"
	"github.com/passivenfir/gputrain/search"
	"github.com/passivenfir/gputrain/searchdir"
	"github.com/passivenfir/gputrain/trainer"
)

// searchDirPoll is how often --search-wait looks for finished trials.
var searchDirPoll = 2 * time.Second

// searchLoopConfig is the loop family's configuration in a structure
// search (a test shortens it; the loop trials under --search-dir pass its
// epochs as --loop-epochs and refuse other changes).
var searchLoopConfig = loop.DefaultConfig

// searchRENConfig is the passive RENs' configuration in a structure search
// (a test shortens it).
var searchRENConfig = baselines.SimulationRENConfig

type searchDirFlags struct {
	dir  string
	wait bool
	fs   *flag.FlagSet
}

func addSearchDirFlags(fs *flag.FlagSet) *searchDirFlags {
	f := &searchDirFlags{fs: fs}
	fs.StringVar(&f.dir, "search-dir", "", "run the structure search's rungs as sweeps in this folder: DIR/rung-K/plan.json, one trial per candidate, --workers at a time through the sweep runner, then DIR/loops/plan.json, one trial per loop of the loop family, one at a time with --workers each (a loop's result depends on them); finished trials are kept, so the same command resumes a stopped search, and the result is the search's without the folder")
	fs.BoolVar(&f.wait, "search-wait", false, "with --search-dir: run no trial here, but wait for other machines to run each rung's trials ('gputrain sweep run --plan DIR/rung-K/plan.json', then DIR/loops/plan.json, a Slurm array or a Kubernetes Indexed Job; the commands are printed) and go on when they are done")
	return f
}

// check refuses the flags where no search runs; it is called once the
// command knows whether it searches.
func (f *searchDirFlags) check(searching bool) error {
	if f.wait && f.dir == "" {
		return usagef("--search-wait waits for the trials of --search-dir DIR: give the folder")
	}
	if f.dir == "" {
		return nil
	}
	if !searching {
		return usagef("--search-dir %s: no structure search runs (--search off, a structure flag with --search auto, or --warm-start): leave --search-dir out", f.dir)
	}
	return checkOutDir("search-dir", f.dir)
}

// use makes the search train its rungs in the folder: it writes the data
// split and the search's settings there, or checks those already there.
func (f *searchDirFlags) use(sj *searchJob, cfg trainer.Config, train, val *data.Dataset, prog *progress) error {
	if f.dir == "" {
		return nil
	}
	if sj == nil {
		return usagef("--search-dir %s: no structure search runs without validation data; give --val FILE", f.dir)
	}
	record := cfg.Settings()
	delete(record, "workers") // the rungs' trials train on one worker each: resume with any number
	identity := map[string]any{
		"settings": record, "budget": sj.opt.Budget, "fixed": sj.fixed, "auto_decay": sj.opt.AutoDecay, "max_taps": sj.opt.MaxTaps,
	}
	if sj.opt.Loop != nil && sj.fixed == (search.Fixed{}) {
		// A loop splits its gradients over its workers, so its trial's
		// result depends on them: a resumed search must use as many.
		identity["loop_workers"] = cmp.Or(sj.opt.Loop.Workers, sj.opt.Workers, runtime.GOMAXPROCS(0))
	}
	t, err := searchdir.Open(f.dir, train, val, identity)
	if errors.Is(err, searchdir.ErrOther) {
		hint := ""
		if w, ok := identity["loop_workers"]; ok {
			hint = fmt.Sprintf(" (the loop family's trials depend on --workers, %d here: resume with the count the search started with)", w)
		}
		return usagef("--search-dir %s: %s%s", f.dir, strings.TrimPrefix(err.Error(), "searchdir: "), hint)
	}
	if err != nil {
		return usagef("--search-dir %s: %s", f.dir, strings.TrimPrefix(err.Error(), "searchdir: "))
	}
	t.Train, t.Wait, t.Poll = sweepTrain, f.wait, searchDirPoll
	t.Local = cfg.Workers
	if t.Local <= 0 {
		t.Local = runtime.GOMAXPROCS(0)
	}
	if prog != nil {
		t.Log = noteWriter{prog}
	}
	sj.opt.Trainer = t
	return nil
}

// noteWriter writes each line as a progress note.
type noteWriter struct{ p *progress }

func (w noteWriter) Write(b []byte) (int, error) {
	w.p.note("%s", strings.TrimRight(string(b), "\n"))
	return len(b), nil
}

var _ search.RungTrainer = (*searchdir.Trainer)(nil)
