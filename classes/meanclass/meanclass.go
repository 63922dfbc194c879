// Package meanclass is the model file of a weighted mean of passive models
// of other classes (package ensemble): class mean of the gputrain-model
// format, whose members are passive RENs (class ren) and passive loops
// (class loop), each with a count. The structure search builds it when the
// mean of its passive RENs validates better than each; no class
// trains it on its own, so it is a composite (classes.RegisterComposite):
// read by eval, simulate, certify and export, never offered to train
// --model or compare.
package meanclass

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/passivenfir/gputrain/baselines"
	"github.com/passivenfir/gputrain/classes"
	"github.com/passivenfir/gputrain/classes/baseline"
	"github.com/passivenfir/gputrain/classes/loopclass"
	"github.com/passivenfir/gputrain/ensemble"
	"github.com/passivenfir/gputrain/loop"
)

// Name is the class name of a mean in its file.
const Name = "mean"

// Version is the gputrain-model envelope version that introduced class
// mean: every mean file states it (or a later one), so that a reader of
// an older version refuses the file for its version, which says to read it
// with a newer gputrain, rather than for an unknown class.
const Version = 5

// MemberClasses are the classes a member may have: passive by
// construction and each with an exported form, so that the mean keeps
// both.
var MemberClasses = []string{"loop", "ren"}

// memberClass decodes the members, without the registry: a mean reads the
// same wherever it is read (package export registers no class).
var memberClass = map[string]classes.Class{"loop": loopclass.Class, "ren": baseline.REN}

// Member is one model of a mean and its count.
type Member struct {
	Model classes.Model
	Count int // 1 to ensemble.MaxCount
}

// Model is the weighted mean y = Σ c_i y_i / Σ c_i of its members' outputs
// for one input (ensemble.Mean's arithmetic).
type Model struct {
	Members []Member
}

// New is the mean of members, checked: at least one, each of a member
// class (a loop member one loop, not a mean of several) with a count in
// 1 to ensemble.MaxCount.
func New(members ...Member) (*Model, error) {
	m := &Model{Members: members}
	if err := m.Check(); err != nil {
		return nil, err
	}
	return m, nil
}

// FromEnsemble is the mean of the trained models of e as the structure
// search returns it (search.Result.Mean): members that are
// *baselines.PassiveREN become class ren, *loop.Model class loop.
func FromEnsemble(e ensemble.Mean) (*Model, error) {
	var members []Member
	for i, l := range e {
		var cm classes.Model
		switch x := l.Model.(type) {
		case *baselines.PassiveREN:
			cm = baseline.NewREN(x)
		case *loop.Model:
			cm = &loopclass.Model{Mean: loop.Of(x)}
		default:
			return nil, fmt.Errorf("meanclass: member %d is a %T; a member is a passive REN or a loop", i, l.Model)
		}
		members = append(members, Member{Model: cm, Count: l.Count})
	}
	return New(members...)
}

// Check reports a mean New refuses.
func (m *Model) Check() error {
	if len(m.Members) == 0 {
		return fmt.Errorf("meanclass: a mean of no models")
	}
	for i, l := range m.Members {
		if l.Model == nil {
			return fmt.Errorf("meanclass: member %d is nil", i)
		}
		if c := l.Model.Class(); !slices.Contains(MemberClasses, c) {
			return fmt.Errorf("meanclass: member %d is of class %s; a member is of class %s", i, c, strings.Join(MemberClasses, " or "))
		}
		if lm, ok := l.Model.(*loopclass.Model); ok && len(lm.Mean) != 1 {
			return fmt.Errorf("meanclass: member %d is a mean of %d loops; a member is one loop (the mean lists each)", i, len(lm.Mean))
		}
		if l.Count < 1 || l.Count > ensemble.MaxCount {
			return fmt.Errorf("meanclass: member %d has count %d, want 1 to %d", i, l.Count, ensemble.MaxCount)
		}
	}
	return nil
}

func (*Model) Class() string { return Name }

// Mean is m as an ensemble.Mean, whose Simulate is m's.
func (m *Model) Mean() ensemble.Mean {
	e := make(ensemble.Mean, len(m.Members))
	for i, l := range m.Members {
		e[i] = ensemble.Member{Model: l.Model, Count: l.Count}
	}
	return e
}

