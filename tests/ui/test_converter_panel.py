"""The Deep → shallow panel: sources, the 1-D and 2-D views, clicking a region,
export, undo, state, and every bad input shown next to the controls."""

import json

import numpy as np
import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent
from PySide6.QtWidgets import QApplication

from relulab.io.networks import load_network, save_network
from relulab.model.networks.mlp import MLP, compose
from relulab.testing import mouse
from relulab.ui.panels.converter import ConverterPanel

TENT = MLP([([[1.0], [1.0]], [0, -0.5]), ([[2.0, -4.0]], [0])])


def _wait(qtbot, panel):
    qtbot.waitUntil(lambda: not panel.busy, timeout=30000)


@pytest.fixture
def panel(qtbot, theme):
    p = ConverterPanel()
    qtbot.addWidget(p)
    p.resize(1200, 760)
    p.show()
    _wait(qtbot, p)
    yield p
    p.shutdown()


def _set_architecture(qtbot, panel, text):
    panel.arch_edit.setText(text)
    qtbot.keyClick(panel.arch_edit, Qt.Key.Key_Return)
    _wait(qtbot, panel)


def test_default_is_a_2d_region_map(panel):
    conv = panel.result.conversion
    assert panel.net.sizes == [2, 8, 8, 1]
    assert conv.p == len(conv.regions) > 10
    # every region drawn: one closed outline each, in the paths of its colour
    drawn = sum(sum(gi.path().elementAt(i).isMoveTo() for i in range(gi.path().elementCount()))
                for gi in panel._region_items)
    assert drawn == len(panel.result.polygons) > 10
    assert len(panel._region_items) <= 6  # a path per colour, not an item per region
    assert panel.verdict.text().startswith("Equal")
    widths = "-".join(map(str, conv.shallow_widths))
    sizes = panel.sizes_label.shown_text
    assert widths in sizes and f"= {conv.bound}" in sizes
    assert list(panel.plots()) == ["regions"]
    assert len(panel.data_tables()["regions"][1]) == conv.p


def test_1d_curves_kinks_and_verdict(qtbot, panel):
    _set_architecture(qtbot, panel, "1-8-8-1")
    res = panel.result
    x, deep = panel.deep_curve.getData()
    _, shallow = panel.shallow_curve.getData()
    assert np.allclose(deep, shallow, atol=1e-9)
    assert np.allclose(deep, panel.net(x), atol=1e-12)
    K = len(res.conversion.one_d.kinks)
    table = panel.kink_table.model()
    assert table.rowCount() == K
    assert float(table.index(0, 1).data()) == pytest.approx(res.conversion.one_d.kinks[0], rel=1e-4)
    assert "end slopes agree" in panel.verdict.text() and panel.verdict.text().startswith("Equal")
    _, diff = panel.diff_curve.getData()
    assert np.abs(diff).max() < 1e-9
    assert list(panel.plots()) == ["functions", "difference"]


def test_architecture_change_is_one_undo_step(qtbot, panel):
    _set_architecture(qtbot, panel, "2-4-4-1")
    assert panel.net.sizes == [2, 4, 4, 1]
    panel.undo_stack.undo()
    _wait(qtbot, panel)
    assert panel.net.sizes == [2, 8, 8, 1] and panel.arch_edit.text() == "2-8-8-1"
    panel.undo_stack.redo()
    _wait(qtbot, panel)
    assert panel.net.sizes == [2, 4, 4, 1]


@pytest.mark.parametrize(("text", "needle"), [("2-x-1", "whole numbers"), ("2-1", "at least one hidden"),
                                          ("5-4-11", "11 outputs: up to 10 on a slice"),
                                          ("2-40-40-1", "hidden neurons"),
                                          ("784-3000-3000-10", "up to 4096 for a network looked at"),
                                          ("2-0-1", "at least one neuron")])
def test_bad_architecture_keeps_the_network(qtbot, panel, text, needle):
    before = panel.net
    panel.arch_edit.setText(text)
    qtbot.keyClick(panel.arch_edit, Qt.Key.Key_Return)
    assert needle in panel.message.text()
    assert panel.net is before and not panel.busy and panel.undo_stack.count() == 0


def test_new_random_network_by_shortcut(qtbot, panel):
    seed = panel.seed
    panel.arch_edit.setFocus()
    qtbot.keyClick(panel.main_plot, Qt.Key.Key_N)
    _wait(qtbot, panel)
    assert panel.seed == seed + 1 and panel.seed_spin.value() == seed + 1


