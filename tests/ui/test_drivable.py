"""What tests and scripts rely on (docs/automation.md): the keys reach a panel as soon
as it is shown, every long piece of work says ``finished``, the readouts carry the
numbers on screen, drags work in data coordinates, and no dialog waits in a test."""

import math
import os
import subprocess
import sys
import textwrap

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox, QPushButton

from relulab.model.fitting.hinges import DEFAULT_COUNTS
from relulab.testing import drag, finished, waiting_for
from relulab.testing.waits import SignalTimeout
from relulab.ui.dialogs import ModalDialogRefused, refuse_modal_dialogs
from relulab.ui.panels import PANEL_NAMES

CTRL = Qt.KeyboardModifier.ControlModifier


# -- focus and keys ------------------------------------------------------------------

@pytest.mark.parametrize("how", ["shortcut", "show_panel", "tab click"])
def test_a_shown_panel_has_the_keys_without_a_click(main_window, qtbot, how):
    w = main_window
    if how == "shortcut":
        QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_3, CTRL)
    elif how == "show_panel":
        w.show_panel("folding")
    else:
        bar = w.tabs.tabBar()
        QTest.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(2).center())
    folding = w.current_panel()
    assert folding.name == "folding" and folding.isAncestorOf(QApplication.focusWidget())
    depth = folding.readouts()["depth"]
    QTest.keyClick(QApplication.focusWidget(), "]")
    assert folding.readouts()["depth"] == depth + 1


def test_every_panel_takes_the_focus_into_its_main_plot(main_window):
    for i, name in enumerate(PANEL_NAMES, start=1):
        QTest.keyClick(QApplication.focusWidget(), getattr(Qt.Key, f"Key_{i}"), CTRL)
        panel = main_window.current_panel()
        assert panel.name == name
        assert QApplication.focusWidget() is panel.focus_target()


def test_space_plays_training_right_after_ctrl_2(main_window, qtbot):
    QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_2, CTRL)
    training = main_window.current_panel()
    QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_Space)
    assert training.running
    QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_Space)
    assert not training.running


def test_a_second_window_takes_the_keys_once_shown(main_window, qtbot, theme):
    from relulab.ui.application import build_main_window

    second = build_main_window()
    qtbot.addWidget(second)
    with qtbot.waitActive(second):  # a window shown activates itself
        second.show()
    QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_4, CTRL)
    assert second.current_panel().name == "converter"
    assert main_window.current_panel().name == "hinges"
    second.close()


@pytest.mark.parametrize("name", PANEL_NAMES)
def test_a_panel_alone_is_shown_active_and_focused(relulab_panel, name):
    panel = relulab_panel(name)
    assert QApplication.activeWindow() is panel
    assert QApplication.focusWidget() is panel.focus_target() and panel.readouts()


def test_a_panel_alone_answers_its_keys(relulab_panel):
    folding = relulab_panel("folding")
    depth = folding.readouts()["depth"]
    QTest.keyClick(QApplication.focusWidget(), "]")
    assert folding.readouts()["depth"] == depth + 1


# -- finished(work) ---------------------------------------------------------------------

def test_training_finishes_once_at_its_last_step(main_window, qtbot):
    training = main_window.show_panel("training")
    training.steps.setValue(400)
    said = []
    training.finished.connect(said.append)
    with finished(training, "training"):
        training.play()
    assert said == ["training"] and not training.driver.busy  # the final frame is drawn
    assert training.readouts()["step"] == 400 and training.status.value == "Finished 400 steps."
    training.play()  # nothing left to train: no second finish
    QApplication.processEvents()
    assert said == ["training"]


def test_a_diverging_run_finishes_too(main_window, qtbot):
    training = main_window.show_panel("training")
    training.optimizer.setCurrentIndex(training.optimizer.findData("gd"))
    training.lr.setValue(10.0)
    training.steps.setValue(5000)
    with finished(training, "training"):
        training.play()
    assert "Diverged" in training.readouts()["status"] and not training.driver.busy


def test_deep_folding_finishes_when_the_worker_has_counted(main_window, qtbot):
    folding = main_window.show_panel("folding")
    with finished(folding, "counts") as done:
        folding.set_depth(20)
        assert folding.readouts()["pieces"] is None  # on the worker
    assert done.args == ("counts",)
    assert folding.readouts()["pieces"] == 2 ** 20 and folding.readouts()["exact"]
    with pytest.raises(SignalTimeout, match=r"FoldingPanel\.finished"), \
            finished(folding, "counts", timeout=0.3):
        folding.set_depth(20)  # no change, no new work, nothing to wait for


