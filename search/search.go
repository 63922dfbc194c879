package search

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/passivenfir/gputrain/baselines"
	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/ensemble"
	"github.com/passivenfir/gputrain/loop"
	"github.com/passivenfir/gputrain/model"
	"github.com/passivenfir/gputrain/trainer"
)

// ErrBudget reports a budget too small for one candidate.
var ErrBudget = errors.New("search: budget too small")

// Fixed names the structure fields the user chose; Select keeps them as the
// base configuration has them and searches the others.
type Fixed struct {
	Branches, Taps, R1, R2, Hidden, Feedback, LinearTaps bool
}

// All reports whether every structure field is fixed: nothing to search.
func (f Fixed) All() bool {
	return f.Branches && f.Taps && f.R1 && f.R2 && f.Hidden && f.Feedback && f.LinearTaps
}

// Options bound and report the search.
type Options struct {
	// Budget is the number of rungs of successive halving, about the cost
	// in full training runs: 3^(Budget−1) candidates start (fewer when the
	// fixed fields leave fewer), each rung keeps the best third and trains
	// it three times as long. 1: the candidates train once with the full
	// schedule. Default DefaultBudget.
	Budget int
	// Workers is the number of candidates that train at a time (0:
	// GOMAXPROCS); each trains on one core, so its result does not depend
	// on Workers. The RENs all train at once, taking turns on Workers
	// cores where GOMAXPROCS is larger.
	Workers int
	// MaxTaps caps the linear FIR's length in the doubling (0:
	// trainer.LinearTapGrid's own cap).
	MaxTaps int
	// AutoDecay recomputes the decay rate of every candidate's tap bound
	// for its filter length (trainer.AutoDecay), as --decay auto does.
	AutoDecay bool
	// Loop, when set, adds the family of package loop (the passive
	// feedback interconnection of two NFIRs, trained on the simulation
	// error) with this configuration, its structure sized by the linear
	// FIR's length (loop.Sized), when the user fixed no structure field.
	Loop *loop.Config
	// REN, when set, adds the passive REN (baselines.TrainREN with this
	// configuration; its Seed, Workers and ValSkip are the search's),
	// trained from RENSeeds seeds before the loop family, when the user
	// fixed no structure field: a model with a state of its own, passive
	// by parameterization, where the loops' memory is their FIRs'.
	REN *baselines.RENConfig
	// AutoSkip, when set and the base configuration has no skip, makes the
	// loop family train its runs a second time with loop.AutoSkip's
	// training skip (loop.Runs), that pass joining the choice when it
	// validates better (loop.ChoosePasses): what train does when the user
	// gave no --skip.
	AutoSkip bool
	// TimeLimit, when positive, bounds the search in wall-clock time. The
	// successive halving ends at half of it (a quarter where the passive
	// FIR is best at the grid's last length: halvingShare): a rung still training then
	// stops, the candidates it finished competing with the results the
	// others had from the rung before (a rung is never started past that
	// point either); the loop family then
	// trains in what is left (at least a quarter of TimeLimit, which it
	// passes only where the halving overran its half), each loop
	// leaving the loops after it the time loops have taken so far, or an
	// even share where they would not fit (LocalLoops), its schedule
	// shortened to that (loop.Config.Deadline), and loops that no longer get
	// MinLoopEpochs epochs' worth of time are not started. Only the loops
	// this process trains (LocalLoops) are bounded: the trials of
	// --search-dir keep their plan, so that they stay reproducible. The
	// choice then depends on the machine's speed; 0 leaves the search
	// bounded by Budget and the loops' own schedules, and reproducible.
	TimeLimit time.Duration
	// Progress, when set, receives one event per fitted FIR, rung and
	// candidate.
	Progress func(Event)
	// Trainer, when set, trains each rung's candidates (package searchdir:
	// as the trials of a sweep, on this machine or a cluster); nil trains
	// them in this process, Local{Workers}. When it is a LoopTrainer too,
	// it trains the loop family's runs as well (otherwise LocalLoops); the
	// linear FIR's doubling trains in this process either way.
	Trainer RungTrainer
}

// Event is one line of search progress.
type Event struct {
	Stage     string // "plan", "fir", "memory", "rung", "candidate", "done"
	Rung      int    // 0-based
	Rungs     int
	Candidate string
	ValFit    float64
	Elapsed   time.Duration
	Note      string
	// LinearTaps is the FIR's length in a "memory" event: the passive
	// FIR validated best at the longest length the search tries
	// (Result.MemoryCut), said as soon as the lengths are tried.
	LinearTaps int
}

func (e Event) String() string {
	fit := ""
	if !math.IsNaN(e.ValFit) {
		fit = fmt.Sprintf(" closed-loop val fit %6.2f%%", e.ValFit)
	}
	head := fmt.Sprintf("[%7.1fs] search  %-9s", e.Elapsed.Seconds(), e.Stage)
	if e.Stage == "candidate" {
		head += fmt.Sprintf(" rung %d/%d %s", e.Rung+1, e.Rungs, e.Candidate)
	} else if e.Candidate != "" {
		head += " " + e.Candidate
	}
	return strings.TrimRight(head+fit+" "+e.Note, " ")
}

