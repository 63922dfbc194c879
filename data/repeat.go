package data

import (
	"math"

	"gonum.org/v1/gonum/dsp/fourier"
)

// Repeated excitation. Identification experiments often repeat their
// input: several periods of one multisine, or an odd multisine whose second
// half is its first with the sign flipped, u(t+P/2) = −u(t) (the robot
// arm's record e, at a lag of 992 samples, correlation −0.996). A
// validation segment cut from the end of such a record sees an input the
// training part already holds, so its Fit rewards a model that fits the
// training data closely rather than one that generalises: on the robot arm
// the structure search's loops validated at 92.9 % on e's tail and scored
// 85.4 % on v1, an experiment of the same kind (docs/ZOO.md, session 35).

// RepeatCorr is the |correlation| from which FindRepeat calls an input
// repeated: measured inputs that repeat reach 0.99 and more, noise and
// swept or amplitude-varying excitations stay far below.
const RepeatCorr = 0.9

// decorrelated is the |correlation| below which an input has forgotten
// itself: lags shorter than the first one below it only measure how smooth
// the input is, not whether it repeats.
const decorrelated = 0.5

// A Repeat is a lag at which a record's input repeats itself:
// u(t+Lag) ≈ ±u(t), with Corr the normalised correlation of u(t) and
// u(t+Lag) over their overlap, near +1 for a periodic input (Lag a period)
// and near −1 for an antiperiodic one (Lag half a period).
type Repeat struct {
	Lag  int
	Corr float64
}

// FindRepeat returns the shortest lag at which u repeats itself, with an
// overlap of at least minOverlap samples (at least 2) and of ten times the
// lag at which the correlation first falls below 0.5 (over fewer, a smooth
// input matches itself by chance): the first local maximum of
// |correlation| at or above RepeatCorr after that fall. ok is false when u
// does not repeat, or is constant. The correlations of all lags come from
// one FFT, so the cost is O(n log n).
func FindRepeat(u []float64, minOverlap int) (r Repeat, ok bool) {
	return findRepeat(u, minOverlap, false)
}

// FindPeriod is FindRepeat for repeats of the same sign only, u(t+Lag) ≈
// u(t): the shortest period of u, where an antiperiodic input's is twice its
// antiperiod.
func FindPeriod(u []float64, minOverlap int) (r Repeat, ok bool) {
	return findRepeat(u, minOverlap, true)
}

// findRepeat is FindRepeat, for repeats of the same sign only when
// sameSign (FindPeriod).
func findRepeat(u []float64, minOverlap int, sameSign bool) (r Repeat, ok bool) {
	rho := lagCorrelation(u, max(minOverlap, 2))
	L := 1
	for L < len(rho) && math.Abs(rho[L]) >= decorrelated {
		L++
	}
	strength := func(v float64) float64 {
		if sameSign {
			return v
		}
		return math.Abs(v)
	}
	for last := len(u) - 10*L; L < len(rho) && L <= last; L++ {
		if strength(rho[L]) < RepeatCorr {
			continue
		}
		for L+1 < len(rho) && L+1 <= last && strength(rho[L+1]) > strength(rho[L]) {
			L++
		}
		return Repeat{Lag: L, Corr: rho[L]}, true
	}
	return Repeat{}, false
}

// lagCorrelation returns ρ(L) for L = 0 … n−minOverlap: the correlation
// Σ x(t)·x(t+L) of u's deviation from its mean, over the overlap, divided by
// the root of the two overlapping parts' energies (0 where either is 0).
func lagCorrelation(u []float64, minOverlap int) []float64 {
	return deviation(u).correlation(minOverlap)
}

