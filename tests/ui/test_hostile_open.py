"""``open_scene`` against the hostile-file corpus (tests/hostile.py), with every real
panel: each file is refused (False), the message is one line naming the file, the
field and the problem, it takes at most 2 s, and nothing on screen changes: every
panel's state, the panel shown, the document and the window title stay as they were.

Memory is measured where it is spent, in the reader, in tests/test_hostile_convert.py
(a forked process per file). ``hostile.PANEL_STATE_CASES`` (well-formed scenes whose
panel fields are out of bounds) are refused here too, by the panels' own state
validation, with the field named.
"""

import time

import pytest
from PySide6.QtWidgets import QApplication, QMessageBox

from tests import hostile

OPEN_SCENE_CASES = hostile.CORPUS | hostile.PANEL_STATE_CASES
MAX_CPU_S = 2.0
DEADLINE_S = 20.0  # wall clock: a hang, not a slow machine


@pytest.fixture(scope="module")
def window(qapp, tmp_path_factory):
    from relulab.app import build_main_window
    from relulab.ui.theme import Theme, set_current_theme

    set_current_theme(Theme())
    w = build_main_window()
    w.show()
    w.show_panel("folding")
    yield w
    w.close()
    w.deleteLater()
    QApplication.processEvents()


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return hostile.build(OPEN_SCENE_CASES, tmp_path_factory.mktemp("hostile") / "files")


def _screen(w) -> dict:
    return {"states": {n: p.state_dict() for n, p in w.panels.items()},
            "current": w.current_panel().name, "path": w.session.path,
            "title": w.windowTitle(), "modified": w.isWindowModified(),
            "lecture": w.lecture.running}


@pytest.mark.parametrize("name", sorted(OPEN_SCENE_CASES))
def test_open_scene_refuses_and_changes_nothing(window, files, name):
    w = window
    path = files[name]
    before = _screen(w)
    start_wall, start_cpu = time.monotonic(), time.thread_time()
    opened = w.open_scene(path)
    cpu, wall = time.thread_time() - start_cpu, time.monotonic() - start_wall
    try:
        assert opened is False
        err = w.session.last_error
        message = str(err)
        assert "\n" not in message and err.field and err.problem, message
        words = OPEN_SCENE_CASES[name][2]
        if words:
            assert words in message, message
        status = w.statusBar().currentMessage()
        assert "\n" not in status and status.startswith("Could not open ")
        assert hostile_name(path) in status, status  # the file is named
        box = w.findChild(QMessageBox, "scene-error-dialog")
        assert box is not None and "\n" not in box.text()
        assert _screen(w) == before
        assert cpu <= MAX_CPU_S and wall < DEADLINE_S, (cpu, wall)
    finally:
        for box in w.findChildren(QMessageBox, "scene-error-dialog"):
            box.close()
            box.deleteLater()
        QApplication.processEvents()


def hostile_name(path) -> str:
    from relulab.io.limits import one_line

    return one_line(path.name, 200)
