package search

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/passivenfir/gputrain/baselines"
	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/ensemble"
	"github.com/passivenfir/gputrain/loop"
	"github.com/passivenfir/gputrain/model"
)

// randREN is a passive REN with seeded random parameters.
func randREN(seed uint64) *baselines.PassiveREN {
	m := &baselines.PassiveREN{States: 2, Neurons: 3, Eps: 1e-6, UScale: 1, YScale: 1}
	m.Theta = make([]float64, m.NumParams())
	rng := rand.New(rand.NewPCG(seed, 7))
	for k := range m.Theta {
		m.Theta[k] = 0.5 * rng.NormFloat64()
	}
	return m
}

// meanSearcher is a searcher whose validation data are the plain mean of
// the outputs of the first n models of ms on random inputs, with a Result
// that holds the RENs and loops among ms as trained candidates, each with
// a row.
func meanSearcher(t *testing.T, n int, ms ...any) (*searcher, *Result) {
	t.Helper()
	return meanSearcherOn(t, []int{120, 120, 120}, n, ms...)
}

// meanSearcherOn is meanSearcher with validation records of the given
// lengths.
func meanSearcherOn(t *testing.T, lens []int, n int, ms ...any) (*searcher, *Result) {
	t.Helper()
	rng := rand.New(rand.NewPCG(11, 12))
	val := &data.Dataset{}
	for _, size := range lens {
		u := make([]float64, size)
		for i := range u {
			u[i] = rng.NormFloat64()
		}
		y := make([]float64, len(u))
		for _, m := range ms[:n] {
			for k, v := range m.(interface{ Simulate([]float64) []float64 }).Simulate(u) {
				y[k] += v / float64(n)
			}
		}
		val.Batches = append(val.Batches, data.Batch{U: u, Y: y})
	}
	s := &searcher{val: val}
	res := &Result{RENFit: math.NaN(), LoopFit: math.NaN(), MeanFit: math.NaN()}
	var loops []*loop.Result
	for i, m := range ms {
		sim := m.(interface{ Simulate([]float64) []float64 }).Simulate
		fit, err := loop.FitOf(val, 0, sim)
		if err != nil {
			t.Fatal(err)
		}
		switch x := m.(type) {
		case *baselines.PassiveREN:
			res.rens, res.renRows = append(res.rens, x), append(res.renRows, len(res.Rows))
			res.Rows = append(res.Rows, Row{Name: "ren " + string(rune('a'+i)), ValFit: fit})
			if math.IsNaN(res.RENFit) || fit > res.RENFit {
				res.RENFit = fit
			}
		case *loop.Model:
			loops = append(loops, &loop.Result{Model: x, ValFit: fit})
			res.Rows = append(res.Rows, Row{Name: "loop " + string(rune('a'+i)), ValFit: fit})
			if math.IsNaN(res.LoopFit) || fit > res.LoopFit {
				res.LoopFit = fit
			}
		}
	}
	res.loopPasses[0] = loops
	return s, res
}

// TestMeanOffered: where the validation output is the mean of two RENs,
// the mean of the two is offered, with its members named in its row, and
// fits validation exactly where each alone does not; the loop beside them
// is no member.
func TestMeanOffered(t *testing.T) {
	l, err := loop.New(loop.Structure{R1: 1, R2: 1, Hidden: []int{2}, B1: 1, T1: 3, L1: 4, B2: 1, T2: 2, L2: 2})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	theta := l.Flatten()
	for i := range theta {
		theta[i] = 0.4 * rng.NormFloat64()
	}
	if err := l.SetFlat(theta); err != nil {
		t.Fatal(err)
	}
	l.SU, l.SY = 1, 1
	a, b, c := randREN(1), randREN(2), randREN(3)
	s, res := meanSearcher(t, 2, a, b, l, c)
	if err := s.mean(res); err != nil {
		t.Fatal(err)
	}
	if res.Mean == nil {
		t.Fatalf("no mean offered; rows %+v", res.Rows)
	}
	row := res.Rows[res.meanRow]
	if len(res.Mean) != 2 || res.Mean.Weighted() || !(res.MeanFit > 99.99) || !(res.MeanFit > res.RENFit) {
		t.Errorf("mean of %d members (weighted %v), Fit %.4f; REN %.2f", len(res.Mean), res.Mean.Weighted(), res.MeanFit, res.RENFit)
	}
	if row.Name != "mean of 2 RENs" || !slices.Equal(row.MeanOf, []string{"ren a", "ren b"}) || row.Counts != nil || row.ValFit != res.MeanFit {
		t.Errorf("row %+v", row)
	}
	if got := res.Mean.Simulate(s.val.Batches[0].U); !slices.Equal(got, meanOfSims(s.val.Batches[0].U, a, b)) {
		t.Error("the mean does not simulate as its members' mean in member order")
	}
}

