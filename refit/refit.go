// Package refit continues the training of a model that validation chose on
// all the data it was chosen from.
//
// When the user gives no validation data, gputrain train holds part of the
// training records out to choose a structure on (package data's holdout).
// The chosen model has then never seen that part: on a periodic record
// split by phase it is a fifth of every period, and where the excitation
// puts something only there (an amplitude level, a frequency band) the
// model never learns it. Refitting on all of it once the choice is made is
// the usual last step of model selection (scikit-learn's refit of a grid
// search): the choice stays validation's, the parameters use every sample.
//
// The refit continues training from the chosen parameters rather than
// starting again: a structure search's members were stopped on validation
// data that no longer exists, and a new start could land elsewhere with no
// way to tell. Each family continues for Share of its full schedule, at the
// learning rate its schedule ended at, under a wall-clock deadline; passivity holds for every
// parameter value of the RENs and loops, and the NFIR's θ_G step keeps its
// certificate. With no validation data left to judge it, Keep guards
// against a refit that went wrong: the refitted model is kept only when
// its closed-loop Fit on all the data is no lower than the chosen one's
// (which is lower than a working refit's there, since it saw only part).
package refit

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"time"

	"github.com/passivenfir/gputrain/baselines"
	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/ensemble"
	"github.com/passivenfir/gputrain/loop"
	"github.com/passivenfir/gputrain/model"
	"github.com/passivenfir/gputrain/trainer"
	"github.com/passivenfir/gputrain/trials"
)

// DefaultShare is the share of a family's full schedule (epochs, and
// samples simulated where the schedule bounds them) that the refit runs.
// It was taken on one development record (docs/ZOO.md, session 36): a
// periodic record held out by phase whose held-out part held an amplitude
// level no training sample had, where a chosen REN continued for 0.05, 0.1,
// 0.2 and 0.4 of its 5000 epochs gained 2.4, 2.4, 4.1 and 5.4 points of
// test Fit; 0.4, the largest tried, also keeps the refit well inside its
// time (TimeShare) on the records measured.
const DefaultShare = 0.4

// TimeShare is the share of the structure search's time limit that
// gputrain train sets aside for the refit (the search gets the rest), so
// that search and refit together keep to --time-limit.
const TimeShare = 0.125

// ErrConfig reports options or a model the refit cannot use.
var ErrConfig = errors.New("refit: bad configuration")

// Options are the settings of a refit.
type Options struct {
	// Share of each family's full schedule to continue for, in (0, 1];
	// 0 means DefaultShare.
	Share float64
	// Deadline, when set, bounds the refit in wall-clock time: training
	// stops at it and keeps the parameters reached.
	Deadline time.Time
	// Workers is the goroutines of the gradients (0: GOMAXPROCS).
	Workers int
	// Skip is the samples at the start of every record simulated but left
	// out of the loss and of Keep's Fit (train's --skip).
	Skip int
}

// Check reports the first field outside its range.
func (o Options) Check() error {
	switch {
	case !(o.Share >= 0 && o.Share <= 1):
		return fmt.Errorf("%w: share %v must be in (0, 1] (0: %v)", ErrConfig, o.Share, DefaultShare)
	case o.Workers < 0:
		return fmt.Errorf("%w: workers %d must be ≥ 0", ErrConfig, o.Workers)
	case o.Skip < 0:
		return fmt.Errorf("%w: skip %d must be ≥ 0", ErrConfig, o.Skip)
	}
	return nil
}

func (o Options) share() float64 {
	if o.Share == 0 {
		return DefaultShare
	}
	return o.Share
}

// part is share of n, at least 1 where n is positive.
func (o Options) part(n int) int {
	if n <= 0 {
		return n
	}
	return max(1, int(math.Ceil(o.share()*float64(n))))
}

// context bounds ctx by the deadline.
func (o Options) context(ctx context.Context) (context.Context, context.CancelFunc) {
	if o.Deadline.IsZero() {
		return context.WithCancel(ctx)
	}
	return context.WithDeadline(ctx, o.Deadline)
}

func checkData(all *data.Dataset, o Options) error {
	if err := o.Check(); err != nil {
		return err
	}
	if all == nil || all.Len() == 0 {
		return fmt.Errorf("%w: no data", ErrConfig)
	}
	return all.Validate(1)
}

