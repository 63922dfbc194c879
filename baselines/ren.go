package baselines

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/internal/optim"
)

// RENConfig configures TrainREN. Zero fields take the defaults of DefaultRENConfig.
type RENConfig struct {
	States  int     // n_x, the dimension of the REN's state
	Neurons int     // n_v, the width of its equilibrium (implicit) layer
	Nu      float64 // ν ≥ 0: the model is incrementally input-passive, ⟨Δu, Δy⟩ ≥ ν‖Δu‖² (0: passive)
	Eps     float64 // ε > 0 added to H and to D22: strictness of the LMI (kept away from singular)
	// Biased adds biases to the state update and the equilibrium layer;
	// the output is then the REN's response minus its response to u = 0
	// from the same initial state (see PassiveREN).
	Biased bool
	// Gated multiplies every neuron of the equilibrium layer by a gate
	// σ(W_g x + u_g u + b_g) in (0, 1) (see PassiveREN). It cannot be
	// combined with Biased.
	Gated  bool
	Epochs int // maximum number of passes over the training trajectories
	Batch  int // trajectories per Adam step
	LR     float64
	Clip   float64 // global gradient-norm clip (0: none)
	Seed   uint64  // initial parameters and batch order
	// Patience is the number of epochs without a lower validation loss after which
	// training stops (the best parameters are kept). It is unused without validation data.
	Patience int
	Workers  int // goroutines for the per-trajectory gradients (0: GOMAXPROCS)
	// Window, when positive, cuts a training record longer than 2·Window
	// samples into windows of Window samples, each simulated from rest
	// BurnIn samples before it starts (the burn-in left out of the loss),
	// as TrainGRU does: a long record then gives many steps an epoch. 0
	// keeps every record whole.
	Window, BurnIn int
	// MaxSamples, when positive, bounds the samples simulated by the
	// training steps (burn-in included) over the whole run: training stops
	// after the epoch that reaches it. It keeps the cost of a schedule
	// counted in epochs bounded on large data.
	MaxSamples int
	// MinEpochs, when validation data are given, is the fewest epochs
	// MaxSamples lets run: the budget bounds the cost, and on large data
	// it would otherwise stop a REN that validation shows still improving
	// (Bouc–Wen at 5 ms, 40 000 samples: 2·10⁷ samples are 500 epochs,
	// the gated REN's best epoch 496, 95.21 % validation; 1500 epochs:
	// 96.59 %; docs/BENCHMARKS.md, session 42). Epochs, the patience and
	// a caller's deadline still end it. Like Patience, and unlike Epochs
	// and MaxSamples, it does not stretch with Memory: it is about when
	// validation can judge, not how far the steps go. Without validation
	// data it is unused: nothing would tell the budget's end from the
	// optimum.
	MinEpochs int
	// Skip and ValSkip are the samples at the start of every training and
	// validation trajectory that are simulated but left out of the loss: a
	// start-up transient, or a lead-in that warms up the state before a
	// held-out segment. 0 scores every sample.
	Skip, ValSkip int
	// Progress, when set, is called after every epoch with the mean training MSE
	// of the epoch's steps (unit-RMS outputs) and the aggregate validation Fit in
	// percent (NaN without validation data).
	Progress func(epoch int, trainMSE, valFit float64)
	// Gate, when not nil, is shared by trainings that run side by side:
	// each Adam step and each validation pass runs through it (Gate.Do).
	Gate Gate
	// Memory, when above RefMemory, is the plant's memory in samples (the
	// length of its passive FIR chosen on validation, or, past the FIR
	// grid's last length, trainer.MemoryBeyondCap's) for a plant sampled
	// finer than the REN's defaults were measured on. The REN then starts
	// from slow linear modes instead of a random state map (slowStart:
	// time constants from 2 samples to Memory/2, the neurons idle), and
	// its learning rate is scaled by RefMemory/Memory (with Start too: the
	// plant's time scale, not the start, sets the step) while Epochs and
	// MaxSamples are stretched by Memory/RefMemory: the smaller steps need
	// that many more to go as far (on the two-mass plant logged at 1 ms,
	// memory 2500 samples, 62.04 % validation Fit after 2·10⁷ simulated
	// samples and 85.14 % after 5·10⁷; session 40). A random start has
	// poles spread over the unit disk, forgetting in a few samples; at a
	// fine sampling time the plant's poles lie within 1/Memory of 1, and
	// a REN started far from them stayed near its initial output: on a
	// two-mass plant logged at 3 ms (memory 512 samples) 20 % validation
	// Fit from either learning rate, against 81 % from the slow start at
	// the scaled rate (docs/BENCHMARKS.md, session 39). At or below
	// RefMemory nothing changes.
	Memory int
	// Start, when not nil, is the starting point instead of a random
	// initialization: its parameters and its input and output scales
	// (kept, not recomputed from the data) and its structure, which must
	// be the configuration's (States, Neurons, Nu, Biased, Gated). Start
	// is not modified.
	Start *PassiveREN
}

// DefaultRENConfig returns a passive REN of about the paper's size (702
// parameters there; n_x = 5, n_v = 15 gives 691 here) trained on the simulation error.
func DefaultRENConfig() RENConfig {
	return RENConfig{States: 5, Neurons: 15, Nu: 0, Eps: 1e-6, Epochs: 300, Batch: 16, LR: 3e-3, Clip: 10, Seed: 1, Patience: 30}
}

// RefMemory is the longest memory, in samples, of the plants the REN's
// defaults were measured on (the plant zoo's passive FIRs reach 256 taps);
// RENConfig.Memory beyond it starts the REN from slow modes.
const RefMemory = 256

// Stretched returns c as TrainREN runs it for its Memory: beyond
// RefMemory the learning rate divided by MemoryStretch(Memory), and Epochs
// and MaxSamples multiplied by it (rounded up). A step RefMemory/Memory as
// long goes as far in Memory/RefMemory as many steps, so the schedule's
// bounds stretch with it.
func (c RENConfig) Stretched() RENConfig {
	s := MemoryStretch(c.Memory)
	if s == 1 {
		return c
	}
	c.LR /= s
	c.Epochs = int(math.Ceil(float64(c.Epochs) * s))
	if c.MaxSamples > 0 {
		c.MaxSamples = int(math.Min(math.Ceil(float64(c.MaxSamples)*s), math.MaxInt/2))
	}
	return c
}

