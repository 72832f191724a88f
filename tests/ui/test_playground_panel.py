"""The playground panel under pytest-qt: real clicks, training ticks, undo, state."""

import copy
import threading

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QShortcut
from PySide6.QtWidgets import QApplication, QLabel, QSpinBox, QWidget

from relulab.model.fitting.classify import circles_lesson_run, decision_map
from relulab.model.lessons.playground import PlaygroundState, Points
from relulab.model.networks.collapse import collapse
from relulab.model.networks.mlp import MLP
from relulab.testing import mouse
from relulab.ui.panels.playground import PlaygroundPanel


@pytest.fixture(scope="module", autouse=True)
def _region_engine_loaded():
    """Load the region engine's compiled loops once: until they are, the panel draws
    the overlay from its worker (test_overlay_waits_for_the_engine_in_the_worker)."""
    from relulab.model.regions.arrangement import warm_up

    warm_up()


@pytest.fixture
def panel(shown_panel):
    return shown_panel(PlaygroundPanel)


def n_points(panel):
    return len(panel.points)


def settled(qtbot, panel):
    """Wait until every piece of the last frame is drawn."""
    qtbot.waitUntil(lambda: not panel.driver.busy, timeout=20_000)


def drawn(panel):
    """Draw the pieces of the last frame still queued (a busy machine may have left
    some for the next ticks)."""
    panel.driver.draw_all()
    return panel


def test_initial_picture(panel):
    assert len(panel.points) == 180 and panel.points.test.sum() == 54
    assert panel.controls.param_label.text() == "2-6-1: 25 parameters"
    img = panel.data_map.heat.image
    assert img.shape == (200, 200)
    assert np.allclose(img.T, 1 / (1 + np.exp(-decision_map(panel.net))), atol=1e-6)
    assert panel.data_map.point_count(test=False) == 126
    assert panel.data_map.point_count(test=True) == 54


def test_click_adds_shift_click_other_class_right_click_removes(panel, qtbot):
    before = n_points(panel)
    pos = mouse.data_to_viewport(panel.data_map, 0.3, -0.2)
    mouse.click(panel.data_map, pos)
    assert n_points(panel) == before + 1
    p = panel.points
    assert p.x[-1] == pytest.approx([0.3, -0.2], abs=0.02)
    assert p.label[-1] == 0 and not p.test[-1]

    pos2 = mouse.data_to_viewport(panel.data_map, -0.9, 0.9)
    mouse.click(panel.data_map, pos2, modifiers=Qt.KeyboardModifier.ShiftModifier)
    assert n_points(panel) == before + 2 and panel.points.label[-1] == 1
    assert len(panel.trainer.y) == 126 + 2  # new points train

    mouse.click(panel.data_map, pos2, button=mouse.RIGHT)
    assert n_points(panel) == before + 1
    panel.undo_stack.undo()
    assert n_points(panel) == before + 2
    panel.undo_stack.undo()
    panel.undo_stack.undo()
    assert n_points(panel) == before
    panel.undo_stack.redo()
    assert n_points(panel) == before + 1


def test_right_click_far_from_points_removes_nothing(panel):
    before = n_points(panel)
    mouse.click(panel.data_map, mouse.data_to_viewport(panel.data_map, 1.2, 1.2), button=mouse.RIGHT)
    assert n_points(panel) == before


def test_play_pause_step_reset(panel, qtbot):
    c = panel.controls
    c.step_button.click()
    assert panel.trainer.step == 10
    s, _v = drawn(panel).curves.loss_train.getData()
    assert list(s) == [10.0]
    c.play_button.click()
    assert panel.is_playing() and c.play_button.text() == "Pause"
    qtbot.waitUntil(lambda: len(panel.history) >= 6, timeout=10_000)
    c.play_button.click()
    assert not panel.is_playing() and c.play_button.text() == "Play"
    settled(qtbot, panel)
    s, acc = panel.curves.accuracy_train.getData()
    assert len(s) >= 6 and s[-1] == panel.trainer.step
    _, test_acc = panel.curves.accuracy_test.getData()
    assert len(test_acc) == len(acc)
    first = panel.net.layers[0][0].copy()
    c.reset_button.click()
    assert panel.trainer.step == 0 and not len(panel.history)
    assert not np.array_equal(first, panel.net.layers[0][0])
    assert np.array_equal(panel.net.layers[0][0], MLP.random([2, 6, 1], seed=0).layers[0][0])


