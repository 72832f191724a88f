"""Exact linear pieces of a ReLU network with one input and one output.

A ReLU network f: R → R is continuous and piecewise linear. Its kinks are found
exactly, never by sampling, by carrying a sorted list of knots through the layers
(see docs/deep-to-shallow.md, "1-D input"):

* keep the knots T, each hidden vector's values at the knots and its slope on
  every piece (the two rays included);
* for the next layer the pre-activation z = W h + b is affine between knots, so
  each neuron crosses zero at most once per piece: add a knot at every strict sign
  change between consecutive knots and on each ray (linear interpolation /
  extrapolation), then apply the activation piece by piece;
* at the output, a knot is a kink when the slopes on its two sides differ.

Every knot is a boundary of activation regions (some neuron switches there); the
ones where the output's slope does not change are reported separately, because
regions and pieces are different things.

Everything is vectorised over the knots (numpy, no Python loop over pieces), so
the depth-24 tent map (16.7 million pieces) takes seconds.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable

import numpy as np

from relulab.model.cancel import Cancelled
from relulab.model.mlp import MLP

# Knots closer than this (relative to max(1, |t|)) are one knot: a root computed
# at an existing knot lands a rounding error away from it.
MERGE_RTOL = 1e-12
# Slopes that agree to this relative tolerance make no kink.
SLOPE_RTOL = 1e-9

# Slope of each activation when the neuron is off / on; None = no kink at all.
_OFF_SLOPE = {"relu": 0.0, "leaky_relu": 0.01, "identity": None}


class TooManyKnots(ValueError):
    """The knots would exceed the ``max_knots`` budget given to piecewise_linear."""


# The name piecewise_linear's callers know; the same exception as every model loop's.
Stopped = Cancelled


def _readonly(a) -> np.ndarray:
    a = np.ascontiguousarray(a, dtype=float)
    a.setflags(write=False)
    return a


@dataclass(frozen=True, eq=False)
class PiecewiseLinear:
    """A continuous piecewise-linear function of one variable, stored exactly.

    ``kinks`` t₁ < … < t_K (true slope changes only), ``values`` f(t_i), and
    ``slopes`` s₀ … s_K of the K + 1 pieces (s₀ on the left ray or the first piece
    of ``domain``, s_K on the right one). Between kinks
    f(x) = f(t_i) + s_i (x − t_i). ``region_boundaries`` are all points where an
    activation pattern changes; ``non_kink_boundaries`` those of them where the
    slope does not change. When K = 0 the line passes through ``anchor``.
    ``domain`` is (−∞, ∞) unless the function was restricted to an interval.
    """

    kinks: np.ndarray
    values: np.ndarray
    slopes: np.ndarray
    region_boundaries: np.ndarray = field(default_factory=lambda: _readonly([]))
    non_kink_boundaries: np.ndarray = field(default_factory=lambda: _readonly([]))
    anchor: tuple[float, float] = (0.0, 0.0)
    domain: tuple[float, float] = (-np.inf, np.inf)

    @property
    def n_kinks(self) -> int:
        return int(self.kinks.shape[0])

    @property
    def n_pieces(self) -> int:
        """Number of linear pieces: K + 1 (on ``domain``)."""
        return int(self.kinks.shape[0]) + 1

    @property
    def jumps(self) -> np.ndarray:
        """Slope changes c_i = s_i − s_{i−1} at the kinks, so that
        f(x) = f(t₁) + s₀ (x − t₁) + Σ c_i ReLU(x − t_i)."""
        return np.diff(self.slopes)

    def __call__(self, x) -> np.ndarray:
        """f(x), exactly by the pieces; NaN outside ``domain``. Arrays in, arrays out."""
        x = np.asarray(x, dtype=float)
        if self.n_kinks == 0:
            x0, y0 = self.anchor
            y = y0 + self.slopes[0] * (x - x0)
        else:
            piece = np.searchsorted(self.kinks, x, side="right")  # 0 … K
            ref = np.maximum(piece - 1, 0)
            y = self.values[ref] + self.slopes[piece] * (x - self.kinks[ref])
        lo, hi = self.domain
        if np.isfinite(lo) or np.isfinite(hi):
            y = np.where((x < lo) | (x > hi), np.nan, y)
        return y

    def restrict(self, a: float, b: float) -> "PiecewiseLinear":
        """The same function on [a, b]: the kinks strictly inside and their pieces."""
        a, b = float(a), float(b)
        if not a < b:
            raise ValueError(f"interval: need a < b, got [{a}, {b}]")
        lo, hi = max(a, self.domain[0]), min(b, self.domain[1])
        if not lo < hi:
            raise ValueError(f"interval [{a}, {b}] lies outside the domain {self.domain}")

        def inside(arr):  # the points strictly inside (lo, hi)
            k = np.searchsorted(arr, lo, side="right")
            m = np.searchsorted(arr, hi, side="left")
            return k, m

        i, j = inside(self.kinks)
        rb = self.region_boundaries[slice(*inside(self.region_boundaries))]
        nb = self.non_kink_boundaries[slice(*inside(self.non_kink_boundaries))]
        x_mid = lo if np.isfinite(lo) else (hi if np.isfinite(hi) else 0.0)
        return replace(
            self,
            kinks=_readonly(self.kinks[i:j]),
            values=_readonly(self.values[i:j]),
            slopes=_readonly(self.slopes[i:j + 1]),
            region_boundaries=_readonly(rb),
            non_kink_boundaries=_readonly(nb),
            anchor=(x_mid, float(self(x_mid))),
            domain=(lo, hi),
        )

    def breakpoints(self, a: float | None = None, b: float | None = None):
        """(x, y) through the kinks inside [a, b] and the two ends: joining them with
        straight lines draws f exactly on [a, b]. Defaults: ``domain``."""
        a = self.domain[0] if a is None else float(a)
        b = self.domain[1] if b is None else float(b)
        if not (np.isfinite(a) and np.isfinite(b)):
            raise ValueError("breakpoints: give a finite interval")
        i = np.searchsorted(self.kinks, a, side="right")
        j = np.searchsorted(self.kinks, b, side="left")
        x = np.concatenate([[a], self.kinks[i:j], [b]])
        y = np.concatenate([self([a]), self.values[i:j], self([b])])
        return x, y

    def __repr__(self) -> str:
        return (f"PiecewiseLinear({self.n_pieces} pieces, {self.n_kinks} kinks, "
                f"domain={self.domain})")


def _repeat_index(counts: np.ndarray) -> np.ndarray:
    """``np.repeat(np.arange(len(counts)), counts)`` for positive counts, through a
    cumulative sum: np.repeat holds the GIL for the whole copy (0.17 s at depth 24, a
    frozen window while a worker computes), a cumulative sum releases it."""
    ends = np.cumsum(counts)
    step = np.zeros(int(ends[-1]), dtype=np.int64)
    step[ends[:-1]] = 1
    return np.cumsum(step, out=step)


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
    # z of every neuron at the roots; between knots z is affine, so interpolate
    Zr = np.empty((n, ni))
    for z, zr in zip(Z, Zr):
        za = z[i]
        np.subtract(z[1:][i], za, out=zr)
        zr *= lam
        zr += za
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
        # Old knot k moves right past the left-ray roots and the roots of the
        # intervals before it; a root of interval i lands after knot i.
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
        del i
        old_pos = before
        old_pos += np.arange(nl, nl + m)
        del before

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
        F2 = np.ones(total, dtype=bool)  # every new root is a boundary
        F2[old_pos] = flags
        flags = F2
        del old_pos, root_pos, F2
        # a piece split by s roots becomes s + 1 pieces with the slope it had
        splits = np.empty(m + 1, dtype=np.int64)
        splits[0], splits[m] = nl, nr
        splits[1:m] = per_interval
        del per_interval
        splits += 1
        piece_of = _repeat_index(splits)  # old piece of each new piece
        del splits
        Dz2 = np.empty((n, total + 1))
        for d2, d in zip(Dz2, Dz):
            np.take(d, piece_of, out=d2)
        del Dz, piece_of
        Dz = Dz2
        del Dz2
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


def piecewise_linear(net: MLP, *, max_knots: int | None = None,
                     should_stop: Callable[[], bool] | None = None) -> PiecewiseLinear:
    """The exact kinks, values and slopes of a network f: R → R on the whole line.

    Works for ReLU (and leaky ReLU / identity) networks with one input and one
    output. Each neuron crosses zero at most once per piece of its input, so the
    number of kinks is K ≤ ∏(n_l + 1) − 1 over the hidden widths n_l.

    ``max_knots``: raise TooManyKnots as soon as a layer has more knots than this.
    ``should_stop``: checked between layers; when it returns True, raise Stopped
    (lets a worker thread give up on a computation nobody needs any more).
    """
    if not isinstance(net, MLP):
        raise TypeError(f"piecewise_linear needs an MLP, got {type(net).__name__}")
    if net.activation not in _OFF_SLOPE:
        raise ValueError(
            f"piecewise_linear needs a piecewise-linear activation (relu, leaky_relu or "
            f"identity), not {net.activation!r}")
    if net.n_in != 1 or net.n_out != 1:
        raise ValueError(f"piecewise_linear needs one input and one output, got "
                         f"{net.n_in} inputs and {net.n_out} outputs")
    if not net.is_finite():
        raise ValueError("piecewise_linear needs finite weights and biases")
    off_slope = _OFF_SLOPE[net.activation]

    # Start from the input h₀ = x with one anchor knot at 0 that is not a boundary.
    state = [np.zeros(1), np.zeros((1, 1)), np.ones((1, 2)), np.zeros(1, dtype=bool)]
    for layer, (W, b) in enumerate(net.layers[:-1], start=1):
        if should_stop is not None and should_stop():
            raise Stopped(f"stopped before layer {layer}")
        _layer(state, W, b, off_slope)
        if max_knots is not None and state[0].size > max_knots:
            raise TooManyKnots(f"more than {max_knots:,} knots after layer {layer} "
                               f"({state[0].size:,})")
    T, H, D, flags = state
    del state
    W, b = net.layers[-1]
    y = (W @ H)[0] + b[0]
    dy = (W @ D)[0]
    del H, D

    # a knot is a kink when the slopes on its two sides differ (relative test)
    jump = np.subtract(dy[1:], dy[:-1])
    np.abs(jump, out=jump)
    size = np.abs(dy)
    tol = np.maximum(size[1:], size[:-1])
    tol *= SLOPE_RTOL
    tol += 1e-12 * size.max()
    del size
    is_kink = jump > tol
    del jump, tol
    anchor = (float(T[0]), float(y[0]))
    if is_kink.all():  # every knot bends (the tent map): no copies of 16.7 million numbers
        kinks, values, slopes = T, y, dy
        non_kink = T[:0]
    else:
        kinks = T[is_kink]
        values = y[is_kink]
        # slope of each piece between kinks: the first sub-piece after the kink
        first_piece = np.concatenate([[0], np.flatnonzero(is_kink) + 1])
        slopes = dy[first_piece]
        non_kink = T[flags & ~is_kink]
    boundaries = T if flags.all() else T[flags]
    return PiecewiseLinear(
        kinks=_readonly(kinks),
        values=_readonly(values),
        slopes=_readonly(slopes),
        region_boundaries=_readonly(boundaries),
        non_kink_boundaries=_readonly(non_kink),
        anchor=anchor,
    )
