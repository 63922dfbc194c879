// Package flagtext turns a value decoded from a TOML, YAML or JSON settings
// file into the text a command-line flag parses, so that --config files and
// sweep specs set flags exactly as the command line does.
package flagtext

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Of returns the flag text of v: numbers as written (floats in Go's
// shortest round-trip form), booleans as true or false, lists
// comma-separated (--hidden 8,8), null as "". Tables, nested lists and
// non-finite numbers are errors naming what to write instead.
func Of(v any) (string, error) {
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
	case json.Number:
		return x.String(), nil
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return "", fmt.Errorf("value %v is not finite", x)
		}
		return strconv.FormatFloat(x, 'g', -1, 64), nil
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			if _, nested := e.([]any); nested {
				return "", fmt.Errorf("nested lists are not flag values")
			}
			s, err := Of(e)
			if err != nil {
				return "", err
			}
			parts[i] = s
		}
		return strings.Join(parts, ","), nil
	case nil:
		return "", nil
	case map[string]any:
		return "", fmt.Errorf("a table (TOML) or mapping (YAML) is not a flag value; give every key at the top level")
	}
	return "", fmt.Errorf("a value of this kind (%T) is not a flag value; use a number, string, boolean or list", v)
}
