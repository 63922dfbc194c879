package zoo

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Excitation is the kind of input signal a record is driven by.
type Excitation int

const (
	// Multisine is a sum of 16 sines of random phases at log-uniform random
	// frequencies in the plant's band.
	Multisine Excitation = iota
	// Noise is Gaussian noise low-pass filtered to the plant's band, its
	// amplitude stepping between four random levels over the record.
	Noise
	// PRBS is a random binary sequence ±A whose level is held for about an
	// eighth of the plant's resonance period: steps.
	PRBS
	// Chirp is a logarithmic sine sweep over the plant's band, once per
	// record, of random phase and of a random amplitude between 0.3 and 1
	// times the peak: one frequency at a time, the amplitude differing from
	// record to record.
	Chirp
	// APRBS is an amplitude-modulated random step sequence: levels drawn
	// uniformly in [−A, A], each held for a random time between an eighth
	// of the plant's resonance period and two periods.
	APRBS
)

var excitationNames = [...]string{Multisine: "multisine", Noise: "noise", PRBS: "prbs", Chirp: "chirp", APRBS: "aprbs"}

// String is the flag spelling of e.
func (e Excitation) String() string {
	if e < 0 || int(e) >= len(excitationNames) {
		return fmt.Sprintf("Excitation(%d)", int(e))
	}
	return excitationNames[e]
}

// Set parses a flag value: multisine, noise, prbs, chirp or aprbs.
func (e *Excitation) Set(s string) error {
	for i, n := range excitationNames {
		if s == n {
			*e = Excitation(i)
			return nil
		}
	}
	return fmt.Errorf("excitation %q: want multisine, noise, prbs, chirp or aprbs", s)
}

// band is the excitation band (Hz) of p at sampling time ts: from a tenth
// to 2.5 times the fastest resonance, below 0.45/ts.
func band(p Plant, ts float64) (lo, hi float64) {
	f0 := 1 / p.Period
	hi = math.Min(2.5*f0, 0.45/ts)
	lo = math.Min(0.1*f0, hi/4)
	return lo, hi
}

// signal draws n samples of excitation e with peak |u| = amp.
func signal(rng *rand.Rand, e Excitation, p Plant, n int, ts, amp float64) []float64 {
	lo, hi := band(p, ts)
	u := make([]float64, n)
	peak := 0.0 // what is scaled to amp; 0: the largest |u|
	switch e {
	case Multisine:
		const sines = 16
		for range sines {
			f := lo * math.Pow(hi/lo, rng.Float64())
			ph := 2 * math.Pi * rng.Float64()
			for t := range u {
				u[t] += math.Sin(2*math.Pi*f*float64(t)*ts + ph)
			}
		}
	case Noise:
		// two first-order low-pass stages at hi, amplitude held at one of
		// four random levels for a quarter of the record each
		a := math.Exp(-2 * math.Pi * hi * ts)
		var s1, s2 float64
		level := 1.0
		for t := range u {
			if t%max(1, n/4) == 0 {
				level = 0.15 + 0.85*rng.Float64()
			}
			s1 = a*s1 + (1-a)*rng.NormFloat64()
			s2 = a*s2 + (1-a)*s1
			u[t] = level * s2
		}
	case PRBS:
		hold := max(1, int(math.Round(p.Period/(8*ts))))
		v := 1.0
		if rng.IntN(2) == 0 {
			v = -1
		}
		for t := range u {
			if t > 0 && t%hold == 0 && rng.IntN(2) == 0 {
				v = -v
			}
			u[t] = v
		}
	case Chirp:
		// phase 2π·lo·T/κ·(e^{κt/T} − 1), κ = ln(hi/lo): the frequency
		// rises from lo to hi over the record
		T := float64(n) * ts
		k := math.Log(hi / lo)
		ph := 2 * math.Pi * rng.Float64()
		a := 0.3 + 0.7*rng.Float64()
		for t := range u {
			u[t] = a * math.Sin(ph+2*math.Pi*lo*T/k*(math.Exp(k*float64(t)*ts/T)-1))
		}
		peak = 1 // scaled by the sweep's nominal peak, so that a stays the record's own amplitude
	case APRBS:
		minHold := max(1, int(math.Round(p.Period/(8*ts))))
		maxHold := max(minHold+1, int(math.Round(2*p.Period/ts)))
		v, left := 0.0, 0
		for t := range u {
			if left == 0 {
				v = 2*rng.Float64() - 1
				left = minHold + rng.IntN(maxHold-minHold+1)
			}
			u[t] = v
			left--
		}
	}
	if peak == 0 {
		for _, v := range u {
			peak = math.Max(peak, math.Abs(v))
		}
	}
	if peak > 0 {
		for t := range u {
			u[t] *= amp / peak
		}
	}
	return u
}

// addNoise returns y + e with e white Gaussian of power mean(y²)/10^(snr/10).
func addNoise(rng *rand.Rand, y []float64, snr float64) []float64 {
	p := 0.0
	for _, v := range y {
		p += v * v
	}
	sigma := math.Sqrt(p / float64(len(y)) / math.Pow(10, snr/10))
	out := make([]float64, len(y))
	for t, v := range y {
		out[t] = v + sigma*rng.NormFloat64()
	}
	return out
}
