"""Build the main window with every panel offscreen, paint it, close it cleanly."""

import threading

from PySide6.QtCore import QThreadPool
from PySide6.QtWidgets import QApplication

from relulab.ui.panels import PANELS


def test_build_paint_and_close(qtbot, theme):
    from relulab.app import build_main_window

    before = set(threading.enumerate())
    window = build_main_window()
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    for p in PANELS:
        window.show_panel(p.name)
        QApplication.processEvents()
        assert not window.grab().isNull()  # paints every plot of the panel
    window.close()
    QApplication.processEvents()
    assert QThreadPool.globalInstance().waitForDone(5000)
    assert set(threading.enumerate()) <= before


def test_settings_round_trip_with_types(qtbot):
    from relulab.ui import settings

    settings.set("view/zoom", 1.5)
    settings.set("help/welcome_shown", True)
    assert settings.get("view/zoom") == 1.5
    assert settings.get("help/welcome_shown") is True
    settings.add_recent("/tmp/a.relulab.json")
    settings.add_recent("/tmp/b.relulab.json")
    settings.add_recent("/tmp/a.relulab.json")
    assert settings.get("files/recent") == ["/tmp/a.relulab.json", "/tmp/b.relulab.json"]


def test_main_window_entry_point_does_not_block(qtbot):
    """build_main_window returns without entering the event loop."""
    from relulab.app import build_main_window

    w = build_main_window(panel="folding", theme="high-contrast", zoom=1.5)
    qtbot.addWidget(w)
    assert w.current_panel().name == "folding"
    assert w.theme.name == "high-contrast" and w.theme.zoom == 1.5
    w.theme.set_name("light")
    w.theme.set_zoom(1.0)
    w.close()