def test_training_settings_reach_the_trainer(panel):
    c = panel.controls
    c.optimizer_combo.setCurrentIndex(c.optimizer_combo.findData("gd"))
    c.lr_spin.setValue(0.25)
    c.loss_combo.setCurrentIndex(c.loss_combo.findData("squared"))
    c.batch_spin.setValue(32)
    c.speed_combo.setCurrentText("10 steps/s")
    config = panel.trainer.config
    assert (config.optimizer, config.learning_rate, config.loss, config.batch_size) == (
        "gd", 0.25, "squared", 32)
    assert panel.driver.speed == 10 and panel.state.training.speed == "10 steps/s"
    panel.step_once()
    assert panel.trainer.step == 10


def test_divergence_stops_and_says_so(panel, qtbot):
    state = panel.state_dict()
    state["architecture"].update(hidden=[8, 8], activation="identity")
    state["network"] = {"activation": "identity", "layers": [
        {"W": W.tolist(), "b": b.tolist()}
        for W, b in MLP.random([2, 8, 8, 1], seed=0, activation="identity").layers]}
    del state["initial"]  # a hand-edited file: the run starts from its network
    state["training"].update(optimizer="gd", learning_rate=1000.0, speed="as fast as possible")
    panel.load_state(state)
    panel.controls.play_button.click()
    qtbot.waitUntil(lambda: not panel.is_playing(), timeout=10_000)
    assert "diverged" in panel.strip.message_label.text()
    assert panel.trainer.diverged and panel.net.is_finite()
    panel.controls.play_button.click()  # refuses to run a diverged trainer
    assert not panel.is_playing() and panel.controls.play_button.text() == "Play"


def test_architecture_editor_presets_and_undo(panel):
    c = panel.controls
    c.add_layer_button.click()
    assert panel.state_dict()["architecture"]["hidden"] == [6, 6]
    assert c.param_label.text() == "2-6-6-1: 67 parameters"
    spin = panel.findChild(QSpinBox, "playground-layer-2-width")
    spin.setValue(3)
    assert panel.net.sizes == [2, 6, 3, 1]
    c.preset_combo.setCurrentIndex(c.preset_combo.findData("2-8-8-8-1 (177 parameters)"))
    c.preset_combo.activated.emit(c.preset_combo.currentIndex())
    assert panel.net.sizes == [2, 8, 8, 8, 1] and panel.net.n_params == 177
    assert "177 parameters" in c.param_label.text()
    c.remove_layer_button.click()
    assert panel.net.sizes == [2, 8, 8, 1]
    for _ in range(4):
        panel.undo_stack.undo()
    assert panel.net.sizes == [2, 6, 1]
    assert len(c.layer_spins) == 1


def test_activation_plot_and_identity_collapse(panel):
    combo = panel.controls.activation_combo
    combo.setCurrentIndex(combo.findData("sigmoid"))
    _z, d = panel.controls.dphi_curve.getData()
    assert d.max() == pytest.approx(0.25)
    combo.setCurrentIndex(combo.findData("relu"))
    _, d = panel.controls.dphi_curve.getData()
    assert set(np.unique(d)) == {0.0, 1.0}
    combo.setCurrentIndex(combo.findData("identity"))
    assert panel.net.activation == "identity"
    text = drawn(panel).strip.collapse_label.text()
    A, c = collapse(panel.net)
    assert "collapse into one" in text and ": equal)" in text
    assert f"{A[0, 0]:.3g}" in text.replace("−", "-")
    # the boundary is the straight line A x + c = 0
    xy = np.array(panel.data_map.boundary_item.getData()).T
    if len(xy):
        assert np.abs(xy @ A[0] + c[0]).max() < 1e-5
    drawn(panel).step_once()
    assert ": equal)" in drawn(panel).strip.collapse_label.text()  # checked again after training


def test_hover_a_neuron_shows_its_map(panel, qtbot):
    net = panel.net
    k = 2  # layer 1, neuron 3
    plot, label = panel.diagram.plot, panel.info_label
    x, y = drawn(panel).diagram.node_pos[net.sizes[0] + k]
    mouse.move(plot, mouse.data_to_viewport(plot, x, y))
    qtbot.waitUntil(lambda: label.text().startswith("Layer 1, neuron 3"), timeout=3000)
    W, b = net.layers[0]
    from relulab.model.fitting.classify import grid_axes

    xs, ys = grid_axes(panel.box, 200)
    expected = np.maximum(W[k, 0] * xs[None, :] + W[k, 1] * ys[:, None] + b[k], 0)
    assert np.allclose(panel.data_map.heat.image.T, expected, atol=1e-5)
    mouse.move(plot, mouse.data_to_viewport(plot, -0.35, 2.9))
    qtbot.waitUntil(lambda: label.text().startswith("Hover"), timeout=3000)


