package main

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/passivenfir/gputrain/data"
)

// TestMemoryNote: the note proposes resample's factor and the new --ts for
// oversampled data, and says that resampling would cut into the band of
// broadband data.
func TestMemoryNote(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	slow, broad := &data.Dataset{Ts: 0.001}, &data.Dataset{Ts: 0.001}
	for r := 0; r < 2; r++ {
		n := 4000
		u, y, w, v := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
		for i := range u {
			u[i] = math.Sin(2*math.Pi*0.004*float64(i)) + 0.5*math.Sin(2*math.Pi*0.009*float64(i)+float64(r))
			y[i] = math.Cos(2*math.Pi*0.004*float64(i)) + 0.2*math.Sin(2*math.Pi*0.009*float64(i))
			w[i], v[i] = rng.NormFloat64(), rng.NormFloat64()
		}
		slow.Batches = append(slow.Batches, data.Batch{U: u, Y: y})
		broad.Batches = append(broad.Batches, data.Batch{U: w, Y: v})
	}
	got := memoryNote(1000, slow)
	for _, want := range []string{"1000 taps", "1 s)", "gputrain resample --factor ", "train with --ts 0.0"} {
		if !strings.Contains(got, want) {
			t.Errorf("oversampled: note %q lacks %q", got, want)
		}
	}
	if got := memoryNote(1000, broad); !strings.Contains(got, "would cut into it") || strings.Contains(got, "--factor") {
		t.Errorf("broadband: note %q", got)
	}
}
