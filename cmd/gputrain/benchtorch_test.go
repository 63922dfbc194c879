package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestBenchTrainTorchRefuses: --torch without a Python that has torch and
// cvxopt is bad input (exit 2) saying what is missing, before any training;
// so are a precision and a thread count the peer does not have.
func TestBenchTrainTorchRefuses(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-python")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"bench", "train", "--quick", "--cases", "msd", "--torch", "--python", missing}, "python3-torch"},
		{[]string{"bench", "train", "--torch", "--torch-dtypes", "float16"}, "float16"},
		{[]string{"bench", "train", "--torch", "--torch-threads", "0"}, "--torch-threads 0"},
	} {
		code, _, stderr := cli(t, tc.args...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 naming %q", tc.args, code, stderr, tc.want)
		}
	}
}
