package baselines

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/internal/optim"
)

// MLPConfig configures TrainMLP. Zero fields take the defaults of DefaultMLPConfig (the
// paper's MLP(np): memory 50, hidden layers 10 and 10, hence 631 parameters).
type MLPConfig struct {
	Memory  int // input window: [u(t), u(t−1), …, u(t−Memory+1)]
	Hidden1 int // width of the first tanh hidden layer
	Hidden2 int // width of the second tanh hidden layer
	Epochs  int // maximum number of passes over the training samples
	Batch   int // mini-batch size (samples)
	LR      float64
	Seed    uint64 // initial weights and mini-batch order; same seed and data, same model
	// Patience is the number of epochs without a lower validation loss after which
	// training stops (the best parameters are kept). It is unused without validation data.
	Patience int
}

// DefaultMLPConfig returns the paper's MLP(np) (Memory 50, Hidden 10×10: 631
// parameters) with training settings that converge on the mass-spring-damper data.
func DefaultMLPConfig() MLPConfig {
	return MLPConfig{Memory: 50, Hidden1: 10, Hidden2: 10, Epochs: 300, Batch: 32, LR: 1e-3, Seed: 1, Patience: 30}
}

func (c MLPConfig) withDefaults() (MLPConfig, error) {
	def := DefaultMLPConfig()
	orDefault(&c.Memory, def.Memory)
	orDefault(&c.Hidden1, def.Hidden1)
	orDefault(&c.Hidden2, def.Hidden2)
	orDefault(&c.Epochs, def.Epochs)
	orDefault(&c.Batch, def.Batch)
	orDefault(&c.LR, def.LR)
	orDefault(&c.Patience, def.Patience)
	switch {
	case c.Memory < 1, c.Hidden1 < 1, c.Hidden2 < 1:
		return c, fmt.Errorf("baselines: MLP: sizes memory %d, hidden %d×%d must be ≥ 1: %w", c.Memory, c.Hidden1, c.Hidden2, ErrConfig)
	case c.Epochs < 1, c.Batch < 1, c.Patience < 1:
		return c, fmt.Errorf("baselines: MLP: epochs %d, batch %d, patience %d must be ≥ 1: %w", c.Epochs, c.Batch, c.Patience, ErrConfig)
	case !(c.LR > 0) || math.IsInf(c.LR, 0):
		return c, fmt.Errorf("baselines: MLP: learning rate %v must be finite > 0: %w", c.LR, ErrConfig)
	}
	return c, nil
}

// trainingScales checks the training and (optional) validation sets of a
// neural baseline and returns the RMS of the training input and output, the
// fixed scales the network works in.
func trainingScales(name string, train, val *data.Dataset) (su, sy float64, err error) {
	if train == nil {
		return 0, 0, fmt.Errorf("baselines: %s: nil training set: %w", name, ErrData)
	}
	if err := train.Validate(1); err != nil {
		return 0, 0, fmt.Errorf("baselines: %s: training set: %w: %w", name, ErrData, err)
	}
	if val != nil {
		if err := val.Validate(1); err != nil {
			return 0, 0, fmt.Errorf("baselines: %s: validation set: %w: %w", name, ErrData, err)
		}
	}
	su, sy = rms(train.Inputs()), rms(train.Outputs())
	if su == 0 || sy == 0 {
		return 0, 0, fmt.Errorf("baselines: %s: training input RMS %v, output RMS %v; the data must be exciting: %w", name, su, sy, ErrData)
	}
	return su, sy, nil
}

// earlyStop keeps the parameters of the epoch with the lowest validation
// loss and says when patience epochs have passed without a new minimum.
type earlyStop struct {
	best      []float64
	bestLoss  float64
	bestEpoch int
	wait      int
	patience  int
}

func newEarlyStop(theta []float64, patience int) *earlyStop {
	return &earlyStop{best: slices.Clone(theta), bestLoss: math.Inf(1), patience: patience}
}

// update records the validation loss of epoch (1-based) for parameters theta
// and reports whether training should stop.
func (s *earlyStop) update(epoch int, loss float64, theta []float64) bool {
	if loss < s.bestLoss {
		s.bestLoss, s.bestEpoch, s.wait = loss, epoch, 0
		copy(s.best, theta)
		return false
	}
	s.wait++
	return s.wait >= s.patience
}

// restore copies the best parameters into theta and returns their epoch.
func (s *earlyStop) restore(theta []float64) int {
	copy(theta, s.best)
	return s.bestEpoch
}

// orDefault sets a zero configuration field to its default: the zero value
// of a config field means "the default".
func orDefault[T comparable](p *T, def T) {
	var zero T
	if *p == zero {
		*p = def
	}
}

