package sweep

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/passivenfir/gputrain/internal/atomicfile"
)

// PlanFile is the name of the plan in its folder.
const PlanFile = "plan.json"

// Plan is the numbered list of trials of a sweep. A trial's number is its
// index in Trials, which is what a scheduler's array index selects.
type Plan struct {
	Spec   string  `json:"spec"` // the spec file it was expanded from, relative to the plan's folder, for the record
	Trials []Trial `json:"trials"`
}

// Trial is one training run: the plant's data and the complete train flags.
type Trial struct {
	Index int    `json:"index"`
	Plant string `json:"plant"`
	// Name, when set, labels the trial in messages instead of its
	// settings (a structure search's candidate: its structure).
	Name string `json:"name,omitempty"`
	// Model is the model class (the "model" key of the spec), "" for
	// train's default.
	Model string `json:"model,omitempty"`
	// Settings are train flags by name (without dashes) with their values.
	Settings map[string]any `json:"settings"`
	// Data and Val are relative to the plan's folder (absolute when the
	// data lie on another volume), so that the folder can be mounted
	// anywhere as long as the data keep their place beside it.
	Data string  `json:"data"`
	Val  string  `json:"val,omitempty"`
	Test string  `json:"test,omitempty"` // scored by Collect only, never given to train
	Ts   float64 `json:"ts,omitempty"`
	Dir  string  `json:"dir"` // the trial's output folder, relative to the plan's

	// Files are train flags by name whose values are files, relative to
	// the plan's folder as Data is (a structure search's loop trial:
	// loop-init, the linear FIR it starts from).
	Files map[string]string `json:"files,omitempty"`
}

// DefaultWorkers is the --workers of a trial whose spec does not set it: a
// sweep's parallelism is its trials, and a fixed count keeps every trial's
// result the same on any machine.
const DefaultWorkers = 1

// Validate checks train flags given as command-line arguments ("--taps=20"),
// as the train command would parse them.
type Validate func(args []string) error

// Expand turns a checked spec into the plan for the folder out: for every
// plant in order, every combination of the grid's values, the grid's last
// key varying fastest (keys in the file's order). validate, when not nil,
// is called on each fixed and grid setting; its errors are *FieldErrors.
func Expand(s *Spec, out string, validate Validate) (*Plan, error) {
	if err := s.Check(); err != nil {
		return nil, err
	}
	var errs []error
	if validate != nil {
		for _, k := range sortedKeys(s.Fixed) {
			if err := validateOne(validate, k, s.Fixed[k]); err != nil {
				errs = append(errs, &FieldError{Field: "fixed." + k, Err: err})
			}
		}
		for _, k := range sortedKeys(s.Grid) {
			for _, v := range s.Grid[k].([]any) {
				if err := validateOne(validate, k, v); err != nil {
					errs = append(errs, &FieldError{Field: "grid." + k, Err: err})
					break
				}
			}
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	keys := sortedKeys(s.Grid)
	slices.SortStableFunc(keys, func(a, b string) int {
		oa, okA := s.order[a]
		ob, okB := s.order[b]
		switch {
		case okA && okB:
			return oa - ob
		case okA:
			return -1
		case okB:
			return 1
		}
		return 0
	})
	lists := make([][]any, len(keys))
	for i, k := range keys {
		lists[i] = s.Grid[k].([]any)
	}
	p := &Plan{}
	if s.file != "" {
		p.Spec = relTo(out, s.file)
	}
	for _, pl := range s.Plants {
		pos := make([]int, len(keys)) // the odometer over the grid
		for {
			set := map[string]any{}
			for k, v := range s.Fixed {
				set[flagName(k)] = v
			}
			for i, k := range keys {
				set[flagName(k)] = lists[i][pos[i]]
			}
			if _, ok := set["workers"]; !ok {
				set["workers"] = DefaultWorkers
			}
			t := Trial{Index: len(p.Trials), Plant: pl.Name, Settings: set, Ts: pl.Ts,
				Data: relTo(out, s.path(pl.Data)), Dir: fmt.Sprintf("trial-%04d", len(p.Trials))}
			if pl.Val != "" {
				t.Val = relTo(out, s.path(pl.Val))
			}
			if pl.Test != "" {
				t.Test = relTo(out, s.path(pl.Test))
			}
			if m, ok := set["model"]; ok {
				t.Model, _ = flagText(m)
			}
			p.Trials = append(p.Trials, t)
			i := len(pos) - 1
			for ; i >= 0; i-- {
				if pos[i]++; pos[i] < len(lists[i]) {
					break
				}
				pos[i] = 0
			}
			if i < 0 {
				break
			}
		}
	}
	return p, nil
}

func validateOne(validate Validate, k string, v any) error {
	text, err := flagText(v)
	if err != nil {
		return err
	}
	return validate([]string{"--" + flagName(k) + "=" + text})
}

// relTo returns path relative to the folder dir, or absolute where it has no
// relative form.
func relTo(dir, path string) string {
	ad, err1 := filepath.Abs(dir)
	ap, err2 := filepath.Abs(path)
	if err1 != nil || err2 != nil {
		return path
	}
	if r, err := filepath.Rel(ad, ap); err == nil {
		return r
	}
	return ap
}

// Args are the train flags of t for a plan in the folder dir, settings in
// name order: what the TrainFunc gets, before the output flags.
func (t Trial) Args(dir string) ([]string, error) {
	args := []string{"--data", inDir(dir, t.Data)}
	if t.Val != "" {
		args = append(args, "--val", inDir(dir, t.Val))
	}
	if t.Ts != 0 {
		args = append(args, "--ts", fmt.Sprint(t.Ts))
	}
	for _, k := range sortedKeys(t.Files) {
		args = append(args, "--"+k+"="+inDir(dir, t.Files[k]))
	}
	for _, k := range sortedKeys(t.Settings) {
		v, err := flagText(t.Settings[k])
		if err != nil {
			return nil, fmt.Errorf("sweep: trial %d: setting %q: %w", t.Index, k, err)
		}
		args = append(args, "--"+k+"="+v)
	}
	return args, nil
}

func inDir(dir, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}

// Encode writes p as indented JSON, as in plan.json.
func (p *Plan) Encode(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(p)
}

// Write writes p as plan.json in the folder dir, atomically.
func (p *Plan) Write(dir string) error {
	return atomicfile.Write(filepath.Join(dir, PlanFile), p.Encode)
}

// ReadPlan reads a plan file and checks that its trials are numbered 0..N-1
// with their folders, as Expand writes them.
func ReadPlan(path string) (*Plan, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("sweep: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // a seed above 2^53 stays exact
	dec.DisallowUnknownFields()
	var p Plan
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("sweep: %s: %w", path, err)
	}
	if len(p.Trials) == 0 {
		return nil, fmt.Errorf("sweep: %s: no trials", path)
	}
	for i, t := range p.Trials {
		if t.Index != i || t.Dir != fmt.Sprintf("trial-%04d", i) || t.Data == "" {
			return nil, fmt.Errorf("sweep: %s: trial %d is not numbered %d in folder trial-%04d with its data; write the plan again with 'gputrain sweep plan'", path, t.Index, i, i)
		}
	}
	return &p, nil
}
