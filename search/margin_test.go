package search

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/loop"
	"github.com/passivenfir/gputrain/model"
	"github.com/passivenfir/gputrain/trainer"
)

// TestLinearMargin: the blocks, the paired gain and its standard error,
// against block Fits computed by model.Fit. The two simulations are the
// validation output with block-wise relative errors chosen per case: the
// FIR errs by 10 % everywhere, the model by c_b on block b, so that each
// block's difference is 100·(0.1 − c_b) points.
func TestLinearMargin(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 1))
	val := &data.Dataset{Ts: 1}
	for range 3 {
		u, y := make([]float64, 300), make([]float64, 300)
		for i := range u {
			u[i], y[i] = rng.NormFloat64(), rng.NormFloat64()
		}
		val.Batches = append(val.Batches, data.Batch{U: u, Y: y})
	}
	record := func(u []float64) int {
		for i, b := range val.Batches {
			if &b.U[0] == &u[0] {
				return i
			}
		}
		t.Fatal("not a validation record")
		return -1
	}
	// out returns y + c(block)·e with e a fixed random direction scaled to
	// ‖e‖ = ‖y‖ on every block, so that the block's Fit is 100·(1 − |c|).
	out := func(skip int, c func(r, k int) float64) func([]float64) []float64 {
		return func(u []float64) []float64 {
			r := record(u)
			y := val.Batches[r].Y
			yh := append([]float64(nil), y...)
			n := len(y) - skip
			for k := range valBlocks {
				lo, hi := skip+k*n/valBlocks, skip+(k+1)*n/valBlocks
				var ny, ne float64
				e := make([]float64, hi-lo)
				for i := range e {
					e[i] = rng.NormFloat64()
					ny += y[lo+i] * y[lo+i]
					ne += e[i] * e[i]
				}
				for i := range e {
					yh[lo+i] += c(r, k) * e[i] * math.Sqrt(ny/ne)
				}
			}
			return yh
		}
	}
	fir := func(skip int) func([]float64) []float64 { return out(skip, func(int, int) float64 { return 0.1 }) }
	for _, tc := range []struct {
		name  string
		skip  int
		c     func(r, k int) float64
		gain  float64
		clear bool
	}{
		{"consistent gain", 0, func(int, int) float64 { return 0.05 }, 5, true},
		{"as good as the FIR", 0, func(int, int) float64 { return 0.1 }, 0, false},
		{"gain within the noise", 0, func(r, k int) float64 { return []float64{0.02, 0.16}[(r+k)%2] }, 1, false},
		{"worse", 0, func(int, int) float64 { return 0.2 }, -10, false},
		{"skipped samples unscored", 100, func(int, int) float64 { return 0.03 }, 7, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sim, f := out(tc.skip, tc.c), fir(tc.skip)
			m := linearMargin(val, tc.skip, sim, f)
			if m.Blocks != 3*valBlocks {
				t.Fatalf("%d blocks, want %d", m.Blocks, 3*valBlocks)
			}
			// reference: the mean and standard error of the block Fits' differences
			var d []float64
			for _, b := range val.Batches {
				ys, yf := sim(b.U), f(b.U)
				n := len(b.Y) - tc.skip
				for k := range valBlocks {
					lo, hi := tc.skip+k*n/valBlocks, tc.skip+(k+1)*n/valBlocks
					fs, err1 := model.Fit(b.Y[lo:hi], ys[lo:hi], 0)
					ff, err2 := model.Fit(b.Y[lo:hi], yf[lo:hi], 0)
					if err1 != nil || err2 != nil {
						t.Fatal(err1, err2)
					}
					d = append(d, fs-ff)
				}
			}
			var mean, ss float64
			for _, v := range d {
				mean += v / float64(len(d))
			}
			for _, v := range d {
				ss += (v - mean) * (v - mean)
			}
			se := math.Sqrt(ss / float64(len(d)-1) / float64(len(d)))
			if math.Abs(m.Gain-mean) > 1e-9 || math.Abs(m.SE-se) > 1e-9 {
				t.Errorf("margin %v, reference %+.6f ± %.6f", m, mean, se)
			}
			if math.Abs(m.Gain-tc.gain) > 1e-9 {
				t.Errorf("gain %.6f, want %v", m.Gain, tc.gain)
			}
			if m.Clear() != tc.clear {
				t.Errorf("%v: Clear() = %v, want %v", m, m.Clear(), tc.clear)
			}
		})
	}

	// A record too short for two blocks gives no error to measure: any gain is clear.
	short := &data.Dataset{Ts: 1, Batches: []data.Batch{{U: make([]float64, 20), Y: make([]float64, 20)}}}
	for i := range short.Batches[0].Y {
		short.Batches[0].Y[i] = float64(i%7) - 3
	}
	id := func(u []float64) []float64 { return append([]float64(nil), short.Batches[0].Y...) }
	zero := func(u []float64) []float64 { return make([]float64, len(u)) }
	if m := linearMargin(short, 0, id, zero); m.Blocks != 1 || m.Gain != 100 || !m.Clear() {
		t.Errorf("one short record: %v, clear %v; want one block, +100, clear", m, m.Clear())
	}
}

