package plot

import (
	"math"
	"strconv"

	gplot "gonum.org/v1/plot"
)

// SymLogScale is a symmetric log scale for an axis (a gonum plot.Normalizer):
// linear within ±Threshold, logarithmic outside. It maps x to
// x/(T·ln 10) for |x| ≤ T = Threshold and to sign(x)·(1/ln 10 + log10(|x|/T))
// beyond, a map with a continuous slope at ±T: the linear zone spans 0.87
// of a decade, and values of either sign and of very different sizes share
// one axis. Re G near its
// margin of 0 and Re G of order one are both readable on it, which a linear
// axis hides and a log axis, undefined at 0 and below, cannot show.
//
// Threshold must be > 0.
type SymLogScale struct {
	Threshold float64
}

var _ gplot.Normalizer = SymLogScale{}

// Normalize returns the fraction of the axis [min, max] at which x lies.
func (s SymLogScale) Normalize(min, max, x float64) float64 {
	lo, hi := symlog(min, s.Threshold), symlog(max, s.Threshold)
	return (symlog(x, s.Threshold) - lo) / (hi - lo)
}

// symlog is the transform of SymLogScale.
func symlog(x, t float64) float64 {
	if math.Abs(x) <= t {
		return x / (t * math.Ln10)
	}
	return math.Copysign(1/math.Ln10+math.Log10(math.Abs(x)/t), x)
}

// SymLogTicks marks a SymLogScale axis (a gonum plot.Ticker): 0 and the
// powers of ten of either sign from five times the threshold outwards,
// labelled, and minor ticks at the multiples 1…9 of the powers of ten from
// the threshold outwards. (The label of the threshold's own decade would sit
// on that of 0.) When the range spans more than six decades
// every other power of ten keeps its label, so labels do not overlap.
//
// Threshold must be > 0; it should be the Threshold of the axis' scale.
type SymLogTicks struct {
	Threshold float64
}

var _ gplot.Ticker = SymLogTicks{}

// Ticks returns the ticks in [min, max].
func (t SymLogTicks) Ticks(min, max float64) []gplot.Tick {
	top := math.Max(math.Abs(min), math.Abs(max))
	if !(t.Threshold > 0) || !(top > 0) || math.IsInf(top, 0) {
		return defaultTicks(min, max)
	}
	// Closer to 0 than the threshold the scale is linear, and 0 is the
	// mark.
	k0 := int(math.Ceil(math.Log10(t.Threshold)))
	k1 := int(math.Ceil(math.Log10(top)))
	step := 1
	if k1-k0 > 6 {
		step = 2
	}
	in := func(v float64) bool { return v >= min && v <= max }
	var neg, pos []gplot.Tick
	for k := k0; k <= k1; k++ {
		d := math.Pow10(k)
		label := ""
		if d >= 5*t.Threshold && (k1-k)%step == 0 {
			label = strconv.FormatFloat(d, 'g', -1, 64)
		}
		for i := 1; i < 10; i++ {
			v, l := float64(i)*d, ""
			if i == 1 {
				l = label
			}
			if in(v) {
				pos = append(pos, gplot.Tick{Value: v, Label: l})
			}
			if in(-v) {
				if l != "" {
					l = "-" + l
				}
				neg = append(neg, gplot.Tick{Value: -v, Label: l})
			}
		}
	}
	ticks := make([]gplot.Tick, 0, len(neg)+len(pos)+1)
	for i := len(neg) - 1; i >= 0; i-- {
		ticks = append(ticks, neg[i])
	}
	if in(0) {
		ticks = append(ticks, gplot.Tick{Value: 0, Label: "0"})
	}
	return append(ticks, pos...)
}

// defaultTicks are gonum's default ticks, and one labelled tick where the
// range is a single value (gonum's panic).
func defaultTicks(min, max float64) []gplot.Tick {
	if !(max > min) {
		return []gplot.Tick{{Value: min, Label: strconv.FormatFloat(min, 'g', 6, 64)}}
	}
	return gplot.DefaultTicks{}.Ticks(min, max)
}
