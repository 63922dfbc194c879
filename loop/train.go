package loop

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/ensemble"
	"github.com/passivenfir/gputrain/internal/gopanic"
	"github.com/passivenfir/gputrain/internal/optim"
)

// minSteps is the least number of Adam steps in an epoch (Train).
const minSteps = 16

// ErrConfig reports an unusable training configuration.
var ErrConfig = errors.New("loop: bad configuration")

// Config holds the settings of Train.
type Config struct {
	Structure Structure
	Epochs    int     // passes over the training windows
	Patience  int     // epochs without a better validation Fit before stopping (0: none)
	Batch     int     // windows per Adam step
	LR        float64 // Adam learning rate
	// LRDecay makes the learning rate fall along a half cosine from LR to
	// (1−LRDecay)·LR over the planned epochs: Epochs, or fewer when
	// MaxSamples ends training sooner (Loshchilov and Hutter's schedule,
	// without restarts). At a constant rate the validation Fit of a loop
	// swings by several points from epoch to epoch, and early stopping
	// keeps whichever epoch happened to land high; the falling rate lets
	// the last epochs settle. 0 keeps LR constant.
	LRDecay float64
	Clip    float64 // global gradient-norm clip (0: none)
	// Window and BurnIn cut records longer than Window+BurnIn into windows
	// of Window scored samples, each simulated from rest BurnIn samples
	// earlier (at least the model's memory, Structure.Memory, so that the
	// scored samples see a full history): backpropagation through time over
	// bounded spans. With sections (Structure.P1 > 0) the burn-in is at
	// least twice their slowest initial time constant, 32·max(L1, 8)
	// samples, so that records shorter than that train whole, from rest.
	Window, BurnIn int
	// MaxSamples bounds the training time: training stops once this many
	// samples have been simulated forward and backward (0: no bound).
	MaxSamples int
	// InitLinear, when set, are the taps (in the data's units) of a passive
	// FIR of Structure.L1 taps that H1's linear FIR starts from (Factor),
	// the other FIRs starting small: the loop then starts as that FIR and
	// Adam adds what it cannot explain; early stopping keeps the start when
	// nothing better is found.
	InitLinear []float64
	// Skip is the number of samples at the start of every training record
	// simulated but left out of the loss: the transient of an initial state
	// the model cannot know (records that start mid-motion).
	Skip    int
	ValSkip int // samples at the start of every validation record simulated but not scored
	// Basis, when > 0, trains every factor longer than Basis taps as a
	// combination of Basis Laguerre functions (Laguerre) instead of tap by
	// tap: hundreds of free numbers per FIR become Basis, a smoothness the
	// data need not teach. The pole is chosen for H1's linear factor as
	// InitLinear starts it (ChoosePole: the pole of the linear model of the
	// data), or without InitLinear for a factor falling to e⁻³ over the
	// memory (Structure.Memory), so that the functions span it. The
	// taps stay passive for every coefficient value, and the model holds
	// the expanded factors: its file is that of a loop without a basis.
	Basis   int
	Seed    uint64
	Workers int // 0: GOMAXPROCS
	// Deadline, when set, bounds the training in wall-clock time: after
	// every epoch the planned epochs are cut to those the mean time of an
	// epoch so far leaves room for before it (the falling learning rate
	// then follows the shortened plan, so that the last epochs still
	// settle), and training stops at it mid-epoch if need be, keeping the
	// best parameters so far. A result then depends on the machine's
	// speed; the zero time bounds training by Epochs and MaxSamples alone.
	Deadline time.Time
	// Start, when not nil, is the starting point instead of a random
	// initialization: its structure (which replaces Structure), its
	// parameters and its scales SU, SY (kept, not recomputed from the
	// data). InitLinear must then be empty. Start is not modified.
	Start    *Model
	Progress func(epoch int, loss, valFit float64)
}

// DefaultConfig trains the loop sized for a 64-tap memory (Sized) for up
// to 600 epochs, stopping after 40 without a better validation Fit.
func DefaultConfig() Config {
	return Config{
		Structure: Sized(64),
		Epochs:    600, Patience: 40, Batch: 8, LR: 1e-2, LRDecay: 0.98, Clip: 1, Window: 500, BurnIn: 100, MaxSamples: 20_000_000, Seed: 1,
	}
}

