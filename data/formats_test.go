package data

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/sbinet/npyio/npy"
	"github.com/sbinet/npyio/npz"
)

// npyDict is the header dict of a little-endian float64 array.
func npyDict(shape string, fortran bool) string {
	f := "False"
	if fortran {
		f = "True"
	}
	return fmt.Sprintf("{'descr': '<f8', 'fortran_order': %s, 'shape': %s, }", f, shape)
}

// colMajor returns the row-major r×c data x in column-major order.
func colMajor(x []float64, r, c int) []float64 {
	out := make([]float64, 0, len(x))
	for j := 0; j < c; j++ {
		for i := 0; i < r; i++ {
			out = append(out, x[i*c+j])
		}
	}
	return out
}

// TestReadNPZShapes: a vector, of shape (T,), (T, 1) or (1, T), is one batch of T samples,
// as a MATLAB vector is; a B×T array with B, T > 1 is B batches.
func TestReadNPZShapes(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	randn := func(n int) []float64 {
		x := make([]float64, n)
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		return x
	}
	type arr struct {
		shape   string
		r, c    int // the array as an r×c matrix (row-major values)
		fortran bool
	}
	for _, c := range []struct {
		name       string
		u, y       arr
		nb, T      int
		wantErr    error
		errMention string
	}{
		{"1-D", arr{"(6,)", 1, 6, false}, arr{"(6,)", 1, 6, false}, 1, 6, nil, ""},
		{"column (T,1)", arr{"(6, 1)", 6, 1, false}, arr{"(6, 1)", 6, 1, false}, 1, 6, nil, ""},
		{"column Fortran", arr{"(6, 1)", 6, 1, true}, arr{"(6, 1)", 6, 1, true}, 1, 6, nil, ""},
		{"row (1,T)", arr{"(1, 6)", 1, 6, false}, arr{"(1, 6)", 1, 6, false}, 1, 6, nil, ""},
		{"one sample (1,1)", arr{"(1, 1)", 1, 1, false}, arr{"(1,)", 1, 1, false}, 1, 1, nil, ""},
		{"column u, 1-D y", arr{"(6, 1)", 6, 1, false}, arr{"(6,)", 1, 6, false}, 1, 6, nil, ""},
		{"row u, column y", arr{"(1, 6)", 1, 6, false}, arr{"(6, 1)", 6, 1, true}, 1, 6, nil, ""},
		{"B×T", arr{"(2, 3)", 2, 3, false}, arr{"(2, 3)", 2, 3, false}, 2, 3, nil, ""},
		{"B×T Fortran", arr{"(3, 2)", 3, 2, true}, arr{"(3, 2)", 3, 2, false}, 3, 2, nil, ""},
		{"B×T vs T×B", arr{"(2, 3)", 2, 3, false}, arr{"(3, 2)", 3, 2, false}, 0, 0, ErrLengthMismatch, "same shape"},
		{"B×T vs vector", arr{"(2, 3)", 2, 3, false}, arr{"(6, 1)", 6, 1, false}, 0, 0, ErrLengthMismatch, "same shape"},
		{"3-D", arr{"(6, 1, 1)", 6, 1, false}, arr{"(6,)", 1, 6, false}, 0, 0, ErrFormat, "(6, 1, 1)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			uv, yv := randn(c.u.r*c.u.c), randn(c.y.r*c.y.c)
			entry := func(a arr, v []float64) []byte {
				if a.fortran {
					v = colMajor(v, a.r, a.c)
				}
				return writeNPYRaw(npyDict(a.shape, a.fortran), f64bytes(v...))
			}
			p := filepath.Join(t.TempDir(), "s.npz")
			os.WriteFile(p, zipOf(t, map[string][]byte{"u.npy": entry(c.u, uv), "y.npy": entry(c.y, yv)}), 0o644)
			d, err := ReadFile(p, ReadOptions{})
			if c.wantErr != nil {
				if !errors.Is(err, c.wantErr) || d != nil || !strings.Contains(err.Error(), c.errMention) {
					t.Fatalf("err = %v, want %v mentioning %q", err, c.wantErr, c.errMention)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(d.Batches) != c.nb {
				t.Fatalf("%d batches, want %d", len(d.Batches), c.nb)
			}
			for b, bt := range d.Batches {
				if bt.Len() != c.T {
					t.Fatalf("batch %d: %d samples, want %d", b, bt.Len(), c.T)
				}
				for k := range bt.U {
					if bt.U[k] != uv[b*c.T+k] || bt.Y[k] != yv[b*c.T+k] {
						t.Fatalf("batch %d sample %d: (%v, %v), want (%v, %v)", b, k, bt.U[k], bt.Y[k], uv[b*c.T+k], yv[b*c.T+k])
					}
				}
			}
		})
	}
}

// TestWriteOneSampleBatches: .npz and .mat store a single batch as a vector, so several
// batches of one sample each cannot be told from one batch; their writers refuse them,
// while .csv and .npy (B×1×2) keep them.
func TestWriteOneSampleBatches(t *testing.T) {
	d := &Dataset{Batches: []Batch{{U: []float64{1}, Y: []float64{2}}, {U: []float64{3}, Y: []float64{4}}, {U: []float64{5}, Y: []float64{6}}}}
	single := &Dataset{Batches: []Batch{{U: []float64{1}, Y: []float64{2}}}}
	for ext, w := range map[string]func(string, *Dataset) error{".csv": WriteCSV, ".npy": WriteNPY, ".npz": WriteNPZ, ".mat": WriteMAT} {
		t.Run(ext, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "d"+ext)
			err := w(p, d)
			if ext == ".npz" || ext == ".mat" {
				if !errors.Is(err, ErrLengthMismatch) || !strings.Contains(err.Error(), "one sample") {
					t.Fatalf("err = %v, want ErrLengthMismatch", err)
				}
				if ents, _ := os.ReadDir(dir); len(ents) != 0 {
					t.Fatalf("files written: %v", ents)
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				got, err := ReadFile(p, ReadOptions{})
				if err != nil {
					t.Fatal(err)
				}
				sameDataset(t, d, got)
			}
			// One batch of one sample is a vector either way.
			if err := w(p, single); err != nil {
				t.Fatal(err)
			}
			got, err := ReadFile(p, ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			sameDataset(t, single, got)
		})
	}
}

// runtimeText lists what a message must not show: the Go runtime's words.
var runtimeText = []string{"runtime error", "goroutine", "index out of range", "slice bounds", "panic", "nil pointer"}

// checkReadError reports a read error that carries no sentinel, comes with data, does not
// name the file or shows Go runtime text.
func checkReadError(t *testing.T, what, path string, d *Dataset, err error) {
	t.Helper()
	sentinels := []error{ErrEmpty, ErrMissingColumn, ErrNotFinite, ErrLengthMismatch, ErrTooLarge, ErrFormat}
	known := false
	for _, s := range sentinels {
		known = known || errors.Is(err, s)
	}
	if !known || d != nil {
		t.Fatalf("%s: error without a sentinel (or with data): %v", what, err)
	}
	msg := err.Error()
	for _, s := range runtimeText {
		if strings.Contains(msg, s) {
			t.Fatalf("%s: message shows Go runtime text %q: %s", what, s, msg)
		}
	}
	if !strings.Contains(msg, path) {
		t.Fatalf("%s: message does not name the file: %s", what, msg)
	}
}

// TestNPYCorrupt: every truncation of a valid .npy or .npz is ErrFormat, and seeded
// random corruption of the bytes (of the file, or of an array inside a valid zip) is
// refused with a sentinel or read; messages never show the decoder's panic.
func TestNPYCorrupt(t *testing.T) {
	good, err := GenerateMSD(MSDConfig{Batches: 2, Seed: 4, Samples: 6})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	npyGood, npzGood := filepath.Join(dir, "good.npy"), filepath.Join(dir, "good.npz")
	if err := WriteNPY(npyGood, good); err != nil {
		t.Fatal(err)
	}
	if err := WriteNPZ(npzGood, good); err != nil {
		t.Fatal(err)
	}
	npyBytes, _ := os.ReadFile(npyGood)
	npzBytes, _ := os.ReadFile(npzGood)
	uEntry := writeNPYRaw(npyDict("(2, 6)", false), f64bytes(randFloats(12, 1)...))
	yEntry := writeNPYRaw(npyDict("(2, 6)", false), f64bytes(randFloats(12, 2)...))
	opt := ReadOptions{MaxBytes: 1 << 16}

	t.Run("truncated", func(t *testing.T) {
		for _, f := range []struct {
			ext  string
			data []byte
		}{{".npy", npyBytes}, {".npz", npzBytes}} {
			p := filepath.Join(dir, "trunc"+f.ext)
			for n := 0; n < len(f.data); n++ {
				os.WriteFile(p, f.data[:n], 0o644)
				d, err := ReadFile(p, opt)
				what := fmt.Sprintf("%s cut to %d of %d bytes", f.ext, n, len(f.data))
				if !errors.Is(err, ErrFormat) {
					t.Fatalf("%s: err = %v, want ErrFormat", what, err)
				}
				checkReadError(t, what, p, d, err)
			}
		}
		// An array inside a valid archive cut anywhere.
		p := filepath.Join(dir, "member.npz")
		for n := 0; n < len(yEntry); n++ {
			os.WriteFile(p, zipOf(t, map[string][]byte{"u.npy": uEntry, "y.npy": yEntry[:n]}), 0o644)
			d, err := ReadFile(p, opt)
			what := fmt.Sprintf("y.npy cut to %d bytes", n)
			if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "array y") {
				t.Fatalf("%s: err = %v, want ErrFormat naming array y", what, err)
			}
			checkReadError(t, what, p, d, err)
		}
	})

	t.Run("random corruption", func(t *testing.T) {
		rng := rand.New(rand.NewPCG(11, 13))
		corrupt := func(b []byte, hdrOnly bool) []byte {
			c := append([]byte(nil), b...)
			for k := 1 + rng.IntN(3); k > 0; k-- {
				i := rng.IntN(len(c))
				if hdrOnly { // the magic, version, length and header dict
					i = rng.IntN(min(len(c), 128))
				}
				c[i] = byte(rng.IntN(256))
			}
			return c
		}
		for i := 0; i < 3000; i++ {
			var p string
			var data []byte
			switch i % 3 {
			case 0:
				p, data = filepath.Join(dir, "c.npy"), corrupt(npyBytes, rng.IntN(2) == 0)
			case 1:
				p, data = filepath.Join(dir, "c.npz"), corrupt(npzBytes, false)
			case 2:
				p = filepath.Join(dir, "m.npz")
				data = zipOf(t, map[string][]byte{"u.npy": uEntry, "y.npy": corrupt(yEntry, true)})
			}
			os.WriteFile(p, data, 0o644)
			d, err := ReadFile(p, opt)
			if err != nil {
				checkReadError(t, fmt.Sprintf("corruption %d", i), p, d, err)
			} else if err := d.Validate(1); err != nil {
				t.Fatalf("corruption %d: accepted data does not validate: %v", i, err)
			}
		}
	})

	t.Run("huge header length", func(t *testing.T) {
		var b bytes.Buffer
		b.WriteString("\x93NUMPY\x02\x00")
		binary.Write(&b, binary.LittleEndian, uint32(1<<24))
		b.WriteString("{'descr': '<f8', 'fortran_order': False, 'shape': (1, 2), }\n")
		p := filepath.Join(dir, "h.npy")
		os.WriteFile(p, b.Bytes(), 0o644)
		d, err := ReadFile(p, ReadOptions{})
		if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "header") {
			t.Fatalf("err = %v, want ErrFormat about the header", err)
		}
		checkReadError(t, "huge header", p, d, err)
	})

	// A header that declares far more values than the file holds (within
	// MaxBytes) is refused before the decoder allocates for them.
	t.Run("declared shape beyond the data", func(t *testing.T) {
		claim := writeNPYRaw(npyDict("(100000000, 2)", false), f64bytes(1, 2, 3, 4))
		files := map[string][]byte{
			"big.npy": claim,
			"big.npz": zipOf(t, map[string][]byte{"u.npy": claim, "y.npy": claim}),
		}
		for file, b := range files {
			p := filepath.Join(dir, file)
			os.WriteFile(p, b, 0o644)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			d, err := ReadFile(p, ReadOptions{})
			runtime.ReadMemStats(&after)
			if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "holds only") {
				t.Errorf("%s: err = %v, want ErrFormat: the data holds only so many bytes", file, err)
			}
			checkReadError(t, file, p, d, err)
			if mb := (after.TotalAlloc - before.TotalAlloc) >> 20; mb > 64 {
				t.Errorf("%s: %d MiB allocated for a %d-byte file", file, mb, len(b))
			}
		}
	})
}

