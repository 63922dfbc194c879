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
// The loop family's runs are one more plan, loops/plan.json: each trial is
// train --model loop of one shape and seed (--loop-shape) started from the
// linear FIR the search chose, which it writes once as loops/fir.json
// (--loop-init), with the search's --workers, over which a loop splits its
// gradients and on which its result therefore depends. The loops are read
// back and chosen among (the best or their mean) as in one process. The
// linear FIR's doubling (one convex solve per length) trains in the
// searching process.
//
// Compare's classes are one more plan, compare/plan.json (Trainer.Compare,
// gputrain compare --search-dir): each trial is train --model CLASS
// --class-budget B with the seed, workers and validation skip that compare
// gives the class, which trains the model compare trains in one process.
// The models are read back and scored on the validation and test data by
// compare itself (compare.Options.Fit), so the table is compare's; a class
// that failed in its trial gets a row with the last line of its log. The
// test data are written beside the others for sweep collect; no trial
// reads them.
package searchdir
