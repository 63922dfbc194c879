package graph

import (
	"fmt"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/passivenfir/gputrain/kernels"
)

// featureMajor is what a Backend offers beyond kernels.Backend for the
// feature-major open-loop step (kernels.CPU does): the whole lifting network
// in one call per direction, and the convolution bank on branch-major gains.
// With it OpenLoop builds one Lift op on one θ_N node instead of a DenseTanh
// op per layer on W_l, b_l nodes, and the gains flow between the ops as
// m_N×rows (see kernels/lift.go for why that is cheaper). Other backends keep
// the row-major ops.
type featureMajor interface {
	LiftForwardT(rows int, sizes []int, theta, x []float64, acts [][]float64)
	LiftBackwardT(rows int, sizes []int, theta, x []float64, acts [][]float64, dn, dtheta []float64)
	ConvForwardT(s kernels.Seqs, mN, mG int, u, n, g, z, y []float64)
	ConvBackwardT(s kernels.Seqs, mN, mG int, u, n, g, z, dy, dn, dg []float64)
}

// liftOp is the whole lifting network, tanh on every layer:
// (X rows×F, θ_N in Flatten order) → the gains, m_N×rows (feature-major).
// θ_N is one input, so its gradient is one node (no pick per layer). The op
// keeps every layer's output for the backward op; the last one is its own
// output buffer.
type liftOp struct {
	opBase
	be     featureMajor
	rows   int
	sizes  []int
	nTheta int
	theta  []float64   // the θ_N input, copied
	acts   [][]float64 // layer outputs, sizes[l+1]×rows
	yT     *tensor.Dense
}

func newLift(be featureMajor, rows int, sizes []int) *liftOp {
	o := &liftOp{
		opBase: newBase(fmt.Sprintf("Lift(%d×%v)", rows, sizes)),
		be:     be, rows: rows, sizes: sizes,
	}
	for l := 0; l+1 < len(sizes); l++ {
		o.nTheta += sizes[l+1]*sizes[l] + sizes[l+1]
		o.acts = append(o.acts, make([]float64, sizes[l+1]*rows))
	}
	o.theta = make([]float64, o.nTheta)
	o.yT = newDense(o.acts[len(o.acts)-1], sizes[len(sizes)-1], rows)
	return o
}

func (o *liftOp) Arity() int { return 2 }

// Type is Matrix a → Vector a → Matrix a.
func (o *liftOp) Type() hm.Type { return hm.NewFnType(matA, vecA, matA) }

func (o *liftOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	if len(in) != 2 {
		return nil, fmt.Errorf("%w: %s: %d inputs", ErrShape, o.name, len(in))
	}
	if err := checkShape(o.name, in[0], o.rows, o.sizes[0]); err != nil {
		return nil, err
	}
	if err := checkShape(o.name, in[1], o.nTheta); err != nil {
		return nil, err
	}
	return tensor.Shape{o.sizes[len(o.sizes)-1], o.rows}, nil
}

// params reads x and copies θ_N into o.theta. It runs twice per step, so
// its names are constants: an error message is built only on an error.
func (o *liftOp) params(in []G.Value) (x []float64, err error) {
	if x, err = floats(in[0], "Lift x"); err != nil {
		return nil, err
	}
	if err := checkLen(o.name, "x", x, o.rows*o.sizes[0]); err != nil {
		return nil, err
	}
	theta, err := floats(in[1], "Lift θ")
	if err != nil {
		return nil, err
	}
	if err := checkLen(o.name, "θ", theta, o.nTheta); err != nil {
		return nil, err
	}
	copy(o.theta, theta)
	return x, nil
}

func (o *liftOp) Do(in ...G.Value) (G.Value, error) {
	x, err := o.params(in)
	if err != nil {
		return nil, err
	}
	if err := call(o.name, func() { o.be.LiftForwardT(o.rows, o.sizes, o.theta, x, o.acts) }); err != nil {
		return nil, err
	}
	return o.yT, nil
}

// DiffWRT: θ_N, never the data.
func (o *liftOp) DiffWRT(int) []bool { return []bool{false, true} }

// SymDiff returns dθ_N from one liftGradOp.
func (o *liftOp) SymDiff(in G.Nodes, out, grad *G.Node) (G.Nodes, error) {
	gop := &liftGradOp{opBase: newBase(o.name + "Grad"), fwd: o, dtheta: make([]float64, o.nTheta)}
	gop.dthetaT = newDense(gop.dtheta, o.nTheta)
	d, err := G.ApplyOp(gop, in[0], in[1], out, grad)
	if err != nil {
		return nil, fmt.Errorf("graph: %s: %w", o.name, err)
	}
	return G.Nodes{nil, d}, nil
}

// liftGradOp is the backward of liftOp: (X, θ_N, n, dn) → dθ_N (Flatten
// order). n is an input only to order it after the forward op,
// whose activations it reads.
type liftGradOp struct {
	opBase
	fwd     *liftOp
	dtheta  []float64
	dthetaT *tensor.Dense
}

func (o *liftGradOp) Arity() int { return 4 }

// Type is Matrix a → Vector a → Matrix a → Matrix a → Vector a.
func (o *liftGradOp) Type() hm.Type { return hm.NewFnType(matA, vecA, matA, matA, vecA) }

func (o *liftGradOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	f := o.fwd
	if len(in) != o.Arity() {
		return nil, fmt.Errorf("%w: %s: %d inputs", ErrShape, o.name, len(in))
	}
	if err := checkShape(o.name, in[len(in)-1], f.sizes[len(f.sizes)-1], f.rows); err != nil {
		return nil, err
	}
	return tensor.Shape{f.nTheta}, nil
}

func (o *liftGradOp) Do(in ...G.Value) (G.Value, error) {
	f := o.fwd
	x, err := f.params(in[:2])
	if err != nil {
		return nil, err
	}
	dn, err := floats(in[len(in)-1], "LiftGrad dn")
	if err != nil {
		return nil, err
	}
	if err := checkLen(o.name, "dn", dn, f.sizes[len(f.sizes)-1]*f.rows); err != nil {
		return nil, err
	}
	clear(o.dtheta) // the kernel accumulates
	if err := call(o.name, func() { f.be.LiftBackwardT(f.rows, f.sizes, f.theta, x, f.acts, dn, o.dtheta) }); err != nil {
		return nil, err
	}
	return o.dthetaT, nil
}

func (o *liftGradOp) DiffWRT(n int) []bool { return noGrad(n) }
func (o *liftGradOp) SymDiff(G.Nodes, *G.Node, *G.Node) (G.Nodes, error) {
	return nil, errNoSecondOrder(o.name)
}
