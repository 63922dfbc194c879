package graph

import (
	"fmt"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/passivenfir/gputrain/kernels"
)

// seqState is the trajectory layout of the batch a cached graph is running,
// shared by its ops. A graph is cached per number of rows; the layout of the
// rows into trajectories is set before every run.
type seqState struct {
	s kernels.Seqs
	u []float64 // the input, for ops that hold it as state (closed loop)
}

// branchConvOp is the bank of branch convolutions,
// ŷ(t) = Σ_j n_j(t) Σ_k g_j(k) n_j(t−k) u(t−k), within each trajectory:
// (n rows×mN, u rows, g mN×mG) → ŷ rows. It is a causal, time-varying
// convolution done directly by the Backend in O(rows·mN·mG): never as a
// dense rows×rows Toeplitz matrix or an im2col copy. z (the per-branch
// convolutions) is kept for the backward pass.
type branchConvOp struct {
	opBase
	be           kernels.Backend
	st           *seqState
	rows, mN, mG int
	needDG       bool // false in the θ_N step, where g is a constant
	z, y         []float64
	yT           *tensor.Dense

	// fm, when set, runs the branch-major kernels: n, z and dn are then
	// mN×rows (the output of a liftOp).
	fm featureMajor
}

// nShape is the shape of the gains input (and of dn).
func (o *branchConvOp) nShape() []int {
	if o.fm != nil {
		return []int{o.mN, o.rows}
	}
	return []int{o.rows, o.mN}
}

func newBranchConv(be kernels.Backend, st *seqState, rows, mN, mG int, needDG bool) *branchConvOp {
	y := make([]float64, rows)
	return &branchConvOp{
		opBase: newBase(fmt.Sprintf("BranchConv(%d×%d,%d)", rows, mN, mG)),
		be:     be, st: st, rows: rows, mN: mN, mG: mG, needDG: needDG,
		z: make([]float64, rows*mN), y: y, yT: newDense(y, rows),
	}
}

func (o *branchConvOp) Arity() int { return 3 }

// Type is Matrix a → Vector a → Matrix a → Vector a.
func (o *branchConvOp) Type() hm.Type { return hm.NewFnType(matA, vecA, matA, vecA) }

func (o *branchConvOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	if len(in) != 3 {
		return nil, fmt.Errorf("%w: %s: %d inputs", ErrShape, o.name, len(in))
	}
	if err := checkShape(o.name, in[0], o.nShape()...); err != nil {
		return nil, err
	}
	if err := checkShape(o.name, in[1], o.rows); err != nil {
		return nil, err
	}
	if err := checkShape(o.name, in[2], o.mN, o.mG); err != nil {
		return nil, err
	}
	return tensor.Shape{o.rows}, nil
}

func (o *branchConvOp) inputs(in []G.Value) (n, u, g []float64, err error) {
	if n, err = floats(in[0], o.name+" n"); err != nil {
		return
	}
	if u, err = floats(in[1], o.name+" u"); err != nil {
		return
	}
	if g, err = floats(in[2], o.name+" g"); err != nil {
		return
	}
	if err = checkLen(o.name, "n", n, o.rows*o.mN); err != nil {
		return
	}
	if err = checkLen(o.name, "u", u, o.rows); err != nil {
		return
	}
	err = checkLen(o.name, "g", g, o.mN*o.mG)
	return
}

func (o *branchConvOp) Do(in ...G.Value) (G.Value, error) {
	n, u, g, err := o.inputs(in)
	if err != nil {
		return nil, err
	}
	fwd := o.be.ConvForward
	if o.fm != nil {
		fwd = o.fm.ConvForwardT
	}
	if err := call(o.name, func() { fwd(o.st.s, o.mN, o.mG, u, n, g, o.z, o.y) }); err != nil {
		return nil, err
	}
	return o.yT, nil
}

// DiffWRT: the gains always, u never (data), g only when it is trained
// through the graph.
func (o *branchConvOp) DiffWRT(int) []bool { return []bool{true, false, o.needDG} }

