package export

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
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

// testStructures are the structures every exported form is checked on: FF
// and FB, a parallel linear FIR longer and shorter than the branches,
// hold_start, a network that sees only q, one tap, and the linear FIR alone.
var testStructures = []struct {
	name string
	s    model.Structure
}{
	{"ff", model.Structure{Branches: 3, Taps: 8, R1: 2, Hidden: []int{4}}},
	{"fb", model.Structure{Branches: 3, Taps: 8, R1: 1, R2: 3, Hidden: []int{4, 4}, Feedback: true}},
	{"fb_lin", model.Structure{Branches: 2, Taps: 6, R1: 3, R2: 2, Hidden: []int{5}, Feedback: true, LinearTaps: 9}},
	{"ff_lin_short", model.Structure{Branches: 2, Taps: 7, R1: 3, Hidden: []int{3}, LinearTaps: 2}},
	{"lin", model.Structure{LinearTaps: 9}},
	{"lin1", model.Structure{LinearTaps: 1}},
	{"fb_hold", model.Structure{Branches: 2, Taps: 6, R1: 4, R2: 2, Hidden: []int{5}, Feedback: true, LinearTaps: 3, HoldStart: true}},
	{"ff_hold", model.Structure{Branches: 4, Taps: 5, R1: 3, HoldStart: true}},
	{"q_only", model.Structure{Branches: 2, Taps: 4, R2: 3, Feedback: true}},
	{"one_tap", model.Structure{Branches: 5, Taps: 1, R1: 1, R2: 1, Feedback: true}},
}

// testCase is a model file written to disk, read back for export.
type testCase struct {
	name string
	src  *Source
	path string
}

// writeModel saves a random model of structure s with the given passivity
// mode ("none" gets random taps that are not passive) and returns its path.
func writeModel(t testing.TB, dir, name string, s model.Structure, mode string, seed uint64) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, seed^0x5eed))
	m, err := model.RandomPassive(s, rng)
	if err != nil {
		t.Fatal(err)
	}
	m.UScaler = data.Scaler{Scale: 2, Mean: 0.1, Std: 0.7}
	m.QScaler = data.Scaler{Scale: 3, Mean: -0.2, Std: 1.3}
	if mode == "none" {
		for i := range m.G {
			m.G[i] = rng.NormFloat64()
		}
		for i := range m.Lin {
			m.Lin[i] = rng.NormFloat64()
		}
	}
	path := filepath.Join(dir, name+".json")
	if err := model.Save(path, m, model.Meta{Ts: 0.01, Mode: mode}); err != nil {
		t.Fatal(err)
	}
	return path
}

// testCases returns every structure in a rotating passivity mode, so that
// each mode meets several structures, plus a hand-edited file whose false
// claim is exported with allowUncertified.
func testCases(t testing.TB) []testCase {
	t.Helper()
	dir := t.TempDir()
	modes := []string{"exact", "sampled", "kyp", "none"}
	var cs []testCase
	for i, tc := range testStructures {
		mode := modes[i%len(modes)]
		path := writeModel(t, dir, tc.name, tc.s, mode, uint64(i+1))
		src, err := Load(path, false)
		if err != nil {
			t.Fatal(err)
		}
		cs = append(cs, testCase{tc.name + "_" + mode, src, path})
	}
	forged := forgeClaim(t, dir, "forged", testStructures[2].s)
	src, err := Load(forged, true)
	if err != nil {
		t.Fatal(err)
	}
	return append(cs, testCase{"forged", src, forged})
}

// forgeClaim writes a model with taps that are not passive and a file that
// claims they are (as a hand edit would).
func forgeClaim(t testing.TB, dir, name string, s model.Structure) string {
	t.Helper()
	path := writeModel(t, dir, name, s, "none", 99)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b = bytes.Replace(b, []byte(`"mode": "none"`), []byte(`"mode": "exact"`), 1)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// cc returns the system C compiler or skips the test.
func cc(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler: cc is not on PATH, so the generated C is not compiled here (CI installs gcc in .ci/run)")
	}
	return p
}

// compile runs cc with strict warnings in dir.
func compile(t testing.TB, dir string, args ...string) {
	t.Helper()
	all := append([]string{"-std=c99", "-O2", "-Wall", "-Wextra", "-pedantic", "-Werror"}, args...)
	cmd := exec.Command(cc(t), all...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("cc %s: %v\n%s", strings.Join(all, " "), err, out)
	}
}

// records returns seeded random input records; the first sample is away
// from zero so that hold_start matters.
func records(seed uint64, n, T int) [][]float64 {
	rng := rand.New(rand.NewPCG(seed, seed))
	out := make([][]float64, n)
	for i := range out {
		u := make([]float64, T)
		for k := range u {
			u[k] = rng.NormFloat64()
		}
		u[0] = 1.5
		out[i] = u
	}
	return out
}

// compareRel fails unless got equals want to 1e-12 relative to max|want|,
// and returns the largest relative difference.
func compareRel(t testing.TB, what string, got, want []float64) float64 {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d samples, want %d", what, len(got), len(want))
	}
	scale := 0.0
	for _, v := range want {
		scale = math.Max(scale, math.Abs(v))
	}
	worst := 0.0
	for i := range want {
		d := math.Abs(got[i]-want[i]) / scale
		if !(d <= 1e-12) {
			t.Fatalf("%s: y(%d) = %.17g, Simulate %.17g (relative difference %.3g)", what, i, got[i], want[i], d)
		}
		worst = math.Max(worst, d)
	}
	return worst
}