// Groups returns the batches of d in groups whose inputs repeat one another:
// two batches are in one group when their inputs match, u_b(t+L) ≈ ±u_a(t),
// at some lag L over at least half the shorter batch (and ten times the lag
// at which either input's own correlation first falls below 0.5), with
// |correlation| at least RepeatCorr; a group holds every batch linked to it
// through such matches. Groups are ordered by their first batch, and
// batches within a group by index. Records of one experiment cut into
// periods, or repeated with the same input, are then one group, so that a
// holdout can keep them together (HoldOut). The comparison costs one
// inverse FFT per pair of batches; where that would exceed MaxGroupWork
// samples in all, batches are compared at lag 0 only (copies cut at the
// same phase, as periods cut where they start), one dot product a pair.
func Groups(d *Dataset) [][]int {
	n := d.Len()
	parent := make([]int, n)
	for i := range parent {
		parent[i] = i
	}
	var find func(i int) int
	find = func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	compare(d, float64(n)*float64(n-1)/2, func(i, j int) bool { return true }, func(i, j int) { parent[find(j)] = find(i) })
	var groups [][]int
	at := map[int]int{}
	for i := range n {
		r := find(i)
		k, ok := at[r]
		if !ok {
			k = len(groups)
			at[r] = k
			groups = append(groups, nil)
		}
		groups[k] = append(groups[k], i)
	}
	return groups
}

// compare calls link for the pairs of d's batches that want takes (pairs
// of them) and whose inputs match: at every lag (links) when that fits in
// MaxGroupWork, at lag 0 (alignedLinks) otherwise.
func compare(d *Dataset, pairs float64, want func(i, j int) bool, link func(i, j int)) {
	longest := 0
	for _, b := range d.Batches {
		longest = max(longest, b.Len())
	}
	switch {
	case d.Len() < 2 || longest < 2:
	case pairs*float64(2*longest) <= MaxGroupWork:
		links(d, longest, want, link)
	default:
		alignedLinks(d, want, link)
	}
}

// SharedInput returns the first batch of val, in order, whose input repeats
// that of a batch of train (matched as Groups matches batches), and that
// batch: validation data cut from the same measured input as the training
// data (another period of one multisine, say) score inputs the model was
// trained on. ok is false when no batch of val repeats one of train.
func SharedInput(train, val *Dataset) (ti, vi int, ok bool) {
	nt := train.Len()
	both := &Dataset{Batches: append(append([]Batch{}, train.Batches...), val.Batches...)}
	best := [2]int{-1, -1}
	compare(both, float64(nt)*float64(val.Len()), func(i, j int) bool { return i < nt && j >= nt }, func(i, j int) {
		if v := j - nt; best[1] < 0 || v < best[1] || v == best[1] && i < best[0] {
			best = [2]int{i, v}
		}
	})
	return best[0], best[1], best[1] >= 0
}

// MaxGroupWork bounds the samples Groups's inverse FFTs may take in all
// (pairs of batches times twice the longest batch): about a sixth of a
// second on the 2-core machine (BenchmarkGroups: 40 batches of 2000
// samples, 3.1e6, take 0.10 s).
const MaxGroupWork = 5e6

// alignedLinks calls link(i, j) for every pair i < j of d's batches whose
// inputs match at lag 0 over the shorter one (with the overlap rule of
// links).
func alignedLinks(d *Dataset, want func(i, j int) bool, link func(i, j int)) {
	devs := make([]centred, d.Len())
	for i, b := range d.Batches {
		devs[i] = centre(b.U)
	}
	for i := range devs {
		for j := i + 1; j < len(devs); j++ {
			if !want(i, j) {
				continue
			}
			a, b := devs[i], devs[j]
			m := min(len(a.x), len(b.x))
			if m < max(m/2, 10*max(a.tau, b.tau), 2) || a.cum[m] <= 0 || b.cum[m] <= 0 {
				continue
			}
			var s float64
			for t := range m {
				s += a.x[t] * b.x[t]
			}
			if math.Abs(s)/math.Sqrt(a.cum[m]*b.cum[m]) >= RepeatCorr {
				link(i, j)
			}
		}
	}
}

