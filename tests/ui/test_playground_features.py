"""The Playground's classes, activations per layer, hidden space, diagram, replay,
random labels and export, driven through the panel's own controls."""

import json

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QComboBox, QPushButton, QSpinBox

from relulab.io.networks import load_network
from relulab.model.fitting.classify import grid_layers, predict
from relulab.model.lessons.playground import PlaygroundState, same_network
from relulab.model.networks.collapse import collapse_check, local_affine_map
from relulab.model.networks.hidden import hidden_space, separating_map
from relulab.model.networks.mlp import MLP
from relulab.model.regions.decisions import decision_regions
from relulab.testing import mouse
from relulab.ui.panels.playground import PlaygroundPanel


@pytest.fixture
def panel(shown_panel):
    return shown_panel(PlaygroundPanel)


def drawn(panel):
    panel.driver.draw_all()
    return panel


def settled(qtbot, panel):
    qtbot.waitUntil(lambda: not panel.driver.busy, timeout=20_000)
    panel.wait_until_idle() if hasattr(panel, "wait_until_idle") else None
    for w in (panel._regions_worker, panel._picture_worker, panel._plane_worker):
        assert w.wait(20)
    QApplication.processEvents()
    return drawn(panel)


# -- more than two classes ------------------------------------------------------------------

def test_classes_spin_gives_an_output_per_class_and_colours_each(panel, qtbot):
    c = panel.controls
    c.dataset_combo.setCurrentIndex(c.dataset_combo.findData("spirals"))
    c.classes_spin.setValue(3)
    assert panel.net.sizes == [2, 6, 3] and panel.state.classes == 3
    assert set(np.unique(panel.points.label)) == {0.0, 1.0, 2.0}
    assert "3 outputs" in c.output_label.text()
    image = drawn(panel).data_map.heat.image
    assert image.shape == (200, 200, 3) and image.dtype == np.uint8  # class colours
    # each pixel has the colour of its winning class (mixed into the background)
    S = grid_layers(panel.net, panel.box, 200)[-1]
    winner = np.argmax(S, axis=0).T  # [column, row] as the image
    palette = panel._palette
    direction = image.astype(float) - palette[0]
    for k in range(3):
        target = palette[1 + k] - palette[0]
        mask = (winner == k) & (np.abs(direction).sum(axis=2) > 30)
        if mask.any():  # away from the background, the colour points at class k's
            cos = direction[mask] @ target / (np.linalg.norm(direction[mask], axis=1)
                                              * np.linalg.norm(target))
            assert np.median(cos) > 0.99
    # a click adds the chosen class, Shift+click the next one
    c.click_class_combo.setCurrentIndex(2)
    n = len(panel.points)
    mouse.click(panel.data_map, mouse.data_to_viewport(panel.data_map, 0.3, -0.2))
    assert len(panel.points) == n + 1 and panel.points.label[-1] == 2
    mouse.click(panel.data_map, mouse.data_to_viewport(panel.data_map, -0.3, 0.2),
                modifiers=Qt.KeyboardModifier.ShiftModifier)
    assert panel.points.label[-1] == 0  # after class 2 comes class 0
    for _ in range(3):
        panel.undo_stack.undo()
    assert panel.state.classes == 2 and panel.net.sizes == [2, 6, 1]
    assert drawn(panel).data_map.heat.image.ndim == 2  # σ on the diverging table again


def test_two_class_datasets_refuse_more_classes_and_say_so(panel):
    c = panel.controls
    c.dataset_combo.setCurrentIndex(c.dataset_combo.findData("xor"))
    assert not c.classes_spin.isEnabled()
    panel.set_classes(4)
    assert panel.state.classes == 2 and "XOR dataset has two classes" in panel.strip.message_label.text()


def test_exact_decision_boundary_replaces_the_grids_for_relu_and_not_for_tanh(panel, qtbot):
    panel.receive("network", MLP.random([2, 6, 6, 3], seed=4))
    settled(qtbot, panel)
    decisions = decision_regions(panel.net, panel.box)
    x, y = panel.data_map.boundary_item.getData()
    assert len(x) == len(decisions.boundary)
    assert np.allclose(np.c_[x, y], decisions.boundary)
    assert "exact, from each region's affine map" in panel.strip.decision_label.text()
    assert "decision regions" in panel.data_tables()
    panel.set_activation("tanh")
    settled(qtbot, panel)
    x, y = panel.data_map.boundary_item.getData()
    assert np.allclose(np.c_[x, y], panel.data_map.picture.boundary)
    assert "from the 200 × 200 picture" in panel.strip.decision_label.text()


