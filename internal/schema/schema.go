// Package schema reduces a JSON document to its shape: every key with the
// JSON type of its value, arrays shown by their first element. File-format
// tests compare the shape of a written file with a golden file, so that a
// renamed, added or dropped key is a reviewed change of the format, while
// the numbers a file holds may vary.
package schema

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Of returns the shape of the JSON document b, one line per key path
// ("passivity.certificate.branches[].min_re: number"), sorted.
func Of(b []byte) (string, error) {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return "", fmt.Errorf("schema: %w", err)
	}
	var lines []string
	walk(&lines, "", v)
	path := func(l string) string { return l[:strings.LastIndex(l, ": ")] }
	sort.Slice(lines, func(i, j int) bool { return path(lines[i]) < path(lines[j]) })
	return strings.Join(lines, "\n") + "\n", nil
}

func walk(lines *[]string, path string, v any) {
	switch x := v.(type) {
	case map[string]any:
		if path != "" {
			*lines = append(*lines, path+": object")
		}
		for k, e := range x {
			p := k
			if path != "" {
				p = path + "." + k
			}
			walk(lines, p, e)
		}
	case []any:
		*lines = append(*lines, path+": array")
		if len(x) > 0 {
			walk(lines, path+"[]", x[0])
		}
	case string:
		*lines = append(*lines, path+": string")
	case float64:
		*lines = append(*lines, path+": number")
	case bool:
		*lines = append(*lines, path+": bool")
	case nil:
		*lines = append(*lines, path+": null")
	}
}
