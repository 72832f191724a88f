"""Real mouse events for pyqtgraph views (pytest-qt has no drag).

Events are ``QMouseEvent``s with the held buttons, sent to the view's viewport
with ``QApplication.sendEvent``, as pyqtgraph's own ``tests/ui_testing.py`` does.
Set ``pg.setConfigOption('mouseRateLimit', -1)`` (tests/ui/conftest.py does) so
every move is delivered at once.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication, QGraphicsView

LEFT = Qt.MouseButton.LeftButton
RIGHT = Qt.MouseButton.RightButton
NO_BUTTON = Qt.MouseButton.NoButton
NO_MODIFIER = Qt.KeyboardModifier.NoModifier


def _target(view):
    return view.viewport() if isinstance(view, QGraphicsView) else view


def data_to_viewport(plot_widget, x: float, y: float) -> QPointF:
    """Viewport coordinates of the data point (x, y) in a PlotWidget."""
    vb = plot_widget.getPlotItem().getViewBox()
    scene_pos = vb.mapViewToScene(QPointF(x, y))
    return QPointF(plot_widget.mapFromScene(scene_pos))


def _send(view, kind, pos: QPointF, button, buttons, modifiers=NO_MODIFIER) -> None:
    widget = _target(view)
    pos = QPointF(pos)
    global_pos = QPointF(widget.mapToGlobal(pos.toPoint()))
    event = QMouseEvent(kind, pos, global_pos, button, buttons, modifiers)
    QApplication.sendEvent(widget, event)


def press(view, pos, button=LEFT, modifiers=NO_MODIFIER) -> None:
    _send(view, QEvent.Type.MouseButtonPress, pos, button, button, modifiers)


def move(view, pos, buttons=NO_BUTTON, modifiers=NO_MODIFIER) -> None:
    _send(view, QEvent.Type.MouseMove, pos, NO_BUTTON, buttons, modifiers)


def release(view, pos, button=LEFT, modifiers=NO_MODIFIER) -> None:
    _send(view, QEvent.Type.MouseButtonRelease, pos, button, NO_BUTTON, modifiers)


def click(view, pos, button=LEFT, modifiers=NO_MODIFIER) -> None:
    press(view, pos, button, modifiers)
    release(view, pos, button, modifiers)


def double_click(view, pos, button=LEFT, modifiers=NO_MODIFIER) -> None:
    press(view, pos, button, modifiers)
    release(view, pos, button, modifiers)
    _send(view, QEvent.Type.MouseButtonDblClick, pos, button, button, modifiers)
    release(view, pos, button, modifiers)


def drag(view, start, end, steps: int = 8, button=LEFT, modifiers=NO_MODIFIER,
         cancel: bool = False) -> None:
    """Press at ``start``, move in ``steps`` to ``end``, release (viewport coordinates).

    With ``cancel=True`` a right-button press arrives before the release, which
    panels treat as "cancel this drag".
    """
    start, end = QPointF(start), QPointF(end)
    if isinstance(view, QGraphicsView) and view.scene() is not None:
        view.scene().minDragTime = 0  # pyqtgraph otherwise waits 0.5 s before a drag
    move(view, start, NO_BUTTON, modifiers)
    press(view, start, button, modifiers)
    for i in range(1, steps + 1):
        t = i / steps
        move(view, start + (end - start) * t, button, modifiers)
    if cancel:
        _send(view, QEvent.Type.MouseButtonPress, end, RIGHT, button | RIGHT, modifiers)
        _send(view, QEvent.Type.MouseButtonRelease, end, RIGHT, button, modifiers)
    release(view, end, button, modifiers)


def as_point(x: float, y: float) -> QPoint:
    return QPoint(int(round(x)), int(round(y)))
