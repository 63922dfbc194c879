package sysmem

import (
	"runtime"
	"strings"
	"testing"
)

func TestMemAvailable(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"MemTotal:       24684084 kB\nMemFree:        22292568 kB\nMemAvailable:   23682992 kB\n", 23682992 * 1024, true},
		{"MemTotal:       24684084 kB\n", 0, false}, // kernels before 3.14
		{"MemAvailable:   lots kB\n", 0, false},
		{"", 0, false},
	} {
		got, ok := MemAvailable(strings.NewReader(tc.in))
		if got != tc.want || ok != tc.ok {
			t.Errorf("MemAvailable(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestCgroupLeft(t *testing.T) {
	for _, tc := range []struct {
		max, cur string
		want     uint64
		ok       bool
	}{
		{"max\n", "1000\n", 0, false},
		{"4096\n", "1000\n", 3096, true},
		{"4096\n", "5000\n", 0, true},
		{"x", "1", 0, false},
	} {
		got, ok := CgroupLeft(tc.max, tc.cur)
		if got != tc.want || ok != tc.ok {
			t.Errorf("CgroupLeft(%q, %q) = %d, %v; want %d, %v", tc.max, tc.cur, got, ok, tc.want, tc.ok)
		}
	}
}

func TestAvailable(t *testing.T) {
	b, ok := Available()
	if runtime.GOOS == "linux" && (!ok || b == 0) {
		t.Errorf("Available() = %d, %v on Linux", b, ok)
	}
	t.Logf("available: %d MiB", b>>20)
}
