// Package search chooses an NFIR structure from the data: what
// `gputrain train` does when the user fixes no structure.
//
// The defaults of package trainer are the paper's mass-spring-damper
// settings, and they serve that plant only: on a plant with longer memory,
// other nonlinearities or noisy measurements they can lose to a plain
// passive linear FIR. Select measures instead of guessing, on validation
// data only, in three steps:
//
//  1. The memory. Passive linear FIRs of 8, 16, 32, … taps are fitted (one
//     convex solve each; trainer.SelectLinearTaps) and scored on validation;
//     the doubling stops when two doublings in a row bring no gain. The best length L* is the
//     linear baseline, and it sets the scale of the memory of everything
//     that follows.
//  2. The candidates: NFIR structures around L* (branch taps, a parallel
//     linear FIR of L* taps that makes the NFIR contain the linear
//     baseline, FB or FF, the lifting network's windows, branches and
//     widths), minus the dimensions the user fixed.
//  3. Successive halving (Jamieson & Talwalkar 2016; the scheduler of
//     Optuna and Ray Tune): every candidate trains with a short schedule,
//     the best third goes on with a schedule three times longer, and so on
//     until one trains with the full schedule. Each rung costs about one
//     full training run, so a budget of B runs affords B rungs and 3^(B−1)
//     candidates.
//  4. With Options.Loop, and no structure field fixed, the passive feedback
//     loop of two NFIRs (package loop), its memories sized by L* and its
//     forward FIR started from the linear baseline's taps, trained on the
//     simulation error, in each of the shapes of loop.Shapes from each of
//     loop.Seeds seeds, and the recurrent shapes from more (loop.RecSeeds;
//     loop.Runs lists them); with Options.AutoSkip and no skip of the
//     user's, all of them again leaving loop.AutoSkip's first samples of
//     each training record out of their loss, that second pass joining the
//     choice when it validates better (loop.ChoosePasses). The family
//     offers the best of them, or
//     the mean of several (loop.Mean, passive as a parallel
//     interconnection), its members chosen on validation (loop.Choose).
//  5. When the best NFIR is feedforward, its blends with the linear baseline
//     y = α·NFIR + (1−α)·FIR (model.Blend, α = 0.1 … 0.9: one NFIR, passive
//     as a nonnegative combination of passive FIRs); the best is a
//     candidate of its own when it scores better than both.
//  6. With Options.REN, and no structure field fixed, RENSeeds passive RENs
//     (baselines.TrainREN, passive by parameterization) of the kinds
//     renKinds lists, trained on the simulation error before the loops,
//     all at once under the time limit; the best is the family's offer.
//     They start from the plant's memory as the passive FIR measures it,
//     one of them from the longest memory the records show (half the
//     shortest record, up to LongMemoryCap), for plants a linear FIR
//     cannot follow and so misjudges.
//  7. The mean of the RENs: ensemble selection with replacement on
//     validation (package ensemble) over every REN trained, offered as
//     Result.Mean when it has two members or more and validates above the
//     best REN: passive as a parallel interconnection of passive models,
//     and less subject than one REN to which of several near-equal ones
//     validation ranks first.
//
// Candidates are scored by their median closed-loop Fit on the validation
// data (the deployed use of a model; for an FB model the open-loop fit can
// be far higher and misleading), and the linear baseline competes with
// them: the chosen model's validation Fit is never below the passive FIR's.
// A nonlinear winner must moreover beat the FIR clearly: by more than one
// standard error of its mean gain over blocks of the validation records
// (Margin, margin.go), else the FIR is kept — on near-linear plants
// measured with noise, a fraction of a point on validation is chance. The
// loop family's mean, itself chosen on validation, is measured cross-fitted
// (loopMargin): chosen on one half of the validation records, scored on
// the other.
//
// Options.TimeLimit (train's --time-limit, DefaultTimeLimit) bounds the
// search in wall-clock time: the halving ends when half of it is spent (a
// quarter where the passive FIR is best at the grid's last length, which
// no candidate's FIRs exceed: halvingShare),
// and the loops train in what is left, as many as the pace so far allows
// (LocalLoops, share), those with a recurrent lift first (loop.Priority),
// a loop that would overrun its deadline cut (loop.Config.Deadline). A bounded search depends on the machine's speed;
// where everything fits in the limit it is the unbounded search.
// Every candidate trains with one worker, so a candidate's result does not
// depend on how many run side by side, nor where: a rung is a list of
// complete configurations handed to a RungTrainer, Local (in this process,
// through package trials) or package searchdir's (as the trials of a sweep
// plan, which other machines may run), and gives the same table either way.
// The loop family's runs likewise are complete loop configurations handed
// to a LoopTrainer (LocalLoops, or package searchdir's), each with the
// search's workers, over which a loop splits its gradients.
package search
