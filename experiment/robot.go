package experiment

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/passivenfir/gputrain/baselines"
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

// RobotConfigs returns the trainer configurations of the robot models, keyed
// by RobotOrder's names: a 500-tap FIR; the parallel FIR + NFIR of the paper's
// structure (m_N = 3, m_G = 500, R1 = R2 = 150, MLP 8×8, K = 4) with our
// reading of "stronger regularization" (γ_G = 10, weight decay 1e-3), with the
// paper's θ_G step, and with the authors' released settings; and the members
// of RobotAverage. (REN is a baseline with its own RobotRENConfig.)
func RobotConfigs(o Options) map[string]trainer.Config {
	fir := RobotFIRConfig(o)
	nf := trainer.DefaultConfig()
	nf.Rho, nf.Decay = 0, 0 // 500 taps at 200 Hz: the MSD decay rate 0.93 would cut the response at ~0.3 s
	nf.GammaG = 10
	// Exact mode's exchange method does not converge at n = 2000 within its
	// iteration limit (docs/BENCHMARKS.md); the paper's sampled constraints
	// do, and every result is still certified (a failing FIR would be
	// re-solved in exact mode by the trainer).
	nf.Passivity, nf.H, nf.Eps = trainer.PassivitySampled, 10000, 1e-2
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
	paper.GramGains = trainer.GramGainsData
	code := RobotPaperCodeConfig(o)
	avg := code // the members of the averaged model: no Adam step (K = 1), short branch filters
	avg.Iters = 1
	// The averaged model was selected (session 6) before the released
	// code's skip, ε convention and initialization were matched here; it
	// keeps the settings it was validated with.
	avg.Skip, avg.Eps, avg.Init = 0, 5e-3, trainer.InitGlorot
	avg.Structure.HoldStart = false
	avg.Structure.Taps, avg.Structure.R1, avg.Structure.R2 = 100, 20, 20
	return map[string]trainer.Config{"FIR": fir, "NFIR": nf, "NFIR(paper θG)": paper, "NFIR(paper code)": code, RobotAverage: avg}
}

// RobotFIRConfig returns the linear FIR of Table II with the settings of the
// authors' released code (Exp2/Other_models_in_Exp2/Exp2_FIR.py and the
// defaults of its θ_G step): 500 taps, ridge weight γ_G = 1 on the sum of
// squared errors in the data's own units, decay bounds |g(k)| ≤ 100·0.99^k,
// Re G ≥ 5e-3 on H = 15000 sampled frequencies (ε = 1e-2 in the 2cos
// convention), and the first 50 samples left out of the loss. Its optimum is
// unique, so it is a check of the data and of the solver against the paper:
// it reproduces the paper's FIR row (85.19 / 85.54 / 47.60 / 86.17) to the
// printed digits (TestRobotFIRMatchesPaper).
func RobotFIRConfig(o Options) trainer.Config {
	c := trainer.DefaultConfig()
	c.Structure = model.Structure{LinearTaps: 500}
	c.Passivity, c.H, c.Eps = trainer.PassivitySampled, 15000, 1e-2
	c.Rho, c.Decay, c.GammaG = 100, 0.99, 1
	c.Skip = 50
	c.Seed, c.Workers = o.Seed, o.Workers
	return c
}

// RobotAverage names the averaged robot model: the mean of RobotMembers
// models, each a 500-tap linear FIR in parallel with three 100-tap branches
// lifted by a random 8×8 network on the last 20 inputs and outputs (R1 =
// R2 = 20), fitted by one θ_G step with the released code's settings (K = 1),
// merged into one passive NFIR by model.Average (3·RobotMembers branches).
// It was chosen by a two-fold cross-validation on e (held-out end and middle
// fifths, docs/results/robot.md): every Adam step on the lifting network
// lowered the validation Fit, averaging random-lifting members raised it,
// and short branch filters generalized better than the paper's 500 taps
// (mean validation Fit 90.42 %, 90.39 % with seeds 11–20, against 90.03 %
// for the linear FIR and 89.88 % for the 500-tap average of session 5).
const RobotAverage = "NFIR average"

