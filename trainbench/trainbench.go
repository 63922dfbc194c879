package trainbench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/trainer"
	"github.com/passivenfir/gputrain/zoo"
)

// Tol is how close to the final validation Fit, in points, counts as
// reached (issue 28: within 0.2 points).
const Tol = 0.2

// Case is a benchmark data set.
type Case struct {
	Name  string
	About string
	// Build returns the training and validation data, smaller when quick.
	Build func(ctx context.Context, quick bool) (train, val *data.Dataset, err error)
}

// Cases are the benchmark's data sets: the paper's mass-spring-damper
// training and validation sets (300 and 100 batches of 250 samples; 40 and
// 20 when quick), and the zoo's two-mass plant (zoo.Full; zoo.Quick when
// quick).
func Cases() []Case {
	return []Case{
		{"msd", "the paper's mass-spring-damper data (gen msd): 300 training and 100 validation batches of 250 samples",
			func(ctx context.Context, quick bool) (*data.Dataset, *data.Dataset, error) {
				nt, nv := 300, 100
				if quick {
					nt, nv = 40, 20
				}
				tr, err := data.GenerateMSD(data.MSDConfig{Batches: nt, Seed: 1})
				if err != nil {
					return nil, nil, err
				}
				va, err := data.GenerateMSD(data.MSDConfig{Batches: nv, Seed: 2})
				return tr, va, err
			}},
		{"twomass", "the zoo's two-mass plant (hardening spring, friction), multisine",
			func(ctx context.Context, quick bool) (*data.Dataset, *data.Dataset, error) {
				c, err := zoo.LookupCase("twomass")
				if err != nil {
					return nil, nil, err
				}
				size := zoo.Full
				if quick {
					size = zoo.Quick
				}
				tr, va, _, err := c.Build(ctx, size, 1)
				return tr, va, err
			}},
	}
}

// Point is the validation Fit at a wall time since training began.
type Point struct {
	Seconds float64 `json:"seconds"`
	ValFit  float64 `json:"val_fit"`
}

// Result is one case's run.
type Result struct {
	Case    string  `json:"case"`
	Samples int     `json:"samples"` // training samples
	Seconds float64 `json:"seconds"` // wall time of the whole training
	// FinalValFit is the returned model's median closed-loop validation
	// Fit, TimeToFit the wall time at which an iteration's closed-loop
	// validation Fit first came within Tol of it.
	FinalValFit float64 `json:"final_val_fit"`
	TimeToFit   float64 `json:"time_to_fit"`
	// ClosedLoop is the closed-loop validation Fit after each iteration;
	// Monitored the validation Fit Adam monitors after each epoch (open
	// loop by default).
	ClosedLoop []Point `json:"closed_loop"`
	Monitored  []Point `json:"monitored"`
	Error      string  `json:"error,omitempty"`
}

// Options select the cases and the schedule.
type Options struct {
	Cases []string // names from Cases (nil: all)
	// Quick trains on the smaller data for 2 iterations of at most 100
	// epochs (patience 30): a smoke run in about a minute, not the
	// headline figure.
	Quick    bool
	Workers  int // trainer.Config.Workers (0: GOMAXPROCS)
	Progress func(string)
}

// Config is the training configuration of a run: trainer's defaults, the
// paper's structure and schedule, with Quick's shorter schedule.
func Config(opt Options) trainer.Config {
	cfg := trainer.DefaultConfig()
	cfg.Workers = opt.Workers
	if opt.Quick {
		cfg.Iters, cfg.Epochs, cfg.Patience = 2, 100, 30
	}
	return cfg
}

// ErrCase reports an unknown case name.
var ErrCase = errors.New("trainbench: unknown case")

// Run trains every selected case in turn (one at a time, so that each has
// the machine's cores) and returns their results; a case that fails has
// its Error set and the others still run. A cancelled ctx stops at once
// with what was measured.
func Run(ctx context.Context, opt Options) ([]Result, error) {
	cases, err := selectCases(opt.Cases)
	if err != nil {
		return nil, err
	}
	var out []Result
	for _, c := range cases {
		r := run(ctx, c, opt)
		out = append(out, r)
		if opt.Progress != nil {
			opt.Progress(r.String())
		}
		if err := ctx.Err(); err != nil {
			return out, err
		}
	}
	return out, nil
}

