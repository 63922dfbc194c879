package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/passivenfir/gputrain/convex"
	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/internal/atomicfile"
)

// Format and Version identify the model file; a reader must refuse any other
// format and any version newer than it knows. Version 2 adds
// structure.hold_start; a model without it is written as version 1, so that
// readers of version 1 keep reading everything they can evaluate.
const (
	Format  = "gputrain-nfir"
	Version = 2
)

// ErrFormat reports a file that is not a valid model file.
var ErrFormat = errors.New("model: not a valid model file")

// ErrNewerVersion reports a model file of a version newer than Version: a
// newer gputrain wrote it, with keys or a meaning this one does not know. It
// wraps ErrFormat.
var ErrNewerVersion = fmt.Errorf("%w: a newer version", ErrFormat)

// ErrNotPassive reports a model claiming passivity whose taps fail the
// certificate.
var ErrNotPassive = errors.New("model: passivity claim fails the certificate")

// BranchCert is the certified minimum of Re G(e^{iω}) = Σ_k g(k) cos(kω) over
// ω ∈ [0, π] of one FIR, and where it occurs.
type BranchCert struct {
	MinRe float64 `json:"min_re"`
	Omega float64 `json:"omega"`
}

// Certificate is the passivity certificate of a model: Passive is true when
// every branch FIR and the linear FIR have MinRe ≥ 0 (Theorem 2).
type Certificate struct {
	Passive  bool         `json:"passive"`
	Branches []BranchCert `json:"branches"`
	Linear   *BranchCert  `json:"linear,omitempty"`
}

// Certify computes the exact passivity certificate of the model's taps.
func (m *NFIR) Certify() (Certificate, error) {
	c := Certificate{Passive: true, Branches: []BranchCert{}}
	for j := 0; j < m.Branches; j++ {
		bc, err := convex.Certify(m.Branch(j))
		if err != nil {
			return c, fmt.Errorf("model: certify branch %d: %w", j, err)
		}
		c.Branches = append(c.Branches, BranchCert{MinRe: bc.MinRe, Omega: bc.Omega})
		c.Passive = c.Passive && bc.Passive
	}
	if m.LinearTaps > 0 {
		bc, err := convex.Certify(m.Lin)
		if err != nil {
			return c, fmt.Errorf("model: certify linear FIR: %w", err)
		}
		c.Linear = &BranchCert{MinRe: bc.MinRe, Omega: bc.Omega}
		c.Passive = c.Passive && bc.Passive
	}
	return c, nil
}

// File is the JSON layout of a model file, documented in docs/MODEL_FORMAT.md.
type File struct {
	Format    string          `json:"format"`
	Version   int             `json:"version"`
	Structure FileStructure   `json:"structure"`
	Ts        float64         `json:"ts,omitempty"`
	Scalers   FileScalers     `json:"scalers"`
	G         [][]float64     `json:"g"`
	Linear    []float64       `json:"linear"`
	MLP       FileMLP         `json:"mlp"`
	Passivity FilePassivity   `json:"passivity"`
	Training  json.RawMessage `json:"training,omitempty"`
}

// FileStructure is Structure in the file.
type FileStructure struct {
	Branches   int   `json:"branches"`
	Taps       int   `json:"taps"`
	R1         int   `json:"r1"`
	R2         int   `json:"r2"`
	Hidden     []int `json:"hidden"`
	Feedback   bool  `json:"feedback"`
	LinearTaps int   `json:"linear_taps"`
	HoldStart  bool  `json:"hold_start,omitempty"` // version 2
}

// FileScaler is one affine scaler s(x) = (x/scale − mean)/std.
type FileScaler struct {
	Scale float64 `json:"scale"`
	Mean  float64 `json:"mean"`
	Std   float64 `json:"std"`
}

// FileScalers holds the scalers of u and q.
type FileScalers struct {
	U FileScaler `json:"u"`
	Q FileScaler `json:"q"`
}

// FileMLP is the lifting network: weights[l] is sizes[l+1]×sizes[l] row-major.
type FileMLP struct {
	Sizes   []int       `json:"sizes"`
	Weights [][]float64 `json:"weights"`
	Biases  [][]float64 `json:"biases"`
}

// FilePassivity records how the taps were constrained and the certificate.
type FilePassivity struct {
	Mode        string       `json:"mode"` // exact, sampled, kyp or none
	Certificate *Certificate `json:"certificate"`
}

