package baseline

import (
	"context"
	"encoding/json"
	"fmt"
	"math"

	"github.com/passivenfir/gputrain/baselines"
	"github.com/passivenfir/gputrain/classes"
)

// decodeStrict is classes.DecodeStrict.
func decodeStrict(params json.RawMessage, v any) error { return classes.DecodeStrict(params, v) }

// checkScales reports scales that are not finite and positive.
func checkScales(u, y float64) error {
	if !(u > 0) || !(y > 0) || math.IsInf(u, 0) || math.IsInf(y, 0) {
		return fmt.Errorf("u_scale %v and y_scale %v must be finite > 0", u, y)
	}
	return nil
}

// checkFinite reports a non-finite parameter.
func checkFinite(name string, v []float64) error {
	for i, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("%s[%d] is %v", name, i, x)
		}
	}
	return nil
}

// cancelled returns ctx's error, for classes whose training cannot be
// interrupted once started: they do not start after Ctrl-C.
func cancelled(ctx context.Context) error { return ctx.Err() }

// Classes are the classes of this package, in the order compare lists them.
// Their sizes are the defaults of their flags, so that train --model CLASS
// with no flag of the class trains the class compare trains.
var (
	MLP   classes.Class = mlpClass{Memory: baselines.DefaultMLPConfig().Memory}
	GRU   classes.Class = gruClass{Units: baselines.DefaultGRUConfig().Units}
	N4SID classes.Class = n4sidClass{}
	REN   classes.Class = renClass{States: baselines.DefaultRENConfig().States, Neurons: baselines.DefaultRENConfig().Neurons}
)
