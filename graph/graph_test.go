package graph

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/kernels"
	"github.com/passivenfir/gputrain/model"
)

// testCase is a model structure and a ragged batch.
type testCase struct {
	name string
	s    model.Structure
	lens []int
}

var cases = []testCase{
	{"FF/R1=1/4x4", model.Structure{Branches: 3, Taps: 5, R1: 1, Hidden: []int{4, 4}}, []int{37, 50, 1, 23}},
	{"FF/R1=3/lin", model.Structure{Branches: 2, Taps: 7, R1: 3, Hidden: []int{5}, LinearTaps: 4}, []int{19, 0, 41, 8}},
	{"FB/R1=2,R2=3", model.Structure{Branches: 3, Taps: 6, R1: 2, R2: 3, Hidden: []int{4}, Feedback: true}, []int{30, 12, 45}},
	{"FB/R1=1,R2=2/lin/nohidden", model.Structure{Branches: 2, Taps: 4, R1: 1, R2: 2, Feedback: true, LinearTaps: 3}, []int{25, 33}},
	{"FB/mN=1/lin", model.Structure{Branches: 1, Taps: 9, R1: 2, R2: 2, Hidden: []int{3, 2}, Feedback: true, LinearTaps: 5}, []int{40, 7, 28}},
	{"FB/R1=4,R2=2/hold/lin", model.Structure{Branches: 2, Taps: 5, R1: 4, R2: 2, Hidden: []int{4}, Feedback: true, LinearTaps: 3, HoldStart: true}, []int{22, 3, 31}},
	{"FF/R1=5/hold", model.Structure{Branches: 2, Taps: 6, R1: 5, Hidden: []int{3}, HoldStart: true}, []int{18, 27}},
}

// newCase returns a random passive model with non-trivial scalers and a
// random ragged data set (us, ys) for it.
func newCase(t testing.TB, c testCase, seed uint64) (*model.NFIR, [][]float64, [][]float64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, seed))
	m, err := model.RandomPassive(c.s, rng)
	if err != nil {
		t.Fatal(err)
	}
	m.UScaler = data.Scaler{Scale: 1.3, Mean: 0.1, Std: 0.8}
	m.QScaler = data.Scaler{Scale: 0.9, Mean: -0.2, Std: 1.1}
	us := make([][]float64, len(c.lens))
	ys := make([][]float64, len(c.lens))
	for i, T := range c.lens {
		us[i] = make([]float64, T)
		ys[i] = make([]float64, T)
		for k := range us[i] {
			us[i][k] = rng.NormFloat64()
			ys[i][k] = 0.5 * rng.NormFloat64()
		}
	}
	return m, us, ys
}

func rows(us [][]float64) int {
	n := 0
	for _, u := range us {
		n += len(u)
	}
	return n
}

// refOpenLoss is the open-loop MSE from the model package's reference
// (*NFIR).Forward with q from the data.
func refOpenLoss(t testing.TB, m *model.NFIR, us, ys [][]float64) float64 {
	t.Helper()
	s := 0.0
	for i, u := range us {
		yh, err := m.Forward(u, data.Q(ys[i]))
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range yh {
			d := v - ys[i][k]
			s += d * d
		}
	}
	return s / float64(rows(us))
}

// refClosedLoss is the closed-loop MSE from (*NFIR).Simulate.
func refClosedLoss(t testing.TB, m *model.NFIR, us, ys [][]float64) float64 {
	t.Helper()
	s := 0.0
	for i, u := range us {
		yh, _ := m.Simulate(u)
		for k, v := range yh {
			d := v - ys[i][k]
			s += d * d
		}
	}
	return s / float64(rows(us))
}

// fdGrad is the central finite difference of loss w.r.t. θ_N.
func fdGrad(t testing.TB, m *model.NFIR, loss func(*model.NFIR) float64) []float64 {
	t.Helper()
	theta := m.Lift.Flatten()
	mm := m.Clone()
	g := make([]float64, len(theta))
	for i := range theta {
		h := 1e-5 * math.Max(1, math.Abs(theta[i]))
		p := append([]float64(nil), theta...)
		p[i] = theta[i] + h
		if err := mm.Lift.SetFlat(p); err != nil {
			t.Fatal(err)
		}
		lp := loss(mm)
		p[i] = theta[i] - h
		if err := mm.Lift.SetFlat(p); err != nil {
			t.Fatal(err)
		}
		lm := loss(mm)
		g[i] = (lp - lm) / (2 * h)
	}
	return g
}

