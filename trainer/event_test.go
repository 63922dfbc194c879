package trainer

import (
	"math"
	"testing"
	"time"
)

func TestEventString(t *testing.T) {
	for _, tc := range []struct {
		ev   Event
		want string
	}{
		{Event{Stage: "adam", Iter: 1, Epoch: 9, Epochs: 20, Loss: 0.5, TrainFit: 80, ValFit: 75.5, Elapsed: 3 * time.Second},
			"adam    iter 2 epoch   10/20  loss 0.5  train fit  80.00%  val fit  75.50%     3.0s"},
		{Event{Stage: "theta_g", Loss: 2, TrainFit: 90, ValFit: math.NaN(), Note: "n"},
			"theta_g iter 1  loss 2  train fit  90.00%  val fit       –     0.0s  n"},
		{Event{Stage: "eval", Iter: 3, ValFit: 88.25, Member: 2, Members: 5, Elapsed: time.Second},
			"eval    member 2/5 iter 4  closed-loop val fit  88.25%     1.0s"},
		{Event{Stage: "done", Iter: 3, ValFit: 88.25, TrainFit: math.NaN()},
			"done    iter 4  closed-loop val fit  88.25%     0.0s"},
		{Event{Stage: "solve", Iter: 1, Loss: math.NaN(), Note: "θ_G step: 500 taps, exact passivity", Elapsed: 2 * time.Second},
			"solve   iter 2  θ_G step: 500 taps, exact passivity     2.0s"},
	} {
		if got := tc.ev.String(); got != tc.want {
			t.Errorf("%s event:\n got %q\nwant %q", tc.ev.Stage, got, tc.want)
		}
	}
}
