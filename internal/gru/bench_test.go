package gru

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkCell is one step of an 8-unit cell of two inputs, forward and
// adjoint: the recurrent lift's cost per sample in the loop's training.
func BenchmarkCell(b *testing.B) {
	c := Cell{In: 2, Units: 8}
	rng := rand.New(rand.NewPCG(1, 2))
	theta := make([]float64, c.NumParams())
	c.Init(theta, rng)
	grad := make([]float64, len(theta))
	x, hp, h := []float64{0.3, -0.7}, make([]float64, 8), make([]float64, 8)
	for i := range hp {
		hp[i] = rng.NormFloat64() / 2
	}
	gates, dh, dhp, dx, work := make([]float64, c.Gates()), make([]float64, 8), make([]float64, 8), make([]float64, 2), make([]float64, 24)
	for i := range dh {
		dh[i] = rng.NormFloat64()
	}
	b.Run("step", func(b *testing.B) {
		for b.Loop() {
			c.Step(theta, x, hp, h, gates)
		}
	})
	b.Run("adjoint", func(b *testing.B) {
		for b.Loop() {
			c.Adjoint(theta, x, hp, gates, dh, dhp, dx, grad, work)
		}
	})
}
