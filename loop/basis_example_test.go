package loop_test

import (
	"fmt"
	"math"

	"github.com/passivenfir/gputrain/loop"
)

// A factor with a slow decay, 300 taps long, held in four Laguerre
// functions: ChoosePole picks the pole of the grid that keeps most of its
// energy, and the taps of the loop's FIR are then trained as four numbers.
func ExampleChoosePole() {
	f := make([]float64, 300)
	for k := range f {
		f[k] = math.Pow(0.96, float64(k)) * math.Cos(0.05*float64(k))
	}
	for _, k := range []int{1, 4} {
		pole, share, err := loop.ChoosePole(f, k)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%d functions: pole %.2f holds %.4f of the energy\n", k, pole, share)
	}
	q, _ := loop.Laguerre(300, 4, 0.95)
	r, c := q.Dims()
	fmt.Printf("basis %d×%d\n", r, c)
	// Output:
	// 1 functions: pole 0.93 holds 0.9269 of the energy
	// 4 functions: pole 0.95 holds 0.9992 of the energy
	// basis 300×4
}