func randFloats(n int, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 3))
	x := make([]float64, n)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	return x
}

type npyInt interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~float32 | ~float64
}

// intFiles writes u and y (same length T) with npyio as a T×2 .npy and as .npz archives
// of 1-D and (T, 1) arrays, returning the paths.
func intFiles[T npyInt](t *testing.T, dir string, u, y []T) []string {
	t.Helper()
	cols := make([][2]T, len(u))
	col1u, col1y := make([][1]T, len(u)), make([][1]T, len(u))
	for i := range u {
		cols[i] = [2]T{u[i], y[i]}
		col1u[i], col1y[i] = [1]T{u[i]}, [1]T{y[i]}
	}
	var paths []string
	p := filepath.Join(dir, "a.npy")
	var b bytes.Buffer
	if err := npy.Write(&b, cols); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(p, b.Bytes(), 0o644)
	paths = append(paths, p)
	for name, pair := range map[string][2]any{"vec.npz": {u, y}, "col.npz": {col1u, col1y}} {
		var z bytes.Buffer
		zw := npz.NewWriter(&z)
		if err := zw.Write("u.npy", pair[0]); err != nil {
			t.Fatal(err)
		}
		if err := zw.Write("y.npy", pair[1]); err != nil {
			t.Fatal(err)
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		os.WriteFile(p, z.Bytes(), 0o644)
		paths = append(paths, p)
	}
	return paths
}

// checkIntRead reads every file and compares with float64(u), float64(y).
func checkIntRead[T npyInt](t *testing.T, paths []string, u, y []T) {
	t.Helper()
	for _, p := range paths {
		d, err := ReadFile(p, ReadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", filepath.Base(p), err)
		}
		if len(d.Batches) != 1 || d.Batches[0].Len() != len(u) {
			t.Fatalf("%s: %d batches, want 1 of %d samples", filepath.Base(p), len(d.Batches), len(u))
		}
		for i := range u {
			if b := d.Batches[0]; b.U[i] != float64(u[i]) || b.Y[i] != float64(y[i]) {
				t.Fatalf("%s sample %d: (%v, %v), want (%v, %v)", filepath.Base(p), i, b.U[i], b.Y[i], u[i], y[i])
			}
		}
	}
}

// intCase draws T seeded random values of the type, spanning its whole range, plus the
// extreme values (limited to ±2^53 for 64-bit types).
func intCase[T npyInt](t *testing.T, lo, hi float64) {
	rng := rand.New(rand.NewPCG(5, uint64(hi)))
	const n = 20
	u, y := make([]T, n), make([]T, n)
	for i := range u {
		u[i] = T(lo + math.Floor(rng.Float64()*(hi-lo)))
		y[i] = T(lo + math.Floor(rng.Float64()*(hi-lo)))
	}
	u[0], y[0], u[1] = T(lo), T(hi), T(hi)
	checkIntRead(t, intFiles(t, t.TempDir(), u, y), u, y)
}

// TestNPYIntegerDtypes: .npy and .npz accept every integer dtype, as .mat does, and
// convert to float64 exactly; 64-bit values beyond ±2^53 are refused, not rounded; bool
// and complex arrays are refused.
func TestNPYIntegerDtypes(t *testing.T) {
	t.Run("int8", func(t *testing.T) { intCase[int8](t, math.MinInt8, math.MaxInt8) })
	t.Run("int16", func(t *testing.T) { intCase[int16](t, math.MinInt16, math.MaxInt16) })
	t.Run("int32", func(t *testing.T) { intCase[int32](t, math.MinInt32, math.MaxInt32) })
	t.Run("int64", func(t *testing.T) { intCase[int64](t, -maxExactInt, maxExactInt) })
	t.Run("uint8", func(t *testing.T) { intCase[uint8](t, 0, math.MaxUint8) })
	t.Run("uint16", func(t *testing.T) { intCase[uint16](t, 0, math.MaxUint16) })
	t.Run("uint32", func(t *testing.T) { intCase[uint32](t, 0, math.MaxUint32) })
	t.Run("uint64", func(t *testing.T) { intCase[uint64](t, 0, maxExactInt) })
	t.Run("float32", func(t *testing.T) { intCase[float32](t, -1e6, 1e6) })
	t.Run("float64", func(t *testing.T) { intCase[float64](t, -1e6, 1e6) })

	t.Run("big-endian and Fortran", func(t *testing.T) {
		dir := t.TempDir()
		var be bytes.Buffer
		binary.Write(&be, binary.BigEndian, []int32{-70000, 1, 2, 3})
		var fo bytes.Buffer
		binary.Write(&fo, binary.LittleEndian, []uint16{1, 2, 3, 10, 20, 30}) // column-major (3, 2)
		for _, c := range []struct {
			file, dict string
			data       []byte
			u, y       []float64
		}{
			{"be.npy", "{'descr': '>i4', 'fortran_order': False, 'shape': (2, 2), }", be.Bytes(), []float64{-70000, 2}, []float64{1, 3}},
			{"fo.npy", "{'descr': '<u2', 'fortran_order': True, 'shape': (3, 2), }", fo.Bytes(), []float64{1, 2, 3}, []float64{10, 20, 30}},
		} {
			p := filepath.Join(dir, c.file)
			os.WriteFile(p, writeNPYRaw(c.dict, c.data), 0o644)
			d, err := ReadFile(p, ReadOptions{})
			if err != nil {
				t.Fatalf("%s: %v", c.file, err)
			}
			sameDataset(t, &Dataset{Batches: []Batch{{U: c.u, Y: c.y}}}, d)
		}
	})

	t.Run("refused", func(t *testing.T) {
		dir := t.TempDir()
		for _, c := range []struct {
			name    string
			u, y    any // written with npyio; u is also the T×2 .npy when cols is set
			mention []string
		}{
			{"int64 2^53+1", []int64{1, 2, maxExactInt + 1}, []int64{0, 0, 0}, []string{"array u", "element [2] = 9007199254740993", "2^53"}},
			{"int64 -2^53-1", []int64{1, 2, 3}, []int64{0, -maxExactInt - 1, 0}, []string{"array y", "element [1] = -9007199254740993"}},
			{"int64 min", []int64{math.MinInt64}, []int64{0}, []string{"-9223372036854775808"}},
			{"uint64 2^53+1", []uint64{maxExactInt + 1, 0}, []uint64{0, 0}, []string{"9007199254740993"}},
			{"uint64 max", []uint64{0, 0}, []uint64{0, math.MaxUint64}, []string{"18446744073709551615"}},
			{"2-D index", [][1]int64{{0}, {0}, {-maxExactInt - 2}}, [][1]int64{{0}, {0}, {0}}, []string{"element [2, 0] = -9007199254740994"}},
			{"bool", []bool{true, false}, []bool{false, true}, []string{"boolean"}},
			{"complex", []complex128{1, 2}, []complex128{1, 2}, []string{"complex", "real part"}},
		} {
			t.Run(c.name, func(t *testing.T) {
				var z bytes.Buffer
				zw := npz.NewWriter(&z)
				zw.Write("u.npy", c.u)
				zw.Write("y.npy", c.y)
				if err := zw.Close(); err != nil {
					t.Fatal(err)
				}
				p := filepath.Join(dir, "r.npz")
				os.WriteFile(p, z.Bytes(), 0o644)
				d, err := ReadFile(p, ReadOptions{})
				if !errors.Is(err, ErrFormat) {
					t.Fatalf("err = %v, want ErrFormat", err)
				}
				checkReadError(t, c.name, p, d, err)
				for _, m := range c.mention {
					if !strings.Contains(err.Error(), m) {
						t.Errorf("message %q does not mention %q", err, m)
					}
				}
			})
		}
		// The same rule in a T×2 .npy, whose index names the column.
		var b bytes.Buffer
		npy.Write(&b, [][2]uint64{{1, 2}, {3, maxExactInt + 5}})
		p := filepath.Join(dir, "r.npy")
		os.WriteFile(p, b.Bytes(), 0o644)
		d, err := ReadFile(p, ReadOptions{})
		if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "element [1, 1] = 9007199254740997") {
			t.Fatalf("err = %v, want ErrFormat naming element [1, 1]", err)
		}
		checkReadError(t, "r.npy", p, d, err)
	})
}

