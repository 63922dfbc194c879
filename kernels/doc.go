// Package kernels holds the hot loops of the NFIR training engine: the
// branch-convolution bank and the parallel linear FIR (forward and
// backward), the tanh dense layers of the lifting network, the Gram matrix
// of the convex θ_G step, and the closed-loop rollout with its exact adjoint
// (BPTT). Backend is the contract; CPU implements it in Go (gonum's SSE2
// assembly for the inner products; on amd64 with AVX2 and FMA, this package's
// assembly for the correlations, tanh and the small dense layers — see
// corr.go, tanh.go, dense.go; build tag noasm turns it off), and a CUDA implementation behind the
// cuda build tag implements the same maths on the same arguments. The float64
// plain-loop reference is package model; the tests compare against it, and
// against finite differences for every adjoint.
//
// # Layouts
//
// Trajectories are stored back to back (Seqs): trajectory b occupies the
// global samples [Off[b], Off[b+1]) of every per-sample array, and every
// signal is zero before its own trajectory starts, so batches of different
// lengths share one allocation and no kernel looks across a boundary.
// Per-branch arrays (gains n, z, dn) are Total()×m_N row-major, n[t*mN+j],
// which is what a dense layer with m_N outputs writes; taps are m_N×m_G
// row-major, g[j*mG+k] = g_j(k); θ_N is model.MLP.Flatten's order.
//
// # Why the kernels transpose
//
// In the row-major gains one branch's signal is strided by m_N, and the
// convolution z_j(t) = Σ_k g_j(k) n_j(t−k) u(t−k) walks it backwards. Each
// worker therefore copies, per trajectory and branch, w_j(t) = n_j(t) u(t)
// into a branch-major scratch, contiguous in t and preceded by m_G−1 zeros
// (the zero initial conditions). Then z_j is a valid correlation of the
// padded w_j with the reversed taps, computed tap by tap as m_G contiguous
// AXPYs over the whole trajectory; the backward pass is the same correlation
// of v_j(t) = dy(t) n_j(t) (padded after the end) with the taps themselves,
// and the tap gradient is one dot product per tap. The Gram step writes Φᵀ
// (regressor × sample) in blocks from the same branch-major signals, so each
// row is a contiguous product, and accumulates with gonum's Dsyrk. The
// closed loop keeps the padded w_j of the current trajectory and appends to
// it as the gains become known. Nothing is ever a dense T×T Toeplitz matrix.
// For the open-loop θ_N step, CPU also has feature-major kernels (lift.go):
// the whole lifting network writes the gains branch-major, so that the
// convolutions need no transposition at all.
//
// # Parallelism and determinism
//
// Every kernel splits its work into a fixed partition that depends only on
// the shapes and the worker count: trajectories into contiguous groups of
// about equal sample counts (convolutions, closed loop), or samples into
// contiguous ranges (dense layers, Gram; Gram thus uses both cores on a
// single long trajectory). A worker sums its reductions (dg, dlin, dθ, dw,
// db, P, b) in a private accumulator in a fixed order, and the workers'
// accumulators are added to the output in worker order. Results are therefore
// bit-for-bit reproducible for a given CPU.Workers, and different worker
// counts agree to rounding (the tests require 1e-12). Per-worker scratch
// lives in the CPU value and is reused across calls, so the steady state
// allocates no buffers (only the goroutine launches allocate, a few small
// objects per call).
//
// # Errors
//
// The kernels are called with shapes the caller built, so, like gonum's
// BLAS, they panic with an error wrapping ErrShape on a slice that is too
// short; code handling user input validates first with NewSeqs, Seqs.Check
// and ClosedLoop.Check, which return the error.
package kernels
