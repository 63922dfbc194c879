package graph

import (
	"fmt"

	G "gorgonia.org/gorgonia"

	"github.com/passivenfir/gputrain/kernels"
	"github.com/passivenfir/gputrain/model"
)

// maxCached bounds the graphs an OpenLoop or ClosedLoopNet keeps, one per
// number of rows: mini-batches of equal-length trajectories need one, the
// full batch and the validation set one each.
const maxCached = 8

// OpenLoop is the open-loop training graph of a model structure: features →
// lifting MLP (DenseTanh ops, or one Lift op on a featureMajor backend) →
// branch-convolution bank (BranchConv op)
// [+ linear FIR] → MSE, and its gradient w.r.t. θ_N built by gorgonia's
// symbolic differentiation. One graph and its machines are compiled per
// batch size (rows) and reused; the parameters, the taps and the batch are
// values bound to the graph's input nodes before every run.
//
// An OpenLoop is not safe for concurrent use.
type OpenLoop struct {
	st     model.Structure
	sizes  []int
	be     kernels.Backend
	nTheta int
	cache  graphCache[*openGraph]

	// tapsGrad makes g and lin differentiable inputs too (their gradients
	// follow θ_N's in grads). The θ_N step never sets it: there the taps are
	// constants and DiffWRT keeps gorgonia from asking for a dg pass.
	tapsGrad bool
}

// openGraph is the compiled graph for one number of rows.
type openGraph struct {
	g       *G.ExprGraph
	st      *seqState
	x, u, y *G.Node
	w, b    []*G.Node // the layers' parameters, or
	thetaN  *G.Node   // θ_N as one node (with lift)
	gN, lin *G.Node

	theta      []float64 // backing of the w and b values, in Flatten order
	gBuf, lBuf []float64 // backing of the g and lin values

	gains  *denseTanhOp // last layer: its output buffer holds the gains
	lift   *liftOp      // or, with a featureMajor backend, the whole MLP (gains mN×rows)
	yh     []float64    // output buffer of the op computing ŷ
	loss   *mseOp
	grads  G.Nodes // dw0, db0, dw1, db1, … (Flatten order)
	full   vm      // forward + backward
	gainsM vm      // forward of the MLP only
	outM   vm      // forward to ŷ
}

// NewOpenLoop returns the open-loop graph builder for m's structure (its
// parameter values are not used: they are passed to every call, and the
// scalers are already applied in the Batch's features, see NewBatch).
func NewOpenLoop(m *model.NFIR, be kernels.Backend) (*OpenLoop, error) {
	if m == nil || be == nil {
		return nil, fmt.Errorf("%w: nil model or backend", ErrShape)
	}
	if err := m.Structure.Check(); err != nil {
		return nil, fmt.Errorf("graph: %w", err)
	}
	o := &OpenLoop{st: m.Structure, be: be, cache: newGraphCache[*openGraph]()}
	o.st.Hidden = append([]int(nil), m.Hidden...)
	if m.Branches > 0 {
		o.sizes = append(append([]int{m.NumFeatures()}, m.Hidden...), m.Branches)
		for l := 0; l+1 < len(o.sizes); l++ {
			o.nTheta += o.sizes[l+1]*o.sizes[l] + o.sizes[l+1]
		}
	}
	return o, nil
}

// NumTheta returns the length of θ_N (and of the gradient).
func (o *OpenLoop) NumTheta() int { return o.nTheta }