// relErr is max|a−b| / max|b|.
func relErr(a, b []float64) float64 {
	num, den := 0.0, 0.0
	for i := range a {
		num = math.Max(num, math.Abs(a[i]-b[i]))
		den = math.Max(den, math.Abs(b[i]))
	}
	if den == 0 {
		return num
	}
	return num / den
}

func maxAbs(x []float64) float64 {
	m := 0.0
	for _, v := range x {
		m = math.Max(m, math.Abs(v))
	}
	return m
}

func relDiff(a, b float64) float64 {
	return math.Abs(a-b) / math.Max(math.Abs(b), math.SmallestNonzeroFloat64)
}

func TestOpenLoopLossGrad(t *testing.T) {
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, us, ys := newCase(t, c, uint64(10+i))
			b, err := NewBatch(m, us, nil, ys)
			if err != nil {
				t.Fatal(err)
			}
			o, err := NewOpenLoop(m, &kernels.CPU{})
			if err != nil {
				t.Fatal(err)
			}
			grad := make([]float64, o.NumTheta())
			loss, err := o.LossGrad(b, m.Lift.Flatten(), m.G, m.Lin, grad)
			if err != nil {
				t.Fatal(err)
			}
			ref := refOpenLoss(t, m, us, ys)
			if d := relDiff(loss, ref); d > 1e-12 {
				t.Errorf("loss %.17g, reference %.17g (relative difference %.3g)", loss, ref, d)
			}
			fd := fdGrad(t, m, func(mm *model.NFIR) float64 { return refOpenLoss(t, mm, us, ys) })
			e := relErr(grad, fd)
			if e > 1e-6 {
				t.Errorf("gradient relative error %.3g\ngraph %v\nfd    %v", e, grad, fd)
			}
			t.Logf("loss %.6g (reference %.6g), |∇|∞ %.3g, gradient relative error %.2g", loss, ref, maxAbs(fd), e)
		})
	}
}

func TestClosedLoopLossGrad(t *testing.T) {
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, us, ys := newCase(t, c, uint64(20+i))
			b, err := NewBatch(m, us, nil, ys)
			if err != nil {
				t.Fatal(err)
			}
			cl, err := NewClosedLoop(m, &kernels.CPU{})
			if err != nil {
				t.Fatal(err)
			}
			grad := make([]float64, cl.NumTheta())
			loss, err := cl.LossGrad(b, m.Lift.Flatten(), m.G, m.Lin, grad)
			if err != nil {
				t.Fatal(err)
			}
			ref := refClosedLoss(t, m, us, ys)
			if d := relDiff(loss, ref); d > 1e-12 {
				t.Errorf("loss %.17g, reference %.17g (relative difference %.3g)", loss, ref, d)
			}
			fd := fdGrad(t, m, func(mm *model.NFIR) float64 { return refClosedLoss(t, mm, us, ys) })
			e := relErr(grad, fd)
			if e > 1e-6 {
				t.Errorf("gradient relative error %.3g\ngraph %v\nfd    %v", e, grad, fd)
			}
			t.Logf("loss %.6g (reference %.6g), |∇|∞ %.3g, gradient relative error %.2g", loss, ref, maxAbs(fd), e)
		})
	}
}