def test_neuron_list_and_identity_neuron_map(panel):
    panel.set_activation("identity")
    combo = panel.controls.neuron_combo
    combo.setCurrentIndex(combo.findData([1, 0]))
    assert "exactly" in panel.info_label.text()
    assert panel.state.view.neuron == (1, 0)


def test_data_controls_regenerate_and_datasets(panel):
    c = panel.controls
    X0 = panel.points.x
    c.regenerate_button.click()
    assert c.data_seed_spin.value() == 1
    assert not np.array_equal(X0, panel.points.x)
    c.dataset_combo.setCurrentIndex(c.dataset_combo.findData("xor"))
    assert len(panel.points) == 200 and c.noise_spin.value() == pytest.approx(0.05)
    c.test_spin.setValue(0.5)
    assert panel.points.test.sum() == 100
    panel.undo_stack.undo()
    panel.undo_stack.undo()
    panel.undo_stack.undo()
    assert np.array_equal(X0, panel.points.x)


def test_csv_round_trip_and_bad_file(panel, tmp_path):
    path = tmp_path / "pts.csv"
    assert panel.save_points(path)
    panel.regenerate()
    assert panel.load_points(path)
    assert len(panel.points) == 180 and panel.points.test.sum() == 54
    bad = tmp_path / "bad.csv"
    bad.write_text("x1,x2,label\n0,0,1\n0,0,7\n")
    before = panel.points
    assert not panel.load_points(bad)
    assert "line 3" in panel.controls.data_error.text()
    assert panel.points == before


def test_state_round_trip_and_bad_state_changes_nothing(panel, qtbot):
    panel.step_once()
    state = panel.state_dict()
    other = PlaygroundPanel()
    qtbot.addWidget(other)
    other.load_state(state)
    assert other.state_dict() == state
    assert np.array_equal(other.data_map.heat.image, panel.data_map.heat.image)
    other.shutdown()
    for mutate, field in (
        (lambda s: s["points"].update(label=[3] * len(s["points"]["label"])), "points.label"),
        (lambda s: s["architecture"].update(hidden=[2, 0]), "architecture.hidden"),
        (lambda s: s["training"].update(learning_rate=-1), "training"),
        (lambda s: s["dataset"].update(name="moons"), "dataset.name"),
        (lambda s: s.pop("network"), "network"),
        (lambda s: s["architecture"].update(hidden=[7]), "network"),
    ):
        bad = copy.deepcopy(state)
        mutate(bad)
        with pytest.raises(ValueError, match=field.replace(".", r"\.")):
            panel.load_state(bad)
        assert panel.state_dict() == state


def test_lesson_setup_reproduces_the_circles_lesson(panel):
    panel.controls.lesson_button.click()
    assert panel.trainer.config.optimizer == "gd" and panel.trainer.config.learning_rate == 0.5
    panel.controls.press_spin.setValue(500)
    for _ in range(5):
        panel.step_once()
    assert panel.trainer.step == 2000
    assert panel.trainer.snapshot().train_accuracy == circles_lesson_run(0, 6).train_accuracy == 1.0
    status = drawn(panel).strip.status_label.text()
    assert "Step 2000" in status and "100.0 %" in status


def test_send_and_receive_networks(panel, monkeypatch):
    sent = []
    monkeypatch.setattr(panel, "send_to", lambda *a: sent.append(a) or True)
    panel.controls.send_button.click()
    assert sent and sent[0][:2] == ("converter", "network") and sent[0][2] is panel.net
    assert sent[0][2] is panel.trainer.snapshot().net
    net = MLP.random([2, 5, 4, 1], seed=3)
    assert panel.receive("network", net)
    assert panel.net.sizes == [2, 5, 4, 1]
    assert np.array_equal(panel.net.layers[1][0], net.layers[1][0])
    assert not panel.receive("network", MLP.random([3, 4, 1]))
    assert not panel.receive("hinges", {})
    panel.set_activation("tanh")
    sent.clear()
    assert not panel.send_network() and not sent


