"""Read gputrain model files (format "gputrain-nfir", versions 1 and 2, and format
"gputrain-model", class "loop", "ren" or "mean") and run them, with NumPy only.

This module is the executable form of docs/MODEL_FORMAT.md: it reads a model
file as that document specifies, re-checks the passivity claim from the taps,
and computes the operator in plain loops. Its outputs equal `gputrain simulate`
to about 1e-15 relative (the Go tests check 1e-12).

    import gputrain_model as gm
    m = gm.load("model.json")          # refuses a false passivity claim
    y = m.simulate(u)                  # closed loop: q(t) = y(t-1), q(0) = 0
    yhat = m.simulate_open_loop(u, y)  # one-step-ahead: q(t) = measured y(t-1)
    m.certificate                      # per FIR: (lower bound of min Re G, omega)

    lp = gm.load("loop.json")          # a LoopModel: y = H1(u - H2(y)), every FIR certified
    y = lp.simulate(u)                 # lp.certificate: [(name, bound, omega), ...]

    rn = gm.load("ren.json")           # a RENModel (class ren): rn.certificate: [("H", min eig H, nan)]
    y = rn.simulate(u)

    mn = gm.load("mean.json")          # a MeanModel (class mean): the weighted mean of RENs and loops
    y = mn.simulate(u)                 # mn.certificate: every member's, names prefixed "member i "

    ss = gm.load_ss("plant_ss.npz")    # a linear FIR's realization (gputrain export --format python-ss)
    # ss["A"], ss["B"], ss["C"], ss["D"], ss["Ts"]; e.g. control.ss(A, B, C, D, Ts)

Run as a script, `python3 gputrain_model.py model.json` prints the model and
its certificate.
"""

import json
import math
import sys
import warnings

import numpy as np

FORMAT = "gputrain-nfir"
VERSION = 2

_STRUCTURE_KEYS = {"branches", "taps", "r1", "r2", "hidden", "feedback", "linear_taps", "hold_start"}
_TOP_KEYS = {"format", "version", "structure", "ts", "scalers", "g", "linear", "mlp", "passivity", "training"}

ENVELOPE_FORMAT = "gputrain-model"
ENVELOPE_VERSION = 5
MEAN_VERSION = 5  # the envelope version that introduced class mean
MAX_COUNT = 1 << 20  # loop.MaxCount, ensemble.MaxCount
_ENVELOPE_KEYS = {"format", "class", "version", "ts", "params", "training"}
_LOOP_PARAMS_KEYS = {"structure", "u_scale", "y_scale", "theta"}
_LOOP_STRUCTURE_KEYS = {"r1", "r2", "hidden", "b1", "t1", "l1", "b2", "t2", "l2", "p1", "s", "rec"}
LOOP_MARGIN = 1e-6  # loop.Margin: g(0) = (1/2 + margin) * sum f^2


class NotPassiveError(ValueError):
    """A model file claims passivity that its taps do not have."""


def _no_duplicates(pairs):
    d = {}
    for k, v in pairs:
        if k in d:
            raise ValueError("key %r given twice" % k)
        d[k] = v
    return d


def _reject_constant(name):
    raise ValueError("%s is not a JSON number" % name)


def _int(v, name):
    if isinstance(v, bool) or not isinstance(v, int):
        raise ValueError("%s: %r is not an integer" % (name, v))
    return v


def _array(v, n, name):
    if v is None:
        v = []
    a = np.asarray(v, dtype=np.float64)
    if a.ndim != 1 or a.size != n:
        raise ValueError("%s has %d numbers, want %d" % (name, a.size, n))
    if not np.all(np.isfinite(a)):
        raise ValueError("%s: a number is not finite" % name)
    return a


def certify(g, grid=None):
    """Lower bound of min over w in [0, pi] of Re G(e^{iw}) = sum_k g(k) cos(k w), and where.

    Re G is evaluated on a uniform grid of N + 1 points by one FFT; between grid
    points it cannot fall below the grid minimum by more than (pi/N)^2/8 *
    sum_k k^2 |g(k)| (its second derivative is bounded by that sum), and a
    rounding allowance of 1e-13 * sum|g| is subtracted too. This is looser than
    gputrain's own certificate (convex.Certify) but independent of it.
    """
    g = np.asarray(g, dtype=np.float64)
    s1 = float(np.sum(np.abs(g)))
    if s1 == 0.0:
        return 0.0, 0.0  # the all-zero FIR: Re G is exactly 0
    k = np.arange(g.size, dtype=np.float64)
    m2 = float(np.sum(k * k * np.abs(g)))
    if grid is None:
        # Enough points that the curvature term is 1e-9 * sum|g|, at most 2^22.
        need = math.pi * math.sqrt(m2 / (8e-9 * s1)) if m2 > 0 else 1.0
        grid = 1 << max(10, min(22, int(math.ceil(math.log2(max(need, 2 * g.size))))))
    re = np.fft.rfft(g, n=2 * grid).real  # Re G at w = pi * i / grid, i = 0 .. grid
    i = int(np.argmin(re))
    bound = float(re[i]) - (math.pi / grid) ** 2 / 8 * m2 - 1e-13 * s1
    return bound, math.pi * i / grid


