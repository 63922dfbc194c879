package convex

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestReducedMethod forces the reduced (dual) method on Exact problems and checks it against
// the full interior-point method: KKT conditions, certificate, same objective.
func TestReducedMethod(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 21))
	cases := []struct {
		name   string
		n      int
		blocks []Block
	}{
		{"one", 12, []Block{{Offset: 0, Len: 12, Kind: Exact}}},
		{"margin-bounds", 20, []Block{{Offset: 2, Len: 15, Kind: Exact, Margin: 0.05, Rho: 2, Decay: 0.8}}},
		{"two-plus-free", 40, []Block{{Offset: 0, Len: 15, Kind: Exact}, {Offset: 15, Len: 15, Kind: Exact, Rho: 3, Decay: 0.9}}},
	}
	defer func(f func([]*blockWork) bool, b func(int) int) { reducedMethod, reducedBudget = f, b }(reducedMethod, reducedBudget)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			P, b := randProblem(rng, tc.n, 3*tc.n)
			p := &Problem{P: P, B: b, GammaG: 0.5, Blocks: tc.blocks}
			reducedMethod = func([]*blockWork) bool { return false }
			ref, err := Solve(p, nil)
			if err != nil {
				t.Fatal(err)
			}
			reducedMethod = func([]*blockWork) bool { return true }
			reducedBudget = func(int) int { return 1 << 20 }
			s, err := Solve(p, nil)
			if err != nil {
				t.Fatal(err)
			}
			for j, bl := range tc.blocks {
				if s.State[j].GridH != 0 {
					t.Fatalf("block %d: reduced method not used", j)
				}
				if s.Certificates[j].MinRe < bl.Margin {
					t.Errorf("block %d: certified %g < margin %g", j, s.Certificates[j].MinRe, bl.Margin)
				}
				if gm, _ := gridMin(s.X[bl.Offset:bl.Offset+bl.Len], 200_000); gm < bl.Margin {
					t.Errorf("block %d: grid minimum %g below margin", j, gm)
				}
			}
			checkKKT(t, p, s, 1e-8)
			if d := math.Abs(s.Objective - ref.Objective); d > 1e-6*(1+math.Abs(ref.Objective)) {
				t.Errorf("objective %.12g, full method %.12g", s.Objective, ref.Objective)
			}
			t.Logf("reduced: %d it / %d rounds; full: %d it / %d rounds", s.Iterations, s.Rounds, ref.Iterations, ref.Rounds)
		})
	}
}
