// Package kyp solves the θ_G step of the paper with the KYP LMIs of Theorem 4
// instead of sampled frequency constraints: minimize ½θᵀ(P+γI)θ − bᵀθ subject
// to, for each constrained FIR block g (m taps), ∃ X = Xᵀ ⪰ 0 with
//
//	[[X − AᵀXA, Cᵀ − AᵀXB], [C − BᵀXA, 2D − BᵀXB]] ⪰ 0,
//
// A the (m−1)×(m−1) shift, B = e_{m−1}, C = [g(m−1) … g(1)], D = g(0).
//
// # Why this is a trace parameterization
//
// With ξ = [x; u] = [u(t−m+1), …, u(t)] the KYP matrix is M(X) = Q_g + E₁ᵀXE₁ −
// E₂ᵀXE₂, where E₁, E₂ pick the first and last m−1 entries of ξ and Q_g holds
// 2g(0) in its corner and C in its last row. The term in X has all diagonal
// sums zero, so M = Y ⪰ 0 satisfies 2g(0) = tr Y and g(k) = Σ_i Y_{i,i+k}: the
// trace (Gram-matrix) parameterization of the nonnegative cosine polynomial
// 2·Re G(e^{iω}) = 2Σ_k g(k)cos kω. Conversely every such Y gives X_{ij} =
// Σ_s Y_{i−s,j−s} (leading block), and X ⪰ 0 follows because A is nilpotent
// (X = Σ_k (Aᵀ)^k (X − AᵀXA) A^k). So the LMI is feasible iff Re G ≥ 0 on
// [0, π] — the same set as the exact mode of package convex — and no ε or H
// has to be tuned.
//
// # Method: a dual barrier method with m variables per block
//
// A primal SDP solver would carry X (or Y) with m(m+1)/2 unknowns per block.
// The dual cone of {g : Re G ≥ 0} under ⟨g, z⟩ = Σ g(k)z(k) is {z : T(z) ⪰ 0},
// T(z) the symmetric Toeplitz matrix with first column z (take z = (cos kω)_k
// to see one direction). The Lagrange dual of the problem therefore has only
// m variables z_j per block (plus one pair per decay bound):
//
//	minimize f(w) = ½(b+s)ᵀ(P+γI)⁻¹(b+s) − Σ_j Margin_j·z_j(0) + Σ ρ_k(u_k+l_k),
//	s = Eᵀz − Dᵀ(u − l),  T(z_j) ⪰ 0, u, l ≥ 0,
//
// with θ(w) = (P+γI)⁻¹(b+s). Solve runs a path-following barrier method on
// t·f(w) − Σ log det T(z_j) − Σ log u − Σ log l (ν = Σ m_j + 2·#bounds, duality
// gap ν/t on the central path). The gradient of log det T(z) is tr(T⁻¹E_k) and
// its Hessian tr(T⁻¹E_a T⁻¹E_b) is read off the 2-D autocorrelation of T⁻¹,
// computed with one zero-padded 2-D FFT, so a block costs O(m³) per Newton step
// (Cholesky and inverse) instead of the O(m⁴)–O(m⁶) of a generic SDP solver.
// The bound multipliers are eliminated into (P+γI) and the Newton system
// solved is of order Σ m_j.
//
// # Certificate
//
// On the central path Y_j = (2/t)·T(z_j)⁻¹ ⪰ 0 has exactly the diagonal sums
// of g_j − Margin_j·e_0. Solve returns taps read off Y_j (so that the
// certificate is exact up to rounding; free coordinates keep θ(w)) and X_j
// built from Y_j; Check evaluates the LMI as written in the paper with
// mat.EigenSym. Because T(z_j) becomes singular at the optimum, the inverse
// loses accuracy as t grows; Solve keeps the best certified point over the
// last stages and reports Gap = Objective − (best dual bound), a rigorous bound
// (up to rounding) on its distance from the optimum.
//
// References: B. Alkire and L. Vandenberghe, Convex optimization problems
// involving finite autocorrelation sequences, Math. Program. 93 (2002);
// Y. Genin, Y. Hachez, Yu. Nesterov, P. Van Dooren, Optimization problems over
// positive pseudopolynomial matrices, SIAM J. Matrix Anal. Appl. 25 (2003).
package kyp
