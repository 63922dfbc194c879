package data

import (
	"bytes"
	"slices"
	"testing"
)

// TestWriteMATMatricesRoundTrip reads the file back with the package's own
// MAT reader: row-major in, column-major on disk, empty matrices included.
func TestWriteMATMatricesRoundTrip(t *testing.T) {
	ms := []MATMatrix{
		{"A", 2, 3, []float64{1, 2, 3, 4, 5, 6}},
		{"empty", 0, 0, nil},
		{"Cmat", 1, 0, nil},
	}
	var buf bytes.Buffer
	if err := WriteMATMatrices(&buf, ms); err != nil {
		t.Fatal(err)
	}
	vars, err := readMATVars(bytes.NewReader(buf.Bytes()), "m.mat", int64(buf.Len()), func(string) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	a := vars["A"]
	if a == nil || !slices.Equal(a.dims, []int{2, 3}) || !slices.Equal(a.data, []float64{1, 4, 2, 5, 3, 6}) {
		t.Fatalf("A read back as %+v", a)
	}
	if e := vars["empty"]; e == nil || len(e.data) != 0 {
		t.Fatalf("empty read back as %+v", e)
	}
	if err := WriteMATMatrices(&buf, []MATMatrix{{"bad", 2, 2, []float64{1}}}); err == nil {
		t.Fatal("a matrix with too few numbers was written")
	}
}
