package lifted

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/passivenfir/gputrain/baselines"
	"github.com/passivenfir/gputrain/classes"
	"github.com/passivenfir/gputrain/classes/baseline"
	"github.com/passivenfir/gputrain/classes/loopclass"
	"github.com/passivenfir/gputrain/classes/meanclass"
	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/loop"
	"github.com/passivenfir/gputrain/model"
	"github.com/passivenfir/gputrain/search"
	"github.com/passivenfir/gputrain/trainer"
)

// Model is an NFIR (or linear FIR) of one of this package's classes.
type Model struct {
	Name string // the class name: fir, nfir-ff, nfir-fb or nfir
	NFIR *model.NFIR
	Mode string // the passivity mode it was trained with (exact, sampled, kyp, none)
}

func (m *Model) Class() string { return m.Name }

func (m *Model) Simulate(u []float64) []float64 {
	y, _ := m.NFIR.Simulate(u)
	return y
}

func (m *Model) NumParams() int { return m.NFIR.NumParams() }

// Certify recomputes the certificate of every FIR (convex.Certify).
func (m *Model) Certify() (classes.Certificate, error) {
	c, err := m.NFIR.Certify()
	if err != nil {
		return classes.Certificate{}, err
	}
	minRe := math.Inf(1)
	for _, b := range c.Branches {
		minRe = math.Min(minRe, b.MinRe)
	}
	if c.Linear != nil {
		minRe = math.Min(minRe, c.Linear.MinRe)
	}
	n := len(c.Branches)
	if c.Linear != nil {
		n++
	}
	if c.Passive {
		return classes.Certificate{Passive: true, Reason: fmt.Sprintf("certified: all %d FIRs have min Re G ≥ 0 (smallest %.3g)", n, minRe)}, nil
	}
	return classes.Certificate{Reason: fmt.Sprintf("not passive: a FIR has min Re G = %.3g < 0 (trained with passivity %q)", minRe, m.Mode)}, nil
}

// MarshalParams is not used: the model has a format of its own (EncodeFile).
func (m *Model) MarshalParams() (json.RawMessage, error) {
	return nil, errors.New("lifted: an NFIR is written in the gputrain-nfir format")
}

// EncodeFile writes the gputrain-nfir file of docs/MODEL_FORMAT.md.
func (m *Model) EncodeFile(w io.Writer, meta classes.Meta) error {
	return model.Encode(w, m.NFIR, model.Meta{Ts: meta.Ts, Mode: m.Mode, Training: meta.Training})
}

// DecodeFile reads a gputrain-nfir file (classes.RegisterFormat). The file
// does not record the class: a model without branches is a fir, any other
// an nfir.
func DecodeFile(b []byte) (classes.Model, classes.Meta, error) {
	nf, meta, err := model.Decode(bytes.NewReader(b))
	if err != nil {
		return nil, classes.Meta{}, err
	}
	name := "nfir"
	if nf.Branches == 0 {
		name = "fir"
	}
	return &Model{Name: name, NFIR: nf, Mode: meta.Mode}, classes.Meta{Ts: meta.Ts, Training: meta.Training}, nil
}

// Config is the configuration of `gputrain train` with no flag: the paper's
// mass-spring-damper settings (trainer.DefaultConfig) on data scaled to
// their reference RMS (--scale auto), seeded and with the workers of opt. A
// Quick budget keeps the five alternations and cuts the epochs of each θ_N
// step to 60 (patience 20): on 60 mass-spring-damper records the FB NFIR's
// test Fit is then 84% in 19 s against 89.5% in 200 s; fewer alternations
// cost more (3 × 100 epochs: 80%, 2 × 150: 52%).
func Config(opt classes.FitOptions) trainer.Config {
	c := trainer.DefaultConfig()
	c.Scale = trainer.ScaleAuto
	c.Seed, c.Workers, c.ValSkip = opt.Seed, opt.Workers, opt.ValSkip
	if opt.Budget == classes.Quick {
		c.Epochs, c.Patience = 60, 20
	}
	return c
}

// train runs trainer.Train and wraps its model; a cancelled run returns the
// best model so far with ctx's error.
func train(ctx context.Context, name string, cfg trainer.Config, tr, val *data.Dataset, opt classes.FitOptions) (classes.Model, error) {
	if opt.Progress != nil {
		cfg.Progress = func(ev trainer.Event) { opt.Progress(ev.String()) }
	}
	res, err := trainer.Train(ctx, cfg, tr, val)
	return wrap(name, cfg, res, err)
}

func wrap(name string, cfg trainer.Config, res *trainer.Result, err error) (classes.Model, error) {
	if res == nil || res.Model == nil {
		if err == nil {
			err = errors.New("lifted: the trainer returned no model")
		}
		return nil, err
	}
	mode := res.Meta.Mode
	if mode == "" {
		mode = string(cfg.Passivity)
	}
	return &Model{Name: name, NFIR: res.Model, Mode: mode}, err
}

// firClass is a passive linear FIR; Taps 0 chooses its length on validation
// data (trainer.SelectLinearTaps over trainer.LinearTapGrid).
type firClass struct{ Taps int }

func (firClass) Name() string { return "fir" }
func (firClass) About() string {
	return "passive linear FIR (length chosen on validation data)"
}

func (c firClass) AddFlags(fs classes.FlagSet) func() classes.Class {
	fs.IntVar(&c.Taps, "fir-taps", c.Taps, "--model fir: taps of the passive linear FIR (0: chosen on validation data over 8, 16, 32, … up to 1000 or half the shortest record)")
	return func() classes.Class { return c }
}

