package classes

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/passivenfir/gputrain/data"
)

// ErrUnknown reports a class name or file format that is not registered.
var ErrUnknown = errors.New("classes: unknown")

// ErrSettings reports settings of a class (its flags) that cannot be used
// together or with the data: bad input, found by Fit.
var ErrSettings = errors.New("classes: bad settings")

// Budget is how much training a class may spend: Full is its documented
// default, Quick a smaller budget (fewer epochs, a smaller search) for a
// first look and for tests.
type Budget int

const (
	Full Budget = iota
	Quick
)

// FitOptions are the settings every class takes.
type FitOptions struct {
	Seed    uint64 // same seed and data, same model
	Workers int    // goroutines the fit may use (0: GOMAXPROCS)
	Budget  Budget
	// ValSkip is the number of samples at the start of every validation
	// record that are simulated but not scored (model selection and early
	// stopping), as trainer.Config.ValSkip.
	ValSkip int
	// Progress, when set, receives one line of progress now and then (an
	// epoch, a candidate size); classes that report nothing never call it.
	Progress func(line string)
}

// Certificate says whether a model is passive, with the reason: the
// certificate that proves it, or why there is none.
type Certificate struct {
	Passive bool   `json:"passive"`
	Reason  string `json:"reason"`
}

// Model is a trained model of one class.
type Model interface {
	// Class is the registered name of the model's class.
	Class() string
	// Simulate returns the free-run (closed-loop) output of one record from
	// rest, len(u) samples.
	Simulate(u []float64) []float64
	// NumParams is the number of trained parameters.
	NumParams() int
	// Certify recomputes the passivity certificate, or says why the model
	// has none.
	Certify() (Certificate, error)
	// MarshalParams returns the "params" object of the model's
	// gputrain-model file. A model with a format of its own implements
	// FileEncoder instead, and MarshalParams is not called.
	MarshalParams() (json.RawMessage, error)
}

// FileEncoder is implemented by models that keep a file format of their own
// (NFIR and FIR models: gputrain-nfir).
type FileEncoder interface {
	EncodeFile(w io.Writer, meta Meta) error
}

// FileVersioner is implemented by models whose params need an envelope
// version above 1 (a key that version introduced). Encode writes the
// lowest version that holds the model, so that older readers still read
// every file that does not need the newer keys, and Decode refuses a file
// whose params need a version above the one it states.
type FileVersioner interface {
	FileVersion() int
}

// Class is a model class: it fits models and decodes their files.
type Class interface {
	// Name is the registered name (lower case, as given to train --model).
	Name() string
	// About is a short description for help texts and tables.
	About() string
	// Fit trains a model on train, selecting and early-stopping on val
	// (which may be nil when the class can do without). When ctx is
	// cancelled it returns ctx.Err() (with the best model so far where the
	// class keeps one).
	Fit(ctx context.Context, train, val *data.Dataset, opt FitOptions) (Model, error)
	// DecodeParams builds a model from the "params" object of its
	// gputrain-model file, checking every dimension.
	DecodeParams(params json.RawMessage) (Model, error)
}

// Flagged is implemented by classes with settings of their own. AddFlags
// binds them to fs, under names that begin with the class name and a dash
// (gru-units), and returns a function that gives the class configured by the
// parsed values. The settings of a class never share a flag with another.
type Flagged interface {
	AddFlags(fs FlagSet) func() Class
}

// FlagSet is the part of flag.FlagSet that AddFlags uses.
type FlagSet interface {
	IntVar(p *int, name string, value int, usage string)
	Float64Var(p *float64, name string, value float64, usage string)
	BoolVar(p *bool, name string, value bool, usage string)
	StringVar(p *string, name string, value string, usage string)
	Var(value flag.Value, name string, usage string)
}

var (
	mu      sync.RWMutex
	byName  = map[string]Class{}
	order   []string
	formats = map[string]func([]byte) (Model, Meta, error){}
	// composites decode the params of classes no class trains (Composite).
	composites = map[string]func(json.RawMessage) (Model, error){}
)

