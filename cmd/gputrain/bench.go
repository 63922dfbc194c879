package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/passivenfir/gputrain/convex"
	"github.com/passivenfir/gputrain/convex/kyp"
	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/graph"
	"github.com/passivenfir/gputrain/kernels"
	"github.com/passivenfir/gputrain/model"
	"github.com/passivenfir/gputrain/trainer"
)

func runBench(e *env, args []string) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
			fmt.Fprint(e.stdout, "Usage: gputrain bench qp|epoch|train|zoo [flags]\n\n  qp     the θ_G solver on the paper's Table I grid (sampled, exact, KYP)\n  epoch  one open-loop and one closed-loop (BPTT) training epoch\n  train  time to a trained model with the paper's structure (validation Fit against wall time)\n  zoo    every model class on every plant-zoo case (docs/ZOO.md)\n\nRun 'gputrain bench NAME --help' for the flags of one.\n")
			return errHelp
		}
		return usagef("which benchmark? gputrain bench qp|epoch|train|zoo (see 'gputrain bench --help')")
	}
	switch args[0] {
	case "qp":
		return runBenchQP(e, args[1:])
	case "epoch":
		return runBenchEpoch(e, args[1:])
	case "train":
		return runBenchTrain(e, args[1:])
	case "zoo":
		return runBenchZoo(e, args[1:])
	}
	return usagef("unknown benchmark %q; use qp, epoch, train or zoo", args[0])
}

// benchData is the data set of a benchmark: --data FILE, or the paper's
// mass-spring-damper training data.
func benchData(path string, cols *columns, batches int, seed uint64) (*data.Dataset, error) {
	if path != "" {
		return readData(context.Background(), "data", path, cols.options(0), 1)
	}
	if batches < 1 {
		return nil, usagef("--batches %d: must be ≥ 1", batches)
	}
	d, err := data.GenerateMSD(data.MSDConfig{Batches: batches, Seed: seed})
	if err != nil {
		return nil, badInput(err)
	}
	return d, nil
}

// timeIt returns the fastest of repeat runs of f, in seconds.
func timeIt(repeat int, f func() error) (float64, error) {
	best := math.Inf(1)
	for i := 0; i < repeat; i++ {
		t0 := time.Now()
		if err := f(); err != nil {
			return 0, err
		}
		best = min(best, time.Since(t0).Seconds())
	}
	return best, nil
}

// qpRow is one row of bench qp --json.
type qpRow struct {
	Taps      int               `json:"taps"`
	H         int               `json:"H"`
	Mode      trainer.Passivity `json:"mode"`
	Seconds   float64           `json:"seconds"`
	Objective float64           `json:"objective"`
	Branches  int               `json:"branches"`
	MinRe     *float64          `json:"min_re"`          // certified min Re G over the blocks at the solution
	Error     string            `json:"error,omitempty"` // the solver's error (the row's numbers are then its last iterate)
}

