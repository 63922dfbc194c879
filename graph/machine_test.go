package graph

import (
	"errors"
	"math"
	"strings"
	"testing"

	G "gorgonia.org/gorgonia"

	"github.com/passivenfir/gputrain/kernels"
	"github.com/passivenfir/gputrain/model"
)

// tapNets returns an open-loop and a closed-loop net of m that also give the
// taps' gradients, and a plain open-loop net.
func tapNets(t *testing.T, m *model.NFIR, be kernels.Backend) (o *OpenLoop, cl *ClosedLoopNet, plain *OpenLoop) {
	t.Helper()
	o, err := NewOpenLoop(m, be)
	if err != nil {
		t.Fatal(err)
	}
	o.tapsGrad = true
	cl, err = NewClosedLoop(m, be)
	if err != nil {
		t.Fatal(err)
	}
	cl.tapsGrad = true
	if cl.open != nil {
		cl.open.tapsGrad = true
	}
	plain, err = NewOpenLoop(m, be)
	if err != nil {
		t.Fatal(err)
	}
	return o, cl, plain
}

// netOutputs is everything the graphs give for one batch: losses, θ_N and
// tap gradients (open loop and closed loop), outputs and gains.
func netOutputs(t *testing.T, m *model.NFIR, b *Batch, be kernels.Backend) [][]float64 {
	t.Helper()
	o, cl, plain := tapNets(t, m, be)
	theta := m.Lift.Flatten()
	var out [][]float64
	for _, f := range []func(b *Batch, theta, g, lin, grad, dg, dlin []float64) (float64, error){o.lossGrad, cl.lossGrad} {
		grad, dg, dlin := make([]float64, len(theta)), make([]float64, len(m.G)), make([]float64, len(m.Lin))
		loss, err := f(b, theta, m.G, m.Lin, grad, dg, dlin)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, []float64{loss}, grad, dg, dlin)
	}
	grad := make([]float64, len(theta))
	loss, err := plain.LossGrad(b, theta, m.G, m.Lin, grad)
	if err != nil {
		t.Fatal(err)
	}
	y, yc, n := make([]float64, b.Rows()), make([]float64, b.Rows()), make([]float64, b.Rows()*m.Branches)
	if err := o.Output(b, theta, m.G, m.Lin, y); err != nil {
		t.Fatal(err)
	}
	if err := cl.Simulate(b, theta, m.G, m.Lin, yc); err != nil {
		t.Fatal(err)
	}
	if err := o.Gains(b, theta, n); err != nil {
		t.Fatal(err)
	}
	return append(out, []float64{loss}, grad, y, yc, n)
}

// TestMachineMatchesTape runs every graph (open and closed loop, with and
// without the taps' gradients, both layouts of the lifting network, and the
// output, gains and simulation parts) on the direct machine and on
// gorgonia's TapeMachine: every value must be the same bits.
func TestMachineMatchesTape(t *testing.T) {
	defer func() { useTape = false }()
	for i, c := range append(cases, testCase{"linear only", model.Structure{LinearTaps: 6, R1: 1}, []int{20, 31}}) {
		for _, be := range []kernels.Backend{&kernels.CPU{}, rowMajor{&kernels.CPU{}}} {
			m, us, ys := newCase(t, c, uint64(90+i))
			b, err := NewBatch(m, us, nil, ys)
			if err != nil {
				t.Fatal(err)
			}
			useTape = false
			direct := netOutputs(t, m, b, be)
			useTape = true
			tape := netOutputs(t, m, b, be)
			for k := range tape {
				if len(direct[k]) != len(tape[k]) {
					t.Fatalf("%s %T: result %d has %d values, tape %d", c.name, be, k, len(direct[k]), len(tape[k]))
				}
				for j := range tape[k] {
					if math.Float64bits(direct[k][j]) != math.Float64bits(tape[k][j]) {
						t.Fatalf("%s %T: result %d[%d] = %v, tape %v", c.name, be, k, j, direct[k][j], tape[k][j])
					}
				}
			}
		}
	}
}

// TestMachineErrors checks that the direct machine runs only what its
// outputs need, and reports an input without a value and an op's error.
func TestMachineErrors(t *testing.T) {
	g := G.NewGraph()
	x := G.NewVector(g, G.Float64, G.WithShape(3), G.WithName("x"))
	p, err := pick(x, "pick", 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	other, err := pick(x, "other", 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	m, err := newMachine(g, G.Nodes{p})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.run(); err == nil || !strings.Contains(err.Error(), "has no value") {
		t.Errorf("unbound input: err = %v", err)
	}
	if err := G.Let(x, newDense([]float64{1, 2, 3}, 3)); err != nil {
		t.Fatal(err)
	}
	if err := m.run(); err != nil {
		t.Fatal(err)
	}
	if d, err := floats(m.value(p), "pick"); err != nil || len(d) != 2 || d[0] != 2 || d[1] != 3 {
		t.Errorf("pick of [1 2 3] at 1: %v, %v", d, err)
	}
	if m.value(other) != nil {
		t.Errorf("a node the output does not need has a value")
	}
	bad, err := G.ApplyOp(failOp{newPick("fail", 0, 1)}, x)
	if err != nil {
		t.Fatal(err)
	}
	m, err = newMachine(g, G.Nodes{bad})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.run(); !errors.Is(err, errFail) || !strings.Contains(err.Error(), "fail") {
		t.Errorf("failing op: err = %v, want its error", err)
	}
}

var errFail = errors.New("failOp")

// failOp is a pick whose Do fails.
type failOp struct{ *pickOp }

func (failOp) Do(...G.Value) (G.Value, error) { return nil, errFail }
