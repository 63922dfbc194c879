package loop

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/internal/datatest"
)

// loopData simulates records of a random loop (the true plant) driven by
// Gaussian inputs.
func loopData(t *testing.T, truth *Model, seed uint64, records, samples int) *data.Dataset {
	t.Helper()
	d := &data.Dataset{Ts: 0.01}
	for r := range records {
		u := randomInput(seed*100+uint64(r), samples)
		d.Batches = append(d.Batches, data.Batch{U: u, Y: truth.Simulate(u)})
	}
	return d
}

// learnable is a small loop structure with 12 training and 4 validation
// records of 150 samples from a random loop of it (seed 42; with scaled,
// its scales SU = 2, SY = 0.5): what the training tests learn.
func learnable(t *testing.T, scaled bool) (Structure, *data.Dataset, *data.Dataset) {
	t.Helper()
	s := Structure{R1: 1, R2: 1, Hidden: []int{4}, B1: 1, T1: 6, L1: 8, B2: 1, T2: 4, L2: 4}
	truth := randomModel(t, s, 42)
	if scaled {
		truth.SU, truth.SY = 2, 0.5
	}
	return s, loopData(t, truth, 1, 12, 150), loopData(t, truth, 2, 4, 150)
}

// TestTrainLearnsLoop: Train, started from its own random initialization,
// fits a loop plant of its own structure far better than the zero model
// (Fit 0) and better than it started; the result stays certified and the
// run is deterministic.
func TestTrainLearnsLoop(t *testing.T) {
	s, train, val := learnable(t, true)
	cfg := DefaultConfig()
	cfg.Structure, cfg.Epochs, cfg.Patience, cfg.Workers = s, 60, 0, 2
	var first float64 = math.NaN()
	cfg.Progress = func(ep int, _, f float64) {
		if ep == 0 {
			first = f
		}
	}
	res, err := Train(context.Background(), cfg, train, val)
	if err != nil {
		t.Fatal(err)
	}
	if !(res.ValFit > 80) || !(res.ValFit > first) {
		t.Errorf("validation Fit %.2f after the first epoch's %.2f; want > 80", res.ValFit, first)
	}
	if c, err := res.Model.Certify(); err != nil || !c.Passive {
		t.Errorf("certificate %+v, %v", c, err)
	}
	cfg.Progress = nil
	again, err := Train(context.Background(), cfg, train, val)
	if err != nil || again.ValFit != res.ValFit {
		t.Errorf("second run: Fit %v (first %v), err %v", again.ValFit, res.ValFit, err)
	}
}

// TestTrainWindows: a record longer than Window+BurnIn is trained in
// windows; Train still runs and is interrupted cleanly.
func TestTrainWindows(t *testing.T) {
	s := Structure{R1: 1, R2: 1, B1: 1, T1: 4, L1: 4, B2: 1, T2: 2}
	truth := randomModel(t, s, 7)
	train, val := loopData(t, truth, 3, 1, 900), loopData(t, truth, 4, 1, 300)
	cfg := DefaultConfig()
	cfg.Structure, cfg.Epochs, cfg.Window, cfg.BurnIn = s, 3, 200, 50
	ctx, cancel := context.WithCancel(context.Background())
	cfg.Progress = func(ep int, _, _ float64) {
		if ep == 1 {
			cancel()
		}
	}
	res, err := Train(ctx, cfg, train, val)
	if !errors.Is(err, context.Canceled) || res == nil || res.Model == nil || res.Epochs != 2 {
		t.Fatalf("interrupted run: %+v, err %v", res, err)
	}
}

// TestTrainDeadline: a deadline ends training early with the best model so
// far and no error, and marks the result Cut; a deadline already past
// trains no epoch and returns the starting model.
func TestTrainDeadline(t *testing.T) {
	s, train, val := learnable(t, false)
	cfg := DefaultConfig()
	cfg.Structure, cfg.Epochs, cfg.Patience, cfg.MaxSamples, cfg.Workers = s, 1_000_000, 0, 0, 1
	cfg.Deadline = time.Now().Add(300 * time.Millisecond)
	t0 := time.Now()
	res, err := Train(context.Background(), cfg, train, val)
	if err != nil || res == nil || res.Model == nil {
		t.Fatalf("Train: %+v, %v", res, err)
	}
	if !res.Cut || res.Epochs < 1 || res.Epochs >= cfg.Epochs {
		t.Errorf("cut %v after %d of %d epochs; want cut after some", res.Cut, res.Epochs, cfg.Epochs)
	}
	// loose: the point is that a million epochs did not run
	if d := time.Since(t0); d > 30*time.Second {
		t.Errorf("took %v with a deadline 300ms away", d)
	}
	cfg.Deadline = time.Now().Add(-time.Second)
	past, err := Train(context.Background(), cfg, train, val)
	if err != nil || past.Epochs != 0 || !past.Cut {
		t.Fatalf("past deadline: %d epochs, cut %v, err %v", past.Epochs, past.Cut, err)
	}
	m, _ := New(s)
	m.SU, m.SY = past.Model.SU, past.Model.SY
	m.init(rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x100b)))
	if !slices.Equal(m.Flatten(), past.Model.Flatten()) {
		t.Error("past deadline: the model is not the starting one")
	}
}

