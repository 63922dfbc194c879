package data

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"reflect"
	"strings"

	"github.com/sbinet/npyio/npy"
	"github.com/sbinet/npyio/npz"
	"gonum.org/v1/gonum/mat"
)

// npyArray is a float64 array read from a .npy stream, in C (row-major) order.
type npyArray struct {
	shape []int
	data  []float64
}

// noPanic runs f and turns a panic of the third-party decoder (malformed input) into
// an ErrFormat error: readers must never crash on user input.
func noPanic(name string, f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("data: %s: malformed NumPy data (%v): %w", name, r, ErrFormat)
		}
	}()
	return f()
}

// readNPYArray decodes one .npy stream with npyio, accepting float64 and float32 data in
// either memory order, after checking the declared size against maxBytes.
func readNPYArray(r io.Reader, name string, maxBytes int64) (*npyArray, error) {
	var a npyArray
	err := noPanic(name, func() error {
		rd, err := npy.NewReader(r)
		if err != nil {
			return fmt.Errorf("data: %s: not a NumPy .npy array (%v): %w", name, err, ErrFormat)
		}
		h := rd.Header
		n := 1
		for _, s := range h.Descr.Shape {
			if s < 0 || (s > 0 && n > math.MaxInt/8/s) {
				return fmt.Errorf("data: %s: invalid shape %v: %w", name, h.Descr.Shape, ErrFormat)
			}
			n *= s
		}
		if maxBytes >= 0 && int64(n)*8 > maxBytes {
			return fmt.Errorf("data: %s: shape %v needs %d bytes, more than MaxBytes = %d; split the data (from Go: raise ReadOptions.MaxBytes): %w",
				name, h.Descr.Shape, int64(n)*8, maxBytes, ErrTooLarge)
		}
		if n == 0 {
			return fmt.Errorf("data: %s: array of shape %v holds no data: %w", name, h.Descr.Shape, ErrEmpty)
		}
		switch npy.TypeFrom(h.Descr.Type) {
		case reflect.TypeOf(float64(0)):
			a.data = make([]float64, 0) // let npyio size it from the header
			if err := rd.Read(&a.data); err != nil {
				return fmt.Errorf("data: %s: %v: %w", name, err, ErrFormat)
			}
		case reflect.TypeOf(float32(0)):
			var f32 []float32
			if err := rd.Read(&f32); err != nil {
				return fmt.Errorf("data: %s: %v: %w", name, err, ErrFormat)
			}
			a.data = make([]float64, len(f32))
			for i, v := range f32 {
				a.data[i] = float64(v)
			}
		default:
			return fmt.Errorf("data: %s: dtype %q is not supported; save float64 data (x.astype(numpy.float64)): %w",
				name, h.Descr.Type, ErrFormat)
		}
		if len(a.data) != n {
			return fmt.Errorf("data: %s: %d values for shape %v: %w", name, len(a.data), h.Descr.Shape, ErrFormat)
		}
		a.shape = append([]int(nil), h.Descr.Shape...)
		if h.Descr.Fortran && len(a.shape) > 1 {
			a.data = fortranToC(a.data, a.shape)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &a, nil
}

// fortranToC reorders column-major data of the given shape into row-major order.
func fortranToC(f []float64, shape []int) []float64 {
	c := make([]float64, len(f))
	idx := make([]int, len(shape))
	for i := range f { // i walks f in column-major order; idx is its multi-index
		off := 0
		for k := range shape {
			off = off*shape[k] + idx[k]
		}
		c[off] = f[i]
		for k := 0; k < len(shape); k++ { // increment, first axis fastest
			idx[k]++
			if idx[k] < shape[k] {
				break
			}
			idx[k] = 0
		}
	}
	return c
}

func checkFinite(name, what string, x []float64) error {
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("data: %s %s: element %d is %v; remove or interpolate non-finite samples: %w", name, what, i, v, ErrNotFinite)
		}
	}
	return nil
}

// readNPY reads a single .npy array whose last axis holds the signals: shape T×2 (u, y)
// or T×3 (u, y, y_clean) is one batch; B×T×2 or B×T×3 is B batches.
func readNPY(r io.Reader, name string, opt ReadOptions) (*Dataset, error) {
	a, err := readNPYArray(r, name, opt.MaxBytes)
	if err != nil {
		return nil, err
	}
	sh := a.shape
	if (len(sh) != 2 && len(sh) != 3) || (sh[len(sh)-1] != 2 && sh[len(sh)-1] != 3) {
		return nil, fmt.Errorf("data: %s: shape %v; a .npy dataset must be T×2 (columns u, y), T×3 (u, y, y_clean) or B×T×2/3; or use an .npz with arrays u and y: %w",
			name, sh, ErrLengthMismatch)
	}
	if err := checkFinite(name, "array", a.data); err != nil {
		return nil, err
	}
	nb, T, nc := 1, sh[0], sh[1]
	if len(sh) == 3 {
		nb, T, nc = sh[0], sh[1], sh[2]
	}
	d := &Dataset{Name: name, Batches: make([]Batch, nb)}
	for b := range d.Batches {
		bt := Batch{U: make([]float64, T), Y: make([]float64, T)}
		if nc == 3 {
			bt.YClean = make([]float64, T)
		}
		for t := 0; t < T; t++ {
			row := a.data[(b*T+t)*nc:]
			bt.U[t], bt.Y[t] = row[0], row[1]
			if nc == 3 {
				bt.YClean[t] = row[2]
			}
		}
		d.Batches[b] = bt
	}
	return d, nil
}

// readNPZ reads arrays u and y (names from opt) and optionally y_clean from an .npz
// archive: 1-D arrays are one batch, 2-D arrays are batches × T. Other arrays are
// ignored (archives often hold more than one dataset).
func readNPZ(f *os.File, name string, opt ReadOptions) (*Dataset, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	var zr *npz.Reader
	if err := noPanic(name, func() (err error) { zr, err = npz.NewReader(f, fi.Size()); return err }); err != nil {
		return nil, fmt.Errorf("data: %s: not an .npz (zip) archive (%v): %w", name, err, ErrFormat)
	}
	keys := map[string]string{} // array name -> zip entry
	for _, k := range zr.Keys() {
		keys[strings.TrimSuffix(k, ".npy")] = k
	}
	budget := opt.MaxBytes
	get := func(col string, required bool) (*npyArray, error) {
		k, ok := keys[col]
		if !ok {
			if !required {
				return nil, nil
			}
			names := make([]string, 0, len(keys))
			for n := range keys {
				names = append(names, n)
			}
			return nil, fmt.Errorf("data: %s: no array %q (arrays: %s); save it with numpy.savez(path, u=..., y=...) or choose the names with --u and --y (from Go: ReadOptions.UCol, YCol): %w",
				name, col, strings.Join(names, ","), ErrMissingColumn)
		}
		rc, err := zr.Open(k)
		if err != nil {
			return nil, fmt.Errorf("data: %s: array %q: %v: %w", name, col, err, ErrFormat)
		}
		defer rc.Close()
		a, err := readNPYArray(rc, name+" array "+col, budget)
		if err != nil {
			return nil, err
		}
		if budget >= 0 {
			budget -= int64(len(a.data)) * 8
		}
		return a, checkFinite(name, "array "+col, a.data)
	}
	u, err := get(opt.UCol, true)
	if err != nil {
		return nil, err
	}
	y, err := get(opt.YCol, true)
	if err != nil {
		return nil, err
	}
	yc, err := get(opt.YCleanCol, false)
	if err != nil {
		return nil, err
	}
	for _, p := range []struct {
		col string
		a   *npyArray
	}{{opt.YCol, y}, {opt.YCleanCol, yc}} {
		if p.a != nil && !equalShape(p.a.shape, u.shape) {
			return nil, fmt.Errorf("data: %s: array %q has shape %v but %q has %v; u and y must have the same shape: %w",
				name, p.col, p.a.shape, opt.UCol, u.shape, ErrLengthMismatch)
		}
	}
	var nb, T int
	switch len(u.shape) {
	case 1:
		nb, T = 1, u.shape[0]
	case 2:
		nb, T = u.shape[0], u.shape[1]
	default:
		return nil, fmt.Errorf("data: %s: array %q has shape %v; want 1-D (one batch) or 2-D (batches × T): %w",
			name, opt.UCol, u.shape, ErrFormat)
	}
	d := &Dataset{Name: name, Batches: make([]Batch, nb)}
	for b := range d.Batches {
		d.Batches[b] = Batch{U: u.data[b*T : (b+1)*T : (b+1)*T], Y: y.data[b*T : (b+1)*T : (b+1)*T]}
		if yc != nil {
			d.Batches[b].YClean = yc.data[b*T : (b+1)*T : (b+1)*T]
		}
	}
	return d, nil
}

func equalShape(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// equalLengths returns the common batch length, or an error naming the format.
func equalLengths(d *Dataset, format string) (int, error) {
	T := len(d.Batches[0].U)
	for i, b := range d.Batches {
		if len(b.U) != T {
			return 0, fmt.Errorf("data: %s stores batches × T arrays: batch %d has %d samples, batch 0 has %d; use CSV for batches of different lengths: %w",
				format, i, len(b.U), T, ErrLengthMismatch)
		}
	}
	return T, nil
}

// WriteNPZ writes d to path as an .npz archive (via npyio) with float64 arrays u, y and,
// when known, y_clean: 1-D for a single batch, batches × T otherwise (all batches must
// then have the same length). Validated first and written atomically.
func WriteNPZ(path string, d *Dataset) error {
	if err := d.Validate(1); err != nil {
		return fmt.Errorf("data: not writing %s: %w", path, err)
	}
	T, err := equalLengths(d, ".npz")
	if err != nil {
		return fmt.Errorf("data: not writing %s: %w", path, err)
	}
	return writeAtomic(path, func(w io.Writer) error {
		zw := npz.NewWriter(w)
		sig := map[string]func(Batch) []float64{
			"u": func(b Batch) []float64 { return b.U },
			"y": func(b Batch) []float64 { return b.Y },
		}
		names := []string{"u", "y"}
		if d.Batches[0].YClean != nil {
			sig["y_clean"] = func(b Batch) []float64 { return b.YClean }
			names = append(names, "y_clean")
		}
		for _, n := range names {
			var v any
			if len(d.Batches) == 1 {
				v = sig[n](d.Batches[0])
			} else {
				m := mat.NewDense(len(d.Batches), T, nil)
				for i, b := range d.Batches {
					m.SetRow(i, sig[n](b))
				}
				v = m
			}
			if err := zw.Write(n+".npy", v); err != nil {
				return err
			}
		}
		return zw.Close()
	})
}

// WriteNPY writes d to path as one float64 .npy array T×C (a single batch) or B×T×C,
// C = 2 (u, y) or 3 (u, y, y_clean). Validated first and written atomically.
func WriteNPY(path string, d *Dataset) error {
	if err := d.Validate(1); err != nil {
		return fmt.Errorf("data: not writing %s: %w", path, err)
	}
	T, err := equalLengths(d, ".npy")
	if err != nil {
		return fmt.Errorf("data: not writing %s: %w", path, err)
	}
	return writeAtomic(path, func(w io.Writer) error { return writeNPY(w, d, T) })
}

// writeNPY writes the NumPy format version 1.0 directly: magic, header dict padded to a
// multiple of 64 bytes, little-endian float64 data in C order.
func writeNPY(w io.Writer, d *Dataset, T int) error {
	nc := 2
	if d.Batches[0].YClean != nil {
		nc = 3
	}
	shape := fmt.Sprintf("(%d, %d)", T, nc)
	if len(d.Batches) > 1 {
		shape = fmt.Sprintf("(%d, %d, %d)", len(d.Batches), T, nc)
	}
	dict := fmt.Sprintf("{'descr': '<f8', 'fortran_order': False, 'shape': %s, }", shape)
	pre := 10 // magic(6) + version(2) + header length(2)
	pad := 64 - (pre+len(dict)+1)%64
	if pad == 64 {
		pad = 0
	}
	hdr := dict + strings.Repeat(" ", pad) + "\n"
	var buf bytes.Buffer
	buf.WriteString("\x93NUMPY\x01\x00")
	binary.Write(&buf, binary.LittleEndian, uint16(len(hdr)))
	buf.WriteString(hdr)
	if _, err := w.Write(buf.Bytes()); err != nil {
		return err
	}
	row := make([]byte, 8*nc)
	for _, b := range d.Batches {
		for t := 0; t < T; t++ {
			binary.LittleEndian.PutUint64(row[0:], math.Float64bits(b.U[t]))
			binary.LittleEndian.PutUint64(row[8:], math.Float64bits(b.Y[t]))
			if nc == 3 {
				binary.LittleEndian.PutUint64(row[16:], math.Float64bits(b.YClean[t]))
			}
			if _, err := w.Write(row); err != nil {
				return err
			}
		}
	}
	return nil
}
