#!/usr/bin/env python3
"""The Table I reference: CVXOPT's general-purpose interior-point `qp` on the
same problems as `go test -bench TableISampled ./convex/`, on the same machine.

The Gram P = Σ ΦᵀΦ and b = Σ Φᵀy are formed here independently of the Go code
(Φ per batch is the Toeplitz matrix of u with zero initial conditions), so the
objectives double as a cross-check of convex.FIRGram and convex.Solve.

    gputrain gen msd --batches 300 --seed 1 --out /tmp/msd.csv
    /usr/bin/python3 bench/cvxopt_tablei.py /tmp/msd.csv [--mg 25,50,100,200] [--H 1000,2000,4000]

Needs python3-cvxopt and python3-numpy (Debian). Prints one line per cell:
m_G, H, best-of-3 solve time in ms, objective ½θᵀ(P+γI)θ − bᵀθ, CVXOPT status.
Constants as in the issue: ρ = 100, ρ_j = 0.93, ε = 1e-2 (2cos convention),
γ_G = 1; CVXOPT's default tolerances.
"""
import argparse
import csv
import sys
import time

import numpy as np
from cvxopt import matrix, solvers


def read_csv(path):
    batches = {}
    with open(path) as f:
        r = csv.reader(f)
        head = next(r)
        ib, iu, iy = head.index("batch"), head.index("u"), head.index("y")
        for row in r:
            batches.setdefault(int(row[ib]), ([], []))
            batches[int(row[ib])][0].append(float(row[iu]))
            batches[int(row[ib])][1].append(float(row[iy]))
    return [(np.array(u), np.array(y)) for _, (u, y) in sorted(batches.items())]


def gram(batches, m):
    P = np.zeros((m, m))
    b = np.zeros(m)
    for u, y in batches:
        T = len(u)
        Phi = np.zeros((T, m))
        for k in range(min(m, T)):
            Phi[k:, k] = u[: T - k]
        P += Phi.T @ Phi
        b += Phi.T @ y
    return P, b


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv")
    ap.add_argument("--mg", default="25,50,100,200")
    ap.add_argument("--H", default="1000,2000,4000")
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    solvers.options["show_progress"] = False
    data = read_csv(a.csv)
    rho, decay, eps, gamma = 100.0, 0.93, 1e-2, 1.0
    print("m_G\tH\tms\tobjective\tstatus")
    for m in [int(v) for v in a.mg.split(",")]:
        P, b = gram(data, m)
        Q = P + gamma * np.eye(m)
        k = np.arange(m)
        ub = rho * decay ** k
        for H in [int(v) for v in a.H.split(",")]:
            A = 2 * np.cos(np.pi * np.outer(np.arange(H + 1), k) / H)
            G = np.vstack([-A, np.eye(m), -np.eye(m)])
            h = np.concatenate([-eps * np.ones(H + 1), ub, ub])
            args = [matrix(Q), matrix(-b), matrix(G), matrix(h)]
            best, sol = float("inf"), None
            for _ in range(a.repeat):
                t0 = time.perf_counter()
                sol = solvers.qp(*args)
                best = min(best, time.perf_counter() - t0)
            x = np.array(sol["x"]).ravel()
            obj = 0.5 * x @ Q @ x - b @ x
            print(f"{m}\t{H}\t{1e3 * best:.2f}\t{obj:.6f}\t{sol['status']}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
