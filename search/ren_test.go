package search

import (
	"context"
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/passivenfir/gputrain/baselines"
	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/loop"
	"github.com/passivenfir/gputrain/model"
	"github.com/passivenfir/gputrain/trainer"
)

// tinyREN is a REN schedule short enough for tests.
func tinyREN() *baselines.RENConfig {
	c := baselines.SimulationRENConfig()
	c.States, c.Neurons, c.Epochs, c.Patience, c.MaxSamples = 2, 4, 30, 10, 200_000
	return &c
}

// TestSelectREN: with Options.REN the passive REN competes: RENSeeds rows,
// one per seed from the base seed on, each with its size: one plain, one
// wide and gated, one biased and two gated; the chosen row
// (one) is the result's, a REN row exactly when RENChosen; a fixed
// structure field leaves the RENs out, and the plan states their cost.
func TestSelectREN(t *testing.T) {
	train, val := msd(t, 10, 1), msd(t, 4, 2)
	base := tiny()
	base.Seed = 7
	var plan string
	opt := Options{Budget: 1, REN: tinyREN(), Progress: func(e Event) {
		if e.Stage == "plan" {
			plan = e.Note
		}
	}}
	res, err := Select(context.Background(), base, Fixed{}, opt, train, val)
	if err != nil {
		t.Fatal(err)
	}
	if res.REN == nil || math.IsNaN(res.RENFit) {
		t.Fatalf("no REN offered (fit %v)", res.RENFit)
	}
	var seeds []uint64
	var biased, gated []bool
	chosen := 0
	for _, r := range res.Rows {
		if r.REN != nil {
			seeds = append(seeds, r.REN.Seed)
			biased = append(biased, r.REN.Biased)
			gated = append(gated, r.REN.Gated)
			wide := r.REN.States == WideStates && r.REN.Neurons == WideNeurons && len(seeds) == 2
			if !wide && (r.REN.States != 2 || r.REN.Neurons != 4) || r.Structure.Branches != 0 || r.Loop != nil {
				t.Errorf("REN row %+v", r)
			}
			if r.ValFit > res.RENFit {
				t.Errorf("REN row %q scores %v above the REN offered (%v)", r.Name, r.ValFit, res.RENFit)
			}
		}
		if r.Chosen {
			chosen++
			if r.ValFit != res.ValFit() || (r.REN != nil) != res.RENChosen {
				t.Errorf("chosen row %+v, result fit %v, REN chosen %v", r, res.ValFit(), res.RENChosen)
			}
		}
	}
	if len(seeds) != RENSeeds || seeds[0] != 7 || seeds[1] != 8 || seeds[2] != 9 || chosen != 1 || (res.RENChosen && res.LoopChosen) {
		t.Errorf("REN seeds %v, %d chosen rows, REN chosen %v, loop chosen %v", seeds, chosen, res.RENChosen, res.LoopChosen)
	}
	if !slices.Equal(biased, []bool{false, false, true, false, false}) || !slices.Equal(gated, []bool{false, true, false, true, true}) {
		t.Errorf("REN rows biased %v, gated %v: want plain, wide gated, biased, gated, gated", biased, gated)
	}
	if !(res.ValFit() >= res.LinearFit) {
		t.Errorf("chosen fit %v below the FIR's %v", res.ValFit(), res.LinearFit)
	}
	if want := "5 passive RENs (1 of them with biases, 3 gated, 1 of those 8 × 32 and 1 from slow modes at the longest memory the records show)"; !strings.Contains(plan, want) {
		t.Errorf("plan %q does not say %q", plan, want)
	}
	fixedBase := tiny()
	fixedBase.Structure.Taps = 12
	fixed, err := Select(context.Background(), fixedBase, Fixed{Taps: true}, Options{Budget: 1, REN: tinyREN()}, train, val)
	if err != nil || fixed.REN != nil {
		t.Errorf("fixed taps: REN %v, err %v", fixed.REN, err)
	}
}

