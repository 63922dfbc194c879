package search

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/internal/datatest"
	"github.com/passivenfir/gputrain/loop"
)

// TestLoopsSkip: the loop family's runs with and without the automatic
// training skip, and a user's skip winning over it.
func TestLoopsSkip(t *testing.T) {
	records := func(n, T int) *data.Dataset { return datatest.Zeros(slices.Repeat([]int{T}, n)...) }
	lc := loop.DefaultConfig()
	for _, tc := range []struct {
		name     string
		auto     bool
		userSkip int
		train    *data.Dataset
		L        int
		wantSkip int // the second pass's skip; 0: no second pass
	}{
		{"short records", true, 0, records(8, 500), 64, 62},
		{"long records", true, 0, records(40, 2000), 32, 0}, // 32·40/80 000 = 1.6 % < 1/32
		{"the user's skip", true, 49, records(8, 500), 64, 0},
		{"off", false, 0, records(8, 500), 64, 0},
	} {
		s := &searcher{opt: Options{AutoSkip: tc.auto, Loop: &lc, Workers: 1}, train: tc.train}
		s.base.Skip, s.base.Seed = tc.userSkip, 1
		res := &Result{LinearTaps: tc.L}
		if got := s.loopSkip(res); got != tc.wantSkip {
			t.Errorf("%s: loopSkip %d, want %d", tc.name, got, tc.wantSkip)
		}
		ls := s.loops(res)
		if want := loop.Priority(loop.Runs(tc.L, 1, tc.wantSkip)); !slices.Equal(ls.Order, want) {
			t.Errorf("%s: training order %v, want loop.Priority's %v", tc.name, ls.Order, want)
		}
		first := len(loop.Runs(tc.L, 1, 0))
		want := first
		if tc.wantSkip > 0 {
			want *= 2
		}
		if len(ls.Configs) != want {
			t.Fatalf("%s: %d loops, want %d", tc.name, len(ls.Configs), want)
		}
		for i, cfg := range ls.Configs {
			skip := tc.userSkip
			if i >= first {
				skip = tc.wantSkip
			}
			if cfg.Skip != skip {
				t.Errorf("%s: loop %d (%s) skips %d, want %d", tc.name, i, ls.Names[i], cfg.Skip, skip)
			}
			if i >= first && (fmt.Sprint(cfg.Structure) != fmt.Sprint(ls.Configs[i-first].Structure) || cfg.Seed != ls.Configs[i-first].Seed) {
				t.Errorf("%s: loop %d is not loop %d again", tc.name, i, i-first)
			}
		}
		if p := s.plan(res, 1, 1); p.Loops != want || p.LoopSkip != tc.wantSkip {
			t.Errorf("%s: plan %+v, want %d loops, skip %d", tc.name, p, want, tc.wantSkip)
		}
	}
}

// TestShare: the runs counted are as many as get the longer of their least
// and the typical run's time; a counted run may take the time left less
// what the other counted runs are likely to take, never less than an even
// share over them, three even shares before any run has trained; none
// where not even this run would get its least.
func TestShare(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := time.Second
	for _, tc := range []struct {
		name           string
		rest           time.Duration // deadline − now
		left           int
		least, typical time.Duration
		want           time.Duration // the run's share; 0: not started
		wantOK         bool
	}{
		{"first run: three even shares", 280 * s, 28, 0, 0, 30 * s, true},
		{"first run of two: all", 280 * s, 2, 0, 0, 280 * s, true},
		{"runs fit: the rest less the others' typical", 280 * s, 28, 1 * s, 5 * s, 145 * s, true},
		{"runs do not fit: 14 typical runs", 280 * s, 28, 5 * s, 20 * s, 20 * s, true},
		{"runs do not fit: 14 typical runs and a bit", 290 * s, 28, 5 * s, 20 * s, 30 * s, true},
		{"least above typical: 7 of 28", 280 * s, 28, 40 * s, 30 * s, 100 * s, true},
		{"least above typical: 7½ of 28", 300 * s, 28, 40 * s, 30 * s, 120 * s, true},
		{"one typical run left", 30 * s, 5, 2 * s, 20 * s, 30 * s, true},
		{"the last run takes the rest", 30 * s, 1, 2 * s, 10 * s, 30 * s, true},
		{"short of one run's least", 30 * s, 5, 40 * s, 50 * s, 0, false},
		{"deadline past", -s, 5, 0, 0, 0, false},
		{"deadline now", 0, 5, 0, 0, 0, false},
	} {
		d, ok := share(now, now.Add(tc.rest), tc.left, tc.least, tc.typical)
		if ok != tc.wantOK || (ok && d.Sub(now) != tc.want) {
			t.Errorf("%s: share %v, %v; want %v, %v", tc.name, d.Sub(now), ok, tc.want, tc.wantOK)
		}
	}
	var p loopPace
	if p.minimum() != 0 || p.typical() != 0 {
		t.Errorf("no loop trained: minimum %v, typical %v; want 0", p.minimum(), p.typical())
	}
	p.add(0, 3) // an interrupted loop before its first epoch: no pace
	p.add(10, 1)
	p.add(30, 3)
	if got, want := p.minimum(), time.Duration(MinLoopEpochs)*100*time.Millisecond; got != want {
		t.Errorf("minimum %v at 0.1 s an epoch, want %v", got, want)
	}
	if got := p.typical(); got != 2*s {
		t.Errorf("typical %v for loops of 1 s and 3 s, want 2s", got)
	}
}

