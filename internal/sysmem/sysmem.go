package sysmem

import (
	"bufio"
	"io"
	"os"
	"strconv"
	"strings"
)

// Available returns the bytes of memory available to this process: the
// kernel's MemAvailable (free memory plus what it can reclaim without
// swapping), lowered to what a cgroup v2 memory limit leaves, if any. ok is
// false where neither is known (not Linux, no /proc): callers then skip
// their check.
func Available() (bytes uint64, ok bool) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	bytes, ok = MemAvailable(f)
	if !ok {
		return 0, false
	}
	if max, err1 := os.ReadFile("/sys/fs/cgroup/memory.max"); err1 == nil {
		if cur, err2 := os.ReadFile("/sys/fs/cgroup/memory.current"); err2 == nil {
			if left, ok := CgroupLeft(string(max), string(cur)); ok && left < bytes {
				bytes = left
			}
		}
	}
	return bytes, true
}

// MemAvailable parses the MemAvailable line of /proc/meminfo ("MemAvailable:
// 23682992 kB") into bytes.
func MemAvailable(r io.Reader) (uint64, bool) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 || f[0] != "MemAvailable:" {
			continue
		}
		v, err := strconv.ParseUint(f[1], 10, 64)
		if err != nil {
			return 0, false
		}
		if len(f) >= 3 && f[2] == "kB" {
			v *= 1024
		}
		return v, true
	}
	return 0, false
}

// CgroupLeft is what a cgroup v2 memory limit leaves: memory.max minus
// memory.current, false when there is no limit ("max") or either cannot be
// read.
func CgroupLeft(max, current string) (uint64, bool) {
	max, current = strings.TrimSpace(max), strings.TrimSpace(current)
	if max == "max" {
		return 0, false
	}
	m, err1 := strconv.ParseUint(max, 10, 64)
	c, err2 := strconv.ParseUint(current, 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	if c >= m {
		return 0, true
	}
	return m - c, true
}
