package flagtext

import (
	"encoding/json"
	"math"
	"testing"
)

func TestOf(t *testing.T) {
	for _, tc := range []struct {
		in    any
		want  string
		fails bool
	}{
		{"exact", "exact", false}, {true, "true", false}, {3, "3", false}, {int64(-7), "-7", false},
		{uint64(9), "9", false}, {json.Number("1e-3"), "1e-3", false}, {0.1, "0.1", false},
		{[]any{8, 8}, "8,8", false}, {nil, "", false},
		{math.Inf(1), "", true}, {[]any{[]any{1}}, "", true}, {map[string]any{"a": 1}, "", true}, {struct{}{}, "", true},
	} {
		got, err := Of(tc.in)
		if (err != nil) != tc.fails || got != tc.want {
			t.Errorf("Of(%v) = %q, %v", tc.in, got, err)
		}
	}
}
