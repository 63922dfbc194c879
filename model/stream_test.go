package model

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/passivenfir/gputrain/data"
)

// TestIntoMatchesDense: SimulateInto and ForwardInto, which keep the gains
// of the last m_G samples only, give bit for bit the outputs of
// SimulateContext and Forward, which keep all of them, for every structure
// (FF, FB, a linear FIR, hold-start).
func TestIntoMatchesDense(t *testing.T) {
	for i, tc := range structures {
		t.Run(tc.name, func(t *testing.T) {
			m := randomModel(t, tc.s, uint64(10+i))
			rng := rand.New(rand.NewPCG(uint64(i), 7))
			u, yd := randn(rng, 300), randn(rng, 300)
			want, _, err := m.SimulateContext(context.Background(), u)
			if err != nil {
				t.Fatal(err)
			}
			got := make([]float64, len(u))
			if err := m.SimulateInto(context.Background(), u, got); err != nil {
				t.Fatal(err)
			}
			for k := range got {
				if got[k] != want[k] {
					t.Fatalf("closed loop: y[%d] = %v, SimulateContext %v", k, got[k], want[k])
				}
			}
			q := data.Q(yd)
			wantO, err := m.Forward(u, q)
			if err != nil {
				t.Fatal(err)
			}
			if err := m.ForwardInto(context.Background(), u, q, got); err != nil {
				t.Fatal(err)
			}
			for k := range got {
				if got[k] != wantO[k] {
					t.Fatalf("open loop: y[%d] = %v, Forward %v", k, got[k], wantO[k])
				}
			}
		})
	}
}

// TestIntoErrors: a short output buffer is a shape error, and a cancelled
// context stops the simulation.
func TestIntoErrors(t *testing.T) {
	m := randomModel(t, structures[1].s, 3)
	u := make([]float64, 10)
	if err := m.SimulateInto(context.Background(), u, make([]float64, 9)); !errors.Is(err, ErrShape) {
		t.Errorf("SimulateInto, short y: %v, want ErrShape", err)
	}
	if err := m.ForwardInto(context.Background(), u, make([]float64, 9), make([]float64, 10)); !errors.Is(err, ErrShape) {
		t.Errorf("ForwardInto, short q: %v, want ErrShape", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := m.SimulateInto(ctx, u, make([]float64, 10)); !errors.Is(err, context.Canceled) {
		t.Errorf("SimulateInto, cancelled: %v", err)
	}
	if err := m.ForwardInto(ctx, u, u, make([]float64, 10)); !errors.Is(err, context.Canceled) {
		t.Errorf("ForwardInto, cancelled: %v", err)
	}
}

// BenchmarkSimulate: SimulateInto against SimulateContext on a record of
// 10⁵ samples, the paper's structure.
func BenchmarkSimulate(b *testing.B) {
	m, err := RandomPassive(Structure{Branches: 10, Taps: 50, R1: 1, R2: 1, Hidden: []int{4, 4}, Feedback: true}, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		b.Fatal(err)
	}
	u := randn(rand.New(rand.NewPCG(2, 2)), 100_000)
	y := make([]float64, len(u))
	b.Run("Context", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := m.SimulateContext(context.Background(), u); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Into", func(b *testing.B) {
		for b.Loop() {
			if err := m.SimulateInto(context.Background(), u, y); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Forward", func(b *testing.B) {
		for b.Loop() {
			if _, err := m.Forward(u, u); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("ForwardInto", func(b *testing.B) {
		for b.Loop() {
			if err := m.ForwardInto(context.Background(), u, u, y); err != nil {
				b.Fatal(err)
			}
		}
	})
}
