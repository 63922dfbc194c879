package data

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// Sentinel errors. Every error returned by this package that is caused by bad input wraps
// exactly one of these, so callers can branch with errors.Is and users get a message that
// names the file, line, column or batch.
var (
	// ErrEmpty: a file, dataset or batch holds no data.
	ErrEmpty = errors.New("no data")
	// ErrMissingColumn: a required column or variable (u, y, batch) is absent.
	ErrMissingColumn = errors.New("missing column")
	// ErrUnknownColumn: the header names a column this reader does not know (or names
	// one twice); set ReadOptions.IgnoreExtra to skip unknown columns.
	ErrUnknownColumn = errors.New("unknown column")
	// ErrNotNumeric: a value cannot be parsed as a number.
	ErrNotNumeric = errors.New("not a number")
	// ErrNotFinite: a value is NaN or ±Inf (or overflows float64).
	ErrNotFinite = errors.New("value is NaN or Inf")
	// ErrTooShort: a batch is shorter than the model memory (Validate's minLen).
	ErrTooShort = errors.New("batch too short")
	// ErrLengthMismatch: signals of one batch (u, y, y_clean) differ in length, or
	// arrays of a file do not have matching shapes.
	ErrLengthMismatch = errors.New("length mismatch")
	// ErrInterleavedBatch: a batch id reappears after another batch has started.
	ErrInterleavedBatch = errors.New("interleaved batch id")
	// ErrTimeStep: a CSV time column does not step uniformly (a missing,
	// repeated or reordered row), steps differently in two batches, or
	// disagrees with ReadOptions.Ts.
	ErrTimeStep = errors.New("time column not uniform")
	// ErrRaggedRow: a CSV row has a different number of fields than the header.
	ErrRaggedRow = errors.New("ragged row")
	// ErrTooLarge: the input exceeds ReadOptions.MaxBytes (or a line is absurdly long).
	ErrTooLarge = errors.New("input too large")
	// ErrFormat: the file is malformed or of an unsupported kind/type.
	ErrFormat = errors.New("unsupported or malformed file")
	// ErrConfig: an invalid generator configuration.
	ErrConfig = errors.New("invalid configuration")
)

// Batch is one experiment: input u and measured output y, sampled at the dataset's Ts,
// starting from zero initial conditions at t = 0.
type Batch struct {
	U, Y []float64
	// YClean is the noise-free output when it is known (generated data), else nil.
	// It is used for scoring only, never for training.
	YClean []float64
	// Label is the batch's id in its file (the CSV batch column), "" when the file has
	// none; Line is the file line of its first sample, 0 when unknown. Both only name
	// the batch in messages.
	Label string
	Line  int
}

// Name names batch b, the i-th (from 0) of its data set, in messages: by its label and
// first line when the file gave them, by its index otherwise.
func (b Batch) Name(i int) string {
	switch {
	case b.Label != "" && b.Line > 0:
		return fmt.Sprintf("batch %q (from line %d)", b.Label, b.Line)
	case b.Label != "":
		return fmt.Sprintf("batch %q", b.Label)
	case b.Line > 0:
		return fmt.Sprintf("the batch from line %d", b.Line)
	}
	return fmt.Sprintf("batch %d", i)
}

// Len is the number of samples of the batch (len(U)).
func (b Batch) Len() int { return len(b.U) }

// Dataset is a named list of independent experiments sharing the sampling time Ts (s).
type Dataset struct {
	Name    string
	Ts      float64
	Batches []Batch
	// UCol and YCol name the input and output in the file they were read
	// from (the CSV columns, .npz arrays or .mat variables of ReadOptions),
	// so that figures and messages use the user's names; "" for generated
	// data.
	UCol, YCol string
	// TimeCol names the CSV time column Ts was read from ("" when Ts is
	// not the file's: ReadOptions.Ts or unknown).
	TimeCol string
}

// Len returns the number of batches.
func (d *Dataset) Len() int { return len(d.Batches) }

// Samples returns the total number of samples over all batches.
func (d *Dataset) Samples() int {
	n := 0
	for _, b := range d.Batches {
		n += len(b.U)
	}
	return n
}

