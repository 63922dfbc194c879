package main

import (
	"strings"
	"testing"
)

// TestBenchTrainRefuses: an unknown case is bad usage (exit 2) naming the
// valid ones, before any training; so is a negative --workers.
func TestBenchTrainRefuses(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"bench", "train", "--cases", "msd,nosuch"}, "msd, twomass"},
		{[]string{"bench", "train", "--workers", "-1"}, "--workers -1"},
	} {
		code, _, stderr := cli(t, tc.args...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 naming %q", tc.args, code, stderr, tc.want)
		}
	}
}
