package search

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/loop"
	"github.com/passivenfir/gputrain/model"
	"github.com/passivenfir/gputrain/trials"
)

// Loops are the runs of the loop family (loop.Runs): their names and
// complete configurations (shape, seed, workers, the linear FIR's taps to
// start from), each to be trained from scratch on the search's data by
// loop.Train. A run's result is then a function of its configuration
// alone, wherever it trains; Workers is part of it, the gradient being
// split over that many workers.
type Loops struct {
	Names   []string
	Configs []loop.Config
	// Linear is the passive linear FIR the search chose. A configuration
	// starts from its taps (InitLinear) where its forward FIR has their
	// length (loop.Config.InitLinear).
	Linear *model.NFIR
	// Deadline, when set, is when the family's training should end
	// (Options.TimeLimit). LocalLoops gives each run, when it starts, a
	// deadline (loop.Config.Deadline) that leaves the others the time they
	// are likely to take, or an even share of the time left where they
	// would not fit (share), and starts no run that would get less than
	// MinLoopEpochs epochs' worth; a trainer of
	// plans (package searchdir) ignores it, so that its trials stay
	// reproducible.
	Deadline time.Time
	// Order, when not nil, is the order in which LocalLoops trains the runs
	// (loop.Priority), a permutation of the indexes of Configs; nil trains
	// them in index order. Under Deadline the first get the most time.
	Order []int
}

// MinLoopEpochs is the least training, in epochs, a loop gets under a time
// limit (Loops.Deadline): Quick's patience, the first look's. A run whose
// share of the time left would hold fewer is not started; its row says so.
const MinLoopEpochs = 20

// ErrTimeLimit is the error of a loop not started for want of time
// (Loops.Deadline).
var ErrTimeLimit = errors.New("not started: the time limit ran out")

// TrainedLoop is what became of one loop: its result (with an interrupted
// run, the best model so far), or the error that stopped it.
type TrainedLoop struct {
	Result  *loop.Result
	Err     error
	Seconds float64
}

// A LoopTrainer trains the loop family's runs. TrainLoops calls done once
// for every run that finished, failed or (LocalLoops) was interrupted with
// a model, one call at a time, and returns when every run has been handed
// to done or ctx is cancelled. An Options.Trainer that is a LoopTrainer too
// (package searchdir) trains the loops as well as the rungs; otherwise
// they train in this process, LocalLoops.
type LoopTrainer interface {
	TrainLoops(ctx context.Context, loops Loops, train, val *data.Dataset, done func(i int, t TrainedLoop)) error
}

// LocalLoops trains the runs in this process, one at a time in
// Loops.Order, each with the workers of its configuration, through
// trials.Local: a panic is the run's error, and Ctrl-C starts no further
// run. With Loops.Deadline each run gets its share of the time left
// (share).
type LocalLoops struct{}

// TrainLoops implements LoopTrainer.
func (LocalLoops) TrainLoops(ctx context.Context, loops Loops, train, val *data.Dataset, done func(i int, t TrainedLoop)) error {
	order := loops.Order
	if len(order) != len(loops.Configs) {
		order = make([]int, len(loops.Configs))
		for i := range order {
			order[i] = i
		}
	}
	var pace loopPace
	trials.Local{Parallel: 1}.Run(ctx, len(loops.Configs), func(ctx context.Context, k int) (err error) {
		i := order[k]
		t0 := time.Now()
		var r *loop.Result
		defer func() {
			if p := recover(); p != nil {
				r, err = nil, fmt.Errorf("internal error: panic: %v", p)
			}
			t := TrainedLoop{Result: r, Err: err, Seconds: time.Since(t0).Seconds()}
			if r != nil && err == nil {
				pace.add(r.Epochs, t.Seconds)
			}
			done(i, t)
		}()
		cfg := loops.Configs[i]
		if !loops.Deadline.IsZero() {
			d, ok := share(t0, loops.Deadline, len(loops.Configs)-k, pace.minimum(), pace.typical())
			if !ok {
				return ErrTimeLimit
			}
			cfg.Deadline = d
		}
		r, err = loop.Train(ctx, cfg, train, val)
		return err
	})
	return ctx.Err()
}

// loopPace is the time the loops trained so far took: in all, and per
// epoch.
type loopPace struct {
	loops, epochs int
	seconds       float64
}

func (p *loopPace) add(epochs int, seconds float64) {
	if epochs > 0 {
		p.loops, p.epochs, p.seconds = p.loops+1, p.epochs+epochs, p.seconds+seconds
	}
}