// FIRMLP is the paper's MLP(np) baseline: a static network of a finite input window,
//
//	x(t) = [u(t), u(t−1), …, u(t−M+1)]/UScale   (u(t) = 0 for t < 0),
//	h1 = tanh(W1 x + b1),  h2 = tanh(W2 h1 + b2),  y(t) = YScale·(w3·h2 + b3).
//
// It has no state, so simulation and one-step prediction coincide.
type FIRMLP struct {
	Memory, Hidden1, Hidden2 int
	// Theta holds the parameters flattened layer by layer, weights row-major then biases
	// (the project's MLP.Flatten order): W1 (Hidden1×Memory), b1, W2 (Hidden2×Hidden1), b2,
	// w3 (1×Hidden2), b3.
	Theta []float64
	// UScale and YScale are the RMS of the training input and output: the network works
	// on unit-RMS signals. They are fixed, not trained, and not counted in NumParams.
	UScale, YScale float64

	// Training record: validation MSE (on unit-RMS outputs) after every epoch, the
	// epoch (1-based) whose parameters were kept, and the training MSE at that epoch.
	ValLoss   []float64
	BestEpoch int
	TrainLoss float64
}

// NumParams returns the number of trained parameters, M·H1 + H1 + H1·H2 + H2 + H2 + 1
// (631 for 50/10/10).
func (m *FIRMLP) NumParams() int { return mlpParams(m.Memory, m.Hidden1, m.Hidden2) }

func mlpParams(mem, h1, h2 int) int { return mem*h1 + h1 + h1*h2 + h2 + h2 + 1 }

// Simulate returns the model output for input u (zero before t = 0), len(u) samples.
func (m *FIRMLP) Simulate(u []float64) []float64 {
	us := make([]float64, len(u))
	for t, v := range u {
		us[t] = v / m.UScale
	}
	w := m.newWork()
	y := make([]float64, len(u))
	for t := range u {
		m.window(us, t, w.x)
		y[t] = m.YScale * m.forward(w)
	}
	return y
}

// work holds the activations of one sample.
type work struct {
	x, h1, h2 []float64
	d1, d2    []float64 // back-propagated pre-activation gradients
}

func (m *FIRMLP) newWork() *work {
	return &work{
		x: make([]float64, m.Memory), h1: make([]float64, m.Hidden1), h2: make([]float64, m.Hidden2),
		d1: make([]float64, m.Hidden1), d2: make([]float64, m.Hidden2),
	}
}

// window fills x with [u(t), u(t−1), …] (zeros before t = 0).
func (m *FIRMLP) window(u []float64, t int, x []float64) {
	for k := range x {
		if t-k >= 0 {
			x[k] = u[t-k]
		} else {
			x[k] = 0
		}
	}
}

// offsets of the parameter blocks in Theta.
func (m *FIRMLP) offsets() (w1, b1, w2, b2, w3, b3 int) {
	w1 = 0
	b1 = w1 + m.Hidden1*m.Memory
	w2 = b1 + m.Hidden1
	b2 = w2 + m.Hidden2*m.Hidden1
	w3 = b2 + m.Hidden2
	b3 = w3 + m.Hidden2
	return
}

// forward computes the (unit-RMS) output for w.x, keeping the activations in w.
func (m *FIRMLP) forward(w *work) float64 {
	th := m.Theta
	ow1, ob1, ow2, ob2, ow3, ob3 := m.offsets()
	for i := range w.h1 {
		row := th[ow1+i*m.Memory : ow1+(i+1)*m.Memory]
		s := th[ob1+i]
		for k, v := range w.x {
			s += row[k] * v
		}
		w.h1[i] = math.Tanh(s)
	}
	for i := range w.h2 {
		row := th[ow2+i*m.Hidden1 : ow2+(i+1)*m.Hidden1]
		s := th[ob2+i]
		for k, v := range w.h1 {
			s += row[k] * v
		}
		w.h2[i] = math.Tanh(s)
	}
	y := th[ob3]
	for k, v := range w.h2 {
		y += th[ow3+k] * v
	}
	return y
}

// backward accumulates into grad the gradient of dy·ŷ with respect to Theta, after
// forward on the same w.
func (m *FIRMLP) backward(w *work, dy float64, grad []float64) {
	th := m.Theta
	ow1, ob1, ow2, ob2, ow3, ob3 := m.offsets()
	grad[ob3] += dy
	for k, v := range w.h2 {
		grad[ow3+k] += dy * v
		w.d2[k] = dy * th[ow3+k] * (1 - v*v)
	}
	clear(w.d1)
	for i, di := range w.d2 {
		grad[ob2+i] += di
		row := th[ow2+i*m.Hidden1 : ow2+(i+1)*m.Hidden1]
		g := grad[ow2+i*m.Hidden1 : ow2+(i+1)*m.Hidden1]
		for k, v := range w.h1 {
			g[k] += di * v
			w.d1[k] += di * row[k]
		}
	}
	for i, v := range w.h1 {
		di := w.d1[i] * (1 - v*v)
		grad[ob1+i] += di
		g := grad[ow1+i*m.Memory : ow1+(i+1)*m.Memory]
		for k, x := range w.x {
			g[k] += di * x
		}
	}
}

