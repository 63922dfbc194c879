package data

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/passivenfir/gputrain/internal/suggest"
)

// maxLineBytes bounds one CSV line: a numeric row is a few hundred bytes at most, and a
// file without newlines must not be buffered whole.
const maxLineBytes = 1 << 20

// guardReader passes at most n bytes through (n < 0: unlimited), failing with errCap
// when the underlying reader has more, and fails with ctx's error once ctx is done
// (ctx nil: never). Readers read in chunks of 64 KiB, a fraction of a millisecond of
// parsing, so a cancelled read stops at once.
type guardReader struct {
	ctx    context.Context
	r      io.Reader
	n      int64
	capped bool // errCap was returned
}

var errCap = errors.New("size limit reached")

func (g *guardReader) Read(p []byte) (int, error) {
	if g.ctx != nil {
		if err := g.ctx.Err(); err != nil {
			return 0, err
		}
	}
	if g.n < 0 {
		return g.r.Read(p)
	}
	if g.n == 0 {
		var b [1]byte
		for {
			k, err := g.r.Read(b[:])
			if k > 0 {
				g.capped = true
				return 0, errCap
			}
			if err != nil {
				return 0, err
			}
		}
	}
	if int64(len(p)) > g.n {
		p = p[:g.n]
	}
	k, err := g.r.Read(p)
	g.n -= int64(k)
	return k, err
}

// lineReader streams lines (without the line ending) and counts them from 1.
type lineReader struct {
	br   *bufio.Reader
	buf  []byte
	line int
}

var errLineTooLong = errors.New("line too long")

func (lr *lineReader) next() ([]byte, error) {
	lr.buf = lr.buf[:0]
	for {
		frag, err := lr.br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			lr.buf = append(lr.buf, frag...)
			if len(lr.buf) > maxLineBytes {
				lr.line++
				return nil, errLineTooLong
			}
			continue
		}
		if len(lr.buf) > 0 {
			lr.buf = append(lr.buf, frag...)
			frag = lr.buf
		}
		if err != nil && !(errors.Is(err, io.EOF) && len(frag) > 0) {
			return nil, err
		}
		lr.line++
		if len(frag) > maxLineBytes {
			return nil, errLineTooLong
		}
		frag = bytes.TrimSuffix(frag, []byte("\n"))
		frag = bytes.TrimSuffix(frag, []byte("\r"))
		return frag, nil
	}
}

// csvSpec describes which columns a CSV parse extracts.
type csvSpec struct {
	name        string   // file name for messages
	required    []string // numeric columns that must exist
	optional    []string // numeric columns used when present
	batch       string   // grouping column name ("" = none); optional in the file
	ignoreExtra bool     // skip columns not listed instead of failing
	maxBytes    int64    // < 0: unlimited
	delim       Delim    // DelimAuto: detected from the header line
	time        []string // names a time column may have, the first found read (nil: none)
	timeAuto    bool     // time holds the default names: one repeated in the header is skipped
}

// csvData is the parse result: per batch, one slice per column of required+optional
// (nil for absent optional columns).
type csvData struct {
	batches [][][]float64
	labels  []string // per batch: its batch-column id ("" without a batch column)
	lines   []int    // per batch: the file line of its first row
	present []bool   // per optional column
	// timeCol is the header name of the time column read ("" when none); its
	// values are then each batch's column after required+optional, and
	// rowLines each row's file line, for messages about them.
	timeCol  string
	rowLines [][]int
}

// numKind classifies a CSV field as a number.
type numKind int

const (
	numOK         numKind = iota // a finite decimal number
	numNotFinite                 // NaN or ±Inf spelled out ("nan", "-Inf", "infinity", any case)
	numOverflow                  // a decimal number beyond the float64 range (±1.8e308)
	numNotDecimal                // Go syntax strconv takes but no CSV tool writes: 0x1p3, 0x10, 0b1, 1_000
	numInvalid                   // anything else
)

// isDecimal reports whether s is a decimal number as spreadsheets, NumPy, pandas and
// MATLAB write and read them: an optional sign, digits with an optional decimal point
// (at least one digit: "5.", ".5"), and an optional exponent e or E with an optional
// sign and at least one digit.
func isDecimal(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for ; i < len(s) && '0' <= s[i] && s[i] <= '9'; i++ {
		digits++
	}
	if i < len(s) && s[i] == '.' {
		for i++; i < len(s) && '0' <= s[i] && s[i] <= '9'; i++ {
			digits++
		}
	}
	if digits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		exp := 0
		for ; i < len(s) && '0' <= s[i] && s[i] <= '9'; i++ {
			exp++
		}
		if exp == 0 {
			return false
		}
	}
	return i == len(s)
}

