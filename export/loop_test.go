package export

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/passivenfir/gputrain/classes"
	"github.com/passivenfir/gputrain/classes/loopclass"
	"github.com/passivenfir/gputrain/loop"
)

// loopStructures are the loops every exported form is checked on: the two
// shapes train uses, no branch in H2, a lift that sees only y (and H1 only
// a linear FIR), one tap, no hidden layer, three hidden layers, and H1's
// first-order sections (train --loop-sections) beside a linear FIR and
// without one, slow states beside the windows and alone, and the recurrent
// lift's GRU state beside both and alone.
var loopStructures = []struct {
	name string
	s    loop.Structure
}{
	{"sized", loop.Sized(12)},
	{"wide", loop.Wide(9)},
	{"no_h2_branches", loop.Structure{R1: 3, Hidden: []int{2}, B1: 3, T1: 3, L2: 4}},
	{"y_only", loop.Structure{R2: 2, L1: 6, B2: 2, T2: 4}},
	{"one_tap", loop.Structure{R1: 1, R2: 1, B1: 2, T1: 1, B2: 1, T2: 1}},
	{"deep", loop.Structure{R1: 2, R2: 3, Hidden: []int{3, 4, 2}, B1: 1, T1: 5, L1: 2, B2: 2, T2: 3, L2: 5}},
	{"sections", loop.Structure{R1: 2, R2: 2, Hidden: []int{4}, B1: 2, T1: 6, L1: 12, B2: 2, T2: 6, L2: 6, P1: 3}},
	{"sections_no_linear", loop.Structure{R1: 1, R2: 1, B1: 2, T1: 3, B2: 1, T2: 2, P1: 2}},
	{"states", loop.Structure{R1: 2, R2: 2, Hidden: []int{4}, B1: 2, T1: 6, L1: 40, B2: 2, T2: 6, L2: 6, S: 2}},
	{"states_only", loop.Structure{Hidden: []int{3}, B1: 1, T1: 3, L1: 5, B2: 1, T2: 2, P1: 1, S: 1}},
	{"recurrent", loop.Structure{R1: 2, R2: 2, Hidden: []int{4}, B1: 2, T1: 6, L1: 12, B2: 2, T2: 6, L2: 6, S: 1, Rec: 3}},
	{"recurrent_only", loop.Structure{Hidden: []int{3}, B1: 1, T1: 3, L1: 5, B2: 1, T2: 2, Rec: 2}},
}

// randomLoop returns a loop of structure s with seeded random parameters
// and scales away from 1.
func randomLoop(t testing.TB, s loop.Structure, seed uint64) *loop.Model {
	t.Helper()
	m, err := loop.New(s)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x100b))
	theta := make([]float64, m.NumParams())
	for i := range theta {
		theta[i] = 0.5 * rng.NormFloat64()
	}
	if err := m.SetFlat(theta); err != nil {
		t.Fatal(err)
	}
	m.SU, m.SY = 1.7, 0.6
	return m
}

// writeLoop saves a loop, or the mean of several, as train does (a
// gputrain-model file of class loop).
func writeLoop(t testing.TB, dir, name string, m ...*loop.Model) string {
	t.Helper()
	path := filepath.Join(dir, name+".json")
	if err := classes.Save(path, &loopclass.Model{Mean: loop.Of(m...)}, classes.Meta{Ts: 0.01}); err != nil {
		t.Fatal(err)
	}
	return path
}

// loopMeans are the means of loops checked beside the single loops: the
// two shapes train averages, and three loops of unlike structure.
var loopMeans = []struct {
	name    string
	members []int // indices into loopStructures
	counts  []int // nil: each loop once
}{
	{"mean_sized_wide", []int{0, 1}, nil},
	{"mean_of_three", []int{2, 3, 5}, nil},
	{"mean_with_sections", []int{0, 6}, nil},
	{"weighted_mean", []int{0, 1, 2}, []int{3, 1, 2}},
}