// REN continues the passive REN m on all for Share of base's schedule
// (epochs and samples simulated), with base's other settings and m's
// structure; m is not modified. A REN is passive for every parameter
// value, so the result needs no new certificate.
func REN(ctx context.Context, m *baselines.PassiveREN, base baselines.RENConfig, all *data.Dataset, o Options) (*baselines.PassiveREN, error) {
	if m == nil {
		return nil, fmt.Errorf("%w: no REN", ErrConfig)
	}
	if err := checkData(all, o); err != nil {
		return nil, err
	}
	cfg := base
	cfg.States, cfg.Neurons, cfg.Nu, cfg.Biased, cfg.Gated = m.States, m.Neurons, m.Nu, m.Biased, false
	if m.Gated {
		cfg = cfg.WithGates()
	}
	if cfg.Epochs == 0 {
		cfg.Epochs = baselines.DefaultRENConfig().Epochs
	}
	cfg.Epochs, cfg.MaxSamples = o.part(cfg.Epochs), o.part(cfg.MaxSamples)
	cfg.Start, cfg.Skip, cfg.ValSkip, cfg.Workers, cfg.Progress = m, o.Skip, 0, o.Workers, nil
	ctx, cancel := o.context(ctx)
	defer cancel()
	r, err := baselines.TrainRENContext(ctx, all, nil, cfg)
	if errors.Is(err, context.DeadlineExceeded) {
		// The deadline is the refit's budget, not a failure; one that came
		// before the first epoch leaves the model as it was.
		if r == nil {
			r = m
		}
		err = nil
	}
	return r, err
}

