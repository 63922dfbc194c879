package main

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/passivenfir/gputrain/classes"
	"github.com/passivenfir/gputrain/classes/loopclass"
	"github.com/passivenfir/gputrain/loop"
)

// exportLoop saves a random loop as train writes one.
func exportLoop(t *testing.T, dir string) string {
	t.Helper()
	m, err := loop.New(loop.Sized(6))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 3))
	theta := m.Flatten()
	for i := range theta {
		theta[i] = 0.5 * rng.NormFloat64()
	}
	if err := m.SetFlat(theta); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "loop.json")
	if err := classes.Save(path, &loopclass.Model{Mean: loop.Of(m)}, classes.Meta{Ts: 0.02}); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestExportLoop: a loop, what train writes when the search picks it,
// exports to C and an FMU, certified passive; python-ss and a file with
// inconsistent dimensions exit 2 saying why.
func TestExportLoop(t *testing.T) {
	dir := t.TempDir()
	lp := exportLoop(t, dir)
	for format, want := range map[string][]string{"c": {"plant.h", "plant.c"}, "fmu": {"plant.fmu"}} {
		out := filepath.Join(dir, format)
		stdout := mustRun(t, "export", "--model", lp, "--format", format, "--out", out, "--name", "plant", "--json")
		var res exportJSON
		if err := json.Unmarshal([]byte(stdout), &res); err != nil {
			t.Fatalf("--json output %q: %v", stdout, err)
		}
		if !res.Passive || res.SHA256 != fileSHA(t, lp) || len(res.Files) != len(want) {
			t.Errorf("%s: %+v", format, res)
		}
		for _, w := range want {
			if _, err := os.Stat(filepath.Join(out, w)); err != nil {
				t.Errorf("%s: %v", format, err)
			}
		}
	}

	b, err := os.ReadFile(lp)
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(strings.Replace(string(b), `"theta": [`, `"theta": [0.25, `, 1)), 0o644)
	badStruct := filepath.Join(dir, "badstruct.json")
	os.WriteFile(badStruct, []byte(strings.Replace(string(b), `"t1": `, `"t1": -`, 1)), 0o644)
	out := filepath.Join(dir, "out")
	for _, tc := range []struct {
		name string
		args []string
		msg  string
	}{
		{"python-ss", []string{"--model", lp, "--format", "python-ss", "--out", out}, "state-space realization"},
		{"theta", []string{"--model", bad, "--out", out}, "params.theta"},
		{"structure", []string{"--model", badStruct, "--out", out}, "params.structure"},
	} {
		code, _, stderr := cli(t, append([]string{"export"}, tc.args...)...)
		if code != exitUsage || !strings.Contains(stderr, tc.msg) {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 and %q", tc.name, code, stderr, tc.msg)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: %s was created", tc.name, out)
			os.RemoveAll(out)
		}
	}
}
