package trainer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/passivenfir/gputrain/convex"
	"github.com/passivenfir/gputrain/convex/kyp"
	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/graph"
	"github.com/passivenfir/gputrain/internal/optim"
	"github.com/passivenfir/gputrain/kernels"
	"github.com/passivenfir/gputrain/model"
)

// Result is a trained model with its certificate and training history.
type Result struct {
	Model      *model.NFIR
	Meta       model.Meta
	Cert       model.Certificate
	History    []Event
	BestValFit float64 // median closed-loop validation Fit of the returned model (NaN without validation data)
	// TapsAtBound counts the taps of the returned model that end on their
	// decay bound |g(k)| ≤ Rho·Decay^k (summed over the members of a mean):
	// the bound is in the units the taps are fitted in (the scaled data's
	// with Scale "auto", counted before the model is converted back), and
	// where it binds it limits the fit.
	TapsAtBound int
	// RidgeRatio is γ_G over the mean diagonal of the last θ_G step's Gram
	// matrix (the largest over the members of a mean). γ_G is in the units of
	// u² times samples: from about 0.1 on, the ridge rather than the data
	// sets the taps (see RidgeNote).
	RidgeRatio float64
}

// RidgeNote is the RidgeRatio from which the trainer (and gputrain train) says that γ_G, rather
// than the data, sets the taps: the ridge then shrinks the taps' component
// along an eigenvector of average curvature by a tenth or more. The paper's
// settings stay far below it (mass-spring-damper about 1e-5).
const RidgeNote = 0.1

// ridgeRatio returns γ·n/trace(P) for the n×n matrix P (row-major).
func ridgeRatio(gamma float64, P []float64, n int) float64 {
	tr := 0.0
	for i := 0; i < n; i++ {
		tr += P[i*n+i]
	}
	if !(tr > 0) {
		if gamma > 0 {
			return math.Inf(1)
		}
		return 0
	}
	return gamma * float64(n) / tr
}

// qpAcceptTol is the relative KKT residual the trainer takes from a θ_G solve that cannot reach
// the solver's 1e-9 (convex.Options.AcceptTol): exact mode at the robot's n = 2000 stalls near
// 1e-8, and ending a run of minutes there would help no one. Passivity does not depend on it
// (every FIR is certified after the solve), and the optimality it gives up is far below what
// the next θ_N step changes; the θ_G event reports the residual reached. It is also the
// convex.Options.ShiftTol of exact-mode FIRs: the exchange loop stops at a dip of up to
// 1e-6·Σ|g| below the margin, which a uniform shift of Re G repairs (still certified), rather
// than cutting off one new dip after another (the re-solve of two 500-tap robot FIRs that failed
// their sampled certificate: 34 s instead of 214 s, docs/BENCHMARKS.md).
const qpAcceptTol = 1e-6

// session is the state of one training run.
type session struct {
	cfg    Config
	be     kernels.Backend
	m      *model.NFIR
	theta  []float64
	rng    *rand.Rand
	start  time.Time
	hist   []Event
	train  traj
	val    traj
	open   *graph.OpenLoop
	closed *graph.ClosedLoopNet
	warm   *convex.Solution
	ridge  float64 // ridgeRatio of the last θ_G step
	best   *model.NFIR
	bestV  float64
	// lastEval is the last iteration evaluated (−1: none yet).
	lastEval int
}

// traj holds a data set's trajectories, the source of the chunks of the
// open-loop passes (stream.go), with the features of a small set
// precomputed so that its mini-batches are concatenations.
type traj struct {
	d    *data.Dataset
	src  source
	all  []int        // the indices of every trajectory
	full *graph.Batch // every trajectory in one batch, for the dense path; built on first use (fullBatch)
	// m is the model whose features full holds.
	m      *model.NFIR
	sumYY  float64     // Σy² over the scored samples
	rows   int         // number of scored samples
	skip   int         // samples at the start of each trajectory that are not scored
	target [][]float64 // what fits are scored against: YClean when known, else Y
}

