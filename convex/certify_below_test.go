package convex

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestCertifyBelow: certifyBelow skips the certificate only for a filter that, at a returned
// minimizer, is evaluated below the limit; otherwise it is certify, bit for bit. Its
// minimizers are those of certify but for the branch and bound's best point.
func TestCertifyBelow(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 19))
	for _, L := range []int{2, 9, 40, 150} {
		for _, lift := range []float64{-0.2, 0, 0.05, 3} {
			t.Run(fmt.Sprintf("L=%d/lift=%g", L, lift), func(t *testing.T) {
				g := make([]float64, L)
				for k := range g {
					g[k] = rng.NormFloat64() * math.Pow(0.95, float64(k))
				}
				S := sumAbs(g)
				g[0] += lift * S
				thresh := 0.01 * S
				ref, refWs := certify(g, thresh)
				for _, below := range []float64{math.Inf(-1), -0.1 * S, 0, ref.MinRe - 1e-9*S, ref.Upper + 1e-9*S, thresh} {
					below = math.Min(below, thresh) // certifyBelow's contract
					c, ws, ok := certifyBelow(g, thresh, below)
					if ok {
						if c != ref || !slices.Equal(ws, refWs) {
							t.Errorf("below %g: certified %+v %v, certify %+v %v", below, c, ws, ref, refWs)
						}
						if ref.Upper < below {
							t.Errorf("below %g: certified, though certify found Re G = %g < below", below, ref.Upper)
						}
						continue
					}
					// skipped: some returned minimizer is below the limit, and Re G is
					if ref.MinRe >= below {
						t.Errorf("below %g: no certificate, though the minimum is certified ≥ %g", below, ref.MinRe)
					}
					lo := math.Inf(1)
					for _, w := range ws {
						lo = math.Min(lo, reG(g, w))
					}
					if !(lo < below+1e-12*S) {
						t.Errorf("below %g: no certificate, but Re G ≥ %g at the minimizers %v", below, lo, ws)
					}
					for _, w := range ws {
						if reG(g, w) >= thresh+1e-12*S {
							t.Errorf("below %g: minimizer %g has Re G %g ≥ thresh %g", below, w, reG(g, w), thresh)
						}
					}
				}
			})
		}
	}
}
