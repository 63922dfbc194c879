package export

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// unzipFMU returns the files of an .fmu by name.
func unzipFMU(t testing.TB, f File) map[string][]byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(f.Data), int64(len(f.Data)))
	if err != nil {
		t.Fatalf("%s is not a zip: %v", f.Name, err)
	}
	out := map[string][]byte{}
	for _, zf := range zr.File {
		r, err := zf.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		out[zf.Name] = b
	}
	return out
}

type mdVar struct {
	Name        string `xml:"name,attr"`
	VR          string `xml:"valueReference,attr"`
	Causality   string `xml:"causality,attr"`
	Variability string `xml:"variability,attr"`
	Initial     string `xml:"initial,attr"`
	Real        *struct {
		Start *string `xml:"start,attr"`
	} `xml:"Real"`
}

type mdUnknown struct {
	Index        int     `xml:"index,attr"`
	Dependencies *string `xml:"dependencies,attr"`
}

type modelDesc struct {
	FMIVersion   string `xml:"fmiVersion,attr"`
	ModelName    string `xml:"modelName,attr"`
	GUID         string `xml:"guid,attr"`
	Description  string `xml:"description,attr"`
	CoSimulation *struct {
		ModelIdentifier      string `xml:"modelIdentifier,attr"`
		NeedsExecutionTool   string `xml:"needsExecutionTool,attr"`
		VariableStep         string `xml:"canHandleVariableCommunicationStepSize,attr"`
		CanGetAndSetFMUstate string `xml:"canGetAndSetFMUstate,attr"`
		Files                []struct {
			Name string `xml:"name,attr"`
		} `xml:"SourceFiles>File"`
	} `xml:"CoSimulation"`
	ModelExchange *struct{} `xml:"ModelExchange"`
	Experiment    *struct {
		StepSize string `xml:"stepSize,attr"`
	} `xml:"DefaultExperiment"`
	Vars            []mdVar     `xml:"ModelVariables>ScalarVariable"`
	Outputs         []mdUnknown `xml:"ModelStructure>Outputs>Unknown"`
	Derivatives     []mdUnknown `xml:"ModelStructure>Derivatives>Unknown"`
	InitialUnknowns []mdUnknown `xml:"ModelStructure>InitialUnknowns>Unknown"`
}

// fmi2Initial is the FMI 2.0 table of causality × variability (section
// 2.2.7): the combinations that are allowed, and for each the initial
// values allowed ("" where initial must be absent). Combinations not in
// the table are not allowed.
var fmi2Initial = func() map[[2]string][]string {
	A := []string{"exact"}
	B := []string{"calculated", "approx"}
	C := []string{"calculated", "exact", "approx"}
	D := []string{""}
	E := []string{""}
	return map[[2]string][]string{
		{"constant", "output"}: A, {"constant", "local"}: A,
		{"fixed", "parameter"}: A, {"fixed", "calculatedParameter"}: B, {"fixed", "local"}: B,
		{"tunable", "parameter"}: A, {"tunable", "calculatedParameter"}: B, {"tunable", "local"}: B,
		{"discrete", "input"}: D, {"discrete", "output"}: C, {"discrete", "local"}: C,
		{"continuous", "input"}: D, {"continuous", "output"}: C, {"continuous", "local"}: C,
		{"continuous", "independent"}: E,
	}
}()