def test_shortcuts_are_scoped_and_work(panel, qtbot):
    shortcuts = panel.findChildren(QShortcut)
    assert len(shortcuts) >= 4
    assert all(s.context() == Qt.ShortcutContext.WidgetWithChildrenShortcut for s in shortcuts)
    step = next(s for s in shortcuts if s.objectName() == "playground-shortcut-step")
    step.activated.emit()
    assert panel.trainer.step == 10


def test_animation_frames_restore_the_panel(panel):
    state = panel.state_dict()
    frames = 0
    for _ in panel.animation_frames(5):
        frames += 1
    assert frames == 5
    assert panel.state_dict() == state


def test_theme_and_zoom_restyle(panel, theme):
    theme.set_zoom(1.6)
    theme.set_name("dark")
    assert panel.data_map.heat.image is not None
    theme.set_name("light")
    theme.set_zoom(1.0)


def test_tables_and_plots(panel):
    panel.step_once()
    tables = panel.data_tables()
    headers, rows = tables["points"]
    assert headers == ["x1", "x2", "label", "set"] and len(rows) == 180
    assert len(tables["training"][1]) == 1
    assert next(iter(panel.plots())) == "map"


def test_overlay_waits_for_the_engine_in_the_worker(panel, qtbot, monkeypatch):
    """Before the region engine's compiled loops are loaded (a minute on the very first
    run) the GUI thread never enumerates: the overlay comes from the worker."""
    from relulab.model.regions.activation import region_polygons
    from relulab.ui.panels.playground import overlay as module

    monkeypatch.setattr(module, "engine_ready", lambda n_in=None: False)
    net = MLP.random([2, 5, 5, 1], seed=8)
    panel.receive("network", net)
    assert panel.strip.region_label.text() == ("Linear regions: preparing the exact region "
                                                  "engine (first use only)…")
    drawn(panel)
    expected = len(region_polygons(net, panel.box))
    qtbot.waitUntil(lambda: panel.strip.region_label.text()
                    == f"Linear regions in view: {expected} (exact)", timeout=20_000)


def test_region_overlay_count_equals_the_converters(panel, qtbot):
    from relulab.model.regions.activation import linear_regions, region_polygons

    labels = panel.strip
    panel.receive("network", MLP.random([2, 8, 8, 8, 1], seed=4))
    expected = region_polygons(panel.net, panel.box)
    assert labels.region_label.text() == f"Linear regions in view: {len(expected)} (exact)"
    assert panel.data_map.outline.loops == len(expected)
    assert not panel.data_map.region_item.path().isEmpty()
    whole = len(linear_regions(panel.net))
    qtbot.waitUntil(lambda: labels.plane_label.text()
                    == f"In the whole plane: {whole} regions (exact).", timeout=20_000)
    assert whole >= len(expected)
    panel.controls.regions_check.setChecked(False)
    assert labels.plane_label.text() == ""
    assert panel.data_map.outline.loops == 0 and panel.data_map.region_item.path().isEmpty()
    panel.controls.regions_check.setChecked(True)
    panel.set_activation("tanh")
    assert "ReLU" in labels.region_label.text()


def test_regions_against_depth_counts_exactly(panel, qtbot):
    from relulab.model.regions.activation import region_polygons

    study = panel.depth_study
    study.budget.setValue(30)
    study.seeds.setValue(2)
    study.button.click()
    qtbot.waitUntil(lambda: not panel.depth_running(), timeout=30_000)
    samples = panel.state.depth.samples
    assert [s.depth for s in samples] == [1, 1, 2, 2, 3, 3, 4, 4]
    for s in samples:
        net = MLP.random(list(s.sizes), seed=s.seed + 1000 * s.depth)
        assert s.regions == len(region_polygons(net, panel.box))
    x, _ = study.mean.getData()
    assert list(x) == [1, 2, 3, 4]
    assert panel.state_dict()["depth"]["budget"] == 30  # the study is saved with the scene


def test_closing_mid_work_leaves_no_thread(qtbot, theme):
    """Close the panel while it trains a large network, counts its regions, pictures it
    and runs the depth study: every worker thread has ended when shutdown returns."""
    before = set(threading.enumerate())
    p = PlaygroundPanel()
    qtbot.addWidget(p)
    p.show()
    p.receive("network", MLP.random([2, 32, 32, 32, 1], seed=0))
    p.depth_study.budget.setValue(400)
    p.run_depth_experiment()
    p.controls.play_button.click()
    qtbot.waitUntil(lambda: p.trainer.step > 0, timeout=20_000)
    busy = [w for w in (p._picture_worker, p._regions_worker, p.depth_study.worker) if w.busy]
    assert busy  # closed mid-work, not after it
    assert any(t.name.startswith("relulab-playground") for t in threading.enumerate())
    p.shutdown()
    assert not p.depth_running() and not p.is_playing()
    assert not any(t.name.startswith("relulab-playground") for t in threading.enumerate())
    assert set(threading.enumerate()) <= before


