package data

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// seqBatch returns a batch whose samples number themselves: u(t) = t,
// y(t) = 1000+t, y_clean(t) = 2000+t.
func seqBatch(n int, label string, line int) Batch {
	b := Batch{U: make([]float64, n), Y: make([]float64, n), YClean: make([]float64, n), Label: label, Line: line}
	for i := range n {
		b.U[i], b.Y[i], b.YClean[i] = float64(i), float64(1000+i), float64(2000+i)
	}
	return b
}

// TestHoldOut: a seeded fifth of five or more batches is held out, in
// order, disjoint from the training part and the same for the same seed;
// fewer batches are all training data.
func TestHoldOut(t *testing.T) {
	for _, tc := range []struct {
		batches, val int
	}{{0, 0}, {4, 0}, {5, 1}, {9, 1}, {10, 2}, {23, 4}} {
		d := &Dataset{Name: "d", Ts: 0.01, UCol: "force", YCol: "position"}
		for i := range tc.batches {
			d.Batches = append(d.Batches, seqBatch(3, fmt.Sprint(i), 0))
		}
		for _, seed := range []uint64{1, 2} {
			train, val := HoldOut(d, seed)
			if tc.val == 0 {
				if train != d || val != nil {
					t.Errorf("%d batches: (%v, %v), want (d, nil)", tc.batches, train, val)
				}
				continue
			}
			if val.Len() != tc.val || train.Len()+val.Len() != tc.batches {
				t.Fatalf("%d batches seed %d: %d training and %d validation batches, want %d held out", tc.batches, seed, train.Len(), val.Len(), tc.val)
			}
			var labels []string
			for _, p := range []*Dataset{train, val} {
				if p.Ts != d.Ts || p.UCol != "force" || p.YCol != "position" {
					t.Errorf("%s: Ts %g, columns %q %q; want d's", p.Name, p.Ts, p.UCol, p.YCol)
				}
				var own []string
				for _, b := range p.Batches {
					own = append(own, b.Label)
				}
				if !slices.IsSortedFunc(own, func(a, b string) int { return atoi(a) - atoi(b) }) {
					t.Errorf("%s: batches %v out of order", p.Name, own)
				}
				labels = append(labels, own...)
			}
			slices.SortFunc(labels, func(a, b string) int { return atoi(a) - atoi(b) })
			for i, l := range labels {
				if l != fmt.Sprint(i) {
					t.Fatalf("%d batches: the parts hold %v, want every batch once", tc.batches, labels)
				}
			}
			if _, again := HoldOut(d, seed); !slices.EqualFunc(again.Batches, val.Batches, func(a, b Batch) bool { return a.Label == b.Label }) {
				t.Errorf("%d batches seed %d: a second split differs", tc.batches, seed)
			}
		}
	}
}

func atoi(s string) int {
	var i int
	fmt.Sscan(s, &i)
	return i
}

