package main

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/internal/atomicfile"
	"github.com/passivenfir/gputrain/model"
)

// The policy for an output file that exists (train --out, simulate --out,
// gen --out, the files of export --out DIR): it is refused before any work
// (exit 2) unless --force is given, and with --force the old file is kept as
// NAME.bak. Refusing, rather than always renaming to a backup, keeps a
// second run from quietly turning the good model into NAME.bak and the new,
// perhaps interrupted, one into NAME: the user decides, once, before the
// hours of training. A backup under --force keeps a mistyped --force from
// costing the old model.

// forceUsage is the help text of --force.
const forceUsage = "replace an existing output file; the old one is kept as NAME.bak (without --force an existing file is refused before any work)"

// addForceFlag adds --force to fs.
func addForceFlag(fs *flag.FlagSet) *bool { return fs.Bool("force", false, forceUsage) }

// outFile is an output file of a command, checked before the work and
// written after it under the policy above.
type outFile struct {
	flag, path string
	force      bool
	// After write: the file written (path, or a fresh name when path
	// appeared during the run without --force) and the backup made ("" for
	// none).
	written, backup string
}

// newOutFile checks path as checkOutPath does and applies the policy: an
// existing file without force is a usage error.
func newOutFile(flagName, path string, force bool, inputs map[string]string) (*outFile, error) {
	if err := checkOutPath(flagName, path, inputs); err != nil {
		return nil, err
	}
	if err := refuseExisting(flagName, force, path); err != nil {
		return nil, err
	}
	return &outFile{flag: flagName, path: path, force: force}, nil
}

// refuseExisting is the usage error for the paths that exist, when force is
// false (nil otherwise).
func refuseExisting(flagName string, force bool, paths ...string) error {
	if force {
		return nil
	}
	var there []string
	for _, p := range paths {
		if _, err := os.Lstat(p); err == nil {
			there = append(there, p)
		}
	}
	switch len(there) {
	case 0:
		return nil
	case 1:
		return usagef("--%s %s exists; give --force to replace it (the old file is then kept as %s.bak), or choose another name", flagName, there[0], there[0])
	}
	return usagef("--%s: %s exist; give --force to replace them (the old files are then kept as NAME.bak), or choose another --%s", flagName, strings.Join(there, ", "), flagName)
}

// write writes the file through save, given the path to write. With force,
// an existing file is first kept as NAME.bak. Without force, a file that
// appeared at path while the command ran (checked absent before it) is not
// replaced either: the output goes to the first free name NAME-1.EXT,
// NAME-2.EXT, …, so that neither is lost.
func (o *outFile) write(save func(path string) error) error {
	o.written, o.backup = o.path, ""
	if o.force {
		bak, err := atomicfile.Backup(o.path)
		if err != nil {
			return fmt.Errorf("--%s %s: keeping the existing file: %w", o.flag, o.path, err)
		}
		o.backup = bak
	} else if _, err := os.Lstat(o.path); err == nil {
		o.written = freeName(o.path)
	}
	return save(o.written)
}

// target is the file written, or to be written.
func (o *outFile) target() string {
	if o.written != "" {
		return o.written
	}
	return o.path
}

// where says what write wrote, for the command's last message: the path, and
// the backup or the other name when there is one.
func (o *outFile) where() string {
	switch {
	case o.backup != "":
		return fmt.Sprintf("%s (the previous file is kept as %s)", o.written, o.backup)
	case o.written != o.path:
		return fmt.Sprintf("%s (%s appeared while this command ran and is left as it is)", o.written, o.path)
	}
	return o.written
}

// freeName returns the first of NAME-1.EXT, NAME-2.EXT, … that does not
// exist.
func freeName(path string) string {
	ext := filepath.Ext(path)
	base := strings.TrimSuffix(path, ext)
	for i := 1; ; i++ {
		p := fmt.Sprintf("%s-%d%s", base, i, ext)
		if _, err := os.Lstat(p); errors.Is(err, os.ErrNotExist) {
			return p
		}
	}
}

// checkLexicalParents fails when path names a directory that does not exist
// before a "..": the operating system resolves "nosuch/.." only when nosuch
// exists, while filepath.Clean (and so a check of the cleaned path) drops
// both, which would let ./nosuch/../m.json pass the checks and fail when the
// file is written, after the work.
func checkLexicalParents(flagName, path string) error {
	parts := strings.Split(filepath.ToSlash(path), "/")
	for i, p := range parts {
		if p != ".." || i == 0 {
			continue
		}
		prefix := filepath.FromSlash(strings.Join(parts[:i], "/"))
		if prefix == "" {
			continue // "/.." is the root
		}
		if fi, err := os.Stat(prefix); err != nil || !fi.IsDir() {
			return usagef("--%s %s: %s is not an existing directory, so %s/.. cannot be resolved; create it or give the path without it", flagName, path, prefix, prefix)
		}
	}
	return nil
}

// allowTsUsage and allowNonfiniteUsage are the help texts of the overrides.
const (
	allowTsUsage        = "go on when --ts differs from the sampling time stored in the model file (refused otherwise, exit 2: a model of one sampling time describes another plant at another)"
	allowNonfiniteUsage = "report or write a simulation that goes non-finite (±Inf, NaN: the model's loop diverges on these inputs) instead of failing with exit 1"
)

// checkTs refuses (exit 2) a data sampling time dataTs that differs from the
// model's modelTs, unless allow; either being 0 (unknown) is no mismatch.
func checkTs(modelPath string, modelTs, dataTs float64, allow bool) error {
	if allow || modelTs == 0 || dataTs == 0 || math.Abs(modelTs-dataTs) <= 1e-9*math.Max(modelTs, dataTs) {
		return nil
	}
	return usagef("--ts %g s differs from the sampling time of the model %s, %g s: its taps and memory are counted in samples of %g s, so on data sampled at %g s it describes another system; resample the data to %g s, or give --allow-ts-mismatch to go on",
		dataTs, modelPath, modelTs, modelTs, dataTs, modelTs)
}

// checkColumnTs is checkTs for the sampling time a data file's time column
// gave (data.Dataset.TimeCol); nil where the data have none.
func checkColumnTs(modelPath string, modelTs float64, d *data.Dataset, allow bool) error {
	if d.TimeCol == "" || allow || modelTs == 0 || math.Abs(modelTs-d.Ts) <= 1e-3*modelTs {
		return nil
	}
	return usagef("--data %s: its time column %q steps by %g s, but the model %s was trained at %g s: its taps and memory are counted in samples of %g s, so on these data it describes another system; resample the data to %g s, or give --allow-ts-mismatch to go on",
		d.Name, d.TimeCol, d.Ts, modelPath, modelTs, modelTs, modelTs)
}

// firstNonfinite returns the index of the first sample of y that is not
// finite, or -1.
func firstNonfinite(y []float64) int {
	for t, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return t
		}
	}
	return -1
}

// nonfiniteError is the failure (exit 1) of a simulation that went
// non-finite in batch name at sample t, with value v.
func nonfiniteError(what, name string, t int, v float64) error {
	return failf("the %s of %s is %v at sample %d: the model diverges on this input, and a non-finite output is no result; nothing written (--allow-nonfinite reports or writes it anyway)", what, name, v, t)
}

// modelFileError is the usage error (exit 2) for a model file that cannot
// be read; one written by a newer gputrain also names this one's version.
func modelFileError(err error) error {
	if errors.Is(err, model.ErrNewerVersion) {
		return badInput(fmt.Errorf("--model: %w (this is gputrain %s)", err, toolVersion()))
	}
	return badInput(fmt.Errorf("--model: %w", err))
}