func (o *OpenLoop) build(rows int) (*openGraph, error) {
	st := o.st
	mN, mG, mL := st.Branches, st.Taps, st.LinearTaps
	og := &openGraph{g: G.NewGraph(), st: &seqState{}}
	g := og.g
	og.theta = make([]float64, o.nTheta)
	og.u = G.NewVector(g, G.Float64, G.WithShape(rows), G.WithName("u"), G.WithValue(newDense(make([]float64, rows), rows)))
	og.y = G.NewVector(g, G.Float64, G.WithShape(rows), G.WithName("y"), G.WithValue(newDense(make([]float64, rows), rows)))
	var yh, h *G.Node
	var err error
	if mN > 0 {
		F := o.sizes[0]
		og.x = G.NewMatrix(g, G.Float64, G.WithShape(rows, F), G.WithName("X"), G.WithValue(newDense(make([]float64, rows*F), rows, F)))
		h = og.x
		fm, _ := o.be.(featureMajor)
		if fm != nil {
			// One θ_N node: the Lift op's gradient is then dθ_N whole,
			// without a pick per layer.
			og.thetaN = G.NewVector(g, G.Float64, G.WithShape(o.nTheta), G.WithName("θN"), G.WithValue(newDense(og.theta, o.nTheta)))
			og.lift = newLift(fm, rows, o.sizes)
			if h, err = G.ApplyOp(og.lift, og.x, og.thetaN); err != nil {
				return nil, fmt.Errorf("graph: lifting network: %w", err)
			}
		}
		off := 0
		for l := 0; fm == nil && l+1 < len(o.sizes); l++ {
			in, out := o.sizes[l], o.sizes[l+1]
			wv := og.theta[off : off+out*in : off+out*in]
			off += out * in
			bv := og.theta[off : off+out : off+out]
			off += out
			w := G.NewMatrix(g, G.Float64, G.WithShape(out, in), G.WithName(fmt.Sprintf("W%d", l)), G.WithValue(newDense(wv, out, in)))
			b := G.NewVector(g, G.Float64, G.WithShape(out), G.WithName(fmt.Sprintf("b%d", l)), G.WithValue(newDense(bv, out)))
			og.w, og.b = append(og.w, w), append(og.b, b)
			op := newDenseTanh(o.be, l, rows, in, out, l > 0)
			if h, err = G.ApplyOp(op, h, w, b); err != nil {
				return nil, fmt.Errorf("graph: layer %d: %w", l, err)
			}
			og.gains = op
		}
		og.gBuf = make([]float64, mN*mG)
		og.gN = G.NewMatrix(g, G.Float64, G.WithShape(mN, mG), G.WithName("G"), G.WithValue(newDense(og.gBuf, mN, mG)))
		conv := newBranchConv(o.be, og.st, rows, mN, mG, o.tapsGrad)
		conv.fm = fm
		if yh, err = G.ApplyOp(conv, h, og.u, og.gN); err != nil {
			return nil, fmt.Errorf("graph: branch convolution: %w", err)
		}
		og.yh = conv.y
	}
	if mL > 0 {
		og.lBuf = make([]float64, mL)
		og.lin = G.NewVector(g, G.Float64, G.WithShape(mL), G.WithName("lin"), G.WithValue(newDense(og.lBuf, mL)))
		lop := newLinear(o.be, og.st, rows, mL, yh != nil, o.tapsGrad)
		if yh == nil {
			yh, err = G.ApplyOp(lop, og.u, og.lin)
		} else {
			yh, err = G.ApplyOp(lop, yh, og.u, og.lin)
		}
		if err != nil {
			return nil, fmt.Errorf("graph: linear FIR: %w", err)
		}
		og.yh = lop.y
	}
	// The output-only machine: the forward part of the graph up to ŷ.
	if og.outM, err = newVM(g, G.Nodes{og.u}, G.Nodes{yh}); err != nil {
		return nil, fmt.Errorf("graph: output: %w", err)
	}
	og.loss = newMSE(rows)
	loss, err := G.ApplyOp(og.loss, yh, og.y)
	if err != nil {
		return nil, fmt.Errorf("graph: loss: %w", err)
	}
	wrt := og.params()
	nParams := len(wrt)
	if o.tapsGrad {
		for _, n := range []*G.Node{og.gN, og.lin} {
			if n != nil {
				wrt = append(wrt, n)
			}
		}
	}
	if len(wrt) > 0 {
		if og.grads, err = G.Grad(loss, wrt...); err != nil {
			return nil, fmt.Errorf("graph: gradient: %w", err)
		}
	}
	if mN > 0 {
		// The gains-only machine: the MLP part of the same graph.
		in := append(G.Nodes{og.x}, wrt[:nParams]...)
		if og.gainsM, err = newVM(g, in, G.Nodes{h}); err != nil {
			return nil, fmt.Errorf("graph: gains: %w", err)
		}
	}
	// No BindDualValues: the gradients are read from the gradient nodes,
	// which every run overwrites, so nothing accumulates across runs.
	if og.full, err = newVM(g, nil, nil); err != nil {
		return nil, err
	}
	return og, nil
}

