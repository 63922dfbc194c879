package main

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/passivenfir/gputrain/model"
)

// exportModel saves a random model for the export tests; mode "none" gets
// taps that are not passive.
func exportModel(t *testing.T, dir, name string, s model.Structure, mode string, ts float64) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 7))
	m, err := model.RandomPassive(s, rng)
	if err != nil {
		t.Fatal(err)
	}
	if mode == "none" {
		for i := range m.Lin {
			m.Lin[i] = rng.NormFloat64()
		}
	}
	path := filepath.Join(dir, name)
	if err := model.Save(path, m, model.Meta{Ts: ts, Mode: mode}); err != nil {
		t.Fatal(err)
	}
	return path
}

var (
	fbStructure  = model.Structure{Branches: 2, Taps: 5, R1: 1, R2: 1, Hidden: []int{3}, Feedback: true}
	linStructure = model.Structure{LinearTaps: 6}
)

func fileSHA(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func TestExportTargets(t *testing.T) {
	dir := t.TempDir()
	fb := exportModel(t, dir, "fb.json", fbStructure, "exact", 0.02)
	lin := exportModel(t, dir, "lin.json", linStructure, "kyp", 0.001)
	for _, tc := range []struct {
		model, format string
		want          []string
	}{
		{fb, "c", []string{"plant.h", "plant.c"}},
		{fb, "fmu", []string{"plant.fmu"}},
		{lin, "python-ss", []string{"plant_ss.npz", "plant_ss.mat"}},
		{lin, "c", []string{"plant.h", "plant.c"}},
	} {
		out := filepath.Join(dir, tc.format+filepath.Base(tc.model))
		stdout := mustRun(t, "export", "--model", tc.model, "--format", tc.format, "--out", out, "--name", "plant", "--json")
		var res exportJSON
		if err := json.Unmarshal([]byte(stdout), &res); err != nil {
			t.Fatalf("--json output %q: %v", stdout, err)
		}
		if !res.Passive || res.SHA256 != fileSHA(t, tc.model) || len(res.Files) != len(tc.want) {
			t.Errorf("%s %s: %+v", tc.format, tc.model, res)
		}
		for i, w := range tc.want {
			p := filepath.Join(out, w)
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatalf("%s: %v", tc.format, err)
			}
			if res.Files[i] != p {
				t.Errorf("--json lists %s, want %s", res.Files[i], p)
			}
			if tc.format == "c" && !bytes.Contains(b, []byte(res.SHA256)) {
				t.Errorf("%s does not carry the model's SHA-256", p)
			}
			if tc.format == "fmu" {
				zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
				if err != nil {
					t.Fatal(err)
				}
				if zr.File[0].Name != "modelDescription.xml" {
					t.Errorf("the FMU starts with %s", zr.File[0].Name)
				}
			}
		}
		// The same export again gives the same bytes.
		again := filepath.Join(dir, "again")
		os.RemoveAll(again)
		mustRun(t, "export", "--model", tc.model, "--format", tc.format, "--out", again, "--name", "plant", "--quiet")
		for _, w := range tc.want {
			a, _ := os.ReadFile(filepath.Join(out, w))
			b, _ := os.ReadFile(filepath.Join(again, w))
			if !bytes.Equal(a, b) {
				t.Errorf("%s: a second export differs", w)
			}
		}
	}
}

// TestExportNotPassive: a model trained with --passivity none is exported
// with a warning, and every artifact says NOT PASSIVE.
func TestExportNotPassive(t *testing.T) {
	dir := t.TempDir()
	none := exportModel(t, dir, "none.json", linStructure, "none", 0.01)
	for _, format := range []string{"c", "fmu", "python-ss"} {
		out := filepath.Join(dir, format)
		code, stdout, stderr := cli(t, "export", "--model", none, "--format", format, "--out", out)
		if code != 0 || !strings.Contains(stderr, "NOT PASSIVE") || !strings.Contains(stdout, "NOT PASSIVE") {
			t.Fatalf("%s: exit %d, stdout %q, stderr %q", format, code, stdout, stderr)
		}
		entries, _ := os.ReadDir(out)
		for _, e := range entries {
			b, _ := os.ReadFile(filepath.Join(out, e.Name()))
			if strings.HasSuffix(e.Name(), ".fmu") {
				zr, _ := zip.NewReader(bytes.NewReader(b), int64(len(b)))
				f, _ := zr.Open("modelDescription.xml")
				var buf bytes.Buffer
				buf.ReadFrom(f)
				b = buf.Bytes()
			}
			if !bytes.Contains(b, []byte("NOT PASSIVE")) && !bytes.Contains(b, []byte("NOT_PASSIVE")) {
				t.Errorf("%s/%s has no NOT PASSIVE marker", format, e.Name())
			}
		}
	}
}