func runBenchQP(e *env, args []string) error {
	fs := newFlags("gputrain bench qp")
	var (
		dataPath, config, modes string
		tapsList, hList         intList
		batches, repeat, kypMax int
		seed                    uint64
		jsonOut, large          bool
	)
	tapsList, hList = intList{25, 50, 100, 200}, intList{1000, 2000, 4000}
	fs.StringVar(&dataPath, "data", "", "data file (batch,u,y CSV, .npy, .npz, .mat); default: generated mass-spring-damper data")
	cols := addColumnFlags(fs, "name of the output column")
	fs.IntVar(&batches, "batches", 300, "generated batches when --data is not given")
	fs.Uint64Var(&seed, "seed", 1, "seed of the generated data")
	fs.Var(&tapsList, "taps", "FIR lengths m_G to time (default 25,50,100,200)")
	fs.Var(&hList, "H", "frequency grids H of the sampled mode (default 1000,2000,4000)")
	fs.StringVar(&modes, "modes", "sampled,exact,kyp", "solvers to time, comma-separated: sampled, exact, kyp")
	fs.IntVar(&kypMax, "kyp-max-taps", 200, "time the KYP LMI only up to this m_G (its cost grows as m_G³; the paper reports 231 s at 200 with MOSEK)")
	fs.BoolVar(&large, "large", false, "add exact-mode rows at m_G = 500 and three blocks of 500 taps (n = 1500, the robot case)")
	fs.IntVar(&repeat, "repeat", 3, "runs per cell; the fastest is reported")
	fs.BoolVar(&jsonOut, "json", false, `print {"rows": [{"taps","H","mode","seconds","objective"}, …]} on stdout`)
	fs.StringVar(&config, "config", "", "TOML or YAML file of flag values")
	spec := flagSpec{
		usage: "gputrain bench qp [--data FILE] [--json]",
		about: `Time the θ_G step (passive FIR least squares, the paper's Table I): one FIR fitted to the data,
P = Σ ΦᵀΦ and b = Σ Φᵀy (Φ the Toeplitz matrix of u), with ρ = 100, ρ_j = 0.93, ε = 1e-2 (2cos
convention) and γ_G = 1. Modes: sampled (Theorem 3 on h = 0..H), exact (certified minimum of
Re G ≥ 0, no H) and kyp (the Theorem 4 LMI). Only the solve is timed; P and b are formed first.`,
		example: `gputrain bench qp
gputrain bench qp --taps 50 --H 1000 --modes sampled,exact --json
gputrain bench qp --data train.csv --large`,
	}
	if err := parseFlags(e, fs, spec, args); err != nil {
		return err
	}
	if repeat < 1 {
		return usagef("--repeat %d: must be ≥ 1", repeat)
	}
	if len(tapsList) == 0 {
		return usagef("--taps: give at least one FIR length")
	}
	var modeList []trainer.Passivity
	for _, m := range strings.Split(modes, ",") {
		var p trainer.Passivity
		if err := p.Set(strings.TrimSpace(m)); err != nil || p == trainer.PassivityNone {
			return usagef("--modes %q: %q is not one of sampled, exact, kyp", modes, strings.TrimSpace(m))
		}
		modeList = append(modeList, p)
	}
	if slices.Contains(modeList, trainer.PassivitySampled) && len(hList) == 0 {
		return usagef("--H: give at least one grid size for the sampled mode")
	}
	d, err := benchData(dataPath, cols, batches, seed)
	if err != nil {
		return err
	}
	us, ys := d.Inputs(), d.Outputs()
	const rho, decay, eps, gamma = 100, 0.93, 1e-2, 1
	var rows []qpRow
	failed := 0
	emit := func(r qpRow) {
		rows = append(rows, r)
		if r.Error != "" {
			failed++
		}
		if !jsonOut {
			h := "-"
			if r.H > 0 {
				h = fmt.Sprint(r.H)
			}
			minRe := "-"
			if r.MinRe != nil {
				minRe = fmt.Sprintf("%.3g", *r.MinRe)
			}
			fmt.Fprintf(e.stdout, "%-8s %6d %5d %6s %12.4f %18.8g %12s", r.Mode, r.Taps, r.Branches, h, r.Seconds, r.Objective, minRe)
			if r.Error != "" {
				fmt.Fprintf(e.stdout, "  error: %s", r.Error)
			}
			fmt.Fprintln(e.stdout)
		}
	}
	if !jsonOut {
		fmt.Fprintf(e.stdout, "θ_G solve times on %s (%d batches), fastest of %d\n", d.Name, d.Len(), repeat)
		fmt.Fprintf(e.stdout, "%-8s %6s %5s %6s %12s %18s %12s\n", "mode", "taps", "blks", "H", "seconds", "objective", "min Re G")
	}
	solve := func(mode trainer.Passivity, taps, branches, H int) error {
		P, b, err := convex.FIRGram(us, ys, taps*branches)
		if err != nil {
			return badInput(fmt.Errorf("forming the Gram matrix: %w", err))
		}
		p := &convex.Problem{P: P, B: b, GammaG: gamma}
		for j := 0; j < branches; j++ {
			bl := convex.Block{Offset: j * taps, Len: taps, Kind: convex.Exact, Rho: rho, Decay: decay}
			if mode == trainer.PassivitySampled {
				bl.Kind, bl.H, bl.Eps = convex.Sampled, H, eps
			}
			p.Blocks = append(p.Blocks, bl)
		}
		var x []float64
		var obj float64
		var solveErr error
		secs, _ := timeIt(repeat, func() error {
			// A failing solve (e.g. its iteration limit) is recorded in the
			// row with its last iterate, and the grid goes on.
			if mode == trainer.PassivityKYP {
				s, err := kyp.Solve(p, nil)
				if s != nil {
					x, obj = s.X, s.Objective
				}
				solveErr = err
				return nil
			}
			s, err := convex.Solve(p, nil)
			if s != nil {
				x, obj = s.X, s.Objective
			}
			solveErr = err
			return nil
		})
		row := qpRow{Taps: taps, H: H, Mode: mode, Seconds: secs, Objective: obj, Branches: branches}
		if solveErr != nil {
			row.Error = oneLine(solveErr.Error())
		}
		if len(x) == taps*branches {
			minRe := math.Inf(1)
			for j := 0; j < branches; j++ {
				if c, err := convex.Certify(x[j*taps : (j+1)*taps]); err == nil {
					minRe = min(minRe, c.MinRe)
				}
			}
			row.MinRe = jsonFloat(minRe)
		}
		emit(row)
		return e.ctx.Err()
	}
	for _, taps := range tapsList {
		for _, mode := range modeList {
			var err error
			switch mode {
			case trainer.PassivitySampled:
				for _, H := range hList {
					if err = solve(mode, taps, 1, H); err != nil {
						break
					}
				}
			case trainer.PassivityExact:
				err = solve(mode, taps, 1, 0)
			case trainer.PassivityKYP:
				if taps <= kypMax {
					err = solve(mode, taps, 1, 0)
				}
			}
			if err != nil {
				return interruptOr(err)
			}
		}
	}
	if large {
		if err := solve(trainer.PassivityExact, 500, 1, 0); err != nil {
			return interruptOr(err)
		}
		if err := solve(trainer.PassivityExact, 500, 3, 0); err != nil {
			return interruptOr(err)
		}
	}
	if jsonOut {
		if err := writeJSON(e.stdout, map[string]any{"rows": rows, "data": d.Name, "batches": d.Len(), "repeat": repeat}); err != nil {
			return err
		}
	}
	if failed > 0 {
		return failf("%d of %d solves failed (see their error fields)", failed, len(rows))
	}
	return nil
}

