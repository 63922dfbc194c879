package baselines

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/model"
)

func randomGRU(seed uint64, h int, spread float64) *GRU {
	m := &GRU{Units: h, UScale: 1, YScale: 1}
	m.Theta = make([]float64, m.NumParams())
	rng := rand.New(rand.NewPCG(seed, 3))
	for i := range m.Theta {
		m.Theta[i] = spread * rng.NormFloat64()
	}
	return m
}

func TestGRUNumParams(t *testing.T) {
	for _, c := range []struct{ h, want int }{{32, 3329}, {1, 12}, {4, 48 + 32 + 1}} {
		m := &GRU{Units: c.h}
		if got := m.NumParams(); got != c.want {
			t.Errorf("H %d: NumParams %d, want %d", c.h, got, c.want)
		}
		if got := m.offsets().d + 1; got != c.want {
			t.Errorf("H %d: offsets end at %d, want %d", c.h, got, c.want)
		}
	}
}

// TestGRUGradientFiniteDifferences checks BPTT against central differences
// of the summed squared error, every parameter, whole records and a window
// with a burn-in that is simulated but not scored.
func TestGRUGradientFiniteDifferences(t *testing.T) {
	for _, seed := range []uint64{1, 2} {
		m := randomGRU(seed, 3, 0.8)
		rng := rand.New(rand.NewPCG(seed, 99))
		s := &renSet{}
		for range 2 {
			T := 12 + rng.IntN(8)
			u, y := make([]float64, T), make([]float64, T)
			for i := range u {
				u[i], y[i] = rng.NormFloat64(), rng.NormFloat64()
			}
			s.u, s.y = append(s.u, u), append(s.y, y)
		}
		items := []gruItem{{rec: 0, to: len(s.u[0])}, {rec: 1, from: 2, score: 7, to: len(s.u[1])}}
		grads := [][]float64{make([]float64, m.NumParams()), make([]float64, m.NumParams())}
		m.lossGrad(s, items, grads, 2)
		total := func() float64 {
			sse, _ := m.lossGrad(s, items, nil, 1)
			return sse[0] + sse[1]
		}
		const h = 1e-6
		worst := 0.0
		for k := range m.Theta {
			th := m.Theta[k]
			m.Theta[k] = th + h
			lp := total()
			m.Theta[k] = th - h
			lm := total()
			m.Theta[k] = th
			fd := (lp - lm) / (2 * h)
			g := grads[0][k] + grads[1][k]
			rel := math.Abs(fd-g) / math.Max(1e-3, math.Abs(fd)+math.Abs(g)) // a floor: h = 1e-6 leaves ~1e-9 of rounding
			worst = math.Max(worst, rel)
			if rel > 1e-5 {
				t.Errorf("seed %d parameter %d: BPTT %.10g, finite differences %.10g", seed, k, g, fd)
			}
		}
		t.Logf("seed %d: worst relative gradient error %.2g over %d parameters", seed, worst, m.NumParams())
	}
}

// wiener returns records of a Wiener system, a first-order low-pass filter
// followed by a saturation: y = tanh(2x), x(t) = 0.8x(t−1) + 0.4u(t).
func wiener(seed uint64, records, samples int) *data.Dataset {
	rng := rand.New(rand.NewPCG(seed, seed))
	d := &data.Dataset{Name: "wiener"}
	for range records {
		u, y := make([]float64, samples), make([]float64, samples)
		x, level := 0.0, 0.0
		for t := range u {
			if t%5 == 0 {
				level = rng.NormFloat64()
			}
			u[t] = level
			x = 0.8*x + 0.4*u[t]
			y[t] = math.Tanh(2 * x)
		}
		d.Batches = append(d.Batches, data.Batch{U: u, Y: y})
	}
	return d
}

