package main

import (
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
	ignoreExtra bool
}

// addColumnFlags registers --u, --y and --ignore-extra on fs; yUsage
// describes what the command does with the output column.
func addColumnFlags(fs *flag.FlagSet, yUsage string) *columns {
	c := &columns{}
	fs.StringVar(&c.u, "u", "u", "name of the input column (CSV) or variable (.npz, .mat)")
	fs.StringVar(&c.y, "y", "y", yUsage)
	fs.BoolVar(&c.ignoreExtra, "ignore-extra", false, "skip CSV columns other than the input, output, batch and y_clean columns (a time column, say) instead of refusing the file")
	return c
}

// options returns the read options for these columns and sampling time ts.
func (c *columns) options(ts float64) data.ReadOptions {
	return data.ReadOptions{UCol: c.u, YCol: c.y, IgnoreExtra: c.ignoreExtra, Ts: ts}
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

func (o *optFloat) Set(s string) error {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("%q is not a finite number", s)
	}
	o.v, o.set = v, true
	return nil
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
