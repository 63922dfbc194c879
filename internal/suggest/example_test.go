package suggest_test

import (
	"fmt"

	"github.com/passivenfir/gputrain/internal/suggest"
)

func ExampleClosest() {
	columns := []string{"time", "u", "y", "y_clean"}
	for _, typed := range []string{"tiem", "yclean", "torque"} {
		if s, ok := suggest.Closest(typed, columns); ok {
			fmt.Printf("column %q not found; did you mean %q?\n", typed, s)
		} else {
			fmt.Printf("column %q not found\n", typed)
		}
	}
	// Output:
	// column "tiem" not found; did you mean "time"?
	// column "yclean" not found; did you mean "y_clean"?
	// column "torque" not found
}