// Row is one candidate's entry in the table of a search: its structure and
// its score at the last rung it reached. It is what the model file's
// training.search.candidates lists.
type Row struct {
	Name      string          `json:"name"`
	Structure model.Structure `json:"structure"`
	Loop      *loop.Structure `json:"loop,omitempty"` // a loop candidate's structure (Structure is then zero)
	REN       *RENStructure   `json:"ren,omitempty"`  // a passive REN candidate's size and seed (Structure is then zero)
	// Members are the structures of the loops a mean row averages
	// (loop.Mean; Structure and Loop are then zero).
	Members []loop.Structure `json:"members,omitempty"`
	// MeanOf names the rows a mean of RENs (Result.Mean) averages, in
	// member order (Structure, Loop and REN are then zero).
	MeanOf []string `json:"mean_of,omitempty"`
	// Counts are the members' counts in a weighted mean (loop.Member, or
	// Result.Mean's), absent when every member counts once.
	Counts []int `json:"counts,omitempty"`
	// Blend is, for a blend row, the weight α of the feedforward NFIR
	// (Structure) against the passive FIR it is blended with
	// (model.Blend: y = α·NFIR + (1−α)·FIR); 0 for other rows.
	Blend float64 `json:"blend,omitempty"`
	// Skip is, for a loop row, the samples at the start of each training
	// record left out of its loss (loop.Config.Skip); absent when none.
	Skip    int     `json:"skip,omitempty"`
	Rung    int     `json:"rung"`   // the last rung it trained in, 0-based
	Iters   int     `json:"iters"`  // its schedule at that rung
	Epochs  int     `json:"epochs"` // Adam epochs per iteration at that rung
	ValFit  float64 `json:"val_fit"`
	Seconds float64 `json:"seconds"`
	// Cut is that Options.TimeLimit shortened the candidate's training: a
	// loop's (loop.Result.Cut), or an NFIR's rung, left unfinished.
	Cut    bool   `json:"cut,omitempty"`
	Error  string `json:"error,omitempty"`
	Chosen bool   `json:"chosen,omitempty"`
}

// MarshalJSON writes a Fit that was never measured (a failed or
// interrupted candidate) as null: JSON has no NaN.
func (r Row) MarshalJSON() ([]byte, error) {
	type plain Row
	var fit *float64
	if !math.IsNaN(r.ValFit) && !math.IsInf(r.ValFit, 0) {
		fit = &r.ValFit
	}
	return json.Marshal(struct {
		plain
		ValFit *float64 `json:"val_fit"`
	}{plain(r), fit})
}

// Result is the chosen model with the table of every candidate.
type Result struct {
	*trainer.Result
	Config trainer.Config // the chosen candidate's configuration
	Chosen string         // its name
	// LinearTaps is the length L* of the best passive linear FIR, and
	// LinearFit its validation Fit: the baseline the choice never falls below.
	LinearTaps int
	LinearFit  float64
	// MemoryCut is whether the FIR validated best at the longest length
	// the grid tries, trainer.MaxLinearTaps, above every shorter one: the
	// plant's memory may be longer than any FIR of the search holds.
	MemoryCut bool
	// Memory is the plant's memory in samples that the RENs start from
	// (baselines.RENConfig.Memory), all but the long-memory one
	// (RENStructure.Long, which takes at least this): LinearTaps, or,
	// where MemoryCut, the passive FIR's length on the data at the sampling time
	// resample.Suggest proposes, times its factor, when that is longer
	// (trainer.MemoryBeyondCap).
	Memory int
	Rows   []Row
	Rungs  int
	// Loop is the best single trained loop (nil without Options.Loop);
	// LoopModel the loop model the family offers, that loop or the mean of
	// every shape trained when that scores better on validation
	// (loop.Choose), with its validation Fit LoopFit. LoopChosen is whether
	// it won: then LoopModel is the model to keep, and Result is the best
	// NFIR or FIR, the runner-up.
	Loop       *loop.Result
	LoopModel  loop.Mean
	LoopFit    float64
	LoopChosen bool
	// REN is the best passive REN on validation (nil without Options.REN),
	// RENFit its validation Fit, and RENChosen whether it won: then REN is
	// the model to keep, and Result is the best NFIR or FIR, the
	// runner-up. At most one of LoopChosen and RENChosen is set.
	REN       *baselines.PassiveREN
	RENFit    float64
	RENChosen bool
	// Mean is the weighted mean of the trained RENs chosen by ensemble
	// selection on validation (ensemble.Select; members
	// *baselines.PassiveREN), offered when it has two members or more and
	// validates above the best REN (nil otherwise); MeanFit its validation
	// Fit, and MeanChosen whether it won: then Mean is the model to keep,
	// and Result is the best NFIR or FIR, the runner-up. At most one of
	// LoopChosen, RENChosen and MeanChosen is set.
	Mean       ensemble.Mean
	MeanFit    float64
	MeanChosen bool
	// Margin is the chosen nonlinear model's validation gain over the
	// passive FIR, or, where the FIR was kept, the gain of the model that
	// did not clear it (margin.go); zero when no nonlinear model beat the
	// FIR's validation Fit.
	Margin Margin
	// TimeLimit is Options.TimeLimit, and TimeCut whether it shortened the
	// search: the halving stopped early, or a loop was cut or not started.
	TimeLimit time.Duration
	TimeCut   bool

	rens       []*baselines.PassiveREN // every trained REN, and its row
	renRows    []int
	meanRow    int                  // the row of Mean
	meanCands  []ensemble.Simulator // the candidates Mean was drawn from
	linear     *model.NFIR          // the linear baseline, which the loop starts from
	loopRow    int                  // the row of Loop
	renRow     int                  // the row of REN
	loopPasses [2][]*loop.Result    // the trained loops LoopModel was chosen from
}

// ValFit is the chosen model's validation Fit.
func (r *Result) ValFit() float64 {
	if r.MeanChosen {
		return r.MeanFit
	}
	if r.RENChosen {
		return r.RENFit
	}
	if r.LoopChosen {
		return r.LoopFit
	}
	return r.BestValFit
}

