"""Deep → shallow: the spec's cases, exact agreement on random networks, the
extended-real rules, big M, and the 1-D least-width network."""

import itertools

import numpy as np
import pytest

from relulab.model.networks.mlp import MLP, compose
from relulab.model.regions.activation import linear_regions, region_polygons
from relulab.model.shallow.construction import (
    ExtendedLayer,
    ExtendedNetwork,
    big_m_network,
    big_m_report,
    convert,
    corollary_bound,
    shallow_1d,
    to_shallow,
    to_shallow_extended,
)
from tests.model.test_regions import T1, T2, T2B, T3, T5


def _close(a, b, tol=1e-9):
    a, b = np.asarray(a, float), np.asarray(b, float)
    return np.all(np.abs(a - b) <= tol * np.maximum(1.0, np.abs(a)))


@pytest.mark.parametrize(("net", "p", "widths"), [
    (T1, 4, [8, 8, 8]), (T2, 5, [10, 9, 10]), (T2B, 7, [12, 11, 14]), (T5, 15, [20, 19, 30])])
def test_spec_widths(net, p, widths):
    c = convert(net)
    assert c.p == p
    assert c.shallow_widths == widths
    assert max(widths) <= c.bound == corollary_bound(2, c.k, c.p, 1)
    assert c.verify().ok()


def test_abs_plus_one_three_layer_widths():
    shallow = to_shallow_extended(T3)
    assert shallow.hidden_sizes == [6, 5, 6]
    assert shallow(np.array([[0.0], [-2.0], [3.0]]))[:, 0].tolist() == [1.0, 3.0, 4.0]


@pytest.mark.parametrize(("net", "points", "values"), [
    (T2, [(-1, -1), (2, 1), (1, 2), (-3, 1), (1, -3)], [0, 2, 2, 1, 1]),
    (T2B, [(-1, 0), (2, 0), (0, 0)], [0, 2, 0]),
    (T5, [(0.5, 0.2), (2, 0.5), (0.5, 2), (3, 3), (0.3, 0.4), (0.6, 0.6)],
     [-0.2, 1.5, 0.5, 0, -0.3, -0.4]),
])
def test_spot_values(net, points, values):
    shallow = to_shallow_extended(net)
    assert shallow(np.array(points, float))[:, 0] == pytest.approx(values, abs=1e-12)


@pytest.mark.parametrize(("sizes", "seed"), [([2, 6, 6, 1], 0), ([2, 8, 8, 1], 1), ([2, 4, 4, 4, 2], 2),
                                         ([3, 5, 4, 1], 3), ([2, 10, 3], 4), ([4, 4, 4, 1], 5)])
def test_random_networks_equal_everywhere(sizes, seed):
    net = MLP.random(sizes, seed=seed)
    regions = linear_regions(net)
    shallow = to_shallow_extended(net, regions)
    rng = np.random.default_rng(seed)
    X = np.concatenate([rng.normal(0, 3, (3000, net.n_in)), rng.normal(0, 300, (500, net.n_in))])
    assert _close(net(X), shallow(X))
    W = np.array([r.witness for r in regions])
    assert _close(net(W), shallow(W))
    # points exactly on the stored boundaries z = 0
    B = np.array([r.witness - (a @ r.witness + c) * a for r in regions
                  for a, c in zip(r.normals, r.offsets)])
    assert _close(net(B), shallow(B))
    n, m = net.n_in, net.n_out
    assert shallow.hidden_sizes[1:] == [2 * n + len(regions), 2 * len(regions) * m]


def test_polygon_vertices_and_edges_are_exact():
    """Region boundaries in 2-D: every polygon vertex and edge midpoint."""
    net = MLP.random([2, 8, 8, 8, 1], seed=7)
    shallow = to_shallow_extended(net)
    pts = []
    for poly in region_polygons(net, (-3, 3, -3, 3)):
        V = poly.vertices
        pts.extend(V)
        pts.extend((V + np.roll(V, -1, axis=0)) / 2)
    P = np.array(pts)
    assert _close(net(P), shallow(P))


def test_extended_rules():
    # one input; rows: ReLU(1 − ∞·x), ReLU(+∞·x), then o = ReLU(∞·d) and y = x⁺-ish
    L1 = ExtendedLayer(np.array([[0.0], [0.0]]), [1.0, 0.0], [-np.inf, np.inf],
                       np.array([[1.0], [1.0]]), [0.0, 0.0])
    L2 = ExtendedLayer(np.array([[0.0, 0.0]]), [0.0], [np.inf], np.array([[1.0, 0.0]]), [0.0])
    L3 = ExtendedLayer(np.array([[-1.0]]), [5.0], [0.0], np.zeros((1, 1)), [0.0])
    L4 = ExtendedLayer(np.array([[1.0]]), [0.0], [0.0], np.zeros((1, 1)), [0.0])
    net = ExtendedNetwork((L1, L2, L3, L4))
    h1, h2, h3 = net.hidden(np.array([[-1.0], [0.0], [2.0]]))
    assert h1.tolist() == [[np.inf, 0.0], [1.0, 0.0], [0.0, np.inf]]  # S·0 = 0, ReLU(−∞) = 0
    assert h2[:, 0].tolist() == [np.inf, np.inf, 0.0]
    assert h3[:, 0].tolist() == [0.0, 0.0, 5.0]  # 5 − ∞ = −∞, ReLU(−∞) = 0
    bad = ExtendedNetwork((ExtendedLayer(np.array([[1.0, 1.0]]), [0.0], [0.0], np.zeros((1, 2)),
                                         [0.0]),))
    with pytest.raises(ArithmeticError):
        bad(np.array([[np.inf, -np.inf]]))
    with pytest.raises(ValueError, match="finite"):
        ExtendedLayer(np.array([[np.inf]]), [0.0], [0.0], np.zeros((1, 1)), [0.0])


