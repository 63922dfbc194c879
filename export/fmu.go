package export

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/xml"
	"fmt"
	"html"
	"math"
	"strings"
	"time"
)

// fmi2Functions are the functions a co-simulation FMU exports (FMI 2.0,
// sections 2.1 and 4.2): the common ones and the co-simulation ones.
var fmi2Functions = strings.Fields(`fmi2GetTypesPlatform fmi2GetVersion fmi2SetDebugLogging fmi2Instantiate
	fmi2FreeInstance fmi2SetupExperiment fmi2EnterInitializationMode fmi2ExitInitializationMode fmi2Terminate
	fmi2Reset fmi2GetReal fmi2GetInteger fmi2GetBoolean fmi2GetString fmi2SetReal fmi2SetInteger fmi2SetBoolean
	fmi2SetString fmi2GetFMUstate fmi2SetFMUstate fmi2FreeFMUstate fmi2SerializedFMUstateSize
	fmi2SerializeFMUstate fmi2DeSerializeFMUstate fmi2GetDirectionalDerivative fmi2SetRealInputDerivatives
	fmi2GetRealOutputDerivatives fmi2DoStep fmi2CancelStep fmi2GetStatus fmi2GetRealStatus fmi2GetIntegerStatus
	fmi2GetBooleanStatus fmi2GetStringStatus`)

// guid derives the FMU's GUID from what identifies it (the model file, the
// name, the tool version), so that exporting the same file twice gives the
// same FMU and any change gives another.
func guid(s *Source, name string) string {
	h := sha256.Sum256([]byte(s.SHA256 + "\x00" + name + "\x00" + toolVersion()))
	h[6] = h[6]&0x0f | 0x80 // version 8: a custom, name-based UUID
	h[8] = h[8]&0x3f | 0x80 // RFC 4122 variant
	return fmt.Sprintf("{%x-%x-%x-%x-%x}", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16])
}

// FMU returns NAME.fmu: an FMI 2.0 co-simulation FMU with source code only,
// its communication step fixed to ts (the model file's sampling time when
// ts is 0). See the package documentation for what y holds after a step.
func FMU(s *Source, name string, ts float64) ([]File, error) {
	if ts == 0 {
		ts = s.Meta.Ts
	}
	switch {
	case ts == 0:
		return nil, fmt.Errorf("%w: the model file has no sampling time (ts), which an FMU needs as its communication step: give one (--ts SECONDS)", ErrUnsupported)
	case !(ts > 0) || math.IsInf(ts, 0):
		return nil, fmt.Errorf("%w: sampling time %g: want a finite number > 0", ErrUnsupported, ts)
	}
	csrc, err := C(s, name)
	if err != nil {
		return nil, err
	}
	id := guid(s, name)
	files := []File{
		{"modelDescription.xml", modelDescription(s, name, id, ts)},
		{"sources/" + csrc[0].Name, csrc[0].Data},
		{"sources/" + csrc[1].Name, csrc[1].Data},
		{"sources/" + name + "_fmi2.h", fmi2Header(s, name)},
		{"sources/" + name + "_fmi2.c", fmi2Wrapper(s, name, id, ts)},
		{"documentation/index.html", fmuDoc(s, name, ts)},
	}
	var zbuf bytes.Buffer
	zw := zip.NewWriter(&zbuf)
	// A fixed time, so that the same export gives the same bytes.
	stamp := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, f := range files {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: f.Name, Method: zip.Deflate, Modified: stamp})
		if err != nil {
			return nil, err
		}
		if _, err := w.Write(f.Data); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return []File{{name + ".fmu", zbuf.Bytes()}}, nil
}

func xmlAttr(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s))
	return strings.ReplaceAll(b.String(), `"`, "&quot;")
}

