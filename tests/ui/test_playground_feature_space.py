"""The Playground's network g of nonlinear features in feature space: the exact number
of its linear pieces over the box the data's features span (checked against the 2-D
engine and against the patterns sampled on a fine grid), the line that says what is
exact and what is sampled, View ▸ Map in feature space (g's exact regions and boundary,
the points' features), the readouts, scenes and undo."""

import itertools

import numpy as np
import pytest
from PySide6.QtWidgets import QApplication

from relulab.model.fitting.features import FEATURE_NAMES, FeatureMap
from relulab.model.lessons.playground import PlaygroundState
from relulab.model.networks.mlp import MLP
from relulab.testing import mouse
from relulab.ui.panels.playground import PlaygroundPanel
from relulab.ui.panels.playground.features_view import NO_ADDING
from relulab.ui.panels.playground.jobs import (
    MAX_COUNTED_FEATURES,
    feature_box,
    feature_count,
    pieces_text,
)


@pytest.fixture(scope="module", autouse=True)
def _region_engine_loaded():
    from relulab.model.regions.arrangement import warm_up

    warm_up()


@pytest.fixture
def panel(shown_panel):
    return shown_panel(PlaygroundPanel)


def settled(qtbot, panel):
    qtbot.waitUntil(lambda: not panel.driver.busy, timeout=20_000)
    for w in (panel._regions_worker, panel._picture_worker, panel._plane_worker):
        assert w.wait(30)
    QApplication.processEvents()
    panel.driver.draw_all()
    return panel


def tick(panel, *names):
    """Turn exactly ``names`` on through the boxes (the new ones first)."""
    checks = panel.controls.features.checks
    for on in (True, False):
        for n in FEATURE_NAMES:
            if (n in names) == on and checks[n].isChecked() != on:
                checks[n].click()


def sampled_patterns(net: MLP, box, per_axis: int) -> int:
    """The distinct activation patterns of a ReLU network at the centres of a grid of
    per_axis^k cells in ``box``: each is a piece of the box, so never more than its count."""
    axes = [lo + (np.arange(per_axis) + 0.5) * (hi - lo) / per_axis
            for lo, hi in zip(box[0::2], box[1::2])]
    X = np.array(list(itertools.product(*axes)))
    zs = net.forward(X)[:-1]
    bits = np.hstack([z > 0 for z in zs])
    return len(np.unique(bits, axis=0))


@pytest.mark.parametrize("seed", range(4))
def test_two_features_the_2d_engine_and_the_nd_engine_agree(seed):
    activation = ["relu", "identity"] if seed % 2 else "relu"
    net = MLP.random([2, 6, 5, 1], seed=seed, activation=activation)
    box = (-0.3, 1.7, -0.2, 1.4)
    by_2d = feature_count(net, box, method="2d")
    by_nd = feature_count(net, box, method="nd")
    assert by_2d.count == by_nd.count > 1


@pytest.mark.parametrize(("sizes", "per_axis"), [((2, 8, 6, 1), 300), ((3, 6, 5, 1), 40),
                                                 ((4, 5, 4, 1), 16)])
def test_the_count_is_never_below_the_patterns_on_a_fine_grid(sizes, per_axis):
    net = MLP.random(list(sizes), seed=7)
    box = tuple(v for i in range(sizes[0]) for v in (-1.0 - 0.1 * i, 1.0 + 0.2 * i))
    count = feature_count(net, box).count
    seen = sampled_patterns(net, box, per_axis)
    assert seen <= count
    assert seen >= 0.7 * count  # the grid finds most pieces: the count is of this box


def test_more_features_than_the_engine_takes_are_not_counted(panel, qtbot):
    names = FEATURE_NAMES[:MAX_COUNTED_FEATURES + 1]
    tick(panel, *names)
    settled(qtbot, panel)
    text = panel.strip.region_label.text()
    assert text == (f"Linear pieces in feature space: not counted ({len(names)} features; the "
                    f"exact count takes up to {MAX_COUNTED_FEATURES}); the plane's picture is "
                    "sampled on a 200 × 200 grid.")
    assert panel.readouts()["feature_pieces"] is None
    assert not panel.controls.toggles.space_check.isEnabled()