def test_overlay_follows_training_in_a_worker_and_is_exact_after_pause(panel, qtbot):
    from relulab.model.regions.activation import region_polygons

    label = panel.strip.region_label
    panel.receive("network", MLP.random([2, 8, 8, 8, 1], seed=1))
    first = panel.net
    panel.controls.play_button.click()
    qtbot.waitUntil(lambda: panel.trainer.step > 0 and panel.net is not first, timeout=20_000)
    assert panel.is_playing()
    # How soon the worker answers depends on the machine; what an answer for an older
    # network of the same shape shows does not: it is drawn, marked with its step.
    from relulab.model.regions.decisions import decision_regions
    from relulab.ui.panels.playground.data_map import polygon_outline

    older = decision_regions(first, panel.box)
    panel._on_regions((first, 0, older, polygon_outline(older.regions)))
    assert label.text() == f"Linear regions in view: {len(older.regions)} (exact, step 0)"
    panel.controls.play_button.click()
    expected = region_polygons(panel.net, panel.box)
    assert label.text() == f"Linear regions in view: {len(expected)} (exact)"
    qtbot.waitUntil(lambda: not panel._regions_worker.busy, timeout=10_000)
    QApplication.processEvents()
    assert label.text() == f"Linear regions in view: {len(expected)} (exact)"


def test_big_network_overlay_and_picture_arrive_from_workers(panel, qtbot):
    from relulab.model.regions.activation import region_polygons

    net = MLP.random([2, 21, 21, 1], seed=2)
    panel.receive("network", net)
    expected = len(region_polygons(panel.net, panel.box))
    qtbot.waitUntil(lambda: panel.strip.region_label.text()
                    == f"Linear regions in view: {expected} (exact)", timeout=20_000)
    assert panel.data_map.outline.loops == expected
    qtbot.waitUntil(lambda: panel.data_map.picture.net is panel.net, timeout=20_000)
    assert np.allclose(panel.data_map.heat.image.T, 1 / (1 + np.exp(-decision_map(panel.net))),
                       atol=1e-5)


def test_empty_data_and_no_hidden_layer(panel):
    state = panel.state_dict()
    state["points"] = {"x": [], "label": [], "test": []}
    state["architecture"]["hidden"] = []
    state["network"] = {"activation": "relu", "layers": [{"W": [[1.0, -1.0]], "b": [0.5]}]}
    del state["initial"]
    panel.load_state(state)
    panel.step_once()
    assert panel.trainer.step == 0 and "—" in drawn(panel).strip.status_label.text()
    assert "1 (no ReLU layer" in panel.strip.region_label.text()
    mouse.click(panel.data_map, mouse.data_to_viewport(panel.data_map, 0.1, 0.1))
    assert n_points(panel) == 1
    panel.step_once()
    assert panel.trainer.step == 10


def test_every_control_has_an_object_and_accessible_name(panel):
    import pyqtgraph as pg
    from PySide6.QtWidgets import QAbstractButton, QAbstractSpinBox, QComboBox

    widgets = [w for cls in (QAbstractButton, QAbstractSpinBox, QComboBox, pg.PlotWidget)
               for w in panel.findChildren(cls)]
    widgets = [w for w in widgets if not w.objectName().startswith("qt_")
               and w.parent() is not None and "QTabBar" not in type(w.parent()).__name__]
    assert len(widgets) > 30
    for w in widgets:
        assert w.objectName().startswith("playground-"), (type(w).__name__, w.objectName())
        assert w.accessibleName(), w.objectName()
    for name in ("status", "region-count", "collapse", "param-count", "neuron-info", "message",
                 "data-error", "depth-status"):
        assert panel.findChild(QLabel, f"playground-{name}") is not None
    assert panel.findChild(QWidget, "playground-controls") is not None
    panel.set_lecture_layout(True)
    assert not panel.findChild(QWidget, "playground-controls").isVisible()
    assert panel.strip.status_label.isVisible() and panel.data_map.isVisible()