// Plan is what a search will do, known before it starts: enough to state
// its cost.
type Plan struct {
	Rungs      int
	Candidates int
	// Epochs is the sum over rungs of candidates × iterations × epochs: the
	// number of Adam epochs the search may run (early stopping runs fewer),
	// against FullEpochs for one training run of the final schedule.
	Epochs, FullEpochs int
	// Loop is whether the loop family trains too: Loops loops, each up to
	// LoopEpochs epochs of backpropagation through time, early-stopped.
	Loop              bool
	Loops, LoopEpochs int
	// LoopSkip is the training skip of the loops' second pass (loop.Runs),
	// 0 when there is none.
	LoopSkip int
	// RENs is the number of passive RENs that train (0: none), each up to
	// RENSamples simulated samples (the most of any: a REN's budget
	// stretches with its memory).
	RENs, RENSamples int
	// TimeLimit is Options.TimeLimit.
	TimeLimit time.Duration
	// MemoryCut is Result.MemoryCut: the halving then ends at a quarter
	// of TimeLimit instead of half (halvingShare).
	MemoryCut bool
}

func (p Plan) String() string {
	s := fmt.Sprintf("%d candidates, %d rungs of successive halving: at most %d Adam epochs, %.1f× one training run of the final schedule",
		p.Candidates, p.Rungs, p.Epochs, float64(p.Epochs)/float64(max(p.FullEpochs, 1)))
	if p.RENs > 0 {
		biased, gated, wide, long := renCounts()
		s += fmt.Sprintf("; then %d passive RENs (%d of them with biases, %d gated, %d of those %d × %d and %d from slow modes at the longest memory the records show), each up to %.3g samples simulated through time",
			p.RENs, biased, gated, wide, WideStates, WideNeurons, long, float64(p.RENSamples))
		if p.RENs > 1 {
			s += ", and their weighted mean, drawn on validation (ensemble selection), where it validates above the best of them"
		}
	}
	if p.Loop {
		s += fmt.Sprintf("; then the loop family, %d loops of up to %d epochs through time", p.Loops, p.LoopEpochs)
		if p.LoopSkip > 0 {
			s += fmt.Sprintf(" (half of them not fitting the first %d samples of each record)", p.LoopSkip)
		}
	}
	if p.TimeLimit > 0 {
		s += fmt.Sprintf("; all within about %v (--time-limit: ", p.TimeLimit)
		if p.MemoryCut {
			s += "the halving ends when a quarter of it is spent (the passive FIR is best at the longest length tried, as long as any candidate's FIRs)"
		} else {
			s += "the halving ends when half of it is spent"
		}
		if p.RENs > 0 {
			s += ", the RENs take at most half of what is left"
		}
		if p.Loop {
			s += ", and the loops share the rest, their schedules shortened to fit"
		}
		s += ")"
	}
	return s
}

const eta = 3 // successive halving keeps the best 1/eta of each rung

// Select chooses a structure for train, scored on val (required), as
// described in the package documentation, and returns the chosen model
// trained with base's full schedule (or the loop, Result.LoopChosen). base gives every setting; the
// structure fields that fixed marks are kept. When ctx is cancelled it
// returns the best model scored so far together with ctx.Err().
func Select(ctx context.Context, base trainer.Config, fixed Fixed, opt Options, train, val *data.Dataset) (*Result, error) {
	if val == nil || val.Len() == 0 {
		return nil, fmt.Errorf("%w: the structure search scores candidates on validation data, and there is none", trainer.ErrConfig)
	}
	if opt.Budget == 0 {
		opt.Budget = DefaultBudget
	}
	if opt.Budget < 1 {
		return nil, fmt.Errorf("%w: %d rungs; need ≥ 1", ErrBudget, opt.Budget)
	}
	if opt.TimeLimit < 0 {
		return nil, fmt.Errorf("%w: time limit %v; need ≥ 0 (0: none)", ErrBudget, opt.TimeLimit)
	}
	if opt.Workers <= 0 {
		opt.Workers = runtime.GOMAXPROCS(0)
	}
	s := &searcher{base: base, fixed: fixed, opt: opt, train: train, val: val, start: time.Now()}
	return s.run(ctx)
}

type searcher struct {
	base       trainer.Config
	fixed      Fixed
	opt        Options
	train, val *data.Dataset
	start      time.Time
	// halving is the part of Options.TimeLimit the successive halving
	// may spend (halvingShare), set once the passive FIR is chosen; 0:
	// half (halvingTime).
	halving time.Duration
}

// halvingTime is the part of Options.TimeLimit the successive halving may
// spend.
func (s *searcher) halvingTime() time.Duration {
	if s.halving > 0 {
		return s.halving
	}
	return time.Duration(float64(s.opt.TimeLimit) * halvingShare(false))
}

// halvingShare is the part of the time limit that the successive halving
// of NFIR candidates may spend: half, or a quarter where the passive FIR
// validated best at the grid's last length (Result.MemoryCut). There every
// NFIR candidate's FIRs stop at that length as the linear FIR's do, so none
// holds more of the plant's memory, while the RENs, whose state holds any,
// train in what the halving leaves: on a two-mass plant logged at 1 ms the
// RENs' 135 s each left the default at 83.64 % test Fit, and 207 s (the
// halving cut to one candidate, --budget 1) took it to 88.67 %
// (docs/BENCHMARKS.md, session 40).
func halvingShare(memoryCut bool) float64 {
	if memoryCut {
		return 0.25
	}
	return 0.5
}

