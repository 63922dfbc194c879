// Package zoobench runs the model-class comparison (package compare) on
// every case of the plant zoo (package zoo) and reports it as one table: how
// the passive FIR, the paper's default NFIR, gputrain's chosen NFIR and the
// other classes a user would try do on plants nobody tuned for. Every
// choice a class makes is made on validation data; the test records
// (noise-free, starting at rest) only score.
package zoobench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/passivenfir/gputrain/classes"
	"github.com/passivenfir/gputrain/compare"
	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/zoo"
)

// Options configure Run.
type Options struct {
	Size    zoo.Size       // Quick or Full data
	Budget  classes.Budget // each class's training budget
	Cases   []string       // nil: every passive case of zoo.Cases
	Classes []string       // nil: every registered class
	Seed    uint64
	Workers int // 0: GOMAXPROCS
	// Progress, when set, receives one line per case and per class.
	Progress func(line string)
}

// Result is one case's comparison.
type Result struct {
	Case    zoo.Case
	Table   compare.Table
	Error   string // the case could not run at all
	Seconds float64
}

// Report is the whole benchmark.
type Report struct {
	Options Options
	Results []Result
	Seconds float64
	Machine string
}

// Run compares the classes on every case. When ctx is cancelled it returns
// the cases finished so far with ctx's error.
func Run(ctx context.Context, opt Options) (Report, error) {
	rep := Report{Options: opt, Machine: fmt.Sprintf("%s/%s, %d CPUs", runtime.GOOS, runtime.GOARCH, runtime.NumCPU())}
	cases := zoo.Cases()
	if opt.Cases != nil {
		cases = cases[:0:0]
		for _, n := range opt.Cases {
			c, err := zoo.LookupCase(n)
			if err != nil {
				return rep, fmt.Errorf("zoobench: %w", err)
			}
			cases = append(cases, c)
		}
	}
	for _, n := range opt.Classes {
		if _, err := classes.Lookup(n); err != nil {
			return rep, fmt.Errorf("zoobench: %w", err)
		}
	}
	start := time.Now()
	say := func(format string, a ...any) {
		if opt.Progress != nil {
			opt.Progress(fmt.Sprintf(format, a...))
		}
	}
	for _, c := range cases {
		if err := ctx.Err(); err != nil {
			rep.Seconds = time.Since(start).Seconds()
			return rep, err
		}
		t0 := time.Now()
		r := Result{Case: c}
		train, val, test, err := c.Build(ctx, opt.Size, opt.Seed)
		val = Measured(val)
		if err != nil {
			r.Error = err.Error()
		} else {
			say("case %s: %s", c.Name, c.Doc)
			copt := compare.Options{Only: opt.Classes, Budget: opt.Budget, Seed: opt.Seed, Workers: opt.Workers}
			if opt.Progress != nil {
				copt.Progress = func(l string) { opt.Progress("  " + c.Name + ": " + l) }
			}
			r.Table, err = compare.Run(ctx, train, val, test, copt)
			if err != nil && !errors.Is(err, context.Canceled) {
				r.Error = err.Error()
			}
		}
		r.Seconds = time.Since(t0).Seconds()
		rep.Results = append(rep.Results, r)
		if ctx.Err() != nil {
			break
		}
	}
	rep.Seconds = time.Since(start).Seconds()
	return rep, ctx.Err()
}

// columns are the classes of the report, in a fixed order: the linear and
// passive ones first, then the others, then any further registered class.
func (rep Report) columns() []string {
	order := []string{"fir", "nfir-fb", "nfir-ff", "nfir", "ren", "n4sid", "mlp", "gru"}
	seen := map[string]bool{}
	for _, r := range rep.Results {
		for _, row := range r.Table.Rows {
			seen[row.Class] = true
		}
	}
	var cols []string
	for _, n := range order {
		if seen[n] {
			cols = append(cols, n)
			delete(seen, n)
		}
	}
	var rest []string
	for n := range seen {
		rest = append(rest, n)
	}
	slices.Sort(rest)
	return append(cols, rest...)
}

// Markdown writes the report as the table of docs/ZOO.md: per case the
// test Fit of every class (✓: certified passive; np: no passivity
// certificate), the data check's verdict and the time.
func (rep Report) Markdown(w io.Writer, command string) {
	cols := rep.columns()
	fmt.Fprintf(w, "Command: `%s`  \nMachine: %s; %.0f s in all.\n\n", command, rep.Machine, rep.Seconds)
	fmt.Fprint(w, "Median closed-loop **test** Fit [%] over the test records (noise-free, from rest); every choice is made on validation data. ")
	fmt.Fprint(w, "✓ certified passive, np not passive (or not certified); in parentheses the number of parameters. `nfir-fb`: the paper's default structure; `nfir`: what `train` chooses with no structure flag; `loop`: the passive feedback loop of two NFIRs alone.\n\n")
	fmt.Fprintf(w, "| case | Ts | data check | %s | time |\n|---|---|---|%s---|\n", strings.Join(cols, " | "), strings.Repeat("---|", len(cols)))
	for _, r := range rep.Results {
		check := "–"
		if c := r.Table.Check; c != nil {
			check = "passive"
			if !c.Passive {
				check = "NOT passive: " + strings.Join(c.Causes, "; ")
			}
		}
		ts := "–"
		if r.Table.Train != nil && r.Table.Train.Ts > 0 {
			ts = fmt.Sprintf("%g s", r.Table.Train.Ts)
		}
		fmt.Fprintf(w, "| %s | %s | %s |", r.Case.Name, ts, check)
		for _, col := range cols {
			fmt.Fprintf(w, " %s |", cell(r, col))
		}
		fmt.Fprintf(w, " %.0f s |\n", r.Seconds)
	}
	var errs []string
	for _, r := range rep.Results {
		if r.Error != "" {
			errs = append(errs, fmt.Sprintf("- %s: %s", r.Case.Name, r.Error))
		}
		for _, row := range r.Table.Rows {
			if row.Error != "" {
				errs = append(errs, fmt.Sprintf("- %s, %s: %s", r.Case.Name, row.Class, row.Error))
			}
		}
	}
	if len(errs) > 0 {
		fmt.Fprintf(w, "\nCould not run:\n%s\n", strings.Join(errs, "\n"))
	}
}

func cell(r Result, class string) string {
	for _, row := range r.Table.Rows {
		if row.Class != class {
			continue
		}
		if row.Error != "" {
			return "fails"
		}
		f := row.TestFit
		if math.IsNaN(f) {
			f = row.ValFit
		}
		mark := "np"
		if row.Passive {
			mark = "✓"
		}
		return fmt.Sprintf("%.1f %s (%d)", f, mark, row.Params)
	}
	return "–"
}

// Measured returns d as a user has it: the measured outputs only, without
// the noise-free ones a simulation keeps (YClean). The zoo gives the
// classes their validation data through it, so that every choice made on
// validation (early stopping, the structure search, the loop family's
// mean) sees the noise a user's validation file has; only the test
// records are scored against the clean output. d is not modified; nil
// stays nil.
func Measured(d *data.Dataset) *data.Dataset {
	if d == nil {
		return nil
	}
	c := *d
	c.Batches = slices.Clone(d.Batches)
	for i := range c.Batches {
		c.Batches[i].YClean = nil
	}
	return &c
}
