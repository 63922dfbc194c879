package data

import (
	"errors"
	"math"
	"math/cmplx"
	"testing"
)

func TestPassiveFIR(t *testing.T) {
	for _, c := range []struct {
		seed   uint64
		taps   int
		margin float64
	}{{1, 1, 0}, {2, 5, 0}, {3, 50, 0.01}, {4, 200, 0.1}} {
		g, err := PassiveFIR(c.seed, c.taps, c.margin)
		if err != nil {
			t.Fatal(err)
		}
		if len(g) != c.taps {
			t.Fatalf("%d taps, want %d", len(g), c.taps)
		}
		const H = 8192
		minRe := math.Inf(1)
		for h := 0; h <= H; h++ {
			minRe = math.Min(minRe, g.RealPart(math.Pi*float64(h)/H))
		}
		if minRe < c.margin-1e-12 {
			t.Errorf("taps %d: min Re G = %.3g < margin %v", c.taps, minRe, c.margin)
		}
		if c.taps > 1 {
			neg := false
			for _, v := range g[1:] {
				neg = neg || v < 0
			}
			if !neg && c.taps >= 50 {
				t.Errorf("taps %d: no negative tap; the generator is too trivial", c.taps)
			}
		}
		// The FIR's impulse response is g.
		imp := make([]float64, c.taps+3)
		imp[0] = 1
		y := g.Simulate(imp)
		for k := range y {
			want := 0.0
			if k < len(g) {
				want = g[k]
			}
			if y[k] != want {
				t.Fatalf("impulse response[%d] = %v, want %v", k, y[k], want)
			}
		}
	}
	if _, err := PassiveFIR(1, 0, 0); !errors.Is(err, ErrConfig) {
		t.Errorf("taps 0: %v", err)
	}
	if _, err := PassiveFIR(1, 3, -1); !errors.Is(err, ErrConfig) {
		t.Errorf("negative margin: %v", err)
	}
}

func TestPassiveSS(t *testing.T) {
	for order := 1; order <= 7; order++ {
		for seed := uint64(0); seed < 4; seed++ {
			s, err := PassiveSS(seed, order)
			if err != nil {
				t.Fatal(err)
			}
			const H = 4096
			minRe := math.Inf(1)
			for h := 0; h <= H; h++ {
				minRe = math.Min(minRe, real(s.Response(math.Pi*float64(h)/H)))
			}
			if !(minRe > 0) {
				t.Errorf("order %d seed %d: min Re G = %.3g, want > 0", order, seed, minRe)
			}
			// Simulate agrees with Response: the DTFT of the (decaying) impulse response.
			const N = 4000
			imp := make([]float64, N)
			imp[0] = 1
			h := s.Simulate(imp)
			if math.Abs(h[N-1]) > 1e-10 {
				t.Errorf("order %d: impulse response not decayed (%g): unstable?", order, h[N-1])
			}
			for _, w := range []float64{0, 0.3, 1, 2.5, math.Pi} {
				var g complex128
				for k, v := range h {
					g += complex(v, 0) * cmplx.Exp(complex(0, -w*float64(k)))
				}
				if cmplx.Abs(g-s.Response(w)) > 1e-8 {
					t.Errorf("order %d ω %v: DTFT %v vs Response %v", order, w, g, s.Response(w))
				}
			}
		}
	}
	if _, err := PassiveSS(1, 0); !errors.Is(err, ErrConfig) {
		t.Errorf("order 0: %v", err)
	}
}

func TestSimulateDataset(t *testing.T) {
	g, _ := PassiveFIR(1, 10, 0)
	in := GaussianInputs(2, 3, 100, 1)
	d := SimulateDataset(g, "fir", 0.1, in)
	if err := d.Validate(100); err != nil {
		t.Fatal(err)
	}
	in[0][0] = 99 // inputs are copied
	if d.Batches[0].U[0] == 99 {
		t.Error("SimulateDataset shares its inputs")
	}
	if d.Ts != 0.1 || d.Name != "fir" || len(d.Batches) != 3 {
		t.Errorf("got %s Ts %v with %d batches", d.Name, d.Ts, len(d.Batches))
	}
	// Passivity in the time domain: Σ u·y ≥ 0 for every input.
	for _, b := range d.Batches {
		e := 0.0
		for k := range b.U {
			e += b.U[k] * b.Y[k]
		}
		if e < 0 {
			t.Errorf("supplied energy %g < 0", e)
		}
	}
}
