"""The pictures of a slice in the Deep → shallow panel.

A network with more inputs than the converter takes whole is looked at on a line
through two points or a plane through three (:mod:`relulab.model.regions.slices`;
:mod:`~relulab.ui.panels.converter.slicing` chooses them). The panel's worker computes
what a slice shows (:func:`relulab.ui.panels.converter.jobs.compute_slice`: the
restricted network, its exact regions or kinks, a classifier's decision regions) and
makes its outlines into painter paths with :data:`PAINTER_PATHS`, so the GUI thread
only hands them to the plot. :class:`SliceDrawing` owns the plot items.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFontMetricsF, QPainterPath
from PySide6.QtWidgets import QGraphicsPathItem

from relulab.model.regions.slices import POINT_NAMES
from relulab.ui.items.path_item import PathItem
from relulab.ui.panels.converter.jobs import (
    RASTER_PIXELS,
    SLICE_COLOURS,
    Palette,
    PathMakers,
    SliceView,
)
from relulab.ui.panels.converter.points import PointCards
from relulab.ui.theme import N_CLASS_COLOURS

#: The fill of a region or decision piece (0–255).
FILL_ALPHA = 120
#: Colours of up to ten classes (Paul Tol's "muted" scheme, told apart by colour-blind
#: viewers; every piece's class is also written on the map).
SLICE_CLASS_COLOURS = ("#332288", "#88CCEE", "#44AA99", "#117733", "#999933", "#DDCC77", "#CC6677",
                 "#882255", "#AA4499", "#DDDDDD")


def polygons_path(polygons) -> QPainterPath:
    """One painter path of closed polygons ((k, 2) arrays): built from flat arrays, so
    tens of thousands of polygons take milliseconds."""
    polygons = [np.asarray(p, dtype=float) for p in polygons if len(p) >= 3]
    if not polygons:
        return QPainterPath()
    closed = [np.vstack([p, p[:1]]) for p in polygons]
    xy = np.concatenate(closed)
    connect = np.ones(len(xy), dtype=np.int32)
    connect[np.cumsum([len(p) for p in closed]) - 1] = 0
    return pg.arrayToQPath(xy[:, 0], xy[:, 1], connect=connect, finiteCheck=False)


def segments_path(ends: np.ndarray) -> QPainterPath:
    """A path of segments: rows 2s and 2s + 1 of ``ends`` are segment s's ends."""
    if len(ends) == 0:
        return QPainterPath()
    return pg.arrayToQPath(ends[:, 0], ends[:, 1], connect="pairs", finiteCheck=False)


#: What the worker makes a slice's outlines into: Qt's painter paths.
PAINTER_PATHS = PathMakers(polygons_path, segments_path)


def _rgba(c: QColor, alpha: int | None = None) -> tuple:
    return (c.red(), c.green(), c.blue(), c.alpha() if alpha is None else alpha)