// Budget is the most samples the training steps of TrainREN simulate on
// train with validation data, c stretched for its Memory: MaxSamples, or
// MinEpochs epochs of train where those are more (the first epoch that
// reaches the budget ends training, so it may run over by one epoch).
// 0 means no bound but Epochs.
func (c RENConfig) Budget(train *data.Dataset) int {
	c = c.Stretched()
	if c.MaxSamples <= 0 || train == nil {
		return max(c.MaxSamples, 0)
	}
	// the items TrainREN steps through, as it cuts them (only the lengths count)
	s := &renSet{}
	for _, b := range train.Batches {
		s.u = append(s.u, b.U)
	}
	items := wholeItems(s, 0)
	if c.Window > 0 {
		items = gruItems(s, c.Window, c.BurnIn)
	}
	epoch := 0
	for _, it := range items {
		epoch += it.to - it.from
	}
	return int(min(max(float64(c.MaxSamples), float64(c.MinEpochs)*float64(epoch)), math.MaxInt/2))
}

// MemoryStretch is how many times smaller a REN's learning rate and how
// many times longer its schedule (Epochs, MaxSamples) are for a plant of
// the given memory in samples (RENConfig.Memory): Memory/RefMemory beyond
// RefMemory, else 1.
func MemoryStretch(memory int) float64 {
	return max(1, float64(memory)/RefMemory)
}

// SimulationRENConfig returns the REN that train's structure search and
// class ren train: DefaultRENConfig's size, one trajectory an Adam step
// (Batch 1), up to 5000 epochs with a patience of 1000, bounded by 2·10⁷
// simulated samples (about 20 s on one core at this size) but, with
// validation data, never before 2000 epochs, twice the patience
// (MinEpochs): on data sets of more than 10 000 samples the budget alone
// would stop it first. The paper's
// batches of 16 trajectories take one step an epoch on a few thousand
// samples, and 300 such steps leave the REN near its initial output: on a
// geared drive with play (session 29, docs/BENCHMARKS.md) its validation Fit
// was 8.7 % after 300 epochs of 16 and 80.7 % after 3374 epochs of one
// trajectory a step. Like the GRU, it needs many small steps.
func SimulationRENConfig() RENConfig {
	c := DefaultRENConfig()
	c.Batch, c.Epochs, c.Patience, c.MaxSamples = 1, 5000, 1000, 20_000_000
	c.MinEpochs = 2 * c.Patience
	c.Window, c.BurnIn = 2000, 200
	return c
}

// GatedClip is the gradient-norm clip of a gated REN (RENConfig.WithGates).
// A gated REN is not contracting, and its gradient through time can grow
// where a plain REN's fades: with the plain REN's clip of 10, one start in
// three or four stalled early on session 31's screening sets (a two-mass
// plant at 16 % validation Fit; with clip 1 the same start reached 94 %).
// Over ten runs on eight sets clip 1 gained on five, held on one and lost
// 0.2 and up to 3.3 points on two (docs/BENCHMARKS.md, session 31).
const GatedClip = 1.0

// WithGates returns c for a gated REN: Gated set, and the gradient clip
// lowered to GatedClip (a clip of 0, none, too).
func (c RENConfig) WithGates() RENConfig {
	c.Gated = true
	if c.Clip == 0 || c.Clip > GatedClip {
		c.Clip = GatedClip
	}
	return c
}

func (c RENConfig) withDefaults() (RENConfig, error) {
	def := DefaultRENConfig()
	orDefault(&c.States, def.States)
	orDefault(&c.Neurons, def.Neurons)
	orDefault(&c.Eps, def.Eps)
	orDefault(&c.Epochs, def.Epochs)
	orDefault(&c.Batch, def.Batch)
	orDefault(&c.LR, def.LR)
	orDefault(&c.Patience, def.Patience)
	switch {
	case c.States < 1, c.Neurons < 1:
		return c, fmt.Errorf("baselines: REN: sizes states %d, neurons %d must be ≥ 1: %w", c.States, c.Neurons, ErrConfig)
	case c.Epochs < 1, c.Batch < 1, c.Patience < 1, c.Workers < 0:
		return c, fmt.Errorf("baselines: REN: epochs %d, batch %d, patience %d must be ≥ 1, workers %d ≥ 0: %w", c.Epochs, c.Batch, c.Patience, c.Workers, ErrConfig)
	case !(c.LR > 0) || math.IsInf(c.LR, 0):
		return c, fmt.Errorf("baselines: REN: learning rate %v must be finite > 0: %w", c.LR, ErrConfig)
	case c.Window < 0, c.BurnIn < 0, c.MaxSamples < 0, c.MinEpochs < 0:
		return c, fmt.Errorf("baselines: REN: window %d, burn-in %d, max samples %d and min epochs %d must be ≥ 0: %w", c.Window, c.BurnIn, c.MaxSamples, c.MinEpochs, ErrConfig)
	case c.Skip < 0, c.ValSkip < 0:
		return c, fmt.Errorf("baselines: REN: skip %d and val-skip %d must be ≥ 0: %w", c.Skip, c.ValSkip, ErrConfig)
	case c.Memory < 0:
		return c, fmt.Errorf("baselines: REN: memory %d must be ≥ 0: %w", c.Memory, ErrConfig)
	case !(c.Nu >= 0) || math.IsInf(c.Nu, 0), !(c.Eps > 0) || math.IsInf(c.Eps, 0), !(c.Clip >= 0):
		return c, fmt.Errorf("baselines: REN: ν %v must be ≥ 0, ε %v > 0, clip %v ≥ 0: %w", c.Nu, c.Eps, c.Clip, ErrConfig)
	case c.Biased && c.Gated:
		return c, fmt.Errorf("baselines: REN: a REN is biased or gated, not both (the biased output needs incremental passivity, which gates do not keep): %w", ErrConfig)
	}
	return c, nil
}

