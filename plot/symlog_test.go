package plot

import (
	"math"
	"slices"
	"testing"

	gplot "gonum.org/v1/plot"
)

func TestSymLogScale(t *testing.T) {
	for _, tc := range []struct {
		thr, lo, hi float64
	}{
		{1e-4, 0, 1},
		{1e-4, -1e-4, 2},
		{1, -1000, 1000},
		{1e-3, -5, -1e-2},
	} {
		s := SymLogScale{Threshold: tc.thr}
		if got := s.Normalize(tc.lo, tc.hi, tc.lo); math.Abs(got) > 1e-12 {
			t.Errorf("%+v: Normalize(min) = %v, want 0", tc, got)
		}
		if got := s.Normalize(tc.lo, tc.hi, tc.hi); math.Abs(got-1) > 1e-12 {
			t.Errorf("%+v: Normalize(max) = %v, want 1", tc, got)
		}
		prev := math.Inf(-1)
		for i := 0; i <= 200; i++ {
			x := tc.lo + (tc.hi-tc.lo)*float64(i)/200
			v := s.Normalize(tc.lo, tc.hi, x)
			if !(v > prev) {
				t.Errorf("%+v: Normalize(%v) = %v after %v: not increasing", tc, x, v, prev)
			}
			prev = v
		}
	}
	s := SymLogScale{Threshold: 1e-4}
	// Odd: −x lies as far below 0 as x above.
	for _, x := range []float64{1e-6, 1e-4, 0.3, 7} {
		up, down := s.Normalize(-10, 10, x)-0.5, 0.5-s.Normalize(-10, 10, -x)
		if math.Abs(up-down) > 1e-12 {
			t.Errorf("Normalize(±%v): %v above 0, %v below", x, up, down)
		}
	}
	// Linear within the threshold: half of it lies half as far from 0.
	a, b := s.Normalize(0, 1, 1e-6), s.Normalize(0, 1, 2e-6)
	if r := b / a; math.Abs(r-2) > 1e-3 {
		t.Errorf("within the threshold 2e-6 lies %v times as far from 0 as 1e-6, want 2", r)
	}
	// The point of the scale: on [0, 1] a margin of 1e-3 is a fifth of
	// the axis away from 0 (a linear axis: a thousandth).
	if v := s.Normalize(0, 1, 1e-3); v < 0.2 {
		t.Errorf("Normalize(0, 1, 1e-3) = %v, want ≥ 0.2", v)
	}
}

func TestSymLogTicks(t *testing.T) {
	labels := func(ts []gplot.Tick) []string {
		var l []string
		for _, t := range ts {
			if t.Label != "" {
				l = append(l, t.Label)
			}
		}
		return l
	}
	for _, tc := range []struct {
		thr, lo, hi float64
		want        []string
	}{
		{1e-4, -1e-4, 1.3, []string{"0", "0.001", "0.01", "0.1", "1"}},
		{2e-4, -0.5, 3, []string{"-0.1", "-0.01", "-0.001", "0", "0.001", "0.01", "0.1", "1"}},
		{1, 0, 500, []string{"0", "10", "100"}},
		// More than six decades: every other label.
		{1e-9, 0, 2, []string{"0", "1e-07", "1e-05", "0.001", "0.1"}},
		{1, 0, 0, []string{"0"}}, // nothing but 0: gonum's ticks
	} {
		ts := SymLogTicks{Threshold: tc.thr}.Ticks(tc.lo, tc.hi)
		if got := labels(ts); !slices.Equal(got, tc.want) {
			t.Errorf("%+v: labels %q, want %q", tc, got, tc.want)
		}
		for i, tk := range ts {
			if tk.Value < tc.lo || tk.Value > tc.hi || i > 0 && !(tk.Value > ts[i-1].Value) {
				t.Errorf("%+v: tick %d at %v: outside the range or out of order", tc, i, tk.Value)
			}
		}
	}
}
