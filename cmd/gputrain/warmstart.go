package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/passivenfir/gputrain/model"
	"github.com/passivenfir/gputrain/search"
	"github.com/passivenfir/gputrain/trainer"
)

// warmStartAbout is the help of train --warm-start.
const warmStartAbout = "continue training from this model file (written by 'gputrain train'): its θ_N, θ_G and input scalers are the starting point instead of a random initialization; the structure is the file's (a structure flag that disagrees is refused, and there is no structure search), the other settings come from the flags and their defaults; with validation data the starting model competes, so the result is never worse on it"

// warmStart loads the model of --warm-start (nil for "") and makes its
// structure the run's: h's structure flags are set to the file's, and a
// structure flag given (on the command line or in --config) with another
// value is a usage error naming each disagreement.
func (h *hyper) warmStart(path string) (*model.NFIR, error) {
	if path == "" {
		return nil, nil
	}
	if cm, _, isClass, err := classFile(path); err != nil {
		return nil, usagef("--warm-start: %v", strings.TrimPrefix(err.Error(), "--model: "))
	} else if isClass {
		return nil, usagef("--warm-start %s is a %s model: a warm start continues an NFIR's training (--model nfir)", path, cm.Class())
	}
	m, _, err := model.Load(path)
	if err != nil {
		return nil, badInput(fmt.Errorf("--warm-start: %w", err))
	}
	s := m.Structure
	var bad []string
	differs := func(flag string, given, file any) {
		if isSet(h.fs, flag) && fmt.Sprint(given) != fmt.Sprint(file) {
			bad = append(bad, fmt.Sprintf("--%s %v (the model has %v)", flag, given, file))
		}
	}
	c := h.cfg.Structure
	differs("branches", c.Branches, s.Branches)
	differs("taps", c.Taps, s.Taps)
	differs("r1", c.R1, s.R1)
	differs("r2", c.R2, s.R2)
	differs("linear-taps", c.LinearTaps, s.LinearTaps)
	differs("hold-start", c.HoldStart, s.HoldStart)
	differs("feedback", h.feedback, s.Feedback)
	if isSet(h.fs, "no-feedback") && h.noFeedback && s.Feedback {
		bad = append(bad, "--no-feedback (the model has feedback)")
	}
	if isSet(h.fs, "hidden") && !slices.Equal(h.hidden, s.Hidden) {
		given, file := h.hidden, intList(s.Hidden)
		bad = append(bad, fmt.Sprintf("--hidden %q (the model has %q)", given.String(), file.String()))
	}
	if len(bad) > 0 {
		verb := "disagree"
		if len(bad) == 1 {
			verb = "disagrees"
		}
		return nil, usagef("--warm-start %s: the structure comes from the model file, and %s %s with it; leave the structure flags out",
			path, strings.Join(bad, ", "), verb)
	}
	h.cfg.Structure = s
	h.cfg.Structure.Hidden = slices.Clone(s.Hidden)
	h.hidden = intList(slices.Clone(s.Hidden))
	h.feedback, h.noFeedback = s.Feedback, false
	return m, nil
}

// useWarmStart puts the model of --warm-start (nil: none) into cfg and
// checks what does not go with it: averaged members, which would all
// start from the one model, and a structure search, the structure being
// the file's. It returns whether the run still searches.
func useWarmStart(cfg *trainer.Config, start *model.NFIR, mode search.Mode, modeGiven, searching bool) (bool, error) {
	if start == nil {
		return searching, nil
	}
	if cfg.Members > 1 {
		return false, usagef("--members %d with --warm-start: every member would start from the one model; give --members 1", cfg.Members)
	}
	if modeGiven && mode == search.On {
		return false, usagef("--search on with --warm-start: the structure is the model file's; leave --search out")
	}
	cfg.Start = start
	return false, nil
}
