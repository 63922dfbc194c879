package sweep

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/passivenfir/gputrain/classes"
	// Every class's model file format, so that Collect reads the models of
	// a sweep over classes (a "model" grid: loops, GRUs, …), not only NFIRs.
	_ "github.com/passivenfir/gputrain/classes/all"
	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/internal/atomicfile"
)

// Summary is the collected state of a sweep, as summary.json.
type Summary struct {
	Trials []Result `json:"trials"` // in index order
}

// Result is one trial in a Summary.
type Result struct {
	Index  int    `json:"index"`
	Plant  string `json:"plant"`
	Status string `json:"status"` // done, failed or missing
	// ValFit is the best validation fit in percent; null when the trial
	// has none (not done, or trained without validation data).
	ValFit *float64 `json:"val_fit"`
	// Rank is the place among the plant's done trials by ValFit, 1 best
	// (0 when not done).
	Rank int `json:"rank"`
	// Certified is true when the model file loads (model.Load checks the
	// certificate of a model claiming passivity) and its exact certificate
	// holds.
	Certified bool `json:"certified"`
	// TestFit is the median closed-loop fit in percent on the plant's test
	// data, when the spec gives it; shown, never ranked by.
	TestFit  *float64       `json:"test_fit,omitempty"`
	Seconds  float64        `json:"seconds"`
	Name     string         `json:"name,omitempty"` // the trial's Name, if any
	Settings map[string]any `json:"settings"`
	// Note says what is wrong: the last log line of a failed or missing
	// trial, or why a done trial's model does not certify.
	Note string `json:"note,omitempty"`
}

// Collect reads the folders of every trial of p in the folder dir.
func Collect(p *Plan, dir string) *Summary {
	s := &Summary{Trials: make([]Result, len(p.Trials))}
	tests := testSets{}
	for i, t := range p.Trials {
		s.Trials[i] = collectOne(t, dir, tests)
	}
	for _, plant := range plants(p) {
		var ranked []int
		for i, r := range s.Trials {
			if r.Plant == plant && r.Status == Done.String() {
				ranked = append(ranked, i)
			}
		}
		slices.SortStableFunc(ranked, func(a, b int) int {
			return compareFit(s.Trials[a].ValFit, s.Trials[b].ValFit)
		})
		for k, i := range ranked {
			s.Trials[i].Rank = k + 1
		}
	}
	return s
}

// compareFit orders by fit, highest first, trials without one last.
func compareFit(a, b *float64) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return 1
	case b == nil:
		return -1
	case *a > *b:
		return -1
	case *a < *b:
		return 1
	}
	return 0
}

func plants(p *Plan) []string {
	var names []string
	for _, t := range p.Trials {
		if !slices.Contains(names, t.Plant) {
			names = append(names, t.Plant)
		}
	}
	return names
}

func collectOne(t Trial, dir string, tests testSets) Result {
	r := Result{Index: t.Index, Plant: t.Plant, Name: t.Name, Settings: t.Settings}
	folder := filepath.Join(dir, t.Dir)
	st := folderState(folder)
	r.Status = st.String()
	switch st {
	case Failed:
		r.Note = LastLine(filepath.Join(folder, LogFile))
		return r
	case Pending:
		// the log of the latest attempt, if one was made
		left, _ := filepath.Glob(filepath.Join(dir, workPrefix(t)+"*", LogFile))
		r.Note = "not run"
		var newest int64
		for _, l := range left {
			if fi, err := os.Stat(l); err == nil && fi.ModTime().UnixNano() >= newest {
				newest, r.Note = fi.ModTime().UnixNano(), LastLine(l)
			}
		}
		return r
	}
	var m struct {
		Seconds    float64  `json:"seconds"`
		BestValFit *float64 `json:"best_val_fit"`
	}
	raw, err := os.ReadFile(filepath.Join(folder, MetricsFile))
	if err == nil {
		err = json.Unmarshal(raw, &m)
	}
	if err != nil {
		r.Note = fmt.Sprintf("metrics unreadable: %v", err)
	}
	r.Seconds = m.Seconds
	if m.BestValFit != nil && !math.IsNaN(*m.BestValFit) && !math.IsInf(*m.BestValFit, 0) {
		r.ValFit = m.BestValFit
	}
	mod, _, err := classes.Load(filepath.Join(folder, ModelFile))
	if err != nil {
		r.Note = oneLine(err.Error())
		return r
	}
	cert, err := mod.Certify()
	if err != nil {
		r.Note = oneLine(err.Error())
		return r
	}
	r.Certified = cert.Passive
	if !cert.Passive {
		r.Note = "not certified passive"
		if cert.Reason != "" {
			r.Note += ": " + oneLine(cert.Reason)
		}
	}
	if t.Test != "" {
		fit, err := tests.fit(mod, t, dir)
		if err != nil {
			r.Note = "test data: " + oneLine(err.Error())
		} else {
			r.TestFit = &fit
		}
	}
	return r
}

// testSets reads each test file once, by its path and columns.
type testSets map[string]*data.Dataset

