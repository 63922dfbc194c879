package data

import (
	"archive/zip"
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/passivenfir/gputrain/internal/suggest"

	"github.com/sbinet/npyio/npy"
	"github.com/sbinet/npyio/npz"
	"gonum.org/v1/gonum/mat"
)

// npyArray is a float64 array read from a .npy stream, in C (row-major) order.
type npyArray struct {
	shape []int
	data  []float64
}

// maxExactInt is 2^53: every integer of at most this magnitude is a float64, 2^53+1 is
// not. Integer data beyond it (int64, uint64) is refused rather than silently rounded.
const maxExactInt = 1 << 53

// maxNPYHeader bounds the header length a .npy file may declare (NumPy itself refuses
// headers over 10000 bytes unless told otherwise), so that a corrupt length field of a
// version 2 file cannot make the decoder allocate gigabytes.
const maxNPYHeader = 1 << 16

// noPanic runs f and turns a panic of the third-party decoder (malformed input) into
// an ErrFormat error: readers must never crash on user input. The panic value (Go
// runtime text such as "slice bounds out of range") says nothing to the user and is
// not shown.
func noPanic(name string, f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("data: %s: malformed NumPy data: the header or the array is truncated or corrupt: %w", name, ErrFormat)
		}
	}()
	return f()
}

// npyDetail returns npyio's own wording of a header problem, e.g. " (invalid major
// version number (3))", and "" for errors that would only show Go internals (io,
// strconv).
func npyDetail(err error) string {
	if s := err.Error(); strings.HasPrefix(s, "npy: ") {
		return " (" + strings.TrimPrefix(s, "npy: ") + ")"
	}
	return ""
}

// widen reads the array's elements as T and converts them to float64; every value of
// these types is a float64 exactly.
func widen[T int8 | int16 | int32 | uint8 | uint16 | uint32 | float32](rd *npy.Reader) ([]float64, error) {
	var v []T
	if err := rd.Read(&v); err != nil {
		return nil, err
	}
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out, nil
}

// widenExact is widen for 64-bit integers, whose values beyond ±2^53 float64 would
// round: such a value is an ErrFormat error naming its NumPy index.
func widenExact[T int64 | uint64](rd *npy.Reader, name string, shape []int, fortran bool) ([]float64, error) {
	var v []T
	if err := rd.Read(&v); err != nil {
		return nil, err
	}
	out := make([]float64, len(v))
	for i, x := range v {
		// x > 2^53, or (int64 only) x < −2^53; a uint64 over 2^63 is caught by the first.
		if x > maxExactInt || int64(x) < -maxExactInt {
			return nil, errInexactInt(name, npyIndex(i, shape, fortran), fmt.Sprint(x),
				"convert the array to float64 yourself (x.astype(numpy.float64)) if the rounding is acceptable")
		}
		out[i] = float64(x)
	}
	return out, nil
}

// npyShape formats a shape as NumPy prints it: "(6,)", "(6, 1)".
func npyShape(shape []int) string {
	if len(shape) == 1 {
		return fmt.Sprintf("(%d,)", shape[0])
	}
	s := make([]string, len(shape))
	for i, d := range shape {
		s[i] = strconv.Itoa(d)
	}
	return "(" + strings.Join(s, ", ") + ")"
}

// npyIndex formats the NumPy index of the i-th stored element of an array of the given
// shape (all > 0), stored in C order or, when fortran, in Fortran order: "[3, 1]".
func npyIndex(i int, shape []int, fortran bool) string {
	if len(shape) == 0 {
		return "[()]"
	}
	idx := make([]string, len(shape))
	for j := range shape {
		k := len(shape) - 1 - j // C order: last axis fastest
		if fortran {
			k = j
		}
		idx[k] = strconv.Itoa(i % shape[k])
		i /= shape[k]
	}
	return "[" + strings.Join(idx, ", ") + "]"
}

// errInexactInt refuses an integer that float64 cannot represent exactly.
func errInexactInt(name, elem, val, hint string) error {
	return fmt.Errorf("data: %s: element %s = %s exceeds 2^53 in magnitude, so it cannot be represented exactly as a float64 and would be rounded; %s: %w",
		name, elem, val, hint, ErrFormat)
}

