package data

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"strings"
	"testing"
)

// FuzzReadCSV: the CSV reader never panics, refuses input only with one of the package's
// sentinel errors, and whatever it accepts validates and survives a write/read round
// trip bit for bit.
func FuzzReadCSV(f *testing.F) {
	for _, s := range []string{
		"u,y\n1,2\n3,4\n",
		"batch,u,y\n0,1,2\n0,3,4\n1,5,6\n",
		"batch,u,y,y_clean\na,1,2,2\nb,3,4,4\n",
		"u,y\n1,NaN\n",
		"batch,u,y\n0,1,2\n1,1,2\n0,1,2\n",
		"u,y\n1\n",
		"\xef\xbb\xbfu , \"y\"\r\n1e-300,-0\r\n",
		"",
		"u,y\n+2,.5\n5.,1E+3\n-1.5, 1e-3 \n",
		"u,y\n0x1p3,1\n",
		"u,y\n1_000,2\n",
		"u,y\n1,-Infinity\n",
		"u,y\n1e999,1e-400\n",
		"0x1p3,1_000\n1,2\n",
		"1e3,-inf\n1,2\n",
	} {
		f.Add([]byte(s), false)
	}
	f.Add([]byte("t,u,y\n0,1,2\n"), true)
	sentinels := []error{ErrEmpty, ErrMissingColumn, ErrUnknownColumn, ErrNotNumeric, ErrNotFinite,
		ErrTooShort, ErrLengthMismatch, ErrInterleavedBatch, ErrRaggedRow, ErrTooLarge, ErrFormat}
	f.Fuzz(func(t *testing.T, in []byte, ignoreExtra bool) {
		opt := ReadOptions{IgnoreExtra: ignoreExtra, MaxBytes: 1 << 20}
		d, err := ReadCSV(bytes.NewReader(in), "fuzz.csv", opt)
		if err != nil {
			known := false
			for _, s := range sentinels {
				known = known || errors.Is(err, s)
			}
			if !known || d != nil {
				t.Fatalf("error without a sentinel (or with data): %v", err)
			}
			return
		}
		if err := d.Validate(1); err != nil {
			t.Fatalf("accepted data does not validate: %v", err)
		}
		var buf bytes.Buffer
		if err := writeCSV(&buf, d); err != nil {
			t.Fatal(err)
		}
		back, err := ReadCSV(&buf, "back.csv", ReadOptions{})
		if err != nil {
			t.Fatalf("round trip: %v", err)
		}
		if len(back.Batches) != len(d.Batches) {
			t.Fatalf("round trip: %d batches, want %d", len(back.Batches), len(d.Batches))
		}
		for i, b := range d.Batches {
			c := back.Batches[i]
			for k := range b.U {
				if math.Float64bits(b.U[k]) != math.Float64bits(c.U[k]) || math.Float64bits(b.Y[k]) != math.Float64bits(c.Y[k]) {
					t.Fatalf("round trip differs at batch %d sample %d", i, k)
				}
			}
		}
	})
}

// FuzzReadMAT: the MAT-file reader never panics on corrupt input and refuses it with one
// of the package's sentinel errors; accepted data validates.
func FuzzReadMAT(f *testing.F) {
	for _, c := range []struct {
		order    binary.ByteOrder
		compress bool
	}{{binary.LittleEndian, false}, {binary.LittleEndian, true}, {binary.BigEndian, false}} {
		var b bytes.Buffer
		writeMATVars(&b, c.order, c.compress, []matVar{
			{"u", []int{3, 1}, []float64{1, 2, 3}}, {"y", []int{3, 1}, []float64{0, 1, 2}}, {"other", []int{1, 1}, []float64{7}},
		})
		f.Add(b.Bytes())
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		d, err := readMAT(bytes.NewReader(in), "fuzz.mat", ReadOptions{}.withDefaults())
		if err != nil {
			if d != nil || !(errors.Is(err, ErrFormat) || errors.Is(err, ErrEmpty) || errors.Is(err, ErrMissingColumn) ||
				errors.Is(err, ErrNotFinite) || errors.Is(err, ErrLengthMismatch) || errors.Is(err, ErrTooLarge)) {
				t.Fatalf("error without a sentinel: %v", err)
			}
			return
		}
		if err := d.Validate(1); err != nil {
			t.Fatalf("accepted data does not validate: %v", err)
		}
	})
}

// FuzzReadNPY: the .npy reader refuses corrupt input with one of the package's sentinel
// errors and a message free of Go runtime text (the decoder's panics are recovered);
// accepted data validates.
func FuzzReadNPY(f *testing.F) {
	d, _ := GenerateMSD(MSDConfig{Batches: 2, Seed: 1, Samples: 4})
	var b bytes.Buffer
	writeNPY(&b, d, 4)
	f.Add(b.Bytes())
	f.Add(b.Bytes()[:40])
	f.Add(writeNPYRaw("{'descr': '<i8', 'fortran_order': True, 'shape': (2, 2), }", make([]byte, 32)))
	f.Add(writeNPYRaw("{'descr': '>u2', 'fortran_order': False, 'shape': (1, 3), }", make([]byte, 6)))
	f.Add([]byte("\x93NUMPY\x02\x00\xff\xff\xff\x7f{"))
	f.Fuzz(func(t *testing.T, in []byte) {
		d, err := readNPY(bytes.NewReader(in), "fuzz.npy", ReadOptions{MaxBytes: 1 << 20}.withDefaults(), int64(len(in)))
		if err != nil {
			if d != nil || !(errors.Is(err, ErrFormat) || errors.Is(err, ErrEmpty) || errors.Is(err, ErrNotFinite) ||
				errors.Is(err, ErrLengthMismatch) || errors.Is(err, ErrTooLarge)) {
				t.Fatalf("error without a sentinel: %v", err)
			}
			for _, s := range runtimeText {
				if strings.Contains(err.Error(), s) {
					t.Fatalf("message shows Go runtime text %q: %v", s, err)
				}
			}
			return
		}
		if err := d.Validate(1); err != nil {
			t.Fatalf("accepted data does not validate: %v", err)
		}
	})
}
