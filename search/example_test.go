package search_test

import (
	"context"
	"fmt"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/loop"
	"github.com/passivenfir/gputrain/search"
	"github.com/passivenfir/gputrain/trainer"
)

// Select as train runs it with no structure flag: the paper's settings for
// everything but the structure, the search's own schedule, the loop family
// competing. (Not run as a test: a real search takes minutes.)
func ExampleSelect() {
	train, _ := data.GenerateMSD(data.MSDConfig{Batches: 60, Seed: 1})
	val, _ := data.GenerateMSD(data.MSDConfig{Batches: 20, Seed: 2})
	cfg := trainer.DefaultConfig()
	cfg.Scale = "auto"
	cfg.Iters, cfg.Epochs, cfg.Patience = search.DefaultIters, search.DefaultEpochs, search.DefaultPatience
	lc := loop.DefaultConfig()
	res, err := search.Select(context.Background(), cfg, search.Fixed{}, search.Options{AutoDecay: true, Loop: &lc}, train, val)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("chosen %s: validation Fit %.1f%% (passive FIR of %d taps: %.1f%%)\n", res.Chosen, res.ValFit(), res.LinearTaps, res.LinearFit)
	for _, r := range res.Rows {
		fmt.Printf("  %-50s rung %d  %.1f%%\n", r.Name, r.Rung, r.ValFit)
	}
}
