package graph

import (
	"fmt"

	G "gorgonia.org/gorgonia"

	"github.com/passivenfir/gputrain/kernels"
	"github.com/passivenfir/gputrain/model"
)

// ClosedLoopNet is the BPTT graph: θ_N, g, lin → ClosedLoop op (the whole
// rollout with q(t) = ŷ(t−1), one Backend call) → MSE, with the gradient
// w.r.t. θ_N from one ClosedLoopGrad op (the exact adjoint of the rollout).
// Graphs and machines are cached per batch size as in OpenLoop. A model
// without branches has no feedback through gains, so its closed loop is its
// open loop, and it is delegated to an OpenLoop.
//
// A ClosedLoopNet is not safe for concurrent use.
type ClosedLoopNet struct {
	st     model.Structure
	cfg    kernels.ClosedLoop
	be     kernels.Backend
	nTheta int
	cache  graphCache[*closedGraph]
	open   *OpenLoop // Branches == 0 only

	// tapsGrad also differentiates w.r.t. g and lin (packed after dθ by the
	// one adjoint pass); the BPTT step of the trainer does not set it.
	tapsGrad bool
}

type closedGraph struct {
	g          *G.ExprGraph
	st         *seqState
	y          *G.Node
	theta      []float64
	gBuf, lBuf []float64
	op         *closedLoopOp
	loss       *mseOp
	dtheta     *G.Node
	dg, dlin   *G.Node // tapsGrad only
	full       vm      // rollout, loss and BPTT
	sim        vm      // rollout only
}

// NewClosedLoop returns the closed-loop (BPTT) graph builder for m's
// structure and scalers (the scalers are fixed here; the parameters are
// passed to every call).
func NewClosedLoop(m *model.NFIR, be kernels.Backend) (*ClosedLoopNet, error) {
	if m == nil || be == nil {
		return nil, fmt.Errorf("%w: nil model or backend", ErrShape)
	}
	if err := m.Structure.Check(); err != nil {
		return nil, fmt.Errorf("graph: %w", err)
	}
	c := &ClosedLoopNet{st: m.Structure, be: be, cache: newGraphCache[*closedGraph]()}
	c.st.Hidden = append([]int(nil), m.Hidden...)
	if m.Branches == 0 {
		o, err := NewOpenLoop(m, be)
		if err != nil {
			return nil, err
		}
		c.open = o
		return c, nil
	}
	us, qs := m.UScaler, m.QScaler
	c.cfg = kernels.ClosedLoop{
		MN: m.Branches, MG: m.Taps, ML: m.LinearTaps, R1: m.R1, R2: m.R2, Feedback: m.Feedback, HoldU: m.HoldStart,
		Sizes: append(append([]int{m.NumFeatures()}, m.Hidden...), m.Branches),
		UA:    1 / (us.Scale * us.Std), UB: -us.Mean / us.Std,
		QA: 1 / (qs.Scale * qs.Std), QB: -qs.Mean / qs.Std,
	}
	if err := c.cfg.Check(); err != nil {
		return nil, fmt.Errorf("graph: %w", err)
	}
	c.nTheta = c.cfg.NumParams()
	return c, nil
}

// NumTheta returns the length of θ_N (and of the gradient).
func (c *ClosedLoopNet) NumTheta() int { return c.nTheta }

func (c *ClosedLoopNet) build(rows int) (*closedGraph, error) {
	mN, mG, mL := c.st.Branches, c.st.Taps, c.st.LinearTaps
	cg := &closedGraph{g: G.NewGraph(), st: &seqState{}}
	g := cg.g
	cg.theta = make([]float64, c.nTheta)
	cg.gBuf = make([]float64, mN*mG)
	theta := G.NewVector(g, G.Float64, G.WithShape(c.nTheta), G.WithName("θN"), G.WithValue(newDense(cg.theta, c.nTheta)))
	gN := G.NewMatrix(g, G.Float64, G.WithShape(mN, mG), G.WithName("G"), G.WithValue(newDense(cg.gBuf, mN, mG)))
	cg.y = G.NewVector(g, G.Float64, G.WithShape(rows), G.WithName("y"), G.WithValue(newDense(make([]float64, rows), rows)))
	args := G.Nodes{theta, gN}
	if mL > 0 {
		cg.lBuf = make([]float64, mL)
		args = append(args, G.NewVector(g, G.Float64, G.WithShape(mL), G.WithName("lin"), G.WithValue(newDense(cg.lBuf, mL))))
	}
	cg.op = newClosedLoopOp(c.be, cg.st, &c.cfg, rows, c.nTheta)
	cg.op.needDG, cg.op.needDLin = c.tapsGrad, c.tapsGrad && mL > 0
	yh, err := G.ApplyOp(cg.op, args...)
	if err != nil {
		return nil, fmt.Errorf("graph: closed loop: %w", err)
	}
	cg.loss = newMSE(rows)
	loss, err := G.ApplyOp(cg.loss, yh, cg.y)
	if err != nil {
		return nil, fmt.Errorf("graph: loss: %w", err)
	}
	wrt := G.Nodes{theta}
	if c.tapsGrad {
		wrt = append(wrt, args[1:]...)
	}
	grads, err := G.Grad(loss, wrt...)
	if err != nil {
		return nil, fmt.Errorf("graph: gradient: %w", err)
	}
	cg.dtheta = grads[0]
	if c.tapsGrad {
		cg.dg = grads[1]
		if mL > 0 {
			cg.dlin = grads[2]
		}
	}
	if cg.sim, err = newVM(g, args, G.Nodes{yh}); err != nil {
		return nil, fmt.Errorf("graph: simulation: %w", err)
	}
	if cg.full, err = newVM(g, nil, nil); err != nil {
		return nil, err
	}
	return cg, nil
}

