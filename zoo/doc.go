// Package zoo is a set of passive nonlinear plants, mechanical and
// electrical, and of measurement protocols on them ("cases"), on which the
// model classes of the project are compared, and of non-passive pairs made
// from the same plants, on which the data check is proven.
//
// # Why every sampled map is passive
//
// A plant is a continuous-time system with a port: a force and the velocity
// of the point it acts on, or a voltage and the current through the port.
// Its input is held constant over each sampling interval (zero-order hold,
// u_k on [kTs, (k+1)Ts)), and its output is measured by integration:
//
//	y_k = (p((k+1)Ts) − p(kTs)) / Ts,
//
// the mean velocity over the interval, p being the position of the driven
// point (for an electrical one-port, the mean current: the charge moved
// through the port over Ts). Then
//
//	Σ_{k<K} u_k y_k Ts = ∫_0^{KTs} u(t) ṗ(t) dt,
//
// exactly, the energy the input delivered up to KTs. Each plant has a
// storage function S ≥ 0 (the energy in its masses, springs, capacitors
// and inductors; its Physics text gives it) with u·ṗ = dS/dt + (dissipation
// ≥ 0), so the running supply never falls below S(x(KTs)) − S(x(0)) ≥
// −S(x(0)). A plant started at rest is therefore passive as a discrete-time
// map from u to y, on every record prefix, without any approximation other
// than the integration's (RK4 with ⌈Ts/h⌉ steps per sample, h small for the
// plant's fastest dynamics). The tests check, on random excitations, that
// the supply stays above −1e-9 of the energy moved and that it equals the
// stored plus the dissipated energy to 1e-6 of it. A point sample of the velocity, as data.GenerateMSD
// writes, lags the held input by half a sample and is passive only
// approximately.
//
// # Cases
//
// [Cases] are the passive protocols: every plant as it is usually recorded
// (many short records), and the hard cases of real recordings: heavy output
// noise (13 dB) on training and validation data with a clean test, records
// that start mid-motion ([Config.Drop]: such records are not passive from
// their first sample, energy being stored at the cut), one long record per
// split, and test inputs of twice the training amplitude, over sampling
// times from 10 µs to 20 ms and from 3 to 50 samples per resonance period.
// [Case.Build] makes deterministic training, validation and test sets at a
// [Size]; the test set always starts at rest and is noise-free.
//
// [Negatives] are the same plants measured at an output that is not
// collocated with the input: position for a force (charge for a voltage),
// the collocated output delayed by a few samples, or with its sign flipped.
// trainer.CheckData must flag every one of them and none of the cases.
package zoo