// PassiveREN is a single-input single-output recurrent equilibrium network
// (Revay, Wang & Manchester, IEEE TAC 2024) in the direct parameterization of
// its passive class (Q = 0, S = I, R = −2ν): every value of Theta gives an
// incrementally passive operator, ⟨Δu, Δy⟩ ≥ ν‖Δu‖² over any horizon from a
// common initial state. Without biases u = 0 from rest gives y = 0, and the
// operator is passive in the NFIR sense as well, ⟨u, y⟩ ≥ ν‖u‖².
//
// Biased adds free biases b_x and b_v to the explicit state update and
// equilibrium layer (below). A REN without biases is odd, y(−u) = −y(u), and
// cannot model a rectifying one-port; with them it can, and the incremental
// property still holds, because biases cancel in the difference of two
// trajectories. The output is then the REN's response minus its response to
// u = 0 from the same initial state, y = R(u) − R(0), both from x = 0: the
// incremental inequality for that pair of inputs is ⟨u, y⟩ ≥ ν‖u‖², so the
// biased operator is passive from rest too, and still maps u = 0 to y = 0.
// R(0) is a fixed signal, simulated beside the model (it settles at the
// zero-input equilibrium, the REN being contracting).
//
// Gated multiplies neuron i by a gate s_i = σ(W_g x + u_g u + b_g)_i in
// (0, 1), w_i = s_i tanh(v_i), the logistic σ scheduled by the state and the
// input, as a GRU's gates are. The passivity proof of the direct
// parameterization uses only the sector condition w_i (v_i − w_i) ≥ 0, which
// s_i tanh(v_i) meets whatever s_i in [0, 1] is, so a gated REN is passive,
// ⟨u, y⟩ ≥ ν‖u‖² from rest with storage xᵀPx. It is not incrementally passive
// nor contracting: the gates' slope is not bounded, and that is the point.
// A contracting model forgets any difference between two trajectories at
// one rate, and cannot follow a lightly damped oscillation whose frequency
// moves with its amplitude (a drive with play): two such oscillations drift
// apart in phase. Without biases in v or x⁺ (b_g sits inside the gate) u = 0
// from rest still gives y = 0.
//
// With n = 2n_x + n_v the direct parameters are X (n×n), Y1 (n_x×n_x), X3, B2
// (n_x), D12 (n_v), C2 (n_x) and D21 (n_v). With M = X3² + ε, D22 = ν + M and
// g = [C2ᵀ; D21ᵀ − D12; B2], the matrix
//
//	H = XᵀX + εI + g gᵀ/(2M) ≻ 0
//
// is partitioned in (n_x, n_v, n_x) blocks and read as the implicit model
// E x⁺ = F x + B1 w + B2 u, Λ v = C1 x + D11 w + D12 u with P = H33, F = H31,
// B1 = H32, C1 = −H21, Λ = diag(H22)/2, D11 = −tril(H22, −1) and
// E = (H11 + P + Y1 − Y1ᵀ)/2. D11 is strictly lower triangular, so the
// equilibrium w = tanh(v) is computed neuron by neuron. The explicit model is
//
//	v = Λ⁻¹(C1 x + D11 w + D12 u) + b_v,  w = tanh(v),
//	x⁺ = E⁻¹(F x + B1 w + B2 u) + b_x,    y = C2 x + D21 w + D22 u,
//
// on scaled signals: the network sees u/UScale and its output is multiplied by
// YScale (positive scales keep passivity, and ν is in scaled units).
type PassiveREN struct {
	States, Neurons int
	Nu, Eps         float64
	Biased, Gated   bool
	// Theta holds the direct parameters flattened: X (row-major), Y1 (row-major),
	// X3, B2, D12, C2, D21, when Biased b_x (n_x) and b_v (n_v), and when
	// Gated W_g (n_v×n_x, row-major), u_g (n_v) and b_g (n_v).
	Theta []float64
	// UScale and YScale are the RMS of the training input and output; fixed, not
	// trained, and not counted in NumParams.
	UScale, YScale float64

	// Training record: validation MSE (on unit-RMS outputs) after every epoch, the
	// epoch (1-based) whose parameters were kept, and the training MSE at that epoch.
	ValLoss   []float64
	BestEpoch int
	TrainLoss float64
}

// NumParams returns the number of trained parameters, n² + n_x² + 1 + 2n_x + 2n_v
// with n = 2n_x + n_v (691 for n_x = 5, n_v = 15), and n_x + n_v more when
// Biased, n_v(n_x + 2) more when Gated.
func (m *PassiveREN) NumParams() int {
	return m.offsets().last
}

func renParams(nx, nv int) int {
	n := 2*nx + nv
	return n*n + nx*nx + 1 + 2*nx + 2*nv
}

// renOffsets locates the direct parameters in Theta.
type renOffsets struct{ x, y1, x3, b2, d12, c2, d21, end, bx, bv, wg, ug, bg, last int }

func (m *PassiveREN) offsets() renOffsets {
	nx, nv := m.States, m.Neurons
	n := 2*nx + nv
	var o renOffsets
	o.x = 0
	o.y1 = n * n
	o.x3 = o.y1 + nx*nx
	o.b2 = o.x3 + 1
	o.d12 = o.b2 + nx
	o.c2 = o.d12 + nv
	o.d21 = o.c2 + nx
	o.end = o.d21 + nv
	o.bx = o.end
	o.bv = o.bx + nx
	o.wg = o.end
	if m.Biased {
		o.wg = o.bv + nv
	}
	o.ug = o.wg + nv*nx
	o.bg = o.ug + nv
	o.last = o.wg
	if m.Gated {
		o.last = o.bg + nv
	}
	return o
}

// renExplicit is the explicit model, with what the backward pass needs of the
// construction.
type renExplicit struct {
	nx, nv int
	A      *mat.Dense // nx×nx
	B1     *mat.Dense // nx×nv
	B2     []float64  // nx
	C1     *mat.Dense // nv×nx
	D11    *mat.Dense // nv×nv, strictly lower
	D12    []float64  // nv
	C2     []float64  // nx
	D21    []float64  // nv
	D22    float64
	bx, bv []float64 // biases of x⁺ and v (nil: unbiased)
	Wg     []float64 // n_v×n_x row-major; with ug, bg the gates (nil: ungated)
	ug, bg []float64

	// construction intermediates
	H      *mat.Dense // n×n
	g      []float64  // n
	M      float64
	lamInv []float64 // 2/diag(H22)
	E      mat.LU
}