// TestFinishREN: finish's order of the families. A REN that validates
// above the loop's offer is chosen over it (and the loop's row is not
// marked); one that does not leaves the loop chosen with the loop's
// margin; with a linear FIR whose validation Fit the REN does not clearly
// beat, the FIR is kept.
func TestFinishREN(t *testing.T) {
	train, val := msd(t, 6, 3), msd(t, 3, 4)
	ren, err := baselines.TrainREN(train, val, *tinyREN())
	if err != nil {
		t.Fatal(err)
	}
	renFit, err := loop.FitOf(val, 0, ren.Simulate)
	if err != nil {
		t.Fatal(err)
	}
	fir := &trainer.Result{BestValFit: renFit - 20}
	for _, tc := range []struct {
		name            string
		loopFit, renFit float64
		wantREN         bool
		wantLoop        bool
	}{
		{"REN above the loop", renFit - 5, renFit, true, false},
		{"loop above the REN", renFit + 5, renFit, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &searcher{base: tiny(), val: val}
			lm := Margin{Gain: 3, SE: 1, Blocks: 4}
			res := &Result{LinearFit: fir.BestValFit, LoopModel: loop.Mean{{Count: 1}}, LoopFit: tc.loopFit, REN: ren, RENFit: tc.renFit, Margin: lm,
				Rows:    []Row{{Name: "FIR 8", ValFit: fir.BestValFit}, {Name: "loop", Loop: &loop.Structure{}, ValFit: tc.loopFit}, {Name: "ren", REN: &RENStructure{}, ValFit: tc.renFit}},
				loopRow: 1, renRow: 2}
			got, err := s.finish(res, fir, tiny(), nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got.RENChosen != tc.wantREN || got.LoopChosen != tc.wantLoop || got.Rows[2].Chosen != tc.wantREN || got.Rows[1].Chosen != tc.wantLoop || got.Rows[0].Chosen {
				t.Errorf("REN chosen %v, loop chosen %v, rows %+v", got.RENChosen, got.LoopChosen, got.Rows)
			}
			if tc.wantLoop && got.Margin != lm {
				t.Errorf("loop chosen with margin %v, want the loop's %v", got.Margin, lm)
			}
		})
	}
	// Without a linear baseline there is no margin to clear: the better REN wins.
	s := &searcher{base: tiny(), val: val}
	res := &Result{LinearFit: renFit - 0.01, REN: ren, RENFit: renFit,
		Rows: []Row{{Name: "FIR 8", ValFit: renFit - 0.01}, {Name: "ren", REN: &RENStructure{}, ValFit: renFit}}, renRow: 1}
	if got, _ := s.finish(res, &trainer.Result{BestValFit: renFit - 0.01}, tiny(), nil, nil); !got.RENChosen {
		t.Errorf("without a linear baseline to measure a margin against, the better REN was not chosen: %+v", got.Rows)
	}
	// A linear baseline fitted to the validation output itself (least
	// squares, 30 taps) simulates it better than the REN block by block:
	// the REN's higher aggregate Fit is no clear gain, and the FIR stays.
	lin := lsFIR(t, val, 30)
	res = &Result{LinearFit: renFit - 0.01, REN: ren, RENFit: renFit, linear: lin,
		Rows: []Row{{Name: "FIR 30", Structure: lin.Structure, ValFit: renFit - 0.01}, {Name: "ren", REN: &RENStructure{}, ValFit: renFit}}, renRow: 1}
	got, _ := s.finish(res, &trainer.Result{Model: lin, BestValFit: renFit - 0.01}, tiny(), nil, nil)
	if got.RENChosen || !got.Rows[0].Chosen || got.Margin.Clear() {
		t.Errorf("REN chosen %v over a FIR that simulates better (margin %v), rows %+v", got.RENChosen, got.Margin, got.Rows)
	}
}