// RobotMembers is the number of members of the averaged robot model.
const RobotMembers = 10

// RobotPaperCodeConfig returns the settings of the authors' released code for
// Table II (Exp2/train_NFIR_Table_II.py of the paper's repository), which the
// paper's text only summarizes as "stronger regularization": γ_G = 20 on the
// sum of squared errors, AdamW with learning rate 1e-3, weight decay 5 and
// gradient clip 5, one trajectory a step, 20 epochs per θ_N step (no early
// stopping), decay bounds |g(k)| ≤ 100·0.99^k, Re G ≥ 5e-3 on H = 15000
// sampled frequencies (ε = 1e-2 in our 2cos convention), the θ_G gains from
// the measured output, the first 50 samples left out of every loss, and
// PyTorch's default initialization of the lifting network (Init "fan-in"),
// and u(0) repeated before the record starts in the lifting network's input
// window (HoldStart; e starts mid-motion, and this matters: session 9 of
// docs/results/robot.md). Its heavy weight decay keeps the lifting network
// near its random start: 80 Adam steps in all shrink the weights by about a
// third.
//
// Differences that remain: the code's lifting network sees u(t−150..t) and
// y(t−151..t−1), 151 samples each (R1 = R2 = 150 here, as in the paper's
// text), z-scores each of its 302 inputs separately (one scaler per signal
// here), computes in float32, and keeps its last iterate where this engine
// keeps the iterate that scores best on the training record (on seeds 1–5
// the two are the same model: session 10 of docs/results/robot.md).
func RobotPaperCodeConfig(o Options) trainer.Config {
	c := trainer.DefaultConfig()
	c.Structure = model.Structure{Branches: 3, Taps: 500, R1: 150, R2: 150, Hidden: []int{8, 8}, Feedback: true, LinearTaps: 500, HoldStart: true}
	c.Passivity, c.H, c.Eps = trainer.PassivitySampled, 15000, 1e-2
	c.Rho, c.Decay, c.GammaG = 100, 0.99, 20
	c.Iters, c.Batch, c.LR, c.WeightDecay, c.Clip = 4, 1, 1e-3, 5, 5
	c.Epochs, c.Patience = 20, 0
	c.GramGains = trainer.GramGainsData
	c.Skip, c.Init = 50, trainer.InitFanIn
	c.Seed, c.Workers = o.Seed, o.Workers
	return c
}

// RobotOrder is the order in which the robot models are reported.
var RobotOrder = []string{"FIR", "REN", "NFIR", "NFIR(paper θG)", "NFIR(paper code)", RobotAverage}

// RobotRENConfig returns the passive REN baseline for the robot: n_x = 10,
// n_v = 30, learning rate 1e-2 (chosen among n_x/n_v 5/15 and 10/30 and
// learning rates 3e-3 and 1e-2 by the validation Fit of the held-out tail of
// e; all four were within 0.1 point), one trajectory a step, the first
// RobotSkip samples left out of the loss as the paper's Fit leaves them out.
func RobotRENConfig(o Options) baselines.RENConfig {
	c := baselines.DefaultRENConfig()
	c.States, c.Neurons, c.LR = 10, 30, 1e-2
	c.Batch, c.Epochs, c.Patience = 1, 20000, 2000
	c.Skip, c.ValSkip = RobotSkip, RobotSkip
	c.Seed, c.Workers = o.Seed, o.Workers
	if o.Epochs > 0 {
		c.Epochs = o.Epochs
	}
	return c
}

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
		if name == "REN" {
			row, err := robotRENRow(ctx, o, train, all)
			if err != nil {
				return rows, err
			}
			rows = append(rows, row)
			continue
		}
		seeds := 1
		if o.Seeds > 1 && cfgs[name].Structure.Branches > 0 {
			seeds = o.Seeds // a linear FIR is one convex solve: nothing random
		}
		var seedRows []RobotRow
		for k := range seeds {
			label, cfg, members := robotCandidate(o, cfgs, name, seeds, k)
			row, err := robotRow(ctx, o, label, cfg, members, train, all)
			if err != nil {
				return rows, err
			}
			rows = append(rows, row)
			seedRows = append(seedRows, row)
		}
		if seeds > 1 {
			rows = append(rows, medianRow(name, seedRows))
		}
	}
	return rows, nil
}

