package data

import (
	"bytes"
	"encoding/csv"
	"io"
)

// fieldSplitter splits one line of a CSV file into fields with encoding/csv: quoted
// fields (RFC 4180: "a, b" and "say ""hi""") hold delimiters and quotes. The caller reads
// the lines itself (lineReader), which bounds their length and counts them for messages,
// so a quoted field cannot span lines. Lenient where the reader before it was lenient:
// a quote inside an unquoted field, or one that does not close a quoted field, is taken
// literally (LazyQuotes), and blanks around a quoted field are dropped (tidyQuotes).
type fieldSplitter struct {
	delim byte
	line  lineFeed
	r     *csv.Reader
	tidy  []byte
}

// lineFeed serves the line being split to the csv.Reader, then io.EOF (with the last
// bytes, which spares the csv.Reader's buffer a second read per line).
type lineFeed struct{ b []byte }

func (f *lineFeed) Read(p []byte) (int, error) {
	n := copy(p, f.b)
	f.b = f.b[n:]
	if len(f.b) == 0 {
		return n, io.EOF
	}
	return n, nil
}

func newFieldSplitter(delim byte) *fieldSplitter {
	s := &fieldSplitter{delim: delim}
	s.r = csv.NewReader(&s.line)
	s.r.Comma = rune(delim)
	s.r.FieldsPerRecord = -1 // the caller counts, to name the line and the header's count
	s.r.LazyQuotes = true
	s.r.ReuseRecord = true // one string per line, its fields substrings of it
	return s
}

// split returns the fields of a non-blank line, valid until the next call.
func (s *fieldSplitter) split(line []byte) ([]string, error) {
	if bytes.IndexByte(line, '"') >= 0 {
		s.tidy = tidyQuotes(s.tidy[:0], line, s.delim)
		line = s.tidy
	}
	s.line.b = line
	rec, err := s.r.Read()
	if err == io.EOF {
		return []string{""}, nil // not reached: split gets non-blank lines
	}
	return rec, err
}

// tidyQuotes appends to dst the line without the blanks (spaces, and tabs unless tab
// is the delimiter) between the edges of a field and its quotes: ` "2" ,3` becomes
// `"2",3`. encoding/csv keeps them, taking the quotes literally, and its
// TrimLeadingSpace option would also eat empty tab-separated fields; the reader before
// it trimmed them, and tools that align columns write them. A quote closes a quoted
// field when blanks and then the delimiter or the end of the line follow it, as with
// csv.Reader's LazyQuotes.
func tidyQuotes(dst, line []byte, delim byte) []byte {
	blank := func(c byte) bool { return (c == ' ' || c == '\t') && c != delim }
	skip := func(i int) int {
		for i < len(line) && blank(line[i]) {
			i++
		}
		return i
	}
	for i := 0; ; {
		// i is at the start of a field.
		if j := skip(i); j < len(line) && line[j] == '"' {
			end, next := closingQuote(line, j, delim, skip)
			dst = append(dst, line[j:end]...)
			i = next
		} else {
			k := bytes.IndexByte(line[i:], delim)
			if k < 0 {
				return append(dst, line[i:]...)
			}
			dst = append(dst, line[i:i+k]...)
			i += k
		}
		if i >= len(line) {
			return dst
		}
		dst = append(dst, delim) // line[i] is the delimiter
		i++
	}
}

// closingQuote finds the end of the quoted field opening at line[open]: end is just past
// its closing quote (len(line) when it does not close) and next is where the field ends,
// at the delimiter or the end of the line, after the blanks that skip passes.
func closingQuote(line []byte, open int, delim byte, skip func(int) int) (end, next int) {
	k := open + 1
	for {
		q := bytes.IndexByte(line[k:], '"')
		if q < 0 {
			return len(line), len(line)
		}
		k += q + 1
		if k < len(line) && line[k] == '"' {
			k++ // a doubled quote stands for one
			continue
		}
		if m := skip(k); m == len(line) || line[m] == delim {
			return k, m
		}
	}
}