func (o *OpenLoop) graph(rows int) (*openGraph, error) {
	return o.cache.get(rows, o.build)
}

// checkBatch validates b against the structure.
func checkBatch(st model.Structure, b *Batch, needX bool) error {
	if b == nil {
		return fmt.Errorf("%w: nil batch", ErrShape)
	}
	if err := b.Seqs.Check(); err != nil {
		return fmt.Errorf("graph: batch: %w", err)
	}
	rows := b.Seqs.Total()
	if len(b.U) != rows || len(b.Y) != rows {
		return fmt.Errorf("%w: batch of %d samples has %d u and %d y values", ErrShape, rows, len(b.U), len(b.Y))
	}
	if rows == 0 {
		return fmt.Errorf("%w: empty batch", ErrShape)
	}
	if needX && st.Branches > 0 && len(b.X) != rows*st.NumFeatures() {
		return fmt.Errorf("%w: batch of %d samples has %d features, want %d×%d", ErrShape, rows, len(b.X), rows, st.NumFeatures())
	}
	return nil
}

func checkParams(st model.Structure, nTheta int, theta, g, lin []float64) error {
	if len(theta) != nTheta {
		return fmt.Errorf("%w: θ_N has %d values, want %d", ErrShape, len(theta), nTheta)
	}
	if len(g) != st.Branches*st.Taps {
		return fmt.Errorf("%w: g has %d taps, want %d×%d", ErrShape, len(g), st.Branches, st.Taps)
	}
	if len(lin) != st.LinearTaps {
		return fmt.Errorf("%w: lin has %d taps, want %d", ErrShape, len(lin), st.LinearTaps)
	}
	return nil
}

// bind sets the batch and the parameters of one run.
func (og *openGraph) bind(b *Batch, theta, g, lin []float64) error {
	rows := len(b.U)
	og.st.s = b.Seqs
	copy(og.theta, theta)
	copy(og.gBuf, g)
	copy(og.lBuf, lin)
	if err := G.Let(og.u, newDense(b.U, rows)); err != nil {
		return fmt.Errorf("graph: bind u: %w", err)
	}
	if err := G.Let(og.y, newDense(b.Y, rows)); err != nil {
		return fmt.Errorf("graph: bind y: %w", err)
	}
	if og.x != nil {
		if err := G.Let(og.x, newDense(b.X, rows, len(b.X)/rows)); err != nil {
			return fmt.Errorf("graph: bind X: %w", err)
		}
	}
	return nil
}

// LossGrad sets θ_N (Flatten order) and the taps (g, lin) as values, runs
// forward and backward, returns the MSE loss (mean over the batch's samples
// of (ŷ − y)², with q from the data for FB models) and writes dL/dθ_N into
// grad (Flatten order, overwritten).
func (o *OpenLoop) LossGrad(b *Batch, theta, g, lin, grad []float64) (float64, error) {
	return o.lossGrad(b, theta, g, lin, grad, nil, nil)
}

// lossGrad is LossGrad, also writing the taps' gradients into dg and dlin
// when the OpenLoop has tapsGrad.
func (o *OpenLoop) lossGrad(b *Batch, theta, g, lin, grad, dg, dlin []float64) (float64, error) {
	if err := checkBatch(o.st, b, true); err != nil {
		return 0, err
	}
	if err := checkParams(o.st, o.nTheta, theta, g, lin); err != nil {
		return 0, err
	}
	if len(grad) != o.nTheta {
		return 0, fmt.Errorf("%w: gradient has %d values, want %d", ErrShape, len(grad), o.nTheta)
	}
	og, err := o.graph(len(b.U))
	if err != nil {
		return 0, err
	}
	if err := og.bind(b, theta, g, lin); err != nil {
		return 0, err
	}
	if err := og.full.run(); err != nil {
		return 0, err
	}
	// Gather the gradients: θ_N's layers in Flatten order, then (tapsGrad)
	// g and lin.
	var dsts [][]float64
	if og.thetaN != nil {
		dsts = append(dsts, grad)
	}
	for l := range og.w {
		n := o.sizes[l+1] * o.sizes[l]
		dsts = append(dsts, grad[:n], grad[n:n+o.sizes[l+1]])
		grad = grad[n+o.sizes[l+1]:]
	}
	if o.tapsGrad {
		if og.gN != nil {
			dsts = append(dsts, dg)
		}
		if og.lin != nil {
			dsts = append(dsts, dlin)
		}
	}
	if len(dsts) != len(og.grads) {
		return 0, fmt.Errorf("%w: %d gradient nodes for %d gradients", ErrShape, len(og.grads), len(dsts))
	}
	for i, gn := range og.grads {
		d, err := floats(og.full.value(gn), "gradient")
		if err != nil {
			return 0, fmt.Errorf("graph: gradient %d: %w", i, err)
		}
		if len(d) != len(dsts[i]) {
			return 0, fmt.Errorf("%w: gradient %d has %d values, want %d", ErrShape, i, len(d), len(dsts[i]))
		}
		copy(dsts[i], d)
	}
	return float64(og.loss.val), nil
}

