//go:build nfircuda && cudaemu

// cuda_emu.cpp compiles kernels/cuda/nfir.cu as C++ and runs its kernels on
// CPU threads (see cuda/emu.h), behind the same launch interface as the
// driver (cuda_emu.go). It exists to test the CUDA backend's kernels and
// host code where no GPU is lent: go test -tags 'nfircuda cudaemu' ./kernels/.

#include "cuda/emu.h"
#include <cstdint>
#include <cstring>
#include <cstdlib>
#include <utility>
#include <vector>

thread_local emu_dim3 threadIdx;
thread_local emu_dim3 blockIdx;
emu_dim3 blockDim, gridDim;
pthread_barrier_t emu_barrier;
double *emu_dyn_shared;

#include "cuda/nfir.cu"

namespace {
using launcher = void (*)(void *fn, void **args);

template <typename... A, std::size_t... I>
void call_impl(void (*f)(A...), void **args, std::index_sequence<I...>) {
    f(*static_cast<A *>(args[I])...);
}
template <typename... A> void call(void *fn, void **args) {
    call_impl(reinterpret_cast<void (*)(A...)>(fn), args, std::index_sequence_for<A...>{});
}
template <typename... A> launcher make(void (*)(A...)) { return &call<A...>; }

struct entry { const char *name; void *fn; launcher l; int nargs; };
template <typename... A> entry E(const char *name, void (*f)(A...)) {
    return entry{name, reinterpret_cast<void *>(f), make(f), (int)sizeof...(A)};
}
#define K(name) E(#name, &name)
const entry table[] = {
    K(sum_partials), K(colprod_partial), K(dense_fwd), K(dense_pre), K(dense_dx),
    K(conv_fwd), K(conv_out), K(conv_bwd_dn), K(xcorr_partial), K(lin_fwd),
    K(gram_partial), K(gram_reduce), K(residual), K(adam), K(features), K(cl_fwd), K(cl_bwd),
};

struct targ { const entry *e; void **args; emu_dim3 b; emu_dim3 t; };

void *run_thread(void *p) {
    targ *a = (targ *)p;
    blockIdx = a->b;
    threadIdx = a->t;
    a->e->l(a->e->fn, a->args);
    return nullptr;
}
} // namespace

extern "C" int emu_func(const char *name) {
    for (int i = 0; i < (int)(sizeof table / sizeof table[0]); i++)
        if (!strcmp(table[i].name, name)) return i;
    return -1;
}

// emu_launch runs kernel fn over the grid. Args are 8-byte slots, as for
// the driver; ints are read from the low 4 bytes (little-endian).
extern "C" int emu_launch(int fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                          unsigned bz, unsigned shmem, int nargs, uint64_t *args) {
    const entry *e = &table[fn];
    if (nargs != e->nargs) return 1;
    std::vector<void *> params(nargs);
    for (int i = 0; i < nargs; i++) params[i] = &args[i];
    gridDim = {gx, gy, gz};
    blockDim = {bx, by, bz};
    unsigned nt = bx * by * bz;
    std::vector<double> dyn(shmem / sizeof(double) + 1);
    emu_dyn_shared = dyn.data();
    pthread_barrier_init(&emu_barrier, nullptr, nt);
    std::vector<pthread_t> th(nt);
    std::vector<targ> ta(nt);
    for (unsigned z = 0; z < gz; z++)
        for (unsigned y = 0; y < gy; y++)
            for (unsigned x = 0; x < gx; x++) {
                unsigned i = 0;
                for (unsigned tz = 0; tz < bz; tz++)
                    for (unsigned ty = 0; ty < by; ty++)
                        for (unsigned tx = 0; tx < bx; tx++, i++) {
                            ta[i] = targ{e, params.data(), {x, y, z}, {tx, ty, tz}};
                            if (pthread_create(&th[i], nullptr, run_thread, &ta[i])) return 2;
                        }
                for (unsigned k = 0; k < nt; k++) pthread_join(th[k], nullptr);
            }
    pthread_barrier_destroy(&emu_barrier);
    return 0;
}
