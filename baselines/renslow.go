package baselines

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// Constants of slowStart: the state's input and output gains, M = D22 − ν
// (the direct feedthrough beyond ν), and the neurons' input and output
// weights, all small enough that the start is the linear modes' sum.
const (
	slowGain   = 0.1
	slowM      = 0.5
	slowNeuron = 0.1
)

// SlowPoles returns the poles slowStart gives the n_x states of a REN for
// a plant of memory samples: exp(−1/τ_i), the time constants τ_i spread
// geometrically from 2 samples to memory/2.
func SlowPoles(nx, memory int) []float64 {
	lo, hi := 2.0, max(2, float64(memory)/2)
	p := make([]float64, nx)
	for i := range p {
		tau := lo
		if nx > 1 {
			tau = lo * math.Pow(hi/lo, float64(i)/float64(nx-1))
		}
		p[i] = math.Exp(-1 / tau)
	}
	return p
}

// slowStart overwrites the direct parameters of m's state map with those
// of a linear passive start: A = diag(SlowPoles), B2 = C2ᵀ = slowGain·1,
// D22 = ν + slowM, the neurons seeing and feeding back nothing of the
// state (C1 = 0, B1 = 0, D11 = 0, Λ = I) and u and y only through weights
// D12 = D21 of slowNeuron·N(0, 1). Biases and gates keep init's values.
//
// The direct parameterization gives H = XᵀX + εI + ggᵀ/(2M) and reads E,
// F = EA, P and the rest from its blocks (PassiveREN). With E = P = I,
// Y1 = 0 and the blocks above, H is
//
//	[ I       0    Aᵀ ]
//	[ 0       2I   0  ]   (blocks n_x, n_v, n_x)
//	[ A       0    I  ]
//
// and g = [C2ᵀ; D21ᵀ − D12; B2] = [c; 0; c], so X is the Cholesky factor
// of H − εI − ggᵀ/(2M). It exists: the x–x⁺ block has eigenvalues 1 ± a_i,
// and g lies along the (1, 1) directions, whose eigenvalues 1 + a_i exceed
// |g|²/(2M) = n_x·slowGain²/slowM.
func (m *PassiveREN) slowStart(rng *rand.Rand, memory int) error {
	nx, nv := m.States, m.Neurons
	n := 2*nx + nv
	o := m.offsets()
	if !(m.Eps < slowM) {
		return fmt.Errorf("baselines: REN: slow start: ε %v must be below %v: %w", m.Eps, slowM, ErrConfig)
	}
	a := SlowPoles(nx, memory)
	g := make([]float64, n)
	for i := range nx {
		g[i], g[nx+nv+i] = slowGain, slowGain
	}
	H := mat.NewSymDense(n, nil)
	for i := range nx {
		H.SetSym(i, i, 1)
		H.SetSym(nx+nv+i, nx+nv+i, 1)
		H.SetSym(i, nx+nv+i, a[i])
	}
	for i := range nv {
		H.SetSym(nx+i, nx+i, 2)
	}
	for i := range n {
		for j := i; j < n; j++ {
			v := H.At(i, j) - g[i]*g[j]/(2*slowM)
			if i == j {
				v -= m.Eps
			}
			H.SetSym(i, j, v)
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(H) {
		return fmt.Errorf("baselines: REN: slow start for memory %d: H − εI − ggᵀ/(2M) is not positive definite: %w", memory, ErrNumerical)
	}
	var U mat.TriDense
	ch.UTo(&U)
	th := m.Theta
	for i := range n {
		for j := range n {
			th[o.x+i*n+j] = U.At(i, j)
		}
	}
	for k := o.y1; k < o.x3; k++ {
		th[k] = 0
	}
	th[o.x3] = math.Sqrt(slowM - m.Eps)
	for i := range nx {
		th[o.b2+i], th[o.c2+i] = slowGain, slowGain
	}
	for i := range nv {
		w := slowNeuron * rng.NormFloat64()
		th[o.d12+i], th[o.d21+i] = w, w
	}
	return nil
}
