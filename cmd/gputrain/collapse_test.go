package main

import (
	"strings"
	"testing"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/model"
	"github.com/passivenfir/gputrain/trainer"
)

// TestClosedLoopNote: an FB model whose gains open only while the fed-back
// output is large predicts well from the measured output (open loop) and
// stays at zero on its own (its output starts at rest, so its gains never
// open): train's note names the gap. The same model without the
// dependence on q (an FF one, or w_q = 0) gets no note.
func TestClosedLoopNote(t *testing.T) {
	g, err := data.PassiveFIR(2, 10, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	val := data.SimulateDataset(g, "val", 0.01, data.GaussianInputs(4, 6, 300, 3))
	mk := func(feedback bool, wq float64) *model.NFIR {
		s := model.Structure{Branches: 1, Taps: 10, R1: 1, R2: 1, Hidden: []int{2}, Feedback: feedback}
		m, err := model.New(s)
		if err != nil {
			t.Fatal(err)
		}
		copy(m.G, g)
		m.UScaler, m.QScaler = data.Scaler{Scale: 1, Std: 1}, data.Scaler{Scale: 1, Std: 1}
		// h = tanh(±w_q·q − 2.5), n = tanh(2(h_1 + h_2) + 4): n ≈ 0 for
		// |q| ≪ 0.5 (w_q = 5), n ≈ 1 for |q| ≫ 0.5
		in := s.NumFeatures()
		m.Lift.W[0][0*in+in-1], m.Lift.W[0][1*in+in-1] = wq, -wq
		m.Lift.B[0][0], m.Lift.B[0][1] = -2.5, -2.5
		m.Lift.W[1][0], m.Lift.W[1][1], m.Lift.B[1][0] = 2, 2, 4
		return m
	}
	for _, tc := range []struct {
		m    *model.NFIR
		note bool
	}{{mk(true, 5), true}, {mk(false, 0), false}, {mk(true, 0), false}} {
		ev, err := trainer.Evaluate(tc.m, val, 0)
		if err != nil {
			t.Fatal(err)
		}
		n := closedLoopNote(tc.m, val, 0)
		t.Logf("feedback %v: open %.2f, closed %.2f", tc.m.Feedback, ev.OpenLoop.Median, ev.ClosedLoop.Median)
		if (n != "") != tc.note || (tc.note && !strings.Contains(n, "far below the open-loop")) {
			t.Errorf("feedback %v, W %v: open %.2f, closed %.2f: note %q", tc.m.Feedback, tc.m.Lift.W[0], ev.OpenLoop.Median, ev.ClosedLoop.Median, n)
		}
	}
}