// SymDiff returns dn (and dg) from one branchConvGradOp.
func (o *branchConvOp) SymDiff(in G.Nodes, out, grad *G.Node) (G.Nodes, error) {
	gop := newBranchConvGrad(o)
	packed, err := G.ApplyOp(gop, in[0], in[1], in[2], out, grad)
	if err != nil {
		return nil, fmt.Errorf("graph: %s: %w", o.name, err)
	}
	ret := make(G.Nodes, 3)
	if ret[0], err = pick(packed, o.name+".dn", 0, o.nShape()...); err != nil {
		return nil, err
	}
	if o.needDG {
		if ret[2], err = pick(packed, o.name+".dg", o.rows*o.mN, o.mN, o.mG); err != nil {
			return nil, err
		}
	}
	return ret, nil
}

// branchConvGradOp: (n, u, g, ŷ, dŷ) → packed [dn | dg]. ŷ is an input only
// to order it after the forward op, whose z it reads.
type branchConvGradOp struct {
	opBase
	fwd     *branchConvOp
	packed  []float64
	packedT *tensor.Dense
}

func newBranchConvGrad(f *branchConvOp) *branchConvGradOp {
	n := f.rows * f.mN
	if f.needDG {
		n += f.mN * f.mG
	}
	p := make([]float64, n)
	return &branchConvGradOp{opBase: newBase(f.name + "Grad"), fwd: f, packed: p, packedT: newDense(p, n)}
}

func (o *branchConvGradOp) Arity() int { return 5 }

// Type is Matrix a → Vector a → Matrix a → Vector a → Vector a → Vector a.
func (o *branchConvGradOp) Type() hm.Type { return hm.NewFnType(matA, vecA, matA, vecA, vecA, vecA) }

func (o *branchConvGradOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	if len(in) != 5 {
		return nil, fmt.Errorf("%w: %s: %d inputs", ErrShape, o.name, len(in))
	}
	if err := checkShape(o.name, in[4], o.fwd.rows); err != nil {
		return nil, err
	}
	return tensor.Shape{len(o.packed)}, nil
}

func (o *branchConvGradOp) Do(in ...G.Value) (G.Value, error) {
	f := o.fwd
	n, u, g, err := f.inputs(in[:3])
	if err != nil {
		return nil, err
	}
	dy, err := floats(in[4], o.name+" dy")
	if err != nil {
		return nil, err
	}
	if err := checkLen(o.name, "dy", dy, f.rows); err != nil {
		return nil, err
	}
	dn := o.packed[:f.rows*f.mN]
	var dg []float64
	if f.needDG {
		dg = o.packed[f.rows*f.mN:]
		clear(dg) // the kernel accumulates into dg
	}
	bwd := f.be.ConvBackward
	if f.fm != nil {
		bwd = f.fm.ConvBackwardT
	}
	if err := call(o.name, func() { bwd(f.st.s, f.mN, f.mG, u, n, g, f.z, dy, dn, dg) }); err != nil {
		return nil, err
	}
	return o.packedT, nil
}

func (o *branchConvGradOp) DiffWRT(n int) []bool { return noGrad(n) }
func (o *branchConvGradOp) SymDiff(G.Nodes, *G.Node, *G.Node) (G.Nodes, error) {
	return nil, errNoSecondOrder(o.name)
}

// linearOp is the parallel linear FIR, Σ_k lin(k) u(t−k) within each
// trajectory, added to a base signal: (base rows, u rows, lin mL) → rows, or
// without a base (u, lin) → rows for a model with no branches.
type linearOp struct {
	opBase
	be       kernels.Backend
	st       *seqState
	rows, mL int
	hasBase  bool
	needDLin bool
	y        []float64
	yT       *tensor.Dense
}

func newLinear(be kernels.Backend, st *seqState, rows, mL int, hasBase, needDLin bool) *linearOp {
	y := make([]float64, rows)
	return &linearOp{
		opBase: newBase(fmt.Sprintf("LinearFIR(%d,%d)", rows, mL)),
		be:     be, st: st, rows: rows, mL: mL, hasBase: hasBase, needDLin: needDLin,
		y: y, yT: newDense(y, rows),
	}
}

func (o *linearOp) Arity() int {
	if o.hasBase {
		return 3
	}
	return 2
}

