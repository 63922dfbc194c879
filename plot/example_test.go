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
	if err := plot.RealParts(base, [][]float64{{1, 0.5}, {0.2, 1}}, nil); err != nil {
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