def test_received_network_and_tent(qtbot, panel):
    net = MLP.random([1, 6, 1], seed=3)
    assert panel.receive("network", net)
    _wait(qtbot, panel)
    assert panel.source == "received" and panel.net is net
    assert panel.source_box.currentData() == "received"
    tent4 = compose(compose(compose(TENT, TENT), TENT), TENT)
    assert panel.receive("tent", {"network": tent4, "depth": 4})
    _wait(qtbot, panel)
    assert len(panel.result.conversion.one_d.kinks) == 17
    assert panel.result.conversion.one_d.width == 17 and panel.tent_spin.value() == 4


def test_received_bad_networks_are_refused(qtbot, panel):
    before = panel.net
    assert not panel.receive("network", MLP.random([2, 3, 1], seed=0).with_activation("tanh"))
    assert "ReLU" in panel.message.text()
    assert not panel.receive("network", MLP([([[1.0, 2.0]], [0.0])]))
    assert "no hidden layer" in panel.message.text()
    assert not panel.receive("hinges", {})
    assert panel.net is before


def test_click_a_region_shows_its_map_and_constraints(qtbot, panel):
    vp = mouse.data_to_viewport(panel.main_plot, 0.3, 0.2)
    mouse.click(panel.main_plot, vp)
    idx = panel.selected_region
    assert idx >= 0
    region = panel.result.conversion.regions[idx]
    assert np.array_equal(panel.net.activation_patterns(np.array([[0.3, 0.2]]))[0], region.pattern)
    text = panel.region_info.text()
    assert f"Region {idx + 1} of" in text and "f(x) =" in text and "stored constraint" in text


def test_export_formats(qtbot, panel, tmp_path):
    assert panel.export_shallow(tmp_path / "s.json")
    shallow = load_network(tmp_path / "s.json")
    X = np.random.default_rng(0).normal(size=(300, 2))
    assert np.allclose(shallow(X), panel.net(X), atol=1e-9)
    assert panel.export_shallow(tmp_path / "s.npz")
    assert not panel.export_shallow(tmp_path / "s.onnx")
    assert "ONNX cannot hold infinite weights" in panel.message.text()
    assert not (tmp_path / "s.onnx").exists()


def test_1d_export_to_onnx_runs_in_onnxruntime(qtbot, panel, tmp_path):
    ort = pytest.importorskip("onnxruntime")
    _set_architecture(qtbot, panel, "1-6-6-1")
    assert panel.export_shallow(tmp_path / "s.onnx")
    sess = ort.InferenceSession(str(tmp_path / "s.onnx"), providers=["CPUExecutionProvider"])
    x = np.linspace(-4, 4, 81)[:, None]
    assert np.allclose(sess.run(None, {"x": x})[0][:, 0], panel.net(x[:, 0]), atol=1e-9)


def _bad_files(tmp_path):
    good = tmp_path / "good.json"
    save_network(MLP.random([2, 3, 1], seed=0), good)
    onnx = pytest.importorskip("onnx")
    from onnx import helper, numpy_helper

    graph = helper.make_graph(
        [helper.make_node("Gemm", ["x", "B"], ["z"], transB=1, name="fc"),
         helper.make_node("Softplus", ["z"], ["y"], name="squash")], "g",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, ["N", 2])],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, ["N", 1])],
        initializer=[numpy_helper.from_array(np.ones((1, 2), np.float32), "B")])
    files = {
        "empty.json": (b"", "empty"),
        "trunc.json": (good.read_bytes()[:30], "truncated"),
        "nan.json": (b'{"layers": [{"weights": [[NaN, 1]], "biases": [0]}, '
                     b'{"weights": [[1]], "biases": [0]}]}', "NaN"),
        "shape.json": (json.dumps({"layers": [{"weights": [[1, 2]], "biases": [0]},
                                              {"weights": [[1, 2]], "biases": [0]}]}).encode(),
                       "columns"),
        "types.json": (json.dumps({"layers": [{"weights": [["a"]], "biases": [0]}]}).encode(),
                       "not a number"),
        "disguised.npz": (good.read_bytes(), "not a NPZ file"),
        "softplus.onnx": (helper.make_model(graph).SerializeToString(), "Softplus"),
        "net.txt": (good.read_bytes(), "unknown file type"),
    }
    return {name: (tmp_path / name, needle) for name, (data, needle) in files.items()
            if (tmp_path / name).write_bytes(data) is not None}


