#!/usr/bin/env python3
"""PyTorch (eager) equivalent of the NFIR open-loop epoch and BPTT epoch, for
comparison with the Go CUDA backend (kernels/cuda_bench_test.go) on the same
GPU. Same cases and definitions as the Go benchmarks:

  msd:   300 trajectories x 250 samples, m_N=10, m_G=50,  R1=R2=1, MLP 2->4->4->10
  large: 10000 x 1000,                   m_N=20, m_G=200, R1=R2=1, MLP 2->4->4->20

epoch      = loss (MSE) + backward over all trajectories, q from the data
bptt epoch = closed-loop rollout (q(t) = yhat(t-1)) + backward over all
             trajectories in batches of 8 (msd) / 1000 (large)

The branch bank z_j = g_j * (n_j u) is a depthwise causal conv1d (groups=m_N,
left padding m_G-1, flipped taps), never a dense Toeplitz matrix.
Usage: python3 bench/torch_nfir.py [--case msd|large|all] [--dtype float64|float32|all] [--reps 5]
"""
import argparse, time
import torch
import torch.nn.functional as F


def mlp_params(sizes, dev, dt, gen):
    ps = []
    for i in range(len(sizes) - 1):
        w = (torch.rand(sizes[i + 1], sizes[i], generator=gen, dtype=torch.float64) * 2 - 1) * 0.5
        ps += [w.to(dev, dt).requires_grad_(), torch.zeros(sizes[i + 1], device=dev, dtype=dt, requires_grad=True)]
    return ps


def mlp(ps, x):
    for i in range(0, len(ps), 2):
        x = torch.tanh(x @ ps[i].T + ps[i + 1])
    return x


def branch_conv(g, v):
    # v: (B, mN, T) = n*u ; z_j(t) = sum_k g_j(k) v_j(t-k)
    mN, mG = g.shape
    return F.conv1d(F.pad(v, (mG - 1, 0)), g.flip(1).unsqueeze(1), groups=mN)


def open_loop_epoch(ps, g, u, q, y):
    p = torch.stack([u, q], dim=-1)              # R1 = R2 = 1: p(t) = [u(t), q(t)]
    n = mlp(ps, p)                               # (B, T, mN)
    z = branch_conv(g, (n * u.unsqueeze(-1)).transpose(1, 2)).transpose(1, 2)
    yh = (n * z).sum(-1)
    loss = ((yh - y) ** 2).mean()
    loss.backward()
    return loss


def bptt_batch(ps, g, u, y):
    B, T = u.shape
    mN, mG = g.shape
    gr = g.flip(1)                               # gr[:, mG-1-k] = g(k)
    w_hist = u.new_zeros(B, mN, mG - 1)          # past n_j u, oldest first
    hist = [w_hist]
    yprev = u.new_zeros(B)
    ys = []
    for t in range(T):
        p = torch.stack([u[:, t], yprev], dim=-1)
        n = mlp(ps, p)                           # (B, mN)
        w = torch.cat(hist[-1:] + [(n * u[:, t:t + 1]).unsqueeze(-1)], dim=-1)[:, :, -mG:]
        z = (w * gr).sum(-1)
        yt = (n * z).sum(-1)
        hist.append(w[:, :, 1:])
        ys.append(yt)
        yprev = yt
    yh = torch.stack(ys, 1)
    loss = ((yh - y) ** 2).mean()
    loss.backward()
    return loss


def run(case, dt, reps, dev):
    B, T, mN, mG, bb = {"msd": (300, 250, 10, 50, 8), "large": (10000, 1000, 20, 200, 1000)}[case]
    gen = torch.Generator().manual_seed(42)
    ps = mlp_params([2, 4, 4, mN], dev, dt, gen)
    g = ((torch.rand(mN, mG, generator=gen, dtype=torch.float64) * 2 - 1) * 0.05).to(dev, dt).requires_grad_()
    u = (torch.rand(B, T, generator=gen, dtype=torch.float64) * 2 - 1).to(dev, dt)
    y = (torch.rand(B, T, generator=gen, dtype=torch.float64) * 2 - 1).to(dev, dt)
    q = torch.cat([torch.zeros_like(y[:, :1]), y[:, :-1]], 1)

    def timeit(f):
        f()  # warm-up
        torch.cuda.synchronize()
        ts = []
        for _ in range(reps):
            t0 = time.perf_counter()
            f()
            torch.cuda.synchronize()
            ts.append(time.perf_counter() - t0)
        return min(ts), sorted(ts)[len(ts) // 2]

    def zero():
        for p in ps + [g]:
            p.grad = None

    ep = timeit(lambda: (zero(), open_loop_epoch(ps, g, u, q, y)))
    print(f"{case:5s} {str(dt):13s} epoch      min {ep[0]*1e3:10.2f} ms  median {ep[1]*1e3:10.2f} ms", flush=True)

    def bptt():
        zero()
        for b0 in range(0, B, bb):
            bptt_batch(ps, g, u[b0:b0 + bb], y[b0:b0 + bb])
    bp = timeit(bptt)
    print(f"{case:5s} {str(dt):13s} bptt epoch min {bp[0]*1e3:10.2f} ms  median {bp[1]*1e3:10.2f} ms", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--case", default="all", choices=["msd", "large", "all"])
    ap.add_argument("--dtype", default="all", choices=["float64", "float32", "all"])
    ap.add_argument("--reps", type=int, default=5)
    a = ap.parse_args()
    dev = torch.device("cuda")
    print("torch", torch.__version__, "on", torch.cuda.get_device_name(0))
    for case in (["msd", "large"] if a.case == "all" else [a.case]):
        for dt in ([torch.float64, torch.float32] if a.dtype == "all" else [getattr(torch, a.dtype)]):
            run(case, dt, a.reps, dev)


if __name__ == "__main__":
    main()
