package data

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// noise returns n seeded standard normal samples.
func noise(rng *rand.Rand, n int) []float64 {
	u := make([]float64, n)
	for i := range u {
		u[i] = rng.NormFloat64()
	}
	return u
}

// ones returns n ones.
func ones(n int) []float64 {
	u := make([]float64, n)
	for i := range u {
		u[i] = 1
	}
	return u
}

// lowpass returns u through a first-order low-pass filter of pole a.
func lowpass(u []float64, a float64) []float64 {
	y := make([]float64, len(u))
	var s float64
	for i, v := range u {
		s = a*s + (1-a)*v
		y[i] = s
	}
	return y
}

// TestLagCorrelation: the FFT correlation of every lag is the direct sum's.
func TestLagCorrelation(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{2, 3, 17, 64, 301} {
		u := noise(rng, n)
		for i := range u {
			u[i] += 3 // a mean, which the correlation ignores
		}
		rho := lagCorrelation(u, 2)
		if len(rho) != n-1 {
			t.Fatalf("n %d: %d lags, want %d", n, len(rho), n-1)
		}
		var mean float64
		for _, v := range u {
			mean += v / float64(n)
		}
		for L := range rho {
			var s, a, b float64
			for i := 0; i+L < n; i++ {
				x, y := u[i]-mean, u[i+L]-mean
				s, a, b = s+x*y, a+x*x, b+y*y
			}
			if want := s / math.Sqrt(a*b); math.Abs(rho[L]-want) > 1e-9 {
				t.Errorf("n %d lag %d: %.12g, direct sum %.12g", n, L, rho[L], want)
			}
		}
	}
}

// TestFindRepeat: periods and antiperiods are found at their lag, also
// under measurement noise and a slowly varying amplitude; noise, smooth
// noise, a sweep and a constant are not repeats.
func TestFindRepeat(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	periodic := func(p, k int, sign float64) []float64 {
		base := lowpass(noise(rng, p), 0.3)
		var u []float64
		s := 1.0
		for range k {
			for _, v := range base {
				u = append(u, s*v)
			}
			s *= sign
		}
		return u
	}
	addNoise := func(u []float64, std float64) []float64 {
		for i := range u {
			u[i] += std * rng.NormFloat64()
		}
		return u
	}
	sweep := make([]float64, 4000)
	for i := range sweep {
		f := 0.001 + 0.2*float64(i)/4000
		sweep[i] = math.Sin(math.Pi * f * float64(i))
	}
	sine := make([]float64, 1000)
	for i := range sine {
		sine[i] = math.Sin(2 * math.Pi * float64(i) / 40)
	}
	ramped := periodic(500, 3, 1)
	for i := range ramped {
		ramped[i] *= 1 + float64(i)/1500
	}
	for _, tc := range []struct {
		name   string
		u      []float64
		lag    int // 0: no repeat
		sign   float64
		period int // FindPeriod's lag; 0: none
	}{
		{"three periods", periodic(300, 3, 1), 300, 1, 300},
		{"three periods, 10% noise", addNoise(periodic(300, 3, 1), 0.03), 300, 1, 300},
		{"antiperiodic", periodic(992, 2, -1), 992, -1, 0},
		{"antiperiodic, 4 halves", periodic(250, 4, -1), 250, -1, 500},
		{"amplitude ramp", ramped, 500, 1, 500},
		{"sine", sine, 20, -1, 40},
		{"white noise", noise(rng, 3000), 0, 0, 0},
		{"smooth noise", lowpass(noise(rng, 3000), 0.98), 0, 0, 0},
		{"sweep", sweep, 0, 0, 0},
		{"constant", make([]float64, 100), 0, 0, 0},
		{"ramp", seqBatch(500, "", 0).U, 0, 0, 0},
		{"step", append(make([]float64, 300), ones(300)...), 0, 0, 0},
		{"empty", nil, 0, 0, 0},
	} {
		if p, ok := FindPeriod(tc.u, 50); ok != (tc.period > 0) || ok && (p.Lag != tc.period || p.Corr < RepeatCorr) {
			t.Errorf("%s: FindPeriod %+v %v, want period %d", tc.name, p, ok, tc.period)
		}
		r, ok := FindRepeat(tc.u, 50)
		switch {
		case tc.lag == 0 && ok:
			t.Errorf("%s: repeats at lag %d (correlation %.3f), want no repeat", tc.name, r.Lag, r.Corr)
		case tc.lag > 0 && !ok:
			t.Errorf("%s: no repeat found, want lag %d", tc.name, tc.lag)
		case tc.lag > 0 && (r.Lag != tc.lag || r.Corr*tc.sign < RepeatCorr):
			t.Errorf("%s: lag %d correlation %.3f, want lag %d of sign %+g", tc.name, r.Lag, r.Corr, tc.lag, tc.sign)
		}
	}
}