// Train runs Algorithm 1 on train, keeping the model with the best median
// closed-loop Fit on val (val may be nil: then the last model is kept, and each
// θ_N stage keeps the parameters with the lowest training error, measured
// after every epoch, in place of the validation error). When
// ctx is cancelled it returns the best model so far together with ctx.Err().
// With cfg.Members > 1 it trains the members one after another and returns
// their mean (see Config.Members).
func Train(ctx context.Context, cfg Config, train, val *data.Dataset) (*Result, error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	if cfg.Structure.Branches == 0 {
		cfg.Iters = 1 // a linear FIR has no θ_N: one convex solve is the optimum
	}
	if cfg.Scale == ScaleAuto {
		if a, b := AutoScale(train); a != 1 || b != 1 {
			return trainScaled(ctx, cfg, train, val, a, b)
		}
	}
	return trainUnscaled(ctx, cfg, train, val)
}

// trainUnscaled is Train on the data as given; cfg has been checked.
func trainUnscaled(ctx context.Context, cfg Config, train, val *data.Dataset) (*Result, error) {
	if cfg.Members > 1 {
		return trainMembers(ctx, cfg, train, val)
	}
	return trainOne(ctx, cfg, train, val)
}

// trainOne is Train for one model; cfg has been checked.
func trainOne(ctx context.Context, cfg Config, train, val *data.Dataset) (*Result, error) {
	if train == nil || len(train.Batches) == 0 {
		return nil, fmt.Errorf("%w: no training data", ErrConfig)
	}
	if err := train.Validate(1); err != nil {
		return nil, fmt.Errorf("trainer: training data: %w", err)
	}
	for i, b := range train.Batches {
		if len(b.U) <= cfg.Skip {
			return nil, fmt.Errorf("%w: training trajectory %d has %d samples, not more than skip %d", ErrConfig, i, len(b.U), cfg.Skip)
		}
	}
	if val != nil && len(val.Batches) == 0 {
		val = nil
	}
	if val != nil {
		if err := val.Validate(1); err != nil {
			return nil, fmt.Errorf("trainer: validation data: %w", err)
		}
		for i, b := range val.Batches {
			if len(b.U) <= cfg.ValSkip {
				return nil, fmt.Errorf("%w: validation trajectory %d has %d samples, not more than val-skip %d", ErrConfig, i, len(b.U), cfg.ValSkip)
			}
		}
	}
	s := &session{cfg: cfg, start: time.Now(), bestV: math.Inf(-1), lastEval: -1}
	s.rng = rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15))
	var err error
	if s.be, err = backend(cfg); err != nil {
		return nil, err
	}
	if cfg.Start != nil {
		s.m = cfg.Start.Clone()
	} else if s.m, err = model.New(cfg.Structure); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	var us, ys [][]float64
	for _, b := range train.Batches {
		us, ys = append(us, b.U), append(ys, b.Y)
	}
	if cfg.Start == nil {
		s.m.UScaler = data.FitScaler(us...)
		s.m.QScaler = data.FitScaler(ys...)
	}
	if cfg.Structure.Branches > 0 && cfg.Start == nil {
		if cfg.Init == InitFanIn {
			s.m.Lift.InitFanIn(s.rng)
		} else {
			s.m.Lift.InitXavier(s.rng)
		}
	}
	s.theta = s.m.Lift.Flatten()
	if s.train, err = s.prepare(train, cfg.Skip); err != nil {
		return nil, err
	}
	if val != nil {
		if s.val, err = s.prepare(val, cfg.ValSkip); err != nil {
			return nil, err
		}
	}
	if cfg.Structure.Branches > 0 {
		if s.open, err = graph.NewOpenLoop(s.m, s.be); err != nil {
			return nil, fmt.Errorf("trainer: %w", err)
		}
		if cfg.BPTTEpochs > 0 || (cfg.Structure.Feedback && cfg.Monitor != MonitorOpen) {
			if s.closed, err = graph.NewClosedLoop(s.m, s.be); err != nil {
				return nil, fmt.Errorf("trainer: %w", err)
			}
		}
	}
	if cfg.Start != nil && val != nil {
		if err := s.scoreStart(); err != nil {
			return nil, err
		}
	}
	runErr := s.run(ctx)
	if runErr != nil && s.best == nil {
		return nil, runErr
	}
	if s.best == nil { // no validation data: the last model
		s.best = s.m.Clone()
		s.bestV = math.NaN()
	}
	cert, err := s.best.Certify()
	if err != nil {
		return nil, err
	}
	if cfg.Passivity != PassivityNone && !cert.Passive {
		// Every θ_G comes from the constrained solver and is certified there;
		// reaching this line is a bug, and a non-passive model must not leave.
		return nil, fmt.Errorf("trainer: internal error: %s-mode model fails its passivity certificate %+v", cfg.Passivity, cert)
	}
	if cfg.Passivity != PassivityNone {
		changed, err := addHeadroom(s.best)
		if err != nil {
			return nil, fmt.Errorf("trainer: %w", err)
		}
		if changed {
			if cert, err = s.best.Certify(); err != nil {
				return nil, err
			}
			if !math.IsNaN(s.bestV) {
				ev, err := Evaluate(s.best, val, cfg.ValSkip)
				if err != nil {
					return nil, fmt.Errorf("trainer: the validation data: %w", err)
				}
				s.bestV = ev.ClosedLoop.Median
			}
		}
	}
	raw, _ := json.Marshal(cfg)
	res := &Result{
		Model:      s.best,
		Meta:       model.Meta{Ts: train.Ts, Mode: string(cfg.Passivity), Training: raw},
		Cert:       cert,
		History:    s.hist,
		BestValFit: s.bestV,
		// s.best's taps, which are s.m's only if the last iterate was the best
		TapsAtBound: tapsAtBound(s.best, cfg),
		RidgeRatio:  s.ridge,
	}
	// the last iteration evaluated: an interrupted run did not reach cfg.Iters
	s.emit(Event{Stage: "done", Iter: max(s.lastEval, 0), ValFit: s.bestV})
	return res, runErr
}