// Sized is the loop for a plant whose passive linear FIR needs L taps (the
// length chosen on validation data): H1 holds that memory in its linear FIR
// and half of it in two lifted branches, H2 half of it in its own; the
// lifts see two samples of u and y through 16 tanh units.
func Sized(L int) Structure {
	h := max(8, L/2)
	return Structure{R1: 2, R2: 2, Hidden: []int{16}, B1: 2, T1: h, L1: max(8, L), B2: 2, T2: h, L2: h}
}

// Wide is Sized with more of everything the lifts decide: windows of four
// samples of u and y, 32 tanh units, four branches in each NFIR.
func Wide(L int) Structure {
	s := Sized(L)
	s.R1, s.R2, s.Hidden, s.B1, s.B2 = 4, 4, []int{32}, 4, 4
	return s
}

// States is the number of slow states of u and of y (Structure.S) of the
// shapes with states: time constants of a quarter of the memory and of
// the memory.
const States = 2

// WithStates is s with States slow states in its lift's inputs.
func WithStates(s Structure) Structure {
	s.S = States
	return s
}

// RecUnits is the number of GRU units (Structure.Rec) WithRec gives a lift
// of up to RecUnits hidden units (Sized's), and WideRecUnits one with more
// (Wide's). With 16 units the sized loops validated higher: on four
// full-size zoo cases, each
// recurrent run of the search trained alone for 25 s under that deadline
// (about the time the search's limit gives it), the mean validation Fit of
// the three sized runs was higher with 16 units on all four, though a
// step costs about 1.8 times as much: backlash 69.0 against 63.0 %,
// stribeck-midmotion 81.3 against 78.2, softspring-noisy20 93.3 against
// 91.5, rlc-noisy13 96.8 against 96.6. The wide lift, with its four-sample
// windows and 32 units, gained nothing from 16 (−0.6 points over the same
// cases), and keeps 8 (docs/BENCHMARKS.md, session 46).
const (
	RecUnits     = 16
	WideRecUnits = 8
)

// WithRec is s with a recurrent lift: a GRU of RecUnits units, or of
// WideRecUnits where the lift's first hidden layer is wider than RecUnits.
func WithRec(s Structure) Structure {
	s.Rec = RecUnits
	if len(s.Hidden) > 0 && s.Hidden[0] > RecUnits {
		s.Rec = WideRecUnits
	}
	return s
}

// Shapes are the loops tried for a plant whose passive linear FIR needs L
// taps (the search and class loop keep the best on validation, or a mean
// of several: Choose): Sized, Wide for nonlinearities that need a longer
// view or more branches, both WithStates, for a hidden state that builds
// up over more samples than the windows show, and both WithRec, for a
// state the lift must learn. On the plant zoo no shape wins everywhere:
// the shapes with states raised the test Fit of the two-mass and backlash
// plants by 5 to 7 points and lowered that of a diode driven beyond its
// training amplitude (docs/BENCHMARKS.md, session 19). On 13 quick zoo
// cases, one seed each, sized+rec beat sized+states on validation on 11,
// and the choice with the recurrent shapes added raised the test Fit on
// 11 (by up to 7.6 points), the two-mass plant's falling by 0.1; dropping
// the shapes with states for them lost 3.4 points there (session 21).
func Shapes(L int) []Structure {
	return []Structure{Sized(L), Wide(L), WithStates(Sized(L)), WithStates(Wide(L)), WithRec(Sized(L)), WithRec(Wide(L))}
}

// Seeds is how many seeds each shape trains from. Loops trained from other
// seeds end in other local minima of the simulation error; on the plant zoo
// (quick budgets, 15 cases) the choice among the four loops of two shapes
// and two seeds (the best, or their mean: Choose) beat the choice among
// the two shapes of one seed by 1.3 points of test Fit on average, better
// on 12 cases, worse by at most 0.9 on 2 (docs/ZOO.md).
const Seeds = 2

// Run is one loop the search and class loop train: a shape, the seed
// Config.Seed takes (the user's seed plus an offset below RecSeeds), and
// the training skip Config.Skip takes.
type Run struct {
	Structure Structure
	Seed      uint64
	Skip      int
}

