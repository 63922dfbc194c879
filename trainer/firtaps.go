package trainer

import (
	"context"
	"fmt"
	"math"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/model"
	"github.com/passivenfir/gputrain/resample"
)

// MaxLinearTaps caps the grid of LinearTapGrid: an exact-mode θ_G solve
// beyond about 1000 taps takes minutes, and a plant whose memory is longer
// than 1000 samples is sampled too fast for a FIR anyway.
const MaxLinearTaps = 1000

// LinearTapGrid returns the lengths 8, 16, 32, … that SelectLinearTaps
// tries: doubling up to the smallest of MaxLinearTaps and half the shortest
// training record (a FIR longer than the records it is fitted on sees most
// of its taps only in part of each record), but at least 8, and then that
// limit itself: a plant whose memory lies between two doublings (200
// samples, say) is then not cut to the shorter one.
func LinearTapGrid(train *data.Dataset) []int {
	limit := MaxLinearTaps
	if train != nil {
		for _, b := range train.Batches {
			limit = min(limit, len(b.U)/2)
		}
	}
	grid := []int{8}
	for L := 16; L <= limit; L *= 2 {
		grid = append(grid, L)
	}
	if last := grid[len(grid)-1]; limit > last {
		grid = append(grid, limit)
	}
	return grid
}

// LinearTapsPatience is the number of successive lengths without a better
// validation Fit after which SelectLinearTaps stops: the Fit of a passive
// FIR rises with its length up to the plant's memory and then falls slowly
// as the extra taps fit noise.
const LinearTapsPatience = 2

// SelectLinearTaps trains a linear FIR (cfg with Structure{LinearTaps: L}:
// one convex solve each) for every L of grid in turn, from short to long,
// and returns the result with the best median closed-loop Fit on val. It
// stops after LinearTapsPatience lengths without improvement, and when ctx
// is cancelled (returning the best so far with ctx.Err()). cfg's Structure
// is replaced; its passivity, ridge, decay bound and scaling are kept, with
// a Decay of 0 meaning the length-adapted 0.93^(50/L) of train --decay auto.
// val must have records: the choice is made on held-out data. progress,
// when set, is told every length's Fit.
func SelectLinearTaps(ctx context.Context, cfg Config, train, val *data.Dataset, grid []int, progress func(taps int, valFit float64)) (*Result, error) {
	if val == nil || len(val.Batches) == 0 {
		return nil, fmt.Errorf("%w: choosing the FIR length needs validation data", ErrConfig)
	}
	if len(grid) == 0 {
		return nil, fmt.Errorf("%w: no FIR length to try", ErrConfig)
	}
	autoDecay := cfg.Decay == 0
	var best *Result
	bestFit, wait := math.Inf(-1), 0
	for _, L := range grid {
		c := cfg
		c.Structure = model.Structure{LinearTaps: L}
		c.Members, c.BPTTEpochs = 0, 0
		c.Progress = nil
		if autoDecay {
			c.Decay = math.Pow(DefaultConfig().Decay, 50/float64(L))
		}
		res, err := Train(ctx, c, train, val)
		if err != nil {
			if best != nil && ctx.Err() != nil {
				return best, ctx.Err()
			}
			return best, fmt.Errorf("trainer: FIR of %d taps: %w", L, err)
		}
		if progress != nil {
			progress(L, res.BestValFit)
		}
		if res.BestValFit > bestFit || best == nil {
			best, bestFit, wait = res, res.BestValFit, 0
			continue
		}
		if wait++; wait >= LinearTapsPatience {
			break
		}
	}
	return best, nil
}

// SelectMemory chooses the passive linear FIR whose length measures the
// plant's memory in samples, as train's structure search does by default:
// SelectLinearTaps over LinearTapGrid(train) with DefaultConfig on
// auto-scaled data and the length-adapted decay bound. skip and valSkip are
// the samples at the start of each training and validation record left out
// of the loss and of the Fit. The classes that size themselves by the
// memory without running the search (the loop's factors, the REN's slow
// start) call it.
func SelectMemory(ctx context.Context, train, val *data.Dataset, seed uint64, workers, skip, valSkip int) (*Result, error) {
	cfg := DefaultConfig()
	cfg.Scale, cfg.Decay = ScaleAuto, 0
	cfg.Seed, cfg.Workers, cfg.Skip, cfg.ValSkip = seed, workers, skip, valSkip
	return SelectLinearTaps(ctx, cfg, train, val, LinearTapGrid(train), nil)
}

// AtCap is whether best, the FIR length chosen from grid, is the longest of
// a grid of several lengths cut at MaxLinearTaps: SelectLinearTaps only
// keeps a longer length that validates above every shorter one, so the Fit
// was still rising where the grid ends and the plant's memory may be
// longer than any length tried.
func AtCap(grid []int, best int) bool {
	n := len(grid)
	return n > 1 && grid[n-1] == MaxLinearTaps && best == grid[n-1]
}

// MemoryBeyondCap measures the memory of a plant whose passive FIR
// validated best at MaxLinearTaps (AtCap): the training and validation
// data are decimated by the factor resample.Suggest proposes for the
// training data (their band sampled ten times), where the memory takes
// that many times fewer samples, and the passive FIR chosen there
// (SelectMemory, skip and valSkip in samples of the data's own rate) gives
// the memory at the data's own rate as its length times the factor. It
// returns memory 0 where the data need their rate, a record is too short
// to decimate, or the FIR fails. The RENs need the memory: their steps
// shrink with it (baselines.RENConfig.Memory), and on a two-mass plant
// logged at 1 ms the capped 1000 samples left one at 59 % validation Fit
// where 2000 took it past 80 % (docs/BENCHMARKS.md, session 40).
func MemoryBeyondCap(ctx context.Context, train, val *data.Dataset, seed uint64, workers, skip, valSkip int) (memory, factor int) {
	factor, _ = resample.Suggest(train)
	if factor < 2 {
		return 0, factor
	}
	tr, err := resample.Decimate(train, factor)
	if err != nil {
		return 0, factor
	}
	va, err := resample.Decimate(val, factor)
	if err != nil {
		return 0, factor
	}
	ceil := func(n int) int { return (n + factor - 1) / factor }
	fir, err := SelectMemory(ctx, tr, va, seed, workers, ceil(skip), ceil(valSkip))
	if fir == nil || err != nil {
		return 0, factor
	}
	return fir.Model.LinearTaps * factor, factor
}
