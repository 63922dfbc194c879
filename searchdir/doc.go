// Package searchdir runs the rungs of a structure search (package search)
// as sweeps (package sweep) in a folder, so that the candidates train as
// separate train processes — on this machine, P at a time, or as the array
// jobs of a cluster — and a search that was stopped resumes where it was.
//
// The folder holds the search's data, written once in a lossless format
// (train.npy and val.npy, or CSV for records of unequal lengths: every
// float64 reads back bit for bit), a record of the search's settings
// (search.json), and for rung K a sweep plan rung-K/plan.json whose trials
// are the complete train settings of each candidate with --search off. A
// trial's result is a function of its settings alone (a candidate trains from
// scratch, on one worker), so the search through the folder chooses the
// model, and writes the table, that the search in one process does.
//
// The linear FIR's doubling (one convex solve per length) and the loop shapes
// (which start from the linear FIR's taps, which no train flag carries) train
// in the searching process.
package searchdir
