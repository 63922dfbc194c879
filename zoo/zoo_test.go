package zoo

import (
	"context"
	"errors"
	"reflect"
	"strings"

	"github.com/passivenfir/gputrain/data"
	"math"
	"math/rand/v2"
	"testing"
)

// TestPlantsPassive checks the passivity argument of every plant on random
// excitations of random amplitude (up to 1.5 times the default): the
// running supply Σ_{j<k} u_j y_j Ts equals the rise of the stored energy
// S(x_k) − S(x_0) plus the energy dissipated (integrated along with the
// state), the dissipated power is never negative, and so, from rest, the
// supply never falls below zero.
func TestPlantsPassive(t *testing.T) {
	for _, p := range Plants() {
		t.Run(p.Name, func(t *testing.T) {
			// the plant with one more state: the energy dissipated
			aug := p
			aug.states = p.states + 1
			aug.field = func(x, dx []float64, u float64) {
				p.field(x[:p.states], dx[:p.states], u)
				dx[p.states] = p.loss(x[:p.states])
			}
			rng := rand.New(rand.NewPCG(7, 7))
			for _, e := range []Excitation{Multisine, Noise, PRBS, Chirp, APRBS, Multisine, Noise, PRBS, Chirp, APRBS} {
				amp := p.Amplitude * (0.3 + 1.2*rng.Float64())
				u := signal(rng, e, p, 400, p.Ts, amp)
				xs, err := aug.trajectory(u, p.Ts, nil)
				if err != nil {
					t.Fatal(err)
				}
				y := meanRate(p, xs, p.Ts)
				var supply, scale, worst float64
				for k := range u {
					scale += math.Abs(u[k]*y[k]) * p.Ts
				}
				for k := range u {
					supply += u[k] * y[k] * p.Ts
					if supply < -1e-9*scale {
						t.Fatalf("%v, peak %.3g: supply %.3g J at sample %d (scale %.3g J)", e, amp, supply, k, scale)
					}
					x := xs[k+1]
					if l := p.loss(x[:p.states]); l < 0 {
						t.Fatalf("%v: dissipated power %.3g W < 0 at sample %d", e, l, k)
					}
					balance := supply - (p.storage(x) - p.storage(xs[0])) - x[p.states]
					worst = math.Max(worst, math.Abs(balance)/scale)
				}
				if worst > 1e-6 {
					t.Errorf("%v, peak %.3g: supply − stored − dissipated reaches %.3g·scale: the storage, the loss or the integration is wrong", e, amp, worst)
				}
				t.Logf("%v peak %.3g: worst |supply − stored − dissipated|/scale %.2g", e, amp, worst)
			}
		})
	}
}