// parseNumber reads one (trimmed) CSV field. Only decimal numbers are numbers; NaN and
// infinities are recognised in the spellings other tools write so that the message can
// say what is wrong with them.
func parseNumber(s string) (float64, numKind) {
	if isDecimal(s) {
		v, err := strconv.ParseFloat(s, 64) // only ErrRange is possible here
		if err != nil || math.IsInf(v, 0) {
			return v, numOverflow
		}
		return v, numOK
	}
	t := s
	if t != "" && (t[0] == '+' || t[0] == '-') {
		t = t[1:]
	}
	switch strings.ToLower(t) {
	case "nan", "inf", "infinity":
		return math.NaN(), numNotFinite
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil || errors.Is(err, strconv.ErrRange) {
		return 0, numNotDecimal
	}
	if _, err := strconv.ParseInt(s, 0, 64); err == nil || errors.Is(err, strconv.ErrRange) {
		return 0, numNotDecimal // 0x10, 0o17, 0b101
	}
	return 0, numInvalid
}

// parseCSV streams r line by line and splits each line into fields with encoding/csv
// (fieldSplitter); memory is about the parsed floats. It stops with ctx's error once
// ctx is done.
func parseCSV(ctx context.Context, r io.Reader, sp csvSpec) (*csvData, error) {
	if err := sp.delim.Check(); err != nil {
		return nil, err
	}
	lr := &lineReader{br: bufio.NewReaderSize(&guardReader{ctx: ctx, r: r, n: sp.maxBytes}, 64<<10)}
	wrapRead := func(err error) error {
		switch {
		case errors.Is(err, errCap):
			return fmt.Errorf("data: %s: more than MaxBytes = %d bytes; split the file (from Go: raise ReadOptions.MaxBytes): %w",
				sp.name, sp.maxBytes, ErrTooLarge)
		case errors.Is(err, errLineTooLong):
			return fmt.Errorf("data: %s line %d: longer than %d bytes; is this a CSV file with one sample per line?: %w",
				sp.name, lr.line, maxLineBytes, ErrTooLarge)
		case ctx.Err() != nil && errors.Is(err, ctx.Err()):
			return fmt.Errorf("data: %s: reading stopped at line %d: %w", sp.name, lr.line+1, err)
		}
		return fmt.Errorf("data: %s line %d: %w", sp.name, lr.line+1, err)
	}
	// Header: the first non-blank line, which also gives the delimiter.
	var header []string
	var fields *fieldSplitter
	for header == nil {
		line, err := lr.next()
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("data: %s: empty file; expected a header line naming the columns (%s) and one sample per line: %w",
				sp.name, strings.Join(sp.required, ","), ErrEmpty)
		}
		if err != nil {
			return nil, wrapRead(err)
		}
		if lr.line == 1 {
			line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf")) // UTF-8 BOM
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if err := notText(line); err != nil {
			return nil, fmt.Errorf("data: %s line %d: %v; a CSV file is UTF-8 text with a header line naming the columns (%s), and .npy, .npz and .mat files are read by their extension: %w",
				sp.name, lr.line, err, strings.Join(sp.required, ","), ErrFormat)
		}
		delim := sp.delim
		if delim == DelimAuto {
			delim = detectDelim(line)
		}
		fields = newFieldSplitter(byte(delim))
		rec, err := fields.split(line)
		if err != nil {
			return nil, fmt.Errorf("data: %s line %d: %v: %w", sp.name, lr.line, err, ErrFormat)
		}
		header = make([]string, len(rec))
		for j, f := range rec {
			header[j] = strings.TrimSpace(f)
		}
	}
	headerLine := lr.line
	nf := len(header)
	allNumeric := true // the same rule as for values: decimal numbers, NaN and infinities
	for _, h := range header {
		if _, k := parseNumber(h); k == numNotDecimal || k == numInvalid {
			allNumeric = false
		}
	}
	if allNumeric {
		return nil, fmt.Errorf("data: %s line %d: the first line holds numbers, not column names; add a header such as %q: %w",
			sp.name, headerLine, strings.Join(sp.required, string(fields.delim)), ErrMissingColumn)
	}
	// Names match case-insensitively. A name that appears twice is an error only where
	// the column is used: files exported from spreadsheets and loggers often repeat the
	// name of a column nobody reads.
	at := map[string][]int{} // lower-case name -> fields
	for j, h := range header {
		k := strings.ToLower(h)
		at[k] = append(at[k], j)
	}
	used := make([]bool, nf)
	find := func(name string) (int, error) {
		js := at[strings.ToLower(name)]
		switch len(js) {
		case 0:
			return -1, nil
		case 1:
			used[js[0]] = true
			return js[0], nil
		}
		return -1, fmt.Errorf("data: %s line %d: column %q appears twice (fields %d and %d); rename one: %w",
			sp.name, headerLine, header[js[1]], js[0]+1, js[1]+1, ErrUnknownColumn)
	}
	wanted := append(append([]string(nil), sp.required...), sp.optional...)
	colIdx := make([]int, len(wanted)) // header index of each wanted column, -1 if absent
	for i, w := range wanted {
		j, err := find(w)
		if err != nil {
			return nil, err
		}
		colIdx[i] = j
	}
	batchIdx := -1
	if sp.batch != "" {
		j, err := find(sp.batch)
		if err != nil {
			return nil, err
		}
		batchIdx = j
	}
	timeIdx := -1
	for _, name := range sp.time {
		if sp.timeAuto && len(at[strings.ToLower(name)]) > 1 {
			continue // a repeated name is no clear time column: an extra one, as before
		}
		j, err := find(name)
		if err != nil {
			return nil, err
		}
		if j >= 0 {
			timeIdx = j
			break
		}
	}
	for i, w := range sp.required {
		if colIdx[i] < 0 {
			return nil, fmt.Errorf("data: %s line %d: missing column %q%s; the header has %q%s; choose the column names with --u and --y (from Go: ReadOptions.UCol, YCol): %w",
				sp.name, headerLine, w, didYouMean(w, header, used), strings.Join(header, string(fields.delim)), delimHint(header, fields.delim), ErrMissingColumn)
		}
	}
	if !sp.ignoreExtra {
		for j, h := range header {
			if used[j] {
				continue
			}
			opt := append(append([]string(nil), sp.optional...), sp.batch)
			return nil, fmt.Errorf("data: %s line %d: unknown column %q (field %d); expected %s (optional %s); remove it, name the columns with --u and --y, or skip other columns with --ignore-extra (from Go: ReadOptions.UCol, YCol, IgnoreExtra): %w",
				sp.name, headerLine, h, j+1, strings.Join(sp.required, ","), strings.Join(opt, ","), ErrUnknownColumn)
		}
	}
	out := &csvData{present: make([]bool, len(sp.optional))}
	for i := range sp.optional {
		out.present[i] = colIdx[len(sp.required)+i] >= 0
	}
	if timeIdx >= 0 {
		out.timeCol = header[timeIdx]
		colIdx = append(colIdx, timeIdx)
		wanted = append(wanted, header[timeIdx])
	}
	var rows []int // the current batch's row lines, with a time column
	var cur [][]float64
	curID, curLine := "", 0
	started := map[string]int{} // batch id -> line where it started
	flush := func() {
		if cur != nil {
			out.batches = append(out.batches, cur)
			if timeIdx >= 0 {
				out.rowLines = append(out.rowLines, rows)
			}
		}
	}
	for {
		line, err := lr.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, wrapRead(err)
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue // tolerate blank lines (e.g. a trailing one)
		}
		rec, err := fields.split(line)
		if err != nil {
			return nil, fmt.Errorf("data: %s line %d: %v: %w", sp.name, lr.line, err, ErrFormat)
		}
		if len(rec) != nf {
			return nil, fmt.Errorf("data: %s line %d: %d fields but the header has %d; every row needs one value per column: %w",
				sp.name, lr.line, len(rec), nf, ErrRaggedRow)
		}
		id := ""
		if batchIdx >= 0 {
			id = strings.TrimSpace(rec[batchIdx])
			if id == "" {
				return nil, fmt.Errorf("data: %s line %d column %q: empty batch id; give every row its batch: %w",
					sp.name, lr.line, header[batchIdx], ErrNotNumeric)
			}
		}
		if cur == nil || id != curID {
			if l, ok := started[id]; ok {
				return nil, fmt.Errorf("data: %s line %d column %q: batch %q reappears after batch %q started (line %d; %q began on line %d); each batch's rows must be contiguous and in time order, sort the file by batch: %w",
					sp.name, lr.line, header[batchIdx], id, curID, curLine, id, l, ErrInterleavedBatch)
			}
			flush()
			id = strings.Clone(id) // rec's strings share one allocation per line
			started[id] = lr.line
			curID, curLine = id, lr.line
			out.labels, out.lines = append(out.labels, id), append(out.lines, lr.line)
			cur = make([][]float64, len(wanted))
			rows = nil
		}
		if timeIdx >= 0 {
			rows = append(rows, lr.line)
		}
		for i, j := range colIdx {
			if j < 0 {
				continue
			}
			s := strings.TrimSpace(rec[j])
			v, k := parseNumber(s)
			if k != numOK && j == timeIdx {
				if sp.timeAuto && sp.ignoreExtra {
					// dates or clock times under a default name, in a file
					// read with extra columns skipped: skipped as before
					timeIdx, colIdx[i], out.timeCol, out.rowLines = -1, -1, "", nil
					continue
				}
				return nil, fmt.Errorf("data: %s line %d column %q: %q is not a time in seconds; a time column of dates or clock times is skipped with --time - and --ignore-extra (from Go: ReadOptions.TimeCol, IgnoreExtra): %w",
					sp.name, lr.line, header[j], s, ErrNotNumeric)
			}
			switch k {
			case numNotDecimal:
				return nil, fmt.Errorf("data: %s line %d column %q: %q is not a decimal number; hexadecimal, octal and binary notation and _ digit separators are not accepted, write plain decimals such as 1000, -1.5 or 2.5e-3: %w",
					sp.name, lr.line, header[j], s, ErrNotNumeric)
			case numInvalid:
				return nil, fmt.Errorf("data: %s line %d column %q: %q is not a number%s; fix or remove the row: %w",
					sp.name, lr.line, header[j], s, decimalCommaHint(s), ErrNotNumeric)
			case numOverflow:
				return nil, fmt.Errorf("data: %s line %d column %q: %q is beyond the float64 range (±1.8e308); rescale the column: %w",
					sp.name, lr.line, header[j], s, ErrNotFinite)
			case numNotFinite:
				return nil, fmt.Errorf("data: %s line %d column %q: %q is not finite; remove or interpolate the sample: %w",
					sp.name, lr.line, header[j], s, ErrNotFinite)
			}
			cur[i] = append(cur[i], v)
		}
	}
	flush()
	if len(out.batches) == 0 {
		return nil, fmt.Errorf("data: %s: a header but no data rows: %w", sp.name, ErrEmpty)
	}
	return out, nil
}

