package data

import (
	"context"
	"errors"
	"testing"
)

// TestGenerateMSDContext: a cancelled context stops the generator with
// ctx's error, and a live one gives GenerateMSD's data.
func TestGenerateMSDContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := GenerateMSDContext(ctx, MSDConfig{Batches: 3, Seed: 1}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err %v, want context.Canceled", err)
	}
	a, err := GenerateMSDContext(context.Background(), MSDConfig{Batches: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := GenerateMSD(MSDConfig{Batches: 3, Seed: 1})
	for i := range a.Batches {
		for k := range a.Batches[i].Y {
			if a.Batches[i].Y[k] != b.Batches[i].Y[k] || a.Batches[i].U[k] != b.Batches[i].U[k] {
				t.Fatalf("batch %d sample %d differs", i, k)
			}
		}
	}
}
