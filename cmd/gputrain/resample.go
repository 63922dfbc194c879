package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/resample"
)

// factorValue is --factor: a decimation factor, or auto (0) for
// resample.Suggest's.
type factorValue int

func (f *factorValue) String() string {
	if f == nil || *f == 0 {
		return "auto"
	}
	return strconv.Itoa(int(*f))
}

// Kind describes the values of the flag, for messages.
func (f *factorValue) Kind() string {
	return "auto or an integer from 1 to " + strconv.Itoa(resample.MaxFactor)
}

func (f *factorValue) Set(s string) error {
	s = strings.TrimSpace(s)
	if s == "auto" {
		*f = 0
		return nil
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < 1 || v > resample.MaxFactor {
		return fmt.Errorf("%q is neither auto nor an integer from 1 to %d", s, resample.MaxFactor)
	}
	*f = factorValue(v)
	return nil
}

func runResample(e *env, args []string) error {
	fs := newFlags("gputrain resample")
	var (
		dataPath, out, config string
		ts                    float64
		factor                factorValue
		quiet, jsonOut        bool
	)
	fs.StringVar(&dataPath, "data", "", "data file: .csv (columns u,y[,batch][,y_clean]), .npy, .npz or .mat; - reads standard input")
	fs.StringVar(&out, "out", "", "file to write (atomically): .csv (columns batch,u,y[,y_clean]), .npz or .mat")
	fs.Var(&factor, "factor", "keep every `N`-th sample after the anti-aliasing filter; auto: the largest factor whose new rate is 10 times the band holding 99.9 % of the power of u and of y (noise on y lowers it)")
	fs.Float64Var(&ts, "ts", 0, "sampling time of --data in seconds, to report the new one (0: the step of its time column, --time, else unknown)")
	cols := addColumnFlags(fs, "name of the output column (CSV) or variable (.npz, .mat)")
	force := addForceFlag(fs)
	fs.StringVar(&config, "config", "", "TOML or YAML file of flag values")
	fs.BoolVar(&quiet, "quiet", false, "print nothing on success")
	fs.BoolVar(&jsonOut, "json", false, `print {"file", "factor", "band", "pass_edge", "ts_in", "ts", "batches", "samples_in", "samples"} on stdout`)
	spec := flagSpec{
		usage: "gputrain resample --data FILE [--factor N|auto] [--ts S] --out FILE.csv",
		about: `Lower the sampling rate of a data file by an integer factor, for a plant sampled far faster
than its dynamics need: its memory in samples then outgrows what a FIR holds (train stops its FIR
at 1000 taps) and what a recurrent model learns in its time. Every batch's u, y and y_clean are
filtered by the same zero-phase low-pass filter (a Hamming-windowed sinc of 24·N+1 taps, cut off
at 0.8 of the new Nyquist frequency, ends extended by odd reflection) and every N-th sample is
kept, from the first; the same filter on both sides keeps the plant's input-output relation in
the pass band. --factor auto takes the largest N that samples at 10 times the band holding
99.9 % of the power of u and of y, as identification practice does (noise on y keeps N low). Resample the training, validation and test files with the
same N, and train with --ts multiplied by N: the model then runs at the new rate.`,
		example: `gputrain resample --data train.csv --ts 0.001 --out train10.csv
gputrain resample --data test.csv --factor 10 --out test10.csv`,
	}
	if err := parseFlags(e, fs, spec, args); err != nil {
		return err
	}
	if !finite(ts) || ts < 0 {
		return usagef("--ts %v: must be a finite number ≥ 0", ts)
	}
	write, dest, err := dataWriter(out, *force, map[string]string{"data": dataPath})
	if err != nil {
		return err
	}
	d, err := cols.read(ts, func(opt data.ReadOptions) (*data.Dataset, error) { return readData(e.ctx, "data", dataPath, opt, 1) })
	if err != nil {
		return err
	}
	n := int(factor)
	suggested, band := resample.Suggest(d)
	if n == 0 {
		n = suggested
	}
	r, err := resample.Decimate(d, n)
	if err != nil {
		return badInput(flagErr{"data", err})
	}
	if err := dest.write(func(p string) error { return write(p, r) }); err != nil {
		return failf("%v", err)
	}
	if jsonOut {
		return writeJSON(e.stdout, map[string]any{
			"file": dest.target(), "factor": n, "band": band, "pass_edge": resample.PassEdge(n),
			"ts_in": d.Ts, "ts": r.Ts, "batches": r.Len(), "samples_in": d.Samples(), "samples": r.Samples(),
		})
	}
	if quiet {
		return nil
	}
	fmt.Fprintf(e.stdout, "99.9 %% of the power of u and y lies below %.3g of the sampling frequency; ", band)
	if factor == 0 && n == 1 {
		fmt.Fprintf(e.stdout, "factor 2 would sample it at fewer than %d times that band, so the data need their rate\n", resample.Rate)
	} else {
		fmt.Fprintf(e.stdout, "factor %d keeps what lies below %.3g of it", n, resample.PassEdge(n))
		if n > suggested {
			fmt.Fprintf(e.stdout, ", at fewer than %d times that band (auto would take %d)", resample.Rate, suggested)
		}
		fmt.Fprintln(e.stdout)
	}
	fmt.Fprintf(e.stdout, "wrote %d batches, %d samples (from %d) to %s", r.Len(), r.Samples(), d.Samples(), dest.where())
	switch {
	case n == 1:
		fmt.Fprint(e.stdout, "; its sampling time is unchanged")
	case d.Ts > 0:
		fmt.Fprintf(e.stdout, "; its sampling time is %g s: train with --ts %g", r.Ts, r.Ts)
	default:
		fmt.Fprintf(e.stdout, "; its sampling time is %d times the data's: train with --ts that", n)
	}
	if n > 1 {
		fmt.Fprintf(e.stdout, ", and resample the validation and test files with --factor %d, the same", n)
	}
	fmt.Fprintln(e.stdout)
	return nil
}