// matIntVar builds an uncompressed miMATRIX element of the given class, storage type and
// raw data (already in order's byte order); flags are added to the class.
func matIntVar(order binary.ByteOrder, name string, class, flags uint32, dims []int, miType uint32, raw []byte) []byte {
	var el bytes.Buffer
	put := func(x uint32) { binary.Write(&el, order, x) }
	pad := func() {
		for el.Len()%8 != 0 {
			el.WriteByte(0)
		}
	}
	put(miUINT32)
	put(8)
	put(class | flags)
	put(0)
	put(miINT32)
	put(uint32(4 * len(dims)))
	for _, d := range dims {
		put(uint32(d))
	}
	pad()
	put(miINT8)
	put(uint32(len(name)))
	el.WriteString(name)
	pad()
	put(miType)
	put(uint32(len(raw)))
	el.Write(raw)
	pad()
	var out bytes.Buffer
	binary.Write(&out, order, uint32(miMATRIX))
	binary.Write(&out, order, uint32(el.Len()))
	out.Write(el.Bytes())
	return out.Bytes()
}

// TestMATIntegerClasses: integer MATLAB classes are read exactly, 64-bit values beyond
// ±2^53 are refused as in .npy, and logical arrays are refused as NumPy bool arrays are.
func TestMATIntegerClasses(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 21))
	dir := t.TempDir()
	for _, order := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
		for _, c := range []struct {
			class, miType uint32
			lo, hi        float64
			enc           func(float64) any
		}{
			{8, miINT8, math.MinInt8, math.MaxInt8, func(x float64) any { return int8(x) }},
			{9, miUINT8, 0, math.MaxUint8, func(x float64) any { return uint8(x) }},
			{10, miINT16, math.MinInt16, math.MaxInt16, func(x float64) any { return int16(x) }},
			{11, miUINT16, 0, math.MaxUint16, func(x float64) any { return uint16(x) }},
			{12, miINT32, math.MinInt32, math.MaxInt32, func(x float64) any { return int32(x) }},
			{13, miUINT32, 0, math.MaxUint32, func(x float64) any { return uint32(x) }},
			{14, miINT64, -maxExactInt, maxExactInt, func(x float64) any { return int64(x) }},
			{15, miUINT64, 0, maxExactInt, func(x float64) any { return uint64(x) }},
		} {
			name := fmt.Sprintf("class %d %v", c.class, order)
			const T = 8
			u, y := make([]float64, T), make([]float64, T)
			for i := range u {
				u[i] = c.lo + math.Floor(rng.Float64()*(c.hi-c.lo))
				y[i] = c.lo + math.Floor(rng.Float64()*(c.hi-c.lo))
			}
			u[0], u[1], y[0] = c.lo, c.hi, c.hi
			raw := func(x []float64) []byte {
				var b bytes.Buffer
				for _, v := range x {
					binary.Write(&b, order, c.enc(v))
				}
				return b.Bytes()
			}
			var f bytes.Buffer
			writeMATVars(&f, order, false, nil) // the header
			f.Write(matIntVar(order, "u", c.class, 0, []int{T, 1}, c.miType, raw(u)))
			f.Write(matIntVar(order, "y", c.class, 0, []int{1, T}, c.miType, raw(y)))
			p := filepath.Join(dir, "i.mat")
			os.WriteFile(p, f.Bytes(), 0o644)
			d, err := ReadFile(p, ReadOptions{})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			sameDataset(t, &Dataset{Batches: []Batch{{U: u, Y: y}}}, d)
		}
	}
	for _, c := range []struct {
		name    string
		class   uint32
		flags   uint32
		miType  uint32
		dims    []int
		data    any
		mention string
	}{
		{"int64 2^53+1", 14, 0, miINT64, []int{3, 1}, []int64{0, 1, maxExactInt + 1}, "element u(3,1) = 9007199254740993 exceeds 2^53"},
		{"int64 -2^53-1", 14, 0, miINT64, []int{2, 2}, []int64{0, -maxExactInt - 1, 0, 0}, "element u(2,1) = -9007199254740993"},
		{"uint64 max", 15, 0, miUINT64, []int{1, 3}, []uint64{0, 0, math.MaxUint64}, "element u(1,3) = 18446744073709551615"},
		{"logical", 9, matLogicalFlag, miUINT8, []int{2, 1}, []uint8{0, 1}, "logical"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var raw bytes.Buffer
			binary.Write(&raw, binary.LittleEndian, c.data)
			n := 1
			for _, d := range c.dims {
				n *= d
			}
			var f bytes.Buffer
			writeMATVars(&f, binary.LittleEndian, true, []matVar{{"y", c.dims, make([]float64, n)}})
			f.Write(matIntVar(binary.LittleEndian, "u", c.class, c.flags, c.dims, c.miType, raw.Bytes()))
			p := filepath.Join(dir, "r.mat")
			os.WriteFile(p, f.Bytes(), 0o644)
			d, err := ReadFile(p, ReadOptions{})
			if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), c.mention) {
				t.Fatalf("err = %v, want ErrFormat mentioning %q", err, c.mention)
			}
			checkReadError(t, c.name, p, d, err)
		})
	}
}