// explicit builds the explicit model from Theta.
func (m *PassiveREN) explicit() (*renExplicit, error) {
	nx, nv := m.States, m.Neurons
	n := 2*nx + nv
	o := m.offsets()
	th := m.Theta
	X := mat.NewDense(n, n, slices.Clone(th[o.x:o.y1]))
	x3 := th[o.x3]
	e := &renExplicit{nx: nx, nv: nv}
	e.M = x3*x3 + m.Eps
	e.D22 = m.Nu + e.M
	e.g = make([]float64, n)
	copy(e.g[:nx], th[o.c2:o.c2+nx])
	for i := range nv {
		e.g[nx+i] = th[o.d21+i] - th[o.d12+i]
	}
	copy(e.g[nx+nv:], th[o.b2:o.b2+nx])
	e.H = mat.NewDense(n, n, nil)
	e.H.Mul(X.T(), X)
	for i := range n {
		for j := range n {
			e.H.Set(i, j, e.H.At(i, j)+e.g[i]*e.g[j]/(2*e.M))
		}
		e.H.Set(i, i, e.H.At(i, i)+m.Eps)
	}
	H := e.H
	Y1 := mat.NewDense(nx, nx, slices.Clone(th[o.y1:o.x3]))
	E := mat.NewDense(nx, nx, nil)
	for i := range nx {
		for j := range nx {
			E.Set(i, j, (H.At(i, j)+H.At(nx+nv+i, nx+nv+j)+Y1.At(i, j)-Y1.At(j, i))/2)
		}
	}
	e.E.Factorize(E)
	if c := e.E.Cond(); c > 1e14 || math.IsNaN(c) {
		return nil, fmt.Errorf("baselines: REN: E is singular (condition %.3g): %w", c, ErrNumerical)
	}
	F := H.Slice(nx+nv, n, 0, nx)
	B1 := H.Slice(nx+nv, n, nx, nx+nv)
	e.A, e.B1 = mat.NewDense(nx, nx, nil), mat.NewDense(nx, nv, nil)
	if err := e.E.SolveTo(e.A, false, F); err != nil {
		return nil, fmt.Errorf("baselines: REN: %w: %w", err, ErrNumerical)
	}
	if err := e.E.SolveTo(e.B1, false, B1); err != nil {
		return nil, fmt.Errorf("baselines: REN: %w: %w", err, ErrNumerical)
	}
	b2 := mat.NewVecDense(nx, nil)
	if err := e.E.SolveVecTo(b2, false, mat.NewVecDense(nx, slices.Clone(th[o.b2:o.b2+nx]))); err != nil {
		return nil, fmt.Errorf("baselines: REN: %w: %w", err, ErrNumerical)
	}
	e.B2 = b2.RawVector().Data
	e.lamInv = make([]float64, nv)
	e.C1, e.D11 = mat.NewDense(nv, nx, nil), mat.NewDense(nv, nv, nil)
	e.D12 = make([]float64, nv)
	for i := range nv {
		e.lamInv[i] = 2 / H.At(nx+i, nx+i)
		for j := range nx {
			e.C1.Set(i, j, -e.lamInv[i]*H.At(nx+i, j))
		}
		for j := range i {
			e.D11.Set(i, j, -e.lamInv[i]*H.At(nx+i, nx+j))
		}
		e.D12[i] = e.lamInv[i] * th[o.d12+i]
	}
	e.C2 = slices.Clone(th[o.c2 : o.c2+nx])
	e.D21 = slices.Clone(th[o.d21 : o.d21+nv])
	if m.Biased {
		e.bx, e.bv = slices.Clone(th[o.bx:o.bx+nx]), slices.Clone(th[o.bv:o.bv+nv])
	}
	if m.Gated {
		e.Wg = slices.Clone(th[o.wg:o.ug])
		e.ug, e.bg = slices.Clone(th[o.ug:o.bg]), slices.Clone(th[o.bg:o.bg+nv])
	}
	return e, nil
}

// renTape holds one trajectory's forward pass for the backward pass.
// renTape holds what the backward pass needs of a forward one: the states
// and neuron outputs, and, for a gated REN, the gates and the neurons'
// tanh before gating. The tanh is kept rather than recomputed from v: it is
// the costliest part of a step (BenchmarkRENEpoch), and an ungated neuron's
// output is its tanh, so th is then w itself.
type renTape struct {
	x, w, th, s []float64 // T·nx, T·nv, T·nv, T·nv (th and s: gated only; th is w otherwise)
	thBuf, sBuf []float64 // th's and s's storage, kept while an ungated run aliases th to w
}

// reset sizes t for T samples, reusing its storage where it is large
// enough, so that one tape serves every record a worker runs; a nil t is
// a new tape.
func (t *renTape) reset(T, nx, nv int, gated bool) *renTape {
	if t == nil {
		t = &renTape{}
	}
	t.x, t.w = grow(t.x, T*nx), grow(t.w, T*nv)
	t.th, t.s = t.w, nil
	if gated {
		t.thBuf, t.sBuf = grow(t.thBuf, T*nv), grow(t.sBuf, T*nv)
		t.th, t.s = t.thBuf, t.sBuf
	}
	return t
}

// grow returns b resized to n, reallocated only when its capacity is
// short; the contents are whatever they were.
func grow(b []float64, n int) []float64 {
	if cap(b) < n {
		return make([]float64, n)
	}
	return b[:n]
}

// gate returns neuron i's gate σ(W_g x + u_g u + b_g)_i.
func (e *renExplicit) gate(i int, x []float64, u float64) float64 {
	z := e.bg[i] + e.ug[i]*u + dot(e.Wg[i*e.nx:(i+1)*e.nx], x)
	return 1 / (1 + math.Exp(-z))
}

// simulate runs the explicit model on scaled input us from rest; it fills y and,
// when tape is not nil, the states and neuron values.
func (e *renExplicit) simulate(us, y []float64, tape *renTape) {
	nx, nv := e.nx, e.nv
	x := make([]float64, nx)
	xn := make([]float64, nx)
	w := make([]float64, nv)
	A, B1, C1, D11 := e.A.RawMatrix(), e.B1.RawMatrix(), e.C1.RawMatrix(), e.D11.RawMatrix()
	for t, u := range us {
		for i := range nv {
			s := e.D12[i]*u + dot(C1.Data[i*C1.Stride:i*C1.Stride+nx], x) + dot(D11.Data[i*D11.Stride:i*D11.Stride+i], w[:i])
			if e.bv != nil {
				s += e.bv[i]
			}
			w[i] = math.Tanh(s)
			if e.Wg != nil {
				g := e.gate(i, x, u)
				if tape != nil {
					tape.th[t*nv+i], tape.s[t*nv+i] = w[i], g
				}
				w[i] *= g
			}
		}
		y[t] = e.D22*u + dot(e.C2, x) + dot(e.D21, w)
		if tape != nil {
			copy(tape.x[t*nx:], x)
			copy(tape.w[t*nv:], w)
		}
		for i := range nx {
			xn[i] = e.B2[i]*u + dot(A.Data[i*A.Stride:i*A.Stride+nx], x) + dot(B1.Data[i*B1.Stride:i*B1.Stride+nv], w)
			if e.bx != nil {
				xn[i] += e.bx[i]
			}
		}
		x, xn = xn, x
	}
}