func (c firClass) Fit(ctx context.Context, tr, val *data.Dataset, opt classes.FitOptions) (classes.Model, error) {
	if c.Taps < 0 {
		return nil, fmt.Errorf("lifted: fir: taps %d must be ≥ 0", c.Taps)
	}
	cfg := Config(opt)
	cfg.Decay = 0 // 0.93^(50/L), as train --decay auto
	if c.Taps > 0 {
		cfg.Structure = model.Structure{LinearTaps: c.Taps}
		cfg.Decay = math.Pow(trainer.DefaultConfig().Decay, 50/float64(c.Taps))
		return train(ctx, "fir", cfg, tr, val, opt)
	}
	grid := trainer.LinearTapGrid(tr)
	if opt.Budget == classes.Quick {
		for len(grid) > 1 && grid[len(grid)-1] > quickMaxTaps {
			grid = grid[:len(grid)-1]
		}
	}
	var progress func(int, float64)
	if opt.Progress != nil {
		progress = func(L int, f float64) { opt.Progress(fmt.Sprintf("fir: %d taps, closed-loop val fit %.2f%%", L, f)) }
	}
	res, err := trainer.SelectLinearTaps(ctx, cfg, tr, val, grid, progress)
	return wrap("fir", cfg, res, err)
}

// quickMaxTaps caps the FIR lengths tried with a Quick budget.
const quickMaxTaps = 256

func (firClass) DecodeParams(json.RawMessage) (classes.Model, error) {
	return nil, errors.New("lifted: a FIR is stored in the gputrain-nfir format, not in gputrain-model")
}

// nfirClass is trainer.Train with the default configuration, with or
// without output feedback.
type nfirClass struct {
	name, about string
	feedback    bool
}

func (c nfirClass) Name() string  { return c.name }
func (c nfirClass) About() string { return c.about }

func (c nfirClass) Fit(ctx context.Context, tr, val *data.Dataset, opt classes.FitOptions) (classes.Model, error) {
	cfg := Config(opt)
	cfg.Structure.Feedback = c.feedback
	return train(ctx, c.name, cfg, tr, val, opt)
}

func (c nfirClass) DecodeParams(json.RawMessage) (classes.Model, error) {
	return nil, fmt.Errorf("lifted: an %s is stored in the gputrain-nfir format, not in gputrain-model", c.name)
}

// FitNFIR is the fit of class nfir, what train does with no structure
// flag: the structure search of package search over NFIRs, passive RENs
// (baselines.SimulationRENConfig, at either budget: they cost seconds on
// the few thousand samples of a quick look) and the passive feedback loop
// of package loop, the passive linear FIR competing, so nfir is never
// below fir on validation. A Quick budget searches one NFIR
// candidate and a shorter loop schedule.
var FitNFIR = func(ctx context.Context, tr, val *data.Dataset, opt classes.FitOptions) (classes.Model, error) {
	cfg := Config(opt)
	cfg.Iters, cfg.Epochs, cfg.Patience = search.DefaultIters, search.DefaultEpochs, search.DefaultPatience
	lc := loop.DefaultConfig()
	lc.Workers = opt.Workers
	// train's default time limit too: compare's nfir is what train does
	rc := baselines.SimulationRENConfig()
	sopt := search.Options{Budget: search.DefaultBudget, Workers: opt.Workers, AutoDecay: true, AutoSkip: true, Loop: &lc, REN: &rc, TimeLimit: search.DefaultTimeLimit}
	if opt.Budget == classes.Quick {
		cfg.Epochs, cfg.Patience = 60, 20
		sopt.Budget = 1
		lc = loop.Quick(lc)
	}
	if opt.Progress != nil {
		sopt.Progress = func(ev search.Event) { opt.Progress(ev.String()) }
	}
	res, err := search.Select(ctx, cfg, search.Fixed{}, sopt, tr, val)
	if res == nil {
		return nil, err
	}
	if res.MeanChosen {
		m, merr := meanclass.FromEnsemble(res.Mean)
		if merr != nil {
			return nil, merr
		}
		return m, err
	}
	if res.RENChosen {
		return baseline.NewREN(res.REN), err
	}
	if res.LoopChosen {
		return &loopclass.Model{Mean: res.LoopModel}, err
	}
	return wrap("nfir", res.Config, res.Result, err)
}

type selectedClass struct{}

func (selectedClass) Name() string { return "nfir" }
func (selectedClass) About() string {
	return "gputrain's choice, as train with no structure flag: NFIR structures, passive RENs and the passive loop searched on validation data (the passive FIR competes)"
}

func (selectedClass) Fit(ctx context.Context, tr, val *data.Dataset, opt classes.FitOptions) (classes.Model, error) {
	return FitNFIR(ctx, tr, val, opt)
}

func (selectedClass) DecodeParams(json.RawMessage) (classes.Model, error) {
	return nil, errors.New("lifted: an nfir is stored in the gputrain-nfir format, not in gputrain-model")
}

// Classes are the classes of this package, in the order compare lists them.
var (
	FIR      classes.Class = firClass{}
	NFIRFF   classes.Class = nfirClass{name: "nfir-ff", about: "passive feed-forward NFIR (default settings)", feedback: false}
	NFIRFB   classes.Class = nfirClass{name: "nfir-fb", about: "passive feedback NFIR (default settings, the paper's)", feedback: true}
	Selected classes.Class = selectedClass{}
)
