package loopclass_test

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/passivenfir/gputrain/classes"
	"github.com/passivenfir/gputrain/classes/loopclass"
	"github.com/passivenfir/gputrain/loop"
)

// TestStatesFile: a loop with slow states (S > 0) is written with "s" and
// a lifting network 2s inputs wider, and reads back to the bit; an "s"
// that disagrees with theta, or is negative, is refused naming the field.
func TestStatesFile(t *testing.T) {
	st := loop.Sized(16)
	st.S = 2
	m := &loopclass.Model{Mean: loop.Of(randomLoop(t, st, 7))}
	var buf bytes.Buffer
	if err := classes.Encode(&buf, m, classes.Meta{Ts: 0.001}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"s": 2`) {
		t.Fatalf("no \"s\": 2 in the file")
	}
	back, _, err := classes.Decode(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	u := make([]float64, 400)
	rng := rand.New(rand.NewPCG(8, 8))
	for i := range u {
		u[i] = rng.NormFloat64()
	}
	if !slices.Equal(back.Simulate(u), m.Simulate(u)) {
		t.Errorf("simulation differs after the round trip")
	}
	for _, bad := range []struct{ s, field string }{{`"s": 1`, "theta"}, {`"s": -1`, "structure"}} {
		cut := strings.Replace(buf.String(), `"s": 2`, bad.s, 1)
		if _, _, err := classes.Decode(strings.NewReader(cut)); err == nil || !strings.Contains(err.Error(), bad.field) {
			t.Errorf("%s: %v, want an error naming the %s", bad.s, err, bad.field)
		}
	}
}
