package main

// Helpers of the commands that read data and write files: checks of output
// paths before any work, reading data as bad input, and one-line texts.

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/model"
)

// checkOutPath fails early (before hours of training) when path cannot be
// written: its directory must exist, and path must not be a directory, a
// device or a pipe, nor the same file as one of the inputs (flag name →
// path), which the output would destroy.
func checkOutPath(flagName, path string, inputs map[string]string) error {
	if path == "" {
		return usagef("--%s is empty; give a file name", flagName)
	}
	if path == "-" {
		return usagef("--%s -: this output is written to a file; give a file name", flagName)
	}
	if err := checkLexicalParents(flagName, path); err != nil {
		return err
	}
	if fi, err := os.Stat(path); err == nil {
		switch {
		case fi.IsDir():
			return usagef("--%s %s is a directory; give a file name", flagName, path)
		case !fi.Mode().IsRegular():
			return usagef("--%s %s is not a regular file (a device or a pipe); give a file name", flagName, path)
		}
		for _, name := range slices.Sorted(maps.Keys(inputs)) {
			if in, err := os.Stat(inputs[name]); err == nil && os.SameFile(fi, in) {
				return usagef("--%s %s is the --%s file: writing it would destroy the input; give another name", flagName, path, name)
			}
		}
	}
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	switch {
	case err != nil:
		return usagef("--%s %s: directory %s does not exist; create it first", flagName, path, dir)
	case !fi.IsDir():
		return usagef("--%s %s: %s is a file, not a directory", flagName, path, dir)
	}
	return probeWritable(flagName, path, dir)
}

// probeWritable fails when no file can be created in dir. A permission
// problem found only when the model is written would cost the whole run, and
// the mode bits alone do not say (root, ACLs, read-only mounts), so a probe
// file is created and removed.
func probeWritable(flagName, path, dir string) error {
	f, err := os.CreateTemp(dir, ".gputrain-probe-*")
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return usagef("--%s %s: cannot write in %s (%v); choose a directory you can write", flagName, path, dir, err)
	}
	name := f.Name()
	f.Close()
	os.Remove(name)
	return nil
}

// checkOutDir fails early when path, a directory the command will create
// if needed, exists as something else.
func checkOutDir(flagName, path string) error {
	if err := checkLexicalParents(flagName, path); err != nil {
		return err
	}
	if fi, err := os.Stat(path); err == nil && !fi.IsDir() {
		return usagef("--%s %s exists and is not a directory; give a directory", flagName, path)
	}
	return nil
}

// readData reads and validates a data file for a model of the given memory;
// every problem is bad input (exit 2) with the reader's message, and Ctrl-C
// (ctx) stops the reading (readErr).
func readData(ctx context.Context, flagName, path string, opt data.ReadOptions, minLen int) (*data.Dataset, error) {
	if path == "" {
		return nil, usagef("--%s FILE is required (a .csv with columns u,y and optionally batch; or .npy, .npz, .mat)", flagName)
	}
	d, err := data.ReadFileContext(ctx, path, opt)
	if err != nil {
		return nil, readErr(ctx, flagName, err)
	}
	if err := d.Validate(minLen); err != nil {
		return nil, badInput(flagErr{flagName, err})
	}
	loaded()
	return d, nil
}

// flagErr is an error of the file given with --flag; its message drops the
// package prefix "data: ", which after the flag's name says nothing.
type flagErr struct {
	flag string
	err  error
}

func (e flagErr) Error() string {
	return "--" + e.flag + ": " + cliText(strings.TrimPrefix(e.err.Error(), "data: "))
}

// goHint matches the data package's hints for Go callers, " (from Go: …)",
// which name ReadOptions fields a command-line user cannot set.
var goHint = regexp.MustCompile(` \(from Go: [^)]*\)`)

// timeColNote says where the sampling time came from when the training
// file's time column gave it ("" otherwise): a column in milliseconds or
// of sample numbers would otherwise go unnoticed into the model file.
func timeColNote(d *data.Dataset) string {
	if d == nil || d.TimeCol == "" {
		return ""
	}
	return fmt.Sprintf("note: sampling time %g s, the step of the time column %q of --data (--ts sets it; --time - skips the column)", d.Ts, d.TimeCol)
}

// cliText drops the hints for Go callers from a library message.
func cliText(s string) string { return goHint.ReplaceAllString(s, "") }

func (e flagErr) Unwrap() error { return e.err }

// certText is a one-line summary of a certificate.
func certText(c model.Certificate) string {
	minRe, where := math.Inf(1), ""
	for j, b := range c.Branches {
		if b.MinRe < minRe {
			minRe, where = b.MinRe, fmt.Sprintf("branch %d at ω = %.4f", j, b.Omega)
		}
	}
	if c.Linear != nil && c.Linear.MinRe < minRe {
		minRe, where = c.Linear.MinRe, fmt.Sprintf("linear FIR at ω = %.4f", c.Linear.Omega)
	}
	state := "passive"
	if !c.Passive {
		state = "NOT passive"
	}
	if math.IsInf(minRe, 1) {
		return state
	}
	return fmt.Sprintf("%s, min Re G = %.4g (%s)", state, minRe, where)
}

// pow2Text writes a power of two as 2^k (and 1 as 1).
func pow2Text(f float64) string {
	if f == 1 {
		return "1"
	}
	return fmt.Sprintf("2^%d", int(math.Round(math.Log2(f))))
}