@pytest.mark.parametrize("theme_name", ["light", "dark", "high-contrast"])
def test_class_colours_differ_and_stand_out_in_every_theme(theme, theme_name):
    from relulab.ui.panels.playground.data_map import contrast_ratio, outline_color

    theme.set_name(theme_name)
    bg = theme.color("background")
    colours = [theme.class_color(k) for k in range(6)]
    rgb = np.array([c.getRgb()[:3] for c in colours], float)
    distance = np.linalg.norm(rgb[:, None] - rgb[None], axis=2) + 1e9 * np.eye(6)
    assert distance.min() > 60  # no two classes alike
    for c in colours:
        assert contrast_ratio(c, bg) >= 2.0           # a filled point, outlined as well
        assert contrast_ratio(outline_color(c, bg), bg) >= 3.0  # a hollow test point


# -- an activation per layer ----------------------------------------------------------------

def test_each_layer_takes_its_own_activation(panel, qtbot):
    c = panel.controls
    c.add_layer_button.click()
    c.add_layer_button.click()
    weights = panel.net.layers
    combo = panel.findChild(QComboBox, "playground-layer-2-activation")
    combo.setCurrentIndex(combo.findData("identity"))
    combo.activated.emit(combo.currentIndex())
    assert panel.net.activations == ("relu", "identity", "relu")
    assert all(np.array_equal(a[0], b[0]) for a, b in zip(panel.net.layers, weights))  # same weights
    assert c.activation_combo.currentData() == "mixed"
    text = drawn(panel).strip.collapse_label.text()
    assert "Identity on layer 2" in text and "2-6-6-6-1 computes what 2-6-6-1 computes" in text
    assert ": equal)" in text
    settled(qtbot, panel)
    # W₃W₂ of trained weights is not a double: the regions are counted as built
    assert "identity layer 2 counted as built" in panel.strip.region_label.text()
    assert len(c.activation_curves) >= 2
    assert all(label in c.activation_key.plain_text() for label in ("ReLU", "identity"))
    # the state, a scene file and undo carry it
    back = PlaygroundState.from_dict(json.loads(json.dumps(panel.state_dict())))
    assert back.network.activations == ("relu", "identity", "relu")
    panel.undo_stack.undo()
    assert panel.net.activations == ("relu", "relu", "relu")
    panel.undo_stack.redo()
    combo = panel.findChild(QComboBox, "playground-layer-3-activation")
    combo.setCurrentIndex(combo.findData("tanh"))
    combo.activated.emit(combo.currentIndex())
    assert panel.net.activations == ("relu", "identity", "tanh")
    assert "tanh" in panel.strip.region_label.text()  # no regions for tanh layers
    c.activation_combo.setCurrentIndex(c.activation_combo.findData("gelu"))
    assert panel.net.activation == "gelu" and c.activation_combo.findData("mixed") < 0


def test_scene_files_keep_activations_classes_and_the_start(panel, tmp_path):
    panel.receive("network", MLP.random([2, 5, 4, 3], seed=1, activation=["tanh", "relu"]))
    panel.step_once()
    other = PlaygroundPanel()
    try:
        other.load_state(json.loads(json.dumps(panel.state_dict())))
        assert same_network(other.net, panel.net) and other.state.classes == 3
        assert same_network(other.state.initial, panel.state.initial)
        assert other.net.activations == ("tanh", "relu")
    finally:
        other.shutdown()
        other.deleteLater()


# -- the boundary dataset and random labels -----------------------------------------------------

