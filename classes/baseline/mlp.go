package baseline

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/passivenfir/gputrain/baselines"
	"github.com/passivenfir/gputrain/classes"
	"github.com/passivenfir/gputrain/data"
)

// mlpClass is the paper's MLP(np): baselines.TrainMLP.
type mlpClass struct{ Memory, Epochs int }

func (mlpClass) Name() string { return "mlp" }
func (mlpClass) About() string {
	return "MLP (np): feed-forward network of the last inputs (FIR-MLP), not passive"
}

func (c mlpClass) AddFlags(fs classes.FlagSet) func() classes.Class {
	def := baselines.DefaultMLPConfig()
	fs.IntVar(&c.Memory, "mlp-memory", def.Memory, "--model mlp: input samples the network sees")
	// 0, not the default, so that --class-budget quick sets them as in compare
	fs.IntVar(&c.Epochs, "mlp-epochs", 0, fmt.Sprintf("--model mlp: maximum epochs, early stopping on validation data (0: %d, or %d with --class-budget quick)", def.Epochs, mlpQuickEpochs))
	return func() classes.Class { return c }
}

// mlpQuickEpochs are the epochs of a Quick budget.
const mlpQuickEpochs = 60

func (c mlpClass) Fit(ctx context.Context, train, val *data.Dataset, opt classes.FitOptions) (classes.Model, error) {
	if err := cancelled(ctx); err != nil {
		return nil, err
	}
	cfg := baselines.DefaultMLPConfig()
	cfg.Seed = opt.Seed
	if opt.Budget == classes.Quick {
		cfg.Epochs, cfg.Patience = mlpQuickEpochs, 10
	}
	if c.Memory != 0 {
		cfg.Memory = c.Memory
	}
	if c.Epochs != 0 {
		cfg.Epochs = c.Epochs
	}
	m, err := baselines.TrainMLP(train, val, cfg)
	if err != nil {
		return nil, err
	}
	return &mlpModel{m}, nil
}

type mlpModel struct{ *baselines.FIRMLP }

func (*mlpModel) Class() string { return "mlp" }

func (*mlpModel) Certify() (classes.Certificate, error) {
	return classes.Certificate{Reason: "MLP (np): not a passive class (a network of the input window without passivity constraint)"}, nil
}

// mlpParams is the params object of an mlp file.
type mlpParams struct {
	Memory  int       `json:"memory"`
	Hidden1 int       `json:"hidden1"`
	Hidden2 int       `json:"hidden2"`
	UScale  float64   `json:"u_scale"`
	YScale  float64   `json:"y_scale"`
	Theta   []float64 `json:"theta"`
}

func (m *mlpModel) MarshalParams() (json.RawMessage, error) {
	return json.Marshal(mlpParams{m.Memory, m.Hidden1, m.Hidden2, m.UScale, m.YScale, m.Theta})
}

func (mlpClass) DecodeParams(raw json.RawMessage) (classes.Model, error) {
	var p mlpParams
	if err := decodeStrict(raw, &p); err != nil {
		return nil, err
	}
	m := &baselines.FIRMLP{Memory: p.Memory, Hidden1: p.Hidden1, Hidden2: p.Hidden2, UScale: p.UScale, YScale: p.YScale, Theta: p.Theta}
	if p.Memory < 1 || p.Hidden1 < 1 || p.Hidden2 < 1 {
		return nil, fmt.Errorf("memory %d, hidden1 %d, hidden2 %d must be ≥ 1", p.Memory, p.Hidden1, p.Hidden2)
	}
	if len(p.Theta) != m.NumParams() {
		return nil, fmt.Errorf("theta has %d values, want %d", len(p.Theta), m.NumParams())
	}
	if err := checkScales(p.UScale, p.YScale); err != nil {
		return nil, err
	}
	if err := checkFinite("theta", p.Theta); err != nil {
		return nil, err
	}
	return &mlpModel{m}, nil
}
