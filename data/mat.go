package data

// A small reader and writer of MATLAB v5 MAT-files (also written by MATLAB's -v6 and
// the default -v7), restricted to what datasets need: real numeric matrices. Layout
// (MathWorks, "MAT-File Format", 2019): a 128-byte header (text, subsystem offset,
// version 0x0100, endian indicator "IM" written as a uint16), then data elements, each
// an 8-byte tag (type, size) or a 4-byte "small" tag, padded to 8 bytes. A variable is a
// miMATRIX element holding array flags, dimensions, name and the real part; MATLAB -v7
// wraps each variable in a zlib-compressed miCOMPRESSED element.

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/passivenfir/gputrain/internal/suggest"
)

const (
	miINT8       = 1
	miUINT8      = 2
	miINT16      = 3
	miUINT16     = 4
	miINT32      = 5
	miUINT32     = 6
	miSINGLE     = 7
	miDOUBLE     = 9
	miINT64      = 12
	miUINT64     = 13
	miMATRIX     = 14
	miCOMPRESSED = 15

	mxDOUBLE_CLASS = 6
	mxUINT64_CLASS = 15
	matComplexFlag = 0x0800
	matLogicalFlag = 0x0200
)

// matElemSize is the byte size of a numeric mi type, 0 for others.
func matElemSize(t uint32) int {
	switch t {
	case miINT8, miUINT8:
		return 1
	case miINT16, miUINT16:
		return 2
	case miINT32, miUINT32, miSINGLE:
		return 4
	case miDOUBLE, miINT64, miUINT64:
		return 8
	}
	return 0
}

// matReader decodes elements from one stream with a fixed byte order and a byte budget
// for allocations.
type matReader struct {
	name   string
	order  binary.ByteOrder
	budget int64    // bytes that may still be allocated for data; < 0: unlimited
	seen   []string // every variable read so far, described for messages: "u (double 100×1)"
}

// matClassNames names the MATLAB array classes (mxCELL_CLASS = 1 to mxUINT64_CLASS = 15).
var matClassNames = [...]string{1: "cell", 2: "struct", 3: "object", 4: "char", 5: "sparse", 6: "double", 7: "single",
	8: "int8", 9: "uint8", 10: "int16", 11: "uint16", 12: "int32", 13: "uint32", 14: "int64", 15: "uint64"}

// matDescribe describes a variable for the list in messages: its name, class and size.
func matDescribe(name string, class, flags uint32, dims []int) string {
	c := fmt.Sprintf("class %d", class)
	if int(class) < len(matClassNames) && matClassNames[class] != "" {
		c = matClassNames[class]
	}
	switch {
	case flags&matLogicalFlag != 0:
		c = "logical"
	case flags&matComplexFlag != 0:
		c = "complex " + c
	}
	size := make([]string, len(dims))
	for i, d := range dims {
		size[i] = strconv.Itoa(d)
	}
	return fmt.Sprintf("%s (%s %s)", name, c, strings.Join(size, "×"))
}

var errMatTruncated = errors.New("truncated")

func (m *matReader) errf(format string, args ...any) error {
	return fmt.Errorf("data: %s: "+format+": %w", append(append([]any{m.name}, args...), ErrFormat)...)
}

// readN reads exactly n bytes in chunks, so that a corrupt size claim costs no more
// memory than the data actually present.
func readN(r io.Reader, n int64) ([]byte, error) {
	const chunk = 1 << 20
	var out []byte
	for int64(len(out)) < n {
		k := min(n-int64(len(out)), chunk)
		start := len(out)
		out = append(out, make([]byte, k)...)
		if _, err := io.ReadFull(r, out[start:]); err != nil {
			return nil, errMatTruncated
		}
	}
	return out, nil
}

// tag reads an element tag. small reports the 4-byte format, whose data (≤ 4 bytes) is
// returned in data; otherwise size is the byte count that follows.
func (m *matReader) tag(r io.Reader) (typ uint32, size int64, data []byte, err error) {
	var b [8]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		if errors.Is(err, io.EOF) {
			return 0, 0, nil, io.EOF
		}
		return 0, 0, nil, errMatTruncated
	}
	w := m.order.Uint32(b[:4])
	if s := w >> 16; s != 0 { // small data element
		if s > 4 {
			return 0, 0, nil, m.errf("bad small element size %d", s)
		}
		// The data sits in the tag's second word in either byte order.
		return w & 0xffff, int64(s), append([]byte(nil), b[4:4+s]...), nil
	}
	return w, int64(m.order.Uint32(b[4:])), nil, nil
}