// robotCandidate returns the label, configuration and number of members of
// the k-th of seeds runs of the named robot NFIR model (an average of members
// models from the k-th block of seeds when it has more than one member).
func robotCandidate(o Options, cfgs map[string]trainer.Config, name string, seeds, k int) (string, trainer.Config, int) {
	cfg := cfgs[name]
	cfg.Seed = o.Seed + uint64(k)
	label := name
	if seeds > 1 {
		label = fmt.Sprintf("%s seed %d", name, cfg.Seed)
	}
	members := 1
	if name == RobotAverage {
		members = RobotMembers
	}
	if o.Members > 0 && cfg.Structure.Branches > 0 {
		members = o.Members
	}
	if members > 1 {
		cfg.Seed = o.Seed + uint64(k*members)
		label = fmt.Sprintf("%s of %d (seeds %d–%d)", name, members, cfg.Seed, cfg.Seed+uint64(members)-1)
	}
	return label, cfg, members
}

// robotRow trains one robot model (the average of members models of seeds
// cfg.Seed, cfg.Seed+1, … when members > 1) and scores it on every record.
func robotRow(ctx context.Context, o Options, name string, cfg trainer.Config, members int, train *data.Dataset, all []*data.Dataset) (RobotRow, error) {
	start := time.Now()
	o.logf("robot: training %s", name)
	// One record: model selection on the training record itself (the
	// paper's protocol keeps v1–v3 for testing only), or on a held-out
	// part of it; with a holdout every model, the linear FIR too, is
	// trained without that part, so that their validation Fits compare.
	fit, val := train, train
	if o.Holdout > 0 {
		var err error
		if fit, val, cfg.ValSkip, err = splitHoldout(train, o.Holdout, o.HoldoutAt, leadIn(cfg)); err != nil {
			return RobotRow{}, err
		}
	} else {
		cfg.ValSkip = RobotSkip // select on the samples the paper scores
	}
	cfg.Members = members
	res, err := trainer.Train(ctx, o.withProgress(name, cfg), fit, val)
	if err != nil {
		return RobotRow{}, fmt.Errorf("experiment: robot %s: %w", name, err)
	}
	m := res.Model
	cert, err := m.Certify()
	if err != nil {
		return RobotRow{}, fmt.Errorf("experiment: robot %s: %w", name, err)
	}
	row := RobotRow{Model: name, Fit: map[string]float64{}, Params: m.NumParams(), MinRe: minRe(cert)}
	row.Passive = "certified"
	if !cert.Passive {
		return RobotRow{}, fmt.Errorf("experiment: robot %s failed its certificate", name)
	}
	if o.Holdout > 0 {
		ev, err := trainer.Evaluate(m, val, cfg.ValSkip)
		if err != nil {
			return RobotRow{}, fmt.Errorf("experiment: robot %s on the held-out tail: %w", name, err)
		}
		row.Fit["validation"] = ev.ClosedLoop.Median
	}
	for _, d := range all {
		ev, err := trainer.Evaluate(m, d, RobotSkip)
		if err != nil {
			return RobotRow{}, fmt.Errorf("experiment: robot %s on %s: %w", name, d.Name, err)
		}
		row.Fit[d.Name] = ev.ClosedLoop.Median
	}
	row.Seconds = time.Since(start).Seconds()
	st := cfg.Structure
	row.Config = fmt.Sprintf("m_N=%d m_G=%d R1=%d R2=%d hidden=%v lin=%d K=%d γ_G=%g lr=%g weight-decay=%g epochs=%d patience=%d passivity=%s", st.Branches, st.Taps, st.R1, st.R2, st.Hidden, st.LinearTaps, cfg.Iters, cfg.GammaG, cfg.LR, cfg.WeightDecay, cfg.Epochs, cfg.Patience, cfg.Passivity)
	if cfg.Passivity == trainer.PassivitySampled {
		row.Config += fmt.Sprintf(" H=%d eps=%g", cfg.H, cfg.Eps)
	}
	if cfg.Rho > 0 {
		row.Config += fmt.Sprintf(" decay-bounds=%g·%g^k", cfg.Rho, cfg.Decay)
	}
	if cfg.Skip > 0 {
		row.Config += fmt.Sprintf(" skip=%d", cfg.Skip)
	}
	if cfg.Init != "" && st.Branches > 0 {
		row.Config += " init=" + string(cfg.Init)
	}
	if st.HoldStart && st.Branches > 0 {
		row.Config += " hold-start"
	}
	if st.Feedback && st.Branches > 0 {
		row.Config += " θ_G-gains=" + string(cfg.GramGains)
	}
	if o.Holdout > 0 {
		row.Config += holdoutText(o, cfg.ValSkip, row.Fit["validation"])
	}
	if members > 1 {
		row.Config += fmt.Sprintf(" — the mean of %d such models (seeds %d–%d) as one NFIR of %d branches (model.Average)", members, cfg.Seed, cfg.Seed+uint64(members)-1, m.Branches)
	}
	o.logf("robot: %s fit%s (%.0f s)", name, fitText(row, all), row.Seconds)
	return row, nil
}

