"""The Hinges panel, driven as a person would: real mouse drags, keys, typing."""

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QWidget

from relulab.model.fitting.hinges import evenly_spaced_kinks, fit_hinges
from relulab.testing import mouse
from relulab.ui.panels.hinges import HingesPanel


@pytest.fixture
def panel(shown_panel):
    return shown_panel(HingesPanel, (1200, 760))


def handle_pos(p, i):
    k = p.fit.kinks[i]
    return mouse.data_to_viewport(p.plot, k, float(p.fit.predict(np.array([k]))[0]))


def data_x(p, dx_data):
    """Viewport pixels per data unit along x, to build drag targets."""
    a = mouse.data_to_viewport(p.plot, 0.0, 0.0)
    b = mouse.data_to_viewport(p.plot, dx_data, 0.0)
    return b.x() - a.x()


def least_squares(p):
    s = p.state
    x = np.linspace(s.a, s.b, s.points)
    return fit_hinges(x, p.target(x), s.kinks, method="dense")


def test_opens_on_the_notebooks_curve_with_six_hinges(panel):
    assert panel.state.mode == "least squares"
    assert panel.rmse_label.text() == "RMSE <b>0.1022</b>"
    assert "0.2371" in panel.max_label.text() and "on 400 samples" in panel.max_label.text()
    xs, _ys = panel.handles.getData()
    np.testing.assert_allclose(xs, evenly_spaced_kinks(-3, 3, 6))


def test_drag_moves_the_kink_and_refits_by_least_squares(panel):
    before = panel.state.kinks
    start = handle_pos(panel, 2)
    end = start + type(start)(data_x(panel, 0.5), 0)
    mouse.drag(panel.plot, start, end, steps=6)
    assert panel.state.kinks[2] == pytest.approx(before[2] + 0.5, abs=0.02)
    assert panel.state.kinks[:2] == before[:2]
    dense = least_squares(panel)
    np.testing.assert_allclose(panel.fit.coefficients, dense.coefficients, atol=1e-8)
    assert panel.fit.intercept == pytest.approx(dense.intercept, abs=1e-8)
    # the drawn curve is the fit; the handle sits on it
    cx, cy = panel.approx_curve.getData()
    np.testing.assert_allclose(cy, dense.predict(cx), atol=1e-8)
    hx, _hy = panel.handles.getData()
    assert hx[2] == pytest.approx(panel.state.kinks[2])
    assert panel.rmse_label.text() == f"RMSE <b>{dense.rmse:.4f}</b>"
    # one drag = one undo step
    assert panel.undo_stack.count() == 1
    panel.undo_stack.undo()
    assert panel.state.kinks == before
    panel.undo_stack.redo()
    assert panel.state.kinks[2] == pytest.approx(before[2] + 0.5, abs=0.02)


def test_right_click_cancels_a_drag(panel):
    before = panel.state
    start = handle_pos(panel, 1)
    end = start + type(start)(data_x(panel, 0.8), 0)
    mouse.drag(panel.plot, start, end, steps=5, cancel=True)
    assert panel.state.kinks == before.kinks
    assert panel.undo_stack.count() == 0
    hx, _ = panel.handles.getData()
    np.testing.assert_allclose(hx, before.kinks)


def test_drag_off_a_handle_does_not_edit(panel):
    before = panel.state.kinks
    p = mouse.data_to_viewport(panel.plot, 0.0, 3.2)
    mouse.drag(panel.plot, p, p + type(p)(40, 0))
    assert panel.state.kinks == before and panel.undo_stack.count() == 0


