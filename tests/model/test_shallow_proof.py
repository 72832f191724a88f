"""The Deep → shallow check in n-D is a proof, region by region, with no point sampled:
it accepts every correct conversion (degenerate networks and other units included)
and refuses a shallow network with one weight changed, by one ulp where that changes
the function and by a visible amount, including changes confined to a region that
30,000 sampled points never meet."""

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from relulab.model.networks.mlp import MLP
from relulab.model.regions.activation import linear_regions
from relulab.model.shallow.construction import (
    ExtendedLayer,
    ExtendedNetwork,
    convert,
    magnitude,
    to_shallow_extended,
)
from relulab.model.shallow.proof import prove
from tests.model.test_regions import T1, T2, T2B, T5, _degenerate_net, _scaled

INF = math.inf


# --- an exact reference: the extended network in rationals ---------------------------
def _dot(w, h, bias) -> Fraction | float:
    """Σ w_j h_j + bias with h_j rational or ±∞, 0·∞ = 0; ArithmeticError on ∞ − ∞."""
    total, infinite = Fraction(float(bias)), set()
    for j in np.flatnonzero(w):
        if isinstance(h[j], float):
            infinite.add(math.copysign(1.0, float(w[j])) * h[j])
        else:
            total += Fraction(float(w[j])) * h[j]
    if len(infinite) > 1:
        raise ArithmeticError("∞ − ∞")
    return infinite.pop() if infinite else total


def exact_value(net: ExtendedNetwork, x) -> list:
    """The network at the rational point x in exact arithmetic: rows S·(V h + v) are
    S·sign(V h + v) (0 when it is 0), ReLU(−∞) = 0, ReLU(+∞) = +∞."""
    h: list = [Fraction(v) for v in x]
    for i, L in enumerate(net.layers):
        pre: list = []
        for r in range(L.n_out):
            z = _dot(L.W[r], h, L.b[r])
            if L.S[r] != 0:
                t = _dot(L.V[r], h, L.v[r])
                if t != 0:
                    s = float(L.S[r]) * (1 if t > 0 else -1)
                    if isinstance(z, float) and z == -s:
                        raise ArithmeticError("∞ − ∞")
                    z = s
            pre.append(z)
        h = pre if i == len(net.layers) - 1 else [
            (v if v > 0 else Fraction(0)) if isinstance(v, Fraction) else (INF if v > 0 else Fraction(0))
            for v in pre]
    return h


def changed(shallow: ExtendedNetwork, layer: int, name: str, index, value) -> ExtendedNetwork:
    """``shallow`` with one weight of one layer set to ``value``."""
    L = shallow.layers[layer]
    arrays = {f: np.array(getattr(L, f)) for f in "WbSVv"}
    arrays[name][index] = value
    layers = list(shallow.layers)
    layers[layer] = ExtendedLayer(**arrays)
    return ExtendedNetwork(tuple(layers))


def up_one_ulp(v: float) -> float:
    return float(np.nextafter(v, INF))


def sampling_sees_it(deep: MLP, shallow, regions, points: int = 30_000, seed: int = 0) -> bool:
    """The check this proof replaced: random points around the regions, equal within
    1e-9 of the size of the summed terms."""
    scale = max(1.0, float(np.abs([r.witness for r in regions]).max()))
    X = np.random.default_rng(seed).normal(0.0, 2.0 * scale, (points, deep.n_in))
    diff = np.abs(np.asarray(deep(X)).reshape(points, -1) - np.asarray(shallow(X)).reshape(points, -1))
    return bool(diff.max() > 1e-9 * max(1.0, float(magnitude(deep, X).max())))


# --- every correct conversion is proven ------------------------------------------------
LATTICE = [_degenerate_net(sizes, seed) for sizes, seed in
           (([2, 5, 5, 1], 0), ([2, 5, 5, 1], 1), ([2, 4, 4, 2], 2), ([3, 4, 4, 1], 3),
            ([3, 3, 3, 3, 1], 4))]
RANDOM = [MLP.random(sizes, seed=seed) for sizes, seed in
          (([2, 6, 6, 1], 0), ([2, 8, 8, 1], 1), ([2, 4, 4, 4, 2], 2), ([3, 5, 4, 1], 3),
           ([2, 10, 3], 4), ([4, 4, 4, 1], 5), ([2, 6, 6, 1], 1), ([3, 4, 4, 2], 1),
           ([4, 3, 3, 1], 1), ([2, 8, 8, 8, 1], 7))]