func backend(cfg Config) (kernels.Backend, error) {
	if cfg.Device == "" || cfg.Device == DeviceCPU {
		return &kernels.CPU{Workers: cfg.Workers}, nil
	}
	be, err := kernels.NewBackend(string(cfg.Device))
	if err != nil {
		return nil, fmt.Errorf("trainer: device %s: %w", cfg.Device, err)
	}
	return be, nil
}

// prepare builds the trajectories of d; the first skip samples of each are
// left out of its scores. The data are not copied: the chunks of a pass
// are cut from them (stream.go).
func (s *session) prepare(d *data.Dataset, skip int) (traj, error) {
	t := traj{d: d, skip: skip, m: s.m}
	rows := 0
	for i, b := range d.Batches {
		t.src.us, t.src.ys = append(t.src.us, b.U), append(t.src.ys, b.Y)
		t.all = append(t.all, i)
		rows += len(b.U)
	}
	if s.cfg.Structure.Branches > 0 && rows*s.m.NumFeatures() <= featureCache {
		for _, b := range d.Batches {
			t.src.x = append(t.src.x, s.m.Features(b.U, data.Q(b.Y)))
		}
	}
	for _, b := range d.Batches {
		for _, v := range b.Y[skip:] {
			t.sumYY += v * v
		}
		t.rows += len(b.Y) - skip
		if b.YClean != nil {
			t.target = append(t.target, b.YClean)
		} else {
			t.target = append(t.target, b.Y)
		}
	}
	return t, nil
}

// fullBatch returns every trajectory of t in one graph batch, for the
// open-loop passes over a data set of one chunk (the dense path).
func (t *traj) fullBatch() (*graph.Batch, error) {
	if t.full == nil {
		full, err := graph.NewBatch(t.m, t.src.us, nil, t.src.ys)
		if err != nil {
			return nil, fmt.Errorf("trainer: %w", err)
		}
		t.full = full
	}
	return t.full, nil
}

// wholeBatch concatenates the whole trajectories idx of t into one graph
// batch without features (the BPTT mini-batch: the closed loop computes its
// own).
func (s *session) wholeBatch(t *traj, idx []int) *graph.Batch {
	ps := make([]piece, len(idx))
	for i, b := range idx {
		ps[i] = piece{tr: b, hi: len(t.src.us[b])}
	}
	return s.batchOf(&t.src, ps, nil, false)
}

// announce sends e to Config.Progress without recording it in the history:
// the start of a long step, so that a minutes-long θ_G solve is not silence.
func (s *session) announce(e Event) {
	e.Elapsed = time.Since(s.start)
	if s.cfg.Progress != nil {
		s.cfg.Progress(e)
	}
}

func (s *session) emit(e Event) {
	e.Elapsed = time.Since(s.start)
	s.hist = append(s.hist, e)
	if s.cfg.Progress != nil {
		s.cfg.Progress(e)
	}
}

