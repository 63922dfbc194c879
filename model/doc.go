// Package model is the passive lifted FIR (NFIR) operator of Definition 2 in
// the paper: its parameters, a reference implementation of the operator in
// plain float64 loops (open loop with the extra input q given, and closed
// loop with q(t) = ŷ(t−1)), the Fit metric, and the versioned JSON model file.
//
// The operator is
//
//	y(t) = Σ_j n_j(t) Σ_k g_j(k) n_j(t−k) u(t−k)  +  Σ_k lin(k) u(t−k),
//	n(t) = f(p(t); θ_N),  p(t) = [s_u(u(t−R1+1..t)), s_q(q(t−R2+1..t))],
//
// with f a tanh MLP (tanh on the output layer too, so every gain is bounded,
// Assumption 1) and s_u, s_q the affine scalers fitted on training data.
// Signals are zero before t = 0. The code here is deliberately simple: it is
// the float64 reference that every fast path (the gorgonia graph, the CPU and
// CUDA kernels) is tested against, and the definition that docs/MODEL_FORMAT.md
// documents for independent re-implementations.
//
// Passivity of the whole operator follows from passivity of every FIR
// (Theorem 2): a model is passive when each g_j, and lin, has
// Re G(e^{iω}) ≥ 0 for all ω. Load re-certifies the taps of a file that claims
// passivity, so a model file can never carry a false claim.
package model
