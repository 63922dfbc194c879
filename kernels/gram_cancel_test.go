package kernels

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"
	"time"
)

// TestGramContextCancel: a Gram assembly of a long record (tens of seconds
// on one core) cancelled after a few milliseconds returns context.Canceled
// promptly, and an uncancelled GramContext equals Gram.
func TestGramContextCancel(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 27))
	const mN, mG, mL = 3, 200, 100
	nt := mN*mG + mL
	s := Uniform(1, 1_000_000) // ≈ 2.5·10¹¹ multiply-adds: ≈ 55 s on one core
	N := s.Total()
	u, n, y := randVec(rng, N, 1), randVec(rng, N*mN, 1), randVec(rng, N, 1)
	P, b := make([]float64, nt*nt), make([]float64, nt)
	c := &CPU{Workers: 2}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	time.AfterFunc(20*time.Millisecond, cancel)
	t0 := time.Now()
	_, err := c.GramContext(ctx, s, mN, mG, mL, u, n, y, P, b)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if d := time.Since(t0); d > 2*time.Second {
		t.Errorf("GramContext took %v to stop after a cancellation at 20 ms", d)
	}

	short := Uniform(3, 700)
	M := short.Total()
	Pc, bc := make([]float64, nt*nt), make([]float64, nt)
	yyc, err := c.GramContext(context.Background(), short, mN, mG, mL, u[:M], n[:M*mN], y[:M], Pc, bc)
	if err != nil {
		t.Fatal(err)
	}
	yy := c.Gram(short, mN, mG, mL, u[:M], n[:M*mN], y[:M], P, b)
	if yy != yyc {
		t.Errorf("yy: GramContext %v, Gram %v", yyc, yy)
	}
	for i := range P {
		if P[i] != Pc[i] {
			t.Fatalf("P[%d]: GramContext %v, Gram %v", i, Pc[i], P[i])
		}
	}
	for i := range b {
		if b[i] != bc[i] {
			t.Fatalf("b[%d]: GramContext %v, Gram %v", i, bc[i], b[i])
		}
	}
}
