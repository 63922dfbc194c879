package main

import (
	"strings"
	"testing"
	"time"

	"github.com/passivenfir/gputrain/loop"
	"github.com/passivenfir/gputrain/search"
)

// TestTimeCutNote: the note counts what the time limit cut, by kind, and
// is absent when it cut nothing.
func TestTimeCutNote(t *testing.T) {
	st := loop.Sized(16)
	rows := []search.Row{
		{Name: "FIR 16"},
		{Name: "NFIR a", Cut: true, Error: "rung 2 unfinished: the time limit ran out"},
		{Name: "NFIR b"},
		{Name: "loop 1", Loop: &st, Cut: true},
		{Name: "loop 2", Loop: &st, Cut: true},
		{Name: "loop 3", Loop: &st},
		{Name: "loop 4", Loop: &st, Error: search.ErrTimeLimit.Error()},
	}
	sr := &search.Result{Rows: rows, TimeLimit: 9 * time.Minute, TimeCut: true}
	got := timeCutNote(sr)
	for _, want := range []string{"--time-limit 9m0s", "1 NFIR candidate unfinished", "2 loops trained shorter than planned", "1 not started"} {
		if !strings.Contains(got, want) {
			t.Errorf("note %q lacks %q", got, want)
		}
	}
	sr.TimeCut = false
	if got := timeCutNote(sr); got != "" {
		t.Errorf("nothing cut: note %q", got)
	}
}