class Model:
    """An NFIR model read from a file; see load."""

    def __init__(self, f, allow_uncertified=False):
        if not isinstance(f, dict):
            raise ValueError("the file is not a JSON object")
        unknown = set(f) - _TOP_KEYS
        if unknown:
            raise ValueError("unknown keys %s" % sorted(unknown))
        if f.get("format") != FORMAT:
            raise ValueError("format %r, want %r" % (f.get("format"), FORMAT))
        version = _int(f.get("version"), "version")
        if not 1 <= version <= VERSION:
            raise ValueError("version %d, this reader knows 1..%d" % (version, VERSION))
        st = f.get("structure")
        if not isinstance(st, dict) or set(st) - _STRUCTURE_KEYS:
            raise ValueError("structure: %r" % (st,))
        if "hold_start" in st and version < 2:
            raise ValueError("structure.hold_start needs version 2")
        self.branches = _int(st.get("branches", 0) or 0, "branches")
        self.taps = _int(st.get("taps", 0) or 0, "taps")
        self.r1 = _int(st.get("r1", 0) or 0, "r1")
        self.r2 = _int(st.get("r2", 0) or 0, "r2")
        self.hidden = [_int(h, "hidden") for h in (st.get("hidden") or [])]
        self.feedback = bool(st.get("feedback") or False)
        self.linear_taps = _int(st.get("linear_taps", 0) or 0, "linear_taps")
        self.hold_start = bool(st.get("hold_start") or False)
        if min(self.branches, self.taps, self.r1, self.r2, self.linear_taps) < 0 or any(h < 1 for h in self.hidden):
            raise ValueError("negative size in structure")
        if self.branches + self.linear_taps == 0:
            raise ValueError("no branches and no linear FIR")
        nfeat = self.r1 + (self.r2 if self.feedback else 0)
        if self.branches > 0 and (self.taps < 1 or nfeat < 1):
            raise ValueError("branches need taps >= 1 and a lifting network input")
        self.ts = float(f.get("ts") or 0.0)
        sc = f["scalers"]
        self.su = tuple(float(sc["u"][k]) for k in ("scale", "mean", "std"))
        self.sq = tuple(float(sc["q"][k]) for k in ("scale", "mean", "std"))
        for s in (self.su, self.sq):
            if not (s[0] > 0 and s[2] > 0 and all(map(math.isfinite, s))):
                raise ValueError("a scaler needs finite scale > 0, std > 0 and a finite mean")
        g = f.get("g") or []
        if len(g) != self.branches:
            raise ValueError("%d tap vectors for %d branches" % (len(g), self.branches))
        self.G = np.array([_array(gj, self.taps, "g[%d]" % j) for j, gj in enumerate(g)]).reshape(self.branches, self.taps)
        self.lin = _array(f.get("linear"), self.linear_taps, "linear")
        mlp = f.get("mlp") or {}
        sizes = mlp.get("sizes") or []
        self.W, self.b = [], []
        if self.branches > 0:
            want = [nfeat] + self.hidden + [self.branches]
            if list(sizes) != want:
                raise ValueError("mlp.sizes %r, want %r" % (sizes, want))
            ws, bs = mlp.get("weights") or [], mlp.get("biases") or []
            if len(ws) != len(want) - 1 or len(bs) != len(want) - 1:
                raise ValueError("mlp: %d weight and %d bias layers, want %d" % (len(ws), len(bs), len(want) - 1))
            for l in range(len(want) - 1):
                self.W.append(_array(ws[l], want[l + 1] * want[l], "mlp.weights[%d]" % l).reshape(want[l + 1], want[l]))
                self.b.append(_array(bs[l], want[l + 1], "mlp.biases[%d]" % l))
        elif sizes or mlp.get("weights") or mlp.get("biases"):
            raise ValueError("a model without branches has no lifting network")
        pas = f["passivity"]
        self.mode = pas["mode"]
        if self.mode not in ("exact", "sampled", "kyp", "none"):
            raise ValueError("passivity mode %r" % self.mode)
        # The certificate is recomputed from the taps; the stored one is informational.
        self.certificate = [certify(gj) for gj in self.G]
        self.linear_certificate = certify(self.lin) if self.linear_taps > 0 else None
        failed = [j for j, c in enumerate(self.certificate) if c[0] < 0]
        if self.linear_certificate is not None and self.linear_certificate[0] < 0:
            failed.append("linear")
        self.passive = self.mode != "none" and not failed
        if self.mode != "none" and failed:
            msg = "mode %r claims passivity, but min Re G is not certified >= 0 for FIR %s" % (self.mode, failed)
            if not allow_uncertified:
                raise NotPassiveError(msg)
            warnings.warn("NOT PASSIVE: " + msg)

    def _features(self, u, q, t):
        p = []
        for i in range(self.r1):
            s = t - self.r1 + 1 + i
            if self.hold_start:
                s = max(s, 0)
            v = u[s] if s >= 0 else 0.0
            p.append((v / self.su[0] - self.su[1]) / self.su[2])
        if self.feedback:
            for i in range(self.r2):
                s = t - self.r2 + 1 + i
                v = q[s] if s >= 0 else 0.0
                p.append((v / self.sq[0] - self.sq[1]) / self.sq[2])
        return np.array(p)

    def _gains(self, p):
        h = p
        for W, b in zip(self.W, self.b):
            h = np.tanh(W @ h + b)
        return h

    def _run(self, u, q):
        u = np.asarray(u, dtype=np.float64)
        if u.ndim != 1:
            raise ValueError("u must be one record (a 1-D array)")
        T, mN, mG, mL = u.size, self.branches, self.taps, self.linear_taps
        closed = q is None
        if closed:
            q = np.zeros(T)
        y = np.zeros(T)
        n = np.zeros((T, mN))
        for t in range(T):
            if closed and t > 0:
                q[t] = y[t - 1]
            s = 0.0
            if mN:
                n[t] = self._gains(self._features(u, q, t))
                k0 = max(0, t - mG + 1)
                # z_j = sum_k g_j(k) n_j(t-k) u(t-k), k = 0 .. min(mG-1, t)
                seg = n[k0 : t + 1] * u[k0 : t + 1, None]
                z = np.einsum("jl,lj->j", self.G[:, t - k0 :: -1], seg)
                s = float(n[t] @ z)
            if mL:
                k1 = max(0, t - mL + 1)
                s += float(self.lin[t - k1 :: -1] @ u[k1 : t + 1])
            y[t] = s
        return y

    def simulate(self, u):
        """Closed-loop output of one record: a feedback model feeds back its own output."""
        return self._run(u, None)

    def simulate_open_loop(self, u, y):
        """One-step-ahead prediction: q(t) = y(t-1) of the measured y, q(0) = 0."""
        y = np.asarray(y, dtype=np.float64)
        u = np.asarray(u, dtype=np.float64)
        if y.shape != u.shape:
            raise ValueError("u and y must have the same length")
        q = np.concatenate(([0.0], y[:-1])) if y.size else y.copy()
        return self._run(u, q)

    def __repr__(self):
        return "Model(branches=%d, taps=%d, r1=%d, r2=%d, hidden=%r, feedback=%r, linear_taps=%d, mode=%r, passive=%r)" % (
            self.branches, self.taps, self.r1, self.r2, self.hidden, self.feedback, self.linear_taps, self.mode, self.passive)