func (s *searcher) emit(e Event) {
	if s.opt.Progress != nil {
		e.Elapsed = time.Since(s.start)
		s.opt.Progress(e)
	}
}

// candidate is one structure under test.
type candidate struct {
	name string
	cfg  trainer.Config
	row  *Row
	res  *trainer.Result
}

func (s *searcher) run(ctx context.Context) (*Result, error) {
	res := &Result{LinearFit: math.NaN(), RENFit: math.NaN(), MeanFit: math.NaN(), TimeLimit: s.opt.TimeLimit}
	// 1. The memory: the best passive linear FIR over a doubling grid.
	fir, firCfg, err := s.linear(ctx, res)
	if err != nil && fir == nil {
		return nil, err
	}
	keep := func() (*Result, error) { // the linear FIR alone
		res.Result, res.Config, res.Chosen = fir, firCfg, res.Rows[firRow(res.Rows)].Name
		res.Rows[firRow(res.Rows)].Chosen = true
		return res, err
	}
	if err != nil { // interrupted during the doubling
		return keep()
	}
	// 2. The candidates.
	cands := s.candidates(res.LinearTaps)
	if len(cands) == 0 {
		lerr := s.ren(ctx, res)
		if lerr == nil {
			lerr = s.loop(ctx, res)
		}
		if lerr == nil {
			lerr = s.mean(res)
		}
		if res.Loop == nil && res.REN == nil {
			r, _ := keep()
			return r, lerr
		}
		return s.finish(res, fir, firCfg, nil, lerr)
	}
	rungs := s.opt.Budget
	for rungs > 1 && pow(eta, rungs-1) > len(cands)*eta {
		rungs-- // more rungs than the candidates need: spend less
	}
	if n := pow(eta, rungs-1); len(cands) > n {
		cands = cands[:n]
	}
	res.Rungs = rungs
	plan := s.plan(res, len(cands), rungs)
	s.emit(Event{Stage: "plan", ValFit: math.NaN(), Note: plan.String()})
	// 3. Successive halving.
	alive := cands
	for r := 0; r < rungs; r++ {
		cfgR := s.schedule(r, rungs)
		s.emit(Event{Stage: "rung", Rung: r, Rungs: rungs, ValFit: math.NaN(),
			Note: fmt.Sprintf("rung %d/%d: %d candidates, %d iterations × %d epochs each", r+1, rungs, len(alive), cfgR.Iters, cfgR.Epochs)})
		cut, err := s.trainRungBounded(ctx, alive, r, rungs)
		if err != nil {
			return s.finish(res, fir, firCfg, cands, err)
		}
		sort.SliceStable(alive, func(i, j int) bool { return better(alive[i].row, alive[j].row) })
		if cut {
			for _, c := range alive {
				if c.row.Rung < r {
					c.row.Error, c.row.Cut = fmt.Sprintf("rung %d unfinished: the time limit ran out", r+1), true
				}
			}
			s.emit(Event{Stage: "rung", Rung: r, Rungs: rungs, ValFit: math.NaN(),
				Note: fmt.Sprintf("time limit: the halving's %v of %v spent during rung %d/%d, the halving stops; the candidates it finished compete", s.halvingTime(), s.opt.TimeLimit, r+1, rungs)})
			res.TimeCut = true
			break
		}
		if r < rungs-1 {
			if lim := s.opt.TimeLimit; lim > 0 && time.Since(s.start) > s.halvingTime() {
				s.emit(Event{Stage: "rung", Rung: r, Rungs: rungs, ValFit: math.NaN(),
					Note: fmt.Sprintf("time limit: past the halving's %v of %v after rung %d/%d, the halving stops; its best candidate competes", s.halvingTime(), lim, r+1, rungs)})
				res.TimeCut = true
				break
			}
			n := max(1, len(alive)/eta)
			alive = alive[:n]
		}
	}
	if err := s.ren(ctx, res); err != nil {
		return s.finish(res, fir, firCfg, cands, err)
	}
	if err := s.loop(ctx, res); err != nil {
		return s.finish(res, fir, firCfg, cands, err)
	}
	return s.finish(res, fir, firCfg, cands, s.mean(res))
}

// loop trains the loop family's candidate, sized by the linear FIR's
// length, when Options.Loop asks for it and the user fixed no structure.
func (s *searcher) loop(ctx context.Context, res *Result) error {
	if s.opt.Loop == nil || s.fixed != (Fixed{}) {
		return nil
	}
	loops := s.loops(res)
	if lim := s.opt.TimeLimit; lim > 0 {
		loops.Deadline = loopsDeadline(s.start, time.Now(), lim)
	}
	rows := make([]*Row, len(loops.Configs))
	results := make([]*loop.Result, len(loops.Configs))
	tr := LoopTrainer(LocalLoops{})
	if lt, ok := s.opt.Trainer.(LoopTrainer); ok {
		tr = lt
	}
	err := tr.TrainLoops(ctx, loops, s.train, s.val, func(i int, t TrainedLoop) {
		cfg := loops.Configs[i]
		st := cfg.Structure
		row := &Row{Name: loops.Names[i], Loop: &st, Skip: cfg.Skip, Epochs: cfg.Epochs, ValFit: math.NaN(), Seconds: t.Seconds}
		if r := t.Result; r != nil {
			row.ValFit, row.Epochs, row.Cut = r.ValFit, r.Epochs, r.Cut
			results[i] = r
		}
		if t.Err != nil && ctx.Err() == nil {
			row.Error = t.Err.Error() // a failed shape is a row, not the end of the search
		}
		rows[i] = row
		res.TimeCut = res.TimeCut || row.Cut || errors.Is(t.Err, ErrTimeLimit)
		note := row.Error
		if row.Cut {
			note = fmt.Sprintf("(time limit: %d epochs in %.0fs)", row.Epochs, row.Seconds)
		}
		s.emit(Event{Stage: "candidate", Rung: max(res.Rungs-1, 0), Rungs: max(res.Rungs, 1), Candidate: row.Name, ValFit: row.ValFit, Note: note})
	})
	if err != nil && ctx.Err() == nil {
		return err
	}
	var trained [2][]*loop.Result // the passes of loop.Runs: without and with the automatic skip
	idx := map[*loop.Result]int{}
	for i, row := range rows {
		if row == nil {
			continue // not started: interrupted
		}
		if r := results[i]; r != nil {
			if res.Loop == nil || r.ValFit > res.Loop.ValFit {
				res.Loop = r
			}
			pass := 0
			if loops.Configs[i].Skip > s.base.Skip {
				pass = 1
			}
			trained[pass], idx[r] = append(trained[pass], r), len(res.Rows)
		}
		res.Rows = append(res.Rows, *row)
	}
	return s.chooseLoop(res, trained, idx)
}

