// Package trainer implements Algorithm 1 of the paper: the alternating
// training of a passive NFIR operator.
//
// Each of the K iterations first solves for all FIR taps θ_G by the convex
// constrained least-squares problem of package convex (given θ_N the output
// is linear in the taps, so the normal equations P = ΦᵀΦ, b = Φᵀy are
// assembled by kernels.Gram and the passivity constraints make it a QP), then
// updates the lifting network θ_N by Adam on the open-loop (one-step-ahead)
// loss through the gorgonia graph of package graph. Optionally the last θ_N
// update is replaced by backpropagation through time on the closed-loop
// simulation error (the paper's FB-BP model).
//
// Passivity does not depend on how well training goes: every θ_G the trainer
// ever holds comes out of the constrained solver, and the final taps are
// certified by the exact certificate before a model is returned in a passive
// mode. In "sampled" mode, whose ε and H are guesses (Theorem 3), a branch
// that fails the certificate is re-solved in exact mode, so a non-passive
// model is never returned as passive. Every FIR of a returned passive model
// keeps min Re G ≥ 1e-7·Σ|g| (a uniform raise of g(0) where the solver left
// less), so that a certificate computed by another program, with rounding
// bounds of its own, agrees with ours.
//
// The best model on the validation set (median closed-loop Fit, the deployed
// use of the model) over all iterations is returned.
package trainer
