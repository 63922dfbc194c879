package compare

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/passivenfir/gputrain/classes"
	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/trainer"
	"github.com/passivenfir/gputrain/trials"
)

// Options configure Run.
type Options struct {
	// Only names the classes to train, in this order (nil: every registered
	// class, in registration order).
	Only   []string
	Budget classes.Budget
	Seed   uint64
	// Workers is the number of goroutines in all (0: GOMAXPROCS): up to that
	// many classes train at once, sharing them.
	Workers int
	// ValSkip and TestSkip are the samples at the start of every validation
	// and test record that are simulated but not scored.
	ValSkip, TestSkip int
	// OutDir, when set, receives every trained model's file, CLASS.json
	// (the directory must exist).
	OutDir string
	// Progress, when set, receives one line as each class starts and one as
	// it ends; it may be called from several goroutines, one line at a time.
	Progress func(line string)
	// Fit, when set, trains class c in place of c.Fit (which it must
	// equal for the table to be the comparison's) and returns the model
	// with its training time in seconds: package searchdir trains each
	// class as a trial of a sweep, and Fit reads the trial's model back.
	Fit func(ctx context.Context, c classes.Class, train, val *data.Dataset, opt classes.FitOptions) (classes.Model, float64, error)
}

// Classes returns the classes opt trains, in order, and the FitOptions
// every one of them gets: up to Workers classes train side by side, each
// on its share of the workers.
func (opt Options) Classes() ([]classes.Class, classes.FitOptions, error) {
	if opt.Workers < 0 || opt.ValSkip < 0 || opt.TestSkip < 0 {
		return nil, classes.FitOptions{}, fmt.Errorf("compare: workers %d, val skip %d and test skip %d must be ≥ 0", opt.Workers, opt.ValSkip, opt.TestSkip)
	}
	names := opt.Only
	if names == nil {
		names = classes.Names()
	}
	var cs []classes.Class
	for _, n := range names {
		c, err := classes.Lookup(n)
		if err != nil {
			return nil, classes.FitOptions{}, fmt.Errorf("compare: %w", err)
		}
		cs = append(cs, c)
	}
	if len(cs) == 0 {
		return nil, classes.FitOptions{}, errors.New("compare: no class to train")
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	return cs, classes.FitOptions{Seed: opt.Seed, Workers: max(1, workers/min(workers, len(cs))), Budget: opt.Budget, ValSkip: opt.ValSkip}, nil
}

// Row is one class's result. Fits are the median over records of the
// closed-loop (free-run) Fit in percent, NaN where not measured.
type Row struct {
	Class   string
	About   string
	ValFit  float64
	TestFit float64
	// Passive says whether the model is certified passive; Certificate is
	// the certificate or the reason there is none.
	Passive     bool
	Certificate string
	Params      int
	Seconds     float64 // training time, wall clock (classes train side by side)
	// Error says why the class could not run on the data ("" when it did).
	Error string
	File  string        // the model file written under Options.OutDir
	Model classes.Model // nil when Error is set
}

// DataInfo describes one data set of the comparison.
type DataInfo struct {
	Records int     `json:"records"`
	Samples int     `json:"samples"`
	Ts      float64 `json:"ts"`
}

func info(d *data.Dataset) *DataInfo {
	if d == nil {
		return nil
	}
	return &DataInfo{Records: d.Len(), Samples: d.Samples(), Ts: d.Ts}
}

// Table is the result of Run: the rows sorted best first (by test Fit when
// there are test data, else by validation Fit; rows without a Fit last), and
// the data check of the training data.
type Table struct {
	Rows             []Row
	Check            *trainer.DataCheck // nil when the check could not run
	CheckError       string
	Train, Val, Test *DataInfo
	Seconds          float64
	Budget           classes.Budget
}

// CheckTaps is the FIR length of the data check's offset fit, as in
// gputrain train: long enough for most plants' memory.
const CheckTaps = 200

// Run trains the classes of opt on train, selecting and early-stopping on
// val, and scores them on val and test (test may be nil). When ctx is
// cancelled it returns the rows finished so far (the others say so) with
// ctx's error.
func Run(ctx context.Context, train, val, test *data.Dataset, opt Options) (Table, error) {
	t := Table{Train: info(train), Val: info(val), Test: info(test), Budget: opt.Budget}
	if train == nil || train.Len() == 0 {
		return t, errors.New("compare: no training data")
	}
	if val == nil || val.Len() == 0 {
		return t, errors.New("compare: no validation data (every class selects or stops on it)")
	}
	cs, fitOpt, err := opt.Classes()
	if err != nil {
		return t, err
	}
	start := time.Now()
	if c, err := trainer.CheckData(ctx, train, CheckTaps); err != nil {
		t.CheckError = err.Error()
	} else {
		t.Check = &c
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	par := min(workers, len(cs))
	var mu sync.Mutex
	say := func(format string, a ...any) {
		if opt.Progress != nil {
			mu.Lock()
			opt.Progress(fmt.Sprintf(format, a...))
			mu.Unlock()
		}
	}
	t.Rows = make([]Row, len(cs))
	// The classes are trials of the runner of the structure search and
	// sweep; runOne keeps a class's panic in its row.
	errs := trials.Local{Parallel: par}.Run(ctx, len(cs), func(ctx context.Context, i int) error {
		c := cs[i]
		say("%s: training (%s)", c.Name(), c.About())
		t.Rows[i] = runOne(ctx, c, train, val, test, fitOpt, opt)
		r := t.Rows[i]
		if r.Error != "" {
			say("%s: failed after %.1fs: %s", r.Class, r.Seconds, r.Error)
		} else {
			say("%s: done in %.1fs, val fit %.2f%%", r.Class, r.Seconds, r.ValFit)
		}
		return nil
	})
	for i, err := range errs {
		if !trials.Started(err) {
			t.Rows[i] = Row{Class: cs[i].Name(), About: cs[i].About(), ValFit: math.NaN(), TestFit: math.NaN(), Error: "not run: interrupted"}
		}
	}
	t.Seconds = time.Since(start).Seconds()
	t.sort()
	return t, ctx.Err()
}

// runOne trains and scores one class; any failure, a panic included,
// becomes the row's Error.
func runOne(ctx context.Context, c classes.Class, train, val, test *data.Dataset, fitOpt classes.FitOptions, opt Options) (r Row) {
	r = Row{Class: c.Name(), About: c.About(), ValFit: math.NaN(), TestFit: math.NaN()}
	start := time.Now()
	defer func() {
		if p := recover(); p != nil {
			r.Model, r.Error = nil, fmt.Sprintf("internal error: %v", p)
		}
		if opt.Fit == nil {
			r.Seconds = time.Since(start).Seconds()
		}
	}()
	var m classes.Model
	var err error
	if opt.Fit != nil {
		m, r.Seconds, err = opt.Fit(ctx, c, train, val, fitOpt)
	} else {
		m, err = c.Fit(ctx, train, val, fitOpt)
		r.Seconds = time.Since(start).Seconds()
	}
	if err != nil {
		r.Error = oneLine(err)
		return r
	}
	r.Model, r.Params = m, m.NumParams()
	cert, err := m.Certify()
	if err != nil {
		r.Certificate = "certificate failed: " + oneLine(err)
	} else {
		r.Passive, r.Certificate = cert.Passive, cert.Reason
	}
	vs, err := classes.Evaluate(m, val, opt.ValSkip, fitOpt.Workers)
	if err != nil {
		r.Error = "validation: " + oneLine(err)
		return r
	}
	r.ValFit = vs.Median
	if test != nil {
		ts, err := classes.Evaluate(m, test, opt.TestSkip, fitOpt.Workers)
		if err != nil {
			r.Error = "test: " + oneLine(err)
			return r
		}
		r.TestFit = ts.Median
	}
	if opt.OutDir != "" {
		path := filepath.Join(opt.OutDir, r.Class+".json")
		training, _ := json.Marshal(map[string]any{"class": r.Class, "seed": opt.Seed, "budget": budgetName(opt.Budget)})
		if err := classes.Save(path, m, classes.Meta{Ts: train.Ts, Training: training}); err != nil {
			r.Error = "saving: " + oneLine(err)
			return r
		}
		r.File = path
	}
	return r
}

func oneLine(err error) string { return strings.ReplaceAll(err.Error(), "\n", "; ") }

func budgetName(b classes.Budget) string {
	if b == classes.Quick {
		return "quick"
	}
	return "full"
}

// sort orders the rows best first: by test Fit when any row has one, else by
// validation Fit; rows that failed or have no Fit go last, in their order.
func (t *Table) sort() {
	byTest := slices.ContainsFunc(t.Rows, func(r Row) bool { return !math.IsNaN(r.TestFit) })
	key := func(r Row) float64 {
		f := r.ValFit
		if byTest {
			f = r.TestFit
		}
		if r.Error != "" || math.IsNaN(f) {
			return math.Inf(-1)
		}
		return f
	}
	slices.SortStableFunc(t.Rows, func(a, b Row) int { return cmp.Compare(key(b), key(a)) })
}

// Write prints the table as text: the data, the data check, one line per
// class and, below, the reason of every class that is not certified passive
// or could not run.
func (t Table) Write(w io.Writer) {
	fmt.Fprintf(w, "data: %s\n", t.dataLine())
	fmt.Fprintf(w, "data check: %s\n", t.checkLine())
	hasTest := t.Test != nil
	fmt.Fprintf(w, "%-9s %9s", "class", "val fit")
	if hasTest {
		fmt.Fprintf(w, " %9s", "test fit")
	}
	fmt.Fprintf(w, " %-8s %8s %9s\n", "passive", "params", "time")
	pct := func(f float64) string {
		if math.IsNaN(f) {
			return "–"
		}
		return fmt.Sprintf("%.2f%%", f)
	}
	var why []string
	for _, r := range t.Rows {
		if r.Error != "" {
			fmt.Fprintf(w, "%-9s %s\n", r.Class, "cannot run: "+r.Error)
			continue
		}
		fmt.Fprintf(w, "%-9s %9s", r.Class, pct(r.ValFit))
		if hasTest {
			fmt.Fprintf(w, " %9s", pct(r.TestFit))
		}
		passive := "no"
		if r.Passive {
			passive = "yes"
		} else {
			why = append(why, fmt.Sprintf("  %s: %s", r.Class, r.Certificate))
		}
		fmt.Fprintf(w, " %-8s %8d %8.1fs\n", passive, r.Params, r.Seconds)
	}
	if len(why) > 0 {
		fmt.Fprintln(w, "not certified passive:")
		for _, l := range why {
			fmt.Fprintln(w, l)
		}
	}
	fmt.Fprintf(w, "Fit: median over records of 100(1 − ‖y − ŷ‖/‖y‖), free run from rest; %s budget; %.1fs in all\n", budgetName(t.Budget), t.Seconds)
}

func (t Table) dataLine() string {
	part := func(name string, d *DataInfo) string {
		return fmt.Sprintf("%s %d records (%d samples)", name, d.Records, d.Samples)
	}
	s := []string{part("train", t.Train), part("val", t.Val)}
	if t.Test != nil {
		s = append(s, part("test", t.Test))
	}
	ts := "Ts unknown"
	if t.Train.Ts > 0 {
		ts = fmt.Sprintf("Ts %g s", t.Train.Ts)
	}
	return strings.Join(s, ", ") + "; " + ts
}

func (t Table) checkLine() string {
	c := t.Check
	if c == nil {
		return "did not run: " + t.CheckError
	}
	s := fmt.Sprintf("energy supply Σu·y = %.3g·‖u‖‖y‖ (%d of %d records negative, %d dip below zero partway, lowest %.2g), output offset %.2g·rms(y)",
		c.Supply, c.NegativeBatches, c.Batches, c.DipBatches, c.Dip, c.Offset)
	if c.Passive {
		s += "; verdict: a passive-looking pair"
	} else {
		s += "; verdict: NOT a passive pair (" + strings.Join(c.Causes, "; ") + ")"
	}
	var notes []string
	if c.Supply < 0 {
		notes = append(notes, "negative supply: no passive model started at rest can follow these data (sign of u or y? an output not collocated with u?)")
	} else if float64(c.DipBatches) > trainer.DipNote*float64(c.Batches) {
		notes = append(notes, "the supply dips below zero partway in many records: the pair may not be passive (position for a force?)")
	}
	if math.Abs(c.Offset) > trainer.OffsetNote {
		notes = append(notes, "y has an offset no model mapping u = 0 to y = 0 explains")
	}
	if len(notes) > 0 {
		s += "; NOTE: " + strings.Join(notes, "; ")
	}
	return s
}