// loopsFloor is the least part of the time limit the loop family trains
// in: what the halving (at most half, halvingShare) and the RENs (at most
// half of what is left, renShare) leave when both keep to their bounds. A
// larger floor overran the limit whenever the halving took more than a
// third of it: a third for the loops on top of the RENs' quarter took the
// search 45 s past the default 9 minutes (docs/ZOO.md, session 48).
const loopsFloor = 4

// loopsDeadline is when the loop family, starting at now, must end in a
// search started at start under the time limit lim: the limit itself, or
// lim/loopsFloor from now where an earlier phase overran its bound (a
// candidate's step that ends past the halving's time), so that the loops
// still train.
func loopsDeadline(start, now time.Time, lim time.Duration) time.Time {
	d := start.Add(lim)
	if floor := now.Add(lim / loopsFloor); d.Before(floor) {
		return floor
	}
	return d
}

// countsText is a weighted mean's counts, "2+1+3".
func countsText(m loop.Mean) string {
	var b strings.Builder
	for i, l := range m {
		if i > 0 {
			b.WriteByte('+')
		}
		fmt.Fprint(&b, l.Count)
	}
	return b.String()
}

// chooseLoop sets the loop family's offer from the trained loops of both
// passes (loop.ChoosePasses; rows: their rows): the best, or their mean
// when it scores better on validation, which then gets a row of its own.
func (s *searcher) chooseLoop(res *Result, trained [2][]*loop.Result, rows map[*loop.Result]int) error {
	if len(trained[0])+len(trained[1]) == 0 {
		return nil
	}
	m, fit, mean, err := loop.ChoosePasses(s.val, s.base.ValSkip, trained[0], trained[1])
	if err != nil {
		return err
	}
	res.LoopModel, res.LoopFit, res.loopPasses = m, fit, trained
	for _, pass := range trained {
		for _, r := range pass {
			if len(m) == 1 && m[0].Model == r.Model {
				res.loopRow = rows[r]
			}
		}
	}
	if mean {
		row := Row{Name: fmt.Sprintf("loop mean of %d loops", len(m)), ValFit: fit}
		if m.Weighted() {
			row.Name = fmt.Sprintf("loop weighted mean of %d loops (counts %s)", len(m), countsText(m))
		}
		for _, l := range m {
			row.Members = append(row.Members, l.Structure)
			if m.Weighted() {
				row.Counts = append(row.Counts, l.Count)
			}
		}
		res.loopRow = len(res.Rows)
		res.Rows = append(res.Rows, row)
		s.emit(Event{Stage: "candidate", Rung: max(res.Rungs-1, 0), Rungs: max(res.Rungs, 1), Candidate: row.Name, ValFit: fit})
	}
	return nil
}

// better orders rows by validation Fit, failed ones last.
func better(a, b *Row) bool {
	fa, fb := a.ValFit, b.ValFit
	if math.IsNaN(fa) {
		return false
	}
	if math.IsNaN(fb) {
		return true
	}
	if a.Rung != b.Rung {
		return a.Rung > b.Rung
	}
	return fa > fb
}

func firRow(rows []Row) int {
	best := -1
	for i, r := range rows {
		if r.Structure.Branches == 0 && r.Loop == nil && r.REN == nil && r.Members == nil && !math.IsNaN(r.ValFit) && (best < 0 || r.ValFit > rows[best].ValFit) {
			best = i
		}
	}
	return best
}