// fit is the median closed-loop fit of m on t's test data, read with the
// columns t trained with and scored from its --val-skip.
func (ts testSets) fit(m classes.Model, t Trial, dir string) (float64, error) {
	text := func(k, def string) string {
		if v, ok := t.Settings[k]; ok {
			if s, err := flagText(v); err == nil && s != "" {
				return s
			}
		}
		return def
	}
	opt := data.ReadOptions{UCol: text("u", "u"), YCol: text("y", "y"), TimeCol: text("time", ""), IgnoreExtra: text("ignore-extra", "false") == "true"}
	path := inDir(dir, t.Test)
	key := fmt.Sprint(path, opt.UCol, opt.YCol, opt.TimeCol, opt.IgnoreExtra)
	d, ok := ts[key]
	if !ok {
		var err error
		if d, err = data.ReadFile(path, opt); err != nil {
			return 0, err
		}
		ts[key] = d
	}
	skip, err := strconv.Atoi(text("val-skip", "0"))
	if err != nil {
		return 0, fmt.Errorf("val-skip: %w", err)
	}
	sum, err := classes.Evaluate(m, d, skip, 0)
	if err != nil {
		return 0, err
	}
	if f := sum.Median; !math.IsNaN(f) {
		return f, nil
	}
	return 0, fmt.Errorf("%s: no batch has a fit", t.Test)
}

// Complete reports whether every trial is done.
func (s *Summary) Complete() bool {
	for _, r := range s.Trials {
		if r.Status != Done.String() {
			return false
		}
	}
	return true
}

// Counts returns the number of done, failed and missing trials.
func (s *Summary) Counts() (done, failed, missing int) {
	for _, r := range s.Trials {
		switch r.Status {
		case Done.String():
			done++
		case Failed.String():
			failed++
		default:
			missing++
		}
	}
	return
}

// WriteJSON writes s as indented JSON.
func (s *Summary) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(s)
}

// WriteMarkdown writes s as a report: per plant, the done trials ranked by
// validation fit (with the test fit, where there is one), then the failed and missing trials with their last log
// line.
func (s *Summary) WriteMarkdown(w io.Writer) error {
	var b bytes.Buffer
	done, failed, missing := s.Counts()
	fmt.Fprintf(&b, "# Sweep summary\n\n%d trials: %d done, %d failed, %d missing.\n", len(s.Trials), done, failed, missing)
	var names []string
	for _, r := range s.Trials {
		if !slices.Contains(names, r.Plant) {
			names = append(names, r.Plant)
		}
	}
	for _, plant := range names {
		var ranked []Result
		for _, r := range s.Trials {
			if r.Plant == plant && r.Rank > 0 {
				ranked = append(ranked, r)
			}
		}
		slices.SortFunc(ranked, func(a, b Result) int { return a.Rank - b.Rank })
		fmt.Fprintf(&b, "\n## %s\n\n", plant)
		if len(ranked) == 0 {
			b.WriteString("No trial done.\n")
			continue
		}
		b.WriteString("| rank | trial | val fit % | test fit % | certified | seconds | settings |\n|---:|---:|---:|---:|:---:|---:|---|\n")
		for _, r := range ranked {
			fit, test := "–", "–"
			if r.ValFit != nil {
				fit = fmt.Sprintf("%.2f", *r.ValFit)
			}
			if r.TestFit != nil {
				test = fmt.Sprintf("%.2f", *r.TestFit)
			}
			cert := "yes"
			if !r.Certified {
				cert = "**no**"
			}
			what := settingsText(r.Settings)
			if r.Name != "" {
				what = r.Name // a search's candidate: its structure (the settings are in summary.json)
			}
			fmt.Fprintf(&b, "| %d | %d | %s | %s | %s | %.1f | %s |\n", r.Rank, r.Index, fit, test, cert, r.Seconds, what)
		}
	}
	if failed+missing > 0 {
		b.WriteString("\n## Failed and missing trials\n\n| trial | plant | status | last log line |\n|---:|---|---|---|\n")
		for _, r := range s.Trials {
			if r.Status != Done.String() {
				fmt.Fprintf(&b, "| %d | %s | %s | %s |\n", r.Index, r.Plant, r.Status, strings.ReplaceAll(r.Note, "|", "\\|"))
			}
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

func settingsText(m map[string]any) string {
	var parts []string
	for _, k := range sortedKeys(m) {
		v, _ := flagText(m[k])
		parts = append(parts, "--"+k+" "+v)
	}
	return "`" + strings.Join(parts, " ") + "`"
}

// Files of a collected sweep, beside the plan.
const (
	SummaryJSON     = "summary.json"
	SummaryMarkdown = "summary.md"
)

// Write writes summary.json and summary.md in the folder dir, atomically.
func (s *Summary) Write(dir string) error {
	if err := atomicfile.Write(filepath.Join(dir, SummaryJSON), s.WriteJSON); err != nil {
		return fmt.Errorf("sweep: %w", err)
	}
	if err := atomicfile.Write(filepath.Join(dir, SummaryMarkdown), s.WriteMarkdown); err != nil {
		return fmt.Errorf("sweep: %w", err)
	}
	return nil
}
