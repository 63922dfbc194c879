package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/passivenfir/gputrain/search"
	"github.com/passivenfir/gputrain/trainer"
)

// metricsLogAbout is the help of train --log.
const metricsLogAbout = "write a metrics log as training goes, one record per θ_G step, epoch and evaluation (fields in docs/MODEL_FORMAT.md, \"Metrics log\"): JSON Lines, or CSV when the name ends in .csv; an existing file is replaced"

// metricsRecord is one line of the metrics log. Fits are percentages
// (model.Fit on the validation data); a figure the event does not measure
// is null (an empty CSV field).
type metricsRecord struct {
	Iteration int      `json:"iteration"`       // 1-based alternation of Algorithm 1 (0: the warm-start model, before any)
	Epoch     *int     `json:"epoch"`           // 1-based, adam and bptt only
	Phase     string   `json:"phase"`           // thetaG, adam, bptt, eval or search
	Member    int      `json:"member,omitzero"` // 1-based member of --members > 1
	Loss      *float64 `json:"loss"`            // training MSE per sample, in the data's units
	TrainFit  *float64 `json:"train_fit"`
	// OpenLoopValFit and ClosedLoopValFit: aggregate Fit over the
	// validation samples for the epochs, median over the validation
	// batches for eval (the model-selection score).
	OpenLoopValFit   *float64 `json:"open_loop_val_fit"`
	ClosedLoopValFit *float64 `json:"closed_loop_val_fit"`
	Seconds          float64  `json:"seconds"`             // wall-clock seconds since the training (the member's, the search's) began
	Stage            string   `json:"stage,omitempty"`     // search: plan, fir, rung, candidate or done
	Candidate        string   `json:"candidate,omitempty"` // search: the structure scored
	Note             string   `json:"note,omitempty"`
}

// metricsHeader is the CSV form's header: the JSON keys in order.
var metricsHeader = []string{"iteration", "epoch", "phase", "member", "loss", "train_fit", "open_loop_val_fit", "closed_loop_val_fit", "seconds", "stage", "candidate", "note"}

// metricsLog writes training events to a file, one record per line, each
// written through at once (no buffer) so that a crash or Ctrl-C loses no
// line and another program may follow the file.
type metricsLog struct {
	mu   sync.Mutex
	f    *os.File
	csv  *csv.Writer // nil: JSON Lines
	path string
	// monitor and feedback say which validation Fit an Adam epoch carries:
	// the open-loop one unless --monitor closed on a feedback model; for a
	// feed-forward model the two are one.
	monitor  trainer.Monitor
	feedback bool
	err      error // the first write error; later events are dropped
	warn     io.Writer
}

// checkLogPath fails before any work when the metrics log cannot be
// written or would overwrite one of the command's files.
func checkLogPath(path, out string, inputs map[string]string) error {
	if path == "" {
		return nil
	}
	if filepath.Clean(path) == filepath.Clean(out) {
		return usagef("--log %s is the --out file; give the log another name (metrics.jsonl, say)", path)
	}
	return checkOutPath("log", path, inputs)
}

// openMetricsLog creates the log at path (nil for ""), replacing a file
// there. warn receives the one note on a failed write.
func openMetricsLog(path string, cfg trainer.Config, warn io.Writer) (*metricsLog, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, failf("--log: %v; nothing trained", err)
	}
	l := &metricsLog{f: f, path: path, monitor: cfg.Monitor, warn: warn,
		feedback: cfg.Structure.Feedback && cfg.Structure.Branches > 0}
	if strings.EqualFold(filepath.Ext(path), ".csv") {
		l.csv = csv.NewWriter(f)
		l.csv.Write(metricsHeader)
		l.flushCSV()
	}
	return l, nil
}

// close closes the file; nil-safe.
func (l *metricsLog) close() {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.f.Close(); err != nil && l.err == nil {
		fmt.Fprintf(l.warn, "note: the metrics log %s: %v\n", l.path, err)
	}
}

