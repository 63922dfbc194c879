package optim

import (
	"math"
	"testing"
)

func TestAdamMatchesReference(t *testing.T) {
	// Two steps of AdamW by hand on f(θ) = ½θ², from θ = 1, lr 0.1, wd 0.01.
	a := NewAdam(1)
	theta := []float64{1}
	lr, wd := 0.1, 0.01
	ref := 1.0
	m, v := 0.0, 0.0
	for step := 1; step <= 2; step++ {
		g := theta[0]
		a.Step(theta, []float64{g}, lr, wd)
		m = 0.9*m + 0.1*g
		v = 0.999*v + 0.001*g*g
		mh, vh := m/(1-math.Pow(0.9, float64(step))), v/(1-math.Pow(0.999, float64(step)))
		ref -= lr * (wd*ref + mh/(math.Sqrt(vh)+1e-8))
		if math.Abs(theta[0]-ref) > 1e-15 {
			t.Fatalf("step %d: θ = %.17g, reference %.17g", step, theta[0], ref)
		}
	}
}

func TestClipNorm(t *testing.T) {
	g := []float64{3, 4}
	if n := ClipNorm(g, 1); n != 5 || math.Abs(math.Hypot(g[0], g[1])-1) > 1e-15 {
		t.Errorf("clip: norm %g, clipped %v", n, g)
	}
	g = []float64{0.3, 0.4}
	ClipNorm(g, 1)
	if g[0] != 0.3 || g[1] != 0.4 {
		t.Errorf("clip changed a small gradient: %v", g)
	}
}