// centred is a record's input less its mean, x, with cum[k] the energy of
// x[0:k] and tau the lag at which its correlation first falls below 0.5 in
// absolute value (len(x) when it never does): what comparing it with
// itself or other records needs.
type centred struct {
	x, cum []float64
	tau    int
}

// centre returns u centred, tau included.
func centre(u []float64) centred {
	c := deviation(u)
	c.tau = len(u)
	rho := c.correlation(2)
	for L := 1; L < len(rho); L++ {
		if math.Abs(rho[L]) < decorrelated {
			c.tau = L
			break
		}
	}
	return c
}

// deviation is centre without tau.
func deviation(u []float64) centred {
	var mean float64
	for _, v := range u {
		mean += v / float64(len(u))
	}
	c := centred{x: make([]float64, len(u)), cum: make([]float64, len(u)+1)}
	for t, v := range u {
		c.x[t] = v - mean
		c.cum[t+1] = c.cum[t] + c.x[t]*c.x[t]
	}
	return c
}

// correlation is lagCorrelation of c's record.
func (c centred) correlation(minOverlap int) []float64 {
	n := len(c.x)
	if n < minOverlap {
		return nil
	}
	// Zero padding to 2n makes the circular correlation the linear one.
	N := 2 * n
	x := make([]float64, N)
	copy(x, c.x)
	fft := fourier.NewFFT(N)
	spec := fft.Coefficients(nil, x)
	for i, v := range spec {
		spec[i] = complex(real(v)*real(v)+imag(v)*imag(v), 0)
	}
	r := fft.Sequence(nil, spec)
	rho := make([]float64, n-minOverlap+1)
	for L := range rho {
		head := c.cum[n-L]          // x[0 : n−L]
		tail := c.cum[n] - c.cum[L] // x[L : n]
		if head <= 0 || tail <= 0 {
			continue
		}
		rho[L] = r[L] / float64(N) / math.Sqrt(head*tail)
	}
	return rho
}

// links calls link(i, j) for every pair i < j of d's batches whose inputs
// match (Groups).
func links(d *Dataset, longest int, want func(i, j int) bool, link func(i, j int)) {
	N := 2 * longest
	fft := fourier.NewFFT(N)
	type spec struct {
		centred
		c []complex128 // the spectrum of x padded to N
	}
	specs := make([]spec, d.Len())
	x := make([]float64, N)
	for i, b := range d.Batches {
		s := spec{centred: centre(b.U)}
		clear(x)
		copy(x, s.x)
		s.c = fft.Coefficients(nil, x)
		specs[i] = s
	}
	prod := make([]complex128, N/2+1)
	var r []float64
	for i := range specs {
		for j := i + 1; j < len(specs); j++ {
			if !want(i, j) {
				continue
			}
			a, b := specs[i], specs[j]
			la, lb := d.Batches[i].Len(), d.Batches[j].Len()
			minOverlap := max(min(la, lb)/2, 10*max(a.tau, b.tau), 2)
			if min(la, lb) < minOverlap {
				continue
			}
			for k := range prod {
				prod[k] = a.c[k] * complex(real(b.c[k]), -imag(b.c[k]))
			}
			// r[L] = Σ_t a(t+L)·b(t): b leads by L ≥ 0, or lags by N−L.
			r = fft.Sequence(r, prod)
			for L := -(lb - 1); L < la; L++ {
				// a[L:] against b[:la−L] for L ≥ 0; a[:lb+L] against b[−L:] for L < 0.
				a0, b0 := max(L, 0), max(-L, 0)
				m := min(la-a0, lb-b0)
				if m < minOverlap {
					continue
				}
				ea := a.cum[a0+m] - a.cum[a0]
				eb := b.cum[b0+m] - b.cum[b0]
				if ea <= 0 || eb <= 0 {
					continue
				}
				v := r[(L+N)%N] / float64(N) / math.Sqrt(ea*eb)
				if math.Abs(v) >= RepeatCorr {
					link(i, j)
					break
				}
			}
		}
	}
}