def test_a_typed_boundary_makes_the_classes_and_a_bad_one_changes_nothing(panel):
    c = panel.controls
    c.dataset_combo.setCurrentIndex(c.dataset_combo.findData("boundary"))
    c.noise_spin.setValue(0.0)
    c.boundary_edit.setText("x^2 - 0.25")
    c.boundary_edit.editingFinished.emit()
    x = panel.points.x
    assert np.array_equal(panel.points.label, (x[:, 1] > x[:, 0] ** 2 - 0.25) * 1.0)
    before = panel.state_dict()
    c.boundary_edit.setText("x^2 -")
    c.boundary_edit.editingFinished.emit()
    assert "ends too early" in panel.strip.message_label.text()
    assert panel.state_dict() == before and c.boundary_edit.text() == "x^2 - 0.25"
    c.boundary_edit.setText("5")
    c.boundary_edit.editingFinished.emit()
    assert "leaves fewer than" in panel.strip.message_label.text()
    assert panel.state_dict() == before


def test_random_labels_train_on_shuffled_labels_and_plot_both_accuracies(panel, qtbot):
    c = panel.controls
    true = panel.trainer.y.copy()
    c.random_labels_check.setChecked(True)
    assert panel.state.dataset.random_labels
    shuffled = panel.trainer.y
    assert not np.array_equal(shuffled, true) and sorted(shuffled) == sorted(true)
    assert np.array_equal(panel.trainer.y_test, panel.points.held_out()[1])  # test keeps its own
    # the points are drawn with the labels training sees
    shown = sum(len(item.data) for (k, test), item in drawn(panel).data_map.point_items.items()
                if not test and k == 1)
    assert shown == int(shuffled.sum())
    for _ in range(5):
        panel.step_once()
    _steps, train = drawn(panel).curves.accuracy_train.getData()
    _, test = panel.curves.accuracy_test.getData()
    assert len(train) == len(test) == 5
    panel.undo_stack.undo()
    assert np.array_equal(panel.trainer.y, true) and not c.random_labels_check.isChecked()


# -- replay ---------------------------------------------------------------------------------

def test_replay_starts_again_from_the_same_weights_and_keeps_the_run_before(panel):
    c = panel.controls
    start = panel.net
    for _ in range(4):
        c.step_button.click()
    trained = panel.net
    assert not same_network(trained, start)
    c.lr_spin.setValue(0.1)
    c.replay_button.click()
    assert same_network(panel.net, start) and panel.trainer.step == 0
    assert panel.trainer.config.learning_rate == 0.1
    prev_steps, _prev_acc = panel.curves.previous_train.getData()
    assert list(prev_steps) == [10, 20, 30, 40] and panel.curves.previous_train.isVisible()
    c.step_button.click()
    assert not same_network(panel.net, trained)  # another rate, another path from one start
    panel.undo_stack.undo()  # the replay is one undo step
    panel.undo_stack.undo()
    assert same_network(panel.net, trained) and panel.trainer.step == 40


# -- the hidden space ---------------------------------------------------------------------------

def test_xor_points_become_separable_in_the_hidden_space(panel, qtbot):
    c = panel.controls
    c.dataset_combo.setCurrentIndex(c.dataset_combo.findData("xor_corners"))
    c.preset_combo.setCurrentIndex(c.preset_combo.findData("2-2-1 (XOR's hidden space)"))
    c.preset_combo.activated.emit(c.preset_combo.currentIndex())
    assert len(panel.points) == 4 and panel.net.sizes == [2, 2, 1]
    panel.side_tabs.setCurrentWidget(panel.hidden_view)
    view = drawn(panel).hidden_view
    assert view.space is not None and view.space.linear
    assert separating_map(view.space.points, panel.points.label) is None  # not yet
    c.press_spin.setValue(500)
    c.step_button.click()
    settled(qtbot, panel)
    space = view.space
    assert np.allclose(space.points, hidden_space(panel.net, panel.points.x, 1, 0, 1).points)
    assert separating_map(space.points, panel.points.label) is not None
    assert "A line separates the training points here." in view.note.text()
    # the line drawn is the output layer's: its logit is 0 at both ends of the segment
    x, y = view.boundary_item.getData()
    assert len(x) == 2
    z = np.c_[x, y] @ space.A[0] + space.c[0]
    assert np.allclose(z, 0, atol=1e-9 * (1 + np.abs(space.c).max()))
    # the points shown are those coordinates
    shown = np.vstack([item.getData() and np.c_[item.getData()] for item in
                       [view.point_items[(k, False)] for k in (0, 1)] if len(item.data)])
    assert sorted(map(tuple, np.round(shown, 9))) == sorted(map(tuple, np.round(space.points, 9)))


