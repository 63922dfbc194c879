package data

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestReadCSVDialects: quoted fields, ; and tab delimiters (detected or forced) and a
// byte order mark, which the hand-written reader before encoding/csv refused or misread.
func TestReadCSVDialects(t *testing.T) {
	for _, c := range []struct {
		name, text string
		delim      Delim
		u, y       []float64
	}{
		{"semicolon", "u;y\n1;2\n3;4\n", DelimAuto, []float64{1, 3}, []float64{2, 4}},
		{"tab", "u\ty\n1\t2\n3\t4\n", DelimAuto, []float64{1, 3}, []float64{2, 4}},
		{"tab with blanks", "u \t y\n 1 \t2 \n", DelimAuto, []float64{1}, []float64{2}},
		{"semicolon and decimal points", "\xef\xbb\xbfu;y\r\n1.5;-2e-3\r\n", DelimAuto, []float64{1.5}, []float64{-2e-3}},
		{"quoted delimiter in a name", "\"time, s\",u,y\n0,1,2\n0.1,3,4\n", DelimAuto, []float64{1, 3}, []float64{2, 4}},
		{"quoted quote in a name", "\"say \"\"t\"\"\",u,y\n0,1,2\n", DelimAuto, []float64{1}, []float64{2}},
		{"quoted values", "\"u\";\"y\"\n\"1\";\"2\"\n", DelimAuto, []float64{1}, []float64{2}},
		{"blanks around quotes", " \"u\" , \"y\" \n \"1\" ,\"2\"  \n", DelimAuto, []float64{1}, []float64{2}},
		{"blanks around quotes, tab", " \"u\" \t \"y\" \n \"1\" \t\"2\"  \n", DelimAuto, []float64{1}, []float64{2}},
		{"comma first", "t;x,u,y\n0,1,2\n", DelimAuto, []float64{1}, []float64{2}},
		{"semicolon before tab", "u\tt;y\tz\n1\tx;2\t0\n", DelimAuto, nil, nil},
		{"forced semicolon", "t,x;u;y\n0;1;2\n", DelimSemicolon, []float64{1}, []float64{2}},
		{"forced tab", "u\ty,z\n1\t2,5\n", DelimTab, []float64{1}, nil}, // y,z is one name
		{"forced comma", "u,y;z\n1,2\n", DelimComma, nil, nil},          // y;z is one name: no y
	} {
		t.Run(c.name, func(t *testing.T) {
			d, err := ReadCSV(strings.NewReader(c.text), "d.csv", ReadOptions{IgnoreExtra: true, Delim: c.delim})
			if c.u == nil || c.y == nil {
				if !errors.Is(err, ErrMissingColumn) {
					t.Fatalf("err = %v, want ErrMissingColumn", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			b := d.Batches[0]
			if fmt.Sprint(b.U) != fmt.Sprint(c.u) || fmt.Sprint(b.Y) != fmt.Sprint(c.y) {
				t.Errorf("u = %v, y = %v; want %v, %v", b.U, b.Y, c.u, c.y)
			}
		})
	}
}

// TestReadCSVDialectErrors: what the new dialects refuse still names file, line and
// column, and says how to fix it.
func TestReadCSVDialectErrors(t *testing.T) {
	for _, c := range []struct {
		name, text string
		opt        ReadOptions
		want       error
		mention    string
	}{
		{"decimal comma", "u;y\n1;2\n1,5;2\n", ReadOptions{}, ErrNotNumeric, `line 3 column "u": "1,5" is not a number; decimal commas are not read, write 1.5`},
		{"quoted delimiter in a value", "u,y\n\"1,5\",2\n", ReadOptions{}, ErrNotNumeric, `line 2 column "u": "1,5" is not a number; decimal commas`},
		{"ragged with tabs", "u\ty\n1\t2\t3\n", ReadOptions{}, ErrRaggedRow, "line 2: 3 fields but the header has 2"},
		{"empty tab field", "u\ty\n\t2\n", ReadOptions{}, ErrNotNumeric, `line 2 column "u": "" is not a number`},
		{"spaces separate nothing", "u y\n1 2\n", ReadOptions{}, ErrMissingColumn, "spaces do not separate fields"},
		{"bad Delim", "u,y\n1,2\n", ReadOptions{Delim: Delim('|')}, ErrConfig, "ReadOptions.Delim"},
		{"semicolon header", "u;y\n1;2\n", ReadOptions{UCol: "v"}, ErrMissingColumn, `the header has "u;y"`},
		{"comma in a semicolon header", "Zeit, s;u;y\n0;1;2\n", ReadOptions{IgnoreExtra: true}, ErrMissingColumn, `(read with the delimiter ','; if the fields are separated by ';', give --delim semicolon)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, err := ReadCSV(strings.NewReader(c.text), "d.csv", c.opt)
			if !errors.Is(err, c.want) || d != nil {
				t.Fatalf("err = %v, want %v", err, c.want)
			}
			if !strings.Contains(err.Error(), c.mention) {
				t.Errorf("message %q should mention %q", err, c.mention)
			}
		})
	}
}

// TestReadCSVDuplicateNames: a name repeated in a column that is not read is tolerated
// (with IgnoreExtra, as any unread column); repeated among the columns read it is an
// error naming both fields.
func TestReadCSVDuplicateNames(t *testing.T) {
	for _, c := range []struct {
		name, text string
		opt        ReadOptions
		want       error
		mention    string
	}{
		{"unused twice", "t,u,y,t\n0,1,2,0\n", ReadOptions{IgnoreExtra: true}, nil, ""},
		{"unused twice, other case", "Note,u,y,note\nx,1,2,z\n", ReadOptions{IgnoreExtra: true}, nil, ""},
		{"unused twice, not ignored", "t,u,y,t\n0,1,2,0\n", ReadOptions{}, ErrUnknownColumn, `unknown column "t" (field 1)`},
		{"used twice", "u,y,u\n1,2,3\n", ReadOptions{IgnoreExtra: true}, ErrUnknownColumn, `column "u" appears twice (fields 1 and 3)`},
		{"used twice, other case", "Y,u,t,y\n1,2,3,4\n", ReadOptions{IgnoreExtra: true}, ErrUnknownColumn, `column "y" appears twice (fields 1 and 4)`},
		{"batch twice", "batch,u,y,batch\n1,2,3,4\n", ReadOptions{}, ErrUnknownColumn, "(fields 1 and 4)"},
		{"y_clean twice", "u,y,y_clean,y_clean\n1,2,3,4\n", ReadOptions{}, ErrUnknownColumn, "(fields 3 and 4)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, err := ReadCSV(strings.NewReader(c.text), "d.csv", c.opt)
			if c.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				if d.Batches[0].U[0] != 1 || d.Batches[0].Y[0] != 2 {
					t.Errorf("read %+v", d.Batches[0])
				}
				return
			}
			if !errors.Is(err, c.want) || !strings.Contains(err.Error(), "d.csv line 1") || !strings.Contains(err.Error(), c.mention) {
				t.Fatalf("err = %v, want %v on line 1 mentioning %q", err, c.want, c.mention)
			}
		})
	}
}

// TestReadCSVDidYouMean: a missing column names the nearest unused header name.
func TestReadCSVDidYouMean(t *testing.T) {
	for _, c := range []struct {
		header string
		opt    ReadOptions
		want   string // "" for no suggestion
	}{
		{"u,v1,t", ReadOptions{YCol: "vel"}, `missing column "vel" (did you mean "v1"?); the header has "u,v1,t"`},
		{"torqe,y", ReadOptions{UCol: "torque"}, `(did you mean "torqe"?)`},
		{"U1,y", ReadOptions{UCol: "u"}, `(did you mean "U1"?)`},
		{"u,yy", ReadOptions{}, `missing column "y" (did you mean "yy"?)`},
		{"ue,y", ReadOptions{UCol: "u", YCol: "ye"}, `missing column "u" (did you mean "ue"?)`},
		{"x,y", ReadOptions{}, ""}, // "x" and "u" share nothing
		{"ub,ua2", ReadOptions{UCol: "ua", YCol: "ub"}, `(did you mean "ua2"?)`}, // not "ub", the output
		{"u,speed", ReadOptions{}, ""},
	} {
		t.Run(c.header, func(t *testing.T) {
			_, err := ReadCSV(strings.NewReader(c.header+"\n1,2,3\n"), "d.csv", c.opt)
			if c.want == "" {
				if err != nil && strings.Contains(err.Error(), "did you mean") {
					t.Fatalf("err = %v, want no suggestion", err)
				}
				return
			}
			if !errors.Is(err, ErrMissingColumn) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want ErrMissingColumn mentioning %q", err, c.want)
			}
		})
	}
}

// genCSV returns a CSV text of rows rows of batch,u,y with seeded random values.
func genCSV(rows int, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, seed))
	var b bytes.Buffer
	b.Grow(rows * 48)
	b.WriteString("batch,u,y\n")
	var buf []byte
	for i := range rows {
		buf = strconv.AppendInt(buf[:0], int64(i/10000), 10)
		buf = append(buf, ',')
		buf = strconv.AppendFloat(buf, rng.NormFloat64(), 'g', -1, 64)
		buf = append(buf, ',')
		buf = strconv.AppendFloat(buf, rng.NormFloat64(), 'g', -1, 64)
		buf = append(buf, '\n')
		b.Write(buf)
	}
	return b.Bytes()
}

// countingReader counts the bytes read through it and calls at once after after
// bytes.
type countingReader struct {
	r     io.Reader
	n     int64
	after int64
	at    func()
}

func (c *countingReader) Read(p []byte) (int, error) {
	k, err := c.r.Read(p)
	c.n += int64(k)
	if c.at != nil && c.n >= c.after {
		c.at()
		c.at = nil
	}
	return k, err
}

// TestReadCSVContext: a cancelled context stops a long read at once, with an error that
// wraps context.Canceled and says where the read stopped; nothing is returned.
func TestReadCSVContext(t *testing.T) {
	in := genCSV(300_000, 1) // about 12 MB
	t.Run("cancelled before", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		cr := &countingReader{r: bytes.NewReader(in)}
		d, err := ReadCSVContext(ctx, cr, "big.csv", ReadOptions{})
		if !errors.Is(err, context.Canceled) || d != nil || !strings.Contains(err.Error(), "big.csv: reading stopped") {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		if cr.n != 0 {
			t.Errorf("%d bytes read after the cancellation", cr.n)
		}
	})
	t.Run("cancelled while reading", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		const after = 1 << 20
		cr := &countingReader{r: bytes.NewReader(in), after: after, at: cancel}
		start := time.Now()
		d, err := ReadCSVContext(ctx, cr, "big.csv", ReadOptions{})
		if !errors.Is(err, context.Canceled) || d != nil {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		// Reading stops at the next chunk of 64 KiB.
		if cr.n > after+128<<10 {
			t.Errorf("%d bytes read, %d after the cancellation", cr.n, cr.n-after)
		}
		if !strings.Contains(err.Error(), "reading stopped at line ") {
			t.Errorf("message %q should say where reading stopped", err)
		}
		t.Logf("stopped %v after the start, %d bytes in: %v", time.Since(start), cr.n, err)
	})
	t.Run("ReadFileContext", func(t *testing.T) {
		for _, ext := range []string{".csv", ".npy", ".npz", ".mat"} {
			p := filepath.Join(t.TempDir(), "d"+ext)
			d, _ := GenerateMSD(MSDConfig{Batches: 2, Seed: 1, Samples: 50})
			var err error
			switch ext {
			case ".csv":
				err = WriteCSV(p, d)
			case ".npy":
				err = WriteNPY(p, d)
			case ".npz":
				err = WriteNPZ(p, d)
			case ".mat":
				err = WriteMAT(p, d)
			}
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			if _, err := ReadFileContext(ctx, p, ReadOptions{}); !errors.Is(err, context.Canceled) {
				t.Errorf("%s: err = %v, want context.Canceled", ext, err)
			}
			if _, err := ReadFileContext(context.Background(), p, ReadOptions{}); err != nil {
				t.Errorf("%s: %v", ext, err)
			}
		}
	})
}

// TestReadFileStdin: the path "-" reads ReadOptions.Stdin, whatever its format.
func TestReadFileStdin(t *testing.T) {
	d, _ := GenerateMSD(MSDConfig{Batches: 3, Seed: 2, Samples: 40})
	dir := t.TempDir()
	for _, ext := range []string{".csv", ".npy", ".npz", ".mat"} {
		t.Run(ext, func(t *testing.T) {
			p := filepath.Join(dir, "d"+ext)
			var err error
			switch ext {
			case ".csv":
				err = WriteCSV(p, d)
			case ".npy":
				err = WriteNPY(p, d)
			case ".npz":
				err = WriteNPZ(p, d)
			case ".mat":
				err = WriteMAT(p, d)
			}
			if err != nil {
				t.Fatal(err)
			}
			b, _ := os.ReadFile(p)
			want, err := ReadFile(p, ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			got, err := ReadFile("-", ReadOptions{Stdin: bytes.NewReader(b), Ts: 0.5})
			if err != nil {
				t.Fatal(err)
			}
			sameDataset(t, got, want)
			if got.Name != "stdin" || got.Ts != 0.5 {
				t.Errorf("Name %q, Ts %v", got.Name, got.Ts)
			}
			// The size limit holds for standard input too.
			if _, err := ReadFile("-", ReadOptions{Stdin: bytes.NewReader(b), MaxBytes: int64(len(b)) - 1}); !errors.Is(err, ErrTooLarge) {
				t.Errorf("over MaxBytes: err = %v, want ErrTooLarge", err)
			}
		})
	}
	t.Run("errors name stdin", func(t *testing.T) {
		_, err := ReadFile("-", ReadOptions{Stdin: strings.NewReader("u,y\n1,x\n")})
		if !errors.Is(err, ErrNotNumeric) || !strings.Contains(err.Error(), "stdin line 2") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("no Stdin", func(t *testing.T) {
		if _, err := ReadFile("-", ReadOptions{}); !errors.Is(err, ErrFormat) {
			t.Errorf("err = %v, want ErrFormat (an unknown extension)", err)
		}
	})
}

// TestMATMissingVariable: a .mat without the variable lists the variables it holds and
// suggests the nearest.
func TestMATMissingVariable(t *testing.T) {
	var b bytes.Buffer
	writeMATVars(&b, binary.LittleEndian, true, []matVar{
		{"u", []int{3, 1}, []float64{1, 2, 3}}, {"vel", []int{3, 1}, []float64{0, 1, 2}}, {"info", []int{1, 2}, []float64{7, 8}},
	})
	_, err := readMAT(bytes.NewReader(b.Bytes()), "r.mat", ReadOptions{YCol: "ve1"}.withDefaults())
	want := `r.mat: no real numeric variable "ve1" (did you mean "vel"?); the file holds the variables u (double 3×1), vel (double 3×1), info (double 1×2)`
	if !errors.Is(err, ErrMissingColumn) || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v\nwant it to contain %s", err, want)
	}
	b.Reset()
	writeMATVars(&b, binary.BigEndian, false, nil)
	if _, err := readMAT(bytes.NewReader(b.Bytes()), "e.mat", ReadOptions{}.withDefaults()); err == nil || !strings.Contains(err.Error(), "the file holds no variables") {
		t.Errorf("empty file: err = %v", err)
	}
}

func TestDelimFlag(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Delim
		name string
	}{
		{"auto", DelimAuto, "auto"},
		{"comma", DelimComma, "comma"},
		{",", DelimComma, "comma"},
		{"semicolon", DelimSemicolon, "semicolon"},
		{";", DelimSemicolon, "semicolon"},
		{"tab", DelimTab, "tab"},
		{"\t", DelimTab, "tab"},
		{`\t`, DelimTab, "tab"},
	} {
		var d Delim = DelimSemicolon
		if err := d.Set(c.in); err != nil || d != c.want || d.String() != c.name || d.Check() != nil {
			t.Errorf("Set(%q): %v, %v (%s)", c.in, d, err, d)
		}
	}
	for _, bad := range []string{"", "|", "space", "Comma", ",,"} {
		d := DelimTab
		if err := d.Set(bad); err == nil || d != DelimTab {
			t.Errorf("Set(%q) = %v, %v; want an error", bad, d, err)
		}
	}
	if err := Delim('|').Check(); !errors.Is(err, ErrConfig) {
		t.Errorf("Check: %v", err)
	}
}

func TestTidyQuotes(t *testing.T) {
	for _, c := range []struct {
		in, want string
		delim    byte
	}{
		{`"a","b"`, `"a","b"`, ','},
		{` "a" , "b" `, `"a","b"`, ','},
		{` 1 , 2 `, ` 1 , 2 `, ','}, // unquoted fields are left to TrimSpace
		{` "a, b" ,c`, `"a, b",c`, ','},
		{`"a "" b" ,c`, `"a "" b",c`, ','},
		{`"a" x,c`, `"a" x,c`, ','}, // not a closing quote: literal, as LazyQuotes
		{`"a" x" ,c`, `"a" x",c`, ','},
		{`"open,c`, `"open,c`, ','},
		{"\t\"a\"\t;\"b\"", "\"a\";\"b\"", ';'},
		{"\"a\" \t\"b\"", "\"a\"\t\"b\"", '\t'},
		{`x"y,"z"`, `x"y,"z"`, ','},
		{`"a",`, `"a",`, ','},
		{`,"a"`, `,"a"`, ','},
	} {
		if got := string(tidyQuotes(nil, []byte(c.in), c.delim)); got != c.want {
			t.Errorf("tidyQuotes(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestCSVCompat: every file of the layout the hand-written reader accepted (its
// delimiter ',', blanks and quotes around fields, CRLF, blank lines, a BOM) reads the
// same through encoding/csv, and every file it refused is refused with the same error.
func TestCSVCompat(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	pick := func(s ...string) string { return s[rng.IntN(len(s))] }
	field := func(s string) string {
		switch rng.IntN(6) {
		case 0:
			return `"` + s + `"`
		case 1:
			return pick(" ", "  ", "\t") + s + pick("", " ")
		case 2:
			return pick(" ", "") + `"` + pick("", " ") + s + pick("", " ") + `"` + pick(" ", "\t", "")
		}
		return s
	}
	value := func() string {
		switch rng.IntN(30) {
		case 0:
			return pick("nan", "x", "", "0x10", "1e999", "+.5e-3")
		}
		return strconv.FormatFloat(rng.NormFloat64()*math.Pow(10, float64(rng.IntN(9)-4)), pick("g", "e", "f")[0], -1, 64)
	}
	accepted, refused := 0, 0
	for trial := range 3000 {
		cols := []string{"u", "y"}
		if rng.IntN(2) == 0 {
			cols = append(cols, "batch")
		}
		if rng.IntN(3) == 0 {
			cols = append(cols, "y_clean")
		}
		if rng.IntN(3) == 0 {
			cols = append(cols, pick("t", "time", "T", "u"))
		}
		rng.Shuffle(len(cols), func(i, j int) { cols[i], cols[j] = cols[j], cols[i] })
		nl := pick("\n", "\r\n")
		var b strings.Builder
		if rng.IntN(4) == 0 {
			b.WriteString("\xef\xbb\xbf")
		}
		for i, c := range cols {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(field(pick(c, strings.ToUpper(c))))
		}
		b.WriteString(nl)
		rows := rng.IntN(6)
		for r := range rows {
			n := len(cols)
			if rng.IntN(40) == 0 {
				n += 2*rng.IntN(2) - 1 // ragged: one field more or fewer
			}
			for i := range n {
				if i > 0 {
					b.WriteString(",")
				}
				if i < len(cols) && cols[i] == "batch" {
					b.WriteString(field(strconv.Itoa(r / 2)))
				} else {
					b.WriteString(field(value()))
				}
			}
			b.WriteString(nl)
			if rng.IntN(10) == 0 {
				b.WriteString(pick("", " ", "\t") + nl)
			}
		}
		text := b.String()
		opt := ReadOptions{IgnoreExtra: rng.IntN(2) == 0}.withDefaults()
		sp := csvSpec{name: "c.csv", required: []string{opt.UCol, opt.YCol}, optional: []string{opt.YCleanCol},
			batch: opt.BatchCol, ignoreExtra: opt.IgnoreExtra, maxBytes: opt.MaxBytes}
		old, oldErr := legacyParseCSV(strings.NewReader(text), sp)
		got, err := parseCSV(context.Background(), strings.NewReader(text), sp)
		if oldErr != nil {
			if err == nil || err.Error() != oldErr.Error() && !strings.Contains(oldErr.Error(), "appears twice") {
				t.Fatalf("trial %d %q:\nold: %v\nnew: %v", trial, text, oldErr, err)
			}
			refused++
			continue
		}
		if err != nil {
			t.Fatalf("trial %d %q: accepted before, now %v", trial, text, err)
		}
		if fmt.Sprint(old.batches, old.labels, old.lines, old.present) != fmt.Sprint(got.batches, got.labels, got.lines, got.present) {
			t.Fatalf("trial %d %q: read differently", trial, text)
		}
		accepted++
	}
	if accepted < 300 || refused < 300 {
		t.Errorf("%d files accepted, %d refused: the generator misses one side", accepted, refused)
	}
}

// BenchmarkReadCSV1e6 reads a file of 10^6 rows batch,u,y (about 42 MB) through the
// reader on encoding/csv and through the hand-written one before it.
func BenchmarkReadCSV1e6(b *testing.B) {
	in := genCSV(1_000_000, 7)
	opt := ReadOptions{}.withDefaults()
	sp := csvSpec{name: "bench.csv", required: []string{opt.UCol, opt.YCol}, optional: []string{opt.YCleanCol},
		batch: opt.BatchCol, maxBytes: -1}
	for _, c := range []struct {
		name  string
		parse func(io.Reader, csvSpec) (*csvData, error)
	}{
		{"encoding-csv", func(r io.Reader, sp csvSpec) (*csvData, error) { return parseCSV(context.Background(), r, sp) }},
		{"hand-written", legacyParseCSV},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			cpu0, n := cpuTime(), 0
			for b.Loop() {
				cd, err := c.parse(bytes.NewReader(in), sp)
				if err != nil || len(cd.batches) != 100 {
					b.Fatal(err)
				}
				n++
			}
			// CPU time, not wall time, on a machine shared with other work.
			b.ReportMetric(float64(cpuTime()-cpu0)/1e6/float64(n), "cpu-ms/op")
		})
	}
}

// TestReadFileTextExtensions: .tsv and .txt files are delimited text, read
// as CSV with the delimiter detected; the extension is matched in any case.
func TestReadFileTextExtensions(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ file, text string }{
		{"a.tsv", "u\ty\n1\t2\n3\t4\n"},
		{"b.txt", "u;y\n1;2\n3;4\n"},
		{"c.TXT", "time,u,y\n0,1,2\n0.5,3,4\n"},
	} {
		path := filepath.Join(dir, c.file)
		if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		d, err := ReadFile(path, ReadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if b := d.Batches[0]; !slices.Equal(b.U, []float64{1, 3}) || !slices.Equal(b.Y, []float64{2, 4}) {
			t.Errorf("%s: read u %v, y %v", c.file, b.U, b.Y)
		}
	}
}
