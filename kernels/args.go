package kernels

// The argument checks and the empty cases of the kernels, shared by every
// backend so that they agree exactly on what is an error (a panic wrapping
// ErrShape, as gonum's BLAS does) and on what an empty problem returns.

// convCommonArgs checks the arguments ConvForward and ConvBackward share and
// returns the total number of samples N.
func convCommonArgs(op string, s Seqs, mN, mG int, u, n, g, z []float64) int {
	checkSeqs(op, s)
	checkDims(op, mN, mG)
	N := s.Total()
	need(op, "u", len(u), N)
	need(op, "n", len(n), N*mN)
	need(op, "g", len(g), mN*mG)
	need(op, "z", len(z), N*mN)
	return N
}

// convForwardArgs checks ConvForward's arguments and handles m_N = 0 or
// m_G = 0 (y = 0, z = 0); done reports that nothing is left to compute.
func convForwardArgs(s Seqs, mN, mG int, u, n, g, z, y []float64) (N int, done bool) {
	const op = "ConvForward"
	N = convCommonArgs(op, s, mN, mG, u, n, g, z)
	need(op, "y", len(y), N)
	if mN == 0 || mG == 0 {
		clear(y[:N])
		clear(z[:N*mN])
		return N, true
	}
	return N, false
}

// convBackwardArgs checks ConvBackward's arguments and handles m_N = 0 and
// m_G = 0 (dn = dy·z); done reports that nothing is left to compute.
func convBackwardArgs(s Seqs, mN, mG int, u, n, g, z, dy, dn, dg []float64) (N int, done bool) {
	const op = "ConvBackward"
	N = convCommonArgs(op, s, mN, mG, u, n, g, z)
	need(op, "dy", len(dy), N)
	need(op, "dn", len(dn), N*mN)
	if dg != nil {
		need(op, "dg", len(dg), mN*mG)
	}
	if mN == 0 {
		return N, true
	}
	if mG == 0 {
		for i := range N * mN {
			dn[i] = dy[i/mN] * z[i]
		}
		return N, true
	}
	return N, false
}

// denseBackwardArgs checks DenseTanhBackward's arguments and handles rows = 0
// and out = 0 (dx = 0); it reports that nothing is left to compute.
func denseBackwardArgs(rows, in, out int, x, w, y, dy, dx, dw, db []float64) (done bool) {
	const op = "DenseTanhBackward"
	checkDims(op, rows, in, out)
	need(op, "x", len(x), rows*in)
	need(op, "w", len(w), out*in)
	need(op, "y", len(y), rows*out)
	need(op, "dy", len(dy), rows*out)
	if dx != nil {
		need(op, "dx", len(dx), rows*in)
	}
	need(op, "dw", len(dw), out*in)
	need(op, "db", len(db), out)
	if rows == 0 {
		return true
	}
	if out == 0 {
		if dx != nil {
			clear(dx[:rows*in])
		}
		return true
	}
	return false
}

// gramArgs checks Gram's arguments and returns the number of samples and of
// columns nθ = m_N·m_G + m_L.
func gramArgs(s Seqs, mN, mG, mL int, u, n, y, P, b []float64) (N, nt int) {
	const op = "Gram"
	checkSeqs(op, s)
	checkDims(op, mN, mG, mL)
	N = s.Total()
	nt = mN*mG + mL
	need(op, "u", len(u), N)
	need(op, "n", len(n), N*mN)
	need(op, "y", len(y), N)
	need(op, "P", len(P), nt*nt)
	need(op, "b", len(b), nt)
	return N, nt
}

// linearForwardArgs checks LinearForward's arguments; done reports that
// there is nothing to add (no taps or no samples).
func linearForwardArgs(s Seqs, mL int, u, lin, y []float64) (N int, done bool) {
	const op = "LinearForward"
	checkSeqs(op, s)
	checkDims(op, mL)
	N = s.Total()
	need(op, "u", len(u), N)
	need(op, "lin", len(lin), mL)
	need(op, "y", len(y), N)
	return N, mL == 0 || N == 0
}

// linearBackwardArgs checks LinearBackward's arguments; done reports that
// there is nothing to accumulate.
func linearBackwardArgs(s Seqs, mL int, u, dy, dlin []float64) (N int, done bool) {
	const op = "LinearBackward"
	checkSeqs(op, s)
	checkDims(op, mL)
	N = s.Total()
	need(op, "u", len(u), N)
	need(op, "dy", len(dy), N)
	need(op, "dlin", len(dlin), mL)
	return N, mL == 0 || N == 0
}