// lsFIR is the least-squares FIR of L taps from u to y over the records of d.
func lsFIR(t *testing.T, d *data.Dataset, L int) *model.NFIR {
	t.Helper()
	var rows [][]float64
	var ys []float64
	for _, b := range d.Batches {
		for k := range b.U {
			r := make([]float64, L)
			for j := 0; j < L && j <= k; j++ {
				r[j] = b.U[k-j]
			}
			rows, ys = append(rows, r), append(ys, b.Y[k])
		}
	}
	A := mat.NewDense(len(rows), L, nil)
	for i, r := range rows {
		A.SetRow(i, r)
	}
	var g mat.VecDense
	if err := g.SolveVec(A, mat.NewVecDense(len(ys), ys)); err != nil {
		t.Fatal(err)
	}
	m, err := model.New(model.Structure{LinearTaps: L})
	if err != nil {
		t.Fatal(err)
	}
	copy(m.Lin, g.RawVector().Data)
	return m
}

// TestRENKinds: the wide kinds are gated and sized WideStates ×
// WideNeurons, no kind is both biased and gated (baselines refuses the
// pair), and the counts the plan states are those of the table.
func TestRENKinds(t *testing.T) {
	for k, kind := range renKinds {
		if kind.States != 0 && (!kind.Gated || kind.States != WideStates || kind.Neurons != WideNeurons) {
			t.Errorf("kind %d: %+v, want gated %d × %d", k, kind, WideStates, WideNeurons)
		}
		if kind.Biased && kind.Gated {
			t.Errorf("kind %d is both biased and gated", k)
		}
	}
	if b, g, w, l := renCounts(); b != 1 || g != 3 || w != 1 || l != 1 {
		t.Errorf("renCounts: %d biased, %d gated, %d wide, %d long; want 1, 3, 1, 1", b, g, w, l)
	}
	if last := renKinds[len(renKinds)-1]; !last.Long || !last.Gated || last.States != 0 {
		t.Errorf("the last kind is %+v; want the second gated start, at the long memory", last)
	}
}

// TestRENGate: the RENs, all training at once, share a gate of the
// workers' slots only where the runtime would otherwise give them more
// cores than the workers.
func TestRENGate(t *testing.T) {
	for _, c := range []struct {
		workers, procs, slots int // slots −1: no gate
	}{
		{1, 1, -1},
		{2, 2, -1},         // the runtime bounds them to 2 cores already
		{1, 2, 1},          // --workers 1 on 2 cores
		{1, 64, 1},         // a scheduler's one-core task on a large node
		{3, 16, 3},         //
		{RENSeeds, 64, -1}, // one core each at most
		{8, 64, -1},        //
		{4, 2, -1},         // more workers than cores: the runtime's bound
		{0, 4, -1},         // 0 never reaches here (GOMAXPROCS), but no gate of 0
	} {
		g := renGate(c.workers, c.procs)
		got := -1
		if g != nil {
			got = cap(g)
		}
		if got != c.slots {
			t.Errorf("renGate(%d, %d): %d slots, want %d", c.workers, c.procs, got, c.slots)
		}
	}
}

// TestSelectRENGated: with fewer workers than cores the RENs train through
// the gate (renGate) and find what they find without it: the same REN
// rows, fit for fit, the gate changing only when steps run.
func TestSelectRENGated(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	train, val := msd(t, 10, 1), msd(t, 4, 2)
	base := tiny()
	base.Seed = 7
	fits := func(workers int) []float64 {
		res, err := Select(context.Background(), base, Fixed{}, Options{Budget: 1, REN: tinyREN(), Workers: workers}, train, val)
		if err != nil {
			t.Fatal(err)
		}
		var f []float64
		for _, r := range res.Rows {
			if r.REN != nil {
				f = append(f, r.ValFit)
			}
		}
		return f
	}
	if renGate(1, 4) == nil || renGate(4, 4) != nil {
		t.Fatal("renGate: want a gate for 1 worker of 4 cores, none for 4")
	}
	gated, free := fits(1), fits(4)
	if len(gated) != RENSeeds || !slices.Equal(gated, free) {
		t.Errorf("REN fits with a gate %v, without %v", gated, free)
	}
}

