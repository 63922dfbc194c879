package baselines

import (
	"math"
	"math/cmplx"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/passivenfir/gputrain/data"
)

// TestSlowStart: the slow start's explicit model is the designed one —
// A's eigenvalues are SlowPoles, the neurons neither see nor drive the
// state, B2 = C2ᵀ = slowGain and D22 = ν + slowM — for every REN kind.
func TestSlowStart(t *testing.T) {
	for _, tt := range []struct {
		nx, nv        int
		nu            float64
		biased, gated bool
		memory        int
	}{
		{5, 15, 0, false, false, 1000},
		{5, 15, 0.05, true, false, 512},
		{8, 32, 0, false, true, 4000},
		{1, 3, 0, false, false, 300},
	} {
		m := &PassiveREN{States: tt.nx, Neurons: tt.nv, Nu: tt.nu, Eps: 1e-6, Biased: tt.biased, Gated: tt.gated, UScale: 1, YScale: 1}
		m.Theta = make([]float64, m.NumParams())
		rng := rand.New(rand.NewPCG(1, 2))
		m.init(rng)
		if err := m.slowStart(rng, tt.memory); err != nil {
			t.Fatal(err)
		}
		e, err := m.explicit()
		if err != nil {
			t.Fatal(err)
		}
		var eig mat.Eigen
		if !eig.Factorize(e.A, mat.EigenNone) {
			t.Fatal("eigen decomposition failed")
		}
		var got []float64
		for _, v := range eig.Values(nil) {
			if math.Abs(imag(v)) > 1e-9 {
				t.Errorf("%d×%d: complex pole %v", tt.nx, tt.nv, v)
			}
			got = append(got, real(v))
		}
		want := SlowPoles(tt.nx, tt.memory)
		sort.Float64s(got)
		sort.Float64s(want)
		for i := range want {
			if math.Abs(got[i]-want[i]) > 1e-9 {
				t.Errorf("%d×%d memory %d: poles %v, want %v", tt.nx, tt.nv, tt.memory, got, want)
				break
			}
		}
		if slow := math.Exp(-2 / float64(tt.memory)); tt.nx > 1 && math.Abs(want[len(want)-1]-slow) > 1e-12 {
			t.Errorf("slowest pole %v, want exp(−2/memory) = %v", want[len(want)-1], slow)
		}
		small := func(name string, x mat.Matrix) {
			if n := mat.Norm(x, math.Inf(1)); n > 1e-9 {
				t.Errorf("%d×%d: ‖%s‖ = %v, want 0", tt.nx, tt.nv, name, n)
			}
		}
		small("B1", e.B1)
		small("C1", e.C1)
		small("D11", e.D11)
		for i := range tt.nx {
			if math.Abs(e.B2[i]-slowGain) > 1e-9 || e.C2[i] != slowGain {
				t.Errorf("%d×%d: B2 %v, C2 %v, want %v", tt.nx, tt.nv, e.B2, e.C2, slowGain)
				break
			}
		}
		if math.Abs(e.D22-(tt.nu+slowM)) > 1e-12 {
			t.Errorf("D22 %v, want %v", e.D22, tt.nu+slowM)
		}
		// The start's linear part, D22 + Σ c_i b_i/(z − a_i), is positive
		// real: the passivity the parameterization guarantees, checked
		// on a frequency grid as an independent reference.
		for k := 0; k <= 200; k++ {
			z := cmplx.Exp(complex(0, math.Pi*float64(k)/200))
			g := complex(e.D22, 0)
			for i, a := range want {
				g += complex(e.C2[i]*e.B2[i], 0) / (z - complex(a, 0))
			}
			if real(g) < 0 {
				t.Fatalf("Re G(e^{iω}) = %v < 0 at ω = %v", real(g), math.Pi*float64(k)/200)
			}
		}
	}
}

// slowPlant is a first-order passive plant whose time constant is 500
// samples, as a mechanical one logged at 1 kHz has, driven by slow
// filtered noise.
func slowPlant(seed uint64, batches int) *data.Dataset {
	rng := rand.New(rand.NewPCG(seed, 4))
	d := &data.Dataset{}
	a := math.Exp(-1.0 / 500)
	for range batches {
		n := 1500
		u, y := make([]float64, n), make([]float64, n)
		f, x := 0.0, 0.0
		for i := range u {
			f = 0.99*f + 0.1*rng.NormFloat64()
			u[i] = f
			y[i] = 0.05*u[i] + x
			x = a*x + (1-a)*2*u[i] + 0.2*(1-a)*math.Tanh(3*u[i])
		}
		d.Batches = append(d.Batches, data.Batch{U: u, Y: y})
	}
	return d
}

