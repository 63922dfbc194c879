//go:build unix

package export

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/passivenfir/gputrain/loop"
)

// benchShapes names loop.Shapes in their order, for the benchmarks' names.
var benchShapes = []string{"sized", "wide", "sized-states", "wide-states", "sized-rec", "wide-rec"}

// shapeName is benchShapes[i], failing b when loop.Shapes has grown beyond
// the names (rather than panicking or misnaming a shape).
func shapeName(b *testing.B, i int) string {
	if n := len(loop.Shapes(50)); n != len(benchShapes) {
		b.Fatalf("loop.Shapes has %d shapes, benchShapes names %d", n, len(benchShapes))
	}
	return benchShapes[i]
}

// BenchmarkLoopCStep times the generated C step of a loop of each of train's
// shapes at a memory of 50 samples (cc -O2, one core, CPU time measured
// inside the C program, as BenchmarkCStep); compare with
// BenchmarkLoopGoStep, the loop.Stepper of the same model.
func BenchmarkLoopCStep(b *testing.B) {
	for i, s := range loop.Shapes(50) {
		b.Run(shapeName(b, i), func(b *testing.B) {
			dir := b.TempDir()
			src, err := Load(writeLoop(b, dir, "loop", randomLoop(b, s, 1)), false)
			if err != nil {
				b.Fatal(err)
			}
			files, err := C(src, "loopm")
			if err != nil {
				b.Fatal(err)
			}
			for _, f := range files {
				if err := os.WriteFile(filepath.Join(dir, f.Name), f.Data, 0o644); err != nil {
					b.Fatal(err)
				}
			}
			if err := os.WriteFile(filepath.Join(dir, "bench.c"), []byte(strings.ReplaceAll(cBenchDriver, "paper", "loopm")), 0o644); err != nil {
				b.Fatal(err)
			}
			compile(b, dir, "-o", "bench", "bench.c", "loopm.c", "-lm")
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
		})
	}
}

func BenchmarkLoopGoStep(b *testing.B) {
	for i, s := range loop.Shapes(50) {
		b.Run(shapeName(b, i), func(b *testing.B) {
			st, err := loop.NewStepper(randomLoop(b, s, 1))
			if err != nil {
				b.Fatal(err)
			}
			u := records(1, 1, 1024)[0]
			sum := 0.0
			b.ResetTimer()
			cpu0 := cpuTime()
			for k := 0; k < b.N; k++ {
				sum += st.Step(u[k&1023])
			}
			b.StopTimer()
			ns := float64(cpuTime()-cpu0) / float64(b.N)
			b.ReportMetric(ns, "cpu-ns/op")
			b.ReportMetric(1e3/ns, "Msteps/s")
			if sum != sum {
				b.Fatal("NaN output")
			}
		})
	}
}
