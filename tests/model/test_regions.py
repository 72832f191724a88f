"""Activation regions: exact counts on the spec's cases, the two enumerations (polygons
and cones) against each other, against an independent exact count and against the
clipping they replaced; degenerate networks, units, witnesses, stopping and limits."""

import itertools

import numpy as np
import pytest

from relulab.model.networks.mlp import MLP
from relulab.model.regions.activation import (
    EnumerationStopped,
    certified_patterns,
    count_linear_regions,
    linear_regions,
    region_polygons,
    regions_in_box,
)
from relulab.model.regions.arrangement import RegionLimit, arrangement_2d, arrangement_nd
from tests.model.exact_regions_reference import exact_regions
from tests.model.reference_clipping import reference_linear_regions, reference_region_polygons

T1 = MLP([(np.eye(2), [0, 0]), ([[1, 1]], [0])])
T2 = MLP([(np.eye(2), [0, 0]), ([[1, 0], [-1, 1]], [0, 0]), ([[1, 1]], [0])])
T2B = MLP([([[1, 0], [0, 1], [0, -1]], [0, 0, 0]), ([[1, 0, 0], [-1, 1, -1]], [0, 0]),
           ([[1, 1]], [0])])
T3 = MLP([([[1], [-1]], [0, 0]), ([[1, 1]], [1])])
T5 = MLP([([[1, 0], [0, 1], [1, 1]], [0, 0, -1]),
          ([[1, -1, 0], [0, 1, -1], [1, 1, -2]], [0, 0, 0]), ([[1, 1, -1]], [0])])
BOX = (-3.0, 3.0, -3.0, 3.0)


def _k(regions):
    """Distinct (normalised functional, sense) pairs among the stored constraints."""
    return len({(a.tobytes(), float(c), bool(o)) for r in regions
                for a, c, o in zip(r.normals, r.offsets, r.on)})


def _patterns(regions):
    return {r.pattern.tobytes() for r in regions}


def _key(regions):
    """{pattern: full-dimensional} of regions or of an enumeration."""
    if hasattr(regions, "pattern"):
        return {p.tobytes(): bool(f) for p, f in zip(regions.pattern, regions.full)}
    return {r.pattern.tobytes(): r.is_full_dimensional() for r in regions}


def _rows(region):
    """The stored constraints, rounded to compare two computations of them."""
    return {(tuple(np.round(a, 9)), round(c, 9), o)
            for a, c, o in zip(region.normals, region.offsets, region.on)}


def _degenerate_net(sizes, seed, biases=(-1.0, 0.0, 1.0)):
    """Weights in {−1, 0, 1}: lines through vertices, parallel and coincident lines,
    neurons constant on whole cells."""
    rng = np.random.default_rng(seed)
    layers = [(rng.integers(-1, 2, size=(m, n)).astype(float), rng.choice(biases, size=m))
              for n, m in itertools.pairwise(sizes)]
    return MLP(layers)


def _scaled(net, s, shift):
    """net(s·x + shift) as a network of x."""
    (W, b), *rest = net.layers
    return MLP([(W * s, b + W @ shift), *list(rest)])


# ---------------------------------------------------------------------------
# the spec's cases
# ---------------------------------------------------------------------------
@pytest.mark.parametrize(("net", "p", "k", "lower"), [
    (T1, 4, 4, 0), (T2, 5, 6, 0), (T2B, 7, 8, 2), (T3, 3, 4, 1), (T5, 15, 16, 0)])
@pytest.mark.parametrize("method", ["cones", "auto"])
def test_spec_cases(net, p, k, lower, method):
    stats = {}
    regions = linear_regions(net, method=method, stats=stats)
    assert len(regions) == p == count_linear_regions(net)
    assert _k(regions) == k
    assert sum(not r.is_full_dimensional() for r in regions) == lower
    assert len(_patterns(regions)) == p
    assert stats["lps"] == 0


