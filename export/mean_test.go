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
	"github.com/passivenfir/gputrain/classes/loopclass"
	"github.com/passivenfir/gputrain/classes/meanclass"
	"github.com/passivenfir/gputrain/loop"
)

// meanCases are the means of RENs and loops every exported form is
// checked on: the search's kind (RENs of several kinds beside loops, some
// drawn more than once), RENs alone, and one member.
var meanCases = []struct {
	name   string
	rens   []int // indices into renSizes
	loops  []int // indices into loopStructures
	counts []int // per member, RENs first; nil: each once
}{
	{"rens_and_loops", []int{0, 3, 5}, []int{0, 6}, []int{2, 1, 3, 1, 1}},
	{"rens_only", []int{1, 4, 6}, nil, nil},
	{"one_loop", nil, []int{10}, []int{4}},
}

// testREN is a passive REN of renSizes[i] with seeded random parameters
// and scales away from 1, as writeREN makes it.
func testREN(i int) *baselines.PassiveREN {
	sz := renSizes[i]
	m := &baselines.PassiveREN{States: sz.nx, Neurons: sz.nv, Eps: 1e-6, Biased: sz.biased, Gated: sz.gated, UScale: 1.3, YScale: 0.8}
	m.Theta = make([]float64, m.NumParams())
	rng := rand.New(rand.NewPCG(uint64(i+11), 0x3ea))
	for k := range m.Theta {
		m.Theta[k] = 0.5 * rng.NormFloat64()
	}
	return m
}

// writeMeans saves every mean of meanCases as train saves a chosen mean (a
// gputrain-model file of class mean) and loads it for export.
func writeMeans(t *testing.T) []testCase {
	t.Helper()
	dir := t.TempDir()
	var cs []testCase
	for ci, mc := range meanCases {
		var members []meanclass.Member
		for _, i := range mc.rens {
			members = append(members, meanclass.Member{Model: baseline.NewREN(testREN(i)), Count: 1})
		}
		for _, i := range mc.loops {
			l := randomLoop(t, loopStructures[i].s, uint64(100*ci+i+1))
			members = append(members, meanclass.Member{Model: &loopclass.Model{Mean: loop.Of(l)}, Count: 1})
		}
		for k, c := range mc.counts {
			members[k].Count = c
		}
		m, err := meanclass.New(members...)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, mc.name+".json")
		if err := classes.Save(path, m, classes.Meta{Ts: 0.01}); err != nil {
			t.Fatal(err)
		}
		src, err := Load(path, false)
		if err != nil {
			t.Fatal(err)
		}
		if src.Mean == nil || len(src.Members) != len(members) || src.Model != nil || src.Loop != nil || src.REN != nil || !src.Passive() || src.Meta.Mode != MeanMode {
			t.Fatalf("%s: loaded as %+v", mc.name, src)
		}
		cs = append(cs, testCase{mc.name, src, path})
	}
	return cs
}

// TestMeanCMatchesSimulate compiles the C of every test mean into one
// driver and compares its output, over two records with a reset between
// them, with the mean's Simulate; the comment block names every member and
// its certificate.
func TestMeanCMatchesSimulate(t *testing.T) {
	cc(t)
	cases := writeMeans(t)
	worst := driveC(t, cases, 17, 250, func(c testCase, u []float64) []float64 { return c.src.Mean.Simulate(u) }, func(c testCase, f File) {
		text := string(f.Data)
		if !strings.Contains(text, "CERTIFIED PASSIVE") {
			t.Errorf("%s: no certificate in the comment block", f.Name)
		}
		for i := range c.src.Members {
			if !strings.Contains(text, fmt.Sprintf("member %d (", i)) {
				t.Errorf("%s: member %d not described", f.Name, i)
			}
		}
	})
	t.Logf("largest relative difference from Simulate (libm tanh against math.Tanh): %.3g", worst)
}

// TestMeanFMU builds a mean's source FMU as a shared library and drives it
// with fmi2 calls, as for a REN and a loop.
func TestMeanFMU(t *testing.T) {
	cc(t)
	c := writeMeans(t)[0]
	files, _ := runFMU(t, t.TempDir(), c.src, c.name+"fmu", 53, c.src.Mean.Simulate)
	if md := string(files["modelDescription.xml"]); !strings.Contains(md, "weighted mean of 5 passive models") || strings.Contains(md, "NOT PASSIVE") {
		t.Errorf("modelDescription.xml does not describe a certified mean:\n%.600s", md)
	}
}

// TestMeanStateSpaceRefused: a mean of RENs and loops is not linear.
func TestMeanStateSpaceRefused(t *testing.T) {
	c := writeMeans(t)[1]
	if _, err := StateSpace(c.src, "m"); !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "--format c or fmu") {
		t.Errorf("state space of a mean: %v", err)
	}
}

// TestPythonMeanReader holds python/gputrain_model.py's MeanModel to the
// mean's Simulate at 1e-12 relative, checks that it certifies every
// member's FIRs and H as Go does, and that it refuses, as Go does, a mean
// in a file of version 4, a member of another class, and a count of 0.
func TestPythonMeanReader(t *testing.T) {
	py := python(t)
	cases := writeMeans(t)
	recs := records(64, 2, 100)
	jobs := pyJobs(cases, recs)
	bad := []struct{ name, old, new, want string }{
		{"v4.json", `"version": 5`, `"version": 4`, "class mean needs version 5"},
		{"gru.json", `"class": "ren"`, `"class": "gru"`, "members[0]: class 'gru'"},
		{"count0.json", `"count": 2`, `"count": 0`, "members[0].count is 0"},
	}
	for _, b := range bad {
		p := editedCopy(t, cases[0].path, b.name, b.old, b.new)
		if _, _, err := classes.Load(p); err == nil {
			t.Errorf("%s: Go read it", b.name)
		}
		jobs = append(jobs, pyJobFile{p, nil})
	}
	res := runPyHarness(t, py, jobs)
	for i, c := range cases {
		r := res[i]
		if r.Refused != "" {
			t.Fatalf("%s: refused: %s", c.name, r.Refused)
		}
		want := 0
		for _, ms := range c.src.Members {
			if ms.REN != nil {
				want++
			} else {
				want += len(ms.LoopCert)
			}
		}
		if !r.Passive || len(r.FIRs) != want || !strings.HasPrefix(r.FIRs[0], "member 0 ") {
			t.Errorf("%s: Python: passive %v, certificate %v; Go certifies %d items", c.name, r.Passive, r.FIRs, want)
		}
		for k, u := range recs {
			compareRel(t, fmt.Sprintf("%s record %d", c.name, k), parseAll(t, r.Closed[k]), c.src.Mean.Simulate(u))
		}
	}
	for k, b := range bad {
		if r := res[len(cases)+k]; !strings.Contains(r.Refused, b.want) {
			t.Errorf("%s: Python %+v, want a refusal naming %q", b.name, r, b.want)
		}
	}
}