def loop_sections(alpha, beta):
    """The poles a and gains b of a loop's first-order sections from their parameters
    (loop.Sections): a = (1 - margin) tanh(alpha), b = beta^2 (1 - a); s(t) = a s(t-1) + b e(t)."""
    a = [0.999999 * math.tanh(x) for x in alpha]  # 0.999999: 1 - margin, rounded once as Go's constant
    b = [beta[k] * beta[k] * (1.0 - a[k]) for k in range(len(a))]
    return a, b


def section_min_re(a, b):
    """Lower bound of min over w of Re S(e^{iw}) = b (1 - a cos w)/(1 - 2 a cos w + a^2) of a
    section, b/(1 + |a|) two ulps down (loop.SectionMinRe), and the w where it occurs."""
    v = b / (1.0 + abs(a))
    if v > 0:
        v = math.nextafter(math.nextafter(v, 0.0), 0.0)
    return v, (math.pi if a >= 0 else 0.0)


def loop_taps(f, m):
    """The taps of a loop's FIR from its factors f (loop.Taps): g(k) = sum_i f(i) f(i+k),
    g(0) times (1/2 + margin), so Re G = |F|^2/2 + margin * sum f^2."""
    g = np.zeros(m)
    for k in range(m):
        s = 0.0
        for i in range(len(f) - k):
            s += f[i] * f[i + k]
        g[k] = s
    if m:
        g[0] *= 0.5 + LOOP_MARGIN
    return g


