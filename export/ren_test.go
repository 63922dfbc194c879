package export

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/passivenfir/gputrain/baselines"
	"github.com/passivenfir/gputrain/classes"
	"github.com/passivenfir/gputrain/classes/baseline"
)

// renSizes are the passive RENs the export tests write: train's size, a
// minimal one and a wide one without biases, two biased ones and two gated.
var renSizes = []struct {
	nx, nv        int
	biased, gated bool
}{{5, 15, false, false}, {1, 1, false, false}, {8, 24, false, false}, {5, 15, true, false}, {2, 3, true, false}, {5, 15, false, true}, {3, 4, false, true}}

// writeREN saves a passive REN with seeded random parameters and scales
// away from 1, as train saves a chosen REN (a gputrain-model file of class
// ren), and loads it for export.
func writeREN(t testing.TB, dir string, i, nx, nv int, biased, gated bool) testCase {
	t.Helper()
	m := &baselines.PassiveREN{States: nx, Neurons: nv, Eps: 1e-6, Biased: biased, Gated: gated, UScale: 1.7, YScale: 0.6}
	m.Theta = make([]float64, m.NumParams())
	rng := rand.New(rand.NewPCG(uint64(i+1), 0x9e7))
	for k := range m.Theta {
		m.Theta[k] = 0.5 * rng.NormFloat64()
	}
	name := fmt.Sprintf("ren%d_%dx%d", i, nx, nv)
	if biased {
		name += "b"
	}
	if gated {
		name += "g"
	}
	path := filepath.Join(dir, name+".json")
	if err := classes.Save(path, baseline.NewREN(m), classes.Meta{Ts: 0.01}); err != nil {
		t.Fatal(err)
	}
	src, err := Load(path, false)
	if err != nil {
		t.Fatal(err)
	}
	if src.REN == nil || src.Model != nil || src.Loop != nil || !src.Passive() || src.Meta.Mode != RENMode || !(src.RENMat.MinEigH > 0) {
		t.Fatalf("%s: loaded as %+v", name, src)
	}
	return testCase{name, src, path}
}

// TestRENCMatchesSimulate compiles the C of every test REN into one driver
// and compares its output, over two records with a reset between them,
// with PassiveREN.Simulate.
func TestRENCMatchesSimulate(t *testing.T) {
	cc(t)
	dir := t.TempDir()
	var cases []testCase
	for i, sz := range renSizes {
		cases = append(cases, writeREN(t, dir, i, sz.nx, sz.nv, sz.biased, sz.gated))
	}
	worst := driveC(t, cases, 7, 300, func(c testCase, u []float64) []float64 { return c.src.REN.Simulate(u) }, func(c testCase, f File) {
		if !strings.Contains(string(f.Data), "CERTIFIED PASSIVE") || !strings.Contains(string(f.Data), "smallest eigenvalue of H") {
			t.Errorf("%s: no certificate in the comment block", f.Name)
		}
	})
	t.Logf("largest relative difference from Simulate (libm tanh against math.Tanh): %.3g", worst)
}

// TestRENFMU builds a REN's source FMU as a shared library, checks
// modelDescription.xml and drives it with fmi2 calls: a record, a reset,
// another, then steps of 2·ts.
func TestRENFMU(t *testing.T) {
	cc(t)
	dir := t.TempDir()
	for _, kind := range [][2]bool{{false, false}, {true, false}, {false, true}} {
		c := writeREN(t, dir, 0, 5, 15, kind[0], kind[1])
		files, _ := runFMU(t, dir, c.src, c.name+"fmu", 51, c.src.REN.Simulate)
		if md := string(files["modelDescription.xml"]); !strings.Contains(md, "REN") || strings.Contains(md, "NOT PASSIVE") {
			t.Errorf("%s: modelDescription.xml does not describe a certified REN:\n%.600s", c.name, md)
		}
	}
}

// TestRENStateSpaceRefused: a REN is not linear; the refusal says what to
// export instead.
func TestRENStateSpaceRefused(t *testing.T) {
	c := writeREN(t, t.TempDir(), 0, 2, 3, false, false)
	_, err := StateSpace(c.src, "r")
	if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "--format c or fmu") {
		t.Errorf("state space of a REN: %v", err)
	}
}

// TestPythonRENReader holds python/gputrain_model.py's RENModel to
// PassiveREN.Simulate at 1e-12 relative on every test REN, checks that it
// finds H positive definite as Go does, and that it refuses a file whose
// theta has the wrong length, naming the field, a biased REN in a file of
// version 2 and a gated one in a file of version 3, as Go does.
func TestPythonRENReader(t *testing.T) {
	py := python(t)
	dir := t.TempDir()
	var cases []testCase
	for i, sz := range renSizes {
		cases = append(cases, writeREN(t, dir, i, sz.nx, sz.nv, sz.biased, sz.gated))
	}
	recs := records(62, 2, 120)
	jobs := pyJobs(cases, recs)
	jobs = append(jobs, pyJobFile{editedCopy(t, cases[0].path, "bad.json", `"theta": [`, `"theta": [0.5, `), nil})
	var biased, gated string
	for _, c := range cases {
		if c.src.REN.Biased {
			biased = c.path
		}
		if c.src.REN.Gated {
			gated = c.path
		}
	}
	old := editedCopy(t, biased, "v2biased.json", `"version": 3`, `"version": 2`)
	if _, _, err := classes.Load(old); err == nil {
		t.Errorf("Go read a biased REN from a version-2 file")
	}
	oldGated := editedCopy(t, gated, "v3gated.json", `"version": 4`, `"version": 3`)
	if _, _, err := classes.Load(oldGated); err == nil {
		t.Errorf("Go read a gated REN from a version-3 file")
	}
	jobs = append(jobs, pyJobFile{old, nil}, pyJobFile{oldGated, nil})
	res := runPyHarness(t, py, jobs)
	for i, c := range cases {
		r := res[i]
		if r.Refused != "" {
			t.Fatalf("%s: refused: %s", c.name, r.Refused)
		}
		if !r.Passive || len(r.FIRs) != 1 || r.FIRs[0] != "H" {
			t.Errorf("%s: Python: passive %v, certificate %v", c.name, r.Passive, r.FIRs)
		}
		for k, u := range recs {
			compareRel(t, fmt.Sprintf("%s record %d", c.name, k), parseAll(t, r.Closed[k]), c.src.REN.Simulate(u))
		}
	}
	if r := res[len(res)-3]; !strings.Contains(r.Refused, "params.theta") {
		t.Errorf("a REN file with one number too many in theta: %+v, want a refusal naming params.theta", r)
	}
	if r := res[len(res)-2]; !strings.Contains(r.Refused, "params.biased needs version 3") {
		t.Errorf("a biased REN in a version-2 file: %+v, want a refusal naming params.biased", r)
	}
	if r := res[len(res)-1]; !strings.Contains(r.Refused, "params.gated needs version 4") {
		t.Errorf("a gated REN in a version-3 file: %+v, want a refusal naming params.gated", r)
	}
}