func TestConfigCheck(t *testing.T) {
	good := DefaultConfig()
	if err := good.Check(); err != nil {
		t.Fatal(err)
	}
	for name, mut := range map[string]func(*Config){
		"no forward FIR": func(c *Config) { c.Structure.B1, c.Structure.L1 = 0, 0 },
		"no branch":      func(c *Config) { c.Structure.B1, c.Structure.B2 = 0, 0 },
		"no window":      func(c *Config) { c.Structure.R1, c.Structure.R2 = 0, 0 },
		"lr":             func(c *Config) { c.LR = 0 },
		"decay 1":        func(c *Config) { c.LRDecay = 1 },
		"decay < 0":      func(c *Config) { c.LRDecay = -0.1 },
		"decay NaN":      func(c *Config) { c.LRDecay = math.NaN() },
		"epochs":         func(c *Config) { c.Epochs = 0 },
		"taps":           func(c *Config) { c.Structure.T1 = 0 },
	} {
		c := good
		c.Structure.Hidden = append([]int{}, good.Structure.Hidden...)
		mut(&c)
		if err := c.Check(); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: err %v, want ErrConfig", name, err)
		}
	}
	if _, err := Train(context.Background(), good, &data.Dataset{}, nil); !errors.Is(err, ErrConfig) {
		t.Errorf("no data: err %v", err)
	}
}

// TestLRSchedule: the rate starts at LR, falls monotonically to
// (1−LRDecay)·LR at the last planned epoch and stays there; the plan is
// Epochs, or the epochs MaxSamples allows when fewer; no decay (and Quick)
// keeps LR.
func TestLRSchedule(t *testing.T) {
	// two records of 300 samples: windows of 300 samples a pass, and
	// ⌈16/1⌉ = 16 passes an epoch at batch 1 (minSteps): 4800 samples
	wins := []window{{rec: 0, hi: 300}, {rec: 1, hi: 300}}
	var order []int
	for range 8 {
		order = append(order, 0, 1)
	}
	for _, tc := range []struct {
		name               string
		epochs, maxSamples int
		decay              float64
		wantPlanned        int // last epoch of the fall, counting from 1
	}{
		{"epochs bound", 50, 0, 0.98, 50},
		{"samples bound", 600, 4800 * 30, 0.98, 30},
		{"samples bound, partial epoch", 600, 4800*30 + 1, 0.9, 31},
		{"epochs below the sample bound", 20, 4800 * 30, 0.5, 20},
		{"constant", 50, 0, 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Epochs, cfg.MaxSamples, cfg.LRDecay, cfg.LR = tc.epochs, tc.maxSamples, tc.decay, 0.01
			lr := newSchedule(cfg, wins, order).at
			if got := lr(0); got != cfg.LR {
				t.Errorf("epoch 0: rate %g, want %g", got, cfg.LR)
			}
			end := cfg.LR * (1 - tc.decay)
			for ep := 1; ep < tc.epochs+10; ep++ {
				prev, got := lr(ep-1), lr(ep)
				if got > prev {
					t.Fatalf("epoch %d: rate %g rose from %g", ep, got, prev)
				}
				if ep >= tc.wantPlanned-1 && math.Abs(got-end) > 1e-15 {
					t.Fatalf("epoch %d: rate %g, want the floor %g", ep, got, end)
				}
				if ep < tc.wantPlanned-1 && !(got > end) {
					t.Fatalf("epoch %d: rate %g already at the floor %g (planned %d epochs)", ep, got, end, tc.wantPlanned)
				}
			}
			// the middle of the plan is the mean of start and floor
			if p := tc.wantPlanned; p%2 == 1 && p > 1 {
				if got, want := lr((p-1)/2), (cfg.LR+end)/2; math.Abs(got-want) > 1e-15 {
					t.Errorf("mid-plan rate %g, want %g", got, want)
				}
			}
		})
	}
	if q := Quick(DefaultConfig()); q.LRDecay != 0 {
		t.Errorf("Quick keeps a decay of %g", q.LRDecay)
	}
}

