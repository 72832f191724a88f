"""The shell: panels, menus, undo, zoom, errors, clean shutdown."""

import threading

import pytest
from PySide6.QtGui import QUndoCommand
from PySide6.QtWidgets import QApplication

from relulab.ui.panels import PANELS


def test_every_panel_is_built_with_its_object_name(main_window):
    for p in PANELS:
        widget = main_window.findChild(type(main_window.panel(p.name)), f"panel-{p.name}")
        assert widget is main_window.panel(p.name)
    assert main_window.tabs.count() == len(PANELS)


def test_show_panel_and_menu_shortcuts(main_window, qtbot):
    main_window.show_panel("folding")
    assert main_window.current_panel().name == "folding"
    main_window.findChild(type(main_window.undo_action), "action-show-converter").trigger()
    assert main_window.current_panel().name == "converter"
    with pytest.raises(KeyError, match="unknown panel"):
        main_window.show_panel("nope")


def test_undo_follows_the_visible_panel(main_window):
    class Bump(QUndoCommand):
        def __init__(self, box):
            super().__init__("bump")
            self.box = box

        def redo(self):
            self.box[0] += 1

        def undo(self):
            self.box[0] -= 1

    box = [0]
    main_window.show_panel("hinges")
    main_window.panel("hinges").undo_stack.push(Bump(box))
    assert box == [1]
    main_window.show_panel("folding")
    assert not main_window.undo_action.isEnabled()  # folding's stack is empty
    main_window.show_panel("hinges")
    main_window.undo_action.trigger()
    assert box == [0]
    main_window.redo_action.trigger()
    assert box == [1]


def test_zoom_scales_the_application_font(main_window, theme):
    before = QApplication.font().pointSizeF()
    main_window.findChild(type(main_window.undo_action), "action-zoom-in").trigger()
    assert theme.zoom == pytest.approx(1.2)
    assert QApplication.font().pointSizeF() == pytest.approx(before * 1.2, rel=0.05)
    main_window.findChild(type(main_window.undo_action), "action-zoom-reset").trigger()
    assert theme.zoom == 1.0


def test_theme_switch(main_window, theme):
    main_window.findChild(type(main_window.undo_action), "action-theme-dark").trigger()
    assert theme.name == "dark"
    assert QApplication.palette().window().color().name() == "#1e1e1e"
    theme.set_name("light")


def test_about_names_version_and_licences(main_window, qtbot):
    import relulab

    box = main_window.show_about()
    assert relulab.__version__ in box.text()
    assert "LGPL" in box.text() and "MIT" in box.text()
    box.close()


def test_exception_in_a_slot_shows_a_dialog(main_window, qtbot):
    from relulab.ui.errors import show_exception

    try:
        raise RuntimeError("boom in a slot")
    except RuntimeError as exc:
        box = show_exception(main_window, type(exc), exc, exc.__traceback__)
    assert box.objectName() == "error-dialog"
    assert "boom in a slot" in box.text()
    assert main_window.isVisible()
    box.close()


@pytest.mark.qt_no_exception_capture
def test_exception_hook_catches_slot_errors(main_window, qtbot, monkeypatch):
    import sys

    from PySide6.QtCore import QTimer

    from relulab.ui.errors import install_exception_hook

    monkeypatch.setattr(sys, "excepthook", sys.excepthook)
    install_exception_hook(main_window)
    shown = []

    def fail():
        raise ValueError("raised inside a timer slot")

    QTimer.singleShot(0, fail)
    qtbot.waitUntil(lambda: main_window.findChild(type(main_window), "error-dialog") is not None
                    or bool(shown) or _dialog(main_window) is not None, timeout=3000)
    box = _dialog(main_window)
    assert box is not None and "raised inside a timer slot" in box.text()
    box.close()


def _dialog(window):
    from PySide6.QtWidgets import QMessageBox

    return window.findChild(QMessageBox, "error-dialog")


def test_close_leaves_no_thread(qtbot, theme):
    from relulab.app import build_main_window

    before = set(threading.enumerate())
    window = build_main_window()
    qtbot.addWidget(window)
    window.show()
    window.close()
    QApplication.processEvents()
    assert set(threading.enumerate()) <= before