// robotRENRow trains the passive REN baseline on e (validated on e from
// sample 50, or on the held-out tail after its lead-in) and scores it.
func robotRENRow(ctx context.Context, o Options, train *data.Dataset, all []*data.Dataset) (RobotRow, error) {
	if err := ctx.Err(); err != nil {
		return RobotRow{}, err
	}
	start := time.Now()
	o.logf("robot: training REN")
	c := RobotRENConfig(o)
	fit, val := train, train
	if o.Holdout > 0 {
		lead := leadIn(RobotConfigs(o)["NFIR"]) // the same split as the NFIR models
		var err error
		if fit, val, c.ValSkip, err = splitHoldout(train, o.Holdout, o.HoldoutAt, lead); err != nil {
			return RobotRow{}, err
		}
	}
	if o.Progress != nil {
		c.Progress = func(epoch int, mse, valFit float64) {
			o.Progress("REN", trainer.Event{Stage: "ren", Epoch: epoch - 1, Epochs: c.Epochs, Loss: mse,
				TrainFit: 100 * (1 - math.Sqrt(mse)), ValFit: valFit, Elapsed: time.Since(start)}) // about: the training output has unit RMS
		}
	}
	m, err := baselines.TrainREN(fit, val, c)
	if err != nil {
		return RobotRow{}, fmt.Errorf("experiment: robot REN: %w", err)
	}
	row := RobotRow{Model: "REN", Fit: map[string]float64{}, Passive: "by construction", Params: m.NumParams()}
	score := func(d *data.Dataset, skip int) (float64, error) {
		b := d.Batches[0]
		return model.Fit(b.Y, m.Simulate(b.U), skip)
	}
	if o.Holdout > 0 {
		if row.Fit["validation"], err = score(val, c.ValSkip); err != nil {
			return RobotRow{}, fmt.Errorf("experiment: robot REN: %w", err)
		}
	}
	for _, d := range all {
		if row.Fit[d.Name], err = score(d, RobotSkip); err != nil {
			return RobotRow{}, fmt.Errorf("experiment: robot REN on %s: %w", d.Name, err)
		}
	}
	row.Seconds = time.Since(start).Seconds()
	row.Config = fmt.Sprintf("passive REN, n_x %d, n_v %d, ν %g, tanh, Adam on the simulation error (lr %g, one trajectory a step, best of %d epochs, patience %d, first %d samples not scored; stopped at epoch %d of %d run)",
		c.States, c.Neurons, c.Nu, c.LR, c.Epochs, c.Patience, c.Skip, m.BestEpoch, len(m.ValLoss))
	if o.Holdout > 0 {
		row.Config += holdoutText(o, c.ValSkip, row.Fit["validation"])
	}
	o.logf("robot: REN fit%s (%.0f s)", fitText(row, all), row.Seconds)
	return row, nil
}

