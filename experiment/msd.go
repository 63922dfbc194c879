package experiment

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/passivenfir/gputrain/baselines"
	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/model"
	"github.com/passivenfir/gputrain/trainer"
)

// Options controls an experiment's cost.
type Options struct {
	Seed    uint64
	Workers int
	// Epochs and Patience override the paper's Adam budget per θ_N step
	// when > 0 (the paper: 1000 and 300).
	Epochs, Patience int
	// BPTTEpochs overrides the paper's 100 BPTT epochs when > 0.
	BPTTEpochs int
	// Batches scales the mass-spring-damper splits down from 300/100/100
	// (0: the paper's sizes); for quick runs only.
	Batches int
	// Holdout is the fraction of the robot's training record e kept back
	// (see HoldoutAt) as validation data for early stopping and model
	// selection; every robot model then trains without it and reports its
	// validation Fit (0: the paper's protocol, train and select on all of e,
	// scored from sample 50). The held-out part is simulated after a lead-in
	// of the model's longest memory, which is not scored. v1–v3 are never
	// used for any choice.
	Holdout float64
	// HoldoutAt places the held-out part of e: "end" (default) or "middle"
	// (training then uses the two pieces around it); the two make a two-fold
	// cross-validation.
	HoldoutAt string
	// Select makes a robot run apply the two-fold selection rule
	// (RobotSelect) to the models Only names, instead of training each on
	// all of e (Robot).
	Select bool
	// Seeds is the number of training seeds (Seed, Seed+1, …) each robot
	// NFIR model is trained with; every seed gets its own row, and with more
	// than one a row of per-record medians follows (0 or 1: one seed).
	Seeds int
	// Members, when > 0, trains every robot NFIR model as the mean of this
	// many members (trainer.Config.Members; seeds Seed, Seed+1, …, and the
	// next block of seeds for each further --seeds run), merged into one
	// NFIR (0: one model, and RobotMembers for RobotAverage).
	Members int
	// Only restricts the run to the named models (nil: all).
	Only []string
	// Log receives one line per stage (nil: silent).
	Log func(string)
	// Progress receives the training events of every model (nil: none).
	Progress func(model string, e trainer.Event)
}

// withProgress attaches o.Progress to a training configuration.
func (o Options) withProgress(name string, c trainer.Config) trainer.Config {
	if o.Progress != nil {
		c.Progress = func(e trainer.Event) { o.Progress(name, e) }
	}
	return c
}

func (o Options) logf(format string, a ...any) {
	if o.Log != nil {
		o.Log(fmt.Sprintf(format, a...))
	}
}

func (o Options) want(name string) bool {
	if len(o.Only) == 0 {
		return true
	}
	for _, n := range o.Only {
		if n == name {
			return true
		}
	}
	return false
}

// Row is one model's test score.
type Row struct {
	Model      string         `json:"model"`
	Data       string         `json:"data"`
	ClosedLoop model.Summary  `json:"closed_loop"`
	OpenLoop   *model.Summary `json:"open_loop,omitempty"` // FB models: q from the measured output
	Passive    string         `json:"passive"`             // "certified", "by construction" (REN), "no (np)" or "n/a"
	MinRe      *float64       `json:"min_re"`              // smallest certified Re G over the FIRs (nil: no FIR)
	Params     int            `json:"params"`
	Seconds    float64        `json:"seconds"`
	Config     string         `json:"config"`
}

// MSDConfigs returns the NFIR variants of the paper's Fig. 4 with the
// paper's settings (Section VI-A).
func MSDConfigs(o Options) map[string]trainer.Config {
	base := trainer.PaperConfig()
	base.Seed, base.Workers = o.Seed, o.Workers
	if o.Epochs > 0 {
		base.Epochs = o.Epochs
	}
	if o.Patience > 0 {
		base.Patience = o.Patience
	}
	np := func(c trainer.Config) trainer.Config { c.Passivity, c.Rho = trainer.PassivityNone, 0; return c }
	fir := base
	fir.Structure = model.Structure{LinearTaps: 50}
	ff := base
	ff.Structure.Feedback, ff.Structure.R2 = false, 0
	fb := base
	bp := base
	bp.BPTTEpochs, bp.BPTTBatch, bp.BPTTLR, bp.BPTTClip = 100, 8, 5e-5, 1
	if o.BPTTEpochs > 0 {
		bp.BPTTEpochs = o.BPTTEpochs
	}
	paper := fb // the paper's literal θ_G step: gains from the measured output
	paper.GramGains = trainer.GramGainsData
	return map[string]trainer.Config{
		"FIR": fir, "FF": ff, "FF(np)": np(ff), "FB": fb, "FB(np)": np(fb), "FB-BP": bp, "FB(paper θG)": paper,
	}
}

