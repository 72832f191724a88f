"""The pytest plugin of :mod:`relulab.testing`: hooks and fixtures.

Loaded with ``pytest -p relulab.testing`` (or ``addopts = ["-p", "relulab.testing"]``,
or ``pytest_plugins = ["relulab.testing"]`` in a top-level conftest.py). It is not
switched on for every pytest run by an entry point: it changes process-wide things
(Qt's platform, where settings go, modal dialogs refused, the timeout method) that
other projects' test runs in the same environment must not get unasked.
"""

from __future__ import annotations

import os

import pytest


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    config.addinivalue_line(
        "markers", "relulab_modal_dialogs: let this test open modal dialogs (it answers them "
        "itself, e.g. with a QTimer); relulab.testing refuses them otherwise")
    # Offscreen unless the user chose a platform (QT_QPA_PLATFORM=xcb shows the
    # windows). Qt reads this when the QApplication is made, later than this hook.
    if not os.environ.get("QT_QPA_PLATFORM"):
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    # pytest-qt's qtbot must drive the binding ReLU Lab is built on.
    if (config.pluginmanager.hasplugin("pytestqt") and not config.getini("qt_api")
            and not os.environ.get("PYTEST_QT_API")):
        os.environ["PYTEST_QT_API"] = "pyside6"
    # A hung test must fail even when the main thread waits inside Qt's event loop,
    # where pytest-timeout's default "signal" method never gets to run; "thread" does.
    if (config.pluginmanager.hasplugin("timeout")
            and config.getoption("timeout_method", None) is None
            and not config.getini("timeout_method")):
        config.option.timeout_method = "thread"


@pytest.fixture(autouse=True)
def relulab_isolation(request, tmp_path_factory, monkeypatch):
    """Every test: settings, autosaves and data in a fresh temporary folder (never the
    user's), and modal dialogs refused (:func:`relulab.ui.dialogs.refuse_modal_dialogs`;
    a test marked ``relulab_modal_dialogs`` may open them)."""
    folder = tmp_path_factory.mktemp("relulab")
    monkeypatch.setenv("RELULAB_DATA_DIR", str(folder / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(folder / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(folder / "share"))
    try:
        from PySide6.QtCore import QSettings
    except ImportError:  # the model tier runs without Qt
        yield folder
        return
    from relulab.ui.dialogs import refuse_modal_dialogs

    ini, scope = QSettings.Format.IniFormat, QSettings.Scope
    QSettings.setPath(ini, scope.UserScope, str(folder / "settings"))
    QSettings.setPath(ini, scope.SystemScope, str(folder / "settings" / "system"))
    if request.node.get_closest_marker("relulab_modal_dialogs") is not None:
        yield folder
        return
    with refuse_modal_dialogs():
        yield folder


@pytest.fixture(autouse=True)
def relulab_no_lasting_freeze():
    """A test that runs the app's ``main()`` lets the GUI collector freeze what outlives
    a full collection (:func:`relulab.ui.worker.freeze_long_lived_objects`), as the app
    does for the life of its one window: undone after the test, or every window the
    later tests make and drop would stay frozen, never collected."""
    yield
    undo_lasting_freeze()


def undo_lasting_freeze() -> None:
    """Turn the app's freeze off and move what it froze back into the collector's sight."""
    import sys

    worker = sys.modules.get("relulab.ui.worker")
    if worker is not None and worker._freeze_long_lived:
        worker.freeze_long_lived_objects(False)
        import gc

        gc.unfreeze()


@pytest.fixture
def relulab_theme(qapp):
    """A fresh light theme at zoom 1, the application's theme for the test."""
    from relulab.ui.theme import Theme, set_current_theme

    theme = Theme()
    set_current_theme(theme)
    yield theme
    set_current_theme(Theme())


@pytest.fixture
def relulab_window(qtbot, relulab_theme):
    """The main window, shown, exposed and active (its shortcuts work), on the Hinges
    panel; closed after the test (panels shut down, threads joined). Panels are made
    when first shown or asked for: ``window.panel(name)``, ``window.show_panel(name)``."""
    from relulab.ui.application import build_main_window

    window = build_main_window()
    qtbot.addWidget(window)
    with qtbot.waitActive(window):  # (the window activates itself when shown)
        window.show()
    yield window
    window.close()


@pytest.fixture
def relulab_panel(qtbot, relulab_theme):
    """``relulab_panel(name_or_class, size=(1280, 800))``: one panel alone in its
    window (no main window: sending to another panel is refused), shown, active and
    with the keyboard focus; shut down after the test."""
    from relulab.ui.panels import spec

    made = []

    def make(panel, size=(1280, 800)):
        cls = spec(panel).load() if isinstance(panel, str) else panel
        p = cls()
        qtbot.addWidget(p)
        p.resize(*size)
        with qtbot.waitActive(p):
            p.show()
            p.activateWindow()
        p.take_focus()
        made.append(p)
        return p

    yield make
    for p in made:
        p.shutdown()
