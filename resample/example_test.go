package resample_test

import (
	"fmt"
	"math"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/resample"
)

// A first-order plant with a time constant of 200 samples, driven by slow
// sines, is sampled far faster than it needs: Suggest proposes a factor,
// and Decimate applies it to u and y alike.
func Example() {
	n := 6000
	u, y := make([]float64, n), make([]float64, n)
	for t := 1; t < n; t++ {
		u[t] = math.Sin(2*math.Pi*0.002*float64(t)) + 0.5*math.Sin(2*math.Pi*0.005*float64(t))
		y[t] = 0.995*y[t-1] + 0.005*u[t-1]
	}
	d := &data.Dataset{Ts: 0.001, Batches: []data.Batch{{U: u, Y: y}}}
	factor, band := resample.Suggest(d)
	slow, err := resample.Decimate(d, factor)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("99.9 %% of the power below %.4f of the sampling frequency\n", band)
	fmt.Printf("factor %d: %d samples at Ts = %g s\n", factor, len(slow.Batches[0].U), slow.Ts)
	// Output:
	// 99.9 % of the power below 0.0054 of the sampling frequency
	// factor 18: 334 samples at Ts = 0.018 s
}
