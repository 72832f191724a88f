"""Region outlines by the thousand: their item's bounds come from the path's points,
not from a stroke of the whole path (Qt's way, 20–45 ms each time for 12,000 outlines,
and again on every hit test of the mouse)."""

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QPainterPath, QPen

from relulab.ui.items.path_item import PathItem


def _outlines(n=500, seed=0):
    rng = np.random.default_rng(seed)
    parts = []
    for _ in range(n):
        c = rng.uniform(-5, 5, 2)
        a = np.sort(rng.uniform(0, 2 * np.pi, 6))
        v = c + 0.1 * np.c_[np.cos(a), np.sin(a)]
        parts += [v, v[:1], [[np.nan, np.nan]]]
    xy = np.concatenate(parts)
    return pg.arrayToQPath(xy[:, 0], xy[:, 1], connect="finite"), xy


def test_the_bounds_hold_every_point_and_the_pen(qapp):
    path, xy = _outlines()
    item = PathItem(path)
    pen = QPen()
    pen.setWidthF(0.3)
    item.setPen(pen)
    r = item.boundingRect()
    finite = xy[np.isfinite(xy).all(axis=1)]
    assert r.left() <= finite[:, 0].min() - 0.3 + 1e-9 and r.right() >= finite[:, 0].max() + 0.3 - 1e-9
    assert r.top() <= finite[:, 1].min() - 0.3 + 1e-9 and r.bottom() >= finite[:, 1].max() + 0.3 - 1e-9
    # Qt's own bounds (a stroke of the path) lie inside ours
    plain = pg.QtWidgets.QGraphicsPathItem(path)
    plain.setPen(pen)
    assert r.contains(plain.boundingRect())


def test_the_shape_is_the_bounds_and_follows_a_new_path(qapp):
    path, _ = _outlines(50)
    item = PathItem()
    item.setPen(pg.mkPen("k", width=1))  # cosmetic
    item.setPath(path)
    shape = item.shape()
    assert shape.elementCount() == 5 and shape.boundingRect() == item.boundingRect()
    small = QPainterPath()
    small.addRect(0, 0, 1, 1)
    item.setPath(small)
    assert item.boundingRect().contains(QPointF(0.5, 0.5))
    assert item.boundingRect().width() < 2
    none = QPen(Qt.PenStyle.NoPen)
    item.setPen(none)
    assert item.boundingRect() == small.controlPointRect()


def test_the_playground_draws_its_region_outlines_with_it(qtbot, theme):
    from relulab.ui.panels.playground import PlaygroundPanel

    panel = PlaygroundPanel()
    qtbot.addWidget(panel)
    assert isinstance(panel.data_map.region_item, PathItem)
    panel.shutdown()