// finish picks the best candidate of the highest rung reached, against the
// linear FIR, and fills the table.
func (s *searcher) finish(res *Result, fir *trainer.Result, firCfg trainer.Config, cands []*candidate, runErr error) (*Result, error) {
	var best *candidate
	for _, c := range cands {
		if c.res == nil || math.IsNaN(c.row.ValFit) {
			continue
		}
		if best == nil || better(c.row, best.row) {
			best = c
		}
	}
	for _, c := range cands {
		res.Rows = append(res.Rows, *c.row)
	}
	if b := s.blend(res, best); b != nil {
		res.Rows = append(res.Rows, *b.row)
		best = b
	}
	top := res.LinearFit
	if best != nil {
		top = math.Max(top, best.row.ValFit)
	}
	if res.LoopModel != nil && res.LoopFit > top && s.loopClear(res) {
		res.LoopChosen = true
		res.Rows[res.loopRow].Chosen = true
		res.Chosen = res.Rows[res.loopRow].Name
		top = res.LoopFit
	}
	kept := res.Margin // the loop's, when it was chosen
	if res.REN != nil && res.RENFit > top && s.renClear(res) {
		if res.LoopChosen {
			res.LoopChosen = false
			res.Rows[res.loopRow].Chosen = false
		}
		res.RENChosen = true
		res.Rows[res.renRow].Chosen = true
		res.Chosen = res.Rows[res.renRow].Name
		top = res.RENFit
	} else if res.LoopChosen {
		res.Margin = kept
	}
	kept = res.Margin // the loop's or the REN's, when one was chosen
	if res.Mean != nil && res.MeanFit > top && s.meanClear(res) {
		res.LoopChosen, res.RENChosen = false, false
		for i := range res.Rows {
			res.Rows[i].Chosen = false
		}
		res.MeanChosen = true
		res.Rows[res.meanRow].Chosen = true
		res.Chosen = res.Rows[res.meanRow].Name
	} else if res.LoopChosen || res.RENChosen {
		res.Margin = kept
	}
	other := res.LoopChosen || res.RENChosen || res.MeanChosen
	if best == nil || !(best.row.ValFit > res.LinearFit) ||
		(!other && !s.clearOfLinear(res, best.name, s.nfirMargin(res, best.res.Model))) {
		// Never worse than linear: the passive FIR is itself a candidate,
		// and a nonlinear one must beat it by more than validation blurs
		// (margin.go).
		i := firRow(res.Rows)
		res.Result, res.Config = fir, firCfg
		if !other {
			res.Rows[i].Chosen = true
			res.Chosen = res.Rows[i].Name
		}
	} else {
		res.Result, res.Config = best.res, best.cfg
		if !other {
			res.Chosen = best.name
			for i := range res.Rows {
				if res.Rows[i].Name == best.name {
					res.Rows[i].Chosen = true
				}
			}
		}
	}
	s.emit(Event{Stage: "done", Candidate: res.Chosen, ValFit: res.ValFit(), Note: "chosen"})
	return res, runErr
}

// blendWeights are the weights α of the blends y = α·NFIR + (1−α)·FIR
// that blend scores.
var blendWeights = []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9}

// blend returns the best blend of the best feedforward candidate with the
// linear baseline (model.Blend) as a candidate of its own, when one scores
// better on validation than both; nil otherwise. The NFIR and the FIR,
// fitted each on its own, err in different ways where the data are few:
// the blend, passive as a nonnegative combination of passive FIRs, shrinks
// the NFIR toward the FIR by as much as validation supports. It costs a
// few simulations of the validation data.
func (s *searcher) blend(res *Result, best *candidate) *candidate {
	if best == nil || best.res == nil || best.res.Model == nil || best.res.Model.Feedback || res.linear == nil {
		return nil
	}
	var out *candidate
	top := math.Max(best.row.ValFit, res.LinearFit)
	for _, a := range blendWeights {
		m, err := model.Blend(best.res.Model, res.linear.Lin, a)
		if err != nil {
			return nil
		}
		ev, err := trainer.Evaluate(m, s.val, s.base.ValSkip)
		if err != nil || !(ev.ClosedLoop.Median > top) {
			continue
		}
		top = ev.ClosedLoop.Median
		r := *best.res
		r.Model, r.BestValFit = m, top
		if r.Cert, err = m.Certify(); err != nil || (best.res.Cert.Passive && !r.Cert.Passive) {
			return nil
		}
		cfg := best.cfg
		cfg.Structure = m.Structure
		row := *best.row
		row.Name = fmt.Sprintf("blend %.1f·(%s) + %.1f·FIR %d", a, best.name, 1-a, len(res.linear.Lin))
		row.Structure, row.Blend, row.ValFit, row.Chosen = m.Structure, a, top, false
		out = &candidate{name: row.Name, cfg: cfg, res: &r, row: &row}
	}
	if out != nil {
		s.emit(Event{Stage: "candidate", Rung: out.row.Rung, Rungs: max(res.Rungs, 1), Candidate: out.name, ValFit: out.row.ValFit})
	}
	return out
}

// linear chooses the passive linear FIR's length on validation
// (trainer.SelectLinearTaps over trainer.LinearTapGrid, or the length the
// user fixed) and records every length tried.
func (s *searcher) linear(ctx context.Context, res *Result) (*trainer.Result, trainer.Config, error) {
	grid := linearGrid(s.train, s.opt)
	if s.fixed.LinearTaps && s.base.Structure.LinearTaps > 0 {
		grid = []int{s.base.Structure.LinearTaps}
	}
	cfg := s.configFor(model.Structure{})
	if s.opt.AutoDecay {
		cfg.Decay = 0 // SelectLinearTaps: 0.93^(50/L) for each length
	}
	cfg.Iters, cfg.Members = 1, 1
	last := time.Now()
	best, err := trainer.SelectLinearTaps(ctx, cfg, s.train, s.val, grid, func(L int, fit float64) {
		st := model.Structure{LinearTaps: L}
		res.Rows = append(res.Rows, Row{Name: Name(st), Structure: st, Iters: 1, ValFit: fit, Seconds: time.Since(last).Seconds()})
		last = time.Now()
		s.emit(Event{Stage: "fir", Candidate: Name(st), ValFit: fit})
	})
	if best == nil {
		return nil, cfg, fmt.Errorf("search: the passive linear FIR: %w", err)
	}
	cfg.Structure = best.Model.Structure
	cfg.Decay = s.configFor(cfg.Structure).Decay
	if !s.opt.AutoDecay {
		cfg.Decay = s.base.Decay
	}
	res.LinearTaps, res.LinearFit, res.linear = cfg.Structure.LinearTaps, best.BestValFit, best.Model
	res.Memory = res.LinearTaps
	if res.MemoryCut = trainer.AtCap(grid, res.LinearTaps); res.MemoryCut {
		note := "best at the longest length the search tries: the plant's memory may be longer"
		if L, factor := trainer.MemoryBeyondCap(ctx, s.train, s.val, s.base.Seed, s.opt.Workers, s.base.Skip, s.base.ValSkip); L > res.Memory {
			res.Memory = L
			note += fmt.Sprintf("; measured at %d times the sampling time, it is about %d samples at this one, which the RENs start from", factor, L)
		}
		// Said before the candidates train, so that a user can stop and
		// resample the data instead of waiting for the whole search.
		s.emit(Event{Stage: "memory", Candidate: Name(cfg.Structure), ValFit: res.LinearFit, LinearTaps: res.LinearTaps, Note: note})
	}
	s.halving = time.Duration(float64(s.opt.TimeLimit) * halvingShare(res.MemoryCut))
	return best, cfg, err
}

