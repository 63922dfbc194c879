package data

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
)

// The mass-spring-damper plant of the paper (Section VI-A):
//
//	m ẍ = u − k x − 0.5 ẋ − ẋ³,  y = ẋ,
//
// with m = 0.1 kg and k = 10 N/m. The damper force f_c = −0.5 ẋ − ẋ³ is passive.
const (
	MSDMass    = 0.1  // kg
	MSDSpring  = 10.0 // N/m
	MSDDamping = 0.5  // N·s/m, linear part of the damper; the cubic coefficient is 1
)

// MSDFrequencyIndices are the k of the multisine input's frequencies ω = 0.4πk rad/s.
var MSDFrequencyIndices = [10]int{1, 3, 5, 7, 9, 10, 12, 14, 16, 18}

// MSDPhaseDraws is the number of random phase sets drawn per batch; the one with the
// smallest peak-to-peak is kept.
const MSDPhaseDraws = 10

// MSDConfig configures GenerateMSD. Zero fields take the paper's defaults.
type MSDConfig struct {
	Batches int     // number of batches (experiments), ≥ 1
	Seed    uint64  // seed of the random phases and noise; same seed, same data
	Samples int     // samples per batch; default 250 (5 s)
	Ts      float64 // sampling time in s; default 0.02
	Peak    float64 // peak |u| in N; default 15
	// SNR is the output signal-to-noise ratio in dB. The zero value, NaN and +Inf mean
	// noise-free data (Y == YClean). Any other finite value (negative too) adds white
	// Gaussian noise of power mean(y_clean²)/10^(SNR/10), computed per batch. An SNR of
	// exactly 0 dB is therefore not expressible; use a tiny value such as 1e-9.
	SNR float64
	// Substeps is the number of RK4 steps per sampling interval; default 50, minimum 20.
	Substeps int
}

// withDefaults fills zero fields and validates the configuration.
func (c MSDConfig) withDefaults() (MSDConfig, error) {
	if c.Samples == 0 {
		c.Samples = 250
	}
	if c.Ts == 0 {
		c.Ts = 0.02
	}
	if c.Peak == 0 {
		c.Peak = 15
	}
	if c.Substeps == 0 {
		c.Substeps = 50
	}
	switch {
	case c.Batches < 1:
		return c, fmt.Errorf("data: MSD: Batches = %d, need ≥ 1: %w", c.Batches, ErrConfig)
	case c.Samples < 2:
		return c, fmt.Errorf("data: MSD: Samples = %d, need ≥ 2: %w", c.Samples, ErrConfig)
	case !(c.Ts > 0) || math.IsInf(c.Ts, 0):
		return c, fmt.Errorf("data: MSD: Ts = %v, need finite > 0: %w", c.Ts, ErrConfig)
	case !(c.Peak > 0) || math.IsInf(c.Peak, 0):
		return c, fmt.Errorf("data: MSD: Peak = %v, need finite > 0: %w", c.Peak, ErrConfig)
	case c.Substeps < 20:
		return c, fmt.Errorf("data: MSD: Substeps = %d, need ≥ 20 for accuracy: %w", c.Substeps, ErrConfig)
	case math.IsInf(c.SNR, -1):
		return c, fmt.Errorf("data: MSD: SNR = -Inf dB: %w", ErrConfig)
	}
	return c, nil
}

// noisy reports whether the SNR asks for measurement noise.
func (c MSDConfig) noisy() bool {
	return c.SNR != 0 && !math.IsNaN(c.SNR) && !math.IsInf(c.SNR, 0)
}

// GenerateMSD simulates c.Batches experiments of the mass-spring-damper plant from zero
// initial state. Each batch's input is a fresh multisine (see MSDMultisine); the output
// y(t) is the velocity at time t·Ts (so y(0) = 0) under a zero-order-hold input,
// integrated with c.Substeps RK4 steps per sample. The phases come from the PCG stream
// seeded (Seed, Seed) and the noise from the stream (Seed, ^Seed), drawn batch by batch,
// so the first n batches do not depend on c.Batches and the inputs do not depend on SNR. Noise-free batches have YClean == nil (Y is
// clean); noisy ones keep the clean output in YClean.
func GenerateMSD(c MSDConfig) (*Dataset, error) {
	return GenerateMSDContext(context.Background(), c)
}

// GenerateMSDContext is GenerateMSD that stops between batches when ctx is
// done, returning ctx.Err() (a large data set takes minutes).
func GenerateMSDContext(ctx context.Context, c MSDConfig) (*Dataset, error) {
	c, err := c.withDefaults()
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(c.Seed, c.Seed))
	// Noise has its own stream so that the inputs (and clean outputs) do not depend on
	// the SNR: noisy and noise-free data from one seed share their experiments.
	noise := rand.New(rand.NewPCG(c.Seed, ^c.Seed))
	d := &Dataset{Name: fmt.Sprintf("msd(seed=%d)", c.Seed), Ts: c.Ts, Batches: make([]Batch, c.Batches)}
	for i := range d.Batches {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("data: MSD: %w", err)
		}
		u, _, _ := msdMultisine(rng, c.Samples, c.Ts, c.Peak)
		yc := SimulateMSD(u, c.Ts, c.Substeps)
		b := Batch{U: u, Y: yc}
		if c.noisy() {
			b.YClean = yc
			b.Y = addNoise(noise, yc, c.SNR)
		}
		d.Batches[i] = b
	}
	return d, nil
}