func selectCases(names []string) ([]Case, error) {
	all := Cases()
	if len(names) == 0 {
		return all, nil
	}
	var out []Case
	for _, n := range names {
		found := false
		for _, c := range all {
			if c.Name == n {
				out, found = append(out, c), true
			}
		}
		if !found {
			var valid []string
			for _, c := range all {
				valid = append(valid, c.Name)
			}
			return nil, fmt.Errorf("%w %q; valid: %s", ErrCase, n, strings.Join(valid, ", "))
		}
	}
	return out, nil
}

func run(ctx context.Context, c Case, opt Options) Result {
	r := Result{Case: c.Name, FinalValFit: math.NaN(), TimeToFit: math.NaN()}
	train, val, err := c.Build(ctx, opt.Quick)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	r.Samples = train.Samples()
	cfg := Config(opt)
	cfg.Progress = func(e trainer.Event) {
		if e.Member > 0 || math.IsNaN(e.ValFit) {
			return
		}
		p := Point{e.Elapsed.Seconds(), e.ValFit}
		switch {
		case e.Stage == "eval" && e.Iter >= 0:
			r.ClosedLoop = append(r.ClosedLoop, p)
			if opt.Progress != nil {
				opt.Progress(fmt.Sprintf("%s: iter %d closed-loop val fit %.2f%% at %.1f s", c.Name, e.Iter+1, e.ValFit, p.Seconds))
			}
		case e.Stage == "adam" || e.Stage == "bptt":
			r.Monitored = append(r.Monitored, p)
		}
	}
	t0 := time.Now()
	res, err := trainer.Train(ctx, cfg, train, val)
	r.Seconds = time.Since(t0).Seconds()
	if err != nil {
		r.Error = err.Error()
	}
	if res != nil {
		r.FinalValFit = res.BestValFit
		r.TimeToFit = TimeToFit(r.ClosedLoop, r.FinalValFit, Tol)
	}
	return r
}

// TimeToFit is the time of the first point of curve whose Fit is within tol
// of final (NaN when none is).
func TimeToFit(curve []Point, final, tol float64) float64 {
	for _, p := range curve {
		if p.ValFit >= final-tol {
			return p.Seconds
		}
	}
	return math.NaN()
}

// String is the result's one-line summary.
func (r Result) String() string {
	if r.Error != "" && math.IsNaN(r.FinalValFit) {
		return fmt.Sprintf("%s: failed: %s", r.Case, r.Error)
	}
	return fmt.Sprintf("%s: %d samples, final closed-loop val fit %.2f%% reached (±%.1f) at %.1f s, training %.1f s",
		r.Case, r.Samples, r.FinalValFit, Tol, r.TimeToFit, r.Seconds)
}

// Markdown writes the results as a table, with the command that made them.
func Markdown(w io.Writer, rs []Result, command string) {
	fmt.Fprintf(w, "Command: `%s`\n\n", command)
	fmt.Fprintf(w, "| case | training samples | final closed-loop val Fit | time to it (±%.1f) | training time | closed-loop val Fit by iteration (s: %%) |\n|---|---|---|---|---|---|\n", Tol)
	for _, r := range rs {
		var curve []string
		for _, p := range r.ClosedLoop {
			curve = append(curve, fmt.Sprintf("%.0f: %.2f", p.Seconds, p.ValFit))
		}
		note := strings.Join(curve, ", ")
		if r.Error != "" {
			note += " (error: " + r.Error + ")"
		}
		fmt.Fprintf(w, "| %s | %d | %.2f %% | %.1f s | %.1f s | %s |\n", r.Case, r.Samples, r.FinalValFit, r.TimeToFit, r.Seconds, note)
	}
}

// MarshalJSON writes a Fit or time that was never measured (NaN) as null:
// JSON has no NaN.
func (r Result) MarshalJSON() ([]byte, error) {
	type plain Result
	num := func(v float64) *float64 {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil
		}
		return &v
	}
	return json.Marshal(struct {
		plain
		FinalValFit *float64 `json:"final_val_fit"`
		TimeToFit   *float64 `json:"time_to_fit"`
	}{plain(r), num(r.FinalValFit), num(r.TimeToFit)})
}
