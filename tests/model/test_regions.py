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
