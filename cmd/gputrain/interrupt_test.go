package main

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/passivenfir/gputrain/model"
)

// slowModel writes a model whose closed-loop simulation of a 3·10⁵-sample
// record takes seconds (10 branches of 2000 taps), and that record as a CSV.
func slowModel(t *testing.T, dir string) (modelPath, dataPath string) {
	t.Helper()
	st := model.Structure{Branches: 10, Taps: 2000, R1: 1, R2: 1, Hidden: []int{4}, Feedback: true}
	m, err := model.RandomPassive(st, rand.New(rand.NewPCG(27, 3)))
	if err != nil {
		t.Fatal(err)
	}
	modelPath = filepath.Join(dir, "slow.json")
	if err := model.Save(modelPath, m, model.Meta{Ts: 1, Mode: "exact"}); err != nil {
		t.Fatal(err)
	}
	dataPath = filepath.Join(dir, "long.csv")
	f, err := os.Create(dataPath)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	fmt.Fprintln(w, "u,y")
	rng := rand.New(rand.NewPCG(27, 4))
	for range 300_000 {
		fmt.Fprintf(w, "%.4f,%.4f\n", rng.NormFloat64(), rng.NormFloat64())
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return modelPath, dataPath
}

// TestInterruptEvalSimulate: Ctrl-C during eval and simulate on a long
// record stops them within a second or two (they used to run the whole
// simulation first), exits 1, says that nothing was written, and leaves no
// output file behind.
func TestInterruptEvalSimulate(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 300 000-row record; skipped with -short")
	}
	dir := t.TempDir()
	modelPath, dataPath := slowModel(t, dir)
	simOut := filepath.Join(dir, "sim.csv")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"eval", []string{"eval", "--model", modelPath, "--data", dataPath}, "nothing written"},
		{"simulate", []string{"simulate", "--model", modelPath, "--data", dataPath, "--out", simOut}, "nothing written to " + simOut},
		{"simulate-stdout", []string{"simulate", "--model", modelPath, "--data", dataPath, "--out", "-"}, "nothing written to stdout"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			testHookContext = func() (context.Context, context.CancelFunc) { return ctx, cancel }
			defer func() { testHookContext = nil }()
			at := make(chan time.Time, 1)
			// Simulating the record takes many seconds: a cancellation
			// 200 ms after the data are loaded lands in the simulation,
			// however long loading took.
			var timer *time.Timer
			testHookLoaded = func() { timer = time.AfterFunc(200*time.Millisecond, func() { at <- time.Now(); cancel() }) }
			defer func() {
				testHookLoaded = nil
				if timer != nil {
					timer.Stop()
				}
			}()
			code, stdout, stderr := cli(t, tc.args...)
			var cancelled time.Time
			select {
			case cancelled = <-at:
			default:
				t.Fatalf("finished before the cancellation (exit %d): the test checks nothing; stderr %s", code, stderr)
			}
			if d := time.Since(cancelled); d > 2*time.Second {
				t.Errorf("took %v to stop after Ctrl-C", d)
			}
			if code != exitFailure {
				t.Errorf("exit %d, want 1; stderr %s", code, stderr)
			}
			if !strings.Contains(stderr, "interrupted") || !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr %q does not say interrupted and %q", stderr, tc.want)
			}
			if tc.name == "simulate-stdout" && strings.Count(stdout, "\n") > 1 {
				t.Errorf("rows on stdout although the message says nothing was written: %d lines", strings.Count(stdout, "\n"))
			}
			if _, err := os.Stat(simOut); err == nil {
				t.Errorf("%s written by an interrupted run", simOut)
			}
			if left, _ := filepath.Glob(filepath.Join(dir, ".*tmp*")); len(left) > 0 {
				t.Errorf("temporary files left: %v", left)
			}
			t.Logf("stderr: %s", strings.TrimSpace(stderr))
		})
	}
}
