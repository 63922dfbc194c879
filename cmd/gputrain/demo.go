package main

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/kernels"
	"github.com/passivenfir/gputrain/trainer"
)

// demoQuick are the settings of demo --quick: the paper's model, trained on
// fewer batches for fewer epochs, so that the whole job takes well under a
// minute on two cores.
func demoQuick(c *trainer.Config) {
	c.Iters = 4
	c.Epochs = 30
	c.Patience = 10
	c.LR = 5e-3 // fewer, larger steps: the quick run trades a little fit for time
}

// demoFull caps train's schedule (up to 200 epochs, patience 100) so that
// the full demo finishes in about a minute on two cores; the full run is
// 'gputrain train' with the defaults (see docs/RESULTS.md).
func demoFull(c *trainer.Config) {
	c.Epochs = 100
	c.Patience = 30
}

// Batches of the paper's splits that the demo uses (300/100/100 in full).
const (
	quickTrain, quickVal, quickTest = 60, 20, 50
	fullTrain, fullVal, fullTest    = 300, 100, 100
)

func runDemo(e *env, args []string) error {
	fs := newFlags("gputrain demo")
	var (
		outDir, config string
		quick, quiet   bool
		jsonOut        bool
		seed           uint64
		snr            optFloat
		workers        int
		device         = trainer.DeviceCPU
	)
	fs.StringVar(&outDir, "out", "gputrain-demo", "directory for model.json and the plots (created if missing)")
	fs.BoolVar(&quick, "quick", false, "a smaller job (fewer batches and epochs) that finishes in under a minute")
	fs.Uint64Var(&seed, "seed", 1, "seed of the data and of the training")
	fs.Var(&snr, "snr", "measurement noise on y in dB (the paper also uses 10); omit for noise-free data")
	fs.IntVar(&workers, "workers", 0, "worker goroutines (0: one per CPU)")
	fs.Var(&device, "device", "cpu, or cuda (needs a binary built with -tags nfircuda)")
	fs.BoolVar(&quiet, "quiet", false, "no progress output")
	fs.BoolVar(&jsonOut, "json", false, "print the results as one JSON object on stdout (progress goes to stderr)")
	fs.StringVar(&config, "config", "", "TOML or YAML file of flag values")
	spec := flagSpec{
		usage: "gputrain demo [--quick] [--out DIR]",
		about: `The built-in default job, end to end: generate the paper's mass-spring-damper data
(300 training, 100 validation, 100 test batches), train a passive feedback NFIR with the paper's
structure (m_N = 10 branches of m_G = 50 taps, R1 = R2 = 1, 4×4 MLP, K = 5, exact passivity),
evaluate it on the test batches in closed and open loop, certify it, print a results table,
and write model.json and plots (fit, re_g, training; PNG and SVG) into --out. The epochs are
capped so that it finishes in a few minutes on two cores; --quick finishes in under a minute.`,
		example: `gputrain demo --quick
gputrain demo --out /tmp/demo --snr 10`,
	}
	if err := parseFlags(e, fs, spec, args); err != nil {
		return err
	}
	cfg := trainer.DefaultConfig()
	// train's default; the paper's data is at the reference scale, so a
	// noise-free demo trains exactly as with "none"
	cfg.Seed, cfg.Workers, cfg.Device, cfg.Scale = seed, workers, device, trainer.ScaleAuto
	nTrain, nVal, nTest := fullTrain, fullVal, fullTest
	if quick {
		demoQuick(&cfg)
		nTrain, nVal, nTest = quickTrain, quickVal, quickTest
	} else {
		demoFull(&cfg)
	}
	if workers < 0 {
		return usagef("--workers %d: must be ≥ 0 (0: one per CPU)", workers)
	}
	if device == trainer.DeviceCUDA {
		if _, err := kernels.NewBackend("cuda"); err != nil {
			return usagef("--device cuda: %v", err)
		}
	}
	if err := makeOutDir("out", outDir); err != nil {
		return err
	}
	prog := newProgress(e.stdout, e.stderr, quiet, jsonOut, cfg.Iters)
	prog.setMonitor(cfg.Monitor)
	start := time.Now()
	var snrs []float64
	if snr.set {
		s := snr.v
		if s == 0 {
			s = 1e-12 // the generator reads exactly 0 as "no noise"
		}
		snrs = append(snrs, s)
	}
	prog.note("generating mass-spring-damper data (seed %d) ...", seed)
	train, val, test, err := data.MSDSplits(seed, snrs...)
	if err != nil {
		return badInput(err)
	}
	train.Batches, val.Batches, test.Batches = train.Batches[:nTrain], val.Batches[:nVal], test.Batches[:nTest]
	prog.note("training a passive FB NFIR (m_N = %d, m_G = %d, K = %d, up to %d epochs per step) on %d batches, validating on %d ...",
		cfg.Structure.Branches, cfg.Structure.Taps, cfg.Iters, cfg.Epochs, train.Len(), val.Len())
	modelPath := filepath.Join(outDir, "model.json")
	extra := map[string]any{"data": "msd", "demo-seed": seed, "quick": quick}
	if snr.set {
		extra["snr"] = snr.v
	}
	oc, err := runTraining(e, trainJob{cfg: cfg, train: train, val: val, out: modelPath, plotDir: outDir,
		settings: settings(cfg, extra), prog: prog})
	if err != nil {
		return err
	}
	res := oc.res
	ev, err := trainer.Evaluate(res.Model, test, 0)
	if err != nil {
		return failf("evaluating on the test batches: %v", err)
	}
	if err := responsePlot(filepath.Join(outDir, "fit_test"), res.Model, test, 3, 0); err != nil {
		return err
	}
	cert, err := res.Model.Certify()
	if err != nil {
		return failf("certificate: %v", err)
	}
	elapsed := time.Since(start).Seconds()
	if jsonOut {
		return writeJSON(e.stdout, map[string]any{
			"fit":         map[string]any{"closed_loop": toSummaryJSON(ev.ClosedLoop), "open_loop": toSummaryJSON(ev.OpenLoop)},
			"certificate": cert, "model": modelPath, "plots": outDir, "seconds": elapsed,
			"train_batches": train.Len(), "val_batches": val.Len(), "test_batches": test.Len(), "quick": quick,
		})
	}
	w := e.stdout
	fmt.Fprintf(w, "\nResults on %d unseen test batches (Fit %% = 100·(1 − ‖y − ŷ‖/‖y‖)):\n", test.Len())
	fitTable(w, ev)
	fmt.Fprintf(w, "certificate: %s\n", certText(cert))
	fmt.Fprintf(w, "parameters: %d; wall time %.1fs\n", res.Model.NumParams(), elapsed)
	fmt.Fprintf(w, "wrote %s and plots (fit_test, fit, re_g, training; .png and .svg) to %s\n", modelPath, outDir)
	fmt.Fprintf(w, "next: gputrain certify --model %s; gputrain eval --model %s --data FILE\n", modelPath, modelPath)
	return nil
}
