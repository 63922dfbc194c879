package baselines

import (
	"errors"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/passivenfir/gputrain/data"
)

// randomSystem returns a random stable SISO system of even order with complex pole pairs
// of radius in [0.5, 0.95], in a randomly rotated basis, and its poles.
func randomSystem(seed uint64, order int) (*StateSpace, []complex128) {
	rng := rand.New(rand.NewPCG(seed, seed))
	a := mat.NewDense(order, order, nil)
	var poles []complex128
	for k := 0; k < order; k += 2 {
		r := 0.5 + 0.45*rng.Float64()
		th := 0.1 + 2.5*rng.Float64()
		re, im := r*math.Cos(th), r*math.Sin(th)
		a.Set(k, k, re)
		a.Set(k, k+1, im)
		a.Set(k+1, k, -im)
		a.Set(k+1, k+1, re)
		poles = append(poles, complex(re, im), complex(re, -im))
	}
	// Similarity transform by a random well-conditioned T: A ← T A T⁻¹.
	t := mat.NewDense(order, order, nil)
	for i := 0; i < order; i++ {
		for j := 0; j < order; j++ {
			v := 0.3 * rng.NormFloat64()
			if i == j {
				v += 1
			}
			t.Set(i, j, v)
		}
	}
	var ti, ta, at mat.Dense
	if err := ti.Inverse(t); err != nil {
		panic(err)
	}
	ta.Mul(t, a)
	at.Mul(&ta, &ti)
	b := mat.NewVecDense(order, nil)
	c := mat.NewVecDense(order, nil)
	for i := 0; i < order; i++ {
		b.SetVec(i, rng.NormFloat64())
		c.SetVec(i, rng.NormFloat64())
	}
	return &StateSpace{A: &at, B: b, C: c, D: 0.5 * rng.NormFloat64()}, poles
}

// simulateData returns a dataset of the system's response to white Gaussian inputs; with
// snr > 0 (dB) white noise is added to Y and YClean keeps the clean output.
func simulateData(sys interface{ Simulate([]float64) []float64 }, seed uint64, batches, samples int, snr float64) *data.Dataset {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e37))
	d := &data.Dataset{Name: "synthetic", Ts: 1}
	for range batches {
		u := make([]float64, samples)
		for t := range u {
			u[t] = rng.NormFloat64()
		}
		y := sys.Simulate(u)
		b := data.Batch{U: u, Y: y}
		if snr > 0 {
			p := 0.0
			for _, v := range y {
				p += v * v
			}
			sd := math.Sqrt(p / float64(len(y)) / math.Pow(10, snr/10))
			yn := make([]float64, len(y))
			for t, v := range y {
				yn[t] = v + sd*rng.NormFloat64()
			}
			b = data.Batch{U: u, Y: yn, YClean: y}
		}
		d.Batches = append(d.Batches, b)
	}
	return d
}

// fitPercent is the paper's Fit 100(1 − ‖y − ŷ‖/‖y‖) (model.Fit, kept local so this
// package's tests do not depend on model/).
func fitPercent(y, yhat []float64, skip int) float64 {
	var e, s float64
	for t := skip; t < len(y); t++ {
		e += (y[t] - yhat[t]) * (y[t] - yhat[t])
		s += y[t] * y[t]
	}
	return 100 * (1 - math.Sqrt(e/s))
}

// datasetFits scores sim on every batch of d against YClean when present, else Y.
func datasetFits(sim func([]float64) []float64, d *data.Dataset, skip int) []float64 {
	fits := make([]float64, len(d.Batches))
	for k, b := range d.Batches {
		ref := b.Y
		if b.YClean != nil {
			ref = b.YClean
		}
		fits[k] = fitPercent(ref, sim(b.U), skip)
	}
	return fits
}

func minOf(x []float64) float64 {
	m := math.Inf(1)
	for _, v := range x {
		m = math.Min(m, v)
	}
	return m
}

