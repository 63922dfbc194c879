package baselines

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/internal/gru"
	"github.com/passivenfir/gputrain/internal/optim"
	"github.com/passivenfir/gputrain/model"
)

// GRUConfig configures TrainGRU. Zero fields take the defaults of
// DefaultGRUConfig.
//
// The training budget is bounded three ways, whichever ends first: Epochs
// passes over the training records, Patience epochs without a better
// validation Fit, and MaxSamples samples simulated by training steps (the
// cost of an epoch is about its samples times 10·Units² floating-point
// operations, forward and backward: with the defaults, about 6 µs a sample
// on two cores (BenchmarkGRUEpoch), so an epoch of 80 000 samples, windows
// and burn-in included, takes about half a second, and MaxSamples stops
// training after about 375 such epochs).
type GRUConfig struct {
	Units    int     // H, the width of the GRU's state
	Epochs   int     // maximum number of passes over the training records
	Batch    int     // records (or windows) per Adam step
	LR       float64 // Adam learning rate
	Clip     float64 // global gradient-norm clip; negative: none
	Patience int     // epochs without a better validation Fit after which training stops
	// Window: a record longer than 2·Window samples is cut into windows of
	// Window samples, each simulated from rest BurnIn samples before it
	// starts (the burn-in is left out of the loss), so that one step does
	// not backpropagate through a whole long record and a long record gives
	// many steps an epoch. Records up to 2·Window are used whole.
	Window, BurnIn int
	// MaxSamples bounds the samples simulated by the training steps (burn-in
	// included) over the whole run; training stops after the epoch that
	// reaches it.
	MaxSamples int
	Seed       uint64 // initial parameters and batch order; same seed and data, same model
	Workers    int    // goroutines over the records of a step (0: GOMAXPROCS); the result does not depend on it
	// ValSkip is the number of samples at the start of every validation
	// record that are simulated but not scored.
	ValSkip int
	// Progress, when set, is called after every epoch with the mean training
	// MSE of the epoch's steps (unit-RMS outputs) and the median validation
	// Fit in percent (NaN without validation data).
	Progress func(epoch int, trainMSE, valFit float64)
}

// DefaultGRUConfig returns a GRU of 32 units (3 329 parameters) with the
// training budget of a user who gives a GRU a few minutes: 3·10⁷ samples
// simulated, 2 to 3 minutes on two cores, and a patience of 1000 epochs.
// A GRU on the simulation error can sit on a plateau for hundreds of epochs
// before it finds the plant's state: on the two-mass data of issue 26 its
// validation Fit stayed near 60 % for 400 epochs and then rose to 87 % by
// epoch 1900 (test 90.4 %), where a patience of 20 epochs, and of 300,
// stopped it at 59 % (docs/BENCHMARKS.md, session 20). As the peer the
// passive classes are measured against, it must not be stopped there.
func DefaultGRUConfig() GRUConfig {
	return GRUConfig{Units: 32, Epochs: 5000, Batch: 8, LR: 3e-3, Clip: 1, Patience: 1000,
		Window: 500, BurnIn: 100, MaxSamples: 30_000_000, Seed: 1}
}

func (c GRUConfig) withDefaults() (GRUConfig, error) {
	def := DefaultGRUConfig()
	orDefault(&c.Units, def.Units)
	orDefault(&c.Epochs, def.Epochs)
	orDefault(&c.Batch, def.Batch)
	orDefault(&c.LR, def.LR)
	orDefault(&c.Clip, def.Clip)
	orDefault(&c.Patience, def.Patience)
	orDefault(&c.Window, def.Window)
	orDefault(&c.BurnIn, def.BurnIn)
	orDefault(&c.MaxSamples, def.MaxSamples)
	switch {
	case c.Units < 1:
		return c, fmt.Errorf("baselines: GRU: units %d must be ≥ 1: %w", c.Units, ErrConfig)
	case c.Epochs < 1, c.Batch < 1, c.Patience < 1, c.Window < 1, c.BurnIn < 0, c.MaxSamples < 1:
		return c, fmt.Errorf("baselines: GRU: epochs %d, batch %d, patience %d, window %d, max samples %d must be ≥ 1, burn-in %d ≥ 0: %w",
			c.Epochs, c.Batch, c.Patience, c.Window, c.MaxSamples, c.BurnIn, ErrConfig)
	case c.Workers < 0, c.ValSkip < 0:
		return c, fmt.Errorf("baselines: GRU: workers %d and val-skip %d must be ≥ 0: %w", c.Workers, c.ValSkip, ErrConfig)
	case !(c.LR > 0) || math.IsInf(c.LR, 0), math.IsNaN(c.Clip) || math.IsInf(c.Clip, 0):
		return c, fmt.Errorf("baselines: GRU: learning rate %v must be finite > 0, clip %v finite: %w", c.LR, c.Clip, ErrConfig)
	}
	return c, nil
}

