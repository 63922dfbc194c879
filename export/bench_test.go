//go:build unix

package export

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/passivenfir/gputrain/model"
)

// paperStructure is the structure of the paper's experiments: 10 branches
// of 50 taps, an MLP 4,4, feedback.
var paperStructure = model.Structure{Branches: 10, Taps: 50, R1: 1, R2: 1, Hidden: []int{4, 4}, Feedback: true}

// cBenchDriver steps the model N times on a pseudo-random input and prints
// the nanoseconds of CPU time per step (and the output sum, so that nothing
// is optimized away). CPU time, not wall time: on a shared machine the
// wall time counts the time other processes held the core.
const cBenchDriver = `#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "paper.h"

int main(int argc, char **argv)
{
	long i, n = argc > 1 ? atol(argv[1]) : 1000000;
	unsigned long x = 12345;
	double s = 0.0, u[1024];
	struct timespec a, b;
	paper_state st;
	for (i = 0; i < 1024; i++) {
		x = x * 6364136223846793005UL + 1442695040888963407UL;
		u[i] = (double)(x >> 11) / 9007199254740992.0 * 2.0 - 1.0;
	}
	paper_init(&st);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
	for (i = 0; i < n; i++)
		s += paper_step(&st, u[i & 1023]);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
	printf("%.3f %g\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / (double)n, s);
	return 0;
}
`

// BenchmarkCStep times the generated C step of the paper's structure
// (cc -O2, one core), measured inside the C program; compare with
// BenchmarkGoStep, the model.Stepper of the same model.
func BenchmarkCStep(b *testing.B) {
	dir := b.TempDir()
	path := writeModel(b, dir, "paper", paperStructure, "exact", 1)
	src, err := Load(path, false)
	if err != nil {
		b.Fatal(err)
	}
	files, err := C(src, "paper")
	if err != nil {
		b.Fatal(err)
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(dir, f.Name), f.Data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "bench.c"), []byte(cBenchDriver), 0o644); err != nil {
		b.Fatal(err)
	}
	compile(b, dir, "-o", "bench", "bench.c", "paper.c", "-lm")
	b.ResetTimer()
	out, err := exec.Command(filepath.Join(dir, "bench"), fmt.Sprint(max(b.N, 1000))).Output()
	if err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	ns, err := strconv.ParseFloat(strings.Fields(string(out))[0], 64)
	if err != nil {
		b.Fatalf("bench output %q: %v", out, err)
	}
	b.ReportMetric(ns, "cpu-ns/op")
	b.ReportMetric(1e3/ns, "Msteps/s")
}

func BenchmarkGoStep(b *testing.B) {
	m, err := model.RandomPassive(paperStructure, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		b.Fatal(err)
	}
	st, err := model.NewStepper(m)
	if err != nil {
		b.Fatal(err)
	}
	u := records(1, 1, 1024)[0]
	s := 0.0
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		s += st.Step(u[i&1023])
	}
	b.StopTimer()
	ns := float64(cpuTime()-cpu0) / float64(b.N)
	b.ReportMetric(ns, "cpu-ns/op")
	b.ReportMetric(1e3/ns, "Msteps/s")
	if s != s {
		b.Fatal("NaN output")
	}
}

// cpuTime returns the CPU time the process has used, in nanoseconds: the
// Go benchmark is measured like the C one (the step does not allocate, so
// the process's time is the loop's).
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
