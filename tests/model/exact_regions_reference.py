"""An independent, slow, exact region count for small networks (tests only).

Every activation pattern s of the N hidden neurons is tried (2^N of them): along s
the network's pre-activations are affine maps with rational coefficients (the
weights are doubles, so Fractions hold them exactly), and P_s = {on-rows > 0,
off-rows ≤ 0} is decided non-empty by Fourier–Motzkin elimination, which keeps
track of strict and non-strict inequalities. P_s has interior points when the
system with every non-constant row strict is feasible. Nothing here shares code with the engine.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import numpy as np


def _feasible(rows) -> bool:
    """Is {x : a·x + c > 0 (strict rows), a·x + c ≥ 0 (the others)} non-empty?
    ``rows``: (a (tuple of Fractions), c, strict)."""
    rows = list(rows)
    n = len(rows[0][0]) if rows else 0
    for k in range(n):
        pos, neg, rest = [], [], []
        for a, c, s in rows:
            (pos if a[k] > 0 else neg if a[k] < 0 else rest).append((a, c, s))
        # x_k > or ≥ −(rest)/a_k from pos, < or ≤ from neg: every pair must agree
        for (a1, c1, s1), (a2, c2, s2) in product(pos, neg):
            f1, f2 = -a2[k], a1[k]                  # positive multipliers
            a = tuple(f1 * u + f2 * v for u, v in zip(a1, a2))
            rest.append((a, f1 * c1 + f2 * c2, s1 or s2))
        rows = _dedupe(rest)
    return all((c > 0) if s else (c >= 0) for _, c, s in rows)


def _dedupe(rows):
    seen, out = set(), []
    for a, c, s in rows:
        # scale to a canonical positive multiple so duplicates meet
        m = max([abs(v) for v in a] + [abs(c)])
        key = (tuple(v / m for v in a), c / m, s) if m else (a, c, s)
        if key not in seen:
            seen.add(key)
            out.append((a, c, s))
    return out


def _exact_layers(net):
    return [([[Fraction(float(w)) for w in row] for row in W], [Fraction(float(v)) for v in b])
            for W, b in net.layers[:-1]]


def pattern_rows(net, pattern):
    """The rows (a, c, on) of every hidden neuron's pre-activation along ``pattern``."""
    n = net.n_in
    H = [[Fraction(int(i == j)) for j in range(n)] + [Fraction(0)] for i in range(n)]
    out, g = [], 0
    for W, b in _exact_layers(net):
        Z = []
        for row, bias in zip(W, b):
            z = [sum((w * h[d] for w, h in zip(row, H)), Fraction(0)) for d in range(n + 1)]
            z[n] += bias
            Z.append(z)
        H = []
        for z in Z:
            on = bool(pattern[g])
            out.append((tuple(z[:n]), z[n], on))
            H.append(z if on else [Fraction(0)] * (n + 1))
            g += 1
    return out


def exact_regions(net, box=None):
    """{pattern bytes: full-dimensional} for every non-empty region; with ``box``
    (2-D) only the regions with area inside the open box, all marked full."""
    N = sum(net.hidden_sizes)
    found = {}
    extra = []
    if box is not None:
        x0, x1, y0, y1 = (Fraction(float(v)) for v in box)
        one, zero = Fraction(1), Fraction(0)
        extra = [((one, zero), -x0, True), ((-one, zero), x1, True),
                 ((zero, one), -y0, True), ((zero, -one), y1, True)]
    for bits in product((False, True), repeat=N):
        pattern = np.array(bits, dtype=bool)
        rows = pattern_rows(net, pattern)
        system = [(a, c, on) if on else (tuple(-v for v in a), -c, False) for a, c, on in rows]
        # interior points: every row strict, but a constant row (a = 0) stays as it is
        strict = [(a, c, s or any(a)) for a, c, s in system]
        if box is not None:
            if _feasible(strict + extra):
                found[pattern.tobytes()] = True
            continue
        if _feasible(system):
            found[pattern.tobytes()] = _feasible(strict)
    return found
