package data

import (
	"bufio"
	"bytes"
	"context"
	"errors"
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

// ReadFile reads a dataset from path; it is ReadFileContext without a context.
func ReadFile(path string, opt ReadOptions) (*Dataset, error) {
	return ReadFileContext(context.Background(), path, opt)
}

// ReadFileContext reads a dataset from path, choosing the format by extension: .csv
// (and .tsv and .txt, read as CSV: delimited text), .npy, .npz or .mat
// (case-insensitive). See the package documentation for the layouts.
// The Dataset's Name is the file's base name and its Ts is opt.Ts, or a CSV time
// column's step (ReadOptions.TimeCol). Files larger than
// opt.MaxBytes (default DefaultMaxBytes) are refused with ErrTooLarge. When opt.Stdin is
// set, the path "-" reads it instead of a file, named "stdin" in messages and in the
// Dataset, its format recognized by the first bytes (the magic strings of .npy, .npz and
// .mat files; CSV otherwise; an .npz is held in memory, the others are streamed). When
// ctx is done, reading stops with an error wrapping ctx.Err().
func ReadFileContext(ctx context.Context, path string, opt ReadOptions) (*Dataset, error) {
	opt = opt.withDefaults()
	if path == "-" && opt.Stdin != nil {
		return readStdin(ctx, opt)
	}
	ext := strings.ToLower(filepath.Ext(path))
	switch ext {
	case ".csv", ".npy", ".npz", ".mat":
	case ".tsv", ".txt":
		ext = ".csv" // delimited text too, read as CSV (the delimiter detected)
	default:
		return nil, fmt.Errorf("data: %s: unknown extension %q; use .csv (or .tsv, .txt: delimited text), .npy, .npz or .mat (or - for standard input): %w", path, ext, ErrFormat)
	}
	f, err := openLimited(path, opt.MaxBytes)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := int64(-1)
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		size = fi.Size()
	}
	d, err := readFormat(ctx, f, f, size, ext, path, opt)
	if err != nil {
		return nil, err
	}
	d.Name = path // the full path names the file in Validate's errors
	if d.Ts == 0 {
		d.Ts = opt.Ts // a CSV time column's step otherwise (ReadOptions.TimeCol)
	}
	if d, err = finish(d, opt); err != nil {
		return nil, err
	}
	d.Name, d.UCol, d.YCol = filepath.Base(path), opt.UCol, opt.YCol
	return d, nil
}

// readStdin reads opt.Stdin in the format its first bytes show.
func readStdin(ctx context.Context, opt ReadOptions) (*Dataset, error) {
	const name = "stdin"
	g := &guardReader{ctx: ctx, r: opt.Stdin, n: opt.MaxBytes}
	br := bufio.NewReaderSize(g, 64<<10)
	head, _ := br.Peek(8) // a read error shows again when the format's reader reads
	ext := ".csv"
	switch {
	case bytes.HasPrefix(head, []byte("\x93NUMPY")):
		ext = ".npy"
	case bytes.HasPrefix(head, []byte("PK\x03\x04")):
		ext = ".npz"
	case bytes.HasPrefix(head, []byte("MATLAB")):
		ext = ".mat"
	}
	var ra io.ReaderAt
	size := int64(-1)
	if ext == ".npz" { // a zip archive's directory is at its end
		b, err := io.ReadAll(br)
		if err != nil {
			return nil, stdinErr(g, opt, fmt.Errorf("data: stdin: %w", err))
		}
		ra, size = bytes.NewReader(b), int64(len(b))
	}
	d, err := readFormat(ctx, br, ra, size, ext, name, opt)
	if err != nil {
		return nil, stdinErr(g, opt, err)
	}
	d.Name = name
	if d.Ts == 0 {
		d.Ts = opt.Ts
	}
	return finish(d, opt)
}

// stdinErr reports reaching the size limit, which the binary formats' readers take for
// a truncated file, as such.
func stdinErr(g *guardReader, opt ReadOptions, err error) error {
	if g.capped && !errors.Is(err, ErrTooLarge) {
		return fmt.Errorf("data: stdin: more than MaxBytes = %d bytes; split the data (from Go: raise ReadOptions.MaxBytes): %w", opt.MaxBytes, ErrTooLarge)
	}
	return err
}

// readFormat reads a dataset in the format of extension ext from r, or, for .npz, from
// ra of the given size.
func readFormat(ctx context.Context, r io.Reader, ra io.ReaderAt, size int64, ext, name string, opt ReadOptions) (*Dataset, error) {
	if err := ctx.Err(); err != nil { // the .npz reader does not check ctx
		return nil, fmt.Errorf("data: %s: reading stopped: %w", name, err)
	}
	g := &guardReader{ctx: ctx, r: r, n: -1}
	var d *Dataset
	var err error
	switch ext {
	case ".csv":
		d, err = ReadCSVContext(ctx, r, name, opt)
	case ".npy":
		d, err = readNPY(bufio.NewReaderSize(g, 64<<10), name, opt, size)
	case ".npz":
		d, err = readNPZ(ra, size, name, opt)
	case ".mat":
		d, err = readMAT(g, name, opt)
	}
	if err != nil && ctx.Err() != nil && !errors.Is(err, ctx.Err()) {
		// The binary readers take a stopped read for a truncated file.
		return nil, fmt.Errorf("data: %s: reading stopped: %w", name, ctx.Err())
	}
	return d, err
}

// writeAtomic writes path through internal/atomicfile: a temporary file in
// the same directory renamed over path only when write succeeded.
func writeAtomic(path string, write func(w io.Writer) error) error {
	if err := atomicfile.Write(path, write); err != nil {
		return fmt.Errorf("data: %w", err)
	}
	return nil
}
