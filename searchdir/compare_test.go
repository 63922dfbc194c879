package searchdir

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/passivenfir/gputrain/classes"
	_ "github.com/passivenfir/gputrain/classes/all"
	"github.com/passivenfir/gputrain/compare"
	"github.com/passivenfir/gputrain/model"
)

// classStub is a TrainFunc that does by --model what a compare trial may
// do: fir finishes (writing a FIR made in advance), n4sid is bad input
// (exit 2), mlp fails (exit 1, retried on the next run).
type classStub struct {
	fir   string
	mu    sync.Mutex
	calls map[string]int
}

func (s *classStub) train(_ context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("train", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	class, out := fs.String("model", "", ""), fs.String("out", "", "")
	fs.Bool("json", false, "")
	for _, name := range []string{"data", "val", "ts", "class-budget", "seed", "workers", "val-skip"} {
		fs.String(name, "", "")
	}
	if err := fs.Parse(args); err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	s.mu.Lock()
	s.calls[*class]++
	s.mu.Unlock()
	switch *class {
	case "n4sid":
		fmt.Fprintln(stderr, "gputrain train: training n4sid failed: no order could be identified")
		return 2
	case "mlp":
		fmt.Fprintln(stderr, "gputrain train: out of luck")
		return 1
	}
	b, err := os.ReadFile(s.fir)
	if err == nil {
		err = os.WriteFile(*out, b, 0o644)
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	fmt.Fprintf(stdout, `{"class": %q, "seconds": 1.25}`, *class)
	return 0
}

// TestCompareStates: compare's classes run as trials through the sweep
// runner; a finished one gives its model, scored as compare scores it, a
// failed one (bad input) a row with its log's last line, an unfinished one
// a row that says to run again. A second run skips the finished and failed
// trials and retries only the unfinished one; the table is the same.
func TestCompareStates(t *testing.T) {
	dir := t.TempDir()
	m, err := model.RandomPassive(model.Structure{LinearTaps: 5}, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	fixture := filepath.Join(dir, "fixture.json")
	if err := model.Save(fixture, m, model.Meta{Mode: "exact"}); err != nil {
		t.Fatal(err)
	}
	train, val, test := dataset(1, 20, 20), dataset(2, 20), dataset(3, 20, 20)
	tr, err := Open(filepath.Join(dir, "search"), train, val, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := &classStub{fir: fixture, calls: map[string]int{}}
	tr.Train, tr.Local = s.train, 2
	fir, _, err := classes.Load(fixture)
	if err != nil {
		t.Fatal(err)
	}
	valFit, err := classes.Evaluate(fir, val, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	opt := compare.Options{Only: []string{"mlp", "fir", "n4sid"}, Budget: classes.Quick, Seed: 7, Workers: 2}
	for run := 1; run <= 2; run++ {
		tab, err := tr.Compare(context.Background(), train, val, test, opt)
		if err != nil {
			t.Fatal(err)
		}
		rows := map[string]compare.Row{}
		for _, r := range tab.Rows {
			rows[r.Class] = r
		}
		if r := rows["fir"]; r.Error != "" || r.ValFit != valFit.Median || r.Params != 5 || r.Seconds != 1.25 || r.Model == nil {
			t.Errorf("run %d: fir row %+v; want val fit %v, 5 parameters, 1.25 s", run, r, valFit.Median)
		}
		if r := rows["n4sid"]; r.Error != "training n4sid failed: no order could be identified" {
			t.Errorf("run %d: n4sid row error %q", run, r.Error)
		}
		if r := rows["mlp"]; !strings.Contains(r.Error, "did not finish (train exited 1): out of luck") {
			t.Errorf("run %d: mlp row error %q", run, r.Error)
		}
		if tab.Rows[0].Class != "fir" || tab.Test == nil || tab.Check == nil {
			t.Errorf("run %d: table %+v", run, tab)
		}
		for class, want := range map[string]int{"fir": 1, "n4sid": 1, "mlp": run} {
			if s.calls[class] != want {
				t.Errorf("run %d: %s trained %d times, want %d", run, class, s.calls[class], want)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(tr.Dir, "test.npy")); err != nil {
		t.Errorf("no test data in the folder: %v", err)
	}
	// Waiting for a cluster: the unfinished class's ended attempt is
	// reported once, however many polls the wait makes.
	var log bytes.Buffer
	tr.Wait, tr.Poll, tr.Log = true, 5*time.Millisecond, &log
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := tr.Compare(ctx, train, val, test, opt); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		t.Fatal(err)
	}
	if n := strings.Count(log.String(), "ended without finishing (train exited 1: gputrain train: out of luck)"); n != 1 {
		t.Errorf("the ended attempt reported %d times in:\n%s", n, log.String())
	}
}
