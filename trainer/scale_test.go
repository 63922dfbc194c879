package trainer

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/model"
)

func TestAutoScale(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range []struct {
		su, sy float64 // RMS of the generated u and y
	}{
		{RefRMSU, RefRMSY}, {1, 1}, {1e-3, 1e4}, {7.13, 20.8}, {1e-200, 1e150}, {3e5, 2e-9},
	} {
		d := &data.Dataset{}
		for range 3 {
			u, y := make([]float64, 50), make([]float64, 50)
			for i := range u {
				u[i], y[i] = c.su*rng.NormFloat64(), c.sy*rng.NormFloat64()
			}
			d.Batches = append(d.Batches, data.Batch{U: u, Y: y})
		}
		a, b := AutoScale(d)
		var us, ys [][]float64
		for _, bt := range d.Batches {
			us, ys = append(us, bt.U), append(ys, bt.Y)
		}
		for _, f := range []struct {
			name     string
			fac, rms float64
			ref      float64
		}{{"u", a, rms(us), RefRMSU}, {"y", b, rms(ys), RefRMSY}} {
			if fr, _ := math.Frexp(f.fac); fr != 0.5 {
				t.Errorf("rms %g/%g: %s factor %g is not a power of two", c.su, c.sy, f.name, f.fac)
			}
			if r := f.fac * f.rms / f.ref; r < 1/math.Sqrt2-1e-12 || r > math.Sqrt2+1e-12 {
				t.Errorf("rms %g/%g: %s scaled to %g × the reference, want within a factor √2", c.su, c.sy, f.name, r)
			}
		}
	}
	// No information: the factor stays 1.
	zero := &data.Dataset{Batches: []data.Batch{{U: []float64{0, 0}, Y: []float64{0, 0}}}}
	if a, b := AutoScale(zero); a != 1 || b != 1 {
		t.Errorf("zero data: factors %g, %g, want 1, 1", a, b)
	}
	if a, b := AutoScale(nil); a != 1 || b != 1 {
		t.Errorf("nil data: factors %g, %g, want 1, 1", a, b)
	}
}

// TestScaleEquivariant: with Scale "auto", data multiplied by powers of two
// train to the same model, bit for bit, in the data's units; data at the
// reference scale trains exactly as with "none"; and the losses reported
// are in the data's units.
func TestScaleEquivariant(t *testing.T) {
	train, err := data.GenerateMSD(data.MSDConfig{Batches: 12, Seed: 21})
	if err != nil {
		t.Fatal(err)
	}
	val, _ := data.GenerateMSD(data.MSDConfig{Batches: 4, Seed: 22})
	if a, b := AutoScale(train); a != 1 || b != 1 {
		t.Fatalf("the mass-spring-damper data is not at the reference scale: factors %g, %g", a, b)
	}
	for _, members := range []int{1, 2} {
		cfg := DefaultConfig()
		cfg.Structure = model.Structure{Branches: 2, Taps: 8, R1: 1, R2: 1, Hidden: []int{3}, Feedback: true, LinearTaps: 4}
		cfg.Iters, cfg.Epochs, cfg.Patience, cfg.Workers, cfg.Members = 2, 4, 0, 1, members
		t.Run(fmt.Sprintf("members=%d", members), func(t *testing.T) { checkEquivariant(t, cfg, train, val) })
	}
}

func checkEquivariant(t *testing.T, cfg Config, train, val *data.Dataset) {
	run := func(scale Scale, a, b float64) *Result {
		t.Helper()
		c := cfg
		c.Scale = scale
		res, err := Train(context.Background(), c, scaled(train, a, b), scaled(val, a, b))
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	none := run("none", 1, 1)
	auto := run("auto", 1, 1)
	const a, b = 0x1p7, 0x1p-11 // u in other units (×128), y too (÷2048)
	big := run("auto", a, b)
	bare := run("none", a, b) // the same data with the settings in its own units
	// none.Model maps u to y, that is (1/a)·(a·u) to (1/b)·(b·y)
	want := none.Model.Clone()
	if err := want.Rescale(1/a, 1/b); err != nil {
		t.Fatal(err)
	}
	same := func(name string, got, want *model.NFIR) bool {
		t.Helper()
		eq := func(x, y []float64) bool {
			if len(x) != len(y) {
				return false
			}
			for i := range x {
				if x[i] != y[i] {
					return false
				}
			}
			return true
		}
		ok := eq(got.G, want.G) && eq(got.Lin, want.Lin) && got.UScaler == want.UScaler && got.QScaler == want.QScaler
		for l := range got.Lift.W {
			ok = ok && eq(got.Lift.W[l], want.Lift.W[l]) && eq(got.Lift.B[l], want.Lift.B[l])
		}
		if !ok {
			t.Errorf("%s: the models differ", name)
		}
		return ok
	}
	same("auto at the reference scale vs none", auto.Model, none.Model)
	same("auto on scaled data vs none at the reference scale, rescaled", big.Model, want)
	if !big.Cert.Passive {
		t.Error("the rescaled model is not certified passive")
	}
	for j := range none.Cert.Branches {
		if got, w := big.Cert.Branches[j].MinRe, none.Cert.Branches[j].MinRe*b/a; math.Abs(got-w) > 1e-9*math.Abs(w) {
			t.Errorf("branch %d: min Re G %g, want %g", j, got, w)
		}
	}
	if big.BestValFit != none.BestValFit {
		t.Errorf("validation Fit %v on the scaled data, %v at the reference scale", big.BestValFit, none.BestValFit)
	}
	if len(big.History) != len(none.History) {
		t.Fatalf("%d events on the scaled data, %d at the reference scale", len(big.History), len(none.History))
	}
	for i, e := range big.History {
		if w := none.History[i].Loss * b * b; e.Loss != w {
			t.Errorf("event %d (%s): loss %v, want %v in the data's units", i, e.Stage, e.Loss, w)
		}
	}
	// The control: without scaling, the same settings on the scaled data
	// give another model (the test would pass vacuously otherwise).
	if eq := bare.Model.G[0] == big.Model.G[0] && bare.Model.Lin[0] == big.Model.Lin[0]; eq {
		t.Error("scale none on the scaled data gave the auto model: the data's units had no effect")
	}
}

func TestScaledKeepsNames(t *testing.T) {
	d := &data.Dataset{Batches: []data.Batch{{U: []float64{1, 2}, Y: []float64{3, 4}, Label: "105", Line: 1502}}}
	if b := scaled(d, 2, 4).Batches[0]; b.Label != "105" || b.Line != 1502 || b.U[1] != 4 || b.Y[1] != 16 {
		t.Errorf("scaled batch %+v", b)
	}
}