// loopCases writes every loop structure, then every mean of loopMeans, to a
// file and loads it for export.
func loopCases(t testing.TB) []testCase {
	t.Helper()
	dir := t.TempDir()
	var cs []testCase
	type file struct {
		name    string
		members loop.Mean
	}
	var files []file
	for i, tc := range loopStructures {
		files = append(files, file{tc.name, loop.Of(randomLoop(t, tc.s, uint64(i+1)))})
	}
	for i, mc := range loopMeans {
		var ms loop.Mean
		for k, j := range mc.members {
			c := 1
			if mc.counts != nil {
				c = mc.counts[k]
			}
			ms = append(ms, loop.Member{Model: randomLoop(t, loopStructures[j].s, uint64(100*(i+1)+k)), Count: c})
		}
		files = append(files, file{mc.name, ms})
	}
	for _, tc := range files {
		path := filepath.Join(dir, tc.name+".json")
		if err := classes.Save(path, &loopclass.Model{Mean: tc.members}, classes.Meta{Ts: 0.01}); err != nil {
			t.Fatal(err)
		}
		src, err := Load(path, false)
		if err != nil {
			t.Fatal(err)
		}
		if len(src.Loop) != len(tc.members) || src.Loop.Total() != tc.members.Total() || src.Model != nil || !src.Passive() || src.Meta.Ts != 0.01 {
			t.Fatalf("%s: loaded as %+v", tc.name, src)
		}
		cs = append(cs, testCase{"loop_" + tc.name, src, path})
	}
	return cs
}

// TestLoopCMatchesSimulate compiles the C of every test loop into one
// driver and compares its output, over two records with a reset between
// them, with loop.Model.Simulate.
func TestLoopCMatchesSimulate(t *testing.T) {
	cc(t)
	worst := driveC(t, loopCases(t), 5, 300, func(c testCase, u []float64) []float64 { return c.src.Loop.Simulate(u) }, func(c testCase, f File) {
		if !strings.Contains(string(f.Data), "CERTIFIED PASSIVE") || (c.src.Loop[0].B1 > 0 && !strings.Contains(string(f.Data), "H1 branch")) {
			t.Errorf("%s: no certificate in the comment block", f.Name)
		}
	})
	t.Logf("largest relative difference from Simulate (libm tanh against math.Tanh): %.3g", worst)
}

// TestLoopFMU builds three loops' and a mean's source FMUs as shared
// libraries, checks modelDescription.xml and drives them with fmi2 calls
// (as TestFMU does an NFIR's): a record, a reset, another, then steps of
// 2·ts.
func TestLoopFMU(t *testing.T) {
	cc(t)
	dir := t.TempDir()
	cases := loopCases(t)
	for i, c := range []testCase{cases[0], cases[5], cases[len(loopStructures)], cases[6]} {
		t.Run(c.name, func(t *testing.T) {
			files, _ := runFMU(t, dir, c.src, fmt.Sprintf("loop%d", i), uint64(i+50), c.src.Loop.Simulate)
			if md := string(files["modelDescription.xml"]); !strings.Contains(md, "feedback loop") || strings.Contains(md, "NOT PASSIVE") {
				t.Errorf("modelDescription.xml does not describe a certified loop:\n%.600s", md)
			}
		})
	}
}

// TestLoopStateSpaceRefused: a loop is not linear; the refusal says what
// to export instead.
func TestLoopStateSpaceRefused(t *testing.T) {
	src := loopCases(t)[0].src
	_, err := Generate(src, FormatPythonSS, Options{Name: "plant"})
	if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "--format c or fmu") {
		t.Errorf("python-ss of a loop: %v, want ErrUnsupported pointing to c or fmu", err)
	}
}

