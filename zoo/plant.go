package zoo

import (
	"fmt"
	"math"
	"strings"
)

// Plant is a passive nonlinear system in continuous time, driven by a
// zero-order-hold input and measured by the integrating output of the
// package doc: y_k = (p((k+1)Ts) − p(kTs))/Ts, where p is the port
// displacement (the position of the driven mass, the charge through the
// electrical port).
type Plant struct {
	Name    string
	Kind    string // "mechanical" or "electrical"
	Doc     string // one line
	Physics string // the equations and why the sampled map is passive
	// Input and Output name the port's variables with their units.
	Input, Output string
	// Ts is the default sampling time (s), Amplitude the default peak |u|.
	Ts, Amplitude float64
	// Period is the period (s) of the fastest small-signal resonance, which
	// sets the excitation band and the samples per period Ts gives.
	Period float64

	states int
	// hmax is the largest RK4 step that integrates the plant accurately at
	// its default amplitude; Simulate takes ⌈Ts/hmax⌉ steps per sample.
	hmax float64
	// field writes the vector field at state x under the input u into dx.
	field func(x, dx []float64, u float64)
	// port is the port displacement p(x), whose rate is the collocated
	// output (velocity, current).
	port func(x []float64) float64
	// storage is the energy stored in state x (J), zero at rest: the
	// storage function of the passivity argument, checked by the tests.
	storage func(x []float64) float64
	// loss is the power dissipated in state x (W), ≥ 0: with storage, the
	// power balance u·ṗ = dS/dt + loss that the tests check.
	loss func(x []float64) float64
}

// SamplesPerPeriod is the number of samples per period of the plant's
// fastest resonance at sampling time ts.
func (p Plant) SamplesPerPeriod(ts float64) float64 { return p.Period / ts }

// maxSubsteps bounds the RK4 steps per sample: a sampling time that needs
// more is far outside what the plant's dynamics are sampled at.
const maxSubsteps = 20000

// substeps returns the RK4 steps per sample at sampling time ts.
func (p Plant) substeps(ts float64) (int, error) {
	n := int(math.Ceil(ts / p.hmax))
	if n > maxSubsteps {
		return 0, fmt.Errorf("zoo: %s: Ts = %g s needs %d RK4 steps per sample, more than %d; use Ts ≤ %g s: %w",
			p.Name, ts, n, maxSubsteps, maxSubsteps*p.hmax, ErrConfig)
	}
	return max(n, 10), nil
}

// trajectory integrates the plant from state x0 (zero when nil) under the
// zero-order-hold input u with sampling time ts and returns the states at
// t = 0, Ts, ..., len(u)·Ts (len(u)+1 rows).
func (p Plant) trajectory(u []float64, ts float64, x0 []float64) ([][]float64, error) {
	n, err := p.substeps(ts)
	if err != nil {
		return nil, err
	}
	h := ts / float64(n)
	x := make([]float64, p.states)
	copy(x, x0)
	xs := make([][]float64, len(u)+1)
	xs[0] = append([]float64(nil), x...)
	k1, k2, k3, k4, tmp := make([]float64, p.states), make([]float64, p.states), make([]float64, p.states), make([]float64, p.states), make([]float64, p.states)
	for t, f := range u {
		for range n {
			p.field(x, k1, f)
			for i := range x {
				tmp[i] = x[i] + 0.5*h*k1[i]
			}
			p.field(tmp, k2, f)
			for i := range x {
				tmp[i] = x[i] + 0.5*h*k2[i]
			}
			p.field(tmp, k3, f)
			for i := range x {
				tmp[i] = x[i] + h*k3[i]
			}
			p.field(tmp, k4, f)
			for i := range x {
				x[i] += h / 6 * (k1[i] + 2*k2[i] + 2*k3[i] + k4[i])
			}
		}
		for _, v := range x {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("zoo: %s: the simulation diverged at sample %d (peak |u| too large for Ts = %g s?): %w", p.Name, t, ts, ErrConfig)
			}
		}
		xs[t+1] = append([]float64(nil), x...)
	}
	return xs, nil
}

// Simulate returns the collocated output y_k = (p((k+1)Ts) − p(kTs))/Ts of
// the plant started at rest under the zero-order-hold input u: the mean
// velocity (or current) over each sampling interval, so that Σ u_k y_k Ts
// is the energy the input delivered.
func (p Plant) Simulate(u []float64, ts float64) ([]float64, error) {
	if !(ts > 0) || math.IsInf(ts, 0) {
		return nil, fmt.Errorf("zoo: %s: Ts = %v, need finite > 0: %w", p.Name, ts, ErrConfig)
	}
	xs, err := p.trajectory(u, ts, nil)
	if err != nil {
		return nil, err
	}
	return meanRate(p, xs, ts), nil
}

// meanRate returns (p(x_{k+1}) − p(x_k))/ts for k < len(xs)−1.
func meanRate(p Plant, xs [][]float64, ts float64) []float64 {
	y := make([]float64, len(xs)-1)
	for k := range y {
		y[k] = (p.port(xs[k+1]) - p.port(xs[k])) / ts
	}
	return y
}

// Plants returns the zoo's plants, in a fixed order.
func Plants() []Plant {
	return []Plant{twoMass(), stribeck(), backlash(), boucWen(), rlc(), diode(), satInductor(), positioner(), gearbox(), varactor(), softSpring(), thermistor(), pendulum(), dcMotor()}
}

// Names returns the names of the zoo's plants.
func Names() []string {
	var s []string
	for _, p := range Plants() {
		s = append(s, p.Name)
	}
	return s
}

// Lookup returns the plant called name; the error lists the valid names.
func Lookup(name string) (Plant, error) {
	for _, p := range Plants() {
		if p.Name == name {
			return p, nil
		}
	}
	return Plant{}, fmt.Errorf("zoo: unknown plant %q; the plants are %s: %w", name, strings.Join(Names(), ", "), ErrUnknown)
}
