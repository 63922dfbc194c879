package baseline

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/passivenfir/gputrain/baselines"
	"github.com/passivenfir/gputrain/classes"
	"github.com/passivenfir/gputrain/data"
)

// gruClass is a GRU simulation model: baselines.TrainGRU.
type gruClass struct{ Units, Epochs, MaxSamples int }

func (gruClass) Name() string { return "gru" }
func (gruClass) About() string {
	return "GRU (np): recurrent network trained on the simulation error, not passive"
}

func (c gruClass) AddFlags(fs classes.FlagSet) func() classes.Class {
	def := baselines.DefaultGRUConfig()
	fs.IntVar(&c.Units, "gru-units", def.Units, "--model gru: units of the GRU's state")
	// 0, not the defaults, so that --class-budget quick sets them as in compare
	q := quickGRU(def)
	fs.IntVar(&c.Epochs, "gru-epochs", 0, fmt.Sprintf("--model gru: maximum epochs, early stopping after %d without a better validation Fit (0: %d)", def.Patience, def.Epochs))
	fs.IntVar(&c.MaxSamples, "gru-max-samples", 0, fmt.Sprintf("--model gru: training budget, samples simulated by the training steps over the whole run, about 6 µs each on two cores (0: %d, or %d with --class-budget quick)", def.MaxSamples, q.MaxSamples))
	return func() classes.Class { return c }
}

// quickGRU is the Quick budget: a fifth of the default sample budget, the
// default's epochs and patience (a quick look still has to get the GRU
// off its first plateau; see baselines.DefaultGRUConfig).
func quickGRU(cfg baselines.GRUConfig) baselines.GRUConfig {
	cfg.MaxSamples /= 5
	return cfg
}

func (c gruClass) Fit(ctx context.Context, train, val *data.Dataset, opt classes.FitOptions) (classes.Model, error) {
	cfg := baselines.DefaultGRUConfig()
	if opt.Budget == classes.Quick {
		cfg = quickGRU(cfg)
	}
	cfg.Seed, cfg.Workers, cfg.ValSkip = opt.Seed, opt.Workers, opt.ValSkip
	if c.Units != 0 {
		cfg.Units = c.Units
	}
	if c.Epochs != 0 {
		cfg.Epochs = c.Epochs
	}
	if c.MaxSamples != 0 {
		cfg.MaxSamples = c.MaxSamples
	}
	if opt.Progress != nil {
		cfg.Progress = func(epoch int, mse, vf float64) {
			opt.Progress(fmt.Sprintf("gru epoch %4d/%d  loss %.4g  val fit %6.2f%%", epoch, cfg.Epochs, mse, vf))
		}
	}
	m, err := baselines.TrainGRU(ctx, train, val, cfg)
	if m == nil {
		return nil, err
	}
	return &gruModel{m}, err
}

type gruModel struct{ *baselines.GRU }

func (*gruModel) Class() string { return "gru" }

func (*gruModel) Certify() (classes.Certificate, error) {
	return classes.Certificate{Reason: "GRU: not a passive class"}, nil
}

// gruParams is the params object of a gru file.
type gruParams struct {
	Units  int       `json:"units"`
	UScale float64   `json:"u_scale"`
	YScale float64   `json:"y_scale"`
	Theta  []float64 `json:"theta"`
}

func (m *gruModel) MarshalParams() (json.RawMessage, error) {
	return json.Marshal(gruParams{m.Units, m.UScale, m.YScale, m.Theta})
}

func (gruClass) DecodeParams(raw json.RawMessage) (classes.Model, error) {
	var p gruParams
	if err := decodeStrict(raw, &p); err != nil {
		return nil, err
	}
	m := &baselines.GRU{Units: p.Units, UScale: p.UScale, YScale: p.YScale, Theta: p.Theta}
	if err := m.Check(); err != nil {
		return nil, err
	}
	return &gruModel{m}, nil
}
