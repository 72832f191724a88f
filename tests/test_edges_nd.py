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

import itertools
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


# ---------------------------------------------------------------------------
# zero biases in extreme units: witnesses are ordinary doubles in their regions
# ---------------------------------------------------------------------------
def _scaled(net: MLP, s: float, shift) -> MLP:
    """net(s·x + shift) as a network of x: the same network in other input units."""
    (W, b), *rest = net.layers
    return MLP([(W * s, b + W @ np.asarray(shift, dtype=float)), *list(rest)])


def _witnesses_hold(net: MLP, regions) -> list:
    """The full-dimensional regions whose witness is not a double of the region
    (checked in rationals)."""
    bad = []
    for r in regions:
        if r.is_full_dimensional():
            w = np.asarray(r.witness)
            if not (np.all(np.isfinite(w)) and np.array_equal(exact_forward(net, w)[1], r.pattern)):
                bad.append(r.pattern_text())
    return bad


def test_zero_biases_in_other_units_have_ordinary_witnesses():
    """An integer 3-3-1 network with zero biases, in units x ↦ 1e-12·x + 1e10 (within
    the README's "any units"): its lines meet at −1e22·(1, 1, 1), and a ray there made
    of two that nearly cancel gave the witness [nan, nan, nan], so the conversion said
    "values beyond double precision". Every witness is now a double in its region and
    the conversion is proven, with no numpy warning."""
    import warnings

    base = MLP([(np.array([[0.0, 3, 3], [0, -2, -3], [-3, -1, 0]]), np.zeros(3)),
                (np.array([[3.0, 3, -3]]), np.zeros(1))])
    net = _scaled(base, 1e-12, np.full(3, 1e10))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        conv = convert(net)
        v = conv.verify()
    assert _witnesses_hold(net, conv.regions) == []
    assert v.finite and v.ok(), v.proof.text()


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2 ** 32 - 1), st.sampled_from([1e-12, 1e-6, 1e6, 1e12]),
       st.sampled_from([1e6, 1e10]), st.booleans(), st.integers(3, 4))
def test_witnesses_in_extreme_units_are_doubles_of_their_regions(seed, s, t, same, n):
    """Integer networks with zero biases (lines through one point), 3 or 4 inputs, in
    units x ↦ s·x + t: every full-dimensional region's witness is a double that lies in
    it (in rationals), and the conversion is proven."""
    rng = np.random.default_rng(seed)
    sizes = [n, 3, int(rng.integers(1, 3)), 1]
    base = MLP([(rng.integers(-3, 4, (b, a)).astype(float), np.zeros(b))
                for a, b in itertools.pairwise(sizes)])
    shift = np.full(n, t) if same else t * np.array([1.0, -1.0, 1 / 3, 1 / 7][:n])
    net = _scaled(base, s, shift)
    conv = convert(net)
    assert _witnesses_hold(net, conv.regions) == []
    assert conv.verify().ok()


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2 ** 32 - 1), st.sampled_from([1e-12, 1e-6, 1e6, 1e12]),
       st.sampled_from([1e6, 1e10]))
def test_two_inputs_witnesses_are_finite_and_counted(seed, s, t):
    """With 2 inputs the lines of such networks cut slivers thinner than the spacing of
    the doubles there (a triangle of side 1e-15 relative at 3e17 holds no double): every
    witness is still finite, and the regions without a proven one are exactly those
    counted as unproven."""
    rng = np.random.default_rng(seed)
    sizes = [2, int(rng.integers(2, 5)), int(rng.integers(1, 4)), 1]
    base = MLP([(rng.integers(-3, 4, (b, a)).astype(float), np.zeros(b))
                for a, b in itertools.pairwise(sizes)])
    net = _scaled(base, s, t * np.array([1.0, 1 / 3]))
    from relulab.model.regions.activation import linear_regions

    stats: dict = {}
    regions = linear_regions(net, stats=stats)
    assert np.all(np.isfinite(regions.witness))
    assert len(_witnesses_hold(net, regions)) == stats["unproven_witnesses"]


# ---------------------------------------------------------------------------
# subnormal weights
# ---------------------------------------------------------------------------
TINY = 2.0 ** -1074


def _subnormal_net(seed: int, n: int) -> MLP:
    """Small integer networks with subnormal weights, four kinds: every weight
    subnormal, some of them, the first layer near 2^-1070, weights near 2^-1020."""
    rng = np.random.default_rng(seed)
    sizes = [n, int(rng.integers(2, 4)), int(rng.integers(1, 4)), 1]
    kind = rng.integers(0, 4)
    layers = []
    for a, b in itertools.pairwise(sizes):
        W = rng.integers(-3, 4, (b, a)).astype(float)
        c = rng.integers(-2, 3, b).astype(float)
        if kind == 0:
            W, c = W * TINY * rng.integers(1, 5), c * TINY
        elif kind == 1:
            W = np.where(rng.random(W.shape) < 0.4, W * TINY * 3, W)
            c = np.where(rng.random(b) < 0.4, c * TINY, c)
        elif kind == 2:
            if a == sizes[0]:
                W, c = W * 2.0 ** -1070, c * 2.0 ** -1072
        else:
            W, c = W * 2.0 ** -1020 * rng.random(W.shape), c * 2.0 ** -1040
        layers.append((W, c))
    return MLP(layers)


def _converts_or_says_why(net: MLP, regions) -> None:
    """The conversion is proven, or refused in one line: never an internal error."""
    try:
        conv = convert(net, regions=regions)
    except ValueError as e:
        refusal = str(e)
    else:
        refusal = ""
    if refusal:
        assert "beyond the range of doubles" in refusal and "\n" not in refusal
        return
    v = conv.verify()
    if not v.ok():
        assert v.proof is not None and "\n" not in v.proof.text()


@pytest.mark.parametrize(("n", "seed"), [(3, 189), (3, 191), (3, 193), (3, 160), (2, 178),
                                         (2, 186), (2, 93), (2, 97)])
def test_subnormal_weights_give_the_exact_regions(n, seed):
    """Products of subnormal weights vanish in doubles, and their error bounds with
    them: regions that do not exist were listed and real ones missed (3-D), the 2-D
    engine divided by zero, and the check met ∞ − ∞ (random points past 1e308) or an
    empty reduction. The regions are now the exact ones (against the independent
    count in rationals), no numpy warning is printed, and the conversion is proven or
    refused in one line."""
    import warnings

    from relulab.model.regions.activation import linear_regions
    from tests.model.exact_regions_reference import exact_regions

    net = _subnormal_net(seed, n)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        regions = linear_regions(net)
        assert {r.pattern.tobytes(): r.is_full_dimensional() for r in regions} == exact_regions(net)
        _converts_or_says_why(net, regions)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2 ** 32 - 1), st.integers(2, 3))
def test_subnormal_weights_of_every_kind(seed, n):
    """Drawn networks of the four kinds: exact regions, no numpy warning, and a
    conversion proven or refused in one line."""
    import warnings

    from relulab.model.regions.activation import linear_regions
    from tests.model.exact_regions_reference import exact_regions

    net = _subnormal_net(seed, n)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        regions = linear_regions(net)
        assert {r.pattern.tobytes(): r.is_full_dimensional() for r in regions} == exact_regions(net)
        _converts_or_says_why(net, regions)
