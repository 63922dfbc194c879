package kernels

import (
	"math/rand/v2"
	"os"
	"syscall"
	"testing"
	"time"
)

func cpuTime() time.Duration {
	var r syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &r)
	return time.Duration(r.Utime.Nano() + r.Stime.Nano())
}

func measure(t *testing.T, name string, reps int, f func()) {
	f()
	c0, w0 := cpuTime(), time.Now()
	for range reps {
		f()
	}
	t.Logf("%-28s cpu %8.2f ms/op  wall %8.2f ms/op", name, float64(cpuTime()-c0)/1e6/float64(reps), float64(time.Since(w0))/1e6/float64(reps))
}

// TestCPUTime reports process CPU time per call of the main kernels with one
// worker (KERNELS_CPUTIME=1 go test -run CPUTime -v ./kernels). On a shared
// machine wall-clock benchmarks depend on the other load; CPU time much less
// so, and CPU time / 2 bounds what two idle cores can reach.
func TestCPUTime(t *testing.T) {
	if os.Getenv("KERNELS_CPUTIME") == "" {
		t.Skip("set KERNELS_CPUTIME=1")
	}
	rng := rand.New(rand.NewPCG(1, 1))
	e := newOpenLoop(Uniform(msdB, msdT), rng)
	c := &CPU{Workers: 1}
	measure(t, "epoch W1", 10, func() { e.step(c) })
	s, u, n, g, z, y, dy, dn, dg := convInputs(rng)
	measure(t, "convfwd W1", 10, func() { c.ConvForward(s, msdN, msdG, u, n, g, z, y) })
	measure(t, "convbwd W1", 10, func() { c.ConvBackward(s, msdN, msdG, u, n, g, z, dy, dn, nil) })
	measure(t, "convbwd+dg W1", 10, func() { c.ConvBackward(s, msdN, msdG, u, n, g, z, dy, dn, dg) })
	N := s.Total()
	x := randVec(rng, N*4, 1)
	w := randVec(rng, 40, 1)
	h := make([]float64, N*10)
	measure(t, "dense 4→10 fwd", 10, func() { c.DenseTanhForward(N, 4, 10, x, w, w[:10], h) })
	dx, dw := make([]float64, N*4), make([]float64, 40)
	measure(t, "dense 4→10 bwd", 10, func() { c.DenseTanhBackward(N, 4, 10, x, w, h, h, dx, dw, dw[:10]) })
	nt := msdN * msdG
	P, bv := make([]float64, nt*nt), make([]float64, nt)
	measure(t, "gram msd W1", 1, func() { c.Gram(s, msdN, msdG, 0, u, n, y, P, bv) })
	rs := Uniform(1, 1984)
	P2, b2 := make([]float64, 2000*2000), make([]float64, 2000)
	measure(t, "gram robot W1", 1, func() { c.Gram(rs, 3, 600, 200, u, n, y, P2, b2) })
	cl := &ClosedLoop{MN: msdN, MG: msdG, R1: 1, R2: 1, Feedback: true, Sizes: msdSizes, UA: 1, QA: 1}
	theta := randVec(rng, cl.NumParams(), 0.8)
	dth := make([]float64, len(theta))
	var tape Tape
	measure(t, "closed fwd W1", 5, func() { c.ClosedLoopForward(cl, s, theta, g, nil, u, y, &tape) })
	measure(t, "closed bwd W1", 5, func() { c.ClosedLoopBackward(cl, s, theta, g, nil, u, &tape, dy, dth, dg, nil) })
}
