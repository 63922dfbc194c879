package search

import (
	"fmt"
	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/model"
	"github.com/passivenfir/gputrain/trainer"
	"runtime"
	"strings"
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

// ShortValidation reports whether the validation records val, scored
// after skip samples, are too short for the memories a search on train may
// try (MaxMemory, of base's fields that fixed marks and opt.MaxTaps):
// whether the longest of them scores fewer samples than that memory. A
// model simulated from rest over n samples never uses the taps of its FIRs
// past the n-th, so validation cannot tell apart the lengths beyond what
// it scores, nor the lifts' windows: the search still runs, but its choice
// of memory is then not the data's. scored is the most samples any record
// scores, memory MaxMemory's.
func ShortValidation(base model.Structure, fixed Fixed, opt Options, train, val *data.Dataset, skip int) (scored, memory int, short bool) {
	if val == nil || train == nil || len(train.Batches) == 0 {
		return 0, 0, false
	}
	for _, b := range val.Batches {
		scored = max(scored, b.Len()-skip)
	}
	memory = MaxMemory(base, fixed, opt, train)
	return scored, memory, scored < memory
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

// EstimateMemory is the peak memory of a search on train and val: the data
// once, and Workers candidates training side by side (one worker each) on
// the largest structures the search may build (the longest FIR of the
// grid), each estimated by trainer.EstimateMemory; the passive FIR's
// selection and the loop family train one model at a time and need less.
// train refuses a search whose estimate exceeds the available memory before
// it starts, as it does a single training run.
func EstimateMemory(base trainer.Config, fixed Fixed, opt Options, train, val *data.Dataset) trainer.MemoryEstimate {
	if opt.Workers <= 0 {
		opt.Workers = runtime.GOMAXPROCS(0)
	}
	s := &searcher{base: base, fixed: fixed, opt: opt, train: train, val: val}
	grid := linearGrid(train, opt)
	L := grid[len(grid)-1]
	if fixed.LinearTaps && base.Structure.LinearTaps > 0 {
		L = base.Structure.LinearTaps
	}
	shape := trainer.ShapeOf(train, val)
	// The linear FIR alone, at the longest length: one run with every worker.
	fir := base
	fir.Structure = model.Structure{LinearTaps: L}
	fir.Members = 1
	worst := trainer.EstimateMemory(fir, shape)
	var worstCand trainer.MemoryEstimate
	n := 0
	for _, c := range s.candidates(L) {
		n++
		if e := trainer.EstimateMemory(c.cfg, shape); e.Total > worstCand.Total {
			worstCand = e
		}
	}
	if n == 0 {
		return worst
	}
	par := float64(min(opt.Workers, n))
	var side trainer.MemoryEstimate
	for _, p := range worstCand.Parts {
		if p.Name != "data" {
			p.Bytes *= par
			p.Name = fmt.Sprintf("%s ×%.0f candidates side by side", p.Name, par)
			if !strings.Contains(p.Flags, "--workers") {
				p.Flags += ", --workers"
			}
		}
		side.Parts = append(side.Parts, p)
		side.Total += p.Bytes
	}
	if side.Total > worst.Total {
		return side
	}
	return worst
}
