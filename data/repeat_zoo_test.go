package data_test

import (
	"context"
	"testing"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/zoo"
)

// TestRepeatZoo: no record the zoo generates without --periods is taken for
// a repeating one (which would cost it a fifth of its training input), for
// any plant and excitation; with --periods every record is, at its period.
func TestRepeatZoo(t *testing.T) {
	for _, p := range zoo.Plants() {
		for e := range zoo.Excitation(5) {
			for _, periods := range []int{0, 2} {
				c := zoo.Config{Batches: 3, Samples: 1200, Seed: 3, Excitation: e, Periods: periods}
				d, err := zoo.Generate(context.Background(), p, c)
				if err != nil {
					t.Fatal(err)
				}
				for i, b := range d.Batches {
					tail := b.Len() / 5
					r, ok := data.FindRepeat(b.U, tail)
					switch {
					case periods == 0 && ok:
						t.Errorf("%s %v record %d: repeats at lag %d (correlation %.3f)", p.Name, e, i, r.Lag, r.Corr)
					case periods == 2:
						if r, ok := data.FindPeriod(b.U, tail); !ok || r.Lag != 600 {
							t.Errorf("%s %v --periods 2 record %d: period %+v %v, want 600", p.Name, e, i, r, ok)
						}
					}
				}
			}
		}
	}
}

// TestRepeatRobot: the robot arm's estimation record e is antiperiodic at
// 992 samples and has no period within itself, so train splits it by that
// antiperiod (data.TailRepeat).
func TestRepeatRobot(t *testing.T) {
	dir := data.RobotDir()
	if dir == "" {
		t.Skip("robot data not found; skipping")
	}
	train, _, err := data.Robot(dir)
	if err != nil {
		t.Fatal(err)
	}
	u := train.Batches[0].U
	r, ok := data.FindRepeat(u, len(u)/5)
	if !ok || r.Lag != 992 || r.Corr > -0.99 {
		t.Errorf("e: repeat %+v %v, want lag 992, correlation below −0.99", r, ok)
	}
	if p, ok := data.FindPeriod(u, len(u)/5); ok {
		t.Errorf("e: a period %+v", p)
	}
	// The lead-in train uses is the longest memory the pieces allow, half
	// the shortest: 397 of 794 samples.
	if r, ok := data.TailRepeat(train.Batches[0], data.TailFraction, 397); !ok || r.Lag != 992 {
		t.Errorf("e: TailRepeat %+v %v, want a split by the antiperiod 992", r, ok)
	}
}