// didYouMean returns ` (did you mean "NAME"?)` for the unused header name nearest to
// name, or "" when none is near.
func didYouMean(name string, header []string, used []bool) string {
	var free []string
	for j, h := range header {
		if !used[j] {
			free = append(free, h)
		}
	}
	if s, ok := suggest.Closest(name, free); ok {
		return fmt.Sprintf(" (did you mean %q?)", s)
	}
	return ""
}

// delimHint explains a header that another delimiter would split differently: names
// holding a semicolon or tab when the delimiter is another one, or a single column of
// names separated by spaces.
func delimHint(header []string, used byte) string {
	for _, d := range [...]Delim{DelimComma, DelimSemicolon, DelimTab} {
		if byte(d) != used && strings.Contains(strings.Join(header, ""), string(byte(d))) {
			return fmt.Sprintf(" (read with the delimiter %q; if the fields are separated by %q, give --delim %s)", used, byte(d), d)
		}
	}
	if len(header) == 1 && len(strings.Fields(header[0])) > 1 {
		return " (one column: separate the names and values with commas, semicolons or tabs; spaces do not separate fields)"
	}
	return ""
}

// decimalCommaHint explains a number written with a decimal comma ("1,5"), which
// files with ; or tab delimiters from some locales hold.
func decimalCommaHint(s string) string {
	if strings.Count(s, ",") == 1 {
		if _, k := parseNumber(strings.Replace(s, ",", ".", 1)); k == numOK {
			return "; decimal commas are not read, write " + strings.Replace(s, ",", ".", 1)
		}
	}
	return ""
}

