package trainer

import (
	"fmt"
	"math"

	"github.com/passivenfir/gputrain/data"
)

// GapNote is the DataCheck.PassiveGap (Fit points) from which the data are
// not taken for those of a passive pair. With FIRs of 200 taps on the zoo's
// quick cases (package zoo, seeds 1 and 2), passive plants lost at most 0.4
// points to the constraint (13 dB output noise), the paper's
// mass-spring-damper data 0.4; the robot arm's records (collocated torque
// and velocity, a memory longer than 200 taps) 0.05 to 4.0 with 200 to 500
// taps. Position measured for a force or charge for a voltage lost 11.7 to
// 26, outputs delayed by 1 to 5 samples 9.7 to 29, flipped signs 40 to 58.
const GapNote = 4.5

// NegativeReNote is the −NegativeRe of an FIR that causes takes for that of
// a passive plant when it tries a sign flip or an advance of y: on the zoo,
// passive plants stayed above −0.02, negative examples fell below −0.09.
const NegativeReNote = 0.05

// The likely causes CheckData names when the data are not those of a
// passive pair u → y.
const (
	CauseSign          = "output sign: u or y measured with the opposite sign"
	CauseDelay         = "a delay between u and y"
	CauseNotCollocated = "an output not collocated with the input: position measured instead of velocity (charge instead of current), or a sensor away from the actuator"
	CauseMidMotion     = "records that start mid-motion, with energy stored"
	CauseOffset        = "an offset of y"
)

// spectrumSamples bounds the samples the input spectrum is estimated from.
const spectrumSamples = 1 << 18

// spectrumPoints is the number of frequencies, (f+½)π/spectrumPoints for f
// = 0..spectrumPoints−1, at which the input spectrum and Re G are compared.
const spectrumPoints = 128

// inputSpectrum returns |U(ω)|² summed over the batches of d (the first
// spectrumSamples samples) at the spectrumPoints frequencies.
func inputSpectrum(d *data.Dataset) []float64 {
	s := make([]float64, spectrumPoints)
	for _, b := range head(d, spectrumSamples).Batches {
		for f := range s {
			w := math.Pi * (float64(f) + 0.5) / spectrumPoints
			// rotate a phasor rather than call Sincos per sample
			c, sn := math.Cos(w), math.Sin(w)
			pr, pi := 1.0, 0.0
			var re, im float64
			for t, u := range b.U {
				re += u * pr
				im -= u * pi
				pr, pi = pr*c-pi*sn, pr*sn+pi*c
				if t&1023 == 1023 { // renormalise against rounding drift
					n := math.Hypot(pr, pi)
					pr, pi = pr/n, pi/n
				}
			}
			s[f] += re*re + im*im
		}
	}
	return s
}

// negativeRe returns ∫ S(ω) min(Re G(ω), 0) / ∫ S(ω) |Re G(ω)| over the
// spectrumPoints frequencies, 0 when the denominator is.
func negativeRe(g data.FIR, s []float64) float64 {
	var num, den float64
	for f, p := range s {
		re := g.RealPart(math.Pi * (float64(f) + 0.5) / spectrumPoints)
		num += p * math.Min(re, 0)
		den += p * math.Abs(re)
	}
	if den == 0 {
		return 0
	}
	return num / den
}

// maxDelay bounds the delays that causes tries.
const maxDelay = 50

// causes names what most likely makes c's data non-passive, from the best
// linear FIR g and the input spectrum s: dips alone name a non-collocated
// output or mid-motion starts; a flip of g's sign or an advance of d
// samples that brings its NegativeRe near 0 names a sign or a delay (d
// returned); failing both, an output not collocated with the input.
func causes(c DataCheck, g data.FIR, s []float64) ([]string, int) {
	var out []string
	if math.Abs(c.Offset) > OffsetNote && c.Supply < 0 {
		out = append(out, CauseOffset)
	}
	if c.PassiveGap < GapNote && c.Supply >= 0 {
		// only records giving energy back partway
		return append(out, CauseNotCollocated, CauseMidMotion), 0
	}
	neg := make(data.FIR, len(g))
	for k, v := range g {
		neg[k] = -v
	}
	if negativeRe(neg, s) >= -NegativeReNote {
		return append(out, CauseSign), 0
	}
	for d := 1; d <= min(maxDelay, len(g)/2); d++ {
		if negativeRe(g[d:], s) >= -NegativeReNote/2 {
			// y lags u by d samples in the input's band. A pure delay does
			// that and leaves the first d taps near zero; so does the
			// integral of the collocated output (position), whose response
			// builds up from the first taps. The data cannot always tell
			// them apart: both are named, the likelier first.
			delay := fmt.Sprintf("%s of about %d sample", CauseDelay, d)
			if d > 1 {
				delay += "s"
			}
			if lead(g, d) < delayLead {
				return append(out, delay, CauseNotCollocated), d
			}
			return append(out, CauseNotCollocated, delay), d
		}
	}
	return append(out, CauseNotCollocated), 0
}

// delayLead is the lead(g, d) below which a delay is named before a
// non-collocated output. On the zoo's quick and full cases (seeds 1, 2)
// the delayed outputs gave 0 to 0.27 but once 0.47 (5 samples, 20 dB
// noise), its positions and charges 0.58 to 1.
const delayLead = 0.35

// lead returns max_{k<d} |g(k)| / max_k |g(k)|.
func lead(g data.FIR, d int) float64 {
	var m, l float64
	for k, v := range g {
		m = math.Max(m, math.Abs(v))
		if k < d {
			l = math.Max(l, math.Abs(v))
		}
	}
	if m == 0 {
		return 0
	}
	return l / m
}
