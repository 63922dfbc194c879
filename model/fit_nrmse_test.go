package model

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// TestNRMSEFit checks NRMSEFit against the formula written out in float64
// on seeded random data with an offset (where it differs from Fit), and
// the values computed by hand for a short record.
func TestNRMSEFit(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 27))
	const n, skip = 500, 20
	y, yhat := make([]float64, n), make([]float64, n)
	for i := range y {
		y[i] = 3 + rng.NormFloat64()
		yhat[i] = y[i] + 0.3*rng.NormFloat64()
	}
	var mean float64
	for _, v := range y[skip:] {
		mean += v
	}
	mean /= n - skip
	var e, c float64
	for i := skip; i < n; i++ {
		e += (y[i] - yhat[i]) * (y[i] - yhat[i])
		c += (y[i] - mean) * (y[i] - mean)
	}
	want := 100 * (1 - math.Sqrt(e/c))
	got, err := NRMSEFit(y, yhat, skip)
	if err != nil || math.Abs(got-want) > 1e-9 {
		t.Fatalf("NRMSEFit = %g, %v; want %g", got, err, want)
	}
	paper, _ := Fit(y, yhat, skip)
	if !(got < paper-1) {
		t.Errorf("with mean(y) = 3, NRMSE fit %g should be well below Fit %g", got, paper)
	}

	for _, tc := range []struct {
		name       string
		y, yhat    []float64
		skip       int
		want       float64
		wantErr    error
		wantNegInf bool
	}{
		// mean 2, ‖y − mean‖ = √2, ‖y − ŷ‖ = 1: 100(1 − 1/√2)
		{name: "hand", y: []float64{1, 2, 3}, yhat: []float64{1, 2, 2}, want: 100 * (1 - 1/math.Sqrt2)},
		// the mean predicted everywhere scores 0
		{name: "mean", y: []float64{1, 2, 3}, yhat: []float64{2, 2, 2}, want: 0},
		// the skipped sample counts neither in the mean nor in the norms
		{name: "skip", y: []float64{100, 1, 3}, yhat: []float64{0, 1, 3}, skip: 1, want: 100},
		{name: "constant", y: []float64{2, 2, 2}, yhat: []float64{2, 2, 2}, wantErr: ErrZeroOutput},
		{name: "zero", y: []float64{0, 0}, yhat: []float64{0, 0}, wantErr: ErrZeroOutput},
		{name: "shape", y: []float64{1, 2}, yhat: []float64{1}, wantErr: ErrShape},
		{name: "nan", y: []float64{1, 2, 3}, yhat: []float64{1, math.NaN(), 3}, wantNegInf: true},
	} {
		got, err := NRMSEFit(tc.y, tc.yhat, tc.skip)
		switch {
		case tc.wantErr != nil:
			if !errors.Is(err, tc.wantErr) {
				t.Errorf("%s: err %v; want %v", tc.name, err, tc.wantErr)
			}
		case tc.wantNegInf:
			if err != nil || !math.IsInf(got, -1) {
				t.Errorf("%s: %g, %v; want −Inf", tc.name, got, err)
			}
		case err != nil || math.Abs(got-tc.want) > 1e-12:
			t.Errorf("%s: %g, %v; want %g", tc.name, got, err, tc.want)
		}
	}
}