def test_three_features_are_counted_on_the_worker(panel, qtbot):
    tick(panel, "x1", "x2", "x1*x2")
    settled(qtbot, panel)
    features = FeatureMap(("x1", "x2", "x1*x2"))
    expected = feature_count(panel.net, feature_box(features, panel.points.x))
    assert expected.count > 1
    assert panel.strip.region_label.text() == pieces_text(expected)
    assert panel.readouts()["feature_pieces"] == expected.count


def test_circles_in_x1_squared_x2_squared_without_hidden_layer_are_cut_by_one_segment(panel, qtbot):
    panel.remove_layer()
    tick(panel, "x1^2", "x2^2")
    assert panel.net.sizes == [2, 1]
    for _ in range(30):
        panel.step_once()
        settled(qtbot, panel)
    assert panel.readouts()["test_accuracy"] >= 0.97
    assert panel.readouts()["feature_pieces"] == 1
    panel.controls.toggles.space_check.click()
    settled(qtbot, panel)
    assert panel.readouts()["feature_space"] is True
    features = FeatureMap(("x1^2", "x2^2"))
    box = feature_box(features, panel.points.x)
    assert panel.data_map.box == box
    assert panel.data_map.getPlotItem().getAxis("bottom").labelText == "x₁²"
    assert panel.data_map.accessibleDescription().startswith("The feature space, x₁² across and "
                                                             "x₂² up")
    # the points drawn are the features of the points
    p = panel.points
    item = panel.data_map.point_items[(1, True)]
    drawn = np.c_[item.data["x"], item.data["y"]]
    assert np.array_equal(drawn, features.apply(p.x[(p.label == 1) & p.test]))
    # the boundary: one exact segment, across the box, where g is 0
    x, y = panel.data_map.boundary_item.getData()
    assert len(x) == 2
    ends = np.c_[x, y]
    assert np.allclose(panel.net.forward(ends)[-1], 0, atol=1e-9)
    assert "exact" in panel.strip.decision_label.text()
    # the segment's line separates the test points' features: class 1 on g's positive side
    (a, b), F = ends, features.apply(p.x)
    side = (b[0] - a[0]) * (F[:, 1] - a[1]) - (b[1] - a[1]) * (F[:, 0] - a[0])
    positive = np.sign(side[np.argmax(panel.net.forward(F)[-1][:, 0])])
    predicted = side * positive > 0
    assert np.mean(predicted[p.test] == (p.label[p.test] == 1)) >= 0.97


def test_the_feature_space_view_counts_what_the_plane_views_line_counts(panel, qtbot):
    tick(panel, "x1^2", "x2^2")  # the 2-6-1 network, now of x₁² and x₂²
    settled(qtbot, panel)
    in_plane = panel.readouts()["feature_pieces"]
    assert in_plane > 1
    panel.controls.toggles.space_check.click()
    settled(qtbot, panel)
    assert panel.strip.region_label.text() == f"Linear regions in view: {in_plane} (exact)"
    assert panel.readouts()["feature_pieces"] == in_plane
    assert panel.data_map.outline.loops == in_plane
    # hover: g's affine map in the features, exact on the region there
    panel._on_map_hover((0.4, 0.6))
    assert panel.info_label.text().startswith("At (x₁² = 0.4, x₂² = 0.6), the output on the "
                                              "region here: z = ")
    # a neuron's map: its sentence names the features
    combo = panel.controls.neuron_combo
    combo.setCurrentIndex(combo.findData([1, 0]))
    settled(qtbot, panel)
    assert panel.data_map.picture.text.startswith("Layer 1, neuron 1: ReLU(")
    assert "·x₁² " in panel.data_map.picture.text and "·x₂² " in panel.data_map.picture.text
    # a third feature: the plane again (the choice is kept for when two come back)
    tick(panel, "x1^2", "x2^2", "x1")
    settled(qtbot, panel)
    assert panel.readouts()["feature_space"] is False and panel.state.view.feature_space
    assert not panel.controls.toggles.space_check.isEnabled()
    assert panel.data_map.box == panel.box
    assert "linear pieces in feature space (exact)" in panel.strip.region_label.text()