// Simulate returns the mean output of one record from rest: in member
// order y += c_i·y_i (the product rounded), then y /= Σ c.
func (m *Model) Simulate(u []float64) []float64 { return m.Mean().Simulate(u) }

// NumParams is the sum over the members (a member's parameters are held
// once, whatever its count).
func (m *Model) NumParams() int {
	n := 0
	for _, l := range m.Members {
		n += l.Model.NumParams()
	}
	return n
}

// Certify certifies every member: the mean is passive when all are (a
// parallel interconnection of passive operators, each scaled by
// c_i / Σ c ≥ 0).
func (m *Model) Certify() (classes.Certificate, error) {
	if err := m.Check(); err != nil {
		return classes.Certificate{}, err
	}
	var why []string
	for i, l := range m.Members {
		c, err := l.Model.Certify()
		if err != nil {
			return classes.Certificate{}, fmt.Errorf("meanclass: member %d (%s): %w", i, l.Model.Class(), err)
		}
		if !c.Passive {
			return classes.Certificate{Reason: fmt.Sprintf("not passive: member %d (%s): %s", i, l.Model.Class(), c.Reason)}, nil
		}
		why = append(why, fmt.Sprintf("member %d (%s): %s", i, l.Model.Class(), c.Reason))
	}
	return classes.Certificate{Passive: true, Reason: fmt.Sprintf("certified: every member is passive, so is their weighted mean (a parallel interconnection with weights c_i / Σ c ≥ 0); %s", strings.Join(why, "; "))}, nil
}

// FileVersion is Version: the envelope version that introduced the class
// (above every member's own).
func (m *Model) FileVersion() int { return Version }

// memberParams is one member in the params object: its class, its params
// as a file of that class holds them, and its count (absent: 1).
type memberParams struct {
	Class  string          `json:"class"`
	Params json.RawMessage `json:"params"`
	Count  *int            `json:"count,omitempty"`
}

type params struct {
	Members []memberParams `json:"members"`
}

// MarshalParams writes {"members": [{"class", "params", "count"}, …]},
// count only where it is not 1.
func (m *Model) MarshalParams() (json.RawMessage, error) {
	if err := m.Check(); err != nil {
		return nil, err
	}
	var p params
	for i, l := range m.Members {
		raw, err := l.Model.MarshalParams()
		if err != nil {
			return nil, fmt.Errorf("member %d: %w", i, err)
		}
		mp := memberParams{Class: l.Model.Class(), Params: raw}
		if l.Count != 1 {
			mp.Count = &l.Count
		}
		p.Members = append(p.Members, mp)
	}
	return json.Marshal(p)
}

// Decode builds a mean from its params object, every member decoded by its
// class and checked as New checks it; an error
// names the member (params.members[i]).
func Decode(raw json.RawMessage) (classes.Model, error) {
	var p params
	if err := classes.DecodeStrict(raw, &p); err != nil {
		return nil, err
	}
	if len(p.Members) == 0 {
		return nil, fmt.Errorf("meanclass: params.members is empty: a mean needs at least one model")
	}
	m := &Model{}
	for i, mp := range p.Members {
		at := fmt.Sprintf("params.members[%d]", i)
		if !slices.Contains(MemberClasses, mp.Class) {
			return nil, fmt.Errorf("meanclass: %s.class is %q; a member is of class %s", at, mp.Class, strings.Join(MemberClasses, " or "))
		}
		if len(mp.Params) == 0 || string(mp.Params) == "null" {
			return nil, fmt.Errorf("meanclass: %s.params is missing", at)
		}
		c := 1
		if mp.Count != nil {
			c = *mp.Count
		}
		if c < 1 || c > ensemble.MaxCount {
			return nil, fmt.Errorf("meanclass: %s.count is %d, want 1 to %d", at, c, ensemble.MaxCount)
		}
		cm, err := memberClass[mp.Class].DecodeParams(mp.Params)
		if err != nil {
			return nil, fmt.Errorf("%s.params: %w", at, err)
		}
		m.Members = append(m.Members, Member{Model: cm, Count: c})
	}
	if err := m.Check(); err != nil {
		return nil, err
	}
	return m, nil
}