// Meta carries what the model file stores beside the operator.
type Meta struct {
	Ts       float64         // sampling time in seconds (0: unknown)
	Mode     string          // passivity mode used in training
	Training json.RawMessage // training hyper-parameters, free-form JSON object
}

// Encode writes m as a model file to w. A model whose mode is not "none" must
// carry a passing certificate: the certificate is recomputed here, and a
// failing one is an error, so a non-passive model is never written as passive.
func Encode(w io.Writer, m *NFIR, meta Meta) error {
	if err := m.Check(); err != nil {
		return err
	}
	cert, err := m.Certify()
	if err != nil {
		return err
	}
	if meta.Mode == "" {
		meta.Mode = "none"
	}
	if meta.Mode != "none" && !cert.Passive {
		return fmt.Errorf("%w: mode %q claims passivity, but %s", ErrNotPassive, meta.Mode, cert.failures())
	}
	version := 1
	if m.HoldStart {
		version = 2
	}
	f := File{
		Format:  Format,
		Version: version,
		Structure: FileStructure{Branches: m.Branches, Taps: m.Taps, R1: m.R1, R2: m.R2,
			Hidden: append([]int{}, m.Hidden...), Feedback: m.Feedback, LinearTaps: m.LinearTaps,
			HoldStart: m.HoldStart},
		Ts: meta.Ts,
		Scalers: FileScalers{
			U: FileScaler(m.UScaler),
			Q: FileScaler(m.QScaler),
		},
		G:         [][]float64{},
		Linear:    append([]float64{}, m.Lin...),
		MLP:       FileMLP{Sizes: append([]int{}, m.Lift.Sizes...), Weights: m.Lift.W, Biases: m.Lift.B},
		Passivity: FilePassivity{Mode: meta.Mode, Certificate: &cert},
		Training:  meta.Training,
	}
	if len(m.Lift.Sizes) == 0 {
		// No lifting network: all three empty, not a mix of [] and null.
		f.MLP = FileMLP{Sizes: []int{}, Weights: [][]float64{}, Biases: [][]float64{}}
	}
	for j := 0; j < m.Branches; j++ {
		f.G = append(f.G, m.Branch(j))
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(&f)
}

// Decode reads and validates a model file: format and version, every
// dimension, finiteness, and — when the file claims passivity — the
// certificate, recomputed from the taps.
func Decode(r io.Reader) (*NFIR, Meta, error) {
	return decode(r, true)
}

// Inspect reads and validates a model file as Load does, except that a
// passivity claim the taps fail is not an error: it is for tools that
// report on the claim themselves (gputrain certify). Such a model must not
// be used as a passive one.
func Inspect(path string) (*NFIR, Meta, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, Meta{}, fmt.Errorf("model: %w", err)
	}
	defer fh.Close()
	m, meta, err := decode(fh, false)
	if err != nil {
		return nil, Meta{}, fmt.Errorf("%s: %w", path, err)
	}
	return m, meta, nil
}

