package trainer

import (
	"context"
	"math"
	"testing"

	"github.com/passivenfir/gputrain/data"
)

// TestCheckDataWorkers: the check with one worker agrees with the check
// with one per CPU (the workers split the Gram sums, so only rounding may
// differ).
func TestCheckDataWorkers(t *testing.T) {
	d, err := data.GenerateMSD(data.MSDConfig{Batches: 4, Seed: 3, Samples: 200})
	if err != nil {
		t.Fatal(err)
	}
	all, err := CheckData(context.Background(), d, 40)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []int{1, 3} {
		one, err := CheckDataWorkers(context.Background(), d, 40, w)
		if err != nil {
			t.Fatal(err)
		}
		if one.Batches != all.Batches || one.NegativeBatches != all.NegativeBatches || one.Supply != all.Supply ||
			math.Abs(one.Offset-all.Offset) > 1e-9*math.Max(1, math.Abs(all.Offset)) {
			t.Errorf("workers %d: %+v, want %+v", w, one, all)
		}
	}
}
