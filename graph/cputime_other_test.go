//go:build !unix

package graph

func cpuTime() int64 { return 0 }