// TestHoldOutTails: the training part is the first 80% of each batch, the
// validation part the rest preceded by the lead-in, y_clean cut alike and
// lines following the cut; batches too short for the lead-in are refused.
func TestHoldOutTails(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	d := &Dataset{Name: "d", UCol: "u1", YCol: "y1", Batches: []Batch{seqBatch(100, "a", 2), seqBatch(50, "", 0)}}
	for range 3 {
		d.Batches = append(d.Batches, seqBatch(50+rng.IntN(200), "r", 1+rng.IntN(9)))
	}
	for _, tc := range []struct {
		frac float64
		lead int
		ok   bool
	}{{0.2, 0, true}, {0.2, 10, true}, {0.2, 40, true}, {0.2, 41, false}, {0.5, 25, true}, {0.5, 26, false}, {0, 0, false}, {1, 0, false}, {0.2, -1, false}} {
		tr, va, err := HoldOutTails(d, tc.frac, tc.lead)
		if (err == nil) != tc.ok {
			t.Errorf("frac %g lead %d: err %v, want ok %v", tc.frac, tc.lead, err, tc.ok)
			continue
		}
		if err != nil {
			continue
		}
		if tr.Len() != d.Len() || va.Len() != d.Len() || va.UCol != "u1" || tr.YCol != "y1" {
			t.Fatalf("frac %g lead %d: %d and %d batches, columns %q %q", tc.frac, tc.lead, tr.Len(), va.Len(), va.UCol, tr.YCol)
		}
		for i, b := range d.Batches {
			cut := int(float64(len(b.U)) * (1 - tc.frac))
			h, v := tr.Batches[i], va.Batches[i]
			if len(h.U) != cut || h.Y[cut-1] != b.Y[cut-1] || len(h.YClean) != cut || h.Line != b.Line || h.Label != b.Label {
				t.Errorf("frac %g lead %d batch %d: training part of %d samples from line %d, want %d from %d", tc.frac, tc.lead, i, len(h.U), h.Line, cut, b.Line)
			}
			start := cut - tc.lead
			if len(v.U) != len(b.U)-start || v.U[0] != float64(start) || v.YClean[0] != float64(2000+start) || v.Y[len(v.Y)-1] != b.Y[len(b.Y)-1] || v.Label != b.Label {
				t.Errorf("frac %g lead %d batch %d: validation part %v..%v, want from %d to the end", tc.frac, tc.lead, i, v.U[0], v.U[len(v.U)-1], start)
			}
			if want := b.Line + start; b.Line > 0 && v.Line != want || b.Line == 0 && v.Line != 0 {
				t.Errorf("frac %g lead %d batch %d: validation line %d, want %d", tc.frac, tc.lead, i, v.Line, want)
			}
		}
	}
}

// TestSplitSegment: a segment at the start, in the middle and at the end.
func TestSplitSegment(t *testing.T) {
	b := seqBatch(10, "x", 5)
	for _, tc := range []struct {
		lo, hi, lead int
		train        [][2]float64 // first and last u of each training part
		val          [2]float64
	}{
		{0, 3, 0, [][2]float64{{3, 9}}, [2]float64{0, 2}},
		{4, 6, 2, [][2]float64{{0, 3}, {6, 9}}, [2]float64{2, 5}},
		{8, 10, 8, [][2]float64{{0, 7}}, [2]float64{0, 9}},
	} {
		train, val := SplitSegment(b, tc.lo, tc.hi, tc.lead)
		if len(train) != len(tc.train) {
			t.Fatalf("%d..%d: %d training parts, want %d", tc.lo, tc.hi, len(train), len(tc.train))
		}
		for i, p := range train {
			if got := [2]float64{p.U[0], p.U[len(p.U)-1]}; got != tc.train[i] || p.Line != 5+int(p.U[0]) || p.YClean[0] != 2000+p.U[0] {
				t.Errorf("%d..%d: training part %d spans %v from line %d, want %v", tc.lo, tc.hi, i, got, p.Line, tc.train[i])
			}
		}
		if got := [2]float64{val.U[0], val.U[len(val.U)-1]}; got != tc.val || val.Line != 5+int(val.U[0]) || val.Label != "x" {
			t.Errorf("%d..%d lead %d: validation spans %v from line %d, want %v", tc.lo, tc.hi, tc.lead, got, val.Line, tc.val)
		}
	}
}

// ExampleHoldOutTails holds out the last fifth of one record, with a
// lead-in of 3 samples (a model memory of 3) before it.
func ExampleHoldOutTails() {
	d := &Dataset{Name: "run", Batches: []Batch{{U: []float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, Y: make([]float64, 10)}}}
	train, val, err := HoldOutTails(d, 0.2, 3)
	fmt.Println(train.Batches[0].U, val.Batches[0].U, err)
	fmt.Println(val.Name)
	// Output:
	// [0 1 2 3 4 5 6 7] [5 6 7 8 9] <nil>
	// run (last 20% of each batch)
}