// sub reads one subelement of a matrix (tag, data, padding to 8 bytes), charging the
// budget for its data.
func (m *matReader) sub(r io.Reader) (typ uint32, data []byte, err error) {
	typ, size, data, err := m.tag(r)
	if err != nil {
		if errors.Is(err, io.EOF) {
			err = errMatTruncated
		}
		return 0, nil, err
	}
	if data != nil {
		return typ, data, nil
	}
	if m.budget >= 0 {
		if size > m.budget {
			return 0, nil, fmt.Errorf("data: %s: an array of %d bytes exceeds MaxBytes; split the data (from Go: raise ReadOptions.MaxBytes): %w", m.name, size, ErrTooLarge)
		}
		m.budget -= size
	}
	if data, err = readN(r, size); err != nil {
		return 0, nil, err
	}
	if pad := (8 - size%8) % 8; pad > 0 {
		if _, err := io.CopyN(io.Discard, r, pad); err != nil {
			return 0, nil, errMatTruncated
		}
	}
	return typ, data, nil
}

// matVar is a real numeric matrix variable, data in column-major order.
type matVar struct {
	name string
	dims []int
	data []float64
}

// matrix decodes a miMATRIX element's content (r is limited to it). want decides, from
// the name, whether to decode the data; ok is false for skipped variables (other names,
// non-numeric classes).
func (m *matReader) matrix(r io.Reader, want func(string) bool) (v *matVar, ok bool, err error) {
	typ, flags, err := m.sub(r)
	if err != nil {
		return nil, false, err
	}
	if typ != miUINT32 || len(flags) != 8 {
		return nil, false, m.errf("array flags: type %d, %d bytes", typ, len(flags))
	}
	fw := m.order.Uint32(flags)
	class := fw & 0xff
	typ, db, err := m.sub(r)
	if err != nil {
		return nil, false, err
	}
	if typ != miINT32 || len(db)%4 != 0 || len(db) < 8 {
		return nil, false, m.errf("dimensions: type %d, %d bytes", typ, len(db))
	}
	dims := make([]int, len(db)/4)
	n := 1
	for i := range dims {
		d := int32(m.order.Uint32(db[4*i:]))
		if d < 0 || (d > 0 && n > math.MaxInt32/int(d)) {
			return nil, false, m.errf("bad dimensions")
		}
		dims[i] = int(d)
		n *= int(d)
	}
	typ, nb, err := m.sub(r)
	if err != nil {
		return nil, false, err
	}
	if typ != miINT8 && typ != miUINT8 && typ != 16 /* miUTF8 */ {
		return nil, false, m.errf("array name: type %d", typ)
	}
	name := string(nb)
	m.seen = append(m.seen, matDescribe(name, class, fw, dims))
	if class < mxDOUBLE_CLASS || class > mxUINT64_CLASS || !want(name) {
		return nil, false, nil // cell, struct, char, sparse, ... or not asked for
	}
	if fw&matComplexFlag != 0 {
		return nil, false, fmt.Errorf("data: %s: variable %q is complex; save its real part: %w", m.name, name, ErrFormat)
	}
	if fw&matLogicalFlag != 0 { // as NumPy bool arrays: a mask, not a signal
		return nil, false, fmt.Errorf("data: %s: variable %q is logical, not a signal; save numbers (%s = double(%s)): %w", m.name, name, name, name, ErrFormat)
	}
	typ, raw, err := m.sub(r)
	if err != nil {
		return nil, false, err
	}
	es := matElemSize(typ)
	if es == 0 || len(raw) != n*es {
		return nil, false, m.errf("variable %q: real part of type %d, %d bytes for %v elements", name, typ, len(raw), dims)
	}
	v = &matVar{name: name, dims: dims, data: make([]float64, n)}
	o := m.order
	for i := range v.data {
		b := raw[i*es:]
		var x float64
		switch typ {
		case miDOUBLE:
			x = math.Float64frombits(o.Uint64(b))
		case miSINGLE:
			x = float64(math.Float32frombits(o.Uint32(b)))
		case miINT8:
			x = float64(int8(b[0]))
		case miUINT8:
			x = float64(b[0])
		case miINT16:
			x = float64(int16(o.Uint16(b)))
		case miUINT16:
			x = float64(o.Uint16(b))
		case miINT32:
			x = float64(int32(o.Uint32(b)))
		case miUINT32:
			x = float64(o.Uint32(b))
		case miINT64:
			k := int64(o.Uint64(b))
			if k > maxExactInt || k < -maxExactInt {
				return nil, false, errInexactInt(m.name, name+matIndex(i, dims), strconv.FormatInt(k, 10), matIntHint(name))
			}
			x = float64(k)
		case miUINT64:
			k := o.Uint64(b)
			if k > maxExactInt {
				return nil, false, errInexactInt(m.name, name+matIndex(i, dims), strconv.FormatUint(k, 10), matIntHint(name))
			}
			x = float64(k)
		}
		v.data[i] = x
	}
	return v, true, nil
}

