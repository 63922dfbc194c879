// emu.h: just enough of the CUDA execution model, on CPU threads, to run
// nfir.cu unchanged for testing without a GPU (build tags nfircuda cudaemu, see
// kernels/cuda_emu.cpp). Blocks run one after another; the threads of a
// block are real threads meeting at a barrier in __syncthreads, so shared
// memory and barrier bugs show up as they would on a GPU (a __syncthreads
// in divergent code deadlocks). Not emulated: warps, atomics, streams.
#pragma once
#include <cmath>
#include <pthread.h>

#define NFIR_EMU 1
struct emu_dim3 { unsigned x, y, z; };
extern thread_local emu_dim3 threadIdx;
extern thread_local emu_dim3 blockIdx;
extern emu_dim3 blockDim, gridDim;
extern pthread_barrier_t emu_barrier;
extern double *emu_dyn_shared;

#define __syncthreads() pthread_barrier_wait(&emu_barrier)
#define __shared__ static
#define DYN_SHARED(T, name) T *name = (T *)emu_dyn_shared
#define KERNEL extern "C"
#define DEVICE static inline
using std::tanh;
using std::sqrt;