def test_last_panel_is_remembered(qtbot, theme):
    from relulab.app import build_main_window

    window = build_main_window()
    qtbot.addWidget(window)
    window.show_panel("converter")
    window.close()
    again = build_main_window()
    qtbot.addWidget(again)
    assert again.current_panel().name == "converter"
    again.close()


def test_a_panel_asked_for_on_the_command_line_is_not_remembered(qtbot, theme):
    from relulab.app import build_main_window

    window = build_main_window(panel="folding")  # relulab --panel folding
    qtbot.addWidget(window)
    window.close()
    again = build_main_window()
    qtbot.addWidget(again)
    assert again.current_panel().name == "hinges"
    again.close()


def _launch(argv, monkeypatch, qtbot, seen):
    """``relulab ARGV``: the real entry point; the event loop is replaced by a look at the
    window, a quit (Ctrl+Q) and its return."""
    import sys

    def fake_exec(*_):
        window = next(w for w in QApplication.topLevelWidgets()
                      if w.objectName() == "main-window" and w.isVisible())
        seen.append((window.theme.name, round(window.theme.zoom, 3), window.lecture_layout,
                     window.current_panel().name))
        window.lecture.end()
        window.findChild(type(window.undo_action), "action-quit").trigger()
        return 0

    monkeypatch.setattr(QApplication, "exec", fake_exec)
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)
    from relulab.app import main

    assert main(argv) == 0


def test_command_line_flags_hold_for_one_launch(qtbot, theme, monkeypatch, data_dir):
    """relulab --theme dark --zoom 1.6 --panel folding --lecture, quit, relulab: the
    saved (default) theme, zoom and panel, controls shown."""
    seen = []
    _launch(["--theme", "dark", "--zoom", "1.6", "--panel", "folding"], monkeypatch, qtbot, seen)
    _launch(["--lecture"], monkeypatch, qtbot, seen)
    _launch([], monkeypatch, qtbot, seen)
    assert seen[0] == ("dark", 1.6, False, "folding")
    assert seen[1][:3] == ("light", 1.0, True)
    assert seen[2] == ("light", 1.0, False, "hinges")


def test_settings_change_from_the_menus_only(qtbot, theme, monkeypatch, data_dir):
    from relulab.ui import settings

    window = __import__("relulab.app", fromlist=["x"]).build_main_window()
    qtbot.addWidget(window)
    window.findChild(type(window.undo_action), "action-theme-high-contrast").trigger()
    window.findChild(type(window.undo_action), "action-zoom-in").trigger()
    window.findChild(type(window.undo_action), "action-lecture-layout").trigger()
    assert window.lecture_layout
    window.close()
    assert settings.get("view/theme") == "high-contrast"
    assert settings.get("view/zoom") == pytest.approx(1.2)
    seen = []
    _launch([], monkeypatch, qtbot, seen)
    assert seen == [("high-contrast", 1.2, False, "hinges")]  # the lecture layout is per launch


@pytest.mark.parametrize("screen", [(1366, 768), (1280, 720), (1024, 600), (1920, 1080)])
def test_the_first_window_fits_the_screen(qtbot, theme, screen):
    from PySide6.QtCore import QSize

    from relulab.ui.main_window import DEFAULT_SIZE, ESTIMATED_FRAME, default_size

    size = default_size(QSize(*screen))
    assert size.width() + ESTIMATED_FRAME.width() <= screen[0]
    assert size.height() + ESTIMATED_FRAME.height() <= screen[1]
    assert size == DEFAULT_SIZE.boundedTo(size)
    if screen[1] >= 900:
        assert size == DEFAULT_SIZE


def test_the_window_opens_inside_the_available_screen(qtbot, theme):
    from relulab.app import build_main_window

    window = build_main_window()
    qtbot.addWidget(window)
    window.resize(5000, 4000)  # a saved size from a larger screen
    window.move(3000, 2000)
    window._fitted = False
    window.show()
    qtbot.waitExposed(window)
    available = window.screen().availableGeometry()
    assert available.contains(window.frameGeometry())
    window.close()


