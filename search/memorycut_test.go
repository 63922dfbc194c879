package search

import (
	"testing"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/trainer"
)

func TestMemoryCut(t *testing.T) {
	long := &data.Dataset{Batches: []data.Batch{{U: make([]float64, 4000), Y: make([]float64, 4000)}}}
	short := &data.Dataset{Batches: []data.Batch{{U: make([]float64, 1000), Y: make([]float64, 1000)}}}
	full := trainer.LinearTapGrid(long)
	if full[len(full)-1] != trainer.MaxLinearTaps {
		t.Fatalf("grid %v does not end at the cap %d", full, trainer.MaxLinearTaps)
	}
	cut := trainer.LinearTapGrid(short) // ends at 500: the record, not the cap
	tests := []struct {
		name string
		grid []int
		best int
		want bool
	}{
		{"best at the cap", full, trainer.MaxLinearTaps, true},
		{"best below the cap", full, 512, false},
		{"grid cut by the records", cut, cut[len(cut)-1], false},
		{"one length (the user's)", []int{trainer.MaxLinearTaps}, trainer.MaxLinearTaps, false},
	}
	for _, tt := range tests {
		if got := memoryCut(tt.grid, tt.best); got != tt.want {
			t.Errorf("%s: memoryCut(%v, %d) = %v, want %v", tt.name, tt.grid, tt.best, got, tt.want)
		}
	}
}
