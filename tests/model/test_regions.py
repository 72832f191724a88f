"""Activation regions: exact counts on the spec's cases, agreement of the two
enumerations, witnesses, and the 2-D polygons used for drawing."""

import numpy as np
import pytest

from relulab.model.mlp import MLP
from relulab.model.regions import linear_regions, region_polygons, regions_in_box

T1 = MLP([(np.eye(2), [0, 0]), ([[1, 1]], [0])])
T2 = MLP([(np.eye(2), [0, 0]), ([[1, 0], [-1, 1]], [0, 0]), ([[1, 1]], [0])])
T2B = MLP([([[1, 0], [0, 1], [0, -1]], [0, 0, 0]), ([[1, 0, 0], [-1, 1, -1]], [0, 0]),
           ([[1, 1]], [0])])
T3 = MLP([([[1], [-1]], [0, 0]), ([[1, 1]], [1])])
T5 = MLP([([[1, 0], [0, 1], [1, 1]], [0, 0, -1]),
          ([[1, -1, 0], [0, 1, -1], [1, 1, -2]], [0, 0, 0]), ([[1, 1, -1]], [0])])


def _k(regions):
    """Distinct (normalised functional, sense) pairs among the stored constraints."""
    return len({(a.tobytes(), float(c), bool(o)) for r in regions
                for a, c, o in zip(r.normals, r.offsets, r.on)})


def _patterns(regions):
    return {r.pattern.tobytes() for r in regions}


@pytest.mark.parametrize("net, p, k, lower", [
    (T1, 4, 4, 0), (T2, 5, 6, 0), (T2B, 7, 8, 2), (T3, 3, 4, 1), (T5, 15, 16, 0)])
@pytest.mark.parametrize("method", ["lp", "auto"])
def test_spec_cases(net, p, k, lower, method):
    regions = linear_regions(net, method=method)
    assert len(regions) == p
    assert _k(regions) == k
    assert sum(not r.is_full_dimensional() for r in regions) == lower
    assert len(_patterns(regions)) == p


def test_abs_plus_one_keeps_the_point_region():
    regions = linear_regions(T3)
    point = [r for r in regions if not r.is_full_dimensional()]
    assert len(point) == 1 and not point[0].pattern.any()
    assert point[0].witness == pytest.approx([0.0], abs=1e-7)
    assert point[0](np.array([[0.0]]))[0, 0] == 1.0  # N(0) = 1, not the 0 of a missing region


def test_max_has_more_regions_than_pieces():
    """max(0, x1, x2): 5 regions but only 3 distinct affine maps."""
    maps = {tuple(np.round(np.concatenate([r.A.ravel(), r.c]), 12)) for r in linear_regions(T2)}
    assert len(maps) == 3


@pytest.mark.parametrize("sizes, seed", [([2, 5, 5, 1], 0), ([2, 8, 8, 1], 1), ([2, 4, 4, 4, 2], 2),
                                         ([2, 10, 1], 3)])
def test_polygons_and_linear_programs_agree(sizes, seed):
    net = MLP.random(sizes, seed=seed)
    stats = {}
    fast = linear_regions(net, method="polygons", stats=stats)
    slow = linear_regions(net, method="lp")
    assert _patterns(fast) == _patterns(slow)
    assert stats["lps"] == 0  # generic nets: no line merely touches a cell


@pytest.mark.parametrize("sizes, seed", [([2, 8, 8, 1], 5), ([2, 6, 6, 6, 1], 6), ([3, 5, 5, 1], 7),
                                         ([1, 6, 6, 1], 8)])
def test_witnesses_lie_in_their_regions(sizes, seed):
    net = MLP.random(sizes, seed=seed)
    regions = linear_regions(net)
    for r in regions:
        w = r.witness[None, :]
        assert r.contains(w, tol=1e-7)[0]
        assert np.array_equal(net.activation_patterns(w)[0], r.pattern)
        assert np.allclose(net(w), r(w), atol=1e-9)


@pytest.mark.parametrize("sizes, seed", [([2, 6, 6, 1], 11), ([2, 8, 4, 4, 1], 12)])
def test_never_fewer_regions_than_patterns_on_a_fine_grid(sizes, seed):
    net = MLP.random(sizes, seed=seed)
    regions = linear_regions(net)
    g = np.linspace(-6, 6, 301)
    X = np.stack(np.meshgrid(g, g), axis=-1).reshape(-1, 2)
    seen = {row.tobytes() for row in net.activation_patterns(X)}
    assert seen <= _patterns(regions)
    assert len(regions) >= len(seen)