// TestLoopLoadRefuses: a loop file with inconsistent dimensions is an
// error naming the field, and a class without an exported form is
// ErrUnsupported naming the class.
func TestLoopLoadRefuses(t *testing.T) {
	dir := t.TempDir()
	good, err := os.ReadFile(writeLoop(t, dir, "good", randomLoop(t, loopStructures[0].s, 1)))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, from, to, want string
		unsupported          bool
	}{
		{"theta", `"theta": [`, `"theta": [1.5, `, "params.theta", false},
		{"structure", `"b1": 2`, `"b1": -1`, "params.structure", false},
		{"u_scale", `"u_scale": 1.7`, `"u_scale": 0`, "u_scale", false},
		{"class", `"class": "loop"`, `"class": "gru"`, `class "gru"`, true},
		{"version", `"version": 1`, `"version": 9`, "version 9", false},
	} {
		b := strings.Replace(string(good), tc.from, tc.to, 1)
		if b == string(good) {
			t.Fatalf("%s: %q not in the file", tc.name, tc.from)
		}
		path := filepath.Join(dir, tc.name+".json")
		if err := os.WriteFile(path, []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(path, false)
		if err == nil || !strings.Contains(err.Error(), tc.want) || errors.Is(err, ErrUnsupported) != tc.unsupported {
			t.Errorf("%s: Load = %v, want an error naming %s (unsupported %v)", tc.name, err, tc.want, tc.unsupported)
		}
	}
}

// pyLoopHarness reads each loop file with python/gputrain_model.py and
// prints its passivity, the names of its certified FIRs and its outputs
// as hexadecimal floats (exact), or why it refused the file.
// pyJobFile is a job of pyLoopHarness: a model file and input records.
type pyJobFile struct {
	Path string     `json:"path"`
	U    [][]string `json:"u"`
}

// pyJobs is one job per test case, each run on the records recs.
func pyJobs(cases []testCase, recs [][]float64) []pyJobFile {
	var jobs []pyJobFile
	for _, c := range cases {
		var us [][]string
		for _, u := range recs {
			us = append(us, hexAll(u))
		}
		jobs = append(jobs, pyJobFile{c.path, us})
	}
	return jobs
}