@pytest.mark.parametrize("name", ["empty.json", "trunc.json", "nan.json", "shape.json",
                                  "types.json", "disguised.npz", "softplus.onnx", "net.txt"])
def test_bad_files_keep_the_network(qtbot, panel, tmp_path, name):
    path, needle = _bad_files(tmp_path)[name]
    before = panel.state_dict()
    assert not panel.load_file(path)
    assert needle in panel.message.text() and path.name in panel.message.text()
    assert panel.state_dict() == before and not panel.busy


def test_open_and_drop_a_file(qtbot, panel, tmp_path):
    deep = MLP.random([1, 5, 5, 1], seed=4)
    save_network(deep, tmp_path / "deep.npz")
    assert panel.load_file(tmp_path / "deep.npz")
    _wait(qtbot, panel)
    assert panel.source == "file" and panel.net.sizes == [1, 5, 5, 1]
    other = MLP.random([2, 3, 3, 1], seed=5)
    save_network(other, tmp_path / "other.json")
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(tmp_path / "other.json"))])
    event = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, mime,
                       Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    panel.dropEvent(event)
    _wait(qtbot, panel)
    assert panel.net.sizes == [2, 3, 3, 1] and "other.json" in panel.state_dict()["file"]


def test_state_round_trip_and_bad_state(qtbot, panel):
    _set_architecture(qtbot, panel, "2-5-5-1")
    state = panel.state_dict()
    json.dumps(state)
    other = ConverterPanel()
    qtbot.addWidget(other)
    _wait(qtbot, other)
    other.load_state(state)
    _wait(qtbot, other)
    assert other.net.sizes == [2, 5, 5, 1]
    X = np.random.default_rng(1).normal(size=(50, 2))
    assert np.array_equal(other.net(X), panel.net(X))
    assert other.result.conversion.p == panel.result.conversion.p
    before = other.state_dict()
    for bad, field in ((dict(state, source="web"), "source"), (dict(state, seed=-1), "seed"),
                       (dict(state, architecture=[2, "a", 1]), "architecture"),
                       (dict(state, network={"layers": []}), "layers"),
                       (dict(state, tent_depth=99), "tent_depth")):
        with pytest.raises(ValueError, match=field):
            other.load_state(bad)
        assert other.state_dict() == before
    other.shutdown()


def test_lecture_layout_hides_only_the_controls(qtbot, panel):
    panel.set_lecture_layout(True)
    from PySide6.QtWidgets import QWidget

    assert not panel.findChild(QWidget, "converter-controls").isVisible()
    assert panel.sizes_label.isVisible() and panel.verdict.isVisible()
    panel.set_lecture_layout(False)


def test_sent_from_the_main_window(qtbot, main_window):
    net = MLP.random([1, 4, 4, 1], seed=9)
    assert main_window.send_to("converter", "network", net)
    panel = main_window.current_panel()
    assert panel.name == "converter"
    _wait(qtbot, panel)
    assert panel.net is net and panel.result.conversion.one_d is not None
    QApplication.processEvents()


def test_object_names_are_set(panel):
    from PySide6.QtWidgets import QWidget

    names = {w.objectName() for w in panel.findChildren(QWidget) if w.objectName()}
    for n in ("converter-controls", "converter-source", "converter-architecture", "converter-seed",
              "converter-new-random", "converter-tent-depth", "converter-open", "converter-export",
              "converter-message", "converter-verdict", "converter-summary", "converter-sizes",
              "converter-main-plot", "converter-difference-plot", "converter-kinks",
              "converter-region-info", "converter-shallow-layers"):
        assert n in names
        assert panel.findChild(QWidget, n).accessibleName()


def test_tent_source_builds_the_tent_map(qtbot, panel):
    panel.tent_spin.setValue(4)
    _wait(qtbot, panel)
    assert panel.source == "tent" and panel.source_box.currentData() == "tent"
    one = panel.result.conversion.one_d
    assert len(one.kinks) == 17 and one.width == 17  # 2^4 + 1 kinks, s₀ = 0
    panel.undo_stack.undo()
    _wait(qtbot, panel)
    assert panel.source == "random" and panel.net.n_in == 2


def test_keyboard_steps_through_regions(qtbot, panel):
    qtbot.keyClick(panel.main_plot, Qt.Key.Key_BracketRight)
    assert panel.selected_region == 0 and "Region 1 of" in panel.region_info.text()
    qtbot.keyClick(panel.main_plot, Qt.Key.Key_BracketLeft)
    p = panel.result.conversion.p
    assert panel.selected_region == p - 1 and f"Region {p} of {p}" in panel.region_info.text()


