package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/passivenfir/gputrain/classes"
	"github.com/passivenfir/gputrain/internal/atomicfile"
	"github.com/passivenfir/gputrain/zoo"
	"github.com/passivenfir/gputrain/zoobench"
)

// runBenchZoo is "gputrain bench zoo": compare on every plant-zoo case.
func runBenchZoo(e *env, args []string) error {
	fs := newFlags("gputrain bench zoo")
	var (
		quick, quiet, jsonOut bool
		out, cases            string
		only                  classes.List
		workers               int
		seed                  uint64
	)
	fs.BoolVar(&quick, "quick", false, "quick data sizes and training budgets (every class on every case in minutes)")
	fs.StringVar(&out, "out", "", "Markdown report to write (atomically), e.g. docs/ZOO.md")
	fs.StringVar(&cases, "cases", "", "comma-separated zoo cases (default: every passive case; 'gputrain gen list' names the plants)")
	fs.Var(&only, "only", "comma-separated classes (default: every registered class)")
	fs.IntVar(&workers, "workers", 0, "goroutines in all (0: one per CPU)")
	fs.Uint64Var(&seed, "seed", 1, "seed of the data and the training")
	fs.BoolVar(&quiet, "quiet", false, "no progress lines")
	fs.BoolVar(&jsonOut, "json", false, `print {"cases": [{"case", "seconds", "error", "table"}], "seconds"} on stdout`)
	spec := flagSpec{
		usage: "gputrain bench zoo [--quick] [--cases a,b] [--only fir,nfir,…] [--out docs/ZOO.md] [--json]",
		about: `Run 'gputrain compare' on every passive case of the plant zoo (package zoo): the passive FIR,
the paper's default NFIR, the NFIR gputrain chooses, and the other classes, each trained and selected on
the case's validation data and scored on its noise-free test records. Prints one table (Markdown with
--out) of test Fit, certified passive or not, and time.`,
		example: `gputrain bench zoo --quick --out docs/ZOO.md
gputrain bench zoo --cases twomass,rlc-noisy13 --only fir,nfir,gru`,
	}
	if err := parseFlags(e, fs, spec, args); err != nil {
		return err
	}
	if workers < 0 {
		return usagef("--workers %d: must be ≥ 0", workers)
	}
	opt := zoobench.Options{Size: zoo.Full, Budget: classes.Full, Seed: seed, Workers: workers}
	if quick {
		opt.Size, opt.Budget = zoo.Quick, classes.Quick
	}
	if len(only) > 0 {
		opt.Classes = only
	}
	if cases != "" {
		for _, c := range strings.Split(cases, ",") {
			if _, err := zoo.LookupCase(strings.TrimSpace(c)); err != nil {
				return usagef("--cases: %v", err)
			}
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
	rep, err := zoobench.Run(e.ctx, opt)
	command := "gputrain bench zoo " + strings.Join(args, " ")
	var md bytes.Buffer
	rep.Markdown(&md, strings.TrimSpace(command))
	if out != "" && len(rep.Results) > 0 {
		if werr := atomicfile.Write(out, func(w io.Writer) error { _, err := w.Write(md.Bytes()); return err }); werr != nil {
			return failf("--out %s: %v", out, werr)
		}
	}
	if jsonOut {
		type jcase struct {
			Case    string  `json:"case"`
			Seconds float64 `json:"seconds"`
			Error   string  `json:"error,omitempty"`
			Table   any     `json:"table"`
		}
		var cs []jcase
		for _, r := range rep.Results {
			cs = append(cs, jcase{r.Case.Name, r.Seconds, r.Error, r.Table})
		}
		if werr := writeJSON(e.stdout, map[string]any{"cases": cs, "seconds": rep.Seconds}); werr != nil {
			return werr
		}
	} else {
		e.stdout.Write(md.Bytes())
	}
	if err != nil {
		return failf("interrupted after %d cases: %v", len(rep.Results), err)
	}
	return nil
}
