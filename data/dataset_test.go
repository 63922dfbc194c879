package data

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	ok := Batch{U: []float64{1, 2, 3}, Y: []float64{0, 1, 2}}
	for _, c := range []struct {
		name   string
		d      *Dataset
		minLen int
		want   error
	}{
		{"ok", &Dataset{Ts: 1, Batches: []Batch{ok}}, 3, nil},
		{"ok unknown Ts", &Dataset{Batches: []Batch{ok}}, 0, nil},
		{"ok clean", &Dataset{Batches: []Batch{{U: ok.U, Y: ok.Y, YClean: ok.Y}}}, 1, nil},
		{"nil", nil, 1, ErrEmpty},
		{"no batches", &Dataset{}, 1, ErrEmpty},
		{"empty batch", &Dataset{Batches: []Batch{{}}}, 0, ErrEmpty},
		{"short", &Dataset{Batches: []Batch{ok}}, 4, ErrTooShort},
		{"u/y lengths", &Dataset{Batches: []Batch{{U: ok.U, Y: ok.Y[:2]}}}, 1, ErrLengthMismatch},
		{"y_clean length", &Dataset{Batches: []Batch{{U: ok.U, Y: ok.Y, YClean: ok.Y[:1]}}}, 1, ErrLengthMismatch},
		{"y_clean mixed", &Dataset{Batches: []Batch{ok, {U: ok.U, Y: ok.Y, YClean: ok.Y}}}, 1, ErrLengthMismatch},
		{"NaN u", &Dataset{Batches: []Batch{{U: []float64{1, math.NaN()}, Y: []float64{0, 0}}}}, 1, ErrNotFinite},
		{"Inf y", &Dataset{Batches: []Batch{{U: []float64{1, 1}, Y: []float64{0, math.Inf(-1)}}}}, 1, ErrNotFinite},
		{"NaN y_clean", &Dataset{Batches: []Batch{{U: []float64{1}, Y: []float64{0}, YClean: []float64{math.NaN()}}}}, 1, ErrNotFinite},
		{"bad Ts", &Dataset{Ts: -0.1, Batches: []Batch{ok}}, 1, ErrConfig},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.d.Validate(c.minLen)
			if c.want == nil && err != nil || c.want != nil && !errors.Is(err, c.want) {
				t.Errorf("err = %v, want %v", err, c.want)
			}
		})
	}
}

func TestQ(t *testing.T) {
	for _, c := range []struct{ y, q []float64 }{
		{nil, []float64{}},
		{[]float64{5}, []float64{0}},
		{[]float64{1, 2, 3}, []float64{0, 1, 2}},
	} {
		y := slices.Clone(c.y)
		q := Q(y)
		if !slices.Equal(q, c.q) {
			t.Errorf("Q(%v) = %v, want %v", c.y, q, c.q)
		}
		if !slices.Equal(y, c.y) {
			t.Errorf("Q modified its input")
		}
	}
}

func TestFitScaler(t *testing.T) {
	for _, c := range []struct {
		name    string
		signals [][]float64
		want    Scaler
	}{
		// x/Scale with Scale = 1.1·4 = 4.4: values {-2,0,2,4}/4.4, mean 1/4.4, std sqrt(5)/4.4
		{"two signals", [][]float64{{-2, 0}, {2, 4}}, Scaler{Scale: 4.4, Mean: 1 / 4.4, Std: math.Sqrt(5) / 4.4}},
		{"zeros", [][]float64{{0, 0}}, Scaler{Scale: 1, Mean: 0, Std: 1}},
		{"empty", nil, Scaler{Scale: 1, Mean: 0, Std: 1}},
		{"constant", [][]float64{{3, 3}}, Scaler{Scale: 3.3, Mean: 3 / 3.3, Std: 1}},
		{"non-finite ignored", [][]float64{{-2, math.NaN(), 0, 2, math.Inf(1), 4}}, Scaler{Scale: 4.4, Mean: 1 / 4.4, Std: math.Sqrt(5) / 4.4}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := FitScaler(c.signals...)
			if math.Abs(s.Scale-c.want.Scale) > 1e-12 || math.Abs(s.Mean-c.want.Mean) > 1e-12 || math.Abs(s.Std-c.want.Std) > 1e-12 {
				t.Errorf("got %+v, want %+v", s, c.want)
			}
			for _, x := range []float64{-3, 0, 1.5} {
				if z := s.Apply(x); math.Abs(s.Invert(z)-x) > 1e-12 {
					t.Errorf("Invert(Apply(%v)) = %v", x, s.Invert(z))
				}
			}
		})
	}
	// Scaled training data has mean 0 and std 1.
	d, _ := GenerateMSD(MSDConfig{Batches: 3, Seed: 1})
	s := FitScaler(d.Inputs()...)
	var m, v float64
	n := 0
	for _, u := range d.Inputs() {
		for _, z := range s.ApplyAll(u) {
			m += z
			v += z * z
			n++
		}
	}
	m /= float64(n)
	v = v/float64(n) - m*m
	if math.Abs(m) > 1e-12 || math.Abs(v-1) > 1e-12 {
		t.Errorf("scaled mean %g, variance %g", m, v)
	}
}

// TestValidateNamesBatches: messages name a batch by its label and first line
// when the file gave them (not by its position, which differs from the label
// when labels do not count from 0), and a too-short error lists every short
// batch.
func TestValidateNamesBatches(t *testing.T) {
	var csv strings.Builder
	csv.WriteString("batch,u,y\n")
	for _, b := range []struct {
		label string
		n     int
	}{{"100", 8}, {"101", 3}, {"102", 8}, {"103", 2}, {"104", 8}} {
		for range b.n {
			csv.WriteString(b.label + ",1,2\n")
		}
	}
	d, err := ReadCSV(strings.NewReader(csv.String()), "runs.csv", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Batches[1].Label != "101" || d.Batches[1].Line != 10 {
		t.Fatalf("batch 1: label %q line %d, want 101 and 10", d.Batches[1].Label, d.Batches[1].Line)
	}
	err = d.Validate(5)
	if !errors.Is(err, ErrTooShort) {
		t.Fatalf("err %v, want ErrTooShort", err)
	}
	for _, want := range []string{`2 of 5 batches`, `batch "101" (from line 10), 3 samples`, `batch "103" (from line 21), 2 samples`, "model memory 5"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}
	for _, c := range []struct {
		b    Batch
		want string
	}{
		{Batch{Label: "7", Line: 3}, `batch "7" (from line 3)`},
		{Batch{Line: 2}, "the batch from line 2"},
		{Batch{}, "batch 4"},
	} {
		if got := c.b.Name(4); got != c.want {
			t.Errorf("Name of %+v: %q, want %q", c.b, got, c.want)
		}
	}
}
