package trainer

import (
	"fmt"
	"slices"
	"strings"
)

// The modes of a Config are named strings, so that they marshal to JSON,
// TOML and YAML as the plain words they always were (model files and
// --config files keep working), while each implements flag.Value: Set
// accepts only the mode's words and lists them when given another. The
// zero value "" of Monitor, GramGains, Init, Scale and Device is the
// default the field documents (Config.Check accepts it); Set never returns
// it.

// Passivity is how the θ_G step keeps the FIR taps passive.
type Passivity string

const (
	// PassivityExact certifies every FIR exactly (no ε or H to choose).
	PassivityExact Passivity = "exact"
	// PassivitySampled imposes Theorem 3 on H+1 frequencies with margin Eps.
	PassivitySampled Passivity = "sampled"
	// PassivityKYP imposes the KYP LMI of Theorem 4.
	PassivityKYP Passivity = "kyp"
	// PassivityNone imposes nothing (the paper's np variants).
	PassivityNone Passivity = "none"
)

// passivities lists the passivity modes.
var passivities = []Passivity{PassivityExact, PassivitySampled, PassivityKYP, PassivityNone}

// Monitor is what early stopping of the Adam θ_N step watches (Config.Monitor).
type Monitor string

const (
	MonitorOpen   Monitor = "open"   // the one-step-ahead loss Adam minimizes (the default)
	MonitorClosed Monitor = "closed" // the closed-loop simulation error
)

// monitors lists the monitor modes.
var monitors = []Monitor{MonitorOpen, MonitorClosed}

// GramGains is whose gains the θ_G step of an FB model is fitted for
// (Config.GramGains).
type GramGains string

const (
	GramGainsData   GramGains = "data"   // q(t) = y(t−1) of the measured output (the paper)
	GramGainsClosed GramGains = "closed" // q(t) = ŷ(t−1) of the closed-loop simulation
	GramGainsAuto   GramGains = "auto"   // both, keeping the better on validation (the default)
)

// gramGainsModes lists the gram-gains modes.
var gramGainsModes = []GramGains{GramGainsData, GramGainsClosed, GramGainsAuto}

// Init is the lifting network's random initialization (Config.Init).
type Init string

const (
	InitGlorot Init = "glorot" // Glorot uniform weights, zero biases (the default)
	InitFanIn  Init = "fan-in" // weights and biases uniform on ±1/√fan_in (PyTorch's nn.Linear)
)

// inits lists the initializations.
var inits = []Init{InitGlorot, InitFanIn}

// Scale is whether the data are brought to the reference scale (Config.Scale).
type Scale string

const (
	ScaleNone Scale = "none" // settings in the data's own units (the default)
	ScaleAuto Scale = "auto" // settings in units of the reference data (AutoScale)
)

// scales lists the scale modes.
var scales = []Scale{ScaleAuto, ScaleNone}

// Device is where the θ_N steps run (Config.Device).
type Device string

const (
	DeviceCPU  Device = "cpu"  // the default
	DeviceCUDA Device = "cuda" // needs a binary built with -tags nfircuda
)

// devices lists the devices.
var devices = []Device{DeviceCPU, DeviceCUDA}

func (p Passivity) String() string { return string(p) }
func (m Monitor) String() string   { return string(m) }
func (g GramGains) String() string { return string(g) }
func (i Init) String() string      { return string(i) }
func (s Scale) String() string     { return string(s) }
func (d Device) String() string    { return string(d) }

// Set accepts exact, sampled, kyp or none.
func (p *Passivity) Set(s string) error { return setMode(p, s, passivities) }

// Set accepts open or closed.
func (m *Monitor) Set(s string) error { return setMode(m, s, monitors) }

// Set accepts data, closed or auto.
func (g *GramGains) Set(s string) error { return setMode(g, s, gramGainsModes) }

// Set accepts glorot or fan-in.
func (i *Init) Set(s string) error { return setMode(i, s, inits) }

// Set accepts auto or none.
func (s *Scale) Set(v string) error { return setMode(s, v, scales) }

// Set accepts cpu or cuda.
func (d *Device) Set(s string) error { return setMode(d, s, devices) }

// Kind describes the values of the flag, for messages.
func (p *Passivity) Kind() string { return oneOf(passivities) }

// Kind describes the values of the flag, for messages.
func (m *Monitor) Kind() string { return oneOf(monitors) }

// Kind describes the values of the flag, for messages.
func (g *GramGains) Kind() string { return oneOf(gramGainsModes) }

// Kind describes the values of the flag, for messages.
func (i *Init) Kind() string { return oneOf(inits) }

// Kind describes the values of the flag, for messages.
func (s *Scale) Kind() string { return oneOf(scales) }

// Kind describes the values of the flag, for messages.
func (d *Device) Kind() string { return oneOf(devices) }

// setMode sets *m to s when s is one of valid. Its error leaves s out: the
// flag package quotes it already.
func setMode[M ~string](m *M, s string, valid []M) error {
	if !slices.Contains(valid, M(s)) {
		return fmt.Errorf("want %s", words(valid))
	}
	*m = M(s)
	return nil
}

// checkMode reports whether v is one of valid, or "" when zeroOK.
func checkMode[M ~string](v M, valid []M, zeroOK bool) error {
	if slices.Contains(valid, v) || (zeroOK && v == "") {
		return nil
	}
	return fmt.Errorf("want %s, have %q", words(valid), string(v))
}

// words lists modes as "a, b or c".
func words[M ~string](valid []M) string {
	w := make([]string, len(valid))
	for i, v := range valid {
		w[i] = string(v)
	}
	if len(w) < 2 {
		return strings.Join(w, "")
	}
	return strings.Join(w[:len(w)-1], ", ") + " or " + w[len(w)-1]
}

func oneOf[M ~string](valid []M) string { return "one of " + words(valid) }
