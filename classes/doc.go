// Package classes is the one interface every model class of gputrain
// implements (passive FIR, NFIR, MLP, GRU, N4SID, passive REN, …) and the
// registry that names them, so that `train --model`, `compare`, the structure
// search and the zoo benchmark go through one path and adding a class touches
// one package and one registration line (see package classes/all).
//
// A Class fits a Model on training and validation data; a Model simulates one
// record in closed loop from rest, counts its parameters, certifies its
// passivity or says why it has no certificate, and is saved to and loaded from
// a model file. NFIR and FIR models keep the gputrain-nfir format of
// docs/MODEL_FORMAT.md; every other class is written in the gputrain-model
// envelope, {"format": "gputrain-model", "class": NAME, "version": 1, "ts": …,
// "params": {…}}, whose params each class documents there.
//
// Class names are looked up here only: no other package switches on them.
package classes
