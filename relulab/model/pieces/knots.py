"""Knots carried through the layers of a network with one input, in floating point.

The knots T are kept sorted, with each hidden vector's values at the knots and its
slope on every piece (the two rays included). The next layer's pre-activation
z = W h + b is affine between knots, so each neuron crosses zero at most once per
piece: a knot is added at every strict sign change between consecutive knots and on
each ray (linear interpolation / extrapolation), then the activation is applied piece
by piece. This module is the plain floating-point step (the benchmarks' baseline,
``certify=False``) and the helpers the certified step (:mod:`.certified`) shares;
:mod:`.piecewise` turns the knots into pieces.

Everything is vectorised over the knots (numpy, no Python loop over pieces), so
the depth-24 tent map (16.7 million pieces) takes seconds.
"""

from __future__ import annotations

import numpy as np

from relulab.model.core.cancel import Cancelled

# The plain floating-point path (certify=False, the benchmarks' baseline) merges
# knots this close (relative to max(1, |t|)) and ignores slope changes this small;
# the certified path uses neither.
MERGE_RTOL = 1e-12
SLOPE_RTOL = 1e-9


class TooManyKnots(ValueError):
    """The knots would exceed the ``max_knots`` budget given to piecewise_linear."""


# The name piecewise_linear's callers know; the same exception as every model loop's.
Stopped = Cancelled


def _repeat_index(counts: np.ndarray) -> np.ndarray:
    """``np.repeat(np.arange(len(counts)), counts)`` for positive counts, through a
    cumulative sum: np.repeat holds the GIL for the whole copy (0.17 s at depth 24, a
    frozen window while a worker computes), a cumulative sum releases it."""
    ends = np.cumsum(counts)
    step = np.zeros(int(ends[-1]), dtype=np.int64)
    step[ends[:-1]] = 1
    # into a new array: a cumulative sum in place holds the GIL too (numpy buffers
    # the overlapping operands with it held: 50 ms at depth 24)
    return np.cumsum(step)


def _crossings(Z: np.ndarray, T: np.ndarray):
    """Strict sign changes of every neuron between consecutive knots.

    ``Z`` has one row per neuron and one column per knot. Returns, neuron by
    neuron (not sorted by position), the interval index i (root in (T[i], T[i+1])),
    the fraction λ = z_i / (z_i − z_{i+1}), the root T[i] + λ·(T[i+1] − T[i]) and
    how many roots each neuron has.
    """
    found, fractions = [], []
    for z in Z:  # neuron by neuron: 1-D operations are much faster than 2-D gathers
        pos, neg = z > 0, z < 0
        cross = pos[:-1] & neg[1:]
        cross |= neg[:-1] & pos[1:]
        del pos, neg
        ik = np.flatnonzero(cross)
        del cross
        za, zb = z[ik], z[1:][ik]  # z[1:][ik] = z[ik + 1] without an index array
        zb -= za
        np.negative(za, out=za)
        za /= zb
        found.append(ik)
        fractions.append(za)
    counts = np.array([f.size for f in found], dtype=np.int64)
    i = np.concatenate(found)
    del found
    lam = np.concatenate(fractions)
    del fractions
    r = T[i]
    r += lam * (T[1:][i] - r)
    return i, lam, r, counts


#: Below this many pre-activations (neurons × knots) a layer is handled in whole-array
#: steps; above it row by row, which keeps long rows (the deep tent) in cache.
_SMALL = 1 << 16


def _crossings_small(Z: np.ndarray, T: np.ndarray):
    """_crossings in whole-array steps (the same results, in the same order)."""
    pos, neg = Z > 0, Z < 0
    cross = (pos[:, :-1] & neg[:, 1:]) | (neg[:, :-1] & pos[:, 1:])
    j, i = np.nonzero(cross)
    za, zb = Z[j, i], Z[j, i + 1]
    lam = -za / (zb - za)
    r = T[i] + lam * (T[i + 1] - T[i])
    return i, lam, r, np.bincount(j, minlength=Z.shape[0]).astype(np.int64)