// ReadOptions selects columns (CSV) or variables (.npz, .mat) and bounds resources.
type ReadOptions struct {
	// UCol, YCol, BatchCol name the input, output and batch columns; defaults "u", "y",
	// "batch" (CSV names match case-insensitively). The batch column is optional in the
	// file; without it the file is one batch. BatchCol is ignored for .npz/.mat.
	UCol, YCol, BatchCol string
	// YCleanCol names the optional noise-free output column; default "y_clean".
	YCleanCol string
	// IgnoreExtra skips CSV columns other than the ones above and the time column (e.g. notes)
	// instead of failing with ErrUnknownColumn. Other arrays of .npz files and other
	// variables of .mat files are always ignored: such files often hold several datasets.
	IgnoreExtra bool
	// MaxBytes refuses inputs larger than this (and, for compressed formats, arrays that
	// would decompress to more); 0 means DefaultMaxBytes, negative means no limit.
	MaxBytes int64
	// Ts is stored in the returned Dataset. A CSV file's time column (TimeCol)
	// records it too: then Ts, when not 0, must agree with it, and 0 takes it.
	Ts float64
	// TimeCol names a CSV time column, in seconds. Its rows must step
	// uniformly within each batch, by the same step in every batch: the
	// sampling time, which the Dataset's Ts then holds (a missing,
	// repeated or reordered row is ErrTimeStep, naming its line). The
	// empty string looks for the names DefaultTimeCols lists; "-" reads
	// no time column, which is then an extra column like any other. A
	// batch of one row has no step, and one of three or four rows cannot
	// tell a gap from a slower rate: the step is judged against the
	// median step of its batch.
	TimeCol string
	// MinLen, when > 0, makes the reader call Validate(MinLen) on the result.
	MinLen int
	// Delim is the CSV field delimiter; DelimAuto (the default) takes it from the header
	// line.
	Delim Delim
	// Stdin, when not nil, is what ReadFile and ReadFileContext read for the path "-",
	// the command-line convention for standard input; nil leaves "-" an ordinary name.
	Stdin io.Reader
}