def test_abs_plus_one_keeps_the_point_region():
    regions = linear_regions(T3)
    point = [r for r in regions if not r.is_full_dimensional()]
    assert len(point) == 1 and not point[0].pattern.any()
    assert point[0].witness.tolist() == [0.0]
    assert point[0](np.array([[0.0]]))[0, 0] == 1.0  # N(0) = 1, not the 0 of a missing region


def test_max_has_more_regions_than_pieces():
    """max(0, x1, x2): 5 regions but only 3 distinct affine maps."""
    maps = {tuple(np.round(np.concatenate([r.A.ravel(), r.c]), 12)) for r in linear_regions(T2)}
    assert len(maps) == 3


# ---------------------------------------------------------------------------
# the two enumerations, the independent exact count, the old clipping
# ---------------------------------------------------------------------------
@pytest.mark.parametrize(("sizes", "seed"), [([2, 5, 5, 1], 0), ([2, 8, 8, 1], 1), ([2, 4, 4, 4, 2], 2),
                                         ([2, 10, 1], 3), ([2, 16, 16, 1], 4)])
def test_polygons_and_cones_agree(sizes, seed):
    net = MLP.random(sizes, seed=seed)
    stats = {}
    assert _key(linear_regions(net, method="polygons", stats=stats)) == \
        _key(linear_regions(net, method="cones"))
    assert stats["exact"] == 0  # generic nets: the filter decides every sign


@pytest.mark.parametrize("sizes", [[2, 4, 1], [2, 3, 3, 1], [2, 3, 2, 2, 1], [3, 3, 3, 1],
                                   [1, 3, 3, 1], [3, 7, 1]])
@pytest.mark.parametrize("seed", range(3))
def test_random_nets_match_the_exact_count(sizes, seed):
    net = MLP.random(sizes, seed=seed)
    ref = exact_regions(net)
    assert _key(arrangement_nd(net)) == ref
    if sizes[0] == 2:
        assert _key(arrangement_2d(net)) == ref
        assert _key(arrangement_2d(net, box=(-1.5, 1.0, -0.5, 2.0))) == \
            exact_regions(net, box=(-1.5, 1.0, -0.5, 2.0))


@pytest.mark.parametrize("sizes", [[2, 4, 1], [2, 3, 3, 1], [2, 4, 3, 1], [3, 3, 3, 1],
                                   [3, 5, 1], [1, 3, 3, 1], [4, 4, 1]])
@pytest.mark.parametrize("seed", range(6))
def test_degenerate_nets_match_the_exact_count(sizes, seed):
    """Integer weights: concurrent, parallel, coincident and duplicate lines, zero rows,
    neurons constant on whole cells, lines through the box's corners and along its edges."""
    net = _degenerate_net(sizes, seed)
    ref = exact_regions(net)
    nd = arrangement_nd(net)
    assert _key(nd) == ref
    assert nd.stats["lps"] == 0
    if sizes[0] == 2:
        assert _key(arrangement_2d(net)) == ref
        for box in ((-2.0, 2.0, -2.0, 2.0), (-1.0, 1.0, 0.0, 1.0)):
            assert _key(arrangement_2d(net, box=box)) == exact_regions(net, box=box)


@pytest.mark.parametrize("sizes", [[2, 6, 6, 1], [2, 5, 5, 5, 1], [3, 4, 4, 1]])
@pytest.mark.parametrize("seed", range(3))
def test_exact_arithmetic_alone_gives_the_same_regions(sizes, seed):
    """Every sign decided by integers (no filter) on degenerate and random nets."""
    for net in (_degenerate_net(sizes, seed), MLP.random(sizes, seed=seed)):
        if sizes[0] == 2:
            assert _key(arrangement_2d(net)) == _key(arrangement_2d(net, exact_only=True))
            assert _key(arrangement_2d(net, box=BOX)) == \
                _key(arrangement_2d(net, box=BOX, exact_only=True))
        assert _key(arrangement_nd(net)) == _key(arrangement_nd(net, exact_only=True))


