package sweep

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/passivenfir/gputrain/internal/atomicfile"
	"github.com/passivenfir/gputrain/trials"
)

// The files of a trial's folder. The folder appears complete, by a rename,
// with exactly one of the markers.
const (
	ModelFile   = "model.json"
	MetricsFile = "metrics.json"
	LogFile     = "train.log"
	DoneFile    = "done"
	FailedFile  = "failed"
	// ExitFile, in a hidden work folder, records the exit code of an
	// attempt that ended without finishing the trial (Runner.Attempts).
	ExitFile = "exit"
)

// ExitUsage is the exit code of a TrainFunc for bad input: the trial is
// recorded as failed and never retried. Any other non-zero code leaves the
// trial pending, to be run again.
const ExitUsage = 2

// TrainFunc runs one training with train's command-line flags and returns
// its exit code. It writes the model to the file after --out and, with
// --json, one JSON object of results to stdout; its progress and messages
// go to stderr, the trial's log.
type TrainFunc func(ctx context.Context, args []string, stdout, stderr io.Writer) int

// Status is what became of a trial.
type Status int

const (
	Pending Status = iota // not run, or run and interrupted, or failed in a way worth retrying
	Done                  // finished: model, metrics, log and the done marker
	Failed                // bad input (exit 2): the failed marker, never retried
)

func (s Status) String() string {
	switch s {
	case Done:
		return "done"
	case Failed:
		return "failed"
	}
	return "missing"
}

// Outcome is the result of running one trial.
type Outcome struct {
	Index   int
	Status  Status
	Skipped bool // finished before: nothing was run or written
	Code    int  // the TrainFunc's exit code (0 when skipped)
	Seconds float64
}

// Runner runs the trials of a plan whose folder is Dir.
type Runner struct {
	Plan  *Plan
	Dir   string
	Train TrainFunc
	// Log, when not nil, gets one line per trial run.
	Log io.Writer

	mu sync.Mutex // serializes Log
}

// State returns the state of trial i from its folder alone.
func (r *Runner) State(i int) Status {
	return folderState(filepath.Join(r.Dir, r.Plan.Trials[i].Dir))
}

func folderState(dir string) Status {
	if exists(filepath.Join(dir, DoneFile)) {
		return Done
	}
	if exists(filepath.Join(dir, FailedFile)) {
		return Failed
	}
	return Pending
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// workPrefix is the name start of trial i's work folders: hidden, and
// named for the trial, so that a killed run's leftovers are found.
func workPrefix(t Trial) string { return "." + t.Dir + ".work-" }

// Run runs trial i unless it has finished (done or failed), in which case
// it returns at once and writes nothing. The trial runs in a fresh hidden
// work folder, leftovers of killed runs of the same trial are removed first,
// and the folder is renamed to its place only when the trial is done or has
// failed for bad input, with its marker written last. An error is returned
// for a trial that did not finish (an interruption, a failed training) and
// for trouble with the folder itself.
func (r *Runner) Run(ctx context.Context, i int) (Outcome, error) {
	if i < 0 || i >= len(r.Plan.Trials) {
		return Outcome{Index: i}, fmt.Errorf("sweep: trial %d: the plan has trials 0 to %d", i, len(r.Plan.Trials)-1)
	}
	t := r.Plan.Trials[i]
	final := filepath.Join(r.Dir, t.Dir)
	if st := folderState(final); st != Pending {
		return Outcome{Index: i, Status: st, Skipped: true}, nil
	}
	args, err := t.Args(r.Dir)
	if err != nil {
		return Outcome{Index: i}, err
	}
	if err := r.clear(t); err != nil {
		return Outcome{Index: i}, err
	}
	work, err := os.MkdirTemp(r.Dir, workPrefix(t))
	if err != nil {
		return Outcome{Index: i}, fmt.Errorf("sweep: trial %d: %w", i, err)
	}
	if err := os.Chmod(work, 0o755); err != nil {
		return Outcome{Index: i}, fmt.Errorf("sweep: trial %d: %w", i, err)
	}
	start := time.Now()
	code, stdout, err := r.train(ctx, work, args)
	out := Outcome{Index: i, Code: code, Seconds: time.Since(start).Seconds()}
	if err != nil {
		return out, err
	}
	switch code {
	case 0:
		out.Status = Done
		if err := writeMetrics(work, t, stdout); err != nil {
			return out, fmt.Errorf("sweep: trial %d: %w", i, err)
		}
	case ExitUsage:
		out.Status = Failed
	default:
		// The work folder stays, for its log, until the trial is run again;
		// its exit file tells a process waiting for the trial (a search
		// or compare under --search-wait) that this attempt has ended.
		_ = atomicfile.Write(filepath.Join(work, ExitFile), func(w io.Writer) error {
			_, err := fmt.Fprintf(w, "{\"exit\": %d}\n", code)
			return err
		})
		return out, fmt.Errorf("sweep: trial %d: train exited %d: %s", i, code, LastLine(filepath.Join(work, LogFile)))
	}
	marker := map[Status]string{Done: DoneFile, Failed: FailedFile}[out.Status]
	if err := atomicfile.Write(filepath.Join(work, marker), func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "{\"exit\": %d}\n", code)
		return err
	}); err != nil {
		return out, fmt.Errorf("sweep: trial %d: %w", i, err)
	}
	if err := os.Rename(work, final); err != nil {
		// Another run of the same trial (a scheduler's duplicate) finished
		// first: its folder is as good as this one.
		if st := folderState(final); st != Pending {
			os.RemoveAll(work)
			return Outcome{Index: i, Status: st, Skipped: true}, nil
		}
		return out, fmt.Errorf("sweep: trial %d: %w", i, err)
	}
	syncDir(r.Dir)
	return out, nil
}

