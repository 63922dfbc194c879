package trainer

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/passivenfir/gputrain/convex"
	"github.com/passivenfir/gputrain/model"
)

// TestAddHeadroom: FIRs whose certified minimum of Re G lies below
// certHeadroom·Σ|g| (here: at zero up to rounding, and at a margin of 1e-11,
// as exact mode leaves them) get exactly that much added to g(0) and nothing
// else; FIRs with a larger margin are left alone.
func TestAddHeadroom(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	s := model.Structure{Branches: 3, Taps: 40, R1: 2, R2: 2, Hidden: []int{3}, Feedback: true, LinearTaps: 25}
	for trial := range 5 {
		m, err := model.RandomPassive(s, rng)
		if err != nil {
			t.Fatal(err)
		}
		// Branch 0 at zero, branch 1 at 1e-11, the rest as drawn (a margin
		// far above the headroom).
		for j, margin := range []float64{0, 1e-11} {
			g := m.Branch(j)
			c, err := convex.Certify(g)
			if err != nil {
				t.Fatal(err)
			}
			g[0] += margin - c.Upper
		}
		before := m.Clone()
		changed, err := addHeadroom(m)
		if err != nil {
			t.Fatal(err)
		}
		if !changed {
			t.Fatalf("trial %d: nothing changed", trial)
		}
		firs := func(m *model.NFIR) [][]float64 {
			f := [][]float64{m.Lin}
			for j := range m.Branches {
				f = append(f, m.Branch(j))
			}
			return f
		}
		old := firs(before)
		for i, g := range firs(m) {
			var sum float64
			for _, v := range g {
				sum += math.Abs(v)
			}
			c, err := convex.Certify(g)
			if err != nil {
				t.Fatal(err)
			}
			if c.MinRe < 0.99*certHeadroom*sum {
				t.Errorf("trial %d FIR %d: min Re G %g after, want ≥ %g", trial, i, c.MinRe, certHeadroom*sum)
			}
			for k := 1; k < len(g); k++ {
				if g[k] != old[i][k] {
					t.Fatalf("trial %d FIR %d: tap %d changed", trial, i, k)
				}
			}
			oc, _ := convex.Certify(old[i])
			var oldSum float64
			for _, v := range old[i] {
				oldSum += math.Abs(v)
			}
			want := certHeadroom * oldSum
			lift := g[0] - old[i][0]
			switch {
			case oc.MinRe >= want && lift != 0:
				t.Errorf("trial %d FIR %d: margin %g was enough, g(0) moved by %g", trial, i, oc.MinRe, lift)
			case oc.MinRe < want && math.Abs(lift-(want-oc.MinRe)) > 1e-15*sum:
				t.Errorf("trial %d FIR %d: g(0) moved by %g, want %g", trial, i, lift, want-oc.MinRe)
			}
		}
	}
}

// TestTrainedFIRsKeepHeadroom: models returned by Train in every passive
// mode keep certHeadroom on every FIR, on data of a model whose linear FIR
// is not passive, so that its constraints are active and exact mode ends at
// its margin of 0; the reported validation
// Fit is the returned model's.
func TestTrainedFIRsKeepHeadroom(t *testing.T) {
	st := model.Structure{Branches: 2, Taps: 8, R1: 1, R2: 1, Hidden: []int{3}, Feedback: true, LinearTaps: 5}
	truth, err := model.RandomPassive(st, rand.New(rand.NewPCG(9, 9)))
	if err != nil {
		t.Fatal(err)
	}
	// Re G = 0.5 − 0.9cos 3ω of the linear part dips below zero: its best
	// passive fit lies on the constraint.
	truth.Lin = []float64{0.5, 0, 0, -0.9, 0}
	train, val := simulate(truth, 8, 80, 2), simulate(truth, 4, 80, 3)
	for _, mode := range []Passivity{"exact", "sampled", "kyp"} {
		cfg := DefaultConfig()
		cfg.Structure = st
		cfg.Passivity, cfg.Iters, cfg.Epochs, cfg.Patience, cfg.Rho, cfg.H, cfg.Eps = mode, 1, 3, 0, 0, 500, 0
		res, err := Train(t.Context(), cfg, train, val)
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		m := res.Model
		firs := [][]float64{m.Lin}
		mins := []float64{res.Cert.Linear.MinRe}
		for j := range m.Branches {
			firs = append(firs, m.Branch(j))
			mins = append(mins, res.Cert.Branches[j].MinRe)
		}
		for i, g := range firs {
			var sum float64
			for _, v := range g {
				sum += math.Abs(v)
			}
			if c, _ := convex.Certify(g); c.MinRe != mins[i] || mins[i] < 0.99*certHeadroom*sum {
				t.Errorf("%s FIR %d: min Re G %g (certificate says %g), want ≥ %g·Σ|g| = %g", mode, i, c.MinRe, mins[i], certHeadroom, certHeadroom*sum)
			}
		}
		ev, err := Evaluate(m, val, cfg.ValSkip)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(ev.ClosedLoop.Median-res.BestValFit) > 1e-9 {
			t.Errorf("%s: BestValFit %g, the returned model scores %g", mode, res.BestValFit, ev.ClosedLoop.Median)
		}
	}
}