// TestLongMemory: the long-memory REN's memory is half the shortest
// training record, at most LongMemoryCap, never below the FIR's measure.
func TestLongMemory(t *testing.T) {
	records := func(lens ...int) *data.Dataset {
		d := &data.Dataset{}
		for _, n := range lens {
			d.Batches = append(d.Batches, data.Batch{U: make([]float64, n), Y: make([]float64, n)})
		}
		return d
	}
	for _, tc := range []struct {
		name     string
		train    *data.Dataset
		measured int
		want     int
	}{
		{"short records: the FIR's", records(500, 500), 128, 250},
		{"the shortest record counts", records(4000, 1000, 3000), 8, 500},
		{"one long record", records(24000), 64, 4000},
		{"the cap", records(100_000), 0, LongMemoryCap},
		{"the FIR's measure is longer", records(4000), 2500, 2500},
		{"no data", nil, 300, 300},
	} {
		if got := longMemory(tc.train, tc.measured); got != tc.want {
			t.Errorf("%s: longMemory = %d, want %d", tc.name, got, tc.want)
		}
	}
}

// TestSelectRENLongMemory: on records of 600 samples the second gated REN
// starts from slow modes at half a record, 300 samples, which its row
// names and records; it is the REN baselines.TrainREN trains with that
// memory, and RENMemory gives each trained REN its row's memory. The
// others keep the FIR's memory.
func TestSelectRENLongMemory(t *testing.T) {
	gen := func(batches int, seed uint64) *data.Dataset {
		d, err := data.GenerateMSD(data.MSDConfig{Batches: batches, Seed: seed, Samples: 600})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	train, val := gen(4, 1), gen(2, 2)
	base := tiny()
	base.Seed = 3
	ren := tinyREN()
	ren.Epochs, ren.MaxSamples = 4, 0
	res, err := Select(context.Background(), base, Fixed{}, Options{Budget: 1, REN: ren}, train, val)
	if err != nil {
		t.Fatal(err)
	}
	if res.Memory > 256 {
		t.Fatalf("the FIR measured %d samples; the test wants a short measure", res.Memory)
	}
	var long *Row
	for i, r := range res.Rows {
		if r.REN == nil {
			continue
		}
		want := res.Memory
		if r.REN.Long {
			want, long = 300, &res.Rows[i]
		}
		if r.REN.Memory != want {
			t.Errorf("row %q: memory %d, want %d", r.Name, r.REN.Memory, want)
		}
	}
	if long == nil || !strings.Contains(long.Name, "gated, memory 300, seed 7") {
		t.Fatalf("no long-memory row named for its memory: %+v", long)
	}
	cfg := *ren
	cfg.Seed, cfg.Workers, cfg.Memory = 7, 1, 300
	cfg = cfg.WithGates()
	alone, err := baselines.TrainREN(train, val, cfg)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for i, m := range res.rens {
		if &res.Rows[res.renRows[i]] == long {
			found = true
			if !slices.Equal(m.Theta, alone.Theta) {
				t.Error("the long-memory REN is not TrainREN's at memory 300")
			}
		}
		if got, want := res.RENMemory(m), res.Rows[res.renRows[i]].REN.Memory; got != want {
			t.Errorf("RENMemory of REN %d: %d, want its row's %d", i, got, want)
		}
	}
	if !found {
		t.Error("the long-memory row has no trained REN")
	}
	if got := res.RENMemory(alone); got != res.Memory {
		t.Errorf("RENMemory of a REN the search did not train: %d, want Result.Memory %d", got, res.Memory)
	}
}
