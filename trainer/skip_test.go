package trainer

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/graph"
	"github.com/passivenfir/gputrain/kernels"
	"github.com/passivenfir/gputrain/model"
)

// corrupt returns d with the first skip outputs of every trajectory replaced
// by large random values: what Skip leaves out must not matter.
func corrupt(d *data.Dataset, skip int, rng *rand.Rand) *data.Dataset {
	c := &data.Dataset{Name: d.Name, Ts: d.Ts}
	for _, b := range d.Batches {
		y := append([]float64(nil), b.Y...)
		for t := range min(skip, len(y)) {
			y[t] = 100 * rng.NormFloat64()
		}
		c.Batches = append(c.Batches, data.Batch{U: b.U, Y: y})
	}
	return c
}

// TestSkipThetaG: with Skip, the θ_G step is the ridge regression on the
// rows after the first Skip samples of every trajectory, checked against a
// dense reference built from the model's own gains (K = 1, no Adam epochs,
// no constraints). Corrupting the skipped outputs must change nothing but
// the gains' q inputs, which the reference sees too.
func TestSkipThetaG(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for _, st := range []model.Structure{
		{LinearTaps: 9},
		{Branches: 2, Taps: 5, R1: 2, R2: 2, Hidden: []int{3}, Feedback: true, LinearTaps: 4},
	} {
		for _, skip := range []int{0, 7, 30} {
			t.Run(fmt.Sprintf("branches=%d/skip=%d", st.Branches, skip), func(t *testing.T) {
				truth, _ := model.RandomPassive(st, rng)
				train := corrupt(simulate(truth, 3, 40+rng.IntN(20), rng.Uint64()), skip, rng)
				cfg := DefaultConfig()
				cfg.Structure = st
				cfg.Passivity, cfg.Rho, cfg.GammaG = "none", 0, 0.3
				cfg.Iters, cfg.Epochs, cfg.Skip, cfg.Workers = 1, 0, skip, 1
				res, err := Train(context.Background(), cfg, train, nil)
				if err != nil {
					t.Fatal(err)
				}
				want := refThetaG(res.Model, train, skip, cfg.GammaG)
				got := append(append([]float64(nil), res.Model.G...), res.Model.Lin...)
				for i := range want {
					if math.Abs(got[i]-want[i]) > 1e-8*(1+math.Abs(want[i])) {
						t.Errorf("tap %d = %.12g, dense reference %.12g", i, got[i], want[i])
					}
				}
			})
		}
	}
}

// refThetaG solves (ΦᵀΦ + γI)θ = Φᵀy over the rows t ≥ skip of every
// trajectory, Φ's columns being n_j(t)·n_j(t−k)·u(t−k) for every branch j
// and tap k, then u(t−k) for the linear taps, with the gains of m's lifting
// network on the measured output.
func refThetaG(m *model.NFIR, d *data.Dataset, skip int, gamma float64) []float64 {
	nt := m.Branches*m.Taps + m.LinearTaps
	var rows [][]float64
	var ys []float64
	for _, b := range d.Batches {
		n := m.Gains(b.U, data.Q(b.Y))
		for t := skip; t < len(b.U); t++ {
			phi := make([]float64, nt)
			for j := 0; j < m.Branches; j++ {
				for k := 0; k < m.Taps && k <= t; k++ {
					phi[j*m.Taps+k] = n[t*m.Branches+j] * n[(t-k)*m.Branches+j] * b.U[t-k]
				}
			}
			for k := 0; k < m.LinearTaps && k <= t; k++ {
				phi[m.Branches*m.Taps+k] = b.U[t-k]
			}
			rows, ys = append(rows, phi), append(ys, b.Y[t])
		}
	}
	Phi := mat.NewDense(len(rows), nt, nil)
	for i, r := range rows {
		Phi.SetRow(i, r)
	}
	var A mat.Dense
	A.Mul(Phi.T(), Phi)
	for i := 0; i < nt; i++ {
		A.Set(i, i, A.At(i, i)+gamma)
	}
	var rhs, x mat.VecDense
	rhs.MulVec(Phi.T(), mat.NewVecDense(len(ys), ys))
	if err := x.SolveVec(&A, &rhs); err != nil {
		panic(err)
	}
	return x.RawVector().Data
}

