package search

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/model"
	"github.com/passivenfir/gputrain/trainer"
)

// TestBlend: an NFIR and a FIR that err in opposite ways about a true FIR
// g (linear taps g+δ and g−δ, the NFIR's branches silent) blend at α = 1/2
// into g itself; the search then offers that blend as a candidate of its
// own, scored on validation, certified, and better than both. A feedback
// candidate, whose lifts read its own output, is never blended.
func TestBlend(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	const L = 12
	g, delta := make([]float64, L), make([]float64, L)
	for k := range g {
		g[k] = math.Pow(0.6, float64(k)) * (2*rng.Float64() - 1)
		delta[k] = 0.02 * (2*rng.Float64() - 1)
	}
	g[0] = 3
	truth, _ := model.New(model.Structure{LinearTaps: L})
	copy(truth.Lin, g)
	val := &data.Dataset{Ts: 1}
	for range 3 {
		u := make([]float64, 300)
		for i := range u {
			u[i] = rng.NormFloat64()
		}
		y, _ := truth.Simulate(u)
		val.Batches = append(val.Batches, data.Batch{U: u, Y: y})
	}
	nfir, err := model.RandomPassive(model.Structure{Branches: 2, Taps: 6, R1: 1, Hidden: []int{3}, LinearTaps: L}, rng)
	if err != nil {
		t.Fatal(err)
	}
	fir, _ := model.New(model.Structure{LinearTaps: L})
	for k := range g {
		nfir.Lin[k], fir.Lin[k] = g[k]+delta[k], g[k]-delta[k]
	}
	for i := range nfir.G {
		nfir.G[i] = 0
	}
	score := func(m *model.NFIR) float64 { return medianFit(t, m, val) }
	s := &searcher{base: tiny(), val: val}
	res := &Result{LinearFit: score(fir), linear: fir}
	best := &candidate{name: "FF", res: &trainer.Result{Model: nfir, BestValFit: score(nfir)}, row: &Row{Name: "FF", ValFit: score(nfir), Rung: 1}}
	b := s.blend(res, best)
	if b == nil {
		t.Fatalf("no blend offered: NFIR %.4f, FIR %.4f", best.row.ValFit, res.LinearFit)
	}
	if b.row.Blend != 0.5 || !(b.row.ValFit > 99.999) || b.row.Rung != 1 || b.row.Chosen {
		t.Errorf("blend row %+v, want weight 0.5 scoring 100 at rung 1", *b.row)
	}
	if got := score(b.res.Model); got != b.row.ValFit || b.res.BestValFit != got {
		t.Errorf("the blend scores %v, its row says %v and its result %v", got, b.row.ValFit, b.res.BestValFit)
	}
	if !b.res.Cert.Passive || b.res.Model.Feedback {
		t.Errorf("blend certificate %+v, feedback %v", b.res.Cert, b.res.Model.Feedback)
	}
	if best.res.Model != nfir || nfir.Lin[0] != g[0]+delta[0] {
		t.Error("blend changed the candidate it started from")
	}

	// Nothing better than both: no blend row.
	res.LinearFit = 100
	if b := s.blend(res, best); b != nil {
		t.Errorf("blend %+v offered though the FIR scores 100", *b.row)
	}
	fb, _ := model.RandomPassive(model.Structure{Branches: 2, Taps: 6, R1: 1, R2: 1, Feedback: true, Hidden: []int{3}, LinearTaps: L}, rng)
	res.LinearFit = 0
	if b := s.blend(res, &candidate{name: "FB", res: &trainer.Result{Model: fb}, row: &Row{ValFit: -50}}); b != nil {
		t.Errorf("a feedback candidate was blended: %+v", *b.row)
	}
}
