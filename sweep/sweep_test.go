package sweep

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/passivenfir/gputrain/classes"
	"github.com/passivenfir/gputrain/classes/loopclass"
	"github.com/passivenfir/gputrain/loop"
	"github.com/passivenfir/gputrain/model"
)

// writeFile writes content to dir/name and returns the path.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const specTOML = `
[[plant]]
name = "msd"
data = "train.csv"
val  = "val.csv"
ts   = 0.01
[[plant]]
name = "robot"
data = "robot.csv"
[fixed]
iters = 1
gamma_g = 0.5
[grid]
taps = [20, 40]
branches = [2, 4]
seed = [1, 2]
hidden = [[4, 4], [8]]
`

const specYAML = `
plant:
  - name: msd
    data: train.csv
    val: val.csv
    ts: 0.01
  - name: robot
    data: robot.csv
fixed:
  iters: 1
  gamma_g: 0.5
grid:
  taps: [20, 40]
  branches: [2, 4]
  seed: [1, 2]
  hidden: [[4, 4], [8]]
`

// specDir is a folder with the data files the specs name.
func specDir(t *testing.T) string {
	dir := t.TempDir()
	for _, f := range []string{"train.csv", "val.csv", "robot.csv"} {
		writeFile(t, dir, f, "u,y\n1,0\n")
	}
	return dir
}

func TestExpandTOMLAndYAMLAgree(t *testing.T) {
	dir := specDir(t)
	out := filepath.Join(dir, "runs")
	var plans []*Plan
	for _, name := range []string{"s.toml", "s.yaml"} {
		content := specTOML
		if name == "s.yaml" {
			content = specYAML
		}
		s, err := ReadSpec(writeFile(t, dir, name, content))
		if err != nil {
			t.Fatal(err)
		}
		p, err := Expand(s, out, nil)
		if err != nil {
			t.Fatal(err)
		}
		p.Spec = ""
		plans = append(plans, p)
	}
	// YAML gives ints as int, TOML as int64: compare as plan.json has them
	a, _ := json.Marshal(plans[0])
	b, _ := json.Marshal(plans[1])
	if string(a) != string(b) {
		t.Fatalf("TOML and YAML plans differ:\n%s\n%s", a, b)
	}
	p := plans[0]
	if len(p.Trials) != 2*16 {
		t.Fatalf("%d trials, want 2 plants × 16", len(p.Trials))
	}
	// file order, last key fastest: taps, branches, seed, hidden
	want := []string{
		"--branches=2 --gamma-g=0.5 --hidden=4,4 --iters=1 --seed=1 --taps=20 --workers=1",
		"--branches=2 --gamma-g=0.5 --hidden=8 --iters=1 --seed=1 --taps=20 --workers=1",
		"--branches=2 --gamma-g=0.5 --hidden=4,4 --iters=1 --seed=2 --taps=20 --workers=1",
	}
	for i, w := range want {
		args, err := p.Trials[i].Args(out)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(args[6:], " "); got != w {
			t.Errorf("trial %d: %s, want %s", i, got, w)
		}
	}
	for i, want := range map[int]string{4: "--branches=4 --taps=20", 8: "--branches=2 --taps=40"} {
		set := p.Trials[i].Settings
		if got := fmt.Sprintf("--branches=%v --taps=%v", set["branches"], set["taps"]); got != want {
			t.Errorf("trial %d: %s, want %s (taps outermost)", i, got, want)
		}
	}
	first, last := p.Trials[0], p.Trials[31]
	if first.Plant != "msd" || first.Data != filepath.Join("..", "train.csv") || first.Val != filepath.Join("..", "val.csv") || first.Ts != 0.01 {
		t.Errorf("trial 0: %+v", first)
	}
	if last.Plant != "robot" || last.Index != 31 || last.Dir != "trial-0031" || last.Val != "" {
		t.Errorf("trial 31: %+v", last)
	}
	args, _ := first.Args(out)
	if args[1] != filepath.Join(out, "..", "train.csv") {
		t.Errorf("data path %s does not resolve from the plan folder", args[1])
	}
}

func TestSpecCheck(t *testing.T) {
	for _, tc := range []struct {
		name, spec, field string
	}{
		{"no plant", "[grid]\nseed = [1]\n", "plant"},
		{"missing data", "[[plant]]\nname = \"a\"\ndata = \"none.csv\"\n[grid]\nseed = [1]\n", "plant[0].data"},
		{"missing val", "[[plant]]\nname = \"a\"\ndata = \"train.csv\"\nval = \"v.csv\"\n[grid]\nseed = [1]\n", "plant[0].val"},
		{"no name", "[[plant]]\ndata = \"train.csv\"\n[grid]\nseed = [1]\n", "plant[0].name"},
		{"same name", "[[plant]]\nname = \"a\"\ndata = \"train.csv\"\n[[plant]]\nname = \"a\"\ndata = \"val.csv\"\n[grid]\nseed = [1]\n", "plant[1].name"},
		{"empty grid", "[[plant]]\nname = \"a\"\ndata = \"train.csv\"\n[fixed]\nseed = 1\n", "grid"},
		{"empty list", "[[plant]]\nname = \"a\"\ndata = \"train.csv\"\n[grid]\nseed = []\n", "grid.seed"},
		{"not a list", "[[plant]]\nname = \"a\"\ndata = \"train.csv\"\n[grid]\nseed = 3\n", "grid.seed"},
		{"reserved", "[[plant]]\nname = \"a\"\ndata = \"train.csv\"\n[fixed]\nout = \"m.json\"\n[grid]\nseed = [1]\n", "fixed.out"},
		{"reserved in grid", "[[plant]]\nname = \"a\"\ndata = \"train.csv\"\n[grid]\ndata = [\"x\"]\n", "grid.data"},
		{"fixed and grid", "[[plant]]\nname = \"a\"\ndata = \"train.csv\"\n[fixed]\ngamma_g = 1\n[grid]\ngamma-g = [1]\n", "grid.gamma-g"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := specDir(t)
			s, err := ReadSpec(writeFile(t, dir, "s.toml", tc.spec))
			if err != nil {
				t.Fatal(err)
			}
			err = s.Check()
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("Check: %v, want a field error", err)
			}
			fields := []string{}
			for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
				fields = append(fields, e.(*FieldError).Field)
			}
			if !strings.Contains(strings.Join(fields, " "), tc.field) {
				t.Errorf("fields %v, want %s (%v)", fields, tc.field, err)
			}
			if _, err := Expand(s, dir, nil); err == nil {
				t.Error("Expand accepted the spec")
			}
		})
	}
}

func TestReadSpecUnknownKeys(t *testing.T) {
	dir := specDir(t)
	for name, content := range map[string]string{
		"a.toml": "[[plant]]\nname = \"a\"\ndata = \"train.csv\"\n[gird]\nseed = [1]\n",
		"b.toml": "[[plant]]\nname = \"a\"\ndat = \"train.csv\"\n[grid]\nseed = [1]\n",
		"c.yaml": "plant:\n  - name: a\n    data: train.csv\ngird:\n  seed: [1]\n",
		"d.json": "{}",
		"e.toml": "[[plant]]\nname = \"a\"\ndata = \"train.csv\"\n[fixed.x]\ny = 1\n[grid]\nseed = [1]\n",
	} {
		if _, err := ReadSpec(writeFile(t, dir, name, content)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestExpandValidate(t *testing.T) {
	dir := specDir(t)
	s, err := ReadSpec(writeFile(t, dir, "s.toml", "[[plant]]\nname = \"a\"\ndata = \"train.csv\"\n[fixed]\nepochs = 2\n[grid]\ntaps = [1, 2]\nbogus = [3]\n"))
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	validate := func(args []string) error {
		seen = append(seen, args...)
		if strings.HasPrefix(args[0], "--bogus") {
			return errors.New("flag provided but not defined: -bogus")
		}
		return nil
	}
	_, err = Expand(s, dir, validate)
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Field != "grid.bogus" {
		t.Fatalf("Expand: %v, want a field error on grid.bogus", err)
	}
	if want := []string{"--epochs=2", "--bogus=3", "--taps=1", "--taps=2"}; !reflect.DeepEqual(seen, want) {
		t.Errorf("validated %v, want %v", seen, want)
	}
}

func TestShardSet(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Shard
		ok   bool
	}{
		{"0/4", Shard{0, 4}, true}, {"3/4", Shard{3, 4}, true}, {"0/1", Shard{0, 1}, true},
		{"4/4", Shard{}, false}, {"-1/4", Shard{}, false}, {"1/0", Shard{}, false}, {"1", Shard{}, false}, {"a/b", Shard{}, false},
	} {
		var s Shard
		err := s.Set(tc.in)
		if (err == nil) != tc.ok || (tc.ok && s != tc.want) {
			t.Errorf("Set(%q) = %v, %v; want %v, ok %v", tc.in, s, err, tc.want, tc.ok)
		}
	}
	s := Shard{1, 3}
	var got []int
	for i := range 8 {
		if s.Has(i) {
			got = append(got, i)
		}
	}
	if !reflect.DeepEqual(got, []int{1, 4, 7}) {
		t.Errorf("shard 1/3 of 8: %v", got)
	}
	var _ flag.Value = &s
}

// fakeTrain writes a passive linear FIR whose taps come from --seed, and
// prints a validation fit of 10·seed; --fail=2 exits 2, --fail=1 exits 1.
func fakeTrain(calls *atomic.Int32) TrainFunc {
	return func(ctx context.Context, args []string, stdout, stderr io.Writer) int {
		calls.Add(1)
		var out string
		seed := 0.0
		for i, a := range args {
			switch {
			case a == "--out":
				out = args[i+1]
			case strings.HasPrefix(a, "--seed="):
				seed, _ = strconv.ParseFloat(strings.TrimPrefix(a, "--seed="), 64)
			case a == "--fail=2":
				fmt.Fprintln(stderr, "gputrain train: --taps -1: must be ≥ 1")
				return 2
			case a == "--fail=1":
				fmt.Fprintln(stderr, "gputrain train: training failed: boom")
				return 1
			}
		}
		m, _ := model.New(model.Structure{LinearTaps: 2})
		m.Lin[0] = seed
		if err := model.Save(out, m, model.Meta{Mode: "exact"}); err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		fmt.Fprintln(stderr, "trained")
		fmt.Fprintf(stdout, "{\"best_val_fit\": %g, \"seconds\": 0.25}\n", 10*seed)
		return 0
	}
}

// planFor expands grid lines into a plan in a fresh folder.
func planFor(t *testing.T, grid string) (*Plan, string) {
	dir := specDir(t)
	s, err := ReadSpec(writeFile(t, dir, "s.toml", "[[plant]]\nname = \"a\"\ndata = \"train.csv\"\n[grid]\n"+grid))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "runs")
	p, err := Expand(s, out, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := p.Write(out); err != nil {
		t.Fatal(err)
	}
	if p, err = ReadPlan(filepath.Join(out, PlanFile)); err != nil {
		t.Fatal(err)
	}
	return p, out
}

func TestRunnerMarkersAndRetries(t *testing.T) {
	p, dir := planFor(t, "seed = [1, 2, 3]\nfail = [0, 1, 2]\n")
	var calls atomic.Int32
	r := &Runner{Plan: p, Dir: dir, Train: fakeTrain(&calls)}
	// trial (seed, fail): index = 3·(seed−1) + fail
	outs, err := r.RunAll(context.Background(), r.Pending(Shard{}), 2)
	if err == nil {
		t.Fatal("no error for the trials that exited 1")
	}
	for _, o := range outs {
		want := []Status{Done, Pending, Failed}[o.Index%3]
		if o.Status != want || r.State(o.Index) != want {
			t.Errorf("trial %d: %v (folder: %v), want %v", o.Index, o.Status, r.State(o.Index), want)
		}
	}
	if calls.Load() != 9 {
		t.Errorf("%d trainings, want 9", calls.Load())
	}
	// the exit-1 trials keep their work folder, for the log, and nothing else
	left, _ := filepath.Glob(filepath.Join(dir, ".trial-*"))
	if len(left) != 3 {
		t.Errorf("work folders %v, want those of trials 1, 4, 7", left)
	}
	for _, i := range []int{0, 2} {
		names, _ := os.ReadDir(filepath.Join(dir, p.Trials[i].Dir))
		var got []string
		for _, n := range names {
			got = append(got, n.Name())
		}
		want := map[int][]string{0: {DoneFile, MetricsFile, ModelFile, LogFile}, 2: {FailedFile, LogFile}}[i]
		if !reflect.DeepEqual(got, want) {
			t.Errorf("trial %d holds %v, want %v", i, got, want)
		}
	}
	// the exit-1 trials' attempts are there to be reported; the others have none
	for i := range 9 {
		got := r.Attempts(i)
		var want []Attempt
		if i%3 == 1 {
			want = []Attempt{{Code: 1, Line: "gputrain train: training failed: boom"}}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("trial %d: attempts %+v, want %+v", i, got, want)
		}
	}
	// a second run redoes only the exit-1 trials, and clears their leftovers
	calls.Store(0)
	if pend := r.Pending(Shard{}); !reflect.DeepEqual(pend, []int{1, 4, 7}) {
		t.Errorf("pending %v, want [1 4 7]", pend)
	}
	r.RunAll(context.Background(), r.Pending(Shard{}), 2)
	if calls.Load() != 3 {
		t.Errorf("second run: %d trainings, want 3", calls.Load())
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".trial-*")); len(left) != 3 {
		t.Errorf("second run left %v, want one work folder per exit-1 trial", left)
	}
	if a := r.Attempts(4); len(a) != 1 {
		t.Errorf("second run: trial 4 attempts %+v, want the last one only", a)
	}
	o, err := r.Run(context.Background(), 0)
	if err != nil || !o.Skipped || o.Status != Done || calls.Load() != 3 {
		t.Errorf("a done trial: %+v, %v, trainings %d", o, err, calls.Load())
	}
	if _, err := r.Run(context.Background(), 9); err == nil {
		t.Error("trial 9 of 9 ran")
	}
}

func TestRunnerClearsKilledRun(t *testing.T) {
	p, dir := planFor(t, "seed = [1]\n")
	// what a SIGKILL leaves: a work folder with a partial log and model temp
	work := filepath.Join(dir, ".trial-0000.work-123")
	os.Mkdir(work, 0o755)
	writeFile(t, work, LogFile, "half")
	writeFile(t, work, ".model.json.tmp42", "{")
	var calls atomic.Int32
	r := &Runner{Plan: p, Dir: dir, Train: fakeTrain(&calls)}
	if s := Collect(p, dir); s.Trials[0].Status != "missing" || s.Trials[0].Note != "half" {
		t.Errorf("killed trial collected as %+v, want missing with its last log line", s.Trials[0])
	}
	if _, err := r.Run(context.Background(), 0); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(work); !os.IsNotExist(err) {
		t.Errorf("the killed run's folder is still there: %v", err)
	}
	if r.State(0) != Done {
		t.Error("trial 0 not done")
	}
}

func TestCollect(t *testing.T) {
	p, dir := planFor(t, "seed = [1, 3, 2]\nfail = [0]\n")
	var calls atomic.Int32
	r := &Runner{Plan: p, Dir: dir, Train: fakeTrain(&calls)}
	r.RunAll(context.Background(), []int{0, 1, 2}, 1)
	s := Collect(p, dir)
	if !s.Complete() {
		t.Fatalf("not complete: %+v", s)
	}
	ranks := map[int]int{}
	for _, res := range s.Trials {
		ranks[res.Index] = res.Rank
		if !res.Certified || res.Seconds != 0.25 || res.Status != "done" {
			t.Errorf("trial %d: %+v", res.Index, res)
		}
	}
	if want := map[int]int{1: 1, 2: 2, 0: 3}; !reflect.DeepEqual(ranks, want) {
		t.Errorf("ranks %v, want %v (by val fit 10·seed)", ranks, want)
	}
	// a non-passive model in a done folder is reported, not certified
	m, _ := model.New(model.Structure{LinearTaps: 2})
	m.Lin[0], m.Lin[1] = 1, -3
	if err := model.Save(filepath.Join(dir, "trial-0001", ModelFile), m, model.Meta{Mode: "none"}); err != nil {
		t.Fatal(err)
	}
	// a model of another class (a sweep over "model"): read through its
	// class's file format, and certified by it
	l, err := loop.New(loop.Sized(8))
	if err != nil {
		t.Fatal(err)
	}
	l.SU, l.SY = 1, 1
	if err := classes.Save(filepath.Join(dir, "trial-0000", ModelFile), &loopclass.Model{Mean: loop.Of(l)}, classes.Meta{}); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(filepath.Join(dir, "trial-0002"))
	s = Collect(p, dir)
	if !s.Trials[0].Certified || s.Trials[0].Note != "" {
		t.Errorf("loop model: %+v", s.Trials[0])
	}
	if s.Trials[1].Certified || !strings.HasPrefix(s.Trials[1].Note, "not certified passive") {
		t.Errorf("non-passive model: %+v", s.Trials[1])
	}
	if s.Trials[2].Status != "missing" || s.Trials[2].Note != "not run" || s.Complete() {
		t.Errorf("removed trial: %+v", s.Trials[2])
	}
	if err := s.Write(dir); err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(filepath.Join(dir, SummaryMarkdown))
	for _, want := range []string{"3 trials: 2 done, 0 failed, 1 missing", "| 1 | 1 | 30.00 | – | **no** |", "| 2 | a | missing | not run |"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("summary.md lacks %q:\n%s", want, md)
		}
	}
	var back Summary
	raw, _ := os.ReadFile(filepath.Join(dir, SummaryJSON))
	if err := json.Unmarshal(raw, &back); err != nil || len(back.Trials) != 3 || back.Trials[2].ValFit != nil {
		t.Errorf("summary.json: %v %s", err, raw)
	}
	for _, key := range []string{`"index"`, `"plant"`, `"status"`, `"val_fit"`, `"certified"`, `"seconds"`, `"settings"`} {
		if !strings.Contains(string(raw), key) {
			t.Errorf("summary.json lacks %s", key)
		}
	}
}

// TestCollectTestFit: the test fit is scored on the plant's test data and
// shown, and the ranking stays by validation fit.
func TestCollectTestFit(t *testing.T) {
	dir := specDir(t)
	writeFile(t, dir, "test.csv", "u,y\n1,1\n2,2\n-1,-1\n3,3\n")
	s, err := ReadSpec(writeFile(t, dir, "s.toml", "[[plant]]\nname = \"a\"\ndata = \"train.csv\"\ntest = \"test.csv\"\n[grid]\nseed = [1, 3]\n"))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "runs")
	p, err := Expand(s, out, nil)
	if err != nil {
		t.Fatal(err)
	}
	os.Mkdir(out, 0o755)
	var calls atomic.Int32
	r := &Runner{Plan: p, Dir: out, Train: fakeTrain(&calls)}
	if _, err := r.RunAll(context.Background(), []int{0, 1}, 2); err != nil {
		t.Fatal(err)
	}
	if args, _ := p.Trials[0].Args(out); strings.Contains(strings.Join(args, " "), "test.csv") {
		t.Errorf("the test file is given to train: %v", args)
	}
	sum := Collect(p, out)
	// the model y = seed·u: seed 1 fits y = u exactly, seed 3 has 100·(1 − ‖2u‖/‖u‖) = −100%
	for i, want := range []struct {
		rank int
		test float64
	}{{2, 100}, {1, -100}} {
		got := sum.Trials[i]
		if got.Rank != want.rank || got.TestFit == nil || math.Abs(*got.TestFit-want.test) > 1e-9 {
			t.Errorf("trial %d: rank %d, test fit %v; want %d, %g (%s)", i, got.Rank, got.TestFit, want.rank, want.test, got.Note)
		}
	}
}
