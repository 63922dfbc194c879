package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strconv"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/model"
)

// readInputs reads a data file for simulation: the input column and, in a
// CSV, the batch column. Every other column or variable is left unread, the
// measured output whatever its name included: the simulation does not use
// it, and a file need not have one.
func readInputs(ctx context.Context, path string, opt data.ReadOptions) (*data.Dataset, error) {
	if path == "" {
		return nil, usagef("--data FILE is required (a .csv with column u and optionally batch; or .npy, .npz, .mat)")
	}
	// The reader wants an output: name the input for it (and for y_clean,
	// so that a y_clean column is not read either).
	opt.YCol, opt.YCleanCol, opt.IgnoreExtra = opt.UCol, opt.UCol, true
	d, err := data.ReadFileContext(ctx, path, opt)
	if err != nil {
		return nil, readErr(ctx, "data", err)
	}
	if err := d.Validate(1); err != nil {
		return nil, badInput(flagErr{"data", err})
	}
	loaded()
	return d, nil
}

func runSimulate(e *env, args []string) error {
	fs := newFlags("gputrain simulate")
	var modelPath, dataPath, out, config string
	fs.StringVar(&modelPath, "model", "", "model file written by 'gputrain train'")
	fs.StringVar(&dataPath, "data", "", "input data file: .csv (column u and optionally batch; other columns are skipped), .npy, .npz or .mat; - reads standard input")
	fs.StringVar(&out, "out", "", "CSV file to write (atomically) with columns batch,u,y_sim; - for stdout")
	fs.StringVar(&config, "config", "", "TOML or YAML file of flag values")
	force := addForceFlag(fs)
	ts := fs.Float64("ts", 0, "sampling time of the data in seconds, checked against the model's (0: unknown, not checked)")
	allowTs := fs.Bool("allow-ts-mismatch", false, allowTsUsage)
	allowNonfinite := fs.Bool("allow-nonfinite", false, allowNonfiniteUsage)
	cols := addColumnFlags(fs, "ignored: simulate reads the input column (and a CSV's batch column) only; accepted so that one --config serves every command (with --open-loop: the measured output column)")
	openLoop := fs.Bool("open-loop", false, openLoopAbout)
	cols.inputOnly = true
	fs.Lookup("ignore-extra").Usage = "ignored: simulate skips every column but the input and batch columns"
	fs.Lookup("u").Usage += " (default: the name the model was trained with, falling back to u)"
	spec := flagSpec{
		usage: "gputrain simulate --model model.json --data FILE --out FILE.csv [--open-loop] [--force] [--ts S]",
		about: `Run the deployed model on the inputs of a data file: a feedback model feeds back its own output,
q(t) = ŷ(t−1), from zero initial conditions at the start of every batch. The output has one row
per input row, with columns batch (numbered 0, 1, … in file order), u and y_sim. An existing --out
is refused unless --force (which keeps it as FILE.bak); a simulation that goes non-finite fails
(exit 1) and writes nothing unless --allow-nonfinite.`,
		example: `gputrain simulate --model model.json --data test.csv --out sim.csv
gputrain simulate --model model.json --data test.csv --open-loop --out pred.csv`,
	}
	if err := parseFlags(e, fs, spec, args); err != nil {
		return err
	}
	if out == "" {
		return usagef("--out FILE.csv is required (or --out - for stdout)")
	}
	var dest *outFile
	if out != "-" {
		var err error
		if dest, err = newOutFile("out", out, *force, map[string]string{"data": dataPath, "model": modelPath}); err != nil {
			return err
		}
	}
	if !finite(*ts) || *ts < 0 {
		return usagef("--ts %v: must be a finite number ≥ 0", *ts)
	}
	simulate, meta, err := loadSimulator(modelPath)
	if err != nil {
		return err
	}
	if err := checkTs(modelPath, meta.Ts, *ts, *allowTs); err != nil {
		return err
	}
	if *openLoop {
		return simulateOpenLoop(e, fs, cols, modelPath, dataPath, out, dest, *allowNonfinite)
	}
	cols.useModel(fs, meta.Training)
	d, err := cols.read(0, func(opt data.ReadOptions) (*data.Dataset, error) { return readInputs(e.ctx, dataPath, opt) })
	if err != nil {
		return err
	}
	if err := checkColumnTs(modelPath, meta.Ts, d, *allowTs); err != nil {
		return err
	}
	// Simulated before anything is written, so that a simulation that goes
	// non-finite (or is interrupted) writes nothing, not even to stdout.
	sims := make([][]float64, d.Len())
	for i, b := range d.Batches {
		ysim, err := simulate(e.ctx, b.U)
		if isInterrupt(err) {
			where := out
			if out == "-" {
				where = "stdout"
			}
			return interrupted("nothing written to " + where)
		} else if err != nil {
			return failf("simulating %s: %v", b.Name(i), err)
		}
		sims[i] = ysim
		if t := firstNonfinite(sims[i]); t >= 0 && !*allowNonfinite {
			return nonfiniteError("simulated output", b.Name(i)+" of "+dataPath, t, sims[i][t])
		}
	}
	rows := 0 // flushed to w: what an interrupted --out - leaves on stdout
	write := func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 64<<10)
		bw.WriteString("batch,u,y_sim\n")
		var buf []byte
		for i, b := range d.Batches {
			ysim := sims[i]
			for t := range b.U {
				buf = strconv.AppendInt(buf[:0], int64(i), 10)
				buf = append(buf, ',')
				buf = strconv.AppendFloat(buf, b.U[t], 'g', -1, 64)
				buf = append(buf, ',')
				buf = strconv.AppendFloat(buf, ysim[t], 'g', -1, 64)
				buf = append(buf, '\n')
				if _, err := bw.Write(buf); err != nil {
					return err
				}
			}
			if out == "-" {
				if err := bw.Flush(); err != nil {
					return err
				}
				rows += len(b.U)
			}
		}
		return bw.Flush()
	}
	if out == "-" {
		if err := write(e.stdout); isInterrupt(err) {
			return interrupted(wroteRows(rows, d.Samples()))
		} else if err != nil {
			return failf("writing to stdout: %v", err)
		}
		return nil
	}
	if err := dest.write(func(p string) error { return model.WriteAtomic(p, write) }); isInterrupt(err) {
		return interrupted("nothing written to " + out)
	} else if err != nil {
		return failf("%v", err)
	}
	fmt.Fprintf(e.stdout, "wrote %d rows (%d batches) to %s\n", d.Samples(), d.Len(), dest.where())
	return nil
}