func (s *session) run(ctx context.Context) error {
	K := s.cfg.Iters
	for k := 0; k < K; k++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := s.thetaG(ctx, k); err != nil {
			return err
		}
		if s.cfg.Structure.Branches > 0 {
			var err error
			if k == K-1 && s.cfg.BPTTEpochs > 0 {
				err = s.bptt(ctx, k)
			} else {
				err = s.adamStep(ctx, k)
			}
			if err := s.evaluate(ctx, k); err != nil {
				return err
			}
			if err != nil {
				return err
			}
			continue
		}
		if err := s.evaluate(ctx, k); err != nil {
			return err
		}
	}
	return nil
}

// blocks returns the constraint blocks of θ_G: one per branch FIR and one
// for the parallel linear FIR.
func (s *session) blocks(kind convex.Kind) []convex.Block {
	st := s.cfg.Structure
	var bl []convex.Block
	add := func(off, n int) {
		if n == 0 {
			return
		}
		b := convex.Block{Offset: off, Len: n, Kind: kind}
		if s.cfg.Passivity == PassivityNone {
			return
		}
		if s.cfg.Passivity == PassivitySampled {
			b.H, b.Eps = s.cfg.H, s.cfg.Eps
		}
		if s.cfg.Rho > 0 {
			b.Rho, b.Decay = s.cfg.Rho, s.cfg.Decay
		}
		bl = append(bl, b)
	}
	for j := 0; j < st.Branches; j++ {
		add(j*st.Taps, st.Taps)
	}
	add(st.Branches*st.Taps, st.LinearTaps)
	return bl
}

// thetaG is the θ_G update of Algorithm 1: assemble the normal equations for
// the current gains and solve the constrained least squares. For FB models
// from the second iteration on, GramGains decides which gains: those of the
// measured output (the paper's), those of the model's own closed-loop
// simulation, or ("auto") both, keeping the taps whose closed-loop error on
// the validation data (training data when there is none) is lower.
func (s *session) thetaG(ctx context.Context, k int) error {
	st := s.cfg.Structure
	type cand struct {
		name string
		src  *source
	}
	cands := []cand{{"data", &s.train.src}}
	if mode := s.cfg.GramGains; st.Feedback && st.Branches > 0 && k > 0 && mode != GramGainsData {
		cl, err := s.closedLoopBatch()
		if err != nil {
			return err
		}
		if mode == GramGainsClosed {
			cands = cands[:0]
		}
		cands = append(cands, cand{"closed", cl})
	}
	solves := ""
	if len(cands) > 1 {
		solves = fmt.Sprintf(", %d candidate gain sets", len(cands))
	}
	s.announce(Event{Stage: "solve", Iter: k, Loss: math.NaN(), TrainFit: math.NaN(), ValFit: math.NaN(),
		Note: fmt.Sprintf("θ_G step: %d taps, %s passivity%s", st.Branches*st.Taps+st.LinearTaps, s.cfg.Passivity, solves)})
	var best gStep
	bestErr, bestName := math.Inf(1), ""
	var scores []string
	for _, c := range cands {
		step, err := s.solveG(ctx, c.src)
		if err != nil {
			return err
		}
		if len(cands) == 1 {
			best, bestName = step, c.name
			break
		}
		s.setTaps(step.x)
		e, err := s.closedLoopError()
		if err != nil {
			return err
		}
		scores = append(scores, fmt.Sprintf("%s %.4g", c.name, e))
		if e < bestErr || bestName == "" {
			best, bestErr, bestName = step, e, c.name
		}
	}
	s.setTaps(best.x)
	s.warm = best.warm
	note := best.note
	if n := tapsAtBound(s.m, s.cfg); n > 0 {
		// The bound is in the units the taps are fitted in (output per
		// input): for a plant of another gain or memory than the
		// paper's, it can limit the fit.
		note = strings.TrimSpace(fmt.Sprintf("%s %d taps at the decay bound %g·%.4g^k (a larger rho or decay loosens it)", note, n, s.cfg.Rho, s.cfg.Decay))
	}
	if len(scores) > 1 {
		note = strings.TrimSpace(fmt.Sprintf("%s gains kept (closed-loop error: %s) %s", bestName, strings.Join(scores, ", "), note))
	}
	s.emit(Event{Stage: "theta_g", Iter: k, Loss: best.sse / float64(s.train.rows), TrainFit: aggFit(best.sse, s.train.sumYY), ValFit: math.NaN(), Note: note})
	return nil
}