// sample is one training target: batch b, time t.
type sample struct{ b, t int }

// mlpSet is a dataset in unit-RMS units, ready for the network.
type mlpSet struct {
	u, y    [][]float64
	samples []sample
}

func (m *FIRMLP) prepare(d *data.Dataset) *mlpSet {
	s := &mlpSet{}
	for bi, b := range d.Batches {
		u := make([]float64, len(b.U))
		y := make([]float64, len(b.Y))
		for t := range u {
			u[t] = b.U[t] / m.UScale
			y[t] = b.Y[t] / m.YScale
			s.samples = append(s.samples, sample{bi, t})
		}
		s.u, s.y = append(s.u, u), append(s.y, y)
	}
	return s
}

// lossGrad returns the mean squared error over the given samples and, if grad != nil,
// overwrites grad with its gradient.
func (m *FIRMLP) lossGrad(s *mlpSet, samples []sample, w *work, grad []float64) float64 {
	if grad != nil {
		clear(grad)
	}
	loss := 0.0
	scale := 1 / float64(len(samples))
	for _, sm := range samples {
		m.window(s.u[sm.b], sm.t, w.x)
		e := m.forward(w) - s.y[sm.b][sm.t]
		loss += e * e
		if grad != nil {
			m.backward(w, 2*e*scale, grad)
		}
	}
	return loss * scale
}

// TrainMLP trains a FIRMLP on train (Y, never YClean) by Adam (β1 = 0.9, β2 = 0.999,
// ε = 1e-8) on the mean squared error of unit-RMS outputs over shuffled mini-batches of
// samples. Weights start Glorot-uniform, biases at zero. After every epoch the MSE on
// val (its Y) is measured; training stops after cfg.Patience epochs without a new
// minimum and the parameters of the best epoch are returned. val may be nil: then all
// cfg.Epochs are run and the last parameters kept.
func TrainMLP(train, val *data.Dataset, cfg MLPConfig) (*FIRMLP, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	su, sy, err := trainingScales("MLP", train, val)
	if err != nil {
		return nil, err
	}
	m := &FIRMLP{Memory: cfg.Memory, Hidden1: cfg.Hidden1, Hidden2: cfg.Hidden2, UScale: su, YScale: sy}
	m.Theta = make([]float64, m.NumParams())
	rng := rand.New(rand.NewPCG(cfg.Seed, cfg.Seed))
	m.initGlorot(rng)

	tr := m.prepare(train)
	var vs *mlpSet
	if val != nil {
		vs = m.prepare(val)
	}
	np := len(m.Theta)
	grad := make([]float64, np)
	opt := optim.NewAdam(np)
	w := m.newWork()
	order := slices.Clone(tr.samples)
	stop := newEarlyStop(m.Theta, cfg.Patience)
	for epoch := 1; epoch <= cfg.Epochs; epoch++ {
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for lo := 0; lo < len(order); lo += cfg.Batch {
			mb := order[lo:min(lo+cfg.Batch, len(order))]
			m.lossGrad(tr, mb, w, grad)
			opt.Step(m.Theta, grad, cfg.LR, 0)
		}
		if vs == nil {
			continue
		}
		vl := m.lossGrad(vs, vs.samples, w, nil)
		if math.IsNaN(vl) || math.IsInf(vl, 0) {
			return nil, fmt.Errorf("baselines: MLP: validation loss %v at epoch %d; lower the learning rate: %w", vl, epoch, ErrNumerical)
		}
		m.ValLoss = append(m.ValLoss, vl)
		if stop.update(epoch, vl, m.Theta) {
			break
		}
	}
	m.BestEpoch = cfg.Epochs
	if vs != nil {
		m.BestEpoch = stop.restore(m.Theta)
	}
	m.TrainLoss = m.lossGrad(tr, tr.samples, w, nil)
	if math.IsNaN(m.TrainLoss) || math.IsInf(m.TrainLoss, 0) {
		return nil, fmt.Errorf("baselines: MLP: training loss %v; lower the learning rate: %w", m.TrainLoss, ErrNumerical)
	}
	return m, nil
}

// initGlorot draws every weight matrix uniformly in ±√(6/(fan_in+fan_out)) and sets the
// biases to zero.
func (m *FIRMLP) initGlorot(rng *rand.Rand) {
	ow1, _, ow2, _, ow3, _ := m.offsets()
	fill := func(off, out, in int) {
		a := math.Sqrt(6 / float64(in+out))
		for k := 0; k < out*in; k++ {
			m.Theta[off+k] = a * (2*rng.Float64() - 1)
		}
	}
	fill(ow1, m.Hidden1, m.Memory)
	fill(ow2, m.Hidden2, m.Hidden1)
	fill(ow3, 1, m.Hidden2)
}
