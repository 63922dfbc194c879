package trainer

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Settings is the configuration keyed by the command-line flags' names:
// the one spelling of every setting. It is what a model file's "training"
// object holds (with the data's names and records such as the structure
// search beside it) and what a --config file gives, and it is Config's JSON
// form: a training object decodes back into a Config.
func (c Config) Settings() map[string]any {
	init, scale := c.Init, c.Scale
	if init == "" {
		init = InitGlorot
	}
	if scale == "" {
		scale = ScaleNone
	}
	return map[string]any{
		"branches": c.Structure.Branches, "taps": c.Structure.Taps, "r1": c.Structure.R1, "r2": c.Structure.R2,
		"hidden": append([]int{}, c.Structure.Hidden...), "feedback": c.Structure.Feedback, "linear-taps": c.Structure.LinearTaps,
		"hold-start": c.Structure.HoldStart,
		"passivity":  c.Passivity, "H": c.H, "eps": c.Eps, "rho": c.Rho, "decay": c.Decay, "gamma-g": c.GammaG,
		"iters": c.Iters, "epochs": c.Epochs, "patience": c.Patience, "batch": c.Batch, "lr": c.LR,
		"weight-decay": c.WeightDecay, "clip": c.Clip, "bptt-epochs": c.BPTTEpochs, "bptt-batch": c.BPTTBatch,
		"bptt-patience": c.BPTTPatience, "bptt-lr": c.BPTTLR, "bptt-clip": c.BPTTClip, "seed": c.Seed,
		"workers": c.Workers, "device": c.Device, "monitor": c.Monitor, "gram-gains": c.GramGains,
		"skip": c.Skip, "val-skip": c.ValSkip, "init": init, "scale": scale,
		"members": max(c.Members, 1),
	}
}

// MarshalJSON writes Settings.
func (c Config) MarshalJSON() ([]byte, error) { return json.Marshal(c.Settings()) }

// UnmarshalJSON reads the settings of an object keyed as Settings writes
// it ("_" is accepted for "-", as in --config files) over c's values. Other
// keys — a training object's data names, its structure search, its
// provenance — are not settings and are passed over. A value of the wrong
// type is an error naming the key.
func (c *Config) UnmarshalJSON(b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("trainer: settings: %w", err)
	}
	fields := map[string]any{
		"branches": &c.Structure.Branches, "taps": &c.Structure.Taps, "r1": &c.Structure.R1, "r2": &c.Structure.R2,
		"hidden": &c.Structure.Hidden, "feedback": &c.Structure.Feedback, "linear-taps": &c.Structure.LinearTaps,
		"hold-start": &c.Structure.HoldStart,
		"passivity":  &c.Passivity, "H": &c.H, "eps": &c.Eps, "rho": &c.Rho, "decay": &c.Decay, "gamma-g": &c.GammaG,
		"iters": &c.Iters, "epochs": &c.Epochs, "patience": &c.Patience, "batch": &c.Batch, "lr": &c.LR,
		"weight-decay": &c.WeightDecay, "clip": &c.Clip, "bptt-epochs": &c.BPTTEpochs, "bptt-batch": &c.BPTTBatch,
		"bptt-patience": &c.BPTTPatience, "bptt-lr": &c.BPTTLR, "bptt-clip": &c.BPTTClip, "seed": &c.Seed,
		"workers": &c.Workers, "device": &c.Device, "monitor": &c.Monitor, "gram-gains": &c.GramGains,
		"skip": &c.Skip, "val-skip": &c.ValSkip, "init": &c.Init, "scale": &c.Scale, "members": &c.Members,
	}
	for k, raw := range m {
		p, ok := fields[strings.ReplaceAll(k, "_", "-")]
		if !ok {
			continue
		}
		if err := json.Unmarshal(raw, p); err != nil {
			return fmt.Errorf("trainer: setting %q: %w", k, err)
		}
	}
	return nil
}