// tapsAtBound counts the taps of m's FIRs that lie on their decay bound
// |g(k)| ≤ Rho·Decay^k of cfg (to 1e-6 of it); 0 without decay bounds.
func tapsAtBound(m *model.NFIR, cfg Config) int {
	if !(cfg.Rho > 0) || cfg.Passivity == PassivityNone || m == nil {
		return 0
	}
	n := 0
	count := func(g []float64) {
		b := cfg.Rho
		for _, v := range g {
			if b > 0 && math.Abs(v) >= (1-1e-6)*b {
				n++
			}
			b *= cfg.Decay
		}
	}
	for j := range m.Branches {
		count(m.Branch(j))
	}
	count(m.Lin)
	return n
}

// gStep is one solved θ_G candidate.
type gStep struct {
	x    []float64
	sse  float64 // training SSE for the gains it was fitted to
	warm *convex.Solution
	note string
}

func (s *session) setTaps(x []float64) {
	st := s.cfg.Structure
	copy(s.m.G, x[:st.Branches*st.Taps])
	copy(s.m.Lin, x[st.Branches*st.Taps:])
}

// solveG fits θ_G to the gains of the trajectories of src: Gram assembly
// (streamed over chunks of them), then the convex (or KYP) solver,
// warm-started from the previous iteration.
func (s *session) solveG(ctx context.Context, src *source) (gStep, error) {
	st := s.cfg.Structure
	nt := st.Branches*st.Taps + st.LinearTaps
	P := make([]float64, nt*nt)
	b := make([]float64, nt)
	yy, err := s.streamGram(ctx, src, s.cfg.Skip, P, b)
	if err != nil {
		return gStep{}, err
	}
	prob := &convex.Problem{P: mat.NewSymDense(nt, P), B: b, GammaG: s.cfg.GammaG}
	var step gStep
	switch s.cfg.Passivity {
	case PassivityKYP:
		prob.Blocks = s.blocks(convex.Exact)
		sol, err := kyp.Solve(prob, nil)
		if err != nil {
			return step, fmt.Errorf("trainer: θ_G step (kyp): %w", err)
		}
		step.x = sol.X
	default:
		kind := convex.Exact
		switch s.cfg.Passivity {
		case PassivitySampled:
			kind = convex.Sampled
		case PassivityNone:
			kind = convex.None
		}
		prob.Blocks = s.blocks(kind)
		t0 := time.Now()
		sol, err := convex.Solve(prob, &convex.Options{Warm: s.warm, AcceptTol: qpAcceptTol, ShiftTol: qpAcceptTol, Context: ctx})
		if err != nil {
			return step, fmt.Errorf("trainer: θ_G step: %w", err)
		}
		if kind == convex.Sampled {
			// Theorem 3's ε and H are guesses; a branch that dips below zero
			// between the samples is re-solved in exact mode.
			failed := 0
			for i, c := range sol.Certificates {
				if !c.Passive {
					prob.Blocks[i].Kind = convex.Exact
					failed++
				}
			}
			if failed > 0 {
				step.note = fmt.Sprintf("%d FIR(s) failed the certificate with eps=%g, H=%d: re-solved in exact mode", failed, s.cfg.Eps, s.cfg.H)
				if sol, err = convex.Solve(prob, &convex.Options{Warm: sol, AcceptTol: qpAcceptTol, ShiftTol: qpAcceptTol, Context: ctx}); err != nil {
					return step, fmt.Errorf("trainer: θ_G step (exact fallback): %w", err)
				}
			}
		}
		k := sol.KKT
		step.note = strings.TrimSpace(fmt.Sprintf("%s [QP: %d iterations, %d rounds, %.2g s, KKT %.1e]", step.note,
			sol.Iterations, sol.Rounds, time.Since(t0).Seconds(), math.Max(k.Primal, math.Max(k.Dual, k.Complementarity))))
		step.warm = sol
		step.x = sol.X
	}
	s.ridge = ridgeRatio(s.cfg.GammaG, P, nt)
	if s.ridge >= RidgeNote {
		step.note = strings.TrimSpace(fmt.Sprintf("%s gamma-g %g is %.3g× the mean diagonal of the Gram matrix: the ridge, not the data, sets the taps (lower --gamma-g)", step.note, s.cfg.GammaG, s.ridge))
	}
	// SSE at the solution: yy − 2bᵀθ + θᵀPθ.
	x := step.x
	sse := yy
	for i := 0; i < nt; i++ {
		acc := 0.0
		row := P[i*nt : (i+1)*nt]
		for j, v := range row {
			acc += v * x[j]
		}
		sse += x[i]*acc - 2*b[i]*x[i]
	}
	step.sse = math.Max(sse, 0)
	return step, nil
}

