package trainer_test

import (
	"context"
	"fmt"
	"log"
	"math"
	"math/rand/v2"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/model"
	"github.com/passivenfir/gputrain/trainer"
)

// Train a small passive FB NFIR on mass-spring-damper data, keep the
// iteration with the best closed-loop validation Fit, and check it.
func ExampleTrain() {
	train, err := data.GenerateMSD(data.MSDConfig{Batches: 24, Seed: 1})
	if err != nil {
		log.Fatal(err)
	}
	val, err := data.GenerateMSD(data.MSDConfig{Batches: 6, Seed: 2})
	if err != nil {
		log.Fatal(err)
	}
	cfg := trainer.DefaultConfig() // the paper's MSD settings (m_N = 10, m_G = 50, exact passivity, …), smaller
	cfg.Structure.Branches, cfg.Iters, cfg.Epochs, cfg.Workers = 4, 4, 100, 1
	res, err := trainer.Train(context.Background(), cfg, train, val)
	if err != nil {
		log.Fatal(err)
	}
	ev, err := trainer.Evaluate(res.Model, val, 0)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("certified passive:", res.Cert.Passive)
	fmt.Println("closed-loop validation Fit above 80%:", ev.ClosedLoop.Median > 80) // a passive linear FIR: about 73 %
	// Output:
	// certified passive: true
	// closed-loop validation Fit above 80%: true
}

// Records that begin mid-motion: the model's memory starts at rest, so its
// first outputs miss the response to the input before the record began.
// Config.Skip leaves those samples out of the loss; here, noise-free data of
// a passive FIR, the taps are then recovered exactly, and without it they
// are biased.
func ExampleConfig_skip() {
	const taps = 20
	truth, err := data.PassiveFIR(1, taps, 0.1)
	if err != nil {
		log.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	d := &data.Dataset{Name: "mid-motion", Ts: 1}
	for range 3 {
		u := make([]float64, 400)
		for i := range u {
			u[i] = rng.NormFloat64()
		}
		y := truth.Simulate(u)
		d.Batches = append(d.Batches, data.Batch{U: u[100:], Y: y[100:]}) // the first 100 samples are not recorded
	}
	for _, skip := range []int{0, taps - 1} {
		cfg := trainer.DefaultConfig()
		cfg.Structure = model.Structure{LinearTaps: taps}
		cfg.GammaG, cfg.Rho, cfg.Skip = 1e-9, 0, skip
		res, err := trainer.Train(context.Background(), cfg, d, nil)
		if err != nil {
			log.Fatal(err)
		}
		worst := 0.0
		for k, g := range res.Model.Lin {
			worst = math.Max(worst, math.Abs(g-truth[k]))
		}
		fmt.Printf("skip %2d: taps within 1e-6 of the truth: %v\n", skip, worst < 1e-6)
	}
	// Output:
	// skip  0: taps within 1e-6 of the truth: false
	// skip 19: taps within 1e-6 of the truth: true
}

// Members trains several seeds and returns their mean as one NFIR whose
// branches are the members' side by side, each FIR divided by the number of
// members: still an NFIR, still passive, and certified as one model.
func ExampleConfig_members() {
	train, err := data.GenerateMSD(data.MSDConfig{Batches: 12, Seed: 1})
	if err != nil {
		log.Fatal(err)
	}
	val, err := data.GenerateMSD(data.MSDConfig{Batches: 4, Seed: 2})
	if err != nil {
		log.Fatal(err)
	}
	cfg := trainer.DefaultConfig()
	cfg.Structure.Branches, cfg.Iters, cfg.Epochs, cfg.Workers = 3, 1, 20, 1
	cfg.Members = 4 // seeds 1, 2, 3, 4
	res, err := trainer.Train(context.Background(), cfg, train, val)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("branches:", res.Model.Branches)
	fmt.Println("certified passive:", res.Cert.Passive)
	// Output:
	// branches: 12
	// certified passive: true
}
