package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// TestVersionAndUnknownKeys pins what docs/MODEL_FORMAT.md says of versions
// ≤ 0 and of keys this program does not know: a version below 1 (0, a
// negative one, or none at all) is refused like a newer one, and so is an
// unknown key anywhere but inside the free-form training object.
func TestVersionAndUnknownKeys(t *testing.T) {
	m, _ := New(Structure{LinearTaps: 2})
	copy(m.Lin, []float64{1, 0.5})
	var buf bytes.Buffer
	if err := Encode(&buf, m, Meta{Mode: "exact", Training: json.RawMessage(`{"seed": 1}`)}); err != nil {
		t.Fatal(err)
	}
	base := buf.String()
	edit := func(f func(map[string]any)) string {
		var v map[string]any
		if err := json.Unmarshal([]byte(base), &v); err != nil {
			t.Fatal(err)
		}
		f(v)
		b, _ := json.Marshal(v)
		return string(b)
	}
	for _, tc := range []struct {
		name string
		file string
		want string // "" accepted, else a fragment of the error
	}{
		{"as written", base, ""},
		{"version 0", edit(func(v map[string]any) { v["version"] = 0 }), "version 0: versions start at 1"},
		{"version -1", edit(func(v map[string]any) { v["version"] = -1 }), "version -1"},
		{"no version", edit(func(v map[string]any) { delete(v, "version") }), `required key "version" is missing`},
		{"unknown top-level key", edit(func(v map[string]any) { v["comment"] = "x" }), `unknown field "comment"`},
		{"unknown structure key", edit(func(v map[string]any) { v["structure"].(map[string]any)["delay"] = 1 }), `unknown field "delay"`},
		{"unknown certificate key", edit(func(v map[string]any) {
			v["passivity"].(map[string]any)["certificate"].(map[string]any)["solver"] = "x"
		}), `unknown field "solver"`},
		{"unknown key in training", edit(func(v map[string]any) { v["training"].(map[string]any)["anything"] = []int{1} }), ""},
	} {
		_, _, err := Decode(strings.NewReader(tc.file))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v; want accepted", tc.name, err)
		case tc.want != "" && (!errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v; want ErrFormat with %q", tc.name, err, tc.want)
		}
	}
}