// RecSeeds is how many seeds the shapes with a recurrent lift (Rec > 0)
// train from, Seeds and then more. Their loops vary most from seed to
// seed (a learned state finds other local minima of the simulation
// error), so a choice among more of them gains most: on the quick plant
// zoo (16 cases, docs/BENCHMARKS.md, session 23) a third seed of the two
// recurrent shapes raised the chosen loop's test Fit on 10 cases (backlash
// 46.6 → 61.9) and lowered it on none, as much as a third seed of all six
// shapes did, at a third of the cost (on the one-port of 80 000 samples,
// the third seed of all shapes cost 583 s against 372 s).
const RecSeeds = 3

// Runs are the loops trained for a plant whose passive linear FIR needs L
// taps, from the user's seed: every shape of Shapes from seed, then every
// shape from seed+1, and so on up to Seeds; then the shapes with a
// recurrent lift from the seeds after those, up to RecSeeds (an
// interrupted search keeps whole passes). With skip > 0 (AutoSkip) the
// same runs follow again, each leaving the first skip samples of every
// training record out of its loss, and the choice (Choose) takes loops of
// both passes.
func Runs(L int, seed uint64, skip int) []Run {
	var rs []Run
	for _, sk := range []int{0, skip} {
		if sk == 0 && len(rs) > 0 {
			break
		}
		for k := range uint64(max(Seeds, RecSeeds)) {
			for _, st := range Shapes(L) {
				if k < Seeds || (st.Rec > 0 && k < RecSeeds) {
					rs = append(rs, Run{Structure: st, Seed: seed + k, Skip: sk})
				}
			}
		}
	}
	return rs
}

// Priority is the order in which runs (those of Runs) train where a time
// limit cuts their training, given as indexes into runs: pass by pass
// (Run.Skip 0 first), the runs with a recurrent lift (Structure.Rec > 0)
// first, shape by shape over their seeds, then the others in their order.
// Under a limit the first runs get the most time (the share rule of the
// search's loops), and the recurrent shapes need it most: their
// validation Fit still climbed after 25–40 s of training on three of four
// full-size zoo cases, where the other shapes level off within about 10 s
// and end by patience; a sized loop with a recurrent lift was the best loop of all
// four full-size cases measured (docs/BENCHMARKS.md, session 45). The
// order of Runs stays that of the results and of the choice, so a search
// the limit does not cut trains and chooses as before.
func Priority(runs []Run) []int {
	rank := func(r Run) (pass, group, shape int) {
		if r.Skip > 0 {
			pass = 1
		}
		if r.Structure.Rec == 0 {
			return pass, 1, 0
		}
		return pass, 0, shapeIndex(r.Structure)
	}
	idx := make([]int, len(runs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		pa, ga, sa := rank(runs[idx[a]])
		pb, gb, sb := rank(runs[idx[b]])
		if pa != pb {
			return pa < pb
		}
		if ga != gb {
			return ga < gb
		}
		return sa < sb
	})
	return idx
}

// shapeIndex is where a structure's shape stands in Shapes (by its lift and
// branches, whatever its memory), len(Shapes) for a shape not there.
func shapeIndex(st Structure) int {
	for k, sh := range Shapes(st.L1) {
		if sh.R1 == st.R1 && sh.R2 == st.R2 && slices.Equal(sh.Hidden, st.Hidden) && sh.B1 == st.B1 && sh.B2 == st.B2 && sh.S == st.S && sh.Rec == st.Rec {
			return k
		}
	}
	return len(Shapes(st.L1))
}

// SkipShare bounds where AutoSkip offers a skip: only where the samples it
// leaves out are at least 1/SkipShare of the training samples.
const SkipShare = 32

