package trainer

import (
	"context"
	"testing"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/internal/datatest"
)

func TestAtCap(t *testing.T) {
	long := &data.Dataset{Batches: []data.Batch{{U: make([]float64, 4000), Y: make([]float64, 4000)}}}
	short := &data.Dataset{Batches: []data.Batch{{U: make([]float64, 1000), Y: make([]float64, 1000)}}}
	full := LinearTapGrid(long)
	if full[len(full)-1] != MaxLinearTaps {
		t.Fatalf("grid %v does not end at the cap %d", full, MaxLinearTaps)
	}
	cut := LinearTapGrid(short) // ends at 500: the record, not the cap
	tests := []struct {
		name string
		grid []int
		best int
		want bool
	}{
		{"best at the cap", full, MaxLinearTaps, true},
		{"best below the cap", full, 512, false},
		{"grid cut by the records", cut, cut[len(cut)-1], false},
		{"one length (the user's)", []int{MaxLinearTaps}, MaxLinearTaps, false},
	}
	for _, tt := range tests {
		if got := AtCap(tt.grid, tt.best); got != tt.want {
			t.Errorf("%s: AtCap(%v, %d) = %v, want %v", tt.name, tt.grid, tt.best, got, tt.want)
		}
	}
}

// TestMemoryBeyondCap: on a plant logged far faster than its band, whose
// memory outlasts MaxLinearTaps, the memory measured at a coarser
// rate is longer than the cap and within a factor of two of the plant's
// (99 % of its step response: 4.6 time constants); on broadband data the
// rate cannot be lowered and nothing is measured.
func TestMemoryBeyondCap(t *testing.T) {
	const tau = 500.0
	ctx := context.Background()
	memory, factor := MemoryBeyondCap(ctx, datatest.SlowPlant(1, 6, 4000, tau, 0.98), datatest.SlowPlant(2, 2, 4000, tau, 0.98), 1, 1, 0, 0)
	t.Logf("oversampled: memory %d samples at factor %d", memory, factor)
	if factor < 2 || memory <= MaxLinearTaps || memory < 4.6*tau/2 || memory > 2*4.6*tau {
		t.Errorf("oversampled: memory %d samples at factor %d: want factor ≥ 2 and a memory above %d within a factor of two of %.0f", memory, factor, MaxLinearTaps, 4.6*tau)
	}
	if memory, factor := MemoryBeyondCap(ctx, datatest.SlowPlant(1, 6, 4000, tau, 0), datatest.SlowPlant(2, 2, 4000, tau, 0), 1, 1, 0, 0); memory != 0 || factor != 1 {
		t.Errorf("broadband: memory %d at factor %d, want 0 at 1", memory, factor)
	}
}
