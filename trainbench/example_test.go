package trainbench_test

import (
	"fmt"

	"github.com/passivenfir/gputrain/trainbench"
)

// The time to fit is the first iteration whose closed-loop validation Fit
// comes within Tol of the final one.
func ExampleTimeToFit() {
	curve := []trainbench.Point{{Seconds: 12, ValFit: 71.3}, {Seconds: 25, ValFit: 88.95}, {Seconds: 39, ValFit: 89.1}}
	fmt.Println(trainbench.TimeToFit(curve, 89.1, trainbench.Tol))
	// Output: 25
}
