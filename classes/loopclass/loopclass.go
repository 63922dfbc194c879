// Package loopclass registers the passive feedback loop of two NFIRs
// (package loop) as the model class "loop": its memory sized from the data
// by the passive linear FIR chosen on validation, trained end to end on the
// simulation error, certified FIR by FIR.
package loopclass

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/passivenfir/gputrain/classes"
	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/loop"
	"github.com/passivenfir/gputrain/model"
	"github.com/passivenfir/gputrain/trainer"
)

// Class is the class "loop".
var Class classes.Class = class{Skip: -1, States: -1, Rec: -1}

type class struct {
	Memory, Epochs, Skip int
	Sections             int // loop.Structure.P1 of every loop trained
	States               int // loop.Structure.S of every loop trained (-1: the shape's)
	Rec                  int // loop.Structure.Rec of every loop trained (-1: the shape's)
	Basis                int // loop.Config.Basis of every loop trained
	Shape                Shape
	Init                 string // a linear FIR model file
}

func (class) Name() string { return "loop" }
func (class) About() string {
	return "passive feedback loop of two NFIRs, y = H1(u − H2(y)), trained on the simulation error"
}

func (c class) AddFlags(fs classes.FlagSet) func() classes.Class {
	fs.IntVar(&c.Memory, "loop-memory", 0, "--model loop: taps of the forward linear FIR, the scale of every other memory (0: the passive FIR's length chosen on validation data)")
	fs.IntVar(&c.Epochs, "loop-epochs", 0, "--model loop: maximum epochs (0: loop.DefaultConfig's; early stopping on validation data)")
	fs.Var(&c.Shape, "loop-shape", "--model loop: all (every shape from --seed and --seed+1, the recurrent ones also from --seed+2, keeping the best loop or a weighted mean of several, chosen on validation), or one shape, sized, wide, sized-states, wide-states, sized-rec or wide-rec, trained once from --seed (a loop of the structure search, which trains them as such trials under --search-dir)")
	fs.StringVar(&c.Init, "loop-init", "", "--model loop: a passive linear FIR model file (--branches 0): its length is the memory and the forward FIR starts from its taps, instead of the FIR chosen on validation data (the structure search writes DIR/loops/fir.json for its loop trials)")
	fs.IntVar(&c.Sections, "loop-sections", 0, "--model loop: first-order passive sections in H1, beside its linear FIR (loop.Structure.P1): a slow memory in two numbers each, their time constants starting log-spaced from the memory to 16 times it (0: none)")
	fs.IntVar(&c.States, "loop-states", -1, "--model loop: slow states of u and of y that the lifting network sees beside its windows (loop.Structure.S): leaky averages with time constants max(4, memory/4)·4^i samples, i = 0…N−1: the memory of a hidden state such as the play of a gear (-1: the shape's own)")
	fs.IntVar(&c.Rec, "loop-rec", -1, "--model loop: units of a GRU state, driven by u(t) and y(t−1), that the lifting network sees beside its windows (loop.Structure.Rec): a learned memory of the past, trained with the rest (-1: the shape's own)")
	fs.IntVar(&c.Basis, "loop-basis", 0, "--model loop: train every FIR factor longer than this many taps as a combination of that many Laguerre functions, their pole chosen for the passive FIR the loop starts from (loop.Config.Basis): few numbers for a long memory, passive for every value; the model file holds the expanded taps (0: tap by tap; the structure search trains tap by tap: see docs/BENCHMARKS.md, session 27)")
	fs.IntVar(&c.Skip, "loop-skip", -1, "--model loop: samples at the start of each training record simulated but left out of the loss (--skip of the NFIR); -1: none, except that --loop-shape all also trains every loop again leaving out loop.AutoSkip's (the FIR's memory, at most an eighth of the shortest record, where that is at least 1/32 of the samples), and chooses among the loops of both when that second pass validates better (loop.ChoosePasses)")
	return func() classes.Class { return c }
}

