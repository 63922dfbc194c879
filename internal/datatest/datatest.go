// Package datatest builds datasets for tests: records of zeros for tests whose
// subject is the records' shape (their count and lengths), and a slow passive
// plant for tests of the memory a model needs.
package datatest

import "github.com/passivenfir/gputrain/data"

// Zeros returns a dataset of one record of zeros per length in lens, in
// that order.
func Zeros(lens ...int) *data.Dataset {
	d := &data.Dataset{}
	for _, n := range lens {
		d.Batches = append(d.Batches, data.Batch{U: make([]float64, n), Y: make([]float64, n)})
	}
	return d
}
