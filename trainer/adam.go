package trainer

import "math"

// adam is Adam with decoupled weight decay (AdamW, Loshchilov & Hutter):
// the decay acts on the parameters directly rather than through the
// gradient, so it does not get rescaled by the second-moment estimate.
type adam struct {
	m, v   []float64
	t      int
	b1, b2 float64
	eps    float64
}

func newAdam(n int) *adam {
	return &adam{m: make([]float64, n), v: make([]float64, n), b1: 0.9, b2: 0.999, eps: 1e-8}
}

func (a *adam) step(theta, grad []float64, lr, wd float64) {
	a.t++
	c1 := 1 - math.Pow(a.b1, float64(a.t))
	c2 := 1 - math.Pow(a.b2, float64(a.t))
	for i, g := range grad {
		a.m[i] = a.b1*a.m[i] + (1-a.b1)*g
		a.v[i] = a.b2*a.v[i] + (1-a.b2)*g*g
		theta[i] -= lr * (wd*theta[i] + (a.m[i]/c1)/(math.Sqrt(a.v[i]/c2)+a.eps))
	}
}

// clipNorm scales g so that its Euclidean norm is at most c (c ≤ 0: no
// clipping) and returns the norm before clipping.
func clipNorm(g []float64, c float64) float64 {
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

// oneCycle is PyTorch's OneCycleLR with its defaults (30% cosine warm-up
// from peak/25, cosine annealing to peak/(25·10⁴)), the schedule of the
// paper's BPTT step.
func oneCycle(step, total int, peak float64) float64 {
	if total <= 1 {
		return peak
	}
	initial, final := peak/25, peak/25/1e4
	up := int(0.3*float64(total)) - 1
	if up < 1 {
		up = 1
	}
	cosAnneal := func(a, b, pct float64) float64 { return b + (a-b)*(1+math.Cos(math.Pi*pct))/2 }
	if step <= up {
		return cosAnneal(initial, peak, float64(step)/float64(up))
	}
	return cosAnneal(peak, final, float64(step-up)/float64(total-1-up))
}
