"""The Folding panel: the sliders drive exact counts, plots keep every peak, undo, sends."""

import threading

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from relulab.model.lessons.folding import FoldingState
from relulab.model.networks.mlp import MLP
from relulab.model.pieces.folding import FOLD_PRESETS, Fold
from relulab.ui.panels.folding import FoldingPanel
from relulab.ui.panels.folding.jobs import EXACT_SYNC_DEPTH, SYNC_DEPTH


@pytest.fixture
def panel(shown_panel):
    return shown_panel(FoldingPanel)


def pieces_text(n: int) -> str:
    return f"{n:,}"


def settle(panel, qtbot):
    """Wait for the workers: the deep tent and the compositions of the user's fold. A
    guard against a hang, not a speed test: depth 24 takes 5-30 s on two busy cores."""
    qtbot.waitUntil(lambda: not panel.computing(), timeout=120_000)


def test_depth_slider_drives_the_count_label(panel, qtbot):
    start = FoldingState().depth
    assert f"<b>{2 ** start}</b> pieces on [0, 1]" in panel.count_label.text()
    panel.depth_slider.setValue(10)  # a click or key press, not a drag: one undo step
    assert panel.state.depth == 10
    assert f"<b>{pieces_text(1024)}</b> pieces on [0, 1]" in panel.count_label.text()
    assert f"{pieces_text(1025)} kinks on the whole line" in panel.count_label.text()
    assert "<b>20</b> neurons" in panel.neurons_label.text()
    assert f"<b>{pieces_text(1023)}</b>" in panel.neurons_label.text()
    panel.depth_slider.setFocus()
    qtbot.keyClick(panel.depth_slider, Qt.Key.Key_Right)
    assert panel.state.depth == 11
    assert f"<b>{pieces_text(2048)}</b> pieces" in panel.count_label.text()


