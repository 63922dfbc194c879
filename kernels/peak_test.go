package kernels

import (
	"math"
	"testing"
)

// BenchmarkPeakFMA measures the FMA peak of one core: scalar, Go's math.FMA
// on eight independent chains (what plain Go loops can reach at best), and
// vector, ten independent AVX2 VFMADD231PD chains (fmaPeak). The kernels'
// GFLOP/s (BenchmarkCorr, docs/BENCHMARKS.md) are read against these.
func BenchmarkPeakFMA(b *testing.B) {
	const rounds = 1 << 16
	b.Run("scalar", func(b *testing.B) {
		var s [8]float64
		x, y := 1.0000001, 0.9999999
		for b.Loop() {
			s0, s1, s2, s3, s4, s5, s6, s7 := s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]
			for range rounds {
				s0 = math.FMA(x, y, s0)
				s1 = math.FMA(x, y, s1)
				s2 = math.FMA(x, y, s2)
				s3 = math.FMA(x, y, s3)
				s4 = math.FMA(x, y, s4)
				s5 = math.FMA(x, y, s5)
				s6 = math.FMA(x, y, s6)
				s7 = math.FMA(x, y, s7)
			}
			s = [8]float64{s0, s1, s2, s3, s4, s5, s6, s7}
		}
		b.ReportMetric(16*rounds*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		if math.IsNaN(s[0]) {
			b.Fatal("NaN")
		}
	})
	if !haveFMA {
		return
	}
	b.Run("avx2", func(b *testing.B) {
		for b.Loop() {
			fmaPeak(rounds)
		}
		// 10 FMAs of 4 lanes, 2 flops each, per round.
		b.ReportMetric(80*rounds*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	})
}