// renGrad accumulates gradients with respect to the explicit matrices.
type renGrad struct {
	A, B1, C1, D11   []float64 // row-major, as the explicit model
	B2, D12, C2, D21 []float64
	D22              float64
	bx, bv           []float64
	Wg, ug, bg       []float64
}

func newRENGrad(nx, nv int) *renGrad {
	return &renGrad{A: make([]float64, nx*nx), B1: make([]float64, nx*nv), C1: make([]float64, nv*nx), D11: make([]float64, nv*nv),
		B2: make([]float64, nx), D12: make([]float64, nv), C2: make([]float64, nx), D21: make([]float64, nv),
		bx: make([]float64, nx), bv: make([]float64, nv), Wg: make([]float64, nv*nx), ug: make([]float64, nv), bg: make([]float64, nv)}
}

func (g *renGrad) add(o *renGrad) {
	for _, p := range [][2][]float64{{g.A, o.A}, {g.B1, o.B1}, {g.C1, o.C1}, {g.D11, o.D11}, {g.B2, o.B2}, {g.D12, o.D12}, {g.C2, o.C2}, {g.D21, o.D21}, {g.bx, o.bx}, {g.bv, o.bv}, {g.Wg, o.Wg}, {g.ug, o.ug}, {g.bg, o.bg}} {
		for i := range p[0] {
			p[0][i] += p[1][i]
		}
	}
	g.D22 += o.D22
}

func (g *renGrad) zero() {
	for _, p := range [][]float64{g.A, g.B1, g.C1, g.D11, g.B2, g.D12, g.C2, g.D21, g.bx, g.bv, g.Wg, g.ug, g.bg} {
		clear(p)
	}
	g.D22 = 0
}

// backward adds to g the gradient of Σ_t dy[t]·y[t] with respect to the
// explicit matrices (backpropagation through time over the tape).
func (e *renExplicit) backward(us, dy []float64, tape *renTape, g *renGrad) {
	nx, nv := e.nx, e.nv
	A, B1, C1, D11 := e.A.RawMatrix(), e.B1.RawMatrix(), e.C1.RawMatrix(), e.D11.RawMatrix()
	lam := make([]float64, nx) // ∂L/∂x(t+1)
	xb := make([]float64, nx)
	wb := make([]float64, nv)
	for t := len(us) - 1; t >= 0; t-- {
		u := us[t]
		x := tape.x[t*nx : (t+1)*nx]
		w := tape.w[t*nv : (t+1)*nv]
		ths := tape.th[t*nv : (t+1)*nv]
		yb := dy[t]
		// y = C2 x + D21 w + D22 u;  x⁺ = A x + B1 w + B2 u
		for j := range nx {
			g.C2[j] += yb * x[j]
			xb[j] = e.C2[j] * yb
		}
		for j := range nv {
			g.D21[j] += yb * w[j]
			wb[j] = e.D21[j] * yb
		}
		g.D22 += yb * u
		for i := range nx {
			if li := lam[i]; li != 0 {
				backRow(g.A[i*nx:i*nx+nx], A.Data[i*A.Stride:], x, xb, li)
				backRow(g.B1[i*nv:i*nv+nv], B1.Data[i*B1.Stride:], w, wb, li)
				g.B2[i] += li * u
				g.bx[i] += li
			}
		}
		// the equilibrium layer, last neuron first (D11 is strictly lower)
		for i := nv - 1; i >= 0; i-- {
			th := ths[i]
			sb := 1.0
			if tape.s != nil {
				// w = s·tanh(v), s = σ(z), z = W_g x + u_g u + b_g
				s := tape.s[t*nv+i]
				if zb := wb[i] * th * s * (1 - s); zb != 0 {
					backRow(g.Wg[i*nx:i*nx+nx], e.Wg[i*nx:], x, xb, zb)
					g.ug[i] += zb * u
					g.bg[i] += zb
				}
				sb = s
			}
			if vb := wb[i] * sb * (1 - th*th); vb != 0 {
				backRow(g.C1[i*nx:i*nx+nx], C1.Data[i*C1.Stride:], x, xb, vb)
				backRow(g.D11[i*nv:i*nv+i], D11.Data[i*D11.Stride:], w[:i], wb[:i], vb)
				g.D12[i] += vb * u
				g.bv[i] += vb
			}
		}
		lam, xb = xb, lam
	}
}

// dot returns a·b over len(a) entries, summed in index order: the order
// PassiveREN.Simulate documents and the C export repeats.
func dot(a, b []float64) float64 {
	b = b[:len(a)]
	s := 0.0
	for j, v := range a {
		s += v * b[j]
	}
	return s
}

// backRow is the backward pass of one row of a matrix-vector product,
// out_i = row·in: with out̄_i = s it adds s·in to the row's gradient grow and
// s·row to the input's gradient inb (len(grow) entries of each).
func backRow(grow, row, in, inb []float64, s float64) {
	n := len(grow)
	row, in, inb = row[:n], in[:n], inb[:n]
	for j := range grow {
		grow[j] += s * in[j]
		inb[j] += row[j] * s
	}
}