class LoopModel:
    """A passive feedback loop of two NFIRs, y = H1(u - H2(y)), read from a gputrain-model
    file of class "loop" (docs/MODEL_FORMAT.md, package loop); see load."""

    def __init__(self, f, allow_uncertified=False):
        self.ts = _loop_envelope(f)
        self._init_params(f.get("params"), "params", "", allow_uncertified)

    def _init_params(self, p, where, prefix, allow_uncertified):
        # One loop's params object (at `where` in the file); FIR names start with prefix.
        if not isinstance(p, dict) or set(p) - _LOOP_PARAMS_KEYS:
            raise ValueError("%s: %r" % (where, sorted(p) if isinstance(p, dict) else p))
        st = p.get("structure")
        if not isinstance(st, dict) or set(st) - _LOOP_STRUCTURE_KEYS:
            raise ValueError("%s.structure: %r" % (where, st))
        for k in ("r1", "r2", "b1", "t1", "l1", "b2", "t2", "l2", "p1", "s", "rec"):
            setattr(self, k, _int(st.get(k, 0) or 0, where + ".structure." + k))
        self.hidden = [_int(h, where + ".structure.hidden") for h in (st.get("hidden") or [])]
        if min(self.r1, self.r2, self.b1, self.t1, self.l1, self.b2, self.t2, self.l2, self.p1, self.s, self.rec) < 0 or any(h < 1 for h in self.hidden):
            raise ValueError(where + ".structure: negative size or hidden width < 1")
        if self.r1 + self.r2 + self.s + self.rec < 1 or (self.b1 and self.t1 < 1) or (self.b2 and self.t2 < 1):
            raise ValueError(where + ".structure: the windows r1 + r2, states s and rec must be >= 1, and branches need taps >= 1")
        # The slow states' poles c_i = 1 - 1/tau_i, tau_i = max(4, l1/4) 4^i, and gains sqrt(1 - c_i^2).
        base = max(4.0, self.l1 / 4.0)
        self.XC = [1.0 - 1.0 / (base * 4.0 ** i) for i in range(self.s)]
        self.XK = [math.sqrt(1.0 - c * c) for c in self.XC]
        if self.b1 + self.l1 == 0 or self.b1 + self.b2 == 0:
            raise ValueError(where + ".structure: H1 needs a FIR, and the lifting network a branch to scale")
        self.u_scale = float(p.get("u_scale") or 0.0)
        self.y_scale = float(p.get("y_scale") or 0.0)
        for name, v in (("u_scale", self.u_scale), ("y_scale", self.y_scale)):
            if not (v > 0 and math.isfinite(v)):
                raise ValueError("%s.%s %r must be finite > 0" % (where, name, v))
        sizes = [self.r1 + self.r2 + 2 * self.s + self.rec] + self.hidden + [self.b1 + self.b2]
        nmlp = sum(sizes[l + 1] * sizes[l] + sizes[l + 1] for l in range(len(sizes) - 1))
        H = self.rec  # the recurrent lift's GRU cell: 3H x 2 input weights, 3H x H, 3H biases, H
        nf = [self.b1 * self.t1, self.l1, self.b2 * self.t2, self.l2, self.p1, self.p1, 6 * H + 3 * H * H + 4 * H]
        theta = _array(p.get("theta"), nmlp + sum(nf), where + ".theta")
        self.W, self.b = [], []
        o = 0
        for l in range(len(sizes) - 1):
            self.W.append(theta[o : o + sizes[l + 1] * sizes[l]].reshape(sizes[l + 1], sizes[l]))
            o += sizes[l + 1] * sizes[l]
            self.b.append(theta[o : o + sizes[l + 1]])
            o += sizes[l + 1]
        fac = []
        for n in nf:
            fac.append(theta[o : o + n])
            o += n
        # Taps in normalized units, each FIR from its own factors.
        self.G1 = np.array([loop_taps(fj, self.t1) for fj in fac[0].reshape(self.b1, self.t1)]).reshape(self.b1, self.t1)
        self.L1 = loop_taps(fac[1], self.l1)
        self.G2 = np.array([loop_taps(fj, self.t2) for fj in fac[2].reshape(self.b2, self.t2)]).reshape(self.b2, self.t2)
        self.L2 = loop_taps(fac[3], self.l2)
        # H1's first-order sections: poles and gains from alpha, beta (2 p1 numbers after the factors).
        self.SA, self.SB = loop_sections([float(v) for v in fac[4]], [float(v) for v in fac[5]])
        # The recurrent lift's GRU cell (internal/gru.Cell with inputs u'(t), y'(t-1)): W_i (3H x 2;
        # rows r, z, n), W_h (3H x H), b (3H), b_hn (H).
        rt = fac[6]
        self.RWi = rt[: 6 * H].reshape(3 * H, 2)
        self.RWh = rt[6 * H : 6 * H + 3 * H * H].reshape(3 * H, H)
        self.Rb = rt[6 * H + 3 * H * H : 9 * H + 3 * H * H]
        self.Rbhn = rt[9 * H + 3 * H * H :]
        self.mode = "factored"
        self.certificate = []
        for name, G, L in (("H1", self.G1, self.L1), ("H2", self.G2, self.L2)):
            for j, g in enumerate(G):
                self.certificate.append(("%s%s branch %d" % (prefix, name, j),) + certify(g))
            if L.size:
                self.certificate.append(("%s%s linear" % (prefix, name),) + certify(L))
            if name == "H1":
                for k, (a, b) in enumerate(zip(self.SA, self.SB)):
                    re, om = section_min_re(a, b)
                    if not (abs(a) < 1 and b >= 0):
                        re = -1.0
                    self.certificate.append(("%sH1 section %d" % (prefix, k), re, om))
        failed = [c[0] for c in self.certificate if c[1] < 0]
        self.passive = not failed
        if failed:
            msg = "a loop is passive by parameterization, but min Re G is not certified >= 0 for %s" % failed
            if not allow_uncertified:
                raise NotPassiveError(msg)
            warnings.warn("NOT PASSIVE: " + msg)

    @staticmethod
    def _split(G, L, n, w, x, t):
        # One NFIR's output at t as a x(t) + r: r sums the terms of earlier samples.
        a, r = 0.0, 0.0
        if n.size:
            K = min(G.shape[1] - 1, t)
            a = float(np.sum(n * n * G[:, 0]))
            if K > 0:
                seg = w[t - K : t][::-1]  # w(t-1), ..., w(t-K)
                r = float(n @ np.einsum("jk,kj->j", G[:, 1 : K + 1], seg))
        if L.size:
            a += L[0]
            K = min(L.size - 1, t)
            if K > 0:
                r += float(L[1 : K + 1] @ x[t - K : t][::-1])
        return a, r

    def simulate(self, u):
        """Output of one record from rest (a loop has no open-loop predictor)."""
        u = np.asarray(u, dtype=np.float64)
        if u.ndim != 1:
            raise ValueError("u must be one record (a 1-D array)")
        u = u / self.u_scale
        T, B1 = u.size, self.b1
        y, e = np.zeros(T), np.zeros(T)
        w1, w2 = np.zeros((T, self.b1)), np.zeros((T, self.b2))
        sec = [0.0] * self.p1  # s_k(t-1)
        xu, xy = [0.0] * self.s, [0.0] * self.s  # the slow states of u' and y'
        H = self.rec
        hr = np.zeros(H)  # the recurrent lift's state h(t-1)
        for t in range(T):
            p = [u[k] if k >= 0 else 0.0 for k in range(t - self.r1 + 1, t + 1)]
            p += [y[k] if k >= 0 else 0.0 for k in range(t - self.r2, t)]
            yp = y[t - 1] if t > 0 else 0.0
            for i in range(self.s):
                xu[i] = self.XC[i] * xu[i] + self.XK[i] * u[t]
                xy[i] = self.XC[i] * xy[i] + self.XK[i] * yp
            if H:
                x = np.array([u[t], yp])
                ai = self.RWi @ x + self.Rb
                ah = self.RWh @ hr
                r = 1.0 / (1.0 + np.exp(-(ai[:H] + ah[:H])))
                z = 1.0 / (1.0 + np.exp(-(ai[H : 2 * H] + ah[H : 2 * H])))
                nc = np.tanh(ai[2 * H :] + r * (ah[2 * H :] + self.Rbhn))
                hr = (1.0 - z) * nc + z * hr
            h = np.array(p + xu + xy + list(hr))
            for W, b in zip(self.W, self.b):
                h = np.tanh(W @ h + b)
            n1, n2 = h[:B1], h[B1:]
            a1, r1 = self._split(self.G1, self.L1, n1, w1, e, t)
            for k in range(self.p1):  # H1's sections: b_k in a1, a_k s_k(t-1) in r1
                a1 += self.SB[k]
                r1 += self.SA[k] * sec[k]
            a2, r2 = self._split(self.G2, self.L2, n2, w2, y, t)
            y[t] = (a1 * (u[t] - r2) + r1) / (1.0 + a1 * a2)
            e[t] = u[t] - a2 * y[t] - r2
            for k in range(self.p1):
                sec[k] = self.SA[k] * sec[k] + self.SB[k] * e[t]
            w1[t], w2[t] = n1 * e[t], n2 * y[t]
        return y * self.y_scale

    def __repr__(self):
        return "LoopModel(r1=%d, r2=%d, hidden=%r, b1=%d, t1=%d, l1=%d, b2=%d, t2=%d, l2=%d, p1=%d, s=%d, rec=%d, passive=%r)" % (
            self.r1, self.r2, self.hidden, self.b1, self.t1, self.l1, self.b2, self.t2, self.l2, self.p1, self.s, self.rec, self.passive)


