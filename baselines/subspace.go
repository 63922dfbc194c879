package baselines

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/passivenfir/gputrain/data"
)

// Weighting selects the weights W1, W2 of the unified subspace theorem (Van Overschee and
// De Moor, 1996): the order and the extended observability matrix are read from the SVD
// of W1 · O_i · W2, where O_i = Y_f /_{U_f} W_p is the oblique projection of the future
// outputs onto the past data along the future inputs.
type Weighting int

const (
	// WeightN4SID is W1 = I, W2 = I: the SVD of the oblique projection itself (N4SID).
	WeightN4SID Weighting = iota
	// WeightMOESP is W1 = I, W2 = Π⊥_{U_f}: the SVD of the past-instrumented orthogonal
	// projection of Y_f onto the complement of U_f (PO-MOESP, Verhaegen 1994).
	WeightMOESP
)

// String returns "N4SID" or "MOESP".
func (w Weighting) String() string {
	switch w {
	case WeightN4SID:
		return "N4SID"
	case WeightMOESP:
		return "MOESP"
	}
	return fmt.Sprintf("Weighting(%d)", int(w))
}

// SubspaceConfig configures Subspace.
type SubspaceConfig struct {
	// Order is the state dimension n, 1 ≤ Order < Horizon.
	Order int
	// Horizon is the number i of block rows of the past and of the future Hankel matrices
	// (i samples of past, i of future). It must exceed Order; 2–3 times the order, or
	// about the settling time in samples, is typical.
	Horizon int
	// Weighting selects N4SID or MOESP weights (default N4SID).
	Weighting Weighting
	// RankTol is the relative tolerance below which singular values of the past-data
	// block are treated as zero in its pseudo-inverse (noise-free data make the past
	// [U_p; Y_p] rank deficient). 0 means 1e-10.
	RankTol float64
}

// N4SID identifies a state-space model of the given order from all batches of d with
// the N4SID weighting and horizon block rows; see Subspace.
func N4SID(d *data.Dataset, order, horizon int) (*StateSpace, error) {
	return Subspace(d, SubspaceConfig{Order: order, Horizon: horizon, Weighting: WeightN4SID})
}

// MOESP is N4SID with the PO-MOESP weighting; see Subspace.
func MOESP(d *data.Dataset, order, horizon int) (*StateSpace, error) {
	return Subspace(d, SubspaceConfig{Order: order, Horizon: horizon, Weighting: WeightMOESP})
}

