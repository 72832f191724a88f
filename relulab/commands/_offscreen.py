"""What the commands that draw without a window share (``relulab render``, ``relulab
lecture``): the output's checks before anything is drawn, and Qt kept quiet."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from relulab.commands._edge import Failure

#: The zoom a picture may be drawn at (fonts, lines and handles).
ZOOMS = (0.5, 3.0)


def checked_output(output: str, suffixes: tuple[str, ...]) -> str:
    """``output`` as an absolute path, refused in one line unless it ends in one of
    ``suffixes`` (exit status 2) and its folder exists (1)."""
    out = os.path.abspath(output)
    if os.path.splitext(out)[1].lower() not in suffixes:
        raise Failure(f"{output}: the output must end in {' or '.join(suffixes)}", 2)
    if not os.path.isdir(os.path.dirname(out)):
        raise Failure(f"{output}: the folder {os.path.dirname(out)} does not exist")
    return out


def check_zoom(zoom: float) -> None:
    if not (ZOOMS[0] <= zoom <= ZOOMS[1]):
        raise Failure(f"--zoom {zoom}: must be between {ZOOMS[0]:g} and {ZOOMS[1]:g}", 2)


@contextmanager
def quiet_qt() -> Iterator[None]:
    """Qt's chatter is not the one line a command promises: only its fatal messages
    reach standard error while in the block. Drawing never needs a display."""
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    from PySide6.QtCore import QtMsgType, qInstallMessageHandler

    def quiet(kind, context, message):
        if kind == QtMsgType.QtFatalMsg:
            sys.stderr.write(message + "\n")

    previous = qInstallMessageHandler(quiet)
    try:
        yield
    finally:
        qInstallMessageHandler(previous)
