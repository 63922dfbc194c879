package data

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sameDataset reports whether a and b hold bit-identical batches.
func sameDataset(t *testing.T, a, b *Dataset) {
	t.Helper()
	if len(a.Batches) != len(b.Batches) {
		t.Fatalf("%d batches vs %d", len(a.Batches), len(b.Batches))
	}
	eq := func(x, y []float64) bool {
		if len(x) != len(y) || (x == nil) != (y == nil) {
			return false
		}
		for i := range x {
			if math.Float64bits(x[i]) != math.Float64bits(y[i]) {
				return false
			}
		}
		return true
	}
	for i := range a.Batches {
		p, q := a.Batches[i], b.Batches[i]
		if !eq(p.U, q.U) || !eq(p.Y, q.Y) || !eq(p.YClean, q.YClean) {
			t.Fatalf("batch %d differs", i)
		}
	}
}

func testDatasets(t *testing.T) map[string]*Dataset {
	noisy, err := GenerateMSD(MSDConfig{Batches: 3, Seed: 1, Samples: 40, SNR: 10})
	if err != nil {
		t.Fatal(err)
	}
	clean, _ := GenerateMSD(MSDConfig{Batches: 2, Seed: 2, Samples: 30})
	one, _ := GenerateMSD(MSDConfig{Batches: 1, Seed: 3, Samples: 25})
	ragged := &Dataset{Batches: []Batch{
		{U: []float64{1, 2, 3}, Y: []float64{-1e-300, 5e300, 0.1}},
		{U: []float64{4}, Y: []float64{math.Copysign(0, -1)}},
	}}
	return map[string]*Dataset{"noisy": noisy, "clean": clean, "one": one, "ragged": ragged}
}

