package kernels_test

import (
	"fmt"

	"github.com/passivenfir/gputrain/kernels"
)

// Two trajectories (lengths 3 and 2) stored back to back, one branch with
// taps g = [1, 0.5]: the second trajectory starts from zero history.
func ExampleCPU_ConvForward() {
	s, err := kernels.NewSeqs(3, 2)
	if err != nil {
		panic(err)
	}
	u := []float64{1, 2, 3 /* | */, 1, 1}
	n := []float64{1, 0.5, 1 /* | */, 1, 1} // Total × m_N, m_N = 1
	g := []float64{1, 0.5}                  // m_N × m_G, m_G = 2
	z := make([]float64, 5)
	y := make([]float64, 5)
	cpu := &kernels.CPU{Workers: 2}
	cpu.ConvForward(s, 1, 2, u, n, g, z, y)
	fmt.Println("z:", z)
	fmt.Println("y:", y)
	// Output:
	// z: [1 1.5 3.5 1 1.5]
	// y: [1 0.75 3.5 1 1.5]
}
