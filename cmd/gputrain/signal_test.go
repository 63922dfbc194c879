//go:build unix

package main

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/passivenfir/gputrain/model"
)

// TestSIGINTBinary builds the real binary, starts a long training run,
// sends it os.Interrupt (Ctrl-C) once training is under way, and checks that
// it exits 1 leaving a valid model (the best so far) or none, and no
// temporary file.
func TestSIGINTBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary; skipped with -short")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool on PATH")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "gputrain")
	if out, err := exec.Command(goTool, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	train := genData(t, dir, 6, "1")
	modelPath := filepath.Join(dir, "model.json")
	cmd := exec.Command(bin, "train", "--data", train, "--out", modelPath, "--branches", "2", "--taps", "10",
		"--iters", "1000", "--epochs", "50", "--patience", "0")
	progress, err := cmd.StderrPipe() // progress goes to stderr
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		// Interrupt once the second iteration's Adam epochs run (a best
		// model exists by then), then drain the output.
		sc := bufio.NewScanner(progress)
		sent := false
		for sc.Scan() {
			stderr.WriteString(sc.Text() + "\n")
			if !sent && strings.Contains(sc.Text(), "adam") && strings.Contains(sc.Text(), "iter 2/") {
				sent = true
				cmd.Process.Signal(os.Interrupt)
			}
		}
		done <- cmd.Wait()
	}()
	select {
	case err = <-done:
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		t.Fatal("training did not stop within 2 minutes of Ctrl-C")
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitFailure {
		t.Fatalf("interrupted run: %v, want exit 1; stderr: %s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "interrupted") {
		t.Errorf("stderr %q does not say interrupted", stderr.String())
	}
	if _, err := os.Stat(modelPath); err == nil {
		if _, _, err := model.Load(modelPath); err != nil {
			t.Errorf("the saved model is not valid: %v", err)
		}
	} else if !strings.Contains(stderr.String(), "nothing written") {
		t.Errorf("no model and no message saying so: %s", stderr.String())
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*tmp*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
	t.Logf("stderr: %s", strings.TrimSpace(stderr.String()))
}
