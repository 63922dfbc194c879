package trainer

import (
	"math"

	"github.com/passivenfir/gputrain/convex"
	"github.com/passivenfir/gputrain/model"
)

// certHeadroom is the margin, relative to Σ_k|g(k)|, that every FIR of a
// returned passive model keeps: min_ω Re G(e^{iω}) ≥ certHeadroom·Σ|g|.
// Exact mode stops at a margin of 0, where the certified lower bound can be
// as small as 1e-11; a certificate computed elsewhere, with its own rounding
// bounds (an independent reader of the model file, docs/MODEL_FORMAT.md),
// could then come out a hair below zero. 1e-7·Σ|g| is 10⁴ times the
// rounding error of a float64 evaluation of Re G at 500 taps, and it moves
// the output by at most that fraction, far below any Fit that is printed.
// The raise can leave g(0) above its decay bound ρ by as little; the bounds
// regularize the fit, while passivity is what the certificate guarantees.
const certHeadroom = 1e-7

// addHeadroom raises g(0) of every FIR of the passive model m whose
// certified minimum of Re G is below certHeadroom·Σ|g| by the difference (a
// uniform lift of Re G), and reports whether it changed a tap.
func addHeadroom(m *model.NFIR) (bool, error) {
	var firs [][]float64
	for j := range m.Branches {
		firs = append(firs, m.Branch(j))
	}
	if m.LinearTaps > 0 {
		firs = append(firs, m.Lin)
	}
	changed := false
	for _, g := range firs {
		c, err := convex.Certify(g)
		if err != nil {
			return changed, err
		}
		var sum float64
		for _, v := range g {
			sum += math.Abs(v)
		}
		if want := certHeadroom * sum; c.MinRe < want {
			g[0] += want - c.MinRe
			changed = true
		}
	}
	return changed, nil
}
