"""Test set-up shared by every tier.

Qt runs offscreen, and settings and data folders point at a temporary directory,
so tests never read or write the user's real files.
"""

import os
import sys

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402


def _qt_available() -> bool:
    try:
        import PySide6  # noqa: F401
    except ImportError:
        return False
    return True


if not _qt_available():
    # The model tier must run without Qt installed: skip the Qt-using folders.
    collect_ignore_glob = ["ui/*"]


@pytest.fixture(autouse=True)
def _isolated_settings(tmp_path_factory, request):
    """Point QSettings and QStandardPaths at a fresh temporary folder for each test."""
    if "PySide6.QtCore" not in sys.modules:
        yield
        return
    from PySide6.QtCore import QSettings, QStandardPaths

    folder = tmp_path_factory.mktemp("settings")
    QStandardPaths.setTestModeEnabled(True)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(folder))
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.SystemScope, str(folder / "system"))
    yield


@pytest.fixture
def theme():
    """A fresh light theme at zoom 1, installed as the application's theme."""
    from relulab.ui.theme import Theme, set_current_theme

    t = Theme()
    set_current_theme(t)
    yield t
    set_current_theme(Theme())
