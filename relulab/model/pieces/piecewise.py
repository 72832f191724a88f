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

The knots move through the layers in :mod:`relulab.model.pieces.knots` (floating
point) and :mod:`relulab.model.pieces.certified` (every decision certified); this
module turns them into pieces and falls back to the exact walk.

Everything is vectorised over the knots (numpy, no Python loop over pieces), so
the depth-24 tent map (16.7 million pieces) takes seconds.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Literal

import numpy as np

from relulab.model.core.arrays import readonly
from relulab.model.networks.exact import BeyondExact, ExactLine, U, exact_line
from relulab.model.networks.mlp import MLP
from relulab.model.pieces.certified import (
    CERTIFIED_FLOAT,
    CERTIFIED_LATTICE,
    _certified_pieces,
    _Uncertain,
)
from relulab.model.pieces.knots import SLOPE_RTOL, Stopped, TooManyKnots, _layer

__all__ = [
    "CERTIFIED_FLOAT", "CERTIFIED_LATTICE", "EXACT_KNOTS", "EXACT_RATIONAL", "FLOAT_ONLY",
    "LinePieces", "PiecewiseLinear", "Stopped", "TooManyKnots", "line_pieces",
    "piecewise_linear",
]


#: When doubles cannot certify a decision, the exact walk along the line runs up to
#: this many knots before giving up with BeyondExact (about a second per 10⁴ knots
#: of a narrow network; wider layers cost more per knot).
EXACT_KNOTS = 40_000

EXACT_RATIONAL = "exact: rational arithmetic"
FLOAT_ONLY = "floating point only, not certified"

# Slope of each activation when the neuron is off / on; None = no kink at all.
_OFF_SLOPE = {"relu": 0.0, "leaky_relu": 0.01, "identity": None}


class _NeedsExact(Exception):
    """A kink's error bound reaches an end of an interval and no exact walk is at hand."""


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
    this is, ``exact_index`` where each kink is among its knots. ``kink_jumps`` are
    the slope changes rounded from their exact values. ``source``: the network, for
    the exact walk when a decision needs it (see :meth:`restrict`).
    """

    kinks: np.ndarray
    values: np.ndarray
    slopes: np.ndarray
    region_boundaries: np.ndarray = field(default_factory=lambda: readonly([], float))
    non_kink_boundaries: np.ndarray = field(default_factory=lambda: readonly([], float))
    anchor: tuple[float, float] = (0.0, 0.0)
    domain: tuple[float, float] = (-np.inf, np.inf)
    certificate: str = FLOAT_ONLY
    kink_errors: np.ndarray | None = None
    kink_jumps: np.ndarray | None = None
    exact: ExactLine | None = None
    output: int = 0
    exact_index: np.ndarray | None = None
    source: MLP | None = None

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
        """The same function on [a, b]: the kinks strictly inside and their pieces.

        Which kinks lie inside is decided exactly, as :meth:`kinks_inside` counts
        them: a kink just inside b may round to b itself (the tent at peak 0.32 has
        one at 1 − 2.75e-17), and a kink whose error bound reaches a or b is settled
        by the exact walk along ``source`` (BeyondExact past its budget). Such a kink
        is kept at its double, which may equal a or b."""
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

        try:
            i, j = self._first_beyond(lo, strict=True), self._first_beyond(hi, strict=False)
        except _NeedsExact:
            return self._exactly(a, b).restrict(lo, hi)
        rb = self.region_boundaries[slice(*inside(self.region_boundaries))]
        nb = self.non_kink_boundaries[slice(*inside(self.non_kink_boundaries))]
        x_mid = lo if np.isfinite(lo) else (hi if np.isfinite(hi) else 0.0)
        return replace(
            self,
            kinks=readonly(self.kinks[i:j], float),
            kink_errors=None if self.kink_errors is None else readonly(self.kink_errors[i:j], float),
            kink_jumps=None if self.kink_jumps is None else readonly(self.kink_jumps[i:j], float),
            exact_index=None if self.exact_index is None else readonly(self.exact_index[i:j]),
            values=readonly(self.values[i:j], float),
            slopes=readonly(self.slopes[i:j + 1], float),
            region_boundaries=readonly(rb, float),
            non_kink_boundaries=readonly(nb, float),
            anchor=(x_mid, float(self(x_mid))),
            domain=(lo, hi),
        )

    def _first_beyond(self, c: float, strict: bool) -> int:
        """The first kink beyond c (strict) or at or beyond c, decided exactly: the
        doubles decide every kink farther from c than its error bound; the few within
        it go by their exact values (_NeedsExact when those are not at hand)."""
        t = self.kinks
        side: Literal["left", "right"] = "right" if strict else "left"
        if self.kink_errors is None or not np.isfinite(c) or t.size == 0:
            return int(np.searchsorted(t, c, side=side))
        e = self.kink_errors
        reach = float(e.max())
        start = int(np.searchsorted(t, c - reach, side="left"))
        stop = int(np.searchsorted(t, c + reach, side="right"))
        fc = Fraction(c)
        for k in range(start, stop):
            if e[k] > 0 and abs(t[k] - c) <= e[k]:
                if self.exact is None or self.exact_index is None:
                    raise _NeedsExact
                x = self.exact.knots[int(self.exact_index[k])]
                past = x > fc if strict else x >= fc
            else:
                past = t[k] > c if strict else t[k] >= c
            if past:
                return k
        return stop

    def _exactly(self, a: float, b: float) -> PiecewiseLinear:
        """This output from the exact walk along ``source`` (same domain)."""
        if self.source is None:
            raise BeyondExact(f"a kink lies too close to {a:g} or {b:g} to tell which side "
                              "it is on, and no network is at hand to decide it exactly")
        try:
            ex = exact_line(self.source, max_knots=EXACT_KNOTS)
        except BeyondExact:
            raise BeyondExact(
                f"a kink lies too close to {a:g} or {b:g} to tell which side it is on, and "
                f"exact arithmetic would need more than {EXACT_KNOTS:,} knots") from None
        whole = replace(_pieces_from_exact(ex).outputs[self.output], source=self.source)
        lo, hi = self.domain
        return whole if not (np.isfinite(lo) or np.isfinite(hi)) else whole.restrict(lo, hi)

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


@dataclass(frozen=True)
class LinePieces:
    """The exact pieces of a network R → R^m: one PiecewiseLinear per output, all
    cut by the same region boundaries ``knots``; ``kinks`` are the knots where at
    least one output bends, ``jumps`` (m, len(kinks)) every output's slope change
    there (0 where it goes straight on) and ``left_slopes`` the slopes on the left ray.
    ``kink_values`` (m, len(kinks)) every output at the kinks and ``piece_slopes``
    (m, len(kinks) + 1) every output's slope on each piece between them, indexed by
    the kinks, never found by a kink's double: distinct kinks may round to one double.
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
    kink_values: np.ndarray | None = None
    piece_slopes: np.ndarray | None = None
    right_slope_errors: np.ndarray | None = None  # bounds on the slopes on the right ray

    @property
    def n_outputs(self) -> int:
        return len(self.outputs)


