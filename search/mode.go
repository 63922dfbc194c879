package search

import (
	"fmt"
	"time"
)

// Mode says when train searches the structure. It implements flag.Value.
type Mode int

const (
	// Auto searches when the user fixes no structure field (the default).
	Auto Mode = iota
	// On searches the structure fields the user did not fix.
	On
	// Off trains the structure as given, the defaults filling the rest.
	Off
)

var modeNames = [...]string{Auto: "auto", On: "on", Off: "off"}

func (m Mode) String() string {
	if m < 0 || int(m) >= len(modeNames) {
		return fmt.Sprintf("Mode(%d)", int(m))
	}
	return modeNames[m]
}

// Set parses "auto", "on" or "off".
func (m *Mode) Set(s string) error {
	for i, n := range modeNames {
		if s == n {
			*m = Mode(i)
			return nil
		}
	}
	return fmt.Errorf("want auto, on or off, have %q", s)
}

// Searches reports whether a run with the given fixed fields searches.
func (m Mode) Searches(f Fixed) bool {
	switch m {
	case On:
		return !f.All()
	case Auto:
		return f == Fixed{}
	}
	return false
}

// DefaultBudget is the search's default number of rungs: 9 NFIR
// candidates in 3 rungs, about 3 runs of the final schedule. (4 rungs, 27
// candidates, took 23 minutes on the paper's mass-spring-damper set on a
// loaded 2-core machine, where the loop family, trained in half a minute,
// won anyway.)
const DefaultBudget = 3

// The final schedule of a search when the user gives none: shorter than
// trainer.DefaultConfig's 5 × 1000 epochs (patience 300), which serves one
// structure, so that the search's rungs cost a few such runs in all.
const (
	DefaultIters    = 3
	DefaultEpochs   = 300
	DefaultPatience = 100
)

// DefaultTimeLimit is train's default Options.TimeLimit: with the reading
// of the data and the writing of the model, train then ends within about
// 10 minutes, the bound issue 26 sets for 80 000 training samples on two
// cores (a gearbox of that size: 541 s, docs/BENCHMARKS.md, session 26).
// What it does not bound: the passive FIR's doubling before the rungs (one
// convex solve per length) and a search that overruns its halving's half
// (the loops still get a quarter), so far larger data can take longer. On
// the quick plant zoo it changed no choice (docs/ZOO.md, session 26); it
// binds on long records with long memories, where the loop family alone
// would run for tens of minutes (the same gearbox: 29 minutes unbounded).
const DefaultTimeLimit = 9 * time.Minute
