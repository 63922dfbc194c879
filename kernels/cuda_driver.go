//go:build nfircuda && !cudaemu

package kernels

// The CUDA driver API, loaded at run time with dlopen("libcuda.so.1").
//
// Why not gorgonia.org/cu: its package init calls cuInit and os.Exit(1)s
// when it fails, and it links -lcuda, so every binary importing it dies (or
// does not even start) on a machine without an NVIDIA driver or GPU, before
// any of our code runs: NewCUDA could never return an error and the cuda
// tests could never t.Skip. The handful of driver entry points used here are
// resolved with dlsym instead, so a cuda-tagged binary starts anywhere and
// NewCUDA reports "no driver" / "no device" as an ordinary error. The build
// needs neither CUDA headers nor libcuda: the prototypes below mirror cuda.h,
// and building with CGO_CFLAGS="-DNFIR_CHECK_CUDA_H -I<dir of cuda.h>"
// (.ci/cuda-build does) checks every one of them against the real header at
// compile time.

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>

#ifdef NFIR_CHECK_CUDA_H
#include <cuda.h>
#else
typedef int CUresult;
typedef int CUdevice;
typedef int CUdevice_attribute;
typedef int CUjit_option;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
#endif

typedef CUresult (*t_cuInit)(unsigned int);
typedef CUresult (*t_cuDriverGetVersion)(int *);
typedef CUresult (*t_cuDeviceGetCount)(int *);
typedef CUresult (*t_cuDeviceGet)(CUdevice *, int);
typedef CUresult (*t_cuDeviceGetName)(char *, int, CUdevice);
typedef CUresult (*t_cuDeviceGetAttribute)(int *, CUdevice_attribute, CUdevice);
typedef CUresult (*t_cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
typedef CUresult (*t_cuCtxSetCurrent)(CUcontext);
typedef CUresult (*t_cuCtxSynchronize)(void);
typedef CUresult (*t_cuModuleLoadDataEx)(CUmodule *, const void *, unsigned int, CUjit_option *, void **);
typedef CUresult (*t_cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
typedef CUresult (*t_cuMemAlloc_v2)(CUdeviceptr *, size_t);
typedef CUresult (*t_cuMemFree_v2)(CUdeviceptr);
typedef CUresult (*t_cuMemcpyHtoD_v2)(CUdeviceptr, const void *, size_t);
typedef CUresult (*t_cuMemcpyDtoH_v2)(void *, CUdeviceptr, size_t);
typedef CUresult (*t_cuMemsetD8_v2)(CUdeviceptr, unsigned char, size_t);
typedef CUresult (*t_cuLaunchKernel)(CUfunction, unsigned int, unsigned int, unsigned int,
	unsigned int, unsigned int, unsigned int, unsigned int, CUstream, void **, void **);
typedef CUresult (*t_cuGetErrorString)(CUresult, const char **);

#ifdef NFIR_CHECK_CUDA_H
#define NFIR_SAME(name) _Static_assert(__builtin_types_compatible_p(t_##name, __typeof__(&name)), "prototype of " #name " disagrees with cuda.h");
NFIR_SAME(cuInit)
NFIR_SAME(cuDriverGetVersion)
NFIR_SAME(cuDeviceGetCount)
NFIR_SAME(cuDeviceGet)
NFIR_SAME(cuDeviceGetName)
NFIR_SAME(cuDeviceGetAttribute)
NFIR_SAME(cuDevicePrimaryCtxRetain)
NFIR_SAME(cuCtxSetCurrent)
NFIR_SAME(cuCtxSynchronize)
NFIR_SAME(cuModuleLoadDataEx)
NFIR_SAME(cuModuleGetFunction)
NFIR_SAME(cuMemAlloc_v2)
NFIR_SAME(cuMemFree_v2)
NFIR_SAME(cuMemcpyHtoD_v2)
NFIR_SAME(cuMemcpyDtoH_v2)
NFIR_SAME(cuMemsetD8_v2)
NFIR_SAME(cuLaunchKernel)
NFIR_SAME(cuGetErrorString)
#endif

static struct {
	void *lib;
	CUcontext ctx;
	t_cuInit cuInit;
	t_cuDriverGetVersion cuDriverGetVersion;
	t_cuDeviceGetCount cuDeviceGetCount;
	t_cuDeviceGet cuDeviceGet;
	t_cuDeviceGetName cuDeviceGetName;
	t_cuDeviceGetAttribute cuDeviceGetAttribute;
	t_cuDevicePrimaryCtxRetain cuDevicePrimaryCtxRetain;
	t_cuCtxSetCurrent cuCtxSetCurrent;
	t_cuCtxSynchronize cuCtxSynchronize;
	t_cuModuleLoadDataEx cuModuleLoadDataEx;
	t_cuModuleGetFunction cuModuleGetFunction;
	t_cuMemAlloc_v2 cuMemAlloc_v2;
	t_cuMemFree_v2 cuMemFree_v2;
	t_cuMemcpyHtoD_v2 cuMemcpyHtoD_v2;
	t_cuMemcpyDtoH_v2 cuMemcpyDtoH_v2;
	t_cuMemsetD8_v2 cuMemsetD8_v2;
	t_cuLaunchKernel cuLaunchKernel;
	t_cuGetErrorString cuGetErrorString;
} nf;

// nf_open loads libcuda.so.1 and resolves the entry points. Returns 0, or
// -1 when the library is missing (err holds dlerror()), or -2 when a symbol
// is missing (err holds its name).
static int nf_open(char *err, int errlen) {
	if (nf.lib) return 0;
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();
		snprintf(err, errlen, "%s", e ? e : "dlopen failed");
		return -1;
	}
#define NF_SYM(name) if (!(nf.name = (t_##name)dlsym(h, #name))) { snprintf(err, errlen, "%s", #name); dlclose(h); return -2; }
	NF_SYM(cuInit) NF_SYM(cuDriverGetVersion) NF_SYM(cuDeviceGetCount) NF_SYM(cuDeviceGet)
	NF_SYM(cuDeviceGetName) NF_SYM(cuDeviceGetAttribute) NF_SYM(cuDevicePrimaryCtxRetain)
	NF_SYM(cuCtxSetCurrent) NF_SYM(cuCtxSynchronize) NF_SYM(cuModuleLoadDataEx)
	NF_SYM(cuModuleGetFunction) NF_SYM(cuMemAlloc_v2) NF_SYM(cuMemFree_v2)
	NF_SYM(cuMemcpyHtoD_v2) NF_SYM(cuMemcpyDtoH_v2) NF_SYM(cuMemsetD8_v2)
	NF_SYM(cuLaunchKernel) NF_SYM(cuGetErrorString)
#undef NF_SYM
	nf.lib = h;
	return 0;
}

static const char *nf_errstr(int r) {
	const char *s = 0;
	if (nf.cuGetErrorString && nf.cuGetErrorString((CUresult)r, &s) == 0 && s) return s;
	return "unknown CUDA error";
}

static int nf_init(void) { return (int)nf.cuInit(0); }
static int nf_version(int *v) { return (int)nf.cuDriverGetVersion(v); }
static int nf_count(int *n) { return (int)nf.cuDeviceGetCount(n); }

// nf_ctx makes the primary context of device ordinal current and stores it.
static int nf_ctx(int ordinal, char *name, int namelen, int *ccmaj, int *ccmin) {
	CUdevice d;
	int r = (int)nf.cuDeviceGet(&d, ordinal);
	if (r) return r;
	if ((r = (int)nf.cuDeviceGetName(name, namelen, d))) return r;
	// CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75, _MINOR = 76
	if ((r = (int)nf.cuDeviceGetAttribute(ccmaj, (CUdevice_attribute)75, d))) return r;
	if ((r = (int)nf.cuDeviceGetAttribute(ccmin, (CUdevice_attribute)76, d))) return r;
	if ((r = (int)nf.cuDevicePrimaryCtxRetain(&nf.ctx, d))) return r;
	return (int)nf.cuCtxSetCurrent(nf.ctx);
}

// Every call below first makes the context current on the calling OS
// thread: goroutines move between threads.
#define NF_CUR() do { int r_ = (int)nf.cuCtxSetCurrent(nf.ctx); if (r_) return r_; } while (0)

static int nf_load(const void *image, uintptr_t *mod) {
	NF_CUR();
	CUmodule m;
	int r = (int)nf.cuModuleLoadDataEx(&m, image, 0, 0, 0);
	*mod = (uintptr_t)m;
	return r;
}
static int nf_func(uintptr_t mod, const char *name, uintptr_t *fn) {
	NF_CUR();
	CUfunction f;
	int r = (int)nf.cuModuleGetFunction(&f, (CUmodule)mod, name);
	*fn = (uintptr_t)f;
	return r;
}
static int nf_alloc(uint64_t *p, size_t n) {
	NF_CUR();
	CUdeviceptr d = 0;
	int r = (int)nf.cuMemAlloc_v2(&d, n);
	*p = (uint64_t)d;
	return r;
}
static int nf_free(uint64_t p) { NF_CUR(); return (int)nf.cuMemFree_v2((CUdeviceptr)p); }
static int nf_htod(uint64_t dst, const void *src, size_t n) { NF_CUR(); return (int)nf.cuMemcpyHtoD_v2((CUdeviceptr)dst, src, n); }
static int nf_dtoh(void *dst, uint64_t src, size_t n) { NF_CUR(); return (int)nf.cuMemcpyDtoH_v2(dst, (CUdeviceptr)src, n); }
static int nf_zero(uint64_t p, size_t n) { NF_CUR(); return (int)nf.cuMemsetD8_v2((CUdeviceptr)p, 0, n); }
static int nf_sync(void) { NF_CUR(); return (int)nf.cuCtxSynchronize(); }

// nf_launch: every kernel argument is one 8-byte slot of args (ints in the
// low 4 bytes: little-endian), so the parameter array points into it.
static int nf_launch(uintptr_t fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
		unsigned by, unsigned bz, unsigned shmem, int nargs, uint64_t *args) {
	NF_CUR();
	void *params[32];
	if (nargs > 32) return 1; // CUDA_ERROR_INVALID_VALUE
	for (int i = 0; i < nargs; i++) params[i] = &args[i];
	return (int)nf.cuLaunchKernel((CUfunction)fn, gx, gy, gz, bx, by, bz, shmem, 0, params, 0);
}
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

func drvErr(op string, r C.int) error {
	if r == 0 {
		return nil
	}
	return fmt.Errorf("kernels: cuda: %s: %s (CUresult %d)", op, C.GoString(C.nf_errstr(r)), int(r))
}

// drvOpen loads the driver, initialises it and makes device 0's primary
// context current. It never exits the process: every failure is an error
// (wrapping ErrNoCUDA when there is no driver or no device).
func drvOpen() (desc string, err error) {
	var buf [512]C.char
	switch C.nf_open(&buf[0], C.int(len(buf))) {
	case 0:
	case -1:
		return "", fmt.Errorf("%w: cannot load libcuda.so.1, the NVIDIA driver library (%s); install the driver, or with Docker run with --gpus all", ErrNoCUDA, C.GoString(&buf[0]))
	default:
		return "", fmt.Errorf("%w: libcuda.so.1 lacks %s: driver too old (need CUDA ≥ 11.8 driver, ≥ 520)", ErrNoCUDA, C.GoString(&buf[0]))
	}
	if r := C.nf_init(); r != 0 {
		return "", fmt.Errorf("%w: cuInit: %s (CUresult %d)", ErrNoCUDA, C.GoString(C.nf_errstr(r)), int(r))
	}
	var n, ver C.int
	if r := C.nf_count(&n); r != 0 {
		return "", fmt.Errorf("%w: %v", ErrNoCUDA, drvErr("cuDeviceGetCount", r))
	}
	if n == 0 {
		return "", fmt.Errorf("%w: the driver reports 0 devices", ErrNoCUDA)
	}
	C.nf_version(&ver)
	var name [256]C.char
	var cmaj, cmin C.int
	if r := C.nf_ctx(0, &name[0], C.int(len(name)), &cmaj, &cmin); r != 0 {
		return "", drvErr("device 0 context", r)
	}
	if cmaj < 8 {
		return "", fmt.Errorf("%w: %s has compute capability %d.%d; the embedded PTX needs ≥ 8.0", ErrNoCUDA, C.GoString(&name[0]), cmaj, cmin)
	}
	return fmt.Sprintf("%s (sm_%d%d, driver CUDA %d.%d)", C.GoString(&name[0]), cmaj, cmin, ver/1000, ver%1000/10), nil
}

// drvLoad JIT-compiles the PTX module and resolves the named kernels.
func drvLoad(ptx []byte, names []string) ([]drvFunc, error) {
	img := C.CBytes(append(append([]byte(nil), ptx...), 0))
	defer C.free(img)
	var mod C.uintptr_t
	if r := C.nf_load(img, &mod); r != 0 {
		return nil, drvErr("cuModuleLoadData (PTX JIT)", r)
	}
	fns := make([]drvFunc, len(names))
	for i, nm := range names {
		cs := C.CString(nm)
		var f C.uintptr_t
		r := C.nf_func(mod, cs, &f)
		C.free(unsafe.Pointer(cs))
		if r != 0 {
			return nil, drvErr("cuModuleGetFunction "+nm, r)
		}
		fns[i] = drvFunc(f)
	}
	return fns, nil
}

func drvAlloc(bytes int) (uint64, error) {
	var p C.uint64_t
	if r := C.nf_alloc(&p, C.size_t(bytes)); r != 0 {
		return 0, drvErr(fmt.Sprintf("cuMemAlloc(%d bytes)", bytes), r)
	}
	return uint64(p), nil
}

func drvFree(p uint64) { C.nf_free(C.uint64_t(p)) }

func drvHtoD(dst uint64, src unsafe.Pointer, bytes int) error {
	return drvErr("cuMemcpyHtoD", C.nf_htod(C.uint64_t(dst), src, C.size_t(bytes)))
}

func drvDtoH(dst unsafe.Pointer, src uint64, bytes int) error {
	return drvErr("cuMemcpyDtoH", C.nf_dtoh(dst, C.uint64_t(src), C.size_t(bytes)))
}

func drvZero(p uint64, bytes int) error {
	return drvErr("cuMemsetD8", C.nf_zero(C.uint64_t(p), C.size_t(bytes)))
}

func drvSync() error { return drvErr("cuCtxSynchronize", C.nf_sync()) }

func drvLaunch(f drvFunc, grid, block [3]uint32, shmem uint32, args []uint64) error {
	var a *C.uint64_t
	if len(args) > 0 {
		a = (*C.uint64_t)(unsafe.Pointer(&args[0]))
	}
	return drvErr("cuLaunchKernel", C.nf_launch(C.uintptr_t(f), C.uint(grid[0]), C.uint(grid[1]), C.uint(grid[2]),
		C.uint(block[0]), C.uint(block[1]), C.uint(block[2]), C.uint(shmem), C.int(len(args)), a))
}

const drvEmulated = false
