package kernels_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/kernels"
	"github.com/passivenfir/gputrain/model"
)

// affine returns the A, B of s(x) = A·x + B for a data.Scaler.
func affine(s data.Scaler) (A, B float64) { return 1 / (s.Scale * s.Std), -s.Mean / s.Std }

func loopOf(m *model.NFIR) *kernels.ClosedLoop {
	c := &kernels.ClosedLoop{MN: m.Branches, MG: m.Taps, ML: m.LinearTaps, R1: m.R1, R2: m.R2,
		Feedback: m.Feedback, Sizes: m.Lift.Sizes}
	c.UA, c.UB = affine(m.UScaler)
	c.QA, c.QB = affine(m.QScaler)
	return c
}

func maxRel(a, b []float64) float64 {
	num, den := 0.0, 1e-300
	for i := range b {
		num = max(num, abs(a[i]-b[i]))
		den = max(den, abs(b[i]))
	}
	return num / den
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// TestAgainstModel compares the kernels with the model package's reference
// implementation: ClosedLoopForward with (*NFIR).Simulate, and ConvForward +
// LinearForward with (*NFIR).Output on the simulated gains.
func TestAgainstModel(t *testing.T) {
	for _, st := range []model.Structure{
		{Branches: 10, Taps: 50, R1: 1, R2: 1, Hidden: []int{4, 4}, Feedback: true},
		{Branches: 3, Taps: 7, R1: 3, R2: 2, Hidden: []int{5}, Feedback: true, LinearTaps: 6},
		{Branches: 4, Taps: 9, R1: 2, Hidden: []int{6, 3}, LinearTaps: 3},
		{LinearTaps: 8},
	} {
		t.Run(fmt.Sprintf("N%d_G%d_R%d.%d_fb%v_L%d", st.Branches, st.Taps, st.R1, st.R2, st.Feedback, st.LinearTaps), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(11, 11))
			m, err := model.RandomPassive(st, rng)
			if err != nil {
				t.Fatal(err)
			}
			m.UScaler = data.Scaler{Scale: 1.7, Mean: 0.1, Std: 0.6}
			m.QScaler = data.Scaler{Scale: 2.3, Mean: -0.05, Std: 0.4}
			s, _ := kernels.NewSeqs(120, 1, 30, 7)
			u := make([]float64, s.Total())
			for i := range u {
				u[i] = 2*rng.Float64() - 1
			}
			c := loopOf(m)
			theta := m.Lift.Flatten()
			y := make([]float64, s.Total())
			var tape kernels.Tape
			for _, cpu := range []*kernels.CPU{{Workers: 1}, {Workers: 2}} {
				cpu.ClosedLoopForward(c, s, theta, m.G, m.Lin, u, y, &tape)
				for b := 0; b < s.Batches(); b++ {
					o, e := s.Off[b], s.Off[b+1]
					yr, nr := m.Simulate(u[o:e])
					if r := maxRel(y[o:e], yr); r > 1e-12 {
						t.Errorf("W%d batch %d: ClosedLoopForward vs Simulate: relative error %.3g", cpu.Workers, b, r)
					}
					if st.Branches > 0 {
						if r := maxRel(tape.Gains()[o*st.Branches:e*st.Branches], nr); r > 1e-12 {
							t.Errorf("W%d batch %d: tape gains vs Simulate: relative error %.3g", cpu.Workers, b, r)
						}
					}
				}
				// Open loop: the conv bank on the gains against model.Output.
				z, y2 := make([]float64, s.Total()*st.Branches), make([]float64, s.Total())
				cpu.ConvForward(s, st.Branches, st.Taps, u, tape.Gains(), m.G, z, y2)
				cpu.LinearForward(s, st.LinearTaps, u, m.Lin, y2)
				for b := 0; b < s.Batches(); b++ {
					o, e := s.Off[b], s.Off[b+1]
					var n []float64
					if st.Branches > 0 {
						n = tape.Gains()[o*st.Branches : e*st.Branches]
					} else {
						n = make([]float64, 0)
					}
					if r := maxRel(y2[o:e], m.Output(u[o:e], n)); r > 1e-12 {
						t.Errorf("W%d batch %d: ConvForward+LinearForward vs Output: relative error %.3g", cpu.Workers, b, r)
					}
				}
			}
		})
	}
}