// Type is Vector a → Vector a → Vector a (→ Vector a with a base).
func (o *linearOp) Type() hm.Type {
	if o.hasBase {
		return hm.NewFnType(vecA, vecA, vecA, vecA)
	}
	return hm.NewFnType(vecA, vecA, vecA)
}

func (o *linearOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	if len(in) != o.Arity() {
		return nil, fmt.Errorf("%w: %s: %d inputs", ErrShape, o.name, len(in))
	}
	for i := 0; i < len(in)-1; i++ {
		if err := checkShape(o.name, in[i], o.rows); err != nil {
			return nil, err
		}
	}
	if err := checkShape(o.name, in[len(in)-1], o.mL); err != nil {
		return nil, err
	}
	return tensor.Shape{o.rows}, nil
}

func (o *linearOp) Do(in ...G.Value) (G.Value, error) {
	k := 0
	if o.hasBase {
		base, err := floats(in[0], o.name+" base")
		if err != nil {
			return nil, err
		}
		if err := checkLen(o.name, "base", base, o.rows); err != nil {
			return nil, err
		}
		copy(o.y, base)
		k = 1
	} else {
		clear(o.y)
	}
	u, err := floats(in[k], o.name+" u")
	if err != nil {
		return nil, err
	}
	lin, err := floats(in[k+1], o.name+" lin")
	if err != nil {
		return nil, err
	}
	if err := checkLen(o.name, "u", u, o.rows); err != nil {
		return nil, err
	}
	if err := checkLen(o.name, "lin", lin, o.mL); err != nil {
		return nil, err
	}
	if err := call(o.name, func() { o.be.LinearForward(o.st.s, o.mL, u, lin, o.y) }); err != nil {
		return nil, err
	}
	return o.yT, nil
}

func (o *linearOp) DiffWRT(int) []bool {
	if o.hasBase {
		return []bool{true, false, o.needDLin}
	}
	return []bool{false, o.needDLin}
}

// SymDiff: the base passes the gradient through unchanged (the same node,
// no work); dlin, when wanted, is one LinearBackward call.
func (o *linearOp) SymDiff(in G.Nodes, out, grad *G.Node) (G.Nodes, error) {
	ret := make(G.Nodes, len(in))
	if o.hasBase {
		ret[0] = grad
	}
	if o.needDLin {
		gop := &linearGradOp{opBase: newBase(o.name + "Grad"), fwd: o, dlin: make([]float64, o.mL)}
		gop.dlinT = newDense(gop.dlin, o.mL)
		d, err := G.ApplyOp(gop, in[len(in)-2], grad)
		if err != nil {
			return nil, fmt.Errorf("graph: %s: %w", o.name, err)
		}
		ret[len(in)-1] = d
	}
	return ret, nil
}

// linearGradOp: (u, dy) → dlin(k) = Σ_t dy(t) u(t−k).
type linearGradOp struct {
	opBase
	fwd   *linearOp
	dlin  []float64
	dlinT *tensor.Dense
}

func (o *linearGradOp) Arity() int    { return 2 }
func (o *linearGradOp) Type() hm.Type { return hm.NewFnType(vecA, vecA, vecA) }
func (o *linearGradOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	return tensor.Shape{o.fwd.mL}, nil
}
func (o *linearGradOp) Do(in ...G.Value) (G.Value, error) {
	u, err := floats(in[0], o.name+" u")
	if err != nil {
		return nil, err
	}
	dy, err := floats(in[1], o.name+" dy")
	if err != nil {
		return nil, err
	}
	if err := checkLen(o.name, "dy", dy, o.fwd.rows); err != nil {
		return nil, err
	}
	clear(o.dlin)
	if err := call(o.name, func() { o.fwd.be.LinearBackward(o.fwd.st.s, o.fwd.mL, u, dy, o.dlin) }); err != nil {
		return nil, err
	}
	return o.dlinT, nil
}
func (o *linearGradOp) DiffWRT(n int) []bool { return noGrad(n) }
func (o *linearGradOp) SymDiff(G.Nodes, *G.Node, *G.Node) (G.Nodes, error) {
	return nil, errNoSecondOrder(o.name)
}
