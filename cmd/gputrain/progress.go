package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/passivenfir/gputrain/trainer"
)

// testHookEvent, when set by a test, sees every training event (e.g. to
// cancel the run's context in the middle of training).
var testHookEvent func(trainer.Event)

// progress prints training events: one plain line per event, or a redrawn
// progress bar over the epochs when the output is a terminal.
type progress struct {
	mu       sync.Mutex
	w        io.Writer
	bar      bool
	iters    int
	lastKey  string
	lastDraw time.Time
	open     bool // a bar line is open (no newline yet)
	// monitor is what the Adam stage's validation Fit measures (trainer.Config.Monitor):
	// "closed" the closed-loop simulation, else the open-loop prediction.
	monitor string
}

// setMonitor records trainer.Config.Monitor for the labels (nil-safe: --quiet).
func (p *progress) setMonitor(m string) {
	if p != nil {
		p.monitor = m
	}
}

// valLabel says which validation Fit an event carries: the Adam stage watches the
// open-loop (one-step-ahead) error unless --monitor closed, BPTT and the
// evaluations the closed loop, which is how the model is used.
func (p *progress) valLabel(stage string) string {
	if stage == "adam" && p.monitor != "closed" {
		return "open-loop val fit"
	}
	return "closed-loop val fit"
}

// lineEvery is the epoch stride of the plain-line mode: about twenty lines a
// stage, not one an epoch (a default run wrote 5000 lines to a log).
func lineEvery(epochs int) int { return max(1, epochs/20) }

// lineGap is the longest a plain-line log stays silent during a stage.
const lineGap = 10 * time.Second

// newProgress chooses where progress goes: nowhere with --quiet, stderr as
// plain lines with --json (stdout holds the JSON object), else stdout as a bar
// on a terminal and as plain lines otherwise.
func newProgress(stdout, stderr io.Writer, quiet, jsonOut bool, iters int) *progress {
	if quiet {
		return nil
	}
	if jsonOut {
		return &progress{w: stderr, iters: iters}
	}
	return &progress{w: stdout, bar: isTerminal(stdout), iters: iters}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// callback returns the trainer.Config.Progress function (nil: silent).
func (p *progress) callback() func(trainer.Event) {
	if p == nil && testHookEvent == nil {
		return nil
	}
	return func(ev trainer.Event) {
		if p != nil {
			p.event(ev)
		}
		if testHookEvent != nil {
			testHookEvent(ev)
		}
	}
}

func fitText(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "     -"
	}
	return fmt.Sprintf("%6.2f%%", f)
}

// iterText numbers iterations from 1 (the trainer's Event counts from 0),
// after the member of an averaged model (--members) when there is one.
func (p *progress) iterText(ev trainer.Event) string {
	s := fmt.Sprintf("iter %d", ev.Iter+1)
	if p.iters > 0 {
		s = fmt.Sprintf("iter %d/%d", ev.Iter+1, p.iters)
	}
	if ev.Member > 0 {
		s = fmt.Sprintf("member %d/%d %s", ev.Member, ev.Members, s)
	}
	return s
}

func (p *progress) event(ev trainer.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.bar {
		if ev.Epochs > 0 && ev.Note == "" {
			key := fmt.Sprintf("%d/%s/%d", ev.Member, ev.Stage, ev.Iter)
			first, last := key != p.lastKey, ev.Epoch+1 >= ev.Epochs
			if !first && !last && (ev.Epoch+1)%lineEvery(ev.Epochs) != 0 && time.Since(p.lastDraw) < lineGap {
				return
			}
			p.lastKey = key
		}
		p.lastDraw = time.Now()
		epoch := ""
		if ev.Epochs > 0 {
			epoch = fmt.Sprintf(" epoch %4d/%-4d", ev.Epoch+1, ev.Epochs)
		}
		note := ""
		if ev.Note != "" {
			note = "  " + ev.Note
		}
		switch ev.Stage {
		case "solve": // a θ_G step begins: what it solves, so that a long one is not silence
			fmt.Fprintf(p.w, "[%7.1fs] %-7s %s %s ...\n", ev.Elapsed.Seconds(), "theta_g", p.iterText(ev), ev.Note)
		case "eval", "done": // scores only: the closed-loop validation Fit
			fmt.Fprintf(p.w, "[%7.1fs] %-7s %s closed-loop val fit %s%s\n",
				ev.Elapsed.Seconds(), ev.Stage, p.iterText(ev), fitText(ev.ValFit), note)
		default:
			val := ""
			if !math.IsNaN(ev.ValFit) || ev.Stage != "theta_g" {
				val = fmt.Sprintf(" %s %s", p.valLabel(ev.Stage), fitText(ev.ValFit))
			}
			fmt.Fprintf(p.w, "[%7.1fs] %-7s %s%s loss %.4e train fit %s%s%s\n",
				ev.Elapsed.Seconds(), ev.Stage, p.iterText(ev), epoch, ev.Loss, fitText(ev.TrainFit), val, note)
		}
		return
	}
	key := fmt.Sprintf("%d/%s/%d", ev.Member, ev.Stage, ev.Iter)
	newStage := key != p.lastKey
	last := ev.Epochs > 0 && ev.Epoch+1 >= ev.Epochs
	if !newStage && !last && ev.Epochs > 0 && time.Since(p.lastDraw) < 100*time.Millisecond {
		return
	}
	if newStage && p.open {
		fmt.Fprintln(p.w)
		p.open = false
	}
	p.lastKey, p.lastDraw = key, time.Now()
	const width = 24
	bar := ""
	if ev.Epochs > 0 {
		done := min(width, (ev.Epoch+1)*width/ev.Epochs)
		bar = fmt.Sprintf(" [%s%s] %d/%d", strings.Repeat("#", done), strings.Repeat(".", width-done), ev.Epoch+1, ev.Epochs)
	}
	if ev.Stage == "solve" {
		fmt.Fprintf(p.w, "\r%-7s %s %s ... %6.1fs\x1b[K", "theta_g", p.iterText(ev), ev.Note, ev.Elapsed.Seconds())
	} else if ev.Stage == "eval" || ev.Stage == "done" {
		fmt.Fprintf(p.w, "\r%-7s %s closed-loop val fit %s %6.1fs\x1b[K",
			ev.Stage, p.iterText(ev), strings.TrimSpace(fitText(ev.ValFit)), ev.Elapsed.Seconds())
	} else {
		val := ""
		if !math.IsNaN(ev.ValFit) || ev.Stage != "theta_g" {
			val = fmt.Sprintf(" %s %s", p.valLabel(ev.Stage), strings.TrimSpace(fitText(ev.ValFit)))
		}
		fmt.Fprintf(p.w, "\r%-7s %s%s loss %.3e%s %6.1fs\x1b[K",
			ev.Stage, p.iterText(ev), bar, ev.Loss, val, ev.Elapsed.Seconds())
	}
	p.open = true
	if ev.Epochs == 0 { // theta_g, eval, done: one-off events keep their line
		fmt.Fprintln(p.w)
		p.open = false
	}
}

// finish ends an open bar line.
func (p *progress) finish() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.open {
		fmt.Fprintln(p.w)
		p.open = false
	}
}

// note prints an informational line where progress goes (nothing when quiet).
func (p *progress) note(format string, a ...any) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.open {
		fmt.Fprintln(p.w)
		p.open = false
	}
	fmt.Fprintf(p.w, format+"\n", a...)
}
