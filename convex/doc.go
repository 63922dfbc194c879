// Package convex solves the θ_G step of Algorithm 1 (paper eqs. (15)–(17), Theorem 3): the
// passive FIR least-squares problem
//
//	minimize ½θᵀ(P + γ_G I)θ − bᵀθ
//
// given the Gram matrix P = ΣΦᵀΦ and b = ΣΦᵀy (the caller forms them — see FIRGram — so the
// solver never sees the data length T), subject to per-block constraints on the taps
// g = θ[Offset:Offset+Len] of each FIR filter:
//
//   - Sampled (Theorem 3): Σ_k g(k)·2cos(hπk/H) ≥ ε for h = 0..H. Note the "2cos" convention of
//     the paper, e^{−iωk} + e^{iωk}: the sampled constraint is Re G(ω_h) ≥ ε/2.
//   - Exact (beyond the paper): min over ω ∈ [0, π] of Re G(e^{iω}) = Σ_k g(k)cos(kω) ≥ Margin,
//     with no ε or H to guess, and a certificate.
//   - Decay bounds |g(k)| ≤ ρ·ρ_j^k when Rho > 0, with either kind.
//   - None: no constraint (the paper's "np" variants).
//
// # Method
//
// Solve is a primal-dual interior-point method (Mehrotra predictor-corrector) inside an
// exchange (cutting-plane) loop over the frequency constraints. The inner problem has a working
// set of frequency rows 2cos(ω_i k) per block; its Newton matrix P + γI + Σ_blocks AᵀDA + diag
// is formed in O(|working set|·Len + n²) per iteration because AᵀDA is Toeplitz plus Hankel,
// 2[c(k−l) + c(k+l)] with c(m) = Σ_i d_i cos(ω_i m), and factorized by one dense Cholesky
// (LAPACK dpotrf). Branches are independent in the constraints; P couples them.
//
// Sampled blocks with Len ≥ 64 (and H ≥ Len) keep all H+1 rows in one interior-point solve:
// the rows are applied with a DCT-I of length H+1 (gonum dsp/fourier) — products Aθ (all H+1
// values of the cosine polynomial), Aᵀz, and c(m) = Σ_h d_h cos(hπm/H) for AᵀDA are one
// transform each, O(H log H) — so an iteration costs O(H log H + Len²) plus the Cholesky.
// Shorter Sampled blocks do the same when the problem is large (n³/3 ≥ 15·Σ H·log₂H over them:
// the n×n factorization then dominates an iteration, and one all-rows solve of ~30 iterations
// beats the exchange's 100–200, e.g. the paper's ten 50-tap MSD branches, 1.6× faster);
// otherwise they use an exchange over the samples (cheaper when n and Len are small):
// start from a uniform subset of about 2·Len samples; after each inner solve evaluate all H+1
// sampled values with one DCT-I and add the minimizer of every run of violated samples with
// three neighbours on each side; stop when no sample is violated. Either way the point is the
// optimum of the full sampled QP and the reported KKT residuals are those of the full problem
// (all H+1 rows, multipliers zero outside the working set).
//
// Exact blocks start from a uniform grid of about 8·Len frequencies (DCT rows as above). After
// each inner solve the block is certified (see Certify); every local minimum of Re G below the
// margin joins the working set with a cluster of 8 points around it (the dip of the next iterate
// between constraint points shrinks with the square of their spacing), and the block is solved
// again, warm-started. When the caller accepts a shift (Options.ShiftTol > 0) and the problem is
// large (64·Σ H·log₂H ≤ n³/3 with H = 256·Len, e.g. four blocks of 250 or 500 taps), the
// uniform grid has about 256·Len frequencies instead: its dips between rows then stay below the
// accepted deficit and the first inner solve is usually the last (the robot-sized problem, n =
// 2000: one round of 38 iterations instead of four rounds, 122 iterations); the grid's DCTs,
// a few milliseconds an iteration, run in parallel over the blocks. The DCT-I of the grid rows
// is FFTPACK's method on a Stockham FFT of this package (dct.go), tested against gonum's.
//
// A warm start from a Sampled solution with H > 8·Len (the trainer's re-solve of a sampled FIR
// that failed its certificate) keeps those H+1 rows as the base grid instead.
//
// Safety margin of exact mode: the working rows are imposed at Margin + Delta, Delta =
// max(1e-8·max(|Margin|, Σ|g|), 10·Tol) (BlockState.Delta), so that the dips between them can
// stay above Margin, and the loop stops when the certified minimum of the taps is ≥ Margin (in
// the intermediate, loosely solved rounds, within that solve's accuracy). Delta is set after
// the first inner solve, whose rows are at Margin; without ShiftTol that alone calls for a
// second round, with ShiftTol it does not. Should it end below
// Margin (at the round limit, or when no new frequency can be added), g(0) is raised by the
// deficit, which shifts Re G uniformly (Solution.Shift reports the amount), and the taps
// exactly as returned are certified again. Options.ShiftTol lets a caller stop the exchange
// earlier, at a deficit of up to ShiftTol·Σ|g|, repaired the same way. So
// Certificates[j].MinRe ≥ Margin is guaranteed (and Passive is true when Margin ≥ 0): a
// non-passive filter is never returned as passive. The optimum found is that of the problem
// with margin Margin + Delta over the final working set, plus that shift; its objective differs
// from the semi-infinite optimum by O(Delta·Σz), relatively about 1e-8 (with ShiftTol, by up to
// the shift times the sensitivity 2Σz of the objective to g(0)).
//
// Warm starts: Options.Warm seeds the iterate, the multipliers and the working sets (sampled
// indices with non-negligible multipliers; all previous exact-mode frequencies), which is what
// the trainer wants when it calls Solve K times on slowly changing problems.
//
// Decay bounds more than 1e6 times above a provable bound on the optimum (from strong convexity,
// GammaG > 0, and a feasible point) are lowered to twice that bound before the solve, which
// leaves the optimum unchanged: a bound of 1e100, a user's "no limit", would otherwise swamp the
// interior-point method's complementarity measure.
//
// Options.Method = MethodActiveSet replaces the interior-point method by the dual active-set
// method of Goldfarb and Idnani (activeset.go): Q = P + γI is factorized once per Solve and the
// active rows enter and leave by updates of a Cholesky factor of their Gram matrix; Exact blocks
// then add the local minima of Re G below the margin as rows, without clusters. It meets the same
// KKT tests and certificates but is not the default: at the robot size the active set holds most
// of n rows and the exchange needs 16–34 rounds that each move most contacts, which makes it
// slower from n = 1000 on (docs/BENCHMARKS.md, "Issue 28, active set").
//
// # Certificate
//
// Certify returns a rigorous lower bound on min_ω Re G: p = Re G, p′, p″ are evaluated on a
// grid of N+1 ≥ 16(Len−1)+1 points with a DCT-I and a DST-I; on each cell the quadratic Taylor
// model less M₃R³/6 (M₃ = Σk³|g(k)| bounds |p‴|) less an explicit rounding-error bound is a lower
// bound; cells that could still hold the minimum are bisected and evaluated directly (branch
// and bound); the best point is polished by Newton's method. The taps are scaled first by the
// power of two that brings max|g| into [1, 2), so that the relative error bounds hold across
// the whole floating-point range (an absolute allowance covers subnormal intermediates). The
// bound is within about (4e-15·Len + 1.5e-13)·Σ|g| of the true minimum (tested against an
// independent 256-bit reference, certify_ref_test.go), and Omega is where it is attained.
package convex
