// Package compare trains every model class a user would otherwise pick
// (package classes: passive FIR, NFIR FF, FB and selected, MLP, GRU, N4SID,
// passive REN) on the same data and tabulates how each does: closed-loop Fit
// on validation and test data, whether it is certified passive, its number
// of parameters and its training time. `gputrain compare` prints the table;
// the zoo benchmark runs it on every plant.
//
// A class that cannot run on the data (too short a record for N4SID's block
// rows, say) gets a row saying why; Run fails only on bad options or data
// that no class could use.
package compare