// TestFindRepeatSmooth: smooth noise, whose correlation falls slowly,
// never repeats by chance over short overlaps, for many seeds.
func TestFindRepeatSmooth(t *testing.T) {
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 7))
		for _, a := range []float64{0.9, 0.99, 0.998} {
			u := lowpass(noise(rng, 2000), a)
			if r, ok := FindRepeat(u, 2); ok {
				t.Errorf("seed %d pole %g: repeats at lag %d (correlation %.3f)", seed, a, r.Lag, r.Corr)
			}
		}
	}
}

// The odd multisine of many identification experiments: its second half is
// its first with the sign flipped.
func ExampleFindRepeat() {
	rng := rand.New(rand.NewPCG(1, 1))
	half := make([]float64, 500)
	for k := 1; k < 60; k += 2 {
		phase := 2 * math.Pi * rng.Float64()
		for t := range half {
			half[t] += math.Cos(math.Pi*float64(k*t)/500 + phase)
		}
	}
	u := append(append([]float64{}, half...), half...)
	for t := 500; t < 1000; t++ {
		u[t] = -u[t]
	}
	r, ok := FindRepeat(u, 100)
	fmt.Printf("repeats: %v, lag %d, correlation %.2f\n", ok, r.Lag, r.Corr)
	// Output:
	// repeats: true, lag 500, correlation -1.00
}

// repeating returns a batch of n samples whose input repeats every lag
// samples (sign −1: with the sign flipped each time), y = 2u, and y_clean
// the sample's index.
func repeating(rng *rand.Rand, n, lag int, sign float64) Batch {
	base := lowpass(noise(rng, lag), 0.3)
	b := Batch{U: make([]float64, n), Y: make([]float64, n), YClean: make([]float64, n), Label: "r", Line: 2}
	for t := range n {
		s := 1.0
		if (t/lag)%2 == 1 {
			s = sign
		}
		b.U[t], b.Y[t], b.YClean[t] = s*base[t%lag], 2*s*base[t%lag], float64(t)
	}
	return b
}

// TestHoldOutPhase: every training sample's phase is outside the held-out
// last fraction of the repeat and every scored validation sample's inside,
// every sample is used once at most, and each validation run has its
// lead-in; seeded random lengths, lags, fractions and lead-ins.
func TestHoldOutPhase(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 200 {
		lag := 20 + rng.IntN(300)
		n := lag + rng.IntN(5*lag)
		frac := 0.05 + 0.5*rng.Float64()
		lead := rng.IntN(lag)
		b := repeating(rng, n, lag, 1)
		train, val, err := HoldOutPhase(b, lag, frac, lead)
		w := PhaseWidth(lag, frac)
		if err != nil {
			if lag-w >= lead && n >= lag {
				t.Errorf("n %d lag %d frac %.2f lead %d: %v", n, lag, frac, lead, err)
			}
			continue
		}
		used := make([]int, n)
		for _, p := range train {
			for _, i := range p.YClean {
				if int(i)%lag >= lag-w {
					t.Fatalf("n %d lag %d frac %.2f: training sample %v of phase %d is held out", n, lag, frac, i, int(i)%lag)
				}
				used[int(i)]++
			}
			if p.Line != 2+int(p.YClean[0]) || p.U[0] != b.U[int(p.YClean[0])] {
				t.Errorf("n %d lag %d: training piece from %v has line %d", n, lag, p.YClean[0], p.Line)
			}
			if len(p.U) != lag-w {
				t.Errorf("n %d lag %d frac %.2f: a training piece of %d samples, want every one full, %d", n, lag, frac, len(p.U), lag-w)
			}
		}
		for _, v := range val {
			if len(v.U) <= lead {
				t.Fatalf("n %d lag %d lead %d: a validation run of %d samples", n, lag, lead, len(v.U))
			}
			for _, i := range v.YClean[lead:] {
				if int(i)%lag < lag-w {
					t.Fatalf("n %d lag %d frac %.2f lead %d: scored validation sample %v of phase %d", n, lag, frac, lead, i, int(i)%lag)
				}
				used[int(i)]++
			}
			if first := int(v.YClean[lead]); first%lag != lag-w {
				t.Errorf("n %d lag %d lead %d: a validation run scored from phase %d, want %d", n, lag, lead, first%lag, lag-w)
			}
		}
		for i, c := range used {
			if c > 1 {
				t.Fatalf("n %d lag %d: sample %d used %d times", n, lag, i, c)
			}
		}
	}
	if _, _, err := HoldOutPhase(repeating(rng, 100, 50, 1), 50, 0.2, 91); err == nil {
		t.Error("a lead-in longer than any run's start: no error")
	}
	if _, _, err := HoldOutPhase(repeating(rng, 100, 50, 1), 1, 0.2, 0); err == nil {
		t.Error("lag 1: no error")
	}
}