// TestCSVNumbers: values are decimal numbers as every CSV tool writes them; Go-only
// syntax (hexadecimal floats, _ separators) is refused with its own message naming line
// and column, NaN and infinities in any spelling as not finite.
func TestCSVNumbers(t *testing.T) {
	for _, c := range []struct {
		field   string
		want    float64
		err     error
		mention string
	}{
		{"1", 1, nil, ""},
		{"-1.5", -1.5, nil, ""},
		{"+2", 2, nil, ""},
		{".5", 0.5, nil, ""},
		{"-.5", -0.5, nil, ""},
		{"5.", 5, nil, ""},
		{"1e-3", 1e-3, nil, ""},
		{"1E+3", 1e3, nil, ""},
		{"2.5e3", 2500, nil, ""},
		{"007", 7, nil, ""},
		{" 7 ", 7, nil, ""},
		{`"3.25"`, 3.25, nil, ""},
		{"1e-400", 0, nil, ""},
		{"0x1p3", 0, ErrNotNumeric, `line 3 column "y": "0x1p3" is not a decimal number`},
		{"0X1P-2", 0, ErrNotNumeric, "not a decimal number"},
		{"0x10", 0, ErrNotNumeric, "not a decimal number"},
		{"1_000", 0, ErrNotNumeric, `"1_000" is not a decimal number`},
		{"1_000.5e1_0", 0, ErrNotNumeric, "not a decimal number"},
		{"0x_1p0", 0, ErrNotNumeric, "not a decimal number"},
		{"0b101", 0, ErrNotNumeric, "not a decimal number"},
		{"-0o17", 0, ErrNotNumeric, "not a decimal number"},
		{"1__0", 0, ErrNotNumeric, "is not a number"},
		{"abc", 0, ErrNotNumeric, "is not a number"},
		{"", 0, ErrNotNumeric, "is not a number"},
		{"1e", 0, ErrNotNumeric, "is not a number"},
		{"e1", 0, ErrNotNumeric, "is not a number"},
		{".", 0, ErrNotNumeric, "is not a number"},
		{"+", 0, ErrNotNumeric, "is not a number"},
		{"1.2.3", 0, ErrNotNumeric, "is not a number"},
		{"--1", 0, ErrNotNumeric, "is not a number"},
		{"1 2", 0, ErrNotNumeric, "is not a number"},
		{"１", 0, ErrNotNumeric, "is not a number"},
		{"NaN", 0, ErrNotFinite, `line 3 column "y": "NaN" is not finite`},
		{"nan", 0, ErrNotFinite, "not finite"},
		{"-nan", 0, ErrNotFinite, "not finite"},
		{"Inf", 0, ErrNotFinite, "not finite"},
		{"-inf", 0, ErrNotFinite, "not finite"},
		{"+Infinity", 0, ErrNotFinite, "not finite"},
		{"1e999", 0, ErrNotFinite, "float64 range"},
		{"-1.8e308", 0, ErrNotFinite, "float64 range"},
	} {
		t.Run(c.field, func(t *testing.T) {
			d, err := ReadCSV(strings.NewReader("u,y\n1,2\n3,"+c.field+"\n"), "f.csv", ReadOptions{})
			if c.err == nil {
				if err != nil {
					t.Fatal(err)
				}
				if got := d.Batches[0].Y[1]; got != c.want {
					t.Fatalf("read %v, want %v", got, c.want)
				}
				return
			}
			if !errors.Is(err, c.err) || d != nil {
				t.Fatalf("err = %v, want %v", err, c.err)
			}
			if msg := err.Error(); !strings.Contains(msg, "f.csv line 3") || !strings.Contains(msg, c.mention) {
				t.Errorf("message %q should name the line and mention %q", msg, c.mention)
			}
		})
	}
}

