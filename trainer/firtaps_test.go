package trainer

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/internal/datatest"
)

func TestLinearTapGrid(t *testing.T) {
	rec := datatest.Zeros
	for _, c := range []struct {
		d    *data.Dataset
		want []int
	}{
		{rec(250, 300), []int{8, 16, 32, 64, 125}}, {rec(256), []int{8, 16, 32, 64, 128}},
		{rec(100_000), []int{8, 16, 32, 64, 128, 256, 512, 1000}},
		{rec(10), []int{8}},
	} {
		if got := LinearTapGrid(c.d); !slices.Equal(got, c.want) {
			t.Errorf("records %d…: grid %v, want %v", c.d.Batches[0].Len(), got, c.want)
		}
	}
}

// TestSelectLinearTaps: on a plant whose impulse response 0.7^k has died out
// by 16 taps, with noisy training data, the choice is the length with the
// best validation Fit of those tried, and the search stops after
// LinearTapsPatience lengths without improvement.
func TestSelectLinearTaps(t *testing.T) {
	g := make(data.FIR, 40)
	for k := range g {
		g[k] = math.Pow(0.7, float64(k))
	}
	rng := rand.New(rand.NewPCG(1, 1))
	gen := func(n int, noise float64) *data.Dataset {
		d := &data.Dataset{}
		for range n {
			u := make([]float64, 200)
			for i := range u {
				u[i] = rng.NormFloat64()
			}
			y := g.Simulate(u)
			for i := range y {
				y[i] += noise * rng.NormFloat64()
			}
			d.Batches = append(d.Batches, data.Batch{U: u, Y: y})
		}
		return d
	}
	train, val := gen(6, 0.3), gen(3, 0)
	cfg := DefaultConfig()
	cfg.Decay = 0
	fits := map[int]float64{}
	res, err := SelectLinearTaps(context.Background(), cfg, train, val, []int{2, 4, 8, 16, 32, 64}, func(L int, f float64) { fits[L] = f })
	if err != nil {
		t.Fatal(err)
	}
	L := res.Model.LinearTaps
	for l, f := range fits {
		if f > fits[L] {
			t.Errorf("chose %d taps (fit %.3f), but %d taps had %.3f", L, fits[L], l, f)
		}
	}
	if L < 8 || fits[L] < 95 {
		t.Errorf("chose %d taps with fit %.2f%%; want ≥ 8 taps and ≥ 95%% (%v)", L, fits[L], fits)
	}
	after := 0
	for l := range fits {
		if l > L {
			after++
		}
	}
	if after > LinearTapsPatience {
		t.Errorf("tried %d lengths after the best, %d; want at most %d: %v", after, L, LinearTapsPatience, fits)
	}
	t.Logf("fits by length: %v; chose %d", fits, L)
	if _, err := SelectLinearTaps(context.Background(), cfg, train, nil, []int{8}, nil); err == nil {
		t.Error("no validation data: no error")
	}
}
