package model

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Flatten returns θ_N as one vector: for each layer l in order, W[l]
// (row-major) then B[l]. Optimizers, kernels and the model file agree on this
// order.
func (m *MLP) Flatten() []float64 {
	theta := make([]float64, 0, m.NumParams())
	for l := range m.W {
		theta = append(theta, m.W[l]...)
		theta = append(theta, m.B[l]...)
	}
	return theta
}

// SetFlat sets the parameters from a vector in Flatten's order.
func (m *MLP) SetFlat(theta []float64) error {
	if len(theta) != m.NumParams() {
		return fmt.Errorf("%w: %d parameters for an MLP of %d", ErrShape, len(theta), m.NumParams())
	}
	i := 0
	for l := range m.W {
		i += copy(m.W[l], theta[i:])
		i += copy(m.B[l], theta[i:])
	}
	return nil
}

// InitXavier draws the weights from the Glorot uniform distribution suited
// to tanh layers and sets the biases to zero.
func (m *MLP) InitXavier(rng *rand.Rand) {
	for l := range m.W {
		a := math.Sqrt(6 / float64(m.Sizes[l]+m.Sizes[l+1]))
		for i := range m.W[l] {
			m.W[l][i] = a * (2*rng.Float64() - 1)
		}
		clear(m.B[l])
	}
}

// InitFanIn draws every weight and bias of layer l from the uniform
// distribution on ±1/√fan_in, fan_in = Sizes[l]: PyTorch's default for
// nn.Linear, which the paper's released code uses. Against InitXavier its
// weights are smaller on wide inputs and its biases are not zero, so a
// random network's outputs n_j(t) vary less over time and carry a random
// offset per branch.
func (m *MLP) InitFanIn(rng *rand.Rand) {
	for l := range m.W {
		a := 1 / math.Sqrt(float64(m.Sizes[l]))
		for i := range m.W[l] {
			m.W[l][i] = a * (2*rng.Float64() - 1)
		}
		for i := range m.B[l] {
			m.B[l][i] = a * (2*rng.Float64() - 1)
		}
	}
}

// RandomPassive returns an operator of structure s with random lifting
// weights and random passive taps: each FIR is diagonally dominant,
// g(0) ≥ Σ_{k≥1} |g(k)|, so Re G(e^{iω}) ≥ g(0) − Σ|g(k)| ≥ 0 at every
// frequency. It exists to test recovery and passivity with known truth.
func RandomPassive(s Structure, rng *rand.Rand) (*NFIR, error) {
	m, err := New(s)
	if err != nil {
		return nil, err
	}
	if s.Branches > 0 {
		m.Lift.InitXavier(rng)
		for l := range m.Lift.B {
			for i := range m.Lift.B[l] {
				m.Lift.B[l][i] = 0.5 * (2*rng.Float64() - 1)
			}
		}
	}
	fill := func(g []float64) {
		if len(g) == 0 {
			return
		}
		tail := 0.0
		decay := 0.5 + 0.4*rng.Float64()
		for k := 1; k < len(g); k++ {
			g[k] = math.Pow(decay, float64(k)) * (2*rng.Float64() - 1)
			tail += math.Abs(g[k])
		}
		g[0] = tail * (1 + 0.5*rng.Float64())
		if g[0] == 0 {
			g[0] = 1
		}
	}
	for j := 0; j < s.Branches; j++ {
		fill(m.Branch(j))
	}
	fill(m.Lin)
	return m, nil
}