// TestRENSlowStartLearnsSlowPlant: with the plant's memory given, the REN
// reaches a validation Fit that the random start does not in the same
// steps; at or below RefMemory the memory changes nothing.
func TestRENSlowStartLearnsSlowPlant(t *testing.T) {
	if testing.Short() {
		t.Skip("trains four RENs")
	}
	train, val := slowPlant(1, 6), slowPlant(2, 2)
	cfg := SimulationRENConfig()
	cfg.Epochs, cfg.Patience, cfg.Workers = 40, 40, 1
	fit := func(m *PassiveREN) float64 {
		s := 0.0
		for _, b := range val.Batches {
			s += renFit(b.Y, m.Simulate(b.U))
		}
		return s / float64(len(val.Batches))
	}
	// the random start gets the epochs Memory 1500 stretches the schedule to
	rcfg := cfg
	rcfg.Epochs = int(math.Ceil(float64(cfg.Epochs) * 1500 / RefMemory))
	random, err := TrainREN(train, val, rcfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Memory = 1500
	slow, err := TrainREN(train, val, cfg)
	if err != nil {
		t.Fatal(err)
	}
	fr, fs := fit(random), fit(slow)
	t.Logf("validation Fit: random start %.2f %%, slow start %.2f %%", fr, fs)
	if fs < fr+10 {
		t.Errorf("slow start %.2f %%, random start %.2f %%: want 10 points more", fs, fr)
	}
	cfg.Memory = RefMemory
	same, err := TrainREN(train, val, cfg)
	if err != nil {
		t.Fatal(err)
	}
	base, err := TrainREN(train, val, cfg0(cfg))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(same.Theta, base.Theta) {
		t.Error("Memory = RefMemory changed the training")
	}
}

// cfg0 is cfg without a memory.
func cfg0(cfg RENConfig) RENConfig { cfg.Memory = 0; return cfg }

// TestRENMemoryStretch: beyond RefMemory the schedule's bounds, Epochs and
// MaxSamples, stretch by Memory/RefMemory as the learning rate shrinks.
func TestRENMemoryStretch(t *testing.T) {
	train := slowPlant(3, 2) // 3000 samples an epoch
	for _, tc := range []struct {
		name                       string
		memory, epochs, maxSamples int
		want                       int
	}{
		{"epochs, no memory", 0, 3, 0, 3},
		{"epochs, memory at RefMemory", RefMemory, 3, 0, 3},
		{"epochs, twice RefMemory", 2 * RefMemory, 3, 0, 6},
		{"epochs, 1.5 RefMemory", 3 * RefMemory / 2, 3, 0, 5},
		{"samples, no memory", 0, 100, 4500, 2},
		{"samples, twice RefMemory", 2 * RefMemory, 100, 4500, 3},
		{"samples, four times", 4 * RefMemory, 100, 4500, 6},
	} {
		cfg := SimulationRENConfig()
		cfg.Memory, cfg.Epochs, cfg.MaxSamples, cfg.Window, cfg.Workers = tc.memory, tc.epochs, tc.maxSamples, 0, 1
		got := 0
		cfg.Progress = func(int, float64, float64) { got++ }
		if _, err := TrainREN(train, nil, cfg); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got != tc.want {
			t.Errorf("%s: %d epochs, want %d", tc.name, got, tc.want)
		}
	}
}

func TestRENStretched(t *testing.T) {
	base := RENConfig{LR: 3e-3, Epochs: 100, MaxSamples: 1000, MinEpochs: 10}
	for _, tc := range []struct {
		memory, maxSamples int
		want               RENConfig
	}{
		{0, 1000, RENConfig{LR: 3e-3, Epochs: 100, MaxSamples: 1000}},
		{RefMemory, 1000, RENConfig{LR: 3e-3, Epochs: 100, MaxSamples: 1000, Memory: RefMemory}},
		{2 * RefMemory, 1000, RENConfig{LR: 1.5e-3, Epochs: 200, MaxSamples: 2000, Memory: 2 * RefMemory}},
		{RefMemory + 1, 1000, RENConfig{LR: 3e-3 * RefMemory / (RefMemory + 1), Epochs: 101, MaxSamples: 1004, Memory: RefMemory + 1}},
		{2 * RefMemory, 0, RENConfig{LR: 1.5e-3, Epochs: 200, Memory: 2 * RefMemory}}, // no sample bound stays none
	} {
		c := base
		c.Memory, c.MaxSamples = tc.memory, tc.maxSamples
		tc.want.MinEpochs = 10 // as the patience, not stretched
		got := c.Stretched()
		if math.Abs(got.LR-tc.want.LR) > 1e-15 || got.Epochs != tc.want.Epochs || got.MaxSamples != tc.want.MaxSamples || got.Memory != tc.want.Memory || got.MinEpochs != tc.want.MinEpochs {
			t.Errorf("memory %d: got LR %g, %d epochs, %d samples, %d min epochs; want %g, %d, %d, %d", tc.memory, got.LR, got.Epochs, got.MaxSamples, got.MinEpochs, tc.want.LR, tc.want.Epochs, tc.want.MaxSamples, tc.want.MinEpochs)
		}
	}
}

// TestRENMinEpochs: with validation data the sample budget does not end
// training before MinEpochs epochs (not stretched with the memory), while
// Epochs still does; without validation data MinEpochs is unused. Budget
// states the samples the run may simulate: training ends after the epoch
// that reaches it.
func TestRENMinEpochs(t *testing.T) {
	train, val := slowPlant(3, 2), slowPlant(4, 1) // 3000 training samples an epoch
	for _, tc := range []struct {
		name                                  string
		val                                   bool
		memory, epochs, maxSamples, minEpochs int
		want, budget                          int
	}{
		{"budget ends it", true, 0, 20, 4500, 0, 2, 4500},
		{"min epochs past the budget", true, 0, 20, 4500, 5, 5, 15000},
		{"min epochs below the budget", true, 0, 20, 4500, 1, 2, 4500},
		{"epochs before min epochs", true, 0, 4, 4500, 6, 4, 18000},
		{"the budget stretched with the memory", true, 2 * RefMemory, 20, 4500, 2, 3, 9000},
		{"min epochs not stretched", true, 2 * RefMemory, 20, 4500, 4, 4, 12000},
		{"no validation data", false, 0, 20, 4500, 5, 2, 15000},
		{"no budget", true, 0, 3, 0, 5, 3, 0},
	} {
		cfg := SimulationRENConfig()
		cfg.Memory, cfg.Epochs, cfg.MaxSamples, cfg.MinEpochs = tc.memory, tc.epochs, tc.maxSamples, tc.minEpochs
		cfg.Patience, cfg.Window, cfg.Workers = 1000, 0, 1
		got := 0
		cfg.Progress = func(int, float64, float64) { got++ }
		v := val
		if !tc.val {
			v = nil
		}
		if _, err := TrainREN(train, v, cfg); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got != tc.want {
			t.Errorf("%s: %d epochs, want %d", tc.name, got, tc.want)
		}
		if b := cfg.Budget(train); b != tc.budget {
			t.Errorf("%s: Budget %d, want %d", tc.name, b, tc.budget)
		}
	}
}

// TestRENBudgetWindows: Budget counts an epoch as TrainREN's windows
// simulate it, burn-in included.
func TestRENBudgetWindows(t *testing.T) {
	d := &data.Dataset{Batches: []data.Batch{{U: make([]float64, 5000), Y: make([]float64, 5000)}, {U: make([]float64, 300), Y: make([]float64, 300)}}}
	cfg := RENConfig{MaxSamples: 1, MinEpochs: 2, Window: 2000, BurnIn: 200}
	// windows [0, 2000), [1800, 4000), [3800, 5000) and the whole short record
	if got, want := cfg.Budget(d), 2*(2000+2200+1200+300); got != want {
		t.Errorf("Budget %d, want %d", got, want)
	}
	cfg.Window = 0
	if got, want := cfg.Budget(d), 2*5300; got != want {
		t.Errorf("whole records: Budget %d, want %d", got, want)
	}
}