def test_whole_plane_finds_regions_far_from_the_origin():
    """Two nearly parallel lines crossing at (0, 1e6): one region lies beyond it."""
    W1 = np.array([[1.0, 1e-6], [1.0, -1e-6]])
    net = MLP([(W1, [-1.0, 1.0]), ([[1, 1]], [0])])
    assert len(linear_regions(net)) == len(linear_regions(net, method="lp")) == 4
    assert len(region_polygons(net, (-3, 3, -3, 3))) == 3


def test_polygons_tile_the_box():
    net = MLP.random([2, 8, 8, 8, 1], seed=4)
    box = (-2.0, 3.0, -1.0, 2.0)
    polys = region_polygons(net, box)
    assert sum(p.area for p in polys) == pytest.approx(15.0, rel=1e-9)
    C = np.array([p.centroid() for p in polys])
    pats = net.activation_patterns(C)
    for p, pat, x in zip(polys, pats, C):
        assert np.array_equal(pat, p.pattern)
        assert p.vertices[:, 0].min() >= box[0] - 1e-9 and p.vertices[:, 1].max() <= box[3] + 1e-9
        assert np.allclose(net(x[None]), x @ p.A.T + p.c, atol=1e-9)


def test_exact_regions_clipped_to_a_box_match_the_polygons():
    net = MLP.random([2, 6, 6, 1], seed=9)
    box = (-3, 3, -3, 3)
    a = regions_in_box(linear_regions(net), box)
    b = region_polygons(net, box)
    assert {p.pattern.tobytes() for p in a} == {p.pattern.tobytes() for p in b}
    assert sum(p.area for p in a) == pytest.approx(36.0, rel=1e-9)


def test_bad_networks_are_refused():
    with pytest.raises(ValueError, match="2-D"):
        region_polygons(T3, (-1, 1, -1, 1))
    with pytest.raises(ValueError, match="ReLU"):
        linear_regions(T1.with_activation("tanh"))
    with pytest.raises(ValueError, match="box"):
        region_polygons(T1, (1, -1, 0, 1))


def test_enumeration_can_be_stopped():
    from relulab.model.regions import EnumerationStopped

    calls = []

    def stop():
        calls.append(1)
        return len(calls) >= 3

    for method in ("polygons", "lp"):
        calls.clear()
        with pytest.raises(EnumerationStopped):
            linear_regions(MLP.random([2, 6, 6, 1], seed=0), method=method, should_stop=stop)
        assert len(calls) == 3


# ---------------------------------------------------------------------------
# the flat clipping (all cells of a neuron at once) against the cell-by-cell reference
# ---------------------------------------------------------------------------
def _degenerate_net(sizes, seed, biases=(-1.0, 0.0, 1.0)):
    """Weights in {−1, 0, 1}: lines through vertices, parallel and coincident lines,
    neurons constant on whole cells."""
    rng = np.random.default_rng(seed)
    layers = [(rng.integers(-1, 2, size=(m, n)).astype(float), rng.choice(biases, size=m))
              for n, m in zip(sizes[:-1], sizes[1:])]
    return MLP(layers)


def _polygon_key(polygons):
    return sorted((p.pattern.tobytes(), round(p.area, 9)) for p in polygons)


def _assert_same_polygons(net, box):
    from relulab.model.regions import _reference_region_polygons

    new, old = region_polygons(net, box), _reference_region_polygons(net, box)
    assert len(new) == len(old)
    assert [p.pattern.tobytes() for p in new] == [p.pattern.tobytes() for p in old]
    for p, q in zip(new, old):
        assert p.area == pytest.approx(q.area, rel=1e-9, abs=1e-12)
        assert p.vertices.shape == q.vertices.shape
        assert np.allclose(p.vertices, q.vertices, rtol=1e-9, atol=1e-12)
        assert np.allclose(p.A, q.A, atol=1e-12) and np.allclose(p.c, q.c, atol=1e-12)
        assert p.index == q.index
    x0, x1, y0, y1 = box
    assert sum(p.area for p in new) == pytest.approx((x1 - x0) * (y1 - y0), rel=1e-9)
    return new