func TestRoundTrip(t *testing.T) {
	writers := map[string]func(string, *Dataset) error{
		".csv": WriteCSV, ".npy": WriteNPY, ".npz": WriteNPZ, ".mat": WriteMAT,
	}
	for name, d := range testDatasets(t) {
		for ext, w := range writers {
			t.Run(name+ext, func(t *testing.T) {
				p := filepath.Join(t.TempDir(), "d"+ext)
				err := w(p, d)
				if name == "ragged" && ext != ".csv" {
					if !errors.Is(err, ErrLengthMismatch) {
						t.Fatalf("ragged batches to %s: err = %v", ext, err)
					}
					if _, serr := os.Stat(p); !os.IsNotExist(serr) {
						t.Fatalf("a file was written")
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				got, err := ReadFile(p, ReadOptions{Ts: d.Ts, MinLen: 1})
				if err != nil {
					t.Fatal(err)
				}
				sameDataset(t, d, got)
				if got.Ts != d.Ts || got.Name != "d"+ext {
					t.Errorf("Ts %v name %q", got.Ts, got.Name)
				}
				ents, _ := os.ReadDir(filepath.Dir(p))
				if len(ents) != 1 {
					t.Errorf("temporary files left: %v", ents)
				}
			})
		}
	}
}

// TestMATVariants reads MAT-files in every layout the writer can produce: compressed or
// not, little- or big-endian, names of ≤ 4 bytes (small elements) or longer, row vectors,
// and extra variables that must be skipped.
func TestMATVariants(t *testing.T) {
	u := []float64{1, 2, 3, 4, 5, 6}
	y := []float64{0, 1, 0, -1, 0.5, 2}
	for _, c := range []struct {
		name     string
		order    binary.ByteOrder
		compress bool
		vars     []matVar
		opt      ReadOptions
		batches  int
	}{
		{"LE plain column", binary.LittleEndian, false, []matVar{{"u", []int{6, 1}, u}, {"y", []int{6, 1}, y}}, ReadOptions{}, 1},
		{"BE plain", binary.BigEndian, false, []matVar{{"u", []int{6, 1}, u}, {"y", []int{6, 1}, y}}, ReadOptions{}, 1},
		{"BE compressed", binary.BigEndian, true, []matVar{{"u", []int{6, 1}, u}, {"y", []int{6, 1}, y}}, ReadOptions{}, 1},
		{"row vectors", binary.LittleEndian, true, []matVar{{"u", []int{1, 6}, u}, {"y", []int{6, 1}, y}}, ReadOptions{}, 1},
		{"T×B", binary.LittleEndian, true, []matVar{{"u", []int{3, 2}, u}, {"y", []int{3, 2}, y}}, ReadOptions{}, 2},
		{"long names + extra", binary.LittleEndian, false, []matVar{
			{"junk", []int{2, 2}, []float64{9, 9, 9, 9}}, {"force_in", []int{6, 1}, u}, {"velocity", []int{6, 1}, y}, {"more", []int{1, 1}, []float64{1}},
		}, ReadOptions{UCol: "force_in", YCol: "velocity"}, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := writeMATVars(&buf, c.order, c.compress, c.vars); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(t.TempDir(), "v.mat")
			os.WriteFile(p, buf.Bytes(), 0o644)
			d, err := ReadFile(p, c.opt)
			if err != nil {
				t.Fatal(err)
			}
			if len(d.Batches) != c.batches {
				t.Fatalf("%d batches, want %d", len(d.Batches), c.batches)
			}
			T := 6 / c.batches
			for b := range d.Batches {
				for k := 0; k < T; k++ {
					if d.Batches[b].U[k] != u[b*T+k] || d.Batches[b].Y[k] != y[b*T+k] {
						t.Fatalf("batch %d sample %d: %v %v", b, k, d.Batches[b].U[k], d.Batches[b].Y[k])
					}
				}
			}
		})
	}
}

func TestRobotMAT(t *testing.T) {
	dir := RobotDir()
	if dir == "" {
		t.Skip("robot data not found (../shared/data/robot relative to the module root); skipping")
	}
	p := filepath.Join(dir, "robotarmdata.mat")
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s absent: %v", p, err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	vars, err := readMATVars(f, p, DefaultMaxBytes, func(string) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"ue", "uv1", "uv2", "uv3", "ye", "yv1", "yv2", "yv3"} {
		v := vars[n]
		if v == nil {
			t.Fatalf("variable %s missing", n)
		}
		if len(v.dims) != 2 || v.dims[0] != 19838 || v.dims[1] != 1 {
			t.Errorf("%s: dims %v, want [19838 1]", n, v.dims)
		}
	}
	for _, e := range []string{"e", "v1", "v2", "v3"} {
		d, err := ReadFile(p, ReadOptions{UCol: "u" + e, YCol: "y" + e, Ts: 0.0005, MinLen: 1000})
		if err != nil {
			t.Fatal(err)
		}
		b := d.Batches[0]
		var ru, ry float64
		for k := range b.U {
			ru += b.U[k] * b.U[k]
			ry += b.Y[k] * b.Y[k]
		}
		if len(d.Batches) != 1 || len(b.U) != 19838 || ru == 0 || ry == 0 {
			t.Errorf("%s: %d batches, %d samples, power %g %g", e, len(d.Batches), len(b.U), ru, ry)
		}
		t.Logf("%s: %d samples, rms u %.3f, rms y %.3f", e, len(b.U), math.Sqrt(ru/float64(len(b.U))), math.Sqrt(ry/float64(len(b.U))))
	}
}