// Validate checks the dataset before training: it is non-empty, every batch has
// len(U) == len(Y) (== len(YClean) when present) ≥ minLen, YClean is present in all
// batches or in none, and every value is finite. Pass the model memory
// max(m_G, R1, R2) as minLen: a shorter batch would never fill the model's window. A
// negative or non-finite Ts is also rejected (Ts = 0 means unknown, as for files that do
// not record it).
func (d *Dataset) Validate(minLen int) error {
	if d == nil {
		return fmt.Errorf("data: nil dataset: %w", ErrEmpty)
	}
	name := d.Name
	if name == "" {
		name = "dataset"
	}
	if d.Ts < 0 || math.IsNaN(d.Ts) || math.IsInf(d.Ts, 0) {
		return fmt.Errorf("data: %s: sampling time Ts = %v must be finite and ≥ 0 (0 = unknown): %w", name, d.Ts, ErrConfig)
	}
	if len(d.Batches) == 0 {
		return fmt.Errorf("data: %s: no batches: %w", name, ErrEmpty)
	}
	if minLen < 1 {
		minLen = 1
	}
	hasClean := d.Batches[0].YClean != nil
	var short []string // every batch shorter than minLen, so that one message names them all
	for i, b := range d.Batches {
		bn := b.Name(i)
		if len(b.U) != len(b.Y) {
			return fmt.Errorf("data: %s %s: len(u) = %d but len(y) = %d; u and y must be sampled together: %w",
				name, bn, len(b.U), len(b.Y), ErrLengthMismatch)
		}
		if (b.YClean != nil) != hasClean {
			return fmt.Errorf("data: %s %s: y_clean must be given for all batches or none: %w", name, bn, ErrLengthMismatch)
		}
		if b.YClean != nil && len(b.YClean) != len(b.Y) {
			return fmt.Errorf("data: %s %s: len(y_clean) = %d but len(y) = %d: %w",
				name, bn, len(b.YClean), len(b.Y), ErrLengthMismatch)
		}
		if len(b.U) == 0 {
			return fmt.Errorf("data: %s %s: no samples: %w", name, bn, ErrEmpty)
		}
		if len(b.U) < minLen {
			short = append(short, fmt.Sprintf("%s, %d samples", bn, len(b.U)))
		}
		for _, s := range []struct {
			col string
			x   []float64
		}{{"u", b.U}, {"y", b.Y}, {"y_clean", b.YClean}} {
			for t, v := range s.x {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return fmt.Errorf("data: %s %s: %s(%d) = %v; remove or interpolate non-finite samples: %w",
						name, bn, s.col, t, v, ErrNotFinite)
				}
			}
		}
	}
	if len(short) == 1 {
		return fmt.Errorf("data: %s %s, fewer than the model memory %d; drop the batch or shorten the model (taps, linear taps, R1, R2): %w",
			name, short[0], minLen, ErrTooShort)
	}
	if len(short) > 1 {
		const most = 10
		list := strings.Join(short[:min(len(short), most)], "; ")
		if len(short) > most {
			list += fmt.Sprintf("; and %d more", len(short)-most)
		}
		return fmt.Errorf("data: %s: %d of %d batches have fewer than the model memory %d samples: %s; drop them or shorten the model (taps, linear taps, R1, R2): %w",
			name, len(short), len(d.Batches), minLen, list, ErrTooShort)
	}
	return nil
}

// Q returns the recursive input of the feedback (FB) model, q(t) = y(t−1) with q(0) = 0
// (zero initial conditions). Training (open loop, q from data) and evaluation use this
// one definition. The result is a new slice of len(y).
func Q(y []float64) []float64 {
	q := make([]float64, len(y))
	if len(y) > 1 {
		copy(q[1:], y[:len(y)-1])
	}
	return q
}

// Scaler is the affine map the lifting MLP sees its inputs through:
// s(x) = (x/Scale − Mean)/Std. It is fitted on training data only and stored with the
// model, so evaluation applies exactly the same map.
type Scaler struct {
	Scale, Mean, Std float64
}

// FitScaler fits a Scaler on the given signals taken together (training data only), as
// the paper's code does: Scale = 1.1·max|x|, then Mean and Std (population, 1/N) of
// x/Scale. Degenerate data is guarded so that Apply stays finite: an all-zero or empty
// input gives Scale = 1, and a constant one Std = 1. Non-finite values are ignored.
func FitScaler(signals ...[]float64) Scaler {
	maxAbs := 0.0
	n := 0
	for _, x := range signals {
		for _, v := range x {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				continue
			}
			maxAbs = math.Max(maxAbs, math.Abs(v))
			n++
		}
	}
	s := Scaler{Scale: 1.1 * maxAbs, Mean: 0, Std: 1}
	if !(s.Scale > 0) || math.IsInf(s.Scale, 0) {
		s.Scale = 1
	}
	if n == 0 {
		return s
	}
	// Two passes for accuracy (mean first, then squared deviations).
	sum := 0.0
	for _, x := range signals {
		for _, v := range x {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				continue
			}
			sum += v / s.Scale
		}
	}
	s.Mean = sum / float64(n)
	ss := 0.0
	for _, x := range signals {
		for _, v := range x {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				continue
			}
			d := v/s.Scale - s.Mean
			ss += d * d
		}
	}
	s.Std = math.Sqrt(ss / float64(n))
	if !(s.Std > 1e-12) {
		s.Std = 1
	}
	return s
}

// Apply returns s(x) = (x/Scale − Mean)/Std.
func (s Scaler) Apply(x float64) float64 { return (x/s.Scale - s.Mean) / s.Std }

// ApplyAll returns a new slice with Apply applied to every element of x.
func (s Scaler) ApplyAll(x []float64) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = s.Apply(v)
	}
	return out
}

// Invert returns x such that Apply(x) = z.
func (s Scaler) Invert(z float64) float64 { return (z*s.Std + s.Mean) * s.Scale }

// Inputs returns all U signals of the dataset (shared, not copied), e.g. for FitScaler.
func (d *Dataset) Inputs() [][]float64 {
	out := make([][]float64, len(d.Batches))
	for i, b := range d.Batches {
		out[i] = b.U
	}
	return out
}

// Outputs returns all Y signals of the dataset (shared, not copied), e.g. for FitScaler.
func (d *Dataset) Outputs() [][]float64 {
	out := make([][]float64, len(d.Batches))
	for i, b := range d.Batches {
		out[i] = b.Y
	}
	return out
}
