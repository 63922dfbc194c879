// nfir.cu: the CUDA kernels of the NFIR training engine (float64).
//
// Every kernel implements, for the device buffers it is given, exactly the
// maths documented on kernels.Backend (kernels/backend.go) and
// kernels.ClosedLoop (kernels/closedloop.go). The Go side (kernels/cuda_*.go)
// uploads the host slices, launches these kernels and downloads the results.
//
// Conventions:
//   - ts[t] / te[t] are the global index of the first sample / one past the
//     last sample of the trajectory that sample t belongs to; no kernel reads
//     across a trajectory boundary.
//   - Reductions never use atomics: a kernel writes per-group partial sums
//     in a fixed layout and a second kernel adds them in group order, so
//     results are bitwise reproducible run to run and device to device.
//   - Only __syncthreads and shared memory are used for intra-block
//     communication (no warp shuffles), so that the same source also runs
//     under the CPU emulator of kernels/cuda_emu.cpp (build tag cudaemu).
//
// Regenerate the PTX with `go generate ./kernels/` (kernels/cuda/gen.sh).

#ifndef NFIR_EMU
#define DYN_SHARED(T, name) extern __shared__ T name[]
#define KERNEL extern "C" __global__
#define DEVICE __device__ __forceinline__
#endif

#define RED_THREADS 256

DEVICE int imin(int a, int b) { return a < b ? a : b; }

// block_sum reduces v over the block (blockDim.x a power of two ≤
// RED_THREADS) in a fixed tree order; the result is valid in thread 0.
// red must be a __shared__ array of RED_THREADS doubles.
DEVICE double block_sum(double v, double *red) {
    unsigned tid = threadIdx.x;
    red[tid] = v;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) red[tid] += red[tid + s];
        __syncthreads();
    }
    double r = red[0];
    __syncthreads();
    return r;
}

// ---------------------------------------------------------------- reductions

// sum_partials: out[p] = (acc ? out[p] : 0) + Σ_{g<groups} part[g*np + p],
// summed in group order (one thread per output).
KERNEL void sum_partials(int np, int groups, const double *part, double *out, int acc) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= np) return;
    double s = 0;
    for (int g = 0; g < groups; g++) s += part[(long long)g * np + p];
    out[p] = acc ? out[p] + s : s;
}

// colprod_partial: for every pair p = a*nb + c (a < na, c < nb) the partial
// sum over the rows of group g (rows [g*rows/groups, (g+1)*rows/groups)) of
// A[r*na + a] * B[r*nb + c] (B == NULL: nb = 1 and the factor is 1).
// Grid (np, groups), blockDim.x a power of two ≤ RED_THREADS.
// part[g*np + p] receives the group's sum.
KERNEL void colprod_partial(int rows, int na, int nb, const double *A, const double *B,
                            int groups, double *part) {
    __shared__ double red[RED_THREADS];
    int p = blockIdx.x, g = blockIdx.y;
    int np = na * nb;
    int a = p / nb, c = p % nb;
    long long r0 = (long long)rows * g / groups, r1 = (long long)rows * (g + 1) / groups;
    double s = 0;
    for (long long r = r0 + threadIdx.x; r < r1; r += blockDim.x) {
        double v = A[r * na + a];
        if (B) v *= B[r * nb + c];
        s += v;
    }
    s = block_sum(s, red);
    if (threadIdx.x == 0) part[(long long)g * np + p] = s;
}

// ------------------------------------------------------------- dense layers

// dense_fwd: y[r*out+o] = tanh(b[o] + Σ_i w[o*in+i] x[r*in+i]).
KERNEL void dense_fwd(int rows, int in, int out, const double *x, const double *w,
                      const double *b, double *y) {
    long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= (long long)rows * out) return;
    long long r = idx / out;
    int o = (int)(idx % out);
    double s = b[o];
    const double *xr = x + r * in, *wo = w + (long long)o * in;
    for (int i = 0; i < in; i++) s += wo[i] * xr[i];
    y[idx] = tanh(s);
}

// dense_pre: dpre = dy ⊙ (1 − y²), n entries.
KERNEL void dense_pre(long long n, const double *y, const double *dy, double *dpre) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double v = y[i];
    dpre[i] = dy[i] * (1 - v * v);
}

