package zoo_test

import (
	"context"
	"fmt"
	"log"

	"github.com/passivenfir/gputrain/zoo"
)

func ExampleCase_Build() {
	c, err := zoo.LookupCase("twomass-noisy13")
	if err != nil {
		log.Fatal(err)
	}
	train, val, test, err := c.Build(context.Background(), zoo.Quick, 1)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: Ts = %g s\n", c.Plant, train.Ts)
	fmt.Printf("train %d × %d, val %d, test %d records\n", train.Len(), train.Batches[0].Len(), val.Len(), test.Len())
	fmt.Printf("noisy training output, clean kept: %v; clean test: %v\n", train.Batches[0].YClean != nil, test.Batches[0].YClean == nil)
	// Output:
	// twomass: Ts = 0.01 s
	// train 8 × 500, val 3, test 3 records
	// noisy training output, clean kept: true; clean test: true
}

func ExampleLookup() {
	_, err := zoo.Lookup("cartpole")
	fmt.Println(err)
	p, _ := zoo.Lookup("boucwen")
	fmt.Printf("%s: %s; %.1f samples per period\n", p.Name, p.Output, p.SamplesPerPeriod(p.Ts))
	// Output:
	// zoo: unknown plant "cartpole"; the plants are twomass, stribeck, backlash, boucwen, rlc, diode, satind, positioner, gearbox, varactor, softspring, thermistor, pendulum, dcmotor: unknown name
	// boucwen: mean velocity (m/s); 3.1 samples per period
}