// readNPYArray decodes one .npy stream with npyio, accepting float64, float32 and integer
// data (int8 to int64, uint8 to uint64; 64-bit values must lie within ±2^53) in either
// byte and memory order, after checking the declared size against maxBytes. The result
// is always float64.
//
// size is the number of bytes the stream holds (-1: unknown): a header that declares
// more elements than that is refused before anything is allocated, so that a small
// corrupt file cannot make the decoder allocate up to maxBytes.
func readNPYArray(r io.Reader, name string, maxBytes, size int64) (*npyArray, error) {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReader(r)
	}
	if p, _ := br.Peek(12); len(p) == 12 && string(p[:6]) == "\x93NUMPY" && p[6] >= 2 {
		if n := binary.LittleEndian.Uint32(p[8:]); n > maxNPYHeader {
			return nil, fmt.Errorf("data: %s: the NumPy header claims %d bytes; the file is corrupt: %w", name, n, ErrFormat)
		}
	}
	var a npyArray
	err := noPanic(name, func() error {
		rd, err := npy.NewReader(br)
		if err != nil {
			return fmt.Errorf("data: %s: not a NumPy .npy array, or its header is truncated or corrupt%s: %w", name, npyDetail(err), ErrFormat)
		}
		h := rd.Header
		n := 1
		for _, s := range h.Descr.Shape {
			if s < 0 || (s > 0 && n > math.MaxInt/8/s) {
				return fmt.Errorf("data: %s: invalid shape %s: %w", name, npyShape(h.Descr.Shape), ErrFormat)
			}
			n *= s
		}
		if maxBytes >= 0 && int64(n)*8 > maxBytes {
			return fmt.Errorf("data: %s: shape %s needs %d bytes, more than MaxBytes = %d; split the data (from Go: raise ReadOptions.MaxBytes): %w",
				name, npyShape(h.Descr.Shape), int64(n)*8, maxBytes, ErrTooLarge)
		}
		if size >= 0 && int64(n) > size {
			return fmt.Errorf("data: %s: the header declares shape %s, %d values, but the data holds only %d bytes; the file is truncated or corrupt: %w",
				name, npyShape(h.Descr.Shape), n, size, ErrFormat)
		}
		if n == 0 {
			return fmt.Errorf("data: %s: array of shape %s holds no data: %w", name, npyShape(h.Descr.Shape), ErrEmpty)
		}
		var rerr error
		switch npy.TypeFrom(h.Descr.Type) {
		case reflect.TypeOf(float64(0)):
			a.data = make([]float64, 0) // let npyio size it from the header
			rerr = rd.Read(&a.data)
		case reflect.TypeOf(float32(0)):
			a.data, rerr = widen[float32](rd)
		case reflect.TypeOf(int8(0)):
			a.data, rerr = widen[int8](rd)
		case reflect.TypeOf(int16(0)):
			a.data, rerr = widen[int16](rd)
		case reflect.TypeOf(int32(0)):
			a.data, rerr = widen[int32](rd)
		case reflect.TypeOf(uint8(0)):
			a.data, rerr = widen[uint8](rd)
		case reflect.TypeOf(uint16(0)):
			a.data, rerr = widen[uint16](rd)
		case reflect.TypeOf(uint32(0)):
			a.data, rerr = widen[uint32](rd)
		case reflect.TypeOf(int64(0)):
			a.data, rerr = widenExact[int64](rd, name, h.Descr.Shape, h.Descr.Fortran)
		case reflect.TypeOf(uint64(0)):
			a.data, rerr = widenExact[uint64](rd, name, h.Descr.Shape, h.Descr.Fortran)
		case reflect.TypeOf(false):
			return fmt.Errorf("data: %s: dtype %q is boolean, not a signal; save numbers (x.astype(numpy.float64)): %w",
				name, h.Descr.Type, ErrFormat)
		case reflect.TypeOf(complex64(0)), reflect.TypeOf(complex128(0)):
			return fmt.Errorf("data: %s: dtype %q is complex; save its real part (x.real): %w", name, h.Descr.Type, ErrFormat)
		default:
			return fmt.Errorf("data: %s: dtype %q is not supported; save float or integer data (x.astype(numpy.float64)): %w",
				name, h.Descr.Type, ErrFormat)
		}
		if errors.Is(rerr, ErrFormat) {
			return rerr // a value widenExact refused
		}
		if rerr != nil {
			return fmt.Errorf("data: %s: the array data is truncated or corrupt (shape %s of dtype %q): %w", name, npyShape(h.Descr.Shape), h.Descr.Type, ErrFormat)
		}
		if len(a.data) != n {
			return fmt.Errorf("data: %s: %d values for shape %s: %w", name, len(a.data), npyShape(h.Descr.Shape), ErrFormat)
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
//
// size is the stream's length in bytes (-1: unknown), see readNPYArray.
func readNPY(r io.Reader, name string, opt ReadOptions, size int64) (*Dataset, error) {
	a, err := readNPYArray(r, name, opt.MaxBytes, size)
	if err != nil {
		return nil, err
	}
	sh := a.shape
	if len(sh) == 2 && (sh[0] == 2 || sh[0] == 3) && sh[1] > 3 {
		return nil, fmt.Errorf("data: %s: shape %s holds the signals in rows; a .npy dataset holds them in columns, T×2 (u, y) or T×3 (u, y, y_clean): save the transpose (numpy.save(path, x.T)): %w",
			name, npyShape(sh), ErrLengthMismatch)
	}
	if (len(sh) != 2 && len(sh) != 3) || (sh[len(sh)-1] != 2 && sh[len(sh)-1] != 3) {
		return nil, fmt.Errorf("data: %s: shape %s; a .npy dataset must be T×2 (columns u, y), T×3 (u, y, y_clean) or B×T×2/3; or use an .npz with arrays u and y: %w",
			name, npyShape(sh), ErrLengthMismatch)
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

// npzLayout returns how an .npz signal array of the given shape splits into batches: a
// vector, of shape (T,), (T, 1) or (1, T), is one batch of T samples, as a MATLAB vector
// is; a B×T array with B, T > 1 is B batches of T samples (NumPy's row-major
// convention). ok is false for other ranks.
func npzLayout(shape []int) (nb, T int, ok bool) {
	switch len(shape) {
	case 1:
		return 1, shape[0], true
	case 2:
		if shape[0] == 1 || shape[1] == 1 { // row or column vector
			return 1, shape[0] * shape[1], true
		}
		return shape[0], shape[1], true
	}
	return 0, 0, false
}

// readNPZ reads arrays u and y (names from opt) and optionally y_clean from an .npz
// archive: a vector ((T,), (T, 1) or (1, T)) is one batch, a B×T array B batches (see
// npzLayout). Other arrays are ignored (archives often hold more than one dataset).
func readNPZ(f io.ReaderAt, size int64, name string, opt ReadOptions) (*Dataset, error) {
	// archive/zip directly rather than npyio's npz.Reader: it gives each
	// entry's uncompressed size, which bounds what a corrupt header may claim.
	var zr *zip.Reader
	if err := noPanic(name, func() error {
		var err error
		if zr, err = zip.NewReader(f, size); err != nil {
			return fmt.Errorf("data: %s: not an .npz (zip) archive, or the archive is truncated or corrupt: %w", name, ErrFormat)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	keys := map[string]*zip.File{} // array name -> zip entry
	for _, zf := range zr.File {
		keys[strings.TrimSuffix(zf.Name, ".npy")] = zf
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
			sort.Strings(names)
			hint := ""
			if s, ok := suggest.Closest(col, names); ok {
				hint = fmt.Sprintf(" (did you mean %q?)", s)
			}
			return nil, fmt.Errorf("data: %s: no array %q%s (arrays: %s); save it with numpy.savez(path, u=..., y=...) or choose the names with --u and --y (from Go: ReadOptions.UCol, YCol): %w",
				name, col, hint, strings.Join(names, ","), ErrMissingColumn)
		}
		rc, err := k.Open()
		if err != nil {
			return nil, fmt.Errorf("data: %s: array %q cannot be opened; the archive is corrupt: %w", name, col, ErrFormat)
		}
		defer rc.Close()
		// archive/zip refuses to read past the entry's declared size
		size := int64(-1)
		if k.UncompressedSize64 <= math.MaxInt64 {
			size = int64(k.UncompressedSize64)
		}
		a, err := readNPYArray(rc, name+" array "+col, budget, size)
		if err != nil {
			return nil, err
		}
		if budget >= 0 {
			budget -= int64(len(a.data)) * 8
		}
		if _, _, ok := npzLayout(a.shape); !ok {
			return nil, fmt.Errorf("data: %s: array %q has shape %s; want a vector (one batch) or a 2-D batches × T array: %w",
				name, col, npyShape(a.shape), ErrFormat)
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
	nb, T, _ := npzLayout(u.shape)
	for _, p := range []struct {
		col string
		a   *npyArray
	}{{opt.YCol, y}, {opt.YCleanCol, yc}} {
		if p.a == nil {
			continue
		}
		if nb2, T2, _ := npzLayout(p.a.shape); nb2 != nb || T2 != T {
			return nil, fmt.Errorf("data: %s: array %q has shape %s but %q has %s; u and y must have the same shape: %w",
				name, p.col, npyShape(p.a.shape), opt.UCol, npyShape(u.shape), ErrLengthMismatch)
		}
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

// equalLengths returns the common batch length, or an error naming the format (without
// the "data: " prefix: the writers wrap it).
func equalLengths(d *Dataset, format string) (int, error) {
	T := len(d.Batches[0].U)
	for i, b := range d.Batches {
		if len(b.U) != T {
			return 0, fmt.Errorf("%s stores batches × T arrays: batch %d has %d samples, batch 0 has %d; use CSV for batches of different lengths: %w",
				format, i, len(b.U), T, ErrLengthMismatch)
		}
	}
	return T, nil
}

// matrixLengths is equalLengths for the formats that store each signal as one batches ×
// T matrix (.npz, .mat), whose readers take a vector for one batch: several batches of
// one sample each would make a vector and read back as a single batch, so they are
// refused.
func matrixLengths(d *Dataset, format string) (int, error) {
	T, err := equalLengths(d, format)
	if err != nil {
		return 0, err
	}
	if T == 1 && len(d.Batches) > 1 {
		return 0, fmt.Errorf("%s stores batches × T matrices, and %d batches of one sample each would be a vector, which reads back as one batch of %d samples; use CSV or .npy: %w",
			format, len(d.Batches), len(d.Batches), ErrLengthMismatch)
	}
	return T, nil
}

// WriteNPZ writes d to path as an .npz archive (via npyio) with float64 arrays u, y and,
// when known, y_clean: 1-D for a single batch, batches × T otherwise (all batches must
// then have the same length, of more than one sample). Validated first and written
// atomically.
func WriteNPZ(path string, d *Dataset) error {
	if err := d.Validate(1); err != nil {
		return fmt.Errorf("data: not writing %s: %w", path, err)
	}
	T, err := matrixLengths(d, ".npz")
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
