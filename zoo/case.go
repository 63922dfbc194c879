package zoo

import (
	"context"
	"fmt"
	"strings"

	"github.com/passivenfir/gputrain/data"
)

// Size chooses how much data a case builds.
type Size int

const (
	// Quick builds a few thousand training samples: a model trains in seconds.
	Quick Size = iota
	// Full builds tens of thousands.
	Full
)

func (s Size) String() string {
	switch s {
	case Quick:
		return "quick"
	case Full:
		return "full"
	}
	return fmt.Sprintf("Size(%d)", int(s))
}

// Set parses a flag value: quick or full.
func (s *Size) Set(v string) error {
	switch v {
	case "quick":
		*s = Quick
	case "full":
		*s = Full
	default:
		return fmt.Errorf("size %q: want quick or full", v)
	}
	return nil
}

// Shape is the records and samples per record of the three splits
// (train, validation, test) at one Size.
type Shape struct {
	Records [3]int
	Samples int
}

// Case is a plant with a measurement protocol: what a user's recordings of
// it would look like.
type Case struct {
	Name  string
	Plant string
	Doc   string // one line: what makes the case hard
	// Passive is false for the negative examples, whose output is not the
	// one collocated with the input; Cause then says what it is instead.
	Passive bool
	Cause   string
	// Shapes are the split sizes, indexed by Size.
	Shapes [2]Shape
	// Gen sets the excitation, amplitude, Ts, output and the noise and drop
	// of the training and validation records (Batches, Samples and Seed
	// are set by Build).
	Gen Config
	// TestAmplitude, when not 0, is the test records' peak |u| (the
	// others use Gen.Amplitude): a larger one makes a model extrapolate.
	TestAmplitude float64
}

var (
	short = [2]Shape{{[3]int{8, 3, 3}, 500}, {[3]int{60, 15, 15}, 500}}
	long  = [2]Shape{{[3]int{1, 1, 1}, 5000}, {[3]int{1, 1, 1}, 40000}}
)

// Cases returns the zoo's passive cases: every plant once as it is usually
// recorded, then the hard cases of real recordings, then the holdout plants
// added after the training defaults were chosen. Their names are unique.
func Cases() []Case {
	return []Case{
		{Name: "twomass", Plant: "twomass", Doc: "multisine, 20 samples per period of the fast mode", Passive: true, Shapes: short, Gen: Config{Excitation: Multisine}},
		{Name: "stribeck", Plant: "stribeck", Doc: "steps (PRBS) through stick-slip", Passive: true, Shapes: short, Gen: Config{Excitation: PRBS}},
		{Name: "backlash", Plant: "backlash", Doc: "filtered noise of varying amplitude, 20 dB output noise", Passive: true, Shapes: short, Gen: Config{Excitation: Noise, SNR: 20}},
		{Name: "boucwen", Plant: "boucwen", Doc: "multisine at 3 samples per resonance period", Passive: true, Shapes: short, Gen: Config{Excitation: Multisine}},
		{Name: "rlc", Plant: "rlc", Doc: "filtered noise of varying amplitude, Ts = 10 µs", Passive: true, Shapes: short, Gen: Config{Excitation: Noise}},
		{Name: "diode", Plant: "diode", Doc: "steps (PRBS) through a rectifying junction, 20 dB output noise", Passive: true, Shapes: short, Gen: Config{Excitation: PRBS, SNR: 20}},
		{Name: "satind", Plant: "satind", Doc: "multisine into a saturating core", Passive: true, Shapes: short, Gen: Config{Excitation: Multisine}},
		{Name: "positioner", Plant: "positioner", Doc: "one long record per split, filtered noise; an impulse response of about 2500 samples", Passive: true, Shapes: long, Gen: Config{Excitation: Noise}},

		{Name: "twomass-noisy13", Plant: "twomass", Doc: "13 dB output noise on training and validation data, clean test", Passive: true, Shapes: short, Gen: Config{Excitation: Multisine, SNR: 13}},
		{Name: "rlc-noisy13", Plant: "rlc", Doc: "13 dB output noise on training and validation data, clean test", Passive: true, Shapes: short, Gen: Config{Excitation: Noise, SNR: 13}},
		{Name: "stribeck-midmotion", Plant: "stribeck", Doc: "records start mid-motion (the first 100 samples cut off)", Passive: true, Shapes: short, Gen: Config{Excitation: Multisine, Drop: 100}},
		{Name: "backlash-midmotion", Plant: "backlash", Doc: "records start mid-motion (the first 100 samples cut off)", Passive: true, Shapes: short, Gen: Config{Excitation: PRBS, Drop: 100}},
		{Name: "satind-long", Plant: "satind", Doc: "one long record per split instead of many short ones", Passive: true, Shapes: long, Gen: Config{Excitation: Noise}},
		{Name: "twomass-long", Plant: "twomass", Doc: "one long record per split, filtered noise", Passive: true, Shapes: long, Gen: Config{Excitation: Noise}},
		{Name: "diode-extrapolate", Plant: "diode", Doc: "test amplitude twice the training one: the nonlinearity is extrapolated", Passive: true, Shapes: short, Gen: Config{Excitation: Multisine, Amplitude: 2.5}, TestAmplitude: 5},
		{Name: "boucwen-extrapolate", Plant: "boucwen", Doc: "test amplitude twice the training one: the nonlinearity is extrapolated", Passive: true, Shapes: short, Gen: Config{Excitation: Noise, Amplitude: 5}, TestAmplitude: 10},
		// holdout plants (session 25), with excitations no other case uses
		{Name: "gearbox", Plant: "gearbox", Doc: "random multilevel steps (APRBS) through a shaft with play; the motor nearly free inside it", Passive: true, Shapes: short, Gen: Config{Excitation: APRBS}},
		{Name: "varactor", Plant: "varactor", Doc: "log chirps of random amplitude into a voltage-dependent capacitance", Passive: true, Shapes: short, Gen: Config{Excitation: Chirp}},
		{Name: "softspring-noisy20", Plant: "softspring", Doc: "filtered noise into a spring that gives way, 20 dB output noise", Passive: true, Shapes: short, Gen: Config{Excitation: Noise, SNR: 20}},
		// holdout plants (session 47), fixed before any run of the search on them
		{Name: "thermistor-noisy25", Plant: "thermistor", Doc: "filtered noise of varying amplitude into a self-heating resistance, 25 dB output noise", Passive: true, Shapes: short, Gen: Config{Excitation: Noise, SNR: 25}},
		{Name: "pendulum", Plant: "pendulum", Doc: "multisine swinging a pendulum to about 90°, 30 dB output noise", Passive: true, Shapes: short, Gen: Config{Excitation: Multisine, SNR: 30}},
		{Name: "dcmotor-noisy20", Plant: "dcmotor", Doc: "log chirps into a motor's terminals, friction seen through the back-EMF, 20 dB output noise", Passive: true, Shapes: short, Gen: Config{Excitation: Chirp, SNR: 20}},
	}
}

