package trainbench

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/model"
	"github.com/passivenfir/gputrain/trainer"
)

// peerCase is a small structure on a few noisy MSD trajectories: R1, R2 > 1
// and a parallel linear FIR, so that every part of the operator is used.
func peerCase(t *testing.T) (trainer.Config, *data.Dataset, *data.Dataset) {
	t.Helper()
	cfg := trainer.DefaultConfig()
	cfg.Structure = model.Structure{Branches: 3, Taps: 12, R1: 2, R2: 2, Hidden: []int{5}, Feedback: true, LinearTaps: 4}
	cfg.Iters, cfg.Epochs, cfg.Batch = 1, 0, 2
	tr, err := data.GenerateMSD(data.MSDConfig{Batches: 6, Seed: 1, Samples: 120, SNR: 30})
	if err != nil {
		t.Fatal(err)
	}
	va, err := data.GenerateMSD(data.MSDConfig{Batches: 3, Seed: 2, Samples: 120, SNR: 30})
	if err != nil {
		t.Fatal(err)
	}
	return cfg, tr, va
}

// TestInitialModelIsTheTrainers: with no Adam epochs the trainer's model
// keeps its initial lifting network and scalers, which must be
// InitialModel's, or the peer would start elsewhere.
func TestInitialModelIsTheTrainers(t *testing.T) {
	cfg, tr, va := peerCase(t)
	res, err := trainer.Train(context.Background(), cfg, tr, va)
	if err != nil {
		t.Fatal(err)
	}
	m, err := InitialModel(cfg, tr)
	if err != nil {
		t.Fatal(err)
	}
	if m.UScaler != res.Model.UScaler || m.QScaler != res.Model.QScaler {
		t.Errorf("scalers %+v %+v, the trainer's %+v %+v", m.UScaler, m.QScaler, res.Model.UScaler, res.Model.QScaler)
	}
	for l := range m.Lift.W {
		if !slices.Equal(m.Lift.W[l], res.Model.Lift.W[l]) || !slices.Equal(m.Lift.B[l], res.Model.Lift.B[l]) {
			t.Errorf("layer %d: initial network differs from the trainer's", l)
		}
	}
}

func needPeer(t *testing.T) Peer {
	t.Helper()
	p := Peer{Python: "/usr/bin/python3", Threads: 1}
	if err := p.Check(context.Background()); err != nil {
		t.Skipf("no PyTorch peer here (%v)", err)
	}
	return p
}

