package baselines_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/passivenfir/gputrain/baselines"
	"github.com/passivenfir/gputrain/data"
)

// gaussianBatches simulates sys on independent white-noise experiments, each from rest.
func gaussianBatches(sys interface{ Simulate([]float64) []float64 }, seed uint64, batches, samples int) *data.Dataset {
	rng := rand.New(rand.NewPCG(seed, seed))
	d := &data.Dataset{Name: "example", Ts: 1}
	for range batches {
		u := make([]float64, samples)
		for t := range u {
			u[t] = rng.NormFloat64()
		}
		d.Batches = append(d.Batches, data.Batch{U: u, Y: sys.Simulate(u)})
	}
	return d
}

func fit(y, yhat []float64) float64 {
	var e, s float64
	for t := range y {
		e += (y[t] - yhat[t]) * (y[t] - yhat[t])
		s += y[t] * y[t]
	}
	return 100 * (1 - math.Sqrt(e/s))
}

// Identify a second-order resonance (an FIR of its impulse response is long enough to
// be exact to machine precision) from ten experiments.
func ExampleN4SID() {
	// h(k) = 0.9^k sin(0.5 k + 0.3), k < 400: poles 0.9·e^{±0.5i}.
	g := make(data.FIR, 400)
	for k := range g {
		g[k] = math.Pow(0.9, float64(k)) * math.Sin(0.5*float64(k)+0.3)
	}
	train := gaussianBatches(g, 1, 10, 200)
	ss, err := baselines.N4SID(train, 2, 8)
	if err != nil {
		fmt.Println(err)
		return
	}
	test := gaussianBatches(g, 2, 1, 200).Batches[0]
	fmt.Printf("order %d, spectral radius %.4f, test fit %.2f%%\n",
		ss.Order(), ss.SpectralRadius(), fit(test.Y, ss.Simulate(test.U)))
	// Output:
	// order 2, spectral radius 0.9000, test fit 100.00%
}

// Train the paper's MLP(np) baseline (631 parameters, input window of 50 samples) on a
// short linear FIR. (On this toy it reaches about 94% test Fit after 30 epochs; the
// network is built for nonlinear data such as the mass-spring-damper.)
func ExampleTrainMLP() {
	sys := data.FIR{0.8, 0.5, -0.3}
	train := gaussianBatches(sys, 1, 30, 200)
	val := gaussianBatches(sys, 2, 3, 200)
	cfg := baselines.DefaultMLPConfig()
	cfg.Epochs = 30
	cfg.LR = 3e-3
	m, err := baselines.TrainMLP(train, val, cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	test := gaussianBatches(sys, 3, 1, 200).Batches[0]
	fmt.Println("parameters:", m.NumParams())
	fmt.Println("test fit above 90%:", fit(test.Y, m.Simulate(test.U)) > 90)
	// Output:
	// parameters: 631
	// test fit above 90%: true
}

// Train the passive REN baseline (691 parameters) on a passive linear FIR
// (positive real: 0.8 + 0.5z⁻¹ − 0.3z⁻²). Whatever the parameters, the REN is
// passive: ⟨u, y⟩ ≥ 0 on any input from rest.
func ExampleTrainREN() {
	sys := data.FIR{0.8, 0.5, -0.3}
	train := gaussianBatches(sys, 1, 16, 200)
	val := gaussianBatches(sys, 2, 3, 200)
	cfg := baselines.DefaultRENConfig()
	cfg.Epochs, cfg.Batch, cfg.LR = 40, 4, 1e-2
	m, err := baselines.TrainREN(train, val, cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	test := gaussianBatches(sys, 3, 1, 200).Batches[0]
	y := m.Simulate(test.U)
	uy := 0.0
	for i := range y {
		uy += test.U[i] * y[i]
	}
	fmt.Println("parameters:", m.NumParams())
	fmt.Println("test fit above 80%:", fit(test.Y, y) > 80)
	fmt.Println("⟨u, y⟩ ≥ 0:", uy >= 0)
	// Output:
	// parameters: 691
	// test fit above 80%: true
	// ⟨u, y⟩ ≥ 0: true
}