// badCSV lists CSV inputs that must be refused with the given error, naming the line.
var badCSV = []struct {
	name, text string
	opt        ReadOptions
	want       error
	mention    string
}{
	{"empty file", "", ReadOptions{}, ErrEmpty, "empty file"},
	{"blank lines only", "\n \n", ReadOptions{}, ErrEmpty, "empty file"},
	{"header only", "u,y\n", ReadOptions{}, ErrEmpty, "no data rows"},
	{"binary", "\x99+C\x1c\xd7k,u,y\n1,2,3\n", ReadOptions{}, ErrFormat, "byte 4 is the control character 0x1c"},
	{"control character", "u,\x00y\n1,2\n", ReadOptions{}, ErrFormat, "control character 0x00"},
	{"UTF-16", "\xff\xfeu\x00,\x00y\x00\n", ReadOptions{}, ErrFormat, "UTF-16"},
	{"no header", "1,2\n3,4\n", ReadOptions{}, ErrMissingColumn, "line 1"},
	{"missing y", "u,x\n1,2\n", ReadOptions{IgnoreExtra: true}, ErrMissingColumn, `"y"`},
	{"missing u (names)", "u,y\n1,2\n", ReadOptions{UCol: "ue"}, ErrMissingColumn, `"ue"`},
	{"unknown column", "note,u,y\n0,1,2\n", ReadOptions{}, ErrUnknownColumn, `"note"`},
	{"duplicate column", "u,y,u\n1,2,3\n", ReadOptions{}, ErrUnknownColumn, "twice"},
	{"not numeric", "u,y\n1,2\n1,abc\n", ReadOptions{}, ErrNotNumeric, "line 3"},
	{"empty value", "u,y\n1,\n", ReadOptions{}, ErrNotNumeric, "line 2"},
	{"hexadecimal float", "u,y\n1,2\n0x1p-2,1\n", ReadOptions{}, ErrNotNumeric, "line 3"},
	{"digit separator", "u,y\n1,0x_1p0\n", ReadOptions{}, ErrNotNumeric, "line 2"},
	{"NaN", "u,y\n1,2\nNaN,3\n", ReadOptions{}, ErrNotFinite, "line 3"},
	{"Inf", "u,y\n1,-inf\n", ReadOptions{}, ErrNotFinite, `column "y"`},
	{"overflow", "u,y\n1e999,1\n", ReadOptions{}, ErrNotFinite, "line 2"},
	{"ragged short", "u,y\n1,2\n3\n", ReadOptions{}, ErrRaggedRow, "line 3"},
	{"ragged long", "batch,u,y\n0,1,2\n0,1,2,3\n", ReadOptions{}, ErrRaggedRow, "line 3"},
	{"interleaved", "batch,u,y\na,1,2\nb,1,2\na,3,4\n", ReadOptions{}, ErrInterleavedBatch, "line 4"},
	{"empty batch id", "batch,u,y\n,1,2\n", ReadOptions{}, ErrNotNumeric, "batch id"},
	{"too short", "u,y\n1,2\n3,4\n", ReadOptions{MinLen: 3}, ErrTooShort, "fewer than the model memory 3"},
	{"too large", "u,y\n1,2\n3,4\n", ReadOptions{MaxBytes: 8}, ErrTooLarge, "MaxBytes"},
	{"line too long", "u,y\n1," + strings.Repeat("1", maxLineBytes+10) + "\n", ReadOptions{}, ErrTooLarge, "line 2"},
}

func TestReadCSVErrors(t *testing.T) {
	for _, c := range badCSV {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			in := filepath.Join(dir, "in.csv")
			os.WriteFile(in, []byte(c.text), 0o644)
			d, err := ReadFile(in, c.opt)
			if !errors.Is(err, c.want) || d != nil {
				t.Fatalf("err = %v, want %v", err, c.want)
			}
			msg := err.Error()
			if !strings.Contains(msg, in) || !strings.Contains(msg, c.mention) {
				t.Errorf("message %q should name the file and mention %q", msg, c.mention)
			}
			// The stream reader agrees.
			if _, err := ReadCSV(strings.NewReader(c.text), "s", c.opt); !errors.Is(err, c.want) {
				t.Errorf("ReadCSV: err = %v", err)
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 1 {
				t.Errorf("files written: %v", ents)
			}
		})
	}
}

func TestReadCSVAccepts(t *testing.T) {
	for _, c := range []struct {
		name, text string
		opt        ReadOptions
		lens       []int
		clean      bool
	}{
		{"plain", "u,y\n1,2\n3,4\n", ReadOptions{}, []int{2}, false},
		{"CRLF BOM quotes spaces", "\xef\xbb\xbf\"u\" , y\r\n 1 ,\"2\"\r\n3,4\r\n\r\n", ReadOptions{}, []int{2}, false},
		{"case and names", "UE,YE\n1,2\n", ReadOptions{UCol: "ue", YCol: "ye"}, []int{1}, false},
		{"batches", "batch,u,y\nx,1,2\nx,1,2\ny,1,2\n7,1,1\n", ReadOptions{}, []int{2, 1, 1}, false},
		{"batch col named", "exp,u,y\n1,1,2\n2,1,2\n", ReadOptions{BatchCol: "exp"}, []int{1, 1}, false},
		{"extra ignored", "t,u,y,y_clean\n0,1,2,3\n", ReadOptions{IgnoreExtra: true}, []int{1}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, err := ReadCSV(strings.NewReader(c.text), "x.csv", c.opt)
			if err != nil {
				t.Fatal(err)
			}
			if len(d.Batches) != len(c.lens) {
				t.Fatalf("%d batches, want %d", len(d.Batches), len(c.lens))
			}
			for i, n := range c.lens {
				if d.Batches[i].Len() != n || (d.Batches[i].YClean != nil) != c.clean {
					t.Errorf("batch %d: %d samples (want %d), clean %v", i, d.Batches[i].Len(), n, d.Batches[i].YClean != nil)
				}
			}
			if err := d.Validate(1); err != nil {
				t.Error(err)
			}
		})
	}
}

