#!/usr/bin/env python3
"""Algorithm 1 of the paper in PyTorch on the CPU: the peer of `gputrain bench train --torch`.

The Go side (trainbench/torch.go, which embeds this file) writes three files and runs
this script on them, so that both sides train on the very same numbers:

  --data    {"train": {"u": [[...]], "y": [[...]], "y_clean": [[...] or null]}, "val": {...}}
  --model   the starting model, a gputrain-nfir model file (docs/MODEL_FORMAT.md): the
            scalers and the Xavier-initialised lifting network the Go trainer starts from
  --config  the trainer.Config settings it uses (iters, epochs, patience, batch, lr, ...)

and reads back --out, a JSON object: the closed-loop validation Fit after each iteration
against the wall time since training began (the curve trainbench.Result holds), the final
(best) Fit, where the time went, and the Fit of the starting model (the parity check of
trainbench/torch_test.go). --model-out writes the best model in the same model format, so
that Go can evaluate it again.

Algorithm 1 as the Go trainer runs it (trainer/trainer.go), step by step:
  theta_G: Gram matrix P = sum Phi'Phi, b = sum Phi'y of the branch regressors
           Phi[t, (j,k)] = n_j(t) n_j(t-k) u(t-k) (and u(t-k) for a parallel linear FIR),
           then min 1/2 x'(P + gamma_G I)x - b'x under the passivity constraints of every
           FIR and the decay bounds |g(k)| <= rho*decay^k, solved by cvxopt.solvers.qp in
           an exchange loop: "exact": Re G(w) = sum_k g(k)cos(kw) >= 0 for all w, from a
           working set of 4*m_G frequencies per FIR, grown by the local minima of Re G
           (a 4096-point grid, refined by Newton's method) that fall more than 1e-6*sum|g|
           below 0, with a cluster of points around each; the deficit left is repaired by
           raising g(0), as the Go solver's ShiftTol does. "sampled": Theorem 3's
           sum_k g(k)*2cos(h*pi*k/H) >= eps, h = 0..H, by an exchange over the samples.
           A decay bound enters the problem once its tap exceeds it (one that is never
           reached does not change the optimum).
           From the second iteration of a feedback model with gram-gains "auto", two
           candidate gain sets (q from the data, q from the closed-loop simulation) are
           solved and the taps with the lower closed-loop validation error are kept.
  theta_N: AdamW (beta 0.9/0.999, eps 1e-8, decoupled weight decay), global gradient-norm
           clip, shuffled mini-batches of whole trajectories, open-loop loss (q from the
           measured output), early stopping on the open-loop validation MSE with patience,
           the best parameters of the stage kept.
  eval:    closed-loop simulation (q(t) = yhat(t-1)) of every validation trajectory, the
           median of the per-trajectory Fit 100(1 - |y - yhat|/|y|) against the noise-free
           output when the data have one; the best model over the iterations is kept.
"""
import argparse
import json
import math
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

try:
    import cvxopt
    import cvxopt.solvers
except ImportError:  # the Go side checks first; this is for a direct run
    sys.exit("torch_train.py: needs cvxopt (Debian: python3-cvxopt)")


def log(msg):
    print(msg, file=sys.stderr, flush=True)


# --- the model ---------------------------------------------------------------

