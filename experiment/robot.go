package experiment

import (
	"context"
	"fmt"
	"time"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/model"
	"github.com/passivenfir/gputrain/trainer"
)

// RobotRow is one model's Fit on the robot records e, v1, v2, v3 (closed
// loop, samples 50..end, as the paper's Table II).
type RobotRow struct {
	Model   string             `json:"model"`
	Fit     map[string]float64 `json:"fit"`
	Passive string             `json:"passive"`
	MinRe   *float64           `json:"min_re"`
	Params  int                `json:"params"`
	Seconds float64            `json:"seconds"`
	Config  string             `json:"config"`
}

// RobotSkip is the transient the paper leaves out of the robot's Fit.
const RobotSkip = 49

// RobotConfigs returns the paper's two passive robot models: a 500-tap FIR
// and the parallel FIR + NFIR (m_N = 3, m_G = 500, R1 = R2 = 150, MLP 8×8,
// K = 4, stronger regularization: γ_G = 10, weight decay 1e-3).
func RobotConfigs(o Options) map[string]trainer.Config {
	fir := trainer.DefaultConfig()
	fir.Structure = model.Structure{LinearTaps: 500}
	fir.Rho, fir.Decay = 0, 0 // 500 taps at 200 Hz: the paper's decay rate would cut the response at ~0.3 s
	fir.GammaG = 10
	nf := fir
	// Exact mode's exchange method does not converge at n = 2000 within its
	// iteration limit (docs/BENCHMARKS.md); the paper's sampled constraints
	// do, and every result is still certified (a failing FIR would be
	// re-solved in exact mode by the trainer).
	nf.Passivity, nf.H, nf.Eps = "sampled", 10000, 1e-2
	nf.Structure = model.Structure{Branches: 3, Taps: 500, R1: 150, R2: 150, Hidden: []int{8, 8}, Feedback: true, LinearTaps: 500}
	nf.Iters, nf.Batch, nf.LR, nf.WeightDecay = 4, 1, 1e-3, 1e-3
	nf.Epochs, nf.Patience = 300, 100
	if o.Epochs > 0 {
		nf.Epochs = o.Epochs
	}
	if o.Patience > 0 {
		nf.Patience = o.Patience
	}
	for _, c := range []*trainer.Config{&fir, &nf} {
		c.Seed, c.Workers = o.Seed, o.Workers
	}
	paper := nf // the paper's literal θ_G step: gains from the measured output
	paper.GramGains = "data"
	return map[string]trainer.Config{"FIR": fir, "NFIR": nf, "NFIR(paper θG)": paper}
}

// RobotOrder is the order in which the robot models are reported.
var RobotOrder = []string{"FIR", "NFIR", "NFIR(paper θG)"}

// Robot trains on record e and scores e, v1, v2, v3 (../shared/data/robot).
func Robot(ctx context.Context, o Options, dir string) ([]RobotRow, error) {
	train, tests, err := data.Robot(dir)
	if err != nil {
		return nil, fmt.Errorf("experiment: %w", err)
	}
	all := append([]*data.Dataset{train}, tests...)
	var rows []RobotRow
	cfgs := RobotConfigs(o)
	for _, name := range RobotOrder {
		if !o.want(name) {
			continue
		}
		cfg := cfgs[name]
		start := time.Now()
		o.logf("robot: training %s", name)
		// One record: model selection on the training record itself (the
		// paper's protocol keeps v1–v3 for testing only), or on a held-out
		// tail of it. A linear FIR has nothing to select: it uses all of e.
		fit, val := train, train
		if o.Holdout > 0 && cfg.Structure.Branches > 0 {
			var err error
			if fit, val, err = splitTail(train, o.Holdout, leadIn(cfg)); err != nil {
				return rows, err
			}
			cfg.ValSkip = leadIn(cfg)
		} else {
			cfg.ValSkip = RobotSkip // select on the samples the paper scores
		}
		res, err := trainer.Train(ctx, o.withProgress(name, cfg), fit, val)
		if err != nil {
			return rows, fmt.Errorf("experiment: robot %s: %w", name, err)
		}
		row := RobotRow{Model: name, Fit: map[string]float64{}, Params: res.Model.NumParams(), MinRe: minRe(res.Cert)}
		row.Passive = "certified"
		if !res.Cert.Passive {
			return rows, fmt.Errorf("experiment: robot %s failed its certificate", name)
		}
		for _, d := range all {
			ev, err := trainer.Evaluate(res.Model, d, RobotSkip)
			if err != nil {
				return rows, fmt.Errorf("experiment: robot %s on %s: %w", name, d.Name, err)
			}
			row.Fit[d.Name] = ev.ClosedLoop.Median
		}
		row.Seconds = time.Since(start).Seconds()
		st := cfg.Structure
		row.Config = fmt.Sprintf("m_N=%d m_G=%d R1=%d R2=%d hidden=%v lin=%d K=%d γ_G=%g weight-decay=%g epochs=%d patience=%d passivity=%s", st.Branches, st.Taps, st.R1, st.R2, st.Hidden, st.LinearTaps, cfg.Iters, cfg.GammaG, cfg.WeightDecay, cfg.Epochs, cfg.Patience, cfg.Passivity)
		if cfg.Passivity == "sampled" {
			row.Config += fmt.Sprintf(" H=%d eps=%g", cfg.H, cfg.Eps)
		}
		if st.Feedback && st.Branches > 0 {
			row.Config += " θ_G-gains=" + cfg.GramGains
		}
		if o.Holdout > 0 && st.Branches > 0 {
			row.Config += fmt.Sprintf(" trained on the first %.0f%% of e, validated on the rest (after a %d-sample lead-in)", 100*(1-o.Holdout), leadIn(cfg))
		}
		o.logf("robot: %s fit e %.2f v1 %.2f v2 %.2f v3 %.2f (%.0f s)", name, row.Fit["e"], row.Fit["v1"], row.Fit["v2"], row.Fit["v3"], row.Seconds)
		rows = append(rows, row)
	}
	return rows, nil
}

// splitTail cuts the single-record data set d into its first (1−frac) part
// and its last frac part preceded by lead samples of the first part: the
// validation record simulates those (input the model was trained on) to warm
// up the model's memory, and is scored after them (Config.ValSkip = lead), so
// that the held-out score is not a start-up transient.
func splitTail(d *data.Dataset, frac float64, lead int) (head, tail *data.Dataset, err error) {
	if len(d.Batches) != 1 || !(frac > 0 && frac < 1) {
		return nil, nil, fmt.Errorf("experiment: holdout %g of %d records: want one record and 0 < holdout < 1", frac, len(d.Batches))
	}
	b := d.Batches[0]
	cut := int(float64(len(b.U)) * (1 - frac))
	if cut < 1 || cut == len(b.U) {
		return nil, nil, fmt.Errorf("experiment: holdout %g of %d samples leaves an empty part", frac, len(b.U))
	}
	lead = min(lead, cut)
	head = &data.Dataset{Name: d.Name + "[head]", Ts: d.Ts, Batches: []data.Batch{{U: b.U[:cut], Y: b.Y[:cut]}}}
	tail = &data.Dataset{Name: d.Name + "[tail]", Ts: d.Ts, Batches: []data.Batch{{U: b.U[cut-lead:], Y: b.Y[cut-lead:]}}}
	return head, tail, nil
}

// leadIn is the warm-up of a held-out validation segment: the model's
// longest memory (FIR taps or lifting window).
func leadIn(c trainer.Config) int {
	st := c.Structure
	return max(st.Taps, st.LinearTaps, st.R1, st.R2)
}
