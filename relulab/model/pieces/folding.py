"""Folding: one small ReLU layer composed with itself, and the pieces it makes.

The tent g(x) = 2 ReLU(x) − 4 ReLU(x − ½) uses two neurons; g composed k times
(2k neurons in k layers) has 2^k linear pieces on [0, 1] with kinks at j/2^k,
while one hidden layer of m neurons has at most m + 1 pieces, so it needs
2^k − 1 neurons to match (Telgarsky 2016). Everything here is counted with
:func:`relulab.model.pieces.piecewise.piecewise_linear`, never by sampling, and a count is
called exact only when every decision behind it was certified.

At peak ½ every number in the tent sits on a coarse binary lattice, so doubles
compute it without any rounding (certified layer by layer) to depth 24. At other
peaks 1/p is not a double: the network's kinks are rationals with ever larger
denominators, doubles cannot certify them from depth 3 on, and the exact walk
along the line is used while its knots stay within the budget (about depth 15);
beyond that the count is floating point only, and says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from relulab.model.networks.exact import BeyondExact
from relulab.model.networks.mlp import MLP
from relulab.model.pieces.piecewise import EXACT_KNOTS, PiecewiseLinear, piecewise_linear

MAX_FOLD_NEURONS = 8


@dataclass(frozen=True)
class Fold:
    """One layer u(x) = Σ_i a_i ReLU(w_i x + b_i) + c, to be composed with itself.

    ``w`` input weights, ``b`` biases, ``a`` output weights (one per neuron), ``c``
    the output bias. u∘u∘…∘u (k times) is a network with k hidden layers of n
    neurons: the output of one copy feeds the next, and the affine maps in between
    merge, W_l = w aᵀ and b_l = w c + b.
    """

    w: tuple[float, ...]
    b: tuple[float, ...]
    a: tuple[float, ...]
    c: float = 0.0

    def __post_init__(self):
        n = len(self.w)
        for name in ("w", "b", "a"):
            values = getattr(self, name)
            if len(values) != n:
                raise ValueError(f"fold: {name} has {len(values)} entries, w has {n}")
            for i, v in enumerate(values):
                if not np.isfinite(v):
                    raise ValueError(f"fold: {name}[{i + 1}] must be a finite number, got {v}")
        if not 1 <= n <= MAX_FOLD_NEURONS:
            raise ValueError(f"fold: needs 1 to {MAX_FOLD_NEURONS} neurons, got {n}")
        if not np.isfinite(self.c):
            raise ValueError(f"fold: c must be a finite number, got {self.c}")
        object.__setattr__(self, "w", tuple(float(v) for v in self.w))
        object.__setattr__(self, "b", tuple(float(v) for v in self.b))
        object.__setattr__(self, "a", tuple(float(v) for v in self.a))
        object.__setattr__(self, "c", float(self.c))

    @classmethod
    def tent(cls, peak: float = 0.5) -> Fold:
        """The tent with its top at ``peak``: x/p on [0, p], (1 − x)/(1 − p) on [p, 1],
        t(x) = (1/p) ReLU(x) − (1/p + 1/(1 − p)) ReLU(x − p). p = ½ gives
        2 ReLU(x) − 4 ReLU(x − ½)."""
        p = _check_peak(peak)
        return cls(w=(1.0, 1.0), b=(0.0, -p), a=(1.0 / p, -(1.0 / p + 1.0 / (1.0 - p))))

    @property
    def n_neurons(self) -> int:
        return len(self.w)

    def __call__(self, x) -> np.ndarray:
        """u(x) = Σ a_i ReLU(w_i x + b_i) + c."""
        x = np.asarray(x, dtype=float)
        z = np.multiply.outer(x, self.w) + self.b
        return np.maximum(z, 0.0) @ np.asarray(self.a) + self.c

    def network(self, depth: int) -> MLP:
        """u composed ``depth`` times, as one MLP with ``depth`` hidden layers."""
        depth = _check_depth(depth)
        w = np.asarray(self.w)[:, None]
        b = np.asarray(self.b)
        a = np.asarray(self.a)[None, :]
        layers = [(w, b)]
        for _ in range(depth - 1):
            layers.append((w @ a, w[:, 0] * self.c + b))
        layers.append((a, np.array([self.c])))
        return MLP(layers)

    def to_dict(self) -> dict:
        return {"w": list(self.w), "b": list(self.b), "a": list(self.a), "c": self.c}

    @classmethod
    def from_dict(cls, d) -> Fold:
        """A Fold from ``to_dict`` output; ValueError naming the field when wrong."""
        if not isinstance(d, dict):
            raise ValueError("fold: expected an object with w, b, a and c")
        values = {}
        for name in ("w", "b", "a"):
            v = d.get(name)
            if not isinstance(v, (list, tuple)) or not all(
                    isinstance(x, (int, float)) and not isinstance(x, bool) for x in v):
                raise ValueError(f"fold: {name} must be a list of numbers")
            values[name] = tuple(v)
        c = d.get("c", 0.0)
        if not isinstance(c, (int, float)) or isinstance(c, bool):
            raise ValueError("fold: c must be a number")
        return cls(c=c, **values)


def _check_depth(depth) -> int:
    if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)):
        raise ValueError(f"depth must be a whole number, got {depth!r}")
    if depth < 1:
        raise ValueError(f"depth must be at least 1, got {depth}")
    return int(depth)


def _check_peak(peak) -> float:
    peak = float(peak)
    if not 0.0 < peak < 1.0:
        raise ValueError(f"peak must lie strictly between 0 and 1, got {peak}")
    return peak


# Folds to start from in the panel's table.
FOLD_PRESETS: dict[str, Fold] = {
    "tent (2 neurons)": Fold.tent(0.5),
    "tent, zero outside [0, 1] (3 neurons)": Fold(w=(1, 1, 1), b=(0, -0.5, -1), a=(2, -4, 2)),
    "zigzag: three folds (3 neurons)": Fold(w=(1, 1, 1), b=(0, -1 / 3, -2 / 3), a=(3, -6, 6)),
    "ramp: no folding (2 neurons)": Fold(w=(1, 1), b=(0, -1), a=(1, -1)),
}


def tent_network(depth: int, peak: float = 0.5) -> MLP:
    """The tent map composed ``depth`` times: two neurons per hidden layer.

    Layer 1: z = (x, x − p); each later layer: z = (t, t − p) with
    t = (1/p) h₁ − (1/p + 1/(1 − p)) h₂ the previous tent; output t. On [0, 1]
    it has 2^depth pieces for every peak p in (0, 1).
    """
    return Fold.tent(peak).network(depth)


@dataclass(frozen=True)
class FoldCounts:
    """Counts for one composed fold.

    ``pieces_unit``: linear pieces on [0, 1]; ``kinks_line``: kinks on the whole
    line; ``neurons``: neurons used (n per layer × depth); ``shallow_neurons``: the
    fewest neurons one hidden layer needs for the same number of pieces on [0, 1]
    (m neurons give at most m + 1 pieces, so pieces − 1). ``exact``: every decision
    behind the counts was certified (else they are floating point only).
    """

    depth: int
    pieces_unit: int
    kinks_line: int
    neurons: int
    exact: bool = True

    @property
    def shallow_neurons(self) -> int:
        return max(self.pieces_unit - 1, 0)


def fold_counts(pl: PiecewiseLinear, depth: int, neurons_per_layer: int,
                net: MLP | None = None) -> FoldCounts:
    """Counts of a composed fold from its pieces ``pl`` on the whole line.

    Pieces on [0, 1] = 1 + the kinks strictly inside (0, 1), decided exactly: a kink
    whose error bound touches 0 or 1 is settled by exact arithmetic on ``net``
    (BeyondExact when that is not possible)."""
    inside = pl.kinks_inside(0.0, 1.0) if pl.certified else None
    if inside is None and pl.certified:
        if net is None:
            raise BeyondExact("a kink lies too close to 0 or 1 to tell which side it is on")
        pl = piecewise_linear(net, exact=True)
        inside = pl.kinks_inside(0.0, 1.0)
    if inside is None:  # floating point only
        inside = int(np.count_nonzero((pl.kinks > 0.0) & (pl.kinks < 1.0)))
    return FoldCounts(depth=depth, pieces_unit=inside + 1, kinks_line=pl.n_kinks,
                      neurons=depth * neurons_per_layer, exact=pl.certified)


def tent_pieces(depth: int, peak: float = 0.5, should_stop=None) -> PiecewiseLinear:
    """The tent composed ``depth`` times, every kink certified; BeyondExact when
    doubles cannot certify them and the exact walk would pass EXACT_KNOTS."""
    depth = _check_depth(depth)
    budget = EXACT_KNOTS if 2 ** depth < EXACT_KNOTS else 0
    return piecewise_linear(tent_network(depth, peak), should_stop=should_stop,
                            exact_knots=budget)


def exact_tent_depth(peak: float) -> int:
    """The deepest tent the exact walk is tried on at ``peak``: every depth at peak ½
    (its arithmetic is exact in doubles), else the depths whose 2^k + 1 knots fit the
    exact walk's budget. A bound, not a promise: slivers (:func:`tent_slivers`) add
    knots, so a tent this deep may still pass the budget."""
    p = _check_peak(peak)
    if p == 0.5:
        return 10 ** 9
    return int(np.floor(np.log2(EXACT_KNOTS - 1)))


def tent_peak_value(peak: float) -> tuple[Fraction, Fraction]:
    """(t(p) − 1, t(1)) of the tent network with double weights, exactly: both are 0
    for an ideal tent; a peak value above 1 folds once more and adds pieces."""
    fold = Fold.tent(peak)
    a1, a2 = Fraction(fold.a[0]), Fraction(fold.a[1])
    p = Fraction(-fold.b[1])
    return a1 * p - 1, a1 + a2 * (1 - p)


#: A piece of a tent network on [0, 1] narrower than SLIVER_SHARE × min(p, 1 − p)^k is a
#: sliver, made by rounding: every piece of the ideal tent is at least min(p, 1 − p)^k
#: wide, and the slivers are narrower than 1e-9 of it at every peak the panel offers
#: (tests/model/test_folding.py), so any share between the two tells them apart.
SLIVER_SHARE = 0.5


@dataclass(frozen=True)
class Slivers:
    """The pieces of a tent network on [0, 1] that the ideal tent does not have.

    1/p is not a double (but at p = ½), so the network's weights are rounded and its
    layers' outputs dip a hair below 0 here and there; the next layer's ReLU cuts each
    dip flat, a piece far narrower than any of the ideal tent's. ``count`` of them, the
    ``narrowest`` and ``widest`` widths (exact widths rounded to doubles; 0 when none)."""

    count: int
    narrowest: float = 0.0
    widest: float = 0.0


def tent_slivers(pl: PiecewiseLinear, depth: int, peak: float) -> Slivers | None:
    """The slivers of the tent network composed ``depth`` times at ``peak``, from its
    pieces ``pl`` on the whole line; None when ``pl`` is floating point only (doubles
    cannot tell a piece 1e-17 wide from rounding)."""
    if not pl.certified:
        return None
    depth, p = _check_depth(depth), _check_peak(peak)
    limit = SLIVER_SHARE * min(p, 1.0 - p) ** depth
    if pl.exact is None:
        # certified in doubles: where no kink's error bound straddles 0 or 1, the
        # widths' errors (1e-15 at most) are far below limit and find the slivers;
        # their widths, and a kink at an end, come from the exact walk (16.7 million
        # kinks at depth 24: a view and one array of widths, no copies)
        if pl.kinks_inside(0.0, 1.0) is not None:
            i = np.searchsorted(pl.kinks, 0.0, "right")
            j = np.searchsorted(pl.kinks, 1.0, "left")
            inside = pl.kinks[i:j]
            margins = np.array([inside[0], 1.0 - inside[-1]] if inside.size else [1.0])
            widths = np.diff(inside)
            if not (np.any(widths < limit) or np.any(margins < limit)):
                return Slivers(0)
        pl = piecewise_linear(tent_network(depth, p), exact=True)
    # pl.kinks are the exact kinks (slope changes) rounded, in the same order
    walk = pl.exact
    if walk is None:  # certified exactly asks for the exact walk: it is there
        raise AssertionError("an exact walk was asked for and not made")
    exact = [t for t, c in zip(walk.knots, walk.jumps(pl.output)) if c != 0]
    keep = [i for i, t in enumerate(exact) if 0 < t < 1]
    ends = [Fraction(0), *(exact[i] for i in keep), Fraction(1)]
    rough = np.diff(np.concatenate([[0.0], pl.kinks[keep], [1.0]]))
    # the doubles pick the candidates (their errors are below 1e-15); widths exact
    near = np.flatnonzero(rough < 2 * limit + 1e-15)
    thin = np.array([w for w in (float(ends[i + 1] - ends[i]) for i in near) if w < limit])
    if thin.size == 0:
        return Slivers(0)
    return Slivers(int(thin.size), float(thin.min()), float(thin.max()))


def tent_counts_formula(depth: int) -> tuple[int, int]:
    """What theory says for the tent: (2^k pieces on [0, 1], kinks on the line),
    with 2 kinks for k = 1 (at 0 and at the peak) and 2^k + 1 for k ≥ 2."""
    depth = _check_depth(depth)
    return 2 ** depth, (2 if depth == 1 else 2 ** depth + 1)


def grid_piece_count(depth: int, points: int = 4097, peak: float = 0.5) -> int:
    """The notebook's way to count pieces: sample g^(k) on ``points`` equally
    spaced points of [0, 1], round the slopes to 3 decimals and count changes.

    Kept as a warning and a baseline: it can never see more than points − 1 pieces,
    and past depth 12 the samples at j/4096 all land on zeros of g^(k), so the
    count collapses (to 1 at depth 13).
    """
    u = np.linspace(0.0, 1.0, points)
    y = tent_network(depth, peak)(u)
    slopes = np.round(np.diff(y) / np.diff(u), 3)
    return 1 + int(np.count_nonzero(np.diff(slopes)))


def fold_frame(pl_before: PiecewiseLinear | None, pl_after: PiecewiseLinear,
               s: float) -> tuple[np.ndarray, np.ndarray]:
    """One frame of folding [0, 1] by one more layer l: the curve
    y_s(x) = (1 − s)·g^(l−1)(x) + s·g^(l)(x), s ∈ [0, 1], on [0, 1].

    g^(l) = u∘g^(l−1), so at s = 1 the graph of g^(l−1) has been folded by u (the
    part above the peak turns over, the part below stretches). Both are piecewise
    linear with kinks among those of g^(l), so the frame is exact on them.
    ``pl_before`` is None for layer 1 (g^(0)(x) = x).
    """
    if not 0.0 <= s <= 1.0:
        raise ValueError(f"s must lie in [0, 1], got {s}")
    x, after = pl_after.breakpoints(0.0, 1.0)
    before = x.copy() if pl_before is None else pl_before(x)
    return x, (1.0 - s) * before + s * after


# what the Folding panel lets a user set (its state: relulab.model.lessons.folding)
MAX_DEPTH = 24
PEAK_RANGE = (0.2, 0.8)
#: Every weight and bias of the user's fold lies in [−FOLD_LIMIT, FOLD_LIMIT] (what the
#: table accepts): composed 24 times, such weights alone cannot overflow (each layer
#: multiplies by at most 8·FOLD_LIMIT², and (8·10⁶)²⁴ ≈ 10¹⁶⁶). Tiny weights can still
#: put kinks near ±10³⁰⁰; the panel reports those compositions as beyond double precision.
FOLD_LIMIT = 1000.0
