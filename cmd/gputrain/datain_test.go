package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// withStdin makes the data flags' "-" read text for the duration of the test.
func withStdin(t *testing.T, r io.Reader) {
	old := stdin
	stdin = r
	t.Cleanup(func() { stdin = old })
}

// TestDataFromStdin: --data - reads standard input in train, eval and simulate, and a
// bad standard input is bad input naming "stdin" and its line, with nothing written.
func TestDataFromStdin(t *testing.T) {
	dir := t.TempDir()
	dataPath, modelPath := tinyModel(t, dir, 3)
	text, err := os.ReadFile(dataPath)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "from-stdin.json")
	withStdin(t, bytes.NewReader(text))
	mustRun(t, append([]string{"train", "--data", "-", "--out", out}, tiny...)...)
	if _, err := os.Stat(out); err != nil {
		t.Fatalf("train --data -: %v", err)
	}
	withStdin(t, bytes.NewReader(text))
	viaStdin := mustRun(t, "eval", "--model", modelPath, "--data", "-", "--json")
	viaFile := mustRun(t, "eval", "--model", modelPath, "--data", dataPath, "--json")
	if a, b := fmt.Sprint(decode(t, viaStdin)["fit"]), fmt.Sprint(decode(t, viaFile)["fit"]); a != b || !strings.Contains(a, "closed_loop") {
		t.Errorf("eval from stdin: fit %v, from the file %v", a, b)
	}
	withStdin(t, bytes.NewReader(text))
	sim := mustRun(t, "simulate", "--model", modelPath, "--data", "-", "--out", "-")
	if !strings.HasPrefix(sim, "batch,u,y_sim\n") || strings.Count(sim, "\n") != bytes.Count(text, []byte("\n")) {
		t.Errorf("simulate from stdin wrote %d lines for %d", strings.Count(sim, "\n"), bytes.Count(text, []byte("\n")))
	}

	bad := filepath.Join(dir, "bad.json")
	withStdin(t, strings.NewReader("u,y\n1,2\n3,abc\n"))
	code, _, stderr := cli(t, append([]string{"train", "--data", "-", "--out", bad}, tiny...)...)
	if code != exitUsage || !strings.Contains(stderr, "--data: stdin line 3") {
		t.Errorf("bad stdin: exit %d, %s", code, stderr)
	}
	if _, err := os.Stat(bad); err == nil {
		t.Error("a model was written from bad input")
	}
	for _, cmd := range []string{"train", "eval", "simulate"} {
		code, help, _ := cli(t, cmd, "--help")
		if code != 0 || !strings.Contains(help, "- reads standard input") {
			t.Errorf("%s --help does not document --data -", cmd)
		}
	}
}

// TestDataFileDialects: semicolon and tab files and quoted fields read as the comma
// file does, --delim forces a delimiter, and a name repeated in an unread column is
// tolerated with --ignore-extra.
func TestDataFileDialects(t *testing.T) {
	dir := t.TempDir()
	dataPath, modelPath := tinyModel(t, dir, 2)
	text, _ := os.ReadFile(dataPath)
	lines := strings.Split(strings.TrimSpace(string(text)), "\n")
	write := func(name string, f func(line string, i int) string) string {
		var b strings.Builder
		for i, l := range lines {
			b.WriteString(f(l, i) + "\n")
		}
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(b.String()), 0o644)
		return p
	}
	semi := write("semi.csv", func(l string, _ int) string { return strings.ReplaceAll(l, ",", ";") })
	tab := write("tab.csv", func(l string, _ int) string { return "\ufeff" + strings.ReplaceAll(l, ",", "\t") })
	quoted := write("quoted.csv", func(l string, _ int) string { return `"` + strings.ReplaceAll(l, ",", `","`) + `"` })
	dup := write("dup.csv", func(l string, i int) string {
		if i == 0 {
			return l + ",note,note"
		}
		return l + `,"a, b",x`
	})
	want := fmt.Sprint(decode(t, mustRun(t, "eval", "--model", modelPath, "--data", dataPath, "--json"))["fit"])
	for _, c := range []struct {
		name string
		args []string
	}{
		{"semicolon", []string{"--data", semi}},
		{"semicolon forced", []string{"--data", semi, "--delim", "semicolon"}},
		{"tab", []string{"--data", tab}},
		{"quoted", []string{"--data", quoted}},
		{"duplicate unused name", []string{"--data", dup, "--ignore-extra"}},
	} {
		got := fmt.Sprint(decode(t, mustRun(t, append([]string{"eval", "--model", modelPath, "--json"}, c.args...)...))["fit"])
		if got != want {
			t.Errorf("%s: fit %v, want %v", c.name, got, want)
		}
	}
	for _, c := range []struct {
		args    []string
		mention string
	}{
		{[]string{"--data", semi, "--delim", "comma"}, `missing column "u"; the header has "batch;u;y" (read with the delimiter ','; if the fields are separated by ';', give --delim semicolon)`},
		{[]string{"--data", semi, "--delim", "tab"}, `give --delim semicolon`},
		{[]string{"--data", semi, "--delim", "pipe"}, `invalid value "pipe" for flag -delim: want auto, comma`},
		{[]string{"--data", dup}, `unknown column "note"`},
	} {
		code, _, stderr := cli(t, append([]string{"eval", "--model", modelPath}, c.args...)...)
		if code != exitUsage || !strings.Contains(stderr, c.mention) {
			t.Errorf("%v: exit %d, %s; want 2 mentioning %s", c.args, code, stderr, c.mention)
		}
	}
}

