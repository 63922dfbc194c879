//go:build nfircuda

package kernels

// newCUDABackend is NewBackend("cuda") in a cuda-tagged build.
func newCUDABackend() (Backend, error) {
	c, err := NewCUDA()
	if err != nil {
		return nil, err
	}
	return c, nil
}