// modelDescription writes modelDescription.xml. The choices the standard
// leaves open, and why:
//   - u: causality input, variability discrete (the model is sampled: u is
//     read once per step and held), start 0 (an input must have one);
//   - y: causality output, variability discrete, initial exact with start 0:
//     before the first step y is 0, a value known without computation, so
//     y is not an InitialUnknown;
//   - ModelStructure: y depends on no input at the current communication
//     point (dependencies=""): after a step y is latched, and setting u
//     changes it only at the next step;
//   - no needsExecutionTool, one instance per process is not required, the
//     environment's allocator is used, no FMU state, no interpolation of
//     inputs, a fixed communication step.
func modelDescription(s *Source, name, id string, ts float64) []byte {
	var b bytes.Buffer
	desc := fmt.Sprintf("%s %s, certified passive (mode %s); model SHA-256 %s", s.kind(), s.File, s.Meta.Mode, s.SHA256)
	if mk := s.Marker(); mk != "" {
		desc = mk + "; " + s.kind() + " " + s.File + ", SHA-256 " + s.SHA256
	}
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	for _, l := range s.summary(name) {
		if l != "" {
			fmt.Fprintf(&b, "<!-- %s -->\n", strings.ReplaceAll(l, "--", "- -"))
		}
	}
	fmt.Fprintf(&b, `<fmiModelDescription fmiVersion="2.0" modelName="%s" guid="%s" description="%s" generationTool="gputrain %s" variableNamingConvention="flat" numberOfEventIndicators="0">`+"\n",
		xmlAttr(name), id, xmlAttr(desc), xmlAttr(toolVersion()))
	fmt.Fprintf(&b, `  <CoSimulation modelIdentifier="%s" needsExecutionTool="false" canHandleVariableCommunicationStepSize="false" canInterpolateInputs="false" maxOutputDerivativeOrder="0" canRunAsynchronuously="false" canBeInstantiatedOnlyOncePerProcess="false" canNotUseMemoryManagementFunctions="false" canGetAndSetFMUstate="false" canSerializeFMUstate="false" providesDirectionalDerivative="false">`+"\n", name)
	fmt.Fprintf(&b, "    <SourceFiles>\n      <File name=\"%s.c\"/>\n      <File name=\"%s_fmi2.c\"/>\n    </SourceFiles>\n  </CoSimulation>\n", name, name)
	b.WriteString("  <LogCategories>\n    <Category name=\"logStatusError\" description=\"calls the FMU refuses\"/>\n  </LogCategories>\n")
	fmt.Fprintf(&b, "  <DefaultExperiment startTime=\"0\" stepSize=\"%s\"/>\n", fmtG(ts))
	b.WriteString("  <ModelVariables>\n")
	b.WriteString(`    <ScalarVariable name="u" valueReference="0" description="input u(t), read at each step" causality="input" variability="discrete">` + "\n      <Real start=\"0\"/>\n    </ScalarVariable>\n")
	b.WriteString(`    <ScalarVariable name="y" valueReference="1" description="output y(k) of the sample taken by the last step (0 before the first)" causality="output" variability="discrete" initial="exact">` + "\n      <Real start=\"0\"/>\n    </ScalarVariable>\n")
	b.WriteString("  </ModelVariables>\n  <ModelStructure>\n    <Outputs>\n      <Unknown index=\"2\" dependencies=\"\"/>\n    </Outputs>\n  </ModelStructure>\n</fmiModelDescription>\n")
	return b.Bytes()
}

// fmtG writes v in the shortest decimal form that reads back to v.
func fmtG(v float64) string { return fmt.Sprint(v) }

