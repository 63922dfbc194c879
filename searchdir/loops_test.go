package searchdir

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/passivenfir/gputrain/loop"
	"github.com/passivenfir/gputrain/model"
	"github.com/passivenfir/gputrain/search"
)

// TestLoopPlan: a loop run becomes train --model loop of its shape, seed,
// workers and epochs, started from fir.json in the loops' folder; a run
// that such flags would not train exactly is refused.
func TestLoopPlan(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "search")
	tr, err := Open(dir, dataset(1, 60, 60), dataset(2, 40), nil)
	if err != nil {
		t.Fatal(err)
	}
	fir, err := model.New(model.Structure{LinearTaps: 16})
	if err != nil {
		t.Fatal(err)
	}
	runs := func(L int, edit func(*loop.Config)) search.Loops {
		ls := search.Loops{Linear: fir}
		for _, r := range loop.Runs(L, 3, 0) {
			cfg := loop.DefaultConfig()
			cfg.Structure, cfg.Seed, cfg.Workers, cfg.Epochs, cfg.Skip = r.Structure, r.Seed, 2, 5, 1
			if len(fir.Lin) == r.Structure.L1 {
				cfg.InitLinear = fir.Lin
			}
			if edit != nil {
				edit(&cfg)
			}
			ls.Names, ls.Configs = append(ls.Names, fmt.Sprint("loop ", len(ls.Names))), append(ls.Configs, cfg)
		}
		return ls
	}
	p, err := tr.LoopPlan(runs(16, nil))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(loop.Runs(16, 3, 0)); len(p.Trials) != n || n != 14 {
		t.Fatalf("%d trials, want %d (6 shapes × 2 seeds, the 2 recurrent ones from a third)", len(p.Trials), n)
	}
	for _, tc := range []struct {
		trial int
		shape string
		seed  int
	}{{7, "wide", 4}, {9, "wide-states", 4}, {10, "sized-rec", 4}, {13, "wide-rec", 5}} {
		args, err := p.Trials[tc.trial].Args(LoopsDir(dir))
		if err != nil {
			t.Fatal(err)
		}
		line := strings.Join(args, " ")
		for _, want := range []string{"--model=loop", "--loop-shape=" + tc.shape + " ", fmt.Sprintf("--seed=%d", tc.seed), "--workers=2", "--loop-epochs=5", "--loop-skip=1",
			"--loop-init=" + filepath.Join(LoopsDir(dir), FIRFile), "--data " + filepath.Join(dir, "train.npy")} {
			if !strings.Contains(line+" ", want) {
				t.Errorf("trial %d's flags %q lack %s", tc.trial, line, want)
			}
		}
	}
	// a basis of the search's loop settings travels as --loop-basis
	pb, err := tr.LoopPlan(runs(16, func(c *loop.Config) { c.Basis = 6 }))
	if err != nil {
		t.Fatal(err)
	}
	if args, err := pb.Trials[0].Args(LoopsDir(dir)); err != nil || !slices.Contains(args, "--loop-basis=6") {
		t.Errorf("trial with a basis: flags %q (%v), want --loop-basis=6", args, err)
	}
	if args, _ := p.Trials[0].Args(LoopsDir(dir)); strings.Contains(strings.Join(args, " "), "loop-basis") {
		t.Errorf("trial without a basis: flags %q name one", args)
	}
	for _, tc := range []struct {
		name string
		ls   search.Loops
		want string
	}{
		{"patience", runs(16, func(c *loop.Config) { c.Patience = 3 }), "patience"},
		{"window", runs(16, func(c *loop.Config) { c.Window = 50 }), "window"},
		{"constant rate", runs(16, func(c *loop.Config) { c.LRDecay = 0 }), "learning-rate decay"},
		{"other memory", runs(32, nil), "no shape"},
		{"other taps", runs(16, func(c *loop.Config) { c.InitLinear = slices.Clone(fir.Lin) }), "initial taps"},
		{"no workers", runs(16, func(c *loop.Config) { c.Workers = 0 }), "workers"},
	} {
		if _, err := tr.LoopPlan(tc.ls); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want an error on %s", tc.name, err, tc.want)
		}
	}
}
