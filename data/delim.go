package data

import "fmt"

// Delim is the field delimiter of CSV files. The zero value, DelimAuto, takes it from
// the header line; the others force one. It implements flag.Value.
type Delim byte

const (
	// DelimAuto takes the first of ',', ';' and tab that the header line holds outside
	// quotes, ',' when it holds none of them (a single column).
	DelimAuto      Delim = 0
	DelimComma     Delim = ','
	DelimSemicolon Delim = ';'
	DelimTab       Delim = '\t'
)

// delimNames lists the delimiters with their names, DelimAuto first.
var delimNames = []struct {
	d          Delim
	name, char string
}{
	{DelimAuto, "auto", ""},
	{DelimComma, "comma", ","},
	{DelimSemicolon, "semicolon", ";"},
	{DelimTab, "tab", "\t"},
}

func (d Delim) String() string {
	for _, n := range delimNames {
		if n.d == d {
			return n.name
		}
	}
	return fmt.Sprintf("Delim(%q)", byte(d))
}

// Set parses auto, comma, semicolon or tab, or the character itself (",", ";", a tab
// or the two characters \t).
func (d *Delim) Set(s string) error {
	if s == `\t` {
		s = "\t"
	}
	for _, n := range delimNames {
		if s == n.name || s != "" && s == n.char {
			*d = n.d
			return nil
		}
	}
	return fmt.Errorf("want auto, comma (or ,), semicolon (or ;) or tab (or \\t), have %q", s)
}

// Check returns an error for a value other than the four constants.
func (d Delim) Check() error {
	for _, n := range delimNames {
		if n.d == d {
			return nil
		}
	}
	return fmt.Errorf("data: ReadOptions.Delim = %s: want DelimAuto, DelimComma, DelimSemicolon or DelimTab: %w", d, ErrConfig)
}

// detectDelim returns the first of ',', ';' and tab that the header line holds outside
// double quotes, ',' when it holds none. The comma comes first whatever the counts, so
// that every file the reader took before it detected delimiters reads as before (commas
// padded with tabs, a name with a semicolon in it).
func detectDelim(header []byte) Delim {
	var has [256]bool
	quoted := false
	for _, c := range header {
		if c == '"' {
			quoted = !quoted
		} else if !quoted {
			has[c] = true
		}
	}
	for _, d := range [...]Delim{DelimComma, DelimSemicolon, DelimTab} {
		if has[d] {
			return d
		}
	}
	return DelimComma
}
