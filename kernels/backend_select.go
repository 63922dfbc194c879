package kernels

import "fmt"

// NewBackend returns the backend for a device name: "cpu" (the pure-Go CPU
// backend, GOMAXPROCS workers) or "cuda" (the GPU backend, available only in
// binaries built with -tags nfircuda (not "cuda": that tag switches on gorgonia's own CUDA backend, which does not build); elsewhere, or without a usable GPU, the
// error says so).
func NewBackend(device string) (Backend, error) {
	switch device {
	case "", "cpu":
		return &CPU{}, nil
	case "cuda", "gpu":
		return newCUDABackend()
	default:
		return nil, fmt.Errorf("kernels: unknown device %q: want cpu or cuda", device)
	}
}