// configFor is base with structure st and its decay bound (auto: for st).
func (s *searcher) configFor(st model.Structure) trainer.Config {
	cfg := s.base
	st.HoldStart = st.HoldStart || s.base.Structure.HoldStart
	cfg.Structure = st
	cfg.Workers = 1
	cfg.Progress = nil
	if s.opt.AutoDecay {
		cfg.Decay = trainer.AutoDecay(st)
	}
	return cfg
}

// maxBranchTaps bounds m_N·m_G: the θ_G step is one dense convex problem of
// that many taps (plus the linear FIR's), and its cost grows with the cube.
const maxBranchTaps = 640

// candidates lists the NFIR structures to try around the linear FIR's
// length L: the paper's defaults first, then the grid in a seeded order.
func (s *searcher) candidates(L int) []*candidate {
	b := s.base.Structure
	type shape struct {
		branches int
		hidden   []int
	}
	pick := func(fixed bool, given int, opts ...int) []int {
		if fixed {
			return []int{given}
		}
		return uniq(opts)
	}
	clampTaps := func(t int) int { return max(8, min(t, 256)) }
	taps := pick(s.fixed.Taps, b.Taps, clampTaps(L/2), clampTaps(L))
	lin := pick(s.fixed.LinearTaps, b.LinearTaps, L, 0)
	fb := []bool{true, false}
	if s.fixed.Feedback {
		fb = []bool{b.Feedback}
	}
	rs := pick(s.fixed.R1 && s.fixed.R2, 0, 1, 4)
	shapes := []shape{{10, []int{4, 4}}, {6, []int{16, 16}}}
	if s.fixed.Branches || s.fixed.Hidden {
		shapes = []shape{{b.Branches, b.Hidden}}
		if !s.fixed.Branches {
			shapes = []shape{{10, b.Hidden}, {6, b.Hidden}}
		}
		if !s.fixed.Hidden {
			shapes = []shape{{b.Branches, []int{4, 4}}, {b.Branches, []int{16, 16}}}
		}
	}
	if s.fixed.Branches && b.Branches == 0 {
		return nil // a linear FIR: the doubling chose it
	}
	var out []*candidate
	seen := map[string]bool{}
	for _, sh := range shapes {
		for _, mG := range taps {
			mG = min(mG, max(8, maxBranchTaps/max(sh.branches, 1)))
			if s.fixed.Taps {
				mG = b.Taps
			}
			for _, f := range fb {
				for _, r := range rs {
					for _, l := range lin {
						st := model.Structure{Branches: sh.branches, Taps: mG, Hidden: append([]int{}, sh.hidden...),
							Feedback: f, LinearTaps: l, R1: r, R2: r}
						if s.fixed.R1 {
							st.R1 = b.R1
						}
						if s.fixed.R2 {
							st.R2 = b.R2
						}
						if !f {
							st.R2 = b.R2 // unused; kept as given
						}
						name := Name(st)
						if seen[name] || st.Check() != nil {
							continue
						}
						seen[name] = true
						out = append(out, &candidate{name: name, cfg: s.configFor(st)})
					}
				}
			}
		}
	}
	// A deterministic shuffle, so that a budget smaller than the grid keeps
	// a spread of it rather than one corner; the first candidate stays.
	if len(out) > 2 {
		rng := rand.New(rand.NewPCG(s.base.Seed, 0x5ea7c4))
		rest := out[1:]
		rng.Shuffle(len(rest), func(i, j int) { rest[i], rest[j] = rest[j], rest[i] })
	}
	for _, c := range out {
		c.row = &Row{Name: c.name, Structure: c.cfg.Structure, ValFit: math.NaN(), Rung: -1}
	}
	return out
}

// Name is a short, unique label of a structure: "FB 10×50 R1 1 R2 1 4,4 +lin 100".
func Name(st model.Structure) string {
	if st.Branches == 0 {
		return fmt.Sprintf("FIR %d", st.LinearTaps)
	}
	kind := "FF"
	r := fmt.Sprintf("R1 %d", st.R1)
	if st.Feedback {
		kind = "FB"
		r += fmt.Sprintf(" R2 %d", st.R2)
	}
	h := make([]string, len(st.Hidden))
	for i, w := range st.Hidden {
		h[i] = fmt.Sprint(w)
	}
	name := fmt.Sprintf("%s %d×%d %s [%s]", kind, st.Branches, st.Taps, r, strings.Join(h, ","))
	if st.LinearTaps > 0 {
		name += fmt.Sprintf(" +lin %d", st.LinearTaps)
	}
	return name
}

