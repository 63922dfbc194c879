package loop_test

import (
	"fmt"

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