// Attempt is how the last unfinished attempt at a pending trial ended:
// train's exit code (neither 0 nor ExitUsage) and the last line of its log.
type Attempt struct {
	Code int
	Line string
}

// Attempts returns the ended, unfinished attempts at trial i: those whose
// train exited with a code that is neither success nor bad input, whose
// work folders stay until the trial is run again. A trial killed with its
// process (SIGKILL, a lost node) leaves none, and neither does one still
// running.
func (r *Runner) Attempts(i int) []Attempt {
	if i < 0 || i >= len(r.Plan.Trials) {
		return nil
	}
	dirs, _ := filepath.Glob(filepath.Join(r.Dir, workPrefix(r.Plan.Trials[i])+"*"))
	var as []Attempt
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, ExitFile))
		if err != nil {
			continue
		}
		var e struct {
			Exit int `json:"exit"`
		}
		if json.Unmarshal(b, &e) != nil {
			continue
		}
		as = append(as, Attempt{Code: e.Exit, Line: LastLine(filepath.Join(d, LogFile))})
	}
	return as
}

// clear removes what killed runs of t left: work folders, and a trial
// folder without a marker (which Run never makes, but a copy might).
func (r *Runner) clear(t Trial) error {
	left, err := filepath.Glob(filepath.Join(r.Dir, workPrefix(t)+"*"))
	if err != nil {
		return err
	}
	final := filepath.Join(r.Dir, t.Dir)
	if _, err := os.Stat(final); err == nil {
		left = append(left, final)
	}
	for _, p := range left {
		if err := os.RemoveAll(p); err != nil {
			return fmt.Errorf("sweep: trial %d: clearing a killed run's leftovers: %w", t.Index, err)
		}
	}
	return nil
}

// train runs the TrainFunc in the work folder with its log file.
func (r *Runner) train(ctx context.Context, work string, args []string) (code int, stdout []byte, err error) {
	logf, err := os.Create(filepath.Join(work, LogFile))
	if err != nil {
		return 0, nil, fmt.Errorf("sweep: %w", err)
	}
	defer logf.Close()
	args = append(args, "--out", filepath.Join(work, ModelFile), "--json")
	fmt.Fprintf(logf, "gputrain train %s\n", strings.Join(args, " "))
	var buf bytes.Buffer
	code = r.Train(ctx, args, &buf, logf)
	if err := logf.Sync(); err != nil {
		return code, nil, fmt.Errorf("sweep: %w", err)
	}
	return code, buf.Bytes(), logf.Close()
}

// writeMetrics stores train's JSON result with the trial's identity; the
// model's path becomes the name in the trial's folder.
func writeMetrics(work string, t Trial, stdout []byte) error {
	dec := json.NewDecoder(bytes.NewReader(stdout))
	dec.UseNumber()
	m := map[string]any{}
	if err := dec.Decode(&m); err != nil {
		return fmt.Errorf("train's --json output: %w", err)
	}
	m["model"] = ModelFile
	m["trial"] = t.Index
	m["plant"] = t.Plant
	m["settings"] = t.Settings
	return atomicfile.Write(filepath.Join(work, MetricsFile), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(m)
	})
}

// syncDir makes a rename in dir durable; where a file system cannot sync a
// folder, the rename stands anyway.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// Pending returns the trials of shard that have not finished, in order.
func (r *Runner) Pending(shard Shard) []int {
	var idx []int
	for i := range r.Plan.Trials {
		if shard.Has(i) && r.State(i) == Pending {
			idx = append(idx, i)
		}
	}
	return idx
}