def test_latest_request_wins(qtbot, panel):
    panel.arch_edit.setText("2-16-16-1")
    qtbot.keyClick(panel.arch_edit, Qt.Key.Key_Return)
    panel.arch_edit.setText("1-4-1")
    qtbot.keyClick(panel.arch_edit, Qt.Key.Key_Return)
    _wait(qtbot, panel)
    assert panel.result.conversion.deep is panel.net and panel.net.sizes == [1, 4, 1]
    assert panel.kink_table.isVisibleTo(panel)


def test_closing_mid_conversion_leaves_no_thread(qtbot, theme):
    import threading

    before = set(threading.enumerate())
    panel = ConverterPanel()
    qtbot.addWidget(panel)
    _set_architecture_no_wait(qtbot, panel, "1-512-512-1")
    assert panel.busy
    panel.shutdown()
    assert set(threading.enumerate()) <= before


def _set_architecture_no_wait(qtbot, panel, text):
    panel.arch_edit.setText(text)
    qtbot.keyClick(panel.arch_edit, Qt.Key.Key_Return)


def test_the_largest_1d_network_converts_and_lists_every_kink(qtbot, panel):
    _set_architecture(qtbot, panel, "1-512-512-1")
    one = panel.result.conversion.one_d
    assert panel.kink_table.model().rowCount() == len(one.kinks) > 100
    assert panel.verdict.text().startswith("Equal")
    assert panel.data_tables()["kinks"][1][0][1] == one.kinks[0]


def test_the_state_object_is_what_undo_and_scenes_hold(qtbot, panel):
    from relulab.model.lessons.converter import ConverterState

    _set_architecture(qtbot, panel, "2-3-3-1")
    assert isinstance(panel.state, ConverterState) and panel.state.architecture == (2, 3, 3, 1)
    assert ConverterState.from_dict(panel.state_dict()).to_dict() == panel.state_dict()
    panel.select_region(1)
    assert panel.state_dict()["selected_region"] == 1 and panel.undo_stack.count() == 1


def test_too_many_regions_are_reported_in_one_line(qtbot, panel, monkeypatch):
    import functools

    from relulab.model.shallow import construction as shallow

    monkeypatch.setattr(shallow, "convert", functools.partial(shallow.convert, max_regions=20))
    drawn = len(panel._region_items)
    assert panel.receive("network", MLP.random([3, 6, 6, 1], seed=0))
    _wait(qtbot, panel)
    assert "more than 20 activation regions" in panel.message.text()
    assert "\n" not in panel.message.text()
    # the picture stays; the result of the earlier network is let go (it is not this one's)
    assert panel.verdict.text() == "conversion failed" and panel.result is None
    assert len(panel._region_items) == drawn > 0
    assert not panel.export_shallow("/nonexistent/s.json")
    assert "the conversion failed" in panel.message.text()


def _record_stages(panel, painted, label, methods) -> list:
    """The order of events while a result is drawn: ``label`` each time the widget
    ``painted`` paints, a method's name each time one of ``methods`` is called, and
    "announced" when the result is announced."""
    events = []
    paint = painted.paintEvent
    painted.paintEvent = lambda ev: (events.append(label), paint(ev))
    for name in methods:
        method = getattr(panel, name)
        setattr(panel, name, lambda *args, name=name, method=method: (
            events.append(name), method(*args)))
    panel.finished.connect(lambda what: events.append("announced"))
    return events


def test_a_1d_result_is_drawn_in_stages_each_painted_before_the_next(qtbot, panel):
    """The words and the kink table, then the curves, then their difference, each in
    its own pass of the event loop and painted there (drawn at once, 1-512-512-1 froze
    the window for 60-90 ms), and the result is announced once the last is drawn."""
    events = _record_stages(panel, panel.main_plot, "curves painted",
                            ("_draw_curves", "_draw_difference"))
    panel.arch_edit.setText("1-16-16-1")
    qtbot.keyClick(panel.arch_edit, Qt.Key.Key_Return)
    _wait(qtbot, panel)
    assert not panel.drawing_pending()
    first = events.index("_draw_curves")
    assert events[first:].index("_draw_difference") > events[first:].index("curves painted")
    assert events[-1] == "announced" and events.count("announced") == 1
    assert panel.kinks.rowCount() == len(panel.result.kink_rows) > 0
    x, _deep = panel.deep_curve.getData()
    assert np.array_equal(x, panel.result.curve_x)
    assert np.array_equal(panel.diff_curve.getData()[1],
                          panel.result.deep_y - panel.result.shallow_y)


