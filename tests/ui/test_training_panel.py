"""The Training panel under pytest-qt: play, pause, step, reset, settings, sends, clean close,
and the work per tick that keeps the window responsive while it trains."""

import gc
import threading
from dataclasses import replace

import numpy as np
import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtWidgets import QApplication

from relulab.model.fitting import _training_kernels as kernels
from relulab.model.fitting.training import refit_output_layer
from relulab.model.networks.mlp import MLP
from relulab.ui.panels.training import TrainingPanel


@pytest.fixture
def panel(shown_panel):
    kernels.compiled_available()  # compile once up front, so waits below are about training
    return shown_panel(TrainingPanel, (1200, 760))


def small(panel, restarts=3, hidden=8, steps=3000):
    panel.restarts.setValue(restarts)
    panel.hidden.setValue(hidden)
    panel.steps.setValue(steps)


def settled(qtbot, panel):
    """Wait until the last frame is drawn (after a pause, its pieces follow one per tick)."""
    qtbot.waitUntil(lambda: not panel.driver.busy, timeout=20000)


def test_plays_pauses_and_the_loss_goes_down(qtbot, panel):
    small(panel)
    start = panel.snapshot
    assert start.step == 0 and start.restarts == 3 and start.hidden == 8
    qtbot.mouseClick(panel.play_button, Qt.MouseButton.LeftButton)
    assert panel.running and panel.play_button.text() == "Pause"
    qtbot.waitUntil(lambda: panel.snapshot.step >= 500, timeout=20000)
    qtbot.mouseClick(panel.play_button, Qt.MouseButton.LeftButton)
    assert not panel.running and panel.play_button.text() == "Play"
    paused_at = panel.snapshot.step
    settled(qtbot, panel)
    assert panel.snapshot.step == paused_at
    snap = panel.snapshot
    assert np.all(snap.rmse < start.rmse)
    # the views show the snapshot
    x, y = panel.best_curve.getData()
    np.testing.assert_allclose(y, snap.predict(x, snap.best))
    lx, ly = panel.loss_curves[0].xData, panel.loss_curves[0].yData  # before the log scale
    assert lx[-1] == snap.step and ly[-1] == pytest.approx(snap.losses[0, -1])
    kx, _ = panel.kink_markers.getData()
    np.testing.assert_allclose(np.sort(kx), snap.kinks_inside(snap.best))
    assert f"step {snap.step:,}" in panel.step_readout.text()
    assert f"{snap.rmse[snap.best]:.4f}" in panel.best_readout.text()


def test_runs_to_the_set_number_of_steps_and_stops(qtbot, panel):
    small(panel, steps=400)
    panel.play()
    qtbot.waitUntil(lambda: not panel.running, timeout=20000)
    assert panel.snapshot.step == 400
    assert "Finished" in panel.status.text()
    panel.play()  # nothing left to do
    assert not panel.running


def test_step_and_reset_by_keyboard(qtbot, panel):
    small(panel)
    panel.play_button.setFocus()
    qtbot.keyClick(panel.play_button, Qt.Key.Key_Right)
    qtbot.keyClick(panel.play_button, Qt.Key.Key_Right)
    assert panel.snapshot.step == 2
    first = panel.snapshot.w.copy()
    qtbot.keyClick(panel.play_button, Qt.Key.Key_R)
    assert panel.snapshot.step == 0
    assert not np.array_equal(first, panel.snapshot.w)  # reset went back to the starts
    qtbot.keyClick(panel.play_button, Qt.Key.Key_Space)
    assert panel.running
    qtbot.keyClick(panel.play_button, Qt.Key.Key_Space)
    assert not panel.running


def test_speed_limits_steps_per_tick(qtbot, panel):
    small(panel, steps=100_000)
    panel.speed.setCurrentIndex(0)   # 10 steps/s
    panel.play()
    qtbot.waitUntil(lambda: panel.snapshot.step >= 2, timeout=5000)
    panel.pause()
    assert panel.snapshot.step < 50


def test_changing_the_learning_rate_does_not_reset(qtbot, panel):
    small(panel)
    panel.step_once()
    for _ in range(9):
        panel.step_once()
    panel.lr.setValue(0.002)
    assert panel.snapshot.step == 10 and panel.trainer.lr == pytest.approx(0.002)
    panel.step_once()
    assert panel.snapshot.step == 11 and panel.snapshot.lr == pytest.approx(0.002)