// direct maps explicit-matrix gradients to the gradient with respect to
// Theta (written to grad), through the construction in explicit.
func (m *PassiveREN) direct(e *renExplicit, g *renGrad, grad []float64) error {
	nx, nv := m.States, m.Neurons
	n := 2*nx + nv
	o := m.offsets()
	th := m.Theta
	clear(grad)
	// A = E⁻¹F, B1 = E⁻¹B1imp, B2 = E⁻¹B2dir:
	// F̄ = E⁻ᵀĀ, Ē = −E⁻ᵀ(Ā Aᵀ + B̄1 B1ᵀ + B̄2 B2ᵀ).
	Ab := mat.NewDense(nx, nx, g.A)
	B1b := mat.NewDense(nx, nv, g.B1)
	B2b := mat.NewDense(nx, 1, g.B2)
	Fb, B1ib, B2db := mat.NewDense(nx, nx, nil), mat.NewDense(nx, nv, nil), mat.NewDense(nx, 1, nil)
	if err := e.E.SolveTo(Fb, true, Ab); err != nil {
		return fmt.Errorf("baselines: REN: %w: %w", err, ErrNumerical)
	}
	if err := e.E.SolveTo(B1ib, true, B1b); err != nil {
		return fmt.Errorf("baselines: REN: %w: %w", err, ErrNumerical)
	}
	if err := e.E.SolveTo(B2db, true, B2b); err != nil {
		return fmt.Errorf("baselines: REN: %w: %w", err, ErrNumerical)
	}
	var Eb, tmp mat.Dense
	Eb.Mul(Fb, e.A.T())
	tmp.Mul(B1ib, e.B1.T())
	Eb.Add(&Eb, &tmp)
	tmp.Reset()
	tmp.Mul(B2db, mat.NewDense(1, nx, e.B2))
	Eb.Add(&Eb, &tmp)
	Eb.Scale(-1, &Eb)

	Hb := mat.NewDense(n, n, nil)
	// E = (H11 + H33 + Y1 − Y1ᵀ)/2
	for i := range nx {
		for j := range nx {
			eb := Eb.At(i, j) / 2
			Hb.Set(i, j, Hb.At(i, j)+eb)
			Hb.Set(nx+nv+i, nx+nv+j, Hb.At(nx+nv+i, nx+nv+j)+eb)
			grad[o.y1+i*nx+j] += eb
			grad[o.y1+j*nx+i] -= eb
		}
	}
	// F = H31, B1imp = H32
	for i := range nx {
		for j := range nx {
			Hb.Set(nx+nv+i, j, Hb.At(nx+nv+i, j)+Fb.At(i, j))
		}
		for j := range nv {
			Hb.Set(nx+nv+i, nx+j, Hb.At(nx+nv+i, nx+j)+B1ib.At(i, j))
		}
		grad[o.b2+i] += B2db.At(i, 0)
	}
	// C1 = −Λ⁻¹H21, D11 = −Λ⁻¹ tril(H22, −1), D12 = Λ⁻¹ D12dir, Λ⁻¹_i = 2/H22_ii
	H := e.H
	for i := range nv {
		li := e.lamInv[i]
		lb := 0.0
		for j := range nx {
			cb := g.C1[i*nx+j]
			lb += cb * (-H.At(nx+i, j))
			Hb.Set(nx+i, j, Hb.At(nx+i, j)-li*cb)
		}
		for j := range i {
			db := g.D11[i*nv+j]
			lb += db * (-H.At(nx+i, nx+j))
			Hb.Set(nx+i, nx+j, Hb.At(nx+i, nx+j)-li*db)
		}
		lb += g.D12[i] * th[o.d12+i]
		grad[o.d12+i] += li * g.D12[i]
		h := H.At(nx+i, nx+i)
		Hb.Set(nx+i, nx+i, Hb.At(nx+i, nx+i)-2*lb/(h*h))
	}
	// H = XᵀX + εI + g gᵀ/(2M): X̄ = X(H̄ + H̄ᵀ), ḡ = (H̄ + H̄ᵀ)g/(2M), M̄ = −gᵀH̄g/(2M²)
	var S mat.Dense
	S.Add(Hb, Hb.T())
	X := mat.NewDense(n, n, th[o.x:o.y1])
	Xb := mat.NewDense(n, n, grad[o.x:o.y1])
	Xb.Mul(X, &S)
	gv := mat.NewVecDense(n, e.g)
	var gb mat.VecDense
	gb.MulVec(&S, gv)
	gb.ScaleVec(1/(2*e.M), &gb)
	Mb := -mat.Inner(gv, Hb, gv)/(2*e.M*e.M) + g.D22 // D22 = ν + M
	grad[o.x3] += 2 * th[o.x3] * Mb
	for j := range nx {
		grad[o.c2+j] += gb.AtVec(j) + g.C2[j]
		grad[o.b2+j] += gb.AtVec(nx + nv + j)
	}
	for j := range nv {
		grad[o.d21+j] += gb.AtVec(nx+j) + g.D21[j]
		grad[o.d12+j] -= gb.AtVec(nx + j)
	}
	if m.Biased {
		copy(grad[o.bx:o.bx+nx], g.bx)
		copy(grad[o.bv:o.bv+nv], g.bv)
	}
	if m.Gated {
		copy(grad[o.wg:o.ug], g.Wg)
		copy(grad[o.ug:o.bg], g.ug)
		copy(grad[o.bg:o.bg+nv], g.bg)
	}
	return nil
}

// Simulate returns the model output for input u from rest, len(u) samples. A
// model whose parameters cannot be built (E singular: only reachable by editing
// Theta by hand) returns NaNs.
func (m *PassiveREN) Simulate(u []float64) []float64 {
	y := make([]float64, len(u))
	e, err := m.explicit()
	if err != nil {
		for i := range y {
			y[i] = math.NaN()
		}
		return y
	}
	us := make([]float64, len(u))
	for t, v := range u {
		us[t] = v / m.UScale
	}
	e.simulate(us, y, nil)
	if e.bx != nil {
		y0 := make([]float64, len(u))
		e.simulate(make([]float64, len(u)), y0, nil)
		for t := range y {
			y[t] -= y0[t]
		}
	}
	for t := range y {
		y[t] *= m.YScale
	}
	return y
}

// renSet is a dataset scaled to unit RMS.
type renSet struct{ u, y [][]float64 }

func (m *PassiveREN) prepare(d *data.Dataset) *renSet {
	s := &renSet{}
	for _, b := range d.Batches {
		us, ys := make([]float64, len(b.U)), make([]float64, len(b.Y))
		for t := range b.U {
			us[t] = b.U[t] / m.UScale
			ys[t] = b.Y[t] / m.YScale
		}
		s.u = append(s.u, us)
		s.y = append(s.y, ys)
	}
	return s
}

// wholeItems is every record of s as one item, scored from skip.
func wholeItems(s *renSet, skip int) []gruItem {
	items := make([]gruItem, len(s.u))
	for i, u := range s.u {
		items[i] = gruItem{rec: i, score: skip, to: len(u)}
	}
	return items
}

