"""Presenting: the presenter view (a window with one screen, the laptop's with two),
B to black out, a held P for the pointer, the clicker keys from either window."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QCursor, QGuiApplication
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

ROOT = Path(__file__).resolve().parents[2]


def build(window):
    window.show_panel("hinges").set_value(3.0)
    window.lecture.add_view("A ruler", "One hinge.", "Ask where the kink is.")
    window.show_panel("folding").set_value(-2.0)
    window.lecture.add_view("Folding", "Folds.", "")
    window.show_panel("training")
    window.lecture.add_view("Training", "", "Last one.")


def present(window, qtbot):
    build(window)
    assert window.lecture.present()
    view = window.lecture.presenting.view
    qtbot.waitUntil(lambda: view.isVisible())
    return view


def test_one_screen_the_presenter_view_is_a_window_to_toggle(fake_window, qtbot):
    w = fake_window
    assert len(QGuiApplication.screens()) == 1
    view = present(w, qtbot)
    shown = w.lecture.presenting.readouts()
    assert shown["presenting"] and not shown["two_screens"]
    assert shown["position"] == 1 and shown["title"] == "A ruler"
    assert shown["notes"] == "Ask where the kink is."
    assert shown["caption"] == "One hinge." and view.caption.isVisible()
    assert shown["next_title"] == "Folding"
    assert not view.next_picture.pixmap().isNull()
    assert shown["elapsed"] == 0 and len(shown["clock"]) == 5
    assert not w.isFullScreen()
    w.menu_actions["action-lecture-present"].trigger()  # F5 again: the view goes
    assert not view.isVisible() and w.lecture.running
    assert w.menu_actions["action-lecture-present"].shortcut().toString() == "F5"


def test_clicker_keys_step_from_the_presenter_view(fake_window, qtbot):
    w = fake_window
    view = present(w, qtbot)
    view.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is view)
    QTest.keyClick(view, Qt.Key.Key_PageDown)
    assert w.lecture.index == 1
    assert w.lecture.presenting.readouts()["position"] == 2
    assert w.lecture.presenting.readouts()["next_title"] == "Training"
    assert w.lecture.presenting.readouts()["caption"] == "Folds."
    QTest.keyClick(view, Qt.Key.Key_PageDown)
    assert w.lecture.presenting.readouts()["next_title"] == "(the last scene)"
    assert not view.caption.isVisible()  # the last scene has no caption
    QTest.keyClick(view, Qt.Key.Key_PageUp)
    assert w.lecture.index == 1


def test_b_blacks_out_the_audience_window_and_back(fake_window, qtbot):
    w = fake_window
    present(w, qtbot)
    w.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is w)
    sheet = w.lecture.presenting.blackout
    QTest.keyClick(w, Qt.Key.Key_B)
    assert sheet.isVisible() and sheet.geometry() == w.rect()
    assert w.lecture.presenting.readouts()["blackout"]
    assert "BLACK" in w.lecture.presenting.view.blacked.text()
    QTest.keyClick(w, Qt.Key.Key_B)
    assert not sheet.isVisible()


def test_b_blacks_out_from_the_presenter_view_too(fake_window, qtbot):
    w = fake_window
    view = present(w, qtbot)
    view.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is view)
    QTest.keyClick(view, Qt.Key.Key_B)
    assert w.lecture.presenting.blackout.isVisible()


def test_a_held_p_shows_a_pointer_that_follows_the_mouse(fake_window, qtbot):
    w = fake_window
    present(w, qtbot)
    w.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is w)
    dot = w.lecture.presenting.pointer
    QCursor.setPos(w.mapToGlobal(QPoint(200, 150)))
    QTest.keyPress(w, Qt.Key.Key_P)
    assert dot.isVisible()
    assert dot.geometry().center() == QPoint(200, 150)
    QCursor.setPos(w.mapToGlobal(QPoint(400, 300)))
    qtbot.waitUntil(lambda: dot.geometry().center() == QPoint(400, 300))
    QTest.keyRelease(w, Qt.Key.Key_P)
    assert not dot.isVisible()


def test_the_lecture_keys_do_nothing_to_b_and_p_when_no_lecture_runs(fake_window):
    w = fake_window
    QTest.keyClick(w, Qt.Key.Key_B)
    assert not w.lecture.presenting.blackout.isVisible()


def test_ending_the_lecture_stops_presenting(fake_window, qtbot):
    w = fake_window
    view = present(w, qtbot)
    w.lecture.presenting.set_blackout(True)
    w.lecture.end()
    assert not view.isVisible() and not w.lecture.presenting.blackout.isVisible()


#: Run in a process of its own, on two kinds of two-screen server: Qt's offscreen
#: platform told of two screens side by side on one desktop (a laptop and a projector
#: to its right), and an Xvfb X server with two X screens (Qt sees two screens with
#: RandR off; with RandR on, or with +xinerama, or with one wide screen split by
#: xrandr --setmonitor, it saw one).
TWO_SCREENS = {"synchronousWindowSystemEvents": True, "windowFrameMargins": False, "screens": [
    {"name": "laptop", "x": 0, "y": 0, "width": 1366, "height": 768, "logicalDpi": 96,
     "logicalBaseDpi": 96, "dpr": 1},
    {"name": "projector", "x": 1366, "y": 0, "width": 1280, "height": 720, "logicalDpi": 96,
     "logicalBaseDpi": 96, "dpr": 1}]}

SCRIPT = """
import json, sys
from PySide6.QtWidgets import QApplication
from relulab.ui.panels import PANELS, PanelSpec
from tests.ui.fakes import fake_class
classes = {p.name: fake_class(p) for p in PANELS}
PanelSpec.load = lambda self: classes[self.name]
from relulab.ui.application import build_main_window
window = build_main_window()
window.show()
QApplication.processEvents()
window.lecture.add_view("One", "c1", "n1")
window.lecture.add_view("Two", "c2", "n2")
assert window.lecture.present()
for _ in range(5):
    QApplication.processEvents()
