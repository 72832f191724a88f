"""What the region engine's compiled pass reads out for the callers: the region
polygons of a box and the regions of the whole plane as whole arrays (a sequence
whose items are made when asked for), the same as the items, and witnesses that the
compiled pass proves only where floating point proves them too."""

import itertools

import numpy as np
import pytest

from relulab.model.networks.mlp import MLP
from relulab.model.regions import activation
from relulab.model.regions.activation import (
    RegionPolygons,
    Regions,
    certified_patterns,
    linear_regions,
    region_polygons,
)
from relulab.model.regions.arrangement import arrangement_2d, arrangement_nd

BOX = (-3.0, 3.0, -3.0, 3.0)


def _degenerate_net(sizes, seed):
    """Weights in {−1, 0, 1} and biases in {−1, 0, 1}: lines through vertices, parallel
    and coincident lines, neurons constant on whole cells."""
    rng = np.random.default_rng(seed)
    return MLP([(rng.integers(-1, 2, size=(m, n)).astype(float), rng.choice([-1.0, 0.0, 1.0], m))
                for n, m in itertools.pairwise(sizes)])


NETS = [MLP.random([2, 8, 8, 1], seed=0), MLP.random([2, 6, 5, 4, 3], seed=1),
        _degenerate_net([2, 5, 5, 1], 2), _degenerate_net([2, 4, 4, 4, 2], 3),
        MLP([([[1.0, -2.0]], [0.5])])]


@pytest.mark.parametrize("net", NETS)
def test_region_polygons_are_whole_arrays_and_their_items(net):
    polys = region_polygons(net, BOX)
    assert isinstance(polys, RegionPolygons)
    assert len(polys) == len(polys.pattern) == len(polys.start) - 1 == len(polys.A)
    assert polys.start[0] == 0 and polys.start[-1] == len(polys.points)
    assert np.all(np.diff(polys.start) >= 3)
    for k, p in enumerate(polys):
        assert p.index == k and p is polys[k]
        assert np.array_equal(p.vertices, polys.points[polys.start[k]:polys.start[k + 1]])
        assert np.array_equal(p.pattern, polys.pattern[k])
        assert np.array_equal(p.A, polys.A[k]) and np.array_equal(p.c, polys.c[k])
    # the pattern and the map of every polygon at its centroid, from the network itself
    C = np.array([p.centroid() for p in polys])
    assert np.array_equal(net.activation_patterns(C), polys.pattern)
    assert np.allclose(net(C), np.einsum("kij,kj->ki", polys.A, C) + polys.c, atol=1e-9)
    x0, x1, y0, y1 = BOX
    assert sum(p.area for p in polys) == pytest.approx((x1 - x0) * (y1 - y0), rel=1e-9)


def test_the_sequences_behave_as_lists():
    polys = region_polygons(NETS[0], BOX)
    n = len(polys)
    assert polys[-1] is polys[n - 1] and polys[-1].index == n - 1
    assert polys[2:5] == [polys[2], polys[3], polys[4]]
    assert list(polys) == polys and polys == list(polys) and polys != list(polys)[1:]
    assert polys.index(polys[7]) == 7 and polys[7] in polys
    with pytest.raises(IndexError):
        polys[n]
    with pytest.raises(IndexError):
        polys[-n - 1]
    with pytest.raises(TypeError):
        hash(polys)