def test_free_mode_drag_up_changes_the_slope_change(panel):
    panel.set_mode("free")
    assert panel.state.mode == "free"
    rmse_ls = panel.fit.rmse
    assert rmse_ls == pytest.approx(0.1022, abs=5e-5)  # switching keeps the picture
    c0 = panel.state.coefficients[3]
    _hx, hy0 = panel.handles.getData()
    start = handle_pos(panel, 3)
    a = mouse.data_to_viewport(panel.plot, 0.0, 0.0)
    b = mouse.data_to_viewport(panel.plot, 0.0, 0.75)
    mouse.drag(panel.plot, start, start + (b - a), steps=4)
    _hx, hy = panel.handles.getData()
    assert hy[3] == pytest.approx(hy0[3] + 0.75, abs=0.02)  # the corner went up with it
    np.testing.assert_allclose(np.delete(hy, 3), np.delete(hy0, 3), atol=1e-9)
    assert panel.state.coefficients[3] < c0 - 1  # a sharper bend down: its slope change fell
    assert panel.fit.slope_change(3) == pytest.approx(panel.state.coefficients[3], abs=1e-6)
    assert panel.fit.rmse > rmse_ls
    assert "slope change" in panel.selected_label.text()


@pytest.mark.parametrize("i", [0, 3, 5])
def test_free_mode_handle_stays_under_the_pointer_during_a_drag(panel, i):
    """Seen: dragging up in Free mode, the pointer went up and the handle stayed on
    the axis. At every move of a drag (up, sideways, diagonal) the handle is where the
    pointer is, the leftmost and rightmost hinges too."""
    panel.set_mode("free")
    start = handle_pos(panel, i)
    offsets = [(0, -40), (0, -80), (25, -60), (-30, 20), (10, 50)]
    mouse.press(panel.plot, start)
    for dx, dy in offsets:
        pointer = start + type(start)(dx, dy)
        mouse.move(panel.plot, pointer, buttons=mouse.LEFT)
        hx, hy = panel.handles.getData()
        at = mouse.data_to_viewport(panel.plot, hx[i], hy[i])
        assert abs(at.x() - pointer.x()) <= 1.5 and abs(at.y() - pointer.y()) <= 1.5, (dx, dy)
    mouse.release(panel.plot, pointer)
    assert panel.undo_stack.count() == 2  # the mode switch and the drag


def test_free_mode_line_is_editable(panel, qtbot):
    panel.set_mode("free")
    panel.intercept_spin.setValue(1.25)
    assert panel.state.intercept == 1.25
    assert panel.fit.intercept == 1.25
    panel.undo_stack.undo()
    assert panel.state.intercept != 1.25


def test_keyboard_select_move_slope_delete_and_undo(panel, qtbot):
    panel.set_mode("free")
    panel.plot.setFocus()
    qtbot.waitUntil(panel.plot.hasFocus)
    qtbot.keyClick(panel.plot, Qt.Key.Key_Tab)
    assert panel.state.selected == 0
    qtbot.keyClick(panel.plot, Qt.Key.Key_Tab)
    assert panel.state.selected == 1
    qtbot.keyClick(panel.plot, Qt.Key.Key_Backtab, Qt.KeyboardModifier.ShiftModifier)
    assert panel.state.selected == 0
    k0 = panel.state.kinks[0]
    steps = panel.undo_stack.count()
    qtbot.keyClick(panel.plot, Qt.Key.Key_Right)
    qtbot.keyClick(panel.plot, Qt.Key.Key_Right)
    assert panel.state.kinks[0] == pytest.approx(k0 + 2 * 6 / 200)
    assert panel.undo_stack.count() == steps + 1  # repeated nudges are one step
    c0 = panel.state.coefficients[0]
    qtbot.keyClick(panel.plot, Qt.Key.Key_Up, Qt.KeyboardModifier.ShiftModifier)
    assert panel.state.coefficients[0] == pytest.approx(c0 + 0.1)
    qtbot.keyClick(panel.plot, Qt.Key.Key_Delete)
    assert len(panel.state.kinks) == 5
    panel.undo_stack.undo()
    assert len(panel.state.kinks) == 6
    panel.undo_stack.undo()
    panel.undo_stack.undo()
    assert panel.state.kinks[0] == pytest.approx(k0)
    panel.undo_stack.redo()
    assert panel.state.kinks[0] == pytest.approx(k0 + 2 * 6 / 200)


