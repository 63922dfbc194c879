package kyp_test

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/passivenfir/gputrain/convex"
	"github.com/passivenfir/gputrain/convex/kyp"
)

// Fit three FIR taps to the non-passive target g = (0.2, 1, 0) — Re G(π) =
// −0.8 — under the KYP LMI of Theorem 4, and check the returned certificate.
func Example() {
	P := mat.NewSymDense(3, []float64{1, 0, 0, 0, 1, 0, 0, 0, 1})
	p := &convex.Problem{P: P, B: []float64{0.2, 1, 0}, GammaG: 0,
		Blocks: []convex.Block{{Offset: 0, Len: 3, Kind: convex.Exact}}}
	sol, err := kyp.Solve(p, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	c := sol.Certificates[0]
	fmt.Printf("g = [%.4f %.4f %.4f], objective %.6f\n", sol.X[0], sol.X[1], sol.X[2], sol.Objective)
	_, _, ok := kyp.Check(sol.X, c.X, 1e-8)
	fmt.Println("certificate ok:", c.OK, ok)
	// Output:
	// g = [0.5189 0.7129 0.1980], objective -0.408352
	// certificate ok: true true
}