// closedLoopError is the per-sample closed-loop simulation error of the
// current parameters on the validation data (the training data without).
func (s *session) closedLoopError() (float64, error) {
	t := &s.train
	if s.val.d != nil {
		t = &s.val
	}
	return s.closedMSE(t, make([]float64, t.rowsAll()))
}

// rowsAll is the number of samples of t, scored or not.
func (t *traj) rowsAll() int {
	n := 0
	for _, u := range t.src.us {
		n += len(u)
	}
	return n
}

// closedLoopBatch returns the training trajectories with q(t) = ŷ(t−1) from
// the current model's closed-loop simulation in place of the measured output.
func (s *session) closedLoopBatch() (*source, error) {
	if s.closed == nil {
		var err error
		if s.closed, err = graph.NewClosedLoop(s.m, s.be); err != nil {
			return nil, fmt.Errorf("trainer: %w", err)
		}
	}
	yh := make([]float64, s.train.rowsAll())
	if err := s.closedSim(&s.train, yh); err != nil {
		return nil, fmt.Errorf("trainer: closed-loop gains: %w", err)
	}
	cl := &source{us: s.train.src.us, ys: s.train.src.ys}
	lo := 0
	for b, u := range s.train.src.us {
		hi := lo + len(u)
		for _, v := range yh[lo:hi] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("trainer: graph: batch: trajectory %d: non-finite q", b)
			}
		}
		cl.qs = append(cl.qs, data.Q(yh[lo:hi]))
		lo = hi
	}
	return cl, nil
}

func aggFit(sse, yy float64) float64 {
	if yy == 0 {
		return math.NaN()
	}
	return 100 * (1 - math.Sqrt(sse/yy))
}

// descent is one gradient stage on θ_N: Adam over shuffled mini-batches of
// trajectories with early stopping on a validation error; the best θ_N seen
// is kept.
type descent struct {
	stage         string
	epochs, batch int
	patience      int
	clip, decay   float64
	lr            func(step, total int) float64
	// lossGrad is the mean loss over the scored rows of the training
	// trajectories idx, its gradient (into grad) and the number of rows.
	lossGrad func(idx []int, grad []float64) (float64, int, error)
	validate func() (float64, error) // per-sample validation error; nil: watch trainMSE
	// trainMSE is the per-sample training error of the current θ, watched
	// when there is no validation data. It is measured after the epoch, not
	// accumulated during it: the running loss of an epoch belongs to the
	// parameters before each step, so keeping the θ after the epoch with the
	// best running loss would keep a θ whose loss was never measured.
	trainMSE       func() (float64, error)
	countsAtStart  bool // the starting point competes: the stage may not make things worse
	divergenceHint string
}

func (s *session) descend(ctx context.Context, k int, d descent) error {
	opt := optim.NewAdam(len(s.theta))
	grad := make([]float64, len(s.theta))
	bestTheta := append([]float64(nil), s.theta...)
	bestLoss, since := math.Inf(1), 0
	watch := d.validate
	if watch == nil {
		watch = d.trainMSE
	}
	if d.countsAtStart && watch != nil {
		v, err := watch()
		if err != nil {
			return err
		}
		bestLoss = v
	}
	nb := len(s.train.d.Batches)
	idx := make([]int, nb)
	for i := range idx {
		idx[i] = i
	}
	total := d.epochs * ((nb + d.batch - 1) / d.batch)
	step := 0
	defer func() { copy(s.theta, bestTheta) }()
	for ep := 0; ep < d.epochs; ep++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		s.rng.Shuffle(nb, func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
		sse, rows := 0.0, 0
		for lo := 0; lo < nb; lo += d.batch {
			if err := ctx.Err(); err != nil { // a minibatch of a long record can take seconds
				return err
			}
			loss, r, err := d.lossGrad(idx[lo:min(lo+d.batch, nb)], grad)
			if err != nil {
				return fmt.Errorf("trainer: %s: %w", d.stage, err)
			}
			sse += loss * float64(r)
			rows += r
			optim.ClipNorm(grad, d.clip)
			opt.Step(s.theta, grad, d.lr(step, total), d.decay)
			step++
		}
		if err := ctx.Err(); err != nil { // before a validation pass that no one will use
			return err
		}
		trainLoss := sse / float64(rows)
		if math.IsNaN(trainLoss) || math.IsInf(trainLoss, 0) {
			return fmt.Errorf("trainer: %s: the loss diverged at epoch %d; %s", d.stage, ep+1, d.divergenceHint)
		}
		monitor, valFit := trainLoss, math.NaN()
		if watch != nil {
			v, err := watch()
			if err != nil {
				return err
			}
			monitor = v
			if d.validate != nil {
				valFit = aggFit(v*float64(s.val.rows), s.val.sumYY)
			}
		}
		s.emit(Event{Stage: d.stage, Iter: k, Epoch: ep, Epochs: d.epochs, Loss: trainLoss,
			TrainFit: aggFit(sse, s.train.sumYY), ValFit: valFit})
		if monitor < bestLoss {
			bestLoss, since = monitor, 0
			copy(bestTheta, s.theta)
		} else if since++; d.patience > 0 && since >= d.patience {
			break
		}
	}
	return nil
}

