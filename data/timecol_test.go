package data

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// timeCSV writes a CSV text with the given header and rows of time, u, y.
func timeCSV(header string, t []float64, format string) string {
	var b strings.Builder
	b.WriteString(header + "\n")
	for k, v := range t {
		fmt.Fprintf(&b, format+",%d,%d\n", v, k, 2*k)
	}
	return b.String()
}

func steps(t0, ts float64, n int) []float64 {
	t := make([]float64, n)
	for k := range t {
		t[k] = t0 + float64(k)*ts
	}
	return t
}

func TestReadCSVTimeColumn(t *testing.T) {
	uniform := timeCSV("time,u,y", steps(0, 0.001, 50), "%g")
	gap := steps(0, 0.01, 30)
	gap = append(gap[:12], gap[13:]...) // row 12 (t = 0.12) missing: line 14 steps by 2Ts
	rep := steps(0, 0.01, 30)
	rep[20] = rep[19] // line 22 repeats line 21's time
	for _, c := range []struct {
		name, text string
		opt        ReadOptions
		wantTs     float64
		want       error
		mention    string
	}{
		{"time", uniform, ReadOptions{}, 0.001, nil, ""},
		{"t with a unit, other case", timeCSV("T [s],u,y", steps(5, 0.02, 20), "%g"), ReadOptions{}, 0.02, nil, ""},
		{"named by TimeCol", timeCSV("stamp,u,y", steps(0, 0.5, 9), "%g"), ReadOptions{TimeCol: "stamp"}, 0.5, nil, ""},
		// 123.457 s printed to six digits: steps of 1 ms move by up to half a step
		{"printed to six digits", timeCSV("time,u,y", steps(123.4567, 0.001, 400), "%.6g"), ReadOptions{}, 0.001, nil, ""},
		{"Ts agrees", uniform, ReadOptions{Ts: 0.0010004}, 0.0010004, nil, ""},
		{"Ts disagrees", uniform, ReadOptions{Ts: 0.002}, 0, ErrTimeStep, "steps by 0.001 s, but the sampling time expected is 0.002 s"},
		{"gap", timeCSV("time,u,y", gap, "%g"), ReadOptions{}, 0, ErrTimeStep, "line 14 column \"time\": the time steps from 0.11 to 0.13, by 0.02 where the batch steps by 0.01: a gap"},
		{"repeated row", timeCSV("time,u,y", rep, "%g"), ReadOptions{}, 0, ErrTimeStep, "line 22"},
		{"decreasing", timeCSV("time,u,y", steps(1, -0.1, 5), "%g"), ReadOptions{}, 0, ErrTimeStep, "does not increase"},
		{"batches, each from 0", "batch,time,u,y\na,0,1,2\na,0.1,1,2\na,0.2,1,2\nb,0,1,2\nb,0.1,1,2\n", ReadOptions{}, 0.1, nil, ""},
		{"batches at two rates", "batch,time,u,y\na,0,1,2\na,0.1,1,2\na,0.2,1,2\nb,0,1,2\nb,0.2,1,2\n", ReadOptions{}, 0, ErrTimeStep, `line 5 column "time" (batch "b"): this batch is sampled every 0.2 s and the one on line 2 (batch "a") every 0.1 s`},
		{"one row a batch", "batch,time,u,y\na,0,1,2\nb,7,1,2\n", ReadOptions{Ts: 0.3}, 0.3, nil, ""},
		{"no time column", "u,y\n1,2\n3,4\n", ReadOptions{}, 0, nil, ""},
		{"time column off", uniform, ReadOptions{TimeCol: "-"}, 0, ErrUnknownColumn, `unknown column "time"`},
		{"time column off, ignored", uniform, ReadOptions{TimeCol: "-", IgnoreExtra: true}, 0, nil, ""},
		{"TimeCol absent", uniform, ReadOptions{TimeCol: "stamp"}, 0, ErrUnknownColumn, `unknown column "time"`},
		{"time not a number", "time,u,y\n0,1,2\nx,1,2\n", ReadOptions{}, 0, ErrNotNumeric, `line 3 column "time": "x" is not a time in seconds; a time column of dates or clock times is skipped with --time - and --ignore-extra`},
		{"clock times, extra columns skipped", "batch,time,u,y\na,12:00:00,1,2\na,12:00:01,1,2\nb,0.5,1,2\nb,12:00:03,1,2\n", ReadOptions{IgnoreExtra: true}, 0, nil, ""},
		{"clock times named, extra columns skipped", "stamp,u,y\n12:00:00,1,2\n", ReadOptions{TimeCol: "stamp", IgnoreExtra: true}, 0, ErrNotNumeric, "not a time in seconds"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, err := ReadCSV(strings.NewReader(c.text), "d.csv", c.opt)
			if c.want != nil {
				if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.mention) {
					t.Fatalf("err = %v, want %v mentioning %q", err, c.want, c.mention)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d.Ts != c.wantTs {
				t.Errorf("Ts = %v, want %v", d.Ts, c.wantTs)
			}
			if fromColumn := c.opt.Ts == 0 && c.wantTs > 0; (d.TimeCol != "") != fromColumn {
				t.Errorf("TimeCol = %q; Ts from the column: %v", d.TimeCol, fromColumn)
			}
			if b := d.Batches[0]; len(b.U) == 0 || len(b.U) != len(b.Y) || b.U[0] != 0 && b.U[0] != 1 {
				t.Errorf("batch 0 read as u %v, y %v", b.U, b.Y)
			}
		})
	}
}

// TestReadCSVTimeColumnRandom: seeded random rates, offsets and lengths
// read back their sampling time; one row taken out anywhere is found on
// its line.
func TestReadCSVTimeColumnRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for range 50 {
		ts := math.Pow(10, -6+5*rng.Float64())
		n := 5 + rng.IntN(300) // a gap shows against the median of three steps or more
		t0 := rng.Float64() * 100 * ts * float64(n)
		tt := steps(t0, ts, n)
		d, err := ReadCSV(strings.NewReader(timeCSV("time,u,y", tt, "%.12g")), "r.csv", ReadOptions{})
		if err != nil {
			t.Fatalf("Ts %g, %d rows from %g: %v", ts, n, t0, err)
		}
		if math.Abs(d.Ts-ts) > 1e-6*ts {
			t.Errorf("Ts %g, %d rows from %g: read %g", ts, n, t0, d.Ts)
		}
		k := 1 + rng.IntN(n-2) // a row inside, so the step it leaves is doubled
		cut := append(append([]float64(nil), tt[:k]...), tt[k+1:]...)
		_, err = ReadCSV(strings.NewReader(timeCSV("time,u,y", cut, "%.12g")), "r.csv", ReadOptions{})
		if want := fmt.Sprintf("line %d ", k+2); !errors.Is(err, ErrTimeStep) || !strings.Contains(err.Error(), want) {
			t.Errorf("Ts %g, %d rows, row %d cut: err = %v, want ErrTimeStep on %q", ts, n, k, err, want)
		}
	}
}