// lossGrad returns the mean squared simulation error over the items of s
// (each simulated from rest at its from, scored from its score on) and,
// when grad is not nil, writes its gradient with respect to Theta.
func (m *PassiveREN) lossGrad(s *renSet, items []gruItem, grad []float64, workers int) (float64, error) {
	e, err := m.explicit()
	if err != nil {
		return math.NaN(), err
	}
	total := 0
	for _, it := range items {
		total += max(it.to-max(it.score, it.from), 0)
	}
	if total == 0 {
		return math.NaN(), fmt.Errorf("baselines: REN: no sample left to score: %w", ErrData)
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, len(items))
	// Per-item sums, added in item order afterwards: the result does
	// not depend on the number of workers or on scheduling.
	sse := make([]float64, len(items))
	grads := make([]*renGrad, len(items))
	var wg sync.WaitGroup
	next := make(chan int, len(items))
	for p := range items {
		next <- p
	}
	close(next)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var tape, tape0 *renTape
			var yh, zeros, y0 []float64
			for p := range next {
				it := items[p]
				us, ys := s.u[it.rec][it.from:it.to], s.y[it.rec][it.from:it.to]
				skip := max(it.score-it.from, 0)
				T := len(us)
				var tp, tp0 *renTape // nil: no gradient, no tape
				if grad != nil {
					tape = tape.reset(T, m.States, m.Neurons, m.Gated)
					tp = tape
				}
				yh = grow(yh, T)
				e.simulate(us, yh, tp)
				if e.bx != nil {
					zeros, y0 = grow(zeros, T), grow(y0, T)
					clear(zeros)
					if grad != nil {
						tape0 = tape0.reset(T, m.States, m.Neurons, m.Gated)
						tp0 = tape0
					}
					e.simulate(zeros, y0, tp0)
					for t := range yh {
						yh[t] -= y0[t]
					}
				}
				dy := yh // reused as the output gradient
				for t := range yh {
					if t < skip {
						dy[t] = 0
						continue
					}
					r := yh[t] - ys[t]
					sse[p] += r * r
					dy[t] = 2 * r / float64(total)
				}
				if grad != nil {
					grads[p] = newRENGrad(m.States, m.Neurons)
					e.backward(us, dy, tp, grads[p])
					if tp0 != nil {
						for t := range dy {
							y0[t] = -dy[t]
						}
						e.backward(zeros, y0, tp0, grads[p])
					}
				}
			}
		}()
	}
	wg.Wait()
	loss := 0.0
	for _, v := range sse {
		loss += v
	}
	loss /= float64(total)
	if grad == nil {
		return loss, nil
	}
	for p := 1; p < len(items); p++ {
		grads[0].add(grads[p])
	}
	return loss, m.direct(e, grads[0], grad)
}

// TrainREN trains a PassiveREN on train (Y, never YClean) by Adam (β1 = 0.9,
// β2 = 0.999, ε = 1e-8) on the mean squared simulation error of unit-RMS
// outputs, every trajectory simulated from rest (backpropagation through
// time), cfg.Batch trajectories a step. X starts orthogonal (H ≈ I), the other
// parameters Glorot-normal. After every epoch the simulation MSE on val (its Y)
// is measured; training stops after cfg.Patience epochs without a new minimum
// and the parameters of the best epoch are returned. val may be nil: then all
// cfg.Epochs are run and the last parameters kept. Passivity holds for every
// iterate: it is a property of the parameterization, not of training.
func TrainREN(train, val *data.Dataset, cfg RENConfig) (*PassiveREN, error) {
	return TrainRENContext(context.Background(), train, val, cfg)
}

// TrainRENContext is TrainREN that stops when ctx is done: it then returns
// the parameters of the best epoch so far (the last ones without
// validation data) together with ctx's error, or only the error when no
// epoch was finished.
func TrainRENContext(ctx context.Context, train, val *data.Dataset, cfg RENConfig) (*PassiveREN, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	su, sy, err := trainingScales("REN", train, val)
	if err != nil {
		return nil, err
	}
	m := &PassiveREN{States: cfg.States, Neurons: cfg.Neurons, Nu: cfg.Nu, Eps: cfg.Eps, Biased: cfg.Biased, Gated: cfg.Gated, UScale: su, YScale: sy}
	m.Theta = make([]float64, m.NumParams())
	rng := rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x5e7))
	m.init(rng) // also with Start: the random stream then stays the same
	cfg = cfg.Stretched()
	lr := cfg.LR
	if cfg.Memory > RefMemory && cfg.Start == nil {
		if err := m.slowStart(rng, cfg.Memory); err != nil {
			return nil, err
		}
	}
	if st := cfg.Start; st != nil {
		if st.States != m.States || st.Neurons != m.Neurons || st.Nu != m.Nu || st.Biased != m.Biased || st.Gated != m.Gated || len(st.Theta) != len(m.Theta) {
			return nil, fmt.Errorf("baselines: REN: the starting model (%d states, %d neurons, ν %v, biased %v, gated %v, %d parameters) is not the configuration's (%d, %d, %v, %v, %v): %w",
				st.States, st.Neurons, st.Nu, st.Biased, st.Gated, len(st.Theta), m.States, m.Neurons, m.Nu, m.Biased, m.Gated, ErrConfig)
		}
		copy(m.Theta, st.Theta)
		m.Eps, m.UScale, m.YScale = st.Eps, st.UScale, st.YScale
	}

	tr := m.prepare(train)
	var vs *renSet
	var vitems []gruItem
	vyy := 0.0 // mean square of the scaled, scored validation output
	if val != nil {
		vs = m.prepare(val)
		n := 0
		vitems = wholeItems(vs, cfg.ValSkip)
		for i := range vs.u {
			for t, y := range vs.y[i] {
				if t >= cfg.ValSkip {
					vyy += y * y
					n++
				}
			}
		}
		if n == 0 {
			return nil, fmt.Errorf("baselines: REN: validation set has no sample after val-skip %d: %w", cfg.ValSkip, ErrData)
		}
		vyy /= float64(n)
	}
	var order []gruItem
	if cfg.Window > 0 {
		order = gruItems(tr, cfg.Window, cfg.BurnIn)
	} else {
		order = wholeItems(tr, 0)
	}
	for k := range order {
		order[k].score = max(order[k].score, cfg.Skip)
	}
	np := len(m.Theta)
	grad := make([]float64, np)
	opt := optim.NewAdam(np)
	stop := newEarlyStop(m.Theta, cfg.Patience)
	simulated, finished := 0, 0
	var ctxErr error
	for epoch := 1; epoch <= cfg.Epochs; epoch++ {
		if ctxErr = ctx.Err(); ctxErr != nil {
			break
		}
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		epochLoss, steps := 0.0, 0
		for lo := 0; lo < len(order); lo += cfg.Batch {
			mb := order[lo:min(lo+cfg.Batch, len(order))]
			var l float64
			if ctxErr = cfg.Gate.Do(ctx, func() { l, err = m.lossGrad(tr, mb, grad, cfg.Workers) }); ctxErr != nil {
				break
			}
			if err != nil {
				return nil, err
			}
			for _, it := range mb {
				simulated += it.to - it.from
			}
			epochLoss += l
			steps++
			optim.ClipNorm(grad, cfg.Clip)
			opt.Step(m.Theta, grad, lr, 0)
		}
		if ctxErr != nil {
			break // a partial epoch is never scored or kept
		}
		finished = epoch
		budgetSpent := cfg.MaxSamples > 0 && simulated >= cfg.MaxSamples && (vs == nil || epoch >= cfg.MinEpochs)
		if vs == nil {
			if cfg.Progress != nil {
				cfg.Progress(epoch, epochLoss/float64(steps), math.NaN())
			}
			if budgetSpent {
				break
			}
			continue
		}
		var vl float64
		if ctxErr = cfg.Gate.Do(ctx, func() { vl, err = m.lossGrad(vs, vitems, nil, cfg.Workers) }); ctxErr != nil {
			break
		}
		if err != nil {
			return nil, err
		}
		if math.IsNaN(vl) || math.IsInf(vl, 0) {
			return nil, fmt.Errorf("baselines: REN: validation loss %v at epoch %d; lower the learning rate: %w", vl, epoch, ErrNumerical)
		}
		m.ValLoss = append(m.ValLoss, vl)
		if cfg.Progress != nil {
			cfg.Progress(epoch, epochLoss/float64(steps), 100*(1-math.Sqrt(vl/vyy)))
		}
		if stop.update(epoch, vl, m.Theta) || budgetSpent {
			break
		}
	}
	if finished == 0 && ctxErr != nil {
		return nil, ctxErr
	}
	m.BestEpoch = finished
	if vs != nil {
		m.BestEpoch = stop.restore(m.Theta)
	}
	_ = cfg.Gate.Do(context.Background(), func() { // cannot fail: it waits its turn
		m.TrainLoss, err = m.lossGrad(tr, wholeItems(tr, cfg.Skip), nil, cfg.Workers)
	})
	if err != nil {
		return nil, err
	}
	if math.IsNaN(m.TrainLoss) || math.IsInf(m.TrainLoss, 0) {
		return nil, fmt.Errorf("baselines: REN: training loss %v; lower the learning rate: %w", m.TrainLoss, ErrNumerical)
	}
	return m, ctxErr
}