// adamStep is the θ_N update of Algorithm 1: Adam on the open-loop loss with
// early stopping on the validation error (Config.Monitor).
func (s *session) adamStep(ctx context.Context, k int) error {
	cfg := s.cfg
	d := descent{stage: "adam", epochs: cfg.Epochs, batch: cfg.Batch, patience: cfg.Patience,
		clip: cfg.Clip, decay: cfg.WeightDecay,
		lr:             func(int, int) float64 { return cfg.LR },
		divergenceHint: "lower --lr or --clip"}
	lf := func(b *graph.Batch, grad []float64) (float64, error) {
		return s.open.LossGrad(b, s.theta, s.m.G, s.m.Lin, grad)
	}
	var buf graph.Batch
	d.lossGrad = func(idx []int, grad []float64) (float64, int, error) {
		return s.streamLossGrad(&s.train.src, idx, cfg.Skip, lf, grad, &buf)
	}
	if s.val.d != nil {
		var scratch, yv []float64
		closed := s.closed != nil && cfg.Structure.Feedback && cfg.Monitor == MonitorClosed
		d.validate = func() (float64, error) {
			if closed {
				yv = grow(yv, s.val.rowsAll())
				return s.closedMSE(&s.val, yv)
			}
			if e, ok, err := s.streamOutputMSE(&s.val); ok || err != nil {
				if err != nil {
					return 0, fmt.Errorf("trainer: validation: %w", err)
				}
				return e, nil
			}
			// One chunk: the dense path.
			full, err := s.val.fullBatch()
			if err != nil {
				return 0, err
			}
			if s.val.skip > 0 {
				yv = grow(yv, full.Rows())
				if err := s.open.Output(full, s.theta, s.m.G, s.m.Lin, yv); err != nil {
					return 0, fmt.Errorf("trainer: validation: %w", err)
				}
				return s.val.mse(yv), nil
			}
			scratch = grow(scratch, len(s.theta))
			vl, err := s.open.LossGrad(full, s.theta, s.m.G, s.m.Lin, scratch)
			if err != nil {
				return 0, fmt.Errorf("trainer: validation: %w", err)
			}
			return vl, nil
		}
	} else {
		var y []float64
		d.trainMSE = func() (float64, error) {
			if e, ok, err := s.streamOutputMSE(&s.train); ok || err != nil {
				if err != nil {
					return 0, fmt.Errorf("trainer: training error: %w", err)
				}
				return e, nil
			}
			full, err := s.train.fullBatch()
			if err != nil {
				return 0, err
			}
			y = grow(y, full.Rows())
			if err := s.open.Output(full, s.theta, s.m.G, s.m.Lin, y); err != nil {
				return 0, fmt.Errorf("trainer: training error: %w", err)
			}
			return s.train.mse(y), nil
		}
	}
	return s.descend(ctx, k, d)
}

// closedMSE is the per-sample closed-loop simulation error of the current
// parameters on t's scored samples (y is scratch of t's length).
func (s *session) closedMSE(t *traj, y []float64) (float64, error) {
	if err := s.closedSim(t, y); err != nil {
		return 0, fmt.Errorf("trainer: closed-loop simulation: %w", err)
	}
	e := t.mse(y)
	if math.IsNaN(e) {
		e = math.Inf(1)
	}
	return e, nil
}

// mse is the mean squared error of the prediction y (all of t's rows) on
// t's scored samples.
func (t *traj) mse(y []float64) float64 {
	s, o := 0.0, 0
	for _, yt := range t.src.ys {
		for r := t.skip; r < len(yt); r++ {
			d := y[o+r] - yt[r]
			s += d * d
		}
		o += len(yt)
	}
	if t.skip == 0 {
		return s / float64(len(y))
	}
	return s / float64(t.rows)
}