// dense_dx: dx[r*in+i] = Σ_o dpre[r*out+o] w[o*in+i].
KERNEL void dense_dx(int rows, int in, int out, const double *dpre, const double *w, double *dx) {
    long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= (long long)rows * in) return;
    long long r = idx / in;
    int i = (int)(idx % in);
    double s = 0;
    const double *d = dpre + r * out;
    for (int o = 0; o < out; o++) s += d[o] * w[(long long)o * in + i];
    dx[idx] = s;
}

// ------------------------------------------------------- convolution bank

// The bank kernels below work on tiles in shared memory. The naive form
// (one thread per output, reading n[(t−k)·mN + j] from global memory for
// every tap) had each warp touch a cache line per branch per tap: on an H100
// the large case of cuda_bench_test.go spent most of its 319 ms epoch there
// (docs/GPU.md). A block now stages v = n_j·u (or dy·n_j) for one branch and
// one time tile — plus the halo the taps reach — once, and the taps in chunks
// of blockDim.x, so any m_G fits; every thread then reads consecutive shared
// words. Each output still sums its taps in ascending k.

// conv_fwd: block b = tile·mN + j, blockDim.x = TT threads, one per sample
// t = tile·TT + threadIdx.x of branch j; dynamic shared memory
// (2·TT + TT − 1)·8 bytes (a tap chunk of TT, and TT + TT − 1 staged v):
// z_j(t) = Σ_{k<mG, t−k ≥ ts[t]} g_j(k) (n_j(t−k) u(t−k)).
KERNEL void conv_fwd(int total, int mN, int mG, const int *ts, const double *u,
                     const double *n, const double *g, double *z) {
    DYN_SHARED(double, sh);
    int TT = blockDim.x, tid = threadIdx.x;
    int j = (int)(blockIdx.x % mN);
    long long t0 = (long long)(blockIdx.x / mN) * TT, t = t0 + tid;
    double *gs = sh, *vs = sh + TT;
    bool ok = t < total;
    int kmax = ok ? imin(mG - 1, (int)(t - ts[t])) : -1;
    const double *gj = g + (long long)j * mG;
    double s = 0;
    for (int k0 = 0; k0 < mG; k0 += TT) {
        int kc = imin(TT, mG - k0);
        long long base = t0 - k0 - (kc - 1); // vs[i] = v(base + i)
        if (tid < kc) gs[tid] = gj[k0 + tid];
        for (int i = tid; i < TT + kc - 1; i += TT) {
            long long si = base + i;
            vs[i] = (si >= 0 && si < total) ? n[si * mN + j] * u[si] : 0;
        }
        __syncthreads();
        int kend = imin(kc - 1, kmax - k0);
        const double *vt = vs + tid + kc - 1; // v(t − k0 − kk) = vt[−kk]
        for (int kk = 0; kk <= kend; kk++) s += gs[kk] * vt[-kk];
        __syncthreads();
    }
    if (ok) z[t * mN + j] = s;
}

// conv_out: y(t) = Σ_j n_j(t) z_j(t) (overwrites y).
KERNEL void conv_out(int total, int mN, const double *n, const double *z, double *y) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= total) return;
    double s = 0;
    for (int j = 0; j < mN; j++) s += n[(long long)t * mN + j] * z[(long long)t * mN + j];
    y[t] = s;
}

// conv_bwd_dn: the adjoint of conv_fwd, tiled the same way (block
// b = tile·mN + j, TT threads, the same shared memory), with w = dy·n_j
// staged ahead of the tile instead of behind it:
// dn_j(t) = dy(t) z_j(t) + u(t) Σ_{k<mG, t+k < te[t]} g_j(k) (dy(t+k) n_j(t+k)).
KERNEL void conv_bwd_dn(int total, int mN, int mG, const int *te, const double *u,
                        const double *n, const double *g, const double *z, const double *dy,
                        double *dn) {
    DYN_SHARED(double, sh);
    int TT = blockDim.x, tid = threadIdx.x;
    int j = (int)(blockIdx.x % mN);
    long long t0 = (long long)(blockIdx.x / mN) * TT, t = t0 + tid;
    double *gs = sh, *ws = sh + TT;
    bool ok = t < total;
    int kmax = ok ? imin(mG - 1, (int)(te[t] - 1 - t)) : -1;
    const double *gj = g + (long long)j * mG;
    double s = 0;
    for (int k0 = 0; k0 < mG; k0 += TT) {
        int kc = imin(TT, mG - k0);
        long long base = t0 + k0; // ws[i] = w(base + i)
        if (tid < kc) gs[tid] = gj[k0 + tid];
        for (int i = tid; i < TT + kc - 1; i += TT) {
            long long si = base + i;
            ws[i] = si < total ? dy[si] * n[si * mN + j] : 0;
        }
        __syncthreads();
        int kend = imin(kc - 1, kmax - k0);
        const double *wt = ws + tid; // w(t + k0 + kk) = wt[kk]
        for (int kk = 0; kk <= kend; kk++) s += gs[kk] * wt[kk];
        __syncthreads();
    }
    if (ok) {
        long long idx = t * mN + j;
        dn[idx] = dy[t] * z[idx] + u[t] * s;
    }
}

