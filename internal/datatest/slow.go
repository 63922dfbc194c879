package datatest

import (
	"math"
	"math/rand/v2"

	"github.com/passivenfir/gputrain/data"
)

// SlowPlant returns records of n samples of a first-order passive plant,
// y = 0.05·u + x with x following 2u at a time constant of tau samples
// (a mechanical plant logged at 1 kHz, say), driven by seeded noise through
// four cascaded first-order low-passes of pole p: logged far faster than
// its band needs when p is near 1, broadband when p is 0. Ts is 1 ms. Its
// memory, 99 % of the step response, is 4.6·tau samples.
func SlowPlant(seed uint64, records, n int, tau, p float64) *data.Dataset {
	rng := rand.New(rand.NewPCG(seed, 5))
	a := math.Exp(-1 / tau)
	d := &data.Dataset{Ts: 0.001}
	for range records {
		u, y := make([]float64, n), make([]float64, n)
		var f [4]float64
		x := 0.0
		for i := range u {
			f[0] = p*f[0] + (1-p)*rng.NormFloat64()
			for k := 1; k < len(f); k++ {
				f[k] = p*f[k] + (1-p)*f[k-1]
			}
			u[i] = f[3]
			y[i] = 0.05*u[i] + x
			x = a*x + (1-a)*2*u[i]
		}
		d.Batches = append(d.Batches, data.Batch{U: u, Y: y})
	}
	return d
}
