package search

import (
	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/model"
	"github.com/passivenfir/gputrain/trainer"
)

// MaxMemory returns the longest memory (model.Structure.Memory) of a model
// Select may choose from train, given base's fields that fixed marks and
// opt.MaxTaps. It is the lead-in that validation data held out of the tails
// of the same records need (data.HoldOutTails): every candidate is then
// scored with its memory warm, and all on the same samples.
func MaxMemory(base model.Structure, fixed Fixed, opt Options, train *data.Dataset) int {
	grid := linearGrid(train, opt)
	L := grid[len(grid)-1]
	if fixed.LinearTaps && base.LinearTaps > 0 {
		L = base.LinearTaps
	}
	// The linear FIR has L taps, the loops' filters (loop.Shapes) and the
	// NFIR candidates' at most max(8, L), their windows 4 samples.
	m := max(8, L)
	for _, f := range []struct {
		fixed bool
		v     int
	}{{fixed.Taps, base.Taps}, {fixed.R1, base.R1}, {fixed.R2, base.R2}, {fixed.LinearTaps, base.LinearTaps}} {
		if f.fixed {
			m = max(m, f.v)
		}
	}
	return m
}

// linearGrid is the grid of linear FIR lengths the search tries on train
// (trainer.LinearTapGrid up to opt.MaxTaps), from short to long.
func linearGrid(train *data.Dataset, opt Options) []int {
	grid := trainer.LinearTapGrid(train)
	if opt.MaxTaps > 0 {
		for len(grid) > 1 && grid[len(grid)-1] > opt.MaxTaps {
			grid = grid[:len(grid)-1]
		}
	}
	return grid
}
