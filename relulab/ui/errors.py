"""Unexpected exceptions: logged, and shown in a dialog instead of killing the app."""

from __future__ import annotations

import logging
import sys
import traceback

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QWidget

log = logging.getLogger("relulab")


def show_exception(parent: QWidget | None, exc_type, exc, tb) -> QMessageBox:
    """Log the exception and show it in a non-modal dialog (returned, for tests)."""
    text = "".join(traceback.format_exception(exc_type, exc, tb))
    log.error("unexpected error:\n%s", text)
    box = QMessageBox(parent)
    box.setObjectName("error-dialog")
    box.setIcon(QMessageBox.Icon.Critical)
    box.setWindowTitle("ReLU Lab: something went wrong")
    box.setText(f"{exc_type.__name__}: {exc}")
    box.setInformativeText("The work on screen is kept. Details are below and in the log.")
    box.setDetailedText(text)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.setModal(False)
    box.show()
    return box


def install_exception_hook(parent: QWidget | None) -> None:
    """Route exceptions raised in slots (which Qt reports through sys.excepthook)
    to :func:`show_exception`."""
    previous = sys.excepthook

    def hook(exc_type, exc, tb):
        if issubclass(exc_type, KeyboardInterrupt):
            previous(exc_type, exc, tb)
            return
        try:
            show_exception(parent, exc_type, exc, tb)
        except Exception:  # the dialog itself failed: fall back to stderr
            previous(exc_type, exc, tb)

    sys.excepthook = hook
