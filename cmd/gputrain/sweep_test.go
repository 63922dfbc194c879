//go:build unix

package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/passivenfir/gputrain/model"
	"github.com/passivenfir/gputrain/sweep"
)

// buildBinary builds gputrain into a test folder, for the tests that run
// trials as separate processes.
func buildBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary; skipped with -short")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool on PATH")
	}
	bin := filepath.Join(t.TempDir(), "gputrain")
	if out, err := exec.Command(goTool, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// sweepSpec writes training and validation data and a spec of 8 trials:
// seeds 1 to 4 of a short (3 epochs) and a longer (400 epochs) NFIR run.
func sweepSpec(t *testing.T, dir string) string {
	t.Helper()
	genData(t, dir, 6, "1")
	genData(t, dir, 2, "2")
	spec := filepath.Join(dir, "sweep.toml")
	text := `[[plant]]
name = "msd"
data = "msd-1.csv"
val = "msd-2.csv"
ts = 0.02

[fixed]
branches = 1
taps = 8
iters = 1
patience = 0

[grid]
epochs = [3, 400]
seed = [1, 2, 3, 4]
`
	if err := os.WriteFile(spec, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return spec
}

// summaryOf collects dir (exit code want) and returns summary.json without
// the trials' seconds, which differ from run to run.
func summaryOf(t *testing.T, dir string, want int) string {
	t.Helper()
	code, _, stderr := cli(t, "sweep", "collect", dir, "--quiet")
	if code != want {
		t.Fatalf("sweep collect %s: exit %d, want %d: %s", dir, code, want, stderr)
	}
	var s sweep.Summary
	raw, err := os.ReadFile(filepath.Join(dir, sweep.SummaryJSON))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	for i := range s.Trials {
		s.Trials[i].Seconds = 0
	}
	b, _ := json.MarshalIndent(s, "", " ")
	return string(b)
}

// sameModels checks that the trials of two sweeps have identical models.
func sameModels(t *testing.T, a, b string, n int) {
	t.Helper()
	for i := range n {
		name := filepath.Join(fmt.Sprintf("trial-%04d", i), sweep.ModelFile)
		ma, _, errA := model.Load(filepath.Join(a, name))
		mb, _, errB := model.Load(filepath.Join(b, name))
		if errA != nil || errB != nil {
			t.Fatalf("trial %d: %v, %v", i, errA, errB)
		}
		if !reflect.DeepEqual(ma, mb) {
			t.Errorf("trial %d: the models of %s and %s differ", i, a, b)
		}
	}
}

// trialCmd is the binary running one trial as a scheduler starts it: the
// index in the environment variable env.
func trialCmd(bin, plan, env string, i int) *exec.Cmd {
	cmd := exec.Command(bin, "sweep", "run", "--plan", plan, "--quiet")
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "JOB_COMPLETION_INDEX=") && !strings.HasPrefix(kv, "SLURM_ARRAY_TASK_ID=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, fmt.Sprintf("%s=%d", env, i))
	return cmd
}

// runIndexed runs the trials idx as separate processes, two at a time.
func runIndexed(t *testing.T, bin, plan, env string, idx []int) {
	t.Helper()
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for _, i := range idx {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if out, err := trialCmd(bin, plan, env, i).CombinedOutput(); err != nil {
				t.Errorf("%s=%d: %v\n%s", env, i, err, out)
			}
		}()
	}
	wg.Wait()
}

// snapshot is every file under dir with its content hash and time.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		sum := ""
		if !d.IsDir() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum = fmt.Sprintf("%x", sha256.Sum256(b))
		}
		files[p] = fmt.Sprintf("%v %d %s", fi.ModTime().UnixNano(), fi.Size(), sum)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestSweepProcesses runs a sweep of 8 trials in three ways: in-process