// DefaultMaxBytes is the input size limit when ReadOptions.MaxBytes is 0.
const DefaultMaxBytes int64 = 2 << 30

func (o ReadOptions) withDefaults() ReadOptions {
	if o.UCol == "" {
		o.UCol = "u"
	}
	if o.YCol == "" {
		o.YCol = "y"
	}
	if o.BatchCol == "" {
		o.BatchCol = "batch"
	}
	if o.YCleanCol == "" {
		o.YCleanCol = "y_clean"
	}
	if o.MaxBytes == 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	return o
}

// ReadCSV reads a dataset from CSV text; name is used in error messages and as the
// Dataset's Name. It is ReadCSVContext without a context.
func ReadCSV(r io.Reader, name string, opt ReadOptions) (*Dataset, error) {
	return ReadCSVContext(context.Background(), r, name, opt)
}

// ReadCSVContext reads a dataset from CSV text; name is used in error messages and as
// the Dataset's Name. The text needs a header line; u and y columns are required, the
// batch and y_clean columns are optional, and each batch's rows must be contiguous and in
// time order (a batch id reappearing later is ErrInterleavedBatch). Fields are separated
// by opt.Delim, by default the most frequent of ',', ';' and tab on the header line, and
// may be quoted as RFC 4180 and spreadsheets do ("1.5", "a ""b"""), within one line;
// blanks around fields and their quotes are ignored, as is a UTF-8 byte order mark.
// Values must be finite decimal numbers such as 1, -1.5, +2, .5, 5. or 1e-3
// (ErrNotNumeric for anything else, Go's hexadecimal notation, _ digit separators and
// decimal commas included; ErrNotFinite for NaN, ±Inf and values beyond the float64
// range). A first line of numbers only is no header (ErrMissingColumn). A name may
// appear twice in the header only for a column that is not read. Blank lines are
// skipped. Input is streamed line by line; when ctx is done, reading stops with an
// error wrapping ctx.Err().
func ReadCSVContext(ctx context.Context, r io.Reader, name string, opt ReadOptions) (*Dataset, error) {
	opt = opt.withDefaults()
	cd, err := parseCSV(ctx, r, csvSpec{
		name:        name,
		required:    []string{opt.UCol, opt.YCol},
		optional:    []string{opt.YCleanCol},
		batch:       opt.BatchCol,
		ignoreExtra: opt.IgnoreExtra,
		maxBytes:    opt.MaxBytes,
		delim:       opt.Delim,
		time:        opt.timeNames(),
		timeAuto:    opt.TimeCol == "",
	})
	if err != nil {
		return nil, err
	}
	ts := opt.Ts
	if cd.timeCol != "" {
		if ts, err = timeStep(name, cd, opt.Ts); err != nil {
			return nil, err
		}
	}
	d := &Dataset{Name: name, Ts: ts, Batches: make([]Batch, len(cd.batches))}
	if cd.timeCol != "" && opt.Ts == 0 && ts > 0 {
		d.TimeCol = cd.timeCol
	}
	for i, cols := range cd.batches {
		d.Batches[i] = Batch{U: cols[0], Y: cols[1], Label: cd.labels[i], Line: cd.lines[i]}
		if cd.present[0] {
			d.Batches[i].YClean = cols[2]
		}
	}
	return finish(d, opt)
}