// fmi2Header declares what the standard's fmi2TypesPlatform.h,
// fmi2FunctionTypes.h and fmi2Functions.h declare for a co-simulation FMU,
// from the FMI 2.0 standard (its headers are not installable here). With
// FMI2_FUNCTION_PREFIX defined the functions get that prefix, as with the
// standard's headers, so that several source FMUs can be linked together.
func fmi2Header(s *Source, name string) []byte {
	var b bytes.Buffer
	cComment(&b, []string{
		name + "_fmi2.h: the FMI 2.0 co-simulation declarations (types, callbacks, functions), written from",
		"the FMI 2.0 standard (fmi2TypesPlatform.h, fmi2FunctionTypes.h, fmi2Functions.h). Generated by gputrain " + toolVersion() + ".",
	})
	g := strings.ToUpper(name) + "_FMI2_H_INCLUDED"
	fmt.Fprintf(&b, "#ifndef %s\n#define %s\n\n#include <stddef.h>\n\n", g, g)
	b.WriteString(`#ifdef __cplusplus
extern "C" {
#endif

#if !defined(FMI2_Export)
#if defined(_WIN32)
#define FMI2_Export __declspec(dllexport)
#elif defined(__GNUC__)
#define FMI2_Export __attribute__((visibility("default")))
#else
#define FMI2_Export
#endif
#endif

#ifdef FMI2_FUNCTION_PREFIX
#define fmi2Paste(a, b) a##b
#define fmi2PasteB(a, b) fmi2Paste(a, b)
#define fmi2FullName(name) fmi2PasteB(FMI2_FUNCTION_PREFIX, name)
#else
#define fmi2FullName(name) name
#endif
`)
	for _, f := range fmi2Functions {
		fmt.Fprintf(&b, "#define %s fmi2FullName(%s)\n", f, f)
	}
	b.WriteString(`
#define fmi2TypesPlatform "default"
#define fmi2Version "2.0"

typedef void *fmi2Component;
typedef void *fmi2ComponentEnvironment;
typedef void *fmi2FMUstate;
typedef unsigned int fmi2ValueReference;
typedef double fmi2Real;
typedef int fmi2Integer;
typedef int fmi2Boolean;
typedef char fmi2Char;
typedef const fmi2Char *fmi2String;
typedef char fmi2Byte;

#define fmi2True 1
#define fmi2False 0

typedef enum { fmi2OK, fmi2Warning, fmi2Discard, fmi2Error, fmi2Fatal, fmi2Pending } fmi2Status;
typedef enum { fmi2ModelExchange, fmi2CoSimulation } fmi2Type;
typedef enum { fmi2DoStepStatus, fmi2PendingStatus, fmi2LastSuccessfulTime, fmi2Terminated } fmi2StatusKind;

typedef void (*fmi2CallbackLogger)(fmi2ComponentEnvironment, fmi2String, fmi2Status, fmi2String, fmi2String, ...);
typedef void *(*fmi2CallbackAllocateMemory)(size_t, size_t);
typedef void (*fmi2CallbackFreeMemory)(void *);
typedef void (*fmi2StepFinished)(fmi2ComponentEnvironment, fmi2Status);

typedef struct {
	const fmi2CallbackLogger logger;
	const fmi2CallbackAllocateMemory allocateMemory;
	const fmi2CallbackFreeMemory freeMemory;
	const fmi2StepFinished stepFinished;
	const fmi2ComponentEnvironment componentEnvironment;
} fmi2CallbackFunctions;

FMI2_Export const char *fmi2GetTypesPlatform(void);
FMI2_Export const char *fmi2GetVersion(void);
FMI2_Export fmi2Status fmi2SetDebugLogging(fmi2Component c, fmi2Boolean loggingOn, size_t nCategories, const fmi2String categories[]);
FMI2_Export fmi2Component fmi2Instantiate(fmi2String instanceName, fmi2Type fmuType, fmi2String fmuGUID, fmi2String fmuResourceLocation,
	const fmi2CallbackFunctions *functions, fmi2Boolean visible, fmi2Boolean loggingOn);
FMI2_Export void fmi2FreeInstance(fmi2Component c);
FMI2_Export fmi2Status fmi2SetupExperiment(fmi2Component c, fmi2Boolean toleranceDefined, fmi2Real tolerance, fmi2Real startTime,
	fmi2Boolean stopTimeDefined, fmi2Real stopTime);
FMI2_Export fmi2Status fmi2EnterInitializationMode(fmi2Component c);
FMI2_Export fmi2Status fmi2ExitInitializationMode(fmi2Component c);
FMI2_Export fmi2Status fmi2Terminate(fmi2Component c);
FMI2_Export fmi2Status fmi2Reset(fmi2Component c);
FMI2_Export fmi2Status fmi2GetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2Real value[]);
FMI2_Export fmi2Status fmi2GetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2Integer value[]);
FMI2_Export fmi2Status fmi2GetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2Boolean value[]);
FMI2_Export fmi2Status fmi2GetString(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2String value[]);
FMI2_Export fmi2Status fmi2SetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, const fmi2Real value[]);
FMI2_Export fmi2Status fmi2SetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, const fmi2Integer value[]);
FMI2_Export fmi2Status fmi2SetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, const fmi2Boolean value[]);
FMI2_Export fmi2Status fmi2SetString(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, const fmi2String value[]);
FMI2_Export fmi2Status fmi2GetFMUstate(fmi2Component c, fmi2FMUstate *FMUstate);
FMI2_Export fmi2Status fmi2SetFMUstate(fmi2Component c, fmi2FMUstate FMUstate);
FMI2_Export fmi2Status fmi2FreeFMUstate(fmi2Component c, fmi2FMUstate *FMUstate);
FMI2_Export fmi2Status fmi2SerializedFMUstateSize(fmi2Component c, fmi2FMUstate FMUstate, size_t *size);
FMI2_Export fmi2Status fmi2SerializeFMUstate(fmi2Component c, fmi2FMUstate FMUstate, fmi2Byte serializedState[], size_t size);
FMI2_Export fmi2Status fmi2DeSerializeFMUstate(fmi2Component c, const fmi2Byte serializedState[], size_t size, fmi2FMUstate *FMUstate);
FMI2_Export fmi2Status fmi2GetDirectionalDerivative(fmi2Component c, const fmi2ValueReference vUnknown_ref[], size_t nUnknown,
	const fmi2ValueReference vKnown_ref[], size_t nKnown, const fmi2Real dvKnown[], fmi2Real dvUnknown[]);
FMI2_Export fmi2Status fmi2SetRealInputDerivatives(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, const fmi2Integer order[],
	const fmi2Real value[]);
FMI2_Export fmi2Status fmi2GetRealOutputDerivatives(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, const fmi2Integer order[],
	fmi2Real value[]);
FMI2_Export fmi2Status fmi2DoStep(fmi2Component c, fmi2Real currentCommunicationPoint, fmi2Real communicationStepSize,
	fmi2Boolean noSetFMUStatePriorToCurrentPoint);
FMI2_Export fmi2Status fmi2CancelStep(fmi2Component c);
FMI2_Export fmi2Status fmi2GetStatus(fmi2Component c, const fmi2StatusKind s, fmi2Status *value);
FMI2_Export fmi2Status fmi2GetRealStatus(fmi2Component c, const fmi2StatusKind s, fmi2Real *value);
FMI2_Export fmi2Status fmi2GetIntegerStatus(fmi2Component c, const fmi2StatusKind s, fmi2Integer *value);
FMI2_Export fmi2Status fmi2GetBooleanStatus(fmi2Component c, const fmi2StatusKind s, fmi2Boolean *value);
FMI2_Export fmi2Status fmi2GetStringStatus(fmi2Component c, const fmi2StatusKind s, fmi2String *value);

#ifdef __cplusplus
}
#endif

`)
	fmt.Fprintf(&b, "#endif /* %s */\n", g)
	return b.Bytes()
}

