package model

// Stepper runs a model one sample at a time, for a control loop that gets
// u(t) and needs y(t) before u(t+1) exists: Reset, then one Step per sample.
// It is the closed-loop operator of Simulate (q(t) = y(t−1), q(0) = 0, every
// signal at rest before the first Step), with its memory held inside, and
// Step neither allocates nor reads anything but the Stepper.
//
// The sums are taken in Simulate's order (each branch's taps from k = 0
// upward, the branches in order, then the linear FIR), so on a machine that
// does not fuse multiply-adds a Stepper's output is bit for bit Simulate's.
//
// A Stepper copies the parameters it needs when it is made: changing the
// model afterwards does not change the Stepper. It is not safe for
// concurrent use; make one per loop.
type Stepper struct {
	s Structure

	uScale, uMean, uStd float64
	qScale, qMean, qStd float64

	// The taps, transposed so that the inner loop runs over branches:
	// gT[k*Branches+j] = g_j(k). Sweeping all branches at one lag keeps
	// Branches independent sums in flight, instead of one dependent chain of
	// Taps additions per branch, without changing the order in which any one
	// branch's sum is formed.
	gT  []float64
	lin []float64

	lift   MLP
	work   []float64
	feat   []float64 // p(t): R1 scaled u samples, then R2 scaled q samples, oldest first
	z      []float64 // one partial sum per branch
	nHist  []float64 // gains, a ring of 2·Taps rows of Branches (see head)
	uHist  []float64 // inputs, a ring of 2·uLen samples
	uLen   int       // max(Taps, LinearTaps): the inputs the FIRs reach back to
	nHead  int       // row of n(t) in nHist; lag k is row nHead+k
	uHead  int       // index of u(t) in uHist; lag k is uHead+k
	t      int       // samples stepped since Reset
	yPrev  float64   // y(t−1): the next q
	uWidth int       // R1
	qWidth int       // R2 with feedback, else 0
}

// NewStepper returns a Stepper for m, reset. It fails when m does not pass
// Check.
func NewStepper(m *NFIR) (*Stepper, error) {
	if err := m.Check(); err != nil {
		return nil, err
	}
	s := m.Structure
	st := &Stepper{
		s:      s,
		uScale: m.UScaler.Scale, uMean: m.UScaler.Mean, uStd: m.UScaler.Std,
		qScale: m.QScaler.Scale, qMean: m.QScaler.Mean, qStd: m.QScaler.Std,
		lin:  append([]float64(nil), m.Lin...),
		uLen: max(s.LinearTaps, 1),
	}
	if s.Branches > 0 {
		c := m.Clone()
		st.lift = c.Lift
		st.work = make([]float64, 2*maxInt(c.Lift.Sizes))
		st.uWidth = s.R1
		if s.Feedback {
			st.qWidth = s.R2
		}
		st.feat = make([]float64, st.uWidth+st.qWidth)
		st.z = make([]float64, s.Branches)
		st.gT = make([]float64, s.Taps*s.Branches)
		for j := 0; j < s.Branches; j++ {
			for k := 0; k < s.Taps; k++ {
				st.gT[k*s.Branches+j] = m.G[j*s.Taps+k]
			}
		}
		st.nHist = make([]float64, 2*s.Taps*s.Branches)
		st.uLen = max(st.uLen, s.Taps)
	}
	st.uHist = make([]float64, 2*st.uLen)
	st.Reset()
	return st, nil
}

// Reset returns the Stepper to rest: the next Step is sample t = 0.
func (st *Stepper) Reset() {
	clear(st.nHist)
	clear(st.uHist)
	st.nHead, st.uHead, st.t, st.yPrev = 0, 0, 0, 0
	// The windows before t = 0 hold raw zeros, seen through the scalers.
	for i := 0; i < st.uWidth; i++ {
		st.feat[i] = (0/st.uScale - st.uMean) / st.uStd
	}
	for i := 0; i < st.qWidth; i++ {
		st.feat[st.uWidth+i] = (0/st.qScale - st.qMean) / st.qStd
	}
}

// T returns the number of samples stepped since the last Reset: the time
// index of the next Step.
func (st *Stepper) T() int { return st.t }

// Step takes u(t) and returns y(t), advancing the Stepper to t+1.
func (st *Stepper) Step(u float64) float64 {
	s := &st.s
	// The rings are doubled: every value is written at i and i+len, so that
	// the lags 0..len−1 of the newest sample are always one contiguous run
	// starting at the head, whatever the head's position.
	st.uHead--
	if st.uHead < 0 {
		st.uHead = st.uLen - 1
	}
	st.uHist[st.uHead] = u
	st.uHist[st.uHead+st.uLen] = u
	uw := st.uHist[st.uHead : st.uHead+st.uLen]

	y := 0.0
	if mN := s.Branches; mN > 0 {
		// The feature windows are a few samples wide: shifting them costs
		// what gathering them from a ring into the MLP's input would.
		su := (u/st.uScale - st.uMean) / st.uStd
		if w := st.uWidth; w > 0 {
			if st.t == 0 && s.HoldStart {
				for i := 0; i < w; i++ {
					st.feat[i] = su
				}
			} else {
				copy(st.feat[:w-1], st.feat[1:w])
				st.feat[w-1] = su
			}
		}
		if w := st.qWidth; w > 0 {
			f := st.feat[st.uWidth:]
			copy(f[:w-1], f[1:w])
			f[w-1] = (st.yPrev/st.qScale - st.qMean) / st.qStd
		}
		st.nHead--
		if st.nHead < 0 {
			st.nHead = s.Taps - 1
		}
		rows := s.Taps * mN
		n := st.nHist[st.nHead*mN : (st.nHead+1)*mN]
		st.lift.Eval(st.feat, n, st.work)
		copy(st.nHist[st.nHead*mN+rows:], n)

		// Lags past t read the zeros the rings were reset to, so they add
		// nothing (Simulate skips them).
		nw := st.nHist[st.nHead*mN : st.nHead*mN+rows]
		z := st.z
		clear(z)
		for k := 0; k < s.Taps; k++ {
			g := st.gT[k*mN : (k+1)*mN]
			nk := nw[k*mN : (k+1)*mN]
			nk, z := nk[:len(g)], z[:len(g)] // one bounds check per lag, not per term
			uk := uw[k]
			for j, gj := range g {
				z[j] += gj * nk[j] * uk
			}
		}
		for j, v := range z {
			y += n[j] * v
		}
	}
	for k, l := range st.lin {
		y += l * uw[k]
	}
	st.yPrev = y
	st.t++
	return y
}