// wrap returns a trainer.Config.Progress that logs each event and passes
// it on to next (which may be nil).
func (l *metricsLog) wrap(next func(trainer.Event)) func(trainer.Event) {
	if l == nil {
		return next
	}
	return func(ev trainer.Event) {
		if r, ok := l.record(ev); ok {
			l.write(r)
		}
		if next != nil {
			next(ev)
		}
	}
}

// wrapSearch is wrap for the events of a structure search, whose
// candidates train without per-epoch events.
func (l *metricsLog) wrapSearch(next func(search.Event)) func(search.Event) {
	if l == nil {
		return next
	}
	return func(ev search.Event) {
		rung := 0 // the search's other stages belong to no rung
		if ev.Stage == "rung" || ev.Stage == "candidate" {
			rung = ev.Rung + 1
		}
		l.write(metricsRecord{Phase: "search", Stage: ev.Stage, Iteration: rung, Candidate: ev.Candidate,
			ClosedLoopValFit: jsonFloat(ev.ValFit), Seconds: ev.Elapsed.Seconds(), Note: ev.Note})
		if next != nil {
			next(ev)
		}
	}
}

// record turns a training event into a log record; ok is false for the
// events that carry no figures (the start of a θ_G step, the end).
func (l *metricsLog) record(ev trainer.Event) (metricsRecord, bool) {
	r := metricsRecord{Iteration: ev.Iter + 1, Member: ev.Member, Seconds: ev.Elapsed.Seconds(), Note: ev.Note}
	open, closed := false, false
	switch ev.Stage {
	case "theta_g":
		r.Phase = "thetaG"
	case "adam":
		r.Phase = "adam"
		closed = l.feedback && l.monitor == trainer.MonitorClosed
		open = !closed
	case "bptt":
		r.Phase, closed = "bptt", true
	case "eval":
		r.Phase, closed = "eval", true
	default:
		return r, false
	}
	if !l.feedback {
		open, closed = open || closed, open || closed
	}
	if ev.Stage == "adam" || ev.Stage == "bptt" {
		ep := ev.Epoch + 1
		r.Epoch = &ep
	}
	if ev.Stage != "eval" {
		r.Loss, r.TrainFit = jsonFloat(ev.Loss), jsonFloat(ev.TrainFit)
	}
	if open {
		r.OpenLoopValFit = jsonFloat(ev.ValFit)
	}
	if closed {
		r.ClosedLoopValFit = jsonFloat(ev.ValFit)
	}
	return r, true
}

// write appends r to the file now; after a failed write the log stops and
// training goes on.
func (l *metricsLog) write(r metricsRecord) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return
	}
	r.Seconds = math.Round(r.Seconds*1000) / 1000
	if l.csv != nil {
		num := func(p *float64) string {
			if p == nil {
				return ""
			}
			return strconv.FormatFloat(*p, 'g', -1, 64)
		}
		epoch, member := "", ""
		if r.Epoch != nil {
			epoch = strconv.Itoa(*r.Epoch)
		}
		if r.Member > 0 {
			member = strconv.Itoa(r.Member)
		}
		l.csv.Write([]string{strconv.Itoa(r.Iteration), epoch, r.Phase, member, num(r.Loss), num(r.TrainFit),
			num(r.OpenLoopValFit), num(r.ClosedLoopValFit), strconv.FormatFloat(r.Seconds, 'f', 3, 64), r.Stage, r.Candidate, r.Note})
		l.flushCSV()
		return
	}
	b, err := json.Marshal(r)
	if err == nil {
		_, err = l.f.Write(append(b, '\n'))
	}
	l.fail(err)
}

func (l *metricsLog) flushCSV() {
	l.csv.Flush()
	l.fail(l.csv.Error())
}

// fail records the first write error and says once that the log stopped.
func (l *metricsLog) fail(err error) {
	if err == nil || l.err != nil {
		return
	}
	l.err = err
	fmt.Fprintf(l.warn, "note: writing the metrics log %s failed (%v): it stops here; training goes on\n", l.path, err)
}
