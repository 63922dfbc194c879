package gru

import (
	"math"
	"math/rand/v2"
	"testing"
)

// run steps the cell over xs (T×In) from rest and returns Σ_t w_t·h(t)
// with the tape of states and gates.
func run(c Cell, theta, xs, w []float64) (float64, []float64, []float64) {
	H := c.Units
	T := len(xs) / c.In
	hs := make([]float64, (T+1)*H)
	gates := make([]float64, T*c.Gates())
	loss := 0.0
	for t := range T {
		c.Step(theta, xs[t*c.In:(t+1)*c.In], hs[t*H:(t+1)*H], hs[(t+1)*H:(t+2)*H], gates[t*c.Gates():(t+1)*c.Gates()])
		for j := range H {
			loss += w[t*H+j] * hs[(t+1)*H+j]
		}
	}
	return loss, hs, gates
}

// TestAdjoint checks the adjoint of a sequence of steps, for parameters and
// inputs, against central differences.
func TestAdjoint(t *testing.T) {
	for _, c := range []Cell{{In: 1, Units: 3}, {In: 2, Units: 4}, {In: 3, Units: 1}} {
		rng := rand.New(rand.NewPCG(uint64(c.In), uint64(c.Units)))
		theta := make([]float64, c.NumParams())
		c.Init(theta, rng)
		for i := range theta {
			theta[i] *= 2 // beyond the initial range, so that the gates saturate somewhat
		}
		const T = 7
		H := c.Units
		xs := make([]float64, T*c.In)
		w := make([]float64, T*H)
		for i := range xs {
			xs[i] = rng.NormFloat64()
		}
		for i := range w {
			w[i] = rng.NormFloat64()
		}
		_, hs, gates := run(c, theta, xs, w)
		grad := make([]float64, len(theta))
		dxs := make([]float64, len(xs))
		dh, dhp := make([]float64, H), make([]float64, H)
		work := make([]float64, 3*H)
		for tt := T - 1; tt >= 0; tt-- {
			for j := range H {
				dh[j] += w[tt*H+j]
			}
			c.Adjoint(theta, xs[tt*c.In:(tt+1)*c.In], hs[tt*H:(tt+1)*H], gates[tt*c.Gates():(tt+1)*c.Gates()], dh, dhp, dxs[tt*c.In:(tt+1)*c.In], grad, work)
			dh, dhp = dhp, dh
		}
		const eps = 1e-6
		check := func(name string, v []float64, i int, got float64) {
			old := v[i]
			v[i] = old + eps
			lp, _, _ := run(c, theta, xs, w)
			v[i] = old - eps
			lm, _, _ := run(c, theta, xs, w)
			v[i] = old
			want := (lp - lm) / (2 * eps)
			if math.Abs(got-want) > 1e-7*(1+math.Abs(want)) {
				t.Errorf("cell %+v: d/d%s[%d] = %.10g, central difference %.10g", c, name, i, got, want)
			}
		}
		for i := range theta {
			check("θ", theta, i, grad[i])
		}
		for i := range xs {
			check("x", xs, i, dxs[i])
		}
	}
}

// TestStepRange checks that the state stays in (−1, 1) from rest, whatever
// the input: a convex combination of tanh values and the previous state.
func TestStepRange(t *testing.T) {
	c := Cell{In: 2, Units: 5}
	rng := rand.New(rand.NewPCG(3, 4))
	theta := make([]float64, c.NumParams())
	for i := range theta {
		theta[i] = 5 * rng.NormFloat64()
	}
	h, hn, g := make([]float64, 5), make([]float64, 5), make([]float64, c.Gates())
	for range 200 {
		x := []float64{100 * rng.NormFloat64(), 100 * rng.NormFloat64()}
		c.Step(theta, x, h, hn, g)
		for j, v := range hn {
			if !(v >= -1 && v <= 1) {
				t.Fatalf("h[%d] = %v outside [−1, 1]", j, v)
			}
		}
		h, hn = hn, h
	}
}