// TestLocalLoopsOrder: LocalLoops trains the runs in Loops.Order and
// reports each under its own index, as loop.Train trains it; with a
// deadline too; an order of the wrong length is index order.
func TestLocalLoopsOrder(t *testing.T) {
	train, val := msd(t, 4, 1), msd(t, 2, 2)
	var ls Loops
	for i := range 3 {
		cfg := loop.DefaultConfig()
		cfg.Structure = loop.Structure{R1: 1, R2: 1, Hidden: []int{3}, B1: 1, T1: 4, L1: 6, B2: 1, T2: 3, L2: 3}
		cfg.Epochs, cfg.Workers, cfg.Seed = 3, 1, uint64(i+1)
		ls.Names, ls.Configs = append(ls.Names, fmt.Sprint(i)), append(ls.Configs, cfg)
	}
	for _, tc := range []struct {
		name     string
		order    []int
		deadline time.Duration
		want     []int
	}{
		{"order", []int{2, 0, 1}, 0, []int{2, 0, 1}},
		{"order, deadline", []int{1, 2, 0}, time.Hour, []int{1, 2, 0}},
		{"no order", nil, 0, []int{0, 1, 2}},
		{"short order", []int{1}, 0, []int{0, 1, 2}},
	} {
		l := ls
		l.Order = tc.order
		if tc.deadline > 0 {
			l.Deadline = time.Now().Add(tc.deadline)
		}
		var got []int
		err := (LocalLoops{}).TrainLoops(context.Background(), l, train, val, func(i int, tl TrainedLoop) {
			got = append(got, i)
			want, err := loop.Train(context.Background(), ls.Configs[i], train, val)
			if err != nil || tl.Err != nil || tl.Result == nil || tl.Result.ValFit != want.ValFit || !slices.Equal(tl.Result.Model.Flatten(), want.Model.Flatten()) {
				t.Errorf("%s: loop %d: %+v, %v; want Train's (Fit %v)", tc.name, i, tl, err, want.ValFit)
			}
		})
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%s: trained %v, err %v; want %v", tc.name, got, err, tc.want)
		}
	}
}

