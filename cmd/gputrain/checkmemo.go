package main

// The data check of train, remembered per data set within the process.

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"sync"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/trainer"
)

// checkDataFunc is the data check that checkDataOnce remembers (a test
// counts its calls).
var checkDataFunc = trainer.CheckDataWorkers

// checkMemoSize bounds the data sets remembered: a sweep's plants.
const checkMemoSize = 64

// checkMemo holds the data checks done in this process. The trials of
// 'sweep run --local' (and of compare's and the structure search's
// folders) run as train commands in one process, mostly on the same data;
// their data check, passive and free FIR fits of 200 taps, was most of a
// short trial's time (64% of the CPU time of the 16-trial sweep benchmark)
// and gives the same result every time: a function of the samples, the
// taps and the workers, which make its key.
var checkMemo struct {
	sync.Mutex
	m map[[sha256.Size]byte]*checkEntry
}

type checkEntry struct {
	done chan struct{} // closed when c and err are set
	c    trainer.DataCheck
	err  error
}

// checkDataOnce is checkDataFunc, done once per data set, taps and workers
// in this process: a train that checks data checked before (or being
// checked by a trial beside it) gets the same check without the work. A
// check that failed (an interruption) is not remembered.
func checkDataOnce(ctx context.Context, d *data.Dataset, taps, workers int) (trainer.DataCheck, error) {
	key := checkKey(d, taps, workers)
	checkMemo.Lock()
	if e, ok := checkMemo.m[key]; ok {
		checkMemo.Unlock()
		select {
		case <-e.done:
		case <-ctx.Done():
			return trainer.DataCheck{}, ctx.Err()
		}
		if e.err != nil { // the one that ran it was interrupted: run it here
			return checkDataFunc(ctx, d, taps, workers)
		}
		return cloneCheck(e.c), nil
	}
	if checkMemo.m == nil || len(checkMemo.m) >= checkMemoSize {
		checkMemo.m = map[[sha256.Size]byte]*checkEntry{}
	}
	e := &checkEntry{done: make(chan struct{}), err: errNotChecked}
	checkMemo.m[key] = e
	checkMemo.Unlock()
	defer func() {
		if e.err != nil { // interrupted, or a panic on its way up
			checkMemo.Lock()
			if checkMemo.m[key] == e {
				delete(checkMemo.m, key)
			}
			checkMemo.Unlock()
		}
		close(e.done)
	}()
	e.c, e.err = checkDataFunc(ctx, d, taps, workers)
	return cloneCheck(e.c), e.err
}

// errNotChecked is an entry's error until its check returns.
var errNotChecked = errors.New("the data check did not return")

// checkKey identifies a data check: the samples of u and y, bit for bit,
// record by record, with the taps and the workers.
func checkKey(d *data.Dataset, taps, workers int) [sha256.Size]byte {
	h := sha256.New()
	var b [8]byte
	word := func(v uint64) {
		binary.LittleEndian.PutUint64(b[:], v)
		h.Write(b[:])
	}
	word(uint64(taps))
	word(uint64(workers))
	word(uint64(len(d.Batches)))
	for _, r := range d.Batches {
		word(uint64(len(r.U)))
		for _, v := range r.U {
			word(math.Float64bits(v))
		}
		word(uint64(len(r.Y)))
		for _, v := range r.Y {
			word(math.Float64bits(v))
		}
	}
	var k [sha256.Size]byte
	h.Sum(k[:0])
	return k
}

// cloneCheck copies the check's slices: each train owns its copy.
func cloneCheck(c trainer.DataCheck) trainer.DataCheck {
	c.Causes = slices.Clone(c.Causes)
	return c
}