// TestBuild checks what every case promises: the plant's sampling time,
// the split sizes, noise on training and validation only (YClean kept), a
// clean test at the test amplitude, and, for the passive cases, records
// from rest whose running supply Σ u·y never falls below zero (the clean
// output, where noise was added).
func TestBuild(t *testing.T) {
	names := map[string]bool{}
	for _, c := range append(Cases(), Negatives()...) {
		if names[c.Name] {
			t.Errorf("case name %q twice", c.Name)
		}
		names[c.Name] = true
		p, err := Lookup(c.Plant)
		if err != nil {
			t.Fatal(err)
		}
		if c.Passive != (c.Gen.Output == Collocated) || c.Passive != (c.Cause == "") {
			t.Errorf("%s: Passive %v with output %v and cause %q", c.Name, c.Passive, c.Gen.Output, c.Cause)
		}
		q, f := c.Shapes[Quick], c.Shapes[Full]
		if n := q.Records[0] * q.Samples; n < 2000 || n > 6000 {
			t.Errorf("%s: %d quick training samples, want a few thousand", c.Name, n)
		}
		if n := f.Records[0] * f.Samples; n < 20000 || n > 100000 {
			t.Errorf("%s: %d full training samples, want tens of thousands", c.Name, n)
		}
		sets := build(t, c, Quick, 1)
		for k, d := range sets {
			if d.Ts != p.Ts {
				t.Errorf("%s: split %d has Ts %v, want the plant's %v", c.Name, k, d.Ts, p.Ts)
			}
			if err := d.Validate(1); err != nil {
				t.Error(err)
			}
			if d.Len() != q.Records[k] || d.Batches[0].Len() != q.Samples {
				t.Errorf("%s: split %d is %d × %d, want %d × %d", c.Name, k, d.Len(), d.Batches[0].Len(), q.Records[k], q.Samples)
			}
			noisy := k < 2 && c.Gen.noisy()
			if (d.Batches[0].YClean != nil) != noisy {
				t.Errorf("%s: split %d has YClean %v, want %v", c.Name, k, d.Batches[0].YClean != nil, noisy)
			}
			if c.Passive && (k == 2 || c.Gen.Drop == 0) {
				// (mid-motion records stored energy before they begin)
				checkSupply(t, c.Name, d)
			}
		}
		want := c.Gen.Amplitude
		if want == 0 {
			want = p.Amplitude
		}
		if c.TestAmplitude != 0 {
			want = c.TestAmplitude
		}
		if got := peak(sets[2]); c.Gen.Excitation == Chirp {
			// each sweep has its own amplitude, at most the peak
			if !(got <= want*(1+1e-9) && got >= 0.3*want) {
				t.Errorf("%s: test peak |u| %v, want in [0.3, 1]·%v", c.Name, got, want)
			}
		} else if math.Abs(got-want) > 1e-9*want {
			t.Errorf("%s: test peak |u| %v, want %v", c.Name, got, want)
		}
		if reflect.DeepEqual(sets[0].Batches[0].U, sets[1].Batches[0].U) {
			t.Errorf("%s: training and validation share their inputs", c.Name)
		}
	}
	for _, n := range []string{"twomass-noisy13", "satind-long", "diode-extrapolate", "stribeck-midmotion"} {
		if !names[n] {
			t.Errorf("the hard case %s of issue 25 is missing", n)
		}
	}
}

// checkSupply fails unless every record's running Σ u·y stays ≥ 0.
func checkSupply(t *testing.T, name string, d *data.Dataset) {
	t.Helper()
	for i, b := range d.Batches {
		y := b.Y
		if b.YClean != nil {
			y = b.YClean
		}
		var s, scale float64
		for k := range b.U {
			scale += math.Abs(b.U[k] * y[k])
		}
		for k := range b.U {
			if s += b.U[k] * y[k]; s < -1e-9*scale {
				t.Errorf("%s, %s record %d: Σu·y = %.3g at sample %d", name, d.Name, i, s, k)
				break
			}
		}
	}
}

func TestDeterminism(t *testing.T) {
	for _, name := range []string{"twomass-noisy13", "backlash-midmotion"} {
		c, err := LookupCase(name)
		if err != nil {
			t.Fatal(err)
		}
		a, b, other := build(t, c, Quick, 4), build(t, c, Quick, 4), build(t, c, Quick, 5)
		for k := range a {
			if !reflect.DeepEqual(a[k], b[k]) {
				t.Errorf("%s: split %d differs between two builds of one seed", name, k)
			}
			if reflect.DeepEqual(a[k].Batches[0].U, other[k].Batches[0].U) {
				t.Errorf("%s: split %d is the same for seeds 4 and 5", name, k)
			}
		}
	}
}

func build(t *testing.T, c Case, s Size, seed uint64) [3]*data.Dataset {
	t.Helper()
	tr, va, te, err := c.Build(context.Background(), s, seed)
	if err != nil {
		t.Fatal(err)
	}
	return [3]*data.Dataset{tr, va, te}
}

func peak(d *data.Dataset) float64 {
	m := 0.0
	for _, b := range d.Batches {
		for _, v := range b.U {
			m = math.Max(m, math.Abs(v))
		}
	}
	return m
}

