package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"strconv"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/model"
)

// openLoopAbout is the --open-loop flag's help.
const openLoopAbout = "write the open-loop one-step-ahead prediction instead of the closed-loop simulation: a feedback model is fed the measured output, q(t) = y(t−1) (q(0) = 0), so the data must have the output column (--y); the CSV's columns are then batch,u,y,y_pred. For a feed-forward model, and a model of another class, which see u only, the prediction is the simulation"

// simulateOpenLoop is simulate --open-loop: it writes, per input row, the
// model's prediction of y(t) from u up to t and the measured y up to t−1,
// the predictor eval's open-loop Fit scores.
func simulateOpenLoop(e *env, fs *flag.FlagSet, cols *columns, modelPath, dataPath, out string, dest *outFile, allowNonfinite bool) error {
	cm, cmeta, isClass, err := classFile(modelPath)
	if err != nil {
		return err
	}
	var predict func(u, y []float64) []float64
	training := cmeta.Training
	if isClass {
		fmt.Fprintf(e.stderr, "note: a %s model sees u only: its open-loop prediction is its simulation\n", cm.Class())
		predict = func(u, _ []float64) []float64 { return cm.Simulate(u) }
	} else {
		m, meta, err := loadModel(modelPath)
		if err != nil {
			return err
		}
		training = meta.Training
		if !m.Feedback || m.Branches == 0 {
			fmt.Fprintln(e.stderr, "note: a feed-forward model does not see y: its open-loop prediction equals its closed-loop simulation")
		}
		predict = func(u, y []float64) []float64 {
			p, _ := m.Forward(u, data.Q(y)) // lengths agree: the reader checked them
			return p
		}
	}
	cols.inputOnly = false
	cols.useModel(fs, training)
	d, err := cols.read(0, func(opt data.ReadOptions) (*data.Dataset, error) {
		opt.IgnoreExtra = true // as simulate: columns other than u, y, batch are not read
		return readData(e.ctx, "data", dataPath, opt, 1)
	})
	if err != nil {
		return err
	}
	// Predicted before anything is written, so that a prediction that goes
	// non-finite writes nothing, not even to stdout.
	preds := make([][]float64, d.Len())
	for i, b := range d.Batches {
		if err := e.ctx.Err(); err != nil {
			return interrupted("nothing written")
		}
		preds[i] = predict(b.U, b.Y)
		if t := firstNonfinite(preds[i]); t >= 0 && !allowNonfinite {
			return nonfiniteError("open-loop prediction", b.Name(i)+" of "+dataPath, t, preds[i][t])
		}
	}
	write := func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 64<<10)
		bw.WriteString("batch,u,y,y_pred\n")
		var buf []byte
		for i, b := range d.Batches {
			p := preds[i]
			for t := range b.U {
				buf = strconv.AppendInt(buf[:0], int64(i), 10)
				for _, v := range []float64{b.U[t], b.Y[t], p[t]} {
					buf = append(buf, ',')
					buf = strconv.AppendFloat(buf, v, 'g', -1, 64)
				}
				buf = append(buf, '\n')
				if _, err := bw.Write(buf); err != nil {
					return err
				}
			}
		}
		return bw.Flush()
	}
	if out == "-" {
		if err := write(e.stdout); err != nil {
			return failf("writing to stdout: %v", err)
		}
		return nil
	}
	if err := dest.write(func(p string) error { return model.WriteAtomic(p, write) }); err != nil {
		return failf("%v", err)
	}
	fmt.Fprintf(e.stdout, "wrote %d open-loop predictions (%d batches) to %s\n", d.Samples(), d.Len(), dest.where())
	return nil
}
