"""Witnesses made exactly, where the floating-point ones fail.

A region's witness is a point of it, an ordinary double wherever the region holds
one. The engine's points are means of its cells' vertices and rays in floating point;
those coordinates carry error bounds that decide every sign, but as positions they
can be far off: a ray made as z_p·q − z_q·p when z_p and z_q nearly cancel (lines
almost through one point, as zero biases in other units make them), or products of
subnormal weights, which vanish in doubles. Such a witness may fall outside its
region, or be 0/0.

Here the rays of a cell are made again exactly, each the null space of the
constraints that vanish on it (integers from the weights, as the engine's exact
fallback makes them), the cell's inner point is their mean in rationals (finite
points, and directions scaled to the size of the finite ones), and it is rounded to
the nearest doubles. A point is accepted only when its activation pattern, computed
in rationals, is the region's. A region that lies beyond the doubles' range (its
points all past 1.8e308) has no double to offer: its witness stays NaN.
"""

from __future__ import annotations

import itertools
import time
from fractions import Fraction

import numpy as np

from relulab.model.networks.mlp import MLP


def exact_pattern(net: MLP, x) -> np.ndarray | None:
    """The activation pattern of the network at the double point ``x`` in rationals
    (neuron on when its pre-activation is > 0), or None when x is not finite."""
    if not np.all(np.isfinite(x)):
        return None
    h = [Fraction(float(v)) for v in x]
    pattern: list[bool] = []
    for W, b in net.layers[:-1]:
        z = [sum((Fraction(float(w)) * v for w, v in zip(row, h) if w and v), Fraction(0))
             + Fraction(float(c)) for row, c in zip(W, b)]
        pattern += [v > 0 for v in z]
        h = [v if v > 0 else Fraction(0) for v in z]
    return np.array(pattern, dtype=bool)


def in_region(net: MLP, x, pattern) -> bool:
    """x has the region's pattern, decided in rationals."""
    p = exact_pattern(net, x)
    return p is not None and np.array_equal(p, pattern)


def _member(rows, x) -> bool:
    """x (doubles) lies in the cell whose neurons' exact integer rows along its pattern
    and senses are ``rows``: every side·row·(x, 1) > 0 (on) or ≥ 0 (off). In integers:
    x = m / 2^e, a dyadic rational."""
    if not np.all(np.isfinite(x)):
        return False
    ratios = [float(v).as_integer_ratio() for v in x]
    e = max(d.bit_length() - 1 for _, d in ratios)
    m = [num << (e - (d.bit_length() - 1)) for num, d in ratios]
    one = 1 << e
    for row, side in rows:
        z = (sum(a * b for a, b in zip(row, m) if a) + row[-1] * one) * side
        if z < 0 or (z == 0 and side > 0):
            return False
    return True


def _to_double(p) -> np.ndarray:
    """A rational point rounded to the nearest doubles (NaN beyond their range)."""
    try:
        return np.array([float(v) for v in p])
    except OverflowError:
        return np.full(len(p), np.nan)