// MSDRENConfig returns the REN baseline's settings: a passive REN of about
// the paper's size (691 parameters against its 702), trained on the
// simulation error with early stopping on the validation batches.
func MSDRENConfig(o Options) baselines.RENConfig {
	c := baselines.DefaultRENConfig()
	c.Epochs, c.Patience, c.Seed, c.Workers = 1000, 100, o.Seed, o.Workers
	if o.Epochs > 0 {
		c.Epochs = o.Epochs
	}
	return c
}

// MSDOrder is the order in which the mass-spring-damper models are reported.
var MSDOrder = []string{"FIR", "N4SID(np)", "MLP(np)", "REN", "FF(np)", "FF", "FB(np)", "FB", "FB-BP", "FB(paper θG)"}

// MSD trains every model of Fig. 4 on the mass-spring-damper splits (noise
// with the given SNR in dB on the training and validation outputs when snr
// is not NaN; the test score is always against the noise-free output).
func MSD(ctx context.Context, o Options, snr float64) ([]Row, error) {
	train, val, test, err := msdSplits(o, snr)
	if err != nil {
		return nil, err
	}
	label := "noise-free"
	if !math.IsNaN(snr) {
		label = fmt.Sprintf("SNR %g dB", snr)
	}
	var rows []Row
	cfgs := MSDConfigs(o)
	for _, name := range MSDOrder {
		if !o.want(name) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return rows, err
		}
		start := time.Now()
		o.logf("msd %s: training %s", label, name)
		var row Row
		switch name {
		case "N4SID(np)":
			ss, err := baselines.N4SID(train, 20, 40)
			if err != nil {
				return rows, fmt.Errorf("experiment: N4SID: %w", err)
			}
			n := ss.Order()
			row = scoreSim(name, label, test, ss.Simulate, n*n+2*n+1)
			row.Config = "order 20, horizon 40"
		case "MLP(np)":
			c := baselines.DefaultMLPConfig()
			c.Seed = o.Seed
			if o.Epochs > 0 {
				c.Epochs = o.Epochs
			}
			mlp, err := baselines.TrainMLP(train, val, c)
			if err != nil {
				return rows, fmt.Errorf("experiment: MLP: %w", err)
			}
			row = scoreSim(name, label, test, mlp.Simulate, mlp.NumParams())
			row.Config = fmt.Sprintf("u(t..t-%d) → %d → %d → 1, tanh, Adam", c.Memory-1, c.Hidden1, c.Hidden2)
		case "REN":
			c := MSDRENConfig(o)
			if o.Progress != nil {
				start := time.Now()
				c.Progress = func(epoch int, mse, valFit float64) {
					o.Progress(name, trainer.Event{Stage: "ren", Epoch: epoch - 1, Epochs: c.Epochs, Loss: mse,
						TrainFit: 100 * (1 - math.Sqrt(mse)), ValFit: valFit, Elapsed: time.Since(start)}) // training outputs have unit RMS
				}
			}
			ren, err := baselines.TrainREN(train, val, c)
			if err != nil {
				return rows, fmt.Errorf("experiment: REN: %w", err)
			}
			row = scoreSim(name, label, test, ren.Simulate, ren.NumParams())
			row.Passive = "by construction"
			row.Config = fmt.Sprintf("passive REN, n_x %d, n_v %d, ν %g, tanh, Adam on the simulation error (lr %g, %d trajectories a step, best of %d epochs, patience %d)", c.States, c.Neurons, c.Nu, c.LR, c.Batch, c.Epochs, c.Patience)
		default:
			cfg := cfgs[name]
			res, err := trainer.Train(ctx, o.withProgress(name, cfg), train, val)
			if err != nil {
				return rows, fmt.Errorf("experiment: %s: %w", name, err)
			}
			if row, err = scoreModel(name, label, cfg, res, test, 0); err != nil {
				return rows, err
			}
		}
		row.Seconds = time.Since(start).Seconds()
		o.logf("msd %s: %s median closed-loop fit %.2f%% (%.0f s)", label, name, row.ClosedLoop.Median, row.Seconds)
		rows = append(rows, row)
	}
	return rows, nil
}

