package plot_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/passivenfir/gputrain/plot"
)

// Draw Re G(e^{iω}) of two FIRs: the first is passive (its curve stays above
// the zero line), the second dips below it.
func ExampleRealParts() {
	dir, err := os.MkdirTemp("", "plot-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	base := filepath.Join(dir, "re_g")
	if err := plot.RealParts(base, [][]float64{{1, 0.5}, {0.2, 1}}, nil, 0); err != nil {
		fmt.Println(err)
		return
	}
	for _, ext := range []string{".png", ".svg"} {
		_, err := os.Stat(base + ext)
		fmt.Println("re_g"+ext, err == nil)
	}
	fmt.Printf("%.2f\n", plot.RealPart([]float64{0.2, 1}, 3.14159265))
	// Output:
	// re_g.png true
	// re_g.svg true
	// -0.80
}

// A symmetric log axis: 1e-3 lies a third of the way up an axis from 0 to 1
// whose linear zone is ±1e-4, where a linear axis would put it on 0.
func ExampleSymLogScale() {
	s := plot.SymLogScale{Threshold: 1e-4}
	for _, x := range []float64{0, 1e-4, 1e-3, 0.01, 0.1, 1} {
		fmt.Printf("%-6g at %.2f\n", x, s.Normalize(0, 1, x))
	}
	// Output:
	// 0      at 0.00
	// 0.0001 at 0.10
	// 0.001  at 0.32
	// 0.01   at 0.55
	// 0.1    at 0.77
	// 1      at 1.00
}