// TestHoldOutTailsRepeat: a record whose input is periodic or antiperiodic
// is split by phase, the others of the same data by their tails; a repeat
// too short for a training piece is split by its tail and named by
// WorstRepeat, and TailsRepeat holds when every batch is such.
func TestHoldOutTailsRepeat(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	other := Batch{U: noise(rng, 800), Y: noise(rng, 800)}
	for _, tc := range []struct {
		name         string
		b            Batch
		lead         int
		train, val   int
		phase, worst bool
		corr         float64 // WorstRepeat's sign
	}{
		{"periodic", repeating(rng, 1000, 500, 1), 0, 3, 3, true, false, 0},
		{"periodic, long lead-in", repeating(rng, 1000, 500, 1), 200, 3, 3, true, false, 0},
		{"periodic, lead-in too long", repeating(rng, 1000, 500, 1), 201, 2, 2, false, true, 1}, // 2·201 > 500 − 100
		{"antiperiodic", repeating(rng, 1000, 500, -1), 0, 3, 3, true, false, 0},
		{"antiperiodic, lead-in too long", repeating(rng, 1000, 500, -1), 201, 2, 2, false, true, -1},
		{"antiperiodic, two periods", repeating(rng, 2000, 500, -1), 0, 5, 5, true, false, 0}, // by its antiperiod, 500
	} {
		d := &Dataset{Name: "d", Batches: []Batch{tc.b, other}}
		if _, ok := TailRepeat(d.Batches[0], 0.2, tc.lead); ok != tc.phase {
			t.Errorf("%s: TailRepeat %v, want %v", tc.name, ok, tc.phase)
		}
		tr, va, err := HoldOutTails(d, 0.2, tc.lead)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if tr.Len() != tc.train || va.Len() != tc.val {
			t.Errorf("%s: %d training and %d validation batches, want %d and %d", tc.name, tr.Len(), va.Len(), tc.train, tc.val)
		}
		if i, r, ok := WorstRepeat(d, 0.2, tc.lead); ok != tc.worst || ok && (i != 0 || r.Lag != 500 || r.Corr*tc.corr < RepeatCorr) {
			t.Errorf("%s: WorstRepeat %d %+v %v, want %v", tc.name, i, r, ok, tc.worst)
		}
		// every tail repeats only where no batch has input of its own there
		alone := &Dataset{Batches: []Batch{tc.b}}
		twice := &Dataset{Batches: []Batch{tc.b, tc.b}}
		if TailsRepeat(d, 0.2, tc.lead) || TailsRepeat(alone, 0.2, tc.lead) != tc.worst || TailsRepeat(twice, 0.2, tc.lead) != tc.worst {
			t.Errorf("%s: TailsRepeat with a noise record %v, alone %v, twice %v; want false, %v, %v", tc.name,
				TailsRepeat(d, 0.2, tc.lead), TailsRepeat(alone, 0.2, tc.lead), TailsRepeat(twice, 0.2, tc.lead), tc.worst, tc.worst)
		}
	}
	if TailsRepeat(&Dataset{}, 0.2, 0) {
		t.Error("TailsRepeat of no batches: true")
	}
}

