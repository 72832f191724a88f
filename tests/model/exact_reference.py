"""An exact rational reference for 1-D ReLU networks, written for the tests only.

Independent of relulab.model.networks.exact and relulab.model.pieces.piecewise: layer by layer,
every piece of the line carries the exact affine map of the current hidden layer
(integers over a common power of two), the knots are Fractions, and a neuron's
root on a piece is −C/A, compared exactly with the piece's ends.
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from math import gcd

import numpy as np


def _ints(a):
    """a = M / 2^s exactly, M an object array of Python ints."""
    ratios = [float(v).as_integer_ratio() for v in np.asarray(a, float).ravel()]
    s = max(d.bit_length() - 1 for _, d in ratios)
    M = np.array([n * (2 ** s // d) for n, d in ratios], dtype=object)
    return M.reshape(np.shape(a)), s


def reference(net):
    """(knots, left slopes, slopes per piece, value function) of net: R → R^m, exactly.

    Returns a dict with ``knots`` (region boundaries, Fractions, sorted),
    ``slopes`` (list over pieces of lists over outputs, Fractions) and ``value(x)``
    (the outputs at a rational x)."""
    layers = [(*_ints(np.column_stack([W, b])),) for W, b in net.layers]
    # pieces: list of (left end, right end, A, C) with h = (A x + C) / 2^S; ends None = ∞
    S = 0
    pieces = [(None, None, np.array([1], dtype=object), np.array([0], dtype=object))]
    knots = []
    for M, s in layers[:-1]:
        W, b = M[:, :-1], M[:, -1]
        new = []
        for lo, hi, A, C in pieces:
            Az = W.dot(A)
            Cz = W.dot(C) + b * 2 ** S
            cuts = set()
            for a, c in zip(Az, Cz):
                if a != 0:
                    r = Fraction(-c, a)
                    if (lo is None or r > lo) and (hi is None or r < hi):
                        cuts.add(r)
            ends = [lo, *sorted(cuts), hi]
            for x0, x1 in itertools.pairwise(ends):
                # a point strictly inside decides which neurons are on
                if x0 is None and x1 is None:
                    probe = Fraction(0)
                elif x0 is None:
                    probe = x1 - 1
                elif x1 is None:
                    probe = x0 + 1
                else:
                    probe = (x0 + x1) / 2
                on = np.array([a * probe + c > 0 for a, c in zip(Az, Cz)])
                new.append((x0, x1, np.where(on, Az, 0), np.where(on, Cz, 0)))
            knots.extend(cuts)
        pieces = new
        S += s
    M, s = layers[-1]
    W, b = M[:, :-1], M[:, -1]
    den = 2 ** (S + s)
    out = []
    for lo, hi, A, C in pieces:
        out.append((lo, hi, [Fraction(v, den) for v in W.dot(A)],
                    [Fraction(v, den) for v in W.dot(C) + b * 2 ** S]))
    # neighbouring pieces on either side of a boundary that is not a knot any more?
    # every cut above is a genuine boundary; knots keep the sorted distinct ones
    knots = sorted(set(knots))

    def value(x):
        x = Fraction(x)
        for lo, hi, a, c in out:
            if (lo is None or x >= lo) and (hi is None or x <= hi):
                return [ai * x + ci for ai, ci in zip(a, c)]
        raise AssertionError("no piece")

    # slope of every output on each piece between consecutive knots
    edges = [None, *knots, None]
    slopes = []
    for x0, x1 in itertools.pairwise(edges):
        probe = (Fraction(0) if x0 is None and x1 is None else x1 - 1 if x0 is None
                 else x0 + 1 if x1 is None else (x0 + x1) / 2)
        for lo, hi, a, _c in out:
            if (lo is None or probe > lo) and (hi is None or probe < hi):
                slopes.append(a)
                break
    return {"knots": knots, "slopes": slopes, "value": value}


def kinks(ref, output=0):
    """The knots where output ``output`` bends, and its jumps there."""
    k, s = ref["knots"], ref["slopes"]
    pairs = [(t, s[i + 1][output] - s[i][output]) for i, t in enumerate(k)]
    return [t for t, c in pairs if c != 0], [c for t, c in pairs if c != 0]


def least_width(ref, m, exhaustive=22):
    """Least width of one hidden layer for all m outputs (None past ``exhaustive``
    union kinks): N if some set of union kinks has jump vectors summing to −s₀,
    found by meeting in the middle over exact integer vectors."""
    k, s = ref["knots"], ref["slopes"]
    jumps = [[s[i + 1][o] - s[i][o] for o in range(m)] for i in range(len(k))]
    cols = [j for j in jumps if any(v != 0 for v in j)]
    s0 = s[0]
    N = len(cols)
    if N == 0:
        return 0 if all(v == 0 for v in s0) else 2
    if exhaustive < N:
        return None
    den = 1
    for v in [x for col in cols for x in col] + list(s0):
        den = den * v.denominator // gcd(den, v.denominator)
    ints = [tuple(int(v * den) for v in col) for col in cols]
    target = tuple(-int(v * den) for v in s0)

    def sums(part):
        out = {tuple([0] * m)}
        for col in part:
            out |= {tuple(a + b for a, b in zip(x, col)) for x in out}
        return out

    left = sums(ints[:N // 2])
    right = sums(ints[N // 2:])
    for x in left:
        if tuple(t - a for t, a in zip(target, x)) in right:
            return N
    return N + 1
