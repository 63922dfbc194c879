package model_test

import (
	"fmt"

	"github.com/passivenfir/gputrain/model"
)

// A control loop calls Step once per sample with the input it has just
// computed; the model's feedback, windows and FIR memory stay inside the
// Stepper. Here a passive linear FIR is driven by a proportional controller
// u(t) = r − 0.5·y(t−1) tracking r = 1.
func ExampleStepper() {
	m, _ := model.New(model.Structure{LinearTaps: 3})
	copy(m.Lin, []float64{1, 0.5, 0.25})
	st, _ := model.NewStepper(m)
	y := 0.0
	for t := 0; t < 5; t++ {
		u := 1 - 0.5*y
		y = st.Step(u)
		fmt.Printf("t=%d u=%.4f y=%.4f\n", t, u, y)
	}
	st.Reset() // the next Step is t = 0 again, from rest
	fmt.Println(st.Step(1))
	// Output:
	// t=0 u=1.0000 y=1.0000
	// t=1 u=0.5000 y=1.0000
	// t=2 u=0.5000 y=1.0000
	// t=3 u=0.5000 y=0.8750
	// t=4 u=0.5625 y=0.9375
	// 1
}