view = window.lecture.presenting.view
print(json.dumps({
    "screens": [s.name() for s in QApplication.screens()],
    "window_screen": window.screen().name(), "window_full": window.isFullScreen(),
    "menu": window.menuBar().isVisible(),
    "window": window.geometry().getRect(), "projector": window.screen().geometry().getRect(),
    "view_screen": view.screen().name(), "view_visible": view.isVisible(),
    "view": view.geometry().getRect(),
    "readouts": {k: v for k, v in window.lecture.presenting.readouts().items()
                 if k in ("two_screens", "notes", "position")}}))
window.lecture.present()
for _ in range(3):
    QApplication.processEvents()
print(json.dumps({"after_full": window.isFullScreen(), "after_screen": window.screen().name(),
                  "view_visible": view.isVisible(), "menu": window.menuBar().isVisible()}))
window.close()
"""


def run_script(tmp_path, platform: str, display: str | None = None):
    env = dict(os.environ, QT_QPA_PLATFORM=platform,
               RELULAB_DATA_DIR=str(tmp_path / "data"), HOME=str(tmp_path),
               XDG_CONFIG_HOME=str(tmp_path / "config"),
               PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    if display is not None:
        env["DISPLAY"] = display
    r = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, env=env, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return (json.loads(line) for line in r.stdout.strip().splitlines()[-2:])


def check(during, after, laptop, projector):
    assert during["screens"] == [laptop, projector]
    assert during["window_screen"] == projector and during["window_full"]
    assert not during["menu"] and after["menu"]  # the room sees the scene, not the menus
    assert during["window"] == during["projector"]  # all of it, even without a window manager
    assert during["view_screen"] == laptop and during["view_visible"]
    assert during["readouts"] == {"two_screens": True, "notes": "n1", "position": 1}
    assert not after["after_full"] and after["after_screen"] == laptop
    assert not after["view_visible"]


def test_two_screens_the_audience_gets_the_other_one(tmp_path):
    config = tmp_path / "screens.json"
    config.write_text(json.dumps(TWO_SCREENS))
    during, after = run_script(tmp_path, f"offscreen:configfile={config}")
    check(during, after, "laptop", "projector")
    assert during["window"] == [1366, 0, 1280, 720]


@pytest.fixture
def two_x_screens():
    """An Xvfb server with two X screens (its display name), stopped afterwards."""
    if shutil.which("Xvfb") is None:
        pytest.skip("Xvfb is not installed: the offscreen test above covers two screens")
    read, write = os.pipe()
    server = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-extension", "RANDR",
                               "-screen", "0", "1366x768x24", "-screen", "1", "1280x720x24"],
                              pass_fds=(write,), stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    os.close(write)
    with os.fdopen(read) as numbers:
        number = numbers.readline().strip()  # written once the server accepts clients
    try:
        if not number:
            pytest.skip("Xvfb did not start")
        yield f":{number}"
    finally:
        server.terminate()
        server.wait(10)


def test_two_x_screens_the_audience_gets_the_other_one(tmp_path, two_x_screens):
    during, after = run_script(tmp_path, "xcb", two_x_screens)
    check(during, after, f"{two_x_screens}.0", f"{two_x_screens}.1")
