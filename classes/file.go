package classes

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/passivenfir/gputrain/model"
)

// Format and Version identify the envelope of every class without a format
// of its own (docs/MODEL_FORMAT.md, "Other model classes"). Version 2 adds
// the counts of a weighted mean of loops (class loop, params.counts);
// version 3 the biases of a REN (class ren, params.biased); version 4 the
// gates of a REN (class ren, params.gated); version 5 the weighted mean of
// models of other classes (class mean).
const (
	Format  = "gputrain-model"
	Version = 5
)

// ErrFormat reports a file that is not a valid model file.
var ErrFormat = errors.New("classes: not a valid model file")

// Meta is what a model file stores beside the model.
type Meta struct {
	Ts       float64         // sampling time in seconds (0: unknown)
	Training json.RawMessage // training settings, free-form JSON object (nil: none)
	// Version is the envelope version a file was read with; Encode
	// ignores it and writes the lowest version that holds the model
	// (FileVersioner).
	Version int
}

// fileVersion is the lowest envelope version that holds m.
func fileVersion(m Model) int {
	if fv, ok := m.(FileVersioner); ok {
		return max(fv.FileVersion(), 1)
	}
	return 1
}

// CheckVersion reports params that need a newer envelope version than the
// file states (meta.Version, as read): keys a version introduced are
// refused in files of the versions before it.
func CheckVersion(m Model, meta Meta) error {
	if v := fileVersion(m); v > meta.Version {
		return fmt.Errorf("%w: class %s: the params need version %d of %s, and the file is version %d", ErrFormat, m.Class(), v, Format, meta.Version)
	}
	return nil
}

// envelope is the JSON layout of a gputrain-model file.
type envelope struct {
	Format   string          `json:"format"`
	Class    string          `json:"class"`
	Version  int             `json:"version"`
	Ts       float64         `json:"ts,omitempty"`
	Params   json.RawMessage `json:"params"`
	Training json.RawMessage `json:"training,omitempty"`
}

// Encode writes m's model file to w: its own format when it has one
// (FileEncoder), else the gputrain-model envelope around its params.
func Encode(w io.Writer, m Model, meta Meta) error {
	if fe, ok := m.(FileEncoder); ok {
		return fe.EncodeFile(w, meta)
	}
	if !(meta.Ts >= 0) || math.IsInf(meta.Ts, 0) {
		return fmt.Errorf("classes: %s: sampling time %v must be finite ≥ 0", m.Class(), meta.Ts)
	}
	p, err := m.MarshalParams()
	if err != nil {
		return fmt.Errorf("classes: %s: %w", m.Class(), err)
	}
	b, err := json.MarshalIndent(envelope{Format: Format, Class: m.Class(), Version: fileVersion(m), Ts: meta.Ts, Params: p, Training: meta.Training}, "", " ")
	if err != nil {
		return fmt.Errorf("classes: %s: %w", m.Class(), err)
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// Decode reads a model file of any registered format.
func Decode(r io.Reader) (Model, Meta, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, Meta{}, err
	}
	format, err := FormatOf(b)
	if err != nil {
		return nil, Meta{}, err
	}
	if format != Format {
		mu.RLock()
		dec, ok := formats[format]
		mu.RUnlock()
		if !ok {
			return nil, Meta{}, fmt.Errorf("%w: format %q; known: %v", ErrFormat, format, sortedFormats())
		}
		return dec(b)
	}
	class, params, meta, err := DecodeEnvelope(b)
	if err != nil {
		return nil, Meta{}, err
	}
	decode, err := paramsDecoder(class)
	if err != nil {
		return nil, Meta{}, fmt.Errorf("%w: %w", ErrFormat, err)
	}
	m, err := decode(params)
	if err != nil {
		return nil, Meta{}, fmt.Errorf("%w: class %s: %w", ErrFormat, class, err)
	}
	if err := CheckVersion(m, meta); err != nil {
		return nil, Meta{}, err
	}
	return m, meta, nil
}

// paramsDecoder is the decoder of the params of class: a registered
// class's, or a composite's.
func paramsDecoder(class string) (func(json.RawMessage) (Model, error), error) {
	mu.RLock()
	dec, ok := composites[class]
	mu.RUnlock()
	if ok {
		return dec, nil
	}
	c, err := Lookup(class)
	if err != nil {
		return nil, err
	}
	return c.DecodeParams, nil
}

// DecodeEnvelope reads a gputrain-model file's envelope, checked as Decode
// checks it, and returns its class and params undecoded: for a tool that
// takes one class only (export), whatever classes are registered.
func DecodeEnvelope(b []byte) (class string, params json.RawMessage, meta Meta, err error) {
	format, err := FormatOf(b)
	if err != nil {
		return "", nil, Meta{}, err
	}
	if format != Format {
		return "", nil, Meta{}, fmt.Errorf("%w: format %q, want %q", ErrFormat, format, Format)
	}
	var env envelope
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&env); err != nil {
		return "", nil, Meta{}, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	if dec.More() {
		return "", nil, Meta{}, fmt.Errorf("%w: data after the JSON object", ErrFormat)
	}
	switch {
	case env.Version > Version:
		return "", nil, Meta{}, fmt.Errorf("%w: the file is version %d of %s, newer than the versions 1 to %d this program reads; read it with a newer gputrain", model.ErrNewerVersion, env.Version, Format, Version)
	case env.Version < 1:
		return "", nil, Meta{}, fmt.Errorf("%w: version %d: versions start at 1, so the file was not written by gputrain or was edited", ErrFormat, env.Version)
	case !(env.Ts >= 0) || math.IsInf(env.Ts, 0):
		return "", nil, Meta{}, fmt.Errorf("%w: ts %v must be finite ≥ 0", ErrFormat, env.Ts)
	case len(env.Params) == 0 || string(env.Params) == "null":
		return "", nil, Meta{}, fmt.Errorf("%w: no params", ErrFormat)
	}
	if len(env.Training) > 0 && (string(env.Training) == "null" || env.Training[0] != '{') {
		if string(env.Training) != "null" {
			return "", nil, Meta{}, fmt.Errorf("%w: training must be a JSON object", ErrFormat)
		}
		env.Training = nil
	}
	return env.Class, env.Params, Meta{Ts: env.Ts, Training: env.Training, Version: env.Version}, nil
}

// FormatOf returns the "format" field of a model file's JSON object.
func FormatOf(b []byte) (string, error) {
	var head struct {
		Format *string `json:"format"`
	}
	if err := json.Unmarshal(bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")), &head); err != nil {
		return "", fmt.Errorf("%w: %v", ErrFormat, err)
	}
	if head.Format == nil {
		return "", fmt.Errorf("%w: no \"format\" field", ErrFormat)
	}
	return *head.Format, nil
}

// Save writes m's model file to path atomically.
func Save(path string, m Model, meta Meta) error {
	return model.WriteAtomic(path, func(w io.Writer) error { return Encode(w, m, meta) })
}

// Load reads the model file at path, whatever its registered format.
func Load(path string) (Model, Meta, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, Meta{}, err
	}
	defer f.Close()
	m, meta, err := Decode(f)
	if err != nil {
		return nil, meta, fmt.Errorf("%s: %w", path, err)
	}
	return m, meta, nil
}