def _ray_roots(z_end: np.ndarray, dz: np.ndarray, t_end: float, left: bool):
    """Zero crossings of z(t) = z_end + dz·(t − t_end) beyond the extreme knot,
    sorted: the neurons j and the positions r."""
    with np.errstate(divide="ignore", invalid="ignore"):
        q = z_end / dz
    ok = (dz != 0) & ((q > 0) if left else (q < 0))
    j = np.nonzero(ok)[0]
    r = t_end - q[j]
    order = np.argsort(r, kind="stable")
    return j[order], r[order]


def _values_on_ray(z_end, dz, t_end, roots, crossing):
    """z at the ray roots, (n, len(roots)), exactly 0 for the neuron that crosses."""
    z = z_end[:, None] + dz[:, None] * (roots - t_end)
    z[crossing, np.arange(roots.size)] = 0.0
    return z


def _interpolate(Z: np.ndarray, i: np.ndarray, lam: np.ndarray) -> np.ndarray:
    """z of every neuron at the roots: between knots z is affine, so z_i + λ(z_{i+1} − z_i),
    row by row (long rows stay in cache)."""
    Zr = np.empty((Z.shape[0], i.size))
    for z, zr in zip(Z, Zr):
        za = z[i]
        np.subtract(z[1:][i], za, out=zr)
        zr *= lam
        zr += za
    return Zr


def _new_positions(i: np.ndarray, r: np.ndarray, m: int, nl: int):
    """Where the old knots and the roots land after insertion: (roots per interval,
    old_pos, root_pos). Old knot k moves right past the left-ray roots and the roots
    of the intervals before it; a root of interval i lands after knot i."""
    ni = i.size
    per_interval = np.bincount(i, minlength=m - 1)
    before = np.zeros(m, dtype=np.int64)
    np.cumsum(per_interval, out=before[1:])
    if ni and per_interval.max() > 1:
        # several roots in one interval: their order comes from a sort
        order = np.lexsort((r, i))
        root_pos = np.empty(ni, dtype=np.int64)
        root_pos[order] = i[order] + np.arange(nl + 1, nl + 1 + ni)
        del order
    else:  # at most one root per interval (the tent map): no sort needed
        root_pos = before[i]
        root_pos += i
        root_pos += nl + 1
    old_pos = before
    old_pos += np.arange(nl, nl + m)
    return per_interval, old_pos, root_pos


def _old_piece(per_interval: np.ndarray, m: int, nl: int, nr: int) -> np.ndarray:
    """The old piece of each new piece: a piece split by s roots becomes s + 1 pieces
    with the slope it had."""
    splits = np.empty(m + 1, dtype=np.int64)
    splits[0], splits[m] = nl, nr
    splits[1:m] = per_interval
    splits += 1
    return _repeat_index(splits)


def _new_flags(flags: np.ndarray, old_pos: np.ndarray, total: int) -> np.ndarray:
    """Region flags after insertion: every new root is a boundary."""
    out = np.ones(total, dtype=bool)
    out[old_pos] = flags
    return out


def _slopes_on(D: np.ndarray, piece_of: np.ndarray) -> np.ndarray:
    """Each row's slope on the new pieces (row by row: long rows stay in cache)."""
    out = np.empty((D.shape[0], piece_of.size))
    for d2, d in zip(out, D):
        np.take(d, piece_of, out=d2)
    return out


