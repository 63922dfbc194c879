package schema

import "testing"

func TestOf(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"a": 1, "b": {"c": [1, 2], "d": "x"}, "e": null, "f": [], "g": [{"h": true}]}`,
			"a: number\nb: object\nb.c: array\nb.c[]: number\nb.d: string\ne: null\nf: array\ng: array\ng[]: object\ng[].h: bool\n"},
		{`{}`, "\n"},
	} {
		got, err := Of([]byte(tc.in))
		if err != nil || got != tc.want {
			t.Errorf("Of(%s) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	if _, err := Of([]byte(`{`)); err == nil {
		t.Error("broken JSON: no error")
	}
}
