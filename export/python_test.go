package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/model"
)

// python returns a Python 3 interpreter that has NumPy, or skips the test.
// A pyenv shim named python3 may lack NumPy where the system's has it.
func python(t testing.TB) string {
	t.Helper()
	for _, p := range []string{"python3", "/usr/bin/python3"} {
		if path, err := exec.LookPath(p); err == nil && exec.Command(path, "-c", "import numpy").Run() == nil {
			return path
		}
	}
	t.Skip("no python3 with NumPy (python3, /usr/bin/python3): python/gputrain_model.py is not tested here; CI installs python3-numpy in .ci/run")
	return ""
}

// pyHarness runs python/gputrain_model.py on a list of jobs read as JSON
// from stdin and prints the outputs as hexadecimal floats (exact).
const pyHarness = `
import json, sys
sys.path.insert(0, sys.argv[1])
import gputrain_model as gm
hx = lambda v: [float.hex(float(x)) for x in v]
fx = lambda v: [float.fromhex(x) for x in v]
out = []
for job in json.load(sys.stdin):
    r = {}
    try:
        if job.get("ss"):
            ss = gm.load_ss(job["path"])
            r["passive"] = ss["passive"]
            r["kyp"] = ss["kyp_min_eig"] is not None
            r["closed"] = [hx(gm.simulate_ss(ss, fx(u))) for u in job["u"]]
        else:
            m = gm.load(job["path"], allow_uncertified=job["allow"])
            r["passive"] = m.passive
            r["closed"] = [hx(m.simulate(fx(u))) for u in job["u"]]
            r["open"] = [hx(m.simulate_open_loop(fx(u), fx(y))) for u, y in zip(job["u"], job["y"])]
    except gm.NotPassiveError as e:
        r["refused"] = str(e)
    out.append(r)
json.dump(out, sys.stdout)
`

type pyJob struct {
	Path  string     `json:"path"`
	Allow bool       `json:"allow"`
	SS    bool       `json:"ss"`
	U     [][]string `json:"u"`
	Y     [][]string `json:"y"`
}

type pyResult struct {
	Passive bool       `json:"passive"`
	KYP     bool       `json:"kyp"`
	Refused string     `json:"refused"`
	Closed  [][]string `json:"closed"`
	Open    [][]string `json:"open"`
}

func hexAll(v []float64) []string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = hexf(x)
	}
	return s
}

func parseAll(t testing.TB, s []string) []float64 {
	t.Helper()
	v := make([]float64, len(s))
	for i, x := range s {
		var err error
		if v[i], err = strconv.ParseFloat(x, 64); err != nil {
			t.Fatal(err)
		}
	}
	return v
}

func runPython(t testing.TB, jobs []pyJob) []pyResult {
	t.Helper()
	var res []pyResult
	runHarness(t, python(t), pyHarness, jobs, &res)
	return res
}

// runHarness runs the Python program harness with the interpreter py and
// python/ on its path, jobs as JSON on its stdin, and decodes its JSON
// answer into res.
func runHarness(t testing.TB, py, harness string, jobs, res any) {
	t.Helper()
	wd, _ := os.Getwd()
	in, _ := json.Marshal(jobs)
	cmd := exec.Command(py, "-c", harness, filepath.Join(wd, "..", "python"))
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python: %v\n%s", err, stderr.String())
	}
	if err := json.Unmarshal(out, res); err != nil {
		t.Fatalf("python output: %v\n%s", err, out)
	}
}

