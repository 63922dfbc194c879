package ensemble

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/passivenfir/gputrain/data"
)

// firSim is a FIR as a Simulator.
type firSim data.FIR

func (f firSim) Simulate(u []float64) []float64 { return data.FIR(f).Simulate(u) }

// TestMeanArithmetic: Simulate is, to the bit, the documented sum in member
// order of the rounded products, then the division.
func TestMeanArithmetic(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	u := make([]float64, 200)
	for i := range u {
		u[i] = rng.NormFloat64()
	}
	m := Mean{{firSim{0.7, 0.1}, 3}, {firSim{0.3, -0.05, 0.02}, 1}, {firSim{1.1}, 2}}
	got := m.Simulate(u)
	for k := range u {
		want := 0.0
		for _, l := range m {
			p := float64(l.Count) * l.Model.Simulate(u)[k]
			want += p
		}
		want /= 6
		if got[k] != want {
			t.Fatalf("sample %d: %v, want %v", k, got[k], want)
		}
	}
	if m.Total() != 6 || !m.Weighted() {
		t.Errorf("total %d weighted %v, want 6 true", m.Total(), m.Weighted())
	}
	if (Mean{{firSim{1}, 1}, {firSim{2}, 1}}).Weighted() {
		t.Error("counts 1 reported weighted")
	}
}

// TestMeanPassive: the mean of passive FIRs (Re G > 0) is passive from
// rest, ⟨u, y⟩ ≥ 0 over every prefix of random inputs.
func TestMeanPassive(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 50 {
		var m Mean
		for range 1 + rng.IntN(4) {
			g0 := 0.1 + rng.Float64()
			g1 := (rng.Float64()*2 - 1) * g0 * 0.9 // |g1| < g0: Re G ≥ g0 − |g1| > 0
			m = append(m, Member{firSim{g0, g1}, 1 + rng.IntN(5)})
		}
		u := make([]float64, 300)
		for i := range u {
			u[i] = rng.NormFloat64() * math.Exp(rng.NormFloat64())
		}
		y := m.Simulate(u)
		s := 0.0
		for k := range u {
			s += u[k] * y[k]
			if s < -1e-12 {
				t.Fatalf("trial %d: ⟨u, y⟩ over %d samples is %g < 0", trial, k+1, s)
			}
		}
	}
}

func TestMeanCheck(t *testing.T) {
	for _, c := range []struct {
		name string
		m    Mean
		ok   bool
	}{
		{"one member", Mean{{firSim{1}, 1}}, true},
		{"weighted", Mean{{firSim{1}, 2}, {firSim{1}, MaxCount}}, true},
		{"empty", nil, false},
		{"nil member", Mean{{nil, 1}}, false},
		{"count 0", Mean{{firSim{1}, 0}}, false},
		{"count too large", Mean{{firSim{1}, MaxCount + 1}}, false},
	} {
		err := c.m.Check()
		if (err == nil) != c.ok || (err != nil && !errors.Is(err, ErrMean)) {
			t.Errorf("%s: error %v, want ok %v", c.name, err, c.ok)
		}
	}
}

// noisyCandidates is validation data of a random signal y and candidates
// that are y plus independent noise of the given levels.
func noisyCandidates(rng *rand.Rand, records, samples int, levels []float64) (*data.Dataset, [][][]float64, []float64) {
	val := &data.Dataset{}
	outs := make([][][]float64, len(levels))
	for range records {
		y := make([]float64, samples)
		for k := range y {
			y[k] = rng.NormFloat64()
		}
		val.Batches = append(val.Batches, data.Batch{U: make([]float64, samples), Y: y})
		for i, l := range levels {
			o := make([]float64, samples)
			for k := range o {
				o[k] = y[k] + l*rng.NormFloat64()
			}
			outs[i] = append(outs[i], o)
		}
	}
	fits := make([]float64, len(levels))
	for i := range levels {
		fits[i], _ = FitRecords(val, 0, func(r int) []float64 { return outs[i][r] })
	}
	return val, outs, fits
}

func argmax(v []float64) int {
	b := 0
	for i := range v {
		if v[i] > v[b] {
			b = i
		}
	}
	return b
}

// TestSelect: candidates with independent errors average to a better
// output, and the Fit Select reports is the kept mean's.
func TestSelect(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	val, outs, fits := noisyCandidates(rng, 6, 400, []float64{0.3, 0.32, 0.35, 1.5})
	best := argmax(fits)
	counts, fit, err := Select(val, 0, outs, best, fits[best])
	if err != nil {
		t.Fatal(err)
	}
	if !(fit > fits[best]+1) {
		t.Errorf("mean Fit %.2f, best candidate %.2f: want a gain above 1 point from averaging independent errors", fit, fits[best])
	}
	n := 0
	for _, c := range counts {
		if c > 0 {
			n++
		}
	}
	if n < 2 || counts[3] != 0 {
		t.Errorf("counts %v: want the three good candidates and not the poor one", counts)
	}
	again, err := FitRecords(val, 0, func(r int) []float64 { return meanOn(outs, counts, r) })
	if err != nil || again != fit {
		t.Errorf("the kept counts score %v (%v), Select said %v", again, err, fit)
	}
}

// TestSelectKeepsBest: when one candidate is the output itself, no mean
// beats it and Select keeps it alone.
func TestSelectKeepsBest(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	val, outs, fits := noisyCandidates(rng, 4, 300, []float64{0.5, 0, 0.4})
	counts, fit, err := Select(val, 0, outs, 1, fits[1])
	if err != nil {
		t.Fatal(err)
	}
	if counts[0] != 0 || counts[1] != 1 || counts[2] != 0 || fit != fits[1] {
		t.Errorf("counts %v fit %v, want [0 1 0] and %v", counts, fit, fits[1])
	}
}

func TestSelectErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	val, outs, fits := noisyCandidates(rng, 3, 50, []float64{0.5, 0.6})
	if _, _, err := Select(val, 0, outs, 2, fits[0]); !errors.Is(err, ErrMean) {
		t.Errorf("start out of range: %v", err)
	}
	short := [][][]float64{outs[0], outs[1][:2]}
	if _, _, err := Select(val, 0, short, 0, fits[0]); !errors.Is(err, ErrMean) {
		t.Errorf("outputs of too few records: %v", err)
	}
	if _, _, err := Select(val, 50, outs, 0, fits[0]); !errors.Is(err, ErrNoRecord) {
		t.Errorf("nothing left to score: %v", err)
	}
}