// AutoSkip is the training skip of the second pass of Runs, for a plant
// whose passive linear FIR needs L taps and the training records train,
// when the user gave none: min(L, n/8) for the shortest record's length n,
// or 0 (no second pass) where that leaves out less than 1/SkipShare of the
// training samples.
//
// A record that starts mid-motion begins with a transient of an initial
// state the loop, simulated from rest, cannot know; fitting it bends the
// loop away from the rest of the record. The FIR's memory L is how long
// that transient lasts in a linear model of the plant; n/8 keeps most of
// every record. Whether the records start at rest is not known (a test on
// the passive FIR's first-L-sample error did not tell the zoo's mid-motion
// cases apart, docs/BENCHMARKS.md, session 23), so the loops train both
// ways and the choice on validation data takes what fits (ChoosePasses):
// on the quick plant zoo (16 cases, session 24) this raised the chosen
// loop's test Fit of the stribeck plant recorded mid-motion from 71.1 to
// 78.0 %. The second pass costs as much as the
// first, so it is trained only where the left-out share is material, where
// an initial transient can weigh on the loss: the one-port of issue 26 (40
// records of 2000 samples, a 32-tap FIR) would leave out 1.6 % and take
// the default train from 465 s past its 10-minute bound.
func AutoSkip(L int, train *data.Dataset) int {
	if train == nil || len(train.Batches) == 0 || L < 1 {
		return 0
	}
	n, total := len(train.Batches[0].U), 0
	for _, b := range train.Batches {
		n, total = min(n, b.Len()), total+b.Len()
	}
	k := min(L, n/8)
	if k < 1 || SkipShare*k*len(train.Batches) < total {
		return 0
	}
	return k
}

// Quick shortens cfg's schedule for a first look: 150 epochs at most,
// patience 20, 3e6 samples simulated, at a constant learning rate. Such a
// budget ends after a few dozen epochs on most records, too few for a
// falling rate: on the plant zoo's quick cases (docs/BENCHMARKS.md,
// session 20) the decay of DefaultConfig lowered the validation Fit
// there, while it raised it at the full budget.
func Quick(cfg Config) Config {
	cfg.Epochs, cfg.Patience, cfg.MaxSamples = min(cfg.Epochs, 150), min(cfg.Patience, 20), 3_000_000
	cfg.LRDecay = 0
	return cfg
}