// GRU is a single-input single-output gated recurrent unit network with a
// linear readout, simulated from rest (h(−1) = 0) on x(t) = u(t)/UScale:
//
//	r = σ(W_ir x + W_hr h + b_r),  z = σ(W_iz x + W_hz h + b_z),
//	n = tanh(W_in x + b_in + r ⊙ (W_hn h + b_hn)),
//	h(t) = (1 − z) ⊙ n + z ⊙ h(t−1),  y(t) = YScale·(c·h(t) + d).
//
// It sees the input only; its state carries the dynamics, so its output is a
// free-run simulation. It has no passivity structure.
type GRU struct {
	Units int
	// Theta holds the parameters flattened: W_i (3H: the r, z and n rows),
	// W_h (3H×H row-major, r, z, n), b (3H: b_r, b_z, b_in), b_hn (H), c (H), d.
	Theta []float64
	// UScale and YScale are the RMS of the training input and output: fixed,
	// not trained, not counted in NumParams.
	UScale, YScale float64

	// Training record: median validation Fit (%) after every epoch, the epoch
	// (1-based) whose parameters were kept, and the training MSE (unit-RMS
	// outputs) at the end.
	ValFit    []float64
	BestEpoch int
	TrainLoss float64
}

// NumParams returns 3H² + 8H + 1 (3 329 for H = 32).
func (m *GRU) NumParams() int { return gruParams(m.Units) }

func gruParams(h int) int { return 3*h*h + 8*h + 1 }

// gruOffsets locates the parameter groups in Theta.
type gruOffsets struct{ wi, wh, b, bhn, c, d int }

func (m *GRU) offsets() gruOffsets {
	h := m.Units
	o := gruOffsets{wi: 0, wh: 3 * h}
	o.b = o.wh + 3*h*h
	o.bhn = o.b + 3*h
	o.c = o.bhn + h
	o.d = o.c + h
	return o
}

// Check reports parameters of the wrong size or non-finite values.
func (m *GRU) Check() error {
	switch {
	case m.Units < 1:
		return fmt.Errorf("baselines: GRU: units %d must be ≥ 1: %w", m.Units, ErrConfig)
	case len(m.Theta) != m.NumParams():
		return fmt.Errorf("baselines: GRU: %d parameters, want %d for %d units: %w", len(m.Theta), m.NumParams(), m.Units, ErrConfig)
	case !(m.UScale > 0) || !(m.YScale > 0) || math.IsInf(m.UScale, 0) || math.IsInf(m.YScale, 0):
		return fmt.Errorf("baselines: GRU: scales %v, %v must be finite > 0: %w", m.UScale, m.YScale, ErrConfig)
	}
	for i, v := range m.Theta {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("baselines: GRU: parameter %d is %v: %w", i, v, ErrConfig)
		}
	}
	return nil
}

// cell is the network's GRU cell, whose parameters lead Theta.
func (m *GRU) cell() gru.Cell { return gru.Cell{In: 1, Units: m.Units} }

// gruTape records what backpropagation needs of a forward pass: the state
// before every step and the gates.
type gruTape struct {
	h     []float64 // (T+1)×H from h(−1) = 0
	gates []float64 // T × cell().Gates()
}

func (tp *gruTape) reset(T int, c gru.Cell) {
	H := c.Units
	grow := func(s []float64, n int) []float64 {
		if cap(s) < n {
			return make([]float64, n)
		}
		return s[:n]
	}
	tp.h = grow(tp.h, (T+1)*H)
	clear(tp.h[:H])
	tp.gates = grow(tp.gates, T*c.Gates())
}

// forward simulates the network on scaled input x from rest and writes the
// scaled output to y, recording the tape.
func (m *GRU) forward(x, y []float64, tp *gruTape) {
	H := m.Units
	o := m.offsets()
	th := m.Theta
	cell := m.cell()
	G := cell.Gates()
	c, d := th[o.c:o.d], th[o.d]
	for t := range x {
		hc := tp.h[(t+1)*H : (t+2)*H]
		cell.Step(th, x[t:t+1], tp.h[t*H:(t+1)*H], hc, tp.gates[t*G:(t+1)*G])
		yt := d
		for j := range H {
			yt += c[j] * hc[j]
		}
		y[t] = yt
	}
}

