// Package baseline registers the comparison models of package baselines
// with package classes: mlp (the paper's MLP(np), a FIR-MLP), gru (a GRU
// trained on the simulation error), n4sid (a linear state-space model whose
// order is chosen on validation data) and ren (a passive recurrent
// equilibrium network). Each is written in the gputrain-model envelope with
// the params documented in docs/MODEL_FORMAT.md.
package baseline
