package baseline

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/passivenfir/gputrain/baselines"
	"github.com/passivenfir/gputrain/classes"
	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/trainer"
)

// slowPlant is a first-order passive plant whose time constant is 400
// samples (a mechanical plant logged at 1 kHz), driven by slow filtered
// noise: its passive FIR is longer than baselines.RefMemory.
func slowPlant(seed uint64, batches int) *data.Dataset {
	rng := rand.New(rand.NewPCG(seed, 9))
	a := math.Exp(-1.0 / 400)
	d := &data.Dataset{}
	for range batches {
		u, y := make([]float64, 1200), make([]float64, 1200)
		f, x := 0.0, 0.0
		for i := range u {
			f = 0.98*f + 0.2*rng.NormFloat64()
			u[i] = f
			y[i] = 0.05*u[i] + x
			x = a*x + (1-a)*2*u[i]
		}
		d.Batches = append(d.Batches, data.Batch{U: u, Y: y})
	}
	return d
}

// TestRENClassMemory: class ren passes the plant's memory to the REN as the
// structure search does, measured by the passive FIR when not given, so
// that it trains exactly as baselines.TrainREN with that Memory; −1 keeps
// the random start; below −1 is refused.
func TestRENClassMemory(t *testing.T) {
	train, val := slowPlant(1, 4), slowPlant(2, 2)
	const epochs = 2
	reference := func(memory int) []float64 {
		cfg := baselines.SimulationRENConfig()
		cfg.Epochs, cfg.Seed, cfg.Workers, cfg.Memory = epochs, 3, 1, memory
		m, err := baselines.TrainREN(train, val, cfg)
		if err != nil {
			t.Fatal(err)
		}
		return m.Theta
	}
	var lines []string
	fit := func(memory int) []float64 {
		t.Helper()
		lines = nil
		m, err := renClass{Epochs: epochs, Memory: memory}.Fit(context.Background(), train, val, classes.FitOptions{Seed: 3, Workers: 1, Progress: func(l string) { lines = append(lines, l) }})
		if err != nil {
			t.Fatalf("memory %d: %v", memory, err)
		}
		return m.(*renModel).Theta
	}

	fir, err := trainer.SelectMemory(context.Background(), train, val, 3, 1, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	L := fir.Model.LinearTaps
	if L <= baselines.RefMemory {
		t.Fatalf("the passive FIR has %d taps: want the slow plant's memory, above %d", L, baselines.RefMemory)
	}
	auto := fit(0)
	if want := fmt.Sprintf("ren memory %d samples", L); len(lines) == 0 || !strings.HasPrefix(lines[0], want) {
		t.Errorf("progress %q: want a first line %q…", lines, want)
	}
	for _, tc := range []struct {
		name   string
		got    []float64
		memory int
	}{
		{"auto", auto, L},
		{"given", fit(600), 600},
		{"none", fit(-1), 0},
	} {
		if want := reference(tc.memory); !slices.Equal(tc.got, want) {
			t.Errorf("%s: parameters differ from TrainREN with Memory %d", tc.name, tc.memory)
		}
	}
	if slices.Equal(auto, reference(0)) {
		t.Error("the measured memory changed nothing: the REN started as without it")
	}
	_, err = renClass{Epochs: epochs, Memory: -2}.Fit(context.Background(), train, val, classes.FitOptions{Seed: 3, Workers: 1})
	if !errors.Is(err, classes.ErrSettings) {
		t.Errorf("memory -2: err %v, want classes.ErrSettings", err)
	}
}