// matIndex formats MATLAB's 1-based subscripts of the i-th element (column-major) of an
// array with the given dimensions (all > 0): "(4,1)".
func matIndex(i int, dims []int) string {
	sub := make([]string, len(dims))
	for k, d := range dims {
		sub[k] = strconv.Itoa(i%d + 1)
		i /= d
	}
	return "(" + strings.Join(sub, ",") + ")"
}

func matIntHint(name string) string {
	return fmt.Sprintf("convert the variable to double in MATLAB (%s = double(%s)) if the rounding is acceptable", name, name)
}

// readMATVars returns the wanted real numeric variables of a v5 MAT-file.
func readMATVars(r io.Reader, name string, maxBytes int64, want func(string) bool) (map[string]*matVar, error) {
	vars, _, err := readMATVarList(r, name, maxBytes, want)
	return vars, err
}

// readMATVarList returns the wanted real numeric variables of a v5 MAT-file and a
// description of every variable in it, for messages.
func readMATVarList(r io.Reader, name string, maxBytes int64, want func(string) bool) (map[string]*matVar, []string, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var hdr [128]byte
	if _, err := io.ReadFull(br, hdr[:]); err != nil {
		return nil, nil, fmt.Errorf("data: %s: shorter than a MAT-file header: %w", name, ErrFormat)
	}
	m := &matReader{name: name, budget: maxBytes}
	switch string(hdr[126:128]) {
	case "IM":
		m.order = binary.LittleEndian
	case "MI":
		m.order = binary.BigEndian
	default:
		if bytes.HasPrefix(hdr[:], []byte("MATLAB 7.3")) {
			return nil, nil, fmt.Errorf("data: %s: MATLAB v7.3 (HDF5) files are not supported; re-save with save(..., '-v7'): %w", name, ErrFormat)
		}
		return nil, nil, fmt.Errorf("data: %s: not a MATLAB v5 MAT-file (no endian indicator); re-save with save(..., '-v7'): %w", name, ErrFormat)
	}
	if v := m.order.Uint16(hdr[124:]); v != 0x0100 {
		if v == 0x0200 {
			return nil, nil, fmt.Errorf("data: %s: MATLAB v7.3 (HDF5) files are not supported; re-save with save(..., '-v7'): %w", name, ErrFormat)
		}
		return nil, nil, fmt.Errorf("data: %s: MAT-file version 0x%04x, want 0x0100: %w", name, v, ErrFormat)
	}
	vars := map[string]*matVar{}
	trunc := func(err error) error {
		if errors.Is(err, errMatTruncated) {
			return fmt.Errorf("data: %s: truncated or corrupt MAT-file: %w", name, ErrFormat)
		}
		return err
	}
	for {
		typ, size, small, err := m.tag(br)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, trunc(err)
		}
		if small != nil {
			continue
		}
		lr := &io.LimitedReader{R: br, N: size}
		var v *matVar
		var ok bool
		switch typ {
		case miMATRIX:
			v, ok, err = m.matrix(lr, want)
		case miCOMPRESSED:
			zr, zerr := zlib.NewReader(lr)
			if zerr != nil {
				return nil, nil, fmt.Errorf("data: %s: bad compressed element (%v): %w", name, zerr, ErrFormat)
			}
			var it uint32
			var isz int64
			it, isz, _, err = m.tag(zr)
			if err == nil && it == miMATRIX {
				v, ok, err = m.matrix(&io.LimitedReader{R: zr, N: isz}, want)
			}
			if errors.Is(err, io.EOF) {
				err = errMatTruncated
			}
			if err != nil && !errors.Is(err, errMatTruncated) && !errors.Is(err, ErrFormat) && !errors.Is(err, ErrTooLarge) {
				err = fmt.Errorf("data: %s: bad compressed element (%v): %w", name, err, ErrFormat)
			}
		}
		if err != nil {
			return nil, nil, trunc(err)
		}
		if ok {
			if _, dup := vars[v.name]; dup {
				return nil, nil, fmt.Errorf("data: %s: variable %q appears twice: %w", name, v.name, ErrFormat)
			}
			vars[v.name] = v
		}
		// Skip what was not consumed, then the padding of uncompressed elements.
		if _, err := io.Copy(io.Discard, lr); err != nil {
			return nil, nil, fmt.Errorf("data: %s: %v: %w", name, err, ErrFormat)
		}
		if lr.N > 0 {
			return nil, nil, fmt.Errorf("data: %s: truncated or corrupt MAT-file: %w", name, ErrFormat)
		}
		if typ != miCOMPRESSED {
			if pad := (8 - size%8) % 8; pad > 0 {
				if _, err := io.CopyN(io.Discard, br, pad); err != nil && !errors.Is(err, io.EOF) {
					return nil, nil, fmt.Errorf("data: %s: %v: %w", name, err, ErrFormat)
				}
			}
		}
	}
	return vars, m.seen, nil
}

