package graph

import (
	"errors"
	"fmt"
	"hash"
	"hash/fnv"
	"sync/atomic"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// ErrShape reports inputs whose dimensions disagree with the model or batch.
var ErrShape = errors.New("graph: inconsistent dimensions")

// opSeq numbers every op instance. The number goes into the op's hash:
// gorgonia merges nodes whose op hashes and children are equal (hash
// consing), and two ops with equal sizes but different private buffers must
// never be merged.
var opSeq atomic.Uint64

// opBase carries what every custom op here shares: its identity and name.
type opBase struct {
	id   uint64
	name string
}

func newBase(name string) opBase { return opBase{id: opSeq.Add(1), name: name} }

func (o *opBase) CallsExtern() bool     { return false }
func (o *opBase) OverwritesInput() int  { return -1 }
func (o *opBase) String() string        { return o.name }
func (o *opBase) WriteHash(h hash.Hash) { fmt.Fprintf(h, "%s#%d", o.name, o.id) }
func (o *opBase) Hashcode() uint32 {
	h := fnv.New32a()
	o.WriteHash(h)
	return h.Sum32()
}

// ReturnsPtr is false for every op here: each op returns a tensor over its
// own preallocated buffer, which no other op may write into. Saying false
// keeps gorgonia's register allocator from letting a later op overwrite it
// in place (the buffers are reused by the next step and read by the
// backward ops).
func (o *opBase) ReturnsPtr() bool { return false }

// Types used in the op signatures. One type variable a: the element type is
// checked at run time (float64 only), the ranks by the type system.
var (
	tvA  = hm.TypeVariable('a')
	matA = G.TensorType{Dims: 2, Of: tvA}
	vecA = G.TensorType{Dims: 1, Of: tvA}
)

// tensorOfRank returns the gorgonia type of a rank-d tensor of a (a scalar
// for d = 0).
func tensorOfRank(d int) hm.Type {
	switch d {
	case 0:
		return tvA
	case 1:
		return vecA
	case 2:
		return matA
	default:
		return G.TensorType{Dims: d, Of: tvA}
	}
}

// floats returns the float64 data of a gorgonia value.
func floats(v G.Value, what string) ([]float64, error) {
	if v == nil {
		return nil, fmt.Errorf("graph: %s: no value", what)
	}
	// Float64s reads the backing slice without the allocation that Data()
	// makes (it boxes the slice header through reflect).
	if t, ok := v.(*tensor.Dense); ok && t.Dtype() == tensor.Float64 && t.IsNativelyAccessible() {
		return t.Float64s(), nil
	}
	d, ok := v.Data().([]float64)
	if !ok {
		return nil, fmt.Errorf("graph: %s: want float64 data, have %T", what, v.Data())
	}
	return d, nil
}

// scalar returns the float64 value of a scalar gorgonia value.
func scalar(v G.Value, what string) (float64, error) {
	if v == nil {
		return 0, fmt.Errorf("graph: %s: no value", what)
	}
	switch d := v.Data().(type) {
	case float64:
		return d, nil
	case []float64:
		if len(d) == 1 {
			return d[0], nil
		}
	}
	return 0, fmt.Errorf("graph: %s: want a float64 scalar, have %T", what, v.Data())
}

// checkShape compares an inferred input shape with the size an op was built for.
func checkShape(op string, ds G.DimSizer, want ...int) error {
	s, ok := ds.(tensor.Shape)
	if !ok {
		return fmt.Errorf("%w: %s: input is not a shape (%T)", ErrShape, op, ds)
	}
	if len(want) == 1 && s.IsVector() && s.TotalSize() == want[0] {
		return nil
	}
	if len(s) != len(want) {
		return fmt.Errorf("%w: %s: input shape %v, want %v", ErrShape, op, s, want)
	}
	for i := range want {
		if s[i] != want[i] {
			return fmt.Errorf("%w: %s: input shape %v, want %v", ErrShape, op, s, want)
		}
	}
	return nil
}

// checkLen checks the length of input data at run time.
func checkLen(op, what string, x []float64, n int) error {
	if len(x) != n {
		return fmt.Errorf("%w: %s: %s has %d values, want %d", ErrShape, op, what, len(x), n)
	}
	return nil
}

// newDense wraps buf in a tensor of the given shape (no copy).
func newDense(buf []float64, shape ...int) *tensor.Dense {
	return tensor.New(tensor.WithShape(shape...), tensor.WithBacking(buf))
}

// noGrad is DiffWRT for the gradient ops, which are not differentiated again
// (no second derivatives): every input is non-differentiable.
func noGrad(n int) []bool { return make([]bool, n) }

func errNoSecondOrder(op string) error {
	return fmt.Errorf("graph: %s: second derivatives are not implemented", op)
}

// pickOp is the multi-output trick. A gradient op computes the gradients of
// all its forward op's inputs in one kernel call and returns them packed in
// one vector; a pickOp returns one part of it, reshaped, as a view (no copy).
// So each gradient is computed once per step, while SymDiff still returns one
// node per input as gorgonia requires.
type pickOp struct {
	opBase
	off   int
	shape []int
	size  int

	// cache of the view: rebuilt only if the packed buffer changes.
	src  *float64
	view *tensor.Dense
}

func newPick(name string, off int, shape ...int) *pickOp {
	size := 1
	for _, s := range shape {
		size *= s
	}
	return &pickOp{opBase: newBase(name), off: off, shape: shape, size: size}
}

// pick applies a pickOp to packed.
func pick(packed *G.Node, name string, off int, shape ...int) (*G.Node, error) {
	return G.ApplyOp(newPick(name, off, shape...), packed)
}

func (o *pickOp) Arity() int { return 1 }
func (o *pickOp) Type() hm.Type {
	return hm.NewFnType(vecA, tensorOfRank(len(o.shape)))
}
func (o *pickOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, ok := in[0].(tensor.Shape)
	if !ok || s.TotalSize() < o.off+o.size {
		return nil, fmt.Errorf("%w: %s: packed input %v too small for [%d, %d)", ErrShape, o.name, in[0], o.off, o.off+o.size)
	}
	return tensor.Shape(append([]int(nil), o.shape...)), nil
}
func (o *pickOp) Do(in ...G.Value) (G.Value, error) {
	p, err := floats(in[0], o.name)
	if err != nil {
		return nil, err
	}
	if len(p) < o.off+o.size {
		return nil, fmt.Errorf("%w: %s: packed input has %d values, want %d", ErrShape, o.name, len(p), o.off+o.size)
	}
	if o.size == 0 {
		return newDense(make([]float64, 0), o.shape...), nil
	}
	if o.view == nil || o.src != &p[o.off] {
		o.src = &p[o.off]
		o.view = newDense(p[o.off:o.off+o.size:o.off+o.size], o.shape...)
	}
	return o.view, nil
}
func (o *pickOp) DiffWRT(n int) []bool { return noGrad(n) }
func (o *pickOp) SymDiff(G.Nodes, *G.Node, *G.Node) (G.Nodes, error) {
	return nil, errNoSecondOrder(o.name)
}

// call runs a Backend call and turns a panic into an error. The kernels
// panic on inconsistent dimensions (a programming error), and a TapeMachine
// runs the ops on a goroutine of its own, where a panic could not be
// recovered by the caller of RunAll: it would end the program.
func call(op string, f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(error); ok {
				err = fmt.Errorf("graph: %s: %w", op, e)
			} else {
				err = fmt.Errorf("graph: %s: %v", op, r)
			}
		}
	}()
	f()
	return nil
}
