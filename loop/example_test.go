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
	// lift inputs: 4 window samples + 8 GRU units
	// GRU parameters: 272 of 604
	// certified passive: true over 6 FIRs
}