// TestFinishKeepsLinear: the search keeps the passive FIR when the best
// NFIR's validation gain is not clear of the noise, and takes the NFIR when
// it is. The validation output is a true FIR's plus noise; the FIR the
// search found errs a little. A candidate that simulates exactly as that
// FIR but whose row claims half a point more (a win by chance, as noisy
// validation hands out) is refused; a candidate equal to the truth wins.
func TestFinishKeepsLinear(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 2))
	const L = 10
	truth, _ := model.New(model.Structure{LinearTaps: L})
	for k := range truth.Lin {
		truth.Lin[k] = math.Pow(0.5, float64(k)) * (2*rng.Float64() - 1)
	}
	truth.Lin[0] = 2
	val := &data.Dataset{Ts: 1}
	for range 3 {
		u := make([]float64, 400)
		for i := range u {
			u[i] = rng.NormFloat64()
		}
		y, _ := truth.Simulate(u)
		for i := range y {
			y[i] += 0.5 * rng.NormFloat64()
		}
		val.Batches = append(val.Batches, data.Batch{U: u, Y: y})
	}
	fir, _ := model.New(model.Structure{LinearTaps: L})
	for k := range fir.Lin {
		fir.Lin[k] = truth.Lin[k] + 0.2*(2*rng.Float64()-1)
	}
	// NFIRs with silent branches (their linear FIR alone acts), so that
	// their rows are not taken for FIR rows
	silent := func(lin []float64) *model.NFIR {
		m, err := model.RandomPassive(model.Structure{Branches: 2, Taps: 4, R1: 1, Hidden: []int{3}, LinearTaps: L}, rng)
		if err != nil {
			t.Fatal(err)
		}
		clear(m.G)
		copy(m.Lin, lin)
		return m
	}
	same, right := silent(fir.Lin), silent(truth.Lin)
	score := func(m *model.NFIR) float64 { return medianFit(t, m, val) }
	s := &searcher{base: tiny(), val: val}
	for _, tc := range []struct {
		name   string
		m      *model.NFIR
		valFit float64
		chosen string
	}{
		{"no real gain", same, score(fir) + 0.5, "FIR 10"},
		{"clear", right, score(right), "NFIR"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			firRes := &trainer.Result{Model: fir, BestValFit: score(fir)}
			res := &Result{LinearTaps: L, LinearFit: firRes.BestValFit, linear: fir,
				Rows: []Row{{Name: "FIR 10", Structure: fir.Structure, ValFit: firRes.BestValFit}}}
			c := &candidate{name: "NFIR", res: &trainer.Result{Model: tc.m, BestValFit: tc.valFit}, row: &Row{Name: "NFIR", Structure: tc.m.Structure, ValFit: tc.valFit}}
			got, err := s.finish(res, firRes, tiny(), []*candidate{c}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got.Chosen != tc.chosen {
				t.Errorf("chose %s (margin %v), want %s", got.Chosen, got.Margin, tc.chosen)
			}
			if got.Margin.Clear() != (tc.chosen == "NFIR") || got.Margin.Blocks != 3*valBlocks {
				t.Errorf("margin %v, clear %v", got.Margin, got.Margin.Clear())
			}
			t.Logf("%s: margin %v", tc.name, got.Margin)
		})
	}
}

