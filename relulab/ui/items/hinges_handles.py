"""The kink handles of the Hinges panel: one scatter item for all of them.

One item, not one per hinge, so that a redraw with 200 hinges is one ``setData``.
A drag has the four phases of design.md habit 3: start (the panel takes a
snapshot), move, finish (one undo step), and a right click during the drag cancels
it. Only the left button drags; a drag that does not start on a handle is left to
the view box (it pans).
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, Qt, Signal


class HandlesItem(pg.ScatterPlotItem):
    """Handles at (kink, f̂(kink)). Signals carry the hinge index and, for moves,
    the mouse position in data coordinates."""

    drag_started = Signal(int, QPointF)
    drag_moved = Signal(int, QPointF)
    drag_finished = Signal(int)
    drag_cancelled = Signal(int)
    clicked = Signal(int)

    def __init__(self):
        super().__init__(pxMode=True)
        self._dragging: int | None = None
        self._cancelled = False
        self.draggable = True
        self.setZValue(10)

    def index_at(self, pos: QPointF) -> int | None:
        """The handle under ``pos`` (item coordinates), topmost first, or None."""
        pts = self.pointsAt(pos)
        if len(pts) == 0:
            return None
        return int(pts[0].index())

    def mouseDragEvent(self, ev):
        if ev.button() != Qt.MouseButton.LeftButton:
            ev.ignore()
            return
        if ev.isStart():
            i = self.index_at(ev.buttonDownPos()) if self.draggable else None
            if i is None:
                ev.ignore()  # not on a handle: let the view pan
                return
            self._dragging, self._cancelled = i, False
            ev.accept()
            self.drag_started.emit(i, QPointF(ev.buttonDownPos()))
            self.drag_moved.emit(i, QPointF(ev.pos()))
            return
        if self._dragging is None:
            ev.ignore()
            return
        ev.accept()
        if self._cancelled:
            if ev.isFinish():
                self._dragging, self._cancelled = None, False
            return
        if ev.isFinish():
            i, self._dragging = self._dragging, None
            self.drag_moved.emit(i, QPointF(ev.pos()))
            self.drag_finished.emit(i)
        else:
            self.drag_moved.emit(self._dragging, QPointF(ev.pos()))

    def mouseClickEvent(self, ev):
        if self._dragging is not None:
            if ev.button() == Qt.MouseButton.RightButton and not self._cancelled:
                ev.accept()
                self._cancelled = True
                self.drag_cancelled.emit(self._dragging)
            return
        if ev.button() == Qt.MouseButton.LeftButton and not ev.double():
            i = self.index_at(ev.pos())
            if i is not None:
                ev.accept()
                self.clicked.emit(i)
                return
        ev.ignore()

    def set_handles(self, xs: np.ndarray, ys: np.ndarray, brush, pen, size: float) -> None:
        """All handles in one style: with no per-point styles pyqtgraph's setData stays
        cheap at 200 handles (the selection is a separate marker, :class:`SelectedMarker`)."""
        self.setData(x=xs, y=ys, size=size, brush=brush, pen=pen, symbol="o")


class SelectedMarker(pg.ScatterPlotItem):
    """A larger disc under the selected handle, so it shows as a coloured ring. It
    takes no mouse input: clicks and drags go to the handle above it."""

    def __init__(self):
        super().__init__(pxMode=True)
        self.setZValue(9)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)

    def mouseClickEvent(self, ev):
        ev.ignore()

    def show_at(self, x: float | None, y: float | None, brush, pen, size: float) -> None:
        if x is None:
            self.setData([], [])
            return
        self.setData(x=[x], y=[y], size=size, brush=brush, pen=pen, symbol="o")
