"""n inputs at the edges of the doubles: each claim against an exact reference.

- The converter's check is per region: a shallow network wrong on one region by far
  more than that region's own rounding is NOT equal, however far away another
  region's line lies (the tolerance of a region is its own magnitude, not the
  largest anywhere).
- Subnormal weights: the regions are the exact ones, no internal error reaches the
  user, and a conversion is proven or refused in one line.
- Zero biases in extreme units: every full-dimensional region's witness is an
  ordinary double that lies in it (checked in rationals).

The exact references: Python fractions (the network evaluated exactly at a double)
and the independent region count of ``tests.model.exact_regions_reference``.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from relulab.model.networks.mlp import MLP
from relulab.model.shallow.construction import convert
from relulab.model.shallow.extended import ExtendedLayer, ExtendedNetwork


# ---------------------------------------------------------------------------
# exact references
# ---------------------------------------------------------------------------
def _exact_layers(net: MLP):
    return [([[Fraction(float(w)) for w in row] for row in W], [Fraction(float(c)) for c in b])
            for W, b in net.layers]


def exact_forward(net: MLP, x) -> tuple[list[Fraction], np.ndarray]:
    """(the outputs, the activation pattern) of ``net`` at the double point ``x``, in
    rationals."""
    h = [Fraction(float(v)) for v in x]
    layers = _exact_layers(net)
    pattern: list[bool] = []
    for W, b in layers[:-1]:
        z = [sum((w * v for w, v in zip(row, h)), Fraction(0)) + c for row, c in zip(W, b)]
        pattern += [v > 0 for v in z]
        h = [max(v, Fraction(0)) for v in z]
    W, b = layers[-1]
    out = [sum((w * v for w, v in zip(row, h)), Fraction(0)) + c for row, c in zip(W, b)]
    return out, np.array(pattern, dtype=bool)


def exact_magnitude(net: MLP, pattern) -> Fraction:
    """The largest entry of the region's magnitude rows (the network with |W|, |b|
    along ``pattern``, off neurons passing nothing), in rationals."""
    n = net.n_in
    H = [[Fraction(int(i == j)) for j in range(n + 1)] for i in range(n)]
    g = 0
    for l, (W, b) in enumerate(_exact_layers(net)):
        Z = [[sum((abs(w) * h[d] for w, h in zip(row, H)), Fraction(0)) + (abs(c) if d == n else 0)
              for d in range(n + 1)] for row, c in zip(W, b)]
        if l == len(net.layers) - 1:
            return max(max(r) for r in Z)
        H = [z if pattern[g + i] else [Fraction(0)] * (n + 1) for i, z in enumerate(Z)]
        g += len(Z)
    raise AssertionError("a network has an output layer")


def shifted(shallow: ExtendedNetwork, region: int, delta: float) -> ExtendedNetwork:
    """The construction with region ``region``'s map moved by ``delta`` on every output
    (both units of each pair, so the network still has the construction's form)."""
    L1, L2, L3, L4 = shallow.layers
    n = L1.n_in
    b = L3.b.copy()
    for u in np.flatnonzero(L3.W[:, 2 * n + region] != 0):
        b[u] += float(L4.W[:, u].sum()) * delta
    return ExtendedNetwork((L1, L2, ExtendedLayer(L3.W, b, L3.S, L3.V, L3.v), L4))


# ---------------------------------------------------------------------------
# the check is per region
# ---------------------------------------------------------------------------
def _far_line(distance: float) -> MLP:
    """x₁, x₂ and a line x₁ + x₂ = distance."""
    return MLP([(np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]), np.array([0.0, 0.0, -distance])),
                (np.array([[1.0, 2.0, 3.0]]), np.array([0.5]))])


@pytest.mark.parametrize("distance", [1.0, 1e10, 1e20])
def test_a_region_wrong_by_1000_fails_however_far_the_other_line(distance):
    """The region around (−½, −½), where every neuron is off, made wrong by 1,000: NOT
    equal with the third line at distance 1 and at 1e20 alike (a tolerance taken from
    the largest magnitude anywhere, 1e20 · τ, let it pass)."""
    net = _far_line(distance)
    conv = convert(net)
    good = conv.verify()
    assert good.ok() and good.proof.proven
    x = np.array([-0.5, -0.5])
    r = next(i for i, reg in enumerate(conv.regions)
             if reg.is_full_dimensional() and reg.contains(x[None])[0])
    conv.shallow = shifted(conv.shallow, r, 1000.0)
    deep, _ = exact_forward(net, x)
    assert abs(float(conv.shallow(x[None])[0, 0]) - float(deep[0])) == pytest.approx(1000.0)
    v = conv.verify()
    assert not v.proof.proven and not v.ok()
    assert "differs from the deep one" in v.proof.reason
    assert v.max_rounding_ratio > 1e6        # the sanity points see it too


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2 ** 32 - 1), st.integers(0, 20), st.integers(0, 1000))
def test_each_region_is_held_to_its_own_scale(seed, decade, pick):
    """A small integer network with one neuron whose line lies at distance 10^decade:
    the conversion is proven; moving any one full-dimensional region's map by 1e-6 of
    that region's own exact magnitude makes it NOT equal."""
    rng = np.random.default_rng(seed)
    W1 = rng.integers(-3, 4, (4, 2)).astype(float)
    W1[3] = rng.integers(1, 4, 2)
    b1 = rng.integers(-2, 3, 4).astype(float)
    b1[3] = -(10.0 ** decade) * float(rng.integers(1, 10))
    net = MLP([(W1, b1), (rng.integers(-3, 4, (2, 4)).astype(float), rng.integers(-2, 3, 2).astype(float)),
               (rng.integers(-3, 4, (1, 2)).astype(float), np.array([1.0]))])
    conv = convert(net)
    assert conv.verify().ok()
    full = [i for i, reg in enumerate(conv.regions) if reg.is_full_dimensional()]
    r = full[pick % len(full)]
    delta = 1e-6 * float(exact_magnitude(net, conv.regions[r].pattern))
    conv.shallow = shifted(conv.shallow, r, delta)
    assert not conv.verify().ok()