func median(x []float64) float64 {
	s := append([]float64(nil), x...)
	for i := range s { // insertion sort: tiny slices
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// maxPoleError matches every true pole to its nearest estimated pole.
func maxPoleError(truth, est []complex128) float64 {
	worst := 0.0
	for _, p := range truth {
		best := math.Inf(1)
		for _, q := range est {
			best = math.Min(best, cmplx.Abs(p-q))
		}
		worst = math.Max(worst, best)
	}
	return worst
}

func TestSubspaceRecoversRandomSystem(t *testing.T) {
	for _, tc := range []struct {
		name      string
		weighting Weighting
		seed      uint64
		snr       float64 // 0: noise-free
		minFit    float64 // on fresh test batches against the clean output
		poleTol   float64
	}{
		{"N4SID/noise-free", WeightN4SID, 1, 0, 99.9, 1e-6},
		{"MOESP/noise-free", WeightMOESP, 1, 0, 99.9, 1e-6},
		{"N4SID/noise-free/seed2", WeightN4SID, 2, 0, 99.9, 1e-6},
		{"MOESP/noise-free/seed3", WeightMOESP, 3, 0, 99.9, 1e-6},
		{"N4SID/20dB", WeightN4SID, 1, 20, 97, 0.05},
		{"MOESP/20dB", WeightMOESP, 1, 20, 97, 0.05},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sys, poles := randomSystem(tc.seed, 4)
			train := simulateData(sys, tc.seed+100, 20, 200, tc.snr)
			test := simulateData(sys, tc.seed+200, 5, 200, 0)
			est, err := Subspace(train, SubspaceConfig{Order: 4, Horizon: 10, Weighting: tc.weighting})
			if err != nil {
				t.Fatal(err)
			}
			if est.Order() != 4 {
				t.Fatalf("order %d, want 4", est.Order())
			}
			fits := datasetFits(est.Simulate, test, 0)
			if m := minOf(fits); m < tc.minFit {
				t.Errorf("min test fit %.4f%%, want ≥ %v%% (fits %v)", m, tc.minFit, fits)
			}
			if e := maxPoleError(poles, est.Poles()); e > tc.poleTol {
				t.Errorf("pole error %.3g > %g: true %v, estimated %v", e, tc.poleTol, poles, est.Poles())
			}
			if est.Stabilized {
				t.Errorf("a stable system should not need the stabilised shift")
			}
			t.Logf("min fit %.5f%%, pole error %.2g, singular values %.3g", minOf(fits), maxPoleError(poles, est.Poles()), est.SingularValues[:6])
		})
	}
}

// With order larger than the true one, noise-free, the extra singular values are ~0:
// the gap says the order.
func TestSubspaceSingularValueGap(t *testing.T) {
	sys, _ := randomSystem(4, 4)
	train := simulateData(sys, 7, 10, 200, 0)
	est, err := N4SID(train, 4, 8)
	if err != nil {
		t.Fatal(err)
	}
	sv := est.SingularValues
	if sv[4] > 1e-8*sv[0] || sv[3] < 1e-4*sv[0] {
		t.Errorf("no clear gap after order 4: %v", sv)
	}
}

// The frequency response of the estimate matches the true one (noise-free).
func TestSubspaceResponse(t *testing.T) {
	sys, _ := randomSystem(5, 4)
	est, err := MOESP(simulateData(sys, 8, 10, 200, 0), 4, 8)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []float64{0, 0.3, 1, 2, math.Pi} {
		g, h := sys.Response(w), est.Response(w)
		if cmplx.Abs(g-h) > 1e-6*(1+cmplx.Abs(g)) {
			t.Errorf("ω=%v: response %v, want %v", w, h, g)
		}
	}
}