// MSDSplitSeeds returns the three distinct seeds (train, validation, test) MSDSplits
// derives from seed, by a bijective 64-bit mix of (seed, split index).
func MSDSplitSeeds(seed uint64) [3]uint64 {
	var s [3]uint64
	for k := range s {
		s[k] = splitmix64(seed*3 + uint64(k))
	}
	return s
}

// splitmix64 is a bijection of uint64 with good avalanche (Steele, Lea, Flood 2014).
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// MSDSplits generates the paper's splits: 300 training, 100 validation and 100 test
// batches of 250 samples, from three distinct seeds (MSDSplitSeeds). snr is optional: no
// value gives noise-free data; one value is the SNR in dB of all three splits (YClean
// keeps the clean outputs for scoring). More than one value is an error.
func MSDSplits(seed uint64, snr ...float64) (train, val, test *Dataset, err error) {
	if len(snr) > 1 {
		return nil, nil, nil, fmt.Errorf("data: MSDSplits: %d SNR values given, want at most 1: %w", len(snr), ErrConfig)
	}
	var s float64
	if len(snr) == 1 {
		s = snr[0]
	}
	seeds := MSDSplitSeeds(seed)
	names := [3]string{"train", "val", "test"}
	sizes := [3]int{300, 100, 100}
	var out [3]*Dataset
	for k := range out {
		out[k], err = GenerateMSD(MSDConfig{Batches: sizes[k], Seed: seeds[k], SNR: s})
		if err != nil {
			return nil, nil, nil, err
		}
		out[k].Name = fmt.Sprintf("msd-%s(seed=%d)", names[k], seed)
	}
	return out[0], out[1], out[2], nil
}

// msdMultisine draws MSDPhaseDraws phase sets, keeps the one whose sampled signal
// Σ_i sin(ω_i t Ts + φ_i) has the smallest peak-to-peak, and scales it to peak |u| =
// peak exactly. It returns the signal, all phase draws, and the index of the kept one.
func msdMultisine(rng *rand.Rand, n int, ts, peak float64) (u []float64, phases [][]float64, best int) {
	phases = make([][]float64, MSDPhaseDraws)
	bestP2P := math.Inf(1)
	for d := range phases {
		ph := make([]float64, len(MSDFrequencyIndices))
		for i := range ph {
			ph[i] = 2 * math.Pi * rng.Float64()
		}
		phases[d] = ph
		x := multisine(ph, n, ts)
		lo, hi := x[0], x[0]
		for _, v := range x {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
		if hi-lo < bestP2P {
			bestP2P, best, u = hi-lo, d, x
		}
	}
	imax := 0
	for t, v := range u {
		if math.Abs(v) > math.Abs(u[imax]) {
			imax = t
		}
	}
	g := peak / math.Abs(u[imax])
	for t := range u {
		u[t] *= g
	}
	// Rounding may leave |u[imax]| one ulp off the requested peak; pin it.
	u[imax] = math.Copysign(peak, u[imax])
	for t := range u { // and make sure no other sample exceeds it after rounding
		u[t] = math.Max(-peak, math.Min(peak, u[t]))
	}
	return u, phases, best
}

// multisine samples Σ_i sin(0.4π k_i · t·Ts + φ_i), t = 0..n−1.
func multisine(phases []float64, n int, ts float64) []float64 {
	x := make([]float64, n)
	for t := range x {
		s := 0.0
		for i, k := range MSDFrequencyIndices {
			s += math.Sin(0.4*math.Pi*float64(k)*float64(t)*ts + phases[i])
		}
		x[t] = s
	}
	return x
}

// addNoise returns y + e with e white Gaussian of power mean(y²)/10^(snr/10).
func addNoise(rng *rand.Rand, y []float64, snr float64) []float64 {
	p := 0.0
	for _, v := range y {
		p += v * v
	}
	p /= float64(len(y))
	sigma := math.Sqrt(p / math.Pow(10, snr/10))
	out := make([]float64, len(y))
	for t, v := range y {
		out[t] = v + sigma*rng.NormFloat64()
	}
	return out
}

// msdDeriv is the plant's vector field for state (x, v) under constant force u.
func msdDeriv(x, v, u float64) (dx, dv float64) {
	return v, (u - MSDSpring*x - MSDDamping*v - v*v*v) / MSDMass
}

// SimulateMSD returns the sampled velocity of the mass-spring-damper plant for the input
// u (held constant over each sampling interval, zero-order hold) from zero initial state:
// y(t) = ẋ(t·Ts), so y(0) = 0 and y(t) depends on u(0..t−1). It integrates with substeps
// classical RK4 steps per interval (values < 1 are treated as 1; use ≥ 20).
func SimulateMSD(u []float64, ts float64, substeps int) []float64 {
	if substeps < 1 {
		substeps = 1
	}
	y := make([]float64, len(u))
	h := ts / float64(substeps)
	x, v := 0.0, 0.0
	for t := 0; t+1 < len(u); t++ {
		f := u[t]
		for s := 0; s < substeps; s++ {
			k1x, k1v := msdDeriv(x, v, f)
			k2x, k2v := msdDeriv(x+0.5*h*k1x, v+0.5*h*k1v, f)
			k3x, k3v := msdDeriv(x+0.5*h*k2x, v+0.5*h*k2v, f)
			k4x, k4v := msdDeriv(x+h*k3x, v+h*k3v, f)
			x += h / 6 * (k1x + 2*k2x + 2*k3x + k4x)
			v += h / 6 * (k1v + 2*k2v + 2*k3v + k4v)
		}
		y[t+1] = v
	}
	return y
}
