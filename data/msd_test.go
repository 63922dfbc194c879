package data

import (
	"errors"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"
)

// dopri45 integrates the plant over one interval of length ts under constant force f
// with an adaptive Dormand–Prince 5(4) pair. It is the independent high-accuracy
// reference for SimulateMSD (different method, error-controlled steps).
func dopri45(x, v, f, ts, rtol, atol float64) (float64, float64) {
	der := func(s [2]float64) [2]float64 {
		return [2]float64{s[1], (f - MSDSpring*s[0] - MSDDamping*s[1] - s[1]*s[1]*s[1]) / MSDMass}
	}
	a := [7][6]float64{
		{},
		{1.0 / 5},
		{3.0 / 40, 9.0 / 40},
		{44.0 / 45, -56.0 / 15, 32.0 / 9},
		{19372.0 / 6561, -25360.0 / 2187, 64448.0 / 6561, -212.0 / 729},
		{9017.0 / 3168, -355.0 / 33, 46732.0 / 5247, 49.0 / 176, -5103.0 / 18656},
		{35.0 / 384, 0, 500.0 / 1113, 125.0 / 192, -2187.0 / 6784, 11.0 / 84},
	}
	b5 := [7]float64{35.0 / 384, 0, 500.0 / 1113, 125.0 / 192, -2187.0 / 6784, 11.0 / 84, 0}
	b4 := [7]float64{5179.0 / 57600, 0, 7571.0 / 16695, 393.0 / 640, -92097.0 / 339200, 187.0 / 2100, 1.0 / 40}
	s := [2]float64{x, v}
	t, h := 0.0, ts/8
	for t < ts {
		if t+h > ts {
			h = ts - t
		}
		var k [7][2]float64
		for i := 0; i < 7; i++ {
			st := s
			for j := 0; j < i; j++ {
				st[0] += h * a[i][j] * k[j][0]
				st[1] += h * a[i][j] * k[j][1]
			}
			k[i] = der(st)
		}
		var y5, e [2]float64
		for c := 0; c < 2; c++ {
			y5[c] = s[c]
			for i := 0; i < 7; i++ {
				y5[c] += h * b5[i] * k[i][c]
				e[c] += h * (b5[i] - b4[i]) * k[i][c]
			}
		}
		errn := 0.0
		for c := 0; c < 2; c++ {
			sc := atol + rtol*math.Max(math.Abs(s[c]), math.Abs(y5[c]))
			errn = math.Max(errn, math.Abs(e[c])/sc)
		}
		if errn <= 1 {
			t += h
			s = y5
		}
		fac := 5.0
		if errn > 0 {
			fac = math.Min(5, math.Max(0.2, 0.9*math.Pow(errn, -0.2)))
		}
		h *= fac
	}
	return s[0], s[1]
}

func referenceMSD(u []float64, ts float64) []float64 {
	y := make([]float64, len(u))
	x, v := 0.0, 0.0
	for t := 0; t+1 < len(u); t++ {
		x, v = dopri45(x, v, u[t], ts, 1e-13, 1e-15)
		y[t+1] = v
	}
	return y
}