// minimum is the time of MinLoopEpochs epochs at the pace so far, 0 before
// any loop has trained.
func (p *loopPace) minimum() time.Duration {
	if p.epochs == 0 {
		return 0
	}
	return time.Duration(MinLoopEpochs * p.seconds / float64(p.epochs) * float64(time.Second))
}

// typical is the mean time of a loop so far, 0 before any has trained.
func (p *loopPace) typical() time.Duration {
	if p.loops == 0 {
		return 0
	}
	return time.Duration(p.seconds / float64(p.loops) * float64(time.Second))
}

// share is the deadline of a run that starts at now with left runs still to
// train (this one among them) before the family's deadline, least the time
// of the fewest epochs a run may get and typical the mean time of a run so
// far (both 0 before any run has trained). The runs counted are as many as
// get the longer of least and typical each, the later ones (Loops.Order:
// the recurrent shapes first, the second pass last) left to whatever time
// the earlier ones leave: a loop cut far short of its training is worth less than one
// more loop in the mean (on a gearbox of 80 000 samples, 28 loops cut to 12
// s each validated at 75–82 %, against 78–91 % trained to the end,
// docs/BENCHMARKS.md, session 26). A counted run may take the time left
// less typical for each other counted run, and never less than an even
// share; before any run has trained, three even shares. So a family that
// fits in the time runs as without a limit. ok is false where not even
// this run would get least: it is not started.
func share(now, deadline time.Time, left int, least, typical time.Duration) (time.Time, bool) {
	rest := deadline.Sub(now)
	if rest <= 0 || rest < least {
		return time.Time{}, false
	}
	n := left
	if need := max(least, typical); need > 0 {
		n = max(1, min(left, int(rest/need)))
	}
	even := rest / time.Duration(n)
	slot := 3 * even
	if typical > 0 {
		slot = max(even, rest-time.Duration(n-1)*typical)
	}
	return now.Add(min(slot, rest)), true
}

// loopSkip is the skip of the loop family's second pass (loop.Runs): with
// Options.AutoSkip and no skip of the user's, loop.AutoSkip's for the
// linear FIR's length and the training records; otherwise 0.
func (s *searcher) loopSkip(res *Result) int {
	if !s.opt.AutoSkip || s.base.Skip > 0 {
		return 0
	}
	return loop.AutoSkip(res.LinearTaps, s.train)
}

// loops are the loop family's runs for the linear FIR res holds: loop.Runs
// of its length from the base seed, each with Options.Loop's settings, the
// base's skips (a run of the second pass its own training skip), and every
// worker of the search.
func (s *searcher) loops(res *Result) Loops {
	runs := loop.Runs(res.LinearTaps, s.base.Seed, s.loopSkip(res))
	ls := Loops{Linear: res.linear, Order: loop.Priority(runs)}
	for _, run := range runs {
		st := run.Structure
		cfg := *s.opt.Loop
		cfg.Structure = st
		if fir := res.linear; fir != nil && len(fir.Lin) == st.L1 {
			// start from the convex solver's FIR: the loop then begins
			// where the linear baseline is
			cfg.InitLinear = fir.Lin
		}
		cfg.Skip, cfg.ValSkip, cfg.Seed, cfg.Progress = max(s.base.Skip, run.Skip), s.base.ValSkip, run.Seed, nil
		if cfg.Workers == 0 {
			cfg.Workers = s.opt.Workers
		}
		name := fmt.Sprintf("loop H1 %d×%d +lin %d, H2 %d×%d +lin %d, R %d, [%d]%s, seed %d", st.B1, st.T1, st.L1, st.B2, st.T2, st.L2, st.R1, st.Hidden[0], liftExtras(st), run.Seed)
		if cfg.Basis > 0 {
			name += fmt.Sprintf(", laguerre %d", cfg.Basis)
		}
		if run.Skip > 0 {
			name += fmt.Sprintf(", skip %d", run.Skip)
		}
		ls.Names, ls.Configs = append(ls.Names, name), append(ls.Configs, cfg)
	}
	return ls
}

// liftExtras names what a loop's lift sees beside its windows: the slow
// states and the GRU state, so that the shapes of loop.Shapes read apart in
// the search's progress and table.
func liftExtras(st loop.Structure) string {
	out := ""
	if st.S > 0 {
		out += fmt.Sprintf(", states %d", st.S)
	}
	if st.Rec > 0 {
		out += fmt.Sprintf(", GRU %d", st.Rec)
	}
	return out
}
