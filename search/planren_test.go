package search

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/passivenfir/gputrain/baselines"
	"github.com/passivenfir/gputrain/internal/datatest"
	"github.com/passivenfir/gputrain/trainer"
)

// TestPlanRENSamples: the plan states the RENs' sample budget as their
// memory stretches it (baselines.MemoryStretch) and as their fewest epochs
// raise it on large data (baselines.RENConfig.Budget).
func TestPlanRENSamples(t *testing.T) {
	// three records of 10 000 samples: 32 400 samples an epoch in windows
	// of 2000 with 200 of burn-in, so 2000 epochs (MinEpochs) outlast 2·10⁷
	big := datatest.SlowPlant(1, 3, 10_000, 20, 0)
	for _, tc := range []struct {
		set, measured int
		train         bool
		want          int
	}{
		{0, 100, false, 20_000_000},
		{0, 2 * baselines.RefMemory, false, 40_000_000},
		{4 * baselines.RefMemory, 2 * baselines.RefMemory, false, 80_000_000}, // the configuration's memory wins
		// the long REN (memory 4000, half a record at most LongMemoryCap) has the largest:
		// 2·10⁷ stretched by 4000/256, above 2000 epochs
		{0, 100, true, 312_500_000},
		// the long REN's memory set too: 2000 epochs
		{baselines.RefMemory, 100, true, 2000 * 32_400},
	} {
		ren := baselines.SimulationRENConfig()
		ren.MaxSamples, ren.Memory = 20_000_000, tc.set
		s := &searcher{base: trainer.DefaultConfig(), opt: Options{REN: &ren}}
		if tc.train {
			s.train = big
		}
		if p := s.plan(&Result{Memory: tc.measured}, 1, 1); p.RENSamples != tc.want {
			t.Errorf("memory set %d, measured %d, training data %v: plan says %d samples, want %d", tc.set, tc.measured, tc.train, p.RENSamples, tc.want)
		}
	}
}

// TestHalvingAtMemoryCut: where the passive FIR is best at the grid's last
// length, the search measures the memory past it for the RENs, gives the
// halving a quarter of the time limit and says so in its plan; elsewhere
// half.
func TestHalvingAtMemoryCut(t *testing.T) {
	if testing.Short() {
		t.Skip("a grid of passive FIRs up to 1000 taps")
	}
	const limit = 100 * time.Second
	for _, tc := range []struct {
		name    string
		tau, p  float64 // the plant's time constant; the input's low-pass pole (0.98 a slow band, 0 broadband)
		cut     bool
		halving time.Duration
		plan    string
	}{
		{"memory past the cap", 500, 0.98, true, limit / 4, "when a quarter of it is spent"},
		{"short memory", 20, 0, false, limit / 2, "when half of it is spent"},
	} {
		s := &searcher{base: trainer.DefaultConfig(), opt: Options{TimeLimit: limit, Workers: 1, AutoDecay: true},
			train: datatest.SlowPlant(1, 4, 4000, tc.tau, tc.p), val: datatest.SlowPlant(2, 2, 4000, tc.tau, tc.p)}
		s.base.Scale = trainer.ScaleAuto
		res := &Result{}
		if _, _, err := s.linear(context.Background(), res); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if res.MemoryCut != tc.cut || s.halvingTime() != tc.halving {
			t.Errorf("%s: memory cut %v (FIR %d taps), halving %v; want %v, %v", tc.name, res.MemoryCut, res.LinearTaps, s.halvingTime(), tc.cut, tc.halving)
		}
		if tc.cut && res.Memory <= res.LinearTaps {
			t.Errorf("%s: memory %d, want the one measured past the FIR's %d taps", tc.name, res.Memory, res.LinearTaps)
		}
		if p := s.plan(res, 1, 1).String(); !strings.Contains(p, tc.plan) {
			t.Errorf("%s: plan %q, want %q", tc.name, p, tc.plan)
		}
	}
	if s := (&searcher{opt: Options{TimeLimit: limit}}); s.halvingTime() != limit/2 {
		t.Errorf("before the FIR is chosen: halving %v, want half the limit", s.halvingTime())
	}
}
