package graph

import (
	"fmt"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/passivenfir/gputrain/kernels"
)

// denseTanhOp is one layer of the lifting network, y = tanh(x wᵀ + b), for
// all rows of the batch at once: x rows×in, w out×in, b out → y rows×out.
// The work is one Backend call; the op owns its output buffer.
type denseTanhOp struct {
	opBase
	be            kernels.Backend
	rows, in, out int
	needDX        bool // false for the first layer: its input is data
	y             []float64
	yT            *tensor.Dense
}

func newDenseTanh(be kernels.Backend, layer, rows, in, out int, needDX bool) *denseTanhOp {
	y := make([]float64, rows*out)
	return &denseTanhOp{
		opBase: newBase(fmt.Sprintf("DenseTanh%d(%d×%d→%d)", layer, rows, in, out)),
		be:     be, rows: rows, in: in, out: out, needDX: needDX,
		y: y, yT: newDense(y, rows, out),
	}
}

func (o *denseTanhOp) Arity() int { return 3 }

// Type is Matrix a → Matrix a → Vector a → Matrix a.
func (o *denseTanhOp) Type() hm.Type { return hm.NewFnType(matA, matA, vecA, matA) }

func (o *denseTanhOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	if len(in) != 3 {
		return nil, fmt.Errorf("%w: %s: %d inputs", ErrShape, o.name, len(in))
	}
	if err := checkShape(o.name, in[0], o.rows, o.in); err != nil {
		return nil, err
	}
	if err := checkShape(o.name, in[1], o.out, o.in); err != nil {
		return nil, err
	}
	if err := checkShape(o.name, in[2], o.out); err != nil {
		return nil, err
	}
	return tensor.Shape{o.rows, o.out}, nil
}

func (o *denseTanhOp) Do(in ...G.Value) (G.Value, error) {
	x, err := floats(in[0], o.name+" x")
	if err != nil {
		return nil, err
	}
	w, err := floats(in[1], o.name+" w")
	if err != nil {
		return nil, err
	}
	b, err := floats(in[2], o.name+" b")
	if err != nil {
		return nil, err
	}
	if err := checkLen(o.name, "x", x, o.rows*o.in); err != nil {
		return nil, err
	}
	if err := checkLen(o.name, "w", w, o.out*o.in); err != nil {
		return nil, err
	}
	if err := checkLen(o.name, "b", b, o.out); err != nil {
		return nil, err
	}
	if err := call(o.name, func() { o.be.DenseTanhForward(o.rows, o.in, o.out, x, w, b, o.y) }); err != nil {
		return nil, err
	}
	return o.yT, nil
}

// DiffWRT: the weights and biases always; the input only when it is the
// output of another layer (never the data matrix, which would cost a dx pass).
func (o *denseTanhOp) DiffWRT(n int) []bool { return []bool{o.needDX, true, true} }

// SymDiff returns (dx, dw, db) as views into the one packed output of a
// single denseTanhGradOp, so the backward kernel runs once per step.
func (o *denseTanhOp) SymDiff(in G.Nodes, out, grad *G.Node) (G.Nodes, error) {
	gop := newDenseTanhGrad(o)
	packed, err := G.ApplyOp(gop, in[0], in[1], out, grad)
	if err != nil {
		return nil, fmt.Errorf("graph: %s: %w", o.name, err)
	}
	ret := make(G.Nodes, 3)
	if o.needDX {
		if ret[0], err = pick(packed, o.name+".dx", gop.offX, o.rows, o.in); err != nil {
			return nil, err
		}
	}
	if ret[1], err = pick(packed, o.name+".dw", gop.offW, o.out, o.in); err != nil {
		return nil, err
	}
	if ret[2], err = pick(packed, o.name+".db", gop.offB, o.out); err != nil {
		return nil, err
	}
	return ret, nil
}

// denseTanhGradOp is the backward of denseTanhOp: (x, w, y, dy) → packed
// [dx | dw | db] (dx only when the forward op needs it).
type denseTanhGradOp struct {
	opBase
	fwd              *denseTanhOp
	offX, offW, offB int
	packed           []float64
	packedT          *tensor.Dense
}

func newDenseTanhGrad(f *denseTanhOp) *denseTanhGradOp {
	g := &denseTanhGradOp{opBase: newBase(f.name + "Grad"), fwd: f}
	n := 0
	if f.needDX {
		n = f.rows * f.in
	}
	g.offW = n
	g.offB = n + f.out*f.in
	g.packed = make([]float64, g.offB+f.out)
	g.packedT = newDense(g.packed, len(g.packed))
	return g
}

func (o *denseTanhGradOp) Arity() int { return 4 }

// Type is Matrix a → Matrix a → Matrix a → Matrix a → Vector a.
func (o *denseTanhGradOp) Type() hm.Type { return hm.NewFnType(matA, matA, matA, matA, vecA) }

func (o *denseTanhGradOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	f := o.fwd
	if len(in) != 4 {
		return nil, fmt.Errorf("%w: %s: %d inputs", ErrShape, o.name, len(in))
	}
	for i, want := range [][]int{{f.rows, f.in}, {f.out, f.in}, {f.rows, f.out}, {f.rows, f.out}} {
		if err := checkShape(o.name, in[i], want...); err != nil {
			return nil, err
		}
	}
	return tensor.Shape{len(o.packed)}, nil
}

func (o *denseTanhGradOp) Do(in ...G.Value) (G.Value, error) {
	f := o.fwd
	var xs [4][]float64
	for i, what := range []string{"x", "w", "y", "dy"} {
		v, err := floats(in[i], o.name+" "+what)
		if err != nil {
			return nil, err
		}
		xs[i] = v
	}
	if err := checkLen(o.name, "dy", xs[3], f.rows*f.out); err != nil {
		return nil, err
	}
	var dx []float64
	if f.needDX {
		dx = o.packed[:o.offW]
	}
	dw, db := o.packed[o.offW:o.offB], o.packed[o.offB:]
	// The kernel accumulates into dw and db: zero them first, or gradients
	// would add up across steps.
	clear(dw)
	clear(db)
	if err := call(o.name, func() { f.be.DenseTanhBackward(f.rows, f.in, f.out, xs[0], xs[1], xs[2], xs[3], dx, dw, db) }); err != nil {
		return nil, err
	}
	return o.packedT, nil
}

func (o *denseTanhGradOp) DiffWRT(n int) []bool { return noGrad(n) }
func (o *denseTanhGradOp) SymDiff(G.Nodes, *G.Node, *G.Node) (G.Nodes, error) {
	return nil, errNoSecondOrder(o.name)
}