// xcorr_partial: the tap-gradient / cross-correlation reduction
//   part[grp*(mN*mG) + j*mG + k] = Σ_{t in group grp, t−k ≥ ts[t]} (a(t)·an_j(t)) · (b(t−k)·bn_j(t−k))
// where an / bn (total×mN) may be NULL (factor 1). Samples are split into
// `groups` contiguous ranges. Grid (groups, mN); thread threadIdx.x owns
// tap k = k0 + threadIdx.x of each chunk of blockDim.x taps and adds the
// group's samples in ascending order, tile by tile of XT samples staged in
// shared memory: A = a·an_j and ts for the tile, B = b·bn_j for the tile and
// the blockDim.x − 1 samples behind it. Dynamic shared memory
// (3·XT + blockDim.x − 1)·8 bytes.
#define XT 256
KERNEL void xcorr_partial(int total, int mN, int mG, const int *ts, const double *a,
                          const double *an, const double *b, const double *bn, int groups,
                          double *part) {
    DYN_SHARED(double, sh);
    int grp = blockIdx.x, j = blockIdx.y, BS = blockDim.x, tid = threadIdx.x;
    long long g0 = (long long)total * grp / groups, g1 = (long long)total * (grp + 1) / groups;
    double *As = sh, *Bs = sh + 2 * XT;
    long long *Ts = (long long *)(sh + XT); // XT slots of 8 bytes
    for (int k0 = 0; k0 < mG; k0 += BS) {
        int k = k0 + tid;
        double s = 0;
        for (long long t0 = g0; t0 < g1; t0 += XT) {
            int nt = (int)(g1 - t0 < XT ? g1 - t0 : XT);
            long long base = t0 - k0 - (BS - 1); // Bs[i] = B(base + i)
            for (int i = tid; i < nt; i += BS) {
                long long t = t0 + i;
                double w = a[t];
                if (an) w *= an[t * mN + j];
                As[i] = w;
                Ts[i] = ts[t];
            }
            for (int i = tid; i < nt + BS - 1; i += BS) {
                long long si = base + i;
                double v = 0;
                if (si >= 0 && si < total) {
                    v = b[si];
                    if (bn) v *= bn[si * mN + j];
                }
                Bs[i] = v;
            }
            __syncthreads();
            if (k < mG) {
                const double *bt = Bs + (BS - 1) - tid; // B(t0 + m − k) = bt[m]
                for (int m = 0; m < nt; m++)
                    if (t0 + m - k >= Ts[m]) s += As[m] * bt[m];
            }
            __syncthreads();
        }
        if (k < mG) part[(long long)grp * mN * mG + (long long)j * mG + k] = s;
    }
}

// lin_fwd: y(t) += Σ_{k<mL, t−k ≥ ts[t]} lin(k) u(t−k).
KERNEL void lin_fwd(int total, int mL, const int *ts, const double *u, const double *lin, double *y) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= total) return;
    int kmax = imin(mL - 1, t - ts[t]);
    double s = 0;
    for (int k = 0; k <= kmax; k++) s += lin[k] * u[t - k];
    y[t] += s;
}

// ------------------------------------------------------------------- Gram

// phi: regressor i at sample t (θ_G order), 0 before the trajectory start.
DEVICE double phi(int i, long long t, int mN, int mG, const int *ts, const double *u,
                  const double *n) {
    int nb = mN * mG;
    if (i < nb) {
        int j = i / mG, k = i % mG;
        long long sk = t - k;
        if (sk < ts[t]) return 0;
        return n[t * mN + j] * n[sk * mN + j] * u[sk];
    }
    long long sk = t - (i - nb);
    if (sk < ts[t]) return 0;
    return u[sk];
}