// TestSkipLoss: skipLoss of the graph's open-loop (Adam) and closed-loop
// (BPTT) losses equals the MSE over the samples after skip of a direct
// simulation, and its gradient matches central finite differences of that
// MSE; a skip longer than a trajectory leaves all of it out.
func TestSkipLoss(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	st := model.Structure{Branches: 2, Taps: 4, R1: 2, R2: 3, Hidden: []int{3}, Feedback: true, LinearTaps: 3}
	m, _ := model.RandomPassive(st, rng)
	lens := []int{25, 8, 31}
	var us, ys [][]float64
	for _, T := range lens {
		u, y := make([]float64, T), make([]float64, T)
		for i := range u {
			u[i], y[i] = rng.NormFloat64(), rng.NormFloat64()
		}
		us, ys = append(us, u), append(ys, y)
	}
	b, err := graph.NewBatch(m, us, nil, ys)
	if err != nil {
		t.Fatal(err)
	}
	open, err := graph.NewOpenLoop(m, &kernels.CPU{})
	if err != nil {
		t.Fatal(err)
	}
	closed, err := graph.NewClosedLoop(m, &kernels.CPU{})
	if err != nil {
		t.Fatal(err)
	}
	nets := []struct {
		name string
		lf   func(theta []float64) lossGradFunc
		pred func(mm *model.NFIR, u, y []float64) []float64
	}{
		{"open", func(theta []float64) lossGradFunc {
			return func(b *graph.Batch, g []float64) (float64, error) { return open.LossGrad(b, theta, m.G, m.Lin, g) }
		}, func(mm *model.NFIR, u, y []float64) []float64 { p, _ := mm.Forward(u, data.Q(y)); return p }},
		{"closed", func(theta []float64) lossGradFunc {
			return func(b *graph.Batch, g []float64) (float64, error) { return closed.LossGrad(b, theta, m.G, m.Lin, g) }
		}, func(mm *model.NFIR, u, _ []float64) []float64 { p, _ := mm.Simulate(u); return p }},
	}
	theta := m.Lift.Flatten()
	for _, net := range nets {
		for _, skip := range []int{0, 5, 10} {
			t.Run(fmt.Sprintf("%s/skip=%d", net.name, skip), func(t *testing.T) {
				ref := func(th []float64) float64 {
					mm := m.Clone()
					if err := mm.Lift.SetFlat(th); err != nil {
						t.Fatal(err)
					}
					s, n := 0.0, 0
					for i := range us {
						p := net.pred(mm, us[i], ys[i])
						for r := skip; r < len(p); r++ {
							s += (p[r] - ys[i][r]) * (p[r] - ys[i][r])
							n++
						}
					}
					return s / float64(n)
				}
				grad := make([]float64, len(theta))
				loss, err := skipLoss(skip, net.lf(theta))(b, grad)
				if err != nil {
					t.Fatal(err)
				}
				if want := ref(theta); math.Abs(loss-want) > 1e-10*want {
					t.Errorf("loss %.15g, direct %.15g", loss, want)
				}
				for i := range theta {
					h := 1e-5 * math.Max(1, math.Abs(theta[i]))
					p := append([]float64(nil), theta...)
					p[i] += h
					lp := ref(p)
					p[i] -= 2 * h
					fd := (lp - ref(p)) / (2 * h)
					if math.Abs(grad[i]-fd) > 1e-6*(1+math.Abs(fd)) {
						t.Errorf("∂/∂θ[%d] = %.10g, finite difference %.10g", i, grad[i], fd)
					}
				}
				if n := scoredRows(b.Seqs, skip); n != 25+8+31-3*skip+max(skip-8, 0) {
					t.Errorf("scoredRows = %d", n)
				}
			})
		}
	}
}
