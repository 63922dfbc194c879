package compare_test

import (
	"context"
	"fmt"
	"log"

	"github.com/passivenfir/gputrain/classes"
	_ "github.com/passivenfir/gputrain/classes/all" // registers every built-in class
	"github.com/passivenfir/gputrain/compare"
	"github.com/passivenfir/gputrain/data"
)

// ExampleRun compares a passive linear FIR with N4SID on mass-spring-damper
// data: the table is sorted best first, and says which model is certified
// passive and why the other is not.
func ExampleRun() {
	train, err := data.GenerateMSD(data.MSDConfig{Batches: 6, Seed: 1, Samples: 100})
	if err != nil {
		log.Fatal(err)
	}
	val, err := data.GenerateMSD(data.MSDConfig{Batches: 3, Seed: 2, Samples: 100})
	if err != nil {
		log.Fatal(err)
	}
	tab, err := compare.Run(context.Background(), train, val, nil, compare.Options{Only: []string{"n4sid", "fir"}, Budget: classes.Quick})
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range tab.Rows {
		fmt.Printf("%-5s val fit %.0f%%, passive %v, %d parameters\n", r.Class, r.ValFit, r.Passive, r.Params)
	}
	// Output:
	// fir   val fit 73%, passive true, 50 parameters
	// n4sid val fit 72%, passive false, 9 parameters
}
