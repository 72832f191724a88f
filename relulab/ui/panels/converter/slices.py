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
from relulab.ui.theme import N_CLASS_COLOURS

#: The fill of a region or decision piece (0–255).
FILL_ALPHA = 120
#: A picture at a point is this fraction of the box's width.
PICTURE_SIZE = 0.16
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

    def clear(self) -> None:
        vb = self.plot.getPlotItem().getViewBox()
        for it in self.items:
            if it.scene() is not None:
                vb.removeItem(it) if not isinstance(it, pg.PlotDataItem) else \
                    self.plot.getPlotItem().removeItem(it)
        self.items = []
        self.selected = None
        self.view = None

    def _add(self, item, z: float = 0.0):
        item.setZValue(z)
        self.plot.getPlotItem().getViewBox().addItem(item)
        self.items.append(item)
        return item

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
        return self._add(item, z)

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
            self._add(picture, 1)
            for k, x, y in view.class_labels:
                label = pg.TextItem(str(k), color=t.color("foreground"), anchor=(0.5, 0.5))
                label.setFont(t.font(11, bold=True))
                label.setPos(x, y)
                self._add(label, 4)
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
            for k, x, y in view.class_labels:
                label = pg.TextItem(str(k), color=t.color("foreground"), anchor=(0.5, 0.5))
                label.setFont(t.font(11, bold=True))
                label.setPos(x, y)
                self._add(label, 4)
        else:
            for k, path in view.region_paths:
                c = QColor(t.series_color(k))
                c.setAlpha(FILL_ALPHA)
                self._path_item(path, QBrush(c), z=1)
            pen = pg.mkPen(t.color("background"), width=t.width(1.0))
            pen.setCosmetic(True)
            self._path_item(view.edges, pen=pen, z=2)
        self._draw_points(view, image_shape)
        # short: a title wider than the plot widens the plot item beyond its view
        n = len(view.polygons)
        t.set_title(item, f"{n:,} exact regions in the box" +
                      (f", {view.restricted.n_out} classes" if dec is not None else ""))
        item.setLabel("bottom", "t₁ (along A → B)")
        item.setLabel("left", "t₂")
        vb = item.getViewBox()
        vb.setAspectLocked(True)
        x0, x1, y0, y1 = view.box
        vb.setRange(xRange=(x0, x1), yRange=(min(y0, self._room_below(view, y1)), y1),
                    padding=0.02)

    def _room_below(self, view: SliceView, top: float) -> float:
        """The lowest y that keeps the labels under the lowest point in view: their
        height is fixed in pixels, so the range grows by its share of the plot
        (the aspect lock can only make a data unit longer, which needs less)."""
        lines = 1 + (view.winners is not None and view.restricted.n_out > 1) + max(
            (label.count(", ") for label in view.cut.labels), default=0)
        need = lines * QFontMetricsF(self.theme.font(9.5, bold=True)).lineSpacing() + 8
        height = self.plot.getPlotItem().getViewBox().height()
        lowest = float(view.cut.coords[:, 1].min())
        if height <= 2 * need:  # not laid out yet, or too small to keep them all
            return lowest
        a = need / height
        return (lowest - a * top) / (1 - a)

    def _draw_points(self, view: SliceView, image_shape) -> None:
        t = self.theme
        cut = view.cut
        x0, x1, _, _ = view.box
        size = PICTURE_SIZE * (x1 - x0)
        marks = pg.ScatterPlotItem(cut.coords[:, 0], cut.coords[:, 1], size=t.point_size(9),
                                   pen=pg.mkPen(t.color("background"), width=t.width(1.5)),
                                   brush=pg.mkBrush(t.color("foreground")))
        self._add(marks, 6)
        for i, (x, y) in enumerate(cut.coords):
            # one short line each (name and row, the file's label, the class): narrow
            # enough that labels centred under points as close as A and B do not meet
            text = (cut.labels[i] if i < len(cut.labels) else POINT_NAMES[i]).replace(", ", "\n")
            if view.winners is not None and view.restricted.n_out > 1:
                text += f"\n→ class {int(view.winners[i])}"
            x0, x1 = view.box[0], view.box[1]
            right = x > (x0 + x1) / 2  # pictures and labels open towards the middle
            if image_shape is not None:
                h, w = image_shape
                picture = np.asarray(cut.points[i], dtype=float).reshape(h, w)
                img = pg.ImageItem(picture[::-1].T)
                lo, hi = float(picture.min()), float(picture.max())
                # dark ink on a light card whatever the theme: a picture reads as a picture
                img.setLevels((hi, lo) if hi > lo else (lo + 1, lo))
                scale = size / max(h, w)
                left = x - 0.15 * size - w * scale if right else x + 0.15 * size
                rect = QRectF(left, y + 0.15 * size, w * scale, h * scale)
                img.setRect(rect)
                frame = QGraphicsPathItem()
                path = QPainterPath()
                path.addRect(rect)
                frame.setPath(path)
                pen = pg.mkPen(t.color("foreground"), width=t.width(1.0))
                pen.setCosmetic(True)
                frame.setPen(pen)
                self._add(img, 5)
                self._add(frame, 5.5)
            # the label centred under the point, the picture above it: they never overlap
            anchor, pos = (0.5, -0.12), (x, y)
            label = pg.TextItem(text, color=t.color("foreground"), anchor=anchor,
                                fill=pg.mkBrush(_with_alpha(t.color("background"), 200)))
            label.setFont(t.font(9.5, bold=True))
            label.setPos(*pos)
            self._add(label, 7)

    def _draw_line(self, view: SliceView) -> None:
        t = self.theme
        item = self.plot.getPlotItem()
        m = len(view.curves)
        for o, ((x, y), (kx, ky)) in enumerate(zip(view.curves, view.kinks)):
            colour = self.class_colour(o, m) if m > 1 else t.color("target")
            curve = pg.PlotDataItem(x, y, pen=pg.mkPen(colour, width=t.width(2.0)),
                                    name=f"output {o}")
            self._add(curve, 3)
            if m > 1:  # each curve named at its right end (colour is not the only cue)
                label = pg.TextItem(str(o), color=colour, anchor=(0.0, 0.5))
                label.setFont(t.font(9.5, bold=True))
                label.setPos(float(x[-1]), float(y[-1]))
                self._add(label, 4)
            marks = pg.ScatterPlotItem(kx, ky, size=t.point_size(6), pen=pg.mkPen(colour),
                                       brush=pg.mkBrush(colour))
            self._add(marks, 4)
        for i, (tc,) in enumerate(view.cut.coords):
            text = view.cut.labels[i] if i < len(view.cut.labels) else POINT_NAMES[i]
            if view.winners is not None and view.restricted.n_out > 1:
                text += f" → class {int(view.winners[i])}"
            line = pg.InfiniteLine(float(tc), angle=90, movable=False,
                                   pen=pg.mkPen(t.color("muted"), width=t.width(1.5),
                                                style=Qt.PenStyle.DashLine),
                                   label=text, labelOpts={"position": 0.95,
                                                          "color": t.color("foreground")})
            self._add(line, 2)
        t.set_title(item, f"{m} output{'s' if m > 1 else ''}, {len(view.pieces.kinks):,} exact "
                      "kinks on the line")
        item.setLabel("bottom", "t (along A → B)")
        item.setLabel("left", "outputs")
        vb = item.getViewBox()
        vb.setAspectLocked(False)
        vb.enableAutoRange()

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


def _with_alpha(c: QColor, alpha: int) -> QColor:
    c = QColor(c)
    c.setAlpha(alpha)
    return c