// linear is the passive linear FIR the loop is sized by and starts from:
// the one of --loop-init, or the one chosen on validation data when
// --loop-memory is not given (nil taps: the memory is given).
func (c class) linear(ctx context.Context, train, val *data.Dataset, opt classes.FitOptions) (L int, taps []float64, err error) {
	switch {
	case c.Memory < 0:
		return 0, nil, fmt.Errorf("%w: --loop-memory %d must be ≥ 0", classes.ErrSettings, c.Memory)
	case c.Skip < -1:
		return 0, nil, fmt.Errorf("%w: --loop-skip %d must be ≥ 0 (or -1: automatic)", classes.ErrSettings, c.Skip)
	case c.Sections < 0:
		return 0, nil, fmt.Errorf("%w: --loop-sections %d must be ≥ 0", classes.ErrSettings, c.Sections)
	case c.States < -1:
		return 0, nil, fmt.Errorf("%w: --loop-states %d must be ≥ 0 (or -1: the shape's)", classes.ErrSettings, c.States)
	case c.Basis < 0:
		return 0, nil, fmt.Errorf("%w: --loop-basis %d must be ≥ 0", classes.ErrSettings, c.Basis)
	case c.Rec < -1:
		return 0, nil, fmt.Errorf("%w: --loop-rec %d must be ≥ 0 (or -1: the shape's)", classes.ErrSettings, c.Rec)
	case c.Init != "" && c.Memory > 0:
		return 0, nil, fmt.Errorf("%w: --loop-memory %d and --loop-init %s: the FIR's length is the memory; give one", classes.ErrSettings, c.Memory, c.Init)
	case c.Init != "":
		fir, _, err := model.Load(c.Init)
		if err != nil {
			return 0, nil, fmt.Errorf("%w: --loop-init: %w", classes.ErrSettings, err)
		}
		if fir.Branches != 0 || fir.LinearTaps == 0 {
			return 0, nil, fmt.Errorf("%w: --loop-init %s: a model of %d branches and %d linear taps; want a linear FIR (--branches 0)", classes.ErrSettings, c.Init, fir.Branches, fir.LinearTaps)
		}
		return fir.LinearTaps, fir.Lin, nil
	case c.Memory > 0:
		return c.Memory, nil, nil
	}
	fir, err := trainer.SelectMemory(ctx, train, val, opt.Seed, opt.Workers, max(c.Skip, 0), opt.ValSkip)
	if fir == nil {
		return 0, nil, fmt.Errorf("loopclass: the passive FIR that sizes the memory: %w", err)
	}
	return fir.Model.LinearTaps, fir.Model.Lin, nil
}