// Subspace identifies x(t+1) = A x(t) + B u(t), y(t) = C x(t) + D u(t) from the
// input–output batches of d (trained on Y, never on YClean) by subspace identification:
//
//  1. u and y are scaled to unit RMS (undone on the result) for conditioning.
//  2. Each batch contributes its own block-Hankel columns: for every j = 0 … T−i the
//     column [u_f; u_p; y_p; y_f] with future u(j … j+i−1), y(j … j+i−1) and past
//     u(j−i … j−1), y(j−i … j−1). Samples before t = 0 are the zeros of a system at
//     rest, which is exactly what the batches are, so early columns are valid too.
//     Columns of different batches never straddle a batch boundary.
//  3. The LQ factorisation H = L Qᵀ of H = [U_f; W_p; Y_f] (W_p = [U_p; Y_p]) is
//     computed as the QR factorisation of Hᵀ, accumulated over chunks of columns
//     (R ← qr([R; next rows])), so memory stays O(i²) whatever the data size.
//  4. Weighted projection from blocks of L: N4SID uses the oblique projection
//     O_i = L32 L22⁺ W_p, i.e. the SVD of L32 L22⁺ [L21 L22]; MOESP the SVD of
//     L32 L22⁺ L22 (the projection with Π⊥_{U_f} on the right).
//  5. Γ_i = U_1 S_1^{1/2} from the n leading singular triplets; C is its first row
//     and A solves Γ_i[0:i−1] A = Γ_i[1:i] in least squares (shift invariance). If A is
//     not stable, it is re-estimated from Γ_i A = [Γ_i[1:i]; 0], which guarantees
//     |λ(A)| ≤ 1 (Chui and Maciejowski 1996), and Stabilized is set.
//  6. With A and C fixed, the simulated output from x(0) = 0 is linear in (B, D):
//     ŷ(t) = Σ_{k≥1} C A^{k−1} B u(t−k) + D u(t); B and D are its least-squares fit to
//     y over all batches (QR).
func Subspace(d *data.Dataset, cfg SubspaceConfig) (*StateSpace, error) {
	name := "baselines: " + cfg.Weighting.String()
	n, i := cfg.Order, cfg.Horizon
	switch {
	case cfg.Weighting != WeightN4SID && cfg.Weighting != WeightMOESP:
		return nil, fmt.Errorf("%s: unknown weighting %d: %w", name, int(cfg.Weighting), ErrConfig)
	case i < 2:
		return nil, fmt.Errorf("%s: horizon %d, need ≥ 2: %w", name, i, ErrConfig)
	case n < 1 || n >= i:
		return nil, fmt.Errorf("%s: order %d, need 1 ≤ order < horizon = %d: %w", name, n, i, ErrConfig)
	case cfg.RankTol < 0 || math.IsNaN(cfg.RankTol) || cfg.RankTol >= 1:
		return nil, fmt.Errorf("%s: RankTol %v, need 0 ≤ RankTol < 1: %w", name, cfg.RankTol, ErrConfig)
	}
	tol := cfg.RankTol
	if tol == 0 {
		tol = 1e-10
	}
	if d == nil {
		return nil, fmt.Errorf("%s: nil dataset: %w", name, ErrData)
	}
	if err := d.Validate(i); err != nil {
		return nil, fmt.Errorf("%s: %w: %w", name, ErrData, err)
	}
	cols := 0
	for _, b := range d.Batches {
		cols += len(b.U) - i + 1
	}
	if cols < 4*i {
		return nil, fmt.Errorf("%s: %d Hankel columns for %d rows; need more data or a shorter horizon: %w",
			name, cols, 4*i, ErrData)
	}
	su, sy := rms(d.Inputs()), rms(d.Outputs())
	if su == 0 || sy == 0 {
		return nil, fmt.Errorf("%s: input RMS %v, output RMS %v; the data must be exciting: %w", name, su, sy, ErrData)
	}

	l := hankelLQ(d, i, 1/su, 1/sy)

	// Blocks of L (4i × 4i lower triangular): rows/cols [0,i) U_f, [i,3i) W_p, [3i,4i) Y_f.
	l22 := l.Slice(i, 3*i, i, 3*i)
	l32 := l.Slice(3*i, 4*i, i, 3*i)
	p22, err := pinv(l22, tol)
	if err != nil {
		return nil, fmt.Errorf("%s: pseudo-inverse of the past block: %w", name, err)
	}
	var k mat.Dense // L32 L22⁺ (i × 2i)
	k.Mul(l32, p22)
	var w mat.Dense
	switch cfg.Weighting {
	case WeightN4SID:
		w.Mul(&k, l.Slice(i, 3*i, 0, 3*i)) // [L21 L22] (2i × 3i)
	case WeightMOESP:
		w.Mul(&k, l22)
	}
	var svd mat.SVD
	if !svd.Factorize(&w, mat.SVDThin) {
		return nil, fmt.Errorf("%s: SVD of the weighted projection failed: %w", name, ErrNumerical)
	}
	sv := svd.Values(nil)
	if sv[n-1] <= 0 || !isFinite(sv[0]) {
		return nil, fmt.Errorf("%s: projection has rank < %d (singular values %v); lower the order or add excitation: %w",
			name, n, sv[:n], ErrData)
	}
	var u mat.Dense
	svd.UTo(&u)
	gam := mat.NewDense(i, n, nil) // Γ_i = U_1 S_1^{1/2}
	for r := 0; r < i; r++ {
		for c := 0; c < n; c++ {
			gam.Set(r, c, u.At(r, c)*math.Sqrt(sv[c]))
		}
	}

	a, stabilized, err := shiftA(gam, i, n)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	cvec := mat.NewVecDense(n, nil)
	for c := 0; c < n; c++ {
		cvec.SetVec(c, gam.At(0, c))
	}
	bvec, dval, err := fitBD(d, a, cvec, 1/su, 1/sy)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	// Undo the scaling: ỹ = y/sy, ũ = u/su, so B = B̃/su, C = sy·C̃, D = sy·D̃/su.
	bvec.ScaleVec(1/su, bvec)
	cvec.ScaleVec(sy, cvec)
	return &StateSpace{
		A: a, B: bvec, C: cvec, D: dval * sy / su,
		Ts: d.Ts, SingularValues: sv, Stabilized: stabilized,
	}, nil
}