def test_main_curve_is_the_exact_tent_and_keeps_every_peak(panel, qtbot):
    panel.set_depth(3)
    x, y = panel.curve.getData()
    np.testing.assert_array_equal(x, np.arange(9) / 8)
    np.testing.assert_array_equal(y, [0, 1, 0, 1, 0, 1, 0, 1, 0])
    panel.set_depth(14)  # 16 384 pieces, far more than pixel columns
    panel.plot.grab()
    x, y = panel.curve.getData()
    assert len(x) < 2 ** 14
    pairs = y[: len(y) // 2 * 2].reshape(-1, 2)
    # min/max per column: every column still reaches both a peak (1) and a valley (0)
    assert np.all(pairs.max(axis=1) == 1.0)
    assert np.all(pairs.min(axis=1) == 0.0)


def test_deep_tents_are_computed_in_the_background(panel, qtbot):
    before = set(threading.enumerate())
    panel.set_depth(SYNC_DEPTH + 2)
    assert panel.computing()
    assert "computing" in panel.count_label.text()
    qtbot.waitUntil(lambda: not panel.computing(), timeout=20000)
    assert f"<b>{pieces_text(2 ** 18)}</b> pieces on [0, 1]" in panel.count_label.text()
    _x, y = panel.curve.getData()
    assert y.min() == 0.0 and y.max() == 1.0
    # the last small plot shows g^(18) from the same result
    assert "g<sup>(18)</sup>" in panel.layer_plots[-1].getPlotItem().titleLabel.text
    panel.shutdown()
    assert set(threading.enumerate()) <= before


def test_a_deep_tent_is_drawn_over_several_passes(panel, qtbot, monkeypatch):
    """The deep tent's arrival draws its curve and count at once and the fold, the
    layers and the chart in passes of their own (all five plots in one pass: 24-30 ms
    of the GUI thread at depth 24)."""
    panel.set_depth(SYNC_DEPTH + 2)
    qtbot.waitUntil(lambda: not panel.computing(), timeout=20000)
    drawn = []
    for name in ("draw_tent", "draw_fold", "draw_layers", "draw_chart"):
        original = getattr(panel.figures, name)
        monkeypatch.setattr(panel.figures, name,
                            lambda *a, _o=original, _n=name: (drawn.append(_n), _o(*a))[1])
    panel._on_deep_tent(panel._deep)          # the same result arrives again
    assert drawn == ["draw_tent"]             # the curve (and its count): at once
    assert panel.computing() and panel.drawing_pending()
    qtbot.waitUntil(lambda: not panel.drawing_pending(), timeout=5000)
    assert drawn == ["draw_tent", "draw_fold", "draw_layers", "draw_chart"]
    assert f"<b>{pieces_text(2 ** 18)}</b> pieces" in panel.count_label.text()
    assert not panel.computing()
    panel.set_depth(SYNC_DEPTH)               # a shallow depth: all at once, as before
    assert drawn[-3:] == ["draw_fold", "draw_layers", "draw_chart"]


def test_a_deep_depth_asked_for_and_drawn_moves_no_plot(panel, qtbot):
    """The counts above the plots keep two lines each while a deep depth is computed and
    when it arrives: a count wrapping to another height moved every plot below, and all
    five repainted in one pass (30-43 ms of the GUI thread at depth 24)."""
    plots = [panel.figures.plot, *panel.layer_plots]
    qtbot.waitUntil(lambda: not panel.computing(), timeout=20000)
    QApplication.processEvents()
    before = [p.geometry() for p in plots]
    panel.set_depth(SYNC_DEPTH + 2)
    QApplication.processEvents()
    assert panel.computing()
    assert [p.geometry() for p in plots] == before
    qtbot.waitUntil(lambda: not panel.computing(), timeout=20000)
    QApplication.processEvents()
    assert [p.geometry() for p in plots] == before


def test_latest_deep_request_wins(panel, qtbot):
    panel.set_depth(20)
    panel.set_depth(17)
    qtbot.waitUntil(lambda: not panel.computing(), timeout=20000)
    assert panel.state.depth == 17
    assert f"<b>{pieces_text(2 ** 17)}</b> pieces" in panel.count_label.text()


def test_a_slider_drag_is_one_undo_step_and_undo_restores(panel, qtbot):
    slider = panel.depth_slider
    count = panel.undo_stack.count()
    slider.setSliderDown(True)
    for v in (6, 7, 8, 9):
        slider.setValue(v)
        assert f"<b>{pieces_text(2 ** v)}</b> pieces" in panel.count_label.text()
    slider.setSliderDown(False)
    assert panel.undo_stack.count() == count + 1
    panel.undo_stack.undo()
    start = FoldingState().depth
    assert panel.state.depth == start and slider.value() == start
    assert f"<b>{2 ** start}</b> pieces" in panel.count_label.text()
    panel.undo_stack.redo()
    assert panel.state.depth == 9


def test_peak_slider_moves_the_top_of_the_tent(panel, qtbot):
    panel.set_depth(1)
    panel.peak_slider.setValue(30)
    assert panel.state.peak == pytest.approx(0.3)
    x, y = panel.curve.getData()
    np.testing.assert_allclose(x, [0.0, 0.3, 1.0])
    np.testing.assert_allclose(y, [0.0, 1.0, 0.0], atol=1e-12)
    panel.set_depth(8)
    assert f"<b>{pieces_text(256)}</b> pieces" in panel.count_label.text()
    assert "(exact)" in panel.count_label.text()
    assert panel.precision_label.text() == ""


def test_exact_only_where_certified(panel, qtbot):
    """Peak 0.2: exact rationals to depth 15, then the label says floating point and
    the note says what is floating point at that depth and peak, and why."""
    panel.set_peak(0.2)
    panel.set_depth(12)
    qtbot.waitUntil(lambda: not panel.computing(), timeout=20000)
    assert f"<b>{pieces_text(2 ** 12)}</b> pieces on [0, 1]" in panel.count_label.text()
    assert "(exact)" in panel.count_label.text()
    panel.set_depth(18)
    qtbot.waitUntil(lambda: not panel.computing(), timeout=20000)
    assert "(exact)" not in panel.count_label.text()
    assert "not certified" in panel.count_label.text()
    note = panel.precision_label.text()
    assert "At peak 0.20, g<sup>(18)</sup> is counted in floating point only" in note
    assert "exact rational arithmetic is tried only to depth 15 here" in note
    assert "beyond exact arithmetic" not in note
    assert panel.data_tables()["counts"][1][-1][-1] == "floating point"
    panel.set_peak(0.5)
    panel.set_depth(20)
    qtbot.waitUntil(lambda: not panel.computing(), timeout=20000)
    assert f"<b>{pieces_text(2 ** 20)}</b> pieces on [0, 1]" in panel.count_label.text()
    assert "(exact)" in panel.count_label.text() and panel.precision_label.text() == ""


def test_a_top_above_one_is_explained(panel, qtbot):
    panel.set_peak(0.45)  # its double weights put the top at 1 + 6.9e-17
    panel.set_depth(3)
    assert "(exact)" in panel.count_label.text()
    assert "<b>9</b> pieces" in panel.count_label.text()
    assert "tops out at 1 + 6.9e-17" in panel.precision_label.text()


def test_whole_line_toggle(panel, qtbot):
    panel.set_depth(4)
    panel.whole_line.click()
    assert panel.state.whole_line
    x, y = panel.curve.getData()
    assert x[0] == -0.5 and x[-1] == 1.5
    assert y[0] == 0.0 and y[-1] == 0.0  # clipped to zero outside [0, 1]
    assert "17 kinks on the whole line" in panel.count_label.text()
    panel.undo_stack.undo()
    assert not panel.state.whole_line and panel.curve.getData()[0][0] == 0.0


def test_your_own_fold_from_the_table(panel, qtbot):
    panel.set_depth(4)
    settle(panel, qtbot)
    assert "<b>81</b> pieces on [0, 1]" in panel.fold_count_label.text()  # zigzag: 3^4
    table = panel.fold_table
    table.item(0, 0).setText("abc")
    assert "w of neuron 1" in panel.fold_error.text() and "not a finite number" in panel.fold_error.text()
    assert panel.state.fold == FOLD_PRESETS["zigzag: three folds (3 neurons)"]
    assert table.item(0, 0).text() == "1"
    # a fold that is just the tent, typed in: a = 3 → 2, −6 → −4, third neuron off
    table.item(0, 2).setText("2")
    table.item(1, 1).setText("-0.5")
    table.item(1, 2).setText("-4")
    table.item(2, 2).setText("0")
    assert panel.state.fold == Fold(w=(1, 1, 1), b=(0, -0.5, -2 / 3), a=(2, -4, 0))
    assert panel.fold_error.text() == ""
    settle(panel, qtbot)
    assert "<b>16</b> pieces on [0, 1]" in panel.fold_count_label.text()
    x, _y = panel.fold_curve.getData()
    np.testing.assert_allclose(x, np.arange(17) / 16)
    panel.fold_remove.click()
    assert panel.state.fold.n_neurons == 2
    for _ in range(5):
        panel.undo_stack.undo()
    assert panel.state.fold == FOLD_PRESETS["zigzag: three folds (3 neurons)"]


def test_fold_presets_and_the_knot_budget(panel, qtbot):
    combo = panel.fold_preset
    index = combo.findText("tent (2 neurons)")
    combo.activated.emit(index)
    assert panel.state.fold == FOLD_PRESETS["tent (2 neurons)"]
    settle(panel, qtbot)
    assert f"<b>{2 ** panel.state.depth}</b> pieces on [0, 1]" in panel.fold_count_label.text()
    panel.set_fold(FOLD_PRESETS["zigzag: three folds (3 neurons)"])
    panel.set_depth(12)  # 1/3 is not a double: exact rationals, which stop at 2,500 knots
    settle(panel, qtbot)
    assert "not computed from u⁽⁸⁾ on" in panel.fold_count_label.text()
    assert "u⁽¹⁾ to u⁽⁷⁾ are counted exactly" in panel.fold_count_label.text()
    panel.set_fold(Fold(w=(1, 1), b=(0, -0.25), a=(4, -8)))  # dyadic: certified in doubles
    panel.set_depth(18)  # but 2^18 kinks are over the knot budget
    settle(panel, qtbot)
    assert "not computed" in panel.fold_count_label.text()
    assert panel.fold_curve.getData()[0] is None or len(panel.fold_curve.getData()[0]) == 0


def test_chart_marks_deep_against_shallow(panel, qtbot):
    panel.set_depth(6)
    x, y = panel.deep_marker.getData()  # log-log chart: getData gives log10
    np.testing.assert_allclose(10 ** np.array([x[0], y[0]]), [12, 64])
    x, y = panel.shallow_marker.getData()
    np.testing.assert_allclose(10 ** np.array([x[0], y[0]]), [63, 64])
    x, y = panel.deep_series.getData()
    assert len(x) == 24


def test_fold_animation_runs_and_ends_on_g_k(panel, qtbot):
    panel.set_depth(3)
    panel.play.click()
    assert panel.animation_running()
    qtbot.waitUntil(lambda: not panel.animation_running(), timeout=10000)
    assert not panel.play.isChecked()
    _x, y = panel.curve.getData()
    np.testing.assert_array_equal(y, [0, 1, 0, 1, 0, 1, 0, 1, 0])


def test_animation_frames_for_export(panel, qtbot):
    panel.set_depth(3)
    shapes = []
    gen = panel.animation_frames(12)
    for _ in gen:
        shapes.append(panel.curve.getData()[1].copy())
    assert 6 <= len(shapes) <= 12
    np.testing.assert_allclose(shapes[0], [0, 0.5, 1])  # g^(0)(x) = x at the kinks of g^(1)
    np.testing.assert_allclose(shapes[-1], [0, 1, 0, 1, 0, 1, 0, 1, 0])
    x, _y = panel.curve.getData()  # restored
    np.testing.assert_array_equal(x, np.arange(9) / 8)


def test_state_round_trip_and_bad_state(panel, qtbot):
    panel.set_depth(7)
    panel.set_peak(0.4)
    d = panel.state_dict()
    other = FoldingPanel()
    qtbot.addWidget(other)
    other.load_state(d)
    assert other.state_dict() == d
    assert other.count_label.text() == panel.count_label.text()
    with pytest.raises(ValueError, match="depth"):
        other.load_state({**d, "depth": 99})
    with pytest.raises(ValueError, match="fold"):
        other.load_state({**d, "fold": {"w": [1], "b": [0, 1], "a": [1]}})
    assert other.state_dict() == d
    other.shutdown()


def test_shortcuts_are_scoped_to_the_panel(panel, qtbot):
    panel.activateWindow()
    panel.depth_slider.setFocus()
    start = panel.state.depth
    qtbot.keyClick(panel.depth_slider, Qt.Key.Key_BracketRight)
    assert panel.state.depth == start + 1
    qtbot.keyClick(panel.depth_slider, Qt.Key.Key_BracketLeft)
    assert panel.state.depth == start
    qtbot.keyClick(panel.depth_slider, Qt.Key.Key_L)
    assert panel.state.whole_line


def test_data_tables(panel):
    panel.set_depth(5)
    headers, rows = panel.data_tables()["counts"]
    assert headers[2] == "pieces on [0, 1]"
    assert [r[2] for r in rows] == [2, 4, 8, 16, 32]
    headers, rows = panel.data_tables()["kinks"]
    assert len(rows) == 33


def test_send_the_tent_to_the_converter(main_window, qtbot, monkeypatch):
    panel = main_window.show_panel("folding")
    converter = main_window.panel("converter")
    received = []
    monkeypatch.setattr(converter, "receive",
                        lambda kind, payload: received.append((kind, payload)) or True)
    panel.set_depth(4)
    panel.send.click()
    kind, net = received[-1]
    assert kind == "network" and isinstance(net, MLP)
    assert net.sizes == [1, 2, 2, 2, 2, 1]
    assert main_window.current_panel() is converter
    x = np.arange(17) / 16
    np.testing.assert_allclose(net(x), np.arange(17) % 2, atol=1e-12)
    main_window.show_panel("folding")
    panel.fold_send.click()
    kind, net = received[-1]
    assert net.sizes == [1, 3, 3, 3, 3, 1]


def test_runs_alone_without_a_host(panel):
    assert panel.send_tent() is False
    assert "main window" in panel.status_label.text()
    QApplication.processEvents()


def test_changing_the_depth_stops_the_animation(panel, qtbot):
    panel.set_depth(6)
    panel.play.click()
    qtbot.waitUntil(lambda: "folding" in panel.plot.getPlotItem().titleLabel.text, timeout=5000)
    panel.set_depth(3)
    assert not panel.animation_running() and not panel.play.isChecked()
    np.testing.assert_array_equal(panel.curve.getData()[1], [0, 1, 0, 1, 0, 1, 0, 1, 0])


def test_the_real_converter_takes_the_tent(main_window, qtbot):
    panel = main_window.show_panel("folding")
    panel.set_depth(3)
    assert panel.send_tent() is True
    assert main_window.current_panel() is main_window.panel("converter")


def test_idle_time_fills_the_cache_for_the_interactive_depths(panel, qtbot):
    qtbot.waitUntil(panel.warmed_up, timeout=20000)
    assert all((d, 0.5) in panel._cache for d in range(1, SYNC_DEPTH + 1))
    panel.set_depth(SYNC_DEPTH)  # a cache hit: nothing to compute
    assert f"<b>{pieces_text(2 ** SYNC_DEPTH)}</b> pieces" in panel.count_label.text()
    # other peaks need exact rationals: only the shallower depths are kept at hand
    panel.set_peak(0.45)
    qtbot.waitUntil(panel.warmed_up, timeout=20000)
    assert all((d, 0.45) in panel._cache for d in range(1, EXACT_SYNC_DEPTH + 1))


def test_the_fold_animation_at_another_peak_stays_in_the_interactive_depths(panel, qtbot):
    panel.set_peak(0.3)
    panel.set_depth(12)  # computed in the background: exact rationals
    frames = sum(1 for _ in panel.animation_frames(max_frames=60))
    assert frames > 0
    assert max(layer for layer, _ in panel._animation_plan()) <= EXACT_SYNC_DEPTH
    qtbot.waitUntil(lambda: not panel.computing(), timeout=20000)
    assert f"<b>{pieces_text(2 ** 12)}</b> pieces on [0, 1]" in panel.count_label.text()


def test_closing_mid_work_leaves_no_thread(qtbot, theme):
    before = set(threading.enumerate())
    panel = FoldingPanel()
    qtbot.addWidget(panel)
    panel.set_depth(22)
    assert panel.computing()
    panel.shutdown()
    assert set(threading.enumerate()) <= before


def test_depth_24_on_the_whole_line_keeps_every_peak(panel, qtbot):
    panel.whole_line.setChecked(True)
    panel.set_depth(24)
    settle(panel, qtbot)
    x, y = panel.curve.getData()
    assert len(x) <= 4 * 2 ** 16 and x[0] >= -0.5 and x[-1] <= 1.5
    inside = (x > 0.01) & (x < 0.99)
    assert y[inside].max() == 1.0 and y[inside].min() == 0.0
    assert f"<b>{pieces_text(2 ** 24)}</b> pieces on [0, 1]" in panel.count_label.text()
    name = next(n for n in panel.data_tables() if n.startswith("kinks"))
    assert name == f"kinks (first 131072 of {2 ** 24 + 1})"


def test_fold_weights_beyond_the_limit_are_refused(panel, qtbot):
    """±1e308 is refused at once: accepted, it would raise later from a timer and from
    undo."""
    before = panel.state_dict()
    huge = {"w": [1e308, 1.0], "b": [0.0, -0.5], "a": [2.0, -4.0], "c": 0.0}
    with pytest.raises(ValueError, match=r"fold\.w\[0\]"):
        panel.load_state({**before, "fold": huge})
    assert panel.state_dict() == before
    panel.fold_table.item(0, 0).setText("1e308")
    assert "is refused" in panel.fold_error.text() and "outside" in panel.fold_error.text()
    assert panel.state_dict() == before and panel.fold_table.item(0, 0).text() == "1"


@pytest.mark.parametrize("fold", [
    Fold(w=(1e-300, -1000.0), b=(1.0, 0.0), a=(1000.0, 1000.0), c=-1000.0),
    Fold(w=(1000.0,) * 8, b=(-1000.0,) * 8, a=(1000.0, -1000.0) * 4, c=1000.0),
    Fold(w=(1000.0, 1000.0), b=(0.0, -1e-300), a=(1000.0, -1000.0), c=0.0),
])
def test_folds_at_the_limits_compose_or_say_why(panel, qtbot, fold):
    """Tiny and large weights within the limits, composed 24 times: every depth ends
    in counts or in a one-line reason (never an exception from a worker, where warnings
    are errors in the tests), and undo and redo work."""
    panel.set_fold(fold)
    panel.set_depth(24)
    settle(panel, qtbot)
    text = panel.fold_count_label.text()
    assert "pieces on [0, 1]" in text or "not computed" in text or "beyond" in text, text
    assert "Error" not in text
    panel.undo_stack.undo()
    panel.undo_stack.undo()
    panel.undo_stack.redo()
    panel.undo_stack.redo()
    settle(panel, qtbot)
    assert panel.fold_count_label.text() == text


def test_the_fold_animation_can_be_watched(panel):
    """Each layer turns over in more than a second and rests on its result."""
    from relulab.ui.panels.folding.panel import FRAME_MS

    panel.set_depth(4)
    plan = panel._animation_plan()
    per_layer = [sum(1 for layer, _ in plan if layer == k) for k in range(1, 5)]
    assert all(n * FRAME_MS >= 1500 for n in per_layer), per_layer
    assert panel._timer.interval() == FRAME_MS
    turning = [s for layer, s in plan if layer == 1]
    assert turning[0] == 0 and turning[-1] == 1 and turning.count(1.0) > 1  # the rest


def test_more_pieces_than_pixels_show_as_a_band_with_a_note(panel, qtbot):
    """Past about a piece per two pixels a line paints a solid block: the plot shows the
    band the curve fills and says how many pieces each pixel holds; zooming in brings
    the teeth back. At the defaults the tent and your fold are lines, every tooth in
    sight."""
    QApplication.processEvents()
    assert not panel.tent_view.dense and panel.curve.isVisible()
    settle(panel, qtbot)
    assert not panel.fold_view.dense and panel.fold_curve.isVisible()
    assert panel.fold_view.pixels_per_piece() >= 2.0
    panel.set_depth(12)
    QApplication.processEvents()
    view = panel.tent_view
    assert view.dense and view.band.isVisible() and not panel.curve.isVisible()
    assert pieces_text(4096) in view.note.textItem.toPlainText()
    _, low = view.low.getData()
    _, high = view.high.getData()
    assert low.min() == 0.0 and high.max() == 1.0  # the band spans the teeth
    panel.plot.setXRange(0.5, 0.5 + 4 / 4096, padding=0)  # four teeth across the plot
    QApplication.processEvents()
    assert not view.dense and panel.curve.isVisible() and not view.note.isVisible()
