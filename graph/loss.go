package graph

import (
	"fmt"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// mseOp is the loss: (ŷ rows, y rows) → mean over the rows of (ŷ − y)².
// One pass, summed in a fixed order (deterministic).
type mseOp struct {
	opBase
	rows int
	val  G.F64
}

func newMSE(rows int) *mseOp {
	return &mseOp{opBase: newBase(fmt.Sprintf("MSE(%d)", rows)), rows: rows}
}

func (o *mseOp) Arity() int { return 2 }

// Type is Vector a → Vector a → a.
func (o *mseOp) Type() hm.Type { return hm.NewFnType(vecA, vecA, tvA) }

func (o *mseOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	if len(in) != 2 {
		return nil, fmt.Errorf("%w: %s: %d inputs", ErrShape, o.name, len(in))
	}
	for _, s := range in {
		if err := checkShape(o.name, s, o.rows); err != nil {
			return nil, err
		}
	}
	return tensor.ScalarShape(), nil
}

func (o *mseOp) Do(in ...G.Value) (G.Value, error) {
	yh, err := floats(in[0], o.name+" ŷ")
	if err != nil {
		return nil, err
	}
	y, err := floats(in[1], o.name+" y")
	if err != nil {
		return nil, err
	}
	if err := checkLen(o.name, "ŷ", yh, o.rows); err != nil {
		return nil, err
	}
	if err := checkLen(o.name, "y", y, o.rows); err != nil {
		return nil, err
	}
	s := 0.0
	for i, v := range yh {
		d := v - y[i]
		s += d * d
	}
	o.val = G.F64(s / float64(o.rows))
	return &o.val, nil
}

func (o *mseOp) DiffWRT(int) []bool { return []bool{true, false} }

func (o *mseOp) SymDiff(in G.Nodes, out, grad *G.Node) (G.Nodes, error) {
	gop := &mseGradOp{opBase: newBase(o.name + "Grad"), rows: o.rows, d: make([]float64, o.rows)}
	gop.dT = newDense(gop.d, o.rows)
	d, err := G.ApplyOp(gop, in[0], in[1], grad)
	if err != nil {
		return nil, fmt.Errorf("graph: %s: %w", o.name, err)
	}
	return G.Nodes{d, nil}, nil
}

// mseGradOp: (ŷ, y, dL) → dŷ = 2 dL (ŷ − y)/rows.
type mseGradOp struct {
	opBase
	rows int
	d    []float64
	dT   *tensor.Dense
}

func (o *mseGradOp) Arity() int { return 3 }

// Type is Vector a → Vector a → a → Vector a.
func (o *mseGradOp) Type() hm.Type { return hm.NewFnType(vecA, vecA, tvA, vecA) }

func (o *mseGradOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	return tensor.Shape{o.rows}, nil
}

func (o *mseGradOp) Do(in ...G.Value) (G.Value, error) {
	yh, err := floats(in[0], o.name+" ŷ")
	if err != nil {
		return nil, err
	}
	y, err := floats(in[1], o.name+" y")
	if err != nil {
		return nil, err
	}
	g, err := scalar(in[2], o.name+" dL")
	if err != nil {
		return nil, err
	}
	if err := checkLen(o.name, "ŷ", yh, o.rows); err != nil {
		return nil, err
	}
	if err := checkLen(o.name, "y", y, o.rows); err != nil {
		return nil, err
	}
	c := 2 * g / float64(o.rows)
	for i, v := range yh {
		o.d[i] = c * (v - y[i])
	}
	return o.dT, nil
}

func (o *mseGradOp) DiffWRT(n int) []bool { return noGrad(n) }
func (o *mseGradOp) SymDiff(G.Nodes, *G.Node, *G.Node) (G.Nodes, error) {
	return nil, errNoSecondOrder(o.name)
}
