package search

import (
	"strings"
	"testing"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/internal/datatest"
	"github.com/passivenfir/gputrain/loop"
	"github.com/passivenfir/gputrain/model"
	"github.com/passivenfir/gputrain/trainer"
)

// TestMaxMemory: no structure the search may choose (the linear FIRs of
// its grid, the NFIR candidates around each length, the loops) has a longer
// memory than MaxMemory, and one reaches it.
func TestMaxMemory(t *testing.T) {
	records := datatest.Zeros
	base := trainer.DefaultConfig()
	for _, tc := range []struct {
		name  string
		st    model.Structure
		fixed Fixed
		opt   Options
		train *data.Dataset
		want  int
	}{
		{"free", base.Structure, Fixed{}, Options{}, records(800, 300), 150},
		{"long records", base.Structure, Fixed{}, Options{}, records(100000), trainer.MaxLinearTaps},
		{"short records", base.Structure, Fixed{}, Options{}, records(10), 8},
		{"max taps", base.Structure, Fixed{}, Options{MaxTaps: 64}, records(800), 64},
		{"fixed taps", model.Structure{Branches: 2, Taps: 300, R1: 1, R2: 1, Feedback: true}, Fixed{Taps: true}, Options{}, records(400), 300},
		{"fixed windows", model.Structure{Branches: 2, Taps: 5, R1: 40, R2: 60, Feedback: true}, Fixed{R1: true, R2: true}, Options{}, records(100), 60},
		{"fixed linear taps", model.Structure{Branches: 2, Taps: 5, R1: 1, R2: 1, LinearTaps: 20}, Fixed{LinearTaps: true}, Options{}, records(1000), 20},
	} {
		cfg := base
		cfg.Structure = tc.st
		s := &searcher{base: cfg, fixed: tc.fixed, opt: tc.opt, train: tc.train}
		got := MaxMemory(tc.st, tc.fixed, tc.opt, tc.train)
		if got != tc.want {
			t.Errorf("%s: MaxMemory %d, want %d", tc.name, got, tc.want)
		}
		grid := linearGrid(tc.train, tc.opt)
		if tc.fixed.LinearTaps && tc.st.LinearTaps > 0 {
			grid = []int{tc.st.LinearTaps}
		}
		longest := 0
		for _, L := range grid {
			mems := []int{model.Structure{LinearTaps: L}.Memory()}
			for _, c := range s.candidates(L) {
				mems = append(mems, c.cfg.Structure.Memory())
			}
			for _, sh := range loop.Shapes(L) {
				mems = append(mems, sh.Memory())
			}
			for _, m := range mems {
				longest = max(longest, m)
			}
		}
		if longest != got {
			t.Errorf("%s: the longest memory the search may choose is %d, MaxMemory %d", tc.name, longest, got)
		}
	}
}

// TestEstimateMemory: a search's estimate covers its largest candidates
// side by side: more workers, more memory (up to the number of candidates),
// and never less than one candidate of the largest structure alone.
func TestEstimateMemory(t *testing.T) {
	train, val := msd(t, 10, 1), msd(t, 4, 2)
	base := tiny()
	one := EstimateMemory(base, Fixed{}, Options{Workers: 1}, train, val)
	four := EstimateMemory(base, Fixed{}, Options{Workers: 4}, train, val)
	if !(one.Total > 0) || !(four.Total > one.Total) {
		t.Errorf("1 worker %v, 4 workers %v: want 0 < one < four", one, four)
	}
	if !strings.Contains(four.String(), "×4 candidates side by side") {
		t.Errorf("4 workers: %v does not say the candidates run side by side", four)
	}
	// A fixed linear FIR (no branches) is one run: the FIR's estimate.
	lin := base
	lin.Structure = model.Structure{LinearTaps: 32}
	fir := EstimateMemory(lin, Fixed{Branches: true, LinearTaps: true}, Options{Workers: 4}, train, val)
	single := trainer.EstimateMemory(lin, trainer.ShapeOf(train, val))
	if fir.Total != single.Total {
		t.Errorf("fixed FIR: %v, the FIR alone %v", fir, single)
	}
}

// TestShortValidation: validation is too short when its longest record
// scores fewer samples than the longest memory the search may try (300
// training samples: a FIR of 150 taps at most), after the skip; a fixed
// shorter memory needs less, and without validation data nothing is short.
func TestShortValidation(t *testing.T) {
	records := datatest.Zeros
	base := trainer.DefaultConfig().Structure
	for _, tc := range []struct {
		name        string
		st          model.Structure
		fixed       Fixed
		val         *data.Dataset
		skip        int
		scored, mem int
		short       bool
	}{
		{"long enough", base, Fixed{}, records(150), 0, 150, 150, false},
		{"one record long enough", base, Fixed{}, records(20, 200, 40), 0, 200, 150, false},
		{"too short", base, Fixed{}, records(149, 30), 0, 149, 150, true},
		{"too short after the skip", base, Fixed{}, records(200), 60, 140, 150, true},
		{"fixed shorter taps", model.Structure{LinearTaps: 40}, Fixed{LinearTaps: true}, records(60), 0, 60, 40, false},
		{"no validation", base, Fixed{}, nil, 0, 0, 0, false},
	} {
		scored, mem, short := ShortValidation(tc.st, tc.fixed, Options{}, records(300), tc.val, tc.skip)
		if scored != tc.scored || mem != tc.mem || short != tc.short {
			t.Errorf("%s: scored %d, memory %d, short %v; want %d, %d, %v", tc.name, scored, mem, short, tc.scored, tc.mem, tc.short)
		}
	}
}