// Output writes the open-loop output ŷ of every trajectory of b (q from the
// data for FB models, as in the batch's features) into y; b.Y is not used.
func (o *OpenLoop) Output(b *Batch, theta, g, lin, y []float64) error {
	if err := checkBatch(o.st, b, true); err != nil {
		return err
	}
	if err := checkParams(o.st, o.nTheta, theta, g, lin); err != nil {
		return err
	}
	if len(y) != len(b.U) {
		return fmt.Errorf("%w: output buffer has %d values, want %d", ErrShape, len(y), len(b.U))
	}
	og, err := o.graph(len(b.U))
	if err != nil {
		return err
	}
	if err := og.bind(b, theta, g, lin); err != nil {
		return err
	}
	if err := og.outM.run(); err != nil {
		return err
	}
	copy(y, og.yh)
	return nil
}

// Gains runs the lifting network only and writes the rows × m_N gains
// (row-major) into n, e.g. for the Gram matrix of the θ_G step.
func (o *OpenLoop) Gains(b *Batch, theta []float64, n []float64) error {
	if err := checkBatch(o.st, b, true); err != nil {
		return err
	}
	if len(theta) != o.nTheta {
		return fmt.Errorf("%w: θ_N has %d values, want %d", ErrShape, len(theta), o.nTheta)
	}
	rows := len(b.U)
	if len(n) != rows*o.st.Branches {
		return fmt.Errorf("%w: gains buffer has %d values, want %d×%d", ErrShape, len(n), rows, o.st.Branches)
	}
	if o.st.Branches == 0 {
		return nil
	}
	og, err := o.graph(rows)
	if err != nil {
		return err
	}
	og.st.s = b.Seqs
	copy(og.theta, theta)
	if err := G.Let(og.x, newDense(b.X, rows, len(b.X)/rows)); err != nil {
		return fmt.Errorf("graph: bind X: %w", err)
	}
	if err := og.gainsM.run(); err != nil {
		return err
	}
	if og.lift == nil {
		copy(n, og.gains.y)
		return nil
	}
	mN := o.st.Branches
	gT := og.lift.acts[len(og.lift.acts)-1]
	for j := range mN {
		for r, v := range gT[j*rows : (j+1)*rows] {
			n[r*mN+j] = v
		}
	}
	return nil
}

// graphCache keeps up to maxCached compiled graphs keyed by rows, evicting
// the oldest.
type graphCache[T any] struct {
	m     map[int]T
	order []int
}

func newGraphCache[T any]() graphCache[T] { return graphCache[T]{m: map[int]T{}} }

func (c *graphCache[T]) get(rows int, build func(int) (T, error)) (T, error) {
	if v, ok := c.m[rows]; ok {
		return v, nil
	}
	v, err := build(rows)
	if err != nil {
		return v, err
	}
	if len(c.order) >= maxCached {
		delete(c.m, c.order[0])
		c.order = c.order[1:]
	}
	c.m[rows] = v
	c.order = append(c.order, rows)
	return v, nil
}

// params returns the θ_N nodes in Flatten order: W_0, b_0, W_1, … or the
// one θ_N node of the Lift op.
func (og *openGraph) params() G.Nodes {
	if og.thetaN != nil {
		return G.Nodes{og.thetaN}
	}
	p := make(G.Nodes, 0, 2*len(og.w)+2)
	for l := range og.w {
		p = append(p, og.w[l], og.b[l])
	}
	return p
}
