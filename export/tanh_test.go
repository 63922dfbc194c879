package export

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLibmTanh measures how far the C library's tanh, which the generated C
// calls, is from Go's math.Tanh, which Simulate calls, on the arguments a
// lifting network meets (and beyond). A difference of an ulp or two is
// expected (neither is correctly rounded everywhere); the 1e-12 relative
// criterion of the exports leaves room for far more, but a C library whose
// tanh is off by more than 1e-14 relative is broken and is reported.
func TestLibmTanh(t *testing.T) {
	cc(t)
	dir := t.TempDir()
	src := "#include <math.h>\n#include <stdio.h>\nint main(void)\n{\n\tdouble x;\n\twhile (scanf(\"%la\", &x) == 1)\n\t\tprintf(\"%a\\n\", tanh(x));\n\treturn 0;\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "tanh.c"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	compile(t, dir, "-o", "tanh", "tanh.c", "-lm")
	rng := rand.New(rand.NewPCG(5, 5))
	var xs []float64
	for range 20000 {
		xs = append(xs, rng.NormFloat64()*math.Pow(10, float64(rng.IntN(8)-5)))
	}
	xs = append(xs, 0, 1e-300, 0.5493061443340548, 19.06, 22, -710, math.SmallestNonzeroFloat64)
	var in strings.Builder
	for _, x := range xs {
		fmt.Fprintln(&in, hexf(x))
	}
	got := runDriver(t, filepath.Join(dir, "tanh"), in.String())
	maxUlp, worst := 0.0, 0.0
	for i, x := range xs {
		want := math.Tanh(x)
		if got[i] == want {
			continue
		}
		ulp := math.Abs(got[i]-want) / (math.Nextafter(math.Abs(want), math.Inf(1)) - math.Abs(want))
		maxUlp = math.Max(maxUlp, ulp)
		worst = math.Max(worst, math.Abs(got[i]-want)/math.Abs(want))
	}
	t.Logf("libm tanh against math.Tanh on %d arguments: at most %.0f ulp apart (%.3g relative)", len(xs), maxUlp, worst)
	if worst > 1e-14 {
		t.Errorf("libm's tanh differs from math.Tanh by %.3g relative", worst)
	}
}
