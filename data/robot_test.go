package data

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

func rms(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v * v
	}
	return math.Sqrt(s / float64(len(x)))
}

func TestRobot(t *testing.T) {
	dir := RobotDir()
	if dir == "" {
		t.Skip("robot data not found (../shared/data/robot relative to the module root); skipping")
	}
	train, tests, err := Robot(dir)
	if err != nil {
		t.Fatal(err)
	}
	all := append([]*Dataset{train}, tests...)
	for i, want := range []string{"e", "v1", "v2", "v3"} {
		d := all[i]
		if d.Name != want || d.Ts != 0.005 || len(d.Batches) != 1 || d.Batches[0].Len() != 1984 {
			t.Errorf("%s: name %q Ts %v, %d batches of %d samples", want, d.Name, d.Ts, len(d.Batches), d.Batches[0].Len())
		}
		if err := d.Validate(500); err != nil {
			t.Error(err)
		}
	}
	// Cross-check with the 2 kHz MAT-file read by the MAT reader: the anti-aliased
	// 200 Hz signals keep almost all the power (the excitation is low-frequency).
	p := filepath.Join(dir, "robotarmdata.mat")
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s absent; skipping the cross-check", p)
	}
	for i, n := range []string{"e", "v1", "v2", "v3"} {
		raw, err := ReadFile(p, ReadOptions{UCol: "u" + n, YCol: "y" + n})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct{ a, b []float64 }{{raw.Batches[0].U, all[i].Batches[0].U}, {raw.Batches[0].Y, all[i].Batches[0].Y}} {
			ra, rb := rms(c.a), rms(c.b)
			if math.Abs(ra-rb) > 0.02*ra {
				t.Errorf("%s: rms 2 kHz %.4f vs 200 Hz %.4f", n, ra, rb)
			}
		}
	}
}

func TestRobotMissingDir(t *testing.T) {
	if _, _, err := Robot(t.TempDir()); err == nil || !os.IsNotExist(unwrapAll(err)) {
		t.Errorf("err = %v, want a not-exist error", err)
	}
}

func unwrapAll(err error) error {
	for {
		u, ok := err.(interface{ Unwrap() error })
		if !ok || u.Unwrap() == nil {
			return err
		}
		err = u.Unwrap()
	}
}