def _assert_same_regions(net):
    from relulab.model.regions import _reference_linear_regions

    s_new, s_old = {}, {}
    new = linear_regions(net, method="polygons", stats=s_new)
    old = _reference_linear_regions(net, stats=s_old)
    assert len(new) == len(old)
    assert [r.pattern.tobytes() for r in new] == [r.pattern.tobytes() for r in old]
    assert s_new["lps"] == s_old["lps"]
    for r, q in zip(new, old):
        assert r.is_full_dimensional() == q.is_full_dimensional()
        assert len(r.pieces) == len(q.pieces)
        assert np.array_equal(r.on, q.on)
        assert np.allclose(r.normals, q.normals, atol=1e-12)
        assert np.allclose(r.offsets, q.offsets, atol=1e-12)
        assert np.allclose(r.A, q.A, atol=1e-12) and np.allclose(r.c, q.c, atol=1e-12)
        for P, Q in zip(r.pieces, q.pieces):
            assert np.allclose(P, Q, atol=1e-12)
        assert np.allclose(r.witness, q.witness, rtol=1e-9, atol=1e-9)
        assert r.contains(r.witness[None, :], tol=1e-7)[0]
    return new


@pytest.mark.parametrize("sizes, seed", [([2, 8, 8, 8, 1], 0), ([2, 8, 8, 8, 1], 3), ([2, 3, 1], 1),
                                         ([2, 12, 1], 2), ([2, 6, 6, 6, 6, 1], 4),
                                         ([2, 16, 16, 1], 5), ([2, 4, 4, 2], 6), ([2, 1, 1, 1], 7)])
def test_flat_clipping_matches_the_reference_on_random_nets(sizes, seed):
    net = MLP.random(sizes, seed=seed)
    for box in ((-1.25, 1.25, -1.25, 1.25), (-3.0, 3.0, -3.0, 3.0), (0.1, 0.7, -2.0, 5.0)):
        _assert_same_polygons(net, box)


@pytest.mark.parametrize("sizes, seed", [([2, 8, 8, 8, 1], 0), ([2, 10, 1], 2), ([2, 6, 6, 6, 1], 4),
                                         ([2, 12, 12, 1], 5)])
def test_flat_whole_plane_matches_the_reference_on_random_nets(sizes, seed):
    _assert_same_regions(MLP.random(sizes, seed=seed))


@pytest.mark.parametrize("sizes", [[2, 4, 1], [2, 6, 6, 1], [2, 5, 5, 5, 1], [2, 8, 4, 1]])
@pytest.mark.parametrize("seed", range(6))
def test_flat_clipping_matches_the_reference_on_degenerate_nets(sizes, seed):
    """Integer weights: lines through the box's corners and through each other's
    crossings, parallel and coincident lines, neurons dead on whole cells."""
    net = _degenerate_net(sizes, seed)
    _assert_same_polygons(net, (-2.0, 2.0, -2.0, 2.0))
    _assert_same_polygons(net, (-1.0, 1.0, 0.0, 1.0))  # lines along the box's edges
    regions = _assert_same_regions(net)
    assert {r.pattern.tobytes() for r in regions} == \
        {r.pattern.tobytes() for r in linear_regions(net, method="lp")}


def test_flat_clipping_on_the_spec_cases_and_coincident_lines():
    coincident = MLP([([[1, 1], [1, 1], [-1, -1], [2, 2]], [0, 0, 0, 0]), ([[1, 1, 1, 1]], [0])])
    parallel = MLP([([[1, 0], [1, 0], [1, 0]], [-1, 0, 1]), ([[1, 1, 1]], [0])])
    affine = MLP([([[1.0, -2.0]], [0.5])])                      # no hidden layer
    dead = MLP([(np.zeros((3, 2)), [-1.0, 0.0, 1.0]), ([[1, 1, 1]], [0])])  # constant neurons
    for net in (T1, T2, T2B, T5, coincident, parallel, affine, dead):
        _assert_same_polygons(net, (-2.0, 2.0, -2.0, 2.0))
        _assert_same_regions(net)
    assert len(region_polygons(affine, (-2, 2, -2, 2))) == len(linear_regions(affine)) == 1
    assert [r.pattern.tolist() for r in linear_regions(dead)] == [[False, False, True]]
    assert len(region_polygons(coincident, (-2, 2, -2, 2))) == 2
    assert len(linear_regions(coincident)) == 3  # x + y > 0, = 0 (a line region), < 0
    assert len(region_polygons(parallel, (-2, 2, -2, 2))) == 4


def test_flat_clipping_lower_dimensional_regions_on_the_spec_cases():
    """T2B has two line regions; they come from the touching test, as before."""
    stats = {}
    regions = _assert_same_regions(T2B)
    assert sum(not r.is_full_dimensional() for r in regions) == 2
    linear_regions(T2B, stats=stats)
    assert stats["lps"] > 0