// Check reports the first unusable setting.
func (c Config) Check() error {
	if err := c.Structure.Check(); err != nil {
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	switch {
	case c.Epochs < 1, c.Batch < 1, c.Window < 1:
		return fmt.Errorf("%w: epochs %d, batch %d and window %d must be ≥ 1", ErrConfig, c.Epochs, c.Batch, c.Window)
	case c.Patience < 0, c.BurnIn < 0, c.MaxSamples < 0, c.Skip < 0, c.ValSkip < 0, c.Workers < 0, c.Basis < 0:
		return fmt.Errorf("%w: patience, burn-in, max samples, skip, val skip, workers and basis must be ≥ 0", ErrConfig)
	case !(c.LR > 0) || math.IsInf(c.LR, 0) || c.Clip < 0:
		return fmt.Errorf("%w: lr %g must be > 0 and finite, clip %g ≥ 0", ErrConfig, c.LR, c.Clip)
	case !(c.LRDecay >= 0 && c.LRDecay < 1):
		return fmt.Errorf("%w: learning-rate decay %g must be in [0, 1)", ErrConfig, c.LRDecay)
	}
	return nil
}

// Result is a trained loop with its validation Fit.
type Result struct {
	Model  *Model
	ValFit float64 // median closed-loop Fit on val
	Epochs int     // epochs run
	// Cut reports that Config.Deadline shortened the training: it planned
	// fewer epochs than Epochs and MaxSamples allow, or stopped at it.
	Cut bool
	// Pole is the Laguerre pole of Config.Basis (0 without a basis).
	Pole float64
}

// window is a span of one training record: simulated from sample lo (at
// rest), scored from sample lo+skip.
type window struct {
	rec, lo, hi, skip int
}

// Train fits a loop to train by Adam on the closed-loop simulation error
// (backpropagation through time), keeping the parameters with the best
// median closed-loop Fit on val. Without validation data (val nil) it
// keeps the last parameters, and Result.ValFit is NaN: that is for
// continuing a trained loop (Config.Start) on all the data once validation
// has done its work. When ctx is cancelled it returns the best model so far
// (without validation: the last) with ctx.Err().
//
// Train is a Session run to its end.
func Train(ctx context.Context, cfg Config, train, val *data.Dataset) (*Result, error) {
	s, err := NewSession(cfg, train, val)
	if err != nil {
		return nil, err
	}
	if _, err := s.Run(ctx, time.Time{}); err != nil && ctx.Err() == nil {
		return nil, err
	}
	return s.Result(), ctx.Err()
}

// A Session is the training of one loop (Train) that can pause between
// epochs and resume where it stopped, with its optimizer's moments, its
// learning-rate schedule, its random stream and its early-stopping state:
// run in pieces, it trains exactly as in one piece. That is what a
// scheduler that interleaves loops needs, successive halving among them: a
// loop paused after a first share and resumed among the best is the loop
// trained for the sum of its shares, where restarting it from its best
// parameters (Config.Start, a fresh optimizer at the full learning rate)
// undoes the settled state (docs/BENCHMARKS.md, session 44). Halving the
// search's loops by their Fit after a first share was tried on it and not
// kept: the recurrent loops that end best rank low after a few seconds
// (docs/BENCHMARKS.md, session 45).
//
// A Session is not safe for concurrent use.
type Session struct {
	cfg       Config
	val       *data.Dataset
	m         *Model
	us, ys    [][]float64
	wins      []window
	workers   int
	res       Result // Epochs, Cut, Pole; Model and ValFit are Result's
	theta     []float64
	bs        *basis
	full, gc  []float64
	best      []float64
	bestFit   float64
	since     int // epochs without a better validation Fit
	opt       *optim.Adam
	order     []int
	simulated int
	sched     *schedule
	rng       *rand.Rand
	ep        int           // the next epoch
	trained   time.Duration // time spent in Run before the current call
	runStart  time.Time
	ended     bool
}

// NewSession prepares the training of Train: it checks cfg and the data,
// initializes the loop and scores it on val, and trains nothing yet.
func NewSession(cfg Config, train, val *data.Dataset) (*Session, error) {
	if cfg.Start != nil {
		if len(cfg.InitLinear) > 0 {
			return nil, fmt.Errorf("%w: both a starting loop and initial linear taps", ErrConfig)
		}
		cfg.Structure = cfg.Start.Structure
	}
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	if train == nil || train.Len() == 0 || (val != nil && val.Len() == 0) {
		return nil, fmt.Errorf("%w: need training records, and validation records where validation data is given", ErrConfig)
	}
	if err := train.Validate(1); err != nil {
		return nil, fmt.Errorf("loop: training data: %w", err)
	}
	if val != nil {
		if err := val.Validate(1); err != nil {
			return nil, fmt.Errorf("loop: validation data: %w", err)
		}
	}
	m, err := New(cfg.Structure)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	m.SU, m.SY = rms(train.Inputs()), rms(train.Outputs())
	if m.SU == 0 || m.SY == 0 {
		return nil, fmt.Errorf("%w: the training input or output is zero", ErrConfig)
	}
	s := &Session{cfg: cfg, val: val, m: m}
	s.rng = rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x100b))
	m.init(s.rng) // also with Start: the random stream then stays the same
	if st := cfg.Start; st != nil {
		if err := m.SetFlat(st.Flatten()); err != nil {
			return nil, fmt.Errorf("%w: the starting loop: %w", ErrConfig, err)
		}
		m.SU, m.SY = st.SU, st.SY
	}
	if len(cfg.InitLinear) > 0 {
		if len(cfg.InitLinear) != m.L1 {
			return nil, fmt.Errorf("%w: %d initial linear taps for a forward FIR of %d", ErrConfig, len(cfg.InitLinear), m.L1)
		}
		g := make([]float64, m.L1)
		for k, v := range cfg.InitLinear {
			g[k] = v * m.SU / m.SY
		}
		copy(m.FL1, Factor(g))
		for _, f := range [][]float64{m.F1, m.F2, m.FL2} {
			for i := range f {
				f[i] *= 0.1
			}
		}
	}
	burn := max(cfg.BurnIn, cfg.Structure.Memory(), cfg.Structure.sectionBurnIn())
	for r, b := range train.Batches {
		u, y := make([]float64, b.Len()), make([]float64, b.Len())
		for i := range u {
			u[i], y[i] = b.U[i]/m.SU, b.Y[i]/m.SY
		}
		s.us, s.ys = append(s.us, u), append(s.ys, y)
		if b.Len() <= cfg.Skip {
			return nil, fmt.Errorf("%w: training record %d has %d samples, not more than skip %d", ErrConfig, r, b.Len(), cfg.Skip)
		}
		if b.Len() <= cfg.Window+burn+cfg.Skip {
			s.wins = append(s.wins, window{rec: r, lo: 0, hi: b.Len(), skip: cfg.Skip})
			continue
		}
		for t := cfg.Skip; t < b.Len(); t += cfg.Window {
			lo := max(0, t-max(burn, cfg.Skip))
			s.wins = append(s.wins, window{rec: r, lo: lo, hi: min(b.Len(), t+cfg.Window), skip: t - lo})
		}
	}
	s.workers = cfg.Workers
	if s.workers <= 0 {
		s.workers = runtime.GOMAXPROCS(0)
	}
	s.theta = m.Flatten() // what Adam steps: the model's parameters, or their basis coefficients
	if cfg.Basis > 0 {
		start := m.FL1
		if len(cfg.InitLinear) == 0 {
			// no FIR to take a pole from: one whose functions span the
			// memory, a factor falling to e⁻³ over its length
			start = make([]float64, cfg.Structure.Memory())
			for k := range start {
				start[k] = math.Exp(-3 * float64(k) / float64(len(start)))
			}
		}
		if len(start) > cfg.Basis {
			if s.res.Pole, _, err = ChoosePole(start, cfg.Basis); err != nil {
				return nil, err
			}
		}
		if s.bs, err = newBasis(m, cfg.Basis, s.res.Pole); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrConfig, err)
		}
		s.theta = make([]float64, s.bs.reduced)
		s.bs.project(m.Flatten(), s.theta)
		s.gc = make([]float64, s.bs.reduced)
	}
	if err := s.set(s.theta); err != nil {
		return nil, err
	}
	s.best = m.Flatten()
	s.bestFit = math.Inf(-1)
	if val == nil {
		s.bestFit = math.NaN()
	} else if f, err := valFit(m, val, cfg.ValSkip); err == nil {
		s.bestFit = f
	}
	s.opt = optim.NewAdam(len(s.theta))
	// An epoch is at least minSteps Adam steps, passing over the windows
	// as often as that takes: with few windows (one record) an epoch of one
	// step would let the patience run out after a few dozen steps.
	perPass := (len(s.wins) + cfg.Batch - 1) / cfg.Batch
	passes := (minSteps + perPass - 1) / perPass
	s.order = make([]int, 0, passes*len(s.wins))
	for range passes {
		for i := range s.wins {
			s.order = append(s.order, i)
		}
	}
	s.sched = newSchedule(cfg, s.wins, s.order)
	return s, nil
}