class _Rays:
    """The exact rays of an n-D enumeration's cells (see ``arrangement_nd``): each corner
    is the null space of its tight constraints, the neurons' rows on the cell (integers
    from the weights) and the starting fan's facets and w = 0."""

    def __init__(self, net: MLP, arr):
        from relulab.model.regions import arrangement

        self.arr = arr
        self.n = arr.n_in
        self.N = sum(arr.layer_sizes)
        self.lines = arrangement._ExactLines(net.layers[:-1])
        self.G = arrangement._fan(self.n)[1]
        self.null = arrangement._null_vector

    def _constraint(self, bit: int, pat: int, origin: int) -> tuple[list[int], int]:
        N, n = self.N, self.n
        if bit < N:
            first = self.lines.first
            l = max(i for i in range(len(first) - 1) if first[i] <= bit)
            row = self.lines.Z(l, pat & ((1 << first[l]) - 1))[0][bit - first[l]]
            return row, (1 if pat >> bit & 1 else -1)
        if bit < N + n:
            return [int(v) for v in self.G[origin][bit - N]] + [0], 1
        return [0] * n + [1], 1

    def ray(self, corner: int, pat: int, origin: int) -> list[int] | None:
        """The exact ray of ``corner`` (integers, oriented into the cell), or None when
        its tight constraints do not fix one."""
        words = self.arr._KT[corner]
        tight = sum(int(w) << (64 * i) for i, w in enumerate(words))
        rows: list[tuple[list[int], int]] = []
        others: list[tuple[list[int], int]] = []
        for bit in range(self.N + self.n + 1):
            (rows if tight >> bit & 1 else others).append(self._constraint(bit, pat, origin))
        try:
            y = self.null([[Fraction(v) for v in r] for r, _ in rows], self.n + 1)
        except AssertionError:
            return None
        for row, side in others:
            s = sum(a * v for a, v in zip(row, y))
            if s:
                return y if (s > 0) == (side > 0) else [-v for v in y]
        return None

    def points(self, k: int):
        """Cell k's inner points in rationals: the cell's, then each piece's."""
        arr, n = self.arr, self.n
        pat = sum(int(w) << (64 * i) for i, w in enumerate(arr._CP[k]))
        pieces = []
        for q in range(arr._Cs[k], arr._Cs[k] + arr._Cn[k]):
            k0, m = (int(v) for v in arr._PK[q])
            got = [self.ray(c, pat, int(arr._PO[q])) for c in range(k0, k0 + m)]
            rays = [y for y in got if y is not None]
            if len(rays) < len(got):
                continue
            finite = [[Fraction(v, y[n]) for v in y[:n]] for y in rays if y[n] != 0]
            dirs = [y[:n] for y in rays if y[n] == 0]
            if not finite:
                continue
            size = 1 + max(abs(v) for p in finite for v in p)
            total = [sum(p[i] for p in finite) for i in range(n)]
            for d in dirs:
                top = max(abs(v) for v in d)
                total = [t + Fraction(v) * size / top for t, v in zip(total, d)]
            pieces.append((total, len(finite), m, finite, dirs, size))
        if not pieces:
            return
        weight = sum(Fraction(f, m) for _, f, m, *_ in pieces)
        yield [sum(t[i] / m for t, _, m, *_ in pieces) / weight for i in range(n)]
        for t, f, *_ in pieces:
            yield [v / f for v in t]
        # a thin unbounded cell widens along its directions: further out, at 2^j times
        # the size of its finite points, it may hold doubles its middle does not
        for _, f, _, finite, dirs, size in pieces:
            if not dirs:
                continue
            mid = [sum(p[i] for p in finite) / f for i in range(n)]
            step = [sum(Fraction(d[i], max(abs(v) for v in d)) for d in dirs) for i in range(n)]
            for j in (1, 2, 4, 8, 16, 32, 64):
                yield [a + b * size * 2 ** j for a, b in zip(mid, step)]

    def rows(self, k: int) -> list:
        """Cell k's neurons as (exact row, side): side·row·(x, 1) > 0 (on) or ≥ 0 (off)."""
        pat = sum(int(w) << (64 * i) for i, w in enumerate(self.arr._CP[k]))
        return [self._constraint(g, pat, 0) for g in range(self.N)]

    def box(self, k: int):
        """(lower, upper) corners of cell k's bounding box in rationals, or None when
        the cell is unbounded or a ray is not fixed."""
        arr, n = self.arr, self.n
        pat = sum(int(w) << (64 * i) for i, w in enumerate(arr._CP[k]))
        pts = []
        for q in range(arr._Cs[k], arr._Cs[k] + arr._Cn[k]):
            k0, m = (int(v) for v in arr._PK[q])
            for c in range(k0, k0 + m):
                y = self.ray(c, pat, int(arr._PO[q]))
                if y is None or y[n] == 0:
                    return None
                pts.append([Fraction(v, y[n]) for v in y[:n]])
        if not pts:
            return None
        return ([min(p[i] for p in pts) for i in range(n)],
                [max(p[i] for p in pts) for i in range(n)])


def _near(x: np.ndarray):
    """x and the doubles next to it in every coordinate (3ⁿ points, x first)."""
    steps = [(v, np.nextafter(v, -np.inf), np.nextafter(v, np.inf)) for v in x]
    for p in itertools.product(*steps):
        yield np.array(p)


#: The search for doubles in cells stops after this long (the cells not reached keep
#: the floating-point point, unproven): a network of thin slivers has many cells that
#: hold no double at all, and the search cannot tell so cheaply.
SEARCH_SECONDS = 2.0

#: A bounded cell whose bounding box holds at most this many doubles has each of them
#: tried, so that a cell with no double in it is told from one whose double was missed.
BOX_DOUBLES = 4096


def _ordinal(x: float) -> int:
    """Doubles in order as integers (adjacent doubles differ by 1; −0.0 and 0.0 meet)."""
    i = int(np.array(abs(x)).view(np.int64))
    return i if x >= 0 else -i


def _from_ordinal(i: int) -> float:
    v = float(np.array(abs(i), dtype=np.int64).view(np.float64))
    return v if i >= 0 else -v


