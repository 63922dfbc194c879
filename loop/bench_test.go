package loop

import (
	"testing"
)

// BenchmarkBatchGrad is one Adam step's gradient, forward and back through
// time, over 8 windows of 600 samples on one goroutine, for each shape of
// a 64-tap memory: what a sample of training costs, and so what the
// recurrent lift adds to it (ns/op over 4800 samples).
func BenchmarkBatchGrad(b *testing.B) { benchShapes(b, 64, 600, 100) }

// BenchmarkBatchGradLong is BenchmarkBatchGrad for the shapes of a
// 250-tap memory (the passive FIR the search chooses for the full-size
// gearbox and backlash plants), over 8 windows of 500 samples: there the
// FIRs' history sums outweigh the lift.
func BenchmarkBatchGradLong(b *testing.B) { benchShapes(b, 250, 500, 0) }

// benchShapes runs batchGrad on one goroutine for each shape of an L-tap
// memory, over 8 windows of W samples, the first skip of each not scored.
func benchShapes(b *testing.B, L, W, skip int) {
	for _, tc := range namedShapes(b, L) {
		b.Run(tc.name, func(b *testing.B) {
			m := randomModel(b, tc.s, 1)
			const n = 8
			us, ys, wins, batch := benchBatch(n, W, skip)
			b.ReportAllocs()
			for b.Loop() {
				m.batchGrad(us, ys, wins, batch, 1)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n*W), "ns/sample")
		})
	}
}

// namedShape is a shape of Shapes with the name --loop-shape gives it.
type namedShape struct {
	name string
	s    Structure
}

// namedShapes are Shapes(L), named for the benchmarks; tb fails when
// Shapes has grown beyond the names.
func namedShapes(tb testing.TB, L int) []namedShape {
	names := []string{"sized", "wide", "sized-states", "wide-states", "sized-rec", "wide-rec"}
	if n := len(Shapes(L)); n != len(names) {
		tb.Fatalf("Shapes has %d shapes, namedShapes names %d", n, len(names))
	}
	var out []namedShape
	for i, s := range Shapes(L) {
		out = append(out, namedShape{names[i], s})
	}
	return out
}

// BenchmarkBasis is what Config.Basis adds to one Adam step of the wide
// loop of a 250-tap memory (the gearbox's): the gradient mapped onto
// 16 Laguerre coefficients and the factors expanded from them,
// beside the step's gradient itself (8 windows of 500 samples, one
// goroutine).
func BenchmarkBasis(b *testing.B) {
	m := randomModel(b, Wide(250), 1)
	bs, err := newBasis(m, 16, 0.95)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("gradient", func(b *testing.B) {
		us, ys, wins, batch := benchBatch(8, 500, 0)
		for b.Loop() {
			m.batchGrad(us, ys, wins, batch, 1)
		}
	})
	b.Run("basis", func(b *testing.B) {
		full, c := m.Flatten(), make([]float64, bs.reduced)
		for b.Loop() {
			bs.project(full, c)
			bs.expand(c, full)
		}
	})
}

// benchBatch is a batch of n random windows of W samples, the first skip
// of each simulated but not scored.
func benchBatch(n, W, skip int) (us, ys [][]float64, wins []window, batch []int) {
	us, ys, batch = make([][]float64, n), make([][]float64, n), make([]int, n)
	for i := range n {
		us[i], ys[i] = randomInput(uint64(i+1), W), randomInput(uint64(i+50), W)
		wins = append(wins, window{rec: i, lo: 0, hi: W, skip: skip})
		batch[i] = i
	}
	return us, ys, wins, batch
}
