//go:build unix

package main

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/passivenfir/gputrain/trainer"
)

// TestSecondInterrupt: the first Ctrl-C asks the work to stop and says so;
// a second one, while the work has not yet stopped, ends the process at once
// (the signal's default action, restored after the first). The test runs
// this test binary as the program (TestHelperSecondInterrupt) with a
// training whose progress callback never returns, as work that cannot look
// at its context would.
func TestSecondInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child process; skipped with -short")
	}
	dir := t.TempDir()
	train := genData(t, dir, 4, "1")
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperSecondInterrupt$")
	cmd.Env = append(os.Environ(), "GPUTRAIN_SECOND_INTERRUPT="+train)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	// wait for the line for each step: "stuck" (training under way), then
	// the first Ctrl-C's message
	var got []string
	expect := func(s string) {
		deadline := time.After(time.Minute)
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("the child ended before printing %q:\n%s", s, strings.Join(got, "\n"))
				}
				got = append(got, l)
				if strings.Contains(l, s) {
					return
				}
			case <-deadline:
				t.Fatalf("no %q within a minute:\n%s", s, strings.Join(got, "\n"))
			}
		}
	}
	expect("stuck")
	cmd.Process.Signal(os.Interrupt)
	expect("Ctrl-C again to abort")
	sent := time.Now()
	cmd.Process.Signal(os.Interrupt)
	done := make(chan error, 1)
	go func() {
		for range lines {
		}
		done <- cmd.Wait()
	}()
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the second Ctrl-C did not end the process within 10 s")
	}
	if d := time.Since(sent); d > 2*time.Second {
		t.Errorf("the second Ctrl-C took %v to end the process", d)
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("child: %v, want death by SIGINT", err)
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGINT {
		t.Errorf("child ended with %v, want killed by SIGINT", ee)
	}
}

// TestHelperSecondInterrupt is the program of TestSecondInterrupt.
func TestHelperSecondInterrupt(t *testing.T) {
	train := os.Getenv("GPUTRAIN_SECOND_INTERRUPT")
	if train == "" {
		t.Skip("run by TestSecondInterrupt")
	}
	testHookEvent = func(ev trainer.Event) {
		if ev.Stage == "adam" {
			os.Stderr.WriteString("stuck\n")
			time.Sleep(time.Hour) // work that ignores Ctrl-C
		}
	}
	run([]string{"train", "--data", train, "--out", filepath.Join(filepath.Dir(train), "m.json"), "--branches", "2", "--taps", "10", "--iters", "2", "--epochs", "5", "--quiet"}, os.Stdout, os.Stderr)
	t.Fatal("returned")
}