def _loop_envelope(f):
    # Checks a loop file's envelope; returns its ts.
    unknown = set(f) - _ENVELOPE_KEYS
    if unknown:
        raise ValueError("unknown keys %s" % sorted(unknown))
    version = _int(f.get("version"), "version")
    if not 1 <= version <= ENVELOPE_VERSION:
        raise ValueError("version %d, this reader knows %s 1..%d" % (version, ENVELOPE_FORMAT, ENVELOPE_VERSION))
    ts = float(f.get("ts") or 0.0)
    if not (ts >= 0 and math.isfinite(ts)):
        raise ValueError("ts %r must be finite >= 0" % ts)
    return ts


def _weighted_mean(members, counts, u):
    # sum_i c_i y_i / sum c for the members' outputs on u: c_i y_i rounded, summed in member order,
    # then divided, as Go's ensemble.Mean does
    y = None
    for m, c in zip(members, counts):
        ym = m.simulate(u)
        if c != 1:
            ym = float(c) * ym
        y = ym if y is None else y + ym
    return y / float(sum(counts))


class LoopMeanModel:
    """The weighted mean of several passive loops driven by the same u, y = sum_i c_i y_i / sum_i c_i,
    read from a gputrain-model file of class "loop" whose params are {"members": [...]} and, from
    version 2, "counts": [c_i, ...] (integers >= 1; absent: every c_i is 1) (loop.Mean): passive when
    every loop is (a parallel interconnection, loop i scaled by c_i / sum c); see load."""

    def __init__(self, f, allow_uncertified=False):
        self.ts = _loop_envelope(f)
        p = f.get("params")
        if (not isinstance(p, dict) or "members" not in p or not set(p) <= {"members", "counts"}
                or not isinstance(p["members"], list) or not p["members"]):
            raise ValueError("params: a mean of loops is {\"members\": [one loop's params, ...]} with at least one member"
                             " (and, from version 2, \"counts\")")
        self.counts = [1] * len(p["members"])
        if "counts" in p:
            if f["version"] < 2:
                raise ValueError("params.counts needs version 2")
            c = p["counts"]
            if not isinstance(c, list) or len(c) != len(p["members"]):
                raise ValueError("params.counts must be a list of one count per member")
            self.counts = [_int(v, "params.counts[%d]" % i) for i, v in enumerate(c)]
            for i, v in enumerate(self.counts):
                if not 1 <= v <= MAX_COUNT:
                    raise ValueError("params.counts[%d] is %d, want 1..%d" % (i, v, MAX_COUNT))
        self.members = []
        for i, pi in enumerate(p["members"]):
            m = LoopModel.__new__(LoopModel)
            m.ts = self.ts
            m._init_params(pi, "params.members[%d]" % i, "loop %d " % i, allow_uncertified)
            self.members.append(m)
        self.mode = "factored"
        self.certificate = [c for m in self.members for c in m.certificate]
        self.passive = all(m.passive for m in self.members)

    def simulate(self, u):
        """Weighted mean output of the loops for one record from rest (c_i y_i summed in member
        order, then divided by sum c, as Go does)."""
        return _weighted_mean(self.members, self.counts, u)

    def __repr__(self):
        return "LoopMeanModel(%s, passive=%r)" % (", ".join(repr(m) for m in self.members), self.passive)