// bruteLinks is links by direct sums: every lag of every pair.
func bruteLinks(d *Dataset) map[[2]int]bool {
	got := map[[2]int]bool{}
	tau := func(u []float64) int {
		rho := lagCorrelation(u, 2)
		for L := 1; L < len(rho); L++ {
			if math.Abs(rho[L]) < decorrelated {
				return L
			}
		}
		return len(u)
	}
	dev := func(u []float64) []float64 {
		var m float64
		for _, v := range u {
			m += v / float64(len(u))
		}
		x := make([]float64, len(u))
		for i, v := range u {
			x[i] = v - m
		}
		return x
	}
	for i := range d.Batches {
		for j := i + 1; j < d.Len(); j++ {
			a, b := dev(d.Batches[i].U), dev(d.Batches[j].U)
			minOverlap := max(min(len(a), len(b))/2, 10*max(tau(d.Batches[i].U), tau(d.Batches[j].U)), 2)
			for L := -(len(b) - 1); L < len(a); L++ {
				a0, b0 := max(L, 0), max(-L, 0)
				m := min(len(a)-a0, len(b)-b0)
				if m < minOverlap {
					continue
				}
				var s, ea, eb float64
				for t := range m {
					s += a[a0+t] * b[b0+t]
					ea += a[a0+t] * a[a0+t]
					eb += b[b0+t] * b[b0+t]
				}
				if ea > 0 && eb > 0 && math.Abs(s/math.Sqrt(ea*eb)) >= RepeatCorr {
					got[[2]int{i, j}] = true
					break
				}
			}
		}
	}
	return got
}

// TestGroups: periods of one input, cut where they start or elsewhere, with
// the sign flipped or with noise, are one group; other realizations and
// noises are groups of their own; the FFT's links are the direct sums'.
func TestGroups(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 11))
	a := lowpass(noise(rng, 1200), 0.5)
	b := lowpass(noise(rng, 900), 0.5)
	seg := func(u []float64, from, n int, sign, std float64) Batch {
		out := make([]float64, n)
		for t := range out {
			out[t] = sign*u[(from+t)%len(u)] + std*rng.NormFloat64()
		}
		return Batch{U: out, Y: make([]float64, n)}
	}
	d := &Dataset{Batches: []Batch{
		seg(a, 0, 1200, 1, 0),    // 0: a
		{U: noise(rng, 1000)},    // 1: noise
		seg(a, 0, 1200, 1, 0.02), // 2: a again, measured
		seg(b, 0, 900, 1, 0),     // 3: b
		seg(a, 337, 1000, -1, 0), // 4: a, cut elsewhere, sign flipped
		seg(b, 450, 900, 1, 0),   // 5: b cut in the middle
		{U: lowpass(noise(rng, 1500), 0.99)},
		seg(a, 700, 500, 1, 0), // 7: a shorter piece
	}}
	want := [][]int{{0, 2, 4, 7}, {1}, {3, 5}, {6}}
	got := Groups(d)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("groups %v, want %v", got, want)
	}
	fast := map[[2]int]bool{}
	longest := 0
	for _, b := range d.Batches {
		longest = max(longest, b.Len())
	}
	links(d, longest, func(i, j int) bool { return true }, func(i, j int) { fast[[2]int{i, j}] = true })
	if brute := bruteLinks(d); fmt.Sprint(fast) != fmt.Sprint(brute) {
		t.Errorf("links %v, direct sums %v", fast, brute)
	}
	if g := Groups(&Dataset{}); len(g) != 0 {
		t.Errorf("no batches: groups %v", g)
	}
	if g := Groups(&Dataset{Batches: []Batch{{}, {}}}); fmt.Sprint(g) != "[[0] [1]]" {
		t.Errorf("two empty batches: groups %v", g)
	}
	// Above MaxGroupWork only copies at the same phase are found: the
	// sign-flipped copy cut elsewhere (4) and the piece cut elsewhere (7)
	// stay apart, the rotated b too.
	var same [][2]int
	alignedLinks(d, func(i, j int) bool { return true }, func(i, j int) { same = append(same, [2]int{i, j}) })
	if fmt.Sprint(same) != "[[0 2]]" {
		t.Errorf("aligned links %v, want [[0 2]]", same)
	}
}