func decode(r io.Reader, checkClaim bool) (*NFIR, Meta, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, Meta{}, fmt.Errorf("model: %w", err)
	}
	b = bytes.TrimPrefix(b, []byte("\ufeff")) // a byte-order mark some editors add
	if !utf8.Valid(b) {
		return nil, Meta{}, fmt.Errorf("%w: not UTF-8", ErrFormat)
	}
	var f File
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, Meta{}, fmt.Errorf("%w: %s%v", ErrFormat, where(b, err), err)
	}
	keys, err := fileKeys(b)
	if err != nil {
		return nil, Meta{}, fmt.Errorf("%w: %s%v", ErrFormat, where(b, err), err)
	}
	if f.Format != Format {
		return nil, Meta{}, fmt.Errorf("%w: format %q, want %q", ErrFormat, f.Format, Format)
	}
	switch {
	case f.Version > Version:
		return nil, Meta{}, fmt.Errorf("%w: the file is version %d of %s, newer than the versions 1 to %d this program reads; read it with a newer gputrain", ErrNewerVersion, f.Version, Format, Version)
	case f.Version < 1:
		return nil, Meta{}, fmt.Errorf("%w: version %d: versions start at 1, so the file was not written by gputrain or was edited", ErrFormat, f.Version)
	}
	s := Structure{Branches: f.Structure.Branches, Taps: f.Structure.Taps, R1: f.Structure.R1, R2: f.Structure.R2,
		Hidden: f.Structure.Hidden, Feedback: f.Structure.Feedback, LinearTaps: f.Structure.LinearTaps,
		HoldStart: f.Structure.HoldStart}
	if keys["structure.hold_start"] && f.Version < 2 {
		return nil, Meta{}, fmt.Errorf("%w: structure.hold_start needs version 2, the file says %d", ErrFormat, f.Version)
	}
	if err := s.Check(); err != nil {
		return nil, Meta{}, err
	}
	if s.Branches == 0 && (len(f.MLP.Sizes) > 0 || len(f.MLP.Weights) > 0 || len(f.MLP.Biases) > 0) {
		return nil, Meta{}, fmt.Errorf("%w: a model without branches has no lifting network, but mlp has %d sizes, %d weight and %d bias arrays",
			ErrShape, len(f.MLP.Sizes), len(f.MLP.Weights), len(f.MLP.Biases))
	}
	m := &NFIR{Structure: s, Lin: f.Linear,
		UScaler: data.Scaler(f.Scalers.U), QScaler: data.Scaler(f.Scalers.Q),
		Lift: MLP{Sizes: f.MLP.Sizes, W: f.MLP.Weights, B: f.MLP.Biases}}
	if m.Lin == nil {
		m.Lin = []float64{}
	}
	if len(f.G) != s.Branches {
		return nil, Meta{}, fmt.Errorf("%w: %d tap vectors for %d branches", ErrShape, len(f.G), s.Branches)
	}
	for j, g := range f.G {
		if len(g) != s.Taps {
			return nil, Meta{}, fmt.Errorf("%w: branch %d has %d taps, want %d", ErrShape, j, len(g), s.Taps)
		}
		m.G = append(m.G, g...)
	}
	if m.G == nil {
		m.G = []float64{}
	}
	if err := m.Check(); err != nil {
		return nil, Meta{}, err
	}
	meta := Meta{Ts: f.Ts, Mode: f.Passivity.Mode, Training: f.Training}
	switch meta.Mode {
	case "none":
	case "exact", "sampled", "kyp":
		if !checkClaim {
			break
		}
		cert, err := m.Certify()
		if err != nil {
			return nil, Meta{}, err
		}
		if !cert.Passive {
			return nil, Meta{}, fmt.Errorf("%w: mode %q claims passivity, but %s", ErrNotPassive, meta.Mode, cert.failures())
		}
	default:
		return nil, Meta{}, fmt.Errorf("%w: passivity mode %q, want exact, sampled, kyp or none", ErrFormat, meta.Mode)
	}
	return m, meta, nil
}

// where returns "line L column C: " for a JSON error that knows its byte
// offset in b, and "" otherwise.
func where(b []byte, err error) string {
	var off int64 = -1
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		off = syn.Offset
	case errors.As(err, &typ):
		off = typ.Offset
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		off = int64(len(b))
	}
	if off < 0 || off > int64(len(b)) {
		return ""
	}
	return lineCol(b, off)
}

// lineCol returns "line L column C: " for byte offset off of b.
func lineCol(b []byte, off int64) string {
	line := 1 + bytes.Count(b[:off], []byte("\n"))
	col := int(off) - bytes.LastIndexByte(b[:off], '\n')
	return fmt.Sprintf("line %d column %d: ", line, col)
}

// failures lists the FIRs of c whose certified minimum is negative.
func (c Certificate) failures() string {
	var bad []string
	for j, b := range c.Branches {
		if !(b.MinRe >= 0) {
			bad = append(bad, fmt.Sprintf("branch %d: the certified lower bound of min Re G is %.3g (at ω = %.4g)", j, b.MinRe, b.Omega))
		}
	}
	if c.Linear != nil && !(c.Linear.MinRe >= 0) {
		bad = append(bad, fmt.Sprintf("linear FIR: the certified lower bound of min Re G is %.3g (at ω = %.4g)", c.Linear.MinRe, c.Linear.Omega))
	}
	if len(bad) == 0 {
		return "a minimum is zero within rounding and cannot be certified non-negative"
	}
	return strings.Join(bad, "; ")
}