func (c class) Fit(ctx context.Context, train, val *data.Dataset, opt classes.FitOptions) (classes.Model, error) {
	L, initLin, err := c.linear(ctx, train, val, opt)
	if err != nil {
		return nil, err
	}
	base := loop.DefaultConfig()
	if opt.Budget == classes.Quick {
		base = loop.Quick(base)
	}
	if c.Epochs > 0 {
		base.Epochs = c.Epochs
	}
	base.Seed, base.Workers, base.ValSkip, base.Skip = opt.Seed, opt.Workers, opt.ValSkip, max(c.Skip, 0)
	auto := 0
	if c.Skip < 0 {
		auto = loop.AutoSkip(L, train)
	}
	runs := loop.Runs(L, opt.Seed, auto)
	if c.Shape != AllShapes {
		runs = []loop.Run{{Structure: c.Shape.Structure(L), Seed: opt.Seed}}
	}
	var trained [2][]*loop.Result // the passes of loop.Runs: without and with the automatic skip
	for _, run := range runs {
		st := run.Structure
		st.P1 = c.Sections
		if c.States >= 0 {
			st.S = c.States
		}
		if c.Rec >= 0 {
			st.Rec = c.Rec
		}
		cfg := base
		cfg.Structure, cfg.Seed, cfg.Skip, cfg.Basis = st, run.Seed, max(base.Skip, run.Skip), c.Basis
		if len(initLin) == st.L1 {
			// the loop starts from the FIR it is sized by (as the search's)
			cfg.InitLinear = initLin
		}
		if opt.Progress != nil {
			cfg.Progress = func(ep int, loss, vf float64) {
				opt.Progress(fmt.Sprintf("loop R %d [%d] seed %d skip %d epoch %4d/%d  loss %.4g  val fit %6.2f%%", st.R1, st.Hidden[0], run.Seed, cfg.Skip, ep+1, cfg.Epochs, loss, vf))
			}
		}
		res, err := loop.Train(ctx, cfg, train, val)
		if res != nil && c.Shape != AllShapes {
			return &Model{Mean: loop.Of(res.Model), Epochs: res.Epochs}, err // one loop: nothing to choose
		}
		if res != nil {
			pass := 0
			if run.Skip > 0 {
				pass = 1
			}
			trained[pass] = append(trained[pass], res)
		}
		if err != nil {
			if len(trained[0])+len(trained[1]) == 0 {
				return nil, err
			}
			m, _, _, cerr := loop.ChoosePasses(val, opt.ValSkip, trained[0], trained[1])
			if cerr != nil {
				return nil, err
			}
			return &Model{Mean: m}, err
		}
	}
	// The shapes and seeds err in different ways: their mean is kept when
	// it scores better on validation than the best of them.
	m, fit, mean, err := loop.ChoosePasses(val, opt.ValSkip, trained[0], trained[1])
	if err != nil {
		return nil, err
	}
	if opt.Progress != nil && mean {
		what := fmt.Sprintf("the mean of %d loops", len(m))
		if m.Weighted() {
			what = fmt.Sprintf("the weighted mean of %d loops (%d draws)", len(m), m.Total())
		}
		opt.Progress(fmt.Sprintf("loop: %s (ensemble selection with replacement) scores %.2f%% on validation, better than each: kept", what, fit))
	}
	return &Model{Mean: m}, nil
}

// Model is a trained loop, or the mean of several (loop.Mean): a mean of
// one loop is the loop.
type Model struct {
	loop.Mean
	// Epochs is the number of epochs a single loop trained (--loop-shape
	// other than all), which train --json reports; 0 otherwise, and for a
	// model read from a file.
	Epochs int
}

// EpochsRun is Epochs: the epochs that trained one loop, 0 when unknown.
func (m *Model) EpochsRun() int { return m.Epochs }

func (*Model) Class() string { return "loop" }

func (m *Model) Certify() (classes.Certificate, error) {
	c, err := m.Mean.Certify()
	if err != nil {
		return classes.Certificate{}, err
	}
	if !c.Passive {
		return classes.Certificate{Reason: fmt.Sprintf("not passive: a FIR or section of the loop has min Re G = %.3g < 0", c.MinRe)}, nil
	}
	firs := fmt.Sprintf("%d FIRs", c.FIRs)
	if c.Sections > 0 { // a stable section of gain ≥ 0 (loop.SectionMinRe)
		firs += fmt.Sprintf(" and %d first-order sections", c.Sections)
	}
	if len(m.Mean) > 1 {
		return classes.Certificate{Passive: true, Reason: fmt.Sprintf("certified: all %s of the H1 and H2 of %d loops have min Re G ≥ 0 (smallest %.3g), so each loop is passive (passivity theorem) and so is their mean", firs, len(m.Mean), c.MinRe)}, nil
	}
	return classes.Certificate{Passive: true, Reason: fmt.Sprintf("certified: all %s of H1 and H2 have min Re G ≥ 0 (smallest %.3g), so the loop is passive (passivity theorem)", firs, c.MinRe)}, nil
}