// meanOfSims is (y_0 + y_1 + …)/n in the members' order.
func meanOfSims(u []float64, ms ...interface{ Simulate([]float64) []float64 }) []float64 {
	y := make([]float64, len(u))
	for _, m := range ms {
		for k, v := range m.Simulate(u) {
			y[k] += v
		}
	}
	for k := range y {
		y[k] /= float64(len(ms))
	}
	return y
}

// TestMeanNotOffered: where one candidate is the validation output, no
// mean beats it and none is offered; nor with one candidate.
func TestMeanNotOffered(t *testing.T) {
	a := randREN(5)
	s, res := meanSearcher(t, 1, a)
	res.rens, res.renRows = append(res.rens, randREN(6)), append(res.renRows, len(res.Rows))
	res.Rows = append(res.Rows, Row{Name: "ren b"})
	if err := s.mean(res); err != nil || res.Mean != nil {
		t.Errorf("mean %v (%v) offered beside an exact REN", res.Mean, err)
	}
	s, res = meanSearcher(t, 1, randREN(7))
	if err := s.mean(res); err != nil || res.Mean != nil || len(res.Rows) != 1 {
		t.Errorf("mean of one candidate: %v (%v), rows %d", res.Mean, err, len(res.Rows))
	}
}

func TestMeanName(t *testing.T) {
	a := randREN(1)
	for _, c := range []struct {
		counts []int
		want   string
	}{
		{[]int{1, 1}, "mean of 2 RENs"},
		{[]int{3, 1, 2}, "weighted mean of 3 RENs (counts 3+1+2)"},
	} {
		var m ensemble.Mean
		for _, k := range c.counts {
			m = append(m, ensemble.Member{Model: a, Count: k})
		}
		if got := meanName(m); got != c.want {
			t.Errorf("%q, want %q", got, c.want)
		}
	}
}

// TestMeanMargin: the RENs' mean's margin over the FIR is cross-fitted on
// the folds of valFolds, with several validation records and with one. The
// validation output is the mean of two of three RENs, so the mean chosen on
// either fold is that same mean, and the cross-fitted margin is the plain
// margin of the mean on the folds' blocks: with three records the plain
// margin over all of them (the same blocks in another order), with one the
// blocks of its two halves.
func TestMeanMargin(t *testing.T) {
	fir, _ := model.New(model.Structure{LinearTaps: 4})
	fir.Lin[0], fir.Lin[1] = 0.4, 0.1
	for _, tc := range []struct {
		name string
		lens []int
	}{
		{"three records", []int{120, 130, 140}},
		{"one record", []int{200}},
	} {
		a, b, c := randREN(21), randREN(22), randREN(23)
		s, res := meanSearcherOn(t, tc.lens, 2, a, b, c)
		if err := s.mean(res); err != nil || res.Mean == nil {
			t.Fatalf("%s: no mean offered (%v)", tc.name, err)
		}
		res.linear = fir
		got, err := s.meanMargin(res)
		if err != nil {
			t.Fatal(err)
		}
		want := linearMargin(s.val, 0, res.Mean.Simulate, res.firSim)
		if len(tc.lens) == 1 {
			r := s.val.Batches[0]
			first := &data.Dataset{Batches: []data.Batch{{U: r.U[:100], Y: r.Y[:100]}}}
			want = marginOf(append(blockGains(first, 0, res.Mean.Simulate, res.firSim), blockGains(s.val, 100, res.Mean.Simulate, res.firSim)...))
		}
		if !got.CrossFit || got.Blocks != want.Blocks || math.Abs(got.Gain-want.Gain) > 1e-9 || math.Abs(got.SE-want.SE) > 1e-9 {
			t.Errorf("%s: margin %v, want %v, cross-fitted", tc.name, got, want)
		}
	}
}
