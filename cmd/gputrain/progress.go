package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

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
	monitor trainer.Monitor
	// columns returns the terminal's width for the bar (nil: termColumns).
	columns func() int
	// footnoted: the note on a closed-loop Fit below 0 has been printed.
	footnoted bool
}

// setMonitor records trainer.Config.Monitor for the labels (nil-safe: --quiet).
func (p *progress) setMonitor(m trainer.Monitor) {
	if p != nil {
		p.monitor = m
	}
}

// valLabel says which validation Fit an event carries: the Adam stage watches the
// open-loop (one-step-ahead) error unless --monitor closed, BPTT and the
// evaluations the closed loop, which is how the model is used.
func (p *progress) valLabel(stage string) string {
	if stage == "adam" && p.monitor != trainer.MonitorClosed {
		return "open-loop val fit"
	}
	return "closed-loop val fit"
}

// lineEvery is the epoch stride of the plain-line mode: about twenty lines a
// stage, not one an epoch (a default run wrote 5000 lines to a log).
func lineEvery(epochs int) int { return max(1, epochs/20) }

// lineGap is the longest a plain-line log stays silent during a stage.
const lineGap = 10 * time.Second

// newProgress chooses how progress goes to stderr, never to stdout, which
// holds the results (and with --json the one JSON object): nowhere with
// --quiet, as plain lines with --json or when stderr is not a terminal (a log
// file, a pipe), else as a bar redrawn in place to the terminal's width.
// stdout is not used.
func newProgress(stdout, stderr io.Writer, quiet, jsonOut bool, iters int) *progress {
	if quiet {
		return nil
	}
	p := &progress{w: stderr, iters: iters}
	p.bar = !jsonOut && isTerminal(stderr)
	if f, ok := stderr.(*os.File); ok {
		p.columns = func() int { return termColumns(f) }
	}
	return p
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// termColumns is the width of the terminal f: its size as the kernel has it
// (asked at each redraw, so that a resized window is followed), else the
// COLUMNS environment variable, else 80.
func termColumns(f *os.File) int {
	if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
		return w
	}
	if c, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && c > 0 {
		return c
	}
	return 80
}

// width is the bar's line width: one column short of the terminal's, since
// a line that fills the last column wraps on some terminals and the
// carriage return then redraws only the wrapped part.
func (p *progress) width() int {
	c := 80
	if p.columns != nil {
		c = p.columns()
	}
	return max(c-1, 20)
}

// fitWidth cuts s to w columns (runes), ending in … when cut.
func fitWidth(s string, w int) string {
	if utf8.RuneCountInString(s) <= w {
		return s
	}
	r := []rune(s)
	return string(r[:w-1]) + "…"
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
	if f < -999 {
		return "<-999%" // a diverging simulation: the digits mean nothing
	}
	return fmt.Sprintf("%6.2f%%", f)
}

// closedFitText is fitText for a closed-loop Fit, marked with * when below
// 0: such a figure alarms without the footnote (closedFootnote) that says
// what it means.
func (p *progress) closedFitText(f float64) string {
	if f < 0 {
		return fitText(f) + "*"
	}
	return fitText(f)
}

// closedFootnote explains, once per run, the * of a closed-loop Fit below 0.
const closedFootnote = "* closed-loop Fit below 0: the simulation that feeds back its own output ends further from y than zero is. " +
	"Early iterations are fitted one step ahead (open loop) and their closed loop is often not yet stable; " +
	"later ones (and BPTT) improve it, and the run keeps the iteration with the best closed-loop validation Fit."

// footnote prints closedFootnote after the first line that needed it.
func (p *progress) footnote(f float64) {
	if f < 0 && !p.footnoted {
		p.footnoted = true
		if p.open {
			fmt.Fprintln(p.w)
			p.open = false
		}
		fmt.Fprintln(p.w, closedFootnote)
	}
}

