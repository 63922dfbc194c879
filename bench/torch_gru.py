"""A GRU simulation model in PyTorch, the peer of class gru (baselines.TrainGRU).

Trains a GRU (default 32 units, float64, one thread) on the simulation error of
whole training records (from rest), Adam 3e-3, batches of 8 records, for a wall
time budget, keeping the epoch with the best median validation Fit; prints the
median closed-loop Fit on validation (measured output) and test (y_clean where
the file has it). It checks that gputrain's own GRU peer is not weaker than a
plain PyTorch one on a data set (docs/BENCHMARKS.md, session 20).

    python3 bench/torch_gru.py PREFIX SECONDS [UNITS]

reads PREFIX_train.csv, PREFIX_val.csv and PREFIX_test.csv (columns batch, u, y
and optionally y_clean; every training record of the same length).
"""
import copy
import sys
import time

import numpy as np
import torch


def load(path):
    d = np.genfromtxt(path, delimiter=',', names=True)
    b = d['batch'].astype(int)
    recs = []
    for k in np.unique(b):
        m = b == k
        yc = d['y_clean'][m] if 'y_clean' in d.dtype.names else d['y'][m]
        recs.append((d['u'][m], d['y'][m], yc))
    return recs


def main():
    torch.set_num_threads(1)
    torch.manual_seed(0)
    prefix, secs = sys.argv[1], float(sys.argv[2])
    units = int(sys.argv[3]) if len(sys.argv) > 3 else 32
    tr, va, te = (load(prefix + s) for s in ('_train.csv', '_val.csv', '_test.csv'))
    su = np.sqrt(np.mean(np.concatenate([r[0] for r in tr]) ** 2))
    sy = np.sqrt(np.mean(np.concatenate([r[1] for r in tr]) ** 2))

    class GRU(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.g = torch.nn.GRU(1, units, batch_first=True)
            self.o = torch.nn.Linear(units, 1)

        def forward(self, u):
            return self.o(self.g(u)[0])

    m = GRU().double()
    opt = torch.optim.Adam(m.parameters(), lr=3e-3)

    def t(x):
        return torch.tensor(x, dtype=torch.float64)

    U = t(np.stack([r[0] / su for r in tr]))[:, :, None]
    Y = t(np.stack([r[1] / sy for r in tr]))[:, :, None]

    def fit(recs, clean):
        f = []
        with torch.no_grad():
            for u, y, yc in recs:
                yh = m(t(u / su)[None, :, None])[0, :, 0].numpy() * sy
                tgt = yc if clean else y
                f.append(100 * (1 - np.linalg.norm(tgt - yh) / np.linalg.norm(tgt)))
        return float(np.median(f))

    t0, best, epochs, state = time.time(), -np.inf, 0, None
    while time.time() - t0 < secs:
        perm = torch.randperm(U.shape[0])
        for i in range(0, U.shape[0], 8):
            idx = perm[i:i + 8]
            opt.zero_grad()
            loss = ((m(U[idx]) - Y[idx]) ** 2).mean()
            loss.backward()
            opt.step()
        epochs += 1
        v = fit(va, False)
        if v > best:
            best, state = v, copy.deepcopy(m.state_dict())
        if epochs % 20 == 0:
            print('%.0fs epoch %d loss %.4g val %.2f' % (time.time() - t0, epochs, loss.item(), v), flush=True)
    m.load_state_dict(state)
    print('final val %.2f test %.2f (epochs %d, %.0f s)' % (fit(va, False), fit(te, True), epochs, time.time() - t0))


if __name__ == '__main__':
    main()
