package export_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/passivenfir/gputrain/classes"
	"github.com/passivenfir/gputrain/classes/loopclass"
	"github.com/passivenfir/gputrain/export"
	"github.com/passivenfir/gputrain/loop"
)

// Export a loop, as train writes it, as C: the same interface as an NFIR's,
// and a certificate for each of its FIRs.
func ExampleC_loop() {
	dir, _ := os.MkdirTemp("", "export")
	defer os.RemoveAll(dir)
	m, _ := loop.New(loop.Structure{R1: 1, R2: 1, B1: 1, T1: 3, L1: 2, B2: 1, T2: 2})
	theta := m.Flatten()
	for i := range theta {
		theta[i] = 0.1 * float64(i%5+1)
	}
	m.SetFlat(theta)
	path := filepath.Join(dir, "loop.json")
	if err := classes.Save(path, &loopclass.Model{Mean: loop.Of(m)}, classes.Meta{Ts: 0.01}); err != nil {
		fmt.Println(err)
		return
	}
	src, err := export.Load(path, false)
	if err != nil {
		fmt.Println(err)
		return
	}
	files, err := export.C(src, "plant")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, l := range strings.Split(string(files[0].Data), "\n") {
		if strings.HasPrefix(l, "double plant_") || strings.Contains(l, "PLANT_PASSIVE ") || strings.Contains(l, "PLANT_FIRS ") {
			fmt.Println(l)
		}
	}
	for _, c := range src.LoopCert {
		fmt.Printf("%s: passive %v\n", c.Name, c.MinRe >= 0)
	}
	// Output:
	// #define PLANT_PASSIVE        1 /* 1: certified passive; 0: not (see PLANT_NOT_PASSIVE) */
	// #define PLANT_FIRS           3 /* FIRs certified: H1's branches, H1's linear FIR, H2's branches, H2's linear FIR */
	// double plant_step(plant_state *s, double u);
	// H1 branch 0: passive true
	// H1 linear: passive true
	// H2 branch 0: passive true
}
