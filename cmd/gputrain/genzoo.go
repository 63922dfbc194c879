package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/zoo"
)

// genGenerators names every generator of gputrain gen, for messages.
func genGenerators() string {
	return "msd, " + strings.Join(zoo.Names(), ", ")
}

// genHelp is the text of gputrain gen --help.
func genHelp(w io.Writer) {
	fmt.Fprint(w, "Usage: gputrain gen GENERATOR [flags] --out FILE.csv\n       gputrain gen list\n\nData generators:\n")
	fmt.Fprintf(w, "  %-9s %s\n", "msd", "the paper's nonlinear mass-spring-damper plant (Section VI-A)")
	for _, p := range zoo.Plants() {
		fmt.Fprintf(w, "  %-9s %s\n", p.Name, p.Doc)
	}
	fmt.Fprint(w, "\nRun 'gputrain gen list' for the plants' sampling times, 'gputrain gen GENERATOR --help' for the flags and physics.\n")
}

// runGenList prints the zoo's plants, one line each (or JSON).
func runGenList(e *env, args []string) error {
	fs := newFlags("gputrain gen list")
	var jsonOut bool
	fs.BoolVar(&jsonOut, "json", false, "print a JSON array of the plants: name, kind, doc, input, output, ts, amplitude, samples_per_period")
	spec := flagSpec{
		usage:   "gputrain gen list [--json]",
		about:   "List the passive nonlinear plants of the zoo that 'gputrain gen PLANT' simulates, with their default sampling time and peak input.",
		example: "gputrain gen list\ngputrain gen rlc --batches 20 --out rlc.csv",
	}
	if err := parseFlags(e, fs, spec, args); err != nil {
		return err
	}
	if jsonOut {
		var rows []map[string]any
		for _, p := range zoo.Plants() {
			rows = append(rows, map[string]any{"name": p.Name, "kind": p.Kind, "doc": p.Doc, "input": p.Input, "output": p.Output,
				"ts": p.Ts, "amplitude": p.Amplitude, "samples_per_period": p.SamplesPerPeriod(p.Ts)})
		}
		return writeJSON(e.stdout, rows)
	}
	fmt.Fprintf(e.stdout, "%-9s %-10s %-8s %-6s %s\n", "plant", "kind", "Ts (s)", "S/per", "")
	for _, p := range zoo.Plants() {
		fmt.Fprintf(e.stdout, "%-9s %-10s %-8g %-6.1f %s\n", p.Name, p.Kind, p.Ts, p.SamplesPerPeriod(p.Ts), p.Doc)
	}
	fmt.Fprint(e.stdout, "\nS/per: samples per period of the fastest resonance. Every output is the mean velocity (current)\nover the sampling interval, so that Σu·y·Ts is the energy delivered: each pair is passive.\n")
	return nil
}