// TestZooSpan: the zoo spans what issue 25 asks for: at least six plants,
// mechanical and electrical, sampling times from microseconds to tens of
// milliseconds and from about 3 to 50 samples per resonance period.
func TestZooSpan(t *testing.T) {
	ps := Plants()
	minTs, maxTs, minSPP, maxSPP := math.Inf(1), 0.0, math.Inf(1), 0.0
	kinds := map[string]int{}
	for _, p := range ps {
		kinds[p.Kind]++
		minTs, maxTs = math.Min(minTs, p.Ts), math.Max(maxTs, p.Ts)
		spp := p.SamplesPerPeriod(p.Ts)
		minSPP, maxSPP = math.Min(minSPP, spp), math.Max(maxSPP, spp)
		if p.Doc == "" || p.Physics == "" || p.Input == "" || p.Output == "" {
			t.Errorf("%s: undocumented", p.Name)
		}
	}
	if len(ps) < 6 || kinds["mechanical"] < 3 || kinds["electrical"] < 3 {
		t.Errorf("%d plants, %v", len(ps), kinds)
	}
	if minTs > 2e-5 || maxTs < 0.01 {
		t.Errorf("Ts from %g to %g s, want µs to tens of ms", minTs, maxTs)
	}
	if minSPP > 3.5 || maxSPP < 40 {
		t.Errorf("%.1f to %.1f samples per period, want about 3 to 50", minSPP, maxSPP)
	}
}

func TestLookup(t *testing.T) {
	for _, name := range Names() {
		if p, err := Lookup(name); err != nil || p.Name != name {
			t.Errorf("Lookup(%q) = %q, %v", name, p.Name, err)
		}
	}
	_, err := Lookup("cartpole")
	if !errors.Is(err, ErrUnknown) || !strings.Contains(err.Error(), strings.Join(Names(), ", ")) {
		t.Errorf("Lookup(cartpole): %v, want ErrUnknown listing the plants", err)
	}
	if _, err := LookupCase("rlc-flip"); err != nil {
		t.Error(err)
	}
	if _, err := LookupCase("rlc-flop"); !errors.Is(err, ErrUnknown) || !strings.Contains(err.Error(), "twomass-noisy13") {
		t.Errorf("LookupCase(rlc-flop): %v", err)
	}
}

// TestOutputs: the negative examples' outputs are the collocated one
// integrated, delayed and negated.
func TestOutputs(t *testing.T) {
	p, _ := Lookup("twomass")
	gen := func(o Output, delay int) []float64 {
		d, err := Generate(context.Background(), p, Config{Batches: 1, Samples: 300, Seed: 5, Output: o, Delay: delay, Drop: 50})
		if err != nil {
			t.Fatal(err)
		}
		return d.Batches[0].Y
	}
	v, pos, del, flip := gen(Collocated, 0), gen(Position, 0), gen(Delayed, 3), gen(Flipped, 0)
	for k := range v {
		if k > 0 && math.Abs((pos[k]-pos[k-1])/p.Ts-v[k]) > 1e-9*(math.Abs(v[k])+1) {
			t.Fatalf("position difference at %d: %v, velocity %v", k, (pos[k]-pos[k-1])/p.Ts, v[k])
		}
		want := 0.0
		if k >= 3 {
			want = v[k-3]
		}
		if del[k] != want || flip[k] != -v[k] {
			t.Fatalf("sample %d: delayed %v (want %v), flipped %v (want %v)", k, del[k], want, flip[k], -v[k])
		}
	}
}

func TestConfigCheck(t *testing.T) {
	p, _ := Lookup("rlc")
	ok := Config{Batches: 1, Samples: 10}
	if c, err := ok.Check(p); err != nil || c.Ts != p.Ts || c.Amplitude != p.Amplitude {
		t.Fatalf("defaults: %+v, %v", c, err)
	}
	for _, c := range []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"no batches", func(c *Config) { c.Batches = 0 }, "Batches"},
		{"one sample", func(c *Config) { c.Samples = 1 }, "Samples"},
		{"negative Ts", func(c *Config) { c.Ts = -1 }, "Ts"},
		{"Ts far too long", func(c *Config) { c.Ts = 1 }, "RK4 steps"},
		{"infinite amplitude", func(c *Config) { c.Amplitude = math.Inf(1) }, "Amplitude"},
		{"negative drop", func(c *Config) { c.Drop = -1 }, "Drop"},
		{"delay without delayed output", func(c *Config) { c.Delay = 2 }, "Delay"},
		{"delayed output without delay", func(c *Config) { c.Output = Delayed }, "Delay"},
		{"bad excitation", func(c *Config) { c.Excitation = 7 }, "excitation"},
		{"-Inf SNR", func(c *Config) { c.SNR = math.Inf(-1) }, "SNR"},
		{"negative periods", func(c *Config) { c.Periods = -1 }, "Periods"},
		{"periods of one sample", func(c *Config) { c.Periods = 6 }, "2 samples a period"},
		{"alternate without periods", func(c *Config) { c.Alternate = true }, "Alternate"},
	} {
		cfg := ok
		c.edit(&cfg)
		_, err := cfg.Check(p)
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want ErrConfig about %s", c.name, err, c.want)
		}
		if _, err := Generate(context.Background(), p, cfg); err == nil {
			t.Errorf("%s: Generate accepted it", c.name)
		}
	}
}

