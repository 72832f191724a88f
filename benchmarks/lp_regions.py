"""A region enumeration by linear programs, as a baseline: cells split neuron by neuron, each
child kept when a linear program (SciPy HiGHS, default tolerances) finds a positive
margin. Not exact (its tolerance adds and drops regions on near-degenerate nets) and
about 10 ms per program; kept only to measure the engine against."""

from __future__ import annotations

import numpy as np
from scipy.optimize import linprog  # noqa: TID253 - a baseline, imported only to measure

TOLERANCE = 1e-9


def max_margin(normals, offsets, strict):
    """max t with a·x + c ≥ t on strict rows, a·x + c ≤ 0 on the others, t ≤ 1
    (rows of unit normals: t is a distance); (t, x), or (−inf, None) if infeasible."""
    k, n = normals.shape if normals.ndim == 2 else (0, 0)
    if k == 0:
        return 1.0, None
    strict = np.asarray(strict, dtype=bool)
    A_ub = np.zeros((k, n + 1))
    b_ub = np.zeros(k)
    A_ub[strict, :n] = -normals[strict]
    A_ub[strict, n] = 1.0
    b_ub[strict] = offsets[strict]
    A_ub[~strict, :n] = normals[~strict]
    b_ub[~strict] = -offsets[~strict]
    cost = np.zeros(n + 1)
    cost[n] = -1.0
    res = linprog(cost, A_ub=A_ub, b_ub=b_ub, bounds=[(None, None)] * n + [(None, 1.0)],
                  method="highs")
    if res.status != 0:
        return -np.inf, None
    return float(res.x[n]), res.x[:n]


def lp_region_count(net) -> tuple[int, int]:
    """(regions, linear programs solved) by LP splitting on all of Rⁿ."""
    n = net.n_in
    # a cell: (rows (k, n), offsets, on, A, c, witness)
    cells = [(np.zeros((0, n)), np.zeros(0), np.zeros(0, dtype=bool), np.eye(n), np.zeros(n),
              np.zeros(n))]
    lps = 0
    for W, b in net.layers[:-1]:
        Zs = [(W @ A, W @ c + b) for _, _, _, A, c, _ in cells]
        bits = [[] for _ in cells]
        for i in range(W.shape[0]):
            new, new_Z, new_bits = [], [], []
            for (rows, offs, on, A, c, w), (Z, z), bb in zip(cells, Zs, bits):
                a, cc = Z[i], z[i]
                norm = np.linalg.norm(a)
                if norm == 0:
                    new.append((rows, offs, on, A, c, w))
                    new_Z.append((Z, z))
                    new_bits.append([*bb, cc > 0])
                    continue
                a, cc = a / norm, cc / norm
                alive = {}
                zw = a @ w + cc
                margin = 1e-9 * (1 + abs(cc) + np.abs(w).max())
                for bit in (True, False):
                    if (bit and zw > margin) or (not bit and zw < -margin):
                        alive[bit] = w
                        continue
                    lps += 1
                    t, x = max_margin(np.vstack([rows, a]), np.append(offs, cc),
                                       np.append(on, bit))
                    if t > TOLERANCE:
                        alive[bit] = x
                for bit, x in alive.items():
                    keep = len(alive) == 2
                    new.append((np.vstack([rows, a]) if keep else rows,
                                np.append(offs, cc) if keep else offs,
                                np.append(on, bit) if keep else on, A, c, x))
                    new_Z.append((Z, z))
                    new_bits.append([*bb, bit])
            cells, Zs, bits = new, new_Z, new_bits
        cells = [(rows, offs, on, np.array(bb, float)[:, None] * Z, np.array(bb, float) * z, w)
                 for (rows, offs, on, _, _, w), (Z, z), bb in zip(cells, Zs, bits)]
    return len(cells), lps
