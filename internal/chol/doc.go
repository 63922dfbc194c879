// Package chol is a blocked Cholesky factorization A = UᵀU of a dense
// symmetric positive definite matrix (upper triangle, row-major, as gonum's
// lapack64.Potrf with blas.Upper), for the n×n Newton matrices of the θ_G
// interior-point method, which it refactors every iteration.
//
// It is right-looking with panels of nb rows: the diagonal block is factored
// by gonum (Dpotrf, unblocked at that size), the panel's triangular solve
// left-looking on the same micro-kernels (in parallel over column chunks), and
// the trailing update A₂₂ −= U₁₂ᵀU₁₂, which carries almost all of the n³/3
// flops, by an AVX2/FMA micro-kernel (4×8 tiles of A₂₂ in registers) on amd64,
// in parallel over interleaved row tiles. Every entry is computed by one
// goroutine in a fixed order, so the factor does not depend on the number of
// workers. Without AVX2 and FMA, or for small n, Upper is gonum's Dpotrf.
package chol
