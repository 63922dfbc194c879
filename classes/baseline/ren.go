package baseline

import (
	"context"
	"encoding/json"
	"fmt"
	"math"

	"github.com/passivenfir/gputrain/baselines"
	"github.com/passivenfir/gputrain/classes"
	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/trainer"
)

// renClass is the passive REN: baselines.TrainREN.
type renClass struct {
	States, Neurons, Epochs int
	Biased, Gated           bool
	// Memory is the plant's memory in samples (baselines.RENConfig.Memory):
	// 0 measures it as the structure search does (the passive FIR chosen on
	// validation, trainer.SelectMemory, and beyond its longest length
	// trainer.MemoryBeyondCap), so that class ren alone starts where the
	// search's RENs start; −1 leaves it unset (the random start).
	Memory int
}

func (renClass) Name() string { return "ren" }
func (renClass) About() string {
	return "passive REN: recurrent equilibrium network, passive by parameterization"
}

func (c renClass) AddFlags(fs classes.FlagSet) func() classes.Class {
	def := baselines.SimulationRENConfig()
	fs.IntVar(&c.States, "ren-states", def.States, "--model ren: dimension of the REN's state")
	fs.IntVar(&c.Neurons, "ren-neurons", def.Neurons, "--model ren: width of its equilibrium layer")
	fs.BoolVar(&c.Biased, "ren-biased", false, "--model ren: biases in its state update and equilibrium layer, the output less the zero-input response (passive still; can model a rectifying one-port)")
	fs.BoolVar(&c.Gated, "ren-gated", false, "--model ren: a gate in (0, 1), scheduled by the state and the input, on every neuron (passive still, not contracting; can follow ringing whose frequency moves with its amplitude, as a drive with play); not with --ren-biased")
	// 0, not the default, so that --class-budget quick sets it as in compare
	fs.IntVar(&c.Memory, "ren-memory", 0, fmt.Sprintf("--model ren: the plant's memory in samples; beyond %d the REN starts from slow linear modes (time constants up to half of it) and learns at %d/memory of its rate for memory/%d times the epochs and samples (0: the length of the passive FIR chosen on validation, or where that is the longest tried, %d taps, the FIR's at a coarser rate, as the structure search measures it; -1: none, the random start)", baselines.RefMemory, baselines.RefMemory, baselines.RefMemory, trainer.MaxLinearTaps))
	fs.IntVar(&c.Epochs, "ren-epochs", 0, fmt.Sprintf("--model ren: maximum epochs, early stopping on validation data, times memory/%d beyond a memory of %d samples (--ren-memory) (0: %d, or %d with --class-budget quick)", baselines.RefMemory, baselines.RefMemory, def.Epochs, renQuickEpochs))
	return func() classes.Class { return c }
}

// renQuickEpochs and renQuickSamples bound a Quick budget.
const renQuickEpochs, renQuickSamples = 1500, 6_000_000

func (c renClass) Fit(ctx context.Context, train, val *data.Dataset, opt classes.FitOptions) (classes.Model, error) {
	if err := cancelled(ctx); err != nil {
		return nil, err
	}
	cfg := baselines.SimulationRENConfig()
	if opt.Budget == classes.Quick {
		cfg.Epochs, cfg.Patience, cfg.MaxSamples = renQuickEpochs, 300, renQuickSamples
		cfg.MinEpochs = 2 * cfg.Patience // as the full budget's: the budget never stops it before twice its patience
	}
	cfg.Seed, cfg.Workers, cfg.ValSkip = opt.Seed, opt.Workers, opt.ValSkip
	if c.States != 0 {
		cfg.States = c.States
	}
	if c.Neurons != 0 {
		cfg.Neurons = c.Neurons
	}
	if c.Epochs != 0 {
		cfg.Epochs = c.Epochs
	}
	cfg.Biased = c.Biased
	if c.Gated {
		cfg = cfg.WithGates()
	}
	switch {
	case c.Memory < -1:
		return nil, fmt.Errorf("%w: --ren-memory %d must be ≥ 0 (or -1: none)", classes.ErrSettings, c.Memory)
	case c.Memory > 0:
		cfg.Memory = c.Memory
	case c.Memory == 0 && val != nil && len(val.Batches) > 0:
		fir, err := trainer.SelectMemory(ctx, train, val, opt.Seed, opt.Workers, 0, opt.ValSkip)
		if fir == nil {
			return nil, fmt.Errorf("ren: the passive FIR that measures the memory: %w", err)
		}
		if err != nil { // interrupted: nothing trained yet
			return nil, err
		}
		cfg.Memory = fir.Model.LinearTaps
		how := fmt.Sprintf("the passive FIR chosen on validation, val fit %.2f%%", fir.BestValFit)
		if trainer.AtCap(trainer.LinearTapGrid(train), cfg.Memory) {
			if L, factor := trainer.MemoryBeyondCap(ctx, train, val, opt.Seed, opt.Workers, 0, opt.ValSkip); L > cfg.Memory {
				cfg.Memory = L
				how = fmt.Sprintf("the passive FIR at %d times the sampling time; here it validated best at the longest length tried, %d taps", factor, fir.Model.LinearTaps)
			}
		}
		if opt.Progress != nil {
			opt.Progress(fmt.Sprintf("ren memory %d samples (%s)", cfg.Memory, how))
		}
	}
	if opt.Progress != nil {
		total := cfg.Stretched().Epochs // as the memory stretches them
		cfg.Progress = func(epoch int, mse, vf float64) {
			opt.Progress(fmt.Sprintf("ren epoch %4d/%d  loss %.4g  val fit %6.2f%%", epoch, total, mse, vf))
		}
	}
	m, err := baselines.TrainRENContext(ctx, train, val, cfg)
	if m == nil {
		return nil, err
	}
	return &renModel{m}, err
}

