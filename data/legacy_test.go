package data

// The CSV reader before it used encoding/csv, kept verbatim (renamed) as the reference of
// TestCSVCompat, which checks that every file it accepted reads the same now, and of
// BenchmarkReadCSV1e6, which compares the speeds.

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
)

type legacyCapReader struct {
	r io.Reader
	n int64
}

func (c *legacyCapReader) Read(p []byte) (int, error) {
	if c.n < 0 {
		return c.r.Read(p)
	}
	if c.n == 0 {
		var b [1]byte
		for {
			k, err := c.r.Read(b[:])
			if k > 0 {
				return 0, errCap
			}
			if err != nil {
				return 0, err
			}
		}
	}
	if int64(len(p)) > c.n {
		p = p[:c.n]
	}
	k, err := c.r.Read(p)
	c.n -= int64(k)
	return k, err
}

func legacyTrimField(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		s = strings.TrimSpace(s[1 : len(s)-1])
	}
	return s
}

// legacyParseCSV streams r line by line; memory is about the parsed floats.
func legacyParseCSV(r io.Reader, sp csvSpec) (*csvData, error) {
	lr := &lineReader{br: bufio.NewReaderSize(&legacyCapReader{r: r, n: sp.maxBytes}, 64<<10)}
	wrapRead := func(err error) error {
		switch {
		case errors.Is(err, errCap):
			return fmt.Errorf("data: %s: more than MaxBytes = %d bytes; split the file (from Go: raise ReadOptions.MaxBytes): %w",
				sp.name, sp.maxBytes, ErrTooLarge)
		case errors.Is(err, errLineTooLong):
			return fmt.Errorf("data: %s line %d: longer than %d bytes; is this a CSV file with one sample per line?: %w",
				sp.name, lr.line, maxLineBytes, ErrTooLarge)
		}
		return fmt.Errorf("data: %s line %d: %w", sp.name, lr.line+1, err)
	}
	// Header: the first non-blank line.
	var header []string
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
		for _, f := range bytes.Split(line, []byte(",")) {
			header = append(header, legacyTrimField(f))
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
			sp.name, headerLine, strings.Join(sp.required, ","), ErrMissingColumn)
	}
	wanted := append(append([]string(nil), sp.required...), sp.optional...)
	colIdx := make([]int, len(wanted)) // header index of each wanted column, -1 if absent
	for i := range colIdx {
		colIdx[i] = -1
	}
	batchIdx, unknown := -1, -1
	seen := map[string]int{}
	for j, h := range header {
		key := strings.ToLower(h)
		if prev, dup := seen[key]; dup {
			return nil, fmt.Errorf("data: %s line %d: column %q appears twice (fields %d and %d); rename one: %w",
				sp.name, headerLine, h, prev+1, j+1, ErrUnknownColumn)
		}
		seen[key] = j
		known := false
		for i, w := range wanted {
			if strings.EqualFold(h, w) {
				colIdx[i], known = j, true
			}
		}
		if sp.batch != "" && strings.EqualFold(h, sp.batch) {
			batchIdx, known = j, true
		}
		if !known && unknown < 0 {
			unknown = j
		}
	}
	for i, w := range sp.required {
		if colIdx[i] < 0 {
			return nil, fmt.Errorf("data: %s line %d: missing column %q; the header has %q; choose the column names with --u and --y (from Go: ReadOptions.UCol, YCol): %w",
				sp.name, headerLine, w, strings.Join(header, ","), ErrMissingColumn)
		}
	}
	if unknown >= 0 && !sp.ignoreExtra {
		opt := append(append([]string(nil), sp.optional...), sp.batch)
		return nil, fmt.Errorf("data: %s line %d: unknown column %q (field %d); expected %s (optional %s); remove it, name the columns with --u and --y, or skip other columns with --ignore-extra (from Go: ReadOptions.UCol, YCol, IgnoreExtra): %w",
			sp.name, headerLine, header[unknown], unknown+1, strings.Join(sp.required, ","), strings.Join(opt, ","), ErrUnknownColumn)
	}
	out := &csvData{present: make([]bool, len(sp.optional))}
	for i := range sp.optional {
		out.present[i] = colIdx[len(sp.required)+i] >= 0
	}
	var cur [][]float64
	curID, curLine := "", 0
	started := map[string]int{} // batch id -> line where it started
	flush := func() {
		if cur != nil {
			out.batches = append(out.batches, cur)
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
		fields := bytes.Split(line, []byte(","))
		if len(fields) != nf {
			return nil, fmt.Errorf("data: %s line %d: %d fields but the header has %d; every row needs one value per column: %w",
				sp.name, lr.line, len(fields), nf, ErrRaggedRow)
		}
		id := ""
		if batchIdx >= 0 {
			id = legacyTrimField(fields[batchIdx])
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
			started[id] = lr.line
			curID, curLine = id, lr.line
			out.labels, out.lines = append(out.labels, id), append(out.lines, lr.line)
			cur = make([][]float64, len(wanted))
		}
		for i, j := range colIdx {
			if j < 0 {
				continue
			}
			s := legacyTrimField(fields[j])
			v, k := parseNumber(s)
			switch k {
			case numNotDecimal:
				return nil, fmt.Errorf("data: %s line %d column %q: %q is not a decimal number; hexadecimal, octal and binary notation and _ digit separators are not accepted, write plain decimals such as 1000, -1.5 or 2.5e-3: %w",
					sp.name, lr.line, header[j], s, ErrNotNumeric)
			case numInvalid:
				return nil, fmt.Errorf("data: %s line %d column %q: %q is not a number; fix or remove the row: %w",
					sp.name, lr.line, header[j], s, ErrNotNumeric)
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
