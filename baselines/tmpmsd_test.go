package baselines
import ("testing";"time";"github.com/passivenfir/gputrain/data")
func TestTmpMSD(t *testing.T) {
	for _, nb := range []int{30, 300} {
	for _, snr := range []float64{0, 10} {
	tr, _ := data.GenerateMSD(data.MSDConfig{Batches: nb, Seed: 1, SNR: snr})
	te, _ := data.GenerateMSD(data.MSDConfig{Batches: 20, Seed: 3, SNR: snr})
	for _, o := range []int{6, 10, 20} {
		for _, h := range []int{20, 30, 40} {
			if o >= h { continue }
			for _, w := range []Weighting{WeightN4SID, WeightMOESP} {
			st := time.Now()
			m, err := Subspace(tr, SubspaceConfig{Order: o, Horizon: h, Weighting: w})
			if err != nil { t.Fatal(err) }
			f := datasetFits(m.Simulate, te, 0)
			t.Logf("nb=%d snr=%v %v o=%d h=%d median %.2f min %.2f stab=%v rho=%.4f %v", nb, snr, w, o, h, median(f), minOf(f), m.Stabilized, m.SpectralRadius(), time.Since(st))
			}
		}
	}
	}
	}
}