type renModel struct{ *baselines.PassiveREN }

// NewREN wraps a trained passive REN as a model of class ren: what train's
// structure search returns when a REN wins (search.Result.RENChosen).
func NewREN(m *baselines.PassiveREN) classes.Model { return &renModel{m} }

func (*renModel) Class() string { return "ren" }

// Unwrap returns the trained REN (package export reads its matrices).
func (m *renModel) Unwrap() *baselines.PassiveREN { return m.PassiveREN }

func (m *renModel) Certify() (classes.Certificate, error) {
	if m.Biased {
		return classes.Certificate{Passive: true, Reason: fmt.Sprintf("passive by parameterization (direct parameterization of the passive REN class, ν = %g; biased: the output is the response minus the zero-input response, passive by the incremental inequality)", m.Nu)}, nil
	}
	if m.Gated {
		return classes.Certificate{Passive: true, Reason: fmt.Sprintf("passive by parameterization (direct parameterization of the passive REN class, ν = %g, zero biases; gated: each gated neuron stays in the sector [0, 1] the LMI's proof uses)", m.Nu)}, nil
	}
	return classes.Certificate{Passive: true, Reason: fmt.Sprintf("passive by parameterization (direct parameterization of the passive REN class, ν = %g, zero biases)", m.Nu)}, nil
}

// FileVersion is 3 for a biased REN (params.biased), 4 for a gated one
// (params.gated), 1 otherwise.
func (m *renModel) FileVersion() int {
	switch {
	case m.Gated:
		return 4
	case m.Biased:
		return 3
	}
	return 1
}

// renParams is the params object of a ren file.
type renParams struct {
	States  int       `json:"states"`
	Neurons int       `json:"neurons"`
	Nu      float64   `json:"nu"`
	Eps     float64   `json:"eps"`
	UScale  float64   `json:"u_scale"`
	YScale  float64   `json:"y_scale"`
	Theta   []float64 `json:"theta"`
	// Biased: theta ends with the biases b_x and b_v (version 3).
	Biased bool `json:"biased,omitempty"`
	// Gated: theta ends with the gates' W_g, u_g and b_g (version 4).
	Gated bool `json:"gated,omitempty"`
}

func (m *renModel) MarshalParams() (json.RawMessage, error) {
	return json.Marshal(renParams{m.States, m.Neurons, m.Nu, m.Eps, m.UScale, m.YScale, m.Theta, m.Biased, m.Gated})
}

func (renClass) DecodeParams(raw json.RawMessage) (classes.Model, error) {
	var p renParams
	if err := decodeStrict(raw, &p); err != nil {
		return nil, err
	}
	m := &baselines.PassiveREN{States: p.States, Neurons: p.Neurons, Nu: p.Nu, Eps: p.Eps, Biased: p.Biased, Gated: p.Gated, UScale: p.UScale, YScale: p.YScale, Theta: p.Theta}
	switch {
	case p.Biased && p.Gated:
		// a biased output rests on incremental passivity, which gates break
		return nil, fmt.Errorf("a REN is biased or gated, not both")
	case p.States < 1 || p.Neurons < 1:
		return nil, fmt.Errorf("states %d and neurons %d must be ≥ 1", p.States, p.Neurons)
	case len(p.Theta) != m.NumParams():
		return nil, fmt.Errorf("theta has %d values, want %d", len(p.Theta), m.NumParams())
	case !(p.Nu >= 0) || math.IsInf(p.Nu, 0) || !(p.Eps > 0) || math.IsInf(p.Eps, 0):
		// passivity rests on ν ≥ 0 and ε > 0: a file cannot claim it otherwise
		return nil, fmt.Errorf("nu %v must be finite ≥ 0 and eps %v finite > 0", p.Nu, p.Eps)
	}
	if err := checkScales(p.UScale, p.YScale); err != nil {
		return nil, err
	}
	if err := checkFinite("theta", p.Theta); err != nil {
		return nil, err
	}
	if y := m.Simulate([]float64{1}); math.IsNaN(y[0]) {
		return nil, fmt.Errorf("the parameters give a singular E (no explicit model)")
	}
	return &renModel{m}, nil
}