class Model:
    """The NFIR operator of docs/MODEL_FORMAT.md ("The operator, exactly") in torch."""

    def __init__(self, mf, dtype):
        st = mf["structure"]
        if st.get("hold_start"):
            raise ValueError("hold_start models are not supported by the peer")
        self.file = mf
        self.dtype = dtype
        self.mN, self.mG = st.get("branches", 0), st.get("taps", 0)
        self.R1, self.R2 = st.get("r1", 0), st.get("r2", 0)
        self.fb = bool(st.get("feedback", False))
        if not self.fb:
            self.R2 = 0
        self.mL = st.get("linear_taps", 0)
        self.su = mf["scalers"]["u"]
        self.sq = mf["scalers"]["q"]
        mlp = mf.get("mlp") or {}
        self.W = [torch.tensor(w, dtype=dtype).reshape(mlp["sizes"][i + 1], mlp["sizes"][i]).requires_grad_()
                  for i, w in enumerate(mlp.get("weights") or [])]
        self.b = [torch.tensor(b, dtype=dtype).requires_grad_() for b in (mlp.get("biases") or [])]
        g = mf.get("g") or []
        self.set_taps(np.array(g, dtype=np.float64).reshape(self.mN, self.mG) if self.mN else np.zeros((0, 0)),
                      np.array(mf.get("linear") or [], dtype=np.float64))

    def params(self):
        return self.W + self.b

    def set_taps(self, g, lin):
        self.g64, self.lin64 = np.array(g, dtype=np.float64), np.array(lin, dtype=np.float64)
        self.g = torch.tensor(self.g64, dtype=self.dtype)
        self.lin = torch.tensor(self.lin64, dtype=self.dtype)

    @staticmethod
    def scale(x, s):
        return (x / s["scale"] - s["mean"]) / s["std"]

    @staticmethod
    def window(x, R):
        """(B, T, R): x(t-R+1..t), oldest first, 0 before t = 0."""
        xp = F.pad(x, (R - 1, 0))
        return xp.unfold(1, R, 1)

    def features(self, u, q):
        """(B, T, F) network inputs from raw u and q (B, T)."""
        parts = [self.scale(self.window(u, self.R1), self.su)]
        if self.fb and self.R2 > 0:
            parts.append(self.scale(self.window(q, self.R2), self.sq))
        return torch.cat(parts, -1)

    def gains(self, x):
        for W, b in zip(self.W, self.b):
            x = torch.tanh(x @ W.T + b)
        return x

    def lin_out(self, u):
        if self.mL == 0:
            return torch.zeros_like(u)
        return F.conv1d(F.pad(u.unsqueeze(1), (self.mL - 1, 0)), self.lin.flip(0).view(1, 1, -1)).squeeze(1)

    def output(self, n, u):
        """y (B, T) from the gains n (B, T, mN) and u (B, T): the FIR part of the operator."""
        y = self.lin_out(u)
        if self.mN:
            v = (n * u.unsqueeze(-1)).transpose(1, 2)  # (B, mN, T) = n_j u
            z = F.conv1d(F.pad(v, (self.mG - 1, 0)), self.g.flip(1).unsqueeze(1), groups=self.mN)
            y = y + (n * z.transpose(1, 2)).sum(-1)
        return y

    @torch.no_grad()
    def simulate(self, u):
        """Closed loop, q(t) = yhat(t-1), q(0) = 0: (B, T) outputs."""
        B, T = u.shape
        y = torch.zeros(B, T, dtype=self.dtype)
        ylin = self.lin_out(u)
        if self.mN == 0:
            return ylin
        uw = self.scale(self.window(u, self.R1), self.su)  # the u part does not depend on the loop
        gr = self.g.flip(1)                                  # gr[:, mG-1-k] = g(k)
        w = torch.zeros(B, self.mN, T + self.mG - 1, dtype=self.dtype)
        qraw = torch.zeros(B, T + self.R2, dtype=self.dtype)  # qraw[:, R2 + t] = q(t) = y(t-1)
        for t in range(T):
            p = uw[:, t, :]
            if self.fb and self.R2 > 0:
                p = torch.cat([p, self.scale(qraw[:, t + 1:t + 1 + self.R2], self.sq)], -1)
            n = self.gains(p)
            w[:, :, t + self.mG - 1] = n * u[:, t:t + 1]
            yt = (n * (w[:, :, t:t + self.mG] * gr).sum(-1)).sum(-1) + ylin[:, t]
            y[:, t] = yt
            if t + 1 < T:
                qraw[:, self.R2 + t + 1] = yt
        return y

    def regressors(self, n, u):
        """Phi (B*T, mN*mG + mL) in float64: column j*mG+k is n_j(t) n_j(t-k) u(t-k)."""
        B, T = u.shape
        cols = []
        if self.mN:
            v = (n * u.unsqueeze(-1)).transpose(1, 2)               # (B, mN, T)
            win = F.pad(v, (self.mG - 1, 0)).unfold(2, self.mG, 1)  # (B, mN, T, mG): v(t-mG+1..t)
            phi = n.transpose(1, 2).unsqueeze(-1) * win.flip(-1)      # k = 0 first
            cols.append(phi.permute(0, 2, 1, 3).reshape(B * T, self.mN * self.mG))
        if self.mL:
            cols.append(self.window(u, self.mL).flip(-1).reshape(B * T, self.mL))
        return torch.cat(cols, -1)

    def to_file(self):
        mf = json.loads(json.dumps(self.file))
        if self.mN:
            mf["g"] = [list(map(float, r)) for r in self.g64]
            mf["mlp"]["weights"] = [list(map(float, W.detach().double().reshape(-1))) for W in self.W]
            mf["mlp"]["biases"] = [list(map(float, b.detach().double())) for b in self.b]
        mf["linear"] = list(map(float, self.lin64))
        # The peer checks passivity on a grid only: the file claims nothing.
        mf["passivity"] = {"mode": "none"}
        mf["training"] = {"peer": "torch_train.py", "torch": torch.__version__}
        return mf