def test_the_hidden_space_choice_and_what_it_says_when_no_line_exists(panel, qtbot):
    panel.set_hidden((5, 4))
    panel.side_tabs.setCurrentWidget(panel.hidden_view)
    view = drawn(panel).hidden_view
    assert view.layer_combo.currentData() == 2 and "other 2 neuron(s)" in view.note.text()
    view.layer_combo.setCurrentIndex(view.layer_combo.findData(1))
    view.layer_combo.activated.emit(view.layer_combo.currentIndex())
    assert panel.state.view.hidden_space == (1, 0, 1)
    assert "Later layers" in drawn(panel).hidden_view.note.text()
    assert view.boundary_item.xData is None or not len(view.boundary_item.xData)
    view.y_combo.setCurrentIndex(4)
    view.y_combo.activated.emit(4)
    assert panel.state.view.hidden_space == (1, 0, 4)
    panel.set_hidden((1,))  # no layer of two neurons
    assert "needs a hidden layer of two neurons" in drawn(panel).hidden_view.note.text()


# -- inside the diagram ----------------------------------------------------------------------------

def test_diagram_pictures_edges_and_output_biases(panel):
    diagram = panel.diagram
    net = drawn(panel).net
    assert [lab.toPlainText() for lab in diagram.bias_labels] == [f"b = {net.layers[-1][1][0]:+.3g}"]
    # lines: wider the larger the weight; every drawn line is a weight of its sign
    widths = {key: item.opts["pen"].widthF() for key, item in diagram.edges.items()}
    assert widths[(1, 3)] > widths[(1, 0)] and widths[(-1, 3)] > widths[(-1, 0)]
    drawn_lines = sum(len(item.xData) // 2 for item in diagram.edges.values()
                      if item.xData is not None)
    assert drawn_lines > 0
    # no choice made: the pictures are drawn where they fit (test_playground_neuron_maps)
    assert all(t.isVisible() for t in diagram.tiles) == diagram.maps_fit()
    panel.controls.thumbnails_check.setChecked(False)
    assert panel.state.view.thumbnails is False and not any(t.isVisible() for t in diagram.tiles)
    panel.controls.thumbnails_check.setChecked(True)
    assert panel.state.view.thumbnails and all(t.isVisible() for t in diagram.tiles)
    columns = [t.image for t in diagram.tiles]
    assert [c.shape[1] for c in columns] == [n * 30 - 6 for n in net.sizes]
    # neuron 1 of layer 1 is drawn from its own ReLU map: where it is zero, the zero colour
    from relulab.ui.panels.playground.diagram import neuron_pictures

    pics = neuron_pictures(panel.net, panel.box)
    assert [p.shape for p in pics] == [(2, 24, 24), (6, 24, 24), (1, 24, 24)]
    zero = diagram._lut[128]
    tile = np.swapaxes(columns[1][:, :24], 0, 1)
    assert np.array_equal(tile[pics[1][0] == 0], np.broadcast_to(zero, tile[pics[1][0] == 0].shape))
    # every neuron's picture at its own dot, upright, with a clear gap to the next
    for column, pic in zip(columns, pics):
        for k, values in enumerate(pic):
            tile = np.swapaxes(column[:, 30 * k:30 * k + 24], 0, 1)
            assert np.array_equal(tile, diagram._lut[((values + 1) * 127.5).astype(int)]), k
            assert not column[:, 30 * k + 24:30 * k + 30].any()
    panel.receive("network", MLP.random([2, 4, 3], seed=2))
    drawn(panel)
    assert len(diagram.bias_labels) == 3 and len(diagram.tiles) == 3


