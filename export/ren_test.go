package export

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/passivenfir/gputrain/baselines"
	"github.com/passivenfir/gputrain/classes"
	"github.com/passivenfir/gputrain/classes/baseline"
)

// renSizes are the passive RENs the export tests write: train's size, a
// minimal one, and a wide one.
var renSizes = []struct{ nx, nv int }{{5, 15}, {1, 1}, {8, 24}}

// writeREN saves a passive REN with seeded random parameters and scales
// away from 1, as train saves a chosen REN (a gputrain-model file of class
// ren), and loads it for export.
func writeREN(t testing.TB, dir string, i, nx, nv int) testCase {
	t.Helper()
	m := &baselines.PassiveREN{States: nx, Neurons: nv, Eps: 1e-6, UScale: 1.7, YScale: 0.6}
	m.Theta = make([]float64, m.NumParams())
	rng := rand.New(rand.NewPCG(uint64(i+1), 0x9e7))
	for k := range m.Theta {
		m.Theta[k] = 0.5 * rng.NormFloat64()
	}
	name := fmt.Sprintf("ren%d_%dx%d", i, nx, nv)
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
		cases = append(cases, writeREN(t, dir, i, sz.nx, sz.nv))
	}
	var drv strings.Builder
	drv.WriteString("#include <stdio.h>\n")
	srcs := []string{"driver.c"}
	for i, c := range cases {
		files, err := C(c.src, c.name)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if err := os.WriteFile(filepath.Join(dir, f.Name), f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
			checkMarker(t, c.src, f)
			if !strings.Contains(string(f.Data), "CERTIFIED PASSIVE") || !strings.Contains(string(f.Data), "smallest eigenvalue of H") {
				t.Errorf("%s: no certificate in the comment block", f.Name)
			}
		}
		srcs = append(srcs, c.name+".c")
		fmt.Fprintf(&drv, "#include \"%s.h\"\nstatic %s_state s%d;\n", c.name, c.name, i)
	}
	drv.WriteString("int main(void)\n{\n\tchar op[2];\n\tint i;\n\tdouble u;\n")
	for i, c := range cases {
		fmt.Fprintf(&drv, "\t%s_init(&s%d);\n", c.name, i)
	}
	drv.WriteString("\twhile (scanf(\"%1s %d\", op, &i) == 2) {\n\t\tif (op[0] == 's' && scanf(\"%la\", &u) != 1)\n\t\t\treturn 2;\n\t\tswitch (i) {\n")
	for i, c := range cases {
		fmt.Fprintf(&drv, "\t\tcase %d:\n\t\t\tif (op[0] == 'r')\n\t\t\t\t%s_reset(&s%d);\n\t\t\telse\n\t\t\t\tprintf(\"%%a\\n\", %s_step(&s%d, u));\n\t\t\tbreak;\n", i, c.name, i, c.name, i)
	}
	drv.WriteString("\t\tdefault:\n\t\t\treturn 3;\n\t\t}\n\t}\n\treturn 0;\n}\n")
	if err := os.WriteFile(filepath.Join(dir, "driver.c"), []byte(drv.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	compile(t, dir, append([]string{"-o", "driver"}, append(srcs, "-lm")...)...)
	recs := records(7, 2, 300)
	var in strings.Builder
	for i := range cases {
		for _, u := range recs {
			for _, v := range u {
				fmt.Fprintf(&in, "s %d %s\n", i, hexf(v))
			}
			fmt.Fprintf(&in, "r %d\n", i)
		}
	}
	ys := runDriver(t, filepath.Join(dir, "driver"), in.String())
	worst := 0.0
	for _, c := range cases {
		for r, u := range recs {
			want := c.src.REN.Simulate(u)
			if len(ys) < len(u) {
				t.Fatalf("driver stopped early")
			}
			worst = math.Max(worst, compareRel(t, fmt.Sprintf("%s record %d", c.name, r), ys[:len(u)], want))
			ys = ys[len(u):]
		}
	}
	t.Logf("largest relative difference from Simulate (libm tanh against math.Tanh): %.3g", worst)
}

// TestRENFMU builds a REN's source FMU as a shared library, checks
// modelDescription.xml and drives it with fmi2 calls: a record, a reset,
// another, then steps of 2·ts.
func TestRENFMU(t *testing.T) {
	cc(t)
	const ts = 0.01
	dir := t.TempDir()
	c := writeREN(t, dir, 0, 5, 15)
	var quoted []string
	for _, f := range fmi2Functions {
		quoted = append(quoted, strconv.Quote(f))
	}
	name := "renfmu"
	out, err := FMU(c.src, name, 0)
	if err != nil {
		t.Fatal(err)
	}
	files := unzipFMU(t, out[0])
	checkModelDescription(t, name, ts, files, files["sources/"+name+"_fmi2.c"])
	if md := string(files["modelDescription.xml"]); !strings.Contains(md, "REN") || strings.Contains(md, "NOT PASSIVE") {
		t.Errorf("modelDescription.xml does not describe a certified REN:\n%.600s", md)
	}
	src := filepath.Join(dir, name)
	for fn, b := range files {
		p := filepath.Join(src, filepath.FromSlash(fn))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	src = filepath.Join(src, "sources")
	compile(t, src, "-shared", "-fPIC", "-o", "lib.so", name+".c", name+"_fmi2.c", "-lm")
	drv := strings.NewReplacer("HEADER", name+"_fmi2.h", "NAMES", strings.Join(quoted, ", ")).Replace(fmuDriverSource)
	if err := os.WriteFile(filepath.Join(src, "driver.c"), []byte(drv), 0o644); err != nil {
		t.Fatal(err)
	}
	driver := filepath.Join(dir, "driver")
	compile(t, src, "-o", driver, "driver.c", "-ldl")
	recs := records(51, 3, 200)
	var in strings.Builder
	for _, u := range recs[:2] {
		for _, v := range u {
			fmt.Fprintf(&in, "s %s\n", hexf(v))
		}
		in.WriteString("r\n")
	}
	var held []float64
	for _, v := range recs[2] {
		fmt.Fprintf(&in, "d %s\n", hexf(v))
		held = append(held, v, v)
	}
	ys := runDriver(t, driver, in.String(), filepath.Join(src, "lib.so"), guid(c.src, name), strconv.FormatFloat(ts, 'g', -1, 64))
	for r, u := range recs[:2] {
		compareRel(t, fmt.Sprintf("record %d", r), ys[:len(u)], c.src.REN.Simulate(u))
		ys = ys[len(u):]
	}
	want := c.src.REN.Simulate(held)
	var every2 []float64
	for k := 1; k < len(want); k += 2 {
		every2 = append(every2, want[k])
	}
	compareRel(t, "steps of 2·ts", ys, every2)
}

// TestRENStateSpaceRefused: a REN is not linear; the refusal says what to
// export instead.
func TestRENStateSpaceRefused(t *testing.T) {
	c := writeREN(t, t.TempDir(), 0, 2, 3)
	_, err := StateSpace(c.src, "r")
	if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "--format c or fmu") {
		t.Errorf("state space of a REN: %v", err)
	}
}

// TestPythonRENReader holds python/gputrain_model.py's RENModel to
// PassiveREN.Simulate at 1e-12 relative on every test REN, checks that it
// finds H positive definite as Go does, and that it refuses a file whose
// theta has the wrong length, naming the field.
func TestPythonRENReader(t *testing.T) {
	py := python(t)
	dir := t.TempDir()
	var cases []testCase
	for i, sz := range renSizes {
		cases = append(cases, writeREN(t, dir, i, sz.nx, sz.nv))
	}
	recs := records(62, 2, 120)
	type job struct {
		Path string     `json:"path"`
		U    [][]string `json:"u"`
	}
	var jobs []job
	for _, c := range cases {
		jobs = append(jobs, job{c.path, [][]string{hexAll(recs[0]), hexAll(recs[1])}})
	}
	b, err := os.ReadFile(cases[0].path)
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(strings.Replace(string(b), `"theta": [`, `"theta": [0.5, `, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	jobs = append(jobs, job{bad, nil})
	in, _ := json.Marshal(jobs)
	wd, _ := os.Getwd()
	cmd := exec.Command(py, "-c", pyLoopHarness, filepath.Join(wd, "..", "python"))
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python: %v\n%s", err, stderr.String())
	}
	var res []struct {
		Passive bool       `json:"passive"`
		FIRs    []string   `json:"firs"`
		Closed  [][]string `json:"closed"`
		Refused string     `json:"refused"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("python output: %v\n%s", err, out)
	}
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
	if r := res[len(res)-1]; !strings.Contains(r.Refused, "params.theta") {
		t.Errorf("a REN file with one number too many in theta: %+v, want a refusal naming params.theta", r)
	}
}