// TestDidYouMean: a mistyped flag or column name gets the nearest correct one.
func TestDidYouMean(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "v.csv")
	os.WriteFile(p, []byte("u,v1\n1,2\n3,4\n"), 0o644)
	out := filepath.Join(dir, "never.json")
	for _, c := range []struct {
		args    []string
		mention string // "" for no suggestion
	}{
		{[]string{"train", "--tapps", "3"}, "flag provided but not defined: -tapps (did you mean --taps?); run 'gputrain train --help'"},
		{[]string{"train", "-brnaches", "3"}, "did you mean --branches?"},
		{[]string{"eval", "--dta", p}, "did you mean --data?"},
		{[]string{"simulate", "--modle", p}, "did you mean --model?"},
		{[]string{"train", "--data", p, "--y", "vel", "--out", out}, `missing column "vel" (did you mean "v1"?)`},
		{[]string{"train", "--zzzzzz"}, ""},
	} {
		code, _, stderr := cli(t, c.args...)
		if code != exitUsage {
			t.Errorf("%v: exit %d, want 2", c.args, code)
		}
		if c.mention == "" && strings.Contains(stderr, "did you mean") || !strings.Contains(stderr, c.mention) {
			t.Errorf("%v: %s\nwant it to mention %q", c.args, stderr, c.mention)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a model was written")
	}
}

// loadCanceller cancels once n bytes have been read through it.
type loadCanceller struct {
	r      io.Reader
	n      int
	cancel context.CancelFunc
}

func (l *loadCanceller) Read(p []byte) (int, error) {
	k, err := l.r.Read(p)
	if l.n -= k; l.n <= 0 {
		l.cancel()
	}
	return k, err
}

// TestLoadInterrupt: Ctrl-C while a long data file loads stops the loading at once;
// the command exits 1 saying that it was interrupted and nothing was written.
func TestLoadInterrupt(t *testing.T) {
	dir := t.TempDir()
	var big bytes.Buffer
	big.WriteString("batch,u,y\n")
	for i := range 400_000 {
		big.WriteString(itoa(i/1000) + ",0.123456789,-0.987654321\n")
	}
	bigPath := filepath.Join(dir, "big.csv")
	os.WriteFile(bigPath, big.Bytes(), 0o644)
	_, modelPath := tinyModel(t, dir, 2)
	for _, c := range []struct {
		name string
		args []string
		cut  bool // cancel while reading standard input, not before
	}{
		{"train file", []string{"train", "--data", bigPath, "--quiet"}, false},
		{"train stdin", []string{"train", "--data", "-", "--quiet"}, true},
		{"eval stdin", []string{"eval", "--model", modelPath, "--data", "-"}, true},
		{"simulate stdin", []string{"simulate", "--model", modelPath, "--data", "-"}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			testHookContext = func() (context.Context, context.CancelFunc) { return ctx, cancel }
			defer func() { testHookContext = nil }()
			lc := &loadCanceller{r: bytes.NewReader(big.Bytes()), n: 1 << 20, cancel: cancel}
			withStdin(t, lc)
			if !c.cut {
				cancel()
			}
			out := filepath.Join(dir, "never.out")
			args := c.args
			if c.args[0] != "eval" {
				args = append(args, "--out", out)
			}
			code, _, stderr := cli(t, args...)
			if code != exitFailure || !strings.Contains(stderr, "interrupted while loading, nothing was written") {
				t.Fatalf("exit %d, %s; want 1 saying it was interrupted", code, stderr)
			}
			if c.cut && lc.n < -(256<<10) {
				t.Errorf("%d bytes read after the interruption", -lc.n)
			}
			if _, err := os.Stat(out); err == nil {
				t.Error("a model was written")
			}
			t.Logf("%s", strings.TrimSpace(stderr))
		})
	}
}
