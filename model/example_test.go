package model_test

import (
	"fmt"

	"github.com/passivenfir/gputrain/model"
)

// A plain passive linear FIR (no lifting branches): y = G u.
func ExampleNFIR_Simulate() {
	m, _ := model.New(model.Structure{LinearTaps: 3})
	copy(m.Lin, []float64{1, 0.5, 0.25})
	y, _ := m.Simulate([]float64{1, 0, 0, 0})
	fmt.Println(y)
	c, _ := m.Certify()
	fmt.Println("passive:", c.Passive)
	// Output:
	// [1 0.5 0.25 0]
	// passive: true
}

// Averaging two passive FIRs gives one passive model whose output is the mean
// of theirs.
func ExampleAverage() {
	a, _ := model.New(model.Structure{LinearTaps: 2})
	b, _ := model.New(model.Structure{LinearTaps: 2})
	copy(a.Lin, []float64{1, 0.5})
	copy(b.Lin, []float64{3, -0.5})
	m, _ := model.Average(a, b)
	y, _ := m.Simulate([]float64{1, 0, 0})
	fmt.Println(y)
	c, _ := m.Certify()
	fmt.Println("passive:", c.Passive)
	// Output:
	// [2 0 0]
	// passive: true
}
