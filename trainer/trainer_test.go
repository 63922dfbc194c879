package trainer

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/model"
)

func TestOneCycle(t *testing.T) {
	const total, peak = 100, 5e-5
	if got := oneCycle(0, total, peak); math.Abs(got-peak/25) > 1e-18 {
		t.Errorf("start %g, want %g", got, peak/25)
	}
	maxLR := 0.0
	for s := 0; s < total; s++ {
		maxLR = math.Max(maxLR, oneCycle(s, total, peak))
	}
	if math.Abs(maxLR-peak) > 1e-18 {
		t.Errorf("peak %g, want %g", maxLR, peak)
	}
	if got := oneCycle(total-1, total, peak); math.Abs(got-peak/25/1e4) > 1e-18 {
		t.Errorf("end %g", got)
	}
}

func TestConfigCheck(t *testing.T) {
	bad := []func(*Config){
		func(c *Config) { c.Passivity = "maybe" },
		func(c *Config) { c.Iters = 0 },
		func(c *Config) { c.LR = 0 },
		func(c *Config) { c.Batch = 0 },
		func(c *Config) { c.Structure.Taps = -1 },
		func(c *Config) { c.Passivity, c.H = "sampled", 0 },
		func(c *Config) { c.Decay = 1.5 },
		func(c *Config) { c.Device = "tpu" },
		func(c *Config) { c.ValSkip = -1 },
		func(c *Config) { c.Skip = -1 },
		func(c *Config) { c.Init = "he" },
		func(c *Config) { c.Scale = "rms" },
		func(c *Config) { c.Members = -1 },
		func(c *Config) { c.Members, c.Structure = 2, model.Structure{LinearTaps: 5} },
	}
	for i, f := range bad {
		c := DefaultConfig()
		f(&c)
		if err := c.Check(); !errors.Is(err, ErrConfig) {
			t.Errorf("case %d: err = %v, want ErrConfig", i, err)
		}
	}
	c := DefaultConfig()
	if err := c.Check(); err != nil {
		t.Fatal(err)
	}
}

// simulate makes a data set from a known model.
func simulate(m *model.NFIR, batches, T int, seed uint64) *data.Dataset {
	rng := rand.New(rand.NewPCG(seed, 1))
	d := &data.Dataset{Name: "nfir", Ts: 1}
	for b := 0; b < batches; b++ {
		u := make([]float64, T)
		for i := range u {
			u[i] = rng.NormFloat64()
		}
		y, _ := m.Simulate(u)
		d.Batches = append(d.Batches, data.Batch{U: u, Y: y})
	}
	return d
}

// TestLinearFIRRecovery: with no lifting, Algorithm 1 is one convex solve,
// which must recover a passive FIR from its own noise-free data.
func TestLinearFIRRecovery(t *testing.T) {
	truth, _ := model.RandomPassive(model.Structure{LinearTaps: 12}, rand.New(rand.NewPCG(1, 1)))
	train := simulate(truth, 6, 120, 2)
	for _, mode := range []Passivity{"exact", "sampled", "none", "kyp"} {
		cfg := DefaultConfig()
		cfg.Structure = model.Structure{LinearTaps: 12}
		cfg.Passivity, cfg.GammaG, cfg.Rho, cfg.H, cfg.Eps = mode, 1e-9, 0, 2000, 0
		res, err := Train(context.Background(), cfg, train, nil)
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		for k, g := range res.Model.Lin {
			if math.Abs(g-truth.Lin[k]) > 1e-5*(1+math.Abs(truth.Lin[k])) {
				t.Errorf("%s: tap %d = %g, truth %g", mode, k, g, truth.Lin[k])
			}
		}
		if mode != "none" && !res.Cert.Passive {
			t.Errorf("%s: not certified passive", mode)
		}
	}
}

