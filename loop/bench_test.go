package loop

import (
	"testing"
)

// BenchmarkBatchGrad is one Adam step's gradient, forward and back through
// time, over 8 windows of 600 samples on one goroutine, for each shape of
// a 64-tap memory: what a sample of training costs, and so what the
// recurrent lift adds to it (ns/op over 4800 samples).
func BenchmarkBatchGrad(b *testing.B) {
	for _, tc := range []struct {
		name string
		s    Structure
	}{
		{"sized", Sized(64)}, {"wide", Wide(64)},
		{"sized-states", WithStates(Sized(64))}, {"wide-states", WithStates(Wide(64))},
		{"sized-rec", WithRec(Sized(64))}, {"wide-rec", WithRec(Wide(64))},
	} {
		b.Run(tc.name, func(b *testing.B) {
			m := randomModel(b, tc.s, 1)
			const W, n = 600, 8
			us, ys := make([][]float64, n), make([][]float64, n)
			var wins []window
			batch := make([]int, n)
			for i := range n {
				us[i], ys[i] = randomInput(uint64(i+1), W), randomInput(uint64(i+50), W)
				wins = append(wins, window{rec: i, lo: 0, hi: W, skip: 100})
				batch[i] = i
			}
			b.ReportAllocs()
			for b.Loop() {
				m.batchGrad(us, ys, wins, batch, 1)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n*W), "ns/sample")
		})
	}
}