// medianFit is m's median closed-loop Fit on d, as the search scores it.
func medianFit(t *testing.T, m *model.NFIR, d *data.Dataset) float64 {
	t.Helper()
	ev, err := trainer.Evaluate(m, d, 0)
	if err != nil {
		t.Fatal(err)
	}
	return ev.ClosedLoop.Median
}

// TestLoopMargin: the loop family's margin is cross-fitted over two folds
// of the validation data, each block's gain coming from a choice made on
// the other fold. With a single loop there is nothing to choose, so the
// cross-fitted margin is the plain one measured on the folds: with several
// records the same blocks and the same mean; with one record its two
// halves in time, written out here by hand (the record cut at its middle,
// and the record whole with its first half unscored), four blocks each.
func TestLoopMargin(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 1))
	st := loop.Structure{R1: 1, R2: 1, Hidden: []int{3}, B1: 1, T1: 4, L1: 6, B2: 1, T2: 3, L2: 3}
	randomLoop := func() *loop.Model {
		m, err := loop.New(st)
		if err != nil {
			t.Fatal(err)
		}
		th := m.Flatten()
		for i := range th {
			th[i] = 0.3 * rng.NormFloat64()
		}
		if err := m.SetFlat(th); err != nil {
			t.Fatal(err)
		}
		m.SU, m.SY = 1, 1
		return m
	}
	truth := randomLoop()
	records := func(n int) *data.Dataset {
		d := &data.Dataset{Ts: 1}
		for range n {
			u := make([]float64, 200)
			for i := range u {
				u[i] = rng.NormFloat64()
			}
			y := truth.Simulate(u)
			for i := range y {
				y[i] += 0.1 * rng.NormFloat64()
			}
			d.Batches = append(d.Batches, data.Batch{U: u, Y: y})
		}
		return d
	}
	fir, _ := model.New(model.Structure{LinearTaps: 6})
	fir.Lin[0] = 0.5
	results := func(val *data.Dataset, ms ...*loop.Model) []*loop.Result {
		var rs []*loop.Result
		for _, m := range ms {
			f, err := loop.Of(m).ValFit(val, 0)
			if err != nil {
				t.Fatal(err)
			}
			rs = append(rs, &loop.Result{Model: m, ValFit: f})
		}
		return rs
	}
	for _, tc := range []struct {
		name    string
		records int
	}{
		{"five records", 5},
		{"one record", 1},
	} {
		val := records(tc.records)
		one := randomLoop()
		s := &searcher{base: tiny(), val: val}
		res := &Result{linear: fir, loopPasses: [2][]*loop.Result{results(val, one)}, LoopModel: loop.Of(one)}
		got, err := s.loopMargin(res, res.firSim)
		if err != nil {
			t.Fatal(err)
		}
		want := linearMargin(val, 0, one.Simulate, res.firSim)
		if tc.records == 1 {
			b := val.Batches[0]
			first := &data.Dataset{Ts: 1, Batches: []data.Batch{{U: b.U[:100], Y: b.Y[:100]}}}
			want = marginOf(append(blockGains(first, 0, one.Simulate, res.firSim), blockGains(val, 100, one.Simulate, res.firSim)...))
			if want.Blocks != 8 {
				t.Fatalf("one record: %d blocks in its two halves, want 8", want.Blocks)
			}
		}
		if !got.CrossFit || got.Blocks != want.Blocks || math.Abs(got.Gain-want.Gain) > 1e-9 || math.Abs(got.SE-want.SE) > 1e-9 {
			t.Errorf("%s, one loop: %v, want %v, cross-fitted", tc.name, got, want)
		}
		// several loops: every block is still scored once
		res.loopPasses = [2][]*loop.Result{results(val, one, randomLoop(), truth), results(val, randomLoop())}
		res.LoopModel, _, _, err = loop.ChoosePasses(val, 0, res.loopPasses[0], res.loopPasses[1])
		if err != nil {
			t.Fatal(err)
		}
		if got, err = s.loopMargin(res, res.firSim); err != nil || got.Blocks != want.Blocks || !got.CrossFit {
			t.Errorf("%s, four loops: %v, %v; want %d blocks", tc.name, got, err, want.Blocks)
		}
	}
}