def _layer(state: list, W: np.ndarray, b: np.ndarray, off_slope) -> None:
    """Push the knots through one hidden layer h ↦ φ(W h + b), in place.

    ``state`` = [T, H, D, flags]: T (m,) the knots, H (n_in, m) the values at the
    knots, D (n_in, m + 1) the slopes on the pieces (left ray, the m − 1 pieces
    between knots, right ray) and flags (m,) which knots are region boundaries.
    It is replaced by the same four for the layer's output. The list is emptied
    first so that the caller holds no reference to arrays that are no longer needed
    (depth 24 lives near the memory budget).
    """
    T, H, D, flags = state
    state.clear()
    Z = W @ H
    Z += b[:, None]
    del H
    Dz = W @ D
    del D
    n, m = Z.shape
    if off_slope is None:  # identity: no new knots, no change of slope
        state.extend([T, Z, Dz, flags])
        return
    i, lam, r, counts = _crossings(Z, T)
    ni = i.size
    Zr = _interpolate(Z, i, lam)
    del lam
    ends = np.cumsum(counts)
    for k in range(n):  # exactly zero for the neuron that crosses
        Zr[k, ends[k] - counts[k]:ends[k]] = 0.0
    jl, rl = _ray_roots(Z[:, 0], Dz[:, 0], T[0], left=True)
    jr, rr = _ray_roots(Z[:, -1], Dz[:, -1], T[-1], left=False)
    Zl = _values_on_ray(Z[:, 0], Dz[:, 0], T[0], rl, jl)
    Zrr = _values_on_ray(Z[:, -1], Dz[:, -1], T[-1], rr, jr)
    nl, nr = rl.size, rr.size
    if nl + nr + ni:
        total = m + nl + nr + ni
        per_interval, old_pos, root_pos = _new_positions(i, r, m, nl)
        del i

        T2 = np.empty(total)
        T2[:nl] = rl
        T2[old_pos] = T
        T2[root_pos] = r
        T2[total - nr:] = rr
        T = T2
        del r, T2
        Z2 = np.empty((n, total))
        Z2[:, :nl] = Zl
        Z2[:, total - nr:] = Zrr
        for z2, z, zr in zip(Z2, Z, Zr):
            z2[old_pos] = z
            z2[root_pos] = zr
        del Z, Zr
        Z = Z2
        del Z2
        flags = _new_flags(flags, old_pos, total)
        del old_pos, root_pos
        piece_of = _old_piece(per_interval, m, nl, nr)
        del per_interval
        Dz = _slopes_on(Dz, piece_of)
        del piece_of
        # merge knots a rounding error apart (keep the first of each run); T is
        # sorted, so max|T| is at an end and one comparison rules out most layers
        gaps = np.diff(T)
        if gaps.size and gaps.min() <= MERGE_RTOL * max(1.0, abs(T[0]), abs(T[-1])):
            tol = np.abs(T[1:])
            np.maximum(tol, 1.0, out=tol)
            tol *= MERGE_RTOL
            close = gaps <= tol
            del tol
        else:
            close = np.zeros(0, dtype=bool)
        del gaps
        if np.any(close):
            keep = np.concatenate([[True], ~close])
            flags = np.logical_or.reduceat(flags, np.flatnonzero(keep))
            T, Z = T[keep], Z[:, keep]
            # piece k (between knots k − 1 and k) disappears with knot k
            Dz = Dz[:, np.concatenate([keep, [True]])]
            del keep
        del close
    # Which neurons are on in each piece: z keeps one sign on a piece, so the sum
    # of its two end values has that sign (both 0: z ≡ 0 there, off). On a ray
    # the sign is that of z far out, i.e. of its slope (or of z when flat).
    m = T.size
    on = np.empty((n, m + 1), dtype=bool)
    both_ends = np.empty(max(m - 1, 0))
    for o, z in zip(on, Z):
        np.add(z[:-1], z[1:], out=both_ends)
        np.greater(both_ends, 0.0, out=o[1:m])
    del both_ends
    on[:, 0] = np.where(Dz[:, 0] != 0, Dz[:, 0] < 0, Z[:, 0] > 0)
    on[:, m] = np.where(Dz[:, m] != 0, Dz[:, m] > 0, Z[:, -1] > 0)
    # A knot is a region boundary when the pattern changes across it or at it
    # (a neuron that only touches zero there makes the knot a region of its own).
    for o, z in zip(on, Z):
        at = z > 0
        changed = o[:-1] != o[1:]
        changed |= at != o[:-1]
        changed |= at != o[1:]
        flags |= changed
    del at, changed
    if off_slope == 0.0:
        np.maximum(Z, 0.0, out=Z)
        Dz *= on
    else:
        Z = np.where(Z > 0, Z, off_slope * Z)
        Dz *= np.where(on, 1.0, off_slope)
    state.extend([T, Z, Dz, flags])
