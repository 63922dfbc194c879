package graph

import (
	"math"
	"testing"

	"github.com/passivenfir/gputrain/kernels"
	"github.com/passivenfir/gputrain/model"
)

// fdTaps is the central finite difference of loss w.r.t. g and lin.
func fdTaps(m *model.NFIR, loss func(*model.NFIR) float64) (dg, dlin []float64) {
	mm := m.Clone()
	fd := func(p []float64) []float64 {
		d := make([]float64, len(p))
		for i := range p {
			v := p[i]
			h := 1e-5 * math.Max(1, math.Abs(v))
			p[i] = v + h
			lp := loss(mm)
			p[i] = v - h
			lm := loss(mm)
			p[i] = v
			d[i] = (lp - lm) / (2 * h)
		}
		return d
	}
	return fd(mm.G), fd(mm.Lin)
}

// TestTapsGrad checks the gradient paths w.r.t. the taps (BranchConvGrad's
// dg, the linear FIR's dlin, ClosedLoopGrad's dg and dlin), which the θ_N
// steps do not use, against finite differences of the reference losses, and
// that θ_N's gradient is unchanged by asking for them.
func TestTapsGrad(t *testing.T) {
	for i, c := range append(cases, testCase{"linear only", model.Structure{LinearTaps: 6, R1: 1}, []int{20, 31}}) {
		t.Run(c.name, func(t *testing.T) {
			m, us, ys := newCase(t, c, uint64(70+i))
			b, err := NewBatch(m, us, nil, ys)
			if err != nil {
				t.Fatal(err)
			}
			be := &kernels.CPU{}
			o, cl, plain := tapNets(t, m, be)
			theta := m.Lift.Flatten()
			for _, net := range []struct {
				name string
				f    func(b *Batch, theta, g, lin, grad, dg, dlin []float64) (float64, error)
				ref  func(*model.NFIR) float64
			}{
				{"open", o.lossGrad, func(mm *model.NFIR) float64 { return refOpenLoss(t, mm, us, ys) }},
				{"closed", cl.lossGrad, func(mm *model.NFIR) float64 { return refClosedLoss(t, mm, us, ys) }},
			} {
				grad := make([]float64, len(theta))
				dg := make([]float64, len(m.G))
				dlin := make([]float64, len(m.Lin))
				if _, err := net.f(b, theta, m.G, m.Lin, grad, dg, dlin); err != nil {
					t.Fatalf("%s: %v", net.name, err)
				}
				fg, fl := fdTaps(m, net.ref)
				if e := relErr(dg, fg); e > 1e-6 {
					t.Errorf("%s: dg relative error %.3g\ngraph %v\nfd    %v", net.name, e, dg, fg)
				}
				if e := relErr(dlin, fl); e > 1e-6 {
					t.Errorf("%s: dlin relative error %.3g\ngraph %v\nfd    %v", net.name, e, dlin, fl)
				}
				if net.name == "open" && len(theta) > 0 {
					want := make([]float64, len(theta))
					if _, err := plain.LossGrad(b, theta, m.G, m.Lin, want); err != nil {
						t.Fatal(err)
					}
					if e := relErr(grad, want); e > 1e-14 {
						t.Errorf("θ_N gradient with taps differs by %.3g", e)
					}
				}
			}
		})
	}
}

// countingBackend counts the Backend calls of a step.
type countingBackend struct {
	*kernels.CPU
	convFwd, convBwd, convBwdDG, denseFwd, denseBwd, denseBwdDX int
	liftFwd, liftBwd                                            int
}

func (c *countingBackend) ConvForwardT(s kernels.Seqs, mN, mG int, u, n, g, z, y []float64) {
	c.convFwd++
	c.CPU.ConvForwardT(s, mN, mG, u, n, g, z, y)
}

func (c *countingBackend) ConvBackwardT(s kernels.Seqs, mN, mG int, u, n, g, z, dy, dn, dg []float64) {
	c.convBwd++
	if dg != nil {
		c.convBwdDG++
	}
	c.CPU.ConvBackwardT(s, mN, mG, u, n, g, z, dy, dn, dg)
}

func (c *countingBackend) LiftForwardT(rows int, sizes []int, theta, x []float64, acts [][]float64) {
	c.liftFwd++
	c.CPU.LiftForwardT(rows, sizes, theta, x, acts)
}

func (c *countingBackend) LiftBackwardT(rows int, sizes []int, theta, x []float64, acts [][]float64, dn, dtheta []float64) {
	c.liftBwd++
	c.CPU.LiftBackwardT(rows, sizes, theta, x, acts, dn, dtheta)
}

func (c *countingBackend) ConvForward(s kernels.Seqs, mN, mG int, u, n, g, z, y []float64) {
	c.convFwd++
	c.CPU.ConvForward(s, mN, mG, u, n, g, z, y)
}

func (c *countingBackend) ConvBackward(s kernels.Seqs, mN, mG int, u, n, g, z, dy, dn, dg []float64) {
	c.convBwd++
	if dg != nil {
		c.convBwdDG++
	}
	c.CPU.ConvBackward(s, mN, mG, u, n, g, z, dy, dn, dg)
}

func (c *countingBackend) DenseTanhForward(rows, in, out int, x, w, b, y []float64) {
	c.denseFwd++
	c.CPU.DenseTanhForward(rows, in, out, x, w, b, y)
}

func (c *countingBackend) DenseTanhBackward(rows, in, out int, x, w, y, dy, dx, dw, db []float64) {
	c.denseBwd++
	if dx != nil {
		c.denseBwdDX++
	}
	c.CPU.DenseTanhBackward(rows, in, out, x, w, y, dy, dx, dw, db)
}

// TestOneBackwardPerStep checks that a θ_N step calls every backward kernel
// once (the multi-output gradient ops are not run once per output), never
// asks for dg (the taps are constants there) nor for the gradient of the
// data features (the first layer's dx), on both layouts: the feature-major
// one runs the whole network in one call per direction.
func TestOneBackwardPerStep(t *testing.T) {
	c := cases[0] // 3 layers
	m, us, ys := newCase(t, c, 80)
	b, err := NewBatch(m, us, nil, ys)
	if err != nil {
		t.Fatal(err)
	}
	L := m.Lift.Layers()
	for _, fm := range []bool{true, false} {
		be := &countingBackend{CPU: &kernels.CPU{}}
		var kb kernels.Backend = be
		want := countingBackend{CPU: be.CPU, convFwd: 2, convBwd: 2, liftFwd: 2, liftBwd: 2}
		if !fm {
			kb = rowMajor{be}
			want = countingBackend{CPU: be.CPU, convFwd: 2, convBwd: 2, denseFwd: 2 * L, denseBwd: 2 * L, denseBwdDX: 2 * (L - 1)}
		}
		o, err := NewOpenLoop(m, kb)
		if err != nil {
			t.Fatal(err)
		}
		grad := make([]float64, o.NumTheta())
		for range 2 {
			if _, err := o.LossGrad(b, m.Lift.Flatten(), m.G, m.Lin, grad); err != nil {
				t.Fatal(err)
			}
		}
		if *be != want {
			t.Errorf("feature-major %v: kernel calls over two steps: %+v, want %+v", fm, *be, want)
		}
	}
}
