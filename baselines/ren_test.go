package baselines

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/passivenfir/gputrain/data"
)

// randomREN returns a REN with random direct parameters of the given spread
// (larger than the initialization's, to leave the near-identity regime).
func randomREN(seed uint64, nx, nv int, nu, spread float64, biased, gated bool) *PassiveREN {
	m := &PassiveREN{States: nx, Neurons: nv, Nu: nu, Eps: 1e-6, Biased: biased, Gated: gated, UScale: 1, YScale: 1}
	m.Theta = make([]float64, m.NumParams())
	rng := rand.New(rand.NewPCG(seed, 7))
	for i := range m.Theta {
		m.Theta[i] = spread * rng.NormFloat64()
	}
	return m
}

func TestRENNumParams(t *testing.T) {
	for _, c := range []struct{ nx, nv, want int }{
		{5, 15, 691}, // 25² + 25 + 1 + 10 + 30
		{1, 1, 9 + 1 + 1 + 2 + 2},
		{2, 3, 49 + 4 + 1 + 4 + 6},
	} {
		m := &PassiveREN{States: c.nx, Neurons: c.nv}
		if got := m.NumParams(); got != c.want {
			t.Errorf("n_x %d n_v %d: NumParams %d, want %d", c.nx, c.nv, got, c.want)
		}
		if got := m.offsets().end; got != c.want {
			t.Errorf("n_x %d n_v %d: offsets end at %d, want %d", c.nx, c.nv, got, c.want)
		}
		biased := &PassiveREN{States: c.nx, Neurons: c.nv, Biased: true}
		if got, want := biased.NumParams(), c.want+c.nx+c.nv; got != want {
			t.Errorf("n_x %d n_v %d biased: NumParams %d, want %d", c.nx, c.nv, got, want)
		}
		gated := &PassiveREN{States: c.nx, Neurons: c.nv, Gated: true}
		if got, want := gated.NumParams(), c.want+c.nv*(c.nx+2); got != want {
			t.Errorf("n_x %d n_v %d gated: NumParams %d, want %d", c.nx, c.nv, got, want)
		}
	}
}

// TestRENGradientFiniteDifferences checks the BPTT and construction gradient
// against central differences of the loss, every parameter, random models.
func TestRENGradientFiniteDifferences(t *testing.T) {
	for _, c := range []struct {
		seed          uint64
		nx, nv        int
		nu            float64
		biased, gated bool
	}{{1, 2, 3, 0, false, false}, {2, 3, 4, 0.1, false, false}, {3, 1, 5, 0, false, false}, {4, 2, 3, 0, true, false}, {5, 3, 4, 0.1, true, false},
		{6, 2, 3, 0, false, true}, {7, 3, 4, 0.1, false, true}} {
		m := randomREN(c.seed, c.nx, c.nv, c.nu, 0.7, c.biased, c.gated)
		rng := rand.New(rand.NewPCG(c.seed, 99))
		skip := int(c.seed) * 3 % 7 // 3, 6, 2: the first samples simulated, not scored
		s := &renSet{}
		for range 3 {
			T := 15 + rng.IntN(10)
			u, y := make([]float64, T), make([]float64, T)
			for i := range u {
				u[i], y[i] = rng.NormFloat64(), rng.NormFloat64()
			}
			s.u, s.y = append(s.u, u), append(s.y, y)
		}
		// two whole records and a window of the third, simulated from
		// rest at sample 4 and scored from 4+skip, as TrainREN's windows
		items := []gruItem{{0, 0, skip, len(s.u[0])}, {1, 0, skip, len(s.u[1])}, {2, 4, 4 + skip, len(s.u[2]) - 1}}
		grad := make([]float64, m.NumParams())
		if _, err := m.lossGrad(s, items, grad, 2); err != nil {
			t.Fatal(err)
		}
		const h = 1e-6
		worst := 0.0
		for k := range m.Theta {
			th := m.Theta[k]
			m.Theta[k] = th + h
			lp, err1 := m.lossGrad(s, items, nil, 1)
			m.Theta[k] = th - h
			lm, err2 := m.lossGrad(s, items, nil, 1)
			m.Theta[k] = th
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			fd := (lp - lm) / (2 * h)
			rel := math.Abs(fd-grad[k]) / math.Max(1e-6, math.Abs(fd)+math.Abs(grad[k]))
			worst = math.Max(worst, rel)
			if rel > 1e-5 {
				t.Errorf("seed %d: ∂L/∂θ[%d] = %.9g, finite differences %.9g (rel %.2g)", c.seed, k, grad[k], fd, rel)
			}
		}
		t.Logf("seed %d (n_x %d, n_v %d): worst relative gradient error %.2g over %d parameters", c.seed, c.nx, c.nv, worst, len(grad))
	}
}