#define GT 16
// gram_partial: tiles of P = Σ_t φ(t)φ(t)ᵀ. Grid (ntiles, ntiles, groups),
// block GT×GT. Block (bx, by, grp) computes rows i ∈ tile by, columns
// j ∈ tile bx over the samples of group grp, for by ≤ bx only (the rest is
// mirrored by gram_reduce). part[grp*nth*nth + i*nth + j].
KERNEL void gram_partial(int total, int mN, int mG, int mL, const int *ts, const double *u,
                         const double *n, int groups, double *part) {
    __shared__ double PI[GT][GT + 1];
    __shared__ double PJ[GT][GT + 1];
    int bx = blockIdx.x, by = blockIdx.y, grp = blockIdx.z;
    if (by > bx) return; // uniform per block: no __syncthreads skipped unevenly
    int nth = mN * mG + mL;
    int tx = threadIdx.x, ty = threadIdx.y;
    int i = by * GT + ty, j = bx * GT + tx;
    long long t0 = (long long)total * grp / groups, t1 = (long long)total * (grp + 1) / groups;
    double s = 0;
    for (long long tb = t0; tb < t1; tb += GT) {
        // PI[r][c]: regressor by*GT+c at sample tb+r; PJ likewise for bx.
        long long t = tb + ty;
        int ci = by * GT + tx, cj = bx * GT + tx;
        PI[ty][tx] = (t < t1 && ci < nth) ? phi(ci, t, mN, mG, ts, u, n) : 0;
        PJ[ty][tx] = (t < t1 && cj < nth) ? phi(cj, t, mN, mG, ts, u, n) : 0;
        __syncthreads();
        for (int r = 0; r < GT; r++) s += PI[r][ty] * PJ[r][tx];
        __syncthreads();
    }
    if (i < nth && j < nth) part[(long long)grp * nth * nth + (long long)i * nth + j] = s;
}

// gram_reduce: P[i][j] = Σ_grp part at (i, j) if tile(i) ≤ tile(j), else at
// (j, i); summed in group order. One thread per entry.
KERNEL void gram_reduce(int nth, int groups, const double *part, double *P) {
    long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= (long long)nth * nth) return;
    int i = (int)(idx / nth), j = (int)(idx % nth);
    long long src = (i / GT <= j / GT) ? (long long)i * nth + j : (long long)j * nth + i;
    double s = 0;
    for (int g = 0; g < groups; g++) s += part[(long long)g * nth * nth + src];
    P[idx] = s;
}

// ---------------------------------------------------------- loss and Adam

// residual: r = yhat − y; dy = scale·r.
KERNEL void residual(int total, const double *yhat, const double *y, double scale, double *r,
                     double *dy) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= total) return;
    double v = yhat[t] - y[t];
    r[t] = v;
    dy[t] = scale * v;
}

// adam: AdamW step with global-norm clipping, the maths of trainer/adam.go:
// g ← g·min(1, clip/‖g‖) (clip > 0), m ← b1 m + (1−b1) g, v ← b2 v + (1−b2) g²,
// θ ← θ − lr (wd θ + (m/c1)/(√(v/c2) + eps)); normsq points at Σ g² (device).
KERNEL void adam(int np, double *theta, double *m, double *v, const double *grad,
                 const double *normsq, double clip, double lr, double wd, double b1, double b2,
                 double c1, double c2, double eps) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= np) return;
    double f = 1;
    double nrm = sqrt(normsq[0]);
    if (clip > 0 && nrm > clip) f = clip / nrm;
    double gi = grad[i] * f;
    double mi = b1 * m[i] + (1 - b1) * gi;
    double vi = b2 * v[i] + (1 - b2) * gi * gi;
    m[i] = mi;
    v[i] = vi;
    theta[i] -= lr * (wd * theta[i] + (mi / c1) / (sqrt(vi / c2) + eps));
}

// ------------------------------------------------------- features (open loop)

// features: p[t*F+i] for F = R1 (+ R2 with fb): UA·u(t−R1+1+i)+UB, then
// QA·q(t−R2+1+i)+QB; raw 0 before the trajectory start, except for u with
// hold, which repeats the trajectory's first sample there.
KERNEL void features(int total, int R1, int R2, int fb, int hold, const int *ts, const double *u,
                     const double *q, double UA, double UB, double QA, double QB, double *p) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= total) return;
    int F = fb ? R1 + R2 : R1;
    double *pt = p + (long long)t * F;
    for (int i = 0; i < R1; i++) {
        int s = t - R1 + 1 + i;
        if (hold && s < ts[t]) s = ts[t];
        pt[i] = UA * (s >= ts[t] ? u[s] : 0.0) + UB;
    }
    if (!fb) return;
    for (int i = 0; i < R2; i++) {
        int s = t - R2 + 1 + i;
        pt[R1 + i] = QA * (s >= ts[t] ? q[s] : 0.0) + QB;
    }
}