def test_plain_numpy_with_infinite_weights_would_fail():
    """Why rows are factored: inf·0 and inf − inf give NaN in numpy."""
    with np.errstate(invalid="ignore"):
        assert np.isnan(np.inf * 0.0) and np.isnan(np.inf - np.inf)
    shallow = to_shallow_extended(T2)
    assert np.all(np.isfinite(shallow(np.random.default_rng(0).normal(size=(100, 2)))))


def test_big_m_is_exact_away_from_boundaries_only():
    net = MLP.random([2, 8, 8, 1], seed=3)
    regions = linear_regions(net)
    finite = big_m_network(to_shallow_extended(net, regions), 1e4)
    assert finite.is_finite() and finite.hidden_sizes == to_shallow_extended(net, regions).hidden_sizes
    rep = big_m_report(net, regions, 1e4, box=(-2, 2, -2, 2), n_points=4000)
    assert rep.max_error_outside_slabs < 1e-6
    assert 0 < rep.slab_half_width < 1e-2
    assert "boundary" in rep.text()
    with pytest.raises(ValueError):
        big_m_network(to_shallow_extended(net, regions), float("inf"))


def test_extended_network_to_mlp_only_when_finite():
    with pytest.raises(ValueError, match="infinite"):
        to_shallow_extended(T1).to_mlp()
    assert ExtendedNetwork.from_mlp(T1).to_mlp().sizes == T1.sizes


# --- 1-D ------------------------------------------------------------------------
TENT = MLP([([[1.0], [1.0]], [0, -0.5]), ([[2.0, -4.0]], [0])])
TENT3 = MLP([([[1.0], [1.0], [1.0]], [0, -0.5, -1]), ([[2.0, -4.0, 2.0]], [0])])


def _power(net, k):
    out = net
    for _ in range(k - 1):
        out = compose(out, net)
    return out


@pytest.mark.parametrize(("k", "kinks"), [(1, 2), (2, 5), (3, 9), (4, 17), (5, 33)])
def test_tent_table(k, kinks):
    net = _power(TENT, k)
    one = shallow_1d(net)
    assert len(one.kinks) == kinks and one.width == kinks  # s₀ = 0: width K
    if k >= 2:
        assert one.kinks[:-1] * 2 ** k == pytest.approx(np.arange(2 ** k))
    assert convert(net).verify().ok()


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_three_neuron_tent_kinks(k):
    one = shallow_1d(_power(TENT3, k))
    assert one.kinks * 2 ** k == pytest.approx(np.arange(2 ** k + 1))


def test_widths_by_the_subset_sum_rule():
    absx = MLP([([[1], [-1]], [0, 0]), ([[1, 1]], [0])])
    assert to_shallow(absx).hidden_sizes == [2]          # K = 1, s₀ = −1, jump 2: K + 1
    relu = MLP([([[1.0]], [0.0]), ([[3.0]], [1.0])])
    assert to_shallow(relu).hidden_sizes == [1]          # s₀ = 0
    left = MLP([([[-1.0]], [0.0]), ([[3.0]], [1.0])])   # 3 ReLU(−x) + 1: s₀ = −3, jump 3
    assert to_shallow(left).hidden_sizes == [1]
    const = MLP([([[1.0]], [0.0]), ([[0.0]], [3.0])])
    assert to_shallow(const).hidden_sizes == [] and to_shallow(const)(np.array([5.0]))[0] == 3
    affine = MLP([([[1.0]], [5.0]), ([[2.0]], [3.0])])  # 2x + 13 for x > −5 … and 3 below
    assert to_shallow(affine).hidden_sizes == [1]
    line = MLP([([[1.0], [-1.0]], [5.0, -5.0]), ([[2.0, -2.0]], [1.0])])  # 2x + 11 everywhere
    assert to_shallow(line).hidden_sizes == [2]
    x = np.linspace(-9, 9, 37)
    for net in (absx, relu, left, const, affine, line):
        assert _close(net(x), to_shallow(net)(x))


@pytest.mark.parametrize(("sizes", "seed"), [([1, 8, 1], 0), ([1, 6, 6, 1], 1), ([1, 5, 5, 5, 1], 2),
                                         ([1, 16, 16, 16, 1], 3), ([1, 4, 4, 3], 4)])
