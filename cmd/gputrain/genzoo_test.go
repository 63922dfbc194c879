package main

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/zoo"
)

// TestGenZoo: every zoo plant writes the records asked for, at its
// sampling time, the same for a seed and different for another.
func TestGenZoo(t *testing.T) {
	dir := t.TempDir()
	for _, p := range zoo.Plants() {
		path := filepath.Join(dir, p.Name+".csv")
		again := filepath.Join(dir, p.Name+"-again.csv")
		other := filepath.Join(dir, p.Name+"-other.csv")
		args := []string{"gen", p.Name, "--batches", "2", "--samples", "60", "--seed", "3", "--quiet", "--out"}
		if out := mustRun(t, append(args, path)...); out != "" {
			t.Errorf("%s --quiet printed %q", p.Name, out)
		}
		mustRun(t, append(args, again)...)
		mustRun(t, "gen", p.Name, "--batches", "2", "--samples", "60", "--seed", "4", "--quiet", "--out", other)
		d, err := data.ReadFile(path, data.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if d.Len() != 2 || d.Batches[0].Len() != 60 || d.Batches[0].YClean != nil {
			t.Errorf("%s: %d batches of %d samples (y_clean %v), want 2 × 60 noise-free", p.Name, d.Len(), d.Batches[0].Len(), d.Batches[0].YClean != nil)
		}
		a, _ := os.ReadFile(path)
		b, _ := os.ReadFile(again)
		c, _ := os.ReadFile(other)
		if string(a) != string(b) || string(a) == string(c) {
			t.Errorf("%s: same seed same file %v, other seed other file %v", p.Name, string(a) == string(b), string(a) != string(c))
		}
	}
}

// TestGenZooFlags: the excitation, amplitude, noise and sampling time
// reach the data, and --json reports them.
func TestGenZooFlags(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "d.csv")
	r := decode(t, mustRun(t, "gen", "diode", "--batches", "3", "--samples", "80", "--excitation", "prbs", "--amplitude", "2",
		"--snr", "20", "--ts", "5e-5", "--json", "--out", path))
	if r["plant"] != "diode" || r["excitation"] != "prbs" || r["amplitude"] != 2.0 || r["snr"] != 20.0 || r["ts"] != 5e-5 || r["batches"] != 3.0 {
		t.Errorf("json %v", r)
	}
	if r["periods"] != 0.0 || r["alternate"] != false {
		t.Errorf("json periods %v alternate %v, want 0 and false", r["periods"], r["alternate"])
	}
	// --periods repeats the input within each record, --alternate with the
	// sign flipped; a repeat the records cannot hold is refused.
	per := filepath.Join(dir, "p.csv")
	r = decode(t, mustRun(t, "gen", "diode", "--batches", "2", "--samples", "90", "--periods", "3", "--alternate", "--json", "--out", per))
	if r["periods"] != 3.0 || r["alternate"] != true {
		t.Errorf("json periods %v alternate %v, want 3 and true", r["periods"], r["alternate"])
	}
	pd, err := data.ReadFile(per, data.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range pd.Batches {
		for k := 30; k < len(b.U); k++ {
			if b.U[k] != -b.U[k-30] {
				t.Fatalf("--periods 3 --alternate: u(%d) = %v, u(%d) = %v", k, b.U[k], k-30, b.U[k-30])
			}
		}
	}
	if code, _, stderr := cli(t, "gen", "diode", "--samples", "5", "--periods", "3", "--out", filepath.Join(dir, "q.csv")); code != exitUsage || !strings.Contains(stderr, "2 samples a period") {
		t.Errorf("--periods 3 of 5 samples: exit %d, %s", code, stderr)
	}
	d, err := data.ReadFile(path, data.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range d.Batches {
		if b.YClean == nil {
			t.Fatal("--snr 20 wrote no y_clean")
		}
		for _, u := range b.U {
			if math.Abs(u) != 2 {
				t.Fatalf("prbs of amplitude 2 has u = %v", u)
			}
		}
	}
	// the sampling time reaches the simulation: the same input sampled
	// twice as fast moves the mean current less in the first sample
	fast := filepath.Join(dir, "fast.csv")
	slow := filepath.Join(dir, "slow.csv")
	mustRun(t, "gen", "rlc", "--batches", "1", "--samples", "5", "--excitation", "prbs", "--ts", "5e-6", "--quiet", "--out", fast)
	mustRun(t, "gen", "rlc", "--batches", "1", "--samples", "5", "--excitation", "prbs", "--quiet", "--out", slow)
	f, _ := data.ReadFile(fast, data.ReadOptions{})
	s, _ := data.ReadFile(slow, data.ReadOptions{})
	if f.Batches[0].U[0] != s.Batches[0].U[0] || !(math.Abs(f.Batches[0].Y[0]) < math.Abs(s.Batches[0].Y[0])) {
		t.Errorf("--ts 5e-6: u %v y %v; default Ts: u %v y %v", f.Batches[0].U[0], f.Batches[0].Y[0], s.Batches[0].U[0], s.Batches[0].Y[0])
	}
}

func TestGenList(t *testing.T) {
	out := mustRun(t, "gen", "list")
	for _, p := range zoo.Plants() {
		if !strings.Contains(out, p.Name) || !strings.Contains(out, p.Doc) {
			t.Errorf("gen list does not show %s", p.Name)
		}
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(mustRun(t, "gen", "list", "--json")), &rows); err != nil || len(rows) != len(zoo.Plants()) {
		t.Fatalf("gen list --json: %d rows, %v", len(rows), err)
	}
	if rows[0]["name"] != zoo.Plants()[0].Name || rows[0]["ts"] == nil {
		t.Errorf("row %v", rows[0])
	}
	help := mustRunHelp(t, "gen", "--help")
	for _, name := range zoo.Names() {
		if !strings.Contains(help, name) {
			t.Errorf("gen --help does not name %s", name)
		}
	}
}

func mustRunHelp(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errOut := cli(t, args...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, errOut)
	}
	return out
}

func TestGenZooBadInput(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out", "x.csv")
	if err := os.Mkdir(filepath.Dir(out), 0o755); err != nil {
		t.Fatal(err)
	}
	all := "msd, " + strings.Join(zoo.Names(), ", ")
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown plant", []string{"gen", "cartpole", "--out", out}, all},
		{"no generator", []string{"gen"}, all},
		{"bad excitation", []string{"gen", "rlc", "--excitation", "sweep", "--out", out}, "want multisine, noise, prbs, chirp or aprbs"},
		{"Ts too long", []string{"gen", "rlc", "--ts", "1", "--out", out}, "use Ts ≤"},
		{"negative Ts", []string{"gen", "rlc", "--ts", "-1", "--out", out}, "Ts = -1"},
		{"zero Ts", []string{"gen", "rlc", "--ts", "0", "--out", out}, "--ts 0"},
		{"no batches", []string{"gen", "twomass", "--batches", "0", "--out", out}, "Batches = 0"},
		{"negative amplitude", []string{"gen", "twomass", "--amplitude", "-3", "--out", out}, "Amplitude = -3"},
		{"negative drop", []string{"gen", "twomass", "--drop", "-1", "--out", out}, "Drop = -1"},
		{"no out", []string{"gen", "satind"}, "--out"},
		{"bad extension", []string{"gen", "satind", "--out", filepath.Join(dir, "out", "x.txt")}, "extension"},
		{"too large", []string{"gen", "satind", "--batches", "100000", "--samples", "1000", "--out", out}, "at most"},
		{"list stray argument", []string{"gen", "list", "rlc"}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := cli(t, c.args...)
			if code != 2 || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, c.want)
			}
			if entries, _ := os.ReadDir(filepath.Dir(out)); len(entries) > 0 {
				t.Errorf("files written: %v", entries)
			}
		})
	}
}