// bptt replaces the last θ_N update: Adam on the closed-loop simulation error
// through time, one-cycle learning rate, early stopping on the closed-loop
// validation error; the starting point competes, so BPTT never makes the
// model worse on validation.
func (s *session) bptt(ctx context.Context, k int) error {
	cfg := s.cfg
	d := descent{stage: "bptt", epochs: cfg.BPTTEpochs, batch: cfg.BPTTBatch, patience: cfg.BPTTPatience,
		clip: cfg.BPTTClip, decay: cfg.WeightDecay, countsAtStart: true,
		lr:             func(step, total int) float64 { return oneCycle(step, total, cfg.BPTTLR) },
		divergenceHint: "lower --bptt-lr"}
	// The closed loop does not stream within a trajectory (see closedSim): a
	// mini-batch is its whole trajectories.
	lf := skipLoss(cfg.Skip, func(b *graph.Batch, grad []float64) (float64, error) {
		return s.closed.LossGrad(b, s.theta, s.m.G, s.m.Lin, grad)
	})
	d.lossGrad = func(idx []int, grad []float64) (float64, int, error) {
		b := s.wholeBatch(&s.train, idx)
		loss, err := lf(b, grad)
		return loss, scoredRows(b.Seqs, cfg.Skip), err
	}
	if s.val.d != nil {
		yv := make([]float64, s.val.rowsAll())
		d.validate = func() (float64, error) { return s.closedMSE(&s.val, yv) }
	} else {
		y := make([]float64, s.train.rowsAll())
		d.trainMSE = func() (float64, error) { return s.closedMSE(&s.train, y) }
	}
	return s.descend(ctx, k, d)
}

// evaluate scores the current model on validation data in closed loop and
// keeps it when it is the best so far. After Ctrl-C (ctx done) an iterate
// interrupted mid-step is not scored when a scored model exists: the
// closed-loop simulation of a long validation set would delay the stop by
// seconds, and the best model so far is what an interrupted run keeps.
func (s *session) evaluate(ctx context.Context, k int) error {
	s.lastEval = k
	if ctx.Err() != nil && s.best != nil {
		s.emit(Event{Stage: "eval", Iter: k, ValFit: math.NaN(), TrainFit: math.NaN(), Note: "interrupted: not scored; the best model so far is kept"})
		return nil
	}
	if err := s.m.Lift.SetFlat(s.theta); err != nil {
		return err
	}
	if s.val.d == nil {
		s.emit(Event{Stage: "eval", Iter: k, ValFit: math.NaN()})
		return nil
	}
	ev, err := Evaluate(s.m, s.val.d, s.val.skip)
	if err != nil {
		return err
	}
	v := ev.ClosedLoop.Median
	note := ""
	if v > s.bestV || s.best == nil {
		s.best, s.bestV = s.m.Clone(), v
		note = "best so far"
	}
	s.emit(Event{Stage: "eval", Iter: k, ValFit: v, TrainFit: math.NaN(), Note: note})
	return nil
}

// ErrNoData reports an evaluation on an empty data set.
var ErrNoData = errors.New("trainer: no trajectories to evaluate")

// scoreStart scores the warm-start model on the validation data before the
// first iteration and makes it the best so far, so that training keeps it
// unless an iterate does better; a start that is not passive under a
// passivity mode does not compete (it could not be returned).
func (s *session) scoreStart() error {
	note := "the warm-start model"
	if s.cfg.Passivity != PassivityNone {
		cert, err := s.m.Certify()
		if err != nil {
			return fmt.Errorf("trainer: the warm-start model: %w", err)
		}
		if !cert.Passive {
			s.emit(Event{Stage: "eval", Iter: -1, ValFit: math.NaN(), TrainFit: math.NaN(),
				Note: note + " is not passive: it does not compete, and the first θ_G step makes its taps passive"})
			return nil
		}
	}
	ev, err := Evaluate(s.m, s.val.d, s.val.skip)
	if err != nil {
		return fmt.Errorf("trainer: the warm-start model on the validation data: %w", err)
	}
	s.best, s.bestV = s.m.Clone(), ev.ClosedLoop.Median
	s.emit(Event{Stage: "eval", Iter: -1, ValFit: s.bestV, TrainFit: math.NaN(), Note: note})
	return nil
}