// TestPythonReader runs python/gputrain_model.py on every test model:
// closed loop against Simulate, open loop against Forward with q = y(t−1)
// of a measured y, the passivity flag, and the refusal of a file whose
// claim its taps fail.
func TestPythonReader(t *testing.T) {
	python(t)
	cases := testCases(t)
	recs := records(21, 2, 120)
	meas := records(22, 2, 120) // any "measured" output will do for the open loop
	var jobs []pyJob
	for _, c := range cases {
		jobs = append(jobs, pyJob{Path: c.path, Allow: c.src.Claim == Uncertified,
			U: [][]string{hexAll(recs[0]), hexAll(recs[1])}, Y: [][]string{hexAll(meas[0]), hexAll(meas[1])}})
	}
	forged := cases[len(cases)-1]
	jobs = append(jobs, pyJob{Path: forged.path})
	res := runPython(t, jobs)
	for i, c := range cases {
		r := res[i]
		if r.Refused != "" {
			t.Fatalf("%s: refused: %s", c.name, r.Refused)
		}
		if r.Passive != c.src.Passive() {
			t.Errorf("%s: Python says passive %v, export %v", c.name, r.Passive, c.src.Passive())
		}
		for k, u := range recs {
			want, _ := c.src.Model.Simulate(u)
			compareRel(t, fmt.Sprintf("%s closed loop %d", c.name, k), parseAll(t, r.Closed[k]), want)
			wantOpen, err := c.src.Model.Forward(u, data.Q(meas[k]))
			if err != nil {
				t.Fatal(err)
			}
			compareRel(t, fmt.Sprintf("%s open loop %d", c.name, k), parseAll(t, r.Open[k]), wantOpen)
		}
	}
	if last := res[len(res)-1]; !strings.Contains(last.Refused, "claims passivity") {
		t.Errorf("a file whose taps fail its claim was read without allow_uncertified: %+v", last)
	}
}

// TestStateSpace exports the realization of linear FIRs (passive, and one
// trained without constraint), reads it in Python (which checks its
// passivity from A, B, C, D) and compares its simulation with Simulate.
func TestStateSpace(t *testing.T) {
	dir := t.TempDir()
	var jobs []pyJob
	var srcs []*Source
	recs := records(31, 1, 80)
	for i, st := range []struct {
		s    model.Structure
		mode string
	}{{model.Structure{LinearTaps: 12}, "exact"}, {model.Structure{LinearTaps: 1}, "kyp"}, {model.Structure{LinearTaps: 7}, "none"}} {
		path := writeModel(t, dir, fmt.Sprint("lin", i), st.s, st.mode, uint64(40+i))
		src, err := Load(path, false)
		if err != nil {
			t.Fatal(err)
		}
		files, err := StateSpace(src, "plant")
		if err != nil {
			t.Fatal(err)
		}
		if len(files) != 2 || files[0].Name != "plant_ss.npz" || files[1].Name != "plant_ss.mat" {
			t.Fatalf("StateSpace wrote %v", files)
		}
		out := filepath.Join(dir, fmt.Sprint("ss", i))
		if err := Write(out, files); err != nil {
			t.Fatal(err)
		}
		// The realization reproduces the taps exactly.
		r := Realize(src.Model.Lin)
		h := r.Impulse(len(src.Model.Lin))
		for k, v := range src.Model.Lin {
			if h[k] != v {
				t.Fatalf("impulse response %v, taps %v", h, src.Model.Lin)
			}
		}
		srcs = append(srcs, src)
		jobs = append(jobs, pyJob{Path: filepath.Join(out, "plant_ss.npz"), SS: true, U: [][]string{hexAll(recs[0])}})
	}
	m, _ := model.RandomPassive(model.Structure{Branches: 1, Taps: 2, R1: 1}, seededRNG())
	if _, err := StateSpace(&Source{Model: m}, "plant"); err == nil {
		t.Error("a model with branches got a linear realization")
	}
	res := runPython(t, jobs)
	for i, r := range res {
		if r.Refused != "" {
			t.Fatalf("model %d: refused: %s", i, r.Refused)
		}
		if r.Passive != srcs[i].Passive() {
			t.Errorf("model %d: passive %v in Python, %v in Go", i, r.Passive, srcs[i].Passive())
		}
		if r.KYP != srcs[i].Passive() {
			t.Errorf("model %d: KYP certificate checked in Python %v, model passive %v", i, r.KYP, srcs[i].Passive())
		}
		want, _ := srcs[i].Model.Simulate(recs[0])
		compareRel(t, fmt.Sprintf("state space %d", i), parseAll(t, r.Closed[0]), want)
	}
}

func seededRNG() *rand.Rand { return rand.New(rand.NewPCG(1, 1)) }
