package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
	"gopkg.in/yaml.v3"
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
	fs.Visit(func(f *flag.Flag) { explicit[f.Name] = true })
	keys := make([]string, 0, len(values))
	for k := range values {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		name := strings.TrimLeft(k, "-")
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
			kind, _ := flag.UnquoteUsage(f)
			if kind == "" {
				kind = "value"
			}
			return usagef("--config %s: key %q = %s: want a value of type %s, like the default %q (%v)", path, k, s, kind, f.DefValue, err)
		}
	}
	return nil
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
func configString(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case bool:
		return strconv.FormatBool(x), nil
	case int:
		return strconv.Itoa(x), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case uint64:
		return strconv.FormatUint(x, 10), nil
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return "", fmt.Errorf("value %v is not finite", x)
		}
		return strconv.FormatFloat(x, 'g', -1, 64), nil
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			s, err := configString(e)
			if err != nil {
				return "", err
			}
			if _, nested := e.([]any); nested {
				return "", fmt.Errorf("nested lists are not flag values")
			}
			parts[i] = s
		}
		return strings.Join(parts, ","), nil
	case nil:
		return "", nil
	}
	return "", fmt.Errorf("a %T is not a flag value; use a number, string, boolean or list", v)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