@pytest.mark.parametrize("net", [T1, T2, T2B, T5, *LATTICE, *RANDOM])
def test_every_correct_conversion_is_proven(net):
    v = convert(net).verify()
    assert v.proof is not None and v.proof.proven, v.proof
    assert v.ok() and v.proof.regions == len(linear_regions(net))


@pytest.mark.parametrize("net", [T1, T2, T2B, T5, *LATTICE])
def test_networks_of_small_integers_are_proven_in_rationals(net):
    """Weights in {−1, 0, 1}: every region is checked in rationals and every map is the
    deep network's exactly; where every boundary's normalised row is, too, the two
    networks are equal everywhere (a row such as (1, 3)/√10 is rounded)."""
    proof = convert(net).verify().proof
    assert proof.proven and proof.exact_regions == proof.regions and proof.map_ratio == 0
    assert proof.exact == (proof.row_ratio == 0)
    if net is not LATTICE[2]:
        assert proof.exact and "equal everywhere" in proof.text()


def _zero_biases(net):
    return MLP([(W, np.zeros_like(b)) for W, b in net.layers])


def _duplicated(net):
    """Every hidden neuron twice (the next layer's weights halved: the same function)."""
    (W1, b1), *rest = net.layers
    layers = [(np.vstack([W1, W1]), np.concatenate([b1, b1]))]
    for W, b in rest[:-1]:
        layers.append((np.vstack([np.hstack([W, W]) / 2] * 2), np.concatenate([b, b])))
    W, b = rest[-1]
    layers.append((np.hstack([W, W]) / 2, b))
    return MLP(layers)


def _through_one_point(seed):
    """First-layer lines all through (1, −2), and the second layer's too."""
    rng = np.random.default_rng(seed)
    W1 = rng.normal(size=(6, 2))
    W2 = rng.normal(size=(5, 6))
    return _scaled(MLP([(W1, np.zeros(6)), (W2, np.zeros(5)), (rng.normal(size=(1, 5)), [0.3])]),
                   1.0, np.array([-1.0, 2.0]))


@pytest.mark.parametrize(("name", "net"), [
    ("zero biases", _zero_biases(MLP.random([2, 6, 6, 1], seed=3))),
    ("zero biases, 3-D", _zero_biases(MLP.random([3, 5, 5, 1], seed=4))),
    ("duplicate neurons", _duplicated(MLP.random([2, 5, 5, 1], seed=5))),
    ("concurrent lines", _through_one_point(6)),
    ("duplicates on a lattice", _duplicated(_degenerate_net([2, 4, 4, 1], 7))),
])
def test_degenerate_networks_are_proven(name, net):
    conv = convert(net)
    v = conv.verify()
    assert v.proof.proven and v.ok(), (name, v.proof)


@pytest.mark.parametrize("factor", [1e-12, 1e10])
@pytest.mark.parametrize("sizes", [[2, 6, 6, 1], [3, 5, 4, 1]])
def test_other_units_verify_the_same(sizes, factor):
    """Every weight and bias ×factor, and the input in other units (x ↦ x / factor,
    folded into the first layer): proven as the network itself is. With a power of
    two near the factor the input units change no rounding, and the regions are the
    same ones."""
    net = MLP.random(sizes, seed=2)
    base = convert(net).verify()
    assert base.proof.proven and base.ok()
    two = 2.0 ** round(math.log2(factor))
    for other in (MLP([(W * factor, b * factor) for W, b in net.layers]),
                  _scaled(net, 1.0 / factor, np.zeros(net.n_in)),
                  _scaled(net, 1.0 / two, np.zeros(net.n_in))):
        v = convert(other).verify()
        assert v.proof.proven and v.ok(), v.proof
    assert v.proof.regions == base.proof.regions