// TestValFolds: the folds of cross-fitting. Records of over skip samples
// alternate between the folds; a single one is cut in time at the middle of
// its scored samples, each half holding at least minBlock of them; with no
// such record, or one too short to halve, there are no folds.
func TestValFolds(t *testing.T) {
	rec := func(n int) data.Batch {
		b := data.Batch{U: make([]float64, n), Y: make([]float64, n), YClean: make([]float64, n)}
		for i := range n {
			b.U[i], b.Y[i], b.YClean[i] = float64(i), float64(-i), float64(2*i)
		}
		return b
	}
	for _, tc := range []struct {
		name string
		lens []int
		skip int
		ok   bool
		// each fold's record lengths and skip
		lens0, lens1 []int
		skip0, skip1 int
	}{
		{"none", nil, 0, false, nil, nil, 0, 0},
		{"three records", []int{50, 60, 70}, 10, true, []int{50, 70}, []int{60}, 10, 10},
		{"two, one within the skip", []int{50, 10, 70}, 10, true, []int{50}, []int{70}, 10, 10},
		{"one record", []int{110}, 10, true, []int{60}, []int{110}, 10, 60},
		{"one record, odd length", []int{111}, 10, true, []int{60}, []int{111}, 10, 60},
		{"one record, just long enough", []int{10 + 2*minBlock}, 10, true, []int{10 + minBlock}, []int{10 + 2*minBlock}, 10, 10 + minBlock},
		{"one record, too short", []int{9 + 2*minBlock}, 10, false, nil, nil, 0, 0},
		{"one record within the skip", []int{10}, 10, false, nil, nil, 0, 0},
	} {
		val := &data.Dataset{Ts: 0.5}
		for _, n := range tc.lens {
			val.Batches = append(val.Batches, rec(n))
		}
		folds, ok := valFolds(val, tc.skip)
		if ok != tc.ok {
			t.Errorf("%s: ok %v, want %v", tc.name, ok, tc.ok)
			continue
		}
		if !ok {
			continue
		}
		for k, want := range [2][]int{tc.lens0, tc.lens1} {
			f := folds[k]
			var got []int
			for _, b := range f.val.Batches {
				got = append(got, b.Len())
				if len(b.Y) != b.Len() || len(b.YClean) != b.Len() || b.Y[b.Len()-1] != -b.U[b.Len()-1] || b.YClean[b.Len()-1] != 2*b.U[b.Len()-1] {
					t.Errorf("%s: fold %d: a record's y or y_clean is not cut with its u", tc.name, k)
				}
			}
			if wantSkip := [2]int{tc.skip0, tc.skip1}[k]; fmt.Sprint(got) != fmt.Sprint(want) || f.skip != wantSkip || f.val.Ts != 0.5 {
				t.Errorf("%s: fold %d holds records of %v samples, skip %d, Ts %g; want %v, skip %d, Ts 0.5", tc.name, k, got, f.skip, f.val.Ts, want, wantSkip)
			}
		}
	}
}