def test_hovering_the_map_tells_the_affine_map_of_the_region_there(panel, qtbot):
    net = panel.net
    point = (0.31, -0.42)
    mouse.move(panel.data_map, mouse.data_to_viewport(panel.data_map, *point))
    text = panel.info_label.text()
    assert text.startswith("At (") and "on the region here" in text
    shown = [float(v) for v in text[4:text.index(")")].split(",")]
    pixel = panel.data_map.getPlotItem().getViewBox().viewPixelSize()
    assert abs(shown[0] - point[0]) <= 2 * pixel[0] and abs(shown[1] - point[1]) <= 2 * pixel[1]
    x = np.array(panel._hover_point)
    A, c, exact = local_affine_map(net, x)
    assert exact and f"{abs(A[0, 0]):.3g}" in text and f"{abs(c[0]):.3g}" in text
    # the map is the network near the point
    assert np.isclose(A[0] @ x + c[0], net(x)[0, 0])
    panel.controls.neuron_combo.setCurrentIndex(panel.controls.neuron_combo.findData([1, 2]))
    mouse.move(panel.data_map, mouse.data_to_viewport(panel.data_map, *point))
    assert "layer 1, neuron 3's pre-activation" in panel.info_label.text()
    panel.set_activation("tanh")
    mouse.move(panel.data_map, mouse.data_to_viewport(panel.data_map, *point))
    assert "on the region here" in panel.info_label.text()  # layer 1: affine in x all the same
    panel.controls.neuron_combo.setCurrentIndex(0)
    mouse.move(panel.data_map, mouse.data_to_viewport(panel.data_map, *point))
    assert "tangent" in panel.info_label.text()
    panel.data_map.hovered.emit(None)
    assert "Layer 1, neuron 3" in panel.info_label.text() or "Hover" in panel.info_label.text()


# -- export and Deep → shallow --------------------------------------------------------------------

@pytest.mark.parametrize("suffix", [".json", ".npz", ".onnx"])
def test_the_exported_network_computes_what_the_panel_shows(panel, tmp_path, suffix):
    panel.receive("network", MLP.random([2, 6, 5, 3], seed=3, activation=["relu", "tanh"]))
    for _ in range(3):
        panel.step_once()
    path = tmp_path / f"net{suffix}"
    assert panel.export_network(path)
    assert "Saved the network" in panel.strip.message_label.text()
    back = load_network(path)
    X = np.random.default_rng(0).uniform(-1.25, 1.25, (500, 2))
    if suffix == ".onnx":
        ort = pytest.importorskip("onnxruntime")
        session = ort.InferenceSession(path.read_bytes(), providers=["CPUExecutionProvider"])
        outputs = session.run(None, {"x": X})[0]
        assert np.allclose(outputs, panel.net(X), rtol=1e-13, atol=1e-14)
        assert np.allclose(back(X), panel.net(X), rtol=1e-13, atol=1e-14)
    else:
        assert np.array_equal(back(X), panel.net(X))
        assert back.activations == ("relu", "tanh")
    assert np.array_equal(predict(back, X), predict(panel.net, X))


def test_export_refuses_onnx_for_leaky_relu_and_says_so(panel, tmp_path):
    panel.set_activation("leaky_relu")
    assert not panel.export_network(tmp_path / "net.onnx")
    assert "use JSON or NPZ" in panel.strip.message_label.text()
    assert not (tmp_path / "net.onnx").exists()


def test_send_gives_the_converter_the_same_function_exactly(panel, monkeypatch):
    from tests.test_edges_collapse import exact_outputs

    sent, said = [], []
    monkeypatch.setattr(panel, "send_to", lambda *a: sent.append(a) or True)
    monkeypatch.setattr(panel, "show_status", lambda text, *a: said.append(text))
    panel.receive("network", MLP.random([2, 4, 5, 1], seed=0, activation=["identity", "relu"]))
    assert panel.send_network()
    net = sent[0][2]
    # W₂W₁ rounded in doubles would be another network: the identity layer goes as
    # ReLU pairs, h = ReLU(z) − ReLU(−z), exactly the same function
    assert net.sizes == [2, 8, 5, 1] and net.activation == "relu"
    assert said[-1] == ("Identity layer 1 written as ReLU pairs: the converter gets exactly "
                        "the same function as 2-8-5-1")
    for x in np.random.default_rng(1).normal(size=(5, 2)):
        assert exact_outputs(net, x) == exact_outputs(panel.net, x)
    W = np.array([[1.0, 2.0], [3.0, -1.0]])  # small integers: merged, exactly
    panel.receive("network", MLP([(W, np.zeros(2)), (W, np.ones(2)), (W[:1], np.zeros(1))],
                                 ["identity", "relu"]))
    assert panel.send_network()
    assert sent[1][2].sizes == [2, 2, 1] and sent[1][2].layers[0][0].tolist() == [[7.0, 0.0], [0.0, 7.0]]
    panel.receive("network", MLP.random([2, 4, 3], seed=0, activation="identity"))
    assert not panel.send_network()


