package search

import (
	"fmt"
	"slices"
	"testing"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/internal/datatest"
	"github.com/passivenfir/gputrain/loop"
)

// TestLoopsSkip: the loop family's runs with and without the automatic
// training skip, and a user's skip winning over it.
func TestLoopsSkip(t *testing.T) {
	records := func(n, T int) *data.Dataset { return datatest.Zeros(slices.Repeat([]int{T}, n)...) }
	lc := loop.DefaultConfig()
	for _, tc := range []struct {
		name     string
		auto     bool
		userSkip int
		train    *data.Dataset
		L        int
		wantSkip int // the second pass's skip; 0: no second pass
	}{
		{"short records", true, 0, records(8, 500), 64, 62},
		{"long records", true, 0, records(40, 2000), 32, 0}, // 32·40/80 000 = 1.6 % < 1/32
		{"the user's skip", true, 49, records(8, 500), 64, 0},
		{"off", false, 0, records(8, 500), 64, 0},
	} {
		s := &searcher{opt: Options{AutoSkip: tc.auto, Loop: &lc, Workers: 1}, train: tc.train}
		s.base.Skip, s.base.Seed = tc.userSkip, 1
		res := &Result{LinearTaps: tc.L}
		if got := s.loopSkip(res); got != tc.wantSkip {
			t.Errorf("%s: loopSkip %d, want %d", tc.name, got, tc.wantSkip)
		}
		ls := s.loops(res)
		first := len(loop.Runs(tc.L, 1, 0))
		want := first
		if tc.wantSkip > 0 {
			want *= 2
		}
		if len(ls.Configs) != want {
			t.Fatalf("%s: %d loops, want %d", tc.name, len(ls.Configs), want)
		}
		for i, cfg := range ls.Configs {
			skip := tc.userSkip
			if i >= first {
				skip = tc.wantSkip
			}
			if cfg.Skip != skip {
				t.Errorf("%s: loop %d (%s) skips %d, want %d", tc.name, i, ls.Names[i], cfg.Skip, skip)
			}
			if i >= first && (fmt.Sprint(cfg.Structure) != fmt.Sprint(ls.Configs[i-first].Structure) || cfg.Seed != ls.Configs[i-first].Seed) {
				t.Errorf("%s: loop %d is not loop %d again", tc.name, i, i-first)
			}
		}
		if p := s.plan(res, 1, 1); p.Loops != want || p.LoopSkip != tc.wantSkip {
			t.Errorf("%s: plan %+v, want %d loops, skip %d", tc.name, p, want, tc.wantSkip)
		}
	}
}
