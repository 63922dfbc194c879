package trainer

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/zoo"
)

// TestCheckDataZoo: the data check calls every passive case of the zoo
// passive (13 dB noise and records cut mid-motion included) and flags
// every negative example, naming its cause.
func TestCheckDataZoo(t *testing.T) {
	for _, c := range append(zoo.Cases(), zoo.Negatives()...) {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			train, _, _, err := c.Build(context.Background(), zoo.Quick, 1)
			if err != nil {
				t.Fatal(err)
			}
			got, err := CheckData(context.Background(), train, 200)
			if err != nil {
				t.Fatal(err)
			}
			if got.Passive != c.Passive {
				t.Fatalf("Passive = %v, want %v (supply %.3g, %d of %d batches dip, gap %.3g points, causes %q)",
					got.Passive, c.Passive, got.Supply, got.DipBatches, got.Batches, got.PassiveGap, got.Causes)
			}
			t.Logf("gap %.2f points, NegativeRe %.3f, causes %q", got.PassiveGap, got.NegativeRe, got.Causes)
			if c.Passive {
				if len(got.Causes) != 0 {
					t.Errorf("a passive case with causes %q", got.Causes)
				}
				return
			}
			named := func(cause string) bool {
				return slices.ContainsFunc(got.Causes, func(s string) bool { return strings.HasPrefix(s, cause) })
			}
			switch c.Gen.Output {
			case zoo.Flipped:
				if len(got.Causes) == 0 || got.Causes[0] != CauseSign {
					t.Errorf("causes %q, want the sign first", got.Causes)
				}
			case zoo.Delayed:
				if !named(CauseDelay) || got.Delay < 1 || got.Delay > c.Gen.Delay {
					t.Errorf("causes %q, delay %d, want a delay of 1 to %d samples", got.Causes, got.Delay, c.Gen.Delay)
				}
			case zoo.Position:
				if !named(CauseNotCollocated) {
					t.Errorf("causes %q, want a non-collocated output", got.Causes)
				}
			}
		})
	}
}

func TestNegativeRe(t *testing.T) {
	white := make([]float64, spectrumPoints)
	for i := range white {
		white[i] = 1
	}
	for _, c := range []struct {
		name string
		g    data.FIR
		s    []float64
		want float64
	}{
		{"static gain", data.FIR{2}, white, 0},
		{"negative gain", data.FIR{-2}, white, -1},
		// Re G = cos ω, negative on half of [0, π]
		{"one-sample delay, white input", data.FIR{0, 1}, white, -0.5},
		{"no spectrum", data.FIR{0, 1}, make([]float64, spectrumPoints), 0},
	} {
		if got := negativeRe(c.g, c.s); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	// a one-sample delay at frequencies below π/2 only returns no energy
	low := make([]float64, spectrumPoints)
	for i := range spectrumPoints / 2 {
		low[i] = 1
	}
	if got := negativeRe(data.FIR{0, 1}, low); got != 0 {
		t.Errorf("delay, low band: %v, want 0", got)
	}
}

func TestInputSpectrum(t *testing.T) {
	// a sine at a grid frequency puts its power there
	const n, f = 4096, 37
	w := math.Pi * (f + 0.5) / spectrumPoints
	u := make([]float64, n)
	for i := range u {
		u[i] = math.Sin(w * float64(i))
	}
	s := inputSpectrum(&data.Dataset{Batches: []data.Batch{{U: u, Y: u}}})
	peak := 0
	for i, v := range s {
		if v > s[peak] {
			peak = i
		}
	}
	if peak != f || math.Abs(s[f]-n*n/4.0)/(n*n/4.0) > 1e-6 {
		t.Errorf("peak at %d (%.6g), want %d (%.6g)", peak, s[peak], f, n*n/4.0)
	}
}

// TestCheckDataRobot: the robot arm's collocated torque and velocity, a
// real passive plant with a long memory, pass (skipped without the data).
func TestCheckDataRobot(t *testing.T) {
	dir := data.RobotDir()
	if dir == "" {
		t.Skip("robot data not found (../shared/data/robot relative to the module root)")
	}
	train, _, err := data.Robot(dir)
	if err != nil {
		t.Fatal(err)
	}
	got, err := CheckData(context.Background(), train, 200)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Passive {
		t.Errorf("robot e: not passive (gap %.3g points, causes %q)", got.PassiveGap, got.Causes)
	}
}