def test_a_failed_conversion_finishes_and_says_so(main_window, qtbot, monkeypatch):
    import relulab.ui.panels.converter.jobs as converter_module

    converter = main_window.show_panel("converter")
    converter.wait_until_idle()

    def broken(net, box=None, should_stop=None):
        raise RuntimeError("broken on purpose")

    monkeypatch.setattr(converter_module, "compute", broken)
    with finished(converter, "conversion"):
        converter.new_random()
    assert converter.readouts()["verdict"] == "failed"
    assert "broken on purpose" in converter.readouts()["message"]


def test_playground_regions_plane_and_depth_study_finish(main_window, qtbot):
    playground = main_window.show_panel("playground")
    playground.wait_until_idle()
    with finished(playground, "plane_regions"), finished(playground, "regions"):
        playground.reset_weights(seed=7)
    counts = playground.readouts()
    assert counts["regions"] == len(playground.data_tables()["linear regions"][1])
    assert counts["plane_regions"] >= counts["regions"] > 1
    study = playground.depth_study
    study.seeds.setValue(1)
    study.budget.setValue(study.budget.minimum())
    with finished(playground, "depth_study"):
        playground.run_depth_experiment()
    assert playground.state.depth.samples and playground.readouts()["depth_status"]


def test_hinges_convergence_study_finishes(main_window, qtbot):
    hinges = main_window.show_panel("hinges")  # its study shown from the start
    hinges.wait_until_idle()
    with finished(hinges, "convergence"):
        hinges.set_target("exp(x)")  # a new target, a new study
    assert hinges.convergence_done and hinges.convergence_rows[-1].n == max(DEFAULT_COUNTS)


def test_waiting_for_a_signal_that_never_comes_fails_in_time(main_window):
    with pytest.raises(SignalTimeout, match=r"did not come within 0\.2 s"), \
            waiting_for(main_window.lecture.stepped, timeout=0.2, what="the lecture's step"):
        pass


# -- readouts -------------------------------------------------------------------------

def test_readouts_are_the_numbers_on_screen(main_window, qtbot):
    hinges = main_window.show_panel("hinges")
    r = hinges.readouts()
    assert r["rmse"] == hinges.fit.rmse and r["max_error"] == hinges.fit.max_error
    assert f"{r['rmse']:.4f}" in hinges.rmse_label.text()
    hinges.set_mode("interpolation")
    r = hinges.readouts()
    assert r["interpolation_error"] == hinges.interpolation.max_error
    assert r["bound"] == hinges.interpolation.bound
    hinges.set_target("abs(x)")  # f'' unbounded: no bound, and the readout says so
    assert hinges.readouts()["bound"] is None
    assert "No bound" in hinges.bound_label.shown_text
    assert hinges.rmse_label.property("value") == hinges.readouts()["rmse"]


def test_a_nan_readout_is_a_nan_and_shows_a_dash(qtbot):
    from relulab.ui.readout import Readout

    r = Readout("x-rmse", "RMSE")
    qtbot.addWidget(r)
    r.set_value(math.nan, "RMSE <b>—</b>")
    assert math.isnan(r.value) and r.accessibleDescription() == "RMSE —"


# -- mouse in data coordinates -----------------------------------------------------------

@pytest.mark.parametrize("scale", [0.01, 1.0, 300.0])  # (domains: 0.001 wide to ±1000)
def test_a_drag_in_data_coordinates_moves_the_handle_there(main_window, qtbot, scale):
    hinges = main_window.show_panel("hinges")
    assert hinges.set_target(f"sin(x/{scale!r})", -3 * scale, 3 * scale)
    hinges.set_count(4)
    x, y = hinges.handle_positions()[1]
    drag(hinges.plots()["main"], (x, y), (x + 0.5 * scale, y))
    assert hinges.state.kinks[1] == pytest.approx(x + 0.5 * scale, rel=0.02, abs=0.02 * scale)
    assert hinges.handle_positions()[1][0] == pytest.approx(hinges.state.kinks[1])
    assert hinges.undo_stack.undoText() == "Drag hinge"


def test_a_click_in_data_coordinates_selects_the_region_there(main_window, qtbot):
    from relulab.testing import click

    converter = main_window.show_panel("converter")
    converter.wait_until_idle()
    regions = converter.result.conversion.regions
    witness = next(r.witness for r in regions if abs(r.witness).max() < 2.5)
    click(converter.plots()["regions"], tuple(witness))
    assert converter.readouts()["selected_region"] == converter.selected_region + 1 > 0


def test_the_drag_leaves_pyqtgraphs_settings_as_they_were(main_window):
    import pyqtgraph as pg

    hinges = main_window.show_panel("hinges")
    plot = hinges.plots()["main"]
    rate, drag_time = pg.getConfigOption("mouseRateLimit"), plot.scene().minDragTime
    x, y = hinges.handle_positions()[0]
    drag(plot, (x, y), (x + 0.1, y))
    assert pg.getConfigOption("mouseRateLimit") == rate and plot.scene().minDragTime == drag_time


