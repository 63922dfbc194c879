package ensemble_test

import (
	"fmt"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/ensemble"
)

// Two passive FIRs that each miss the plant in a different way, averaged:
// the mean is passive (each member is) and fits better than either.
func ExampleSelect() {
	plant := data.FIR{0.5, 0.3}
	a, b := data.FIR{0.6, 0.2}, data.FIR{0.4, 0.4}
	u := []float64{1, -0.5, 0.25, 2, -1, 0.5, 0, 1}
	val := &data.Dataset{Batches: []data.Batch{{U: u, Y: plant.Simulate(u)}}}
	outs := [][][]float64{{a.Simulate(u)}, {b.Simulate(u)}}
	fa, _ := ensemble.FitRecords(val, 0, func(int) []float64 { return outs[0][0] })
	counts, fit, err := ensemble.Select(val, 0, outs, 0, fa)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("member a alone %.1f %%, the mean %v: %.1f %%\n", fa, counts, fit)
	// Output:
	// member a alone 66.2 %, the mean [1 1]: 100.0 %
}
