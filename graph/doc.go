// Package graph is the NFIR model as a gorgonia computation graph: the
// lifting MLP, the bank of branch convolutions, the parallel linear FIR and
// the MSE loss, differentiated by gorgonia's symbolic differentiation
// (G.Grad) and run node by node on the calling goroutine (machine.go; the
// TapeMachine is the tested reference), for the trainer's Adam steps on θ_N
// (OpenLoop, q from the data) and the final backpropagation-through-time
// pass (ClosedLoopNet, q(t) = ŷ(t−1)).
//
// # Why custom ops
//
// The branch output ŷ(t) = Σ_j n_j(t) Σ_k g_j(k) n_j(t−k) u(t−k) is a
// causal convolution of the time-varying signal n_j·u. Built from
// gorgonia's stock ops it would be either a dense T×T Toeplitz matrix per
// branch (O(T²) memory and flops) or an im2col Conv2d (an m_G-fold copy of
// the signals); issue 4 records both as 10–100× slower than the direct
// O(T·m_N·m_G) loops and needing gigabytes at m_G = 500. So every stage
// is one custom gorgonia.Op (with gorgonia.SDOp for its derivative) whose Do
// is one call of a kernels.Backend method on host slices (Lift and the
// branch-major BranchConv where the Backend also has the feature-major
// kernels of kernels.CPU; see lift.go):
//
//	DenseTanh(x, W, b)       → tanh(x Wᵀ + b)            DenseTanhForward
//	Lift(x, θ_N)             → the gains, m_N×rows       LiftForwardT (all layers)
//	BranchConv(n, u, g)      → ŷ (z kept for backward)  ConvForward
//	LinearFIR([ŷ,] u, lin)   → ŷ + lin∗u                  LinearForward
//	MSE(ŷ, y)                → mean (ŷ − y)²              (one loop)
//	ClosedLoop(θ_N, g[, lin]) → ŷ, with tape             ClosedLoopForward
//
// Each SymDiff applies one gradient op that computes the gradients of all
// the inputs it is asked for in a single backward kernel call and returns
// them packed in one vector; cheap "pick" ops return views of the parts, so
// SymDiff can return one node per input (as gorgonia requires) without
// running the backward kernel once per input. DiffWRT keeps work out of the
// step: the first layer's input is data (no dx pass), and the taps g and lin
// are constants of the θ_N step (no dg pass). The trajectory layout
// (kernels.Seqs) is op state, set before each run, so one compiled graph per
// batch size serves every batch of that size.
//
// # Backends
//
// The model is defined once. NewOpenLoop and NewClosedLoop take a
// kernels.Backend, and the ops call only its methods: kernels.CPU in the
// default build, a CUDA implementation of the same interface under the cuda
// build tag. Changing the Backend value is the whole switch. Every op owns
// its output buffer, allocated when the graph is built, and returns a tensor
// over it (ReturnsPtr is false, so gorgonia never writes into it), so a step
// allocates no large buffers. The loss, its gradient and the picks are small
// host loops and views outside the Backend.
//
// # Gradients must not accumulate
//
// gorgonia accumulates: a TapeMachine built with BindDualValues adds every
// run's gradient into the dual value of each parameter, and the Backend's
// backward kernels add into dw, db, dg and dθ. Without care the second step
// returns the sum of two gradients. Here no dual values are bound (the
// gradients are read from the gradient nodes' values, which each run
// overwrites), every gradient op clears its accumulators before its kernel
// call, and a TapeMachine is Reset before every run (it resumes where it
// stopped, so a second RunAll without it would silently do nothing). A test
// checks that two consecutive identical calls give bit-identical gradients.
//
// # Cost of the graph
//
// A full-batch epoch spends its time in the Backend; a 1-sample step, the
// graph's fixed cost with the kernels' calls, takes ≈ 8 µs of CPU
// (BenchmarkStepOverhead, docs/BENCHMARKS.md session 20). It was 22–34 µs
// with TapeMachine.RunAll, which locks the calling thread and runs
// the program on another goroutine: two OS-thread hand-offs per run. The
// package's machine calls the same ops' Do in the same order on the calling
// goroutine, with the same bits (TestMachineMatchesTape).
//
// An OpenLoop or ClosedLoopNet is not safe for concurrent use; the parallel
// work is inside the Backend.
package graph
