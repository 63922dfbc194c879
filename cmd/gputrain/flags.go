package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/passivenfir/gputrain/data"
)

// intList is a flag holding comma-separated positive integers ("4,4"); an
// empty value or "none" is the empty list (e.g. no hidden layers).
type intList []int

func (l *intList) String() string {
	if l == nil {
		return ""
	}
	parts := make([]string, len(*l))
	for i, v := range *l {
		parts[i] = strconv.Itoa(v)
	}
	return strings.Join(parts, ",")
}

// Kind describes the values of the flag, for messages.
func (l *intList) Kind() string { return "a list of whole numbers (like [8, 8] or \"8,8\")" }

func (l *intList) Set(s string) error {
	s = strings.TrimSpace(s)
	*l = (*l)[:0]
	if s == "" || strings.EqualFold(s, "none") {
		return nil
	}
	for _, p := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil {
			return fmt.Errorf("%q is not a comma-separated list of integers such as 4,4", s)
		}
		if v <= 0 {
			return fmt.Errorf("%q: every entry must be ≥ 1", s)
		}
		*l = append(*l, v)
	}
	return nil
}

// columns are the data-column flags of the commands that read data files.
type columns struct {
	u, y        string
	time        string
	ignoreExtra bool
	delim       data.Delim
	// stored* are the names set by useModel from the model's training
	// object rather than by the user: read falls back to u and y for them.
	storedU, storedY bool
	// modelU and modelY are the names in the model's training object ("" if
	// none), kept apart from u and y, which the user may have overridden.
	modelU, modelY string
	// inputOnly: the command reads the input column only (simulate), so
	// its hints name --u alone.
	inputOnly bool
}

// addColumnFlags registers --u, --y and --ignore-extra on fs; yUsage
// describes what the command does with the output column.
func addColumnFlags(fs *flag.FlagSet, yUsage string) *columns {
	c := &columns{}
	fs.StringVar(&c.u, "u", "u", "name of the input column (CSV) or variable (.npz, .mat)")
	fs.StringVar(&c.y, "y", "y", yUsage)
	fs.BoolVar(&c.ignoreExtra, "ignore-extra", false, "skip CSV columns other than the input, output, batch, y_clean and time columns (notes, say, or a time column of dates or clock times) instead of refusing the file")
	fs.Var(&c.delim, "delim", "the `delimiter` of CSV fields: auto (the first of comma, semicolon and tab in the header line), comma, semicolon or tab")
	fs.StringVar(&c.time, "time", "", "the `name` of the CSV time column, in seconds (default: time or t, bare or as time [s], time (s), time_s): its rows must step uniformly, one row per sampling time, and its step is the sampling time where --ts is 0 (else the two must agree); a missing or repeated row is refused with its line; - reads no time column")
	return c
}

// options returns the read options for these columns and sampling time ts.
func (c *columns) options(ts float64) data.ReadOptions {
	return data.ReadOptions{UCol: c.u, YCol: c.y, TimeCol: c.time, IgnoreExtra: c.ignoreExtra, Ts: ts, Delim: c.delim, Stdin: stdin}
}

// note says in the help of --u and --y that a command reading a model uses
// the model's own column names by default (useModel).
func (c *columns) note(fs *flag.FlagSet) {
	for _, name := range []string{"u", "y"} {
		f := fs.Lookup(name)
		f.Usage += " (default: the name the model was trained with, falling back to " + name + ")"
	}
}

// useModel sets --u and --y, where neither the command line nor --config gave
// them, to the column names the model was trained with (the "u" and "y" keys
// of its training object), so that a model trained with --u torque --y angle
// evaluates data of the same layout without repeating the flags.
func (c *columns) useModel(fs *flag.FlagSet, training json.RawMessage) {
	var names struct {
		U, Y any
	}
	if len(training) == 0 || json.Unmarshal(training, &names) != nil {
		return
	}
	if s, ok := names.U.(string); ok && s != "" {
		c.modelU = s
		if s != c.u && !isSet(fs, "u") {
			c.u, c.storedU = s, true
		}
	}
	if s, ok := names.Y.(string); ok && s != "" {
		c.modelY = s
		if s != c.y && !isSet(fs, "y") {
			c.y, c.storedY = s, true
		}
	}
}

// read calls read with these columns' options. When the file lacks a column
// whose name came from the model (useModel), it tries the default name (u or
// y) for that column instead, and if that fails too it returns the first error,
// which names the model's columns and the flags that override them.
func (c *columns) read(ts float64, read func(data.ReadOptions) (*data.Dataset, error)) (*data.Dataset, error) {
	d, err := read(c.options(ts))
	if err == nil || !errors.Is(err, data.ErrMissingColumn) {
		return d, err
	}
	if c.storedU || c.storedY {
		alt := *c
		if c.storedU {
			alt.u = "u"
		}
		if c.storedY {
			alt.y = "y"
		}
		if d2, err2 := read(alt.options(ts)); err2 == nil {
			return d2, nil
		}
	}
	switch {
	case c.modelU == "":
		return nil, err
	case c.inputOnly:
		return nil, fmt.Errorf("%w (the model was trained with --u %s)", err, c.modelU)
	}
	return nil, fmt.Errorf("%w (the model was trained with --u %s --y %s)", err, c.modelU, cmp.Or(c.modelY, "y"))
}

// optFloat is a float flag that remembers whether it was given.
type optFloat struct {
	v   float64
	set bool
}

func (o *optFloat) String() string {
	if o == nil || !o.set {
		return ""
	}
	return strconv.FormatFloat(o.v, 'g', -1, 64)
}

// Kind describes the values of the flag, for messages.
func (o *optFloat) Kind() string { return "a value of type float (a number)" }

func (o *optFloat) Set(s string) error {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("%q is not a finite number", s)
	}
	o.v, o.set = v, true
	return nil
}

// autoFloat is a float flag that also takes "auto" (held as NaN): a value
// the command derives when none is given. It is a float64, not a struct, so
// that checkFlagValue can parse a config file's value into a fresh one.
type autoFloat float64

func (f *autoFloat) String() string {
	if f == nil {
		return "0"
	}
	if f.auto() {
		return "auto"
	}
	return strconv.FormatFloat(float64(*f), 'g', -1, 64)
}

// Kind describes the values of the flag, for messages.
func (f *autoFloat) Kind() string { return "auto or a number" }

func (f *autoFloat) Set(s string) error {
	s = strings.TrimSpace(s)
	if s == "auto" {
		*f = autoFloat(math.NaN())
		return nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("%q is neither auto nor a finite number", s)
	}
	*f = autoFloat(v)
	return nil
}

func (f *autoFloat) auto() bool { return math.IsNaN(float64(*f)) }

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