// editedCopy writes a copy of the file at path, named name in a temporary
// directory, with the first old in it replaced by new, and returns the
// copy's path: a file the readers must refuse.
func editedCopy(t *testing.T, path, name, old, new string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), old) {
		t.Fatalf("%s has no %q to edit", path, old)
	}
	out := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(out, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// pyHarnessResult is pyLoopHarness's answer for one job.
type pyHarnessResult struct {
	Passive bool       `json:"passive"`
	FIRs    []string   `json:"firs"`
	Closed  [][]string `json:"closed"`
	Refused string     `json:"refused"`
}

// runPyHarness runs pyLoopHarness on jobs with the interpreter py.
func runPyHarness(t *testing.T, py string, jobs []pyJobFile) []pyHarnessResult {
	t.Helper()
	var res []pyHarnessResult
	runHarness(t, py, pyLoopHarness, jobs, &res)
	if len(res) != len(jobs) {
		t.Fatalf("python answered %d jobs of %d", len(res), len(jobs))
	}
	return res
}

const pyLoopHarness = `
import json, sys
sys.path.insert(0, sys.argv[1])
import gputrain_model as gm
out = []
for job in json.load(sys.stdin):
    try:
        m = gm.load(job["path"])
        out.append({"passive": m.passive, "firs": [c[0] for c in m.certificate],
                    "closed": [[float.hex(float(v)) for v in m.simulate([float.fromhex(x) for x in u])] for u in job["u"]]})
    except ValueError as e:
        out.append({"refused": str(e)})
json.dump(out, sys.stdout)
`

// TestPythonLoopReader holds python/gputrain_model.py's LoopModel to
// loop.Model.Simulate at 1e-12 relative on every test loop, checks that it
// certifies the same FIRs, and that it refuses a file whose theta has the
// wrong length, naming the field.
func TestPythonLoopReader(t *testing.T) {
	py := python(t)
	cases := loopCases(t)
	recs := records(61, 2, 150)
	jobs := pyJobs(cases, recs)
	jobs = append(jobs, pyJobFile{editedCopy(t, cases[0].path, "bad.json", `"theta": [`, `"theta": [0.5, `), nil})
	// a weighted mean's counts in a version-1 file: refused
	var weighted string
	for _, c := range cases {
		if c.src.Loop.Weighted() {
			weighted = c.path
		}
	}
	if weighted == "" {
		t.Fatal("no weighted mean among the cases")
	}
	jobs = append(jobs, pyJobFile{editedCopy(t, weighted, "v1counts.json", `"version": 2`, `"version": 1`), nil})
	res := runPyHarness(t, py, jobs)
	for i, c := range cases {
		r := res[i]
		if r.Refused != "" {
			t.Fatalf("%s: refused: %s", c.name, r.Refused)
		}
		if !r.Passive || len(r.FIRs) != len(c.src.LoopCert) {
			t.Errorf("%s: Python: passive %v, FIRs %v; Go certifies %d FIRs", c.name, r.Passive, r.FIRs, len(c.src.LoopCert))
		}
		for k, fc := range c.src.LoopCert {
			if k < len(r.FIRs) && r.FIRs[k] != fc.Name {
				t.Errorf("%s: FIR %d is %q in Python, %q in Go", c.name, k, r.FIRs[k], fc.Name)
			}
		}
		for k, u := range recs {
			compareRel(t, fmt.Sprintf("%s record %d", c.name, k), parseAll(t, r.Closed[k]), c.src.Loop.Simulate(u))
		}
	}
	if r := res[len(res)-2]; !strings.Contains(r.Refused, "params.theta") {
		t.Errorf("a loop file with one number too many in theta: %+v, want a refusal naming params.theta", r)
	}
	if last := res[len(res)-1]; !strings.Contains(last.Refused, "params.counts needs version 2") {
		t.Errorf("a version-1 file with counts: %+v, want a refusal naming params.counts", last)
	}
}

// TestLoopSectionsCertificate: the certificate of a loop with sections
// lists each section after H1's linear FIR with loop.SectionMinRe's bound,
// the C names the count and the order, and a loop without sections exports
// no trace of them.
func TestLoopSectionsCertificate(t *testing.T) {
	cases := loopCases(t)
	c := cases[6]
	m := c.src.Loop[0]
	if m.P1 != 3 {
		t.Fatalf("case %s has %d sections, want 3", c.name, m.P1)
	}
	tp := m.FIRTaps()
	var names []string
	for _, fc := range c.src.LoopCert {
		names = append(names, fc.Name)
	}
	want := []string{"H1 branch 0", "H1 branch 1", "H1 linear", "H1 section 0", "H1 section 1", "H1 section 2", "H2 branch 0", "H2 branch 1", "H2 linear"}
	if strings.Join(names, "|") != strings.Join(want, "|") {
		t.Fatalf("certified %q, want %q", names, want)
	}
	for k := range 3 {
		re, om := loop.SectionMinRe(tp.Poles[k], tp.Gains[k])
		if got := c.src.LoopCert[3+k]; got.MinRe != re || got.Omega != om || !(re >= 0) {
			t.Errorf("section %d: certificate %+v, want %g at %g", k, got, re, om)
		}
	}
	files, err := C(c.src, "plant")
	if err != nil {
		t.Fatal(err)
	}
	h := string(files[0].Data)
	for _, s := range []string{"#define PLANT_P1", "H1's first-order sections", "double sec[3]", "H1 section 2", "first-order sections 3"} {
		if !strings.Contains(h, s) {
			t.Errorf("plant.h has no %q", s)
		}
	}
	plain, err := C(cases[0].src, "plant")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range plain {
		if strings.Contains(string(f.Data), "section") || strings.Contains(string(f.Data), "_P1") {
			t.Errorf("%s of a loop without sections mentions them", f.Name)
		}
	}
}