// params is the params object of one loop in a loop file
// (docs/MODEL_FORMAT.md).
type params struct {
	Structure loop.Structure `json:"structure"`
	UScale    float64        `json:"u_scale"`
	YScale    float64        `json:"y_scale"`
	Theta     []float64      `json:"theta"`
}

// meanParams is the params object of a mean of loops: each member's
// params, and from version 2 their counts (absent: every count is 1).
type meanParams struct {
	Members []params `json:"members"`
	Counts  []int    `json:"counts,omitempty"`
}

// FileVersion is 2 for a weighted mean (params.counts), 1 otherwise.
func (m *Model) FileVersion() int {
	if m.Weighted() {
		return 2
	}
	return 1
}

func toParams(m *loop.Model) params { return params{m.Structure, m.SU, m.SY, m.Flatten()} }

// MarshalParams writes one loop as a params object, and a mean of several
// as {"members": [params, …]}.
func (m *Model) MarshalParams() (json.RawMessage, error) {
	if err := m.Check(); err != nil {
		return nil, err
	}
	if len(m.Mean) == 1 && m.Mean[0].Count == 1 {
		return json.Marshal(toParams(m.Mean[0].Model))
	}
	var mp meanParams
	for _, l := range m.Mean {
		mp.Members = append(mp.Members, toParams(l.Model))
		if m.Weighted() {
			mp.Counts = append(mp.Counts, l.Count)
		}
	}
	return json.Marshal(mp)
}

func (class) DecodeParams(raw json.RawMessage) (classes.Model, error) {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(raw, &probe); err != nil {
		return nil, fmt.Errorf("loopclass: params: %w", err)
	}
	if _, ok := probe["members"]; !ok {
		var p params
		if err := classes.DecodeStrict(raw, &p); err != nil {
			return nil, err
		}
		l, err := fromParams(p)
		if err != nil {
			return nil, err
		}
		return &Model{Mean: loop.Of(l)}, nil
	}
	var mp meanParams
	if err := classes.DecodeStrict(raw, &mp); err != nil {
		return nil, err
	}
	if len(mp.Members) == 0 {
		return nil, fmt.Errorf("loopclass: params.members is empty: a mean needs at least one loop")
	}
	if mp.Counts != nil && len(mp.Counts) != len(mp.Members) {
		return nil, fmt.Errorf("loopclass: params.counts has %d numbers for %d members", len(mp.Counts), len(mp.Members))
	}
	var m loop.Mean
	for i, p := range mp.Members {
		l, err := fromParams(p)
		if err != nil {
			return nil, fmt.Errorf("params.members[%d]: %w", i, err)
		}
		c := 1
		if mp.Counts != nil {
			c = mp.Counts[i]
			if c < 1 || c > loop.MaxCount {
				return nil, fmt.Errorf("loopclass: params.counts[%d] is %d, want 1 to %d", i, c, loop.MaxCount)
			}
		}
		m = append(m, loop.Member{Model: l, Count: c})
	}
	return &Model{Mean: m}, nil
}

func fromParams(p params) (*loop.Model, error) {
	m, err := loop.New(p.Structure)
	if err != nil {
		return nil, fmt.Errorf("structure: %w", err)
	}
	if !(p.UScale > 0) || !(p.YScale > 0) || p.UScale > 1e300 || p.YScale > 1e300 {
		return nil, fmt.Errorf("loopclass: u_scale %v and y_scale %v must be finite > 0", p.UScale, p.YScale)
	}
	m.SU, m.SY = p.UScale, p.YScale
	for i, v := range p.Theta {
		if v != v || v > 1e308 || v < -1e308 {
			return nil, fmt.Errorf("loopclass: theta[%d] is %v", i, v)
		}
	}
	if err := m.SetFlat(p.Theta); err != nil {
		return nil, fmt.Errorf("theta: %w", err)
	}
	return m, nil
}