// ---------------------------------------------------- closed loop (BPTT)

// Shared layout of the closed-loop kernels (dynamic shared memory, doubles):
//   cl_fwd: red[max(blockDim.x, mN)]                  partial tap sums
//   cl_bwd: d0[wmax], d1[wmax], red[max(blockDim.x, mN)]  adjoints, partial tap sums
// The layer sizes live in a small device array sizes[L+1]. Each branch's
// tap sum of a step is split over blockDim.x / mN threads: with one thread
// per branch, a step of the large benchmark case (200 taps) was a chain of
// 200 dependent global loads and adds.

// cl_fwd: one trajectory per block, the time loop inside. For sample t of
// trajectory b (global index gt):
//   p(t) → MLP (tanh every layer) → n(t); z_j(t) = Σ_k g_j(k) n_j(t−k) u(t−k);
//   y(t) = Σ_j n_j(t) z_j(t) + Σ_k lin(k) u(t−k); q(t+1) = y(t) (fb).
// Tape (global): act[l] rows for l = 0..L (act0 = features F, …, actL = n),
// stored back to back: act + aoff[l]*total + gt*sizes[l]; z (total×mN).
KERNEL void cl_fwd(const int *off, int mN, int mG, int mL, int R1, int R2, int fb, int hold, int L,
                   const int *sizes, const int *aoff, const double *theta, const double *g,
                   const double *lin, const double *u, double UA, double UB, double QA, double QB,
                   int total, double *act, double *z, double *y) {
    DYN_SHARED(double, sh);
    double *red = sh; // partial tap sums: max(blockDim.x, mN) doubles
    int b = blockIdx.x, tid = threadIdx.x, nt = blockDim.x;
    int o = off[b], T = off[b + 1] - off[b];
    int F = fb ? R1 + R2 : R1;
    double *nrow = 0;
    for (int t = 0; t < T; t++) {
        long long gt = o + t;
        if (mN > 0) {
            // features into act[0]
            double *p = act + (long long)aoff[0] * total + gt * F;
            for (int i = tid; i < F; i += nt) {
                double v;
                if (i < R1) {
                    int s = t - R1 + 1 + i;
                    if (hold && s < 0) s = 0;
                    v = UA * (s >= 0 ? u[o + s] : 0.0) + UB;
                } else {
                    int s = t - R2 + 1 + (i - R1);
                    v = QA * (s >= 1 ? y[o + s - 1] : 0.0) + QB;
                }
                p[i] = v;
            }
            __syncthreads();
            // MLP, layer by layer; each layer reads its input row from the tape.
            long long woff = 0;
            for (int l = 0; l < L; l++) {
                int in = sizes[l], out = sizes[l + 1];
                const double *h = act + (long long)aoff[l] * total + gt * in;
                double *hn = act + (long long)aoff[l + 1] * total + gt * out;
                const double *W = theta + woff, *bb = theta + woff + (long long)out * in;
                for (int oo = tid; oo < out; oo += nt) {
                    double s = bb[oo];
                    for (int i = 0; i < in; i++) s += W[(long long)oo * in + i] * h[i];
                    hn[oo] = tanh(s);
                }
                woff += (long long)out * in + out;
                __syncthreads();
            }
            nrow = act + (long long)aoff[L] * total;
            // z_j(t): S = blockDim.x / mN threads per branch (at least one)
            // each add every S-th tap, then one thread per branch adds
            // the S partial sums in order.
            int S = nt / mN > 1 ? nt / mN : 1, kmax = imin(mG - 1, t);
            for (int w = tid; w < mN * S; w += nt) {
                int j = w / S, k0 = w % S;
                const double *gj = g + (long long)j * mG;
                double s = 0;
                for (int k = k0; k <= kmax; k += S) s += gj[k] * nrow[(gt - k) * mN + j] * u[gt - k];
                red[w] = s;
            }
            __syncthreads();
            for (int j = tid; j < mN; j += nt) {
                double s = 0;
                for (int i = 0; i < S; i++) s += red[j * S + i];
                z[gt * mN + j] = s;
            }
            __syncthreads();
        }
        if (tid == 0) {
            double s = 0;
            int kmax = imin(mL - 1, t);
            for (int k = 0; k <= kmax; k++) s += lin[k] * u[gt - k];
            for (int j = 0; j < mN; j++) s += nrow[gt * mN + j] * z[gt * mN + j];
            y[gt] = s;
        }
        __syncthreads();
    }
}

