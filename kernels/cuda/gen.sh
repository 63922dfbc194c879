#!/bin/sh
# Regenerates nfir.ptx from nfir.cu. Run through `go generate ./kernels/`
# (the directive is in kernels/cuda_module.go) or directly from kernels/cuda/.
# Needs nvcc (Debian: apt-get install nvidia-cuda-toolkit, non-free; or any
# CUDA ≥ 11.1 toolkit). The PTX targets compute_80 (A100); the driver
# JIT-compiles it for newer GPUs (H100/H200 = sm_90), so the Go build itself
# never needs nvcc.
set -eu
cd "$(dirname "$0")"
NVCC=${NVCC:-nvcc}
"$NVCC" -ptx -arch=compute_80 -O3 -std=c++14 -o nfir.ptx.tmp nfir.cu
mv nfir.ptx.tmp nfir.ptx
echo "wrote $(pwd)/nfir.ptx ($("$NVCC" --version | tail -1))"
