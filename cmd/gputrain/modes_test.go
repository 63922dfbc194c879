package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestModeFlags: a mode flag takes its words only, on the command line and
// in a --config file (even one the command line overrides), and the
// message lists them; the file's words are those of the model file's
// training object.
func TestModeFlags(t *testing.T) {
	dir := t.TempDir()
	conf := func(name, body string) string {
		p := filepath.Join(dir, name+".toml")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	nodata := filepath.Join(dir, "nope.csv") // the flags fail first
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--monitor", "both"}, `invalid value "both" for flag -monitor: want open or closed`},
		{[]string{"--gram-gains", "mixed"}, `invalid value "mixed" for flag -gram-gains: want data, closed or auto`},
		{[]string{"--config", conf("p", `passivity = "maybe"`)}, `key "passivity" = maybe: want one of exact, sampled, kyp or none, like the default "exact"`},
		{[]string{"--init", "fan-in", "--config", conf("i", `init = "he"`)}, `key "init" = he: want one of glorot or fan-in`},
		{[]string{"--config", conf("s", `scale = ""`)}, `key "scale" = : want one of auto or none`},
	} {
		code, _, stderr := cli(t, append([]string{"train", "--data", nodata, "--out", filepath.Join(dir, "m.json")}, tc.args...)...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("train %v: exit %d, %q; want 2 with %q", tc.args, code, stderr, tc.want)
		}
		if _, err := os.Stat(filepath.Join(dir, "m.json")); err == nil {
			t.Errorf("train %v wrote a model", tc.args)
		}
	}
}