func TestRuns(t *testing.T) {
	shapes := Shapes(64)
	rec := 0
	for _, st := range shapes {
		if st.Rec > 0 {
			rec++
		}
	}
	if rec == 0 || rec == len(shapes) {
		t.Fatalf("%d of %d shapes are recurrent: the test needs both kinds", rec, len(shapes))
	}
	rs := Runs(64, 7, 0)
	if want := len(shapes)*Seeds + rec*(RecSeeds-Seeds); len(rs) != want {
		t.Fatalf("%d runs, want %d shapes × %d seeds + %d recurrent shapes × %d more", len(rs), len(shapes), Seeds, rec, RecSeeds-Seeds)
	}
	// an independent count: every shape from its number of seeds, seed-major
	count := map[string]int{}
	seen := map[string]bool{}
	lastSeed := uint64(7)
	for i, r := range rs {
		if r.Structure.Check() != nil {
			t.Errorf("run %d: %+v does not check", i, r)
		}
		if r.Seed < lastSeed {
			t.Errorf("run %d: seed %d after seed %d (want a pass over the shapes per seed)", i, r.Seed, lastSeed)
		}
		lastSeed = r.Seed
		key := fmt.Sprint(r)
		if seen[key] {
			t.Errorf("run %d repeats %s", i, key)
		}
		seen[key] = true
		count[fmt.Sprint(r.Structure)]++
		if want := uint64(count[fmt.Sprint(r.Structure)]) + 6; r.Seed != want {
			t.Errorf("run %d: seed %d, want %d (the shape's %d-th run)", i, r.Seed, want, count[fmt.Sprint(r.Structure)])
		}
	}
	for _, st := range shapes {
		want := Seeds
		if st.Rec > 0 {
			want = RecSeeds
		}
		if got := count[fmt.Sprint(st)]; got != want {
			t.Errorf("shape %+v trains from %d seeds, want %d", st, got, want)
		}
	}
	for i, r := range rs {
		if r.Skip != 0 {
			t.Errorf("run %d skips %d without a second pass", i, r.Skip)
		}
	}
	// with a skip: the same runs again, each with it
	two := Runs(64, 7, 30)
	if len(two) != 2*len(rs) {
		t.Fatalf("%d runs with a skip, want %d", len(two), 2*len(rs))
	}
	for i, r := range two {
		want := rs[i%len(rs)]
		if i >= len(rs) {
			want.Skip = 30
		}
		if fmt.Sprint(r) != fmt.Sprint(want) {
			t.Errorf("run %d with a skip: %+v, want %+v", i, r, want)
		}
	}
}

// TestPriority: the training order under a time limit is a permutation of
// the runs that keeps the passes apart, puts the recurrent runs of a pass
// first, grouped by shape in the order of Shapes, seeds rising within a
// shape, and keeps the other runs in their order.
func TestPriority(t *testing.T) {
	for _, skip := range []int{0, 30} {
		rs := Runs(64, 7, skip)
		order := Priority(rs)
		if len(order) != len(rs) {
			t.Fatalf("skip %d: %d indexes for %d runs", skip, len(order), len(rs))
		}
		seen := make([]bool, len(rs))
		for _, i := range order {
			if i < 0 || i >= len(rs) || seen[i] {
				t.Fatalf("skip %d: order %v is not a permutation", skip, order)
			}
			seen[i] = true
		}
		// the expected order, built independently: per pass, each
		// recurrent shape over the seeds, then the rest as listed
		var want []int
		for _, pass := range []bool{false, true} {
			for _, sh := range Shapes(64) {
				if sh.Rec == 0 {
					continue
				}
				for i, r := range rs {
					if (r.Skip > 0) == pass && fmt.Sprint(r.Structure) == fmt.Sprint(sh) {
						want = append(want, i)
					}
				}
			}
			for i, r := range rs {
				if (r.Skip > 0) == pass && r.Structure.Rec == 0 {
					want = append(want, i)
				}
			}
		}
		if !slices.Equal(order, want) {
			t.Errorf("skip %d: order %v, want %v", skip, order, want)
		}
		first := rs[order[0]]
		if first.Structure.Rec == 0 || first.Seed != 7 || first.Skip != 0 || fmt.Sprint(first.Structure) != fmt.Sprint(WithRec(Sized(64))) {
			t.Errorf("skip %d: first run %+v, want the sized recurrent loop from seed 7", skip, first)
		}
	}
	if got := Priority(nil); len(got) != 0 {
		t.Errorf("no runs: order %v", got)
	}
}