def test_the_collapse_readout_names_one_points_difference_and_its_bound(panel):
    import re

    # the first layer's weights and every bias near 1e-310: the products are subnormal,
    # off by up to 2⁻¹⁰⁷⁵ absolutely, which the proven bound must carry (it said
    # "NOT equal" here, beside a bound of 0)
    net = MLP.random([2, 5, 7, 1], seed=3, activation="identity")
    panel.receive("network", MLP([(W * (1e-310 if i == 0 else 1.0), b * 1e-310)
                                  for i, (W, b) in enumerate(net.layers)], "identity"))
    text = drawn(panel).strip.collapse_label.text()
    assert "tightest point" in text and text.endswith(": equal).")
    most, d, b = (float(v) for v in re.findall(r"(\d\.\de[-+]\d+)", text)[-3:])
    err, equal, _words = collapse_check(panel.net, np.vstack(
        [panel.points.x, [[panel.box[0], panel.box[2]], [panel.box[1], panel.box[3]]]]))
    assert equal is True and d <= b and most >= err > 0  # "≤ most": never below the largest


# -- the laptop screen ------------------------------------------------------------------------------

def test_play_step_reset_and_replay_fit_a_1366_by_768_laptop(main_window, qtbot):
    window = main_window
    window.resize(1366, 768)
    window.show_panel("playground")
    qtbot.waitUntil(lambda: window.current_panel().name == "playground", timeout=5000)
    QApplication.processEvents()
    panel = window.current_panel()
    for name in ("playground-play", "playground-step", "playground-reset", "playground-replay"):
        button = panel.findChild(QPushButton, name)
        top_left = button.mapTo(window, button.rect().topLeft())
        bottom = top_left.y() + button.height()
        assert button.isVisible() and top_left.y() >= 0 and bottom <= window.height(), name
    for tab in range(panel.controls.tabs.count()):  # every tab is reachable by a click
        panel.controls.tabs.setCurrentIndex(tab)
        QApplication.processEvents()
        assert panel.controls.tabs.currentWidget().isVisible()
    spin = panel.findChild(QSpinBox, "playground-classes")
    assert spin is not None


# -- at the limits, and hostile input ----------------------------------------------------------