def _sum_products(a, b, n):
    # a[0]*b[0] + ... + a[n-1]*b[n-1], summed left to right from 0.0 as Go's loops do
    s = 0.0
    for j in range(n):
        s += a[j] * b[j]
    return s


def _gate(z):
    # 1 / (1 + exp(-z)) as Go and C compute it; where exp(-z) overflows, Go's +Inf gives 0
    try:
        return 1 / (1 + math.exp(-z))
    except OverflowError:
        return 0.0


class RENModel:
    """A passive recurrent equilibrium network read from a gputrain-model file of class "ren"
    (docs/MODEL_FORMAT.md, baselines.PassiveREN): the explicit model is built from the direct
    parameters theta as Go builds it, and its passivity re-checked: the matrix H of the
    dissipation LMI must be positive definite (certificate: its smallest eigenvalue)."""

    def __init__(self, f, allow_uncertified=False):
        self.ts = _loop_envelope(f)
        p = f.get("params")
        keys = {"states", "neurons", "nu", "eps", "u_scale", "y_scale", "theta"}
        if not isinstance(p, dict) or not keys <= set(p) <= keys | {"biased", "gated"}:
            raise ValueError("params: a REN is an object with the keys %s and optionally biased or gated" % sorted(keys))
        biased, gated = p.get("biased", False), p.get("gated", False)
        for key, v in (("biased", biased), ("gated", gated)):
            if not isinstance(v, bool):
                raise ValueError("params.%s: %r is not true or false" % (key, v))
        if biased and f.get("version") < 3:
            raise ValueError("params.biased needs version 3 of %s, and the file is version %d" % (ENVELOPE_FORMAT, f.get("version")))
        if gated and f.get("version") < 4:
            raise ValueError("params.gated needs version 4 of %s, and the file is version %d" % (ENVELOPE_FORMAT, f.get("version")))
        if biased and gated:
            # a biased output rests on incremental passivity, which gates break
            raise ValueError("params: a REN is biased or gated, not both")
        nx, nv = _int(p["states"], "params.states"), _int(p["neurons"], "params.neurons")
        if nx < 1 or nv < 1:
            raise ValueError("params: states %d and neurons %d must be >= 1" % (nx, nv))
        nu, eps = float(p["nu"]), float(p["eps"])
        su, sy = float(p["u_scale"]), float(p["y_scale"])
        if not (math.isfinite(nu) and nu >= 0 and math.isfinite(eps) and eps > 0):
            raise ValueError("params: nu %r must be finite >= 0 and eps %r finite > 0" % (nu, eps))
        if not (math.isfinite(su) and su > 0 and math.isfinite(sy) and sy > 0):
            raise ValueError("params: u_scale %r and y_scale %r must be finite > 0" % (su, sy))
        n = 2 * nx + nv
        th = _array(p["theta"], n * n + nx * nx + 1 + 2 * nx + 2 * nv + (nx + nv if biased else 0) + (nv * (nx + 2) if gated else 0),
                    "params.theta")
        o = 0
        X = th[o:o + n * n].reshape(n, n); o += n * n
        Y1 = th[o:o + nx * nx].reshape(nx, nx); o += nx * nx
        x3 = th[o]; o += 1
        b2 = th[o:o + nx]; o += nx
        d12 = th[o:o + nv]; o += nv
        c2 = th[o:o + nx]; o += nx
        d21 = th[o:o + nv]; o += nv
        # a biased REN's output is its response minus its zero-input response (baselines.PassiveREN)
        self.biased = biased
        self.bx = th[o:o + nx] if biased else None; o += nx if biased else 0
        self.bv = th[o:o + nv] if biased else None; o += nv if biased else 0
        # a gated REN's neurons are w_i = sigmoid(Wg_i x + ug_i u' + bg_i) tanh(v_i)
        self.gated = gated
        self.Wg = th[o:o + nv * nx].reshape(nv, nx) if gated else None; o += nv * nx if gated else 0
        self.ug = th[o:o + nv] if gated else None; o += nv if gated else 0
        self.bg = th[o:o + nv] if gated else None
        M = x3 * x3 + eps
        g = np.concatenate([c2, d21 - d12, b2])
        H = X.T @ X + np.outer(g, g) / (2 * M) + eps * np.eye(n)
        self.min_eig_h = float(np.linalg.eigvalsh((H + H.T) / 2).min())
        E = (H[:nx, :nx] + H[nx + nv:, nx + nv:] + Y1 - Y1.T) / 2
        self.A = np.linalg.solve(E, H[nx + nv:, :nx])
        self.B1 = np.linalg.solve(E, H[nx + nv:, nx:nx + nv])
        self.B2 = np.linalg.solve(E, b2)
        lam_inv = 2 / np.diag(H[nx:nx + nv, nx:nx + nv])
        self.C1 = -lam_inv[:, None] * H[nx:nx + nv, :nx]
        self.D11 = -lam_inv[:, None] * np.tril(H[nx:nx + nv, nx:nx + nv], -1)
        self.D12 = lam_inv * d12
        self.C2, self.D21, self.D22 = c2.copy(), d21.copy(), nu + M
        self.states, self.neurons, self.nu, self.eps, self.u_scale, self.y_scale = nx, nv, nu, eps, su, sy
        self.mode = "ren-direct"
        self.certificate = [("H", self.min_eig_h, float("nan"))]
        self.passive = self.min_eig_h > 0
        if not self.passive and not allow_uncertified:
            raise NotPassiveError("the REN's H has smallest eigenvalue %.3g <= 0" % self.min_eig_h)

    def _net(self, x, w, us):
        # One step of the network from state x on scaled input us: y' and x(t+1),
        # the sums in the order of Go's PassiveREN.Simulate.
        nx, nv = self.states, self.neurons
        for i in range(nv):
            v = self.D12[i] * us + _sum_products(self.C1[i], x, nx) + _sum_products(self.D11[i], w, i)
            if self.biased:
                v += self.bv[i]
            w[i] = math.tanh(v)
            if self.gated:
                w[i] *= _gate(self.bg[i] + self.ug[i] * us + _sum_products(self.Wg[i], x, nx))
        y = self.D22 * us + _sum_products(self.C2, x, nx) + _sum_products(self.D21, w, nv)
        xn = np.empty(nx)
        for i in range(nx):
            xn[i] = self.B2[i] * us + _sum_products(self.A[i], x, nx) + _sum_products(self.B1[i], w, nv)
            if self.biased:
                xn[i] += self.bx[i]
        return y, xn

    def simulate(self, u):
        """Output for one record from rest (x = 0), in the order of Go's PassiveREN.Simulate;
        a biased REN's output less its zero-input response from the same rest."""
        nx, nv = self.states, self.neurons
        x, x0 = np.zeros(nx), np.zeros(nx)
        w = np.zeros(nv)
        y = np.empty(len(u))
        for t, ut in enumerate(u):
            yt, x = self._net(x, w, float(ut) / self.u_scale)
            if self.biased:
                y0, x0 = self._net(x0, w, 0.0)
                yt -= y0
            y[t] = yt * self.y_scale
        return y

    def __repr__(self):
        return "RENModel(states=%d, neurons=%d, nu=%g, biased=%r, gated=%r, passive=%r)" % (
            self.states, self.neurons, self.nu, self.biased, self.gated, self.passive)


