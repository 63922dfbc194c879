// Package loop is a passive model family beyond the lifted FIR: the
// negative-feedback interconnection of two NFIR operators,
//
//	y = H1(e),  e = u − H2(y),
//
// the structure of a mechanical or electrical plant whose nonlinear force
// (friction, a hardening spring, a diode) acts back on the state the output
// measures — a Lur'e system, which a lifted FIR in series can only
// approximate with long memories.
//
// Passivity. With H1 and H2 passive (every FIR of each is, Theorem 2), the
// loop is passive by the passivity theorem: ⟨u, y⟩ = ⟨e + H2 y, y⟩ =
// ⟨e, H1 e⟩ + ⟨y, H2 y⟩ ≥ 0 from rest. The gains of both lifts come from
// one tanh network of the past — u(t−R1+1..t) and y(t−R2..t−1) — which
// Theorem 2 allows (any bounded gains), and which keeps the loop well
// posed: every passive FIR has g(0) ≥ 0 (the mean of Re G over frequency),
// so y(t) = a1 e(t) + r1, z(t) = a2 y(t) + r2 with a1, a2 ≥ 0 and known
// r1, r2, and y(t) = (a1 (u(t) − r2) + r1)/(1 + a1 a2) is explicit.
//
// Slow memory in few numbers. A FIR holds a memory of L samples in L
// taps; a plant whose linear part has one slow pole (a free mass with
// viscous friction, m/c of thousands of samples) needs a FIR too long to
// fit. H1 may therefore carry P1 first-order sections beside its linear
// FIR, s_k(t) = a_k s_k(t−1) + b_k e(t) adding s_k(t) to y(t), two
// parameters each (Sections: |a_k| < 1 and b_k ≥ 0 for every parameter
// value). Each is positive real, Re S_k ≥ b_k/(1+|a_k|) ≥ 0, so H1 stays a
// sum of passive operators between and beside the lifts (Theorem 2 allows
// any passive LTI filter there) and the loop stays passive. The direct
// term b_k adds to a1 ≥ 0, a_k s_k(t−1) to r1: the explicit solve below is
// unchanged. Structure.P1 = 0 (the default shapes) is the loop without
// them.
//
// Hidden state in the gains. A lift that sees R1 samples of u and R2 of y
// cannot know a state that builds up over many samples: the side of a
// gear's play the motor rests on, a hysteresis branch. Structure.S adds to
// its inputs S leaky averages of u and S of y (StatePoles), time constants
// of a quarter of the memory and four times that and so on, scaled to unit
// variance. They read y only up to t−1, so the loop stays well posed, and
// Theorem 2 lets the gains be any causal function of the signals, so
// passivity is unchanged; the averages have fixed poles and no parameters.
//
// A learned state in the gains. Fixed averages know only what their poles
// keep. Structure.Rec adds the state of a small GRU cell (Cho et al. 2014)
// driven by u(t) and y(t−1) to the lift's inputs, trained with the rest by
// backpropagation through time: the memory a recurrent network learns,
// which is what lets a GRU simulation model follow a backlash or a
// friction-dominated plant, here deciding only the gains. It too reads y
// only up to t−1 (well posed) and carries no passivity burden: Theorem 2
// holds for any causal gains, and the certificate stays that of the FIRs.
//
// Long memory in few coefficients. A FIR of L taps has L free factors,
// which a few thousand samples fit to their noise as readily as to the
// plant. Config.Basis trains every factor longer than K taps as a
// combination of K discrete Laguerre functions (Laguerre), their pole
// chosen where they hold most of the factor of the passive FIR the loop
// starts from (ChoosePole): a pole of a linear model of the data, as the
// orthonormal-basis models of system identification take theirs. The
// taps stay the half autocorrelation of a factor, so every coefficient
// value is passive and the certificate is unchanged; the model holds the
// expanded factors, and its file is that of a loop without a basis.
// Trained alone, loops in 16 functions validated better than loops tap
// by tap on the four of eight zoo plants with long or noisy memories; but
// with the later seeds' loops of Runs in the basis, the structure search's
// choice rose on validation (+0.7 points on average over the quick zoo)
// and fell on the test records (−1.2; docs/BENCHMARKS.md, session 27), so
// Runs trains tap by tap and the basis is the user's choice.
//
// Passive by parameterization. Each FIR's taps are the half
// autocorrelation of free factors f (Taps): Re G = |F|²/2 + Margin·Σf² > 0
// for every value of f, and by the Fejér–Riesz theorem no passive FIR of
// that length is left out. The loop's output is not linear in the taps, so
// the convex θ_G step of Algorithm 1 does not apply; everything is trained
// together by Adam on the closed-loop simulation error, backpropagated
// through time (Train), which also makes the estimate consistent under
// output noise (the model never sees the measured output). Every FIR is
// still certified exactly (Certify) before a model is used.
package loop
