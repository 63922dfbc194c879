package export

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/passivenfir/gputrain/internal/atomicfile"
)

// Format is an export target; it implements flag.Value.
type Format int

const (
	FormatC        Format = iota // NAME.h, NAME.c
	FormatFMU                    // NAME.fmu
	FormatPythonSS               // NAME_ss.npz, NAME_ss.mat
)

var formatNames = []string{"c", "fmu", "python-ss"}

func (f Format) String() string {
	if f < 0 || int(f) >= len(formatNames) {
		return fmt.Sprintf("Format(%d)", int(f))
	}
	return formatNames[f]
}

// Set parses a format name.
func (f *Format) Set(s string) error {
	for i, n := range formatNames {
		if s == n {
			*f = Format(i)
			return nil
		}
	}
	return fmt.Errorf("unknown format %q: want c, fmu or python-ss", s)
}

// Options are what Generate needs beside the model.
type Options struct {
	Name string  // prefix of every generated C name and file name
	Ts   float64 // FMU communication step; 0: the model file's sampling time
}

// Generate returns the files of one target, all in memory, so that nothing
// is written when any of them cannot be made.
func Generate(s *Source, f Format, opt Options) ([]File, error) {
	switch f {
	case FormatC:
		return C(s, opt.Name)
	case FormatFMU:
		return FMU(s, opt.Name, opt.Ts)
	case FormatPythonSS:
		return StateSpace(s, opt.Name)
	}
	return nil, fmt.Errorf("%w: format %v", ErrUnsupported, f)
}

// Write writes files into dir, each atomically (temporary file and
// rename). dir is created when it does not exist, but not its parents.
func Write(dir string, files []File) error {
	if fi, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		if err := os.Mkdir(dir, 0o755); err != nil {
			return fmt.Errorf("export: %w", err)
		}
	} else if err != nil {
		return fmt.Errorf("export: %w", err)
	} else if !fi.IsDir() {
		return fmt.Errorf("export: %s is not a directory", dir)
	}
	for _, f := range files {
		err := atomicfile.Write(filepath.Join(dir, f.Name), func(w io.Writer) error {
			_, err := w.Write(f.Data)
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}