// checkModelDescription applies the rules of the FMI 2.0 standard that a
// schema alone does not check.
func checkModelDescription(t testing.TB, name string, ts float64, files map[string][]byte, wrapper []byte) {
	t.Helper()
	var md modelDesc
	if err := xml.Unmarshal(files["modelDescription.xml"], &md); err != nil {
		t.Fatalf("modelDescription.xml: %v", err)
	}
	if md.FMIVersion != "2.0" {
		t.Errorf("fmiVersion %q", md.FMIVersion)
	}
	if !regexp.MustCompile(`^\{[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\}$`).MatchString(md.GUID) {
		t.Errorf("guid %q is not a GUID", md.GUID)
	}
	if !bytes.Contains(wrapper, []byte(`#define GUID "`+md.GUID+`"`)) {
		t.Errorf("the wrapper does not check the GUID %s of modelDescription.xml", md.GUID)
	}
	cs := md.CoSimulation
	switch {
	case cs == nil:
		t.Fatal("no CoSimulation element")
	case md.ModelExchange != nil:
		t.Error("a ModelExchange element, but the sources implement co-simulation only")
	case cs.ModelIdentifier != name || CheckName(cs.ModelIdentifier) != nil:
		t.Errorf("modelIdentifier %q, want the C identifier %q", cs.ModelIdentifier, name)
	case cs.VariableStep != "false":
		t.Errorf("canHandleVariableCommunicationStepSize %q, want false: the model is sampled", cs.VariableStep)
	case cs.NeedsExecutionTool != "false":
		t.Errorf("needsExecutionTool %q", cs.NeedsExecutionTool)
	}
	if len(cs.Files) == 0 {
		t.Error("a source FMU lists its SourceFiles")
	}
	for _, f := range cs.Files {
		if _, ok := files["sources/"+f.Name]; !ok {
			t.Errorf("SourceFiles lists %s, not in sources/", f.Name)
		}
	}
	if _, ok := files["documentation/index.html"]; !ok {
		t.Error("no documentation/index.html")
	}
	if md.Experiment == nil {
		t.Fatal("no DefaultExperiment: the fixed step must be stated")
	}
	if v, err := strconv.ParseFloat(md.Experiment.StepSize, 64); err != nil || v != ts {
		t.Errorf("DefaultExperiment stepSize %q, want %g", md.Experiment.StepSize, ts)
	}

	vrs, names := map[string]bool{}, map[string]bool{}
	var inputs, outputs []int
	for i, v := range md.Vars {
		if v.Real == nil {
			t.Fatalf("variable %s is not Real", v.Name)
		}
		if vrs[v.VR] || names[v.Name] {
			t.Errorf("variable %s: value reference %s or name given twice", v.Name, v.VR)
		}
		vrs[v.VR], names[v.Name] = true, true
		allowed, ok := fmi2Initial[[2]string{v.Variability, v.Causality}]
		if !ok {
			t.Errorf("variable %s: variability %q with causality %q is not allowed", v.Name, v.Variability, v.Causality)
			continue
		}
		initOK := false
		for _, a := range allowed {
			// An absent initial takes the default, the first entry.
			initOK = initOK || v.Initial == a || (v.Initial == "" && a == allowed[0])
		}
		if !initOK {
			t.Errorf("variable %s: initial %q, allowed %q", v.Name, v.Initial, allowed)
		}
		init := v.Initial
		if init == "" {
			init = allowed[0]
		}
		needStart := v.Causality == "input" || init == "exact" || init == "approx"
		if needStart != (v.Real.Start != nil) {
			t.Errorf("variable %s (initial %q): start given %v, required %v", v.Name, init, v.Real.Start != nil, needStart)
		}
		switch v.Causality {
		case "input":
			inputs = append(inputs, i+1)
		case "output":
			outputs = append(outputs, i+1)
			if init == "calculated" || init == "approx" {
				found := false
				for _, u := range md.InitialUnknowns {
					found = found || u.Index == i+1
				}
				if !found {
					t.Errorf("output %s (initial %s) missing from InitialUnknowns", v.Name, init)
				}
			}
		}
	}
	if len(inputs) != 1 || md.Vars[inputs[0]-1].Name != "u" || len(outputs) != 1 || md.Vars[outputs[0]-1].Name != "y" {
		t.Fatalf("want one input u and one output y, have inputs %v, outputs %v", inputs, outputs)
	}
	if len(md.Outputs) != len(outputs) {
		t.Fatalf("ModelStructure lists %d outputs, the variables %d", len(md.Outputs), len(outputs))
	}
	for i, u := range md.Outputs {
		if u.Index != outputs[i] {
			t.Errorf("ModelStructure output %d has index %d, want %d (1-based, in ModelVariables order)", i, u.Index, outputs[i])
		}
		if u.Dependencies == nil {
			t.Error("the output's dependencies are absent, which means it depends on every input: state them")
			continue
		}
		for _, d := range strings.Fields(*u.Dependencies) {
			k, err := strconv.Atoi(d)
			if err != nil || k < 1 || k > len(md.Vars) || md.Vars[k-1].Causality != "input" {
				t.Errorf("output dependency %q is not the index of an input", d)
			}
		}
	}
	if len(md.Derivatives) > 0 {
		t.Error("Derivatives listed, but the FMU has no continuous states")
	}
}