def test_double_click_adds_a_hinge(panel):
    pos = mouse.data_to_viewport(panel.plot, 1.7, -0.6)
    mouse.double_click(panel.plot, pos)
    assert len(panel.state.kinks) == 7
    assert panel.state.kinks[-1] == pytest.approx(1.7, abs=0.02)
    assert panel.state.selected == 6
    np.testing.assert_allclose(panel.fit.coefficients, least_squares(panel).coefficients, atol=1e-8)
    panel.undo_stack.undo()
    assert len(panel.state.kinks) == 6


def test_count_and_spread_evenly(panel):
    panel.count_spin.setValue(24)
    assert panel.state.kinks == tuple(evenly_spaced_kinks(-3, 3, 24))
    assert panel.rmse_label.text() == "RMSE <b>0.0065</b>"
    assert "0.0210" in panel.max_label.text()
    panel.select(0)
    panel.nudge_kink(1)
    assert panel.state.kinks != tuple(evenly_spaced_kinks(-3, 3, 24))
    panel.spread_button.click()
    assert panel.state.kinks == tuple(evenly_spaced_kinks(-3, 3, 24))


def test_invalid_expression_is_shown_and_changes_nothing(panel, qtbot):
    before = panel.state
    curve = panel.target_curve.getData()[1].copy()
    panel.expression_edit.setText("sin(x")
    qtbot.keyClick(panel.expression_edit, Qt.Key.Key_Return)
    err = panel.findChild(QLabel, "hinges-expression-error")
    assert err.isVisibleTo(panel) and "expected ')'" in err.text()
    assert panel.state == before and panel.undo_stack.count() == 0
    np.testing.assert_array_equal(panel.target_curve.getData()[1], curve)
    assert panel.expression_edit.text() == "sin(x"  # the typing is kept for fixing
    panel.expression_edit.setText("x^2/4")
    qtbot.keyClick(panel.expression_edit, Qt.Key.Key_Return)
    assert not err.isVisibleTo(panel)
    assert panel.target.text == "x^2/4"
    assert panel.preset_box.currentText() == "Typed expression"


def test_empty_domain_is_refused(panel):
    before = panel.state
    panel.a_spin.setValue(5.0)
    assert panel.state == before
    assert "empty" in panel.expression_error.text()


def test_interpolation_shows_error_next_to_the_estimated_bound(panel, qtbot):
    panel.set_mode("interpolation")
    panel.count_spin.setValue(24)
    it = panel.interpolation
    assert it.n == 24 and it.max_error <= it.bound
    text = panel.bound_label.text()
    assert "estimate" in text and f"{it.bound:.4f}" in text and f"{it.max_error:.4f}" in text
    # handles at the knots t0 … t23
    hx, _ = panel.handles.getData()
    np.testing.assert_allclose(hx, np.linspace(-3, 3, 25)[:-1])
    panel.set_target("x²", -1, 1)
    it = panel.interpolation
    assert it.max_error == pytest.approx(it.bound, rel=1e-6)  # attained for x²


def test_step_target_shows_the_jump_caveat(panel, qtbot):
    panel.set_target("unit step", -1, 1)
    qtbot.waitUntil(lambda: panel.convergence_done, timeout=10000)
    assert panel.caveat_label.isVisibleTo(panel)
    text = panel.caveat_label.text()
    assert "Jump of 1 at x ≈ 0<" in text and "does not go to zero" in text
    rows = panel.convergence_rows
    assert rows[-1].ls_rmse < rows[0].ls_rmse / 5
    assert min(r.ls_sup_error for r in rows) > 0.4
    panel.set_target("x²", -1, 1)
    assert not panel.caveat_label.isVisibleTo(panel)