func TestExcitationFlag(t *testing.T) {
	for _, e := range []Excitation{Multisine, Noise, PRBS, Chirp, APRBS} {
		var got Excitation
		if err := got.Set(e.String()); err != nil || got != e {
			t.Errorf("Set(%q) = %v, %v", e, got, err)
		}
	}
	var e Excitation
	if err := e.Set("sweep"); err == nil || !strings.Contains(err.Error(), "multisine, noise, prbs, chirp or aprbs") {
		t.Errorf("Set(sweep): %v", err)
	}
	var s Size
	if err := s.Set("full"); err != nil || s != Full || s.String() != "full" {
		t.Errorf("Size.Set(full): %v, %v", s, err)
	}
	if err := s.Set("huge"); err == nil {
		t.Error("Size.Set(huge) accepted")
	}
}

// TestNoise: the SNR is that of the record, and the inputs do not depend on it.
func TestNoise(t *testing.T) {
	p, _ := Lookup("diode")
	clean, _ := Generate(context.Background(), p, Config{Batches: 2, Samples: 2000, Seed: 9})
	noisy, _ := Generate(context.Background(), p, Config{Batches: 2, Samples: 2000, Seed: 9, SNR: 13})
	for i, b := range noisy.Batches {
		if !reflect.DeepEqual(b.U, clean.Batches[i].U) || !reflect.DeepEqual(b.YClean, clean.Batches[i].Y) {
			t.Fatal("noise changed the experiment")
		}
		var ps, pn float64
		for k, y := range b.YClean {
			ps += y * y
			pn += (b.Y[k] - y) * (b.Y[k] - y)
		}
		if snr := 10 * math.Log10(ps/pn); math.Abs(snr-13) > 0.5 {
			t.Errorf("record %d: SNR %.2f dB, want 13", i, snr)
		}
	}
}

// BenchmarkBuildQuick times the quick data of one case per plant.
func BenchmarkBuildQuick(b *testing.B) {
	seen := map[string]bool{}
	for _, c := range Cases() { // the first case of each plant
		if seen[c.Plant] {
			continue
		}
		seen[c.Plant] = true
		b.Run(c.Plant, func(b *testing.B) {
			for b.Loop() {
				if _, _, _, err := c.Build(context.Background(), Quick, 1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestPeriods: with Periods every record repeats its first period, exactly
// (Alternate: with the sign flipped every other period), after the dropped
// samples, for every excitation; the records still differ from one another.
func TestPeriods(t *testing.T) {
	p, _ := Lookup("twomass")
	for e := range Excitation(len(excitationNames)) {
		for _, alt := range []bool{false, true} {
			c := Config{Batches: 2, Samples: 103, Seed: 4, Excitation: e, Periods: 4, Alternate: alt, Drop: 7}
			d, err := Generate(context.Background(), p, c)
			if err != nil {
				t.Fatal(err)
			}
			const period = 26 // ⌈103/4⌉
			for i, b := range d.Batches {
				for k := period; k < len(b.U); k++ {
					want := b.U[k-period]
					if alt {
						want = -want
					}
					if b.U[k] != want {
						t.Fatalf("%v alternate %v record %d: u(%d) = %g, want %g", e, alt, i, k, b.U[k], want)
					}
				}
			}
			if d.Batches[0].U[0] == d.Batches[1].U[0] {
				t.Errorf("%v: both records start alike", e)
			}
		}
	}
}