@pytest.mark.parametrize("change", [
    lambda p: p.hidden.setValue(5), lambda p: p.restarts.setValue(2),
    lambda p: p.optimizer.setCurrentIndex(p.optimizer.findData("momentum")),
    lambda p: p.batch.setValue(32), lambda p: p.points.setValue(200),
])
def test_architecture_and_optimiser_changes_reset(qtbot, panel, change):
    small(panel)
    panel.step_once()
    change(panel)
    assert panel.snapshot.step == 0


def test_every_restart_drawn_and_32_allowed(qtbot, panel):
    panel.restarts.setValue(32)
    assert panel.restarts.maximum() == 32
    panel.step_once()
    def drawn():
        return [c for c in panel.restart_curves if c.xData is not None and len(c.xData)]

    assert len(drawn()) == 32
    panel.restarts.setValue(4)
    assert len(drawn()) == 4


def test_typed_target_and_bad_target_message(qtbot, panel):
    panel.target.setCurrentText("abs(x) - 0.5")
    panel.domain_a.setValue(-1.0)   # resets with the typed expression
    assert panel.state_dict()["target"] == "abs(x) - 0.5"
    _, ty = panel.target_curve.getData()
    assert ty.min() == pytest.approx(-0.5, abs=0.01)
    before = panel.snapshot
    panel.target.setCurrentText("sin(")
    panel.target.lineEdit().returnPressed.emit()
    assert panel.target_error.text() != ""
    assert panel.snapshot is before  # nothing lost
    panel.target.setCurrentText("x^2")
    panel.target.lineEdit().returnPressed.emit()
    assert panel.target_error.text() == ""


def test_ghost_and_refit_readouts(qtbot, panel):
    # the notebook's numbers: 12 evenly spaced kinks by least squares give 0.0254
    assert "0.0254" in panel.ghost_readout.text()
    gx, _gy = panel.ghost_curve.getData()
    assert len(gx) > 100
    assert "refit" in panel.refit_readout.text()


def test_final_losses_sorted_and_histogram(qtbot, panel):
    small(panel, restarts=5, steps=300)
    panel.play()
    settled(qtbot, panel)
    heights = panel.final_bars.opts["height"]
    assert np.all(np.diff(heights) >= 0) and len(heights) == 5
    panel.final_view.setCurrentIndex(panel.final_view.findData("histogram"))
    assert int(np.sum(panel.final_bars.opts["height"])) == 5


def test_divergence_is_reported_with_its_step(qtbot, panel):
    small(panel, restarts=2, hidden=12, steps=50)
    panel.optimizer.setCurrentIndex(panel.optimizer.findData("gd"))
    panel.lr.setValue(10.0)
    panel.play()
    qtbot.waitUntil(lambda: not panel.running, timeout=20000)
    assert np.all(panel.snapshot.diverged)
    assert "Diverged" in panel.status.text() and "at step" in panel.status.text()


