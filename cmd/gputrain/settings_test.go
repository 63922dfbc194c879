package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestSettingsCheckedOnce: numeric settings are checked by the library
// (trainer.Config.Check) and reported by the CLI under their flag's name
// and value, exit 2, before any data is read.
func TestSettingsCheckedOnce(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "never-read.csv") // a missing file: the check comes first
	for _, tc := range []struct {
		flags []string
		want  string
	}{
		{[]string{"--gamma-g", "-1"}, "--gamma-g -1: must be a finite number ≥ 0"},
		{[]string{"--eps", "NaN"}, "--eps NaN: must be a finite number ≥ 0"},
		{[]string{"--bptt-epochs", "2", "--bptt-lr", "0"}, "--bptt-lr 0: must be a finite number > 0"},
		{[]string{"--weight-decay", "-0.5"}, "--weight-decay -0.5"},
		{[]string{"--passivity", "sampled", "--H", "0"}, "--H 0: must be ≥ 1 with sampled passivity"},
		{[]string{"--iters", "0"}, "--iters 0: must be ≥ 1"},
	} {
		args := append([]string{"train", "--data", data, "--out", filepath.Join(dir, "m.json"), "--search", "off"}, tc.flags...)
		code, _, stderr := cli(t, args...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.flags, code, stderr, tc.want)
		}
	}
}