// matList lists the described variables of a MAT-file for a message.
func matList(seen []string) string {
	if len(seen) == 0 {
		return "no variables"
	}
	return "the variables " + strings.Join(seen, ", ")
}

// matDidYouMean suggests the variable nearest to col, if one is near.
func matDidYouMean(col string, seen []string) string {
	var names []string
	for _, s := range seen {
		if n := s[:strings.LastIndex(s, " (")]; n != col { // col itself is there but not numeric
			names = append(names, n)
		}
	}
	if s, ok := suggest.Closest(col, names); ok {
		return fmt.Sprintf(" (did you mean %q?)", s)
	}
	return ""
}

// readMAT reads variables u, y (names from opt) and optionally y_clean: a vector is one
// batch, a T×B matrix one batch per column. Other variables are ignored.
func readMAT(r io.Reader, name string, opt ReadOptions) (*Dataset, error) {
	want := func(s string) bool { return s == opt.UCol || s == opt.YCol || s == opt.YCleanCol }
	vars, seen, err := readMATVarList(r, name, opt.MaxBytes, want)
	if err != nil {
		return nil, err
	}
	shape := func(v *matVar) (T, B int, err error) {
		d := v.dims
		for _, x := range d[2:] {
			if x != 1 {
				return 0, 0, fmt.Errorf("data: %s: variable %q has dimensions %v; want a vector or a T×B matrix: %w", name, v.name, d, ErrFormat)
			}
		}
		if len(v.data) == 0 {
			return 0, 0, fmt.Errorf("data: %s: variable %q is empty: %w", name, v.name, ErrEmpty)
		}
		if d[0] == 1 || d[1] == 1 { // row or column vector
			return len(v.data), 1, nil
		}
		return d[0], d[1], nil
	}
	get := func(col string, required bool) (*matVar, error) {
		v := vars[col]
		if v == nil && required {
			return nil, fmt.Errorf("data: %s: no real numeric variable %q%s; the file holds %s; choose the variable names with --u and --y (from Go: ReadOptions.UCol, YCol): %w",
				name, col, matDidYouMean(col, seen), matList(seen), ErrMissingColumn)
		}
		if v != nil {
			if err := checkFinite(name, "variable "+col, v.data); err != nil {
				return nil, err
			}
		}
		return v, nil
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
	T, B, err := shape(u)
	if err != nil {
		return nil, err
	}
	for _, v := range []*matVar{y, yc} {
		if v == nil {
			continue
		}
		t2, b2, err := shape(v)
		if err != nil {
			return nil, err
		}
		if t2 != T || b2 != B {
			return nil, fmt.Errorf("data: %s: variable %q is %v but %q is %v; u and y must have the same size: %w",
				name, v.name, v.dims, u.name, u.dims, ErrLengthMismatch)
		}
	}
	d := &Dataset{Name: name, Batches: make([]Batch, B)}
	for b := range d.Batches {
		d.Batches[b] = Batch{U: u.data[b*T : (b+1)*T : (b+1)*T], Y: y.data[b*T : (b+1)*T : (b+1)*T]}
		if yc != nil {
			d.Batches[b].YClean = yc.data[b*T : (b+1)*T : (b+1)*T]
		}
	}
	return d, nil
}

// writeMATVars writes a v5 MAT-file of real double matrices (data column-major),
// each variable zlib-compressed (as MATLAB's default -v7) when compress is set.
func writeMATVars(w io.Writer, order binary.ByteOrder, compress bool, vars []matVar) error {
	var hdr [128]byte
	copy(hdr[:116], fmt.Sprintf("%-116s", "MATLAB 5.0 MAT-file, Platform: Go, Created by: github.com/passivenfir/gputrain/data"))
	for i := 116; i < 124; i++ {
		hdr[i] = ' '
	}
	order.PutUint16(hdr[124:], 0x0100)
	order.PutUint16(hdr[126:], 'M'<<8|'I') // reads back as "IM" in little-endian files
	if _, err := w.Write(hdr[:]); err != nil {
		return err
	}
	for _, v := range vars {
		var el bytes.Buffer
		put32 := func(x uint32) { binary.Write(&el, order, x) }
		pad := func() {
			for el.Len()%8 != 0 {
				el.WriteByte(0)
			}
		}
		var body bytes.Buffer
		el.Reset()
		put32(miUINT32)
		put32(8)
		put32(mxDOUBLE_CLASS)
		put32(0)
		put32(miINT32)
		put32(uint32(4 * len(v.dims)))
		for _, d := range v.dims {
			put32(uint32(d))
		}
		pad()
		if len(v.name) <= 4 { // small data element
			put32(uint32(len(v.name))<<16 | miINT8)
			var nb [4]byte
			copy(nb[:], v.name)
			el.Write(nb[:])
		} else {
			put32(miINT8)
			put32(uint32(len(v.name)))
			el.WriteString(v.name)
			pad()
		}
		put32(miDOUBLE)
		put32(uint32(8 * len(v.data)))
		for _, x := range v.data {
			binary.Write(&el, order, math.Float64bits(x))
		}
		content := el.Bytes()
		binary.Write(&body, order, uint32(miMATRIX))
		binary.Write(&body, order, uint32(len(content)))
		body.Write(content)
		out := body.Bytes()
		if compress {
			var z bytes.Buffer
			zw := zlib.NewWriter(&z)
			zw.Write(out)
			if err := zw.Close(); err != nil {
				return err
			}
			var c bytes.Buffer
			binary.Write(&c, order, uint32(miCOMPRESSED))
			binary.Write(&c, order, uint32(z.Len()))
			c.Write(z.Bytes())
			out = c.Bytes()
		}
		if _, err := w.Write(out); err != nil {
			return err
		}
	}
	return nil
}

// datasetMATVars lays a dataset out as T×B matrices u, y and, when known, y_clean.
func datasetMATVars(d *Dataset) ([]matVar, error) {
	T, err := matrixLengths(d, ".mat")
	if err != nil {
		return nil, err
	}
	col := func(name string, f func(Batch) []float64) matVar {
		v := matVar{name: name, dims: []int{T, len(d.Batches)}, data: make([]float64, 0, T*len(d.Batches))}
		for _, b := range d.Batches {
			v.data = append(v.data, f(b)...)
		}
		return v
	}
	vars := []matVar{col("u", func(b Batch) []float64 { return b.U }), col("y", func(b Batch) []float64 { return b.Y })}
	if d.Batches[0].YClean != nil {
		vars = append(vars, col("y_clean", func(b Batch) []float64 { return b.YClean }))
	}
	return vars, nil
}

// WriteMAT writes d to path as a MATLAB v5 MAT-file (readable by MATLAB's load and
// scipy.io.loadmat) with compressed double T×B matrices u, y and, when known, y_clean,
// one batch per column (all batches must have the same length, of more than one sample
// when there are several). Validated first and written atomically.
func WriteMAT(path string, d *Dataset) error {
	if err := d.Validate(1); err != nil {
		return fmt.Errorf("data: not writing %s: %w", path, err)
	}
	vars, err := datasetMATVars(d)
	if err != nil {
		return fmt.Errorf("data: not writing %s: %w", path, err)
	}
	return writeAtomic(path, func(w io.Writer) error { return writeMATVars(w, binary.LittleEndian, true, vars) })
}