// TestNFIRRecovery: Algorithm 1 fits a random passive FB NFIR from its own
// data far better than the best linear FIR, and the result is certified.
func TestNFIRRecovery(t *testing.T) {
	st := model.Structure{Branches: 2, Taps: 8, R1: 1, R2: 1, Hidden: []int{4}, Feedback: true}
	truth, _ := model.RandomPassive(st, rand.New(rand.NewPCG(4, 4)))
	for j := range truth.Lift.W[1] {
		truth.Lift.W[1][j] *= 3 // strongly input-dependent gains
	}
	train := simulate(truth, 40, 100, 5)
	val := simulate(truth, 10, 100, 6)
	cfg := DefaultConfig()
	cfg.Structure = st
	cfg.Iters, cfg.Epochs, cfg.Patience, cfg.LR, cfg.GammaG, cfg.Rho = 3, 60, 20, 1e-2, 1e-6, 0
	res, err := Train(context.Background(), cfg, train, val)
	if err != nil {
		t.Fatal(err)
	}
	lin := DefaultConfig()
	lin.Structure = model.Structure{LinearTaps: 8}
	lin.GammaG, lin.Rho = 1e-6, 0
	lres, err := Train(context.Background(), lin, train, val)
	if err != nil {
		t.Fatal(err)
	}
	ev, _ := Evaluate(res.Model, val, 0)
	lev, _ := Evaluate(lres.Model, val, 0)
	t.Logf("closed-loop val median fit: NFIR %.2f%%, linear FIR %.2f%%", ev.ClosedLoop.Median, lev.ClosedLoop.Median)
	if !res.Cert.Passive || !lres.Cert.Passive {
		t.Fatal("not certified passive")
	}
	if ev.ClosedLoop.Median < 88 || ev.ClosedLoop.Median < lev.ClosedLoop.Median+3 { // measured: 90.1% vs 67.0%
		t.Errorf("NFIR fit %.2f%% (linear %.2f%%): want ≥ 88%% and ≥ linear + 3", ev.ClosedLoop.Median, lev.ClosedLoop.Median)
	}
}

// MSDSmallFit is the closed-loop median test Fit the small run must reach;
// it measured 81.9% on the 2-core CI machine; the bound keeps a margin.
const MSDSmallFit = 75.0

// TestMSDSmall is a small mass-spring-damper run that must reach a stated
// fit in CI time: the paper's model and settings at reduced size (60
// training and 20 validation batches, K = 5, 30 epochs), scored on 20 unseen
// batches in closed loop. A run this short is chaotic in its seed (one of the
// three seeds below ends at ≈ 62 % while the others reach ≈ 91 %, and a
// change in the last digits of a θ_G solve can swap which), so the claim is
// on the median over three seeds.
func TestMSDSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("short mode")
	}
	seeds := data.MSDSplitSeeds(7)
	train, err := data.GenerateMSD(data.MSDConfig{Batches: 60, Seed: seeds[0]})
	if err != nil {
		t.Fatal(err)
	}
	val, _ := data.GenerateMSD(data.MSDConfig{Batches: 20, Seed: seeds[1]})
	test, _ := data.GenerateMSD(data.MSDConfig{Batches: 20, Seed: seeds[2]})
	var fits []float64
	for seed := uint64(1); seed <= 3; seed++ {
		cfg := DefaultConfig()
		cfg.Iters, cfg.Epochs, cfg.Patience, cfg.Seed = 5, 30, 10, seed
		res, err := Train(context.Background(), cfg, train, val)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Cert.Passive {
			t.Fatal("not certified passive")
		}
		ev, _ := Evaluate(res.Model, test, 0)
		t.Logf("MSD small, seed %d: closed-loop test median fit %.2f%%, open loop %.2f%%", seed, ev.ClosedLoop.Median, ev.OpenLoop.Median)
		fits = append(fits, ev.ClosedLoop.Median)
	}
	sort.Float64s(fits)
	if fits[1] < MSDSmallFit {
		t.Errorf("median closed-loop fit over seeds %.2f%% < %.0f%%", fits[1], MSDSmallFit)
	}
}

// TestDeterministic: the same seed and worker count give the same model.
func TestDeterministic(t *testing.T) {
	st := model.Structure{Branches: 2, Taps: 6, R1: 1, R2: 1, Hidden: []int{3}, Feedback: true}
	truth, _ := model.RandomPassive(st, rand.New(rand.NewPCG(8, 8)))
	train := simulate(truth, 12, 60, 9)
	cfg := DefaultConfig()
	cfg.Structure = st
	cfg.Iters, cfg.Epochs, cfg.BPTTEpochs, cfg.Workers = 2, 3, 2, 2
	a, err := Train(context.Background(), cfg, train, train)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Train(context.Background(), cfg, train, train)
	ta, tb := a.Model.Lift.Flatten(), b.Model.Lift.Flatten()
	for i := range ta {
		if ta[i] != tb[i] {
			t.Fatalf("θ_N[%d] differs between runs: %g vs %g", i, ta[i], tb[i])
		}
	}
	for i := range a.Model.G {
		if a.Model.G[i] != b.Model.G[i] {
			t.Fatalf("θ_G[%d] differs between runs", i)
		}
	}
}