# --- data ---------------------------------------------------------------------

class Split:
    """A data set as padded (B, T) tensors; mask is 1 on real samples."""

    def __init__(self, d, dtype, skip):
        us, ys = d["u"], d["y"]
        ycs = d.get("y_clean") or [None] * len(us)
        T = max(len(x) for x in us)
        B = len(us)
        self.lens = [len(x) for x in us]
        u, y, yc = np.zeros((B, T)), np.zeros((B, T)), np.zeros((B, T))
        mask = np.zeros((B, T))
        for i in range(B):
            L = len(us[i])
            u[i, :L], y[i, :L] = us[i], ys[i]
            yc[i, :L] = ycs[i] if ycs[i] is not None else ys[i]
            mask[i, skip:L] = 1
        self.u = torch.tensor(u, dtype=dtype)
        self.y = torch.tensor(y, dtype=dtype)
        self.y64, self.target, self.mask64 = y, yc, mask
        self.mask = torch.tensor(mask, dtype=dtype)
        self.q = F.pad(self.y, (1, 0))[:, :-1]  # q(t) = y(t-1), q(0) = 0
        self.skip = skip
        self.rows = mask.sum()


def fits(yhat, s):
    """Per-trajectory Fit % (model.Fit) against the target, from sample skip on."""
    out = []
    yh = yhat.detach().double().numpy()
    for i, L in enumerate(s.lens):
        y, p = s.target[i, s.skip:L], yh[i, s.skip:L]
        sc = np.abs(y).max()
        if sc == 0:
            out.append(float("nan"))
            continue
        if not np.all(np.isfinite(p)):
            out.append(float("-inf"))
            continue
        e = np.sum((y / sc - p / sc) ** 2)
        out.append(100 * (1 - math.sqrt(e / np.sum((y / sc) ** 2))))
    return out


def median_fit(m, s):
    f = [v for v in fits(m.simulate(s.u), s) if not math.isnan(v)]
    return float(np.median(f)), f


def closed_mse(m, s):
    yh = m.simulate(s.u).double().numpy()
    e = float(np.sum(s.mask64 * (yh - s.y64) ** 2) / s.rows)
    return e if math.isfinite(e) else math.inf


# --- theta_G ------------------------------------------------------------------

GRID = 4096  # points of the exact-mode check over [0, pi]


def re_g(g, N):
    """Re G(pi*i/N) = sum_k g(k) cos(pi*i*k/N), i = 0..N."""
    return np.fft.rfft(g, 2 * N).real[:N + 1]


def minima(g, below):
    """The local minima of Re G over [0, pi] whose grid value is below `below`, each refined
    by Newton's method within its grid cell (the grid alone misses a dip of a filter with
    large late taps by 1e-6): a list of (omega, Re G(omega))."""
    v = re_g(g, GRID)
    k = np.arange(len(g))
    h = math.pi / GRID
    out = []
    for i in np.nonzero(v < below)[0]:
        if not ((i == 0 or v[i] <= v[i - 1]) and (i == GRID or v[i] <= v[i + 1])):
            continue
        w = i * h
        for _ in range(8):
            d1 = -np.sum(k * g * np.sin(k * w))
            d2 = -np.sum(k * k * g * np.cos(k * w))
            if not d2 > 0:
                break
            w = min(max(w - d1 / d2, max(0.0, (i - 1) * h)), min(math.pi, (i + 1) * h))
        out.append((w, min(float(np.sum(g * np.cos(k * w))), float(v[i]))))
    return out