func TestAutoSkip(t *testing.T) {
	records := datatest.Zeros
	for _, tc := range []struct {
		name  string
		L     int
		train *data.Dataset
		want  int
	}{
		{"the FIR's memory", 40, records(500, 500, 500), 40},
		{"an eighth of the shortest record", 128, records(500, 800), 62},
		{"a small share", 32, records(2000, 2000, 2000), 0}, // 96 of 6000 samples: 1.6 %
		{"exactly 1/32", 25, records(800, 800), 25},         // 50 of 1600
		{"just below 1/32", 24, records(800, 800), 0},
		{"one long record", 512, records(5000), 512},
		{"records shorter than 8", 4, records(7, 7), 0},
		{"no records", 16, &data.Dataset{}, 0},
		{"no data", 16, nil, 0},
		{"no memory", 0, records(500), 0},
	} {
		if got := AutoSkip(tc.L, tc.train); got != tc.want {
			t.Errorf("%s: AutoSkip(%d) = %d, want %d", tc.name, tc.L, got, tc.want)
		}
	}
}

// TestTrainStart: training without validation data from a trained loop
// (Config.Start) begins at its parameters and scales and keeps the last
// epoch's: a deadline already past returns the start, a step too small to
// move the parameters returns them, more epochs lower the training error,
// and the start is not modified. A start together with initial linear taps
// is refused.
func TestTrainStart(t *testing.T) {
	s, train, val := learnable(t, true)
	cfg := DefaultConfig()
	cfg.Structure, cfg.Epochs, cfg.Patience, cfg.Workers = s, 10, 0, 2
	first, err := Train(context.Background(), cfg, train, val)
	if err != nil {
		t.Fatal(err)
	}
	start := first.Model.Flatten()
	other := Structure{R1: 2, R2: 1, Hidden: []int{3}, B1: 1, T1: 4, L1: 4, B2: 1, T2: 2}
	errOf := func(m *Model) float64 {
		f, err := FitOf(train, 0, m.Simulate)
		if err != nil {
			t.Fatal(err)
		}
		return 100 - f
	}
	cases := []struct {
		name  string
		set   func(*Config)
		moved bool
	}{
		{"deadline past", func(c *Config) { c.Deadline = time.Now().Add(-time.Second) }, false},
		{"vanishing step", func(c *Config) { c.LR, c.Epochs = 1e-300, 2 }, false},
		{"more epochs", func(c *Config) { c.Epochs = 30 }, true},
	}
	for _, tc := range cases {
		c := cfg
		c.Structure, c.Start = other, first.Model // Start's structure wins
		tc.set(&c)
		res, err := Train(context.Background(), c, train, nil)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !math.IsNaN(res.ValFit) {
			t.Errorf("%s: validation Fit %v without validation data; want NaN", tc.name, res.ValFit)
		}
		m := res.Model
		if m.SU != first.Model.SU || m.SY != first.Model.SY || m.L1 != s.L1 {
			t.Errorf("%s: scales %v, %v and L1 %d; want the start's %v, %v, %d", tc.name, m.SU, m.SY, m.L1, first.Model.SU, first.Model.SY, s.L1)
		}
		got := m.Flatten()
		diff := 0.0
		for i := range got {
			diff = max(diff, math.Abs(got[i]-start[i]))
		}
		if tc.moved {
			if e0, e1 := errOf(first.Model), errOf(m); !(e1 < e0) {
				t.Errorf("%s: training error %.3f %% after, %.3f %% before", tc.name, e1, e0)
			}
		} else if diff > 1e-12 {
			t.Errorf("%s: parameters moved by %g; want the start's", tc.name, diff)
		}
		if again := first.Model.Flatten(); !slices.Equal(again, start) {
			t.Fatalf("%s: the start was modified", tc.name)
		}
	}
	c := cfg
	c.Start, c.InitLinear = first.Model, make([]float64, s.L1)
	if _, err := Train(context.Background(), c, train, nil); !errors.Is(err, ErrConfig) {
		t.Errorf("start and initial taps: err %v, want ErrConfig", err)
	}
}

