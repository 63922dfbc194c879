// Package baselines holds the comparison models of the paper's Fig. 4 (Section VI-A),
// implemented from scratch on gonum so that the NFIR operator can be compared against
// well-established linear and nonlinear identification methods on the same data:
//
//   - N4SID / MOESP: linear state-space models of a given order from subspace
//     identification (block Hankel matrices, LQ factorisation, oblique or orthogonal
//     projection, SVD, shift invariance, then B and D by linear least squares on the
//     simulated output). They play the role of MATLAB's n4sid (the paper's N4SID, order
//     20): the best linear time-invariant model of the data.
//   - FIRMLP: the paper's MLP(np), a feed-forward network fed with the last Memory input
//     samples [u(t), u(t−1), …, u(t−Memory+1)], two tanh hidden layers and a linear
//     output (631 parameters for the default 50/10/10), trained with Adam on the mean
//     squared error, mini-batches and early stopping on a validation set.
//   - PassiveREN: the paper's REN, a recurrent equilibrium network (Revay, Wang &
//     Manchester) in the direct parameterization of its passive class, so that every
//     parameter value is an (incrementally) passive operator; trained with Adam on the
//     simulation error by backpropagation through time, with early stopping.
//
// All models follow the project's signal convention (docs/DESIGN.md): every batch is an
// independent experiment starting at rest, signals are zero before t = 0, and
// Simulate(u) returns the free-run (simulation) output of one batch. Training and
// identification are deterministic for a given seed and input.
//
// Errors caused by bad input wrap one of ErrConfig or ErrData (and, for datasets that
// fail data.Dataset.Validate, the data package's sentinel as well), so callers can branch
// with errors.Is; nothing here panics on user input.
package baselines
