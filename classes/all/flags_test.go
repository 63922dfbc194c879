package all_test

import (
	"flag"
	"io"
	"reflect"
	"testing"

	"github.com/passivenfir/gputrain/classes"
	_ "github.com/passivenfir/gputrain/classes/all"
)

// TestFlagDefaults: a class configured by its flags at their defaults is
// the registered class, which compare trains: 'train --model CLASS
// --class-budget B' then trains compare's model (a default that overrode
// the Quick budget's epochs did not).
func TestFlagDefaults(t *testing.T) {
	for _, c := range classes.All() {
		f, ok := c.(classes.Flagged)
		if !ok {
			continue
		}
		fs := flag.NewFlagSet(c.Name(), flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		configured := f.AddFlags(fs)
		if err := fs.Parse(nil); err != nil {
			t.Fatal(err)
		}
		if got := configured(); !reflect.DeepEqual(got, c) {
			t.Errorf("%s: the class at its flags' defaults is %#v, the registered one %#v", c.Name(), got, c)
		}
	}
}

// TestBudgetFlag: a Budget is a flag value of full or quick.
func TestBudgetFlag(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want classes.Budget
		ok   bool
	}{{"full", classes.Full, true}, {"quick", classes.Quick, true}, {"Quick", 0, false}, {"", 0, false}} {
		var b classes.Budget
		err := b.Set(tc.in)
		if (err == nil) != tc.ok || (tc.ok && (b != tc.want || b.String() != tc.in)) {
			t.Errorf("Set(%q): %v, %v; want %v, ok %v", tc.in, b, err, tc.want, tc.ok)
		}
	}
}