// RunAll runs the trials idx, parallel at a time (through trials.Local,
// the runner of the structure search and compare too), and returns their
// outcomes in the order of idx with the errors of those that did not finish.
func (r *Runner) RunAll(ctx context.Context, idx []int, parallel int) ([]Outcome, error) {
	defer oversubscribe(min(parallel, len(idx)))()
	outs := make([]Outcome, len(idx))
	errs := trials.Local{Parallel: max(1, parallel)}.Run(ctx, len(idx), func(ctx context.Context, k int) error {
		var err error
		outs[k], err = r.Run(ctx, idx[k])
		r.report(outs[k], err)
		return err
	})
	for k, err := range errs {
		outs[k].Index = idx[k] // also of a trial whose Run panicked
		if !trials.Started(err) {
			errs[k] = fmt.Errorf("sweep: trial %d: not started: %w", idx[k], ctx.Err())
			outs[k] = Outcome{Index: idx[k]}
		}
	}
	return outs, errors.Join(errs...)
}

// report writes one line on a trial that ran.
func (r *Runner) report(o Outcome, err error) {
	if r.Log == nil || o.Skipped {
		return
	}
	t := r.Plan.Trials[o.Index]
	what := o.Status.String()
	if err != nil {
		what = "not finished: " + err.Error()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	fmt.Fprintf(r.Log, "trial %d/%d (%s, %s): %s in %.1fs\n", o.Index, len(r.Plan.Trials), t.Plant, t.Label(), what, o.Seconds)
}

// Label names a trial by its Name, else by its settings, for messages.
func (t Trial) Label() string {
	if t.Name != "" {
		return t.Name
	}
	var parts []string
	for _, k := range sortedKeys(t.Settings) {
		v, _ := flagText(t.Settings[k])
		parts = append(parts, k+"="+v)
	}
	return strings.Join(parts, " ")
}

// Shard selects every K-th trial starting at I: trials I, I+K, I+2K, … By
// index, not by the pending list, so that K shards running at once split the
// trials whatever each has seen finished. The zero Shard selects all.
type Shard struct{ I, K int }

// Has reports whether trial i belongs to s.
func (s Shard) Has(i int) bool { return s.K <= 1 || i%s.K == s.I }

func (s Shard) String() string {
	if s.K == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.I, s.K)
}

// Set parses "i/k", 0 ≤ i < k.
func (s *Shard) Set(v string) error {
	a, b, ok := strings.Cut(v, "/")
	i, err1 := strconv.Atoi(a)
	k, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || k < 1 || i < 0 || i >= k {
		return fmt.Errorf("%q: want i/k with 0 ≤ i < k, such as 0/4", v)
	}
	s.I, s.K = i, k
	return nil
}

// LastLine returns the last non-empty line of a log file, or a note that
// there is none.
func LastLine(path string) string {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "(no log)"
		}
		return "(log unreadable: " + err.Error() + ")"
	}
	defer f.Close()
	last := "(empty log)"
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if s := strings.TrimSpace(sc.Text()); s != "" {
			last = s
		}
	}
	return last
}

// procsMu serializes oversubscribe's changes of GOMAXPROCS.
var procsMu sync.Mutex

// oversubscribe raises GOMAXPROCS to at least two per concurrent trial and
// returns the function that puts it back. A trial's results do not depend
// on it: a plan's settings always hold --workers (DefaultWorkers when the
// spec leaves it out), which fixes how every computation is split. Its
// speed does: each Adam step runs a gorgonia graph whose RunAll hands the
// work from the caller's locked OS thread to a goroutine and back, and with
// one P per concurrent trial these hand-offs leave a core idle for part of
// every step. On the 2-core CI machine type a 16-trial sweep with --local 2
// took 0.65–0.75 of the serial time at GOMAXPROCS = 2 and 0.51–0.57 at 4
// (docs/BENCHMARKS.md, session 18); the serial run does not change.
func oversubscribe(parallel int) func() {
	if parallel < 2 {
		return func() {}
	}
	procsMu.Lock()
	defer procsMu.Unlock()
	prev := runtime.GOMAXPROCS(0)
	if prev >= 2*parallel {
		return func() {}
	}
	runtime.GOMAXPROCS(2 * parallel)
	return func() {
		procsMu.Lock()
		defer procsMu.Unlock()
		runtime.GOMAXPROCS(prev)
	}
}