def _sorted_polygons(polys):
    return sorted(polys, key=lambda p: p.pattern.tobytes())


@pytest.mark.parametrize(("sizes", "seed"), [([2, 8, 8, 8, 1], 0), ([2, 8, 8, 8, 1], 3), ([2, 3, 1], 1),
                                         ([2, 12, 1], 2), ([2, 6, 6, 6, 6, 1], 4),
                                         ([2, 16, 16, 1], 5), ([2, 4, 4, 2], 6), ([2, 1, 1, 1], 7)])
def test_polygons_match_the_old_clipping_on_random_nets(sizes, seed):
    net = MLP.random(sizes, seed=seed)
    for box in ((-1.25, 1.25, -1.25, 1.25), BOX, (0.1, 0.7, -2.0, 5.0)):
        new = _sorted_polygons(region_polygons(net, box))
        old = _sorted_polygons(reference_region_polygons(net, box))
        assert [p.pattern.tobytes() for p in new] == [p.pattern.tobytes() for p in old]
        for p, q in zip(new, old):
            assert p.area == pytest.approx(q.area, rel=1e-9, abs=1e-12)
            assert p.vertices.shape == q.vertices.shape
            assert np.allclose(p.A, q.A, atol=1e-12) and np.allclose(p.c, q.c, atol=1e-12)
        x0, x1, y0, y1 = box
        assert sum(p.area for p in new) == pytest.approx((x1 - x0) * (y1 - y0), rel=1e-9)


@pytest.mark.parametrize(("sizes", "seed"), [([2, 8, 8, 8, 1], 0), ([2, 10, 1], 2),
                                         ([2, 6, 6, 6, 1], 4), ([2, 12, 12, 1], 5)])
def test_whole_plane_matches_the_old_clipping_on_random_nets(sizes, seed):
    net = MLP.random(sizes, seed=seed)
    new = {r.pattern.tobytes(): r for r in linear_regions(net)}
    old = {r.pattern.tobytes(): r for r in reference_linear_regions(net)}
    assert new.keys() == old.keys()
    for key, r in new.items():
        q = old[key]
        assert r.is_full_dimensional() and len(r.pieces) >= 1
        assert np.allclose(r.A, q.A, atol=1e-12) and np.allclose(r.c, q.c, atol=1e-12)
        assert _rows(r) == _rows(q)


# ---------------------------------------------------------------------------
# degenerate arrangements the old code got wrong or slow
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("w", [1e-7, 1e-8, 3e-9, 1e-9, 1e-10])
def test_two_close_parallel_lines_make_three_regions(w):
    """ReLU(x₁) + ReLU(−x₁ + w): regions 10, 11, 01 for every w > 0 (an LP tolerance
    once added an empty 00 or dropped 11)."""
    expected = {b"\x01\x00", b"\x01\x01", b"\x00\x01"}
    for n in (1, 2, 3):
        W = np.zeros((2, n))
        W[0, 0], W[1, 0] = 1.0, -1.0
        net = MLP([(W, [0.0, w]), ([[1.0, 1.0]], [0.0])])
        regions = linear_regions(net)
        assert _patterns(regions) == expected
        assert all(r.is_full_dimensional() for r in regions)
        assert count_linear_regions(net) == 3
        if n == 2:
            assert len(region_polygons(net, (-1, 1, -1, 1))) == 3


def _concurrent(m, point=(0.0, 0.0), duplicates=0):
    """m lines through ``point`` with distinct integer normals (all on one side), plus
    copies of the first ``duplicates`` of them."""
    a = np.array([[i, m - i] for i in range(m)] + [[-1, 1]], dtype=float)[:m]
    a = np.concatenate([a, a[:duplicates], 2 * a[:duplicates]])
    b = -a @ np.asarray(point)            # exact: small integers times dyadic coordinates
    return MLP([(a, b), (np.ones((1, len(a))), [0.0])])