// backward adds to grad the gradient of Σ_t dy(t)·y(t) for the forward
// pass recorded in tp on input x; work needs 5H values.
func (m *GRU) backward(x, dy []float64, tp *gruTape, grad, work []float64) {
	H := m.Units
	o := m.offsets()
	th := m.Theta
	cell := m.cell()
	G := cell.Gates()
	c := th[o.c:o.d]
	gc := grad[o.c:o.d]
	dh, dhPrev := work[:H], work[H:2*H]
	clear(dh)
	for t := len(x) - 1; t >= 0; t-- {
		hc := tp.h[(t+1)*H : (t+2)*H]
		g := dy[t]
		grad[o.d] += g
		for j := range H {
			gc[j] += g * hc[j]
			dh[j] += g * c[j]
		}
		cell.Adjoint(th, x[t:t+1], tp.h[t*H:(t+1)*H], tp.gates[t*G:(t+1)*G], dh, dhPrev, nil, grad, work[2*H:])
		dh, dhPrev = dhPrev, dh
	}
}

// Simulate returns the model output for input u from rest, len(u) samples.
func (m *GRU) Simulate(u []float64) []float64 {
	x := make([]float64, len(u))
	for t, v := range u {
		x[t] = v / m.UScale
	}
	y := make([]float64, len(u))
	var tp gruTape
	tp.reset(len(u), m.cell())
	m.forward(x, y, &tp)
	for t := range y {
		y[t] *= m.YScale
	}
	return y
}

// gruItem is one training sequence: samples from..to of record rec are
// simulated from rest, and those from score on enter the loss.
type gruItem struct{ rec, from, score, to int }

// gruItems cuts the records of s into the sequences of one epoch.
func gruItems(s *renSet, window, burnIn int) []gruItem {
	var items []gruItem
	for i, u := range s.u {
		T := len(u)
		if T <= 2*window {
			items = append(items, gruItem{rec: i, to: T})
			continue
		}
		for l := 0; l < T; l += window {
			items = append(items, gruItem{rec: i, from: max(0, l-burnIn), score: l, to: min(l+window, T)})
		}
	}
	return items
}

// gruWork is one goroutine's buffers.
type gruWork struct {
	tape gruTape
	y    []float64
	dy   []float64
	bw   []float64
}

// lossGrad returns the sum of squared simulation errors of the items (on
// scaled outputs) and the number of scored samples; with grads not nil it
// writes into grads[k] the gradient of item k's sum of squared errors.
func (m *GRU) lossGrad(s *renSet, items []gruItem, grads [][]float64, workers int) (sse []float64, n int) {
	sse = make([]float64, len(items))
	for _, it := range items {
		n += it.to - it.score
	}
	workers = min(max(workers, 1), len(items))
	next := make(chan int, len(items))
	for k := range items {
		next <- k
	}
	close(next)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var w gruWork
			w.bw = make([]float64, 5*m.Units)
			for k := range next {
				it := items[k]
				x, yt := s.u[it.rec][it.from:it.to], s.y[it.rec][it.from:it.to]
				T := len(x)
				w.tape.reset(T, m.cell())
				if cap(w.y) < T {
					w.y, w.dy = make([]float64, T), make([]float64, T)
				}
				y, dy := w.y[:T], w.dy[:T]
				m.forward(x, y, &w.tape)
				for t := range y {
					if t < it.score-it.from {
						dy[t] = 0
						continue
					}
					r := y[t] - yt[t]
					sse[k] += r * r
					dy[t] = 2 * r
				}
				if grads != nil {
					clear(grads[k])
					m.backward(x, dy, &w.tape, grads[k], w.bw)
				}
			}
		}()
	}
	wg.Wait()
	return sse, n
}

// valFit returns the median Fit (%) of the free-run simulation on the
// validation records, from sample skip on, against their Y.
func (m *GRU) valFit(s *renSet, skip, workers int) float64 {
	items := make([]gruItem, len(s.u))
	for i, u := range s.u {
		items[i] = gruItem{rec: i, to: len(u)}
	}
	fits := make([]float64, len(items))
	workers = min(max(workers, 1), len(items))
	next := make(chan int, len(items))
	for k := range items {
		next <- k
	}
	close(next)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var tp gruTape
			for k := range next {
				u := s.u[k]
				y := make([]float64, len(u))
				tp.reset(len(u), m.cell())
				m.forward(u, y, &tp)
				f, err := model.Fit(s.y[k], y, skip)
				if err != nil {
					f = math.NaN() // zero output or too short: no Fit, left out
				}
				fits[k] = f
			}
		}()
	}
	wg.Wait()
	return model.Summarize(fits).Median
}