class MeanModel:
    """The weighted mean y = sum_i c_i y_i / sum_i c_i of passive models of other classes driven by
    the same u, read from a gputrain-model file of class "mean" (version 5 or later): params
    {"members": [{"class": "loop" or "ren", "params": that class's params (one loop, not a mean),
    "count": c_i (an integer 1..2^20; absent: 1)}, ...]}. Passive when every member is (a parallel
    interconnection, member i scaled by c_i / sum c); every member is read and certified as a file of
    its class is; see load."""

    def __init__(self, f, allow_uncertified=False):
        self.ts = _loop_envelope(f)
        if f["version"] < MEAN_VERSION:
            raise ValueError("class mean needs version %d of %s, and the file is version %d" % (MEAN_VERSION, ENVELOPE_FORMAT, f["version"]))
        p = f.get("params")
        if not isinstance(p, dict) or set(p) != {"members"} or not isinstance(p["members"], list) or not p["members"]:
            raise ValueError("params: a mean is {\"members\": [{\"class\", \"params\", \"count\"}, ...]} with at least one member")
        self.members, self.counts = [], []
        for i, mp in enumerate(p["members"]):
            at = "params.members[%d]" % i
            if not isinstance(mp, dict) or not {"class", "params"} <= set(mp) <= {"class", "params", "count"}:
                raise ValueError("%s: a member is an object with the keys class and params, and optionally count" % at)
            count = _int(mp.get("count", 1), at + ".count")
            if not 1 <= count <= MAX_COUNT:
                raise ValueError("%s.count is %d, want 1..%d" % (at, count, MAX_COUNT))
            sub = {"format": ENVELOPE_FORMAT, "class": mp["class"], "version": f["version"], "params": mp["params"]}
            if "ts" in f:
                sub["ts"] = f["ts"]
            try:
                if mp["class"] == "ren":
                    m = RENModel(sub, allow_uncertified=allow_uncertified)
                elif mp["class"] == "loop":
                    if isinstance(mp["params"], dict) and "members" in mp["params"]:
                        raise ValueError("a member is one loop, not a mean of loops")
                    m = LoopModel(sub, allow_uncertified=allow_uncertified)
                else:
                    raise ValueError("class %r: a member is of class loop or ren" % (mp["class"],))
            except ValueError as e:
                raise type(e)("%s: %s" % (at, e)) from e
            self.members.append(m)
            self.counts.append(count)
        self.mode = "mean"
        self.certificate = [("member %d %s" % (i, c[0]),) + tuple(c[1:]) for i, m in enumerate(self.members) for c in m.certificate]
        self.passive = all(m.passive for m in self.members)

    def simulate(self, u):
        """Weighted mean output of the members for one record from rest (c_i y_i, rounded, summed
        in member order, then divided by sum c, as Go does)."""
        return _weighted_mean(self.members, self.counts, u)

    def __repr__(self):
        return "MeanModel(%s, counts=%r, passive=%r)" % (", ".join(repr(m) for m in self.members), self.counts, self.passive)


