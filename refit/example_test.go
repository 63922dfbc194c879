package refit_test

import (
	"context"
	"fmt"
	"slices"

	"github.com/passivenfir/gputrain/baselines"
	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/refit"
)

// A passive REN chosen on validation data held out of the training
// records is refitted on all of them, and kept where its closed-loop Fit
// on all of them does not fall.
func Example() {
	all, err := data.GenerateMSD(data.MSDConfig{Batches: 6, Seed: 7})
	if err != nil {
		panic(err)
	}
	part := &data.Dataset{Ts: all.Ts, Batches: slices.Clone(all.Batches[:4])} // the training part

	cfg := baselines.DefaultRENConfig()
	cfg.Epochs, cfg.Batch, cfg.LR, cfg.Workers = 40, 2, 1e-2, 1
	chosen, err := baselines.TrainREN(part, nil, cfg)
	if err != nil {
		panic(err)
	}
	refitted, err := refit.REN(context.Background(), chosen, cfg, all, refit.Options{Workers: 1})
	if err != nil {
		panic(err)
	}
	oc, err := refit.Keep(all, 0, chosen.Simulate, refitted.Simulate)
	if err != nil {
		panic(err)
	}
	fmt.Println("kept:", oc.Kept, "gain above 1 point:", oc.After > oc.Before+1)
	// Output:
	// kept: true gain above 1 point: true
}