// writeNPYRaw writes a .npy with an arbitrary header dict and payload.
func writeNPYRaw(dict string, payload []byte) []byte {
	hdr := dict + strings.Repeat(" ", 64-(10+len(dict)+1)%64) + "\n"
	var b bytes.Buffer
	b.WriteString("\x93NUMPY\x01\x00")
	binary.Write(&b, binary.LittleEndian, uint16(len(hdr)))
	b.WriteString(hdr)
	b.Write(payload)
	return b.Bytes()
}

func f64bytes(x ...float64) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, x)
	return b.Bytes()
}

func TestReadNPYVariants(t *testing.T) {
	dir := t.TempDir()
	// Fortran order T×2: column-major storage u1,u2,u3,y1,y2,y3.
	p := filepath.Join(dir, "f.npy")
	os.WriteFile(p, writeNPYRaw("{'descr': '<f8', 'fortran_order': True, 'shape': (3, 2), }", f64bytes(1, 2, 3, 10, 20, 30)), 0o644)
	d, err := ReadFile(p, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if b := d.Batches[0]; b.U[2] != 3 || b.Y[0] != 10 || b.Y[2] != 30 {
		t.Errorf("Fortran order: %v %v", b.U, b.Y)
	}
	// float32 data.
	var f32 bytes.Buffer
	binary.Write(&f32, binary.LittleEndian, []float32{1, 2, 0.5, 4})
	p = filepath.Join(dir, "s.npy")
	os.WriteFile(p, writeNPYRaw("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }", f32.Bytes()), 0o644)
	if d, err = ReadFile(p, ReadOptions{}); err != nil || d.Batches[0].U[1] != 0.5 {
		t.Errorf("float32: %v %v", d, err)
	}
}

// TestBinaryErrors: malformed or unsuitable .npy/.npz/.mat files give their errors and
// never panic.
func TestBinaryErrors(t *testing.T) {
	good, _ := GenerateMSD(MSDConfig{Batches: 2, Seed: 1, Samples: 10})
	var mat bytes.Buffer
	vars, _ := datasetMATVars(good)
	writeMATVars(&mat, binary.LittleEndian, true, vars)
	var matPlain bytes.Buffer
	writeMATVars(&matPlain, binary.LittleEndian, false, vars)
	var matNaN bytes.Buffer
	writeMATVars(&matNaN, binary.LittleEndian, false, []matVar{{"u", []int{2, 1}, []float64{1, 2}}, {"y", []int{2, 1}, []float64{1, math.NaN()}}})
	var matMismatch bytes.Buffer
	writeMATVars(&matMismatch, binary.LittleEndian, true, []matVar{{"u", []int{2, 1}, []float64{1, 2}}, {"y", []int{3, 1}, []float64{1, 2, 3}}})
	v73 := make([]byte, 128)
	copy(v73, "MATLAB 7.3 MAT-file, Platform: GLNXA64, HDF5 schema 1.00")
	v73[124], v73[125], v73[126], v73[127] = 0, 2, 'I', 'M'
	dir := t.TempDir()
	npzPath := func(arrays map[string][]byte) []byte {
		// build an npz through WriteNPZ and then a raw variant via archive/zip.
		return zipOf(t, arrays)
	}
	for _, c := range []struct {
		name, file string
		data       []byte
		opt        ReadOptions
		want       error
	}{
		{"unknown ext", "x.xlsx", []byte("u,y\n1,2\n"), ReadOptions{}, ErrFormat},
		{"npy garbage", "g.npy", []byte("hello world, not numpy"), ReadOptions{}, ErrFormat},
		{"npy header without newline", "h.npy", append([]byte("\x93NUMPY\x01\x00\x04\x00{abc"), make([]byte, 8)...), ReadOptions{}, ErrFormat},
		{"npy bool dtype", "i.npy", writeNPYRaw("{'descr': '|b1', 'fortran_order': False, 'shape': (1, 2), }", make([]byte, 2)), ReadOptions{}, ErrFormat},
		{"npy int64 beyond 2^53", "j.npy", writeNPYRaw("{'descr': '<i8', 'fortran_order': False, 'shape': (1, 2), }", append(make([]byte, 8), 1, 0, 0, 0, 0, 0, 0x20, 0)), ReadOptions{}, ErrFormat},
		{"npy signals in rows", "r.npy", writeNPYRaw("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 4), }", f64bytes(1, 2, 3, 4, 5, 6, 7, 8)), ReadOptions{}, ErrLengthMismatch},
		{"npy truncated", "t.npy", writeNPYRaw("{'descr': '<f8', 'fortran_order': False, 'shape': (4, 2), }", f64bytes(1, 2, 3)), ReadOptions{}, ErrFormat},
		{"npy 1-D", "o.npy", writeNPYRaw("{'descr': '<f8', 'fortran_order': False, 'shape': (4,), }", f64bytes(1, 2, 3, 4)), ReadOptions{}, ErrLengthMismatch},
		{"npy NaN", "n.npy", writeNPYRaw("{'descr': '<f8', 'fortran_order': False, 'shape': (1, 2), }", f64bytes(1, math.NaN())), ReadOptions{}, ErrNotFinite},
		{"npy huge shape", "b.npy", writeNPYRaw("{'descr': '<f8', 'fortran_order': False, 'shape': (100000000, 2), }", nil), ReadOptions{MaxBytes: 1 << 20}, ErrTooLarge},
		{"npy empty", "e.npy", writeNPYRaw("{'descr': '<f8', 'fortran_order': False, 'shape': (0, 2), }", nil), ReadOptions{}, ErrEmpty},
		{"npz not zip", "z.npz", []byte("PK nope"), ReadOptions{}, ErrFormat},
		{"npz missing y", "m.npz", npzPath(map[string][]byte{"u.npy": writeNPYRaw("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", f64bytes(1, 2))}), ReadOptions{}, ErrMissingColumn},
		{"npz shape mismatch", "s.npz", npzPath(map[string][]byte{
			"u.npy": writeNPYRaw("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", f64bytes(1, 2)),
			"y.npy": writeNPYRaw("{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }", f64bytes(1, 2, 3)),
		}), ReadOptions{}, ErrLengthMismatch},
		{"npz Inf", "i.npz", npzPath(map[string][]byte{
			"u.npy": writeNPYRaw("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", f64bytes(1, 2)),
			"y.npy": writeNPYRaw("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", f64bytes(1, math.Inf(1))),
		}), ReadOptions{}, ErrNotFinite},
		{"npz too large", "l.npz", npzPath(map[string][]byte{
			"u.npy": writeNPYRaw("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", f64bytes(1, 2)),
			"y.npy": writeNPYRaw("{'descr': '<f8', 'fortran_order': False, 'shape': (2000,), }", make([]byte, 16000)),
		}), ReadOptions{MaxBytes: 10000}, ErrTooLarge},
		{"mat empty", "e.mat", nil, ReadOptions{}, ErrFormat},
		{"mat v7.3", "h.mat", v73, ReadOptions{}, ErrFormat},
		{"mat garbage header", "g.mat", bytes.Repeat([]byte("x"), 200), ReadOptions{}, ErrFormat},
		{"mat truncated compressed", "t.mat", mat.Bytes()[:mat.Len()-20], ReadOptions{}, ErrFormat},
		{"mat truncated plain", "p.mat", matPlain.Bytes()[:matPlain.Len()-20], ReadOptions{}, ErrFormat},
		{"mat missing variable", "m.mat", mat.Bytes(), ReadOptions{YCol: "ye"}, ErrMissingColumn},
		{"mat NaN", "n.mat", matNaN.Bytes(), ReadOptions{}, ErrNotFinite},
		{"mat size mismatch", "s.mat", matMismatch.Bytes(), ReadOptions{}, ErrLengthMismatch},
		{"mat too large", "b.mat", mat.Bytes(), ReadOptions{MaxBytes: 300}, ErrTooLarge},
		{"too short", "ok.mat", mat.Bytes(), ReadOptions{MinLen: 11}, ErrTooShort},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, c.file)
			os.WriteFile(p, c.data, 0o644)
			d, err := ReadFile(p, c.opt)
			if !errors.Is(err, c.want) || d != nil {
				t.Fatalf("err = %v, want %v", err, c.want)
			}
			if !strings.Contains(err.Error(), p) {
				t.Errorf("message %q does not name the file", err)
			}
		})
	}
}

