package loop

import (
	"math"
	"testing"

	"github.com/passivenfir/gputrain/data"
)

// TestMeanPassive: the running supply Σ u·y of a mean of two random loops of
// different shapes stays ≥ 0 from rest, and its output is the members'
// mean, sample by sample.
func TestMeanPassive(t *testing.T) {
	for i := 0; i < 10; i++ {
		a := randomModel(t, Structure{R1: 2, R2: 2, Hidden: []int{5}, B1: 3, T1: 6, L1: 4, B2: 2, T2: 4, L2: 3}, uint64(300+i))
		b := randomModel(t, Structure{R1: 1, R2: 3, Hidden: []int{4, 3}, B1: 1, T1: 9, L1: 0, B2: 2, T2: 2, L2: 5}, uint64(400+i))
		m := Mean{a, b}
		u := randomInput(uint64(500+i), 300)
		y, ya, yb := m.Simulate(u), a.Simulate(u), b.Simulate(u)
		s := 0.0
		for k := range u {
			if d := math.Abs(y[k] - (ya[k]+yb[k])/2); d > 1e-12*(1+math.Abs(y[k])) {
				t.Fatalf("mean %d: y[%d] = %g, members' mean %g", i, k, y[k], (ya[k]+yb[k])/2)
			}
			s += u[k] * y[k]
			if s < -1e-9 {
				t.Fatalf("mean %d: supply %g < 0 at sample %d", i, s, k)
			}
		}
		c, err := m.Certify()
		if err != nil || !c.Passive {
			t.Fatalf("mean %d: certificate %+v, %v", i, c, err)
		}
		ca, _ := a.Certify()
		cb, _ := b.Certify()
		if c.FIRs != ca.FIRs+cb.FIRs || c.MinRe != math.Min(ca.MinRe, cb.MinRe) {
			t.Errorf("mean %d: certificate %+v from members %+v, %+v", i, c, ca, cb)
		}
		if m.NumParams() != a.NumParams()+b.NumParams() {
			t.Errorf("mean %d: %d parameters, members %d + %d", i, m.NumParams(), a.NumParams(), b.NumParams())
		}
	}
}

// TestMeanValFit: a mean of one loop scores as the loop; a mean of no loops
// is refused.
func TestMeanValFit(t *testing.T) {
	a := randomModel(t, Structure{R1: 2, R2: 2, Hidden: []int{5}, B1: 3, T1: 6, L1: 4, B2: 2, T2: 4, L2: 3}, 7)
	d := &data.Dataset{}
	for r := 0; r < 3; r++ {
		u := randomInput(uint64(600+r), 200)
		y := a.Simulate(u)
		for k := range y {
			y[k] += 0.1 * u[(k*7)%len(u)]
		}
		d.Batches = append(d.Batches, data.Batch{U: u, Y: y})
	}
	want, err := valFit(a, d, 5)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := (Mean{a}).ValFit(d, 5); err != nil || got != want {
		t.Errorf("Mean{a}.ValFit = %v, %v; a's %v", got, err, want)
	}
	if _, err := (Mean{}).ValFit(d, 5); err == nil {
		t.Error("an empty mean was scored")
	}
}

// TestChoose: a mean is kept only when it scores better on validation
// than the best single loop, and its members are the subset greedy
// selection finds, not necessarily all; failed (nil) results are passed
// over.
func TestChoose(t *testing.T) {
	s := Structure{R1: 2, R2: 2, Hidden: []int{5}, B1: 3, T1: 6, L1: 4, B2: 2, T2: 4, L2: 3}
	a, b := randomModel(t, s, 11), randomModel(t, s, 12)
	d := &data.Dataset{}
	for r := 0; r < 3; r++ {
		// the target is the members' mean: the mean fits it exactly
		u := randomInput(uint64(700+r), 200)
		d.Batches = append(d.Batches, data.Batch{U: u, Y: Mean{a, b}.Simulate(u)})
	}
	fa, _ := valFit(a, d, 0)
	fb, _ := valFit(b, d, 0)
	m, fit, mean, err := Choose(d, 0, &Result{Model: a, ValFit: fa}, nil, &Result{Model: b, ValFit: fb})
	if err != nil || !mean || len(m) != 2 || !(fit > 99.99) {
		t.Errorf("target = mean: got %d members, fit %v, mean %v, err %v", len(m), fit, mean, err)
	}
	// the target is a: a alone wins
	for i := range d.Batches {
		d.Batches[i].Y = a.Simulate(d.Batches[i].U)
	}
	fa, _ = valFit(a, d, 0)
	fb, _ = valFit(b, d, 0)
	m, fit, mean, err = Choose(d, 0, &Result{Model: a, ValFit: fa}, &Result{Model: b, ValFit: fb})
	if err != nil || mean || len(m) != 1 || m[0] != a || fit != fa {
		t.Errorf("target = a: got %d members, fit %v (a's %v), mean %v, err %v", len(m), fit, fa, mean, err)
	}
	if _, _, _, err := Choose(d, 0, nil); err == nil {
		t.Error("nothing to choose from: no error")
	}
	// the target is the mean of a and b, and c a loop far from it: the
	// mean of a and b wins over a, b, c alone and over the mean of all
	// three, and its Fit is its ValFit to the bit
	c := randomModel(t, s, 13)
	for i := range c.FL1 {
		c.FL1[i] *= 3
	}
	for i := range d.Batches {
		d.Batches[i].Y = Mean{a, b}.Simulate(d.Batches[i].U)
	}
	var rs []*Result
	for _, l := range []*Model{c, a, b} {
		f, _ := valFit(l, d, 0)
		rs = append(rs, &Result{Model: l, ValFit: f})
	}
	all, _ := Mean{c, a, b}.ValFit(d, 0)
	m, fit, mean, err = Choose(d, 0, rs...)
	want, _ := Mean{a, b}.ValFit(d, 0)
	if err != nil || !mean || len(m) != 2 || m[0] != a || m[1] != b || fit != want || !(fit > all) {
		t.Errorf("target = mean of a and b: got %d members, fit %v (the pair's %v, all three's %v), mean %v, err %v", len(m), fit, want, all, mean, err)
	}
}