// fmi2Wrapper implements the co-simulation functions around NAME_step.
func fmi2Wrapper(s *Source, name, id string, ts float64) []byte {
	var b bytes.Buffer
	lines := s.summary(name)
	lines = append(lines, "",
		"FMI 2.0 co-simulation interface: u (value reference 0) is read at each fmi2DoStep; after",
		"fmi2DoStep(t_k, h) with h = N*ts, N >= 1, the model has taken N samples with u held, and y",
		"(value reference 1) is the output of the last of them, which depends on that u (feedthrough).")
	cComment(&b, lines)
	fmt.Fprintf(&b, "#include <math.h>\n#include <stdlib.h>\n#include <string.h>\n\n#include \"%s_fmi2.h\"\n#include \"%s.h\"\n\n", name, name)
	fmt.Fprintf(&b, "#define GUID %s\n#define TS %s /* %s s */\n\n", cString(id), hexf(ts), fmtG(ts))
	st := name + "_state"
	b.WriteString(strings.NewReplacer("NAME_state", st, "NAME_step", name+"_step", "NAME_reset", name+"_reset").Replace(fmi2WrapperBody))
	return b.Bytes()
}

const fmi2WrapperBody = `enum phase { INSTANTIATED, INITIALIZATION, STEPPING, TERMINATED };

typedef struct {
	NAME_state st;
	double u, y, time;
	enum phase phase;
	int logging;
	char *name;
	fmi2CallbackLogger logger;
	fmi2CallbackFreeMemory freeMemory;
	fmi2ComponentEnvironment env;
} instance;

#define VR_U 0
#define VR_Y 1

static fmi2Status refuse(instance *m, const char *msg)
{
	if (m != NULL && m->logger != NULL)
		m->logger(m->env, m->name, fmi2Error, "logStatusError", "%s", msg);
	return fmi2Error;
}

static void reset(instance *m)
{
	NAME_reset(&m->st);
	m->u = 0.0;
	m->y = 0.0;
	m->time = 0.0;
	m->phase = INSTANTIATED;
}

const char *fmi2GetTypesPlatform(void) { return fmi2TypesPlatform; }

const char *fmi2GetVersion(void) { return fmi2Version; }

fmi2Status fmi2SetDebugLogging(fmi2Component c, fmi2Boolean loggingOn, size_t nCategories, const fmi2String categories[])
{
	instance *m = (instance *)c;
	(void)nCategories;
	(void)categories;
	if (m == NULL)
		return fmi2Error;
	m->logging = loggingOn;
	return fmi2OK;
}

fmi2Component fmi2Instantiate(fmi2String instanceName, fmi2Type fmuType, fmi2String fmuGUID, fmi2String fmuResourceLocation,
	const fmi2CallbackFunctions *functions, fmi2Boolean visible, fmi2Boolean loggingOn)
{
	instance *m;
	size_t n;
	(void)fmuResourceLocation;
	(void)visible;
	if (functions == NULL || functions->allocateMemory == NULL || functions->freeMemory == NULL || instanceName == NULL)
		return NULL;
	if (fmuType != fmi2CoSimulation || fmuGUID == NULL || strcmp(fmuGUID, GUID) != 0) {
		if (functions->logger != NULL)
			functions->logger(functions->componentEnvironment, instanceName, fmi2Error, "logStatusError",
				"this FMU is co-simulation only, with GUID %s; asked for type %d, GUID %s", GUID, (int)fmuType,
				fmuGUID == NULL ? "(null)" : fmuGUID);
		return NULL;
	}
	m = (instance *)functions->allocateMemory(1, sizeof(instance));
	if (m == NULL)
		return NULL;
	n = strlen(instanceName) + 1;
	m->name = (char *)functions->allocateMemory(n, 1);
	if (m->name == NULL) {
		functions->freeMemory(m);
		return NULL;
	}
	memcpy(m->name, instanceName, n);
	m->logger = functions->logger;
	m->freeMemory = functions->freeMemory;
	m->env = functions->componentEnvironment;
	m->logging = loggingOn;
	reset(m);
	return m;
}

void fmi2FreeInstance(fmi2Component c)
{
	instance *m = (instance *)c;
	if (m == NULL)
		return;
	m->freeMemory(m->name);
	m->freeMemory(m);
}

fmi2Status fmi2SetupExperiment(fmi2Component c, fmi2Boolean toleranceDefined, fmi2Real tolerance, fmi2Real startTime,
	fmi2Boolean stopTimeDefined, fmi2Real stopTime)
{
	instance *m = (instance *)c;
	(void)toleranceDefined;
	(void)tolerance;
	(void)stopTimeDefined;
	(void)stopTime;
	if (m == NULL || m->phase != INSTANTIATED)
		return refuse(m, "fmi2SetupExperiment: only after fmi2Instantiate or fmi2Reset");
	m->time = startTime;
	return fmi2OK;
}

fmi2Status fmi2EnterInitializationMode(fmi2Component c)
{
	instance *m = (instance *)c;
	if (m == NULL || m->phase != INSTANTIATED)
		return refuse(m, "fmi2EnterInitializationMode: only after fmi2Instantiate or fmi2Reset");
	m->phase = INITIALIZATION;
	return fmi2OK;
}

fmi2Status fmi2ExitInitializationMode(fmi2Component c)
{
	instance *m = (instance *)c;
	if (m == NULL || m->phase != INITIALIZATION)
		return refuse(m, "fmi2ExitInitializationMode: not in initialization mode");
	m->phase = STEPPING;
	return fmi2OK;
}

fmi2Status fmi2Terminate(fmi2Component c)
{
	instance *m = (instance *)c;
	if (m == NULL)
		return fmi2Error;
	m->phase = TERMINATED;
	return fmi2OK;
}

fmi2Status fmi2Reset(fmi2Component c)
{
	instance *m = (instance *)c;
	if (m == NULL)
		return fmi2Error;
	reset(m);
	return fmi2OK;
}

fmi2Status fmi2GetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2Real value[])
{
	instance *m = (instance *)c;
	size_t i;
	if (m == NULL || (nvr > 0 && (vr == NULL || value == NULL)))
		return refuse(m, "fmi2GetReal: null argument");
	for (i = 0; i < nvr; i++) {
		if (vr[i] == VR_U)
			value[i] = m->u;
		else if (vr[i] == VR_Y)
			value[i] = m->y;
		else
			return refuse(m, "fmi2GetReal: unknown value reference (u is 0, y is 1)");
	}
	return fmi2OK;
}

fmi2Status fmi2SetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, const fmi2Real value[])
{
	instance *m = (instance *)c;
	size_t i;
	if (m == NULL || (nvr > 0 && (vr == NULL || value == NULL)))
		return refuse(m, "fmi2SetReal: null argument");
	if (m->phase == TERMINATED)
		return refuse(m, "fmi2SetReal: the instance is terminated");
	for (i = 0; i < nvr; i++) {
		if (vr[i] != VR_U)
			return refuse(m, "fmi2SetReal: only the input u (value reference 0) can be set");
		m->u = value[i];
	}
	return fmi2OK;
}

static fmi2Status noVariables(instance *m, size_t nvr, const char *msg)
{
	return nvr == 0 ? fmi2OK : refuse(m, msg);
}

fmi2Status fmi2GetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2Integer value[])
{
	(void)vr;
	(void)value;
	return noVariables((instance *)c, nvr, "fmi2GetInteger: this FMU has no Integer variables");
}

fmi2Status fmi2GetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2Boolean value[])
{
	(void)vr;
	(void)value;
	return noVariables((instance *)c, nvr, "fmi2GetBoolean: this FMU has no Boolean variables");
}

fmi2Status fmi2GetString(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2String value[])
{
	(void)vr;
	(void)value;
	return noVariables((instance *)c, nvr, "fmi2GetString: this FMU has no String variables");
}

fmi2Status fmi2SetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, const fmi2Integer value[])
{
	(void)vr;
	(void)value;
	return noVariables((instance *)c, nvr, "fmi2SetInteger: this FMU has no Integer variables");
}

fmi2Status fmi2SetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, const fmi2Boolean value[])
{
	(void)vr;
	(void)value;
	return noVariables((instance *)c, nvr, "fmi2SetBoolean: this FMU has no Boolean variables");
}

fmi2Status fmi2SetString(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, const fmi2String value[])
{
	(void)vr;
	(void)value;
	return noVariables((instance *)c, nvr, "fmi2SetString: this FMU has no String variables");
}

/* canGetAndSetFMUstate, canSerializeFMUstate and providesDirectionalDerivative are false. */

fmi2Status fmi2GetFMUstate(fmi2Component c, fmi2FMUstate *FMUstate)
{
	(void)FMUstate;
	return refuse((instance *)c, "fmi2GetFMUstate: not supported (canGetAndSetFMUstate is false)");
}

fmi2Status fmi2SetFMUstate(fmi2Component c, fmi2FMUstate FMUstate)
{
	(void)FMUstate;
	return refuse((instance *)c, "fmi2SetFMUstate: not supported (canGetAndSetFMUstate is false)");
}

fmi2Status fmi2FreeFMUstate(fmi2Component c, fmi2FMUstate *FMUstate)
{
	(void)FMUstate;
	return refuse((instance *)c, "fmi2FreeFMUstate: not supported (canGetAndSetFMUstate is false)");
}

fmi2Status fmi2SerializedFMUstateSize(fmi2Component c, fmi2FMUstate FMUstate, size_t *size)
{
	(void)FMUstate;
	(void)size;
	return refuse((instance *)c, "fmi2SerializedFMUstateSize: not supported (canSerializeFMUstate is false)");
}

fmi2Status fmi2SerializeFMUstate(fmi2Component c, fmi2FMUstate FMUstate, fmi2Byte serializedState[], size_t size)
{
	(void)FMUstate;
	(void)serializedState;
	(void)size;
	return refuse((instance *)c, "fmi2SerializeFMUstate: not supported (canSerializeFMUstate is false)");
}

fmi2Status fmi2DeSerializeFMUstate(fmi2Component c, const fmi2Byte serializedState[], size_t size, fmi2FMUstate *FMUstate)
{
	(void)serializedState;
	(void)size;
	(void)FMUstate;
	return refuse((instance *)c, "fmi2DeSerializeFMUstate: not supported (canSerializeFMUstate is false)");
}

fmi2Status fmi2GetDirectionalDerivative(fmi2Component c, const fmi2ValueReference vUnknown_ref[], size_t nUnknown,
	const fmi2ValueReference vKnown_ref[], size_t nKnown, const fmi2Real dvKnown[], fmi2Real dvUnknown[])
{
	(void)vUnknown_ref;
	(void)nUnknown;
	(void)vKnown_ref;
	(void)nKnown;
	(void)dvKnown;
	(void)dvUnknown;
	return refuse((instance *)c, "fmi2GetDirectionalDerivative: not supported (providesDirectionalDerivative is false)");
}

fmi2Status fmi2SetRealInputDerivatives(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, const fmi2Integer order[],
	const fmi2Real value[])
{
	(void)vr;
	(void)nvr;
	(void)order;
	(void)value;
	return refuse((instance *)c, "fmi2SetRealInputDerivatives: not supported (canInterpolateInputs is false)");
}

fmi2Status fmi2GetRealOutputDerivatives(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, const fmi2Integer order[],
	fmi2Real value[])
{
	(void)vr;
	(void)nvr;
	(void)order;
	(void)value;
	return refuse((instance *)c, "fmi2GetRealOutputDerivatives: not supported (maxOutputDerivativeOrder is 0)");
}

/* fmi2DoStep takes the u set before it as u(k) and leaves y = y(k), the output of that sample. A step of
   N*ts takes N samples with u held. The communication step is fixed: any other h is refused. */
fmi2Status fmi2DoStep(fmi2Component c, fmi2Real currentCommunicationPoint, fmi2Real communicationStepSize,
	fmi2Boolean noSetFMUStatePriorToCurrentPoint)
{
	instance *m = (instance *)c;
	double n;
	long i, steps;
	(void)noSetFMUStatePriorToCurrentPoint;
	if (m == NULL || m->phase != STEPPING)
		return refuse(m, "fmi2DoStep: only after fmi2ExitInitializationMode");
	n = floor(communicationStepSize / TS + 0.5);
	if (!(n >= 1) || !(fabs(n * TS - communicationStepSize) <= 1e-9 * communicationStepSize))
		return refuse(m, "fmi2DoStep: the communication step must be the sampling time ts (or a whole multiple of it)");
	steps = (long)n;
	for (i = 0; i < steps; i++)
		m->y = NAME_step(&m->st, m->u);
	m->time = currentCommunicationPoint + communicationStepSize;
	return fmi2OK;
}

fmi2Status fmi2CancelStep(fmi2Component c)
{
	return refuse((instance *)c, "fmi2CancelStep: fmi2DoStep never returns fmi2Pending here");
}

fmi2Status fmi2GetStatus(fmi2Component c, const fmi2StatusKind s, fmi2Status *value)
{
	(void)s;
	(void)value;
	return c == NULL ? fmi2Error : fmi2Discard;
}

fmi2Status fmi2GetRealStatus(fmi2Component c, const fmi2StatusKind s, fmi2Real *value)
{
	instance *m = (instance *)c;
	if (m == NULL || value == NULL)
		return fmi2Error;
	if (s != fmi2LastSuccessfulTime)
		return fmi2Discard;
	*value = m->time;
	return fmi2OK;
}

fmi2Status fmi2GetIntegerStatus(fmi2Component c, const fmi2StatusKind s, fmi2Integer *value)
{
	(void)s;
	(void)value;
	return c == NULL ? fmi2Error : fmi2Discard;
}

fmi2Status fmi2GetBooleanStatus(fmi2Component c, const fmi2StatusKind s, fmi2Boolean *value)
{
	if (c == NULL || value == NULL)
		return fmi2Error;
	if (s != fmi2Terminated)
		return fmi2Discard;
	*value = fmi2False;
	return fmi2OK;
}

fmi2Status fmi2GetStringStatus(fmi2Component c, const fmi2StatusKind s, fmi2String *value)
{
	(void)s;
	(void)value;
	return c == NULL ? fmi2Error : fmi2Discard;
}
`

