package data

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/passivenfir/gputrain/internal/atomicfile"
)

// openLimited opens path for reading and refuses it when it is larger than maxBytes
// (maxBytes < 0: no limit) or not a regular file.
func openLimited(path string, maxBytes int64) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("data: %w", err)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("data: %s: not a regular file: %w", path, ErrFormat)
	}
	if maxBytes >= 0 && fi.Size() > maxBytes {
		f.Close()
		return nil, fmt.Errorf("data: %s: %d bytes, more than MaxBytes = %d; split the file (from Go: raise ReadOptions.MaxBytes): %w",
			path, fi.Size(), maxBytes, ErrTooLarge)
	}
	return f, nil
}

// ReadFile reads a dataset from path, choosing the format by extension: .csv, .npy,
// .npz or .mat (case-insensitive). See the package documentation for the layouts.
// The Dataset's Name is the file's base name and its Ts is opt.Ts. Files larger than
// opt.MaxBytes (default DefaultMaxBytes) are refused with ErrTooLarge.
func ReadFile(path string, opt ReadOptions) (*Dataset, error) {
	opt = opt.withDefaults()
	ext := strings.ToLower(filepath.Ext(path))
	switch ext {
	case ".csv", ".npy", ".npz", ".mat":
	default:
		return nil, fmt.Errorf("data: %s: unknown extension %q; use .csv, .npy, .npz or .mat: %w", path, ext, ErrFormat)
	}
	f, err := openLimited(path, opt.MaxBytes)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var d *Dataset
	switch ext {
	case ".csv":
		d, err = ReadCSV(f, path, opt)
	case ".npy":
		size := int64(-1)
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			size = fi.Size()
		}
		d, err = readNPY(bufio.NewReaderSize(f, 64<<10), path, opt, size)
	case ".npz":
		d, err = readNPZ(f, path, opt)
	case ".mat":
		d, err = readMAT(f, path, opt)
	}
	if err != nil {
		return nil, err
	}
	d.Name, d.Ts = path, opt.Ts // the full path names the file in Validate's errors
	if d, err = finish(d, opt); err != nil {
		return nil, err
	}
	d.Name, d.UCol, d.YCol = filepath.Base(path), opt.UCol, opt.YCol
	return d, nil
}

// writeAtomic writes path through internal/atomicfile: a temporary file in
// the same directory renamed over path only when write succeeded.
func writeAtomic(path string, write func(w io.Writer) error) error {
	if err := atomicfile.Write(path, write); err != nil {
		return fmt.Errorf("data: %w", err)
	}
	return nil
}
