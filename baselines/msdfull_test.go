package baselines

import (
	"os"
	"testing"
	"time"

	"github.com/passivenfir/gputrain/data"
)

// TestMSDFullScale runs the baselines on the paper's full splits (data.MSDSplits(1):
// 300/100/100 batches), noise-free and at 10 dB SNR, and logs the test Fit figures. It
// takes minutes, so it only runs with BASELINES_FULL=1:
//
//	BASELINES_FULL=1 go test -run MSDFullScale -v -timeout 30m ./baselines/
func TestMSDFullScale(t *testing.T) {
	if os.Getenv("BASELINES_FULL") != "1" {
		t.Skip("set BASELINES_FULL=1 to run the full-scale mass-spring-damper baselines")
	}
	for _, snr := range []float64{0, 10} {
		var train, val, test *data.Dataset
		var err error
		if snr == 0 {
			train, val, test, err = data.MSDSplits(1)
		} else {
			train, val, test, err = data.MSDSplits(1, snr)
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range []Weighting{WeightN4SID, WeightMOESP} {
			start := time.Now()
			ss, err := Subspace(train, SubspaceConfig{Order: 20, Horizon: 40, Weighting: w})
			if err != nil {
				t.Fatal(err)
			}
			fits := datasetFits(ss.Simulate, test, 0)
			t.Logf("SNR %v: %v order 20 horizon 40: test Fit median %.2f%%, min %.2f%%, max %.2f%%, ρ(A) %.4f, stabilized %v (%v)",
				snr, w, median(fits), minOf(fits), -minOf(negate(fits)), ss.SpectralRadius(), ss.Stabilized, time.Since(start))
		}
		start := time.Now()
		mlp, err := TrainMLP(train, val, DefaultMLPConfig())
		if err != nil {
			t.Fatal(err)
		}
		fits := datasetFits(mlp.Simulate, test, 0)
		t.Logf("SNR %v: MLP(np) %d params, default config: test Fit median %.2f%%, min %.2f%%, max %.2f%%, best epoch %d of %d (%v)",
			snr, mlp.NumParams(), median(fits), minOf(fits), -minOf(negate(fits)), mlp.BestEpoch, len(mlp.ValLoss), time.Since(start))
	}
}

func negate(x []float64) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = -v
	}
	return out
}