func msdSplits(o Options, snr float64) (train, val, test *data.Dataset, err error) {
	var noise []float64
	if !math.IsNaN(snr) {
		noise = []float64{snr} // the test batches keep the clean output in YClean for scoring
	}
	if o.Batches == 0 {
		return data.MSDSplits(o.Seed, noise...)
	}
	n := [3]int{o.Batches, max(o.Batches/3, 2), max(o.Batches/3, 2)}
	seeds := data.MSDSplitSeeds(o.Seed)
	var ds [3]*data.Dataset
	for i := range ds {
		c := data.MSDConfig{Batches: n[i], Seed: seeds[i]}
		if len(noise) > 0 {
			c.SNR = snr
		}
		if ds[i], err = data.GenerateMSD(c); err != nil {
			return nil, nil, nil, fmt.Errorf("experiment: %w", err)
		}
	}
	return ds[0], ds[1], ds[2], nil
}

func scoreSim(name, label string, test *data.Dataset, sim func([]float64) []float64, params int) Row {
	fits := make([]float64, len(test.Batches))
	for i, b := range test.Batches {
		target := b.Y
		if b.YClean != nil {
			target = b.YClean
		}
		fits[i], _ = model.Fit(target, sim(b.U), 0)
	}
	return Row{Model: name, Data: label, ClosedLoop: model.Summarize(fits), Passive: "no (np)", Params: params}
}

func scoreModel(name, label string, cfg trainer.Config, res *trainer.Result, test *data.Dataset, skip int) (Row, error) {
	ev, err := trainer.Evaluate(res.Model, test, skip)
	if err != nil {
		return Row{}, fmt.Errorf("experiment: %s: %w", name, err)
	}
	row := Row{Model: name, Data: label, ClosedLoop: ev.ClosedLoop, Params: res.Model.NumParams(), MinRe: minRe(res.Cert)}
	if res.Model.Feedback {
		ol := ev.OpenLoop
		row.OpenLoop = &ol
	}
	switch {
	case cfg.Passivity == trainer.PassivityNone && res.Cert.Passive:
		row.Passive = "no (np; happens to certify)"
	case cfg.Passivity == trainer.PassivityNone:
		row.Passive = "no (np)"
	case res.Cert.Passive:
		row.Passive = "certified"
	default:
		return row, fmt.Errorf("experiment: %s: a %s-mode model failed its certificate", name, cfg.Passivity)
	}
	st := cfg.Structure
	row.Config = fmt.Sprintf("m_N=%d m_G=%d R1=%d R2=%d hidden=%v fb=%v lin=%d K=%d passivity=%s epochs=%d patience=%d", st.Branches, st.Taps, st.R1, st.R2, st.Hidden, st.Feedback, st.LinearTaps, cfg.Iters, cfg.Passivity, cfg.Epochs, cfg.Patience)
	if st.Feedback && st.Branches > 0 {
		row.Config += " θ_G-gains=" + string(cfg.GramGains)
	}
	if cfg.BPTTEpochs > 0 {
		row.Config += fmt.Sprintf(" +BPTT %d epochs", cfg.BPTTEpochs)
	}
	return row, nil
}

// minRe is the smallest certified Re G over the model's FIRs.
func minRe(c model.Certificate) *float64 {
	m := math.Inf(1)
	for _, b := range c.Branches {
		m = math.Min(m, b.MinRe)
	}
	if c.Linear != nil {
		m = math.Min(m, c.Linear.MinRe)
	}
	if math.IsInf(m, 1) {
		return nil
	}
	return &m
}