// fmuDriver loads a co-simulation FMU's shared library with dlopen and
// drives it through the fmi2 calls, as an importing tool does. It first
// checks that every co-simulation function is exported, the version, that a
// wrong GUID and a wrong communication step are refused, and that y is 0
// before the first step; then it reads commands: "s U" sets u = U, does one
// step of ts and prints y; "d U" the same with a step of 2·ts; "r" resets
// and initializes again.
const fmuDriverSource = `#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "HEADER"

static void logger(fmi2ComponentEnvironment env, fmi2String name, fmi2Status st, fmi2String cat, fmi2String msg, ...)
{
	va_list ap;
	(void)env;
	fprintf(stderr, "log [%s status %d %s] ", name, (int)st, cat);
	va_start(ap, msg);
	vfprintf(stderr, msg, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static const char *names[] = {NAMES};

#define LOAD(f) do { *(void **)(&p_##f) = dlsym(lib, #f); if (p_##f == NULL) return 10; } while (0)
#define CHECK(call) do { if ((call) != fmi2OK) { fprintf(stderr, "%s failed\n", #call); return 20; } } while (0)

static fmi2Status (*p_fmi2SetupExperiment)(fmi2Component, fmi2Boolean, fmi2Real, fmi2Real, fmi2Boolean, fmi2Real);
static fmi2Status (*p_fmi2EnterInitializationMode)(fmi2Component);
static fmi2Status (*p_fmi2ExitInitializationMode)(fmi2Component);

static int initialize(fmi2Component c)
{
	CHECK(p_fmi2SetupExperiment(c, fmi2False, 0.0, 0.0, fmi2False, 0.0));
	CHECK(p_fmi2EnterInitializationMode(c));
	CHECK(p_fmi2ExitInitializationMode(c));
	return 0;
}

int main(int argc, char **argv)
{
	void *lib;
	size_t i;
	fmi2CallbackFunctions cb = {logger, calloc, free, NULL, NULL};
	const char *(*p_fmi2GetVersion)(void);
	const char *(*p_fmi2GetTypesPlatform)(void);
	fmi2Component (*p_fmi2Instantiate)(fmi2String, fmi2Type, fmi2String, fmi2String, const fmi2CallbackFunctions *, fmi2Boolean, fmi2Boolean);
	void (*p_fmi2FreeInstance)(fmi2Component);
	fmi2Status (*p_fmi2Reset)(fmi2Component);
	fmi2Status (*p_fmi2Terminate)(fmi2Component);
	fmi2Status (*p_fmi2SetReal)(fmi2Component, const fmi2ValueReference[], size_t, const fmi2Real[]);
	fmi2Status (*p_fmi2GetReal)(fmi2Component, const fmi2ValueReference[], size_t, fmi2Real[]);
	fmi2Status (*p_fmi2DoStep)(fmi2Component, fmi2Real, fmi2Real, fmi2Boolean);
	fmi2Component c;
	const fmi2ValueReference vu = 0, vy = 1;
	double ts, t = 0.0, u, y;
	char op[2];

	if (argc != 4)
		return 1;
	ts = strtod(argv[3], NULL);
	lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (lib == NULL) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return 2;
	}
	for (i = 0; i < sizeof names / sizeof names[0]; i++)
		if (dlsym(lib, names[i]) == NULL) {
			fprintf(stderr, "the library does not export %s\n", names[i]);
			return 3;
		}
	LOAD(fmi2GetVersion);
	LOAD(fmi2GetTypesPlatform);
	LOAD(fmi2Instantiate);
	LOAD(fmi2FreeInstance);
	LOAD(fmi2SetupExperiment);
	LOAD(fmi2EnterInitializationMode);
	LOAD(fmi2ExitInitializationMode);
	LOAD(fmi2Reset);
	LOAD(fmi2Terminate);
	LOAD(fmi2SetReal);
	LOAD(fmi2GetReal);
	LOAD(fmi2DoStep);
	if (strcmp(p_fmi2GetVersion(), "2.0") != 0 || strcmp(p_fmi2GetTypesPlatform(), "default") != 0)
		return 4;
	if (p_fmi2Instantiate("wrong", fmi2CoSimulation, "{00000000-0000-0000-0000-000000000000}", "", &cb, fmi2False, fmi2False) != NULL)
		return 5;
	if (p_fmi2Instantiate("me", fmi2ModelExchange, argv[2], "", &cb, fmi2False, fmi2False) != NULL)
		return 6;
	c = p_fmi2Instantiate("nfir", fmi2CoSimulation, argv[2], "", &cb, fmi2False, fmi2False);
	if (c == NULL)
		return 7;
	if (p_fmi2DoStep(c, 0.0, ts, fmi2True) == fmi2OK)
		return 8; /* before initialization */
	if (initialize(c))
		return 20;
	CHECK(p_fmi2GetReal(c, &vy, 1, &y));
	if (y != 0.0)
		return 9;
	if (p_fmi2DoStep(c, 0.0, 0.5 * ts, fmi2True) == fmi2OK)
		return 11; /* not the sampling time */
	if (p_fmi2SetReal(c, &vy, 1, &y) == fmi2OK)
		return 12; /* y is an output */
	while (scanf("%1s", op) == 1) {
		if (op[0] == 'r') {
			CHECK(p_fmi2Reset(c));
			if (initialize(c))
				return 20;
			t = 0.0;
			continue;
		}
		if (scanf("%la", &u) != 1)
			return 13;
		CHECK(p_fmi2SetReal(c, &vu, 1, &u));
		CHECK(p_fmi2DoStep(c, t, op[0] == 'd' ? 2 * ts : ts, fmi2True));
		t += op[0] == 'd' ? 2 * ts : ts;
		CHECK(p_fmi2GetReal(c, &vy, 1, &y));
		printf("%a\n", y);
	}
	CHECK(p_fmi2Terminate(c));
	p_fmi2FreeInstance(c);
	dlclose(lib);
	return 0;
}
`

