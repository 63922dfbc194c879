package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
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
