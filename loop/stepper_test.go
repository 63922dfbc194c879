package loop

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// stepperStructures cover what Step handles apart: both NFIRs with
// branches and linear FIRs, no H2 branches, no linear FIR in either, a
// network that sees only u or only y, one tap, windows wider than the taps,
// no hidden layer, and the long histories of the search's shapes.
var stepperStructures = []struct {
	name string
	s    Structure
}{
	{"full", Structure{R1: 2, R2: 2, Hidden: []int{4}, B1: 2, T1: 6, L1: 5, B2: 2, T2: 4, L2: 3}},
	{"wide", Structure{R1: 4, R2: 4, Hidden: []int{5, 3}, B1: 3, T1: 3, L1: 9, B2: 1, T2: 7, L2: 1}},
	{"no H2 branches", Structure{R1: 3, R2: 0, Hidden: []int{2}, B1: 3, T1: 3, L1: 0, B2: 0, L2: 4}},
	{"only y seen", Structure{R1: 0, R2: 2, B1: 0, L1: 6, B2: 2, T2: 4, L2: 0}},
	{"one tap", Structure{R1: 1, R2: 1, B1: 2, T1: 1, B2: 1, T2: 1}},
	{"no H2", Structure{R1: 2, R2: 1, Hidden: []int{3}, B1: 2, T1: 5}},
	{"sections", Structure{R1: 2, R2: 2, Hidden: []int{4}, B1: 2, T1: 6, L1: 5, B2: 2, T2: 4, L2: 3, P1: 3}},
	{"sections, no linear FIR", Structure{R1: 1, R2: 2, B1: 2, T1: 3, B2: 1, T2: 2, P1: 1}},
	{"slow states", Structure{R1: 2, R2: 1, Hidden: []int{4}, B1: 2, T1: 6, L1: 40, B2: 2, T2: 4, L2: 3, S: 2}},
	{"only slow states seen", Structure{Hidden: []int{3}, B1: 1, T1: 2, L1: 3, B2: 1, T2: 2, S: 1}},
	{"recurrent lift", Structure{R1: 2, R2: 1, Hidden: []int{4}, B1: 2, T1: 6, L1: 9, B2: 2, T2: 4, L2: 3, S: 1, Rec: 3}},
	{"only the recurrent state seen", Structure{Hidden: []int{3}, B1: 1, T1: 2, L1: 3, B2: 1, T2: 2, Rec: 2}},
	// the search's shapes, whose histories Simulate sums with gonum's
	// assembly dot products (eight lanes and more), against Step's sums
	// term by term: 250 taps outlast most of a 400-sample record
	{"search shape, 64 taps, recurrent", WithRec(Wide(64))},
	{"search shape, 250 taps", Sized(250)},
}

// TestStepperMatchesSimulate compares Step with Simulate on seeded random
// models and inputs, over two records with a Reset between them (the
// sections' states included).
func TestStepperMatchesSimulate(t *testing.T) {
	for i, tc := range stepperStructures {
		t.Run(tc.name, func(t *testing.T) {
			m := randomModel(t, tc.s, uint64(i+1))
			m.SU, m.SY = 1.7, 0.6
			st, err := NewStepper(m)
			if err != nil {
				t.Fatal(err)
			}
			for r := range 2 {
				u := randomInput(uint64(10*i+r), 400)
				want := m.Simulate(u)
				scale := 0.0
				for _, v := range want {
					scale = math.Max(scale, math.Abs(v))
				}
				for k, v := range u {
					if st.T() != k {
						t.Fatalf("T() = %d before step %d", st.T(), k)
					}
					got := st.Step(v)
					if d := math.Abs(got - want[k]); !(d <= 1e-13*scale) {
						t.Fatalf("record %d: y(%d) = %.17g, Simulate %.17g", r, k, got, want[k])
					}
				}
				st.Reset()
			}
		})
	}
}

// TestStepperCopies: changing the model after NewStepper changes nothing.
func TestStepperCopies(t *testing.T) {
	m := randomModel(t, stepperStructures[0].s, 9)
	u := randomInput(9, 50)
	want := m.Simulate(u)
	st, err := NewStepper(m)
	if err != nil {
		t.Fatal(err)
	}
	m.Lift.W[0][0] += 1
	m.F1[0] += 1
	m.SY *= 2
	for k, v := range u {
		if got := st.Step(v); math.Abs(got-want[k]) > 1e-13*math.Max(1, math.Abs(want[k])) {
			t.Fatalf("y(%d) = %g after the model changed, want %g", k, got, want[k])
		}
	}
}

func TestCheckNamesTheField(t *testing.T) {
	s := stepperStructures[0].s
	s.P1, s.Rec = 2, 2
	for _, tc := range []struct {
		field string
		edit  func(m *Model)
	}{
		{"F1", func(m *Model) { m.F1 = m.F1[1:] }},
		{"FL1", func(m *Model) { m.FL1 = append(m.FL1, 1) }},
		{"F2", func(m *Model) { m.F2[3] = math.NaN() }},
		{"FL2", func(m *Model) { m.FL2 = nil }},
		{"SA", func(m *Model) { m.SA = m.SA[1:] }},
		{"SB", func(m *Model) { m.SB[1] = math.NaN() }},
		{"RT", func(m *Model) { m.RT = m.RT[1:] }},
		{"u_scale", func(m *Model) { m.SU = 0 }},
		{"y_scale", func(m *Model) { m.SY = math.Inf(1) }},
		{"lifting network sizes", func(m *Model) { m.Lift.Sizes[1]++ }},
		{"layer 1", func(m *Model) { m.Lift.B[1] = m.Lift.B[1][:1] }},
		{"layer 0", func(m *Model) { m.Lift.W[0][2] = math.Inf(-1) }},
	} {
		m := randomModel(t, s, 3)
		if err := m.Check(); err != nil {
			t.Fatalf("a valid model: %v", err)
		}
		tc.edit(m)
		err := m.Check()
		if !errors.Is(err, ErrShape) || !strings.Contains(err.Error(), tc.field) {
			t.Errorf("%s: Check = %v, want ErrShape naming %s", tc.field, err, tc.field)
		}
		if _, err := NewStepper(m); err == nil {
			t.Errorf("%s: NewStepper accepted the model", tc.field)
		}
	}
}

// BenchmarkStepper times one Step of every shape train uses (Shapes), at a
// memory of 20 samples, and of the sized one with three sections.
func BenchmarkStepper(b *testing.B) {
	slow := Sized(20)
	slow.P1 = 3
	for _, tc := range append(namedShapes(b, 20), namedShape{"sized+3sections", slow}) {
		b.Run(tc.name, func(b *testing.B) {
			m, err := New(tc.s)
			if err != nil {
				b.Fatal(err)
			}
			st, err := NewStepper(m)
			if err != nil {
				b.Fatal(err)
			}
			u := randomInput(1, 1024)
			b.ReportAllocs()
			for k := 0; b.Loop(); k++ {
				st.Step(u[k%len(u)])
			}
		})
	}
}
