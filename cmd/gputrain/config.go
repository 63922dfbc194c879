package main

import (
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
	"gopkg.in/yaml.v3"

	"github.com/passivenfir/gputrain/internal/flagtext"
)

// applyConfig reads a TOML or YAML file (by extension) whose keys are flag
// names and sets every flag that the command line did not set. Underscores
// in keys are accepted for dashes (gamma_g = gamma-g). Unknown keys, nested
// tables and values of the wrong type are usage errors (exit 2), so that a
// typo in a config file never silently falls back to a default.
func applyConfig(fs *flag.FlagSet, path string) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return usagef("--config: %v; give an existing TOML or YAML file", err)
	}
	values := map[string]any{}
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".toml":
		if _, err := toml.Decode(string(raw), &values); err != nil {
			return usagef("--config %s: %s; fix the TOML syntax", path, oneLine(err.Error()))
		}
	case ".yaml", ".yml":
		if err := yaml.Unmarshal(raw, &values); err != nil {
			return usagef("--config %s: %s; fix the YAML syntax", path, oneLine(err.Error()))
		}
	default:
		return usagef("--config %s: unknown extension %q; use .toml, .yaml or .yml", path, ext)
	}
	explicit := map[string]bool{}
	fs.Visit(func(f *flag.Flag) {
		explicit[f.Name] = true
		// --feedback and --no-feedback are one switch: the command line's
		// choice wins over the file's, whichever of the two each uses.
		if o, ok := opposite[f.Name]; ok {
			explicit[o] = true
		}
	})
	keys := make([]string, 0, len(values))
	for k := range values {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if k == searchKey || k == provenanceKey {
			continue // a model file's record of its structure search or of its run, not a setting
		}
		name := strings.TrimLeft(k, "-")
		if name == "data-check" {
			continue // a stored training object's record of the data check, not a flag
		}
		f := fs.Lookup(name)
		if f == nil {
			f = fs.Lookup(strings.ReplaceAll(name, "_", "-"))
		}
		if f == nil || f.Name == "config" {
			return usagef("--config %s: unknown key %q; keys are the flag names of '%s --help'", path, k, fs.Name())
		}
		s, err := configString(values[k])
		if err != nil {
			return usagef("--config %s: key %q: %v", path, k, err)
		}
		set := func(s string) error { return fs.Set(f.Name, s) }
		if explicit[f.Name] {
			// The command line wins, but a bad value in the file is still an
			// error: it would bite the day the flag is left off.
			set = func(s string) error { return checkFlagValue(f, s) }
		}
		if err := set(s); err != nil {
			return usagef("--config %s: key %q = %s: want %s, like the default %q (%v)", path, k, s, flagKind(f), f.DefValue, err)
		}
	}
	return nil
}

// opposite pairs the flags that set one switch two ways.
var opposite = map[string]string{"feedback": "no-feedback", "no-feedback": "feedback"}

// flagKind describes the values f takes, for messages.
func flagKind(f *flag.Flag) string {
	if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
		return "a boolean (true or false)"
	}
	if k, ok := f.Value.(interface{ Kind() string }); ok {
		return k.Kind()
	}
	switch kind, _ := flag.UnquoteUsage(f); kind {
	case "float":
		return "a value of type float (a number)"
	case "int":
		return "a value of type int (a whole number)"
	case "uint":
		return "a value of type uint (a whole number ≥ 0)"
	case "string":
		return "a value of type string"
	case "":
		return "a value of this flag's type"
	default:
		return "a value of type " + kind
	}
}

// checkFlagValue reports whether s parses as a value of f, without changing
// f: it sets a fresh value of f's type. Flag types it cannot copy that way
// are not checked.
func checkFlagValue(f *flag.Flag, s string) error {
	t := reflect.TypeOf(f.Value)
	if t == nil || t.Kind() != reflect.Pointer || t.Elem().Kind() == reflect.Struct {
		return nil // a struct may hold pointers that a zero value lacks
	}
	v, ok := reflect.New(t.Elem()).Interface().(flag.Value)
	if !ok {
		return nil
	}
	return v.Set(s)
}

// configString turns a decoded TOML/YAML value into the text a flag parses.
func configString(v any) (string, error) { return flagtext.Of(v) }

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