// TestGRULearnsNonlinearSystem trains a small GRU on a saturating Wiener
// system and must simulate fresh records closely.
func TestGRULearnsNonlinearSystem(t *testing.T) {
	train, val, test := wiener(1, 16, 100), wiener(2, 4, 100), wiener(3, 4, 100)
	cfg := GRUConfig{Units: 8, Epochs: 150, Batch: 4, LR: 1e-2, Patience: 30, Seed: 1}
	m, err := TrainGRU(context.Background(), train, val, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var fits []float64
	for _, b := range test.Batches {
		f, err := model.Fit(b.Y, m.Simulate(b.U), 0)
		if err != nil {
			t.Fatal(err)
		}
		fits = append(fits, f)
	}
	med := model.Summarize(fits).Median
	t.Logf("GRU (%d parameters): median test fit %.2f%% (best epoch %d of %d)", m.NumParams(), med, m.BestEpoch, len(m.ValFit))
	if med < 85 {
		t.Errorf("median test fit %.2f%%, want ≥ 85%%", med)
	}
	if m.ValFit[m.BestEpoch-1] <= m.ValFit[0] {
		t.Errorf("validation fit did not improve: first %.2f, best %.2f", m.ValFit[0], m.ValFit[m.BestEpoch-1])
	}
}

// TestGRUDeterministic: same seed and data, same parameters whatever the
// number of workers, also with long records cut into windows.
func TestGRUDeterministic(t *testing.T) {
	train, val := wiener(4, 3, 120), wiener(5, 2, 60)
	cfg := GRUConfig{Units: 4, Epochs: 3, Batch: 2, Window: 25, BurnIn: 10, Seed: 7}
	var thetas [][]float64
	for _, w := range []int{1, 3} {
		cfg.Workers = w
		m, err := TrainGRU(context.Background(), train, val, cfg)
		if err != nil {
			t.Fatal(err)
		}
		thetas = append(thetas, m.Theta)
	}
	if !slices.Equal(thetas[0], thetas[1]) {
		t.Error("1 and 3 workers gave different parameters")
	}
	if n := len(gruItems((&PassiveREN{UScale: 1, YScale: 1}).prepare(train), 25, 10)); n != 3*5 {
		t.Errorf("%d windows of 3 records of 120 samples, want 15", n)
	}
}

// TestGRUBudget: MaxSamples ends training after the epoch that reaches it,
// and a cancelled context returns the best model so far.
func TestGRUBudget(t *testing.T) {
	train, val := wiener(6, 4, 50), wiener(7, 2, 50)
	m, err := TrainGRU(context.Background(), train, val, GRUConfig{Units: 3, Epochs: 100, MaxSamples: 450, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.ValFit) != 3 { // 200 samples an epoch: 200, 400, 600 ≥ 450
		t.Errorf("%d epochs, want 3 under a budget of 450 samples", len(m.ValFit))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := TrainGRU(ctx, train, val, GRUConfig{Units: 3, Seed: 1}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: error %v, want context.Canceled", err)
	}
}

func TestGRUErrors(t *testing.T) {
	good := wiener(1, 2, 20)
	zero := &data.Dataset{Batches: []data.Batch{{U: make([]float64, 10), Y: make([]float64, 10)}}}
	for _, c := range []struct {
		name string
		d    *data.Dataset
		cfg  GRUConfig
		want error
	}{
		{"negative units", good, GRUConfig{Units: -1}, ErrConfig},
		{"NaN learning rate", good, GRUConfig{LR: math.NaN()}, ErrConfig},
		{"negative burn-in", good, GRUConfig{BurnIn: -1}, ErrConfig},
		{"val-skip too long", good, GRUConfig{ValSkip: 20}, ErrData},
		{"nil data", nil, GRUConfig{}, ErrData},
		{"no excitation", zero, GRUConfig{}, ErrData},
	} {
		if _, err := TrainGRU(context.Background(), c.d, good, c.cfg); !errors.Is(err, c.want) {
			t.Errorf("%s: error %v, want %v", c.name, err, c.want)
		}
	}
}

// BenchmarkGRUEpoch is one pass of forward and backward over 32
// mass-spring-damper records of 250 samples with the default 32 units.
func BenchmarkGRUEpoch(b *testing.B) {
	d, err := data.GenerateMSD(data.MSDConfig{Batches: 32, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	m := &GRU{Units: 32, UScale: 1, YScale: 1}
	m.Theta = make([]float64, m.NumParams())
	m.init(rand.New(rand.NewPCG(1, 1)))
	s := m2set(d)
	items := gruItems(s, 500, 100)
	grads := make([][]float64, len(items))
	for k := range grads {
		grads[k] = make([]float64, m.NumParams())
	}
	b.ResetTimer()
	for range b.N {
		m.lossGrad(s, items, grads, 0)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*d.Samples()), "ns/sample")
}

func m2set(d *data.Dataset) *renSet { return (&PassiveREN{UScale: 1, YScale: 1}).prepare(d) }