// fitText lists a row's validation Fit, if any, and its Fit on the records
// it was scored on, for the log.
func fitText(row RobotRow, scored []*data.Dataset) string {
	var b strings.Builder
	if v, ok := row.Fit["validation"]; ok {
		fmt.Fprintf(&b, " validation %.2f", v)
	}
	for _, d := range scored {
		fmt.Fprintf(&b, " %s %.2f", d.Name, row.Fit[d.Name])
	}
	return b.String()
}

// RobotFold is one candidate of the two-fold selection rule (RobotSelect):
// its validation Fit on the held-out end of e and on the held-out middle,
// each when trained on the rest of e, and their mean.
type RobotFold struct {
	Model    string  `json:"model"`
	End      float64 `json:"end"`
	Middle   float64 `json:"middle"`
	Mean     float64 `json:"mean"`
	Selected bool    `json:"selected"`
	Seconds  float64 `json:"seconds"`
}

// RobotSelectHoldout is the fraction of e each fold of RobotSelect holds
// out when Options.Holdout is 0 (the fraction the rule was fixed with).
const RobotSelectHoldout = 0.2

// RobotSelect applies the two-fold selection rule of docs/results/robot.md
// (fixed in session 6) to the robot models of RobotOrder that o names: each
// is trained on e without its end fraction o.Holdout (0:
// RobotSelectHoldout) and validated there, then without the middle one;
// the candidate with the highest mean of the two validation Fits (the first
// in RobotOrder on a tie) is trained on all of e and scored on e, v1, v2 and
// v3. Only that model is ever scored on v1–v3, after the choice, so the
// test records cannot leak into it. o.HoldoutAt is not used; o.Seeds must
// be at most 1 (a candidate is one model, or one average with o.Members).
func RobotSelect(ctx context.Context, o Options, dir string) ([]RobotFold, []RobotRow, error) {
	if o.Seeds > 1 {
		return nil, nil, fmt.Errorf("experiment: robot selection with %d seeds: a candidate is one model (use Members to average)", o.Seeds)
	}
	frac := o.Holdout
	if frac == 0 {
		frac = RobotSelectHoldout
	}
	train, tests, err := data.Robot(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("experiment: %w", err)
	}
	cfgs := RobotConfigs(o)
	var folds []RobotFold
	var names []string // RobotOrder names of folds
	for _, name := range RobotOrder {
		if !o.want(name) {
			continue
		}
		start := time.Now()
		f := RobotFold{Model: name}
		for _, at := range []string{"end", "middle"} {
			fo := o
			fo.Holdout, fo.HoldoutAt = frac, at
			label, row, err := candidateRow(ctx, fo, cfgs, name, ", "+at+" fold", train, nil)
			f.Model = label
			if err != nil {
				return folds, nil, err
			}
			if at == "end" {
				f.End = row.Fit["validation"]
			} else {
				f.Middle = row.Fit["validation"]
			}
		}
		f.Mean = (f.End + f.Middle) / 2
		f.Seconds = time.Since(start).Seconds()
		o.logf("robot: %s two-fold validation Fit %.2f (end %.2f, middle %.2f)", f.Model, f.Mean, f.End, f.Middle)
		folds = append(folds, f)
		names = append(names, name)
	}
	if len(folds) == 0 {
		return nil, nil, fmt.Errorf("experiment: robot selection: no candidates (--only %q names none of %s)", strings.Join(o.Only, ","), strings.Join(RobotOrder, ", "))
	}
	best := -1
	for i, f := range folds {
		if !math.IsNaN(f.Mean) && (best < 0 || f.Mean > folds[best].Mean) {
			best = i
		}
	}
	if best < 0 {
		return folds, nil, fmt.Errorf("experiment: robot selection: no candidate has a finite validation Fit")
	}
	folds[best].Selected = true
	o.logf("robot: selected %s; training it on all of e", folds[best].Model)
	all := append([]*data.Dataset{train}, tests...)
	o.Holdout = 0
	_, row, err := candidateRow(ctx, o, cfgs, names[best], "", train, all)
	if err != nil {
		return folds, nil, err
	}
	return folds, []RobotRow{row}, nil
}