// TestExportRefuses: every bad call exits 2 with a message and writes
// nothing.
func TestExportRefuses(t *testing.T) {
	dir := t.TempDir()
	fb := exportModel(t, dir, "fb.json", fbStructure, "exact", 0.02)
	noTs := exportModel(t, dir, "nots.json", fbStructure, "exact", 0)
	forged := exportModel(t, dir, "forged.json", linStructure, "none", 0.01)
	b, _ := os.ReadFile(forged)
	os.WriteFile(forged, bytes.Replace(b, []byte(`"mode": "none"`), []byte(`"mode": "exact"`), 1), 0o644)
	other := filepath.Join(dir, "other.json")
	os.WriteFile(other, []byte(`{"format": "gputrain-model", "version": 1}`), 0o644)
	newer := filepath.Join(dir, "newer.json")
	b, _ = os.ReadFile(fb)
	os.WriteFile(newer, bytes.Replace(b, []byte(`"version": 1`), []byte(`"version": 9`), 1), 0o644)
	older := filepath.Join(dir, "older.json")
	os.WriteFile(older, bytes.Replace(b, []byte(`"version": 1`), []byte(`"version": 0`), 1), 0o644)
	aFile := filepath.Join(dir, "afile")
	os.WriteFile(aFile, []byte("x"), 0o644)

	out := filepath.Join(dir, "out")
	for _, tc := range []struct {
		name string
		args []string
		msg  string
	}{
		{"no model", []string{"--format", "c", "--out", out}, "--model FILE is required"},
		{"missing model", []string{"--model", filepath.Join(dir, "nope.json"), "--out", out}, "no such file"},
		{"no out", []string{"--model", fb}, "--out DIR is required"},
		{"unknown format", []string{"--model", fb, "--format", "simulink", "--out", out}, "unknown format"},
		{"bad name", []string{"--model", fb, "--out", out, "--name", "my-plant"}, "not a C identifier"},
		{"keyword name", []string{"--model", fb, "--out", out, "--name", "int"}, "C keyword"},
		{"out is a file", []string{"--model", fb, "--out", aFile}, "is a file"},
		{"out parent missing", []string{"--model", fb, "--out", filepath.Join(dir, "no", "such")}, "does not exist"},
		{"failed claim", []string{"--model", forged, "--out", out}, "--allow-uncertified"},
		{"other format", []string{"--model", other, "--out", out}, `"gputrain-model" file`},
		{"newer version", []string{"--model", newer, "--out", out}, "version 9"},
		{"old version", []string{"--model", older, "--out", out}, "version 0"},
		{"fmu without ts", []string{"--model", noTs, "--format", "fmu", "--out", out}, "--ts"},
		{"negative ts", []string{"--model", fb, "--format", "fmu", "--out", out, "--ts", "-1"}, "--ts"},
		{"ss of branches", []string{"--model", fb, "--format", "python-ss", "--out", out}, "--branches 0"},
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
	// With the flag, the forged file is exported, marked.
	code, _, stderr := cli(t, "export", "--model", forged, "--out", out, "--allow-uncertified")
	if code != 0 || !strings.Contains(stderr, "NOT PASSIVE") {
		t.Errorf("--allow-uncertified: exit %d, stderr %q", code, stderr)
	}
	// And an FMU of a model without ts is made with --ts.
	mustRun(t, "export", "--model", noTs, "--format", "fmu", "--out", filepath.Join(dir, "fmu"), "--ts", "0.005", "--quiet")
}