// fileKeys walks the JSON document b and refuses what encoding/json lets
// through but a strict reader in another language would not: a key that is
// not exactly one of the format's (encoding/json matches keys ignoring case,
// and folds characters such as U+017F ſ to s), a key given twice
// (encoding/json keeps the last), a null element of an array (encoding/json
// reads it as 0), a "training" value that is not an object, and anything
// after the object. The free-form "training" object is not inspected
// further. It returns the dotted paths of the keys present (array elements
// share their array's path), true for a value and false for null, so that a
// field's presence can be told from its zero value.
func fileKeys(b []byte) (map[string]bool, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	seen := map[string]bool{}
	var walk func(path string, inArray bool) (isNull bool, err error)
	walk = func(path string, inArray bool) (bool, error) {
		t, err := dec.Token()
		if err != nil {
			return false, err
		}
		if t == nil {
			if inArray {
				// encoding/json would read a null element as 0.
				return true, fmt.Errorf("%s%s: null where a number or an array is expected", lineCol(b, dec.InputOffset()), path)
			}
			return true, nil
		}
		d, ok := t.(json.Delim)
		if !ok {
			return false, nil
		}
		here := map[string]bool{}
		for dec.More() {
			if d == '[' {
				if _, err := walk(path, true); err != nil {
					return false, err
				}
				continue
			}
			kt, err := dec.Token()
			if err != nil {
				return false, err
			}
			k, _ := kt.(string)
			p := k
			if path != "" {
				p = path + "." + k
			}
			switch {
			case here[k]:
				return false, fmt.Errorf("%skey %q given twice", lineCol(b, dec.InputOffset()), p)
			case !fileKeySet[p]:
				return false, fmt.Errorf("%sunknown key %q (keys are matched exactly, in lower case)", lineCol(b, dec.InputOffset()), p)
			}
			here[k] = true
			if p == "training" {
				var raw json.RawMessage
				if err := dec.Decode(&raw); err != nil {
					return false, err
				}
				isNull := bytes.Equal(raw, []byte("null"))
				if !isNull && raw[0] != '{' {
					return false, fmt.Errorf("%straining: a JSON object or null, not %.20s", lineCol(b, dec.InputOffset()), raw)
				}
				seen[p] = !isNull
				continue
			}
			isNull, err := walk(p, false)
			if err != nil {
				return false, err
			}
			seen[p] = !isNull
		}
		_, err = dec.Token() // the closing delimiter
		return false, err
	}
	if isNull, err := walk("", false); err != nil {
		return nil, err
	} else if isNull {
		return nil, errors.New("the file is null, not a model object")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%sdata after the model object", lineCol(b, dec.InputOffset()))
	}
	for _, k := range requiredKeys {
		if !seen[k] {
			how := "missing"
			if _, ok := seen[k]; ok {
				how = "null"
			}
			return nil, fmt.Errorf("required key %q is %s", k, how)
		}
	}
	return seen, nil
}

// requiredKeys must be present with a value other than null.
var requiredKeys = []string{"format", "version", "structure", "scalers", "scalers.u", "scalers.u.scale", "scalers.u.mean",
	"scalers.u.std", "scalers.q", "scalers.q.scale", "scalers.q.mean", "scalers.q.std", "passivity", "passivity.mode"}

// fileKeySet holds the dotted path of every key of the format, from the json
// tags of File, so that it cannot drift from what Decode reads.
var fileKeySet = func() map[string]bool {
	set := map[string]bool{}
	raw := reflect.TypeFor[json.RawMessage]()
	var add func(t reflect.Type, path string)
	add = func(t reflect.Type, path string) {
		for t.Kind() == reflect.Pointer || (t.Kind() == reflect.Slice && t != raw) {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			return
		}
		for i := range t.NumField() {
			name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
			p := name
			if path != "" {
				p = path + "." + name
			}
			set[p] = true
			add(t.Field(i).Type, p)
		}
	}
	add(reflect.TypeFor[File](), "")
	return set
}()

// Save writes the model file atomically: to a temporary file in the same
// directory, synced, then renamed over path, so a crash never leaves a
// half-written model.
func Save(path string, m *NFIR, meta Meta) error {
	return WriteAtomic(path, func(w io.Writer) error { return Encode(w, m, meta) })
}

// Load reads and validates a model file.
func Load(path string) (*NFIR, Meta, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, Meta{}, fmt.Errorf("model: %w", err)
	}
	defer fh.Close()
	m, meta, err := Decode(fh)
	if err != nil {
		return nil, Meta{}, fmt.Errorf("%s: %w", path, err)
	}
	return m, meta, nil
}

// WriteAtomic writes a file through write into a temporary file beside path
// and renames it into place only when write succeeded (see
// internal/atomicfile).
func WriteAtomic(path string, write func(io.Writer) error) error {
	return atomicfile.Write(path, write)
}
