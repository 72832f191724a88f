"""Exact arithmetic for ReLU networks: doubles as rationals, filtered signs, exact pieces.

Every double is a dyadic rational m·2^e, so a network with double weights computes,
on each activation pattern, an affine map whose coefficients are dyadic rationals,
and every kink is a rational number −c/a. This module holds the pieces that the
certified computations share (see docs/deep-to-shallow.md, "What is certified"):

* :func:`as_scaled_integers`: an array of doubles as Python integers over one
  power of two, exactly;
* :func:`filtered_sign`: the sign of a float known to within an error bound, or
  "not certain";
* :class:`ExactNet` with :meth:`ExactNet.affine_maps`: the exact affine map of
  every neuron under a fixed activation pattern, and the pattern just to the right
  of (or at) a rational point;
* :func:`exact_line`: the exact kinks, values and slopes of a network with one
  input along the whole line, by walking from −∞ to +∞ one region at a time.

Nothing here depends on the input's units: no tolerance appears anywhere.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from relulab.model.core.cancel import check
from relulab.model.networks.mlp import MLP

# Slope of each activation when the neuron is off (the identity is never off).
_OFF_SLOPE = {"relu": 0.0, "leaky_relu": 0.01, "identity": 1.0}

#: Unit roundoff of double precision: |fl(a ∘ b) − a ∘ b| ≤ U·|a ∘ b|.
U = 2.0 ** -53


def gamma(n: int) -> float:
    """γ_n = n·u / (1 − n·u), the classic bound on the relative rounding error of a
    sum or dot product of n terms (Higham, Accuracy and Stability, §3.1), rounded up."""
    return n * U / (1.0 - n * U) * (1.0 + 4 * U)


class BeyondExact(ArithmeticError):
    """Doubles could not certify the answer and exact arithmetic would exceed its budget."""


def to_fraction(x) -> Fraction:
    """The exact rational value of a finite double."""
    return Fraction(float(x))


def as_scaled_integers(a) -> tuple[np.ndarray, int]:
    """Integers M (an object array of Python ints) and a shift s ≥ 0 with a = M / 2^s
    exactly, element by element. ``a`` must be finite."""
    a = np.asarray(a, dtype=float)
    if not np.all(np.isfinite(a)):
        raise ValueError("exact arithmetic needs finite numbers")
    ratios = [float(v).as_integer_ratio() for v in a.ravel()]  # (n, 2^k), exactly
    s = max((d.bit_length() - 1 for _, d in ratios), default=0)
    M = np.empty(a.size, dtype=object)
    for i, (n, d) in enumerate(ratios):
        M[i] = n << (s - (d.bit_length() - 1))
    return M.reshape(a.shape), s


def filtered_sign(value: np.ndarray, bound: np.ndarray) -> np.ndarray:
    """Signs certified by a floating-point filter: +1 or −1 where |value| > bound, 0
    where value = 0 and bound = 0 (an exact zero), and 2 ("not certain") elsewhere.

    ``bound`` is an upper bound on |value − exact value|; the caller redoes the
    uncertain entries exactly."""
    value = np.asarray(value, dtype=float)
    bound = np.asarray(bound, dtype=float)
    s = np.full(value.shape, 2, dtype=np.int8)
    s[value > bound] = 1
    s[value < -bound] = -1
    s[(value == 0) & (bound == 0)] = 0
    return s


def _int_sign(v: int) -> int:
    return (v > 0) - (v < 0)


def _float_of(p: int, q: int) -> float:
    """p / q correctly rounded (q > 0), ±inf when beyond the doubles."""
    try:
        return p / q
    except OverflowError:
        return float("inf") if p > 0 else float("-inf")


class ExactNet:
    """A ReLU network with double weights, held as integers for exact arithmetic.

    Layer l computes z_l = W_l h_{l−1} + b_l with W_l = Wint_l / 2^{s_l}. Under a fixed
    activation pattern every pre-activation is an affine function of the input x,
    z = (A·x + C) / 2^{S_l} with integer A, C and S_l = s_1 + … + s_l, so signs and
    roots need no division and no rounding."""

    def __init__(self, net: MLP):
        if not isinstance(net, MLP):
            raise TypeError(f"ExactNet needs an MLP, got {type(net).__name__}")
        if net.n_in != 1:
            raise ValueError(f"ExactNet needs one input, the network has {net.n_in}")
        if net.activation not in _OFF_SLOPE:
            raise ValueError(f"exact arithmetic needs a piecewise-linear activation (relu, "
                             f"leaky_relu or identity), not {net.activation!r}")
        if not net.is_finite():
            raise ValueError("exact arithmetic needs finite weights and biases")
        self.net = net
        # an off neuron passes alpha·z: 0 for ReLU, 0.01 for leaky ReLU, z itself for
        # the identity; alpha = Ma / 2^sa, and an on neuron is scaled by 2^sa to match
        off = _OFF_SLOPE[net.activation]
        self.off, self.off_shift = (int(off.as_integer_ratio()[0]),
                                    off.as_integer_ratio()[1].bit_length() - 1)
        self.layers = []
        for W, b in net.layers:
            M, s = as_scaled_integers(np.column_stack([W, b]))
            self.layers.append((M[:, :-1], M[:, -1], s))
        self.shifts = []
        total = 0
        for l, (_, _, s) in enumerate(self.layers):
            total += s + (self.off_shift if l > 0 else 0)
            self.shifts.append(total)

    @property
    def n_hidden_layers(self) -> int:
        return len(self.layers) - 1

    def layer_map(self, l: int, A_prev, C_prev, on_prev):
        """The affine map (A, C) of layer l (0-based) given the previous layer's map and
        which of its neurons are on; the first layer's input is x itself."""
        Wi, bi, _ = self.layers[l]
        if l == 0:
            return Wi[:, 0].copy(), bi.copy()
        S_in = self.shifts[l - 1] + self.off_shift
        k, a = self.off_shift, self.off
        A_in = np.array([v << k if o else v * a for v, o in zip(A_prev, on_prev)], dtype=object)
        C_in = np.array([v << k if o else v * a for v, o in zip(C_prev, on_prev)], dtype=object)
        return Wi.dot(A_in), Wi.dot(C_in) + np.array([v << S_in for v in bi], dtype=object)

    def affine_maps(self, pattern: Sequence[np.ndarray]):
        """The exact affine maps of every layer under a fixed activation ``pattern``
        (one boolean array per hidden layer): a list of (A, C) integer arrays with
        z_l(x) = (A·x + C) / 2^{S_l}; the last entry is the output layer."""
        maps = []
        A = C = on = None
        for l in range(len(self.layers)):
            A, C = self.layer_map(l, A, C, on)
            maps.append((A, C))
            if l < len(pattern):
                on = np.asarray(pattern[l], dtype=bool)
        return maps

    def pattern_at(self, x: Fraction, side: int = +1):
        """Maps and activation pattern just to the right (side = +1) or left (−1) of
        the rational x, or exactly at x (side = 0). Returns (maps, patterns, signs):
        signs[l] holds the sign of each pre-activation exactly at x."""
        x = Fraction(x)
        P, Q = x.numerator, x.denominator
        maps, patterns, signs = [], [], []
        A = C = on = None
        for l in range(len(self.layers)):
            A, C = self.layer_map(l, A, C, on)
            maps.append((A, C))
            if l == len(self.layers) - 1:
                break
            z = A * P + C * Q
            sg = np.array([_int_sign(v) for v in z], dtype=np.int8)
            if side == 0:
                on = sg > 0
            else:
                slope = np.array([_int_sign(v) for v in A], dtype=np.int8) * side
                on = (sg > 0) | ((sg == 0) & (slope > 0))
            patterns.append(on)
            signs.append(sg)
        return maps, patterns, signs

    def output_at(self, x: Fraction, side: int = +1):
        """(values, slopes) of every output at x, exactly; the slopes are those of the
        piece to the right (side = +1) or left (−1) of x."""
        maps, _, _ = self.pattern_at(x, side)
        A, C = maps[-1]
        S = self.shifts[-1]
        den = 1 << S
        x = Fraction(x)
        return ([Fraction(a) * x / den + Fraction(c, den) for a, c in zip(A, C)],
                [Fraction(a, den) for a in A])


