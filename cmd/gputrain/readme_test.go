package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/passivenfir/gputrain/data"
)

// readmeBlock returns the shell lines of the README's code block after
// marker, with continuations joined and comments dropped.
func readmeBlock(t *testing.T, marker string) []string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, marker)
	if i < 0 {
		t.Fatalf("README.md has no %s", marker)
	}
	s = s[i:]
	start := strings.Index(s, "```sh\n")
	end := strings.Index(s[start+6:], "```")
	if start < 0 || end < 0 {
		t.Fatalf("no ```sh block after %s", marker)
	}
	body := strings.ReplaceAll(s[start+6:start+6+end], "\\\n", " ")
	var lines []string
	for _, l := range strings.Split(body, "\n") {
		if j := strings.Index(l, "#"); j >= 0 {
			l = l[:j]
		}
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

// readmeRobotRow returns the figures of the README table row that starts
// with name.
func readmeRobotRow(t *testing.T, name string) []string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "| "+name+" |") {
			var figs []string
			for _, f := range strings.Split(l, "|")[2:] {
				if f = strings.TrimSpace(f); f != "" {
					figs = append(figs, f)
				}
			}
			return figs
		}
	}
	t.Fatalf("README.md has no table row %q", name)
	return nil
}

var forLoop = regexp.MustCompile(`^for (\w+) in ([^;]+); do (.+); done$`)

// TestReadmeRobotWalkthrough runs the README's robot-arm walk-through as
// written. Every gputrain command is first checked to parse: it runs with
// its output (or model) in a missing folder and must be refused for that
// path alone, with exit 2, after every flag was accepted. With the robot
// data present (../shared/data/robot, or GPUTRAIN_ROBOT_DIR) the data step,
// the FIR training and the FIR's evaluations run for real and must give
// the figures of the README's table; the NFIR's search takes minutes and is
// only checked to parse.
func TestReadmeRobotWalkthrough(t *testing.T) {
	lines := readmeBlock(t, "<!-- robot-walkthrough -->")
	var cmds [][]string // gputrain commands, loops expanded
	var shell []string  // the other lines, in order
	for _, l := range lines {
		if strings.ContainsAny(l, `"'`) {
			t.Fatalf("README line %q quotes: the test splits on spaces", l)
		}
		expand := []map[string]string{{}}
		if m := forLoop.FindStringSubmatch(l); m != nil {
			expand = nil
			for _, v := range strings.Fields(m[2]) {
				expand = append(expand, map[string]string{m[1]: v})
			}
			l = m[3]
		}
		if !strings.HasPrefix(l, "gputrain ") {
			shell = append(shell, l)
			continue
		}
		for _, vars := range expand {
			cmds = append(cmds, strings.Fields(os.Expand(strings.TrimPrefix(l, "gputrain "), func(k string) string {
				if v, ok := vars[k]; ok {
					return v
				}
				return "$" + k
			})))
		}
	}
	if len(cmds) < 10 {
		t.Fatalf("%d gputrain commands in the walk-through; want 2 trainings and 8 evaluations", len(cmds))
	}

	tmp := t.TempDir()
	missing := filepath.Join(tmp, "nosuch")
	for _, args := range cmds {
		parse := append([]string{}, args...)
		replaced := ""
		for i := 0; i+1 < len(parse); i++ {
			if parse[i] == "--out" || (parse[0] == "eval" && parse[i] == "--model") {
				parse[i+1] = filepath.Join(missing, parse[i+1])
				replaced = parse[i+1]
			}
		}
		if replaced == "" {
			t.Fatalf("gputrain %s: no --out or --model to point at a missing folder", strings.Join(args, " "))
		}
		code, _, stderr := cli(t, parse...)
		if code != 2 || !strings.Contains(stderr, replaced) || strings.Contains(stderr, "not defined") {
			t.Errorf("gputrain %s: exit %d, %q; want exit 2 for the missing %s alone", strings.Join(args, " "), code, strings.TrimSpace(stderr), replaced)
		}
	}

	dir := os.Getenv("GPUTRAIN_ROBOT_DIR")
	if dir == "" {
		dir = data.RobotDir()
	}
	if dir == "" {
		t.Skip("the robot data is absent (../shared/data/robot; GPUTRAIN_ROBOT_DIR): flags checked only")
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh to run the data step")
	}
	for _, l := range shell {
		if strings.HasPrefix(l, "D=") {
			continue // the data folder: this test's
		}
		cmd := exec.Command("sh", "-c", l)
		cmd.Dir, cmd.Env = tmp, append(os.Environ(), "D="+dir)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", l, err, out)
		}
	}
	want := readmeRobotRow(t, "FIR (`fir500.json`)")
	t.Chdir(tmp)
	n := 0
	for _, args := range cmds {
		switch {
		case args[0] == "train" && slices.Contains(args, "--linear-taps"):
			mustRun(t, append(args, "--quiet")...)
		case args[0] == "eval" && slices.Contains(args, "fir500.json"):
			out := mustRun(t, append(args, "--json")...)
			r := decode(t, out)
			med := r["fit"].(map[string]any)["closed_loop"].(map[string]any)["median"].(float64)
			if n >= len(want) {
				t.Fatalf("more FIR evaluations than README figures %v", want)
			}
			if got := strconv.FormatFloat(med, 'f', 2, 64); got != want[n] {
				t.Errorf("gputrain %s: closed-loop Fit %s; the README says %s", strings.Join(args, " "), got, want[n])
			}
			n++
		}
	}
	if n != 4 {
		t.Errorf("%d FIR evaluations; want 4 (e, v1, v2, v3)", n)
	}
}