// set gives the model the parameters of Adam's vector (expanded into the
// full vector with a basis).
func (s *Session) set(theta []float64) error {
	if s.bs == nil {
		return s.m.SetFlat(theta)
	}
	if s.full == nil {
		s.full = make([]float64, s.bs.full)
	}
	s.bs.expand(theta, s.full)
	return s.m.SetFlat(s.full)
}

// Run trains until the training ends (Config.Epochs, Patience, MaxSamples
// or Deadline, a non-finite loss, or ctx cancelled) or, when pause is not
// zero, until the end of the first epoch at or after pause: at least one
// epoch, so that a pause already past runs exactly one. It reports
// whether the training has ended; an ended session runs no further. The
// error is ctx's, or one of the validation data.
func (s *Session) Run(ctx context.Context, pause time.Time) (ended bool, err error) {
	s.runStart = time.Now()
	defer func() { s.trained += time.Since(s.runStart) }()
	for !s.ended {
		if err := s.epoch(ctx); err != nil {
			s.ended = true
			return true, err
		}
		if s.ep >= s.cfg.Epochs {
			s.ended = true
		}
		if !s.ended && !pause.IsZero() && !time.Now().Before(pause) {
			return false, nil
		}
	}
	return true, nil
}

// Fit is the best validation Fit so far (NaN without validation data).
func (s *Session) Fit() float64 { return s.bestFit }

// Result is the loop with the best validation Fit so far (without
// validation data: the last parameters), a model of its own.
func (s *Session) Result() *Result {
	m, err := New(s.m.Structure)
	if err != nil {
		panic(err) // the structure was checked by NewSession
	}
	if err := m.SetFlat(s.best); err != nil {
		panic(err)
	}
	m.SU, m.SY = s.m.SU, s.m.SY
	r := s.res
	r.Model, r.ValFit = m, s.bestFit
	return &r
}

