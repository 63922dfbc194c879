// Package trainbench measures the time a user waits for a trained model:
// Algorithm 1 with the paper's structure given explicitly (trainer's
// defaults: FB, 10 branches × 50 taps, R1 = R2 = 1, hidden 4,4, exact θ_G
// steps), so that no structure search is timed, on the paper's generated
// mass-spring-damper data and on a plant of the zoo. It records the
// closed-loop validation Fit after each iteration (and the monitored
// open-loop Fit after each Adam epoch) against wall time, and reports the
// time to reach the final validation Fit (to within Tol points): the
// headline measure of issue 28, which a faster step, a larger batch or a
// better schedule must lower at equal fit.
//
// gputrain bench train runs it; docs/BENCHMARKS.md records the figures
// beside a peer (the previous commit, or bench/torch_nfir.py where PyTorch
// is installed) measured in the same run.
package trainbench