// TrainGRU trains a GRU on train (Y, never YClean) by Adam on the mean
// squared free-run simulation error of unit-RMS outputs: every record (or
// window of a long record, after its burn-in) is simulated from rest and
// backpropagated through (BPTT), cfg.Batch sequences a step, in a seeded
// random order. Parameters start uniform in ±1/√H (PyTorch's default), the
// readout Glorot-uniform and d = 0. After every epoch the median validation
// Fit of the free-run simulation is measured; training stops after
// cfg.Patience epochs without a better one, after cfg.Epochs, or after the
// epoch that reaches cfg.MaxSamples, and the parameters of the best epoch
// are returned. val may be nil: then the last parameters are kept. When ctx
// is cancelled, TrainGRU returns the best model so far with ctx.Err().
func TrainGRU(ctx context.Context, train, val *data.Dataset, cfg GRUConfig) (*GRU, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	su, sy, err := trainingScales("GRU", train, val)
	if err != nil {
		return nil, err
	}
	if cfg.Workers == 0 {
		cfg.Workers = runtime.GOMAXPROCS(0)
	}
	m := &GRU{Units: cfg.Units, UScale: su, YScale: sy}
	m.Theta = make([]float64, m.NumParams())
	rng := rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x6e0))
	m.init(rng)
	tr := (&PassiveREN{UScale: su, YScale: sy}).prepare(train)
	var vs *renSet
	if val != nil {
		vs = (&PassiveREN{UScale: su, YScale: sy}).prepare(val)
		for i, u := range vs.u {
			if len(u) <= cfg.ValSkip {
				return nil, fmt.Errorf("baselines: GRU: validation record %d has %d samples, not more than val-skip %d: %w", i, len(u), cfg.ValSkip, ErrData)
			}
		}
	}
	items := gruItems(tr, cfg.Window, cfg.BurnIn)
	np := len(m.Theta)
	grad := make([]float64, np)
	grads := make([][]float64, cfg.Batch)
	for k := range grads {
		grads[k] = make([]float64, np)
	}
	opt := optim.NewAdam(np)
	stop := newEarlyStop(m.Theta, cfg.Patience)
	simulated := 0
	m.BestEpoch = 0
	for epoch := 1; epoch <= cfg.Epochs; epoch++ {
		if ctx.Err() != nil {
			break
		}
		rng.Shuffle(len(items), func(i, j int) { items[i], items[j] = items[j], items[i] })
		epochLoss, steps := 0.0, 0
		for lo := 0; lo < len(items); lo += cfg.Batch {
			mb := items[lo:min(lo+cfg.Batch, len(items))]
			sse, n := m.lossGrad(tr, mb, grads[:len(mb)], cfg.Workers)
			clear(grad)
			loss := 0.0
			for k := range mb {
				loss += sse[k]
				for i, g := range grads[k] {
					grad[i] += g
				}
				simulated += mb[k].to - mb[k].from
			}
			for i := range grad {
				grad[i] /= float64(n)
			}
			loss /= float64(n)
			if math.IsNaN(loss) || math.IsInf(loss, 0) {
				return nil, fmt.Errorf("baselines: GRU: training loss %v at epoch %d; lower the learning rate: %w", loss, epoch, ErrNumerical)
			}
			epochLoss += loss
			steps++
			if cfg.Clip > 0 {
				optim.ClipNorm(grad, cfg.Clip)
			}
			opt.Step(m.Theta, grad, cfg.LR, 0)
		}
		vf := math.NaN()
		if vs != nil {
			vf = m.valFit(vs, cfg.ValSkip, cfg.Workers)
			m.ValFit = append(m.ValFit, vf)
		}
		if cfg.Progress != nil {
			cfg.Progress(epoch, epochLoss/float64(steps), vf)
		}
		if vs != nil {
			loss := -vf
			if math.IsNaN(loss) {
				loss = math.Inf(1)
			}
			if stop.update(epoch, loss, m.Theta) {
				break
			}
		}
		m.BestEpoch = epoch
		if simulated >= cfg.MaxSamples {
			break
		}
	}
	if vs != nil {
		if stop.bestEpoch == 0 {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("baselines: GRU: no epoch finished with a validation Fit: %w", ErrNumerical)
		}
		m.BestEpoch = stop.restore(m.Theta)
	}
	all := gruItems(tr, cfg.Window, cfg.BurnIn)
	sse, n := m.lossGrad(tr, all, nil, cfg.Workers)
	for _, v := range sse {
		m.TrainLoss += v
	}
	m.TrainLoss /= float64(n)
	return m, ctx.Err()
}

// init draws the cell's parameters uniformly in ±1/√H (PyTorch's default)
// and the readout c Glorot-uniform; d starts at 0.
func (m *GRU) init(rng *rand.Rand) {
	o := m.offsets()
	m.cell().Init(m.Theta, rng)
	g := math.Sqrt(6 / float64(m.Units+1))
	for i := o.c; i < o.d; i++ {
		m.Theta[i] = g * (2*rng.Float64() - 1)
	}
}