def test_rows_past_1e154_are_normalised_and_proven():
    """Rows whose squares overflow: normalised without overflow, and proven; a stored
    constraint of zeros (what their normalisation gave before) is refused."""
    import dataclasses

    net = MLP.random([2, 4, 4, 1], seed=0)
    s = 1e152
    big = MLP([(net.layers[0][0] * s, net.layers[0][1] * s), (net.layers[1][0] * s,
                                                                net.layers[1][1]), net.layers[2]])
    conv = convert(big)
    v = conv.verify()
    assert v.proof.proven and v.ok()
    flat = [dataclasses.replace(r, normals=np.zeros_like(r.normals), offsets=np.zeros_like(r.offsets))
            for r in conv.regions]
    assert not prove(big, flat, to_shallow_extended(big, flat)).proven


def test_beyond_double_range_is_said_plainly():
    """Values past the doubles where the network is evaluated: not equal, and said so."""
    net = MLP.random([2, 4, 4, 1], seed=0)
    s = 10.0 ** 153.5
    big = MLP([(net.layers[0][0] * s, net.layers[0][1] * s), (net.layers[1][0] * s,
                                                                net.layers[1][1]), net.layers[2]])
    v = convert(big).verify()
    assert not v.finite and not v.ok()
    huge = MLP([(W * 1e200, b) for W, b in net.layers])
    proof = prove(huge, convert(net).regions, convert(net).shallow)
    assert not proof.proven and "beyond double range" in proof.reason


# --- a shallow network with one weight changed is refused ---------------------------------
NET = MLP.random([2, 4, 4, 1], seed=11)


@pytest.fixture(scope="module")
def conv():
    c = convert(NET)
    assert prove(NET, c.regions, c.shallow).proven
    return c


def _refused(conv, shallow) -> str:
    proof = prove(conv.deep, conv.regions, shallow)
    assert not proof.proven
    return proof.reason


def test_one_ulp_on_a_map_weight_is_refused(conv):
    """The unit of a region's pair that is on at its witness gets a slope one ulp
    larger: the shallow network bends inside the region, and its value there changes
    (exactly)."""
    n, L3 = NET.n_in, conv.shallow.layers[2]
    r = 0
    w = conv.regions[r].witness
    plus = 2 * r                                   # q⁺ of region r (one output)
    u = plus if conv.regions[r](w)[0] > 0 else plus + 1
    col = 0 if w[0] > 0 else n                     # the weight on x₁⁺ or on x₁⁻
    worse = changed(conv.shallow, 2, "W", (u, col), up_one_ulp(L3.W[u, col]))
    assert "unequally" in _refused(conv, worse)
    assert exact_value(worse, w) != exact_value(conv.shallow, w)


def test_one_ulp_on_a_boundary_is_refused_though_sampling_misses_it(conv):
    """A strict detector's offset one ulp larger: the region on that side now also
    holds the points of its boundary, where the two networks differ (exactly) by that
    region's map; no sampled point lands on the boundary."""
    n = 2
    L1 = conv.shallow.layers[0]
    strict = np.flatnonzero(L1.S == -INF)
    for j in strict:
        worse = changed(conv.shallow, 0, "v", j, up_one_ulp(L1.v[j]))
        a, c = L1.V[j], L1.v[j]
        # a point exactly on the boundary a·x + c = 0: the nearest to some region's witness
        for reg in conv.regions:
            w = [Fraction(float(t)) for t in reg.witness]
            A = [Fraction(float(t)) for t in a]
            s = (sum(ai * wi for ai, wi in zip(A, w)) + Fraction(float(c))) / sum(ai * ai for ai in A)
            x = [wi - s * ai for wi, ai in zip(w, A)]
            if exact_value(worse, x) != exact_value(conv.shallow, x):
                assert not sampling_sees_it(NET, worse, conv.regions)
                reason = _refused(conv, worse)
                assert "detector" in reason or "constraint" in reason, reason
                assert len(strict) and n == NET.n_in
                return
    pytest.fail("no boundary point tells the one-ulp change")


def test_the_verdict_refuses_every_one_ulp_shift_of_a_boundary(conv):
    """As the panel and ``relulab convert`` take it: each strict detector's offset one
    ulp larger, in turn, is NOT equal, whether or not a sampled point would land in the
    sliver it moves."""
    import dataclasses

    L1 = conv.shallow.layers[0]
    strict = np.flatnonzero(L1.S == -INF)
    assert len(strict) > 10
    for j in strict:
        worse = changed(conv.shallow, 0, "v", j, up_one_ulp(L1.v[j]))
        v = dataclasses.replace(conv, shallow=worse).verify()
        assert not v.ok() and not v.proof.proven