def test_convergence_view_has_slope_minus_two(panel, qtbot):
    qtbot.waitUntil(lambda: panel.convergence_done, timeout=10000)
    n, _e = panel.conv_ls_rmse.getData()
    assert len(n) == len(panel.convergence_rows) == 15
    title = panel.convergence_plot.getPlotItem().titleLabel.text
    assert "measured slope −1.9" in title
    assert "slope −2: ×2 hinges → error ÷4" in panel.convergence_key.text().replace("&nbsp;", " ")
    gx, gy = panel.conv_guide.getData()  # log10 values: the plot is log-log
    assert (gy[1] - gy[0]) / (gx[1] - gx[0]) == pytest.approx(-2)


def test_components_and_residual_views(panel):
    panel.components_check.setChecked(True)
    x, y = panel.components_curve.getData()
    assert panel.components_curve.isVisible()
    assert np.isnan(x).sum() == 7  # the line a + s·x, then one polyline per hinge
    f = panel.fit
    assert y[1] == pytest.approx(f.intercept + 3 * f.slope)
    assert y[5] == pytest.approx(f.coefficients[0] * (3 - f.kinks[0]))
    panel.residual_check.setChecked(False)
    assert not panel.residual_plot.isVisibleTo(panel)
    panel.convergence_check.setChecked(False)
    assert not panel.convergence_plot.isVisibleTo(panel)
    panel.convergence_check.setChecked(True)
    panel.residual_check.setChecked(True)
    rx, ry = panel.residual_curve.getData()
    np.testing.assert_allclose(ry, panel.fit.predict(rx) - panel.target(rx), atol=1e-12)


def test_receive_kinks_from_training(panel):
    kinks = [-2.276, -1.118, -0.826, 0.567, 0.995, 2.028]
    assert panel.receive("hinges", {"kinks": kinks, "target": "sin(2x) + 0.3x²", "a": -3, "b": 3})
    assert panel.state.mode == "least squares" and panel.state.kinks == tuple(kinks)
    np.testing.assert_allclose(panel.fit.coefficients, least_squares(panel).coefficients, atol=1e-8)
    assert not panel.receive("hinges", {"kinks": ["x"]})
    assert not panel.receive("network", object())
    assert panel.state.kinks == tuple(kinks)


def test_state_round_trip_and_bad_state(panel):
    panel.set_mode("free")
    panel.select(2)
    panel.nudge_coefficient(1)
    saved = panel.state_dict()
    other = HingesPanel()
    try:
        other.load_state(saved)
        assert other.state_dict() == saved
        np.testing.assert_allclose(other.approx_curve.getData()[1], panel.approx_curve.getData()[1])
        before = other.state_dict()
        with pytest.raises(ValueError, match=r"^target"):
            other.load_state(saved | {"target": "sin(x"})
        with pytest.raises(ValueError, match=r"^points"):
            other.load_state(saved | {"points": 3})
        assert other.state_dict() == before
    finally:
        other.shutdown()
        other.deleteLater()


def test_data_tables_and_animation(panel):
    tables = panel.data_tables()
    headers, rows = tables["hinges"]
    assert len(rows) == 8 and headers[0] == "term"
    assert len(tables["samples"][1]) == 400
    before = panel.state
    frames = list(panel.animation_frames(5))
    assert frames == [1, 2, 3, 4, 5]
    assert panel.state == before


def test_shortcuts_do_not_fire_from_the_expression_box(panel, qtbot):
    panel.select(1)
    panel.expression_edit.setFocus()
    qtbot.waitUntil(panel.expression_edit.hasFocus)
    qtbot.keyClick(panel.expression_edit, Qt.Key.Key_Delete)
    qtbot.keyClick(panel.expression_edit, Qt.Key.Key_Left)
    assert len(panel.state.kinks) == 6


def test_in_the_main_window_with_edit_menu_undo(main_window, qtbot):
    p = main_window.show_panel("hinges")
    assert isinstance(p, HingesPanel)
    p.count_spin.setValue(12)
    assert p.rmse_label.text() == "RMSE <b>0.0254</b>"
    main_window.undo_action.trigger()
    assert len(p.state.kinks) == 6
    main_window.redo_action.trigger()
    assert len(p.state.kinks) == 12
    p.set_lecture_layout(True)
    assert not p.findChild(QWidget, "hinges-controls").isVisible()
    assert p.readout_row.isVisible()
    p.set_lecture_layout(False)