@pytest.mark.parametrize("m", [2, 3, 7, 50, 100])
@pytest.mark.parametrize("point", [(0.0, 0.0), (0.25, -0.5), (-2.75, 2.5)])
def test_m_concurrent_lines_make_2m_regions(m, point):
    net = _concurrent(m, point)
    assert count_linear_regions(net, box=BOX) == len(region_polygons(net, BOX)) == 2 * m
    assert count_linear_regions(net) == 2 * m  # normals spread over a half-turn: no point region
    dup = _concurrent(m, point, duplicates=min(m, 5))
    assert count_linear_regions(dup, box=BOX) == 2 * m


def test_the_100_line_fan_on_the_whole_plane():
    net = _concurrent(100)
    stats = {}
    regions = linear_regions(net, stats=stats)
    assert len(regions) == 200 and all(r.is_full_dimensional() for r in regions)
    assert stats["lps"] == 0 and stats["exact"] == 0   # zero biases: the filter proves the zeros
    assert _key(regions) == _key(arrangement_nd(net))


def test_zero_bias_net_on_the_whole_plane():
    """TF Playground's zero initialisation: every line through the origin, in every layer."""
    net = MLP.random([2, 32, 32, 1], seed=0)
    net = MLP([(W, np.zeros_like(b)) for W, b in net.layers])
    stats = {}
    regions = linear_regions(net, stats=stats)
    assert stats["lps"] == 0
    assert _key(regions) == _key(arrangement_nd(net))
    assert count_linear_regions(net) == len(regions)
    # cones from the origin: every full region reaches the origin and infinity
    assert sum(r.is_full_dimensional() for r in regions) == count_linear_regions(net, box=BOX)
    assert np.isin(len(regions) - count_linear_regions(net, box=BOX), (0, 1))  # the origin alone


def test_duplicate_zero_and_coincident_neurons():
    coincident = MLP([([[1, 1], [1, 1], [-1, -1], [2, 2]], [0, 0, 0, 0]), ([[1, 1, 1, 1]], [0])])
    parallel = MLP([([[1, 0], [1, 0], [1, 0]], [-1, 0, 1]), ([[1, 1, 1]], [0])])
    affine = MLP([([[1.0, -2.0]], [0.5])])                       # no hidden layer
    dead = MLP([(np.zeros((3, 2)), [-1.0, 0.0, 1.0]), ([[1, 1, 1]], [0])])  # constant neurons
    assert len(region_polygons(affine, (-2, 2, -2, 2))) == len(linear_regions(affine)) == 1
    assert [r.pattern.tolist() for r in linear_regions(dead)] == [[False, False, True]]
    assert len(region_polygons(coincident, (-2, 2, -2, 2))) == 2
    assert len(linear_regions(coincident)) == 3  # x + y > 0, = 0 (a line region), < 0
    assert len(region_polygons(parallel, (-2, 2, -2, 2))) == 4
    for net in (coincident, parallel, affine, dead, T1, T2, T2B, T5):
        assert _key(linear_regions(net)) == exact_regions(net)


def test_lines_through_the_box_corners_and_along_its_edges():
    diag = MLP([([[1, -1], [1, 1], [1, 0], [0, 1]], [0, 0, -2, 2]), ([[1, 1, 1, 1]], [0])])
    box = (-2.0, 2.0, -2.0, 2.0)
    assert _key(arrangement_2d(diag, box=box)) == exact_regions(diag, box=box)
    assert count_linear_regions(diag, box=box) == 4   # x = 2 and y = −2 are edges, not cuts


def test_grid_with_diagonals_through_its_vertices():
    """Lines x = i, y = j and the diagonals through their crossings: every crossing of
    three or four lines is exact (regioncam, in float32, makes slivers here)."""
    rows, bias = [], []
    for i in range(-2, 3):
        rows += [[1, 0], [0, 1]]
        bias += [-i, -i]
    for k in range(-3, 4):
        rows += [[1, -1], [1, 1]]
        bias += [-k, -k]
    net = MLP([(np.array(rows, float), np.array(bias, float)), (np.ones((1, len(rows))), [0.0])])
    regions = linear_regions(net)
    assert _key(regions) == _key(arrangement_nd(net))
    # the arrangement of the full lines: every crossing region is counted once
    assert count_linear_regions(net, box=(-2.5, 2.5, -2.5, 2.5)) == \
        len(region_polygons(net, (-2.5, 2.5, -2.5, 2.5)))


