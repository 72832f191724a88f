"""Decision regions: each linear region cut by the argmax of its affine scores."""

import numpy as np
import pytest

from relulab.model.data.datasets import make_dataset
from relulab.model.fitting.classify import DEFAULT_BOX, TrainConfig, Trainer, logits, predict
from relulab.model.networks.mlp import MLP
from relulab.model.regions.activation import region_polygons
from relulab.model.regions.decisions import affine_decisions, decision_polygons, decision_regions


def inside(P, x):
    e = np.roll(P, -1, 0) - P
    w = x - P
    cross = e[:, 0] * w[:, 1] - e[:, 1] * w[:, 0]
    return np.all(cross >= -1e-12) or np.all(cross <= 1e-12)


def trained(classes, hidden, steps=400, seed=0):
    X, y = (make_dataset("spirals", seed, classes=classes) if classes > 2
            else make_dataset("circles", seed))
    sizes = [2, *hidden, 1 if classes == 2 else classes]
    return Trainer(MLP.random(sizes, seed=seed), X, y, config=TrainConfig("adam", 0.03)).advance(steps).net


@pytest.mark.parametrize(("classes", "hidden"), [(2, (8, 8)), (3, (16, 16)), (6, (8, 8, 8))])
def test_pieces_hold_the_predicted_class_and_tile_the_box(classes, hidden):
    net = trained(classes, hidden)
    d = decision_regions(net, DEFAULT_BOX)
    assert d.classes == classes
    assert d.area_by_class().sum() == pytest.approx(2.5 * 2.5, rel=1e-9)
    assert len({p.label for p in d.pieces}) == classes  # a trained net uses every class
    points = np.random.default_rng(1).uniform(-1.25, 1.25, (300, 2))
    for x, label in zip(points, predict(net, points)):
        holders = {p.label for p in d.pieces if inside(p.vertices, x)}
        assert holders == {label}
    # each piece's scores are the network's on it
    for p in d.pieces[::7]:
        centre = p.vertices.mean(axis=0)
        z = np.atleast_1d(logits(net, centre[None])[0])
        assert np.allclose(p.A @ centre + p.c, z, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize(("classes", "hidden"), [(2, (8, 8)), (3, (16, 16)), (6, (8, 8, 8))])
def test_the_boundary_is_where_the_top_two_classes_tie(classes, hidden):
    net = trained(classes, hidden)
    d = decision_regions(net, DEFAULT_BOX)
    assert len(d.boundary) and len(d.boundary) % 2 == 0
    for t in (0.0, 0.37, 1.0):
        pts = d.boundary[0::2] * (1 - t) + d.boundary[1::2] * t
        z = logits(net, pts)
        if z.ndim == 1:
            z = np.c_[np.zeros(len(z)), z]
        top = np.sort(z, axis=1)
        assert np.allclose(top[:, -1], top[:, -2], atol=1e-9 * (1 + np.abs(z).max()))
    # and it separates: along a short line across the plane, the class changes only at it
    xs = np.linspace(-1.25, 1.25, 2001)
    line = np.c_[xs, np.full_like(xs, 0.1)]
    changes = np.flatnonzero(np.diff(predict(net, line)))
    for i in changes:
        x_mid = 0.5 * (xs[i] + xs[i + 1])
        seg = d.boundary.reshape(-1, 2, 2)
        # some boundary segment crosses y = 0.1 within a grid step of the change
        lo, hi = seg[:, :, 1].min(axis=1), seg[:, :, 1].max(axis=1)
        cross = (lo <= 0.1) & (hi >= 0.1)
        t = (0.1 - seg[cross, 0, 1]) / np.where(seg[cross, 1, 1] != seg[cross, 0, 1],
                                                 seg[cross, 1, 1] - seg[cross, 0, 1], 1.0)
        x_at = seg[cross, 0, 0] + t * (seg[cross, 1, 0] - seg[cross, 0, 0])
        assert np.min(np.abs(x_at - x_mid)) <= 2 * (xs[1] - xs[0])


def test_identity_layers_are_merged_and_other_activations_refused():
    net = MLP.random([2, 6, 5, 3], seed=2, activation=["identity", "relu"])
    d = decision_regions(net, DEFAULT_BOX)
    assert all(len(r.pattern) == 5 for r in d.regions)  # only the ReLU layer splits
    linear = MLP.random([2, 6, 3], seed=2, activation="identity")
    d = decision_regions(linear, DEFAULT_BOX)
    assert len(d.regions) == 1
    with pytest.raises(ValueError, match="not tanh"):
        decision_polygons(MLP.random([2, 4, 3], activation="tanh"), DEFAULT_BOX)


def test_ties_go_to_the_lower_class_and_flat_scores_draw_no_line():
    # two equal outputs: class 0 wins everywhere (argmax), no boundary between them
    W = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 0.0]])
    d = affine_decisions(W, [0.0, 0.0, 0.5], (-1, 1, -1, 1))
    labels = {p.label for p in d.pieces}
    assert labels == {0, 2}
    area = d.area_by_class()
    assert area[1] == 0 and area[0] == pytest.approx(0.5 * 2) and area[2] == pytest.approx(1.5 * 2)
    seg = d.boundary.reshape(-1, 2, 2)
    assert len(seg) == 1 and np.allclose(seg[0, :, 0], 0.5)  # x = 0.5 only
    # a logit: the line z = 0
    d = affine_decisions([[1.0, -1.0]], [0.0], (-1, 1, -1, 1))
    assert d.classes == 2 and np.allclose(d.area_by_class(), [2.0, 2.0])
    seg = d.boundary.reshape(-1, 2, 2)
    assert len(seg) == 1 and np.allclose(seg[0, :, 0], seg[0, :, 1])


