package kyp

import (
	"fmt"
	"sync"
	"testing"

	"github.com/passivenfir/gputrain/convex"
)

var (
	benchOnce sync.Once
	benchU    [][]float64
	benchY    [][]float64
)

// tableIProblem is the paper's Table I problem: one FIR of order mG fitted to
// 300 batches of 250 samples, γ = 1, decay bounds ρ = 100, ρ_j = 0.93.
func tableIProblem(b testing.TB, mG int) *convex.Problem {
	benchOnce.Do(func() { benchU, benchY = msdBatches(1, 300, 250) })
	P, bb, err := convex.FIRGram(benchU, benchY, mG)
	if err != nil {
		b.Fatal(err)
	}
	return &convex.Problem{P: P, B: bb, GammaG: 1, Blocks: []convex.Block{
		{Offset: 0, Len: mG, Kind: convex.Exact, Rho: 100, Decay: 0.93},
	}}
}

// BenchmarkKYP times Solve (certificates included) on the Table I grid.
func BenchmarkKYP(b *testing.B) {
	for _, mG := range []int{25, 50, 100, 200} {
		b.Run(fmt.Sprintf("mG=%d", mG), func(b *testing.B) {
			p := tableIProblem(b, mG)
			var sol *Solution
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				var err error
				sol, err = Solve(p, nil)
				if err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			c := sol.Certificates[0]
			b.ReportMetric(float64(sol.Iterations), "newton")
			b.ReportMetric(sol.Objective, "objective")
			b.Logf("mG=%d: objective %.10g, gap %.2g (rel %.1e), min eig X %.3g, LMI %.3g",
				mG, sol.Objective, sol.Gap, sol.Gap/absf(sol.Objective), c.MinEigX, c.MinEigLMI)
			if !c.OK {
				b.Errorf("certificate failed: %+v", c)
			}
		})
	}
}

func absf(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}
