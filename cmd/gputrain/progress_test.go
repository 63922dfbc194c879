package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/passivenfir/gputrain/trainer"
)

// mustRunAll runs a command that must succeed and returns its stdout and
// stderr together: notes and progress are on stderr.
func mustRunAll(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errOut := cli(t, args...)
	if code != 0 {
		t.Fatalf("gputrain %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, out, errOut)
	}
	return out + errOut
}

// TestProgressOnStderr: train's progress and notes go to stderr, its results
// to stdout, so that `gputrain train … > result.txt` holds the result alone.
func TestProgressOnStderr(t *testing.T) {
	dir := t.TempDir()
	train := genData(t, dir, 6, "1")
	code, stdout, stderr := cli(t, "train", "--data", train, "--out", filepath.Join(dir, "m.json"),
		"--branches", "2", "--taps", "10", "--iters", "2", "--epochs", "3")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, w := range []string{"theta_g", "adam", "iter 2/2", "note: holding out"} {
		if strings.Contains(stdout, w) {
			t.Errorf("stdout has progress %q:\n%s", w, stdout)
		}
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr lacks progress %q:\n%s", w, stderr)
		}
	}
	if !strings.Contains(stdout, "model written to") {
		t.Errorf("stdout lacks the result:\n%s", stdout)
	}
	if strings.Contains(stderr, "\r") {
		t.Errorf("a bar on stderr that is not a terminal:\n%q", stderr)
	}
}

// TestProgressWidth: the redrawn epoch line fits the terminal's width (one
// column short of it), the bar shrinking and then going, and the width
// comes from COLUMNS when stderr is not a terminal.
func TestProgressWidth(t *testing.T) {
	for _, cols := range []int{200, 100, 80, 60, 40} {
		var b bytes.Buffer
		p := &progress{w: &b, bar: true, iters: 12, monitor: "closed", columns: func() int { return cols }}
		for ep := range 1000 {
			p.event(trainer.Event{Stage: "adam", Iter: 10, Epoch: ep, Epochs: 1000, Loss: 0.123, ValFit: 87.5, Member: 3, Members: 10})
		}
		p.finish()
		for _, l := range strings.Split(b.String(), "\r") {
			l = strings.TrimSuffix(strings.TrimSuffix(l, "\n"), "\x1b[K")
			if n := utf8.RuneCountInString(l); n >= cols {
				t.Errorf("%d columns: a line of %d: %q", cols, n, l)
			}
		}
		full := strings.Contains(b.String(), "["+strings.Repeat("#", maxBar)+"] 1000/1000")
		if cols >= 200 && !full {
			t.Errorf("%d columns: no full bar:\n%q", cols, b.String())
		}
		if cols <= 100 && full {
			t.Errorf("%d columns: the full bar does not fit but was drawn:\n%q", cols, b.String())
		}
		if !strings.Contains(b.String(), "1000/1000") && cols >= 80 {
			t.Errorf("%d columns: the epoch count is gone:\n%q", cols, b.String())
		}
	}

	f, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	t.Setenv("COLUMNS", "57")
	if c := termColumns(f); c != 57 {
		t.Errorf("COLUMNS=57: termColumns %d", c)
	}
	t.Setenv("COLUMNS", "")
	if c := termColumns(f); c != 80 {
		t.Errorf("no terminal, no COLUMNS: termColumns %d, want 80", c)
	}
	if p := newProgress(&bytes.Buffer{}, f, false, false, 3); p.bar || p.w != f {
		t.Errorf("stderr a file: bar %v, writer %v; want plain lines on stderr", p.bar, p.w)
	}
}

// TestClosedFitFootnote: a closed-loop validation Fit below 0 (an early
// iterate's, such as −364 %) is marked and explained once, in both modes;
// one beyond −999 % is not printed digit by digit; positive ones carry no
// mark.
func TestClosedFitFootnote(t *testing.T) {
	for _, bar := range []bool{false, true} {
		var b bytes.Buffer
		p := &progress{w: &b, bar: bar, iters: 3, columns: func() int { return 120 }}
		p.event(trainer.Event{Stage: "eval", Iter: 0, ValFit: -364})
		p.event(trainer.Event{Stage: "bptt", Iter: 1, Epoch: 0, Epochs: 2, Loss: 1, ValFit: -5e6})
		p.event(trainer.Event{Stage: "eval", Iter: 1, ValFit: -12})
		p.event(trainer.Event{Stage: "eval", Iter: 2, ValFit: 80})
		p.finish()
		s := b.String()
		if !strings.Contains(s, "-364.00%*") || !strings.Contains(s, "<-999%*") {
			t.Errorf("bar %v: negative closed-loop Fits not marked:\n%s", bar, s)
		}
		if n := strings.Count(s, "* closed-loop Fit below 0"); n != 1 {
			t.Errorf("bar %v: the footnote appears %d times:\n%s", bar, n, s)
		}
		if strings.Contains(s, "80.00%*") {
			t.Errorf("bar %v: a positive Fit marked:\n%s", bar, s)
		}
	}
}
