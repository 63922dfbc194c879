//go:build !unix

package data

func cpuTime() int64 { return 0 }