def test_a_2d_map_is_drawn_after_the_words_are_painted(qtbot, panel):
    """The words, then the region map in a pass of its own: together, their paint and a
    map of 2,000 filled polygons took 40-45 ms of one pass."""
    # the sizes change with every network, so their label paints with every result
    events = _record_stages(panel, panel.sizes_label, "words painted",
                            ("_draw_verdict", "_draw_map"))
    panel.arch_edit.setText("2-6-6-1")
    qtbot.keyClick(panel.arch_edit, Qt.Key.Key_Return)
    _wait(qtbot, panel)
    first = events.index("_draw_verdict")
    assert events[first:].index("_draw_map") > events[first:].index("words painted")
    assert events[-1] == "announced" and events.count("announced") == 1
    assert panel._region_items and len(panel._region_polygons) == len(panel.result.polygons)


def test_the_layout_changes_between_1d_and_2d_after_the_words_are_painted(qtbot, panel):
    """From a 2-D result to a 1-D one the kink table and the difference plot appear and
    every axis is drawn anew: in a pass after the words' (together 60-100 ms)."""
    assert panel.result.conversion.n_in == 2 and not panel.diff_plot.isVisibleTo(panel)
    events = _record_stages(panel, panel.sizes_label, "words painted",
                            ("_draw_verdict", "_show_parts"))
    panel.arch_edit.setText("1-12-12-1")
    qtbot.keyClick(panel.arch_edit, Qt.Key.Key_Return)
    _wait(qtbot, panel)
    after = events[events.index("_draw_verdict"):]
    assert after.index("_show_parts") > after.index("words painted")
    assert panel.diff_plot.isVisibleTo(panel) and panel.kink_table.isVisibleTo(panel)
    assert not panel.region_info.isVisibleTo(panel)
    panel.arch_edit.setText("2-5-5-1")
    qtbot.keyClick(panel.arch_edit, Qt.Key.Key_Return)
    _wait(qtbot, panel)
    assert not panel.diff_plot.isVisibleTo(panel) and panel.region_info.isVisibleTo(panel)


def test_wait_until_idle_waits_for_the_last_stage(qtbot, panel):
    panel.arch_edit.setText("1-8-8-1")
    qtbot.keyClick(panel.arch_edit, Qt.Key.Key_Return)
    assert panel.wait_until_idle(30)
    assert not panel.drawing_pending()
    assert np.array_equal(panel.deep_curve.getData()[0], panel.result.curve_x)


def test_a_new_conversion_drops_the_stages_of_the_last(qtbot, panel):
    """A network asked for while the last result is still being drawn: the old stages
    neither draw nor announce a result that is gone."""
    announced = []
    panel.finished.connect(lambda what: announced.append(panel.result))
    panel.arch_edit.setText("1-16-16-1")
    qtbot.keyClick(panel.arch_edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not panel._worker.busy and panel.result is not None, timeout=30000)
    assert panel.drawing_pending()
    panel.arch_edit.setText("1-9-9-1")
    qtbot.keyClick(panel.arch_edit, Qt.Key.Key_Return)
    assert panel.result is None and not panel.drawing_pending()
    _wait(qtbot, panel)
    assert len(announced) == 1 and announced[0] is panel.result
    assert panel.result.conversion.deep.sizes == [1, 9, 9, 1]
    assert np.array_equal(panel.deep_curve.getData()[0], panel.result.curve_x)


def test_the_selected_region_is_drawn_on_top_and_survives_a_theme_change(qtbot, panel, theme):
    polygons = panel.result.polygons
    target = polygons[3]
    panel.select_region(target.index)
    item = panel._selected_item
    r = item.path().controlPointRect()
    xs, ys = target.vertices[:, 0], target.vertices[:, 1]
    assert np.allclose([r.left(), r.right(), r.top(), r.bottom()],
                       [xs.min(), xs.max(), ys.min(), ys.max()])
    assert item.zValue() > max(gi.zValue() for gi in panel._region_items)
    assert item.brush().color().alpha() == 230
    theme.set_name("dark")  # the panel restyles its regions
    assert panel._selected_item.path().controlPointRect() == r
    panel.select_region(-1)
    assert panel._selected_item.path().isEmpty()
