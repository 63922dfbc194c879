package export

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/passivenfir/gputrain/convex"
	"github.com/passivenfir/gputrain/model"
)

// TestKYPCertificate: the X found proves passivity of the realization by
// the LMI of Theorem 4, also for taps whose margin is as thin as the ones
// gputrain train leaves (1e-7·Σ|g|), and none is claimed for a FIR that
// is not passive.
func TestKYPCertificate(t *testing.T) {
	for _, m := range []int{1, 2, 12, 50} {
		for _, thin := range []bool{false, true} {
			mm, err := model.RandomPassive(model.Structure{LinearTaps: m}, rand.New(rand.NewPCG(uint64(m), 9)))
			if err != nil {
				t.Fatal(err)
			}
			g := mm.Lin
			if thin {
				c, _ := convex.Certify(g)
				s1 := 0.0
				for _, v := range g {
					s1 += math.Abs(v)
				}
				g[0] -= c.MinRe - 1e-7*s1
			}
			start := time.Now()
			k, note := kypCertificate(g)
			if k == nil {
				t.Errorf("m=%d thin=%v: no KYP certificate: %s", m, thin, note)
				continue
			}
			if len(k.X) != (m-1)*(m-1) || k.MinEigLM < -k.Tol || k.MinEigX < -k.Tol {
				t.Errorf("m=%d thin=%v: %d entries of X, eigenvalues %g, %g", m, thin, len(k.X), k.MinEigX, k.MinEigLM)
			}
			t.Logf("m=%d thin=%v: min eig LMI %.3g, X %.3g (%v)", m, thin, k.MinEigLM, k.MinEigX, time.Since(start))
		}
	}
	if k, _ := kypCertificate([]float64{1, -1.5, 0.2}); k != nil {
		t.Error("a KYP certificate for a FIR with Re G(π) < 0")
	}
}