// runDriver feeds the driver "r i" (reset model i) and "s i u" (step model
// i) lines and reads one hexadecimal float per step.
func runDriver(t testing.TB, bin, input string, args ...string) []float64 {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Stdin = strings.NewReader(input)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", bin, err, stderr.String())
	}
	var ys []float64
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		v, err := strconv.ParseFloat(strings.TrimSpace(sc.Text()), 64)
		if err != nil {
			t.Fatalf("driver output %q: %v", sc.Text(), err)
		}
		ys = append(ys, v)
	}
	return ys
}

// TestCMatchesSimulate compiles the C of every test model into one driver
// and compares its closed-loop output, over two records with a reset
// between them, with Simulate.
func TestCMatchesSimulate(t *testing.T) {
	cc(t)
	worst := driveC(t, testCases(t), 3, 300, func(c testCase, u []float64) []float64 {
		y, _ := c.src.Model.Simulate(u)
		return y
	}, nil)
	t.Logf("largest relative difference from Simulate (libm tanh against math.Tanh): %.3g", worst)
}

// driveC writes the C of every case (names m<i>_<case name>), checks each
// file with check, compiles them into one driver, runs two seeded records
// of T samples through each model with a reset between them, and compares
// the outputs with sim to 1e-12 relative; it returns the largest relative
// difference.
func driveC(t *testing.T, cases []testCase, seed uint64, T int, sim func(c testCase, u []float64) []float64, check func(c testCase, f File)) float64 {
	t.Helper()
	dir := t.TempDir()
	var drv strings.Builder
	drv.WriteString("#include <stdio.h>\n")
	srcs := []string{"driver.c"}
	names := make([]string, len(cases))
	for i, c := range cases {
		names[i] = fmt.Sprintf("m%d_%s", i, c.name)
		files, err := C(c.src, names[i])
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if err := os.WriteFile(filepath.Join(dir, f.Name), f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
			checkMarker(t, c.src, f)
			if check != nil {
				check(c, f)
			}
		}
		srcs = append(srcs, names[i]+".c")
		fmt.Fprintf(&drv, "#include \"%s.h\"\nstatic %s_state s%d;\n", names[i], names[i], i)
	}
	drv.WriteString("int main(void)\n{\n\tchar op[2];\n\tint i;\n\tdouble u;\n")
	for i, n := range names {
		fmt.Fprintf(&drv, "\t%s_init(&s%d);\n", n, i)
	}
	drv.WriteString("\twhile (scanf(\"%1s %d\", op, &i) == 2) {\n\t\tif (op[0] == 's' && scanf(\"%la\", &u) != 1)\n\t\t\treturn 2;\n\t\tswitch (i) {\n")
	for i, n := range names {
		fmt.Fprintf(&drv, "\t\tcase %d:\n\t\t\tif (op[0] == 'r')\n\t\t\t\t%s_reset(&s%d);\n\t\t\telse\n\t\t\t\tprintf(\"%%a\\n\", %s_step(&s%d, u));\n\t\t\tbreak;\n", i, n, i, n, i)
	}
	drv.WriteString("\t\tdefault:\n\t\t\treturn 3;\n\t\t}\n\t}\n\treturn 0;\n}\n")
	if err := os.WriteFile(filepath.Join(dir, "driver.c"), []byte(drv.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	compile(t, dir, append([]string{"-o", "driver"}, append(srcs, "-lm")...)...)
	recs := records(seed, 2, T)
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
			if len(ys) < len(u) {
				t.Fatalf("driver stopped early")
			}
			worst = math.Max(worst, compareRel(t, fmt.Sprintf("%s record %d", c.name, r), ys[:len(u)], sim(c, u)))
			ys = ys[len(u):]
		}
	}
	return worst
}

// checkMarker: an artifact of a model that is not certified passive says
// so in its first lines; a certified one never says NOT PASSIVE.
func checkMarker(t testing.TB, src *Source, f File) {
	t.Helper()
	head := string(f.Data[:min(len(f.Data), 400)])
	has := strings.Contains(head, "NOT PASSIVE")
	if want := !src.Passive(); has != want {
		t.Errorf("%s (claim %d): NOT PASSIVE in its first lines: %v, want %v", f.Name, src.Claim, has, want)
	}
}

func TestHexfExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	vals := []float64{0, math.Copysign(0, -1), 1, -1, math.SmallestNonzeroFloat64, -math.MaxFloat64, 0.1, 1.0 / 3}
	for range 200 {
		vals = append(vals, math.Float64frombits(rng.Uint64()&^(0x7ff<<52)|uint64(rng.IntN(2046)+1)<<52))
	}
	for _, v := range vals {
		s := hexf(v)
		back, err := strconv.ParseFloat(s, 64)
		if err != nil || math.Float64bits(back) != math.Float64bits(v) {
			t.Errorf("hexf(%g) = %s reads back as %g (%v)", v, s, back, err)
		}
	}
}

func TestCheckName(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"plant", true}, {"Plant_2", true}, {"a", true},
		{"", false}, {"2plant", false}, {"my-plant", false}, {"plant.v2", false}, {"_plant", false},
		{"double", false}, {"fmi2model", false}, {"FMIx", false}, {"ω", false}, {strings.Repeat("a", 41), false},
	} {
		if err := CheckName(tc.name); (err == nil) != tc.ok {
			t.Errorf("CheckName(%q) = %v, want ok %v", tc.name, err, tc.ok)
		}
	}
}