class Block:
    def __init__(self, off, n, cfg):
        self.off, self.n = off, n
        self.kind = cfg["passivity"]
        self.H, self.eps = cfg["H"], cfg["eps"]
        self.rho, self.decay = cfg["rho"], cfg["decay"]
        self.bounded = set()  # taps whose decay-bound rows are in the problem
        if self.kind == "sampled":
            m = min(self.H + 1, max(2 * n, 2))
            self.work = sorted(set(int(round(i * self.H / (m - 1))) for i in range(m)))
        else:
            m = 4 * n
            self.work = [math.pi * i / (m - 1) for i in range(m)]

    def omegas(self):
        if self.kind == "sampled":
            return np.array(self.work) * math.pi / self.H
        return np.array(self.work)

    def rhs(self, g):
        if self.kind == "sampled":
            return self.eps
        # exact: margin 0 imposed at +Delta on the working rows (2cos convention)
        return 2 * max(1e-8 * np.abs(g).sum(), 1e-12)

    def violated(self, g):
        """Add what the current taps violate; True when something was added."""
        added = False
        if self.rho > 0:
            bound = self.rho * self.decay ** np.arange(self.n)
            for k in np.nonzero(np.abs(g) > bound * (1 + 1e-9))[0]:
                if int(k) not in self.bounded:
                    self.bounded.add(int(k))
                    added = True
        return self.violated_re(g) or added

    def violated_re(self, g):
        if self.kind == "sampled":
            v = re_g(g, self.H) * 2  # all H+1 samples in the 2cos convention
            bad = np.nonzero(v < self.eps - 1e-9 * max(1, np.abs(g).sum()))[0]
            add = set()
            for h in bad:
                if (h == 0 or v[h] <= v[h - 1]) and (h == self.H or v[h] <= v[h + 1]):
                    add.update(range(max(0, h - 3), min(self.H, h + 3) + 1))
            new = add - set(self.work)
            self.work = sorted(set(self.work) | new)
            return bool(new)
        tol = 1e-6 * np.abs(g).sum()
        added = False
        for w0, val in minima(g, tol):
            if val >= -tol:
                continue
            for d in (-2, -1, 0, 1, 2):
                w = min(max(w0 + d * math.pi / GRID / 2, 0.0), math.pi)
                if all(abs(w - x) > 1e-12 for x in self.work):
                    self.work.append(w)
                    added = True
        return added

    def shift(self, g):
        """exact: raise g(0) by the deficit of the (refined) minimum of Re G below 0."""
        if self.kind == "exact":
            d = -min([v for _, v in minima(g, 1e-6 * np.abs(g).sum())] + [0.0])
            if d > 0:
                g[0] += d * (1 + 1e-9) + 1e-15
        return g


def solve_qp(P, bvec, gamma, blocks):
    """The exchange loop around cvxopt.solvers.qp: the frequency rows of every block's working
    set, and the decay-bound rows of the taps that have met their bound (a bound that is never
    reached does not change the optimum; the loop adds the rows of any tap that exceeds it)."""
    n = len(bvec)
    Q = P + gamma * np.eye(n)
    s = np.trace(Q) / n  # conditioning; the optimum does not change
    if not s > 0:
        s = 1.0
    x = None
    rounds = iters = 0
    for rounds in range(1, 51):
        Gs, hs = [], []
        for bl in blocks:
            if bl.kind == "none":
                continue
            g = x[bl.off:bl.off + bl.n] if x is not None else np.zeros(bl.n)
            k = np.arange(bl.n)
            A = np.zeros((len(bl.work), n))
            A[:, bl.off:bl.off + bl.n] = -2 * np.cos(np.outer(bl.omegas(), k))
            Gs.append(A)
            hs.append(np.full(len(bl.work), -bl.rhs(g)))
            for kk in sorted(bl.bounded):
                bound = bl.rho * bl.decay ** kk
                row = np.zeros((2, n))
                row[0, bl.off + kk], row[1, bl.off + kk] = 1, -1
                Gs.append(row)
                hs.append([bound, bound])
        args = [cvxopt.matrix(Q / s), cvxopt.matrix(-bvec / s)]
        if Gs:
            args += [cvxopt.matrix(np.vstack(Gs)), cvxopt.matrix(np.concatenate(hs))]
        sol = cvxopt.solvers.qp(*args)
        if sol["x"] is None:
            raise RuntimeError("cvxopt: " + sol["status"])
        iters += sol["iterations"]
        x = np.array(sol["x"]).ravel()
        more = False
        for bl in blocks:
            if bl.kind != "none" and bl.violated(x[bl.off:bl.off + bl.n]):
                more = True
        if not more:
            break
    for bl in blocks:
        if bl.kind != "none":
            x[bl.off:bl.off + bl.n] = bl.shift(x[bl.off:bl.off + bl.n].copy())
    rows = sum(len(bl.work) + 2 * len(bl.bounded) for bl in blocks)
    return x, {"rounds": rounds, "rows": rows, "ip_iterations": iters}