// Data of a system that is barely stable, fitted with too low an order, can give an
// unstable shift estimate; the result must be stable either way.
func TestSubspaceAlwaysStable(t *testing.T) {
	stabilized := 0
	for seed := uint64(1); seed <= 5; seed++ {
		sys, _ := randomSystem(seed, 6)
		est, err := N4SID(simulateData(sys, seed, 5, 100, 3), 5, 6)
		if err != nil {
			t.Fatal(err)
		}
		if r := est.SpectralRadius(); r > 1+1e-9 {
			t.Errorf("seed %d: spectral radius %v (stabilized=%v)", seed, r, est.Stabilized)
		}
		if est.Stabilized {
			stabilized++
		}
	}
	if stabilized == 0 { // the fallback must be exercised (4 of 5 seeds need it when written)
		t.Error("no case needed the stabilised shift; the test no longer covers it")
	}
}

func TestSubspaceDeterministic(t *testing.T) {
	sys, _ := randomSystem(6, 4)
	d := simulateData(sys, 9, 8, 150, 10)
	a, err := N4SID(d, 4, 10)
	if err != nil {
		t.Fatal(err)
	}
	b, err := N4SID(d, 4, 10)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(a.A, b.A) || !mat.Equal(a.B, b.B) || !mat.Equal(a.C, b.C) || a.D != b.D {
		t.Error("two runs on the same data differ")
	}
}

func TestSubspaceErrors(t *testing.T) {
	sys, _ := randomSystem(1, 4)
	good := simulateData(sys, 1, 4, 100, 0)
	short := simulateData(sys, 1, 1, 12, 0)
	zero := &data.Dataset{Batches: []data.Batch{{U: make([]float64, 100), Y: make([]float64, 100)}}}
	nan := simulateData(sys, 1, 2, 100, 0)
	nan.Batches[1].Y[5] = math.NaN()
	ragged := simulateData(sys, 1, 2, 100, 0)
	ragged.Batches[0].Y = ragged.Batches[0].Y[:50]
	for _, tc := range []struct {
		name string
		d    *data.Dataset
		cfg  SubspaceConfig
		want []error
	}{
		{"nil dataset", nil, SubspaceConfig{Order: 2, Horizon: 5}, []error{ErrData}},
		{"empty dataset", &data.Dataset{}, SubspaceConfig{Order: 2, Horizon: 5}, []error{ErrData, data.ErrEmpty}},
		{"order 0", good, SubspaceConfig{Order: 0, Horizon: 5}, []error{ErrConfig}},
		{"order = horizon", good, SubspaceConfig{Order: 5, Horizon: 5}, []error{ErrConfig}},
		{"horizon 1", good, SubspaceConfig{Order: 1, Horizon: 1}, []error{ErrConfig}},
		{"bad weighting", good, SubspaceConfig{Order: 2, Horizon: 5, Weighting: 7}, []error{ErrConfig}},
		{"bad tol", good, SubspaceConfig{Order: 2, Horizon: 5, RankTol: -1}, []error{ErrConfig}},
		{"batch shorter than horizon", good, SubspaceConfig{Order: 2, Horizon: 101}, []error{ErrData, data.ErrTooShort}},
		{"too few columns", short, SubspaceConfig{Order: 2, Horizon: 10}, []error{ErrData}},
		{"no excitation", zero, SubspaceConfig{Order: 2, Horizon: 5}, []error{ErrData}},
		{"NaN", nan, SubspaceConfig{Order: 2, Horizon: 5}, []error{ErrData, data.ErrNotFinite}},
		{"length mismatch", ragged, SubspaceConfig{Order: 2, Horizon: 5}, []error{ErrData, data.ErrLengthMismatch}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Subspace(tc.d, tc.cfg)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !errors.Is(err, w) {
					t.Errorf("error %q does not wrap %q", err, w)
				}
			}
		})
	}
}

func BenchmarkN4SID(b *testing.B) {
	sys, _ := randomSystem(1, 6)
	d := simulateData(sys, 1, 30, 250, 10)
	b.ResetTimer()
	for b.Loop() {
		if _, err := N4SID(d, 6, 20); err != nil {
			b.Fatal(err)
		}
	}
}
