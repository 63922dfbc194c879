package data_test

import (
	"fmt"
	"log"
	"math"

	"github.com/passivenfir/gputrain/data"
)

func ExampleGenerateMSD() {
	d, err := data.GenerateMSD(data.MSDConfig{Batches: 2, Seed: 1, SNR: 10})
	if err != nil {
		log.Fatal(err)
	}
	if err := d.Validate(50); err != nil { // e.g. m_G = 50
		log.Fatal(err)
	}
	b := d.Batches[0]
	peak := 0.0
	for _, u := range b.U {
		peak = math.Max(peak, math.Abs(u))
	}
	fmt.Printf("%d batches × %d samples, Ts = %v s\n", len(d.Batches), b.Len(), d.Ts)
	fmt.Printf("peak |u| = %v N, y(0) = %v, clean output kept: %v\n", peak, b.YClean[0], b.YClean != nil)
	// Output:
	// 2 batches × 250 samples, Ts = 0.02 s
	// peak |u| = 15 N, y(0) = 0, clean output kept: true
}

func ExampleQ() {
	y := []float64{0.5, 1, 2}
	fmt.Println(data.Q(y))
	// Output:
	// [0 0.5 1]
}

func ExampleReadFile() {
	// testdata/example.csv:
	//	batch,u,y
	//	0,1.0,0
	//	...
	d, err := data.ReadFile("testdata/example.csv", data.ReadOptions{Ts: 0.02, MinLen: 3})
	if err != nil {
		log.Fatal(err)
	}
	for i, b := range d.Batches {
		fmt.Printf("%s batch %d: u=%v y=%v q=%v\n", d.Name, i, b.U, b.Y, data.Q(b.Y))
	}
	s := data.FitScaler(d.Inputs()...) // from training data only; stored with the model
	fmt.Printf("input scaler: Scale=%.2f, s(2)=%.3f\n", s.Scale, s.Apply(2))
	// Output:
	// example.csv batch 0: u=[1 0.5 -1] y=[0 0.25 0.5] q=[0 0 0.25]
	// example.csv batch 1: u=[2 0 0] y=[0 1 0.5] q=[0 0 1]
	// input scaler: Scale=2.20, s(2)=1.699
}

func ExampleReadFile_errors() {
	_, err := data.ReadFile("testdata/interleaved.csv", data.ReadOptions{})
	fmt.Println(err)
	// Output:
	// data: testdata/interleaved.csv line 4 column "batch": batch "0" reappears after batch "1" started (line 3; "0" began on line 2); each batch's rows must be contiguous and in time order, sort the file by batch: interleaved batch id
}
