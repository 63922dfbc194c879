package search

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/loop"
	"github.com/passivenfir/gputrain/trainer"
)

// tiny is a schedule short enough for tests: the search's logic, not the
// models' quality, is under test.
func tiny() trainer.Config {
	c := trainer.DefaultConfig()
	c.Scale = "auto"
	c.Iters, c.Epochs, c.Patience = 1, 4, 2
	return c
}

func msd(t *testing.T, batches int, seed uint64) *data.Dataset {
	t.Helper()
	d, err := data.GenerateMSD(data.MSDConfig{Batches: batches, Seed: seed, Samples: 120})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestSelectNeverBelowLinear: on data of a passive linear FIR, where no
// lifting can help, the chosen model's validation Fit is at least the best
// passive FIR's; the table lists the FIR lengths tried and every
// candidate, and the chosen row is marked once.
func TestSelectNeverBelowLinear(t *testing.T) {
	g, err := data.PassiveFIR(3, 20, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	train := data.SimulateDataset(g, "train", 0.01, data.GaussianInputs(1, 12, 100, 1))
	val := data.SimulateDataset(g, "val", 0.01, data.GaussianInputs(2, 4, 100, 1))
	res, err := Select(context.Background(), tiny(), Fixed{}, Options{Budget: 2, AutoDecay: true}, train, val)
	if err != nil {
		t.Fatal(err)
	}
	if !(res.BestValFit >= res.LinearFit) {
		t.Errorf("chosen %s: val fit %.3f below the passive FIR's %.3f", res.Chosen, res.BestValFit, res.LinearFit)
	}
	if res.LinearTaps < 16 {
		t.Errorf("FIR length %d: the plant's impulse response has 20 taps", res.LinearTaps)
	}
	chosen, firs, nfirs := 0, 0, 0
	for _, r := range res.Rows {
		if r.Chosen {
			chosen++
			if r.Name != res.Chosen || r.ValFit != res.BestValFit {
				t.Errorf("chosen row %+v, result %s %.3f", r, res.Chosen, res.BestValFit)
			}
		}
		if r.Structure.Branches == 0 {
			firs++
		} else {
			nfirs++
			if r.Structure.LinearTaps != 0 && r.Structure.LinearTaps != res.LinearTaps {
				t.Errorf("%s: parallel FIR of %d taps, want 0 or L* = %d", r.Name, r.Structure.LinearTaps, res.LinearTaps)
			}
		}
	}
	if chosen != 1 || firs < 2 || nfirs != 3 {
		t.Errorf("%d chosen, %d FIR rows, %d NFIR rows (budget 2: 3 candidates)", chosen, firs, nfirs)
	}
	if !res.Cert.Passive {
		t.Errorf("chosen model not certified: %+v", res.Cert)
	}
}

// TestSelectFixed: the fields the user fixed are kept by every candidate.
func TestSelectFixed(t *testing.T) {
	train, val := msd(t, 10, 1), msd(t, 4, 2)
	base := tiny()
	base.Structure.Taps, base.Structure.Branches, base.Structure.Feedback = 12, 3, false
	res, err := Select(context.Background(), base, Fixed{Taps: true, Branches: true, Feedback: true}, Options{Budget: 2}, train, val)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range res.Rows {
		if r.Structure.Branches == 0 {
			continue
		}
		n++
		if s := r.Structure; s.Taps != 12 || s.Branches != 3 || s.Feedback {
			t.Errorf("%s: structure %+v does not keep taps 12, branches 3, FF", r.Name, s)
		}
	}
	if n == 0 {
		t.Fatal("no NFIR candidate")
	}
}

// TestSelectRungs: successive halving keeps a third of each rung and trains
// the survivors with three times the epochs; the plan states the cost.
func TestSelectRungs(t *testing.T) {
	train, val := msd(t, 8, 1), msd(t, 3, 2)
	base := tiny()
	base.Epochs, base.Patience = 9, 0
	var plans []string
	res, err := Select(context.Background(), base, Fixed{}, Options{Budget: 3, Progress: func(e Event) {
		if e.Stage == "plan" {
			plans = append(plans, e.Note)
		}
	}}, train, val)
	if err != nil {
		t.Fatal(err)
	}
	perRung := map[int][]int{}
	for _, r := range res.Rows {
		if r.Structure.Branches > 0 && r.Blend == 0 { // a blend row trains nothing
			perRung[r.Rung] = append(perRung[r.Rung], r.Epochs)
		}
	}
	// 9 candidates: 6 stop at rung 0 (1 epoch), 2 at rung 1 (3), 1 trains the full 9
	want := map[int][]int{0: {1, 1, 1, 1, 1, 1}, 1: {3, 3}, 2: {9}}
	for r, w := range want {
		if !slices.Equal(perRung[r], w) {
			t.Errorf("rung %d: epochs %v, want %v", r, perRung[r], w)
		}
	}
	p := (&searcher{base: base}).plan(&Result{}, 9, 3)
	if p.Epochs != 9*1+3*3+1*9 || p.FullEpochs != 9 || len(plans) != 1 || plans[0] != p.String() {
		t.Errorf("plan %+v (%q), events %q", p, p.String(), plans)
	}
}

// TestSelectInterrupted: a cancelled search returns the best model scored
// so far with the context's error.
func TestSelectInterrupted(t *testing.T) {
	train, val := msd(t, 8, 1), msd(t, 3, 2)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res, err := Select(ctx, tiny(), Fixed{}, Options{Budget: 2, Workers: 1, Progress: func(e Event) {
		if e.Stage == "candidate" {
			cancel()
		}
	}}, train, val)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	if res == nil || res.Model == nil || math.IsNaN(res.BestValFit) {
		t.Fatalf("no best model so far: %+v", res)
	}
}

func TestSelectErrors(t *testing.T) {
	train := msd(t, 4, 1)
	if _, err := Select(context.Background(), tiny(), Fixed{}, Options{}, train, nil); !errors.Is(err, trainer.ErrConfig) {
		t.Errorf("no validation data: err %v", err)
	}
	if _, err := Select(context.Background(), tiny(), Fixed{}, Options{Budget: -1}, train, train); !errors.Is(err, ErrBudget) {
		t.Errorf("budget -1: err %v", err)
	}
}

// TestSelectLoop: with Options.Loop the loop family competes: its rows are
// in the table (with a row for the shapes' mean when that is the family's
// offer, loop.Choose), the chosen row (one) has the highest validation Fit
// of all, and a search with a fixed structure field leaves the loop out.
func TestSelectLoop(t *testing.T) {
	train, val := msd(t, 10, 1), msd(t, 4, 2)
	lc := loop.DefaultConfig()
	lc.Epochs = 20
	res, err := Select(context.Background(), tiny(), Fixed{}, Options{Budget: 1, Loop: &lc}, train, val)
	if err != nil {
		t.Fatal(err)
	}
	if res.Loop == nil {
		t.Fatal("no loop candidate")
	}
	m, fit, mean, err := loop.Choose(val, 0, res.Loop)
	if err != nil || len(m) != 1 || fit != res.Loop.ValFit || mean {
		t.Fatalf("loop.Choose of the best loop alone: %d members, fit %v, %v", len(m), fit, err)
	}
	if !(res.LoopFit >= res.Loop.ValFit) || len(res.LoopModel) == 0 {
		t.Errorf("the family offers %d loops scoring %v, below its best loop's %v", len(res.LoopModel), res.LoopFit, res.Loop.ValFit)
	}
	top, chosen, loops, means := math.Inf(-1), 0, 0, 0
	for _, r := range res.Rows {
		if r.Loop != nil {
			loops++
		}
		if r.Members != nil {
			means++
			if len(r.Members) != len(res.LoopModel) || r.ValFit != res.LoopFit {
				t.Errorf("mean row %+v, the family's offer %d loops scoring %v", r, len(res.LoopModel), res.LoopFit)
			}
		}
		if !math.IsNaN(r.ValFit) {
			top = math.Max(top, r.ValFit)
		}
		if r.Chosen {
			chosen++
			if r.ValFit != res.ValFit() || (r.Loop != nil || r.Members != nil) != res.LoopChosen {
				t.Errorf("chosen row %+v, result fit %v loop %v", r, res.ValFit(), res.LoopChosen)
			}
		}
	}
	if loops != len(loop.Runs(res.LinearTaps, 1, 0)) || chosen != 1 || res.ValFit() != top || means != min(len(res.LoopModel)-1, 1) {
		t.Errorf("%d loop rows, %d mean rows, %d chosen, chosen fit %v, best %v", loops, means, chosen, res.ValFit(), top)
	}
	base := tiny()
	base.Structure.Taps = 12
	fixed, err := Select(context.Background(), base, Fixed{Taps: true}, Options{Budget: 1, Loop: &lc}, train, val)
	if err != nil || fixed.Loop != nil {
		t.Errorf("fixed taps: loop %v, err %v", fixed.Loop, err)
	}
}