// TestPeerParity holds the PyTorch peer to the Go model, which is what makes
// the comparison mean anything: (1) its closed-loop simulation of a random
// model gives Go's Fit on every validation trajectory; (2) the model it
// trains (one θ_G step and three Adam epochs), read back by Go, scores the
// Fit the peer reported; (3) its taps satisfy Go's passivity certificate to
// within the shift tolerance of exact mode.
func TestPeerParity(t *testing.T) {
	p := needPeer(t)
	cfg, tr, va := peerCase(t)
	cfg.Epochs = 3
	rng := rand.New(rand.NewPCG(3, 3))
	start, err := model.RandomPassive(cfg.Structure, rng)
	if err != nil {
		t.Fatal(err)
	}
	for i := range start.G {
		start.G[i] *= 0.05
	}
	for i := range start.Lin {
		start.Lin[i] *= 0.05
	}
	init, _ := InitialModel(cfg, tr)
	start.UScaler, start.QScaler = init.UScaler, init.QScaler
	start.QScaler.Mean = 0.1 // a non-trivial scaler offset
	want, err := trainer.Evaluate(start, va, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "peer.json")
	r, err := p.RunPeer(context.Background(), "float64", cfg, tr, va, start, out, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.InitialValFits) != len(va.Batches) {
		t.Fatalf("%d initial fits for %d trajectories", len(r.InitialValFits), len(va.Batches))
	}
	for i, f := range r.InitialValFits {
		if w := want.ClosedLoop.PerBatch[i]; f == nil || math.Abs(*f-w) > 1e-9*math.Max(1, math.Abs(w)) {
			t.Errorf("trajectory %d: peer's closed-loop Fit %v, Go's %.12g", i, f, w)
		}
	}
	if len(r.ClosedLoop) != 1 || r.ClosedLoop[0].ValFit != r.FinalValFit || !(r.Seconds > 0) {
		t.Errorf("curve %+v, final %g, seconds %g: want one point at the final Fit", r.ClosedLoop, r.FinalValFit, r.Seconds)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, _, err := model.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := trainer.Evaluate(m, va, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := ev.ClosedLoop.Median; math.Abs(got-r.FinalValFit) > 1e-9*math.Max(1, math.Abs(got)) {
		t.Errorf("Go scores the peer's trained model %.12g, the peer %.12g", got, r.FinalValFit)
	}
	if slices.Equal(m.Lift.W[0], start.Lift.W[0]) {
		t.Error("the peer's Adam epochs left the network as it was")
	}
	c, err := m.Certify()
	if err != nil {
		t.Fatal(err)
	}
	mins := slices.Clone(c.Branches)
	if c.Linear != nil {
		mins = append(mins, *c.Linear)
	}
	if len(mins) != m.Branches+1 {
		t.Fatalf("%d certificates for %d branches and a linear FIR", len(mins), m.Branches)
	}
	for j, bc := range mins {
		g := m.Lin
		if j < m.Branches {
			g = m.Branch(j)
		}
		sum := 0.0
		for _, v := range g {
			sum += math.Abs(v)
		}
		if bc.MinRe < -1e-6*sum {
			t.Errorf("FIR %d: min Re G %g below the exact mode's tolerance", j, bc.MinRe)
		}
	}
}

// TestPeerThetaGParity: the first θ_G step from the same starting model is
// the same convex problem on both sides, so with no Adam epochs the peer
// reaches the trainer's Fit.
func TestPeerThetaGParity(t *testing.T) {
	p := needPeer(t)
	cfg, tr, va := peerCase(t)
	res, err := trainer.Train(context.Background(), cfg, tr, va)
	if err != nil {
		t.Fatal(err)
	}
	start, err := InitialModel(cfg, tr)
	if err != nil {
		t.Fatal(err)
	}
	r, err := p.RunPeer(context.Background(), "float64", cfg, tr, va, start, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("after one θ_G step: peer %.6f%%, trainer %.6f%%", r.FinalValFit, res.BestValFit)
	if math.Abs(r.FinalValFit-res.BestValFit) > 0.01 {
		t.Errorf("after one θ_G step the peer scores %.4f%%, the trainer %.4f%%", r.FinalValFit, res.BestValFit)
	}
}

// TestPeerMissing: without a usable Python the peer says so (ErrNoTorch)
// before any work starts.
func TestPeerMissing(t *testing.T) {
	p := Peer{Python: filepath.Join(t.TempDir(), "no-python")}
	if err := p.Check(context.Background()); !errors.Is(err, ErrNoTorch) {
		t.Fatalf("Check = %v, want ErrNoTorch", err)
	}
	if _, err := RunWithPeer(context.Background(), Options{Cases: []string{"msd"}, Quick: true}, p); !errors.Is(err, ErrNoTorch) {
		t.Fatalf("RunWithPeer = %v, want ErrNoTorch", err)
	}
	if err := (Peer{DTypes: []string{"float16"}}).Check(context.Background()); err == nil || errors.Is(err, ErrNoTorch) {
		t.Fatalf("Check of dtype float16 = %v, want a dtype error", err)
	}
}

// TestCompare: the common Fit is the lower final Fit less Tol, and each
// side's time is when its curve first reaches it.
func TestCompare(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		name        string
		goCurve     []Point
		goFinal     float64
		torch       []Point
		torchFinal  float64
		target      float64
		goT, torchT float64
	}{
		{"torch lower", []Point{{10, 80}, {20, 90}}, 90, []Point{{30, 85}, {60, 89.5}}, 89.5, 89.3, 20, 60},
		{"go lower", []Point{{10, 80}, {20, 88}}, 88, []Point{{30, 87.85}, {60, 89.5}}, 89.5, 87.8, 20, 30},
		{"torch failed", []Point{{10, 80}, {20, 90}}, 90, nil, nan, 89.8, 20, nan},
	} {
		c := Comparison{Go: Result{ClosedLoop: tc.goCurve, FinalValFit: tc.goFinal},
			Torch: []TorchResult{{ClosedLoop: tc.torch, FinalValFit: tc.torchFinal}}}
		c.compare()
		same := func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) || math.Abs(a-b) < 1e-12 }
		if !same(c.Target, tc.target) || !same(c.GoTime, tc.goT) || !same(c.TorchTime[0], tc.torchT) || !same(c.Ratio[0], tc.torchT/tc.goT) {
			t.Errorf("%s: target %g, times %g and %g, ratio %g; want %g, %g, %g", tc.name, c.Target, c.GoTime, c.TorchTime[0], c.Ratio[0], tc.target, tc.goT, tc.torchT)
		}
	}
}