def test_send_to_converter_and_hinges(qtbot, panel):
    sent = []

    class Host:
        def send_to(self, name, kind, payload):
            sent.append((name, kind, payload))
            return True

    small(panel, steps=200)
    assert not panel.send_converter.isEnabled()   # nothing trained yet
    panel.play()
    qtbot.waitUntil(lambda: not panel.running, timeout=20000)
    panel.host = Host()
    assert panel.send_converter.isEnabled()
    qtbot.mouseClick(panel.send_converter, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(panel.send_hinges, Qt.MouseButton.LeftButton)
    (n1, k1, mlp), (n2, k2, payload) = sent
    assert (n1, k1, n2, k2) == ("converter", "network", "hinges", "hinges")
    assert isinstance(mlp, MLP) and mlp.sizes == [1, 8, 1]
    snap = panel.snapshot
    np.testing.assert_allclose(mlp(np.array([0.3])), snap.predict([0.3], snap.best))
    assert payload["kinks"] == pytest.approx(list(snap.kinks_inside(snap.best)))
    assert payload["a"] == -3.0 and payload["b"] == 3.0 and "sin" in payload["target"]


def test_state_round_trip_and_bad_state(qtbot, panel):
    small(panel, restarts=2, steps=500)
    panel.selected.setCurrentIndex(2)
    for _ in range(20):
        panel.step_once()
    state = panel.state_dict()
    w = panel.snapshot.w.copy()
    panel.restarts.setValue(4)
    panel.load_state(state)
    assert panel.state_dict() == state
    np.testing.assert_array_equal(panel.snapshot.w, w)  # replayed from the seeds
    for bad, field in (({"hidden": 0}, "hidden"), ({"optimizer": "x"}, "optimizer"),
                       ({"lr": "fast"}, "lr"), ({"target": "sin("}, "target"),
                       ({"nonsense": 1}, "nonsense"), ({"step": 900}, "step")):
        with pytest.raises(ValueError, match=field):
            panel.load_state({**state, **bad})
        assert panel.state_dict() == state


def test_animation_frames_leave_the_panel_as_found(qtbot, panel):
    small(panel, steps=300)
    before = panel.state_dict()
    frames = list(panel.animation_frames(10))
    assert len(frames) == 10 and frames[-1] == 300
    assert panel.state_dict() == before
    tables = panel.data_tables()
    assert len(tables["restarts"][1]) == 3
    assert set(panel.plots()) == {"curves", "losses", "kinks", "final"}


def test_lecture_layout_hides_controls(qtbot, panel):
    panel.set_lecture_layout(True)
    assert not panel.controls.isVisible()
    panel.set_lecture_layout(False)
    assert panel.controls.isVisible()


def test_no_thread_left_after_closing_mid_training(qtbot, theme):
    before = set(threading.enumerate())
    from relulab.app import build_main_window

    window = build_main_window(panel="training")
    qtbot.addWidget(window)
    window.show()
    p = window.panel("training")
    p.restarts.setValue(8)
    p.play()
    qtbot.waitUntil(lambda: p.snapshot.step > 0, timeout=20000)
    assert p.running
    window.close()
    assert not p.running
    assert set(threading.enumerate()) <= before


def test_undo_brings_back_settings_and_progress(qtbot, panel):
    small(panel, restarts=3, hidden=8, steps=2000)
    panel.undo_stack.clear()
    for _ in range(30):
        panel.step_once()
    w = panel.snapshot.w.copy()
    panel.hidden.setValue(5)              # restarts training: one undo step
    assert panel.snapshot.step == 0 and panel.snapshot.hidden == 5
    assert panel.undo_stack.count() == 1
    assert panel.undo_stack.undoText() == "Change hidden width"
    panel.undo_stack.undo()
    assert panel.hidden.value() == 8 and panel.snapshot.step == 30
    np.testing.assert_array_equal(panel.snapshot.w, w)   # replayed from the seeds
    panel.undo_stack.redo()
    assert panel.hidden.value() == 5 and panel.snapshot.step == 0
    panel.undo_stack.undo()
    panel.reset_button.click()
    assert panel.snapshot.step == 0 and panel.undo_stack.undoText() == "Reset training"
    panel.undo_stack.undo()
    assert panel.snapshot.step == 30


def test_bad_target_pushes_no_undo_step(qtbot, panel):
    panel.undo_stack.clear()
    panel.target.setCurrentText("2 +")
    panel.target.lineEdit().returnPressed.emit()
    assert panel.undo_stack.count() == 0 and panel.target_error.text()


def test_sends_reach_the_converter_and_hinges_panels(qtbot, main_window):
    kernels.compiled_available()
    panel = main_window.show_panel("training")
    small(panel, restarts=2, hidden=6, steps=200)
    panel.play()
    qtbot.waitUntil(lambda: not panel.running, timeout=20000)
    assert panel.send_selected_to_converter()
    assert main_window.current_panel().name == "converter"
    main_window.show_panel("training")
    assert panel.send_selected_to_hinges()
    assert main_window.current_panel().name == "hinges"


# -- staying responsive while training ----------------------------------------------------
def test_a_new_run_starts_with_a_one_step_chunk(qtbot, panel):
    small(panel)
    panel.step_once()
    for _ in range(5):
        panel.driver.step(50)
    assert panel.driver.sizer.size() > 1
    panel.hidden.setValue(12)        # the cost of a step changes with the settings
    assert panel.driver.sizer.size() == 1


def own_panel(qtbot):
    """A panel the test shuts down itself (shutdown runs once)."""
    kernels.compiled_available()
    p = TrainingPanel()
    qtbot.addWidget(p)
    return p


def test_full_garbage_collections_skip_old_objects_while_training(qtbot):
    panel = own_panel(qtbot)
    small(panel, steps=100_000)
    assert gc.get_freeze_count() == 0
    panel.play()
    assert gc.get_freeze_count() > 0
    panel.pause()
    assert gc.get_freeze_count() == 0
    panel.play()
    panel.shutdown()
    assert gc.get_freeze_count() == 0


def test_large_refit_runs_on_a_worker_and_lands_in_the_readout(qtbot):
    panel = own_panel(qtbot)
    panel.points.setValue(4000)
    panel.hidden.setValue(20)          # N·H = 80 000: too large to solve on the GUI thread
    panel.step_once()
    assert "computing" in panel.refit_readout.text()
    snap, r = panel.snapshot, panel.selected_restart()
    _, _, expected = refit_output_layer(panel.trainer.x, panel.trainer.y, snap.w[r], snap.b[r])
    qtbot.waitUntil(lambda: f"output layer refit: {expected:.4f}" in panel.refit_readout.text(),
                    timeout=10000)
    panel.steps.setValue(100_000)
    panel.play()
    qtbot.waitUntil(lambda: panel.snapshot.step > 3, timeout=10000)
    qtbot.waitSignal(panel.stepped, timeout=10000).wait()
    assert "refit: when paused" in panel.refit_readout.text()
    assert f"{panel._snap.rmse[panel.selected_restart()]:.4f}" in panel.refit_readout.text()
    panel.pause()
    assert "computing" in panel.refit_readout.text()
    assert any(t.name == "relulab-training-refit" for t in threading.enumerate())
    panel.shutdown()
    assert not any(t.name.startswith("relulab-training") for t in threading.enumerate())


def test_final_frame_is_drawn_piece_by_piece_before_stopping(qtbot, panel):
    small(panel, restarts=4, steps=3000)
    pieces, ticks = [], [0]
    for name in ("_draw_curves", "_draw_losses", "_draw_kink_paths", "_draw_final"):
        original = getattr(panel, name)
        setattr(panel, name, lambda *a, _f=original, _n=name, **k: (pieces.append((_n, ticks[0])),
                                                                     _f(*a, **k)))
    tick = panel.driver._tick

    def counted_tick():
        ticks[0] += 1
        tick()

    panel.driver._timer.timeout.disconnect(tick)
    panel.driver._timer.timeout.connect(counted_tick)
    panel.play()
    settled(qtbot, panel)
    names, in_ticks = zip(*pieces[-4:])
    assert names == ("_draw_curves", "_draw_losses", "_draw_kink_paths", "_draw_final")
    assert len(set(in_ticks)) == 4   # each in its own tick, each followed by its own paint
    snap = panel.snapshot
    assert panel._snap is snap and snap.step == 3000
    lx = panel.loss_curves[0].xData
    assert lx[-1] == 3000
    _, ky = panel.kink_now.getData()
    assert np.all(ky == 3000)


def test_switching_restart_while_training_redraws_its_kinks(qtbot, panel):
    small(panel, restarts=3, steps=200_000)
    panel.speed.setCurrentIndex(1)   # 100 steps/s: the best restart rarely changes meanwhile
    panel.play()
    qtbot.waitUntil(lambda: panel.snapshot.step >= 5, timeout=5000)
    other = (panel._snap.best + 1) % 3
    panel.selected.setCurrentIndex(panel.selected.findData(other))

    def shows_other():
        kx, _ = panel.kink_markers.getData()
        return len(kx) == len(panel._snap.kinks_inside(other)) and np.allclose(
            np.sort(kx), panel._snap.kinks_inside(other))

    qtbot.waitUntil(shows_other, timeout=5000)
    panel.pause()


def test_small_plots_ranges_hold_what_they_show(qtbot, panel):
    small(panel, restarts=4, steps=500)
    panel.play()
    settled(qtbot, panel)
    (_, _), (y0, y1) = panel.loss_plot.getPlotItem().viewRange()
    drawn = np.concatenate([c.yData for c in panel.loss_curves[:4]])
    assert y0 <= np.log10(drawn.min()) and np.log10(drawn.max()) <= y1
    (x0, x1), (y0, y1) = panel.final_plot.getPlotItem().viewRange()
    heights = panel.final_bars.opts["height"]
    assert x0 < 1 and x1 > 4 and y0 <= 0 and max(heights.max(), panel._ghost.rmse) <= y1
    panel.final_view.setCurrentIndex(panel.final_view.findData("histogram"))
    (x0, x1), _ = panel.final_plot.getPlotItem().viewRange()
    assert x0 <= min(panel.snapshot.rmse.min(), panel._ghost.rmse) and max(panel.snapshot.rmse) <= x1


def test_axes_show_plain_numbers_whenever_the_theme_is_applied(qtbot, panel, theme):
    """The final RMSEs (about 0.1) read as 0.1, not 100 (a theme applied after the plots
    had their ranges once scaled every tick by 1000 without saying so)."""
    small(panel, restarts=3, steps=200)
    panel.play()
    settled(qtbot, panel)
    theme.set_zoom(1.2)
    theme.set_zoom(1.0)
    for plot in panel.plots().values():
        for name in ("left", "bottom"):
            axis = plot.getPlotItem().getAxis(name)
            assert axis.autoSIPrefixScale == 1.0, (plot.objectName(), name)
    left = panel.final_plot.getPlotItem().getAxis("left")
    assert max(left.range) < 1 and all(float(t) < 1 for t in left.tickStrings([0.05, 0.1], 1.0, 0.05))


def test_a_long_replay_runs_on_a_worker_and_closing_mid_replay_leaves_no_thread(qtbot):
    """A state whose steps take a while to train again: the window answers meanwhile
    (the replay is a worker's), the panel shows the state at once and the run when it
    is ready; closing the panel in the middle ends the worker."""
    from relulab.model.lessons.training import TrainingState, replay

    state = TrainingState(restarts=8, hidden=64, points=2000, steps=5000, step=3000)
    panel = own_panel(qtbot)
    panel.load_state(state.to_dict())
    assert panel._replaying == 3000 and panel.state == state        # the state, at once
    assert not panel.play_button.isEnabled() and "Replaying" in panel.status.text()
    panel.lr.setValue(0.02)                                           # a live setting meanwhile
    qtbot.waitUntil(lambda: panel.trainer.step == 3000, timeout=60_000)
    assert panel.state == replace(state, lr=0.02) and panel.play_button.isEnabled()
    assert panel.trainer.lr == 0.02
    np.testing.assert_array_equal(panel.snapshot.w, replay(state).snapshot().w)
    panel.load_state(replace(state, step=2999).to_dict())
    assert any(t.name == "relulab-training-replay" for t in threading.enumerate())
    panel.shutdown()
    assert not any(t.name.startswith("relulab-training") for t in threading.enumerate())


def test_no_rmse_bars_before_training_and_words_for_what_is_shown(qtbot, panel):
    """At step 0 the random starts' errors are no result: no bars, a hint; after a few
    steps one bar per restart. The panel says what its curves are."""
    small(panel, restarts=4, hidden=8, steps=200)
    settled(qtbot, panel)
    assert len(panel.final_bars.opts["height"]) == 0
    assert "Space" in panel.final_hint.textItem.toPlainText()
    assert "4 networks of 8 ReLU neurons" in panel.explain.text()
    assert "least squares with 8" in panel.explain.text()
    key = [entry.text for entry in panel.key.entries]  # one key, under the plots
    assert {"target", "other restarts", "kinks now"} <= set(key)
    assert "best restart" in panel.key.plain_text() and "ghost" in panel.key.plain_text()
    panel.step_once()
    settled(qtbot, panel)
    assert len(panel.final_bars.opts["height"]) == 4
    assert panel.final_hint.textItem.toPlainText() == ""


@pytest.mark.parametrize("lecture", [False, True], ids=["panel at zoom 1", "scene 4 at 1.6"])
def test_before_training_the_small_plots_read_cleanly(main_window, theme, lecture):
    """Seen in lecture scene 4 (step 0, 1280 × 720, zoom 1.6): the empty log loss axis
    showed 1 … 10 as minor numbers written over each other, and "press Space to train"
    lay over the ghost's dashed line. Now the loss axis spans the decades the curves will
    cross, and the hint stays clear of the line, inside its plot."""
    from PySide6.QtCore import QSize

    from relulab.ui.main_window import default_size

    main_window.resize(default_size(QSize(1280, 720)))
    if lecture:
        theme.set_zoom(1.6)
        assert main_window.lecture.start_builtin()
        main_window.lecture.go(3)
        panel = main_window.current_panel()
    else:
        panel = main_window.show_panel("training")
        panel.reset_training()
    panel.wait_until_idle(60)
    QApplication.processEvents()
    assert panel.name == "training" and panel.trainer.step == 0
    (y0, y1) = panel.loss_plot.getPlotItem().getViewBox().viewRange()[1]
    start = float(np.nanmax(panel.trainer.snapshot().rmse)) ** 2
    ghost = panel._ghost.rmse ** 2
    assert y1 - y0 >= 2  # decades: the axis shows powers of ten only
    assert y0 <= np.log10(ghost) and np.log10(start) <= y1
    hint = panel.final_hint
    assert hint.toPlainText().startswith("press Space")
    view = panel.final_plot.getPlotItem().getViewBox()
    line_y = view.mapViewToScene(QPointF(1.0, ghost ** 0.5)).y()
    drawn = hint.sceneBoundingRect()
    assert not drawn.top() <= line_y <= drawn.bottom(), (drawn, line_y)
    assert view.sceneBoundingRect().adjusted(-1, -1, 1, 1).contains(drawn), "hint cut off"