// TestInitChoice: with no Adam epochs the returned lifting network is the
// initial one, so its biases show which initialization Config.Init chose:
// all zero for Glorot (the default), none zero for fan-in.
func TestInitChoice(t *testing.T) {
	st := model.Structure{Branches: 2, Taps: 6, R1: 2, R2: 2, Hidden: []int{5}, Feedback: true}
	truth, _ := model.RandomPassive(st, rand.New(rand.NewPCG(3, 3)))
	train := simulate(truth, 4, 60, 5)
	for _, c := range []struct {
		init     Init
		nonZeros bool
	}{{"", false}, {"glorot", false}, {"fan-in", true}} {
		cfg := DefaultConfig()
		cfg.Structure, cfg.Init = st, c.init
		cfg.Iters, cfg.Epochs, cfg.Workers = 1, 0, 1
		res, err := Train(context.Background(), cfg, train, nil)
		if err != nil {
			t.Fatal(err)
		}
		for l, b := range res.Model.Lift.B {
			for i, v := range b {
				if (v != 0) != c.nonZeros {
					t.Errorf("init %q: bias %d of layer %d is %g", c.init, i, l, v)
				}
			}
		}
	}
}

// TestValSkip: with ValSkip = k the returned model is the one whose
// closed-loop Fit from sample k on is best, and BestValFit is that Fit; the
// early-stopping and θ_G-gain scores leave the first k samples out too, so
// the run differs from one that scores every sample. A validation record not
// longer than k is refused.
func TestValSkip(t *testing.T) {
	st := model.Structure{Branches: 2, Taps: 6, R1: 2, R2: 2, Hidden: []int{3}, Feedback: true}
	truth, _ := model.RandomPassive(st, rand.New(rand.NewPCG(3, 3)))
	train := simulate(truth, 10, 60, 4)
	val := simulate(truth, 4, 60, 5)
	cfg := DefaultConfig()
	cfg.Structure = st
	cfg.Iters, cfg.Epochs, cfg.Workers = 3, 8, 1
	var fits []float64
	for _, skip := range []int{0, 20} {
		cfg.ValSkip = skip
		res, err := Train(context.Background(), cfg, train, val)
		if err != nil {
			t.Fatal(err)
		}
		ev, err := Evaluate(res.Model, val, skip)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(ev.ClosedLoop.Median-res.BestValFit) > 1e-9 {
			t.Errorf("skip %d: BestValFit %g, Evaluate from sample %d gives %g", skip, res.BestValFit, skip, ev.ClosedLoop.Median)
		}
		fits = append(fits, res.BestValFit)
	}
	if fits[0] == fits[1] {
		t.Errorf("ValSkip changed nothing: %g", fits[0])
	}
	cfg.ValSkip = 60
	if _, err := Train(context.Background(), cfg, train, val); !errors.Is(err, ErrConfig) {
		t.Errorf("val-skip = trajectory length: err = %v, want ErrConfig", err)
	}
}

// TestCancel: a cancelled context returns the best model so far, which is
// valid and passive, together with the context's error.
func TestCancel(t *testing.T) {
	st := model.Structure{Branches: 2, Taps: 6, R1: 1, R2: 1, Hidden: []int{3}, Feedback: true}
	truth, _ := model.RandomPassive(st, rand.New(rand.NewPCG(8, 8)))
	train := simulate(truth, 12, 60, 9)
	ctx, cancel := context.WithCancel(context.Background())
	cfg := DefaultConfig()
	cfg.Structure = st
	cfg.Iters, cfg.Epochs = 3, 1000
	cfg.Progress = func(e Event) {
		if e.Stage == "adam" && e.Iter == 1 && e.Epoch == 2 {
			cancel()
		}
	}
	res, err := Train(ctx, cfg, train, train)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if res == nil || !res.Cert.Passive || res.Model.Check() != nil {
		t.Fatalf("no valid passive model after cancel: %+v", res)
	}
}