# ---------------------------------------------------------------------------
# units
# ---------------------------------------------------------------------------
SCALES = [1e-12, 1e-6, 1.0, 1e6, 1e12]


@pytest.mark.parametrize("s", SCALES)
@pytest.mark.parametrize("shift", [0.0, 1e10])
def test_counts_do_not_depend_on_units_2d(s, shift):
    net = MLP.random([2, 8, 8, 1], seed=3)
    plane = count_linear_regions(net)
    box = count_linear_regions(net, box=BOX)
    t = np.array([shift, -shift / 3])
    moved = _scaled(net, s, t)
    x0, x1, y0, y1 = BOX
    box2 = ((x0 - t[0]) / s, (x1 - t[0]) / s, (y0 - t[1]) / s, (y1 - t[1]) / s)
    assert count_linear_regions(moved) == plane
    assert count_linear_regions(moved, box=box2) == box
    assert _key(linear_regions(moved, method="cones")) == _key(linear_regions(net, method="cones"))


@pytest.mark.parametrize("s", [2.0 ** -40, 2.0 ** -20, 2.0 ** 20, 2.0 ** 40])
@pytest.mark.parametrize("shift", [0.0, 2.0 ** 33])
def test_degenerate_counts_do_not_depend_on_units(s, shift):
    """Powers of two and dyadic shifts keep the arrangement exactly as it was."""
    for seed in range(4):
        net = _degenerate_net([2, 5, 5, 1], seed)
        moved = _scaled(net, s, np.array([shift, shift]))
        assert _key(arrangement_2d(moved)) == _key(arrangement_2d(net))
        net3 = _degenerate_net([3, 4, 4, 1], seed)
        moved3 = _scaled(net3, s, np.full(3, shift))
        assert _key(arrangement_nd(moved3)) == _key(arrangement_nd(net3))


@pytest.mark.parametrize("s", SCALES)
@pytest.mark.parametrize("shift", [0.0, 1e10])
def test_counts_do_not_depend_on_units_3d(s, shift):
    net = MLP.random([3, 5, 5, 1], seed=2)
    moved = _scaled(net, s, np.array([shift, -shift, shift / 7]))
    assert _key(arrangement_nd(moved)) == _key(arrangement_nd(net))


# ---------------------------------------------------------------------------
# witnesses, grids, boxes
# ---------------------------------------------------------------------------
@pytest.mark.parametrize(("sizes", "seed"), [([2, 8, 8, 1], 5), ([2, 6, 6, 6, 1], 6), ([3, 5, 5, 1], 7),
                                         ([1, 6, 6, 1], 8), ([4, 4, 4, 1], 9)])
def test_witnesses_lie_in_their_regions(sizes, seed):
    net = MLP.random(sizes, seed=seed)
    stats = {}
    regions = linear_regions(net, stats=stats)
    assert stats["unproven_witnesses"] == 0
    W = np.array([r.witness for r in regions])
    pattern, proven = certified_patterns(net, W)
    assert proven.all()
    for r, p, w in zip(regions, pattern, W):
        assert np.array_equal(p, r.pattern)
        assert r.contains(w[None, :], tol=1e-7)[0]
        assert np.allclose(net(w[None]), r(w[None]), atol=1e-9)


@pytest.mark.parametrize(("sizes", "seed"), [([2, 6, 6, 1], 11), ([2, 8, 4, 4, 1], 12)])
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
    assert len(linear_regions(net)) == len(linear_regions(net, method="cones")) == 4
    assert len(region_polygons(net, BOX)) == 3


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
    a = regions_in_box(linear_regions(net), BOX)
    b = region_polygons(net, BOX)
    assert {p.pattern.tobytes() for p in a} == {p.pattern.tobytes() for p in b}
    assert sum(p.area for p in a) == pytest.approx(36.0, rel=1e-9)


