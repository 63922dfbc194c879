package main

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/passivenfir/gputrain/export"
	"github.com/passivenfir/gputrain/internal/atomicfile"
	"github.com/passivenfir/gputrain/model"
)

// version is the tool version written into exported artifacts. Release
// builds set it with go build -ldflags "-X main.version=v1.2.3"; when it is
// empty, the artifacts carry the VCS revision Go embeds in the binary
// (export.BuildVersion).
var version = ""

// exportJSON is the --json shape of export.
type exportJSON struct {
	Model   string   `json:"model"`
	SHA256  string   `json:"sha256"`
	Format  string   `json:"format"`
	Files   []string `json:"files"`
	Passive bool     `json:"passive"`
	Marker  string   `json:"not_passive,omitempty"`
}

func runExport(e *env, args []string) error {
	fs := newFlags("gputrain export")
	var (
		modelPath, out, name string
		format               = export.FormatC
		ts                   float64
		allow, jsonOut       bool
		quiet                bool
	)
	fs.StringVar(&modelPath, "model", "", "model file written by 'gputrain train': an NFIR (format gputrain-nfir) or a loop (format gputrain-model, class loop)")
	fs.Var(&format, "format", "c: C99 header and source; fmu: FMI 2.0 co-simulation source FMU; python-ss: state-space matrices (.npz, .mat) of a plain linear FIR")
	fs.StringVar(&out, "out", "", "directory to write into (created if missing; its parent must exist)")
	fs.StringVar(&name, "name", "nfir", "prefix of the generated C names and files, a C identifier")
	fs.Float64Var(&ts, "ts", 0, "sampling time in seconds for the FMU's communication step, when the model file has none (one that differs from the file's is refused unless --allow-ts-mismatch)")
	fs.BoolVar(&allow, "allow-uncertified", false, "export a model whose file claims passivity that its taps fail, marked NOT PASSIVE")
	fs.BoolVar(&jsonOut, "json", false, `print {"files": […], "passive": bool, …} on stdout`)
	force := addForceFlag(fs)
	allowTs := fs.Bool("allow-ts-mismatch", false, allowTsUsage)
	fs.BoolVar(&quiet, "quiet", false, "print nothing on success (a NOT PASSIVE model is still reported on stderr)")
	spec := flagSpec{
		usage: "gputrain export --model model.json --format c|fmu|python-ss --out DIR [--name NAME]",
		about: `Take a model where controllers are designed: C for embedded targets, an FMU for Simulink,
Modelica tools and FMPy, state-space matrices for python-control and MATLAB (python/gputrain_model.py
reads model files directly). Every artifact carries the model file's SHA-256, the tool version and the
passivity certificate, recomputed from the taps; a model that is not certified passive is marked
NOT PASSIVE in every one. NFIRs export to every format; a loop (what train writes when the search
picks it) to c and fmu, the loop's equation solved in closed form at each step. Nothing is written
unless every file can be made; files that exist in --out DIR are refused unless --force, which keeps
each as NAME.bak.`,
		example: `gputrain export --model model.json --format c --out plant_c --name plant
gputrain export --model model.json --format fmu --out fmu --name plant
gputrain export --model linear.json --format python-ss --out ss --name plant`,
	}
	if err := parseFlags(e, fs, spec, args); err != nil {
		return err
	}
	if modelPath == "" {
		return usagef("--model FILE is required (a model.json written by 'gputrain train')")
	}
	if out == "" {
		return usagef("--out DIR is required (a directory; created if missing)")
	}
	if err := export.CheckName(name); err != nil {
		return usagef("--name: %s", strings.TrimPrefix(err.Error(), "export: "))
	}
	if ts < 0 || math.IsNaN(ts) || math.IsInf(ts, 0) {
		return usagef("--ts %g: give a sampling time > 0 in seconds", ts)
	}
	if err := checkExportDir(out); err != nil {
		return err
	}
	export.Version = version
	src, err := export.Load(modelPath, allow)
	if err != nil {
		return badInput(fmt.Errorf("--model: %s", strings.ReplaceAll(err.Error(), "export: ", "")))
	}
	if err := checkTs(modelPath, src.Meta.Ts, ts, *allowTs); err != nil {
		return err
	}
	files, err := export.Generate(src, format, export.Options{Name: name, Ts: ts})
	if err != nil {
		if errors.Is(err, export.ErrUnsupported) || errors.Is(err, export.ErrName) || errors.Is(err, model.ErrShape) {
			return usagef("--format %v: %s", format, strings.ReplaceAll(err.Error(), "export: ", ""))
		}
		return failf("export: %v", err)
	}
	var paths []string
	for _, f := range files {
		p := filepath.Join(out, f.Name)
		if fi, err := os.Lstat(p); err == nil && !fi.Mode().IsRegular() {
			return usagef("--out %s: %s exists and is not a regular file; remove it or choose another --out", out, p)
		}
		paths = append(paths, p)
	}
	if err := refuseExisting("out", *force, paths...); err != nil {
		return err
	}
	var backups []string
	for _, p := range paths {
		bak, err := atomicfile.Backup(p)
		if err != nil {
			return failf("--out %s: keeping the existing file: %v; nothing written", out, err)
		}
		if bak != "" {
			backups = append(backups, bak)
		}
	}
	if err := export.Write(out, files); err != nil {
		return failf("%v", err)
	}
	if mk := src.Marker(); mk != "" {
		fmt.Fprintf(e.stderr, "gputrain export: warning: %s\n", mk)
	}
	switch {
	case jsonOut:
		return writeJSON(e.stdout, exportJSON{Model: modelPath, SHA256: src.SHA256, Format: format.String(), Files: paths,
			Passive: src.Passive(), Marker: src.Marker()})
	case quiet:
	default:
		state := "certified passive"
		if !src.Passive() {
			state = "NOT PASSIVE"
		}
		fmt.Fprintf(e.stdout, "wrote %s (%s; model SHA-256 %s)\n", strings.Join(paths, ", "), state, src.SHA256[:12])
		if len(backups) > 0 {
			fmt.Fprintf(e.stdout, "kept the previous files as %s\n", strings.Join(backups, ", "))
		}
	}
	return nil
}

// checkExportDir accepts an existing directory, or a new one whose parent
// exists, and refuses anything else before any work is done.
func checkExportDir(out string) error {
	if err := checkLexicalParents("out", out); err != nil {
		return err
	}
	fi, err := os.Stat(out)
	switch {
	case err == nil && !fi.IsDir():
		return usagef("--out %s is a file, not a directory", out)
	case err == nil:
		return probeWritable("out", out, out)
	case !errors.Is(err, os.ErrNotExist):
		return usagef("--out %s: %v", out, err)
	}
	parent := filepath.Dir(filepath.Clean(out))
	if pi, err := os.Stat(parent); err != nil || !pi.IsDir() {
		return usagef("--out %s: directory %s does not exist; create it first", out, parent)
	}
	return probeWritable("out", out, parent)
}