// interruptOr turns a context error (Ctrl-C) into a failure message.
func interruptOr(err error) error {
	var ce *cliError
	if errors.As(err, &ce) {
		return err
	}
	return failf("interrupted: %v", err)
}

// epochRow is one row of bench epoch --json.
type epochRow struct {
	Name    string  `json:"name"`
	MS      float64 `json:"ms"`
	Batches int     `json:"batches"`
	Samples int     `json:"samples"`
	Steps   int     `json:"steps"` // gradient evaluations per epoch
}

func runBenchEpoch(e *env, args []string) error {
	fs := newFlags("gputrain bench epoch")
	var (
		dataPath, config                string
		device                          = trainer.DeviceCPU
		batches, repeat, batch, workers int
		seed                            uint64
		jsonOut                         bool
		hidden                          = intList{4, 4}
	)
	st := model.Structure{Branches: 10, Taps: 50, R1: 1, R2: 1, Feedback: true}
	fs.StringVar(&dataPath, "data", "", "data file (batch,u,y CSV, .npy, .npz, .mat); default: generated mass-spring-damper data")
	cols := addColumnFlags(fs, "name of the output column")
	fs.IntVar(&batches, "batches", 300, "generated batches when --data is not given")
	fs.Uint64Var(&seed, "seed", 1, "seed of the generated data and the random model")
	fs.IntVar(&st.Branches, "branches", st.Branches, "m_N of the random model")
	fs.IntVar(&st.Taps, "taps", st.Taps, "m_G of the random model")
	fs.IntVar(&st.R1, "r1", st.R1, "R1 of the random model")
	fs.IntVar(&st.R2, "r2", st.R2, "R2 of the random model")
	fs.Var(&hidden, "hidden", "hidden layer widths (default 4,4)")
	fs.IntVar(&batch, "batch", 0, "trajectories per gradient step (0: the whole data set in one step)")
	fs.IntVar(&repeat, "repeat", 5, "epochs timed; the fastest is reported")
	fs.IntVar(&workers, "workers", 0, "worker goroutines (0: one per CPU)")
	fs.Var(&device, "device", "cpu, or cuda (needs a binary built with -tags nfircuda)")
	fs.BoolVar(&jsonOut, "json", false, `print {"rows": [{"name","ms","batches","samples","steps"}, …]} on stdout`)
	fs.StringVar(&config, "config", "", "TOML or YAML file of flag values")
	spec := flagSpec{
		usage: "gputrain bench epoch [--data FILE] [--json]",
		about: `Time one training epoch of a random passive FB NFIR (default the paper's m_N = 10, m_G = 50,
4×4 MLP) on the data: the open-loop epoch (forward and backward of the one-step-ahead loss through
the gorgonia graph, graph.OpenLoop) and the BPTT epoch (closed-loop rollout and its adjoint,
graph.ClosedLoopNet), in milliseconds, float64.`,
		example: `gputrain bench epoch
gputrain bench epoch --batch 8 --json`,
	}
	if err := parseFlags(e, fs, spec, args); err != nil {
		return err
	}
	st.Hidden = append([]int{}, hidden...)
	switch {
	case repeat < 1:
		return usagef("--repeat %d: must be ≥ 1", repeat)
	case batch < 0:
		return usagef("--batch %d: must be ≥ 0 (0: whole data set)", batch)
	case workers < 0:
		return usagef("--workers %d: must be ≥ 0", workers)
	case st.Branches < 1:
		return usagef("--branches %d: must be ≥ 1 (the epoch trains the lifting network)", st.Branches)
	}
	if err := st.Check(); err != nil {
		return usagef("%v", err)
	}
	d, err := benchData(dataPath, cols, batches, seed)
	if err != nil {
		return err
	}
	if err := d.Validate(st.Memory()); err != nil {
		return badInput(fmt.Errorf("--data: %w", err))
	}
	m, err := model.RandomPassive(st, rand.New(rand.NewPCG(seed, seed)))
	if err != nil {
		return usagef("%v", err)
	}
	m.UScaler, m.QScaler = data.FitScaler(d.Inputs()...), data.FitScaler(d.Outputs()...)
	var be kernels.Backend = &kernels.CPU{Workers: workers}
	if device != trainer.DeviceCPU {
		if be, err = kernels.NewBackend(string(device)); err != nil {
			return usagef("--device %s: %v", device, err)
		}
	}
	open, err := graph.NewOpenLoop(m, be)
	if err != nil {
		return failf("building the open-loop graph: %v", err)
	}
	closed, err := graph.NewClosedLoop(m, be)
	if err != nil {
		return failf("building the closed-loop graph: %v", err)
	}
	// Split the trajectories into mini-batches as training does.
	n := d.Len()
	step := n
	if batch > 0 {
		step = min(batch, n)
	}
	var parts []*graph.Batch
	for i := 0; i < n; i += step {
		j := min(n, i+step)
		b, err := graph.NewBatch(m, d.Inputs()[i:j], nil, d.Outputs()[i:j])
		if err != nil {
			return badInput(fmt.Errorf("--data: %w", err))
		}
		parts = append(parts, b)
	}
	theta := m.Lift.Flatten()
	grad := make([]float64, len(theta))
	var rows []epochRow
	for _, c := range []struct {
		name string
		lg   func(*graph.Batch, []float64, []float64, []float64, []float64) (float64, error)
	}{{"open_loop", open.LossGrad}, {"bptt", closed.LossGrad}} {
		epoch := func() error {
			for _, b := range parts {
				if _, err := c.lg(b, theta, m.G, m.Lin, grad); err != nil {
					return err
				}
			}
			return e.ctx.Err()
		}
		if err := epoch(); err != nil { // warm-up: compiles the graphs
			return interruptOr(failf("%s epoch: %v", c.name, err))
		}
		secs, err := timeIt(repeat, epoch)
		if err != nil {
			return interruptOr(failf("%s epoch: %v", c.name, err))
		}
		rows = append(rows, epochRow{Name: c.name, MS: 1000 * secs, Batches: n, Samples: d.Samples(), Steps: len(parts)})
	}
	if jsonOut {
		if workers == 0 {
			workers = runtime.GOMAXPROCS(0) // what 0 meant: report the number used
		}
		return writeJSON(e.stdout, map[string]any{"rows": rows, "data": d.Name, "structure": st, "workers": workers, "repeat": repeat})
	}
	fmt.Fprintf(e.stdout, "one epoch over %s (%d batches, %d samples), m_N = %d, m_G = %d, fastest of %d, float64\n",
		d.Name, n, d.Samples(), st.Branches, st.Taps, repeat)
	for _, r := range rows {
		fmt.Fprintf(e.stdout, "%-10s %10.1f ms  (%d gradient steps)\n", r.Name, r.MS, r.Steps)
	}
	return nil
}