// Register adds c to the registry. Registering a name twice, or a name that
// is not lower case letters, digits and dashes, is a programming error and
// panics, as database/sql.Register does.
func Register(c Class) {
	name := c.Name()
	if name == "" || strings.Trim(name, "abcdefghijklmnopqrstuvwxyz0123456789-") != "" {
		panic(fmt.Sprintf("classes: Register: bad class name %q", name))
	}
	mu.Lock()
	defer mu.Unlock()
	if _, dup := byName[name]; dup {
		panic(fmt.Sprintf("classes: Register: class %q registered twice", name))
	}
	byName[name] = c
	order = append(order, name)
}

// RegisterFormat makes Load and Decode read files of the given format with
// decode (the gputrain-model format itself is read through the classes).
func RegisterFormat(format string, decode func([]byte) (Model, Meta, error)) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := formats[format]; dup || format == Format {
		panic(fmt.Sprintf("classes: RegisterFormat: format %q registered twice", format))
	}
	formats[format] = decode
}

// RegisterComposite makes Decode read gputrain-model files of class name
// with decode: a model built from models of other classes (class mean, a
// weighted mean of passive models), which the structure search builds and
// no class trains, so that train --model and compare do not list it.
// Registering a name twice, or the name of a class, panics, as Register
// does.
func RegisterComposite(name string, decode func(params json.RawMessage) (Model, error)) {
	if name == "" || strings.Trim(name, "abcdefghijklmnopqrstuvwxyz0123456789-") != "" {
		panic(fmt.Sprintf("classes: RegisterComposite: bad class name %q", name))
	}
	mu.Lock()
	defer mu.Unlock()
	_, dup := composites[name]
	if _, class := byName[name]; dup || class {
		panic(fmt.Sprintf("classes: RegisterComposite: class %q registered twice", name))
	}
	composites[name] = decode
}

// Names returns the registered names in registration order.
func Names() []string {
	mu.RLock()
	defer mu.RUnlock()
	return slices.Clone(order)
}

// Lookup returns the class registered as name; an unknown name is an error
// that lists the valid ones.
func Lookup(name string) (Class, error) {
	mu.RLock()
	c, ok := byName[name]
	mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("%w model class %q; valid: %s", ErrUnknown, name, strings.Join(Names(), ", "))
	}
	return c, nil
}

// All returns every registered class, in registration order.
func All() []Class {
	mu.RLock()
	defer mu.RUnlock()
	cs := make([]Class, len(order))
	for i, n := range order {
		cs[i] = byName[n]
	}
	return cs
}

// Choice is a class name given as a flag (flag.Value): Set accepts
// registered names only.
type Choice string

func (c *Choice) String() string { return string(*c) }

func (c *Choice) Set(s string) error {
	if _, err := Lookup(s); err != nil {
		return err
	}
	*c = Choice(s)
	return nil
}

// List is a comma-separated list of class names (flag.Value), each
// registered, none twice.
type List []string

func (l *List) String() string { return strings.Join(*l, ",") }

func (l *List) Set(s string) error {
	var out []string
	for _, n := range strings.Split(s, ",") {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		if _, err := Lookup(n); err != nil {
			return err
		}
		if slices.Contains(out, n) {
			return fmt.Errorf("classes: %q given twice", n)
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		return fmt.Errorf("classes: no class named; valid: %s", strings.Join(Names(), ", "))
	}
	*l = out
	return nil
}

// sortedFormats lists the registered file formats, for messages.
func sortedFormats() []string {
	mu.RLock()
	defer mu.RUnlock()
	f := []string{Format}
	for k := range formats {
		f = append(f, k)
	}
	sort.Strings(f)
	return f
}

// DecodeStrict unmarshals a class's params object into v, refusing unknown
// fields and anything after the object, as the file format requires.
func DecodeStrict(params json.RawMessage, v any) error {
	dec := json.NewDecoder(bytes.NewReader(params))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("data after the params object")
	}
	return nil
}
