package model

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// stepperStructures cover what Step handles apart: FF and FB, a parallel
// linear FIR longer and shorter than the branches, hold_start with and
// without feedback, a lifting network that sees only q (R1 = 0), windows
// wider than the taps, and the linear FIR alone.
var stepperStructures = []struct {
	name string
	s    Structure
}{
	{"FF", Structure{Branches: 3, Taps: 8, R1: 2, Hidden: []int{4}}},
	{"FB", Structure{Branches: 3, Taps: 8, R1: 1, R2: 3, Hidden: []int{4, 4}, Feedback: true}},
	{"FB+lin", Structure{Branches: 2, Taps: 6, R1: 3, R2: 2, Hidden: []int{5}, Feedback: true, LinearTaps: 9}},
	{"FF+lin short", Structure{Branches: 2, Taps: 7, R1: 3, Hidden: []int{3}, LinearTaps: 2}},
	{"lin", Structure{LinearTaps: 9}},
	{"FB+hold", Structure{Branches: 2, Taps: 6, R1: 4, R2: 2, Hidden: []int{5}, Feedback: true, LinearTaps: 3, HoldStart: true}},
	{"FF+hold", Structure{Branches: 4, Taps: 5, R1: 3, HoldStart: true}},
	{"q only", Structure{Branches: 2, Taps: 4, R2: 3, Feedback: true}},
	{"wide windows", Structure{Branches: 1, Taps: 2, R1: 6, R2: 5, Hidden: []int{2, 3}, Feedback: true}},
	{"one tap", Structure{Branches: 5, Taps: 1, R1: 1, R2: 1, Feedback: true}},
}

// passivityModes are the modes a model file can carry. A mode changes
// nothing in the operator; the "none" models get taps that are not passive,
// so that the Stepper is also checked away from RandomPassive's taps.
var passivityModes = []string{"exact", "sampled", "kyp", "none"}

// closeRel reports whether got equals want to tol relative to max|want|.
func closeRel(got, want []float64, tol float64) (int, bool) {
	scale := 0.0
	for _, v := range want {
		scale = math.Max(scale, math.Abs(v))
	}
	for i := range want {
		if !(math.Abs(got[i]-want[i]) <= tol*scale) {
			return i, false
		}
	}
	return -1, true
}

// TestStepperMatchesSimulate runs each structure and passivity mode through
// a model file (so that what is checked is what a user loads) and compares
// Step with Simulate, twice: after the first record Reset must bring the
// Stepper back to rest.
func TestStepperMatchesSimulate(t *testing.T) {
	for _, tc := range stepperStructures {
		for _, mode := range passivityModes {
			t.Run(tc.name+"/"+mode, func(t *testing.T) {
				seed := uint64(len(tc.name)*31 + len(mode))
				m := randomModel(t, tc.s, seed)
				rng := rand.New(rand.NewPCG(seed, 7))
				if mode == "none" {
					for i := range m.G {
						m.G[i] = rng.NormFloat64()
					}
					for i := range m.Lin {
						m.Lin[i] = rng.NormFloat64()
					}
				}
				var buf bytes.Buffer
				if err := Encode(&buf, m, Meta{Mode: mode}); err != nil {
					t.Fatal(err)
				}
				m, _, err := Decode(&buf)
				if err != nil {
					t.Fatal(err)
				}
				st, err := NewStepper(m)
				if err != nil {
					t.Fatal(err)
				}
				for rec := 0; rec < 2; rec++ {
					u := randn(rng, 200)
					u[0] = 1.5 // hold_start: a record that starts away from zero
					want, _ := m.Simulate(u)
					got := make([]float64, len(u))
					for i, v := range u {
						if st.T() != i {
							t.Fatalf("record %d: T() = %d before sample %d", rec, st.T(), i)
						}
						got[i] = st.Step(v)
					}
					if i, ok := closeRel(got, want, 1e-12); !ok {
						t.Fatalf("record %d: y(%d) = %.17g, Simulate %.17g", rec, i, got[i], want[i])
					}
					st.Reset()
				}
			})
		}
	}
}

// TestStepperIndependentOfModel: a Stepper keeps its own copy of the
// parameters.
func TestStepperIndependentOfModel(t *testing.T) {
	m := randomModel(t, stepperStructures[2].s, 5)
	u := randn(rand.New(rand.NewPCG(5, 5)), 50)
	want, _ := m.Simulate(u)
	st, err := NewStepper(m)
	if err != nil {
		t.Fatal(err)
	}
	for i := range m.G {
		m.G[i] = 0
	}
	m.Lift.W[0][0] = 100
	m.Lin[0] = -3
	for i, v := range u {
		if y := st.Step(v); y != want[i] {
			t.Fatalf("y(%d) = %g after the model changed, want %g", i, y, want[i])
		}
	}
}

func TestStepperRefusesBadModel(t *testing.T) {
	m := randomModel(t, stepperStructures[0].s, 1)
	m.G = m.G[1:]
	if _, err := NewStepper(m); err == nil {
		t.Fatal("a model with a missing tap was accepted")
	}
}

func TestStepperNoAllocation(t *testing.T) {
	for _, tc := range stepperStructures {
		m := randomModel(t, tc.s, 2)
		st, err := NewStepper(m)
		if err != nil {
			t.Fatal(err)
		}
		u := 0.3
		if a := testing.AllocsPerRun(200, func() { u = 0.5*st.Step(u) + 0.1 }); a != 0 {
			t.Errorf("%s: %g allocations per Step", tc.name, a)
		}
	}
}

// paperStructure is the structure of the paper's experiments: 10 branches
// of 50 taps, an MLP 4,4, feedback.
var paperStructure = Structure{Branches: 10, Taps: 50, R1: 1, R2: 1, Hidden: []int{4, 4}, Feedback: true}

// BenchmarkStepper times one Step of the paper's structure (compare with the
// C step of package export: docs/BENCHMARKS.md).
func BenchmarkStepper(b *testing.B) {
	for _, tc := range []struct {
		name string
		s    Structure
	}{{"paper", paperStructure}, {"lin50", Structure{LinearTaps: 50}}} {
		b.Run(tc.name, func(b *testing.B) {
			m, err := RandomPassive(tc.s, rand.New(rand.NewPCG(1, 1)))
			if err != nil {
				b.Fatal(err)
			}
			st, err := NewStepper(m)
			if err != nil {
				b.Fatal(err)
			}
			u := randn(rand.New(rand.NewPCG(2, 2)), 1024)
			b.ResetTimer()
			s := 0.0
			for i := 0; i < b.N; i++ {
				s += st.Step(u[i&1023])
			}
			b.StopTimer()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds()/1e6, "Msteps/s")
			if math.IsNaN(s) {
				b.Fatal(fmt.Sprint("NaN output"))
			}
		})
	}
}
