package search

import (
	"flag"
	"testing"
)

func TestMode(t *testing.T) {
	var m Mode
	var _ flag.Value = &m
	for _, tc := range []struct {
		in    string
		want  Mode
		fails bool
	}{{"auto", Auto, false}, {"on", On, false}, {"off", Off, false}, {"yes", Auto, true}, {"", Auto, true}} {
		m = Auto
		err := m.Set(tc.in)
		if (err != nil) != tc.fails || (!tc.fails && (m != tc.want || m.String() != tc.in)) {
			t.Errorf("Set(%q): mode %v, err %v", tc.in, m, err)
		}
	}
	some := Fixed{Taps: true}
	all := Fixed{Branches: true, Taps: true, R1: true, R2: true, Hidden: true, Feedback: true, LinearTaps: true}
	for _, tc := range []struct {
		m     Mode
		f     Fixed
		wants bool
	}{{Auto, Fixed{}, true}, {Auto, some, false}, {On, some, true}, {On, all, false}, {Off, Fixed{}, false}} {
		if got := tc.m.Searches(tc.f); got != tc.wants {
			t.Errorf("%v.Searches(%+v) = %v", tc.m, tc.f, got)
		}
	}
}
