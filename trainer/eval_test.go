package trainer

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/model"
)

// TestEvaluateZeroOutput: a batch whose output is zero has no Fit; it is
// NaN in PerBatch and the summaries are those of the other batches, and a
// data set with no batch to score is an error.
func TestEvaluateZeroOutput(t *testing.T) {
	st := model.Structure{Branches: 2, Taps: 6, R1: 2, R2: 2, Hidden: []int{3}, Feedback: true, LinearTaps: 3}
	m, err := model.RandomPassive(st, rand.New(rand.NewPCG(5, 5)))
	if err != nil {
		t.Fatal(err)
	}
	d := simulate(m, 5, 60, 7)
	for i := range d.Batches {
		for k := range d.Batches[i].Y {
			d.Batches[i].Y[k] += 0.1 * math.Sin(float64(k+i)) // not a perfect fit
		}
	}
	want, err := Evaluate(m, d, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, zero := range []int{0, 2, 4} {
		z := &data.Dataset{Name: d.Name, Ts: d.Ts}
		var rest []float64
		for i, b := range d.Batches {
			if i == zero {
				b = data.Batch{U: b.U, Y: make([]float64, len(b.Y))}
			} else {
				rest = append(rest, want.ClosedLoop.PerBatch[i])
			}
			z.Batches = append(z.Batches, b)
		}
		got, err := Evaluate(m, z, 0)
		if err != nil {
			t.Fatalf("batch %d zero: %v", zero, err)
		}
		if !math.IsNaN(got.ClosedLoop.PerBatch[zero]) || !math.IsNaN(got.OpenLoop.PerBatch[zero]) {
			t.Errorf("batch %d zero: per-batch Fit %v, want NaN there", zero, got.ClosedLoop.PerBatch)
		}
		s := model.Summarize(rest)
		if got.ClosedLoop.Median != s.Median || got.ClosedLoop.Mean != s.Mean || got.ClosedLoop.Min != s.Min || got.ClosedLoop.Max != s.Max {
			t.Errorf("batch %d zero: summary %+v, want that of the other batches %+v", zero, got.ClosedLoop, s)
		}
	}
	none := &data.Dataset{Name: "zero", Batches: []data.Batch{{U: d.Batches[0].U, Y: make([]float64, 60)}}}
	if _, err := Evaluate(m, none, 0); !errors.Is(err, model.ErrZeroOutput) {
		t.Errorf("no batch to score: err %v, want ErrZeroOutput", err)
	}
}
