package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTrainMemoryRefused: a run whose estimated memory exceeds what the
// machine has is refused at once with exit 2, the estimate and the flags to
// change, and writes nothing; it used to allocate until the runtime died
// ("fatal error: runtime: out of memory").
func TestTrainMemoryRefused(t *testing.T) {
	dir := t.TempDir()
	train := genData(t, dir, 10, "1")
	defer func() { testHookMemAvailable = nil }()
	for _, tc := range []struct {
		name  string
		avail uint64
		args  []string
		want  []string
	}{
		{"absurd", 64 << 30, []string{"--branches", "100000"}, []string{"TiB", "more than the 64 GiB available", "--branches", "--taps", "theta_g"}},
		{"default search", 8 << 20, []string{"--workers", "2"}, []string{"more than the 8 MiB available", "candidates side by side", "--workers"}},
		{"small machine", 1 << 20, []string{"--branches", "2", "--taps", "10", "--hidden", "64,64"}, []string{"more than the 1 MiB available", "memory estimate:", "data ", "adam tapes"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			testHookMemAvailable = func() (uint64, bool) { return tc.avail, true }
			out := filepath.Join(dir, "m.json")
			t0 := time.Now()
			code, stdout, stderr := cli(t, append([]string{"train", "--data", train, "--out", out}, tc.args...)...)
			if code != exitUsage {
				t.Fatalf("exit %d, want 2; stdout %s stderr %s", code, stdout, stderr)
			}
			if d := time.Since(t0); d > 10*time.Second {
				t.Errorf("refused after %v, not before the work", d)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("message lacks %q:\n%s", w, stderr)
				}
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s written by a refused run", out)
			}
			t.Log(strings.TrimSpace(stderr))
		})
	}
}
