package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/passivenfir/gputrain/internal/atomicfile"
	"github.com/passivenfir/gputrain/trainbench"
)

// runBenchTrain is "gputrain bench train": time to a trained model
// (package trainbench).
func runBenchTrain(e *env, args []string) error {
	fs := newFlags("gputrain bench train")
	var (
		quick, quiet, jsonOut bool
		out, cases            string
		workers               int
		peer                  peerFlags
	)
	fs.BoolVar(&quick, "quick", false, "smaller data and 2 iterations of at most 100 epochs: a smoke run, not the headline figure")
	fs.StringVar(&out, "out", "", "Markdown report to write (atomically)")
	fs.StringVar(&cases, "cases", "", "comma-separated cases: msd, twomass (default: both)")
	fs.IntVar(&workers, "workers", 0, "goroutines of the training (0: one per CPU)")
	peer.register(fs)
	fs.BoolVar(&quiet, "quiet", false, "no progress lines")
	fs.BoolVar(&jsonOut, "json", false, `print {"results": [{"case", "samples", "seconds", "final_val_fit", "time_to_fit", "closed_loop": [{"seconds", "val_fit"}], "monitored": […], "error"}]} on stdout`)
	spec := flagSpec{
		usage: "gputrain bench train [--quick] [--cases msd,twomass] [--torch [--python PY]] [--out FILE.md] [--json]",
		about: fmt.Sprintf(`Time to a trained model: Algorithm 1 with the paper's structure given explicitly (train's
defaults: FB, 10 branches × 50 taps, R1 = R2 = 1, hidden 4,4, exact θ_G steps; no structure search)
on the paper's mass-spring-damper data and on the zoo's two-mass plant, one case at a time. Reports
the wall time at which an iteration's closed-loop validation Fit first came within %.1f points of the
final one, the whole training time, and the curve of validation Fit against time. Compare it with a
peer (the previous commit) run the same way on the same machine. --torch runs the same Algorithm 1
in PyTorch on the CPU after each case (same data, same starting model, same settings; needs python3
with torch and cvxopt) and reports both and the ratio of their times to the Fit both reach.`, trainbench.Tol),
		example: `gputrain bench train --quick
gputrain bench train --cases msd --json > train.json
gputrain bench train --cases msd --torch --python /usr/bin/python3`,
	}
	if err := parseFlags(e, fs, spec, args); err != nil {
		return err
	}
	if workers < 0 {
		return usagef("--workers %d: must be ≥ 0", workers)
	}
	opt := trainbench.Options{Quick: quick, Workers: workers}
	if cases != "" {
		for _, c := range strings.Split(cases, ",") {
			opt.Cases = append(opt.Cases, strings.TrimSpace(c))
		}
	}
	if out != "" {
		if err := checkOutPath("out", out, nil); err != nil {
			return err
		}
	}
	if !quiet {
		opt.Progress = func(l string) { fmt.Fprintln(e.stderr, l) }
	}
	if peer.on {
		return runBenchTrainPeer(e, opt, peer, out, jsonOut, args)
	}
	res, err := trainbench.Run(e.ctx, opt)
	if err != nil && res == nil {
		return badInput(fmt.Errorf("--cases: %w", err))
	}
	var md bytes.Buffer
	trainbench.Markdown(&md, res, strings.TrimSpace("gputrain bench train "+strings.Join(args, " ")))
	if out != "" && len(res) > 0 {
		if werr := atomicfile.Write(out, func(w io.Writer) error { _, err := w.Write(md.Bytes()); return err }); werr != nil {
			return failf("--out %s: %v", out, werr)
		}
	}
	if jsonOut {
		if werr := writeJSON(e.stdout, map[string]any{"results": res}); werr != nil {
			return werr
		}
	} else {
		e.stdout.Write(md.Bytes())
	}
	if err != nil {
		return failf("interrupted after %d cases: %v", len(res), err)
	}
	for _, r := range res {
		if r.Error != "" {
			return failf("%s: %s", r.Case, r.Error)
		}
	}
	return nil
}