// TestRENPassive checks ⟨u, y⟩ ≥ ν‖u‖² (from rest, over every horizon) for
// random REN parameters and random inputs, and, except for gated RENs, the
// same dissipation inequality in its incremental form; the negated model is
// the negative control that must fail.
func TestRENPassive(t *testing.T) {
	for seed := uint64(1); seed <= 30; seed++ {
		nu := 0.0
		if seed%2 == 0 {
			nu = 0.05
		}
		m := randomREN(seed, 1+int(seed%4), 2+int(seed%7), nu, 1.5, seed%3 == 0, seed%3 == 1)
		rng := rand.New(rand.NewPCG(seed, 3))
		worst := math.Inf(1)
		negFails := false
		for trial := range 20 {
			T := 50 + rng.IntN(200)
			u := make([]float64, T)
			amp := math.Pow(10, float64(trial%5)-2) // from 0.01 to 100: saturating and linear regimes
			for i := range u {
				u[i] = amp * rng.NormFloat64()
				if trial%3 == 0 { // slow, correlated inputs
					u[i] = amp * math.Sin(0.05*float64(i)*float64(1+trial%7))
				}
			}
			y := m.Simulate(u)
			uy, uu := 0.0, 0.0
			for i := range u {
				uy += u[i] * y[i]
				uu += u[i] * u[i]
				if uy-nu*uu < -1e-9*uu {
					t.Errorf("seed %d trial %d: over the first %d samples ⟨u,y⟩ − ν‖u‖² = %.3g < 0", seed, trial, i+1, uy-nu*uu)
				}
			}
			margin := (uy - nu*uu) / uu
			worst = math.Min(worst, margin)
			if margin < -1e-9 {
				t.Errorf("seed %d trial %d: ⟨u,y⟩ − ν‖u‖² = %.3g‖u‖² < 0", seed, trial, margin)
			}
			if -uy-nu*uu < -1e-9 {
				negFails = true
			}
			if m.Gated {
				continue // passive, not incrementally
			}
			// incremental: a second input from the same (rest) state
			u2 := make([]float64, T)
			for i := range u2 {
				u2[i] = u[i] + amp*0.3*rng.NormFloat64()
			}
			y2 := m.Simulate(u2)
			dd, du := 0.0, 0.0
			for i := range u {
				dd += (u2[i] - u[i]) * (y2[i] - y[i])
				du += (u2[i] - u[i]) * (u2[i] - u[i])
			}
			if dd-nu*du < -1e-9*du {
				t.Errorf("seed %d trial %d: ⟨Δu,Δy⟩ − ν‖Δu‖² = %.3g < 0", seed, trial, dd-nu*du)
			}
		}
		if !negFails {
			t.Errorf("seed %d: the negated model passed the passivity test: the test cannot fail", seed)
		}
		t.Logf("seed %d (n_x %d, n_v %d, ν %g): smallest (⟨u,y⟩ − ν‖u‖²)/‖u‖² over 20 inputs: %.3g", seed, m.States, m.Neurons, nu, worst)
	}
}

