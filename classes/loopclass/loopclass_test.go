package loopclass_test

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/passivenfir/gputrain/classes"
	_ "github.com/passivenfir/gputrain/classes/all" // registers class loop
	"github.com/passivenfir/gputrain/classes/loopclass"
	"github.com/passivenfir/gputrain/loop"
)

// randomLoop is a loop of structure s with seeded random parameters.
func randomLoop(t *testing.T, s loop.Structure, seed uint64) *loop.Model {
	t.Helper()
	m, err := loop.New(s)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, seed))
	theta := m.Flatten()
	for i := range theta {
		theta[i] = 0.3 * rng.NormFloat64()
	}
	if err := m.SetFlat(theta); err != nil {
		t.Fatal(err)
	}
	m.SU, m.SY = 1+rng.Float64(), 1+rng.Float64()
	return m
}

// TestMeanRoundTrip: a mean of two loops of different shapes is written
// with params.members and read back to the bit; a single loop keeps the
// one-loop params object.
func TestMeanRoundTrip(t *testing.T) {
	a := randomLoop(t, loop.Sized(8), 1)
	b := randomLoop(t, loop.Wide(8), 2)
	rng := rand.New(rand.NewPCG(3, 3))
	u := make([]float64, 200)
	for i := range u {
		u[i] = rng.NormFloat64()
	}
	for _, c := range []struct {
		name    string
		mean    loop.Mean
		members bool
	}{
		{"one loop", loop.Of(a), false},
		{"mean of two", loop.Of(a, b), true},
		{"weighted mean", loop.Mean{{Model: a, Count: 2}, {Model: b, Count: 5}}, true},
	} {
		m := &loopclass.Model{Mean: c.mean}
		var buf bytes.Buffer
		if err := classes.Encode(&buf, m, classes.Meta{Ts: 0.01}); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := strings.Contains(buf.String(), `"members"`); got != c.members {
			t.Errorf("%s: members in the file: %v, want %v", c.name, got, c.members)
		}
		// only a weighted mean needs version 2 (older readers read the rest)
		weighted := c.mean.Weighted()
		if got, want := strings.Contains(buf.String(), `"version": 2`), weighted; got != want || strings.Contains(buf.String(), `"counts"`) != weighted {
			t.Errorf("%s: version 2 in the file: %v, counts: %v; want both %v", c.name, got, strings.Contains(buf.String(), `"counts"`), want)
		}
		back, _, err := classes.Decode(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		c1, err1 := m.Certify()
		c2, err2 := back.Certify()
		switch {
		case err1 != nil || err2 != nil || !c1.Passive || c1 != c2:
			t.Errorf("%s: certificates %+v (%v), read back %+v (%v)", c.name, c1, err1, c2, err2)
		case back.NumParams() != m.NumParams():
			t.Errorf("%s: %d parameters read back, %d written", c.name, back.NumParams(), m.NumParams())
		case !slices.Equal(back.Simulate(u), m.Simulate(u)):
			t.Errorf("%s: simulation differs after the round trip", c.name)
		}
	}
}

// TestDecodeMeanErrors: an empty or broken member list is a format error
// naming the member.
func TestDecodeMeanErrors(t *testing.T) {
	for _, c := range []struct{ name, params, want string }{
		{"empty", `{"members":[]}`, "empty"},
		{"bad member", `{"members":[{"structure":{"r1":1,"r2":1,"hidden":[2],"b1":1,"t1":2,"l1":2,"b2":1,"t2":2,"l2":2},"u_scale":1,"y_scale":1,"theta":[1]}]}`, "members[0]"},
		{"bad scale", `{"members":[{"structure":{"r1":1,"r2":1,"hidden":[2],"b1":1,"t1":2,"l1":2,"b2":1,"t2":2,"l2":2},"u_scale":0,"y_scale":1,"theta":[]}]}`, "u_scale"},
		{"unknown key", `{"members":[],"weights":[1]}`, "weights"},
	} {
		file := `{"format":"gputrain-model","class":"loop","version":1,"params":` + c.params + `}`
		_, _, err := classes.Decode(strings.NewReader(file))
		if !errors.Is(err, classes.ErrFormat) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want a format error naming %q", c.name, err, c.want)
		}
	}
}

// TestDecodeCounts: params.counts needs version 2, one count per member,
// each 1 to loop.MaxCount; the weighted mean read back simulates as the
// one written.
func TestDecodeCounts(t *testing.T) {
	a, b := randomLoop(t, loop.Sized(6), 4), randomLoop(t, loop.Sized(6), 5)
	var buf bytes.Buffer
	if err := classes.Encode(&buf, &loopclass.Model{Mean: loop.Mean{{Model: a, Count: 2}, {Model: b, Count: 1}}}, classes.Meta{}); err != nil {
		t.Fatal(err)
	}
	good := buf.String()
	if _, _, err := classes.Decode(strings.NewReader(good)); err != nil {
		t.Fatalf("the file as written: %v", err)
	}
	counts := regexp.MustCompile(`"counts": \[[^\]]*\]`)
	if !counts.MatchString(good) {
		t.Fatalf("no counts in %s", good)
	}
	for _, c := range []struct{ name, counts, version, want string }{
		{"version 1", "[2, 1]", "1", "need version 2"},
		{"too few", "[3]", "2", "1 numbers for 2 members"},
		{"too many", "[3, 1, 1]", "2", "3 numbers for 2 members"},
		{"zero", "[0, 1]", "2", "counts[0] is 0"},
		{"negative", "[1, -1]", "2", "counts[1] is -1"},
		{"too large", "[1048577, 1]", "2", "counts[0] is 1048577"},
		{"not an integer", "[1.5, 1]", "2", "counts"},
	} {
		file := counts.ReplaceAllLiteralString(good, `"counts": `+c.counts)
		file = strings.Replace(file, `"version": 2`, `"version": `+c.version, 1)
		_, _, err := classes.Decode(strings.NewReader(file))
		if !errors.Is(err, classes.ErrFormat) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want a format error naming %q", c.name, err, c.want)
		}
	}
}