// cl_bwd: the exact adjoint of cl_fwd, backwards in time, one trajectory per
// block. ay (total) holds dy on entry and the complete adjoint of ŷ on exit
// (used afterwards for dg and dlin by xcorr_partial). dth (gridDim.x × np)
// receives each block's θ_N gradient (summed over its trajectory in time
// order) or is NULL. Shared: d0[wmax], d1[wmax], red[max(blockDim.x, mN)].
KERNEL void cl_bwd(const int *off, int mN, int mG, int R1, int R2, int fb, int L,
                   const int *sizes, const int *aoff, int np, const double *theta, const double *g,
                   const double *u, double QA, int total, const double *act, const double *z,
                   double *ay, double *dth) {
    DYN_SHARED(double, sh);
    int b = blockIdx.x, tid = threadIdx.x, nt = blockDim.x;
    int o = off[b], T = off[b + 1] - off[b];
    if (mN == 0) return;
    int wmax = 0;
    for (int l = 0; l <= L; l++) wmax = sizes[l] > wmax ? sizes[l] : wmax;
    double *d0 = sh, *d1 = sh + wmax;
    double *red = sh + 2 * wmax; // partial tap sums: max(blockDim.x, mN) doubles
    double *mydth = dth ? dth + (long long)b * np : 0;
    if (mydth)
        for (int i = tid; i < np; i += nt) mydth[i] = 0;
    const double *nrow = act + (long long)aoff[L] * total;
    __syncthreads();
    for (int t = T - 1; t >= 0; t--) {
        long long gt = o + t;
        double a = ay[gt]; // complete: later steps already added their q-feature adjoints
        // a_n_j(t) through the output tanh: delta of the last layer into d0.
        // The tap sum is split over S threads per branch as in cl_fwd.
        int S = nt / mN > 1 ? nt / mN : 1, kmax = imin(mG - 1, T - 1 - t);
        for (int w = tid; w < mN * S; w += nt) {
            int j = w / S, k0 = w % S;
            const double *gj = g + (long long)j * mG;
            double s = 0;
            for (int k = k0; k <= kmax; k += S) s += gj[k] * ay[gt + k] * nrow[(gt + k) * mN + j];
            red[w] = s;
        }
        __syncthreads();
        for (int j = tid; j < mN; j += nt) {
            double s = 0;
            for (int i = 0; i < S; i++) s += red[j * S + i];
            double nj = nrow[gt * mN + j];
            double an = a * z[gt * mN + j] + u[gt] * s;
            d0[j] = an * (1 - nj * nj);
        }
        __syncthreads();
        // Down the layers: d0 holds the pre-activation adjoint of layer l+1.
        long long woff = np;
        for (int l = L - 1; l >= 0; l--) {
            int in = sizes[l], out = sizes[l + 1];
            woff -= (long long)out * in + out;
            const double *W = theta + woff;
            const double *h = act + (long long)aoff[l] * total + gt * in;
            if (mydth) {
                for (int q = tid; q < out * in + out; q += nt) {
                    if (q < out * in) mydth[woff + q] += d0[q / in] * h[q % in];
                    else mydth[woff + q] += d0[q - out * in];
                }
            }
            if (l > 0) {
                for (int i = tid; i < in; i += nt) {
                    double s = 0;
                    for (int oo = 0; oo < out; oo++) s += W[(long long)oo * in + i] * d0[oo];
                    d1[i] = s * (1 - h[i] * h[i]);
                }
            } else if (fb) {
                // feature adjoints of the q-part: a_y(t−R2+i) += QA · a_p_{R1+i}(t)
                for (int i = tid; i < R2; i += nt) {
                    int s = t - R2 + 1 + i; // source sample of q
                    if (s >= 1) {
                        double acc = 0;
                        for (int oo = 0; oo < out; oo++) acc += W[(long long)oo * in + R1 + i] * d0[oo];
                        ay[o + s - 1] += QA * acc;
                    }
                }
            }
            __syncthreads();
            double *tmp = d0; d0 = d1; d1 = tmp;
        }
        // after an odd number of swaps the roles differ: restore d0 = sh.
        d0 = sh; d1 = sh + wmax;
        __syncthreads();
    }
}
