package refit

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/passivenfir/gputrain/baselines"
	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/ensemble"
	"github.com/passivenfir/gputrain/loop"
	"github.com/passivenfir/gputrain/model"
	"github.com/passivenfir/gputrain/trainer"
)

// split is the situation a refit is for: the chosen model trained on part
// of the data (seen: the mass-spring-damper at peak 15 N), and the part held
// out (held: at peak 30 N, an amplitude the training part never reached).
func split(t *testing.T) (seen, held, all *data.Dataset) {
	t.Helper()
	gen := func(seed uint64, peak float64) *data.Dataset {
		d, err := data.GenerateMSD(data.MSDConfig{Batches: 4, Seed: seed, Peak: peak})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	seen, held = gen(31, 15), gen(32, 30)
	all = &data.Dataset{Ts: seen.Ts, Batches: append(slices.Clone(seen.Batches), held.Batches...)}
	return seen, held, all
}

func fitOn(t *testing.T, d *data.Dataset, sim func([]float64) []float64) float64 {
	t.Helper()
	f, err := loop.FitOf(d, 0, sim)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestOptionsCheck(t *testing.T) {
	for _, tc := range []struct {
		o  Options
		ok bool
	}{
		{Options{}, true},
		{Options{Share: 1, Workers: 2, Skip: 10}, true},
		{Options{Share: 0.01}, true},
		{Options{Share: -0.1}, false},
		{Options{Share: 1.5}, false},
		{Options{Share: math.NaN()}, false},
		{Options{Workers: -1}, false},
		{Options{Skip: -1}, false},
	} {
		if err := tc.o.Check(); (err == nil) != tc.ok || (err != nil && !errors.Is(err, ErrConfig)) {
			t.Errorf("%+v: err %v, want ok %v", tc.o, err, tc.ok)
		}
	}
	if _, err := REN(context.Background(), &baselines.PassiveREN{}, baselines.DefaultRENConfig(), nil, Options{}); !errors.Is(err, ErrConfig) {
		t.Errorf("no data: err %v, want ErrConfig", err)
	}
	if _, err := Loop(context.Background(), nil, loop.DefaultConfig(), nil, Options{}); !errors.Is(err, ErrConfig) {
		t.Errorf("no loop: err %v, want ErrConfig", err)
	}
}

// TestPart: the share of a schedule is rounded up and never below one
// epoch; a schedule of 0 (no bound) stays 0.
func TestPart(t *testing.T) {
	for _, tc := range []struct {
		share float64
		n     int
		want  int
	}{
		{0, 5000, 2000}, {0.4, 600, 240}, {0.4, 1, 1}, {0.01, 10, 1}, {0.5, 3, 2}, {1, 7, 7}, {0.4, 0, 0},
	} {
		if got := (Options{Share: tc.share}).part(tc.n); got != tc.want {
			t.Errorf("share %v of %d: %d, want %d", tc.share, tc.n, got, tc.want)
		}
	}
}

// TestREN: a REN trained on the seen part, refitted on all, fits the held
// part better than before, on the start's scales; the start is unchanged,
// and a deadline already past returns it.
// A mean of RENs is refitted member by member with its counts, each with
// the configuration given for it.
func TestREN(t *testing.T) {
	seen, held, all := split(t)
	cfg := baselines.DefaultRENConfig()
	cfg.Epochs, cfg.Batch, cfg.LR, cfg.Workers = 60, 2, 1e-2, 1
	m, err := baselines.TrainREN(seen, nil, cfg)
	if err != nil {
		t.Fatal(err)
	}
	theta := slices.Clone(m.Theta)
	o := Options{Workers: 1}
	r, err := REN(context.Background(), m, cfg, all, o)
	if err != nil {
		t.Fatal(err)
	}
	before, after := fitOn(t, held, m.Simulate), fitOn(t, held, r.Simulate)
	t.Logf("held-out part: Fit %.2f%% before the refit, %.2f%% after", before, after)
	if !(after > before+1) {
		t.Errorf("held-out Fit %.2f%% after the refit, %.2f%% before; want a gain", after, before)
	}
	if r.UScale != m.UScale || r.YScale != m.YScale || !slices.Equal(m.Theta, theta) {
		t.Errorf("scales %v, %v (start %v, %v), or the start changed", r.UScale, r.YScale, m.UScale, m.YScale)
	}
	oc, err := Keep(all, 0, m.Simulate, r.Simulate)
	if err != nil || !oc.Kept || !(oc.After > oc.Before) {
		t.Errorf("Keep: %+v, %v; want the refit kept", oc, err)
	}
	// a deadline before the first epoch leaves the REN as it was
	late, err := REN(context.Background(), m, cfg, all, Options{Deadline: time.Now().Add(-time.Second)})
	if err != nil || !slices.Equal(late.Theta, theta) {
		t.Errorf("a deadline already past: err %v, parameters moved %v", err, late != nil && !slices.Equal(late.Theta, theta))
	}

	other := cfg
	other.Seed, other.Biased = 2, true
	m2, err := baselines.TrainREN(seen, nil, other)
	if err != nil {
		t.Fatal(err)
	}
	mean := ensemble.Mean{{Model: m, Count: 2}, {Model: m2, Count: 1}}
	// each member continues with its own configuration: m2 at a long
	// memory, whose learning rate is lower (baselines.RENConfig.Memory)
	long := cfg
	long.Memory = 4 * baselines.RefMemory
	per := func(r *baselines.PassiveREN) baselines.RENConfig {
		if r == m2 {
			return long
		}
		return cfg
	}
	got, err := RENs(context.Background(), mean, per, all, Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range []baselines.RENConfig{cfg, long} {
		alone, err := REN(context.Background(), mean[i].Model.(*baselines.PassiveREN), c, all, Options{Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		if g, ok := got[i].Model.(*baselines.PassiveREN); !ok || !slices.Equal(g.Theta, alone.Theta) {
			t.Errorf("member %d: refitted in the mean unlike alone with its configuration (memory %d)", i, c.Memory)
		}
	}
	if other, _ := REN(context.Background(), m2, cfg, all, Options{Workers: 1}); slices.Equal(other.Theta, got[1].Model.(*baselines.PassiveREN).Theta) {
		t.Error("member 1 refitted as at the first member's memory")
	}
	if _, err := RENs(context.Background(), mean, nil, all, o); !errors.Is(err, ErrConfig) {
		t.Errorf("no configuration: err %v, want ErrConfig", err)
	}
	if len(got) != 2 || got[0].Count != 2 || got[1].Count != 1 {
		t.Fatalf("refitted mean %+v; want the counts 2, 1", got)
	}
	if g, ok := got[1].Model.(*baselines.PassiveREN); !ok || !g.Biased || g == m2 {
		t.Errorf("member 1 is %T (biased %v); want a new biased REN", got[1].Model, ok && g.Biased)
	}
	if b, a := fitOn(t, held, mean.Simulate), fitOn(t, held, got.Simulate); !(a > b) {
		t.Errorf("mean: held-out Fit %.2f%% after, %.2f%% before", a, b)
	}
	bad := ensemble.Mean{{Model: m, Count: 1}, {Model: loop.Mean{}, Count: 1}}
	if _, err := RENs(context.Background(), bad, per, all, o); !errors.Is(err, ErrConfig) {
		t.Errorf("a mean with a loop in it: err %v, want ErrConfig", err)
	}
}

// TestLoops: a mean of loops refitted on all fits the held part better;
// a deadline already past returns every member as it was.
func TestLoops(t *testing.T) {
	seen, held, all := split(t)
	cfg := loop.DefaultConfig()
	cfg.Structure = loop.Structure{R1: 1, R2: 1, Hidden: []int{4}, B1: 1, T1: 8, L1: 16, B2: 1, T2: 4, L2: 4}
	cfg.Epochs, cfg.Patience, cfg.Workers = 20, 0, 1
	var mean loop.Mean
	for seed := range uint64(2) {
		c := cfg
		c.Seed = seed + 1
		r, err := loop.Train(context.Background(), c, seen, seen)
		if err != nil {
			t.Fatal(err)
		}
		mean = append(mean, loop.Member{Model: r.Model, Count: int(seed) + 1})
	}
	got, err := Loops(context.Background(), mean, cfg, all, Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	b, a := fitOn(t, held, mean.Simulate), fitOn(t, held, got.Simulate)
	t.Logf("held-out part: Fit %.2f%% before the refit, %.2f%% after", b, a)
	if !(a > b) || got[1].Count != 2 {
		t.Errorf("held-out Fit %.2f%% after, %.2f%% before; counts %d, %d", a, b, got[0].Count, got[1].Count)
	}
	if c, err := got.Certify(); err != nil || !c.Passive {
		t.Errorf("certificate %+v, %v", c, err)
	}
	past, err := Loops(context.Background(), mean, cfg, all, Options{Deadline: time.Now().Add(-time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	for i := range past {
		if !slices.Equal(past[i].Flatten(), mean[i].Flatten()) {
			t.Errorf("member %d moved after its deadline", i)
		}
	}
}

// TestNFIRLinear: a passive linear FIR refitted on all is the convex
// solution on all, as a fresh fit there gives it (the refit's first θ_G
// step solves the same problem), and stays certified.
func TestNFIRLinear(t *testing.T) {
	seen, _, all := split(t)
	cfg := trainer.DefaultConfig()
	cfg.Structure, cfg.Iters, cfg.Members, cfg.Workers = model.Structure{LinearTaps: 40}, 1, 1, 1
	chosen, err := trainer.Train(context.Background(), cfg, seen, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := NFIR(context.Background(), chosen.Model, cfg, all, Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := trainer.Train(context.Background(), cfg, all, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Cert.Passive {
		t.Errorf("refitted FIR not certified: %+v", r.Cert)
	}
	// The two differ only in the input scaler (the start's against all's),
	// which a linear FIR's least squares is invariant to.
	y1, _ := r.Model.Simulate(all.Batches[5].U)
	y2, _ := fresh.Model.Simulate(all.Batches[5].U)
	y0, _ := chosen.Model.Simulate(all.Batches[5].U)
	d, d0 := 0.0, 0.0
	for i := range y1 {
		d, d0 = max(d, math.Abs(y1[i]-y2[i])), max(d0, math.Abs(y0[i]-y2[i]))
	}
	if !(d < 1e-3*d0) {
		t.Errorf("refit against a fresh fit on all: %g; the chosen FIR differs by %g", d, d0)
	}
}

func TestKeep(t *testing.T) {
	_, _, all := split(t)
	truth := func(u []float64) []float64 { // the data's own output, found by input
		for _, b := range all.Batches {
			if &b.U[0] == &u[0] {
				return b.Y
			}
		}
		t.Fatal("unknown input")
		return nil
	}
	scaled := func(k float64) func([]float64) []float64 {
		return func(u []float64) []float64 {
			y := slices.Clone(truth(u))
			for i := range y {
				y[i] *= k
			}
			return y
		}
	}
	for _, tc := range []struct {
		name          string
		chosen, refit func([]float64) []float64
		kept          bool
		before, after float64
	}{
		{"better", scaled(0.5), scaled(0.9), true, 50, 90},
		{"worse", scaled(0.9), scaled(0.5), false, 90, 50},
		{"equal", scaled(0.8), scaled(0.8), true, 80, 80},
	} {
		oc, err := Keep(all, 0, tc.chosen, tc.refit)
		if err != nil {
			t.Fatal(err)
		}
		if oc.Kept != tc.kept || math.Abs(oc.Before-tc.before) > 1e-9 || math.Abs(oc.After-tc.after) > 1e-9 {
			t.Errorf("%s: %+v; want kept %v, %v → %v", tc.name, oc, tc.kept, tc.before, tc.after)
		}
	}
}

// TestNFIRLate: a deadline already past returns the NFIR as it was, with
// its certificate.
func TestNFIRLate(t *testing.T) {
	seen, _, all := split(t)
	cfg := trainer.DefaultConfig()
	cfg.Structure, cfg.Iters, cfg.Epochs, cfg.Workers = model.Structure{Branches: 2, Taps: 10, R1: 1, R2: 1, Hidden: []int{4}, Feedback: true}, 1, 2, 1
	chosen, err := trainer.Train(context.Background(), cfg, seen, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := NFIR(context.Background(), chosen.Model, cfg, all, Options{Deadline: time.Now().Add(-time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	if r.Model != chosen.Model || !r.Cert.Passive {
		t.Errorf("a deadline already past: model %p (chosen %p), certificate %+v", r.Model, chosen.Model, r.Cert)
	}
}
