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

Every decision that changes a count (the sign of a pre-activation at a knot, the
order of two roots in one piece, whether a slope changes) is certified: the
doubles carry an error bound (or a proof that they are exact, for networks whose
numbers sit on a coarse binary lattice, such as the tent map), and when a bound
cannot decide, the whole line is recomputed in exact rational arithmetic
(:func:`relulab.model.networks.exact.exact_line`). No tolerance depends on the input's
units. ``certify=False`` keeps the plain floating-point path as a baseline.

Every knot is a boundary of activation regions (some neuron switches there); the
ones where the output's slope does not change are reported separately, because
regions and pieces are different things.

Everything is vectorised over the knots (numpy, no Python loop over pieces), so
the depth-24 tent map (16.7 million pieces) takes seconds.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from fractions import Fraction

import numpy as np

from relulab.model.core.cancel import Cancelled
from relulab.model.networks.exact import BeyondExact, ExactLine, U, exact_line, gamma
from relulab.model.networks.mlp import MLP

# The plain floating-point path (certify=False, the benchmarks' baseline) merges
# knots this close (relative to max(1, |t|)) and ignores slope changes this small;
# the certified path uses neither.
MERGE_RTOL = 1e-12
SLOPE_RTOL = 1e-9

#: When doubles cannot certify a decision, the exact walk along the line runs up to
#: this many knots before giving up with BeyondExact (about a second per 10⁴ knots
#: of a narrow network; wider layers cost more per knot).
EXACT_KNOTS = 40_000