// init draws X orthogonal (the Q factor of a Gaussian matrix, so that H starts
// near the identity and E, Λ well conditioned) and the other parameters
// Glorot-normal, as the reference implementation (RobustNeuralNetworks.jl) does.
func (m *PassiveREN) init(rng *rand.Rand) {
	nx, nv := m.States, m.Neurons
	n := 2*nx + nv
	o := m.offsets()
	glorot := func(off, rows, cols int) {
		s := math.Sqrt(2 / float64(rows+cols))
		for k := range rows * cols {
			m.Theta[off+k] = s * rng.NormFloat64()
		}
	}
	G := mat.NewDense(n, n, nil)
	for i := range n {
		for j := range n {
			G.Set(i, j, rng.NormFloat64())
		}
	}
	var qr mat.QR
	qr.Factorize(G)
	var Q mat.Dense
	qr.QTo(&Q)
	copy(m.Theta[o.x:o.y1], Q.RawMatrix().Data)
	glorot(o.y1, nx, nx)
	glorot(o.x3, 1, 1)
	glorot(o.b2, nx, 1)
	glorot(o.d12, nv, 1)
	glorot(o.c2, 1, nx)
	glorot(o.d21, 1, nv)
	if m.Gated {
		// Gates start near open (σ(2) ≈ 0.88) and weakly scheduled, so that
		// a gated REN starts as a REN does.
		for i := range nv {
			m.Theta[o.bg+i] = 2
		}
		glorot(o.wg, nv, nx)
		glorot(o.ug, nv, 1)
		for k := o.wg; k < o.bg; k++ {
			m.Theta[k] *= 0.1
		}
	}
}

// RENMatrices is the explicit model of a PassiveREN (see PassiveREN), the
// matrices row-major, for code that runs the model elsewhere (package
// export). MinEigH is the smallest eigenvalue of H, the matrix whose
// positive definiteness is the passivity LMI of the direct
// parameterization: it is at least ε up to rounding for every Theta.
type RENMatrices struct {
	States, Neurons  int
	A, B1, C1, D11   []float64 // n_x×n_x, n_x×n_v, n_v×n_x, n_v×n_v (strictly lower)
	B2, D12, C2, D21 []float64 // n_x, n_v, n_x, n_v
	D22              float64
	// Bx and Bv are the biases b_x (n_x) and b_v (n_v) of a biased REN,
	// nil without: the output is then y = R(u) − R(0) (see PassiveREN).
	Bx, Bv []float64
	// Wg (n_v×n_x), Ug and Bg (n_v) are the gates of a gated REN, nil
	// without: w_i = σ(Wg_i x + Ug_i u + Bg_i)·tanh(v_i), σ the logistic
	// function, the gate's sum in that order (see PassiveREN).
	Wg, Ug, Bg []float64
	MinEigH    float64
}

// Matrices returns the explicit model that Simulate runs (on u/UScale, its
// output times YScale), or an error when E is singular.
func (m *PassiveREN) Matrices() (*RENMatrices, error) {
	e, err := m.explicit()
	if err != nil {
		return nil, err
	}
	var eig mat.EigenSym
	if !eig.Factorize(mat.NewSymDense(e.H.RawMatrix().Rows, symmetric(e.H)), false) {
		return nil, fmt.Errorf("baselines: REN: the eigenvalues of H did not converge: %w", ErrNumerical)
	}
	raw := func(d *mat.Dense) []float64 {
		r, c := d.Dims()
		out := make([]float64, 0, r*c)
		for i := range r {
			out = append(out, d.RawRowView(i)...)
		}
		return out
	}
	return &RENMatrices{States: e.nx, Neurons: e.nv, A: raw(e.A), B1: raw(e.B1), C1: raw(e.C1), D11: raw(e.D11),
		B2: slices.Clone(e.B2), D12: slices.Clone(e.D12), C2: slices.Clone(e.C2), D21: slices.Clone(e.D21), D22: e.D22,
		Bx: slices.Clone(e.bx), Bv: slices.Clone(e.bv), Wg: slices.Clone(e.Wg), Ug: slices.Clone(e.ug), Bg: slices.Clone(e.bg), MinEigH: slices.Min(eig.Values(nil))}, nil
}

// symmetric returns the symmetric part of the square matrix h, row-major.
func symmetric(h *mat.Dense) []float64 {
	n, _ := h.Dims()
	out := make([]float64, n*n)
	for i := range n {
		for j := range n {
			out[i*n+j] = (h.At(i, j) + h.At(j, i)) / 2
		}
	}
	return out
}
