"""Real mouse events on pyqtgraph plots, in data coordinates or in pixels.

pytest-qt has no drag, and ``qtbot.mousePress/Move/Release`` leave pyqtgraph items
without their drag events. These functions build ``QMouseEvent`` s with the buttons
held and send them to the view's viewport, as pyqtgraph's own tests do.

A position is either a **data point**, a pair of numbers ``(x, y)`` in the plot's
axes (what the plot shows), or a **pixel position** in the view's viewport, a
``QPoint``/``QPointF``. ``plot`` is a ``PlotWidget`` (or any pyqtgraph
``GraphicsView`` holding one plot), a ``PlotItem`` or a ``ViewBox``.

Two pyqtgraph settings would swallow a fast synthetic drag: the global limit of 100
mouse moves a second (``mouseRateLimit``) and the scene's half second before a press
and move count as a drag (``minDragTime``). Every function here lifts both while it
sends its events and puts them back afterwards, so nothing needs setting beforehand.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import contextmanager

import pyqtgraph as pg
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication, QGraphicsView

LEFT = Qt.MouseButton.LeftButton
RIGHT = Qt.MouseButton.RightButton
NO_BUTTON = Qt.MouseButton.NoButton
NO_MODIFIER = Qt.KeyboardModifier.NoModifier

Position = QPoint | QPointF | Sequence[float]


def view_box(plot) -> pg.ViewBox:
    """The ViewBox whose axes data coordinates refer to."""
    if isinstance(plot, pg.ViewBox):
        return plot
    if isinstance(plot, pg.PlotItem):
        return plot.getViewBox()
    if isinstance(plot, pg.PlotWidget):
        return plot.getPlotItem().getViewBox()
    if isinstance(plot, QGraphicsView) and plot.scene() is not None:
        boxes = [i for i in plot.scene().items() if isinstance(i, pg.ViewBox)]
        if len(boxes) == 1:
            return boxes[0]
        raise ValueError(f"{plot.objectName() or type(plot).__name__} holds {len(boxes)} "
                         "plots: pass the PlotItem or ViewBox meant")
    raise TypeError(f"not a pyqtgraph plot: {plot!r}")


def graphics_view(plot) -> QGraphicsView:
    """The view (widget) showing ``plot``."""
    if isinstance(plot, QGraphicsView):
        return plot
    scene = plot.scene()
    views = scene.views() if scene is not None else []
    if not views:
        raise ValueError(f"{plot!r} is not shown in any view")
    return views[0]


def data_to_viewport(plot, x: float, y: float) -> QPointF:
    """The pixel position, in the view's viewport, of the data point (x, y)."""
    view = graphics_view(plot)
    scene_pos = view_box(plot).mapViewToScene(QPointF(float(x), float(y)))
    return QPointF(view.mapFromScene(scene_pos))


def viewport_to_data(plot, pos: QPointF | QPoint) -> tuple[float, float]:
    """The data point under the viewport pixel ``pos``."""
    view = graphics_view(plot)
    p = view_box(plot).mapSceneToView(view.mapToScene(QPointF(pos).toPoint()))
    return float(p.x()), float(p.y())


def _pixels(plot, pos: Position) -> QPointF:
    if isinstance(pos, (QPoint, QPointF)):
        return QPointF(pos)
    x, y = pos
    return data_to_viewport(plot, x, y)


@contextmanager
def _immediate(plot):
    """Every move delivered and every drag started at once, for the events sent inside."""
    rate = pg.getConfigOption("mouseRateLimit")
    scene = graphics_view(plot).scene()
    drag_time = getattr(scene, "minDragTime", None)
    pg.setConfigOption("mouseRateLimit", -1)
    if drag_time is not None:
        scene.minDragTime = 0
    try:
        yield
    finally:
        pg.setConfigOption("mouseRateLimit", rate)
        if drag_time is not None:
            scene.minDragTime = drag_time


def _send(plot, kind, pos: QPointF, button, buttons, modifiers=NO_MODIFIER) -> None:
    widget = graphics_view(plot).viewport()
    global_pos = QPointF(widget.mapToGlobal(pos.toPoint()))
    event = QMouseEvent(kind, pos, global_pos, button, buttons, modifiers)
    QApplication.sendEvent(widget, event)


def press(plot, pos: Position, button=LEFT, modifiers=NO_MODIFIER) -> None:
    with _immediate(plot):
        _send(plot, QEvent.Type.MouseButtonPress, _pixels(plot, pos), button, button, modifiers)


def move(plot, pos: Position, buttons=NO_BUTTON, modifiers=NO_MODIFIER) -> None:
    """Move the mouse to ``pos`` (with ``buttons`` held): hovers, or one step of a drag."""
    with _immediate(plot):
        _send(plot, QEvent.Type.MouseMove, _pixels(plot, pos), NO_BUTTON, buttons, modifiers)


def release(plot, pos: Position, button=LEFT, modifiers=NO_MODIFIER) -> None:
    with _immediate(plot):
        _send(plot, QEvent.Type.MouseButtonRelease, _pixels(plot, pos), button, NO_BUTTON,
              modifiers)


def click(plot, pos: Position, button=LEFT, modifiers=NO_MODIFIER) -> None:
    """Press and release ``button`` at ``pos``."""
    p = _pixels(plot, pos)
    with _immediate(plot):
        _send(plot, QEvent.Type.MouseButtonPress, p, button, button, modifiers)
        _send(plot, QEvent.Type.MouseButtonRelease, p, button, NO_BUTTON, modifiers)


def double_click(plot, pos: Position, button=LEFT, modifiers=NO_MODIFIER) -> None:
    p = _pixels(plot, pos)
    with _immediate(plot):
        _send(plot, QEvent.Type.MouseButtonPress, p, button, button, modifiers)
        _send(plot, QEvent.Type.MouseButtonRelease, p, button, NO_BUTTON, modifiers)
        _send(plot, QEvent.Type.MouseButtonDblClick, p, button, button, modifiers)
        _send(plot, QEvent.Type.MouseButtonRelease, p, button, NO_BUTTON, modifiers)


def drag(plot, start: Position, end: Position, steps: int = 8, button=LEFT,
         modifiers=NO_MODIFIER, cancel: bool = False) -> None:
    """Press at ``start``, move in ``steps`` equal steps to ``end``, release.

    With ``cancel=True`` a right click arrives before the release, which the panels
    take as "cancel this drag" (the drag leaves no trace and no undo step).
    """
    start, end = _pixels(plot, start), _pixels(plot, end)
    with _immediate(plot):
        _send(plot, QEvent.Type.MouseMove, start, NO_BUTTON, NO_BUTTON, modifiers)
        _send(plot, QEvent.Type.MouseButtonPress, start, button, button, modifiers)
        for i in range(1, steps + 1):
            _send(plot, QEvent.Type.MouseMove, start + (end - start) * (i / steps), NO_BUTTON,
                  button, modifiers)
        if cancel:
            _send(plot, QEvent.Type.MouseButtonPress, end, RIGHT, button | RIGHT, modifiers)
            _send(plot, QEvent.Type.MouseButtonRelease, end, RIGHT, button, modifiers)
        _send(plot, QEvent.Type.MouseButtonRelease, end, button, NO_BUTTON, modifiers)
