// Package plot draws the figures of gputrain with gonum.org/v1/plot:
// measured against simulated output for selected records, each titled with
// its Fit and labelled with the output's column name; the real part
// Re G_j(e^{iω}) of every branch FIR against the zero line (the passivity
// condition of Theorem 2 is that every curve stays at or above it) on a
// symmetric log axis (SymLogScale, SymLogTicks) that shows how close the
// margin comes to 0, with the ε/2 of a sampled constraint; and training
// curves: the loss per epoch with the θ_G steps marked, the validation Fit
// each epoch monitors, and the closed-loop validation Fit after each
// iteration.
//
// Every function takes plain slices, so the package depends on no other
// package of the module, and writes one figure as two files, base+".png"
// and base+".svg", each atomically (temporary file in the same directory,
// then rename), so a reader never sees half a figure. Titles and legends
// are kept inside the canvas: a blank margin round every figure, legends in
// a column right of the axes, titles set smaller when wider than the axes.
package plot
