package graph

import (
	"fmt"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/passivenfir/gputrain/kernels"
)

// closedLoopOp is the closed-loop simulation of every trajectory of the
// batch, q(t) = ŷ(t−1): (θ_N flattened, g mN×mG[, lin mL]) → ŷ rows. The
// time loop runs inside one Backend call (one trajectory per worker task);
// the op keeps the Backend's tape, which its gradient op replays backwards
// (BPTT). u and the trajectory layout are op state, set per run.
type closedLoopOp struct {
	opBase
	be                       kernels.Backend
	st                       *seqState
	cfg                      *kernels.ClosedLoop
	rows, nTheta, mN, mG, mL int
	needDG, needDLin         bool
	tape                     *kernels.Tape
	y                        []float64
	yT                       *tensor.Dense
}

func newClosedLoopOp(be kernels.Backend, st *seqState, cfg *kernels.ClosedLoop, rows, nTheta int) *closedLoopOp {
	y := make([]float64, rows)
	return &closedLoopOp{
		opBase: newBase(fmt.Sprintf("ClosedLoop(%d)", rows)),
		be:     be, st: st, cfg: cfg, rows: rows, nTheta: nTheta, mN: cfg.MN, mG: cfg.MG, mL: cfg.ML,
		tape: new(kernels.Tape), y: y, yT: newDense(y, rows),
	}
}

func (o *closedLoopOp) Arity() int {
	if o.mL > 0 {
		return 3
	}
	return 2
}

// Type is Vector a → Matrix a (→ Vector a) → Vector a.
func (o *closedLoopOp) Type() hm.Type {
	if o.mL > 0 {
		return hm.NewFnType(vecA, matA, vecA, vecA)
	}
	return hm.NewFnType(vecA, matA, vecA)
}

func (o *closedLoopOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	if len(in) != o.Arity() {
		return nil, fmt.Errorf("%w: %s: %d inputs", ErrShape, o.name, len(in))
	}
	if err := checkShape(o.name, in[0], o.nTheta); err != nil {
		return nil, err
	}
	if err := checkShape(o.name, in[1], o.mN, o.mG); err != nil {
		return nil, err
	}
	if o.mL > 0 {
		if err := checkShape(o.name, in[2], o.mL); err != nil {
			return nil, err
		}
	}
	return tensor.Shape{o.rows}, nil
}

func (o *closedLoopOp) inputs(in []G.Value) (theta, g, lin []float64, err error) {
	if theta, err = floats(in[0], o.name+" θ"); err != nil {
		return
	}
	if g, err = floats(in[1], o.name+" g"); err != nil {
		return
	}
	if o.mL > 0 {
		if lin, err = floats(in[2], o.name+" lin"); err != nil {
			return
		}
	}
	if err = checkLen(o.name, "θ", theta, o.nTheta); err != nil {
		return
	}
	if err = checkLen(o.name, "g", g, o.mN*o.mG); err != nil {
		return
	}
	if err = checkLen(o.name, "lin", lin, o.mL); err != nil {
		return
	}
	err = checkLen(o.name, "u", o.st.u, o.rows)
	return
}

func (o *closedLoopOp) Do(in ...G.Value) (G.Value, error) {
	theta, g, lin, err := o.inputs(in)
	if err != nil {
		return nil, err
	}
	if err := call(o.name, func() { o.be.ClosedLoopForward(o.cfg, o.st.s, theta, g, lin, o.st.u, o.y, o.tape) }); err != nil {
		return nil, err
	}
	return o.yT, nil
}

func (o *closedLoopOp) DiffWRT(n int) []bool {
	d := []bool{true, o.needDG, o.needDLin}
	return d[:n]
}

// SymDiff returns dθ (and dg, dlin when wanted) from one closedLoopGradOp:
// a single adjoint pass for all of them.
func (o *closedLoopOp) SymDiff(in G.Nodes, out, grad *G.Node) (G.Nodes, error) {
	gop := newClosedLoopGrad(o)
	args := append(append(G.Nodes{}, in...), out, grad)
	packed, err := G.ApplyOp(gop, args...)
	if err != nil {
		return nil, fmt.Errorf("graph: %s: %w", o.name, err)
	}
	ret := make(G.Nodes, len(in))
	if ret[0], err = pick(packed, o.name+".dθ", 0, o.nTheta); err != nil {
		return nil, err
	}
	if o.needDG {
		if ret[1], err = pick(packed, o.name+".dg", gop.offG, o.mN, o.mG); err != nil {
			return nil, err
		}
	}
	if o.needDLin && o.mL > 0 {
		if ret[2], err = pick(packed, o.name+".dlin", gop.offL, o.mL); err != nil {
			return nil, err
		}
	}
	return ret, nil
}

// closedLoopGradOp: (θ, g[, lin], ŷ, dŷ) → packed [dθ | dg | dlin], the
// exact adjoint of the rollout (BPTT) from the forward op's tape.
type closedLoopGradOp struct {
	opBase
	fwd        *closedLoopOp
	offG, offL int
	packed     []float64
	packedT    *tensor.Dense
}

func newClosedLoopGrad(f *closedLoopOp) *closedLoopGradOp {
	g := &closedLoopGradOp{opBase: newBase(f.name + "Grad"), fwd: f}
	n := f.nTheta
	g.offG = n
	if f.needDG {
		n += f.mN * f.mG
	}
	g.offL = n
	if f.needDLin {
		n += f.mL
	}
	g.packed = make([]float64, n)
	g.packedT = newDense(g.packed, n)
	return g
}

func (o *closedLoopGradOp) Arity() int { return o.fwd.Arity() + 2 }

func (o *closedLoopGradOp) Type() hm.Type {
	if o.fwd.mL > 0 {
		return hm.NewFnType(vecA, matA, vecA, vecA, vecA, vecA)
	}
	return hm.NewFnType(vecA, matA, vecA, vecA, vecA)
}

func (o *closedLoopGradOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	if len(in) != o.Arity() {
		return nil, fmt.Errorf("%w: %s: %d inputs", ErrShape, o.name, len(in))
	}
	if err := checkShape(o.name, in[len(in)-1], o.fwd.rows); err != nil {
		return nil, err
	}
	return tensor.Shape{len(o.packed)}, nil
}

func (o *closedLoopGradOp) Do(in ...G.Value) (G.Value, error) {
	f := o.fwd
	theta, g, lin, err := f.inputs(in[:f.Arity()])
	if err != nil {
		return nil, err
	}
	dy, err := floats(in[len(in)-1], o.name+" dy")
	if err != nil {
		return nil, err
	}
	if err := checkLen(o.name, "dy", dy, f.rows); err != nil {
		return nil, err
	}
	// Backward accumulates: start every step from zero.
	clear(o.packed)
	dtheta := o.packed[:f.nTheta]
	var dg, dlin []float64
	if f.needDG {
		dg = o.packed[o.offG:o.offL]
	}
	if f.needDLin {
		dlin = o.packed[o.offL:]
	}
	if err := call(o.name, func() {
		f.be.ClosedLoopBackward(f.cfg, f.st.s, theta, g, lin, f.st.u, f.tape, dy, dtheta, dg, dlin)
	}); err != nil {
		return nil, err
	}
	return o.packedT, nil
}

func (o *closedLoopGradOp) DiffWRT(n int) []bool { return noGrad(n) }
func (o *closedLoopGradOp) SymDiff(G.Nodes, *G.Node, *G.Node) (G.Nodes, error) {
	return nil, errNoSecondOrder(o.name)
}
