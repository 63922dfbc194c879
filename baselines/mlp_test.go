package baselines

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/passivenfir/gputrain/data"
)

func TestMLPNumParams(t *testing.T) {
	for _, tc := range []struct {
		cfg  MLPConfig
		want int
	}{
		{DefaultMLPConfig(), 631}, // the paper's MLP(np)
		{MLPConfig{}, 631},        // zero fields take the defaults
		{MLPConfig{Memory: 3, Hidden1: 2, Hidden2: 4}, 3*2 + 2 + 2*4 + 4 + 4 + 1},
	} {
		d := simulateData(data.FIR{1, 0.5}, 1, 2, 20, 0)
		m, err := TrainMLP(d, nil, MLPConfig{Memory: tc.cfg.Memory, Hidden1: tc.cfg.Hidden1, Hidden2: tc.cfg.Hidden2, Epochs: 1})
		if err != nil {
			t.Fatal(err)
		}
		if m.NumParams() != tc.want || len(m.Theta) != tc.want {
			t.Errorf("%+v: NumParams %d, len(Theta) %d, want %d", tc.cfg, m.NumParams(), len(m.Theta), tc.want)
		}
	}
}

// The hand-written backpropagation agrees with central finite differences of the loss
// in every one of the 631 parameters.
func TestMLPGradientFiniteDifferences(t *testing.T) {
	d := simulateData(data.FIR{1, -0.5, 0.25}, 3, 3, 40, 0)
	m := &FIRMLP{Memory: 50, Hidden1: 10, Hidden2: 10, UScale: 1, YScale: 1}
	m.Theta = make([]float64, m.NumParams())
	rng := rand.New(rand.NewPCG(5, 5))
	m.initGlorot(rng)
	for k := range m.Theta { // non-zero biases too, so every path is exercised
		m.Theta[k] += 0.1 * rng.NormFloat64()
	}
	s := m.prepare(d)
	w := m.newWork()
	grad := make([]float64, len(m.Theta))
	m.lossGrad(s, s.samples, w, grad)
	const h = 1e-6
	worst, gmax := 0.0, 0.0
	for k := range m.Theta {
		th := m.Theta[k]
		m.Theta[k] = th + h
		lp := m.lossGrad(s, s.samples, w, nil)
		m.Theta[k] = th - h
		lm := m.lossGrad(s, s.samples, w, nil)
		m.Theta[k] = th
		fd := (lp - lm) / (2 * h)
		// Central differences carry a truncation error O(h²) and a rounding error
		// ≈ ε·L/h ≈ 1e-10 here: hence the absolute floor.
		err := math.Abs(fd - grad[k])
		worst, gmax = math.Max(worst, err), math.Max(gmax, math.Abs(grad[k]))
		if err > 1e-6*math.Abs(grad[k])+1e-8 {
			t.Errorf("θ[%d]: backprop %.10g, finite difference %.10g", k, grad[k], fd)
		}
	}
	t.Logf("max |backprop − fd| %.2g, max |grad| %.2g, over %d parameters", worst, gmax, len(m.Theta))
}

// nonlinearFIR is y(t) = tanh(Σ_k g(k) u(t−k)) + 0.1 u(t)², a static nonlinearity after a
// short FIR: exactly the class an MLP of the input window can represent.
type nonlinearFIR data.FIR

func (g nonlinearFIR) Simulate(u []float64) []float64 {
	y := data.FIR(g).Simulate(u)
	for t := range y {
		y[t] = math.Tanh(y[t]) + 0.1*u[t]*u[t]
	}
	return y
}