func TestGainsOutputSimulate(t *testing.T) {
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, us, ys := newCase(t, c, uint64(30+i))
			b, err := NewBatch(m, us, nil, ys)
			if err != nil {
				t.Fatal(err)
			}
			be := &kernels.CPU{}
			o, err := NewOpenLoop(m, be)
			if err != nil {
				t.Fatal(err)
			}
			cl, err := NewClosedLoop(m, be)
			if err != nil {
				t.Fatal(err)
			}
			theta := m.Lift.Flatten()
			n := make([]float64, b.Rows()*m.Branches)
			if err := o.Gains(b, theta, n); err != nil {
				t.Fatal(err)
			}
			yo := make([]float64, b.Rows())
			if err := o.Output(b, theta, m.G, m.Lin, yo); err != nil {
				t.Fatal(err)
			}
			yc := make([]float64, b.Rows())
			if err := cl.Simulate(b, theta, m.G, m.Lin, yc); err != nil {
				t.Fatal(err)
			}
			for k, u := range us {
				off := b.Seqs.Off[k]
				q := data.Q(ys[k])
				if e := relErr(n[off*m.Branches:(off+len(u))*m.Branches], m.Gains(u, q)); e > 1e-14 {
					t.Errorf("trajectory %d: gains differ from (*NFIR).Gains by %.3g", k, e)
				}
				ref, _ := m.Forward(u, q)
				if e := relErr(yo[off:off+len(u)], ref); e > 1e-12 {
					t.Errorf("trajectory %d: open-loop output differs from (*NFIR).Forward by %.3g", k, e)
				}
				sim, _ := m.Simulate(u)
				if e := relErr(yc[off:off+len(u)], sim); e > 1e-12 {
					t.Errorf("trajectory %d: closed-loop output differs from (*NFIR).Simulate by %.3g", k, e)
				}
			}
		})
	}
}

// TestRepeatIdentical guards against gradients accumulating across runs
// (gorgonia's dual values, or kernels that add into dw, db, dθ): the same
// inputs must give bit-identical losses and gradients, also after a run on
// other parameters and another batch size.
func TestRepeatIdentical(t *testing.T) {
	c := cases[2]
	m, us, ys := newCase(t, c, 40)
	b, err := NewBatch(m, us, nil, ys)
	if err != nil {
		t.Fatal(err)
	}
	small, err := NewBatch(m, us[:1], nil, ys[:1])
	if err != nil {
		t.Fatal(err)
	}
	be := &kernels.CPU{}
	o, err := NewOpenLoop(m, be)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := NewClosedLoop(m, be)
	if err != nil {
		t.Fatal(err)
	}
	theta := m.Lift.Flatten()
	other := append([]float64(nil), theta...)
	for i := range other {
		other[i] *= 0.7
	}
	type lossGrad func(b *Batch, theta, g, lin, grad []float64) (float64, error)
	for _, net := range []struct {
		name string
		f    lossGrad
	}{{"open", o.LossGrad}, {"closed", cl.LossGrad}} {
		g1 := make([]float64, len(theta))
		g2 := make([]float64, len(theta))
		scratch := make([]float64, len(theta))
		l1, err := net.f(b, theta, m.G, m.Lin, g1)
		if err != nil {
			t.Fatal(err)
		}
		l2, err := net.f(b, theta, m.G, m.Lin, g2)
		if err != nil {
			t.Fatal(err)
		}
		if l1 != l2 {
			t.Errorf("%s: losses of two identical calls differ: %v, %v", net.name, l1, l2)
		}
		for i := range g1 {
			if g1[i] != g2[i] {
				t.Fatalf("%s: gradients of two identical calls differ at %d: %v, %v", net.name, i, g1[i], g2[i])
			}
		}
		if _, err := net.f(b, other, m.G, m.Lin, scratch); err != nil {
			t.Fatal(err)
		}
		if _, err := net.f(small, theta, m.G, m.Lin, scratch); err != nil {
			t.Fatal(err)
		}
		l3, err := net.f(b, theta, m.G, m.Lin, g2)
		if err != nil {
			t.Fatal(err)
		}
		if l3 != l1 {
			t.Errorf("%s: loss changed after other calls: %v, %v", net.name, l1, l3)
		}
		for i := range g1 {
			if g1[i] != g2[i] {
				t.Fatalf("%s: gradient changed after other calls at %d: %v, %v", net.name, i, g1[i], g2[i])
			}
		}
	}
}

