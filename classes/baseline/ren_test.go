package baseline

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/passivenfir/gputrain/baselines"
	"github.com/passivenfir/gputrain/classes"
	"github.com/passivenfir/gputrain/internal/datatest"
	"github.com/passivenfir/gputrain/trainer"
)

// TestRENClassMemory: class ren passes the plant's memory to the REN as the
// structure search does, measured by the passive FIR when not given, so
// that it trains exactly as baselines.TrainREN with that Memory; −1 keeps
// the random start; below −1 is refused.
func TestRENClassMemory(t *testing.T) {
	train, val := datatest.SlowPlant(1, 4, 1200, 400, 0.98), datatest.SlowPlant(2, 2, 1200, 400, 0.98)
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
	// the epochs as the memory stretches them, in every epoch's line
	total := int(math.Ceil(epochs * float64(L) / baselines.RefMemory))
	if want := fmt.Sprintf("ren epoch %4d/%d ", total, total); len(lines) != 1+total || !strings.HasPrefix(lines[total], want) {
		t.Errorf("progress %q: want %d epoch lines, the last %q…", lines, total, want)
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

// TestRENClassMemoryBeyondCap: where the passive FIR validates best at the
// longest length tried, class ren takes the memory measured at a coarser
// rate, as the structure search does.
func TestRENClassMemoryBeyondCap(t *testing.T) {
	if testing.Short() {
		t.Skip("a grid of passive FIRs up to 1000 taps")
	}
	train, val := datatest.SlowPlant(1, 4, 4000, 500, 0.98), datatest.SlowPlant(2, 2, 4000, 500, 0.98)
	want, factor := trainer.MemoryBeyondCap(context.Background(), train, val, 3, 1, 0, 0)
	if want <= trainer.MaxLinearTaps {
		t.Fatalf("MemoryBeyondCap: %d samples at factor %d: want the slow plant's, above %d", want, factor, trainer.MaxLinearTaps)
	}
	var lines []string
	_, err := renClass{Epochs: 1}.Fit(context.Background(), train, val, classes.FitOptions{Seed: 3, Workers: 1, Progress: func(l string) { lines = append(lines, l) }})
	if err != nil {
		t.Fatal(err)
	}
	if prefix := fmt.Sprintf("ren memory %d samples (the passive FIR at %d times", want, factor); len(lines) == 0 || !strings.HasPrefix(lines[0], prefix) {
		t.Errorf("progress %q: want a first line %q…", lines, prefix)
	}
}
