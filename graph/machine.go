package graph

import (
	"fmt"

	G "gorgonia.org/gorgonia"
)

// useTape makes newVM return gorgonia's TapeMachine instead of the direct
// machine. It is a variable so that the tests can run both on the same
// graphs (TestMachineMatchesTape).
var useTape = false

// vm runs a compiled part of a graph and then gives the values of its nodes.
type vm interface {
	run() error
	value(n *G.Node) G.Value
}

// newVM returns the machine of the part of g that outs depend on (all of g
// when outs is empty): the direct machine, or with useTape a TapeMachine
// (which compiles the function from ins to outs).
func newVM(g *G.ExprGraph, ins, outs G.Nodes) (vm, error) {
	if useTape {
		if len(outs) == 0 {
			return tapeVM{G.NewTapeMachine(g)}, nil
		}
		prog, locMap, err := G.CompileFunction(g, ins, outs)
		if err != nil {
			return nil, fmt.Errorf("graph: compile: %w", err)
		}
		return tapeVM{G.NewTapeMachine(g, G.WithPrecompiled(prog, locMap))}, nil
	}
	return newMachine(g, outs)
}

// tapeVM is gorgonia's TapeMachine as a vm: it binds every value to its
// node.
type tapeVM struct{ m G.VM }

// run resets the machine and runs its whole program. Reset matters: a
// TapeMachine resumes where it stopped, so without it a second RunAll would
// do nothing and return the previous step's values.
func (t tapeVM) run() error {
	t.m.Reset()
	if err := t.m.RunAll(); err != nil {
		return fmt.Errorf("graph: run: %w", err)
	}
	return nil
}

func (t tapeVM) value(n *G.Node) G.Value { return n.Value() }

// machine runs the nodes of a gorgonia graph in the order of gorgonia's own
// compiler (the reverse of G.Sort), each op's Do on its children's values,
// on the calling goroutine. TapeMachine.RunAll does the same on a goroutine
// of its own while it locks the calling one to its OS thread: every run
// then hands the processor to another thread and back (two futex wake-ups)
// and the new goroutine grows its stack again, ≈ 20 µs of the 0.26 ms Adam
// step (docs/BENCHMARKS.md, session 20). The ops here own their output
// buffers and ReturnsPtr is false for all of them, so plain Do is what the
// TapeMachine calls too, and the values are the same bits
// (TestMachineMatchesTape).
//
// The values stay in the machine (value), not bound to the nodes.
type machine struct {
	steps []mstep
	vals  []G.Value
	slot  map[*G.Node]int
}

// mstep computes vals[i] for one node: an input reads the value bound to it
// (G.Let, or its initial value), an op node runs Do on args.
type mstep struct {
	n    *G.Node
	op   G.Op // nil for an input
	args []int
	in   []G.Value // reused argument list of Do
}

// newMachine orders the nodes that outs depend on (all of g for no outs).
func newMachine(g *G.ExprGraph, outs G.Nodes) (*machine, error) {
	sorted, err := G.Sort(g)
	if err != nil {
		return nil, fmt.Errorf("graph: sort: %w", err)
	}
	children := func(n *G.Node) (G.Nodes, error) {
		var cs G.Nodes
		it := g.From(n.ID())
		for it.Next() {
			c, ok := it.Node().(*G.Node)
			if !ok {
				return nil, fmt.Errorf("graph: node %v has a child of type %T", n, it.Node())
			}
			cs = append(cs, c)
		}
		return cs, nil
	}
	var need map[*G.Node]bool
	if len(outs) > 0 {
		need = map[*G.Node]bool{}
		stack := append(G.Nodes(nil), outs...)
		for len(stack) > 0 {
			n := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if need[n] {
				continue
			}
			need[n] = true
			cs, err := children(n)
			if err != nil {
				return nil, err
			}
			stack = append(stack, cs...)
		}
	}
	m := &machine{slot: map[*G.Node]int{}}
	for i := len(sorted) - 1; i >= 0; i-- {
		n := sorted[i]
		if need != nil && !need[n] {
			continue
		}
		s := mstep{n: n, op: n.Op()}
		cs, err := children(n)
		if err != nil {
			return nil, err
		}
		if s.op == nil && len(cs) > 0 {
			return nil, fmt.Errorf("graph: node %v has children but no op", n)
		}
		for _, c := range cs {
			j, ok := m.slot[c]
			if !ok {
				return nil, fmt.Errorf("graph: node %v runs before its child %v", n, c)
			}
			s.args = append(s.args, j)
		}
		s.in = make([]G.Value, len(s.args))
		m.slot[n] = len(m.steps)
		m.steps = append(m.steps, s)
	}
	m.vals = make([]G.Value, len(m.steps))
	return m, nil
}

// run computes every node's value.
func (m *machine) run() error {
	for i := range m.steps {
		s := &m.steps[i]
		if s.op == nil {
			v := s.n.Value()
			if v == nil {
				return fmt.Errorf("graph: run: input %v has no value", s.n)
			}
			m.vals[i] = v
			continue
		}
		for k, j := range s.args {
			s.in[k] = m.vals[j]
		}
		v, err := s.op.Do(s.in...)
		if err != nil {
			return fmt.Errorf("graph: run: %v: %w", s.n, err)
		}
		m.vals[i] = v
	}
	return nil
}

// value returns n's value from the last run, nil for a node the machine
// does not run.
func (m *machine) value(n *G.Node) G.Value {
	if i, ok := m.slot[n]; ok {
		return m.vals[i]
	}
	return nil
}