// TestCSVHeaderDetection: the first line is data, not a header, exactly when every field
// is a number under the rule the data rows follow.
func TestCSVHeaderDetection(t *testing.T) {
	for _, c := range []struct {
		first, mention string
	}{
		{"1,2", "holds numbers"},
		{" .5 , 5. ", "holds numbers"},
		{"1e3,-inf", "holds numbers"},
		{"NaN,2", "holds numbers"},
		{"0x1p3,2", `missing column "u"`}, // not a number here, so a (bad) header
		{"1_000,2", `missing column "u"`},
		{"1,y", `missing column "u"`},
	} {
		t.Run(c.first, func(t *testing.T) {
			_, err := ReadCSV(strings.NewReader(c.first+"\n1,2\n"), "h.csv", ReadOptions{})
			if !errors.Is(err, ErrMissingColumn) || !strings.Contains(err.Error(), "h.csv line 1") || !strings.Contains(err.Error(), c.mention) {
				t.Fatalf("err = %v, want ErrMissingColumn on line 1 mentioning %q", err, c.mention)
			}
		})
	}
}

// TestParseNumberOracle compares parseNumber on seeded random strings over the
// characters of numbers with an independent statement of the rule: a regular expression
// for decimals, and strconv for the value.
func TestParseNumberOracle(t *testing.T) {
	decimal := regexp.MustCompile(`^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$`)
	rng := rand.New(rand.NewPCG(3, 5))
	const alphabet = "0123456789.eE+-x_pinfaob"
	for i := 0; i < 200000; i++ {
		b := make([]byte, 1+rng.IntN(8))
		for j := range b {
			if rng.IntN(2) == 0 {
				b[j] = '0' + byte(rng.IntN(10))
			} else {
				b[j] = alphabet[rng.IntN(len(alphabet))]
			}
		}
		s := string(b)
		v, k := parseNumber(s)
		ref, err := strconv.ParseFloat(s, 64)
		switch {
		case decimal.MatchString(s):
			if math.IsInf(ref, 0) {
				if k != numOverflow {
					t.Fatalf("%q: kind %d, want overflow", s, k)
				}
			} else if k != numOK || err != nil || math.Float64bits(v) != math.Float64bits(ref) {
				t.Fatalf("%q: %v (kind %d), want %v", s, v, k, ref)
			}
		case k == numOK || k == numOverflow:
			t.Fatalf("%q: accepted (%v, kind %d) but not a decimal", s, v, k)
		case err == nil && !math.IsNaN(ref) && !math.IsInf(ref, 0) && k != numNotDecimal:
			t.Fatalf("%q: strconv reads %v, want kind numNotDecimal, got %d", s, ref, k)
		case k == numNotDecimal && err != nil && !errors.Is(err, strconv.ErrRange):
			if _, ierr := strconv.ParseInt(s, 0, 64); ierr != nil && !errors.Is(ierr, strconv.ErrRange) {
				t.Fatalf("%q: numNotDecimal but Go does not read it either", s)
			}
		}
	}
}
