//go:build !nfircuda

package kernels

import "errors"

// newCUDABackend is NewBackend("cuda") in a build without the cuda tag.
func newCUDABackend() (Backend, error) {
	return nil, errors.New("this binary was built without CUDA support; rebuild with -tags nfircuda (see docs/GPU.md)")
}
