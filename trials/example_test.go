package trials_test

import (
	"context"
	"fmt"

	"github.com/passivenfir/gputrain/trials"
)

// Square four numbers, two at a time; the results are by index, whatever
// order the tasks end in.
func ExampleLocal() {
	out := make([]int, 4)
	errs := trials.Local{Parallel: 2}.Run(context.Background(), len(out), func(_ context.Context, i int) error {
		out[i] = i * i
		return nil
	})
	fmt.Println(out, errs)
	// Output: [0 1 4 9] [<nil> <nil> <nil> <nil>]
}