// Negatives returns the zoo's negative examples: passive plants measured at
// an output that is not collocated with the input, so that the pair u → y
// is not passive. A data check must flag every one of them.
func Negatives() []Case {
	neg := func(name, plant, cause string, out Output, delay int, e Excitation, snr float64) Case {
		return Case{Name: name, Plant: plant, Doc: cause, Cause: cause, Shapes: short,
			Gen: Config{Excitation: e, Output: out, Delay: delay, SNR: snr}}
	}
	return []Case{
		neg("twomass-position", "twomass", "position measured instead of velocity", Position, 0, Multisine, 0),
		neg("stribeck-position", "stribeck", "position measured instead of velocity", Position, 0, PRBS, 0),
		neg("rlc-charge", "rlc", "charge measured instead of current", Position, 0, Noise, 20),
		neg("twomass-delay3", "twomass", "output delayed by 3 samples", Delayed, 3, Multisine, 0),
		neg("boucwen-delay1", "boucwen", "output delayed by 1 sample", Delayed, 1, Multisine, 0),
		neg("diode-delay2", "diode", "output delayed by 2 samples", Delayed, 2, PRBS, 0),
		neg("satind-delay5", "satind", "output delayed by 5 samples", Delayed, 5, Multisine, 20),
		neg("backlash-flip", "backlash", "output sign flipped", Flipped, 0, Noise, 0),
		neg("rlc-flip", "rlc", "output sign flipped", Flipped, 0, Noise, 13),
	}
}

// LookupCase returns the case (passive or negative) called name; the error
// lists the valid names.
func LookupCase(name string) (Case, error) {
	var names []string
	for _, c := range append(Cases(), Negatives()...) {
		if c.Name == name {
			return c, nil
		}
		names = append(names, c.Name)
	}
	return Case{}, fmt.Errorf("zoo: unknown case %q; the cases are %s: %w", name, strings.Join(names, ", "), ErrUnknown)
}

// Build generates the case's training, validation and test data at size
// s, from three seeds derived from seed. Noise and Drop apply to training
// and validation; the test records start at rest, are noise-free and use
// TestAmplitude when it is set, so that a test Fit measures the model
// alone.
func (c Case) Build(ctx context.Context, s Size, seed uint64) (train, val, test *data.Dataset, err error) {
	p, err := Lookup(c.Plant)
	if err != nil {
		return nil, nil, nil, err
	}
	if s != Quick && s != Full {
		return nil, nil, nil, fmt.Errorf("zoo: %s: unknown size %v: %w", c.Name, s, ErrConfig)
	}
	sh := c.Shapes[s]
	seeds := data.MSDSplitSeeds(seed)
	var out [3]*data.Dataset
	for k, split := range [3]string{"train", "val", "test"} {
		g := c.Gen
		g.Batches, g.Samples, g.Seed = sh.Records[k], sh.Samples, seeds[k]
		if k == 2 {
			g.SNR, g.Drop = 0, 0
			if c.TestAmplitude != 0 {
				g.Amplitude = c.TestAmplitude
			}
		}
		d, err := Generate(ctx, p, g)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("zoo: case %s, %s: %w", c.Name, split, err)
		}
		d.Name = fmt.Sprintf("%s-%s(seed=%d)", c.Name, split, seed)
		out[k] = d
	}
	return out[0], out[1], out[2], nil
}