// fmuDoc is documentation/index.html.
func fmuDoc(s *Source, name string, ts float64) []byte {
	var b bytes.Buffer
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head><meta charset=\"utf-8\"><title>" + html.EscapeString(name) + "</title></head>\n<body>\n")
	if mk := s.Marker(); mk != "" {
		fmt.Fprintf(&b, "<p style=\"color:#b00;font-weight:bold;font-size:150%%\">%s</p>\n", html.EscapeString(mk))
	}
	fmt.Fprintf(&b, "<h1>%s: a %s</h1>\n<pre>\n", html.EscapeString(name), html.EscapeString(s.kind()))
	for _, l := range s.summary(name) {
		b.WriteString(html.EscapeString(l) + "\n")
	}
	b.WriteString("</pre>\n")
	fmt.Fprintf(&b, `<h2>Interface</h2>
<p>FMI 2.0 co-simulation, source code only (compile the sources in <code>sources/</code>; C99, link with <code>-lm</code>).
One input <code>u</code> (value reference 0) and one output <code>y</code> (value reference 1).
The communication step is fixed to the sampling time ts = %s s (a step of N·ts holds u for N samples).</p>
<h2>Which sample y holds</h2>
<p><code>fmi2DoStep(t_k, ts)</code> takes the u set before it as u(k), computes the model's sample k and leaves
<code>y</code> = y(k), the model's output for that same sample. y(k) depends on u(k) (the model has direct
feedthrough), but the FMU latches it: at communication point t_{k+1} = t_k + ts the master reads y(k),
and setting u there does not change y until the next step. So the ModelStructure lists no dependency of y on u
(no algebraic loop in a closed loop), and a master that records y after each step shows the model's output one
sampling time later than <code>gputrain simulate</code> lists it. Before the first step y = 0.</p>
<p>%s, exactly as <code>gputrain simulate</code>; <code>fmi2Reset</code> returns it to rest.</p>
</body>
</html>
`, fmtG(ts), feedbackDoc(s))
	return b.Bytes()
}

// feedbackDoc says what feedback runs inside the FMU.
func feedbackDoc(s *Source) string {
	if s.Members != nil {
		return "Every member runs inside the FMU on the same u, its own state and feedback with it (a REN's equilibrium layer solved neuron by neuron, a loop's algebraic equation in closed form), and y is their weighted mean"
	}
	if s.REN != nil {
		return "The REN's state runs inside the FMU; its equilibrium layer is solved neuron by neuron each sample"
	}
	if s.Loop != nil {
		return "The loop runs inside the FMU: H2 acts on the loop's own output, and the algebraic equation of each sample is solved in closed form"
	}
	return "A feedback model feeds back its own output inside the FMU (q(t) = y(t−1))"
}
