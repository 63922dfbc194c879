package loop_test

import (
	"fmt"
	"math"

	"github.com/passivenfir/gputrain/loop"
)

// A Stepper gives the loop's output one sample at a time, as a controller
// needs it, and equals Simulate on the same input.
func ExampleStepper() {
	m, _ := loop.New(loop.Structure{R1: 2, R2: 1, Hidden: []int{3}, B1: 1, T1: 4, L1: 3, B2: 1, T2: 2, L2: 2})
	theta := m.Flatten()
	for i := range theta {
		theta[i] = math.Sin(float64(i))
	}
	m.SetFlat(theta)
	u := []float64{1, 0, -0.5, 2, 0, 0}
	want := m.Simulate(u)
	st, _ := loop.NewStepper(m)
	worst := 0.0
	for t, v := range u {
		worst = math.Max(worst, math.Abs(st.Step(v)-want[t]))
	}
	// Bit for bit where multiply-adds are not fused (amd64).
	fmt.Println("Step agrees with Simulate:", worst <= 1e-12)
	// Output:
	// Step agrees with Simulate: true
}