// TestRENExplicitMatchesImplicit checks the explicit model against the
// implicit equations it comes from, E x⁺ = F x + B1 w + B2 u and
// Λ v = C1 x + D11 w + D12 u, with the blocks read off H directly.
func TestRENExplicitMatchesImplicit(t *testing.T) {
	m := randomREN(5, 3, 4, 0.2, 0.8, false, false)
	e, err := m.explicit()
	if err != nil {
		t.Fatal(err)
	}
	nx, nv := m.States, m.Neurons
	n := 2*nx + nv
	o := m.offsets()
	// H from its definition, independently: XᵀX + εI + ggᵀ/(2M)
	X := mat.NewDense(n, n, m.Theta[o.x:o.y1])
	var H mat.Dense
	H.Mul(X.T(), X)
	x3 := m.Theta[o.x3]
	M := x3*x3 + m.Eps
	g := append(append(append([]float64{}, m.Theta[o.c2:o.c2+nx]...), make([]float64, nv)...), m.Theta[o.b2:o.b2+nx]...)
	for i := range nv {
		g[nx+i] = m.Theta[o.d21+i] - m.Theta[o.d12+i]
	}
	for i := range n {
		for j := range n {
			H.Set(i, j, H.At(i, j)+g[i]*g[j]/(2*M))
		}
		H.Set(i, i, H.At(i, i)+m.Eps)
	}
	var chol mat.Cholesky
	if !chol.Factorize(mat.NewSymDense(n, H.RawMatrix().Data)) {
		t.Fatal("H is not positive definite")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	x := make([]float64, nx)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	u := rng.NormFloat64()
	// explicit step
	w, v := make([]float64, nv), make([]float64, nv)
	for i := range nv {
		s := e.D12[i] * u
		for j := range nx {
			s += e.C1.At(i, j) * x[j]
		}
		for j := range i {
			s += e.D11.At(i, j) * w[j]
		}
		v[i], w[i] = s, math.Tanh(s)
	}
	xn := make([]float64, nx)
	for i := range nx {
		s := e.B2[i] * u
		for j := range nx {
			s += e.A.At(i, j) * x[j]
		}
		for j := range nv {
			s += e.B1.At(i, j) * w[j]
		}
		xn[i] = s
	}
	// implicit residuals
	Y1 := mat.NewDense(nx, nx, m.Theta[o.y1:o.x3])
	for i := range nx {
		lhs, rhs := 0.0, m.Theta[o.b2+i]*u
		for j := range nx {
			E := (H.At(i, j) + H.At(nx+nv+i, nx+nv+j) + Y1.At(i, j) - Y1.At(j, i)) / 2
			lhs += E * xn[j]
			rhs += H.At(nx+nv+i, j) * x[j]
		}
		for j := range nv {
			rhs += H.At(nx+nv+i, nx+j) * w[j]
		}
		if math.Abs(lhs-rhs) > 1e-10*(1+math.Abs(rhs)) {
			t.Errorf("state row %d: E x⁺ = %.12g, F x + B1 w + B2 u = %.12g", i, lhs, rhs)
		}
	}
	for i := range nv {
		lhs, rhs := H.At(nx+i, nx+i)/2*v[i], m.Theta[o.d12+i]*u
		for j := range nx {
			rhs -= H.At(nx+i, j) * x[j]
		}
		for j := range i {
			rhs -= H.At(nx+i, nx+j) * w[j]
		}
		if math.Abs(lhs-rhs) > 1e-10*(1+math.Abs(rhs)) {
			t.Errorf("neuron %d: Λ v = %.12g, C1 x + D11 w + D12 u = %.12g", i, lhs, rhs)
		}
	}
	if want := m.Nu + M; math.Abs(e.D22-want) > 1e-15 {
		t.Errorf("D22 = %g, want ν + X3² + ε = %g", e.D22, want)
	}
}

// TestRENLearnsPassiveSystem trains on a passive nonlinear plant (a
// mass-spring-damper with a quadratic damper, u = force, y = velocity) and
// must beat the zero predictor by far on fresh data.
func TestRENLearnsPassiveSystem(t *testing.T) {
	gen := func(seed uint64, batches int) *data.Dataset {
		d, err := data.GenerateMSD(data.MSDConfig{Batches: batches, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	train, val, test := gen(11, 24), gen(12, 8), gen(13, 8)
	cfg := DefaultRENConfig()
	cfg.Epochs, cfg.Batch, cfg.LR, cfg.Patience = 60, 4, 1e-2, 20
	m, err := TrainREN(train, val, cfg)
	if err != nil {
		t.Fatal(err)
	}
	fits := 0.0
	for _, b := range test.Batches {
		fits += renFit(b.Y, m.Simulate(b.U))
	}
	fits /= float64(len(test.Batches))
	t.Logf("REN (%d parameters) mean test fit %.2f%% after %d epochs (best %d)", m.NumParams(), fits, len(m.ValLoss), m.BestEpoch)
	if fits < 60 {
		t.Errorf("mean test fit %.2f%%, want ≥ 60%%", fits)
	}
	if len(m.ValLoss) < 2 || m.ValLoss[m.BestEpoch-1] >= m.ValLoss[0] {
		t.Errorf("validation loss did not go down: %v", m.ValLoss)
	}
}

func TestRENErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	u := make([]float64, 50)
	for i := range u {
		u[i] = rng.NormFloat64()
	}
	good := &data.Dataset{Batches: []data.Batch{{U: u, Y: data.FIR{0.5, 0.2}.Simulate(u)}}}
	zero := &data.Dataset{Batches: []data.Batch{{U: make([]float64, 10), Y: make([]float64, 10)}}}
	for _, c := range []struct {
		name string
		d    *data.Dataset
		cfg  RENConfig
		want error
	}{
		{"negative states", good, RENConfig{States: -1}, ErrConfig},
		{"negative ν", good, RENConfig{Nu: -0.1}, ErrConfig},
		{"NaN learning rate", good, RENConfig{LR: math.NaN()}, ErrConfig},
		{"negative ε", good, RENConfig{Eps: -1}, ErrConfig},
		{"negative skip", good, RENConfig{Skip: -1}, ErrConfig},
		{"skip everything", good, RENConfig{Skip: 50}, ErrData},
		{"nil data", nil, RENConfig{}, ErrData},
		{"no excitation", zero, RENConfig{}, ErrData},
	} {
		if _, err := TrainREN(c.d, nil, c.cfg); !errors.Is(err, c.want) {
			t.Errorf("%s: error %v, want %v", c.name, err, c.want)
		}
	}
}

// BenchmarkRENEpoch is one gradient of the simulation loss over 32
// records of 250 samples, for the sizes and kinds the structure search
// trains (search.renKinds), on one worker: the cost of an Adam step per
// sample is what bounds how far a REN trains under the search's limit.
func BenchmarkRENEpoch(b *testing.B) {
	d, err := data.GenerateMSD(data.MSDConfig{Batches: 32, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name          string
		nx, nv        int
		biased, gated bool
	}{
		{"plain-5x15", 5, 15, false, false},
		{"biased-5x15", 5, 15, true, false},
		{"gated-5x15", 5, 15, false, true},
		{"gated-8x32", 8, 32, false, true},
	} {
		b.Run(c.name, func(b *testing.B) {
			m := &PassiveREN{States: c.nx, Neurons: c.nv, Eps: 1e-6, UScale: 1, YScale: 1, Biased: c.biased, Gated: c.gated}
			m.Theta = make([]float64, m.NumParams())
			m.init(rand.New(rand.NewPCG(1, 1)))
			s := m.prepare(d)
			items := wholeItems(s, 0)
			grad := make([]float64, m.NumParams())
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if _, err := m.lossGrad(s, items, grad, 1); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*32*250), "ns/sample")
		})
	}
}

// renFit is the paper's Fit in percent.
func renFit(y, yhat []float64) float64 {
	num, den := 0.0, 0.0
	for i := range y {
		num += (y[i] - yhat[i]) * (y[i] - yhat[i])
		den += y[i] * y[i]
	}
	return 100 * (1 - math.Sqrt(num/den))
}

// TestRENDeterministic: same seed and data, same parameters, whatever the
// number of workers.
func TestRENDeterministic(t *testing.T) {
	d, err := data.GenerateMSD(data.MSDConfig{Batches: 6, Seed: 4, Samples: 80})
	if err != nil {
		t.Fatal(err)
	}
	var thetas [][]float64
	for _, w := range []int{1, 3, 1} {
		cfg := RENConfig{States: 2, Neurons: 4, Epochs: 3, Batch: 4, Seed: 9, Workers: w}
		m, err := TrainREN(d, nil, cfg)
		if err != nil {
			t.Fatal(err)
		}
		thetas = append(thetas, m.Theta)
	}
	for i := 1; i < len(thetas); i++ {
		for k := range thetas[0] {
			if thetas[i][k] != thetas[0][k] {
				t.Fatalf("run %d: θ[%d] = %v, run 0: %v", i, k, thetas[i][k], thetas[0][k])
			}
		}
	}
}

// TestRENGate: trainings sharing a Gate of one slot, side by side, train
// the same parameters, bit for bit, as each alone without one, and give
// every slot back; a training whose gate never frees stops with its
// context's error and no model (so it does wait for the gate).
func TestRENGate(t *testing.T) {
	d, err := data.GenerateMSD(data.MSDConfig{Batches: 6, Seed: 4, Samples: 80})
	if err != nil {
		t.Fatal(err)
	}
	v, err := data.GenerateMSD(data.MSDConfig{Batches: 2, Seed: 5, Samples: 80})
	if err != nil {
		t.Fatal(err)
	}
	const n = 3
	cfg := func(seed uint64) RENConfig {
		return RENConfig{States: 2, Neurons: 4, Epochs: 4, Batch: 1, Seed: seed, Workers: 1}
	}
	alone := make([][]float64, n)
	for k := range alone {
		m, err := TrainREN(d, v, cfg(uint64(k)))
		if err != nil {
			t.Fatal(err)
		}
		alone[k] = m.Theta
	}

	gate := NewGate(1)
	shared := make([][]float64, n)
	var wg sync.WaitGroup
	for k := range shared {
		wg.Go(func() {
			c := cfg(uint64(k))
			c.Gate = gate
			m, err := TrainREN(d, v, c)
			if err != nil {
				t.Error(err)
				return
			}
			shared[k] = m.Theta
		})
	}
	wg.Wait()
	if len(gate) != 0 {
		t.Errorf("%d slots of the gate still held after training", len(gate))
	}
	for k := range shared {
		if !slices.Equal(shared[k], alone[k]) {
			t.Errorf("seed %d: gated training differs from the same training alone", k)
		}
	}

	full := NewGate(1)
	full <- struct{}{}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	c := cfg(1)
	c.Gate = full
	m, err := TrainRENContext(ctx, d, v, c)
	if m != nil || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("gate never free: got model %v, error %v; want none and the deadline", m != nil, err)
	}
}

// TestRENBiasedRectifier: a REN without biases is odd, y(−u) = −y(u), so
// it cannot fit a rectifying passive one-port (a diode beside a resistor,
// y = u + 2·max(u, 0) after a first-order lag of the input); the biased one
// can, and it still maps u = 0 to y = 0. Same data, seed and budget; the
// test fails if biases do not raise the fit by 10 points.
func TestRENBiasedRectifier(t *testing.T) {
	gen := func(seed uint64, batches int) *data.Dataset {
		rng := rand.New(rand.NewPCG(seed, 1))
		d := &data.Dataset{}
		for range batches {
			u, y := make([]float64, 200), make([]float64, 200)
			s, amp := 0.0, 0.5+rng.Float64()
			for k := range u {
				u[k] = amp * rng.NormFloat64()
				s = 0.7*s + 0.3*u[k]
				y[k] = s + 2*max(s, 0)
			}
			d.Batches = append(d.Batches, data.Batch{U: u, Y: y})
		}
		return d
	}
	train, val, test := gen(21, 8), gen(22, 4), gen(23, 4)
	cfg := SimulationRENConfig()
	cfg.States, cfg.Neurons, cfg.Epochs, cfg.Patience = 2, 8, 150, 50
	biased := cfg
	biased.Biased = true
	renGain(t, "biases", train, val, test, cfg, biased, 10)
}

// renGain trains a REN with each of two configurations on the same data,
// checks that both map u = 0 to y = 0, and fails unless the second's mean
// test Fit is at least want points above the first's.
func renGain(t *testing.T, what string, train, val, test *data.Dataset, without, with RENConfig, want float64) {
	t.Helper()
	var fit [2]float64
	for k, cfg := range [2]RENConfig{without, with} {
		m, err := TrainREN(train, val, cfg)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range test.Batches {
			fit[k] += renFit(b.Y, m.Simulate(b.U)) / float64(len(test.Batches))
		}
		if y := m.Simulate(make([]float64, 50)); slices.ContainsFunc(y, func(v float64) bool { return v != 0 }) {
			t.Errorf("%s %v: u = 0 gives y = %v, want 0", what, k == 1, y)
		}
	}
	t.Logf("mean test fit without %s %.2f%%, with %.2f%%", what, fit[0], fit[1])
	if !(fit[1] >= fit[0]+want) {
		t.Errorf("%s raised the fit from %.2f%% to %.2f%%, want ≥ %g points", what, fit[0], fit[1], want)
	}
}

// TestRENGatedOscillator: a lightly damped mass on a spring with play
// (force in, velocity out; passive) rings at a frequency that moves with
// its amplitude. Two such oscillations drift apart in phase, so the plant
// is not contracting, and a REN, which is, has to damp the ringing to
// follow it; the gates' schedule (PassiveREN.Gated) lifts that limit. Same
// data, seed and budget; the test fails if the gates do not raise the
// fit by 5 points, or if the gated REN maps u = 0 to anything but 0.
func TestRENGatedOscillator(t *testing.T) {
	gen := func(seed uint64, batches int) *data.Dataset {
		rng := rand.New(rand.NewPCG(seed, 1))
		d := &data.Dataset{}
		const h, c, k, gap = 0.2, 0.1, 1.0, 0.3
		for range batches {
			u, y := make([]float64, 300), make([]float64, 300)
			x, v, f, amp := 0.0, 0.0, 0.0, 0.2+1.5*rng.Float64()
			for i := range u {
				f = 0.9*f + 0.1*amp*rng.NormFloat64()
				u[i] = f
				// symplectic Euler of v̇ = u − c v − k·(x less its play), ẋ = v
				sp := k * (x - max(min(x, gap), -gap))
				v += h * (u[i] - c*v - sp)
				x += h * v
				y[i] = v
			}
			d.Batches = append(d.Batches, data.Batch{U: u, Y: y})
		}
		return d
	}
	train, val, test := gen(31, 8), gen(32, 4), gen(33, 4)
	cfg := SimulationRENConfig()
	cfg.States, cfg.Neurons, cfg.Epochs, cfg.Patience = 3, 8, 1500, 300
	renGain(t, "gates", train, val, test, cfg, cfg.WithGates(), 5)
}

// TestRENStart: a REN started from a trained one (RENConfig.Start) begins
// at its parameters and scales, whatever the data's: a step too small to
// move them returns them, and the start is not modified. Training on from
// it lowers the training loss below the start's (a start ignored would
// repeat the same 40 epochs and return the same loss), and a start of
// another structure is refused.
func TestRENStart(t *testing.T) {
	train, err := data.GenerateMSD(data.MSDConfig{Batches: 8, Seed: 21})
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultRENConfig()
	cfg.Epochs, cfg.Batch, cfg.LR = 40, 2, 1e-2
	first, err := TrainREN(train, nil, cfg)
	if err != nil {
		t.Fatal(err)
	}
	// other data: the scales would differ if they were recomputed
	other, err := data.GenerateMSD(data.MSDConfig{Batches: 8, Seed: 22, Peak: 30})
	if err != nil {
		t.Fatal(err)
	}
	theta := append([]float64(nil), first.Theta...)
	still := cfg
	still.Epochs, still.LR, still.Start = 1, 1e-300, first
	m, err := TrainREN(other, nil, still)
	if err != nil {
		t.Fatal(err)
	}
	if m.UScale != first.UScale || m.YScale != first.YScale {
		t.Errorf("scales %v, %v; want the start's %v, %v", m.UScale, m.YScale, first.UScale, first.YScale)
	}
	for i := range theta {
		if first.Theta[i] != theta[i] {
			t.Fatalf("the start's parameter %d changed: %v, was %v", i, first.Theta[i], theta[i])
		}
		if math.Abs(m.Theta[i]-theta[i]) > 1e-12 {
			t.Fatalf("parameter %d: %v after a vanishing step from %v", i, m.Theta[i], theta[i])
		}
	}
	on := cfg
	on.Start = first
	cont, err := TrainREN(train, nil, on)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("training loss: start %.5f, continued %.5f", first.TrainLoss, cont.TrainLoss)
	if !(cont.TrainLoss < 0.9*first.TrainLoss) {
		t.Errorf("continued training loss %v; want below 0.9 × the start's %v", cont.TrainLoss, first.TrainLoss)
	}
	for _, bad := range []func(*RENConfig){
		func(c *RENConfig) { c.States++ },
		func(c *RENConfig) { c.Neurons++ },
		func(c *RENConfig) { c.Biased = true },
		func(c *RENConfig) { *c = c.WithGates() },
		func(c *RENConfig) { c.Nu = 0.1 },
	} {
		c := on
		bad(&c)
		if _, err := TrainREN(train, nil, c); !errors.Is(err, ErrConfig) {
			t.Errorf("start of another structure: err %v, want ErrConfig", err)
		}
	}
}