# -- panels are created when first shown or asked for ---------------------------------------

def stateful(window):
    """The panels whose initial state is known without creating them."""
    return [p.name for p in PANELS if p.state is not None]


def test_only_the_shown_panel_is_created_at_start(qtbot, theme):
    from relulab.app import build_main_window

    window = build_main_window(panel="folding")
    qtbot.addWidget(window)
    created = window.panels.created()
    assert "folding" in created
    for name in stateful(window):
        if name != "folding":
            assert name not in created, f"{name} was created before it was shown"
    assert not window.session.is_modified()
    converter = window.panel("converter")  # asked for: created now, not shown
    assert "converter" in window.panels.created() and window.current_panel().name == "folding"
    window.show_panel("hinges")
    assert window.current_panel() is window.panel("hinges")
    assert not window.session.is_modified(), "creating a panel must not look like an edit"
    assert converter.wait_until_idle()
    window.close()


def test_a_new_panel_starts_in_the_state_the_window_reported_for_it(qtbot, theme):
    """The registry names each panel's state class, and a new panel shows that class's
    default: what the window says about a panel it has not created (scenes, the
    unsaved-changes check) is what the panel shows once created."""
    for p in PANELS:
        cls = p.load()
        assert p.state_class() is cls.state_class, f"{p.name}: registry and panel disagree"
        if cls.state_class is None:
            continue
        initial = cls.state_class().to_dict()
        panel = cls()
        qtbot.addWidget(panel)
        try:
            assert panel.state_dict() == initial, p.name
            assert cls.state_class.from_dict(initial).to_dict() == initial, p.name
        finally:
            panel.shutdown()


def test_scenes_sends_and_lectures_create_what_they_need(qtbot, theme, tmp_path, data_dir):
    from relulab.app import build_main_window
    from relulab.model.networks.mlp import MLP

    window = build_main_window(panel="hinges")
    qtbot.addWidget(window)
    state = window.session.capture()
    state.panels["folding"]["depth"] = 7
    from relulab.io.scenes import write_scene

    write_scene(tmp_path / "s.relulab.json", state)
    assert window.open_scene(tmp_path / "s.relulab.json")
    assert window.panels.created()["folding"].state.depth == 7  # created to take its state
    assert "converter" not in window.panels.created()  # its part of the scene is its start
    assert window.send_to("converter", "network", MLP.random([1, 3, 1], seed=0))
    assert window.current_panel().name == "converter"
    window.close()


def test_a_lecture_restores_the_work_without_creating_every_panel(qtbot, theme, data_dir):
    from relulab.app import build_main_window

    window = build_main_window(panel="hinges")
    qtbot.addWidget(window)
    before = {n: window.panels.state_dict(n) for n in window.panels}
    assert window.lecture.start_builtin()
    window.lecture.next()
    shown = {window.current_panel().name, "hinges"}
    window.lecture.end()
    assert {n: window.panels.state_dict(n) for n in window.panels} == before
    for name in stateful(window):
        if name not in shown:
            assert name not in window.panels.created(), name
    window.close()


def test_the_first_panels_need_no_scipy():
    """scipy takes a third of a second to import: the Hinges and Folding panels (the
    window's first) never need it, so it waits until a conversion or a region map does."""
    import subprocess
    import sys
    from pathlib import Path

    code = ("import os, sys; os.environ['QT_QPA_PLATFORM'] = 'offscreen'\n"
            "from relulab.ui.application import ensure_application\n"
            "app = ensure_application()\n"
            "import relulab.ui.main_window, relulab.ui.panels.converter.panel\n"
            "from relulab.ui.panels.folding import FoldingPanel\n"
            "from relulab.ui.panels.hinges import HingesPanel\n"
            "panels = [HingesPanel(), FoldingPanel()]\n"
            "for p in panels:\n"
            "    p.show(); app.processEvents(); assert p.wait_until_idle(60)\n"
            "    p.count_label if hasattr(p, 'count_label') else p.rmse_label\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'scipy')[:3])\n"
            "for p in panels: p.shutdown()\n")
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True,
                         timeout=180)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]", out.stdout
