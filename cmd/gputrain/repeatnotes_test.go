package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeRepeats writes a CSV of batches whose inputs are copies of a few
// smooth random signals (input k of batch b: b % inputs; sign −1 flips
// the sign of every other repeat within a batch of reps repeats), through
// a first-order low-pass plant.
func writeRepeats(t *testing.T, path string, batches, inputs, length, reps int, sign float64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	bases := make([][]float64, inputs)
	for k := range bases {
		var s float64
		for range length {
			s = 0.6*s + 0.4*rng.NormFloat64()
			bases[k] = append(bases[k], s)
		}
	}
	var b strings.Builder
	b.WriteString("batch,u,y\n")
	for i := range batches {
		var y float64
		for r := range reps {
			f := math.Pow(sign, float64(r))
			for _, v := range bases[i%inputs] {
				u := f * v
				y = 0.9*y + 0.1*u
				fmt.Fprintf(&b, "%d,%.9g,%.9g\n", i, u, y+0.001*rng.NormFloat64())
			}
		}
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRepeatedInputValidation: a record whose input is periodic or
// antiperiodic is validated on the same phase of every repeat, one whose
// repeat is too short for that on its tail with a warning, and batches
// that repeat one
// another's input are held out together, or by their tails when too few
// are distinct; each says so.
func TestRepeatedInputValidation(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name                          string
		batches, inputs, length, reps int
		sign                          float64
		note                          string
	}{
		{"antiperiodic record", 1, 1, 600, 2, -1, "repeats itself every 600 samples with its sign flipped (correlation -1.000): validating on the last 120 samples of every repeat"},
		{"antiperiodic record of two periods", 1, 1, 300, 4, -1, "repeats itself every 300 samples with its sign flipped (correlation -1.000): validating on the last 60 samples of every repeat"},
		{"short antiperiod", 1, 1, 60, 20, -1, "repeats itself every 60 samples with its sign flipped (correlation -1.000), too short a repeat to hold out a part of each"},
		{"periodic record", 1, 1, 400, 3, 1, "validating on the last 80 samples of every period"},
		{"short period", 1, 1, 60, 20, 1, "too short a period to hold out a part of each"},
		{"repeated batches", 10, 5, 400, 1, 1, "whole groups of batches that repeat one another's input: 5 distinct inputs"},
		{"too few distinct batches", 6, 2, 400, 1, 1, "the 6 batches hold 2 distinct inputs"},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := filepath.Join(dir, "d.csv")
			writeRepeats(t, data, c.batches, c.inputs, c.length, c.reps, c.sign)
			out := filepath.Join(dir, "m.json")
			code, _, stderr := cli(t, "train", "--data", data, "--branches", "1", "--taps", "5", "--iters", "1", "--epochs", "2", "--force", "--out", out)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if !strings.Contains(stderr, c.note) {
				t.Errorf("no note %q:\n%s", c.note, stderr)
			}
		})
	}
}

// TestSharedInputNote: --val whose record repeats a training record's input
// is named in a note, by train and by compare; --val of its own input is
// not.
func TestSharedInputNote(t *testing.T) {
	dir := t.TempDir()
	train := filepath.Join(dir, "train.csv")
	copied := filepath.Join(dir, "copied.csv")
	writeRepeats(t, train, 3, 3, 400, 1, 1)
	writeRepeats(t, copied, 2, 3, 400, 1, 1) // batches 0 and 1 repeat the training inputs
	own := genData(t, dir, 2, "7")
	const note = `of --val repeats the input of batch "0"`
	for _, c := range []struct {
		val  string
		args []string
		want bool
	}{
		{copied, []string{"train", "--branches", "1", "--taps", "5", "--iters", "1", "--epochs", "2", "--force", "--out", filepath.Join(dir, "m.json")}, true},
		{own, []string{"train", "--branches", "1", "--taps", "5", "--iters", "1", "--epochs", "2", "--force", "--out", filepath.Join(dir, "m.json")}, false},
		{copied, []string{"compare", "--only", "fir", "--quick"}, true},
	} {
		code, _, stderr := cli(t, append(c.args, "--data", train, "--val", c.val)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args[0], code, stderr)
		}
		if got := strings.Contains(stderr, note); got != c.want {
			t.Errorf("%s --val %s: note %v, want %v:\n%s", c.args[0], filepath.Base(c.val), got, c.want, stderr)
		}
	}
}
