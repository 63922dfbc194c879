package model

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

func TestBlend(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for _, tc := range []struct {
		name        string
		lin, firLen int
		alpha       float64
	}{
		{"same length", 16, 16, 0.3},
		{"longer FIR", 8, 24, 0.7},
		{"shorter FIR", 24, 8, 0.5},
		{"no linear part", 0, 12, 0.9},
		{"alpha 0 is the FIR", 16, 16, 0},
		{"alpha 1 is the model", 16, 16, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := RandomPassive(Structure{Branches: 3, Taps: 10, R1: 2, Hidden: []int{5}, LinearTaps: tc.lin}, rng)
			if err != nil {
				t.Fatal(err)
			}
			fir, err := RandomPassive(Structure{LinearTaps: tc.firLen}, rng)
			if err != nil {
				t.Fatal(err)
			}
			b, err := Blend(m, fir.Lin, tc.alpha)
			if err != nil {
				t.Fatal(err)
			}
			if b.LinearTaps != max(tc.lin, tc.firLen) {
				t.Errorf("%d linear taps, want %d", b.LinearTaps, max(tc.lin, tc.firLen))
			}
			u := make([]float64, 200)
			for i := range u {
				u[i] = rng.NormFloat64()
			}
			ym, _ := m.Simulate(u)
			yf, _ := fir.Simulate(u)
			yb, _ := b.Simulate(u)
			for i := range u {
				want := tc.alpha*ym[i] + (1-tc.alpha)*yf[i]
				if math.Abs(yb[i]-want) > 1e-12*(1+math.Abs(want)) {
					t.Fatalf("y[%d] = %v, want α·%v + (1−α)·%v = %v", i, yb[i], ym[i], yf[i], want)
				}
			}
			c, err := b.Certify()
			if err != nil || !c.Passive {
				t.Errorf("the blend of passive models: certificate %+v, %v", c, err)
			}
			if ym2, _ := m.Simulate(u); ym2[len(u)-1] != ym[len(u)-1] {
				t.Error("Blend changed its argument")
			}
		})
	}
}

func TestBlendRefuses(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	ff, _ := RandomPassive(Structure{Branches: 2, Taps: 6, R1: 1, Hidden: []int{3}, LinearTaps: 4}, rng)
	fb, _ := RandomPassive(Structure{Branches: 2, Taps: 6, R1: 1, R2: 1, Feedback: true, Hidden: []int{3}}, rng)
	for _, tc := range []struct {
		name  string
		m     *NFIR
		lin   []float64
		alpha float64
	}{
		{"feedback", fb, []float64{1}, 0.5},
		{"alpha above 1", ff, []float64{1}, 1.5},
		{"alpha below 0", ff, []float64{1}, -0.1},
		{"alpha NaN", ff, []float64{1}, math.NaN()},
		{"tap NaN", ff, []float64{1, math.NaN()}, 0.5},
	} {
		if _, err := Blend(tc.m, tc.lin, tc.alpha); !errors.Is(err, ErrShape) {
			t.Errorf("%s: error %v, want ErrShape", tc.name, err)
		}
	}
}