// closedStage reports whether the validation Fit of a stage is the closed loop's.
func (p *progress) closedStage(stage string) bool {
	return p.valLabel(stage) == "closed-loop val fit"
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
				ev.Elapsed.Seconds(), ev.Stage, p.iterText(ev), p.closedFitText(ev.ValFit), note)
			p.footnote(ev.ValFit)
		default:
			val := ""
			if !math.IsNaN(ev.ValFit) || ev.Stage != "theta_g" {
				ft := fitText(ev.ValFit)
				if p.closedStage(ev.Stage) {
					ft = p.closedFitText(ev.ValFit)
				}
				val = fmt.Sprintf(" %s %s", p.valLabel(ev.Stage), ft)
			}
			fmt.Fprintf(p.w, "[%7.1fs] %-7s %s%s loss %.4e train fit %s%s%s\n",
				ev.Elapsed.Seconds(), ev.Stage, p.iterText(ev), epoch, ev.Loss, fitText(ev.TrainFit), val, note)
			if p.closedStage(ev.Stage) {
				p.footnote(ev.ValFit)
			}
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
	closed := ev.Stage == "eval" || ev.Stage == "done" || p.closedStage(ev.Stage)
	valText := strings.TrimSpace(fitText(ev.ValFit))
	if closed {
		valText = strings.TrimSpace(p.closedFitText(ev.ValFit))
	}
	var line string
	if ev.Stage == "solve" {
		line = fmt.Sprintf("%-7s %s %s ... %6.1fs", "theta_g", p.iterText(ev), ev.Note, ev.Elapsed.Seconds())
	} else if ev.Stage == "eval" || ev.Stage == "done" {
		line = fmt.Sprintf("%-7s %s closed-loop val fit %s %6.1fs", ev.Stage, p.iterText(ev), valText, ev.Elapsed.Seconds())
	} else {
		val := ""
		if !math.IsNaN(ev.ValFit) || ev.Stage != "theta_g" {
			val = fmt.Sprintf(" %s %s", p.valLabel(ev.Stage), valText)
		}
		line = p.barLine(ev, val)
	}
	if ev.Epochs > 0 {
		// redrawn in place: a line wider than the terminal would wrap, and
		// each redraw would then leave a copy behind
		line = fitWidth(line, p.width())
	}
	fmt.Fprintf(p.w, "\r%s\x1b[K", line)
	p.open = true
	if ev.Epochs == 0 { // theta_g, eval, done: one-off events keep their line
		fmt.Fprintln(p.w)
		p.open = false
	}
	if closed && !math.IsNaN(ev.ValFit) {
		p.footnote(ev.ValFit)
	}
}

// maxBar is the widest the bar of an epoch line is drawn.
const maxBar = 24

// barLine is the bar mode's line for an epoch event, its bar as wide as the
// terminal leaves room for (up to maxBar; none below 5 columns).
func (p *progress) barLine(ev trainer.Event, val string) string {
	format := func(bar string) string {
		return fmt.Sprintf("%-7s %s%s loss %.3e%s %6.1fs", ev.Stage, p.iterText(ev), bar, ev.Loss, val, ev.Elapsed.Seconds())
	}
	if ev.Epochs <= 0 {
		return format("")
	}
	count := fmt.Sprintf(" %d/%d", ev.Epoch+1, ev.Epochs)
	room := p.width() - utf8.RuneCountInString(format(count)) - 3 // " [" and "]"
	width := min(maxBar, room)
	if width < 5 {
		if room+3 >= 0 {
			return format(count)
		}
		// no room for the padding either: the elapsed time is worth more
		return fmt.Sprintf("%s %s%s loss %.3e%s %.1fs", ev.Stage, p.iterText(ev), count, ev.Loss, val, ev.Elapsed.Seconds())
	}
	done := min(width, (ev.Epoch+1)*width/ev.Epochs)
	return format(fmt.Sprintf(" [%s%s]%s", strings.Repeat("#", done), strings.Repeat(".", width-done), count))
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
