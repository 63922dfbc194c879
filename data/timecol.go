package data

import (
	"fmt"
	"math"
	"slices"
	"strconv"
)

// DefaultTimeCols are the names a CSV time column is read under when
// ReadOptions.TimeCol is empty, matched case-insensitively as every column
// name is: "time" or "t", bare or with the unit seconds as loggers and
// spreadsheets write it. A time column in another unit is not read as one.
var DefaultTimeCols = []string{"time", "t", "time [s]", "time (s)", "time[s]", "time(s)", "time_s", "time, s", "t [s]", "t (s)", "t[s]", "t(s)", "t, s"}

// timeNames is the list of names parseCSV looks for a time column under.
func (o ReadOptions) timeNames() []string {
	switch o.TimeCol {
	case "":
		return DefaultTimeCols
	case "-":
		return nil
	}
	return []string{o.TimeCol}
}

// timeStepTol is how far one step of a time column may stray from the
// median step, as a fraction of it: rounding in a printed time column
// (six digits of 123.457 s at 1 ms) moves a step by up to a whole
// printed digit, while a missing row doubles the step and a repeated one
// zeroes it.
const timeStepTol = 0.5

// timeTsTol is how far, relative, the sampling times of two batches, or of
// the time column and ReadOptions.Ts, may differ and still be one.
const timeTsTol = 1e-3

// timeStep checks the time column of every batch of cd and returns the
// sampling time it records: per batch, every step within timeStepTol of
// the batch's median step, that median positive, and the batches' mean
// steps (t_last − t_first)/(n − 1), more precise than any one step, equal
// within timeTsTol. A batch of one row records no step. ts, when not 0,
// must agree with the result.
func timeStep(name string, cd *csvData, ts float64) (float64, error) {
	col := len(cd.batches[0]) - 1
	where := func(b int) string {
		if cd.labels[b] == "" {
			return ""
		}
		return fmt.Sprintf(" (batch %q)", cd.labels[b])
	}
	found, fb := 0.0, -1
	for b, cols := range cd.batches {
		t := cols[col]
		n := len(t)
		if n < 2 {
			continue
		}
		steps := make([]float64, n-1)
		for k := range steps {
			steps[k] = t[k+1] - t[k]
		}
		med := median(steps)
		if !(med > 0) {
			return 0, fmt.Errorf("data: %s line %d column %q%s: the time does not increase (its median step is %g); the rows of a batch must be in time order, one per sample: %w",
				name, cd.rowLines[b][0], cd.timeCol, where(b), med, ErrTimeStep)
		}
		for k, d := range steps {
			if math.Abs(d-med) > timeStepTol*med {
				what, fix := "a gap: rows missing", "fill in the missing rows (interpolate), or split the record there into batches (a batch column)"
				switch {
				case d <= 0:
					what, fix = "a repeated or out-of-order row", "remove the repeated row, or sort the rows by time"
				case d < med:
					what, fix = "an extra row", "remove it"
				}
				return 0, fmt.Errorf("data: %s line %d column %q%s: the time steps from %.9g to %.9g, by %.6g where the batch steps by %.6g: %s; the models assume one row per sampling time, so %s: %w",
					name, cd.rowLines[b][k+1], cd.timeCol, where(b), t[k], t[k+1], d, med, what, fix, ErrTimeStep)
			}
		}
		mean := roundSig((t[n-1] - t[0]) / float64(n-1))
		if fb < 0 {
			found, fb = mean, b
			continue
		}
		if math.Abs(mean-found) > timeTsTol*found {
			return 0, fmt.Errorf("data: %s line %d column %q%s: this batch is sampled every %g s and the one on line %d%s every %g s; give each rate its own file and training: %w",
				name, cd.rowLines[b][0], cd.timeCol, where(b), mean, cd.rowLines[fb][0], where(fb), found, ErrTimeStep)
		}
	}
	if fb < 0 {
		return ts, nil // one row a batch: no step to read
	}
	if ts > 0 && math.Abs(ts-found) > timeTsTol*found {
		return 0, fmt.Errorf("data: %s column %q: the time column steps by %g s, but the sampling time expected is %g s (--ts, the model's, or the training data's); leave --ts out to take the column's, or correct it; a time column in another unit than seconds is skipped with --time - and --ignore-extra (from Go: ReadOptions.Ts, TimeCol): %w",
			name, cd.timeCol, found, ts, ErrTimeStep)
	}
	if ts > 0 {
		return ts, nil
	}
	return found, nil
}

// roundSig rounds v to 9 significant digits: a mean step over thousands of
// rows printed to a few digits is exact to far fewer digits than float64
// holds, and 0.001 reads better in a model file than 0.0009999999999998.
func roundSig(v float64) float64 {
	r, err := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 9, 64), 64)
	if err != nil {
		return v
	}
	return r
}

// median returns the median of v (v is not modified).
func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