def test_random_1d_networks(sizes, seed):
    net = MLP.random(sizes, seed=seed)
    c = convert(net)
    assert len(c.shallow.layers) == 2 and c.shallow.is_finite()
    v = c.verify()
    assert v.end_slopes_agree
    assert v.max_error_at_kinks is None or v.max_error_at_kinks <= 1e-9 * c.scale() * 10
    t = c.one_d.kinks
    X = np.concatenate([t, t - 1e-9, t + 1e-9, np.random.default_rng(seed).normal(0, 5, 2000)])
    assert _close(net(X), c.shallow(X))
    if net.n_out == 1:
        assert c.one_d.width in (len(t), len(t) + 1)


def test_converter_refuses_what_it_cannot_do():
    with pytest.raises(ValueError, match="ReLU"):
        convert(T1.with_activation("tanh"))
    with pytest.raises(ValueError, match=r"infinite|NaN"):
        convert(MLP([([[np.nan]], [0.0]), ([[1.0]], [0.0])]))


@pytest.mark.parametrize(("n", "seed"), [(1, 0), (2, 1), (2, 2), (3, 3)])
def test_degenerate_networks_on_a_lattice(n, seed):
    """Weights and biases in {−1, 0, 1}: lines through lattice points, shared lines,
    lower-dimensional regions. Every lattice point's pattern is an enumerated region
    (boundaries included) and the shallow network is exact there."""
    rng = np.random.default_rng(seed)
    g = np.arange(-3, 3.5, 0.5)
    X = np.stack(np.meshgrid(*[g] * n), -1).reshape(-1, n)
    for _ in range(12):
        sizes = [n, *list(rng.integers(1, 4, rng.integers(1, 4))), 1]
        net = MLP([(rng.integers(-1, 2, (b, a)).astype(float), rng.integers(-1, 2, b).astype(float))
                   for a, b in itertools.pairwise(sizes)])
        regions = linear_regions(net)
        patterns = {r.pattern.tobytes() for r in regions}
        assert len(patterns) == len(regions)
        assert {p.tobytes() for p in net.activation_patterns(X)} <= patterns
        if n == 2:
            assert patterns == {r.pattern.tobytes() for r in linear_regions(net, method="cones")}
        assert np.abs(to_shallow_extended(net, regions)(X) - net(X)).max() <= 1e-12


@pytest.mark.parametrize("sizes", [[1, 8, 8, 1], [2, 6, 6, 1]])
def test_the_verdict_does_not_depend_on_units(sizes):
    """The same network in other units (every weight and bias ×1e12 or ×1e-12) gets the
    same verdict: rounding is judged against the size of the outputs, not an absolute
    tolerance; a shallow network that is off by a little is still refused."""
    net = MLP.random(sizes, seed=5)
    for factor in (1.0, 1e12, 1e-12):
        scaled = MLP([(W * factor, b * factor) for W, b in net.layers])
        v = convert(scaled).verify()
        assert v.ok(), (factor, v)
    conv = convert(MLP.random([1, 6, 6, 1], seed=6))
    W, b = conv.shallow.layers[-1]
    conv.shallow = MLP([*list(conv.shallow.layers[:-1]), (W, b + 1e-06 * (1 + abs(b)))])
    assert not conv.verify().ok()


def test_extended_layer_evaluates_each_distinct_form_once_minus_zero_included():
    """Rows that share an affine form (−0.0 and 0.0 the same value) are one form,
    evaluated once, so they see bit-identical values."""
    from relulab.model.shallow.construction import ExtendedLayer

    W = np.array([[1.0, 2.0], [1.0, 2.0], [-0.0, 1.0], [0.0, 1.0], [1.0, -2.0]])
    b = np.array([0.5, 0.5, 3.0, 3.0, 0.5])
    zeros = np.zeros(5)
    layer = ExtendedLayer(W, b, zeros, np.zeros((5, 2)), zeros)
    assert layer.n_forms == 3
    idx = layer._finite_idx
    assert idx[0] == idx[1] and idx[2] == idx[3] and len({idx[0], idx[2], idx[4]}) == 3


@pytest.mark.parametrize("sizes", [[2, 4, 4, 1], [2, 8, 8, 1], [3, 5, 5, 2]])
def test_the_construction_evaluates_as_its_weights_read_back_do(sizes):
    """The construction hands its layers their non-zeros (no dense scan); a network
    made again from the same weights (as a file is read back) keeps the same forms and
    gives bit-identical values."""
    net = MLP.random(sizes, seed=4)
    shallow = to_shallow_extended(net)
    again = ExtendedNetwork(tuple(ExtendedLayer(L.W, L.b, L.S, L.V, L.v) for L in shallow.layers))
    assert [L.n_forms for L in again.layers] == [L.n_forms for L in shallow.layers]
    X = np.random.default_rng(1).normal(0, 3, (500, net.n_in))
    assert np.array_equal(again(X), shallow(X))