// TestLinearOnly covers a model without branches: no θ_N, loss only.
func TestLinearOnly(t *testing.T) {
	c := testCase{"lin", model.Structure{LinearTaps: 6, R1: 1, Feedback: true, R2: 1}, []int{20, 31}}
	m, us, ys := newCase(t, c, 50)
	b, err := NewBatch(m, us, nil, ys)
	if err != nil {
		t.Fatal(err)
	}
	o, err := NewOpenLoop(m, &kernels.CPU{})
	if err != nil {
		t.Fatal(err)
	}
	cl, err := NewClosedLoop(m, &kernels.CPU{})
	if err != nil {
		t.Fatal(err)
	}
	lo, err := o.LossGrad(b, nil, nil, m.Lin, nil)
	if err != nil {
		t.Fatal(err)
	}
	lc, err := cl.LossGrad(b, nil, nil, m.Lin, nil)
	if err != nil {
		t.Fatal(err)
	}
	ref := refClosedLoss(t, m, us, ys)
	if relDiff(lo, ref) > 1e-12 || relDiff(lc, ref) > 1e-12 {
		t.Errorf("losses %v (open), %v (closed), reference %v", lo, lc, ref)
	}
}

func TestErrors(t *testing.T) {
	c := cases[0]
	m, us, ys := newCase(t, c, 60)
	b, err := NewBatch(m, us, nil, ys)
	if err != nil {
		t.Fatal(err)
	}
	o, err := NewOpenLoop(m, &kernels.CPU{})
	if err != nil {
		t.Fatal(err)
	}
	cl, err := NewClosedLoop(m, &kernels.CPU{})
	if err != nil {
		t.Fatal(err)
	}
	theta := m.Lift.Flatten()
	grad := make([]float64, len(theta))
	bad := *b
	bad.U = bad.U[1:]
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"short θ", func() error { _, err := o.LossGrad(b, theta[1:], m.G, m.Lin, grad); return err }()},
		{"short g", func() error { _, err := o.LossGrad(b, theta, m.G[1:], m.Lin, grad); return err }()},
		{"short grad", func() error { _, err := o.LossGrad(b, theta, m.G, m.Lin, grad[1:]); return err }()},
		{"bad batch", func() error { _, err := o.LossGrad(&bad, theta, m.G, m.Lin, grad); return err }()},
		{"closed bad batch", func() error { _, err := cl.LossGrad(&bad, theta, m.G, m.Lin, grad); return err }()},
		{"gains buffer", o.Gains(b, theta, make([]float64, 3))},
		{"ragged y", func() error { _, err := NewBatch(m, us, nil, ys[:2]); return err }()},
	} {
		if !errors.Is(tc.err, ErrShape) {
			t.Errorf("%s: error %v, want ErrShape", tc.name, tc.err)
		}
	}
}

func Example() {
	s := model.Structure{Branches: 2, Taps: 8, R1: 1, R2: 1, Hidden: []int{4}, Feedback: true}
	m, _ := model.RandomPassive(s, rand.New(rand.NewPCG(1, 1)))
	u := make([]float64, 100)
	for t := range u {
		u[t] = math.Sin(0.3 * float64(t))
	}
	y, _ := m.Simulate(u) // a target the model reproduces exactly

	b, err := NewBatch(m, [][]float64{u}, nil, [][]float64{y})
	if err != nil {
		fmt.Println(err)
		return
	}
	net, err := NewClosedLoop(m, &kernels.CPU{})
	if err != nil {
		fmt.Println(err)
		return
	}
	grad := make([]float64, net.NumTheta())
	loss, err := net.LossGrad(b, m.Lift.Flatten(), m.G, m.Lin, grad)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("θ_N has %d parameters; at the true model the closed-loop loss is %.0f\n", len(grad), loss)

	// Another θ_N: the loss and its gradient are no longer zero.
	theta := m.Lift.Flatten()
	for i := range theta {
		theta[i] *= 0.9
	}
	loss, err = net.LossGrad(b, theta, m.G, m.Lin, grad)
	if err != nil {
		fmt.Println(err)
		return
	}
	norm := 0.0
	for _, g := range grad {
		norm += g * g
	}
	fmt.Printf("scaled by 0.9: loss > 0: %v, gradient ≠ 0: %v\n", loss > 1e-6, norm > 0)
	// Output:
	// θ_N has 22 parameters; at the true model the closed-loop loss is 0
	// scaled by 0.9: loss > 0: true, gradient ≠ 0: true
}