func TestMLPLearnsNonlinearFIR(t *testing.T) {
	sys := nonlinearFIR{0.8, 0.5, -0.3, 0.2, 0.1}
	train := simulateData(sys, 1, 20, 200, 0)
	val := simulateData(sys, 2, 5, 200, 0)
	test := simulateData(sys, 3, 5, 200, 0)
	m, err := TrainMLP(train, val, MLPConfig{Memory: 8, Epochs: 60, Patience: 10, Batch: 32, LR: 3e-3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	fits := datasetFits(m.Simulate, test, 0)
	// Measured when written: min 98.8%, best epoch 60 of 60.
	if minOf(fits) < 95 {
		t.Errorf("min test fit %.2f%% < 95%% (fits %v)", minOf(fits), fits)
	}
	t.Logf("min test fit %.2f%%, best epoch %d of %d", minOf(fits), m.BestEpoch, len(m.ValLoss))
}

func TestMLPEarlyStoppingKeepsBest(t *testing.T) {
	sys := nonlinearFIR{0.8, 0.5}
	train := simulateData(sys, 1, 2, 50, 10) // tiny and noisy: it overfits early
	val := simulateData(sys, 2, 2, 50, 10)
	m, err := TrainMLP(train, val, MLPConfig{Memory: 20, Hidden1: 20, Hidden2: 20, Epochs: 2000, Patience: 5, LR: 1e-2, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.ValLoss) >= 2000 {
		t.Fatalf("early stopping never triggered")
	}
	if len(m.ValLoss) != m.BestEpoch+5 {
		t.Errorf("stopped after %d epochs, best %d, patience 5", len(m.ValLoss), m.BestEpoch)
	}
	if m.ValLoss[m.BestEpoch-1] != slices.Min(m.ValLoss) {
		t.Errorf("kept epoch %d is not the validation minimum", m.BestEpoch)
	}
	// The kept parameters are those of the best epoch: their validation loss is the minimum.
	vs := m.prepare(val)
	if got := m.lossGrad(vs, vs.samples, m.newWork(), nil); got != m.ValLoss[m.BestEpoch-1] {
		t.Errorf("returned parameters have validation loss %v, want %v", got, m.ValLoss[m.BestEpoch-1])
	}
}

func TestMLPDeterministic(t *testing.T) {
	sys := nonlinearFIR{0.8, 0.5}
	train := simulateData(sys, 1, 3, 80, 20)
	val := simulateData(sys, 2, 2, 80, 20)
	cfg := MLPConfig{Memory: 10, Epochs: 5, Seed: 7}
	a, err := TrainMLP(train, val, cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := TrainMLP(train, val, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.Theta, b.Theta) {
		t.Error("same seed, different parameters")
	}
	cfg.Seed = 8
	c, err := TrainMLP(train, val, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(a.Theta, c.Theta) {
		t.Error("different seeds, same parameters")
	}
}

func TestMLPErrors(t *testing.T) {
	good := simulateData(data.FIR{1}, 1, 2, 20, 0)
	nan := simulateData(data.FIR{1}, 1, 2, 20, 0)
	nan.Batches[0].U[3] = math.Inf(1)
	zero := &data.Dataset{Batches: []data.Batch{{U: make([]float64, 10), Y: make([]float64, 10)}}}
	for _, tc := range []struct {
		name       string
		train, val *data.Dataset
		cfg        MLPConfig
		want       []error
	}{
		{"nil train", nil, nil, MLPConfig{}, []error{ErrData}},
		{"empty train", &data.Dataset{}, nil, MLPConfig{}, []error{ErrData, data.ErrEmpty}},
		{"bad val", good, nan, MLPConfig{}, []error{ErrData, data.ErrNotFinite}},
		{"no excitation", zero, nil, MLPConfig{}, []error{ErrData}},
		{"negative memory", good, nil, MLPConfig{Memory: -1}, []error{ErrConfig}},
		{"negative hidden", good, nil, MLPConfig{Hidden2: -3}, []error{ErrConfig}},
		{"negative batch", good, nil, MLPConfig{Batch: -1}, []error{ErrConfig}},
		{"NaN rate", good, nil, MLPConfig{LR: math.NaN()}, []error{ErrConfig}},
		{"negative rate", good, nil, MLPConfig{LR: -1}, []error{ErrConfig}},
		{"diverging rate", good, good, MLPConfig{LR: 1e300, Epochs: 3}, []error{ErrNumerical}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := TrainMLP(tc.train, tc.val, tc.cfg)
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

func BenchmarkMLPEpoch(b *testing.B) {
	sys := nonlinearFIR{0.8, 0.5, -0.3}
	train := simulateData(sys, 1, 30, 250, 0)
	b.ResetTimer()
	for b.Loop() {
		if _, err := TrainMLP(train, nil, MLPConfig{Epochs: 1}); err != nil {
			b.Fatal(err)
		}
	}
}