def test_the_largest_settings_with_six_classes_and_pictures(panel, qtbot):
    from dataclasses import replace

    from relulab.model.lessons.playground import MAX_HIDDEN_LAYERS, MAX_POINTS, MAX_WIDTH

    c = panel.controls
    c.points_spin.setValue(2000)
    c.dataset_combo.setCurrentIndex(c.dataset_combo.findData("spirals"))
    c.points_spin.setValue(2000)
    c.classes_spin.setValue(6)  # 6 × 2000 would pass the limit: cut to 666 a class
    assert panel.state.classes == 6 and len(panel.points) == 6 * (MAX_POINTS // 6)
    panel.set_hidden((MAX_WIDTH,) * MAX_HIDDEN_LAYERS)
    c.thumbnails_check.setChecked(True)
    c.play_button.click()
    qtbot.waitUntil(lambda: panel.trainer.step >= 3, timeout=30_000)
    c.play_button.click()
    settled(qtbot, panel)
    assert panel.data_map.heat.image.shape == (200, 200, 3)
    assert len(panel.diagram.tiles) == MAX_HIDDEN_LAYERS + 2
    panel.side_tabs.setCurrentWidget(panel.hidden_view)
    view = drawn(panel).hidden_view
    assert view.space is not None and np.isfinite(view.space.points).all()
    state = PlaygroundState.from_dict(json.loads(json.dumps(panel.state_dict())))
    assert state.classes == 6 and replace(state.view) == panel.state.view


@pytest.mark.parametrize("scale", [1e-12, 1e11])
def test_tiny_and_huge_weights_draw_and_explain_without_errors(panel, qtbot, scale):
    net = MLP.random([2, 5, 4, 3], seed=6)
    (W1, b1), *rest = net.layers
    assert panel.receive("network", MLP([(W1 * scale, b1 * scale), *rest]))  # within 1e12
    settled(qtbot, panel)
    picture = panel.data_map.picture
    assert picture.image.shape == (200, 200, 3)
    x, y = panel.data_map.boundary_item.getData()
    assert x is None or np.isfinite(np.c_[x, y]).all()
    panel.controls.thumbnails_check.setChecked(True)
    assert all(np.isfinite(t.image).all() for t in drawn(panel).diagram.tiles)
    mouse.move(panel.data_map, mouse.data_to_viewport(panel.data_map, 0.2, 0.1))
    assert panel.info_label.text().startswith("At (") and "nan" not in panel.info_label.text()
    panel.side_tabs.setCurrentWidget(panel.hidden_view)
    assert "needs" not in drawn(panel).hidden_view.note.text()


@pytest.mark.parametrize("text", ["(" * 60 + "x" + ")" * 60, "x" * 501, "__import__('os')",
                                  "sqrt(-1 - x^2)", "1/0", "exp(exp(exp(x)))*0 + 9"])
def test_hostile_boundaries_change_nothing(panel, text):
    c = panel.controls
    c.dataset_combo.setCurrentIndex(c.dataset_combo.findData("boundary"))
    before = panel.state_dict()
    panel.set_boundary(text)
    assert panel.state_dict() == before
    assert panel.strip.message_label.text()


def test_a_csv_of_six_classes_gives_six_outputs(panel, tmp_path):
    path = tmp_path / "six.csv"
    rows = ["x1,x2,label,set"] + [f"{np.cos(k):.3f},{np.sin(k):.3f},{k % 6},train" for k in range(30)]
    path.write_text("\n".join(rows) + "\n")
    assert panel.load_points(path)
    assert panel.state.classes == 6 and panel.net.sizes[-1] == 6
    assert panel.controls.click_class_combo.count() == 6
    panel.undo_stack.undo()
    assert panel.state.classes == 2 and panel.net.sizes[-1] == 1


def test_deep_to_shallow_takes_a_three_class_network(main_window, qtbot):
    window = main_window
    window.show_panel("playground")
    panel = window.panel("playground")
    net = MLP.random([2, 5, 4, 3], seed=2, activation=["relu", "identity"])
    assert panel.receive("network", net)
    assert panel.send_network()
    converter = window.panel("converter")
    qtbot.waitUntil(lambda: window.current_panel() is converter, timeout=5000)
    taken = converter.received
    assert taken.sizes == [2, 5, 8, 3] and taken.activation == "relu"  # identity as ReLU pairs
    X = np.random.default_rng(0).normal(size=(40, 2))
    assert np.allclose(taken(X), panel.net(X), rtol=1e-12, atol=1e-12)


def test_the_diagram_names_each_layers_activation_and_a_click_picks_a_neuron(panel):
    panel.set_hidden((4, 3))
    panel.set_layer_activation(2, "tanh")
    diagram = drawn(panel).diagram
    assert [lab.toPlainText() for lab in diagram.layer_labels] == ["input", "ReLU", "tanh", "σ"]
    x, y = diagram.node_pos[2 + 4 + 1]  # layer 2, neuron 2
    mouse.click(diagram.plot, mouse.data_to_viewport(diagram.plot, x, y))
    assert panel.state.view.neuron == (2, 1)
    assert drawn(panel).info_label.text().startswith("Layer 2, neuron 2")
    mouse.click(diagram.plot, mouse.data_to_viewport(diagram.plot, x, y))
    assert panel.state.view.neuron is None
    panel.receive("network", MLP.random([2, 3, 4], seed=0))
    assert drawn(panel).diagram.layer_labels[-1].toPlainText() == "softmax"


def test_a_hovered_neuron_that_an_edit_removes_is_forgotten(panel):
    diagram = drawn(panel).diagram
    x, y = diagram.node_pos[2 + 5]  # layer 1, neuron 6 of 2-6-1
    mouse.move(diagram.plot, mouse.data_to_viewport(diagram.plot, x, y))
    assert panel.shown_neuron() == (1, 5)
    panel.set_hidden((2,))  # the mouse has not moved; neuron 6 is gone (an undo does the same)
    assert drawn(panel).data_map.picture.neuron is None and panel.shown_neuron() is None
    panel.undo_stack.undo()
    assert panel.net.sizes == [2, 6, 1]
