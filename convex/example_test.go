package convex_test

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/passivenfir/gputrain/convex"
)

func ExampleCertify() {
	// Re G(ω) = 1 − 0.5cos ω + 0.25cos 2ω = 0.75 − 0.5cos ω + 0.5cos²ω is smallest where
	// cos ω = 0.5: 0.625 at ω = π/3.
	c, err := convex.Certify([]float64{1, -0.5, 0.25})
	if err != nil {
		panic(err)
	}
	fmt.Printf("min Re G ≥ %.6f at ω = %.4f, passive: %v\n", c.MinRe, c.Omega, c.Passive)
	// A pure delay is not passive: Re G(ω) = cos ω reaches −1 at ω = π.
	c, _ = convex.Certify([]float64{0, 1})
	fmt.Printf("min Re G ≥ %.6f at ω = %.4f, passive: %v\n", c.MinRe, c.Omega, c.Passive)
	// Output:
	// min Re G ≥ 0.625000 at ω = 1.0472, passive: true
	// min Re G ≥ -1.000000 at ω = 3.1416, passive: false
}

func ExampleSolve() {
	// Least squares wants g = (0, 1), a pure delay, which is not passive.
	P := mat.NewSymDense(2, []float64{1, 0, 0, 1})
	b := []float64{0, 1}
	p := &convex.Problem{P: P, B: b, GammaG: 0, Blocks: []convex.Block{
		{Offset: 0, Len: 2, Kind: convex.Exact},
	}}
	s, err := convex.Solve(p, nil)
	if err != nil {
		panic(err)
	}
	// The passive optimum is g = (0.5, 0.5): Re G = 0.5 + 0.5cos ω ≥ 0.
	fmt.Printf("g = (%.4f, %.4f), objective %.4f, passive: %v\n", s.X[0], s.X[1], s.Objective, s.Certificates[0].Passive)
	// Output:
	// g = (0.5000, 0.5000), objective -0.2500, passive: true
}
