// Package optim holds the first-order optimizer shared by the trainer's θ_N
// steps and the neural baselines: Adam with decoupled weight decay, and
// global gradient-norm clipping.
package optim

import "math"

// Adam is Adam (Kingma & Ba) with decoupled weight decay (AdamW, Loshchilov &
// Hutter): the decay acts on the parameters directly rather than through the
// gradient, so it does not get rescaled by the second-moment estimate.
// β1 = 0.9, β2 = 0.999, ε = 1e-8.
type Adam struct {
	m, v   []float64
	t      int
	b1, b2 float64
	eps    float64
}

// NewAdam returns an Adam state for n parameters.
func NewAdam(n int) *Adam {
	return &Adam{m: make([]float64, n), v: make([]float64, n), b1: 0.9, b2: 0.999, eps: 1e-8}
}

// Step updates theta in place from grad with learning rate lr and decoupled
// weight decay wd (0: plain Adam). len(grad) must be the n of NewAdam.
func (a *Adam) Step(theta, grad []float64, lr, wd float64) {
	a.t++
	c1 := 1 - math.Pow(a.b1, float64(a.t))
	c2 := 1 - math.Pow(a.b2, float64(a.t))
	for i, g := range grad {
		a.m[i] = a.b1*a.m[i] + (1-a.b1)*g
		a.v[i] = a.b2*a.v[i] + (1-a.b2)*g*g
		theta[i] -= lr * (wd*theta[i] + (a.m[i]/c1)/(math.Sqrt(a.v[i]/c2)+a.eps))
	}
}

// ClipNorm scales g so that its Euclidean norm is at most c (c ≤ 0: no
// clipping) and returns the norm before clipping.
func ClipNorm(g []float64, c float64) float64 {
	s := 0.0
	for _, v := range g {
		s += v * v
	}
	n := math.Sqrt(s)
	if c > 0 && n > c {
		f := c / n
		for i := range g {
			g[i] *= f
		}
	}
	return n
}