# -- dialogs ------------------------------------------------------------------------------

@pytest.mark.parametrize(("where", "button", "method"), [
    ("converter", "converter-open", "load_file(path)"),
    ("converter", "converter-export", "export_shallow(path)"),
    ("playground", "playground-load-csv", "load_points(path)"),
    ("playground", "playground-save-csv", "save_points(path)"),
    ("playground", "playground-export-network", "export_network(path)"),
    ("playground", "playground-open-network", "open_network(path)"),
])
def test_a_dialog_in_a_test_is_refused_and_names_the_method(main_window, qtbot, where, button,
                                                           method):
    panel = main_window.show_panel(where)
    panel.wait_until_idle()
    with qtbot.captureExceptions() as raised:
        panel.findChild(QPushButton, button).click()
    assert len(raised) == 1 and raised[0][0] is ModalDialogRefused
    assert method in str(raised[0][1]) and "docs/automation.md" in str(raised[0][1])


@pytest.mark.parametrize(("action", "method"), [
    ("action-open", "window.open_scene(path)"), ("action-save-as", "window.save_as(path)"),
    ("action-export-png-2x", "window.export_current('png', path, 2)"),
    ("action-export-csv", "window.export_current('csv', path)"),
    ("action-lecture-open", "window.open_scene(path)"),
])
def test_menu_dialogs_are_refused_too(main_window, qtbot, action, method):
    from PySide6.QtGui import QAction

    with qtbot.captureExceptions() as raised:
        main_window.findChild(QAction, action).trigger()
    assert raised and raised[0][0] is ModalDialogRefused and method in str(raised[0][1])


def test_a_test_that_answers_the_dialog_itself_still_can(main_window, monkeypatch, tmp_path):
    path = tmp_path / "answered.relulab.json"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(path), ""))
    assert main_window.save_as_dialog() and path.exists()


@pytest.mark.relulab_modal_dialogs
def test_a_test_marked_so_may_open_a_modal_dialog(qtbot):
    from PySide6.QtCore import QTimer

    box = QMessageBox()
    QTimer.singleShot(0, box.accept)
    assert box.exec() == 1


def test_refusing_covers_static_dialogs_and_exec_and_is_undone():
    outer = QFileDialog.__dict__["getOpenFileName"]  # the plugin's, for every test
    assert outer.__name__ == "getOpenFileName" and outer.__module__ == "relulab.ui.dialogs"
    with refuse_modal_dialogs():  # nested, it stacks and unstacks
        assert QFileDialog.__dict__["getOpenFileName"] is not outer
        with pytest.raises(ModalDialogRefused, match=r"QMessageBox\.question"):
            QMessageBox.question(None, "?", "?")
        with pytest.raises(ModalDialogRefused, match=r"QDialog\.exec"):
            QMessageBox().exec()
        with pytest.raises(ModalDialogRefused, match="Drive the app through its methods"):
            QFileDialog.getExistingDirectory()
    assert QFileDialog.__dict__["getOpenFileName"] is outer


# -- the plugin, as another project loads it ------------------------------------------------

def test_the_plugin_in_a_fresh_run(tmp_path):
    """Offscreen by default, the "thread" timeout method (it fires while the main thread
    waits inside Qt's event loop: a hung test fails instead of holding the run), and
    fixtures a test outside this repository can use."""
    (tmp_path / "test_outside.py").write_text(textwrap.dedent('''
        import os
        import pytest
        from PySide6.QtCore import QEventLoop


        def test_set_up(request, relulab_window):
            assert os.environ["QT_QPA_PLATFORM"] == "offscreen"
            assert request.config._env_timeout_method == "thread"
            assert "relulab" in os.environ["RELULAB_DATA_DIR"]
            assert relulab_window.current_panel().readouts()["rmse"] > 0


        @pytest.mark.timeout(2)
        def test_hangs_in_the_event_loop(qapp):
            QEventLoop().exec()  # nothing will ever quit it
    '''))
    env = {k: v for k, v in os.environ.items()
           if k not in ("QT_QPA_PLATFORM", "PYTEST_ADDOPTS", "RELULAB_DATA_DIR")}
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "relulab.testing", "-p", "no:cacheprovider",
         "-v", "test_outside.py"], cwd=tmp_path, env=env, capture_output=True,
        text=True, timeout=240)
    text = out.stdout + out.stderr
    assert out.returncode != 0
    assert "Timeout" in text and "test_hangs_in_the_event_loop" in text, text[-3000:]
    assert "test_outside.py::test_set_up PASSED" in text, text[-3000:]
