#!/usr/bin/env python3
"""PyTorch (eager) equivalent of the NFIR open-loop epoch, BPTT epoch and Adam
mini-batch step, for comparison with the Go CUDA backend
(kernels/cuda_bench_test.go) on the same GPU, or with the Go CPU benchmarks
(graph/bench_test.go) on the same CPU cores. Same cases and definitions as the
Go benchmarks:

  msd:   300 trajectories x 250 samples, m_N=10, m_G=50,  R1=R2=1, MLP 2->4->4->10
  large: 10000 x 1000,                   m_N=20, m_G=200, R1=R2=1, MLP 2->4->4->20

epoch      = loss (MSE) + backward over all trajectories, q from the data
bptt epoch = closed-loop rollout (q(t) = yhat(t-1)) + backward over all
             trajectories in batches of 8 (msd) / 1000 (large)

step       = one Adam mini-batch step of graph.BenchmarkMiniBatchStep: 8 x 250
             samples (msd sizes), open-loop loss (MSE, q from the data),
             forward and backward to the gradient of theta_N (the MLP; the
             taps are fixed in the theta_N step, as in the Go benchmark,
             which times o.LossGrad only); "step+adam" adds the gradient
             clip and the AdamW update that the trainer applies after it.

The branch bank z_j = g_j * (n_j u) is a depthwise causal conv1d (groups=m_N,
left padding m_G-1, flipped taps), never a dense Toeplitz matrix.
Usage: python3 bench/torch_nfir.py [--device cuda|cpu] [--threads N]
         [--bench epoch,bptt,step] [--case msd|large|all] [--dtype float64|float32|all] [--reps 5]
On the CPU, --threads sets torch.set_num_threads (default: torch's own).
Side by side with Go on the CPU: see docs/BENCHMARKS.md, "Session 18".
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


def step_bench(dt, reps, dev):
    """graph.BenchmarkMiniBatchStep's computation: per-step wall times (s)."""
    B, T, mN, mG = 8, 250, 10, 50
    gen = torch.Generator().manual_seed(7)
    ps = mlp_params([2, 4, 4, mN], dev, dt, gen)
    g = ((torch.rand(mN, mG, generator=gen, dtype=torch.float64) * 2 - 1) * 0.05).to(dev, dt)
    u = torch.randn(B, T, generator=gen, dtype=torch.float64).to(dev, dt)
    y = torch.randn(B, T, generator=gen, dtype=torch.float64).to(dev, dt)
    q = torch.cat([torch.zeros_like(y[:, :1]), y[:, :-1]], 1)
    opt = torch.optim.AdamW(ps, lr=5e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-5)

    def sync():
        if dev.type == "cuda":
            torch.cuda.synchronize()

    def lossgrad():
        for p in ps:
            p.grad = None
        open_loop_epoch(ps, g, u, q, y)

    def adam():
        lossgrad()
        torch.nn.utils.clip_grad_norm_(ps, 5.0)
        opt.step()

    out = {}
    for name, f in (("step", lossgrad), ("step+adam", adam)):
        for _ in range(20):  # warm-up
            f()
        sync()
        ts = []
        t0 = time.perf_counter()
        for _ in range(reps):
            t1 = time.perf_counter()
            f()
            sync()
            ts.append(time.perf_counter() - t1)
        mean = (time.perf_counter() - t0) / reps
        ts.sort()
        out[name] = (ts[0], ts[len(ts) // 2], mean)
    return out


def run(case, dt, reps, dev, benches=("epoch", "bptt")):
    B, T, mN, mG, bb = {"msd": (300, 250, 10, 50, 8), "large": (10000, 1000, 20, 200, 1000)}[case]
    gen = torch.Generator().manual_seed(42)
    ps = mlp_params([2, 4, 4, mN], dev, dt, gen)
    g = ((torch.rand(mN, mG, generator=gen, dtype=torch.float64) * 2 - 1) * 0.05).to(dev, dt).requires_grad_()
    u = (torch.rand(B, T, generator=gen, dtype=torch.float64) * 2 - 1).to(dev, dt)
    y = (torch.rand(B, T, generator=gen, dtype=torch.float64) * 2 - 1).to(dev, dt)
    q = torch.cat([torch.zeros_like(y[:, :1]), y[:, :-1]], 1)

    def sync():
        if dev.type == "cuda":
            torch.cuda.synchronize()

    def timeit(f):
        f()  # warm-up
        sync()
        ts = []
        for _ in range(reps):
            t0 = time.perf_counter()
            f()
            sync()
            ts.append(time.perf_counter() - t0)
        return min(ts), sorted(ts)[len(ts) // 2]

    def zero():
        for p in ps + [g]:
            p.grad = None

    if "epoch" in benches:
        ep = timeit(lambda: (zero(), open_loop_epoch(ps, g, u, q, y)))
        print(f"{case:5s} {str(dt):13s} epoch      min {ep[0]*1e3:10.2f} ms  median {ep[1]*1e3:10.2f} ms", flush=True)
    if "bptt" not in benches:
        return

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
    ap.add_argument("--reps", type=int, default=5, help="repetitions (step: at least 200)")
    ap.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
    ap.add_argument("--threads", type=int, default=0, help="torch.set_num_threads on the CPU (0: torch's default)")
    ap.add_argument("--bench", default="epoch,bptt", help="comma-separated: epoch, bptt, step")
    a = ap.parse_args()
    benches = [b.strip() for b in a.bench.split(",")]
    for b in benches:
        if b not in ("epoch", "bptt", "step"):
            ap.error(f"--bench: unknown {b!r}")
    dev = torch.device(a.device)
    if a.threads > 0:
        torch.set_num_threads(a.threads)
    where = torch.cuda.get_device_name(0) if a.device == "cuda" else f"cpu, {torch.get_num_threads()} threads"
    print("torch", torch.__version__, "on", where, flush=True)
    dts = [torch.float64, torch.float32] if a.dtype == "all" else [getattr(torch, a.dtype)]
    if "step" in benches:
        for dt in dts:
            for name, (lo, med, mean) in step_bench(dt, max(a.reps, 200), dev).items():
                print(f"msd   {str(dt):13s} {name:10s} min {lo*1e3:8.3f} ms  median {med*1e3:8.3f} ms  mean {mean*1e3:8.3f} ms", flush=True)
    rest = [b for b in benches if b != "step"]
    if not rest:
        return
    for case in (["msd", "large"] if a.case == "all" else [a.case]):
        for dt in dts:
            run(case, dt, a.reps, dev, rest)


if __name__ == "__main__":
    main()