def test_a_click_in_feature_space_adds_no_point(panel, qtbot):
    tick(panel, "x1", "x1^2")
    panel.controls.toggles.space_check.click()
    settled(qtbot, panel)
    before = len(panel.points)
    lo, hi, lo2, hi2 = panel.data_map.box
    mouse.click(panel.data_map, mouse.data_to_viewport(panel.data_map, (lo + hi) / 2,
                                                       (lo2 + hi2) / 2))
    assert len(panel.points) == before
    assert panel.strip.message_label.text() == NO_ADDING


def test_the_view_choice_in_scenes_and_undo(panel, qtbot):
    old = panel.state_dict()
    assert "feature_space" not in old["view"]  # at its default, written as before
    assert PlaygroundState.from_dict(old).view.feature_space is False
    tick(panel, "x1^2", "x2^2")
    panel.controls.toggles.space_check.click()
    d = panel.state_dict()
    assert d["view"]["feature_space"] is True
    assert PlaygroundState.from_dict(d).view.feature_space is True
    panel.undo_stack.undo()  # the features' edit: the view stays as chosen
    assert panel.state.view.feature_space is True
    assert panel.controls.toggles.space_check.isChecked()
    panel.load_state(d)
    settled(qtbot, panel)
    assert panel.readouts()["feature_space"] is True
    assert panel.controls.toggles.space_check.isChecked()


def test_the_neuron_maps_picture_the_space_the_map_shows(panel, qtbot):
    """Seen: with the map in x₁², x₂², the diagram's maps still pictured each neuron
    over the plane (x₁, x₂). They follow the map: over the feature box, of the
    network's own inputs; over the plane again when the map goes back."""
    from relulab.ui.panels.playground.diagram import neuron_pictures

    diagram = panel.diagram
    panel.controls.thumbnails_check.setChecked(True)
    tick(panel, "x1^2", "x2^2")
    settled(qtbot, panel)

    def shown(pictures):
        for tile, layer in zip(diagram.tiles, pictures):
            for k, values in enumerate(layer):
                drawn = np.swapaxes(tile.image[:, 30 * k:30 * k + 24], 0, 1)
                if not np.array_equal(drawn, diagram._lut[((values + 1) * 127.5).astype(int)]):
                    return False
        return True

    net, features = panel.net, panel.features
    in_plane = neuron_pictures(net, panel.box, features=features)
    assert shown(in_plane)
    panel.controls.toggles.space_check.click()
    settled(qtbot, panel)
    box = feature_box(features, panel.points.x, panel.box)
    assert diagram.space_box == box and panel.data_map.box == box
    in_space = neuron_pictures(panel.net, box)
    assert shown(in_space) and not shown(in_plane)
    # the inputs' maps are the features' own values over their box (x₁² from a little
    # below 0, the box's margin, to its largest), not a ramp from −1 to 1
    from relulab.model.fitting.classify import grid_axes

    xs, ys = grid_axes(box, 24)
    assert np.allclose(in_space[0][0], np.tile(xs / np.abs(xs).max(), (24, 1)))
    assert np.allclose(in_space[0][1], np.tile((ys / np.abs(ys).max())[:, None], (1, 24)))
    panel.controls.toggles.space_check.click()
    settled(qtbot, panel)
    assert diagram.space_box is None and shown(neuron_pictures(panel.net, panel.box,
                                                               features=features))