func (cg *closedGraph) bind(b *Batch, theta, g, lin []float64) {
	cg.st.s, cg.st.u = b.Seqs, b.U
	copy(cg.theta, theta)
	copy(cg.gBuf, g)
	copy(cg.lBuf, lin)
}

// LossGrad runs the closed-loop simulation of every trajectory of b
// (q(t) = ŷ(t−1), b.X is not used), returns the MSE against b.Y and writes
// dL/dθ_N (Flatten order, overwritten) into grad by backpropagation through
// time.
func (c *ClosedLoopNet) LossGrad(b *Batch, theta, g, lin, grad []float64) (float64, error) {
	return c.lossGrad(b, theta, g, lin, grad, nil, nil)
}

// lossGrad is LossGrad, also writing the taps' gradients into dg and dlin
// when the net has tapsGrad.
func (c *ClosedLoopNet) lossGrad(b *Batch, theta, g, lin, grad, dg, dlin []float64) (float64, error) {
	if c.open != nil {
		return c.open.lossGrad(b, theta, g, lin, grad, dg, dlin)
	}
	if err := checkBatch(c.st, b, false); err != nil {
		return 0, err
	}
	if err := checkParams(c.st, c.nTheta, theta, g, lin); err != nil {
		return 0, err
	}
	if len(grad) != c.nTheta {
		return 0, fmt.Errorf("%w: gradient has %d values, want %d", ErrShape, len(grad), c.nTheta)
	}
	cg, err := c.cache.get(len(b.U), c.build)
	if err != nil {
		return 0, err
	}
	cg.bind(b, theta, g, lin)
	if err := G.Let(cg.y, newDense(b.Y, len(b.Y))); err != nil {
		return 0, fmt.Errorf("graph: bind y: %w", err)
	}
	if err := cg.full.run(); err != nil {
		return 0, err
	}
	d, err := floats(cg.full.value(cg.dtheta), "gradient")
	if err != nil {
		return 0, err
	}
	if len(d) != c.nTheta {
		return 0, fmt.Errorf("%w: gradient node holds %d values, want %d", ErrShape, len(d), c.nTheta)
	}
	copy(grad, d)
	for _, p := range []struct {
		n   *G.Node
		dst []float64
	}{{cg.dg, dg}, {cg.dlin, dlin}} {
		if p.n == nil {
			continue
		}
		d, err := floats(cg.full.value(p.n), "gradient")
		if err != nil {
			return 0, err
		}
		if len(d) != len(p.dst) {
			return 0, fmt.Errorf("%w: tap gradient has %d values, want %d", ErrShape, len(d), len(p.dst))
		}
		copy(p.dst, d)
	}
	return float64(cg.loss.val), nil
}

// Simulate writes the closed-loop output ŷ of every trajectory of b into y
// (b.Y and b.X are not used).
func (c *ClosedLoopNet) Simulate(b *Batch, theta, g, lin, y []float64) error {
	if c.open != nil {
		return c.open.Output(b, theta, g, lin, y)
	}
	if err := checkBatch(c.st, b, false); err != nil {
		return err
	}
	if err := checkParams(c.st, c.nTheta, theta, g, lin); err != nil {
		return err
	}
	if len(y) != len(b.U) {
		return fmt.Errorf("%w: output buffer has %d values, want %d", ErrShape, len(y), len(b.U))
	}
	cg, err := c.cache.get(len(b.U), c.build)
	if err != nil {
		return err
	}
	cg.bind(b, theta, g, lin)
	if err := cg.sim.run(); err != nil {
		return err
	}
	copy(y, cg.op.y)
	return nil
}
