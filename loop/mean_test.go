package loop

import (
	"math"
	"slices"
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
		m := Of(a, b)
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
	if got, err := (Of(a)).ValFit(d, 5); err != nil || got != want {
		t.Errorf("Of(a).ValFit = %v, %v; a's %v", got, err, want)
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
		d.Batches = append(d.Batches, data.Batch{U: u, Y: Of(a, b).Simulate(u)})
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
	if err != nil || mean || len(m) != 1 || m[0].Model != a || fit != fa {
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
		d.Batches[i].Y = Of(a, b).Simulate(d.Batches[i].U)
	}
	var rs []*Result
	for _, l := range []*Model{c, a, b} {
		f, _ := valFit(l, d, 0)
		rs = append(rs, &Result{Model: l, ValFit: f})
	}
	all, _ := Of(c, a, b).ValFit(d, 0)
	m, fit, mean, err = Choose(d, 0, rs...)
	want, _ := Of(a, b).ValFit(d, 0)
	if err != nil || !mean || len(m) != 2 || m[0].Model != a || m[1].Model != b || fit != want || !(fit > all) {
		t.Errorf("target = mean of a and b: got %d members, fit %v (the pair's %v, all three's %v), mean %v, err %v", len(m), fit, want, all, mean, err)
	}
}

// TestMeanCounts: a member counted c times weighs c times, sample by
// sample; counts of 1 give the plain mean to the bit; the running supply of
// a weighted mean stays ≥ 0; Check refuses counts outside 1..MaxCount.
func TestMeanCounts(t *testing.T) {
	s := Structure{R1: 2, R2: 2, Hidden: []int{5}, B1: 3, T1: 6, L1: 4, B2: 2, T2: 4, L2: 3}
	for i := 0; i < 5; i++ {
		a, b := randomModel(t, s, uint64(800+i)), randomModel(t, s, uint64(900+i))
		u := randomInput(uint64(1000+i), 250)
		ya, yb := a.Simulate(u), b.Simulate(u)
		plain := Of(a, b).Simulate(u)
		m := Mean{{a, 3}, {b, 1}}
		if err := m.Check(); err != nil || m.Total() != 4 || !m.Weighted() || Of(a, b).Weighted() {
			t.Fatalf("Check %v, Total %d, Weighted %v / %v", err, m.Total(), m.Weighted(), Of(a, b).Weighted())
		}
		y := m.Simulate(u)
		sup := 0.0
		for k := range u {
			if plain[k] != (ya[k]+yb[k])/2 {
				t.Fatalf("counts 1: y[%d] = %v, want %v exactly", k, plain[k], (ya[k]+yb[k])/2)
			}
			if want := (3*ya[k] + yb[k]) / 4; math.Abs(y[k]-want) > 1e-12*(1+math.Abs(want)) {
				t.Fatalf("counts 3, 1: y[%d] = %v, want %v", k, y[k], want)
			}
			sup += u[k] * y[k]
			if sup < -1e-9 {
				t.Fatalf("weighted mean %d: supply %g < 0 at sample %d", i, sup, k)
			}
		}
	}
	a := randomModel(t, s, 1)
	for _, c := range []int{0, -1, MaxCount + 1} {
		if err := (Mean{{a, c}}).Check(); err == nil {
			t.Errorf("count %d accepted", c)
		}
	}
	if err := (Mean{{nil, 1}}).Check(); err == nil {
		t.Error("a nil member accepted")
	}
}

// TestChooseWithReplacement: when the target is (2a + b)/3, selection with
// replacement draws a twice, and the kept mean's Fit is its ValFit to the
// bit; its counts are reduced (no common divisor).
func TestChooseWithReplacement(t *testing.T) {
	s := Structure{R1: 2, R2: 2, Hidden: []int{5}, B1: 3, T1: 6, L1: 4, B2: 2, T2: 4, L2: 3}
	a, b, c := randomModel(t, s, 21), randomModel(t, s, 22), randomModel(t, s, 23)
	target := Mean{{a, 2}, {b, 1}}
	d := &data.Dataset{}
	for r := 0; r < 3; r++ {
		u := randomInput(uint64(1100+r), 200)
		d.Batches = append(d.Batches, data.Batch{U: u, Y: target.Simulate(u)})
	}
	var rs []*Result
	for _, l := range []*Model{c, b, a} {
		f, _ := valFit(l, d, 0)
		rs = append(rs, &Result{Model: l, ValFit: f})
	}
	m, fit, mean, err := Choose(d, 0, rs...)
	if err != nil || !mean {
		t.Fatalf("Choose: %v, mean %v", err, mean)
	}
	got := map[*Model]int{}
	for _, l := range m {
		got[l.Model] = l.Count
	}
	if got[a] != 2 || got[b] != 1 || got[c] != 0 || len(m) != 2 {
		t.Errorf("counts a %d, b %d, c %d (%d members), want 2, 1, 0", got[a], got[b], got[c], len(m))
	}
	if m[0].Model != b || m[1].Model != a {
		t.Error("members are not in the order of rs")
	}
	if v, _ := m.ValFit(d, 0); v != fit || !(fit > 99.99) {
		t.Errorf("fit %v, ValFit %v", fit, v)
	}
}

// TestChoosePasses: the second pass joins the choice only when its own
// choice validates better than the first pass's; an empty pass leaves
// Choose over the other.
func TestChoosePasses(t *testing.T) {
	s := Structure{R1: 2, R2: 2, Hidden: []int{5}, B1: 3, T1: 6, L1: 4, B2: 2, T2: 4, L2: 3}
	a, b, c, e := randomModel(t, s, 31), randomModel(t, s, 32), randomModel(t, s, 33), randomModel(t, s, 34)
	data3 := func(target Mean) *data.Dataset {
		d := &data.Dataset{}
		for r := 0; r < 3; r++ {
			u := randomInput(uint64(1300+r), 200)
			d.Batches = append(d.Batches, data.Batch{U: u, Y: target.Simulate(u)})
		}
		return d
	}
	results := func(d *data.Dataset, ms ...*Model) []*Result {
		var rs []*Result
		for _, m := range ms {
			f, _ := valFit(m, d, 0)
			rs = append(rs, &Result{Model: m, ValFit: f})
		}
		return rs
	}
	for _, tc := range []struct {
		name   string
		target Mean
		pooled bool // the want is Choose over both passes (else over the first)
	}{
		{"the first pass fits", Of(a, b), false},             // first {a, b}, second {c, e}
		{"the second pass fits", Mean{{a, 1}, {c, 2}}, true}, // c alone beats a, b and their means
	} {
		d := data3(tc.target)
		first, second := results(d, a, b), results(d, c, e)
		m, fit, mean, err := ChoosePasses(d, 0, first, second)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		pool := first
		if tc.pooled {
			pool = append(slices.Clone(first), second...)
		}
		wm, wfit, wmean, _ := Choose(d, 0, pool...)
		if !slices.Equal(m, wm) || fit != wfit || mean != wmean {
			t.Errorf("%s: %d members, fit %v, mean %v; want Choose over %d loops: %d members, fit %v", tc.name, len(m), fit, mean, len(pool), len(wm), wfit)
		}
		_, f1, _, _ := Choose(d, 0, first...)
		_, f2, _, _ := Choose(d, 0, second...)
		if (f2 > f1) != tc.pooled {
			t.Errorf("%s: the passes validate %v and %v: the test's premise fails", tc.name, f1, f2)
		}
	}
	d := data3(Of(a, b))
	for _, tc := range []struct {
		name          string
		first, second []*Result
		want          []*Result
	}{
		{"no second pass", results(d, a, b), nil, results(d, a, b)},
		{"a failed second pass", results(d, a, b), []*Result{nil, {}}, results(d, a, b)},
		{"no first pass", nil, results(d, c, e), results(d, c, e)},
	} {
		m, fit, _, err := ChoosePasses(d, 0, tc.first, tc.second)
		wm, wfit, _, _ := Choose(d, 0, tc.want...)
		if err != nil || !slices.Equal(m, wm) || fit != wfit {
			t.Errorf("%s: %d members, fit %v, %v; want %d members, fit %v", tc.name, len(m), fit, err, len(wm), wfit)
		}
	}
	if _, _, _, err := ChoosePasses(d, 0, nil, nil); err == nil {
		t.Error("no loop: no error")
	}
}