def test_one_ulp_on_an_output_or_carry_weight_is_refused(conv):
    W4 = conv.shallow.layers[3].W
    assert "±1" in _refused(conv, changed(conv.shallow, 3, "W", (0, 0), up_one_ulp(W4[0, 0])))
    assert "carry" in _refused(conv, changed(conv.shallow, 0, "W", (0, 0), up_one_ulp(1.0)))


def test_changes_that_keep_the_function_are_accepted(conv):
    """A region unit's weight on a detector, a unit's weight on its region unit and a
    strict detector's constant only need their signs: changing them keeps the network."""
    n = NET.n_in
    L1, L2, L3 = conv.shallow.layers[:3]
    r, j = (int(v[0]) for v in np.nonzero(L2.V[2 * n:]))
    j0 = int(np.flatnonzero(L1.S == -INF)[0])
    for shallow in (changed(conv.shallow, 1, "V", (2 * n + r, j), 2.5),
                    changed(conv.shallow, 2, "W", (0, 2 * n + int(np.flatnonzero(L3.W[0, 2 * n:])[0])),
                            -3.0),
                    changed(conv.shallow, 0, "b", j0, up_one_ulp(1.0))):
        assert prove(NET, conv.regions, shallow).proven


def test_a_visible_change_of_a_boundary_or_a_map_is_refused(conv):
    L1, L3 = conv.shallow.layers[0], conv.shallow.layers[2]
    j = int(np.flatnonzero(L1.S == 0)[-1])  # a non-strict detector: its offset
    _refused(conv, changed(conv.shallow, 0, "b", j, L1.b[j] + 1e-3))
    # both units of one pair: the shallow map itself off by 1e-3
    both = changed(changed(conv.shallow, 2, "b", 0, L3.b[0] + 1e-3), 2, "b", 1, L3.b[1] - 1e-3)
    assert "more than rounding" in _refused(conv, both)


# --- a change confined to a line: sampling never meets it --------------------------------
# |x₁| + ReLU(x₂ − 0.25) + 1: the regions x₁ = 0 are lines
LINE = MLP([([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0]], [0.0, 0.0, -0.25]), ([[1.0, 1.0, 1.0]], [1.0])])


def test_a_change_on_a_line_region_is_refused_though_sampling_misses_it():
    c = convert(LINE)
    assert c.verify().proof.exact
    line = next(r for r, reg in enumerate(c.regions)
                if not reg.is_full_dimensional() and reg.pattern[2])
    u = 2 * line  # its output unit q⁺ (m = 1)
    L3 = c.shallow.layers[2]
    assert L3.W[u, 4 + line] < 0 and L3.W[u + 1, 4 + line] < 0
    one = changed(c.shallow, 2, "b", u, L3.b[u] + 0.5)
    pair = changed(one, 2, "b", u + 1, L3.b[u + 1] - 0.5)
    x = [Fraction(0), Fraction(1)]  # on the line, above 0.25
    for worse in (one, pair):
        assert exact_value(worse, x)[0] - exact_value(c.shallow, x)[0] == Fraction(1, 2)
        assert not sampling_sees_it(LINE, worse, c.regions)
        assert not prove(LINE, c.regions, worse).proven
    assert "partner" in prove(LINE, c.regions, one).reason
    assert "more than rounding" in prove(LINE, c.regions, pair).reason


def test_the_reference_agrees_with_the_network_off_the_boundaries(conv):
    X = np.random.default_rng(0).normal(0, 3, (40, 2))
    got = conv.shallow(X)
    for x, y in zip(X, got):
        assert float(exact_value(conv.shallow, x)[0]) == pytest.approx(float(y[0]), abs=1e-12)


def test_the_regions_and_the_shallow_network_must_correspond(conv):
    """A region list that is not the shallow network's: one region fewer, or two
    regions' places swapped."""
    assert "region units" in prove(NET, conv.regions[:-1], conv.shallow).reason
    swapped = list(conv.regions)
    swapped[0], swapped[1] = swapped[1], swapped[0]
    assert not prove(NET, swapped, conv.shallow).proven
    assert list(itertools.islice(conv.regions, 1))  # (the fixture is left as it was)