// runFMU builds src's source FMU NAME.fmu under dir, checks its
// modelDescription.xml, compiles it as a shared library and drives it with
// fmi2 calls through dir/driver (built on first use: one driver serves
// every FMU, as it needs only the standard's declarations): two seeded
// records with a reset between them, then a third in steps of 2·ts, all
// compared with sim to 1e-12 relative. It returns the FMU's files and the
// folder of its sources.
func runFMU(t *testing.T, dir string, src *Source, name string, seed uint64, sim func(u []float64) []float64) (map[string][]byte, string) {
	t.Helper()
	const ts = 0.01
	out, err := FMU(src, name, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 1 || out[0].Name != name+".fmu" {
		t.Fatalf("FMU wrote %v", out)
	}
	files := unzipFMU(t, out[0])
	checkModelDescription(t, name, ts, files, files["sources/"+name+"_fmi2.c"])
	sub := filepath.Join(dir, name)
	for fn, b := range files {
		p := filepath.Join(sub, filepath.FromSlash(fn))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srcDir := filepath.Join(sub, "sources")
	compile(t, srcDir, "-shared", "-fPIC", "-o", "lib.so", name+".c", name+"_fmi2.c", "-lm")
	driver := filepath.Join(dir, "driver")
	if _, err := os.Stat(driver); err != nil {
		var quoted []string
		for _, f := range fmi2Functions {
			quoted = append(quoted, strconv.Quote(f))
		}
		drv := strings.NewReplacer("HEADER", name+"_fmi2.h", "NAMES", strings.Join(quoted, ", ")).Replace(fmuDriverSource)
		if err := os.WriteFile(filepath.Join(srcDir, "driver.c"), []byte(drv), 0o644); err != nil {
			t.Fatal(err)
		}
		compile(t, srcDir, "-o", driver, "driver.c", "-ldl")
	}
	recs := records(seed, 3, 200)
	var in strings.Builder
	for _, u := range recs[:2] {
		for _, v := range u {
			fmt.Fprintf(&in, "s %s\n", hexf(v))
		}
		in.WriteString("r\n")
	}
	held := make([]float64, 0, 2*len(recs[2]))
	for _, v := range recs[2] {
		fmt.Fprintf(&in, "d %s\n", hexf(v))
		held = append(held, v, v)
	}
	ys := runDriver(t, driver, in.String(), filepath.Join(srcDir, "lib.so"), guid(src, name), strconv.FormatFloat(ts, 'g', -1, 64))
	for r, u := range recs[:2] {
		compareRel(t, fmt.Sprintf("record %d", r), ys[:len(u)], sim(u))
		ys = ys[len(u):]
	}
	want := sim(held)
	var every2 []float64
	for k := 1; k < len(want); k += 2 {
		every2 = append(every2, want[k])
	}
	compareRel(t, "steps of 2·ts", ys, every2)
	return files, srcDir
}

// TestFMU builds each test model's source FMU as a shared library, checks
// its modelDescription.xml against the standard's rules and drives it with
// fmi2 calls through a record (one step per sample, after a reset again,
// then steps of 2·ts), comparing y with Simulate.
func TestFMU(t *testing.T) {
	cc(t)
	dir := t.TempDir()
	cases := testCases(t)
	built := false
	for i, c := range cases {
		if !map[string]bool{"fb_lin_kyp": true, "ff_hold_none": true, "lin_exact": true, "q_only_exact": true, "forged": true}[c.name] {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			name := fmt.Sprintf("plant%d", i)
			files, srcDir := runFMU(t, dir, c.src, name, uint64(i+10), func(u []float64) []float64 { y, _ := c.src.Model.Simulate(u); return y })
			for fn, b := range files {
				if fn == "sources/"+name+"_fmi2.h" {
					continue // the standard's declarations, the same for every model
				}
				if has := strings.Contains(string(b), "NOT PASSIVE"); has != !c.src.Passive() {
					t.Errorf("%s: NOT PASSIVE marker present %v, model certified %v", fn, has, c.src.Passive())
				}
			}
			if !built {
				// An importer that links several source FMUs into one
				// program prefixes the functions; the sources allow it.
				compile(t, srcDir, "-c", "-DFMI2_FUNCTION_PREFIX="+name+"_", name+"_fmi2.c")
			}
			built = true
		})
	}
	if !built {
		t.Fatal("no FMU was built: the case names changed")
	}
}
