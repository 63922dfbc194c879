package loop_test

import (
	"fmt"

	"github.com/passivenfir/gputrain/loop"
)

// Sections turns free parameters into passive first-order sections: β² is
// the DC gain b/(1−a) and α sets the time constant, −1/ln a.
func ExampleSections() {
	alpha, beta := []float64{0.5, 3, -40}, []float64{1, 0.5, 2}
	a, b := make([]float64, 3), make([]float64, 3)
	loop.Sections(alpha, beta, a, b)
	for k := range a {
		re, _ := loop.SectionMinRe(a[k], b[k])
		fmt.Printf("pole %+.6f  gain %.6f  DC gain %.4f  min Re S %.3g\n", a[k], b[k], b[k]/(1-a[k]), re)
	}
	// Output:
	// pole +0.462117  gain 0.537883  DC gain 1.0000  min Re S 0.368
	// pole +0.995054  gain 0.001237  DC gain 0.2500  min Re S 0.00062
	// pole -0.999999  gain 7.999996  DC gain 4.0000  min Re S 4
}