// candidateRow trains the named RobotSelect candidate (one model, or one
// average of members) with o's holdout, scores it on the records scored,
// and returns its label (suffix is added to it in the log).
func candidateRow(ctx context.Context, o Options, cfgs map[string]trainer.Config, name, suffix string, train *data.Dataset, scored []*data.Dataset) (string, RobotRow, error) {
	if name == "REN" {
		row, err := robotRENRow(ctx, o, train, scored)
		return name, row, err
	}
	label, cfg, members := robotCandidate(o, cfgs, name, 1, 0)
	row, err := robotRow(ctx, o, label+suffix, cfg, members, train, scored)
	return label, row, err
}

// medianRow summarizes the rows of one model trained with several seeds: the
// median Fit per record, the smallest min Re G, the summed time.
func medianRow(name string, rows []RobotRow) RobotRow {
	m := RobotRow{Model: fmt.Sprintf("%s, median of %d seeds", name, len(rows)), Fit: map[string]float64{},
		Passive: "certified", Params: rows[0].Params, Config: rows[0].Config + " (per-seed rows above)"}
	for rec := range rows[0].Fit {
		v := make([]float64, len(rows))
		for i, r := range rows {
			v[i] = r.Fit[rec]
		}
		m.Fit[rec] = model.Summarize(v).Median
	}
	for _, r := range rows {
		m.Seconds += r.Seconds
		if r.MinRe != nil && (m.MinRe == nil || *r.MinRe < *m.MinRe) {
			v := *r.MinRe
			m.MinRe = &v
		}
	}
	return m
}

// splitHoldout holds back the fraction frac of the single-record data set d,
// at its end (at "end" or "") or in its middle (at "middle"), and returns the
// rest as training data (one or two trajectories) and the held-out segment
// preceded by lead samples of the data before it as validation data: the
// validation record simulates those (input the model was trained on) to warm
// up the model's memory, and is scored after them (Config.ValSkip = lead,
// shortened when less data precedes the segment), so that the held-out
// score is not a start-up transient. Two folds, end and middle, make a
// two-fold cross-validation of a choice.
func splitHoldout(d *data.Dataset, frac float64, at string, lead int) (fit, val *data.Dataset, valSkip int, err error) {
	if len(d.Batches) != 1 || !(frac > 0 && frac < 1) {
		return nil, nil, 0, fmt.Errorf("experiment: holdout %g of %d records: want one record and 0 < holdout < 1", frac, len(d.Batches))
	}
	b := d.Batches[0]
	n := len(b.U)
	hold := n - int(float64(n)*(1-frac)) // as the training part was always cut: the first int(n·(1−frac)) samples
	var lo int
	switch at {
	case "", "end":
		lo = n - hold
	case "middle":
		lo = (n - hold) / 2
	default:
		return nil, nil, 0, fmt.Errorf("experiment: holdout at %q: want end or middle", at)
	}
	hi := lo + hold
	if hold < 1 || lo < 1 {
		return nil, nil, 0, fmt.Errorf("experiment: holdout %g of %d samples at the %s leaves an empty part", frac, n, at)
	}
	lead = min(lead, lo)
	parts, segment := data.SplitSegment(b, lo, hi, lead)
	fit = &data.Dataset{Name: d.Name + "[train]", Ts: d.Ts, Batches: parts}
	val = &data.Dataset{Name: d.Name + "[holdout]", Ts: d.Ts, Batches: []data.Batch{segment}}
	return fit, val, lead, nil
}

// holdoutText describes the split of Options.Holdout for a report.
func holdoutText(o Options, lead int, valFit float64) string {
	where := fmt.Sprintf("trained on the first %.0f%% of e, validated on the rest", 100*(1-o.Holdout))
	if o.HoldoutAt == "middle" {
		where = fmt.Sprintf("trained on e without its middle %.0f%%, validated on that middle", 100*o.Holdout)
	}
	return fmt.Sprintf(" %s (after a %d-sample lead-in): validation Fit %.2f%%", where, lead, valFit)
}

// leadIn is the warm-up of a held-out validation segment: the model's
// memory (model.Structure.Memory), as train's validation tails have. (It
// was the largest of Taps, LinearTaps, R1 and R2 whether or not the
// structure used them; for the robot models the two agree.)
func leadIn(c trainer.Config) int { return c.Structure.Memory() }