// TestSessionPieces: a Session run one epoch at a time (a pause already
// past) trains exactly as Train in one piece: the same parameters, Fit and
// epochs, bit for bit, whether the training ends at Epochs, by patience,
// by MaxSamples or with a basis; Result between the pieces is the best so
// far and leaves the training undisturbed.
func TestSessionPieces(t *testing.T) {
	s, train, val := learnable(t, true)
	base := DefaultConfig()
	base.Structure, base.Epochs, base.Patience, base.Workers = s, 25, 0, 2
	cases := []struct {
		name  string
		set   func(*Config)
		early bool // ends before Epochs
	}{
		{"epochs", func(*Config) {}, false},
		{"patience", func(c *Config) { c.Epochs, c.Patience, c.LR = 400, 3, 0.05 }, true},
		{"max samples", func(c *Config) { c.Epochs, c.MaxSamples = 400, 12*150*2*7 }, true},
		{"basis, decay", func(c *Config) { c.Structure.T1, c.Basis, c.LRDecay = 12, 4, 0.9 }, false},
		{"recurrent lift, windows", func(c *Config) { c.Structure.Rec, c.Window, c.BurnIn = 3, 60, 10 }, false},
	}
	for _, tc := range cases {
		cfg := base
		tc.set(&cfg)
		want, err := Train(context.Background(), cfg, train, val)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		ss, err := NewSession(cfg, train, val)
		if err != nil {
			t.Fatal(err)
		}
		pieces, last := 0, math.Inf(-1)
		for {
			ended, err := ss.Run(context.Background(), time.Now().Add(-time.Second))
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			pieces++
			r := ss.Result()
			if r.ValFit < last || r.ValFit != ss.Fit() {
				t.Fatalf("%s: piece %d: Fit %v after %v (session %v)", tc.name, pieces, r.ValFit, last, ss.Fit())
			}
			last = r.ValFit
			if ended {
				break
			}
		}
		got := ss.Result()
		if pieces != want.Epochs || got.Epochs != want.Epochs || got.ValFit != want.ValFit || !slices.Equal(got.Model.Flatten(), want.Model.Flatten()) {
			t.Errorf("%s: %d pieces, %d epochs, Fit %v; want %d epochs, Fit %v and the same parameters", tc.name, pieces, got.Epochs, got.ValFit, want.Epochs, want.ValFit)
		}
		if tc.early && want.Epochs >= cfg.Epochs {
			t.Errorf("%s: ran all %d epochs; the case should end sooner", tc.name, want.Epochs)
		}
		if ended, _ := ss.Run(context.Background(), time.Time{}); !ended || ss.Result().Epochs != want.Epochs {
			t.Errorf("%s: an ended session trained on", tc.name)
		}
	}
}

// TestWithRec: the sized lift gets RecUnits GRU units, a lift wider than
// RecUnits (the wide shape's) WideRecUnits, whatever the memory; nothing
// else of the structure changes.
func TestWithRec(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    Structure
		want int
	}{
		{"sized 8", Sized(8), RecUnits},
		{"sized 250", Sized(250), RecUnits},
		{"sized with states", WithStates(Sized(64)), RecUnits},
		{"wide 64", Wide(64), WideRecUnits},
		{"wide with states", WithStates(Wide(250)), WideRecUnits},
		{"no hidden layer", Structure{R1: 1, R2: 1, B1: 1, T1: 4, L1: 4}, RecUnits},
		{"hidden of RecUnits", Structure{R1: 1, R2: 1, Hidden: []int{RecUnits}, B1: 1, T1: 4}, RecUnits},
		{"hidden of RecUnits+1", Structure{R1: 1, R2: 1, Hidden: []int{RecUnits + 1}, B1: 1, T1: 4}, WideRecUnits},
	} {
		got := WithRec(tc.s)
		if got.Rec != tc.want {
			t.Errorf("%s: %d GRU units, want %d", tc.name, got.Rec, tc.want)
		}
		got.Rec = tc.s.Rec
		if fmt.Sprint(got) != fmt.Sprint(tc.s) {
			t.Errorf("%s: WithRec changed more than Rec: %+v from %+v", tc.name, got, tc.s)
		}
	}
}