// TestSelectTimeLimit: under a time limit the search still ends with a
// certified choice no worse than the passive FIR on validation; the loops
// trained are cut to their shares (their rows say so), and a limit spent
// before the loops start leaves rows that say why they did not train.
func TestSelectTimeLimit(t *testing.T) {
	train, val := msd(t, 10, 1), msd(t, 4, 2)
	lc := loop.DefaultConfig()
	lc.Epochs, lc.Patience, lc.MaxSamples = 100_000, 0, 0 // unbounded but for the time limit
	t0 := time.Now()
	res, err := Select(context.Background(), tiny(), Fixed{}, Options{Budget: 1, Workers: 1, Loop: &lc, TimeLimit: 3 * time.Second}, train, val)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(t0); d > 60*time.Second { // loose: 14 loops of 100 000 epochs did not run
		t.Errorf("took %v under a 3 s limit", d)
	}
	loops, cut, skipped := 0, 0, 0
	for _, r := range res.Rows {
		if r.Loop == nil {
			continue
		}
		loops++
		switch {
		case r.Cut:
			cut++
		case r.Error == ErrTimeLimit.Error():
			skipped++
		default:
			t.Errorf("loop row %q neither cut nor skipped: %+v", r.Name, r)
		}
	}
	if loops != len(loop.Runs(res.LinearTaps, 1, 0)) || cut == 0 {
		t.Errorf("%d loop rows (%d cut, %d not started), want %d, some cut", loops, cut, skipped, len(loop.Runs(res.LinearTaps, 1, 0)))
	}
	if !(res.ValFit() >= res.LinearFit) {
		t.Errorf("chosen %s at %.2f, below the FIR's %.2f", res.Chosen, res.ValFit(), res.LinearFit)
	}
	if !res.LoopChosen && !res.Cert.Passive {
		t.Errorf("chosen model not certified: %+v", res.Cert)
	}
	if _, err := Select(context.Background(), tiny(), Fixed{}, Options{TimeLimit: -time.Second}, train, val); !errors.Is(err, ErrBudget) {
		t.Errorf("negative limit: err %v, want ErrBudget", err)
	}
}

// TestSelectTimeLimitRungs: a time limit spent during the first rung stops
// the halving without an error: the candidates unfinished have no score and
// say why, and the passive FIR is kept, certified.
func TestSelectTimeLimitRungs(t *testing.T) {
	train, val := msd(t, 10, 1), msd(t, 4, 2)
	base := tiny()
	base.Epochs, base.Patience = 1_000_000, 0 // no candidate finishes in time
	var notes []string
	res, err := Select(context.Background(), base, Fixed{}, Options{Budget: 2, Workers: 1, TimeLimit: 400 * time.Millisecond,
		Progress: func(e Event) { notes = append(notes, e.String()) }}, train, val)
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimeCut || res.Chosen != res.Rows[firRow(res.Rows)].Name || !res.Cert.Passive {
		t.Errorf("chosen %s (time cut %v, certified %v), want the FIR", res.Chosen, res.TimeCut, res.Cert.Passive)
	}
	nfirs := 0
	for _, r := range res.Rows {
		if r.Structure.Branches > 0 {
			nfirs++
			if !math.IsNaN(r.ValFit) || !r.Cut || r.Error != "rung 1 unfinished: the time limit ran out" {
				t.Errorf("row %q: fit %v, error %q", r.Name, r.ValFit, r.Error)
			}
		}
	}
	if nfirs != 3 || !slices.ContainsFunc(notes, func(n string) bool { return strings.Contains(n, "time limit: the halving's 200ms of 400ms spent") }) {
		t.Errorf("%d NFIR rows; progress %q", nfirs, notes)
	}
}

// TestLoopsDeadline: the loop family ends at the time limit whenever the
// halving and the RENs kept to their bounds, whatever part of them they
// used, and gets lim/loopsFloor from its start only where an earlier
// phase overran.
func TestLoopsDeadline(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const lim = 9 * time.Minute
	for _, share := range []float64{halvingShare(false), halvingShare(true)} {
		for i := 0; i <= 20; i++ {
			h := time.Duration(float64(i) / 20 * share * float64(lim)) // the halving's time, within its bound
			left := lim - h
			for j := 0; j <= 10; j++ {
				// the RENs' time, within their bound (search.ren)
				r := time.Duration(float64(j) / 10 * float64(max(left, lim/renShare)/renShare))
				now := start.Add(h + r)
				if got := loopsDeadline(start, now, lim); !got.Equal(start.Add(lim)) {
					t.Fatalf("halving %v, RENs %v: loops end at %v; want the limit, %v", h, r, got.Sub(start), lim)
				}
			}
		}
	}
	for _, tc := range []struct {
		now, want time.Duration // from start
	}{
		{0, lim},
		{lim * 3 / 4, lim},
		{lim*3/4 + time.Second, lim + time.Second},
		{lim, lim + lim/loopsFloor},
		{2 * lim, 2*lim + lim/loopsFloor},
	} {
		if got := loopsDeadline(start, start.Add(tc.now), lim).Sub(start); got != tc.want {
			t.Errorf("loops starting at %v: end at %v; want %v", tc.now, got, tc.want)
		}
	}
}
