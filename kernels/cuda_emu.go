//go:build nfircuda && cudaemu

package kernels

// The CPU emulator of the driver (build tags nfircuda and cudaemu): device
// memory is host memory from malloc, a launch runs the kernel of
// kernels/cuda/nfir.cu compiled as C++ (cuda_emu.cpp) with one thread per
// CUDA thread. It runs the same Go host code and the same kernel source as
// the GPU build, so the parity tests exercise both without a GPU; it is slow
// and only meant for small test sizes.

/*
#cgo CXXFLAGS: -std=c++17 -O1 -pthread
#cgo LDFLAGS: -lstdc++ -pthread
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
int emu_func(const char *name);
int emu_launch(int fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
	unsigned bz, unsigned shmem, int nargs, uint64_t *args);
static uint64_t emu_alloc(size_t n) { return (uint64_t)(uintptr_t)calloc(n, 1); }
static void emu_free(uint64_t p) { free((void *)(uintptr_t)p); }
static void emu_htod(uint64_t d, const void *s, size_t n) { memcpy((void *)(uintptr_t)d, s, n); }
static void emu_dtoh(void *d, uint64_t s, size_t n) { memcpy(d, (const void *)(uintptr_t)s, n); }
static void emu_zero(uint64_t p, size_t n) { memset((void *)(uintptr_t)p, 0, n); }
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"
)

// ErrNoCUDA reports that no usable NVIDIA driver or GPU was found.
var ErrNoCUDA = errors.New("kernels: no CUDA device")

type drvFunc uintptr

func drvOpen() (string, error) { return "CPU emulator of the CUDA kernels (cudaemu)", nil }

func drvLoad(_ []byte, names []string) ([]drvFunc, error) {
	fns := make([]drvFunc, len(names))
	for i, nm := range names {
		cs := C.CString(nm)
		f := C.emu_func(cs)
		C.free(unsafe.Pointer(cs))
		if f < 0 {
			return nil, fmt.Errorf("kernels: cudaemu: no kernel %s", nm)
		}
		fns[i] = drvFunc(f)
	}
	return fns, nil
}

func drvAlloc(bytes int) (uint64, error) {
	p := C.emu_alloc(C.size_t(max(bytes, 8)))
	if p == 0 {
		return 0, errors.New("kernels: cudaemu: out of memory")
	}
	return uint64(p), nil
}

func drvFree(p uint64) { C.emu_free(C.uint64_t(p)) }

func drvHtoD(dst uint64, src unsafe.Pointer, bytes int) error {
	C.emu_htod(C.uint64_t(dst), src, C.size_t(bytes))
	return nil
}

func drvDtoH(dst unsafe.Pointer, src uint64, bytes int) error {
	C.emu_dtoh(dst, C.uint64_t(src), C.size_t(bytes))
	return nil
}

func drvZero(p uint64, bytes int) error {
	C.emu_zero(C.uint64_t(p), C.size_t(bytes))
	return nil
}

func drvSync() error { return nil }

func drvLaunch(f drvFunc, grid, block [3]uint32, shmem uint32, args []uint64) error {
	var a *C.uint64_t
	if len(args) > 0 {
		a = (*C.uint64_t)(unsafe.Pointer(&args[0]))
	}
	if r := C.emu_launch(C.int(f), C.uint(grid[0]), C.uint(grid[1]), C.uint(grid[2]), C.uint(block[0]),
		C.uint(block[1]), C.uint(block[2]), C.uint(shmem), C.int(len(args)), a); r != 0 {
		return fmt.Errorf("kernels: cudaemu: launch failed (%d)", int(r))
	}
	return nil
}

const drvEmulated = true
