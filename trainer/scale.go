package trainer

import (
	"context"
	"encoding/json"
	"fmt"
	"math"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/internal/pow2"
)

// RefRMSU and RefRMSY are the RMS values of u and y on the paper's
// mass-spring-damper training data (data.MSDSplits: 6.69–6.71 and
// 1.495–1.501 over seeds 1–4), the data on which the defaults of
// DefaultConfig were chosen. Config.Scale "auto" brings any data near them.
const (
	RefRMSU = 6.7
	RefRMSY = 1.5
)

// AutoScale returns the factors a and b by which Config.Scale "auto"
// multiplies the input and the output of d: the powers of two nearest (in
// ratio) to RefRMSU/rms(u) and RefRMSY/rms(y) over all samples of d. A
// signal without a non-zero finite sample keeps the factor 1.
//
// Powers of two, not the ratios themselves, because multiplying by them is
// exact: the scaled data, and the model converted back (model.Rescale), carry
// no rounding error, and data already at the reference scale (the paper's)
// trains bit for bit as with Scale "none".
func AutoScale(d *data.Dataset) (a, b float64) {
	var us, ys [][]float64
	if d != nil {
		for _, bt := range d.Batches {
			us, ys = append(us, bt.U), append(ys, bt.Y)
		}
	}
	return pow2.NearestRatio(RefRMSU, rms(us)), pow2.NearestRatio(RefRMSY, rms(ys))
}

// rms is the root mean square of the finite samples of x, computed without
// overflow for any finite samples (0 when there are none).
func rms(x [][]float64) float64 {
	peak, n := 0.0, 0
	for _, s := range x {
		for _, v := range s {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				peak = math.Max(peak, math.Abs(v))
				n++
			}
		}
	}
	if peak == 0 {
		return 0
	}
	ss := 0.0
	for _, s := range x {
		for _, v := range s {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				r := v / peak
				ss += r * r
			}
		}
	}
	return peak * math.Sqrt(ss/float64(n))
}

// scaled returns a copy of d with u multiplied by a and y (and y_clean) by b;
// nil for nil.
func scaled(d *data.Dataset, a, b float64) *data.Dataset {
	if d == nil {
		return nil
	}
	c := &data.Dataset{Name: d.Name, Ts: d.Ts, Batches: make([]data.Batch, len(d.Batches))}
	for i, bt := range d.Batches {
		c.Batches[i] = data.Batch{U: pow2.Scale(bt.U, a), Y: pow2.Scale(bt.Y, b), YClean: pow2.Scale(bt.YClean, b), Label: bt.Label, Line: bt.Line}
	}
	return c
}

// trainScaled is Train for Config.Scale "auto" with factors a, b ≠ 1: it
// trains on the scaled data and converts the model, its certificate and the
// reported losses back to the units of the data.
func trainScaled(ctx context.Context, cfg Config, train, val *data.Dataset, a, b float64) (*Result, error) {
	inner := cfg
	inner.Scale = ScaleNone
	if cfg.Start != nil {
		// the start in the units of the scaled data (the inverse of the
		// conversion back below; exact, a and b being powers of two)
		inner.Start = cfg.Start.Clone()
		if err := inner.Start.Rescale(1/a, 1/b); err != nil {
			return nil, fmt.Errorf("trainer: converting the warm-start model to the scaled data: %w", err)
		}
	}
	lossBack := 1 / (b * b) // MSE of the scaled output → the data's units (exact: b is a power of two)
	if cfg.Progress != nil {
		inner.Progress = func(e Event) {
			e.Loss *= lossBack
			cfg.Progress(e)
		}
	}
	res, err := trainUnscaled(ctx, inner, scaled(train, a, b), scaled(val, a, b))
	if res == nil || res.Model == nil {
		return res, err
	}
	if rerr := res.Model.Rescale(a, b); rerr != nil {
		return nil, fmt.Errorf("trainer: converting the model back to the data's units: %w", rerr)
	}
	cert, cerr := res.Model.Certify()
	if cerr != nil {
		return nil, cerr
	}
	res.Cert = cert
	for i := range res.History {
		res.History[i].Loss *= lossBack
	}
	if raw, merr := json.Marshal(cfg); merr == nil {
		res.Meta.Training = raw
	}
	return res, err
}
