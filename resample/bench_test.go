package resample

import (
	"math/rand/v2"
	"testing"

	"github.com/passivenfir/gputrain/data"
)

// BenchmarkDecimate: 20 records of 4000 samples (the 80 000 samples of
// issue 26's size target) by factor 10, and Suggest on the same data.
func BenchmarkDecimate(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	d := &data.Dataset{Ts: 0.001}
	for range 20 {
		u, y := make([]float64, 4000), make([]float64, 4000)
		for i := range u {
			u[i], y[i] = rng.NormFloat64(), rng.NormFloat64()
		}
		d.Batches = append(d.Batches, data.Batch{U: u, Y: y})
	}
	b.Run("decimate", func(b *testing.B) {
		for b.Loop() {
			if _, err := Decimate(d, 10); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("suggest", func(b *testing.B) {
		for b.Loop() {
			Suggest(d)
		}
	})
}
