package model

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// TestRescale: a model of (a·u ↦ b·y), rescaled, maps u to y. With powers
// of two the rescaled model's output equals the original's divided by b bit
// for bit; with other factors to rounding. The certified minima scale by a/b.
func TestRescale(t *testing.T) {
	structures := []Structure{
		{Branches: 3, Taps: 7, R1: 2, R2: 3, Hidden: []int{4, 3}, Feedback: true, LinearTaps: 5},
		{Branches: 2, Taps: 5, R1: 4, Hidden: []int{3}, HoldStart: true},
		{LinearTaps: 9},
	}
	factors := []struct {
		a, b  float64
		exact bool
	}{
		{1, 1, true},
		{1024, 0.0625, true},
		{0x1p-30, 0x1p20, true},
		{1000, 1e-3, false},
		{0.37, 2.9, false},
	}
	rng := rand.New(rand.NewPCG(11, 12))
	for si, st := range structures {
		for _, f := range factors {
			orig, err := RandomPassive(st, rng)
			if err != nil {
				t.Fatal(err)
			}
			// scalers as if fitted on the scaled data
			orig.UScaler.Scale, orig.UScaler.Mean, orig.UScaler.Std = 2.5*f.a, 0.1, 0.8
			orig.QScaler.Scale, orig.QScaler.Mean, orig.QScaler.Std = 1.5*f.b, -0.05, 0.7
			m := orig.Clone()
			if err := m.Rescale(f.a, f.b); err != nil {
				t.Fatal(err)
			}
			u := make([]float64, 60)
			su := make([]float64, len(u))
			for i := range u {
				u[i] = rng.NormFloat64()
				su[i] = f.a * u[i]
			}
			ys, _ := orig.Simulate(su)
			y, _ := m.Simulate(u)
			for i := range y {
				want := ys[i] / f.b
				if f.exact && y[i] != want {
					t.Fatalf("structure %d, a=%g b=%g: y[%d] = %v, want %v exactly", si, f.a, f.b, i, y[i], want)
				}
				if d := math.Abs(y[i] - want); d > 1e-12*(1+math.Abs(want)) {
					t.Fatalf("structure %d, a=%g b=%g: y[%d] = %v, want %v", si, f.a, f.b, i, y[i], want)
				}
			}
			co, err := orig.Certify()
			if err != nil {
				t.Fatal(err)
			}
			cm, err := m.Certify()
			if err != nil {
				t.Fatal(err)
			}
			if co.Passive != cm.Passive || len(co.Branches) != len(cm.Branches) {
				t.Fatalf("structure %d: certificates differ: %+v vs %+v", si, co, cm)
			}
			r := f.a / f.b
			for j := range co.Branches {
				if d := math.Abs(cm.Branches[j].MinRe - r*co.Branches[j].MinRe); d > 1e-9*math.Abs(r*co.Branches[j].MinRe) {
					t.Errorf("structure %d branch %d: min Re %g, want %g·%g", si, j, cm.Branches[j].MinRe, r, co.Branches[j].MinRe)
				}
			}
		}
	}
	m, _ := RandomPassive(structures[0], rng)
	for _, bad := range [][2]float64{{0, 1}, {1, -2}, {math.Inf(1), 1}, {1, math.NaN()}} {
		if err := m.Rescale(bad[0], bad[1]); !errors.Is(err, ErrShape) {
			t.Errorf("Rescale(%g, %g): err = %v, want ErrShape", bad[0], bad[1], err)
		}
	}
}

func TestMemory(t *testing.T) {
	for _, c := range []struct {
		s    Structure
		want int
	}{
		{Structure{Branches: 10, Taps: 50, R1: 1, R2: 1, Feedback: true}, 50},
		{Structure{Branches: 3, Taps: 100, R1: 150, R2: 160, Feedback: true, LinearTaps: 500}, 500},
		{Structure{Branches: 3, Taps: 10, R1: 20, R2: 30, Feedback: true}, 30},
		{Structure{Branches: 3, Taps: 10, R1: 20, R2: 30}, 20},               // R2 unused without feedback
		{Structure{Branches: 0, Taps: 50, R1: 1, R2: 1, LinearTaps: 10}, 10}, // a linear FIR stores but does not use the rest
	} {
		if got := c.s.Memory(); got != c.want {
			t.Errorf("%+v: memory %d, want %d", c.s, got, c.want)
		}
	}
}