// hankelLQ returns the lower-triangular L (4i × 4i) of the LQ factorisation of the
// stacked block-Hankel matrix H = [U_f; U_p; Y_p; Y_f] of all batches of d (inputs scaled
// by cu, outputs by cy), as Rᵀ of the QR factorisation of Hᵀ accumulated chunk by chunk.
// The signs are normalised to a non-negative diagonal so the result is unique.
func hankelLQ(d *data.Dataset, i int, cu, cy float64) *mat.Dense {
	const chunk = 2048
	m := 4 * i
	buf := mat.NewDense(m+chunk, m, nil)
	r := mat.NewDense(m, m, nil)
	rows, fresh := 0, 0 // rows filled in buf; rows added since the last flush
	flush := func() {
		if fresh == 0 {
			return
		}
		for ; rows < m; rows++ { // too few rows for an m×m R: pad with zero rows
			clear(buf.RawRowView(rows))
		}
		var qr mat.QR
		qr.Factorize(buf.Slice(0, rows, 0, m))
		var full mat.Dense
		qr.RTo(&full)
		r.Copy(full.Slice(0, m, 0, m))
		// The following columns are stacked under R: qr([R; H_next]) continues the
		// factorisation of all columns so far.
		buf.Slice(0, m, 0, m).(*mat.Dense).Copy(r)
		rows, fresh = m, 0
	}
	for _, b := range d.Batches {
		for j := 0; j+i <= len(b.U); j++ {
			if rows == m+chunk {
				flush()
			}
			row := buf.RawRowView(rows)
			for k := 0; k < i; k++ {
				row[k] = cu * b.U[j+k]     // u_f
				row[3*i+k] = cy * b.Y[j+k] // y_f
				if p := j - i + k; p >= 0 {
					row[i+k] = cu * b.U[p] // u_p, oldest first
					row[2*i+k] = cy * b.Y[p]
				} else { // before t = 0: at rest
					row[i+k], row[2*i+k] = 0, 0
				}
			}
			rows++
			fresh++
		}
	}
	flush()
	// L = Rᵀ with a non-negative diagonal.
	l := mat.NewDense(m, m, nil)
	for c := 0; c < m; c++ {
		s := 1.0
		if r.At(c, c) < 0 {
			s = -1
		}
		for q := c; q < m; q++ {
			l.Set(q, c, s*r.At(c, q))
		}
	}
	return l
}

// pinv returns the Moore–Penrose pseudo-inverse of a, treating singular values below
// tol·σ_max as zero.
func pinv(a mat.Matrix, tol float64) (*mat.Dense, error) {
	var svd mat.SVD
	if !svd.Factorize(a, mat.SVDThin) {
		return nil, fmt.Errorf("SVD failed: %w", ErrNumerical)
	}
	s := svd.Values(nil)
	var u, v mat.Dense
	svd.UTo(&u)
	svd.VTo(&v)
	r, c := a.Dims()
	out := mat.NewDense(c, r, nil)
	if len(s) == 0 || s[0] == 0 {
		return out, nil
	}
	cut := tol * s[0]
	// a⁺ = V Σ⁺ Uᵀ
	for k, sk := range s {
		if sk <= cut {
			break
		}
		inv := 1 / sk
		for p := 0; p < c; p++ {
			vp := v.At(p, k) * inv
			if vp == 0 {
				continue
			}
			row := out.RawRowView(p)
			for q := 0; q < r; q++ {
				row[q] += vp * u.At(q, k)
			}
		}
	}
	return out, nil
}