// TestKeepsMeasuredBest: without validation data, Adam keeps the θ_N whose
// training error it measured lowest, so a larger epoch budget never returns a
// model that fits the training data worse (the same seed replays the same
// first epochs). One trajectory makes every epoch one step, and a learning
// rate large enough to overshoot makes the check bite: pairing each epoch's
// running loss (that of the parameters before its step) with the parameters
// after it fails here.
func TestKeepsMeasuredBest(t *testing.T) {
	st := model.Structure{Branches: 2, Taps: 6, R1: 2, R2: 2, Hidden: []int{4}, Feedback: true}
	truth, _ := model.RandomPassive(st, rand.New(rand.NewPCG(5, 5)))
	for j := range truth.Lift.W[1] {
		truth.Lift.W[1][j] *= 3
	}
	train := simulate(truth, 1, 200, 7)
	for _, lr := range []float64{0.05, 0.3} {
		prev := math.Inf(-1)
		for epochs := 1; epochs <= 15; epochs++ {
			cfg := DefaultConfig()
			cfg.Structure = st
			cfg.Iters, cfg.Epochs, cfg.Patience, cfg.BPTTEpochs = 1, epochs, 0, 0
			cfg.LR, cfg.GammaG, cfg.Rho = lr, 1e-6, 0
			res, err := Train(context.Background(), cfg, train, nil)
			if err != nil {
				t.Fatal(err)
			}
			ev, err := Evaluate(res.Model, train, 0)
			if err != nil {
				t.Fatal(err)
			}
			fit := ev.OpenLoop.Median
			if fit < prev-1e-9 {
				t.Errorf("lr %g: %d epochs fit the training data worse than fewer epochs did: %.6f%% < %.6f%%", lr, epochs, fit, prev)
			}
			prev = max(prev, fit)
		}
	}
}

// TestSampledFallback: a sampled θ_G step whose FIRs dip below zero between
// the samples (a grid of H = 8 frequencies for 50 taps, ε = 0) is re-solved
// in exact mode, and the model comes back certified passive.
func TestSampledFallback(t *testing.T) {
	train, err := data.GenerateMSD(data.MSDConfig{Batches: 20, Seed: data.MSDSplitSeeds(3)[0]})
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range []model.Structure{
		{LinearTaps: 50},
		{Branches: 2, Taps: 50, R1: 1, R2: 1, Hidden: []int{4}, Feedback: true},
	} {
		cfg := DefaultConfig()
		cfg.Structure = st
		cfg.Passivity, cfg.H, cfg.Eps = "sampled", 8, 0
		cfg.Iters, cfg.Epochs = 1, 0
		res, err := Train(context.Background(), cfg, train, nil)
		if err != nil {
			t.Fatal(err)
		}
		fell := false
		for _, ev := range res.History {
			if ev.Stage == "theta_g" && strings.Contains(ev.Note, "re-solved in exact mode") {
				fell = true
				t.Log(ev.Note)
			}
		}
		if !fell {
			t.Errorf("%+v: no FIR fell back to exact mode: the test checks nothing", st)
		}
		if !res.Cert.Passive {
			t.Errorf("%+v: certificate %+v", st, res.Cert)
		}
		if c, err := res.Model.Certify(); err != nil || !c.Passive {
			t.Errorf("%+v: the model's own certificate: %+v, %v", st, c, err)
		}
	}
}

// TestCancelDuringThetaG: a cancellation that arrives during a θ_G solve
// (exact mode, seconds at this size) stops it there: no θ_G event follows,
// and the best model so far comes back with the context's error.
func TestCancelDuringThetaG(t *testing.T) {
	st := model.Structure{Branches: 2, Taps: 250, R1: 1, R2: 1, Hidden: []int{3}, Feedback: true}
	truth, _ := model.RandomPassive(model.Structure{Branches: 2, Taps: 6, R1: 1, R2: 1, Hidden: []int{3}, Feedback: true}, rand.New(rand.NewPCG(8, 8)))
	train := simulate(truth, 12, 300, 9)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg := DefaultConfig()
	cfg.Structure = st
	cfg.Iters, cfg.Epochs, cfg.Workers = 2, 0, 1
	var events []Event
	cfg.Progress = func(e Event) {
		events = append(events, e)
		if e.Stage == "eval" && e.Iter == 0 {
			time.AfterFunc(20*time.Millisecond, cancel)
		}
	}
	res, err := Train(ctx, cfg, train, train)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	for _, e := range events {
		if e.Stage == "theta_g" && e.Iter == 1 {
			t.Fatalf("the θ_G step of iteration 2 finished after the cancellation: %s", e)
		}
	}
	if last := events[len(events)-1]; last.Stage != "done" || last.Iter != 0 {
		t.Errorf("the last event is %s; want done for iteration 1, the last one evaluated", last)
	}
	if res == nil || !res.Cert.Passive || res.Model.Check() != nil {
		t.Fatalf("no valid passive model after cancel: %+v", res)
	}
}