@pytest.mark.parametrize("net", NETS)
def test_whole_plane_regions_are_whole_arrays_and_their_items(net):
    regions = linear_regions(net)
    assert isinstance(regions, Regions)
    arr = arrangement_2d(net)
    assert np.array_equal(regions.pattern, arr.pattern) and np.array_equal(regions.full, arr.full)
    rs = regions.row_start
    assert rs[0] == 0 and rs[-1] == len(regions.rows) == len(regions.on)
    assert np.array_equal(np.diff(rs), arr.stored.sum(axis=1))
    cell, g = np.nonzero(arr.stored)
    assert np.array_equal(regions.on, regions.pattern[cell, g])
    flat = arr.flat
    for k, r in enumerate(regions):
        assert r is regions[k]
        assert np.array_equal(r.normals, regions.rows[rs[k]:rs[k + 1], :2])
        assert np.array_equal(r.offsets, regions.rows[rs[k]:rs[k + 1], 2])
        assert np.array_equal(r.witness, regions.witness[k])
        assert r.is_full_dimensional() == bool(regions.full[k])
        polygons = [flat.points[s:s + m] for s, m, kind, c in
                    zip(flat.start, flat.length, flat.kind, flat.cell) if c == k and kind == 2]
        assert len(r.pieces) == len(polygons)
        assert all(np.array_equal(a, b) for a, b in zip(r.pieces, polygons))


@pytest.mark.parametrize("net", NETS)
def test_rows_and_maps_from_the_engine_match_the_numpy_ones(net):
    """The compiled pass takes each stored row from its layer's maps on the cell's root
    and the output map from the last layer's; numpy computes them again from the
    patterns (as for n-D input): the same numbers to rounding."""
    regions = linear_regions(net)
    Zs, A, c = activation._layer_maps(net, regions.pattern)
    rows, on, start = activation._stored_rows(Zs, regions.pattern, arrangement_2d(net).stored, 2)
    assert np.array_equal(start, regions.row_start) and np.array_equal(on, regions.on)
    assert np.allclose(rows, regions.rows, rtol=1e-12, atol=1e-12)
    assert np.allclose(A, regions.A, rtol=1e-12, atol=1e-12)
    assert np.allclose(c, regions.c, rtol=1e-12, atol=1e-12)


def test_a_line_seen_from_both_sides_is_one_row():
    """Cells on either side of a neuron's line come from one root: bit-identical rows."""
    net = MLP.random([2, 6, 6, 1], seed=4)
    regions = linear_regions(net)
    seen: dict = {}
    for r in regions:
        for a, c, on in zip(r.normals, r.offsets, r.on):
            seen.setdefault((a.tobytes(), float(c)), set()).add(bool(on))
    assert sum(len(sides) == 2 for sides in seen.values()) > 20


@pytest.mark.parametrize(("net", "generic"), [
    (NETS[0], True), (NETS[1], True), (MLP.random([2, 32, 32, 1], seed=0), True),
    (NETS[2], False), (NETS[3], False), (_degenerate_net([2, 6, 6, 1], 5), False)])
def test_compiled_witness_proofs_hold_in_floating_point(net, generic):
    """What the compiled pass proves (the cell's pattern at its point, from each layer's
    maps with their error bounds) the forward pass with its own bound proves too; a
    full cell it cannot prove (a neuron zero on the whole cell, in the degenerate
    networks) gets another point, or counts as unproven."""
    arr = arrangement_2d(net)
    _A, _c, _P, _S, _Q, X, ok, *_ = arr.readout
    pattern, proven = certified_patterns(net, X)
    assert np.all(proven[ok].all(axis=1))
    assert np.array_equal(pattern[ok], arr.pattern[ok])
    stats = {}
    regions = linear_regions(net, stats=stats)
    pattern, proven = certified_patterns(net, regions.witness)
    full = regions.full
    good = proven.all(axis=1) & (pattern == regions.pattern).all(axis=1)
    assert stats["unproven_witnesses"] <= np.sum(full & ~good)  # the rest proven exactly
    if generic:
        assert ok[full].all() and stats["unproven_witnesses"] == 0


def test_n_d_regions_are_the_same_sequences():
    net = MLP.random([3, 5, 5, 1], seed=2)
    regions = linear_regions(net)
    assert isinstance(regions, Regions) and len(regions) == len(arrangement_nd(net))
    assert all(r.pieces == () for r in regions)
    rs = regions.row_start
    for k in (0, len(regions) // 2, len(regions) - 1):
        assert np.array_equal(regions[k].normals, regions.rows[rs[k]:rs[k + 1], :3])