// with --local 2 (the reference), as separate processes with
// JOB_COMPLETION_INDEX as a Kubernetes Indexed Job starts them, and with
// SLURM_ARRAY_TASK_ID, killing one trial with SIGKILL during training and
// running its index again. All three collect the same summary and the same
// models.
func TestSweepProcesses(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	spec := sweepSpec(t, dir)
	all := []int{0, 1, 2, 3, 4, 5, 6, 7}
	runs := map[string]string{}
	for _, name := range []string{"local", "k8s", "slurm"} {
		runs[name] = filepath.Join(dir, name)
		mustRun(t, "sweep", "plan", spec, "--out", runs[name], "--quiet")
	}
	mustRun(t, "sweep", "run", "--plan", filepath.Join(runs["local"], "plan.json"), "--local", "2", "--quiet")
	want := summaryOf(t, runs["local"], 0)

	k8s := filepath.Join(runs["k8s"], "plan.json")
	runIndexed(t, bin, k8s, "JOB_COMPLETION_INDEX", all)
	if got := summaryOf(t, runs["k8s"], 0); got != want {
		t.Errorf("JOB_COMPLETION_INDEX runs: summary\n%s\nwant (--local 2)\n%s", got, want)
	}
	sameModels(t, runs["local"], runs["k8s"], len(all))

	// a rerun of a finished index is quick and writes nothing
	before := snapshot(t, runs["k8s"])
	start := time.Now()
	if out, err := trialCmd(bin, k8s, "JOB_COMPLETION_INDEX", 5).CombinedOutput(); err != nil {
		t.Fatalf("rerun: %v\n%s", err, out)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("the rerun of a finished trial took %v, want < 2 s", d)
	}
	if after := snapshot(t, runs["k8s"]); !reflect.DeepEqual(before, after) {
		t.Error("the rerun of a finished trial changed files")
	}

	// SIGKILL trial 5 (400 epochs) once its Adam epochs run
	slurm := filepath.Join(runs["slurm"], "plan.json")
	cmd := trialCmd(bin, slurm, "SLURM_ARRAY_TASK_ID", 5)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	killed := false
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		logs, _ := filepath.Glob(filepath.Join(runs["slurm"], ".trial-0005.work-*", sweep.LogFile))
		if len(logs) == 1 {
			if b, _ := os.ReadFile(logs[0]); bytes.Contains(b, []byte("adam")) {
				killed = cmd.Process.Signal(syscall.SIGKILL) == nil
				break
			}
		}
	}
	err := cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !killed || !ok || !ws.Signaled() {
		t.Fatalf("trial 5 was not killed during training (%v); it ended: %v", killed, err)
	}
	if _, err := os.Stat(filepath.Join(runs["slurm"], "trial-0005")); !os.IsNotExist(err) {
		t.Fatalf("the killed trial has its folder: %v", err)
	}
	runIndexed(t, bin, slurm, "SLURM_ARRAY_TASK_ID", []int{0, 1, 2, 3, 4, 6, 7})
	partial := summaryOf(t, runs["slurm"], 1)
	if !strings.Contains(partial, `"status": "missing"`) || !strings.Contains(partial, "adam") {
		t.Errorf("the killed trial is not listed missing with its last log line:\n%s", partial)
	}
	runIndexed(t, bin, slurm, "SLURM_ARRAY_TASK_ID", []int{5})
	if got := summaryOf(t, runs["slurm"], 0); got != want {
		t.Errorf("SLURM_ARRAY_TASK_ID runs with a SIGKILL: summary\n%s\nwant (--local 2)\n%s", got, want)
	}
	sameModels(t, runs["local"], runs["slurm"], len(all))
	if left, _ := filepath.Glob(filepath.Join(runs["slurm"], ".trial-*")); len(left) > 0 {
		t.Errorf("the killed run's leftovers stay: %v", left)
	}
}

