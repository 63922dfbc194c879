package loop_test

import (
	"fmt"
	"math"

	"github.com/passivenfir/gputrain/loop"
)

// Taps turns any factors into the taps of a passive FIR: here f = (1, −1),
// whose |F|² vanishes at ω = 0, so Re G is only the margin there.
func ExampleTaps() {
	g := make([]float64, 2)
	loop.Taps([]float64{1, -1}, g)
	fmt.Printf("g = %.6f, %.0f\n", g[0], g[1])
	fmt.Printf("Re G(0) = %.0e\n", g[0]+g[1])
	// Output:
	// g = 1.000002, -1
	// Re G(0) = 2e-06
}

// A recurrent lift adds a learned state to what the gains see; the loop
// stays passive whatever its GRU's weights, since only the FIRs carry the
// certificate (Theorem 2 allows any causal gains).
func ExampleWithRec() {
	s := loop.WithRec(loop.Sized(16))
	m, _ := loop.New(s)
	theta := m.Flatten()
	for i := range theta {
		theta[i] = 3 * math.Sin(float64(i)) // large weights everywhere, the GRU's too
	}
	m.SetFlat(theta)
	c, _ := m.Certify()
	fmt.Printf("lift inputs: %d window samples + %d GRU units\n", s.R1+s.R2, s.Rec)
	fmt.Printf("GRU parameters: %d of %d\n", len(m.RT), m.NumParams())
	fmt.Println("certified passive:", c.Passive, "over", c.FIRs, "FIRs")
	// Output:
	// lift inputs: 4 window samples + 16 GRU units
	// GRU parameters: 928 of 1388
	// certified passive: true over 6 FIRs
}

// A weighted mean counts a loop drawn c times by ensemble selection c
// times; it is passive when its loops are, and its output is theirs
// weighted sample by sample.
func ExampleMean() {
	loops := make([]*loop.Model, 2)
	for k := range loops {
		m, _ := loop.New(loop.Sized(8))
		theta := m.Flatten()
		for i := range theta {
			theta[i] = 0.3 * math.Sin(float64(i*(k+2)))
		}
		m.SetFlat(theta)
		m.SU, m.SY = 1, 1
		loops[k] = m
	}
	mean := loop.Mean{{Model: loops[0], Count: 3}, {Model: loops[1], Count: 1}}
	u := []float64{1, 0.5, -0.2, 0.8}
	y, y0, y1 := mean.Simulate(u), loops[0].Simulate(u), loops[1].Simulate(u)
	worst := 0.0
	for t := range u {
		worst = math.Max(worst, math.Abs(y[t]-(3*y0[t]+y1[t])/4))
	}
	c, _ := mean.Certify()
	fmt.Println("total count:", mean.Total(), "weighted:", mean.Weighted())
	fmt.Println("y = (3 y0 + y1)/4 to 1e-15:", worst < 1e-15)
	fmt.Println("certified passive:", c.Passive, "over", c.FIRs, "FIRs")
	// Output:
	// total count: 4 weighted: true
	// y = (3 y0 + y1)/4 to 1e-15: true
	// certified passive: true over 12 FIRs
}
