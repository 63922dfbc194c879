package convex

import (
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/passivenfir/gputrain/data"
)

// msdData is the paper's mass-spring-damper data set (300 batches, seed 1), generated once.
var msdData = sync.OnceValues(func() ([][]float64, [][]float64) {
	d, err := data.GenerateMSD(data.MSDConfig{Batches: 300, Seed: 1})
	if err != nil {
		panic(err)
	}
	u := make([][]float64, len(d.Batches))
	y := make([][]float64, len(d.Batches))
	for i, b := range d.Batches {
		u[i], y[i] = b.U, b.Y
	}
	return u, y
})

// msdGram returns P = Σ ΦᵀΦ and b = Σ Φᵀy of one FIR with mG taps on the MSD data.
func msdGram(tb testing.TB, mG int) (*mat.SymDense, []float64) {
	u, y := msdData()
	P, b, err := FIRGram(u, y, mG)
	if err != nil {
		tb.Fatal(err)
	}
	return P, b
}