// TestDecayBoundNote: when the decay bounds are tight enough to hold taps at
// |g(k)| = Rho·Decay^k, the θ_G event says how many (counted here from the
// returned taps), and so does Result.TapsAtBound; with loose bounds, or
// none, they say nothing about them.
func TestDecayBoundNote(t *testing.T) {
	truth, err := model.RandomPassive(model.Structure{LinearTaps: 8}, rand.New(rand.NewPCG(2, 2)))
	if err != nil {
		t.Fatal(err)
	}
	for k := range truth.Lin {
		truth.Lin[k] *= 50 // a plant gain far above the tight bound below
	}
	train := simulate(truth, 4, 100, 5)
	for _, c := range []struct {
		rho  float64
		want bool
	}{{1e-3, true}, {1e6, false}, {0, false}} {
		cfg := DefaultConfig()
		cfg.Structure = model.Structure{LinearTaps: 8}
		cfg.Rho, cfg.Decay = c.rho, 0.9
		var notes []string
		cfg.Progress = func(e Event) {
			if e.Stage == "theta_g" {
				notes = append(notes, e.Note)
			}
		}
		res, err := Train(t.Context(), cfg, train, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(notes) != 1 {
			t.Fatalf("rho %g: %d θ_G events, want 1 (a linear FIR)", c.rho, len(notes))
		}
		i := strings.Index(notes[0], " taps at the decay bound")
		if (res.TapsAtBound > 0) != c.want {
			t.Errorf("rho %g: Result.TapsAtBound %d, want taps at the bound %v", c.rho, res.TapsAtBound, c.want)
		}
		if (i >= 0) != c.want {
			t.Errorf("rho %g: note %q, want a decay-bound note %v", c.rho, notes[0], c.want)
			continue
		}
		if i < 0 {
			continue
		}
		f := strings.Fields(notes[0][:i])
		got, _ := strconv.Atoi(f[len(f)-1])
		want, b := 0, c.rho
		for _, g := range res.Model.Lin {
			if math.Abs(g) >= (1-1e-6)*b {
				want++
			}
			b *= cfg.Decay
		}
		if got != want || want == 0 || res.TapsAtBound != want {
			t.Errorf("rho %g: note says %d taps at the bound, Result %d, the taps have %d", c.rho, got, res.TapsAtBound, want)
		}
	}
}

// TestRidgeNote: Result.RidgeRatio is γ_G·n/trace(P), with trace(P) summed
// here directly from the inputs (Σ_k Σ_t u(t−k)², zero initial conditions),
// and the θ_G event notes a ridge that dominates: an input a thousand times
// smaller than the plant's makes γ_G = 1 dominate; γ_G = 1e-9 does not.
func TestRidgeNote(t *testing.T) {
	const taps = 8
	truth, err := model.RandomPassive(model.Structure{LinearTaps: taps}, rand.New(rand.NewPCG(4, 4)))
	if err != nil {
		t.Fatal(err)
	}
	train := simulate(truth, 4, 100, 6)
	tr := 0.0
	for _, b := range train.Batches {
		for i := range b.U {
			b.U[i] *= 1e-3 // u in other units: the same plant has 1000 times the gain
		}
		for k := range taps {
			for i := 0; i+k < len(b.U); i++ {
				tr += b.U[i] * b.U[i]
			}
		}
	}
	for _, gamma := range []float64{1, 1e-9} {
		cfg := DefaultConfig()
		cfg.Structure = model.Structure{LinearTaps: taps}
		cfg.Rho, cfg.GammaG = 0, gamma
		var note string
		cfg.Progress = func(e Event) {
			if e.Stage == "theta_g" {
				note = e.Note
			}
		}
		res, err := Train(t.Context(), cfg, train, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := gamma * taps / tr
		if math.Abs(res.RidgeRatio-want) > 1e-9*want {
			t.Errorf("gamma %g: RidgeRatio %g, want %g", gamma, res.RidgeRatio, want)
		}
		if got := strings.Contains(note, "the ridge, not the data, sets the taps"); got != (want >= RidgeNote) {
			t.Errorf("gamma %g (ratio %.3g): note %q", gamma, want, note)
		}
		if gamma == 1 && want < RidgeNote {
			t.Fatalf("the test's data do not make γ_G = 1 dominate (ratio %g)", want)
		}
	}
}
