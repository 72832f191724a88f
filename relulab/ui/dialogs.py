"""File dialogs, each with the method that does the same without one.

The app opens every file dialog through :func:`open_file_name` and
:func:`save_file_name`, which say what a script or a test calls instead
(``instead="window.open_scene(path)"``). A modal dialog waits for an answer that a
test never gives, so under :func:`refuse_modal_dialogs` (which ``relulab.testing``
turns on for every test) opening one raises :class:`ModalDialogRefused`, naming that
method, instead of hanging. Message boxes of the app are not modal (``open()``) and
are not refused.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager

from PySide6.QtWidgets import (
    QColorDialog,
    QDialog,
    QFileDialog,
    QFontDialog,
    QInputDialog,
    QMenu,
    QMessageBox,
    QWidget,
)

GUIDE = "docs/automation.md, “Without dialogs”"


class ModalDialogRefused(RuntimeError):
    """A modal dialog was about to wait for an answer inside a test."""


_standing_for = threading.local()


@contextmanager
def _instead(method: str):
    previous = getattr(_standing_for, "method", None)
    _standing_for.method = method
    try:
        yield
    finally:
        _standing_for.method = previous


def open_file_name(parent: QWidget | None, caption: str, folder: str, filters: str, *,
                   instead: str) -> tuple[str, str]:
    """``QFileDialog.getOpenFileName``; ``instead`` is the call that opens a file
    without the dialog (named when the dialog is refused)."""
    with _instead(instead):
        return QFileDialog.getOpenFileName(parent, caption, folder, filters)


def save_file_name(parent: QWidget | None, caption: str, start: str, filters: str, *,
                   instead: str) -> tuple[str, str]:
    """``QFileDialog.getSaveFileName``; ``instead`` as for :func:`open_file_name`."""
    with _instead(instead):
        return QFileDialog.getSaveFileName(parent, caption, start, filters)


#: What would wait for an answer: Qt's static dialog functions and the modal loops.
MODAL = {
    QFileDialog: ("getOpenFileName", "getOpenFileNames", "getSaveFileName",
                  "getExistingDirectory", "getOpenFileUrl", "getOpenFileUrls",
                  "getSaveFileUrl", "getExistingDirectoryUrl"),
    QMessageBox: ("information", "question", "warning", "critical", "about", "aboutQt"),
    QInputDialog: ("getText", "getMultiLineText", "getInt", "getDouble", "getItem"),
    QColorDialog: ("getColor",),
    QFontDialog: ("getFont",),
    QDialog: ("exec", "exec_"),
    QMenu: ("exec", "exec_"),
}


def _refuser(owner: type, name: str):
    def refuse(*_args, **_kwargs):
        method = getattr(_standing_for, "method", None)
        without = (f"Without a dialog: {method}." if method else
                   "Drive the app through its methods instead.")
        raise ModalDialogRefused(
            f"{owner.__name__}.{name}() would open a modal dialog and wait for an answer; "
            f"tests refuse it. {without} (See {GUIDE}.)")

    refuse.__name__ = name
    return refuse


@contextmanager
def refuse_modal_dialogs():
    """Inside, every modal dialog and modal menu raises :class:`ModalDialogRefused`
    instead of waiting. A test that answers a dialog itself replaces the function it
    calls (``monkeypatch.setattr(QFileDialog, "getSaveFileName", …)``) after this."""
    saved = []
    for owner, names in MODAL.items():
        for name in names:
            if name in owner.__dict__:
                saved.append((owner, name, owner.__dict__[name]))
                setattr(owner, name, _refuser(owner, name))
    try:
        yield
    finally:
        for owner, name, original in reversed(saved):
            setattr(owner, name, original)