CERTIFIED_FLOAT = "certified: floating point with error bounds"
CERTIFIED_LATTICE = "certified: every floating-point operation exact"
EXACT_RATIONAL = "exact: rational arithmetic"
FLOAT_ONLY = "floating point only, not certified"

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

    The numbers are doubles. ``certificate`` says how the kinks were decided (see
    the module docstring); ``kink_errors`` bounds |kinks − exact kinks| (0 where a
    kink is exactly a double; None when not certified); ``exact`` holds the exact
    rational computation when one was made, and ``output`` which of its outputs
    this is. ``kink_jumps`` are the slope changes rounded from their exact values.
    """

    kinks: np.ndarray
    values: np.ndarray
    slopes: np.ndarray
    region_boundaries: np.ndarray = field(default_factory=lambda: _readonly([]))
    non_kink_boundaries: np.ndarray = field(default_factory=lambda: _readonly([]))
    anchor: tuple[float, float] = (0.0, 0.0)
    domain: tuple[float, float] = (-np.inf, np.inf)
    certificate: str = FLOAT_ONLY
    kink_errors: np.ndarray | None = None
    kink_jumps: np.ndarray | None = None
    exact: ExactLine | None = None
    output: int = 0

    @property
    def certified(self) -> bool:
        """True when every count-changing decision was certified or exact."""
        return self.certificate != FLOAT_ONLY

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
        return np.diff(self.slopes) if self.kink_jumps is None else self.kink_jumps

    def kinks_inside(self, a: float, b: float) -> int | None:
        """How many kinks lie strictly inside (a, b), decided exactly; None when the
        error bound of a kink straddles a or b and no exact kinks are at hand."""
        if self.exact is not None:
            from fractions import Fraction

            fa, fb = Fraction(float(a)), Fraction(float(b))
            jumps = self.exact.jumps(self.output)
            return sum(1 for t, c in zip(self.exact.knots, jumps) if c != 0 and fa < t < fb
                       and self.domain[0] < t < self.domain[1])
        if self.kink_errors is None:
            return None
        t, e = self.kinks, self.kink_errors
        if np.any((np.abs(t - a) <= e) & (e > 0)) or np.any((np.abs(t - b) <= e) & (e > 0)):
            return None
        return int(np.count_nonzero((t > a) & (t < b)))

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

    def restrict(self, a: float, b: float) -> PiecewiseLinear:
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
            kink_errors=None if self.kink_errors is None else _readonly(self.kink_errors[i:j]),
            kink_jumps=None if self.kink_jumps is None else _readonly(self.kink_jumps[i:j]),
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


class _Uncertain(Exception):
    """A decision that the floating-point filter could not certify."""


#: Long arrays are checked in blocks of this many entries (memory stays flat).
_BLOCK = 1 << 20


def _lattice(a: np.ndarray) -> int:
    """The smallest e with a·2^e integral everywhere (about −1000 for all zeros).

    a = M·2^(E−53) with |M| < 2^53 (frexp); the lowest set bit of M times 2^E is
    the finest power of two that divides the entry."""
    a = np.asarray(a, dtype=float).ravel()
    if a.size == 0:
        return -1100
    if a.size > _BLOCK:
        return max(_lattice(a[k:k + _BLOCK]) for k in range(0, a.size, _BLOCK))
    m, E = np.frexp(a)
    M = (m * 2.0 ** 53).astype(np.int64)
    M |= np.int64(1) << np.int64(62)  # zeros: a huge lowest bit, so they never decide
    M &= -M
    finest = float(np.ldexp(M.astype(float), E).min())  # lowest bit · 2^E = 2^(53 − e)
    return 53 - (int(np.frexp(finest)[1]) - 1)


def _fits(bound: float, e: int) -> bool:
    """Integers of magnitude bound·2^e stay below 2^53, so sums and products of
    numbers on the lattice 2^−e Z are exact in doubles (which hold no finer lattice
    than 2^−1074)."""
    return bound == 0 or (np.isfinite(bound) and np.log2(bound) + e < 52.5 and e <= 1074)


class _State:
    """Knots T, values H at the knots, slopes D on the pieces, region flags, and
    what is known about their accuracy: error bounds ET, EH, ED (None = exact), and
    for exact states the binary lattices eT, eH, eD the numbers live on."""

    __slots__ = (
        "D",
        "Dd",
        "ED",
        "EH",
        "ET",
        "H",
        "T",
        "eD",
        "eH",
        "eT",
        "exact_layers",
        "flags",
    )

    def __init__(self):
        self.T, self.H, self.D = np.zeros(1), np.zeros((1, 1)), np.ones((1, 2))
        self.flags = np.zeros(1, dtype=bool)
        self.ET = self.EH = self.ED = None
        self.eT = self.eH = self.eD = 0
        self.exact_layers = 0
        # Dd[i, k]: may the exact slope of unit i differ across knot k? (False proves
        # equal: a neuron whose every consumer is off bends nothing downstream)
        self.Dd = None

    def slope_changes(self) -> np.ndarray:
        if self.Dd is None:  # exact slopes: compare them directly
            self.Dd = self.D[:, 1:] != self.D[:, :-1]
        return self.Dd

    @property
    def is_exact(self) -> bool:
        return self.ET is None and self.EH is None and self.ED is None

    def errors(self):
        z = np.zeros
        return (z(self.T.shape) if self.ET is None else self.ET,
                z(self.H.shape) if self.EH is None else self.EH,
                z(self.D.shape) if self.ED is None else self.ED)


def _affine_bounded(W, H, b, EH):
    """W H + b and a bound on its distance to the exact W h + b, given |H − h| ≤ EH:
    |W| EH + γ_{n+1}(|W| |H| + |b|) (Higham, Accuracy and Stability, §3.5)."""
    Z = W @ H
    if b is not None:
        Z += b[:, None]
    g = gamma(W.shape[1] + 1)
    A = np.abs(W)
    E = A @ (EH + g * np.abs(H))
    if b is not None:
        E += g * np.abs(b)[:, None]
    # a product of two non-zero doubles may underflow: each adds at most 2^−1074
    nonzero_W, nonzero_H = A[A > 0], np.abs(H[H != 0])
    if nonzero_W.size and nonzero_H.size and nonzero_W.min() * nonzero_H.min() < 2.0 ** -960:
        E += 2.0 ** -1073 * ((A > 0).astype(float) @ (H != 0).astype(float))
    return Z, E


def _certify_signs(Z, EZ):
    if EZ is None:
        return
    ok = (np.abs(Z) > EZ) | ((Z == 0) & (EZ == 0))
    if not ok.all():
        raise _Uncertain("the sign of a pre-activation at a knot")


def _lattice_products_exact(pairs) -> bool:
    """Each (max|x|, e_x, max|y|, e_y): the product of two numbers on their lattices
    stays an integer below 2^53 at the combined lattice."""
    return all(_fits(ax * ay, ex + ey) for ax, ex, ay, ey in pairs)


def _layer_certified(st: _State, W: np.ndarray, b: np.ndarray, off_slope) -> None:
    """One hidden layer h ↦ φ(W h + b) with every decision certified (in place).

    First, if everything so far is exact, try to prove this layer exact too: the
    inputs live on binary lattices and every sum, product and root stays an integer
    below 2^53 on its lattice (so rounding never happens; the tent map at peak ½
    and integer networks stay here). Otherwise carry error bounds and raise
    _Uncertain when one cannot decide a sign or an order."""
    T, H, D, flags = st.T, st.H, st.D, st.flags
    st.H = st.D = None  # hold no arrays that are no longer needed (depth 24 is near 2 GB)
    n = W.shape[0]
    exact = st.is_exact and off_slope in (0.0, None)
    if exact:
        eW, eb = _lattice(W), _lattice(b)
        eZ = max(eW + st.eH, eb)
        eDz = eW + st.eD
        maxH = np.maximum(H.max(axis=1), -H.min(axis=1))
        maxD = np.maximum(D.max(axis=1), -D.min(axis=1))
        A = np.abs(W)
        exact = (_fits(float((A @ maxH + np.abs(b)).max()) * 2, eZ)
                 and _fits(float((A @ maxD).max()), eDz)
                 and _fits(max(float(T.max()), -float(T.min())) * 2, st.eT))
    if exact:
        Z = W @ H
        Z += b[:, None]
        Dz = W @ D
        EZ = EDz = None
        ET = None
        inputs = (H, D)  # kept only until the roots are proven exact
    else:
        st.H, st.D = H, D
        ET, EH, ED = st.errors()
        Dd = _spread_changes(W, st.slope_changes())
        st.H = st.D = st.Dd = None
        Z, EZ = _affine_bounded(W, H, b, EH)
        Dz, EDz = _affine_bounded(W, D, None, ED)
        del EH, ED
    del H, D
    m = T.size
    if off_slope is None:  # identity: no new knots, no change of slope, no sign to decide
        st.H, st.D, st.EH, st.ED = Z, Dz, EZ, EDz
        st.Dd = None if exact else Dd
        if exact:
            st.eH, st.eD = eZ, eDz
        return
    if not exact:
        _certify_signs(Z, EZ)
    # the rays: their slopes' signs decide whether a neuron crosses out there
    for col in (0, m):
        if EDz is not None:
            _certify_signs(Dz[:, col], EDz[:, col])
    i, lam, r, counts = (_crossings_small if Z.size <= _SMALL else _crossings)(Z, T)
    ni = i.size
    # which neuron each root belongs to (np.repeat would hold the GIL: _repeat_index)
    crossing = np.flatnonzero(counts)
    who = (crossing.astype(np.int16 if n < 2 ** 15 else np.int64)[_repeat_index(counts[crossing])]
           if ni else np.zeros(0, dtype=np.int16 if n < 2 ** 15 else np.int64))
    # Neurons with the same weights differ by a constant, b_k − b_j: at the root of j
    # neuron k is exactly that (when the difference is a double), with no rounding.
    same = _parallel_offsets(W, b)
    all_known = same is not None and bool(same[1].all())
    if all_known:  # every neuron's value at every root is known exactly (the tent)
        Zr = same[0][:, who]
        exact_at_root = None
    else:
        if exact:  # row by row: long rows (a deep fold) stay cache-friendly
            Zr = _interpolate(Z, i, lam)
        else:
            Zr = Z[:, i]
            Zr += lam * (Z[:, i + 1] - Zr)
        Zr[who, np.arange(ni)] = 0.0
        exact_at_root = None if same is None and not exact else np.zeros(Zr.shape, dtype=bool)
        if exact_at_root is not None:
            exact_at_root[who, np.arange(ni)] = True
        if same is not None and ni:
            offsets, known = same
            for k in range(n):
                hit = known[k, who]
                if hit.any():
                    Zr[k, hit] = offsets[k, who[hit]]
                    exact_at_root[k, hit] = True
    jl, rl = _ray_roots(Z[:, 0], Dz[:, 0], T[0], left=True)
    jr, rr = _ray_roots(Z[:, -1], Dz[:, -1], T[-1], left=False)
    Zl = _values_on_ray(Z[:, 0], Dz[:, 0], T[0], rl, jl)
    Zrr = _values_on_ray(Z[:, -1], Dz[:, -1], T[-1], rr, jr)
    if exact:
        exact = _roots_exact(T, Z, i, r, who, Zr, st.eT, eZ, exact_at_root)
        if exact:
            exact = _ray_roots_exact(T, Z, Dz, jl, rl, Zl, jr, rr, Zrr)
        if not exact:  # not provably exact after all: redo this layer with bounds
            del Z, Dz, Zr, Zl, Zrr
            st.H, st.D = inputs
            st.ET, st.eT = np.zeros(T.shape), None
            _layer_certified(st, W, b, off_slope)
            return
        del inputs
        eT = max(st.eT, _lattice(r), _lattice(rl), _lattice(rr))
        eH = max(eZ, _lattice(same[0] if all_known else Zr), _lattice(Zl), _lattice(Zrr))
        EZr = EZl = EZrr = ETr = ETl = ETrr = None
    else:
        ETr, EZr = _root_bounds(T, ET, Z, EZ, i, lam, r, who, Zr)
        if all_known:
            EZr[:] = 0.0
        elif exact_at_root is not None:
            EZr[exact_at_root] = 0.0
        ETl, EZl = _ray_bounds(T[0], ET[0], Z[:, 0], EZ[:, 0], Dz[:, 0], EDz[:, 0], jl, rl, Zl)
        ETrr, EZrr = _ray_bounds(T[-1], ET[-1], Z[:, -1], EZ[:, -1], Dz[:, -1], EDz[:, -1],
                                 jr, rr, Zrr)
        _certify_signs(Zr, EZr)
        _certify_signs(Zl, EZl)
        _certify_signs(Zrr, EZrr)
        # two roots in one piece, or two on a ray, must be told apart
        if ni:
            order = np.lexsort((r, i))
            one_piece = i[order][1:] == i[order][:-1]
            gap = np.diff(r[order])
            if np.any(one_piece & (gap <= ETr[order][1:] + ETr[order][:-1])):
                raise _Uncertain("the order of two roots in one piece")
        for rays, er in ((rl, ETl), (rr, ETrr)):
            if rays.size > 1 and np.any(np.diff(rays) <= er[1:] + er[:-1]):
                raise _Uncertain("the order of two roots on a ray")
    nl, nr = rl.size, rr.size
    if nl + nr + ni:
        total = m + nl + nr + ni
        per_interval, old_pos, root_pos = _new_positions(i, r, m, nl)
        del i

        def spread(old, ray_l, mid, ray_r, rows=None):
            """Old values at old_pos, new ones at the roots (None = exact zeros)."""
            if rows is None:
                out = np.empty(total)
                out[:nl] = ray_l
                out[old_pos] = old
                out[root_pos] = mid
                out[total - nr:] = ray_r
                return out
            out = np.empty((rows, total))
            out[:, :nl] = ray_l
            out[:, total - nr:] = ray_r
            for o2, o, md in zip(out, old, mid):
                o2[old_pos] = o
                o2[root_pos] = md
            return out

        T = spread(T, rl, r, rr)
        del r
        if ET is not None:
            ET = spread(ET, ETl, ETr, ETrr)
        Z = spread(Z, Zl, Zr, Zrr, n)
        del Zr
        if not exact:  # a new root splits a piece: the same slopes on both sides
            Dd2 = np.zeros((n, total), dtype=bool)
            Dd2[:, old_pos] = Dd
            Dd = Dd2
            del Dd2
        if EZ is not None:
            EZ = spread(EZ, EZl, EZr, EZrr, n)
        flags = _new_flags(flags, old_pos, total)
        del old_pos, root_pos
        piece_of = _old_piece(per_interval, m, nl, nr)
        del per_interval
        Dz = _slopes_on(Dz, piece_of)
        if EDz is not None:
            EDz = EDz[:, piece_of]
        del piece_of
        if exact:
            # exact roots that coincide (two neurons crossing at one point) are one
            # knot; the piece between them has no width and goes
            gaps = np.diff(T)
            if gaps.size and gaps.min() == 0:
                keep = np.concatenate([[True], gaps != 0])
                flags = np.logical_or.reduceat(flags, np.flatnonzero(keep))
                T, Z = T[keep], Z[:, keep]
                Dz = Dz[:, np.concatenate([keep, [True]])]
    else:
        del Zr
    on, flags = _pattern(T, Z, Dz, flags)
    if not exact:
        Dd = _changes_after_activation(Dd, on, Dz, EDz, off_slope)
    if off_slope == 0.0:
        if EZ is not None:
            EZ[Z <= 0] = 0.0
        np.maximum(Z, 0.0, out=Z)
        Dz *= on
        if EDz is not None:
            EDz *= on
    else:
        negative = Z <= 0
        Z = np.where(negative, off_slope * Z, Z)
        if EZ is not None:
            EZ = np.where(negative, off_slope * EZ + U * np.abs(Z), EZ)
        scale = np.where(on, 1.0, off_slope)
        Dz *= scale
        if EDz is not None:
            EDz = EDz * scale + np.where(on, 0.0, U * np.abs(Dz))
    st.T, st.H, st.D, st.flags = T, Z, Dz, flags
    st.ET, st.EH, st.ED = ET, EZ, EDz
    st.Dd = None if exact else Dd
    if exact:
        st.eT, st.eH, st.eD = eT, eH, eDz
        st.exact_layers += 1
    else:
        st.eT = st.eH = st.eD = None


def _spread_changes(W, Dd):
    """Units of the next layer whose slope may change across each knot: those fed by
    a unit whose slope may change, through a non-zero weight."""
    return (np.abs(W) > 0).astype(float) @ Dd.astype(float) > 0


def _changes_after_activation(Dd, on, Dz, EDz, off_slope):
    """Slope changes after the activation: a neuron on (or off) on both sides keeps
    its pre-activation's; one that switches changes unless its slope on the on side
    is exactly zero."""
    left, right = on[:, :-1], on[:, 1:]
    switched = left != right
    out = Dd & (left | (off_slope != 0.0)) & ~switched
    if switched.any():
        side = np.where(left, Dz[:, :-1], Dz[:, 1:])
        eside = np.where(left, EDz[:, :-1], EDz[:, 1:])
        out |= switched & ~((side == 0) & (eside == 0))
    return out


def _pattern(T, Z, Dz, flags):
    """Which neurons are on in each piece, and the knots where the pattern changes.

    z keeps one sign on a piece, so the sum of its two end values has that sign
    (both 0: z ≡ 0 there, off). On a ray the sign is that of z far out, i.e. of its
    slope (or of z when flat). A knot is a region boundary when the pattern changes
    across it or at it (a neuron that only touches zero there makes the knot a
    region of its own)."""
    n = Z.shape[0]
    m = T.size
    on = np.empty((n, m + 1), dtype=bool)
    on[:, 0] = np.where(Dz[:, 0] != 0, Dz[:, 0] < 0, Z[:, 0] > 0)
    on[:, m] = np.where(Dz[:, m] != 0, Dz[:, m] > 0, Z[:, -1] > 0)
    if Z.size <= _SMALL:
        on[:, 1:m] = (Z[:, :-1] + Z[:, 1:]) > 0
        at = Z > 0
        flags |= ((on[:, :-1] != on[:, 1:]) | (at != on[:, :-1]) | (at != on[:, 1:])).any(axis=0)
        return on, flags
    both_ends = np.empty(max(m - 1, 0))
    for o, z in zip(on, Z):
        np.add(z[:-1], z[1:], out=both_ends)
        np.greater(both_ends, 0.0, out=o[1:m])
    del both_ends
    for o, z in zip(on, Z):
        at = z > 0
        changed = o[:-1] != o[1:]
        changed |= at != o[:-1]
        changed |= at != o[1:]
        flags |= changed
    return on, flags


_PROBE = np.random.default_rng(12).uniform(0.5, 1.5, 4096)


def _parallel_offsets(W, b):
    """For neurons k, j with identical weight rows: offsets[k, j] = b_k − b_j and
    known[k, j] True when that difference is exactly a double (and on the diagonal,
    where the offset is 0). None when no two neurons share their weights."""
    n = W.shape[0]
    # distinct projections prove distinct rows (cheaper than comparing every pair)
    if n < 2 or np.unique(W @ _PROBE[:W.shape[1]] if W.shape[1] <= _PROBE.size else
                          W.sum(axis=1)).size == n:
        return None
    equal = np.all(W[:, None, :] == W[None, :, :], axis=2)
    np.fill_diagonal(equal, False)
    if not equal.any():
        return None
    offsets = b[:, None] - b[None, :]
    known = np.eye(n, dtype=bool)  # a neuron is exactly 0 at its own root
    for k, j in zip(*np.nonzero(equal)):
        known[k, j] = Fraction(float(b[k])) - Fraction(float(b[j])) == Fraction(float(offsets[k, j]))
    return offsets, known


def _roots_exact(T, Z, i, r, who, Zr, eT, eZ, exact_at_root) -> bool:
    """Whether every interpolated root and every value there is exactly right (in
    blocks of roots, so that the checks' temporaries stay small)."""
    if i.size == 0:
        return True
    maxT = max(float(T.max()), -float(T.min()))
    maxZ = max(float(Z.max()), -float(Z.min()))
    for k in range(0, i.size, _BLOCK):
        part = slice(k, k + _BLOCK)
        if not _roots_exact_block(T, Z, i[part], r[part], who[part], Zr[:, part], eT, eZ,
                                  None if exact_at_root is None else exact_at_root[:, part],
                                  maxT, maxZ):
            return False
    return True


def _roots_exact_block(T, Z, i, r, who, Zr, eT, eZ, exact_at_root, maxT, maxZ) -> bool:
    """Whether every interpolated root and every value there is exactly right.

    The exact root τ of neuron j between knots a and b satisfies
    (τ − T_a)(z_a − z_b) = z_a (T_b − T_a); on the lattices both sides are computed
    without rounding, so comparing them in doubles decides it exactly. Likewise the
    value v of neuron k there: (v − z_ka)(z_a − z_b) = z_a (z_kb − z_ka)."""
    if i.size == 0:
        return True
    er = _lattice(r)
    ev = -1100 if exact_at_root is None else _lattice(Zr[~exact_at_root])
    eTr, eV = max(er, eT), max(ev, eZ)
    maxT = max(maxT, float(np.abs(r).max()))
    maxV = max(maxZ, float(np.abs(Zr).max())) if exact_at_root is not None else maxZ
    if not (_fits(2 * maxT, eTr) and _fits(2 * maxZ, eZ) and _fits(2 * maxV, eV)):
        return False
    za, zb = Z[who, i], Z[who, i + 1]
    dz = za - zb
    Ta, Tb = T[i], T[i + 1]
    left = r - Ta
    dT = Tb - Ta
    maxdz = float(np.abs(dz).max())
    if not _lattice_products_exact([(float(np.abs(left).max()), eTr, maxdz, eZ),
                                    (float(np.abs(za).max()), eZ, float(np.abs(dT).max()), eT)]):
        return False
    if not np.array_equal(left * dz, za * dT):
        return False
    if exact_at_root is None:
        return True
    for zk, vk, known in zip(Z, Zr, exact_at_root):
        if known.all():
            continue
        ka, kb = zk[i], zk[i + 1]
        dv, dk = vk - ka, kb - ka
        if not _lattice_products_exact([(float(np.abs(dv).max()), eV, maxdz, eZ),
                                        (float(np.abs(za).max()), eZ, float(np.abs(dk).max()),
                                         eZ)]):
            return False
        if not np.array_equal((dv * dz)[~known], (za * dk)[~known]):
            return False
    return True


def _ray_roots_exact(T, Z, Dz, jl, rl, Zl, jr, rr, Zrr) -> bool:
    """The few roots on the rays, checked with exact rationals."""
    from fractions import Fraction as F

    for j, rts, vals, end, col in ((jl, rl, Zl, 0, 0), (jr, rr, Zrr, -1, -1)):
        t0 = F(float(T[end]))
        for k, (jj, t) in enumerate(zip(j, rts)):
            tau = t0 - F(float(Z[jj, end])) / F(float(Dz[jj, col]))
            if F(float(t)) != tau:
                return False
            for q in range(Z.shape[0]):
                v = F(float(Z[q, end])) + F(float(Dz[q, col])) * (tau - t0)
                if F(float(vals[q, k])) != v:
                    return False
    return True


def _root_bounds(T, ET, Z, EZ, i, lam, r, who, Zr):
    """Error bounds of interpolated roots and of every neuron's value there.

    λ = z_a / (z_a − z_b) with |z_a|, |z_b| known to within EZ: |λ̂ − λ| ≤
    (EZ_a + EZ_b) / (|z_a − z_b| − EZ_a − EZ_b) + 4u; the root moves by that times
    the piece's width, plus the knots' own errors and the rounding of r."""
    if i.size == 0:
        return np.zeros(0), np.zeros((Z.shape[0], 0))
    za, zb = Z[who, i], Z[who, i + 1]
    ea, eb = EZ[who, i], EZ[who, i + 1]
    width = np.abs(za - zb)
    slack = width - ea - eb
    if np.any(slack <= 0):
        raise _Uncertain("a root between two knots")
    elam = (ea + eb) / slack * (1 + 4 * U) + 4 * U
    dT = T[i + 1] - T[i]
    ETa, ETb = ET[i], ET[i + 1]
    ETr = (np.maximum(ETa, ETb) + elam * (dT + ETa + ETb) + 4 * U * (dT + np.abs(r))) * (1 + 8 * U)
    A, B = Z[:, i], Z[:, i + 1]
    EA, EB = EZ[:, i], EZ[:, i + 1]
    EZr = np.maximum(EA, EB)
    EZr += elam * (np.abs(B - A) + EA + EB)
    EZr += 4 * U * (np.abs(A) + np.abs(B))
    EZr *= 1 + 8 * U
    EZr[who, np.arange(i.size)] = 0.0  # the crossing neuron is exactly 0 at its root
    return ETr, EZr


def _ray_bounds(t0, et0, z0, ez0, d, ed, j, roots, vals):
    """Error bounds of the roots on one ray, t = t0 − z/d, and of the values there."""
    if roots.size == 0:
        return np.zeros(0), np.zeros((z0.size, 0))
    z, ez, dj, edj = z0[j], ez0[j], d[j], ed[j]
    rel_d = edj / np.abs(dj)
    if np.any(rel_d >= 1):
        raise _Uncertain("a slope on a ray")
    q = np.abs(z / dj)
    eq = q * ((ez / np.abs(z) + rel_d) / (1 - rel_d) + 4 * U)
    ET = (et0 + eq + 2 * U * np.abs(roots)) * (1 + 8 * U)
    dist = np.abs(roots - t0)
    E = (ez0[:, None] + ed[:, None] * (dist + ET + et0) + np.abs(d)[:, None] * (ET + et0)
         + 4 * U * (np.abs(z0)[:, None] + np.abs(d)[:, None] * dist)) * (1 + 8 * U)
    E[j, np.arange(roots.size)] = 0.0
    return ET, E


def _output_certified(st: _State, W: np.ndarray, b: np.ndarray):
    """Values y at the knots, slopes dy on the pieces and their error bounds (None =
    exact) for every output."""
    if st.is_exact:
        eW, eb = _lattice(W), _lattice(b)
        eY = max(eW + st.eH, eb)
        A = np.abs(W)
        maxH = np.abs(st.H).max(axis=1)
        maxD = np.abs(st.D).max(axis=1)
        if (_fits(float((A @ maxH + np.abs(b)).max()) * 2, eY)
                and _fits(float((A @ maxD).max()) * 2, eW + st.eD)):
            y = W @ st.H
            y += b[:, None]
            return y, W @ st.D, None, None
    _, EH, ED = st.errors()
    y, Ey = _affine_bounded(W, st.H, b, EH)
    dy, Edy = _affine_bounded(W, st.D, None, ED)
    return y, dy, Ey, Edy


def _certified_pieces(net: MLP, off_slope, max_knots, should_stop):
    """The knots and outputs of ``net``, every decision certified, or _Uncertain."""
    st = _State()
    for layer, (W, b) in enumerate(net.layers[:-1], start=1):
        if should_stop is not None and should_stop():
            raise Stopped(f"stopped before layer {layer}")
        _layer_certified(st, W, b, off_slope)
        if max_knots is not None and st.T.size > max_knots:
            raise TooManyKnots(f"more than {max_knots:,} knots after layer {layer} "
                               f"({st.T.size:,})")
        if not (np.all(np.isfinite(st.H)) and np.all(np.isfinite(st.D))
                and np.all(np.isfinite(st.T))):
            raise _Uncertain("values beyond the range of doubles")
    W, b = net.layers[-1]
    y, dy, Ey, Edy = _output_certified(st, W, b)
    changes = None if Edy is None else _spread_changes(W, st.slope_changes())
    st.H = st.D = st.EH = st.ED = st.Dd = None
    if not (np.all(np.isfinite(y)) and np.all(np.isfinite(dy))):
        raise _Uncertain("outputs beyond the range of doubles")
    jump = dy[:, 1:] - dy[:, :-1]
    if Edy is None:
        Ejump = None
        is_kink = jump != 0
    else:
        Ejump = (Edy[:, 1:] + Edy[:, :-1]) * (1 + 2 * U) + 2 * U * np.abs(jump)
        jump[~changes] = 0.0  # proven equal slopes: exactly no kink
        Ejump[~changes] = 0.0
        _certify_signs(jump, Ejump)
        is_kink = np.abs(jump) > Ejump
    ET = st.ET
    certificate = CERTIFIED_LATTICE if Edy is None and ET is None else CERTIFIED_FLOAT
    return (st.T, ET, st.flags, y, dy, jump, is_kink, certificate, Ejump,
            None if Edy is None else Edy[:, 0], Ey)


@dataclass(frozen=True)
class LinePieces:
    """The exact pieces of a network R → R^m: one PiecewiseLinear per output, all
    cut by the same region boundaries ``knots``; ``kinks`` are the knots where at
    least one output bends, ``jumps`` (m, len(kinks)) every output's slope change
    there (0 where it goes straight on) and ``left_slopes`` the slopes on the left ray.
    """

    outputs: tuple
    knots: np.ndarray
    kinks: np.ndarray
    jumps: np.ndarray
    left_slopes: np.ndarray
    certificate: str
    exact: ExactLine | None = None
    kink_index: np.ndarray | None = None  # positions of ``kinks`` among the exact knots
    jump_errors: np.ndarray | None = None  # bounds on |jumps − exact|; None: not certified
    left_slope_errors: np.ndarray | None = None
    kink_errors: np.ndarray | None = None  # bounds on |kinks − exact|
    value_errors: np.ndarray | None = None  # (m, N): bounds on the outputs at the kinks

    @property
    def n_outputs(self) -> int:
        return len(self.outputs)


def _pieces_from_arrays(T, ET, flags, y, dy, jump, is_kink, certificate, Ejump=None,
                        Edy0=None, Ey=None) -> LinePieces:
    outputs = []
    for o in range(y.shape[0]):
        kink = is_kink[o]
        if kink.all():  # every knot bends (the tent map): no copies of 16.7 million numbers
            kinks, values, slopes, jumps = T, y[o], dy[o], jump[o]
            errs = ET
            non_kink = T[:0]
        else:
            kinks = T[kink]
            values = y[o][kink]
            first_piece = np.concatenate([[0], np.flatnonzero(kink) + 1])
            slopes = dy[o][first_piece]
            jumps = jump[o][kink]
            errs = None if ET is None else ET[kink]
            non_kink = T[flags & ~kink]
        boundaries = T if flags.all() else T[flags]
        outputs.append(PiecewiseLinear(
            kinks=_readonly(kinks), values=_readonly(values), slopes=_readonly(slopes),
            region_boundaries=_readonly(boundaries), non_kink_boundaries=_readonly(non_kink),
            anchor=(float(T[0]), float(y[o][0])), certificate=certificate,
            kink_errors=None if certificate == FLOAT_ONLY else
            _readonly(np.zeros(kinks.shape) if errs is None else errs),
            kink_jumps=_readonly(jumps), output=o))
    any_kink = is_kink.any(axis=0)
    certified = certificate != FLOAT_ONLY
    return LinePieces(tuple(outputs), _readonly(T[flags] if not flags.all() else T),
                      _readonly(T[any_kink]), _readonly(jump[:, any_kink]),
                      _readonly(dy[:, 0]), certificate,
                      jump_errors=None if not certified else _readonly(
                          np.zeros((y.shape[0], int(any_kink.sum()))) if Ejump is None
                          else Ejump[:, any_kink]),
                      left_slope_errors=None if not certified else _readonly(
                          np.zeros(y.shape[0]) if Edy0 is None else Edy0),
                      kink_errors=None if not certified else _readonly(
                          np.zeros(int(any_kink.sum())) if ET is None else ET[any_kink]),
                      value_errors=None if not certified else _readonly(
                          np.zeros((y.shape[0], int(any_kink.sum()))) if Ey is None
                          else Ey[:, any_kink]))


def _float(q) -> float:
    try:
        v = float(q)
    except OverflowError:
        v = np.inf
    if not np.isfinite(v):
        raise ValueError("the network's kinks, values or slopes lie beyond the range of "
                         "doubles (±1.8e308)")
    return v


def _pieces_from_exact(ex: ExactLine) -> LinePieces:
    knots = np.array([_float(t) for t in ex.knots])
    # |double − exact| ≤ half a unit in the last place (correct rounding)
    errs = np.spacing(np.abs(knots)) / 2
    m = ex.n_outputs
    outputs = []
    any_kink = np.zeros(len(ex.knots), dtype=bool)
    jump_all = np.zeros((m, len(ex.knots)))
    for o in range(m):
        jumps = ex.jumps(o)
        kink = np.array([c != 0 for c in jumps], dtype=bool)
        any_kink |= kink
        idx = np.flatnonzero(kink)
        jump_all[o] = [_float(c) for c in jumps]
        slopes = [ex.slopes[0][o]] + [ex.slopes[k + 1][o] for k in idx]
        x0 = knots[0] if len(knots) else 0.0
        y0 = ex.values[0][o] if len(knots) else ex.origin_values[o]
        outputs.append(PiecewiseLinear(
            kinks=_readonly(knots[idx]),
            values=_readonly([_float(ex.values[k][o]) for k in idx]),
            slopes=_readonly([_float(s) for s in slopes]),
            region_boundaries=_readonly(knots),
            non_kink_boundaries=_readonly(knots[~kink]),
            anchor=(float(x0), _float(y0)), certificate=EXACT_RATIONAL,
            kink_errors=_readonly(errs[idx]),
            kink_jumps=_readonly(jump_all[o][idx]), exact=ex, output=o))
    return LinePieces(tuple(outputs), _readonly(knots), _readonly(knots[any_kink]),
                      _readonly(jump_all[:, any_kink]),
                      _readonly([_float(s) for s in ex.slopes[0]]), EXACT_RATIONAL, ex,
                      np.flatnonzero(any_kink), _readonly(U * np.abs(jump_all[:, any_kink])),
                      _readonly(U * np.abs([_float(s) for s in ex.slopes[0]])),
                      _readonly(errs[any_kink]),
                      _readonly([[U * abs(_float(ex.values[k][o])) for k in np.flatnonzero(any_kink)]
                                 for o in range(m)]))


def _float_pieces(net: MLP, off_slope, max_knots, should_stop) -> LinePieces:
    """The plain floating-point path (relative tolerances, nothing certified)."""
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
    y = W @ H + b[:, None]
    dy = W @ D
    del H, D
    jump = dy[:, 1:] - dy[:, :-1]
    size = np.abs(dy)
    tol = np.maximum(size[:, 1:], size[:, :-1]) * SLOPE_RTOL + 1e-12 * size.max()
    is_kink = np.abs(jump) > tol
    return _pieces_from_arrays(T, None, flags, y, dy, jump, is_kink, FLOAT_ONLY)


def line_pieces(net: MLP, *, max_knots: int | None = None,
                should_stop: Callable[[], bool] | None = None, certify: bool = True,
                exact: bool = False, exact_knots: int | None = None,
                stats: dict | None = None) -> LinePieces:
    """The pieces of a network with one input and any number of outputs (see
    :func:`piecewise_linear`; the outputs share the hidden layers' knots)."""
    if not isinstance(net, MLP):
        raise TypeError(f"piecewise_linear needs an MLP, got {type(net).__name__}")
    if net.activation not in _OFF_SLOPE:
        raise ValueError(
            f"piecewise_linear needs a piecewise-linear activation (relu, leaky_relu or "
            f"identity), not {net.activation!r}")
    if net.n_in != 1:
        raise ValueError(f"piecewise_linear needs one input, got {net.n_in} inputs")
    if not net.is_finite():
        raise ValueError("piecewise_linear needs finite weights and biases")
    off_slope = _OFF_SLOPE[net.activation]
    if not certify:
        return _float_pieces(net, off_slope, max_knots, should_stop)
    if not exact:
        try:
            with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
                out = _pieces_from_arrays(*_certified_pieces(net, off_slope, max_knots,
                                                             should_stop))
            if stats is not None:
                stats["path"] = "float"
            return out
        except _Uncertain as why:
            if stats is not None:
                stats["path"] = "exact"
                stats["why"] = str(why)
    budget = EXACT_KNOTS if exact_knots is None else exact_knots
    if max_knots is not None:
        budget = min(budget, max_knots)
    try:
        ex = exact_line(net, max_knots=budget, should_stop=should_stop)
    except BeyondExact:
        if max_knots is not None and budget == max_knots:
            raise TooManyKnots(f"more than {max_knots:,} knots") from None
        raise BeyondExact(
            f"doubles cannot certify the kinks of this network and exact arithmetic would "
            f"need more than {budget:,} knots here") from None
    return _pieces_from_exact(ex)


def piecewise_linear(net: MLP, *, max_knots: int | None = None,
                     should_stop: Callable[[], bool] | None = None, certify: bool = True,
                     exact: bool = False, exact_knots: int | None = None,
                     stats: dict | None = None) -> PiecewiseLinear:
    """The exact kinks, values and slopes of a network f: R → R on the whole line.

    Works for ReLU (and leaky ReLU / identity) networks with one input and one
    output. Each neuron crosses zero at most once per piece of its input, so the
    number of kinks is K ≤ ∏(n_l + 1) − 1 over the hidden widths n_l.

    Every count-changing decision is certified by error bounds or by exact
    arithmetic (``certificate`` on the result says which); the input's units do not
    matter. ``exact=True`` skips the floating-point filter. ``exact_knots``: budget
    of the exact walk (default EXACT_KNOTS); past it BeyondExact is raised.
    ``certify=False``: the plain floating-point path with relative tolerances
    (a baseline; its kinks may be wrong for badly scaled networks).
    ``max_knots``: raise TooManyKnots as soon as a layer has more knots than this.
    ``should_stop``: checked between layers; when it returns True, raise Stopped.
    ``stats``: a dict that receives which path ran ("float" or "exact") and why.
    """
    if isinstance(net, MLP) and net.n_out != 1:
        raise ValueError(f"piecewise_linear needs one input and one output, got "
                         f"{net.n_in} inputs and {net.n_out} outputs")
    return line_pieces(net, max_knots=max_knots, should_stop=should_stop, certify=certify,
                       exact=exact, exact_knots=exact_knots, stats=stats).outputs[0]