// epoch runs epoch s.ep, ending the training where it should.
func (s *Session) epoch(ctx context.Context) error {
	cfg := &s.cfg
	ep := s.ep
	s.rng.Shuffle(len(s.order), func(i, j int) { s.order[i], s.order[j] = s.order[j], s.order[i] })
	sse, rows := 0.0, 0
	for lo := 0; lo < len(s.order); lo += cfg.Batch {
		if err := ctx.Err(); err != nil {
			s.ended = true
			return err
		}
		if !cfg.Deadline.IsZero() && time.Now().After(cfg.Deadline) {
			s.res.Cut, s.ended = true, true
			return nil
		}
		batch := s.order[lo:min(lo+cfg.Batch, len(s.order))]
		g, l, n := s.m.batchGrad(s.us, s.ys, s.wins, batch, s.workers)
		if s.bs != nil {
			s.bs.project(g, s.gc) // the chain rule through expand: Qᵀ of the factors' gradient
			g = s.gc
		}
		sse += l
		rows += n
		for _, i := range batch {
			s.simulated += s.wins[i].hi - s.wins[i].lo
		}
		optim.ClipNorm(g, cfg.Clip)
		s.opt.Step(s.theta, g, s.sched.at(ep), 0)
		if err := s.set(s.theta); err != nil {
			return err
		}
	}
	s.ep++
	s.res.Epochs = s.ep
	if math.IsNaN(sse) {
		s.ended = true // the parameters of the last epoch that was finite are kept
		return nil
	}
	f := math.NaN()
	if s.val != nil {
		var err error
		if f, err = valFit(s.m, s.val, cfg.ValSkip); err != nil {
			return err
		}
	}
	if cfg.Progress != nil {
		cfg.Progress(ep, sse/float64(max(rows, 1)), f)
	}
	switch {
	case s.val == nil:
		s.best = s.m.Flatten()
	case f > s.bestFit:
		s.bestFit, s.since = f, 0
		s.best = s.m.Flatten()
	default:
		if s.since++; cfg.Patience > 0 && s.since >= cfg.Patience {
			s.ended = true
			return nil
		}
	}
	if cfg.MaxSamples > 0 && s.simulated >= cfg.MaxSamples {
		s.ended = true
		return nil
	}
	if !cfg.Deadline.IsZero() {
		s.plan()
	}
	return nil
}

// plan cuts the planned epochs to those the mean time of an epoch so far
// leaves room for before Config.Deadline, ending the training where not
// one more fits.
func (s *Session) plan() {
	done := s.ep
	per := (s.trained + time.Since(s.runStart)) / time.Duration(done)
	room := int(time.Until(s.cfg.Deadline) / max(per, time.Nanosecond))
	if done+room < s.sched.planned {
		s.sched.planned, s.res.Cut = max(done+room, 1), true
	}
	if room < 1 {
		s.ended = true
	}
}

// schedule is the learning rate of each epoch: LR falling by LRDecay along
// a half cosine over the planned epochs.
type schedule struct {
	lr, decay float64
	planned   int
}

func (s *schedule) at(epoch int) float64 {
	if s.decay == 0 || s.planned <= 1 {
		return s.lr
	}
	x := float64(min(epoch, s.planned-1)) / float64(s.planned-1)
	return s.lr * (1 - s.decay*(1-math.Cos(math.Pi*x))/2)
}

// newSchedule plans cfg's epochs: cfg.Epochs, or those cfg.MaxSamples
// allows when it ends training sooner (Train shortens the plan further
// for cfg.Deadline).
func newSchedule(cfg Config, wins []window, order []int) *schedule {
	planned := cfg.Epochs
	if cfg.MaxSamples > 0 {
		perEpoch := 0
		for _, i := range order {
			perEpoch += wins[i].hi - wins[i].lo
		}
		if perEpoch > 0 {
			planned = min(planned, (cfg.MaxSamples+perEpoch-1)/perEpoch)
		}
	}
	return &schedule{lr: cfg.LR, decay: cfg.LRDecay, planned: planned}
}