def test_bad_networks_are_refused():
    with pytest.raises(ValueError, match="2-D"):
        region_polygons(T3, (-1, 1, -1, 1))
    with pytest.raises(ValueError, match="ReLU"):
        linear_regions(T1.with_activation("tanh"))
    with pytest.raises(ValueError, match="box"):
        region_polygons(T1, (1, -1, 0, 1))
    with pytest.raises(ValueError, match="NaN or infinite"):
        count_linear_regions(MLP([([[np.nan, 1.0]], [0.0]), ([[1.0]], [0.0])]))
    with pytest.raises(ValueError, match="too large"):
        count_linear_regions(MLP([([[1e300, 1.0]], [0.0]), ([[1e300]], [0.0]), ([[1.0]], [0.0])]))


# ---------------------------------------------------------------------------
# stopping and limits
# ---------------------------------------------------------------------------
def _stopper(after):
    calls = []

    def stop():
        calls.append(1)
        return len(calls) >= after

    return stop, calls


@pytest.mark.parametrize("run", [
    lambda net, stop: linear_regions(net, method="polygons", should_stop=stop),
    lambda net, stop: linear_regions(net, method="cones", should_stop=stop),
    lambda net, stop: region_polygons(net, BOX, should_stop=stop),
    lambda net, stop: count_linear_regions(net, should_stop=stop),
])
def test_enumeration_can_be_stopped(run):
    stop, calls = _stopper(3)
    with pytest.raises(EnumerationStopped):
        run(MLP.random([2, 6, 6, 1], seed=0), stop)
    assert len(calls) == 3


@pytest.mark.parametrize("sizes", [[2, 300, 1], [3, 60, 1]])
def test_one_big_root_is_stopped_inside(sizes):
    """The first layer has a single root (all of Rⁿ): its neurons are many steps, and
    the question comes back between them, not only when the root is done."""
    stop, calls = _stopper(2)
    with pytest.raises(EnumerationStopped):
        count_linear_regions(MLP.random(sizes, seed=0), should_stop=stop)
    assert len(calls) == 2


def test_limits_stop_with_one_line():
    net = MLP.random([3, 8, 8, 1], seed=0)
    with pytest.raises(RegionLimit, match="more than 100 activation regions") as e:
        linear_regions(net, max_regions=100)
    assert "\n" not in str(e.value)
    with pytest.raises(RegionLimit, match="time limit") as e:
        linear_regions(net, max_seconds=0.0)
    assert "\n" not in str(e.value)
    assert len(linear_regions(net, max_regions=10_000, max_seconds=60)) == 480


def test_the_hull_of_a_clipped_region_drops_repeats_and_inner_points():
    """The hull drawn for a region (plain Python, so that a worker running it once per
    region never starves the window): counter-clockwise from the lowest-left point,
    repeated points (−0.0 and 0.0 one value) and points on an edge or inside left out,
    None when flat."""
    from relulab.model.regions.activation import _convex_hull

    square = [[1.0, 1.0], [0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [-0.0, 0.0], [0.5, 0.0],
              [0.5, 0.5], [1.0, 1.0]]
    hull = _convex_hull(np.array(square))
    assert hull.dtype == float and hull.tolist() == [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0],
                                                     [0.0, 1.0]]
    assert _convex_hull(np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0], [-0.0, 0.0]])) is None
    assert _convex_hull(np.array([[3.0, 4.0], [3.0, 4.0]])) is None
    rng = np.random.default_rng(5)
    points = rng.normal(size=(200, 2))
    from scipy.spatial import ConvexHull

    want = points[ConvexHull(points).vertices]
    got = _convex_hull(points)
    assert sorted(map(tuple, got.tolist())) == sorted(map(tuple, want.tolist()))
