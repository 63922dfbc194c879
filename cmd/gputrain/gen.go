package main

import (
	"fmt"
	"strings"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/zoo"
)

func runGen(e *env, args []string) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
			genHelp(e.stdout)
			return errHelp
		}
		return usagef("which data set? the generators are %s: gputrain gen msd --batches N --seed S --out FILE.csv (gputrain gen list)", genGenerators())
	}
	switch args[0] {
	case "msd":
		return runGenMSD(e, args[1:])
	case "list":
		return runGenList(e, args[1:])
	}
	if p, err := zoo.Lookup(args[0]); err == nil {
		return runGenZoo(e, p, args[1:])
	}
	return usagef("unknown generator %q; the generators are %s (gputrain gen list)", args[0], genGenerators())
}

// maxGenSamples bounds the samples of one generated file, which is built
// in memory (three float64 per sample) before it is written.
const maxGenSamples = 50_000_000

func runGenMSD(e *env, args []string) error {
	fs := newFlags("gputrain gen msd")
	var (
		batches, samples int
		seed             uint64
		snr              optFloat
		out, config      string
		quiet, jsonOut   bool
	)
	fs.IntVar(&batches, "batches", 300, "number of batches (independent experiments)")
	fs.Uint64Var(&seed, "seed", 1, "random seed (same seed, same data)")
	fs.Var(&snr, "snr", "output signal-to-noise ratio in dB (white Gaussian noise on y; y_clean keeps the clean output); omit for noise-free data")
	fs.IntVar(&samples, "samples", 250, "samples per batch (Ts = 0.02 s)")
	fs.StringVar(&out, "out", "", "file to write (atomically): .csv (columns batch,u,y[,y_clean]), .npz or .mat")
	force := addForceFlag(fs)
	fs.StringVar(&config, "config", "", "TOML or YAML file of flag values")
	fs.BoolVar(&quiet, "quiet", false, "print nothing on success")
	fs.BoolVar(&jsonOut, "json", false, "print one JSON object on stdout: file, batches, samples, seed, snr (null when noise-free)")
	spec := flagSpec{
		usage: "gputrain gen msd --batches N --seed S [--snr DB] --out FILE.csv",
		about: `Simulate the paper's mass-spring-damper plant, m ẍ = u − k x − 0.5 ẋ − ẋ³ (m = 0.1 kg,
k = 10 N/m), output y = ẋ, sampled at Ts = 0.02 s, from zero initial state, driven by
multisine forces of peak 15 N. The paper uses 300 training, 100 validation and 100 test
batches; use different seeds for different splits.`,
		example: `gputrain gen msd --batches 300 --seed 1 --out train.csv
gputrain gen msd --batches 100 --seed 3 --snr 10 --out test-noisy.csv`,
	}
	if err := parseFlags(e, fs, spec, args); err != nil {
		return err
	}
	if batches < 1 {
		return usagef("--batches %d: must be ≥ 1", batches)
	}
	if samples < 2 {
		return usagef("--samples %d: must be ≥ 2", samples)
	}
	if int64(batches)*int64(samples) > maxGenSamples {
		return usagef("--batches %d × --samples %d: at most %d samples in one file (about 2 GB of CSV); write several files with different --seed", batches, samples, maxGenSamples)
	}
	if snr.set && !(snr.v >= -100 && snr.v <= 300) {
		return usagef("--snr %v: want a number of dB between -100 and 300", snr.v)
	}
	write, dest, err := genWriter(out, *force)
	if err != nil {
		return err
	}
	cfg := data.MSDConfig{Batches: batches, Seed: seed, Samples: samples}
	if snr.set {
		cfg.SNR = snr.v
		if cfg.SNR == 0 {
			cfg.SNR = 1e-12 // the generator reads an SNR of exactly 0 as "no noise"
		}
	}
	d, err := data.GenerateMSDContext(e.ctx, cfg)
	if e.ctx.Err() != nil {
		return failf("interrupted: nothing written")
	}
	if err != nil {
		return badInput(err)
	}
	if err := dest.write(func(p string) error { return write(p, d) }); err != nil {
		return failf("%v", err)
	}
	if jsonOut {
		r := map[string]any{"file": dest.target(), "batches": batches, "samples": samples, "seed": seed, "snr": nil}
		if snr.set {
			r["snr"] = snr.v
		}
		return writeJSON(e.stdout, r)
	}
	if quiet {
		return nil
	}
	noise := "noise-free"
	if snr.set {
		noise = fmt.Sprintf("SNR %g dB", snr.v)
	}
	fmt.Fprintf(e.stdout, "wrote %d batches × %d samples (%s, seed %d) to %s\n", batches, samples, noise, seed, dest.where())
	return nil
}
