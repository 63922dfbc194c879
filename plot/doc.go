// Package plot draws the figures of gputrain with gonum.org/v1/plot: measured
// against simulated output for selected batches, the real part
// Re G_j(e^{iω}) of every branch FIR against the zero line (the passivity
// condition of Theorem 2 is that every curve stays at or above it), and
// training curves (loss and validation Fit per epoch).
//
// Every function takes plain slices, so the package depends on no other
// package of the module, and writes one figure as two files, base+".png"
// and base+".svg", each atomically (temporary file in the same directory,
// then rename), so a reader never sees half a figure.
package plot
