package sweep

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
	"gopkg.in/yaml.v3"

	"github.com/passivenfir/gputrain/internal/flagtext"
)

// Spec is a sweep as the user writes it: the plants, the train flags every
// trial gets, and the grid of flag values whose every combination is a trial
// on every plant.
type Spec struct {
	Plants []Plant        `toml:"plant" yaml:"plant"`
	Fixed  map[string]any `toml:"fixed" yaml:"fixed"`
	Grid   map[string]any `toml:"grid" yaml:"grid"`
	file   string         // the spec file
	dir    string         // the spec file's folder: plant paths are relative to it
	order  map[string]int // grid keys in the file's order
}

// Plant is one system to identify: its data files and sampling time.
type Plant struct {
	Name string `toml:"name" yaml:"name"`
	Data string `toml:"data" yaml:"data"`
	Val  string `toml:"val" yaml:"val"`
	// Test, optional, is scored by Collect for the record; trials are
	// never ranked by it.
	Test string  `toml:"test" yaml:"test"`
	Ts   float64 `toml:"ts" yaml:"ts"`
}

// Reserved are the train flags a sweep sets itself, per trial or per plant;
// a spec that sets them is refused.
var Reserved = []string{"data", "val", "ts", "out", "json", "quiet", "config", "plot"}

// FieldError is one problem of a spec, named by where it is.
type FieldError struct {
	Field string // "grid.taps", "plant[1].data"
	Err   error
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Err.Error() }
func (e *FieldError) Unwrap() error { return e.Err }

// ReadSpec reads a spec from a .toml, .yaml or .yml file. Keys it does not
// know are errors, so that a typo never falls back to a default.
func ReadSpec(path string) (*Spec, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("sweep: %w", err)
	}
	s := &Spec{file: path, dir: filepath.Dir(path)}
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".toml":
		md, err := toml.Decode(string(raw), s)
		if err != nil {
			return nil, fmt.Errorf("sweep: %s: %s", path, oneLine(err.Error()))
		}
		if u := md.Undecoded(); len(u) > 0 {
			return nil, fmt.Errorf("sweep: %s: unknown key %q; a spec has [[plant]] tables (name, data, val, test, ts), [fixed] and [grid]", path, u[0].String())
		}
		s.order = map[string]int{}
		for _, k := range md.Keys() {
			if len(k) == 2 && k[0] == "grid" {
				s.order[k[1]] = len(s.order)
			}
		}
	case ".yaml", ".yml":
		dec := yaml.NewDecoder(bytes.NewReader(raw))
		dec.KnownFields(true)
		if err := dec.Decode(s); err != nil {
			return nil, fmt.Errorf("sweep: %s: %s; a spec has plant (a list of name, data, val, test, ts), fixed and grid", path, oneLine(err.Error()))
		}
		var node yaml.Node
		if err := yaml.Unmarshal(raw, &node); err == nil {
			s.order = yamlGridOrder(&node)
		}
	default:
		return nil, fmt.Errorf("sweep: %s: unknown extension %q; use .toml, .yaml or .yml", path, ext)
	}
	return s, nil
}

// yamlGridOrder returns the grid keys in the order the YAML file gives them.
func yamlGridOrder(n *yaml.Node) map[string]int {
	if n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		n = n.Content[0]
	}
	order := map[string]int{}
	if n.Kind != yaml.MappingNode {
		return order
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value != "grid" || n.Content[i+1].Kind != yaml.MappingNode {
			continue
		}
		g := n.Content[i+1]
		for j := 0; j+1 < len(g.Content); j += 2 {
			order[g.Content[j].Value] = len(order)
		}
	}
	return order
}

// flagName is the train flag a spec key names: underscores are accepted for
// dashes (gamma_g = gamma-g), as in a --config file.
func flagName(k string) string { return strings.ReplaceAll(strings.TrimLeft(k, "-"), "_", "-") }

// Check returns every problem of s as a *FieldError, joined: no plant, a
// plant without a name or data file, a file that does not exist, a key
// the sweep sets itself, a key both fixed and in the grid, an empty grid or
// a grid value that is not a list.
func (s *Spec) Check() error {
	var errs []error
	bad := func(field, format string, a ...any) {
		errs = append(errs, &FieldError{Field: field, Err: fmt.Errorf(format, a...)})
	}
	if len(s.Plants) == 0 {
		bad("plant", "no plant; give at least one [[plant]] with name and data")
	}
	names := map[string]bool{}
	for i, p := range s.Plants {
		f := fmt.Sprintf("plant[%d]", i)
		switch {
		case p.Name == "":
			bad(f+".name", "empty; every plant needs a name")
		case names[p.Name]:
			bad(f+".name", "%q is given twice; plant names must differ", p.Name)
		case strings.ContainsAny(p.Name, "/\\\n"):
			bad(f+".name", "%q: a name without slashes or line breaks", p.Name)
		}
		names[p.Name] = true
		for _, file := range []struct{ field, path string }{{"data", p.Data}, {"val", p.Val}, {"test", p.Test}} {
			if file.path == "" {
				if file.field == "data" {
					bad(f+".data", "empty; give the training data file")
				}
				continue
			}
			if fi, err := os.Stat(s.path(file.path)); err != nil {
				bad(f+"."+file.field, "%s: no such file (paths are relative to the spec file's folder)", file.path)
			} else if fi.IsDir() {
				bad(f+"."+file.field, "%s is a folder; give a data file", file.path)
			}
		}
		if !(p.Ts >= 0) || math.IsInf(p.Ts, 0) {
			bad(f+".ts", "%v: must be a finite number ≥ 0", p.Ts)
		}
	}
	for _, k := range sortedKeys(s.Fixed) {
		if slices.Contains(Reserved, flagName(k)) {
			bad("fixed."+k, "set by the sweep for each plant and trial; give it in [[plant]] (data, val, ts) or leave it out")
		} else if _, err := flagText(s.Fixed[k]); err != nil {
			bad("fixed."+k, "%v", err)
		}
	}
	if len(s.Grid) == 0 {
		bad("grid", "empty; give at least one key with a list of values, e.g. seed = [1, 2]")
	}
	for _, k := range sortedKeys(s.Grid) {
		f := "grid." + k
		if slices.Contains(Reserved, flagName(k)) {
			bad(f, "set by the sweep for each plant and trial; give it in [[plant]] or leave it out")
			continue
		}
		if _, ok := fixedKey(s.Fixed, k); ok {
			bad(f, "also in [fixed]; give it in one of the two")
		}
		list, ok := s.Grid[k].([]any)
		switch {
		case !ok:
			bad(f, "%v is not a list; give the values to try as a list, e.g. [20, 40]", s.Grid[k])
			continue
		case len(list) == 0:
			bad(f, "empty list; give at least one value")
		}
		for _, v := range list {
			if _, err := flagText(v); err != nil {
				bad(f, "%v", err)
			}
		}
	}
	return errors.Join(errs...)
}

// fixedKey finds k in m by flag name.
func fixedKey(m map[string]any, k string) (string, bool) {
	for key := range m {
		if flagName(key) == flagName(k) {
			return key, true
		}
	}
	return "", false
}

// path resolves a path of the spec file.
func (s *Spec) path(p string) string {
	if filepath.IsAbs(p) || s.dir == "" {
		return p
	}
	return filepath.Join(s.dir, p)
}

// flagText is flagtext.Of: a spec value as the flag's text.
func flagText(v any) (string, error) { return flagtext.Of(v) }

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