func TestSimulateMSDAccuracy(t *testing.T) {
	d, err := GenerateMSD(MSDConfig{Batches: 3, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	for bi, b := range d.Batches {
		ref := referenceMSD(b.U, d.Ts)
		scale := 0.0
		for _, v := range ref {
			scale = math.Max(scale, math.Abs(v))
		}
		if scale < 0.1 {
			t.Fatalf("batch %d: reference output too small (%g): test is vacuous", bi, scale)
		}
		for _, sub := range []int{20, 50} {
			y := SimulateMSD(b.U, d.Ts, sub)
			e := 0.0
			for i := range y {
				e = math.Max(e, math.Abs(y[i]-ref[i]))
			}
			if e/scale >= 1e-6 {
				t.Errorf("batch %d, %d substeps: relative error %.3g ≥ 1e-6", bi, sub, e/scale)
			}
			t.Logf("batch %d, %d substeps: max|y|=%.3f, relative error vs Dormand–Prince %.2e", bi, sub, scale, e/scale)
		}
		// The generator's output is SimulateMSD with its default substeps.
		y := SimulateMSD(b.U, d.Ts, 50)
		for i := range y {
			if y[i] != b.Y[i] {
				t.Fatalf("batch %d: generator output differs from SimulateMSD at %d", bi, i)
			}
		}
		if b.Y[0] != 0 {
			t.Errorf("y(0) = %v, want 0 (zero initial state)", b.Y[0])
		}
	}
}

func TestMSDDeterminism(t *testing.T) {
	gen := func(seed uint64, n int) *Dataset {
		d, err := GenerateMSD(MSDConfig{Batches: n, Seed: seed, SNR: 20})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	a, b, c := gen(1, 4), gen(1, 4), gen(2, 4)
	p := gen(1, 2)
	for i := range a.Batches {
		for k := range a.Batches[i].U {
			if a.Batches[i].U[k] != b.Batches[i].U[k] || a.Batches[i].Y[k] != b.Batches[i].Y[k] ||
				a.Batches[i].YClean[k] != b.Batches[i].YClean[k] {
				t.Fatalf("same seed, different data at batch %d sample %d", i, k)
			}
		}
	}
	for i := range p.Batches { // the first batches do not depend on the batch count
		for k := range p.Batches[i].U {
			if p.Batches[i].U[k] != a.Batches[i].U[k] || p.Batches[i].Y[k] != a.Batches[i].Y[k] {
				t.Fatalf("batch %d depends on Batches", i)
			}
		}
	}
	q, err := GenerateMSD(MSDConfig{Batches: 4, Seed: 1}) // noise-free, same seed
	if err != nil {
		t.Fatal(err)
	}
	for i := range q.Batches { // same experiments with and without noise
		for k := range q.Batches[i].U {
			if q.Batches[i].U[k] != a.Batches[i].U[k] || q.Batches[i].Y[k] != a.Batches[i].YClean[k] {
				t.Fatalf("noise changes the experiment: batch %d sample %d", i, k)
			}
		}
	}
	same := 0
	for i := range a.Batches {
		for k := range a.Batches[i].U {
			if a.Batches[i].U[k] == c.Batches[i].U[k] {
				same++
			}
		}
	}
	if same > 4 { // u(0) may coincide by chance only in pathological cases
		t.Errorf("different seeds share %d input samples", same)
	}
	for i := 1; i < len(a.Batches); i++ {
		if a.Batches[i].U[5] == a.Batches[0].U[5] {
			t.Errorf("batches 0 and %d share inputs", i)
		}
	}
}

func TestMSDInput(t *testing.T) {
	const seed = 11
	c, _ := MSDConfig{Batches: 5, Seed: seed}.withDefaults()
	d, err := GenerateMSD(c)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, seed))
	for bi, b := range d.Batches {
		if len(b.U) != 250 || d.Ts != 0.02 {
			t.Fatalf("batch %d: %d samples, Ts %v", bi, len(b.U), d.Ts)
		}
		peak := 0.0
		for _, v := range b.U {
			peak = math.Max(peak, math.Abs(v))
		}
		if peak != 15 {
			t.Errorf("batch %d: peak |u| = %.17g, want exactly 15", bi, peak)
		}
		// Replay the draws: the kept phase set has the smallest peak-to-peak.
		u, phases, best := msdMultisine(rng, c.Samples, c.Ts, c.Peak)
		if len(phases) != 10 {
			t.Fatalf("%d phase draws, want 10", len(phases))
		}
		p2p := make([]float64, len(phases))
		for k, ph := range phases {
			x := multisine(ph, c.Samples, c.Ts)
			lo, hi := math.Inf(1), math.Inf(-1)
			for _, v := range x {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
			p2p[k] = hi - lo
		}
		for k := range p2p {
			if p2p[k] < p2p[best] {
				t.Errorf("batch %d: draw %d has peak-to-peak %.4f < kept draw %d (%.4f)", bi, k, p2p[k], best, p2p[best])
			}
		}
		x := multisine(phases[best], c.Samples, c.Ts)
		g := b.U[10] / x[10]
		for k := range u {
			if u[k] != b.U[k] {
				t.Fatalf("batch %d: replayed input differs at %d", bi, k)
			}
			if math.Abs(b.U[k]-g*x[k]) > 1e-12 {
				t.Fatalf("batch %d: u is not a scaled copy of the kept multisine at %d", bi, k)
			}
		}
		// The 5 s record holds whole periods: energy only in DFT bins k ∈ MSDFrequencyIndices.
		inSet := map[int]bool{}
		for _, k := range MSDFrequencyIndices {
			inSet[k] = true
		}
		for k := 0; k <= len(b.U)/2; k++ {
			var s complex128
			for n, v := range b.U {
				s += complex(v, 0) * cmplx.Exp(complex(0, -2*math.Pi*float64(k*n)/float64(len(b.U))))
			}
			mag := cmplx.Abs(s) / float64(len(b.U))
			if inSet[k] && mag < 0.1 {
				t.Errorf("batch %d: bin %d (ω = 0.4π·%d) has amplitude %.3g, want a sine there", bi, k, k, mag)
			}
			if !inSet[k] && mag > 1e-9 {
				t.Errorf("batch %d: bin %d has amplitude %.3g, want 0", bi, k, mag)
			}
		}
		if b.YClean != nil {
			t.Errorf("noise-free batch has YClean")
		}
	}
}

func TestMSDNoiseSNR(t *testing.T) {
	for _, snr := range []float64{10, 30, -3} {
		d, err := GenerateMSD(MSDConfig{Batches: 40, Seed: 3, SNR: snr})
		if err != nil {
			t.Fatal(err)
		}
		var ps, pn float64
		for _, b := range d.Batches {
			var s, n, mean float64
			for k := range b.Y {
				e := b.Y[k] - b.YClean[k]
				s += b.YClean[k] * b.YClean[k]
				n += e * e
				mean += e
			}
			ps += s
			pn += n
			// per batch, 250 samples: the measured SNR is within ±1.5 dB (χ² spread ~0.4 dB)
			if got := 10 * math.Log10(s/n); math.Abs(got-snr) > 1.5 {
				t.Errorf("SNR %v: batch SNR %.2f dB", snr, got)
			}
		}
		got := 10 * math.Log10(ps/pn)
		if math.Abs(got-snr) > 0.2 {
			t.Errorf("SNR %v dB: measured %.3f dB over all batches", snr, got)
		}
		t.Logf("SNR %v dB: measured %.3f dB", snr, got)
	}
	for _, snr := range []float64{0, math.NaN(), math.Inf(1)} {
		d, err := GenerateMSD(MSDConfig{Batches: 1, Seed: 3, SNR: snr})
		if err != nil {
			t.Fatal(err)
		}
		if d.Batches[0].YClean != nil {
			t.Errorf("SNR %v: want noise-free data", snr)
		}
	}
}

func TestMSDSplits(t *testing.T) {
	tr, va, te, err := MSDSplits(5, 10)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		d *Dataset
		n int
	}{{tr, 300}, {va, 100}, {te, 100}} {
		if len(c.d.Batches) != c.n {
			t.Errorf("%s: %d batches, want %d", c.d.Name, len(c.d.Batches), c.n)
		}
		if err := c.d.Validate(250); err != nil {
			t.Error(err)
		}
		if c.d.Batches[0].YClean == nil {
			t.Errorf("%s: noisy split without YClean", c.d.Name)
		}
	}
	seen := map[[4]float64]string{}
	for _, d := range []*Dataset{tr, va, te} {
		for i, b := range d.Batches {
			key := [4]float64(b.U[1:5])
			if prev, ok := seen[key]; ok {
				t.Fatalf("%s batch %d repeats an input of %s", d.Name, i, prev)
			}
			seen[key] = d.Name
		}
	}
	s := MSDSplitSeeds(5)
	if s[0] == s[1] || s[1] == s[2] || s[0] == s[2] {
		t.Errorf("split seeds not distinct: %v", s)
	}
	if _, _, _, err := MSDSplits(1, 10, 20); !errors.Is(err, ErrConfig) {
		t.Errorf("two SNRs: err = %v", err)
	}
	tr2, _, _, err := MSDSplits(5)
	if err != nil || tr2.Batches[0].YClean != nil {
		t.Errorf("noise-free splits: %v", err)
	}
}

func TestMSDConfigErrors(t *testing.T) {
	for _, c := range []MSDConfig{
		{Batches: 0},
		{Batches: 1, Samples: 1},
		{Batches: 1, Ts: -1},
		{Batches: 1, Ts: math.Inf(1)},
		{Batches: 1, Peak: math.NaN()},
		{Batches: 1, Substeps: 5},
		{Batches: 1, SNR: math.Inf(-1)},
	} {
		if _, err := GenerateMSD(c); !errors.Is(err, ErrConfig) {
			t.Errorf("%+v: err = %v, want ErrConfig", c, err)
		}
	}
}

func BenchmarkGenerateMSD(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if _, err := GenerateMSD(MSDConfig{Batches: 10, Seed: uint64(i)}); err != nil {
			b.Fatal(err)
		}
	}
}
