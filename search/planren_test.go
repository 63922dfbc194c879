package search

import (
	"testing"

	"github.com/passivenfir/gputrain/baselines"
	"github.com/passivenfir/gputrain/trainer"
)

// TestPlanRENSamples: the plan states the RENs' sample budget as their
// memory stretches it (baselines.MemoryStretch).
func TestPlanRENSamples(t *testing.T) {
	for _, tc := range []struct{ set, measured, want int }{
		{0, 100, 20_000_000},
		{0, 2 * baselines.RefMemory, 40_000_000},
		{4 * baselines.RefMemory, 2 * baselines.RefMemory, 80_000_000}, // the configuration's memory wins
	} {
		ren := baselines.SimulationRENConfig()
		ren.MaxSamples, ren.Memory = 20_000_000, tc.set
		s := &searcher{base: trainer.DefaultConfig(), opt: Options{REN: &ren}}
		if p := s.plan(&Result{Memory: tc.measured}, 1, 1); p.RENSamples != tc.want {
			t.Errorf("memory set %d, measured %d: plan says %d samples, want %d", tc.set, tc.measured, p.RENSamples, tc.want)
		}
	}
}