def load(path, allow_uncertified=False):
    """Read and validate a model file; refuse a passivity claim the taps fail (NotPassiveError)
    unless allow_uncertified. A gputrain-nfir file gives a Model, a gputrain-model file of
    class "loop" a LoopModel (a LoopMeanModel when its params hold "members"), one of class "ren"
    a RENModel, one of class "mean" a MeanModel; other classes are refused."""
    with open(path, "rb") as fh:
        text = fh.read().decode("utf-8")
    if text.startswith("\ufeff"):
        text = text[1:]
    f = json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_reject_constant)
    if isinstance(f, dict) and f.get("format") == ENVELOPE_FORMAT:
        if f.get("class") == "ren":
            return RENModel(f, allow_uncertified=allow_uncertified)
        if f.get("class") == "mean":
            return MeanModel(f, allow_uncertified=allow_uncertified)
        if f.get("class") != "loop":
            raise ValueError("a %s file of class %r: this reader reads NFIR files (%s), loops (class loop), passive RENs (class ren)"
                             " and weighted means of them (class mean)" % (ENVELOPE_FORMAT, f.get("class"), FORMAT))
        p = f.get("params")
        if isinstance(p, dict) and "members" in p:
            return LoopMeanModel(f, allow_uncertified=allow_uncertified)
        return LoopModel(f, allow_uncertified=allow_uncertified)
    return Model(f, allow_uncertified=allow_uncertified)


def load_ss(path):
    """Read a state-space realization written by `gputrain export --format python-ss` (.npz)
    and check its passivity from A, B, C, D: the impulse response D, CB, CAB, ... must end
    (A nilpotent: a FIR) and its Re G must be certified >= 0, unless the file says NOT PASSIVE;
    and when the file carries the KYP matrix X, the LMI of Theorem 4 must hold (kyp_min_eig)."""
    with np.load(path) as z:
        d = {k: z[k] for k in z.files}
    A, B, C, D = (np.atleast_2d(d[k]).astype(np.float64) for k in ("A", "B", "C", "D"))
    n = A.shape[0]
    A, B, C = A.reshape(n, n), B.reshape(n, 1), C.reshape(1, n)
    h = [float(D[0, 0])]
    x = B[:, 0]
    for _ in range(n):
        h.append(float(C[0] @ x))
        x = A @ x
    if n and np.any(x != 0):
        raise ValueError("A is not nilpotent: not the realization of a FIR")
    h = np.array(h[: n + 1])
    bound, omega = certify(h)
    out = {"A": A, "B": B, "C": C, "D": D, "Ts": float(d["Ts"].ravel()[0]), "taps": h,
           "min_re": bound, "omega": omega, "summary": bytes(d["summary"]).decode("utf-8"),
           "passive": bool(d["passive"].ravel()[0]) and "NOT_PASSIVE" not in d}
    if out["passive"] and bound < 0:
        raise NotPassiveError("the file says passive, but min Re G of the realization is not certified >= 0")
    out["kyp_min_eig"] = None
    if "X" in d:
        # The KYP LMI of Theorem 4, checked on the realization as stored.
        X = np.atleast_2d(d["X"]).astype(np.float64).reshape(n, n)
        M = np.block([[X - A.T @ X @ A, C.T - A.T @ X @ B], [C - B.T @ X @ A, D + D.T - B.T @ X @ B]])
        e = float(min(np.linalg.eigvalsh((M + M.T) / 2).min(), np.linalg.eigvalsh((X + X.T) / 2).min() if n else np.inf))
        out["kyp_min_eig"] = e
        if e < -float(d["kyp_tol"].ravel()[0]):
            raise NotPassiveError("the KYP certificate X in the file fails: smallest eigenvalue %g" % e)
    return out


def simulate_ss(ss, u):
    """Output of a realization from rest: x(t+1) = A x(t) + B u(t), y(t) = C x(t) + D u(t)."""
    A, B, C, D = ss["A"], ss["B"][:, 0], ss["C"][0], ss["D"][0, 0]
    x = np.zeros(A.shape[0])
    y = np.zeros(len(u))
    for t, v in enumerate(u):
        y[t] = C @ x + D * v
        x = A @ x + B * v
    return y


if __name__ == "__main__":
    for p in sys.argv[1:]:
        m = load(p, allow_uncertified=True)
        print(p, m)
        if isinstance(m, LoopModel):
            for name, b, w in m.certificate:
                print("  %s: min Re G >= %.6g at w = %.6g" % (name, b, w))
            continue
        for j, (b, w) in enumerate(m.certificate):
            print("  branch %d: min Re G >= %.6g at w = %.6g" % (j, b, w))
        if m.linear_certificate is not None:
            print("  linear FIR: min Re G >= %.6g at w = %.6g" % m.linear_certificate)