def test_undo_keeps_the_current_training_settings(panel):
    panel.add_point(0.1, 0.1, 1)
    panel.controls.lr_spin.setValue(0.2)
    panel.undo_stack.undo()
    assert panel.trainer.config.learning_rate == 0.2 and panel.controls.lr_spin.value() == 0.2
    panel.controls.lesson_button.click()
    assert panel.trainer.config.learning_rate == 0.5
    panel.undo_stack.undo()  # the lesson set-up set the rate; its undo restores it
    assert panel.trainer.config.learning_rate == 0.2


def test_pictures_of_a_large_network_keep_arriving_while_it_trains(panel, qtbot):
    """The picture of a large network comes from a worker; while training, a request
    made while one is in the making waits for it, so pictures arrive (a request per
    frame would drop each picture before it is done)."""
    panel.receive("network", MLP.random([2, 24, 24, 24, 1], seed=0, activation="gelu"))
    first = panel.net
    panel.controls.play_button.click()
    qtbot.waitUntil(lambda: panel.data_map.picture is not None
                    and panel.data_map.picture.net is not first
                    and panel.data_map.picture.net.layers[0][0] is not first.layers[0][0],
                    timeout=30_000)
    shown = panel.data_map.picture.net
    qtbot.waitUntil(lambda: panel.data_map.picture.net is not shown, timeout=30_000)
    panel.controls.play_button.click()
    settled(qtbot, panel)
    qtbot.waitUntil(lambda: panel.data_map.picture.net is panel.net, timeout=30_000)


@pytest.mark.parametrize("activation", ["relu", "identity", "gelu", "sigmoid", "tanh", "leaky_relu"])
@pytest.mark.parametrize("scale", [1e-300, 1e-12, 1e6, 1e12])
def test_tiny_and_huge_weights_draw_train_and_say_so(panel, activation, scale):
    """Weights from 1e-300 to the largest the playground takes: the picture is finite,
    training stops with a message if it must, nothing warns (warnings are errors here)."""
    net = MLP([(np.array([[scale, -scale], [scale, scale]]), [scale, 0.0]),
               (np.array([[scale, -scale], [1.0, 2.0]]), [0.0, 1.0]),
               (np.array([[scale, -scale]]), [0.0])], activation)
    assert panel.receive("network", net)
    panel.step_once()
    panel.controls.neuron_combo.setCurrentIndex(2)
    drawn(panel)
    assert np.isfinite(panel.data_map.heat.image).all()
    assert panel.net.is_finite()
    if panel.trainer.diverged:
        assert "diverged" in panel.strip.message_label.text()
    assert not panel.receive("network", MLP([([[1e300, 0.0]], [0.0])]))
    assert "weights up to" in panel.strip.message_label.text()


def test_points_far_away_and_close_together_train(panel):
    """Points 1e10 away from the view, or spread over 1e-12: training runs or stops
    saying why; the state stays loadable."""
    for shift, scale in ((1e10, 1.0), (0.0, 1e-12), (0.0, 1e6)):
        x = np.random.default_rng(0).uniform(-1, 1, (200, 2)) * scale + shift
        s = panel.state.with_points(Points(x, (x[:, 0] > shift).astype(float), np.zeros(200, bool)))
        panel.load_state(s.to_dict())
        for _ in range(3):
            panel.step_once()
        drawn(panel)
        assert panel.net.is_finite()
        assert PlaygroundState.from_dict(panel.state_dict()) == panel.state


def test_a_csv_of_more_points_than_the_panel_trains_is_refused_whole(panel, tmp_path):
    from relulab.io.points import save_points_csv
    from relulab.model.lessons.playground import MAX_POINTS

    x = np.random.default_rng(1).uniform(-1, 1, (MAX_POINTS + 1, 2))
    path = tmp_path / "many.csv"
    save_points_csv(path, x, (x[:, 0] > 0).astype(float))
    before = panel.points
    assert not panel.load_points(path)
    assert f"at most {MAX_POINTS:,} points" in panel.controls.data_error.text()
    assert panel.points == before


def test_undo_leaves_a_running_depth_study_alone(panel, qtbot):
    study = panel.depth_study
    study.budget.setValue(30)
    study.seeds.setValue(3)
    panel.add_point(0.2, 0.2, 0)
    study.button.click()
    panel.undo_stack.undo()
    assert study.budget.value() == 30
    qtbot.waitUntil(lambda: not panel.depth_running(), timeout=30_000)
    assert len(panel.state.depth.samples) == 12 and "Mean regions" in study.status.text()
    panel.undo_stack.redo()
    assert len(panel.state.depth.samples) == 12
