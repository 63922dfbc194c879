package trainer

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/passivenfir/gputrain/data"
)

func TestCheckData(t *testing.T) {
	base, err := data.GenerateMSD(data.MSDConfig{Batches: 12, Seed: 31})
	if err != nil {
		t.Fatal(err)
	}
	rmsY := 0.0
	n := 0
	for _, b := range base.Batches {
		for _, v := range b.Y {
			rmsY += v * v
			n++
		}
	}
	rmsY = math.Sqrt(rmsY / float64(n))
	edit := func(f func(u, y []float64)) *data.Dataset {
		d := scaled(base, 1, 1)
		for _, b := range d.Batches {
			f(b.U, b.Y)
		}
		return d
	}
	for _, c := range []struct {
		name           string
		d              *data.Dataset
		supply, offset func(float64) bool
		allNegative    bool
	}{
		{"passive plant", base, func(s float64) bool { return s > 0.5 }, func(o float64) bool { return math.Abs(o) < 0.02 }, false},
		{"output sign flipped", edit(func(u, y []float64) {
			for i := range y {
				y[i] = -y[i]
			}
		}), func(s float64) bool { return s < -0.5 }, func(o float64) bool { return math.Abs(o) < 0.02 }, true},
		{"sensor bias on y", edit(func(u, y []float64) {
			for i := range y {
				y[i] += 0.3 * rmsY
			}
		}), func(s float64) bool { return true }, func(o float64) bool { return o > OffsetNote }, false},
		{"other units", edit(func(u, y []float64) {
			for i := range y {
				u[i] *= 1e-3
				y[i] *= 1e4
			}
		}), func(s float64) bool { return s > 0.5 }, func(o float64) bool { return math.Abs(o) < 0.02 }, false},
	} {
		got, err := CheckData(context.Background(), c.d, 60)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		t.Logf("%s: supply %.3f (%d of %d batches negative), offset %.3f", c.name, got.Supply, got.NegativeBatches, got.Batches, got.Offset)
		if !c.supply(got.Supply) || !c.offset(got.Offset) {
			t.Errorf("%s: supply %.3f, offset %.3f out of range", c.name, got.Supply, got.Offset)
		}
		if all := got.NegativeBatches == got.Batches; all != c.allNegative {
			t.Errorf("%s: %d of %d batches with negative supply", c.name, got.NegativeBatches, got.Batches)
		}
		if got.DipBatches != 0 && !c.allNegative {
			t.Errorf("%s: %d of %d batches dip (lowest %.3g)", c.name, got.DipBatches, got.Batches, got.Dip)
		}
	}
	// Energy given back partway: Σu·y runs −1, −2, 1, 4, so the record ends
	// positive (4/(2·√20) = 0.447) after a dip to −2/(2·√20) = −0.224.
	dip := &data.Dataset{Batches: []data.Batch{{U: []float64{1, 1, 1, 1}, Y: []float64{-1, -1, 3, 3}}, {U: []float64{1, 1}, Y: []float64{1, 1}}}}
	got, err := CheckData(context.Background(), dip, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got.DipBatches != 1 || math.Abs(got.Dip+2/(2*math.Sqrt(20))) > 1e-15 || got.NegativeBatches != 0 || !(got.Supply > 0) {
		t.Errorf("a record that gives energy back partway: %+v", got)
	}
	if _, err := CheckData(context.Background(), &data.Dataset{}, 10); !errors.Is(err, ErrConfig) {
		t.Errorf("no batches: err %v, want ErrConfig", err)
	}
	if _, err := CheckData(context.Background(), base, 0); !errors.Is(err, ErrConfig) {
		t.Errorf("0 taps: err %v, want ErrConfig", err)
	}
}

func TestCheckDataHead(t *testing.T) {
	d := &data.Dataset{Batches: []data.Batch{
		{U: make([]float64, 5), Y: make([]float64, 5), Label: "a"},
		{U: make([]float64, 7), Y: make([]float64, 7), Label: "b", Line: 9},
		{U: make([]float64, 3), Y: make([]float64, 3)},
	}}
	if head(d, 15) != d {
		t.Error("a data set within the limit was copied")
	}
	h := head(d, 9)
	if h.Samples() != 9 || len(h.Batches) != 2 || len(h.Batches[1].U) != 4 || h.Batches[1].Label != "b" || h.Batches[1].Line != 9 {
		t.Errorf("head(9): %d samples in %d batches, the second %d long (%q, line %d)", h.Samples(), len(h.Batches), len(h.Batches[1].U), h.Batches[1].Label, h.Batches[1].Line)
	}
}
