"""A path item whose bounds are cheap whatever the path.

Qt's ``QGraphicsPathItem`` finds its bounding rectangle, when its pen has a width,
by stroking the whole path (``QPainterPathStroker``), and its shape, used for every
hit test of the mouse, the same way: for the 12,000 region outlines of a large
Playground network (70,000 segments) that costs 20–45 ms on the GUI thread each time
the path changes. Here the bounds are the path's points, widened by the pen, and
the shape is that rectangle: the outlines are drawn, never picked.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QPainterPath
from PySide6.QtWidgets import QGraphicsPathItem


class PathItem(QGraphicsPathItem):
    def __init__(self, path: QPainterPath | None = None, parent=None):
        super().__init__(parent)
        self._bounds = QRectF()
        if path is not None:
            self.setPath(path)

    def setPath(self, path: QPainterPath) -> None:
        self.prepareGeometryChange()
        super().setPath(path)
        self._bounds = QRectF()

    def setPen(self, pen) -> None:
        self.prepareGeometryChange()
        super().setPen(pen)
        self._bounds = QRectF()

    def boundingRect(self) -> QRectF:
        if self._bounds.isNull():
            rect = self.path().controlPointRect()
            # a pen's width is in the item's units, or in pixels when cosmetic: then a
            # share of the path's size stands in for it (the views clip to their box)
            pen = self.pen()
            pad = (0.02 * max(rect.width(), rect.height()) if pen.isCosmetic()
                   else pen.widthF()) if pen.style() != Qt.PenStyle.NoPen else 0.0
            self._bounds = rect.adjusted(-pad, -pad, pad, pad)
        return self._bounds

    def shape(self) -> QPainterPath:
        shape = QPainterPath()
        shape.addRect(self.boundingRect())
        return shape