def gram(m, s, X, chunk=40):
    """P, b of the regressors for the gains of features X (B, T, F), in float64."""
    n = m.mN * m.mG + m.mL
    P, b = np.zeros((n, n)), np.zeros(n)
    with torch.no_grad():
        for lo in range(0, s.u.shape[0], chunk):
            sl = slice(lo, lo + chunk)
            gains = m.gains(X[sl]) if m.mN else None
            phi = m.regressors(gains, s.u[sl]).double() * s.mask[sl].double().reshape(-1, 1)
            y = (s.y[sl].double() * s.mask[sl].double()).reshape(-1)
            P += (phi.T @ phi).numpy()
            b += (phi.T @ y).numpy()
    return P, b


# --- Algorithm 1 ------------------------------------------------------------------

def clean(v):
    """JSON has no NaN or infinity: null for them (the Go side reads null as NaN)."""
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if isinstance(v, dict):
        return {k: clean(x) for k, x in v.items()}
    if isinstance(v, list):
        return [clean(x) for x in v]
    return v


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", required=True)
    ap.add_argument("--model", required=True, help="the starting model (gputrain-nfir)")
    ap.add_argument("--config", required=True)
    ap.add_argument("--out", required=True, help="the result (JSON)")
    ap.add_argument("--model-out", help="write the best model here (gputrain-nfir, passivity none)")
    ap.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    ap.add_argument("--threads", type=int, default=2, help="torch.set_num_threads")
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    cvxopt.solvers.options["show_progress"] = False
    dtype = getattr(torch, a.dtype)
    say = (lambda _m: None) if a.quiet else log

    with open(a.config) as f:
        cfg = json.load(f)
    for key, ok in (("monitor", ("open", "")), ("passivity", ("exact", "sampled", "none"))):
        if cfg.get(key, "") not in ok:
            sys.exit(f"torch_train.py: {key} {cfg.get(key)!r} is not supported by the peer")
    if cfg.get("bptt_epochs", 0) > 0:
        sys.exit("torch_train.py: BPTT epochs are not supported by the peer")
    with open(a.model) as f:
        m = Model(json.load(f), dtype)
    with open(a.data) as f:
        d = json.load(f)
    torch.manual_seed(cfg.get("seed", 1))
    gen = torch.Generator().manual_seed(cfg.get("seed", 1))

    t0 = time.perf_counter()
    tr = Split(d["train"], dtype, cfg["skip"])
    va = Split(d["val"], dtype, cfg["val_skip"])
    res = {"dtype": a.dtype, "threads": torch.get_num_threads(), "torch": torch.__version__,
           "closed_loop": [], "monitored": [], "iterations": []}
    res["initial_val_fit"], res["initial_val_fits"] = median_fit(m, va)
    t0 = time.perf_counter()  # the Go trainer's clock starts before its features, as this one

    Xtr = m.features(tr.u, tr.q) if m.mN else None
    Xva = m.features(va.u, va.q) if m.mN else None
    blocks = [Block(j * m.mG, m.mG, cfg) for j in range(m.mN)]
    if m.mL:
        blocks.append(Block(m.mN * m.mG, m.mL, cfg))
    best_fit, best_file = -math.inf, None
    tg = ta = te = 0.0
    nb = tr.u.shape[0]
    for it in range(cfg["iters"] if m.mN else 1):
        # theta_G
        t1 = time.perf_counter()
        cands = [("data", Xtr)]
        if m.fb and m.mN and it > 0 and cfg["gram_gains"] != "data":
            yh = m.simulate(tr.u)
            Xcl = m.features(tr.u, F.pad(yh, (1, 0))[:, :-1])
            cands = ([] if cfg["gram_gains"] == "closed" else cands) + [("closed", Xcl)]
        saved = [(list(bl.work), set(bl.bounded)) for bl in blocks]
        best = None
        info = {}
        for name, X in cands:
            for bl, (w, bd) in zip(blocks, saved):
                bl.work, bl.bounded = list(w), set(bd)  # each candidate starts from the last chosen working set
            P, bv = gram(m, tr, X)
            tq = time.perf_counter()
            x, info[name] = solve_qp(P, bv, cfg["gamma_g"], blocks)
            info[name]["qp_seconds"] = time.perf_counter() - tq
            if len(cands) > 1:
                m.set_taps(x[:m.mN * m.mG].reshape(m.mN, m.mG), x[m.mN * m.mG:])
                e = closed_mse(m, va)
                info[name]["closed_mse"] = e
                if best is None or e < best[0]:
                    best = (e, x, [(list(bl.work), set(bl.bounded)) for bl in blocks], name)
            else:
                best = (0, x, [(list(bl.work), set(bl.bounded)) for bl in blocks], name)
        _, x, works, chosen = best
        for bl, (w, bd) in zip(blocks, works):
            bl.work, bl.bounded = w, bd
        m.set_taps(x[:m.mN * m.mG].reshape(m.mN, m.mG), x[m.mN * m.mG:])
        tg += time.perf_counter() - t1

        # theta_N
        t1 = time.perf_counter()
        epochs_run = 0
        if m.mN and cfg["epochs"] > 0:
            params = m.params()
            opt = torch.optim.AdamW(params, lr=cfg["lr"], betas=(0.9, 0.999), eps=1e-8,
                                    weight_decay=cfg["weight_decay"])
            keep = [p.detach().clone() for p in params]
            best_loss, since = math.inf, 0
            for ep in range(cfg["epochs"]):
                perm = torch.randperm(nb, generator=gen)
                for lo in range(0, nb, cfg["batch"]):
                    idx = perm[lo:lo + cfg["batch"]]
                    for p in params:
                        p.grad = None
                    mask = tr.mask[idx]
                    e = m.output(m.gains(Xtr[idx]), tr.u[idx]) - tr.y[idx]
                    loss = (mask * e * e).sum() / mask.sum()
                    loss.backward()
                    if cfg["clip"] > 0:
                        torch.nn.utils.clip_grad_norm_(params, cfg["clip"])
                    opt.step()
                epochs_run = ep + 1
                with torch.no_grad():
                    e = m.output(m.gains(Xva), va.u) - va.y
                    v = float((va.mask * e * e).sum() / va.rows)
                res["monitored"].append({"seconds": time.perf_counter() - t0, "val_mse": v})
                if v < best_loss:
                    best_loss, since = v, 0
                    keep = [p.detach().clone() for p in params]
                else:
                    since += 1
                    if cfg["patience"] > 0 and since >= cfg["patience"]:
                        break
            with torch.no_grad():
                for p, k in zip(params, keep):
                    p.copy_(k)
        ta += time.perf_counter() - t1

        # closed-loop validation
        t1 = time.perf_counter()
        fit, _ = median_fit(m, va)
        if fit > best_fit or best_file is None:
            best_fit, best_file = fit, m.to_file()
        te += time.perf_counter() - t1
        now = time.perf_counter() - t0
        res["closed_loop"].append({"seconds": now, "val_fit": fit})
        res["iterations"].append({"gains": chosen, "epochs": epochs_run, "qp": info})
        say(f"torch {a.dtype}: iter {it + 1} closed-loop val fit {fit:.2f}% at {now:.1f} s "
            f"({chosen} gains, {epochs_run} epochs)")
    res["seconds"] = time.perf_counter() - t0
    res["final_val_fit"] = best_fit
    res["theta_g_seconds"], res["adam_seconds"], res["eval_seconds"] = tg, ta, te
    if a.model_out:
        with open(a.model_out, "w") as f:
            json.dump(best_file, f)
    with open(a.out, "w") as f:
        json.dump(clean(res), f, allow_nan=False)


if __name__ == "__main__":
    try:
        main()
    except (ValueError, KeyError, RuntimeError) as e:
        sys.exit(f"torch_train.py: {type(e).__name__}: {e}")