// schedule returns base's schedule shortened for rung r of rungs: the last
// rung trains with the full schedule, each earlier one with a third of the
// epochs (and patience) of the next.
func (s *searcher) schedule(r, rungs int) trainer.Config {
	cfg := s.base
	f := pow(eta, rungs-1-r)
	cfg.Epochs = max(1, cfg.Epochs/f)
	if cfg.Patience > 0 {
		cfg.Patience = max(1, cfg.Patience/f)
	}
	if cfg.BPTTEpochs > 0 {
		cfg.BPTTEpochs = max(1, cfg.BPTTEpochs/f)
		if cfg.BPTTPatience > 0 {
			cfg.BPTTPatience = max(1, cfg.BPTTPatience/f)
		}
	}
	return cfg
}

func (s *searcher) plan(res *Result, n, rungs int) Plan {
	p := Plan{Rungs: rungs, Candidates: n, TimeLimit: s.opt.TimeLimit, MemoryCut: res.MemoryCut}
	if s.opt.Loop != nil && s.fixed == (Fixed{}) {
		p.Loop, p.Loops, p.LoopEpochs = true, len(loop.Runs(res.LinearTaps, 0, s.loopSkip(res))), s.opt.Loop.Epochs
		p.LoopSkip = s.loopSkip(res)
	}
	if s.opt.REN != nil && s.fixed == (Fixed{}) {
		p.RENs = RENSeeds
		for _, kind := range renKinds {
			ren := *s.opt.REN
			ren.Memory = s.renMemory(kind, res)
			p.RENSamples = max(p.RENSamples, ren.Budget(s.train))
		}
	}
	per := func(c trainer.Config) int { return c.Iters * (c.Epochs + c.BPTTEpochs) }
	p.FullEpochs = per(s.base) * max(1, s.base.Members)
	for r := 0; r < rungs; r++ {
		p.Epochs += n * per(s.schedule(r, rungs)) * max(1, s.base.Members)
		n = max(1, n/eta)
	}
	return p
}

// trainRungBounded is trainRung under the time limit: the rungs trained in
// this process (Local) end at its share of it (searcher.halving), a candidate unfinished then not
// counting (its row keeps its last rung's score, or none), and cut reports
// that the deadline ended the rung. The rungs of another trainer (package
// searchdir) keep their plan.
func (s *searcher) trainRungBounded(ctx context.Context, cands []*candidate, r, rungs int) (cut bool, err error) {
	_, local := s.opt.Trainer.(Local)
	if s.opt.TimeLimit <= 0 || (s.opt.Trainer != nil && !local) {
		return false, s.trainRung(ctx, cands, r, rungs)
	}
	rctx, cancel := context.WithDeadline(ctx, s.start.Add(s.halvingTime()))
	defer cancel()
	err = s.trainRung(rctx, cands, r, rungs)
	if err != nil && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
		return true, nil
	}
	return false, err
}

// trainSafe is trainer.Train with a panic returned as a *trainer.PanicError:
// the candidate fails, with the panic as its error, and the search goes on
// instead of the process ending with a stack trace.
func trainSafe(ctx context.Context, cfg trainer.Config, train, val *data.Dataset) (res *trainer.Result, err error) {
	defer trainer.CatchPanic(&err)
	return trainer.Train(ctx, cfg, train, val)
}

// trainRung trains the candidates with rung r's schedule through
// opt.Trainer, each from scratch (a candidate's result is then a function
// of its configuration alone, whatever ran beside it, wherever it ran).
func (s *searcher) trainRung(ctx context.Context, cands []*candidate, r, rungs int) error {
	sched := s.schedule(r, rungs)
	rung := Rung{Index: r, Rungs: rungs}
	for _, c := range cands {
		cfg := c.cfg
		cfg.Iters, cfg.Epochs, cfg.Patience = sched.Iters, sched.Epochs, sched.Patience
		cfg.BPTTEpochs, cfg.BPTTPatience = sched.BPTTEpochs, sched.BPTTPatience
		rung.Names, rung.Configs = append(rung.Names, c.name), append(rung.Configs, cfg)
	}
	tr := s.opt.Trainer
	if tr == nil {
		tr = Local{Workers: s.opt.Workers}
	}
	err := tr.TrainRung(ctx, rung, s.train, s.val, func(i int, t Trained) {
		c, cfg := cands[i], rung.Configs[i]
		c.row.Rung, c.row.Iters, c.row.Epochs = r, cfg.Iters, cfg.Epochs
		c.row.Seconds += t.Seconds
		c.row.Error = ""
		if t.Result != nil && t.Err == nil {
			c.res, c.cfg, c.row.ValFit = t.Result, cfg, t.Result.BestValFit
		} else {
			c.res, c.row.ValFit = nil, math.NaN()
			c.row.Error = "no result"
			if t.Err != nil {
				c.row.Error = t.Err.Error()
			}
		}
		if ctx.Err() == nil {
			note := ""
			if c.row.Error != "" {
				note = "failed: " + c.row.Error
			}
			s.emit(Event{Stage: "candidate", Rung: r, Rungs: rungs, Candidate: c.name, ValFit: c.row.ValFit, Note: note})
		}
	})
	if err == nil {
		err = ctx.Err()
	}
	return err
}

// serialize makes done safe to call from several goroutines, one call at a
// time.
func serialize(done func(int, Trained)) func(int, Trained) {
	var mu sync.Mutex
	return func(i int, t Trained) {
		mu.Lock()
		defer mu.Unlock()
		done(i, t)
	}
}

func pow(b, e int) int {
	p := 1
	for range e {
		p *= b
	}
	return p
}

func uniq(v []int) []int {
	out := []int{}
	for _, x := range v {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}