@dataclass(frozen=True)
class ExactLine:
    """The exact pieces of a network R → R^m along the whole line.

    ``knots``: every point where some neuron switches (region boundaries), sorted;
    ``values[k][i]``: output i at knot k; ``slopes[k][i]``: slope of output i on
    piece k (piece 0 is the left ray, piece K the right one). All Fractions."""

    knots: list
    values: list
    slopes: list
    n_outputs: int
    origin_values: list  # the outputs at x = 0

    def jumps(self, i: int = 0) -> list:
        return [self.slopes[k + 1][i] - self.slopes[k][i] for k in range(len(self.knots))]


def exact_line(net: MLP, max_knots: int | None = None,
               should_stop: Callable[[], bool] | None = None) -> ExactLine:
    """Exact region boundaries, output values and slopes of a 1-input network.

    Walks from −∞ to +∞: on each region every pre-activation is an exact affine map
    (A x + C)/2^S; the next boundary is the smallest root −C/A beyond the current
    point (found with correctly rounded floats, whose order never contradicts the
    exact order, and compared exactly only where two floats tie); there the pattern
    just to the right is recomputed from the first layer that changes.
    Raises :class:`BeyondExact` past ``max_knots`` boundaries."""
    ex = ExactNet(net)
    L = ex.n_hidden_layers
    m = net.n_out
    S_out = ex.shifts[-1]
    den_out = 1 << S_out

    # the left ray: far to the left a neuron is on when its slope is negative (or
    # its map is a positive constant)
    maps, pats = [], []
    A = C = on = None
    for l in range(L + 1):
        A, C = ex.layer_map(l, A, C, on)
        maps.append((A, C))
        if l < L:
            on = np.array([(a < 0) or (a == 0 and c > 0) for a, c in zip(A, C)], dtype=bool)
            pats.append(on)

    def roots(l):
        """(float root, exact root as (p, q) with q > 0, layer, neuron) for layer l."""
        A, C = maps[l]
        out = []
        for j, (a, c) in enumerate(zip(A, C)):
            if a != 0:
                p, q = (-c, a) if a > 0 else (c, -a)
                out.append((_float_of(p, q), p, q, l, j))
        return out

    cand = [roots(l) for l in range(L)]
    knots, values, slopes = [], [], []
    slopes.append([Fraction(a, den_out) for a in maps[L][0]])
    x = None  # current point (Fraction); None = −∞
    xf = float("-inf")
    P = Q = 1
    while True:
        check(should_stop, "exact kinks")
        best = None
        ties: list[tuple] = []
        for layer_roots in cand:
            for r in layer_roots:
                rf = r[0]
                if rf < xf:
                    continue
                if x is not None and rf == xf and r[1] * Q <= P * r[2]:  # root ≤ x
                    continue
                if best is None or rf < best[0]:
                    best, ties = r, []
                elif rf == best[0]:
                    ties.append(r)
        if best is None:
            break
        nxt = Fraction(best[1], best[2])
        first_layer = best[3]
        if ties:  # equal floats: compare exactly
            for r in ties:
                q = Fraction(r[1], r[2])
                if q < nxt:
                    nxt, first_layer = q, r[3]
            for r in ties:
                if Fraction(r[1], r[2]) == nxt:
                    first_layer = min(first_layer, r[3])
        # a knot past ±1.8e308 is ±inf as a double; ties among such knots go exact
        x, xf = nxt, _float_of(nxt.numerator, nxt.denominator)
        knots.append(x)
        if max_knots is not None and len(knots) > max_knots:
            raise BeyondExact(f"more than {max_knots:,} exact knots")
        # the output's value at x from the maps on the left (the network is continuous)
        P, Q = x.numerator, x.denominator
        A_out, C_out = maps[L]
        values.append([Fraction(a * P + c * Q, Q << S_out) for a, c in zip(A_out, C_out)])
        # patterns just right of x, from the first layer whose neuron switches here
        for l in range(first_layer, L + 1):
            if l > first_layer:  # its inputs changed: a new map and new roots
                maps[l] = ex.layer_map(l, *maps[l - 1], pats[l - 1])
                if l < L:
                    cand[l] = roots(l)
            if l < L:
                A, C = maps[l]
                z = A * P + C * Q
                pats[l] = np.array([(v > 0) or (v == 0 and a > 0) for v, a in zip(z, A)],
                                   dtype=bool)
        slopes.append([Fraction(a, den_out) for a in maps[L][0]])
    return ExactLine(knots, values, slopes, m, ex.output_at(Fraction(0))[0])
