package trainer

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/passivenfir/gputrain/data"
)

var msd300 = sync.OnceValues(func() (*data.Dataset, error) {
	return data.GenerateMSD(data.MSDConfig{Batches: 300, Seed: 1})
})

// BenchmarkThetaGStepMSD times one θ_G step of Algorithm 1 at the paper's
// mass-spring-damper size (300 × 250 samples, m_N = 10 branches of m_G = 50
// taps, n = 500, random lifting network; also m_N = 4, n = 200): Train with K = 1 and no Adam
// epochs, so features, gains, the Gram matrix, the constrained solve and the
// certificate. qp-s/op is the solver's share, iters/op its interior-point
// iterations (from the step's note).
func BenchmarkThetaGStepMSD(b *testing.B) {
	train, err := msd300()
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		mode     Passivity
		branches int
	}{{"exact", 10}, {"sampled", 10}, {"sampled", 4}} {
		b.Run(fmt.Sprintf("%s/m_N=%d", c.mode, c.branches), func(b *testing.B) {
			cfg := DefaultConfig()
			cfg.Passivity, cfg.Iters, cfg.Epochs = c.mode, 1, 0
			cfg.Structure.Branches = c.branches
			var qp float64
			var iters, rounds int
			cfg.Progress = func(e Event) {
				if e.Stage != "theta_g" {
					return
				}
				i := strings.Index(e.Note, "[QP: ")
				if i < 0 {
					return
				}
				var it, r int
				var s float64
				if _, err := fmt.Sscanf(e.Note[i:], "[QP: %d iterations, %d rounds, %g s", &it, &r, &s); err == nil {
					qp, iters, rounds = qp+s, iters+it, rounds+r
				}
			}
			for b.Loop() {
				if _, err := Train(context.Background(), cfg, train, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(qp/float64(b.N), "qp-s/op")
			b.ReportMetric(float64(iters)/float64(b.N), "iters/op")
			b.ReportMetric(float64(rounds)/float64(b.N), "rounds/op")
		})
	}
}
