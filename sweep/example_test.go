package sweep_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/passivenfir/gputrain/sweep"
)

// A spec of one plant and a grid of two keys expands into four trials,
// numbered with the grid's last key varying fastest.
func ExampleExpand() {
	dir, _ := os.MkdirTemp("", "sweep-example")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "train.csv"), []byte("u,y\n1,0\n"), 0o644)
	spec := filepath.Join(dir, "sweep.toml")
	os.WriteFile(spec, []byte(`
[[plant]]
name = "msd"
data = "train.csv"
[fixed]
iters = 1
[grid]
taps = [20, 40]
seed = [1, 2]
`), 0o644)
	s, err := sweep.ReadSpec(spec)
	if err != nil {
		fmt.Println(err)
		return
	}
	plan, err := sweep.Expand(s, filepath.Join(dir, "runs"), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, t := range plan.Trials {
		fmt.Println(t.Dir, t.Plant, t.Data, t.Label())
	}
	// Output:
	// trial-0000 msd ../train.csv iters=1 seed=1 taps=20 workers=1
	// trial-0001 msd ../train.csv iters=1 seed=2 taps=20 workers=1
	// trial-0002 msd ../train.csv iters=1 seed=1 taps=40 workers=1
	// trial-0003 msd ../train.csv iters=1 seed=2 taps=40 workers=1
}
