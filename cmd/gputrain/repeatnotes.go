package main

import (
	"fmt"

	"github.com/passivenfir/gputrain/data"
)

// repeatNotes are the notes on the records of d whose input repeats itself,
// for a validation cut from their tails (data.HoldOutTails with frac and
// lead): which are split by phase, and the first whose repeat is too short
// for that, whose validation then repeats training inputs.
func repeatNotes(d *data.Dataset, frac float64, lead int) []string {
	var notes []string
	const most = 3
	phased := 0
	for i, b := range d.Batches {
		r, ok := data.TailRepeat(b, frac, lead)
		if !ok {
			continue
		}
		if phased++; phased > most {
			continue
		}
		w := data.PhaseWidth(r.Lag, frac)
		repeats, each, holds := fmt.Sprintf("is periodic, every %d samples", r.Lag), "period", "holds"
		if r.Corr < 0 {
			repeats, each, holds = fmt.Sprintf("repeats itself every %d samples with its sign flipped", r.Lag), "repeat", "holds with either sign"
		}
		notes = append(notes, fmt.Sprintf("note: the input of %s %s (correlation %.3f): validating on the last %d samples of every %s, not on the record's last %.0f%%, so that validation sees no input the training part %s (a tail would repeat training inputs, and its Fit would flatter models that fit the training data closely)", b.Name(i), repeats, r.Corr, w, each, 100*frac, holds))
	}
	if phased > most {
		notes = append(notes, fmt.Sprintf("note: %d more records have repeating inputs and are split by phase alike", phased-most))
	}
	if i, r, ok := data.WorstRepeat(d, frac, lead); ok {
		name := d.Batches[i].Name(i)
		flipped, kind, tail := "", "period", "repeats training inputs"
		if r.Corr < 0 {
			flipped, kind, tail = " with its sign flipped", "repeat", "holds training inputs with the sign flipped"
		}
		notes = append(notes, fmt.Sprintf("note: the input of %s repeats itself every %d samples%s (correlation %.3f), too short a %s to hold out a part of each and train on the rest (at least %d samples, and twice the %d-sample lead-in): the held-out tail %s, so its validation Fit flatters models that fit the training data closely; give --val FILE from an experiment with other inputs", name, r.Lag, flipped, r.Corr, kind, data.MinPhasePiece, lead, tail))
	}
	return notes
}

// groupsText says, after "holding out K of N batches", that batches which
// repeat one another's input were held out together, when any were.
func groupsText(batches, groups int) string {
	if groups == batches {
		return ""
	}
	return fmt.Sprintf(" (whole groups of batches that repeat one another's input: %d distinct inputs)", groups)
}

// fewGroupsNote says why batches enough to hold whole ones out are split
// by their tails instead: too few of them have inputs of their own.
func fewGroupsNote(batches, groups int) string {
	return fmt.Sprintf("note: the %d batches hold %d distinct inputs (the others repeat them), too few to hold whole batches out: validation that repeats a training input flatters models that fit the training data closely", batches, groups)
}

// sharedInputNote is the note on the data of --flagName (validation or
// test data) when one of its records repeats the input of a training
// record, "" when none does.
func sharedInputNote(flagName string, train, other *data.Dataset) string {
	ti, oi, ok := data.SharedInput(train, other)
	if !ok {
		return ""
	}
	return fmt.Sprintf("note: %s of --%s repeats the input of %s of --data (another period of the same measured input, say): its Fit scores inputs the model was trained on, which flatters models that fit the training data closely; take --%s from an experiment with other inputs", other.Batches[oi].Name(oi), flagName, train.Batches[ti].Name(ti), flagName)
}

// holdOutGroups holds out a seeded fifth of d's groups of batches
// (data.Groups, data.HoldOutGroups) when d has at least
// data.HoldOutBatches of them, and says so; otherwise val is nil, with a
// note when d has batches enough but too few inputs of their own, whose
// tails are then held out instead.
func holdOutGroups(d *data.Dataset, seed uint64) (train, val *data.Dataset, notes []string) {
	n := d.Len()
	if n < data.HoldOutBatches {
		return d, nil, nil
	}
	groups := data.Groups(d)
	if len(groups) < data.HoldOutBatches {
		return d, nil, []string{fewGroupsNote(n, len(groups))}
	}
	train, val = data.HoldOutGroups(d, groups, seed)
	return train, val, []string{fmt.Sprintf("note: holding out %d of %d batches for validation (seed %d)%s; give --val FILE to use your own", val.Len(), n, seed, groupsText(n, len(groups)))}
}
