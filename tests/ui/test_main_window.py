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

    window = build_main_window(panel="converter")
    qtbot.addWidget(window)
    window.close()
    again = build_main_window()
    qtbot.addWidget(again)
    assert again.current_panel().name == "converter"
    again.close()
