"""The Playground's feature inputs (x₁, x₂, x₁², x₂², x₁x₂, sin x₁, sin x₂): the Network
tab's boxes, the first layer and the diagram following them, what is exact and what
is sampled, Send to Deep → shallow, scenes and undo."""

import numpy as np
import pytest
from PySide6.QtWidgets import QApplication

from relulab.model.fitting.classify import grid_layers, logits
from relulab.model.fitting.features import FEATURE_NAMES, FeatureMap
from relulab.model.lessons.playground import PlaygroundState
from relulab.model.regions.activation import count_linear_regions
from relulab.ui.panels.playground import PlaygroundPanel
from relulab.ui.panels.playground.features_view import NOT_SENT, plane_network
from relulab.ui.panels.playground.jobs import feature_box, feature_count, pieces_text


@pytest.fixture
def panel(shown_panel):
    return shown_panel(PlaygroundPanel)


def settled(qtbot, panel):
    qtbot.waitUntil(lambda: not panel.driver.busy, timeout=20_000)
    for w in (panel._regions_worker, panel._picture_worker, panel._plane_worker):
        assert w.wait(20)
    QApplication.processEvents()
    panel.driver.draw_all()
    return panel


def tick(panel, *names):
    """Turn exactly ``names`` on through the boxes, one click each (the new ones first:
    the last input on stays on)."""
    checks = panel.controls.features.checks
    for on in (True, False):
        for n in FEATURE_NAMES:
            if (n in names) == on and checks[n].isChecked() != on:
                checks[n].click()


def test_boxes_list_every_feature_and_start_with_the_point(panel):
    checks = panel.controls.features.checks
    assert [checks[n].text() for n in FEATURE_NAMES] == [
        "x₁", "x₂", "x₁²", "x₂²", "x₁x₂", "sin x₁", "sin x₂"]
    assert panel.controls.features.chosen() == ("x1", "x2")
    assert panel.net.sizes[0] == 2


def test_first_layer_and_diagram_follow_the_features(panel, qtbot):
    tick(panel, "x1", "x2", "x1^2", "x2^2", "sin(x1)")
    assert panel.state.architecture.features == ("x1", "x2", "x1^2", "x2^2", "sin(x1)")
    assert panel.net.sizes[0] == 5 and panel.trainer.X.shape[1] == 5
    settled(qtbot, panel)
    d = panel.diagram
    assert len(d.node_pos) == sum(panel.net.sizes)
    assert [label.toPlainText() for label in d.input_labels] == ["x₁", "x₂", "x₁²", "x₂²", "sin x₁"]
    # the trainer's inputs are the features of the training points
    X, _y = panel.state.training_points()
    assert np.array_equal(panel.trainer.X, FeatureMap(panel.state.architecture.features).apply(X))


def test_the_last_input_stays_on(panel):
    tick(panel, "x1")
    assert panel.net.sizes[0] == 1
    panel.controls.features.checks["x1"].click()
    assert panel.state.architecture.features == ("x1",)
    assert panel.controls.features.checks["x1"].isChecked()
    assert "At least one input" in panel.strip.message_label.text()


def test_nonlinear_features_say_what_is_sampled_and_count_pieces_in_feature_space(panel, qtbot):
    tick(panel, "x1^2", "x2^2")
    settled(qtbot, panel)
    s = panel.strip
    features = FeatureMap(("x1^2", "x2^2"))
    count = feature_count(panel.net, feature_box(features, panel.points.x))
    assert s.region_label.text() == pieces_text(count)
    assert s.region_label.text().endswith(" linear pieces in feature space (exact); the plane's "
                                          "picture is sampled on a 200 × 200 grid.")
    assert panel.readouts()["feature_pieces"] == count.count
    assert s.plane_label.text() == "" and s.decision_label.text() == ""
    assert panel.overlay.polygons == [] and panel.overlay.decisions is None
    # the map is the network of the features, sampled on the grid
    picture = panel.data_map.picture
    z = grid_layers(panel.net, panel.box, 200, features=FeatureMap(("x1^2", "x2^2")))[-1][0]
    p = 1.0 / (1.0 + np.exp(-z))
    assert np.allclose(picture.image, p.T, atol=1e-5)
    # hover: the value there, said to be piecewise linear in the features
    panel._on_map_hover((0.3, -0.2))
    text = panel.info_label.text()
    z0 = logits(panel.net, [[0.3, -0.2]], FeatureMap(("x1^2", "x2^2")))[0]
    assert f"{z0:.3g}" in text and "not in the point" in text


def test_linear_features_keep_the_exact_regions(panel, qtbot):
    tick(panel, "x2")  # one linear input: still piecewise linear in the plane
    settled(qtbot, panel)
    plane = panel.drawn_network(panel.net)
    assert plane.n_in == 2 and np.all(plane.layers[0][0][:, 0] == 0)
    X = np.random.default_rng(1).uniform(-1, 1, (50, 2))
    assert np.array_equal(plane.forward(X)[-1], panel.net.forward(X[:, 1:])[-1])
    assert "feature space" not in panel.strip.region_label.text()
    assert panel.readouts()["feature_pieces"] is None
    assert panel.overlay.regions_for is plane
    assert count_linear_regions(plane) >= 1


def test_send_to_shallow_refused_with_nonlinear_features(panel):
    sent = []
    panel.send_to = lambda *a: sent.append(a) or True
    tick(panel, "x1", "x1*x2")
    assert panel.send_network() is False and not sent
    assert panel.strip.message_label.text() == NOT_SENT
    tick(panel, "x2", "x1")  # linear: sent as the same network of (x₁, x₂)
    assert panel.send_network() is True
    assert sent[-1][2].n_in == 2


def test_features_round_trip_in_scenes_and_undo(panel):
    before = panel.state
    tick(panel, "x1*x2")
    d = panel.state_dict()
    assert d["architecture"]["features"] == ["x1*x2"]
    back = PlaygroundState.from_dict(d)
    assert back.architecture.features == ("x1*x2",) and back.network.sizes[0] == 1
    # a scene from before the features loads with (x₁, x₂)
    del d["architecture"]["features"]
    with pytest.raises(ValueError):
        PlaygroundState.from_dict(d)  # its network takes 1 input, the default 2
    old = before.to_dict()
    assert "features" not in old["architecture"]  # at (x₁, x₂) written as before
    assert PlaygroundState.from_dict(old).architecture.features == ("x1", "x2")
    with pytest.raises(ValueError, match="features"):
        PlaygroundState.from_dict({**old, "architecture": {**old["architecture"],
                                                           "features": ["x3"]}})
    for _ in range(3):  # x₁x₂ on, x₁ off, x₂ off
        panel.undo_stack.undo()
    assert panel.state.architecture.features == before.architecture.features
    assert panel.controls.features.chosen() == ("x1", "x2")


def test_plane_network_is_exact_for_linear_features():
    from relulab.model.networks.mlp import MLP
    net = MLP.random([2, 5, 1], seed=3)
    swapped = plane_network(net, FeatureMap(("x2", "x1")))
    X = np.random.default_rng(0).uniform(-2, 2, (40, 2))
    # the same weights, moved: only the order of two products in a sum can differ
    assert np.allclose(swapped.forward(X)[-1], net.forward(X[:, ::-1])[-1], rtol=1e-14, atol=1e-14)
    assert plane_network(net, FeatureMap(("x1", "x1^2"))) is None