// TestWriteRefusesBadData: nothing is written (and an existing file is kept) when the
// dataset is invalid.
func TestWriteRefusesBadData(t *testing.T) {
	bad := map[string]*Dataset{
		"nil":      nil,
		"empty":    {},
		"lengths":  {Batches: []Batch{{U: []float64{1, 2}, Y: []float64{1}}}},
		"NaN":      {Batches: []Batch{{U: []float64{1, math.NaN()}, Y: []float64{1, 2}}}},
		"no batch": {Batches: []Batch{{}}},
	}
	for name, d := range bad {
		for ext, w := range map[string]func(string, *Dataset) error{".csv": WriteCSV, ".npy": WriteNPY, ".npz": WriteNPZ, ".mat": WriteMAT} {
			dir := t.TempDir()
			p := filepath.Join(dir, "out"+ext)
			if err := w(p, d); err == nil {
				t.Errorf("%s%s: no error", name, ext)
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 0 {
				t.Errorf("%s%s: files written: %v", name, ext, ents)
			}
			os.WriteFile(p, []byte("keep"), 0o644)
			w(p, d)
			if b, _ := os.ReadFile(p); string(b) != "keep" {
				t.Errorf("%s%s: existing file overwritten", name, ext)
			}
		}
	}
	// A failing write (directory missing) leaves nothing behind either.
	good, _ := GenerateMSD(MSDConfig{Batches: 1, Seed: 1})
	if err := WriteCSV(filepath.Join(t.TempDir(), "no", "such", "dir.csv"), good); err == nil {
		t.Error("write into a missing directory succeeded")
	}
}

func TestReadFileMaxBytes(t *testing.T) {
	p := filepath.Join(t.TempDir(), "d.csv")
	d, _ := GenerateMSD(MSDConfig{Batches: 2, Seed: 1})
	if err := WriteCSV(p, d); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(p)
	if _, err := ReadFile(p, ReadOptions{MaxBytes: fi.Size() - 1}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("err = %v, want ErrTooLarge", err)
	}
	if _, err := ReadFile(p, ReadOptions{MaxBytes: fi.Size()}); err != nil {
		t.Errorf("at the limit: %v", err)
	}
	if _, err := ReadFile(p, ReadOptions{MaxBytes: -1}); err != nil {
		t.Errorf("no limit: %v", err)
	}
}

func BenchmarkReadCSV(b *testing.B) {
	d, _ := GenerateMSD(MSDConfig{Batches: 100, Seed: 1})
	var buf bytes.Buffer
	writeCSV(&buf, d)
	b.SetBytes(int64(buf.Len()))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := ReadCSV(bytes.NewReader(buf.Bytes()), "bench.csv", ReadOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestReadCSVLatin1Header: a header in Latin-1 ("Temp °C" as byte 0xb0) is
// text, not a binary file: its other columns read as usual.
func TestReadCSVLatin1Header(t *testing.T) {
	d, err := ReadCSV(strings.NewReader("u,y,Temp \xb0C\n1,2,3\n4,5,6\n"), "latin1.csv", ReadOptions{IgnoreExtra: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Batches[0].U; len(got) != 2 || got[0] != 1 || got[1] != 4 {
		t.Errorf("u = %v, want [1 4]", got)
	}
}