class SliceDrawing:
    """The plot items of a slice on ``plot`` (a PlotWidget): regions or decision
    pieces, outlines, the boundary, the points with labels and pictures (plane), or
    the outputs along the line with their kinks (line)."""

    def __init__(self, plot: pg.PlotWidget, theme):
        self.plot = plot
        self.theme = theme
        self.items: list = []
        self.view: SliceView | None = None
        self.selected: QGraphicsPathItem | None = None
        self.cards = PointCards(self)
        #: the classes' names on a plane's map, with the room each has there (units)
        self.class_labels: list[tuple[pg.TextItem, float]] = []
        vb = plot.getPlotItem().getViewBox()
        vb.sigResized.connect(self._resized)
        vb.sigRangeChanged.connect(lambda *_: self._range_changed())
        self.line_labels: tuple[list, list] = ([], [])

    def clear(self) -> None:
        vb = self.plot.getPlotItem().getViewBox()
        for it in self.items:
            if it.scene() is not None:
                vb.removeItem(it) if not isinstance(it, pg.PlotDataItem) else \
                    self.plot.getPlotItem().removeItem(it)
        self.items = []
        self.selected = None
        self.view = None
        self.cards.view, self.cards.cards, self.class_labels = None, [], []
        self.line_labels = ([], [])

    def add(self, item, z: float = 0.0):
        item.setZValue(z)
        self.plot.getPlotItem().getViewBox().addItem(item)
        self.items.append(item)
        return item


    def _range_changed(self) -> None:
        self.fit_class_labels()
        self.place_line_labels()

    def _resized(self, *_) -> None:
        if self.view is not None and self.view.cut.kind == "plane":
            self.cards.place()
        self._range_changed()

    def _name_classes(self, view: SliceView) -> None:
        """Each class's name where it is widest (see jobs._class_label_places)."""
        t = self.theme
        for k, x, y, room in view.class_labels:
            label = pg.TextItem(str(k), color=t.color("foreground"), anchor=(0.5, 0.5))
            label.setFont(t.font(11, bold=True))
            label.setPos(x, y)
            self.class_labels.append((self.add(label, 4), room))
        self.fit_class_labels()

    def fit_class_labels(self) -> None:
        """Show a class's name only where it fits inside the class at the scale shown:
        a name across the decision boundary reads as the other class's."""
        if not self.class_labels:
            return
        vb = self.plot.getPlotItem().getViewBox()
        px, py = vb.viewPixelSize()
        unit = max(px, py)  # units per pixel
        for label, room in self.class_labels:
            glyphs = QFontMetricsF(label.textItem.font()).tightBoundingRect(label.toPlainText())
            need = 0.5 * float(np.hypot(glyphs.width(), glyphs.height())) + 3
            label.setVisible(bool(unit > 0 and room / unit >= need))

    def class_colour(self, k: int, n_classes: int) -> QColor:
        if n_classes <= N_CLASS_COLOURS and hasattr(self.theme, "class_color"):
            return QColor(self.theme.class_color(k))
        return QColor(SLICE_CLASS_COLOURS[k % len(SLICE_CLASS_COLOURS)])

    def draw(self, view: SliceView, rows=None, image_shape=None) -> None:
        self.clear()
        self.view = view
        if view.cut.kind == "plane":
            self._draw_plane(view, image_shape)
        else:
            self._draw_line(view)

    def _path_item(self, path, brush=None, pen=None, z=1.0):
        item = PathItem(path)  # thousands of regions: Qt's own bounds stroke every edge
        item.setBrush(brush if brush is not None else QBrush(Qt.BrushStyle.NoBrush))
        if pen is None:
            item.setPen(pg.mkPen(None))
        else:
            item.setPen(pen)
        return self.add(item, z)

    def palette(self, n_out: int) -> Palette:
        """The theme's colours for a worker that paints a map (see :func:`rasterize`),
        and the plot's size in device pixels."""
        t = self.theme
        classes = tuple(_rgba(self.class_colour(k, n_out), FILL_ALPHA + 40) for k in range(n_out))
        regions = tuple(_rgba(QColor(t.series_color(k)), FILL_ALPHA) for k in range(SLICE_COLOURS))
        vb = self.plot.getPlotItem().getViewBox()
        side = max(vb.width(), vb.height()) * self.plot.devicePixelRatioF()
        pixels = int(min(RASTER_PIXELS, max(400, side)))
        return Palette(regions, classes, _rgba(QColor(t.color("background")), 150),
                       _rgba(QColor(t.color("foreground"))), t.width(1.0), pixels)

    def _draw_plane(self, view: SliceView, image_shape) -> None:
        t = self.theme
        item = self.plot.getPlotItem()
        dec = view.decisions
        if view.raster is not None:
            x0, x1, y0, y1 = view.box
            # ImageItem indexes [x, y] with y upwards: the picture's rows run downwards
            picture = pg.ImageItem(view.raster[::-1].transpose(1, 0, 2))
            picture.setRect(QRectF(x0, y0, x1 - x0, y1 - y0))
            self.add(picture, 1)
        elif dec is not None:
            for k, path in view.class_paths:
                c = self.class_colour(k, dec.classes)
                c.setAlpha(FILL_ALPHA + 40)
                self._path_item(path, QBrush(c), z=1)
            edge = QColor(t.color("background"))
            edge.setAlpha(150)
            pen = pg.mkPen(edge, width=t.width(0.8))
            pen.setCosmetic(True)
            self._path_item(view.edges, pen=pen, z=2)
            bpen = pg.mkPen(t.color("foreground"), width=t.width(2.5))
            bpen.setCosmetic(True)
            self._path_item(view.boundary, pen=bpen, z=3)
        else:
            for k, path in view.region_paths:
                c = QColor(t.series_color(k))
                c.setAlpha(FILL_ALPHA)
                self._path_item(path, QBrush(c), z=1)
            pen = pg.mkPen(t.color("background"), width=t.width(1.0))
            pen.setCosmetic(True)
            self._path_item(view.edges, pen=pen, z=2)
        # short: a title wider than the plot widens the plot item beyond its view
        n = len(view.polygons)
        t.set_title(item, f"{n:,} exact regions in the box" +
                      (f", {view.restricted.n_out} classes" if dec is not None else ""))
        item.setLabel("bottom", "t₁ (along A → B)")
        item.setLabel("left", "t₂")
        self.cards.draw(view, image_shape)   # and the view's range
        self._name_classes(view)

    def _draw_line(self, view: SliceView) -> None:
        t = self.theme
        item = self.plot.getPlotItem()
        m = len(view.curves)
        ends = []
        for o, ((x, y), (kx, ky)) in enumerate(zip(view.curves, view.kinks)):
            colour = self.class_colour(o, m) if m > 1 else t.color("target")
            self.add(pg.PlotDataItem(x, y, pen=pg.mkPen(colour, width=t.width(2.0))), 3)
            if m > 1:  # each curve named at its right end (colour is not the only cue)
                label = pg.TextItem(str(o), color=colour, anchor=(0.0, 0.5))
                label.setFont(t.font(9.5, bold=True))
                ends.append((self.add(label, 4), float(x[-1]), float(y[-1])))
            marks = pg.ScatterPlotItem(kx, ky, size=t.point_size(6), pen=pg.mkPen(colour),
                                       brush=pg.mkBrush(colour))
            self.add(marks, 4)
        points = []
        for i, (tc,) in enumerate(view.cut.coords):
            text = view.cut.labels[i] if i < len(view.cut.labels) else POINT_NAMES[i]
            if view.winners is not None and view.restricted.n_out > 1:
                text += f" → class {int(view.winners[i])}"
            line = pg.InfiniteLine(float(tc), angle=90, movable=False,
                                   pen=pg.mkPen(t.color("muted"), width=t.width(1.5),
                                                style=Qt.PenStyle.DashLine))
            self.add(line, 2)
            label = pg.TextItem(text, color=t.color("foreground"))
            label.setFont(t.font(9.5))
            points.append((self.add(label, 4), float(tc)))
        self.line_labels = (ends, points)
        t.set_title(item, f"{m} output{'s' if m > 1 else ''}, {len(view.pieces.kinks):,} exact "
                      "kinks on the line")
        item.setLabel("bottom", "t (along A → B)")
        item.setLabel("left", "outputs")
        # the range from the curves, with a row above them for the points' names (a
        # range that followed the labels would grow each time they move)
        vb = item.getViewBox()
        vb.setAspectLocked(False)
        vb.disableAutoRange()
        ys = np.concatenate([np.asarray(y, float) for _, y in view.curves])
        lo, hi = (float(ys.min()), float(ys.max())) if ys.size else (-1.0, 1.0)
        span = max(hi - lo, 1e-9)
        height, width = max(vb.height(), 1.0), max(vb.width(), 1.0)
        row = min(0.4, 2.2 * QFontMetricsF(t.font(9.5)).lineSpacing() / height)
        # and a column right of the curves for their numbers
        column = min(0.3, (max((e[0].boundingRect().width() for e in ends), default=0) + 6)
                     / width)
        (a, b) = view.box[:2]
        vb.setRange(xRange=(a, b + (b - a) * column / (1 - column)),
                    yRange=(lo - 0.05 * span, hi + span * (0.05 + row) / (1 - row)), padding=0.02)
        self.place_line_labels()

    def place_line_labels(self) -> None:
        """The points' names at the top of the view, each opening towards the middle,
        one a row lower where it would meet the one before; the curves' numbers at their
        right ends, pushed apart where they would overprint."""
        ends, points = self.line_labels
        if not (ends or points):
            return
        vb = self.plot.getPlotItem().getViewBox()
        (x0, x1), (_, y1) = vb.viewRange()
        px, py = vb.viewPixelSize()
        if px <= 0 or py <= 0:
            return
        middle, gap = (x0 + x1) / 2, 4.0
        row, last_right = 0, -np.inf
        for label, tc in sorted(points, key=lambda p: p[1]):
            width = label.boundingRect().width()
            left = tc + gap * px if tc < middle else tc - (gap + width) * px
            row = row + 1 if left < last_right else 0
            label.setAnchor((0.0, 0.0))
            label.setPos(left, y1 - row * label.boundingRect().height() * py)
            last_right = left + width * px
        if ends:
            ends = sorted(ends, key=lambda e: e[2])
            # a digit's height and a little: the labels' own boxes have margins
            digits = QFontMetricsF(ends[0][0].textItem.font()).tightBoundingRect("0123456789")
            step = (digits.height() + 3) * py
            ys = [y for _, _, y in ends]
            for i in range(1, len(ys)):       # upwards, each at least a step above
                ys[i] = max(ys[i], ys[i - 1] + step)
            ys[-1] = min(ys[-1], y1 - step / 2)  # then down from the top of the view
            for i in range(len(ys) - 2, -1, -1):
                ys[i] = min(ys[i], ys[i + 1] - step)
            for (label, x, _), y in zip(ends, ys):
                label.setPos(x, y)

    def select(self, index: int) -> None:
        """Outline region ``index`` of the plane's polygons (−1: none)."""
        vb = self.plot.getPlotItem().getViewBox()
        if self.selected is not None:
            vb.removeItem(self.selected)
            self.items.remove(self.selected)
            self.selected = None
        if self.view is None or not 0 <= index < len(self.view.polygons):
            return
        pen = self.theme.pen("selected", 3.0)
        pen.setCosmetic(True)
        self.selected = self._path_item(polygons_path([self.view.polygons[index].vertices]),
                                        pen=pen, z=8)
