package experiment

import (
	"testing"

	"github.com/passivenfir/gputrain/model"
	"github.com/passivenfir/gputrain/trainer"
)

// TestLeadIn: the lead-in of a held-out segment is the model's memory, which
// counts R2 only with feedback and the branch fields only with branches;
// every robot model (and so the published holdout figures) has the 500
// samples of its 500-tap linear FIR.
func TestLeadIn(t *testing.T) {
	for name, c := range RobotConfigs(Options{}) {
		if got := leadIn(c); got != 500 {
			t.Errorf("%s: lead-in %d, want 500", name, got)
		}
	}
	for _, tc := range []struct {
		st   model.Structure
		want int
	}{
		{model.Structure{LinearTaps: 20, Taps: 50, R1: 1, R2: 1}, 20},                              // a linear FIR: its stored Taps are unused
		{model.Structure{Branches: 2, Taps: 10, R1: 3, R2: 40}, 10},                                // FF: no R2
		{model.Structure{Branches: 2, Taps: 10, R1: 3, R2: 40, Feedback: true}, 40},                // FB
		{model.Structure{Branches: 2, Taps: 10, R1: 3, R2: 4, Feedback: true, LinearTaps: 30}, 30}, // parallel FIR
	} {
		c := trainer.DefaultConfig()
		c.Structure = tc.st
		if got := leadIn(c); got != tc.want {
			t.Errorf("%+v: lead-in %d, want %d", tc.st, got, tc.want)
		}
	}
}