// runGenZoo simulates the zoo plant p into a data file.
func runGenZoo(e *env, p zoo.Plant, args []string) error {
	fs := newFlags("gputrain gen " + p.Name)
	var (
		batches, samples, drop int
		periods                int
		alternate              bool
		seed                   uint64
		snr, amplitude, ts     optFloat
		excitation             zoo.Excitation
		out, config            string
		quiet, jsonOut         bool
	)
	fs.IntVar(&batches, "batches", 20, "number of records (independent experiments, each from rest)")
	fs.IntVar(&samples, "samples", 500, "samples per record")
	fs.Uint64Var(&seed, "seed", 1, "random seed (same seed, same data)")
	fs.Var(&excitation, "excitation", "input signal: multisine (16 random sines in the plant's band), noise (filtered, of varying amplitude), prbs (random steps ±amplitude), chirp (a log sweep over the band, each record's amplitude drawn between 0.3 and 1 times --amplitude) or aprbs (random levels in ±amplitude held for 1/8 to 2 resonance periods)")
	fs.Var(&amplitude, "amplitude", fmt.Sprintf("peak |u| (default %g, in %s)", p.Amplitude, p.Input))
	fs.Var(&ts, "ts", fmt.Sprintf("sampling time in seconds (default %g)", p.Ts))
	fs.Var(&snr, "snr", "output signal-to-noise ratio in dB (white Gaussian noise on y; y_clean keeps the clean output); omit for noise-free data")
	fs.IntVar(&periods, "periods", 0, "repeat the excitation this many times within each record (2 or more: the periods of one measured input, as identification experiments take them; 0: no repeat)")
	fs.BoolVar(&alternate, "alternate", false, "with --periods: flip the sign of every other period (u(t+P) = −u(t), the halves of an odd multisine)")
	fs.IntVar(&drop, "drop", 0, "samples simulated and cut off at the start of each record, which then starts mid-motion (not passive from its first sample)")
	fs.StringVar(&out, "out", "", "file to write (atomically): .csv (columns batch,u,y[,y_clean]), .npz or .mat")
	force := addForceFlag(fs)
	fs.StringVar(&config, "config", "", "TOML or YAML file of flag values")
	fs.BoolVar(&quiet, "quiet", false, "print nothing on success")
	fs.BoolVar(&jsonOut, "json", false, "print one JSON object on stdout: file, plant, batches, samples, seed, ts, excitation, amplitude, snr (null when noise-free), periods, alternate")
	spec := flagSpec{
		usage: fmt.Sprintf("gputrain gen %s [--batches N --samples T --seed S --excitation multisine|noise|prbs|chirp|aprbs --periods P [--alternate] --amplitude A --ts S --snr DB] --out FILE.csv", p.Name),
		about: fmt.Sprintf(`Simulate the zoo plant %s: %s.
Input: %s; output: %s over each sampling interval.

%s`, p.Name, p.Doc, p.Input, p.Output, p.Physics),
		example: fmt.Sprintf("gputrain gen %[1]s --batches 20 --seed 1 --out train.csv\ngputrain gen %[1]s --batches 5 --seed 2 --excitation prbs --snr 20 --out val.csv", p.Name),
	}
	if err := parseFlags(e, fs, spec, args); err != nil {
		return err
	}
	if int64(batches)*int64(samples+max(drop, 0)) > maxGenSamples {
		return usagef("--batches %d × --samples %d: at most %d samples in one file; write several files with different --seed", batches, samples, maxGenSamples)
	}
	if snr.set && !(snr.v >= -100 && snr.v <= 300) {
		return usagef("--snr %v: want a number of dB between -100 and 300", snr.v)
	}
	write, dest, err := genWriter(out, *force)
	if err != nil {
		return err
	}
	cfg := zoo.Config{Batches: batches, Samples: samples, Seed: seed, Excitation: excitation, Drop: drop,
		Amplitude: amplitude.v, Ts: ts.v, Periods: periods, Alternate: alternate}
	if amplitude.set && amplitude.v == 0 {
		return usagef("--amplitude 0: want a peak |u| > 0")
	}
	if ts.set && ts.v == 0 {
		return usagef("--ts 0: want a sampling time > 0")
	}
	if snr.set {
		cfg.SNR = snr.v
		if cfg.SNR == 0 {
			cfg.SNR = 1e-12 // the generator reads an SNR of exactly 0 as "no noise"
		}
	}
	if cfg, err = cfg.Check(p); err != nil {
		// the library's field errors, one per line, in flag terms
		return usagef("%s", strings.ReplaceAll(err.Error(), "\n", "; "))
	}
	d, err := zoo.Generate(e.ctx, p, cfg)
	if e.ctx.Err() != nil {
		return failf("interrupted: nothing written")
	}
	if errors.Is(err, zoo.ErrConfig) {
		return badInput(err)
	}
	if err != nil {
		return failf("%v", err)
	}
	if err := dest.write(func(p string) error { return write(p, d) }); err != nil {
		return failf("%v", err)
	}
	if jsonOut {
		r := map[string]any{"file": dest.target(), "plant": p.Name, "batches": batches, "samples": samples, "seed": seed,
			"ts": cfg.Ts, "excitation": cfg.Excitation.String(), "amplitude": cfg.Amplitude, "snr": nil,
			"periods": cfg.Periods, "alternate": cfg.Alternate}
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
	fmt.Fprintf(e.stdout, "wrote %d records × %d samples of %s (Ts %g s, %v of peak %g, %s, seed %d) to %s\n",
		batches, samples, p.Name, cfg.Ts, cfg.Excitation, cfg.Amplitude, noise, seed, dest.where())
	return nil
}

// genWriter checks --out (required, a known extension, writable) and
// returns the writer for its format.
func genWriter(out string, force bool) (func(string, *data.Dataset) error, *outFile, error) {
	return dataWriter(out, force, nil)
}

// dataWriter checks --out (dataWriter's inputs are the command's input
// files, which it may not name) and returns the writer for its format.
func dataWriter(out string, force bool, inputs map[string]string) (func(string, *data.Dataset) error, *outFile, error) {
	if out == "" {
		return nil, nil, usagef("--out FILE is required (.csv, .npz or .mat)")
	}
	write := data.WriteCSV
	switch strings.ToLower(filepath.Ext(out)) {
	case ".csv":
	case ".npz":
		write = data.WriteNPZ
	case ".mat":
		write = data.WriteMAT
	default:
		return nil, nil, usagef("--out %s: unknown extension %q; use .csv, .npz or .mat", out, filepath.Ext(out))
	}
	dest, err := newOutFile("out", out, force, inputs)
	if err != nil {
		return nil, nil, err
	}
	return write, dest, nil
}