def test_a_boundary_on_a_region_edge_is_found():
    """f(x) = ReLU(x₁) − 0: the class changes exactly on the neuron's line, where the
    logit is 0 on the whole off side (a tie everywhere there)."""
    net = MLP([(np.array([[1.0, 0.0]]), [0.0]), (np.array([[1.0]]), [0.0])])
    d = decision_regions(net, (-1, 1, -1, 1))
    seg = d.boundary.reshape(-1, 2, 2)
    assert len(seg) and np.allclose(seg[..., 0], 0.0)
    assert np.allclose(d.area_by_class(), [2.0, 2.0])


@pytest.mark.parametrize(("scale", "shift"), [(1e-12, 0.0), (1e12, 0.0), (1.0, 1e10), (1e-6, -3e7)])
def test_units_do_not_change_the_pieces(scale, shift):
    """The same regions and maps in other input units (x' = scale·x + shift): the same
    pieces, scaled, and the same boundary (no absolute tolerance decides anything)."""
    from relulab.model.regions.activation import RegionPolygon

    net = trained(3, (8, 8), steps=200)
    regions = region_polygons(net, DEFAULT_BOX)
    moved = [RegionPolygon(r.vertices * scale + shift, r.pattern, r.A / scale,
                           r.c - r.A @ np.full(2, shift) / scale, r.index) for r in regions]
    box = tuple(np.array(DEFAULT_BOX) * scale + shift)
    a = decision_regions(net, DEFAULT_BOX, regions=regions)
    b = decision_regions(net, box, regions=moved)
    # what doubles can say: coordinates near the shift are known to its last place
    rtol = 1e-9 + 50 * np.spacing(abs(shift)) / scale
    assert np.allclose(a.area_by_class(), b.area_by_class() / scale ** 2, rtol=rtol)

    def length(d):
        seg = d.boundary.reshape(-1, 2, 2)
        return float(np.hypot(*(seg[:, 1] - seg[:, 0]).T).sum())

    assert length(b) / scale == pytest.approx(length(a), rel=rtol)
    if shift == 0:  # scaling alone is exact in binary only for powers of two; close is enough
        assert [p.label for p in a.pieces] == [p.label for p in b.pieces]
        assert np.allclose(b.boundary / scale, a.boundary, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize(("scale", "shift"), [(1e-12, 0.0), (1e12, 0.0), (1.0, 1e10)])
def test_a_network_in_other_units_has_the_same_decision_regions(scale, shift):
    """End to end, the region engine included: the same network in input units x' =
    scale·x + shift, on the box in those units."""
    net = trained(3, (8, 8), steps=200)
    (W1, b1), *rest = net.layers
    moved = MLP([(W1 / scale, b1 - W1 @ np.full(2, shift) / scale), *rest])
    box = tuple(np.array(DEFAULT_BOX) * scale + shift)
    a, b = decision_regions(net, DEFAULT_BOX), decision_regions(moved, box)
    assert len(a.regions) == len(b.regions)
    rtol = 1e-9 + 50 * np.spacing(abs(shift)) / scale
    assert np.allclose(a.area_by_class(), b.area_by_class() / scale ** 2, rtol=rtol)
    assert b.area_by_class().sum() / scale ** 2 == pytest.approx(2.5 ** 2, rel=rtol)


def test_known_regions_are_reused_and_stopping_is_honoured():
    from relulab.model.core.cancel import Cancelled

    net = trained(3, (8, 8), steps=100)
    regions = region_polygons(net, DEFAULT_BOX)
    d = decision_regions(net, DEFAULT_BOX, regions=regions)
    assert d.regions == regions
    with pytest.raises(Cancelled):
        decision_regions(net, DEFAULT_BOX, should_stop=lambda: True)


def test_degenerate_networks_still_tile_the_box_by_their_classes():
    """Duplicate neurons, zero biases, every line through the origin, a zero row, and
    outputs that tie on whole regions."""
    W1 = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [0.0, 0.0], [1.0, -1.0]])
    W2 = np.array([[1.0, -1.0, 0.5, 0.0, 2.0, 0.0], [0.0, 0.0, 0.0, 1.0, 0.0, 0.0],
                   [0.0, 0.0, 0.0, 1.0, 0.0, 0.0]])
    net = MLP([(W1, np.zeros(6)), (W2, np.zeros(3))])
    box = (-1.0, 1.0, -1.0, 1.0)
    d = decision_regions(net, box)
    assert d.area_by_class().sum() == pytest.approx(4.0)
    assert d.area_by_class()[2] == 0  # class 2 ties class 1 everywhere: argmax says 1
    points = np.random.default_rng(3).uniform(-1, 1, (400, 2))
    for x, label in zip(points, predict(net, points)):
        holders = {p.label for p in d.pieces if inside(p.vertices, x)}
        assert label in holders
