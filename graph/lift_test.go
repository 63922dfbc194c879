package graph

import (
	"math"
	"testing"

	"github.com/passivenfir/gputrain/kernels"
	"github.com/passivenfir/gputrain/model"
)

// rowMajor hides the featureMajor methods of a backend, so that OpenLoop
// builds the per-layer DenseTanh ops and the row-major convolution bank.
type rowMajor struct{ kernels.Backend }

// TestLiftPaths runs every case on both layouts of the open-loop graph: the
// losses, outputs and gains agree bit for bit (the forward kernels are the
// same arithmetic), the θ_N gradients to rounding (LiftBackwardT sums over
// the rows in another order), and each layout's gradient matches central
// finite differences of the plain-loop reference loss (TestOpenLoopLossGrad
// checks the default, feature-major one).
func TestLiftPaths(t *testing.T) {
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, us, ys := newCase(t, c, uint64(50+i))
			b, err := NewBatch(m, us, nil, ys)
			if err != nil {
				t.Fatal(err)
			}
			theta := m.Lift.Flatten()
			type result struct{ loss, grad, y, n []float64 }
			var res [2]result
			for k, be := range []kernels.Backend{&kernels.CPU{}, rowMajor{&kernels.CPU{}}} {
				if _, fm := be.(featureMajor); fm != (k == 0) {
					t.Fatalf("backend %d: featureMajor %v", k, fm)
				}
				o, err := NewOpenLoop(m, be)
				if err != nil {
					t.Fatal(err)
				}
				r := result{grad: make([]float64, o.NumTheta()), y: make([]float64, b.Rows()), n: make([]float64, b.Rows()*m.Branches)}
				loss, err := o.LossGrad(b, theta, m.G, m.Lin, r.grad)
				if err != nil {
					t.Fatal(err)
				}
				r.loss = []float64{loss}
				if err := o.Output(b, theta, m.G, m.Lin, r.y); err != nil {
					t.Fatal(err)
				}
				if err := o.Gains(b, theta, r.n); err != nil {
					t.Fatal(err)
				}
				res[k] = r
			}
			for _, p := range []struct {
				what   string
				fm, rm []float64
			}{{"loss", res[0].loss, res[1].loss}, {"output", res[0].y, res[1].y}, {"gains", res[0].n, res[1].n}} {
				for j := range p.rm {
					if math.Float64bits(p.fm[j]) != math.Float64bits(p.rm[j]) {
						t.Fatalf("%s[%d]: feature-major %v, row-major %v", p.what, j, p.fm[j], p.rm[j])
					}
				}
			}
			if e := relErr(res[0].grad, res[1].grad); e > 1e-12 {
				t.Errorf("gradients differ by %.3g", e)
			}
		})
	}
}

// TestLiftPathsFD checks the row-major graph's gradient against finite
// differences, as TestOpenLoopLossGrad does for the feature-major default.
func TestLiftPathsFD(t *testing.T) {
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, us, ys := newCase(t, c, uint64(10+i))
			b, err := NewBatch(m, us, nil, ys)
			if err != nil {
				t.Fatal(err)
			}
			o, err := NewOpenLoop(m, rowMajor{&kernels.CPU{}})
			if err != nil {
				t.Fatal(err)
			}
			grad := make([]float64, o.NumTheta())
			if _, err := o.LossGrad(b, m.Lift.Flatten(), m.G, m.Lin, grad); err != nil {
				t.Fatal(err)
			}
			fd := fdGrad(t, m, func(mm *model.NFIR) float64 { return refOpenLoss(t, mm, us, ys) })
			if e := relErr(grad, fd); e > 1e-6 {
				t.Errorf("gradient relative error %.3g", e)
			}
		})
	}
}