def test_theme_and_zoom_restyle(panel, theme):
    theme.set_zoom(1.6)
    assert panel.target_curve.opts["pen"].widthF() == pytest.approx(4.0 * 1.6)
    theme.set_name("dark")
    assert panel.plot.backgroundBrush().color().name().lower() == "#1e1e1e"
    theme.set_name("light")
    theme.set_zoom(1.0)


def test_click_on_a_handle_selects_it(panel):
    mouse.click(panel.plot, handle_pos(panel, 4))
    assert panel.state.selected == 4
    assert panel.plot.hasFocus()
    hx, hy = panel.handles.getData()
    mx, my = panel.selected_marker.getData()  # a ring under the selected handle
    assert (mx[0], my[0]) == (hx[4], hy[4])
    assert panel.undo_stack.count() == 0  # selecting is not an edit


def test_interpolation_handles_do_not_drag(panel):
    panel.set_mode("interpolation")
    knots = panel.fit.kinks.copy()
    start = handle_pos(panel, 3)
    mouse.drag(panel.plot, start, start + type(start)(data_x(panel, 0.4), 0))
    np.testing.assert_allclose(panel.fit.kinks, knots)
    assert panel.undo_stack.count() == 1  # only the mode switch


def test_escape_leaves_the_plot_and_boxes_show_the_fit(panel, qtbot):
    panel.select(2)
    assert panel.coefficient_spin.value() == pytest.approx(3.069, abs=1e-3)  # computed, read-only
    assert not panel.coefficient_spin.isEnabled()
    panel.plot.setFocus()
    qtbot.waitUntil(panel.plot.hasFocus)
    qtbot.keyClick(panel.plot, Qt.Key.Key_Escape)
    assert panel.state.selected is None
    assert not panel.plot.hasFocus()


def test_closing_mid_study_leaves_no_thread(qtbot, theme):
    """The convergence study runs on a worker; closing the panel stops and joins it."""
    import threading

    before = set(threading.enumerate())
    panel = HingesPanel()
    qtbot.addWidget(panel)
    panel.points_spin.setValue(20000)  # the study restarts on 20,000 samples
    assert not panel.convergence_done
    panel.shutdown()
    assert set(threading.enumerate()) <= before
    panel.shutdown()  # twice is harmless


def test_twenty_thousand_points_study_converges_off_the_gui_thread(panel, qtbot):
    panel.points_spin.setValue(20000)
    qtbot.waitUntil(lambda: panel.convergence_done, timeout=60000)
    assert len(panel.convergence_rows) == 15
    assert panel.max_label.text().endswith("on 20,000 samples")


def test_a_state_the_panel_makes_is_one_a_scene_can_hold(panel):
    """Edits clamp to the ranges from_dict accepts: a huge free-mode drag, a target
    with huge values, kinks from training far outside the domain."""
    from relulab.model.fitting.hinges import COEFFICIENT_LIMIT
    from relulab.model.lessons.hinges import HingesState

    panel.set_mode("free")
    panel.select(1)
    panel.commit(panel.state.set_coefficient(1, 1e300), "huge")
    assert panel.state.coefficients[1] == COEFFICIENT_LIMIT
    assert not panel.set_target("1e300*x")
    assert "targets within ±1e+12" in panel.expression_error.text()
    assert panel.set_target("1e12*x/3")
    panel.set_mode("least squares")
    panel.set_mode("free")
    assert panel.receive("hinges", {"kinks": [-1e200, 0.5, 1e200]})
    assert HingesState.from_dict(panel.state_dict()) == panel.state
    assert not panel.set_target("x" * 2000)
    assert "longer than" in panel.expression_error.text()