// shiftA estimates A from the extended observability matrix Γ (i × n) by shift
// invariance, Γ[0:i−1] A = Γ[1:i], falling back to the stabilising zero-padded shift
// Γ A = [Γ[1:i]; 0] if the first estimate has a pole on or outside the unit circle.
func shiftA(gam *mat.Dense, i, n int) (*mat.Dense, bool, error) {
	var a mat.Dense
	if err := a.Solve(gam.Slice(0, i-1, 0, n), gam.Slice(1, i, 0, n)); err != nil {
		return nil, false, fmt.Errorf("shift-invariance least squares: %v: %w", err, ErrNumerical)
	}
	var e mat.Eigen
	if e.Factorize(&a, mat.EigenNone) && spectralRadius(e.Values(nil)) < 1 {
		return &a, false, nil
	}
	down := mat.NewDense(i, n, nil)
	down.Slice(0, i-1, 0, n).(*mat.Dense).Copy(gam.Slice(1, i, 0, n))
	var as mat.Dense
	if err := as.Solve(gam, down); err != nil {
		return nil, false, fmt.Errorf("stabilised shift least squares: %v: %w", err, ErrNumerical)
	}
	return &as, true, nil
}

// fitBD returns the least-squares B and D of ŷ(t) = Σ_{k≥1} C A^{k−1} B u(t−k) + D u(t)
// (x(0) = 0) over all batches, with inputs scaled by cu and outputs by cy.
func fitBD(d *data.Dataset, a *mat.Dense, c *mat.VecDense, cu, cy float64) (*mat.VecDense, float64, error) {
	n := c.Len()
	tmax, total := 0, 0
	for _, b := range d.Batches {
		tmax = max(tmax, len(b.U))
		total += len(b.U)
	}
	// Markov rows h_k = C A^{k−1}, k = 1 … tmax−1, stored at markov[(k−1)·n:].
	markov := make([]float64, max(tmax-1, 0)*n)
	row := mat.NewVecDense(n, nil)
	row.CopyVec(c)
	for k := 1; k < tmax; k++ {
		copy(markov[(k-1)*n:k*n], row.RawVector().Data)
		row.MulVec(a.T(), row)
	}
	phi := mat.NewDense(total, n+1, nil)
	y := mat.NewVecDense(total, nil)
	off := 0
	for _, b := range d.Batches {
		for t := range b.U {
			pr := phi.RawRowView(off + t)
			for k := 1; k <= t; k++ {
				uk := cu * b.U[t-k]
				if uk == 0 {
					continue
				}
				h := markov[(k-1)*n : k*n]
				for j, hj := range h {
					pr[j] += hj * uk
				}
			}
			pr[n] = cu * b.U[t]
			y.SetVec(off+t, cy*b.Y[t])
		}
		off += len(b.U)
	}
	var theta mat.VecDense
	if err := theta.SolveVec(phi, y); err != nil {
		return nil, 0, fmt.Errorf("least squares for B, D: %v: %w", err, ErrNumerical)
	}
	for k := 0; k <= n; k++ {
		if !isFinite(theta.AtVec(k)) {
			return nil, 0, fmt.Errorf("least squares for B, D gave non-finite values: %w", ErrNumerical)
		}
	}
	bv := mat.NewVecDense(n, nil)
	for k := 0; k < n; k++ {
		bv.SetVec(k, theta.AtVec(k))
	}
	return bv, theta.AtVec(n), nil
}

// rms returns the root mean square over all samples of the given signals.
func rms(signals [][]float64) float64 {
	s, cnt := 0.0, 0
	for _, x := range signals {
		for _, v := range x {
			s += v * v
		}
		cnt += len(x)
	}
	if cnt == 0 {
		return 0
	}
	return math.Sqrt(s / float64(cnt))
}

func isFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