def _pieces_from_arrays(T, ET, flags, y, dy, jump, is_kink, certificate, Ejump=None,
                        Edy_ends=None, Ey=None) -> LinePieces:
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
            kinks=readonly(kinks, float), values=readonly(values, float), slopes=readonly(slopes, float),
            region_boundaries=readonly(boundaries, float), non_kink_boundaries=readonly(non_kink, float),
            anchor=(float(T[0]), float(y[o][0])), certificate=certificate,
            kink_errors=None if certificate == FLOAT_ONLY else
            readonly(np.zeros(kinks.shape) if errs is None else errs, float),
            kink_jumps=readonly(jumps, float), output=o))
    any_kink = is_kink.any(axis=0)
    certified = certificate != FLOAT_ONLY
    if any_kink.all():  # every knot bends (the tent map): views, no copies
        kink_values, piece_slopes = y, dy
    else:
        kink_values = y[:, any_kink]
        piece_slopes = dy[:, np.concatenate([[0], np.flatnonzero(any_kink) + 1])]
    return LinePieces(tuple(outputs), readonly(T[flags] if not flags.all() else T, float),
                      readonly(T[any_kink], float), readonly(jump[:, any_kink], float),
                      readonly(dy[:, 0], float), certificate,
                      jump_errors=None if not certified else readonly(
                          np.zeros((y.shape[0], int(any_kink.sum()))) if Ejump is None
                          else Ejump[:, any_kink], float),
                      left_slope_errors=None if not certified else readonly(
                          np.zeros(y.shape[0]) if Edy_ends is None else Edy_ends[:, 0], float),
                      right_slope_errors=None if not certified else readonly(
                          np.zeros(y.shape[0]) if Edy_ends is None else Edy_ends[:, 1], float),
                      kink_errors=None if not certified else readonly(
                          np.zeros(int(any_kink.sum())) if ET is None else ET[any_kink], float),
                      value_errors=None if not certified else readonly(
                          np.zeros((y.shape[0], int(any_kink.sum()))) if Ey is None
                          else Ey[:, any_kink], float),
                      kink_values=readonly(kink_values, float),
                      piece_slopes=readonly(piece_slopes, float))


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
            kinks=readonly(knots[idx], float),
            values=readonly([_float(ex.values[k][o]) for k in idx], float),
            slopes=readonly([_float(s) for s in slopes], float),
            region_boundaries=readonly(knots, float),
            non_kink_boundaries=readonly(knots[~kink], float),
            anchor=(float(x0), _float(y0)), certificate=EXACT_RATIONAL,
            kink_errors=readonly(errs[idx], float),
            kink_jumps=readonly(jump_all[o][idx], float), exact=ex, output=o,
            exact_index=readonly(idx)))
    kink_at = np.flatnonzero(any_kink)
    kink_values = np.array([[_float(ex.values[k][o]) for k in kink_at] for o in range(m)],
                           dtype=float).reshape(m, kink_at.size)
    piece_slopes = np.array([[_float(ex.slopes[k][o]) for k in [0, *(kink_at + 1)]]
                             for o in range(m)], dtype=float)
    return LinePieces(tuple(outputs), readonly(knots, float), readonly(knots[any_kink], float),
                      readonly(jump_all[:, any_kink], float),
                      readonly(piece_slopes[:, 0], float), EXACT_RATIONAL, ex,
                      kink_at, readonly(U * np.abs(jump_all[:, any_kink]), float),
                      readonly(U * np.abs(piece_slopes[:, 0]), float),
                      readonly(errs[any_kink], float),
                      readonly(U * np.abs(kink_values), float),
                      kink_values=readonly(kink_values, float),
                      piece_slopes=readonly(piece_slopes, float),
                      right_slope_errors=readonly(U * np.abs(piece_slopes[:, -1]), float))


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
            return _with_source(out, net)
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
    return _with_source(_pieces_from_exact(ex), net)


def _with_source(lp: LinePieces, net: MLP) -> LinePieces:
    """Every output keeps its network, for the exact walk a later decision may need."""
    return replace(lp, outputs=tuple(replace(o, source=net) for o in lp.outputs))


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