func TestSweepPlanRefuses(t *testing.T) {
	dir := t.TempDir()
	genData(t, dir, 6, "1")
	for _, tc := range []struct{ name, spec, msg string }{
		{"unknown flag", "[[plant]]\nname = \"a\"\ndata = \"msd-1.csv\"\n[grid]\ntapz = [1, 2]\n", "grid.tapz: flag provided but not defined"},
		{"bad value", "[[plant]]\nname = \"a\"\ndata = \"msd-1.csv\"\n[fixed]\nepochs = \"many\"\n[grid]\nseed = [1]\n", "fixed.epochs: invalid value"},
		{"empty grid", "[[plant]]\nname = \"a\"\ndata = \"msd-1.csv\"\n[grid]\n", "grid: empty"},
		{"missing file", "[[plant]]\nname = \"a\"\ndata = \"none.csv\"\n[grid]\nseed = [1]\n", "plant[0].data: none.csv: no such file"},
		{"unknown table", "[[plant]]\nname = \"a\"\ndata = \"msd-1.csv\"\n[gird]\nseed = [1]\n", `unknown key "gird"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := filepath.Join(dir, "s.toml")
			os.WriteFile(spec, []byte(tc.spec), 0o644)
			out := filepath.Join(dir, "runs-"+strings.ReplaceAll(tc.name, " ", "-"))
			code, _, stderr := cli(t, "sweep", "plan", spec, "--out", out)
			if code != exitUsage || !strings.Contains(stderr, tc.msg) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, tc.msg)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("%s was written", out)
			}
		})
	}
	// a folder holding another plan is refused; the same plan again is not
	spec := filepath.Join(dir, "ok.toml")
	os.WriteFile(spec, []byte("[[plant]]\nname = \"a\"\ndata = \"msd-1.csv\"\n[grid]\nseed = [1, 2]\n"), 0o644)
	out := filepath.Join(dir, "runs")
	mustRun(t, "sweep", "plan", spec, "--out", out, "--quiet")
	mustRun(t, "sweep", "plan", dir+"/./ok.toml", "--out", out, "--quiet") // the same spec, spelled otherwise
	os.WriteFile(spec, []byte("[[plant]]\nname = \"a\"\ndata = \"msd-1.csv\"\n[grid]\nseed = [1, 3]\n"), 0o644)
	if code, _, stderr := cli(t, "sweep", "plan", spec, "--out", out); code != exitUsage || !strings.Contains(stderr, "holds another plan") {
		t.Errorf("another plan in the folder: exit %d, %s", code, stderr)
	}
}

// TestSweepFailedTrial: a trial whose settings train refuses is marked
// failed (exit 2 by index), not retried, and listed by collect. A value no
// flag takes is refused by plan already.
func TestSweepFailedTrial(t *testing.T) {
	dir := t.TempDir()
	genData(t, dir, 6, "1")
	spec := filepath.Join(dir, "s.yaml")
	os.WriteFile(spec, []byte("plant:\n  - name: msd\n    data: msd-1.csv\nfixed:\n  branches: 0\n  linear-taps: 8\ngrid:\n  passivity: [exact, bogus]\n"), 0o644)
	out := filepath.Join(dir, "runs")
	if code, _, stderr := cli(t, "sweep", "plan", spec, "--out", out, "--quiet"); code != exitUsage || !strings.Contains(stderr, `grid.passivity: invalid value "bogus" for flag -passivity: want exact, sampled, kyp or none`) {
		t.Errorf("a passivity no flag takes: exit %d, %s; want 2 from plan naming grid.passivity", code, stderr)
	}
	// H 0 parses, and train refuses it with --passivity sampled only.
	os.WriteFile(spec, []byte("plant:\n  - name: msd\n    data: msd-1.csv\nfixed:\n  branches: 0\n  linear-taps: 8\n  H: 0\ngrid:\n  passivity: [exact, sampled]\n"), 0o644)
	mustRun(t, "sweep", "plan", spec, "--out", out, "--quiet")
	plan := filepath.Join(out, "plan.json")
	if code, _, stderr := cli(t, "sweep", "run", "--plan", plan, "--index", "1"); code != exitUsage || !strings.Contains(stderr, "passivity") {
		t.Errorf("bad trial by index: exit %d, %s; want 2 naming --passivity", code, stderr)
	}
	t.Setenv("JOB_COMPLETION_INDEX", "0")
	mustRun(t, "sweep", "run", "--plan", plan, "--quiet")
	code, stdout, _ := cli(t, "sweep", "collect", out)
	if code != exitFailure || !strings.Contains(stdout, "| 1 | msd | failed |") || !strings.Contains(stdout, "--passivity") {
		t.Errorf("collect: exit %d\n%s", code, stdout)
	}
	os.Unsetenv("JOB_COMPLETION_INDEX")
	before := snapshot(t, out)
	if code, _, stderr := cli(t, "sweep", "run", "--plan", plan, "--local", "2"); code != exitFailure || !strings.Contains(stderr, "0 pending trials") {
		t.Errorf("rerun: exit %d, %s; want 1 with nothing pending", code, stderr)
	}
	if !reflect.DeepEqual(before, snapshot(t, out)) {
		t.Error("the rerun retried the failed trial")
	}
	for _, args := range [][]string{{"--index", "2"}, {"--local", "0"}, {"--shard", "2/2"}, {"--index", "0", "--shard", "0/2"}} {
		if code, _, _ := cli(t, append([]string{"sweep", "run", "--plan", plan}, args...)...); code != exitUsage {
			t.Errorf("sweep run %v: exit %d, want 2", args, code)
		}
	}
	t.Setenv("SLURM_ARRAY_TASK_ID", "x")
	if code, _, stderr := cli(t, "sweep", "run", "--plan", plan); code != exitUsage || !strings.Contains(stderr, "SLURM_ARRAY_TASK_ID") {
		t.Errorf("a bad SLURM_ARRAY_TASK_ID: exit %d, %s", code, stderr)
	}
}

func TestSweepEmit(t *testing.T) {
	dir := t.TempDir()
	genData(t, dir, 6, "1")
	spec := filepath.Join(dir, "s.toml")
	os.WriteFile(spec, []byte("[[plant]]\nname = \"a\"\ndata = \"msd-1.csv\"\n[fixed]\ndevice = \"cpu\"\nworkers = 2\n[grid]\nseed = [1, 2, 3]\n"), 0o644)
	out := filepath.Join(dir, "runs")
	code, stdout, stderr := cli(t, "sweep", "plan", spec, "--out", out, "--emit", "slurm", "--parallel", "2", "--binary", "/usr/local/bin/gputrain")
	abs, _ := filepath.Abs(out)
	for _, want := range []string{"#SBATCH --array=0-2%2\n", "#SBATCH --cpus-per-task=2\n", "exec /usr/local/bin/gputrain sweep run --plan " + filepath.Join(abs, "plan.json")} {
		if code != 0 || !strings.Contains(stdout, want) {
			t.Errorf("--emit slurm: exit %d, stdout lacks %q:\n%s%s", code, want, stdout, stderr)
		}
	}
	if strings.Contains(stdout, "gres") || !strings.Contains(stderr, "sbatch sweep.sbatch") {
		t.Errorf("--emit slurm: a CPU plan asks for a GPU, or stderr lacks the submit command:\n%s\n%s", stdout, stderr)
	}
	code, stdout, stderr = cli(t, "sweep", "plan", spec, "--out", out, "--emit", "k8s", "--gpus", "1")
	if code != 0 || !strings.Contains(stdout, "completions: 3\n") || !strings.Contains(stdout, "nvidia.com/gpu: 1") || !strings.Contains(stdout, `image: "gputrain-cuda"`) || !strings.Contains(stderr, "kubectl create -f sweep-job.yaml") {
		t.Errorf("--emit k8s: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if code, _, _ := cli(t, "sweep", "plan", spec, "--out", out, "--emit", "pbs"); code != exitUsage {
		t.Errorf("--emit pbs: exit %d, want 2", code)
	}
}

// BenchmarkSweepLocal times a 16-trial sweep (the grid of the README's
// example: taps 20, 40 × branches 2, 4 × 4 seeds, 1 iteration) on trials of
// two sizes, run serially (--local 1) and two at a time (--local 2) through the same
// in-process trial runner, and reports the ratio of the two times (target
// on a 2-core machine: ≤ 0.55).
//
//	go test ./cmd/gputrain -run '^$' -bench SweepLocal -benchtime 1x
func BenchmarkSweepLocal(b *testing.B) {
	// 10 training records and 20 epochs make trials of about 0.05 s, where
	// the fixed costs (reading the data, its one check) weigh; 100 records
	// and train's default 200 epochs make trials of about a second, closer
	// to the training runs a sweep is for.
	for _, c := range []struct{ records, epochs int }{{10, 20}, {100, 200}} {
		b.Run(fmt.Sprintf("records=%d/epochs=%d", c.records, c.epochs), func(b *testing.B) { benchSweepLocal(b, c.records, c.epochs) })
	}
}

func benchSweepLocal(b *testing.B, records, epochs int) {
	dir := b.TempDir()
	if code, _, stderr := runCLI("gen", "msd", "--batches", strconv.Itoa(records), "--seed", "1", "--out", filepath.Join(dir, "train.csv")); code != 0 {
		b.Fatal(stderr)
	}
	if code, _, stderr := runCLI("gen", "msd", "--batches", "3", "--seed", "2", "--out", filepath.Join(dir, "val.csv")); code != 0 {
		b.Fatal(stderr)
	}
	spec := filepath.Join(dir, "sweep.toml")
	os.WriteFile(spec, []byte(fmt.Sprintf("[[plant]]\nname = \"msd\"\ndata = \"train.csv\"\nval = \"val.csv\"\n[fixed]\niters = 1\nepochs = %d\n[grid]\ntaps = [20, 40]\nbranches = [2, 4]\nseed = [1, 2, 3, 4]\n", epochs)), 0o644)
	var serial, parallel time.Duration
	var serialCPU, parallelCPU float64
	for i := range b.N {
		for _, p := range []string{"1", "2"} {
			out := filepath.Join(dir, fmt.Sprintf("runs-%d-%s", i, p))
			if code, _, stderr := runCLI("sweep", "plan", spec, "--out", out, "--quiet"); code != 0 {
				b.Fatal(stderr)
			}
			forgetDataChecks() // each mode checks the data once, as a sweep run process of its own does
			start, cpu0 := time.Now(), cpuSeconds()
			if code, _, stderr := runCLI("sweep", "run", "--plan", filepath.Join(out, "plan.json"), "--local", p, "--quiet"); code != 0 {
				b.Fatal(stderr)
			}
			if p == "1" {
				serial += time.Since(start)
				serialCPU += cpuSeconds() - cpu0
			} else {
				parallel += time.Since(start)
				parallelCPU += cpuSeconds() - cpu0
			}
		}
	}
	b.ReportMetric(serial.Seconds()/float64(b.N), "serial-s")
	b.ReportMetric(parallel.Seconds()/float64(b.N), "local2-s")
	b.ReportMetric(parallel.Seconds()/serial.Seconds(), "ratio")
	// CPU time says whether the trials, not the machine, limit the ratio:
	// on a machine shared with other work the wall-clock ratio is noise.
	b.ReportMetric(serialCPU/float64(b.N), "serial-cpu-s")
	b.ReportMetric(parallelCPU/float64(b.N), "local2-cpu-s")
}

// cpuSeconds is the user and system time of this process so far.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// runCLI runs the program in-process, for benchmarks.
func runCLI(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = run(args, &o, &e)
	return code, o.String(), e.String()
}

// TestSweepShard: --shard i/k runs trials i, i+k, …; the k shards together
// run them all.
func TestSweepShard(t *testing.T) {
	dir := t.TempDir()
	genData(t, dir, 6, "1")
	spec := filepath.Join(dir, "s.toml")
	os.WriteFile(spec, []byte("[[plant]]\nname = \"a\"\ndata = \"msd-1.csv\"\n[fixed]\nbranches = 0\n[grid]\nlinear-taps = [4, 6, 8, 10, 12]\n"), 0o644)
	out := filepath.Join(dir, "runs")
	mustRun(t, "sweep", "plan", spec, "--out", out, "--quiet")
	plan := filepath.Join(out, "plan.json")
	mustRun(t, "sweep", "run", "--plan", plan, "--shard", "1/2", "--quiet")
	for i := range 5 {
		_, err := os.Stat(filepath.Join(out, fmt.Sprintf("trial-%04d", i), sweep.DoneFile))
		if (err == nil) != (i%2 == 1) {
			t.Errorf("after shard 1/2, trial %d done: %v", i, err == nil)
		}
	}
	mustRun(t, "sweep", "run", "--plan", plan, "--shard", "0/2", "--quiet")
	summaryOf(t, out, 0)
}
