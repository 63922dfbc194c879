// Package experiment reproduces the paper's evaluation (Section VI): the
// mass-spring-damper comparison of Fig. 4 (noise-free and SNR 10 dB), the
// industrial robot of Table II, and the solver timings of Table I. Each run
// returns rows of results that Markdown and box plots are made from; the
// command `gputrain experiment` writes them to docs/RESULTS.md.
//
// Hyper-parameters are the paper's unless a row says otherwise; nothing is
// tuned on test data: model selection inside training uses the validation
// batches only (for the robot, whose protocol has a single training record,
// the training record itself).
package experiment