def _doubles_in(lo, hi) -> list[list[float]] | None:
    """Every double in [lo, hi] coordinate by coordinate, or None when there are more
    than BOX_DOUBLES points (or the box is beyond the doubles)."""
    axes = []
    total = 1
    for a, b in zip(lo, hi):
        try:
            fa, fb = float(a), float(b)
        except OverflowError:
            return None
        i, j = _ordinal(fa), _ordinal(fb)
        i += Fraction(_from_ordinal(i)) < a        # the first double ≥ a
        j -= Fraction(_from_ordinal(j)) > b        # the last double ≤ b
        if j < i:
            return []
        total *= j - i + 1
        if total > BOX_DOUBLES:
            return None
        axes.append([_from_ordinal(t) for t in range(i, j + 1)])
    return [list(p) for p in itertools.product(*axes)]


def _line_search(rows, x: np.ndarray, i: int):
    """Doubles t with x, its coordinate i set to t, strictly inside the cell whose
    neurons' exact rows and senses are ``rows`` (on: row·(x, 1) > 0, off: ≤ 0): the
    exact interval of t, then the doubles in it, a few from each end and the middle.
    A slab thinner than the spacing of doubles where its middle lies is crossed along
    a coordinate whose own spacing is finer there."""
    n = len(x)
    lo, hi = None, None             # t > lo (or ≥), t < hi (or ≤): open is enough here
    fx = [Fraction(float(v)) for v in x]
    for row, side in rows:
        a = Fraction(row[i]) * side
        c = (sum(Fraction(row[j]) * fx[j] for j in range(n) if j != i) + row[n]) * side
        # side·(a t + c) > 0 (on) or ≥ 0 (off: −z ≥ 0); both ask a t + c > 0 or ≥ 0
        if a == 0:
            if c < 0 or (c == 0 and side > 0):
                return
            continue
        t = -c / a
        if a > 0:
            lo = t if lo is None else max(lo, t)
        else:
            hi = t if hi is None else min(hi, t)
    if lo is not None and hi is not None and hi <= lo:
        return
    mid = (lo + hi) / 2 if lo is not None and hi is not None else \
        (lo + 1 + abs(lo) if lo is not None else hi - 1 - abs(hi) if hi is not None else 0)
    seeds = [_to_double([v])[0] for v in (mid, lo, hi) if v is not None]
    for s0 in (v for v in seeds if np.isfinite(v)):
        for direction in (np.inf, -np.inf):
            t = s0
            for _ in range(8):
                y = x.copy()
                y[i] = t
                yield y
                t = np.nextafter(t, direction)


def exact_witnesses(net: MLP, pattern: np.ndarray, cells, full, arr=None,
                    deadline: float | None = None) -> dict[int, tuple[np.ndarray, bool]]:
    """{cell: (a double point, proven)} for ``cells`` (indices into ``pattern``), from
    the exact rays of the n-D enumeration ``arr`` (made here when None or 2-D: its cells
    are matched by pattern). A full-dimensional cell's point is proven in rationals to
    have its pattern; where no such double is found (a cell thinner than the doubles'
    spacing: a bounded one small enough has every double of its box tried) its inner
    point, rounded, is given unproven. A lower-dimensional cell gets its rounded inner
    point. Cells beyond the doubles' range are left out, and so are those not reached
    by ``deadline`` (``time.perf_counter()``; SEARCH_SECONDS from now when None)."""
    from relulab.model.regions import arrangement

    if deadline is None:
        deadline = time.perf_counter() + SEARCH_SECONDS

    if not isinstance(arr, arrangement.ArrangementND):
        arr = arrangement.arrangement_nd(net)
        where = {p.tobytes(): k for k, p in enumerate(arr.pattern)}
        index = {c: where.get(pattern[c].tobytes()) for c in cells}
    else:
        index = {c: c for c in cells}
    rays = _Rays(net, arr)
    found: dict[int, tuple[np.ndarray, bool]] = {}
    for c in cells:
        k = index[c]
        if k is None:
            continue
        if time.perf_counter() > deadline:
            break
        rows = rays.rows(k)
        for p in rays.points(k):
            x = _to_double(p)
            if not np.all(np.isfinite(x)):
                continue
            if not full[c]:
                found[c] = (x, False)
                break
            found.setdefault(c, (x, False))
            if time.perf_counter() > deadline:
                break
            hit = next((y for y in _near(x) if _member(rows, y)), None)
            if hit is None:
                hit = next((y for i in range(len(x)) for y in _line_search(rows, x, i)
                            if _member(rows, y)), None)
            if hit is not None:
                found[c] = (hit, True)
                break
        if c in found and full[c] and not found[c][1] and time.perf_counter() < deadline:
            box = rays.box(k)
            grid = _doubles_in(*box) if box is not None else None
            hit = next((np.array(y) for y in grid or () if _member(rows, y)), None)
            if hit is not None:
                found[c] = (hit, True)
    return found