// TestTrainRecordsDataCheck: train records the data check's verdict in
// the model file and names the causes when a zoo pair is not passive.
func TestTrainRecordsDataCheck(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name    string
		passive bool
	}{{"twomass", true}, {"twomass-delay3", false}} {
		zc, err := zoo.LookupCase(c.name)
		if err != nil {
			t.Fatal(err)
		}
		train, val, _, err := zc.Build(context.Background(), zoo.Quick, 1)
		if err != nil {
			t.Fatal(err)
		}
		tp, vp := filepath.Join(dir, c.name+"-train.csv"), filepath.Join(dir, c.name+"-val.csv")
		if err := data.WriteCSV(tp, train); err != nil {
			t.Fatal(err)
		}
		if err := data.WriteCSV(vp, val); err != nil {
			t.Fatal(err)
		}
		model := filepath.Join(dir, c.name+".json")
		r := decode(t, mustRun(t, "train", "--data", tp, "--val", vp, "--branches", "0", "--linear-taps", "30", "--json", "--out", model))
		check, _ := r["data_check"].(map[string]any)
		notes := toString(r["notes"])
		if check["passive"] != c.passive {
			t.Errorf("%s: data_check %v, want passive %v", c.name, check, c.passive)
		}
		if got := strings.Contains(notes, "likely causes"); got == c.passive {
			t.Errorf("%s: notes %q", c.name, notes)
		}
		stored, _ := storedTraining(t, model)["data-check"].(map[string]any)
		if stored["passive"] != c.passive || (!c.passive && !strings.Contains(toString(stored["causes"]), "delay")) {
			t.Errorf("%s: the model file's training object holds data-check %v", c.name, stored)
		}
	}
}

func toString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