// finish runs the optional Validate(MinLen) of ReadOptions.
func finish(d *Dataset, opt ReadOptions) (*Dataset, error) {
	if opt.MinLen > 0 {
		if err := d.Validate(opt.MinLen); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// ReadColumns reads whole numeric columns by name from a CSV file (any batch column is
// not interpreted), e.g. the robot files with columns ue,uv1,uv2,uv3. Other columns are
// an error unless opt.IgnoreExtra; opt's column names are not used.
func ReadColumns(path string, opt ReadOptions, cols ...string) ([][]float64, error) {
	opt = opt.withDefaults()
	f, err := openLimited(path, opt.MaxBytes)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cd, err := parseCSV(context.Background(), f, csvSpec{name: path, required: cols, ignoreExtra: opt.IgnoreExtra, maxBytes: opt.MaxBytes, delim: opt.Delim})
	if err != nil {
		return nil, err
	}
	return cd.batches[0], nil
}

// writeCSV writes d as CSV text with columns batch,u,y(,y_clean); floats are written in
// the shortest form that reads back exactly.
func writeCSV(w io.Writer, d *Dataset) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	clean := len(d.Batches) > 0 && d.Batches[0].YClean != nil
	if clean {
		bw.WriteString("batch,u,y,y_clean\n")
	} else {
		bw.WriteString("batch,u,y\n")
	}
	var buf []byte
	for i, b := range d.Batches {
		for t := range b.U {
			buf = strconv.AppendInt(buf[:0], int64(i), 10)
			buf = append(buf, ',')
			buf = strconv.AppendFloat(buf, b.U[t], 'g', -1, 64)
			buf = append(buf, ',')
			buf = strconv.AppendFloat(buf, b.Y[t], 'g', -1, 64)
			if clean {
				buf = append(buf, ',')
				buf = strconv.AppendFloat(buf, b.YClean[t], 'g', -1, 64)
			}
			buf = append(buf, '\n')
			if _, err := bw.Write(buf); err != nil {
				return err
			}
		}
	}
	return bw.Flush()
}

// WriteCSV writes d to path as CSV with columns batch,u,y and, when the dataset knows
// the clean outputs, y_clean. The dataset is validated first (Validate(1)); nothing is
// written when it is bad. The file is written atomically (temporary file in the same
// directory, then rename), so readers never see a partial file.
func WriteCSV(path string, d *Dataset) error {
	if err := d.Validate(1); err != nil {
		return fmt.Errorf("data: not writing %s: %w", path, err)
	}
	return writeAtomic(path, func(w io.Writer) error { return writeCSV(w, d) })
}

// notText says why a header line is not text — a binary file, or text in
// UTF-16, read as CSV — or returns nil. Without it such a file was refused
// for a missing column, quoting kilobytes of its bytes as the header. Bytes
// that are not UTF-8 are allowed (a header in Latin-1 or Windows-1252, "°C"
// or "µs", is text); control characters other than tab and CR are not.
func notText(line []byte) error {
	if bytes.HasPrefix(line, []byte("\xff\xfe")) || bytes.HasPrefix(line, []byte("\xfe\xff")) {
		return errors.New("UTF-16 text (save it as UTF-8)")
	}
	for i, c := range line {
		if c < 0x20 && c != '\t' && c != '\r' || c == 0x7f {
			return fmt.Errorf("byte %d is the control character 0x%02x (a binary file?)", i+1, c)
		}
	}
	return nil
}