// init draws the initial parameters: Glorot weights, output biases of 1 (so
// that the gains start near tanh(1), where the branches pass a signal and
// their gradients do not vanish), and factors whose taps start near a gain
// of 1/2 for H1 and 1/20 for H2.
func (m *Model) init(rng *rand.Rand) {
	m.Lift.InitXavier(rng)
	last := m.Lift.B[len(m.Lift.B)-1]
	for i := range last {
		last[i] = 1
	}
	fill := func(f []float64, power float64) {
		if len(f) == 0 {
			return
		}
		sd := math.Sqrt(power / float64(len(f)))
		for i := range f {
			f[i] = sd * rng.NormFloat64()
		}
	}
	fill(m.FL1, 1)
	fill(m.F1, 1/float64(max(m.B1, 1)))
	fill(m.FL2, 0.1)
	fill(m.F2, 0.1/float64(max(m.B2, 1)))
	m.initSections()
	if m.Rec > 0 {
		m.RecCell().Init(m.RT, rng)
	}
}

// batchGrad is the gradient of the mean squared simulation error over the
// scored samples of the windows, computed by workers goroutines, each over
// a fixed share of the windows, summed in worker order (deterministic for
// a given worker count). It returns the gradient (Flatten order), the sum
// of squared errors and the number of scored samples.
func (m *Model) batchGrad(us, ys [][]float64, wins []window, batch []int, workers int) ([]float64, float64, int) {
	rows := 0
	for _, i := range batch {
		w := wins[i]
		rows += w.hi - w.lo - w.skip
	}
	t := m.taps()
	par := min(workers, len(batch))
	parts := make([]*grads, par)
	sse := make([]float64, par)
	var wg sync.WaitGroup
	var pc gopanic.Catcher // a worker's panic is raised again below, not in its goroutine
	for p := 0; p < par; p++ {
		wg.Add(1)
		go func(p int) {
			defer wg.Done()
			defer pc.Catch()
			gr := newGrads(m)
			for q := p; q < len(batch); q += par {
				w := wins[batch[q]]
				u, target := us[w.rec][w.lo:w.hi], ys[w.rec][w.lo:w.hi]
				tp := newTape(m, len(u))
				y := make([]float64, len(u))
				m.forward(t, u, y, tp)
				dy := make([]float64, len(u))
				for i := w.skip; i < len(u); i++ {
					d := y[i] - target[i]
					sse[p] += d * d
					dy[i] = 2 * d / float64(rows)
				}
				m.backward(t, u, y, dy, tp, gr)
			}
			parts[p] = gr
		}(p)
	}
	wg.Wait()
	pc.Repanic()
	total := parts[0]
	for _, gr := range parts[1:] {
		for _, pair := range [][2][]float64{{total.lift, gr.lift}, {total.g1, gr.g1}, {total.l1, gr.l1}, {total.g2, gr.g2}, {total.l2, gr.l2}, {total.sa, gr.sa}, {total.sb, gr.sb}, {total.rec, gr.rec}} {
			for i, v := range pair[1] {
				pair[0][i] += v
			}
		}
	}
	m.factorGrads(total)
	s := 0.0
	for _, v := range sse {
		s += v
	}
	return total.flat(), s, rows
}

// valFit is the median closed-loop Fit of m on d (against YClean where
// known), records whose scored output is zero left out.
// simulator is a Model or a Mean.
type simulator interface{ Simulate(u []float64) []float64 }

func valFit(m simulator, d *data.Dataset, skip int) (float64, error) {
	return fitRecords(d, skip, func(r int) []float64 { return m.Simulate(d.Batches[r].U) })
}

// fitRecords is valFit with the output of record r given by sim(r)
// (ensemble.FitRecords, its error an ErrConfig).
func fitRecords(d *data.Dataset, skip int, sim func(r int) []float64) (float64, error) {
	f, err := ensemble.FitRecords(d, skip, sim)
	if err != nil {
		return f, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return f, nil
}

func rms(x [][]float64) float64 {
	s, n := 0.0, 0
	for _, v := range x {
		for _, a := range v {
			s += a * a
		}
		n += len(v)
	}
	if n == 0 {
		return 0
	}
	return math.Sqrt(s / float64(n))
}

// FitOf is the validation Fit by which Train and Choose score loops, for
// any simulator: the median closed-loop Fit over the records of d, the
// first skip samples of each simulated but not scored. The structure
// search scores the other families it compares with loops by it.
func FitOf(d *data.Dataset, skip int, sim func(u []float64) []float64) (float64, error) {
	return fitRecords(d, skip, func(r int) []float64 { return sim(d.Batches[r].U) })
}