// RENs continues every member of a mean of passive RENs (ensemble
// selection's, members *baselines.PassiveREN, or a model class's that
// unwraps to one) as REN does, with the configuration base gives it (the
// members of the search's mean trained at memories of their own), all at
// once sharing the workers (so that each gets the same share of the
// deadline, as the search's RENs do), and returns the mean of the results
// with the same counts: passive as a parallel interconnection of passive
// models.
func RENs(ctx context.Context, mean ensemble.Mean, base func(*baselines.PassiveREN) baselines.RENConfig, all *data.Dataset, o Options) (ensemble.Mean, error) {
	if base == nil {
		return nil, fmt.Errorf("%w: no REN configuration", ErrConfig)
	}
	rens := make([]*baselines.PassiveREN, len(mean))
	for i, mb := range mean {
		switch r := mb.Model.(type) {
		case *baselines.PassiveREN:
			rens[i] = r
		case interface{ Unwrap() *baselines.PassiveREN }: // a REN as its model class holds it
			rens[i] = r.Unwrap()
		default:
			return nil, fmt.Errorf("%w: member %d of the mean is a %T, not a passive REN", ErrConfig, i, mb.Model)
		}
	}
	workers := o.Workers
	if workers <= 0 {
		workers = defaultWorkers()
	}
	per := o
	per.Workers = max(1, workers/max(len(mean), 1))
	out := make(ensemble.Mean, len(mean))
	errs := trials.Local{Parallel: len(mean)}.Run(ctx, len(mean), func(ctx context.Context, i int) error {
		r, err := REN(ctx, rens[i], base(rens[i]), all, per)
		if err != nil {
			return fmt.Errorf("member %d: %w", i, err)
		}
		out[i] = ensemble.Member{Model: r, Count: mean[i].Count}
		return nil
	})
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

// Loop continues the loop m on all for Share of base's schedule (epochs
// and samples simulated) at the learning rate base's schedule ends at,
// tap by tap (no basis),
// under Options.Deadline; m is not modified. A loop is passive for every
// parameter value (loop.Taps), so the result needs no new certificate.
func Loop(ctx context.Context, m *loop.Model, base loop.Config, all *data.Dataset, o Options) (*loop.Model, error) {
	if m == nil {
		return nil, fmt.Errorf("%w: no loop", ErrConfig)
	}
	if err := checkData(all, o); err != nil {
		return nil, err
	}
	cfg := base
	// Resume where the schedule ended: its learning rate had fallen to
	// (1−LRDecay)·LR, and starting again from LR would throw the loop off
	// the optimum it settled in, with no validation data left to stop the
	// damage.
	cfg.LR, cfg.LRDecay = base.LR*(1-base.LRDecay), 0
	cfg.Start, cfg.InitLinear, cfg.Basis, cfg.Patience = m, nil, 0, 0
	cfg.Epochs, cfg.MaxSamples = o.part(cfg.Epochs), o.part(cfg.MaxSamples)
	cfg.Skip, cfg.ValSkip, cfg.Workers, cfg.Deadline, cfg.Progress = o.Skip, 0, o.Workers, o.Deadline, nil
	r, err := loop.Train(ctx, cfg, all, nil)
	if err != nil {
		return nil, err
	}
	return r.Model, nil
}

// Loops continues every member of a mean of loops as Loop does, one after
// another with all the workers (a loop splits its gradients over them),
// and returns the mean of the results with the same counts. The deadline
// is shared out: each member may run until its even share of what is left.
func Loops(ctx context.Context, mean loop.Mean, base loop.Config, all *data.Dataset, o Options) (loop.Mean, error) {
	out := make(loop.Mean, len(mean))
	for i, mb := range mean {
		oi := o
		if !o.Deadline.IsZero() {
			left := time.Until(o.Deadline)
			oi.Deadline = time.Now().Add(left / time.Duration(len(mean)-i))
		}
		l, err := Loop(ctx, mb.Model, base, all, oi)
		if err != nil {
			return nil, fmt.Errorf("member %d: %w", i, err)
		}
		out[i] = loop.Member{Model: l, Count: mb.Count}
	}
	return out, nil
}

// NFIR continues the NFIR m on all with cfg (its structure m's) for Share
// of cfg's epochs per θ_N step and of its BPTT epochs, starting from m
// (trainer.Config.Start): the first θ_G step solves the convex problem on
// all the data, so a linear FIR is refitted exactly. The result carries
// the trainer's certificate; one that is not passive is an error.
func NFIR(ctx context.Context, m *model.NFIR, cfg trainer.Config, all *data.Dataset, o Options) (*trainer.Result, error) {
	if m == nil {
		return nil, fmt.Errorf("%w: no NFIR", ErrConfig)
	}
	if err := checkData(all, o); err != nil {
		return nil, err
	}
	// one model, however many members the chosen one was merged from
	cfg.Start, cfg.Structure, cfg.Members, cfg.Progress = m, m.Structure, 1, nil
	cfg.Epochs, cfg.BPTTEpochs = o.part(cfg.Epochs), o.part(cfg.BPTTEpochs)
	cfg.Skip, cfg.Workers = o.Skip, o.Workers
	ctx, cancel := o.context(ctx)
	defer cancel()
	r, err := trainer.Train(ctx, cfg, all, nil)
	if r == nil && errors.Is(err, context.DeadlineExceeded) {
		// no time for a step: the model as it was
		cert, err := m.Certify()
		if err != nil {
			return nil, err
		}
		return &trainer.Result{Model: m, Cert: cert, BestValFit: math.NaN()}, nil
	}
	if r == nil {
		return nil, err
	}
	if !r.Cert.Passive && cfg.Passivity != trainer.PassivityNone {
		return nil, errors.New("refit: the refitted NFIR fails its passivity certificate")
	}
	if errors.Is(err, context.DeadlineExceeded) {
		err = nil
	}
	return r, err
}

// Outcome is what Keep measured: the closed-loop Fit (%) on all the data
// of the chosen model and of its refit, and whether the refit is kept.
type Outcome struct {
	Before, After float64
	Kept          bool
}

func (oc Outcome) String() string {
	verdict := "kept"
	if !oc.Kept {
		verdict = "not kept (below the chosen model's)"
	}
	return fmt.Sprintf("closed-loop fit on all the data %.2f%% → %.2f%%, %s", oc.Before, oc.After, verdict)
}

// Keep scores the chosen model and its refit by their median closed-loop
// Fit on all (loop.FitOf, the first skip samples of each record not
// scored) and keeps the refit when it scores at least as high.
func Keep(all *data.Dataset, skip int, chosen, refitted func(u []float64) []float64) (Outcome, error) {
	b, err := loop.FitOf(all, skip, chosen)
	if err != nil {
		return Outcome{}, err
	}
	a, err := loop.FitOf(all, skip, refitted)
	if err != nil {
		return Outcome{}, err
	}
	return Outcome{Before: b, After: a, Kept: a >= b}, nil
}

func defaultWorkers() int { return runtime.GOMAXPROCS(0) }
