package zoo

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/passivenfir/gputrain/data"
)

// Sentinel errors: ErrConfig for an invalid configuration, ErrUnknown for
// an unknown plant or case name.
var (
	ErrConfig  = errors.New("invalid configuration")
	ErrUnknown = errors.New("unknown name")
)

// Output is what a record measures. Only Collocated makes a passive pair;
// the others are the zoo's negative examples, made from passive plants.
type Output int

const (
	// Collocated is the mean velocity (current) of the package doc.
	Collocated Output = iota
	// Position is the port displacement p((k+1)Ts) (position for a force,
	// charge for a voltage): the integral of the collocated output.
	Position
	// Delayed is the collocated output delayed by Config.Delay samples
	// (zero before).
	Delayed
	// Flipped is the collocated output with its sign flipped.
	Flipped
)

var outputNames = [...]string{Collocated: "collocated", Position: "position", Delayed: "delayed", Flipped: "flipped"}

func (o Output) String() string {
	if o < 0 || int(o) >= len(outputNames) {
		return fmt.Sprintf("Output(%d)", int(o))
	}
	return outputNames[o]
}

// Config configures Generate. Zero fields take the defaults given.
type Config struct {
	Batches int    // records, ≥ 1
	Samples int    // samples per record, ≥ 2
	Seed    uint64 // same seed, same data
	// Ts is the sampling time (s); 0: the plant's.
	Ts         float64
	Excitation Excitation
	// Amplitude is the peak |u| (of a Chirp record: the most its sweep
	// reaches, each record's amplitude drawn between 0.3 and 1 times it);
	// 0: the plant's.
	Amplitude float64
	// SNR is the output signal-to-noise ratio in dB, per record; 0, NaN
	// and +Inf mean noise-free data (YClean nil). Noisy records keep the
	// clean output in YClean.
	SNR float64
	// Drop samples are simulated and dropped at the start of every record,
	// which then starts mid-motion, with energy stored: such records are
	// not passive from their first sample (Σ u·y may dip below zero by up
	// to the energy stored at the cut).
	Drop   int
	Output Output
	Delay  int // samples, for Output Delayed, ≥ 1
	// Periods, when 2 or more, repeats the excitation within each record:
	// its first ⌈Samples/Periods⌉ samples are drawn, and the record repeats
	// them (the periods of one measured multisine, as identification
	// experiments take them); with Alternate every other period has its
	// sign flipped (u(t+P) = −u(t), the halves of an odd multisine). 0 and
	// 1: no repeat. The dropped samples (Drop) come before the first period.
	Periods   int
	Alternate bool
}

// Check validates c for plant p and returns it with its defaults filled in.
func (c Config) Check(p Plant) (Config, error) {
	if c.Ts == 0 {
		c.Ts = p.Ts
	}
	if c.Amplitude == 0 {
		c.Amplitude = p.Amplitude
	}
	var errs []error
	bad := func(format string, a ...any) {
		errs = append(errs, fmt.Errorf("zoo: %s: "+format+": %w", append(append([]any{p.Name}, a...), ErrConfig)...))
	}
	if c.Batches < 1 {
		bad("Batches = %d, need ≥ 1", c.Batches)
	}
	if c.Samples < 2 {
		bad("Samples = %d, need ≥ 2", c.Samples)
	}
	if !(c.Ts > 0) || math.IsInf(c.Ts, 0) {
		bad("Ts = %v, need finite > 0", c.Ts)
	} else if _, err := p.substeps(c.Ts); err != nil {
		errs = append(errs, err)
	}
	if !(c.Amplitude > 0) || math.IsInf(c.Amplitude, 0) {
		bad("Amplitude = %v, need finite > 0", c.Amplitude)
	}
	if math.IsInf(c.SNR, -1) {
		bad("SNR = -Inf dB")
	}
	if c.Drop < 0 {
		bad("Drop = %d, need ≥ 0", c.Drop)
	}
	switch {
	case c.Periods < 0:
		bad("Periods = %d, need ≥ 0", c.Periods)
	case c.Periods > 1 && c.Samples/c.Periods < 2:
		bad("Periods = %d of %d samples: need at least 2 samples a period", c.Periods, c.Samples)
	case c.Alternate && c.Periods < 2:
		bad("Alternate with Periods = %d: need ≥ 2 periods to alternate", c.Periods)
	}
	if c.Excitation < 0 || int(c.Excitation) >= len(excitationNames) {
		bad("unknown excitation %v", c.Excitation)
	}
	switch {
	case c.Output < 0 || int(c.Output) >= len(outputNames):
		bad("unknown output %v", c.Output)
	case c.Output == Delayed && c.Delay < 1:
		bad("Delay = %d with a delayed output, need ≥ 1", c.Delay)
	case c.Output != Delayed && c.Delay != 0:
		bad("Delay = %d with output %v; a delay needs Output Delayed", c.Delay, c.Output)
	}
	return c, errors.Join(errs...)
}

func (c Config) noisy() bool { return c.SNR != 0 && !math.IsNaN(c.SNR) && !math.IsInf(c.SNR, 0) }

// Generate simulates c.Batches records of plant p, each from rest under a
// fresh excitation. Inputs come from the PCG stream (Seed, Seed) and noise
// from (Seed, ^Seed), record by record, so the first n records do not
// depend on c.Batches and the inputs do not depend on the SNR.
func Generate(ctx context.Context, p Plant, c Config) (*data.Dataset, error) {
	c, err := c.Check(p)
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(c.Seed, c.Seed))
	noise := rand.New(rand.NewPCG(c.Seed, ^c.Seed))
	d := &data.Dataset{Name: fmt.Sprintf("%s(seed=%d)", p.Name, c.Seed), Ts: c.Ts, Batches: make([]data.Batch, c.Batches)}
	for i := range d.Batches {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("zoo: %s: %w", p.Name, err)
		}
		u := excite(rng, c, p)
		xs, err := p.trajectory(u, c.Ts, nil)
		if err != nil {
			return nil, err
		}
		u, xs = u[c.Drop:], xs[c.Drop:]
		y := measure(p, c, xs)
		b := data.Batch{U: u, Y: y}
		if c.noisy() {
			b.YClean, b.Y = y, addNoise(noise, y, c.SNR)
		}
		d.Batches[i] = b
	}
	return d, nil
}

// excite draws one record's input, Drop + Samples samples, repeating its
// first period when c.Periods asks.
func excite(rng *rand.Rand, c Config, p Plant) []float64 {
	if c.Periods < 2 {
		return signal(rng, c.Excitation, p, c.Drop+c.Samples, c.Ts, c.Amplitude)
	}
	period := (c.Samples + c.Periods - 1) / c.Periods
	base := signal(rng, c.Excitation, p, period, c.Ts, c.Amplitude)
	u := make([]float64, c.Drop+c.Samples)
	for t := range u {
		// the dropped samples end where the first period starts
		k := t - c.Drop
		i := ((k % period) + period) % period
		u[t] = base[i]
		if c.Alternate && k >= 0 && (k/period)%2 == 1 {
			u[t] = -u[t]
		}
	}
	return u
}

// measure returns the output c asks for from the states xs (one more than
// the samples).
func measure(p Plant, c Config, xs [][]float64) []float64 {
	y := meanRate(p, xs, c.Ts)
	switch c.Output {
	case Position:
		for k := range y {
			y[k] = p.port(xs[k+1])
		}
	case Delayed:
		d := min(c.Delay, len(y))
		copy(y[d:], y[:len(y)-d])
		clear(y[:d])
	case Flipped:
		for k := range y {
			y[k] = -y[k]
		}
	}
	return y
}