// TestHoldOutGroups: batches that repeat one another's input are held out
// together, never split between training and validation; with fewer
// groups than HoldOutBatches nothing is held out.
func TestHoldOutGroups(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 13))
	for _, tc := range []struct {
		inputs, copies, held int // held: batches held out; 0: none
	}{{5, 2, 2}, {10, 3, 6}, {7, 1, 1}, {2, 4, 0}, {4, 3, 0}} {
		var bases [][]float64
		for range tc.inputs {
			bases = append(bases, lowpass(noise(rng, 400), 0.4))
		}
		d := &Dataset{Name: "d"}
		for range tc.copies {
			for k, u := range bases {
				b := Batch{U: append([]float64{}, u...), Label: fmt.Sprint(k)}
				for i := range b.U {
					b.U[i] += 0.01 * rng.NormFloat64()
				}
				b.Y = make([]float64, len(b.U))
				d.Batches = append(d.Batches, b)
			}
		}
		for _, seed := range []uint64{1, 2, 3} {
			train, val := HoldOut(d, seed)
			if tc.held == 0 {
				if val != nil || train != d {
					t.Errorf("%d inputs × %d: held out %d batches, want none", tc.inputs, tc.copies, val.Len())
				}
				continue
			}
			if val.Len() != tc.held || train.Len()+val.Len() != d.Len() {
				t.Fatalf("%d inputs × %d seed %d: %d held out, want %d", tc.inputs, tc.copies, seed, val.Len(), tc.held)
			}
			inVal := map[string]bool{}
			for _, b := range val.Batches {
				inVal[b.Label] = true
			}
			for _, b := range train.Batches {
				if inVal[b.Label] {
					t.Errorf("%d inputs × %d seed %d: input %s both in training and in validation", tc.inputs, tc.copies, seed, b.Label)
				}
			}
		}
	}
}

// BenchmarkFindRepeat: one record of 80 000 samples, the largest the
// default training is sized for.
func BenchmarkFindRepeat(b *testing.B) {
	u := lowpass(noise(rand.New(rand.NewPCG(1, 1)), 80000), 0.5)
	for b.Loop() {
		FindRepeat(u, 16000)
	}
}

// TestSharedInput: the first validation batch that repeats a training
// batch's input is found, at any lag and sign; independent inputs are not.
func TestSharedInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 15))
	a := lowpass(noise(rng, 1000), 0.5)
	mk := func(u []float64) Batch { return Batch{U: u, Y: u} }
	neg := make([]float64, 600)
	for i := range neg {
		neg[i] = -a[200+i]
	}
	train := &Dataset{Batches: []Batch{mk(noise(rng, 800)), mk(a)}}
	for _, tc := range []struct {
		name   string
		val    []Batch
		ti, vi int
		ok     bool
	}{
		{"independent", []Batch{mk(noise(rng, 700)), mk(lowpass(noise(rng, 900), 0.5))}, 0, 0, false},
		{"a later piece, sign flipped", []Batch{mk(noise(rng, 700)), mk(neg)}, 1, 1, true},
		{"a copy first", []Batch{mk(a), mk(neg)}, 1, 0, true},
	} {
		ti, vi, ok := SharedInput(train, &Dataset{Batches: tc.val})
		if ok != tc.ok || ok && (ti != tc.ti || vi != tc.vi) {
			t.Errorf("%s: %d %d %v, want %d %d %v", tc.name, ti, vi, ok, tc.ti, tc.vi, tc.ok)
		}
	}
}

// BenchmarkGroups: 40 batches of 2000 samples (80 000 in all), every pair
// compared at every lag, and 300 batches of 1000 (gen msd's size), beyond
// MaxGroupWork, compared at lag 0.
func BenchmarkGroups(b *testing.B) {
	for _, c := range []struct {
		name           string
		batches, width int
	}{{"40x2000", 40, 2000}, {"300x1000-aligned", 300, 1000}} {
		rng := rand.New(rand.NewPCG(1, 1))
		d := &Dataset{}
		for range c.batches {
			u := lowpass(noise(rng, c.width), 0.5)
			d.Batches = append(d.Batches, Batch{U: u, Y: u})
		}
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				Groups(d)
			}
		})
	}
}
