"""The Deep → shallow panel's plots and its details column.

:class:`ConverterPlots`: the main plot (1-D input: the deep and the shallow curve with a
marker at each kink; 2-D input: the map of the activation regions, the selected one on
top; a slice: :class:`~relulab.ui.panels.converter.slices.SliceDrawing` draws there)
above the difference deep − shallow. :class:`Details`: what was converted, the shallow
network's layers, the kink list and the selected region.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt
from PySide6.QtGui import QBrush, QColor, QFontMetricsF
from PySide6.QtWidgets import QHeaderView, QScrollArea, QSplitter, QTableView, QVBoxLayout, QWidget

from relulab.ui.items.path_item import PathItem
from relulab.ui.legend import Entry, KeyLabel
from relulab.ui.panels.base import named
from relulab.ui.panels.converter.jobs import Result
from relulab.ui.panels.converter.slices import polygons_path
from relulab.ui.readout import Readout

VIEW_2D = (-3.0, 3.0, -3.0, 3.0)     # what the map shows first
REGION_ALPHA = 110
#: Regions take the first series colours in turn (the seventh, black or white, would
#: read as a hole in the map).
REGION_COLOURS = 6
#: The parent of a table's rows (Qt's default argument of rowCount and columnCount).
_TOP = QModelIndex()


class KinkTable(QAbstractTableModel):
    """The kink list as a table model: the rows are formatted when shown, so a
    network with thousands of kinks fills the table at once."""

    HEADERS = ("#", "t", "f(t)", "jump", "|Δ| at t")
    FORMATS = ("{:,.0f}", "{:.5g}", "{:.4g}", "{:.3g}", "{:.0e}")

    def __init__(self, parent=None):
        super().__init__(parent)
        self.rows = np.zeros((0, 5))

    def set_rows(self, rows: np.ndarray) -> None:
        self.beginResetModel()
        self.rows = rows
        self.endResetModel()

    def rowCount(self, parent=_TOP) -> int:
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent=_TOP) -> int:
        return 0 if parent.isValid() else len(self.HEADERS)

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if role == Qt.ItemDataRole.DisplayRole and index.isValid():
            return self.FORMATS[index.column()].format(self.rows[index.row(), index.column()])
        return None

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return self.HEADERS[section]
        return None


#: The key under the 1-D plot: what each line and marker is.
KEY = (Entry("target", "—", "deep"), Entry("approx", "‒ ‒", "shallow"),
       Entry("accent", "●", "kinks, one hidden neuron each"))
#: The least height of a plot's data area, in pixels, whatever the zoom: its title and
#: axis take their height on top (a projector's zoom left the difference 19 px).
LEAST_VIEW = 120
#: pyqtgraph's row of a plot's title, in pixels: the least it is given.
TITLE_ROW = 30


def keep_view_height(plot: pg.PlotWidget) -> None:
    """Keep LEAST_VIEW pixels of ``plot``'s height for its data: beyond it, the title's
    row (as high as its text: pyqtgraph's 30 px cut it at zoom 1.6) and the bottom axis,
    its numbers and its label (counted when not shown yet)."""
    item = plot.getPlotItem()
    row = 0
    if item.titleLabel.text:
        row = max(TITLE_ROW, math.ceil(item.titleLabel.item.boundingRect().height()))
        item.titleLabel.setMaximumHeight(row)
        item.layout.setRowFixedHeight(0, row)
    axis = item.getAxis("bottom")
    label = 0.0 if axis.label.isVisible() else QFontMetricsF(axis.label.font()).height()
    plot.setMinimumHeight(int(LEAST_VIEW + max(row, TITLE_ROW) + axis.minimumHeight() + label + 6))


class ConverterPlots(QSplitter):
    """The main plot, with its key under it, above the difference plot, and what is
    drawn on them."""

    def __init__(self, parent=None):
        super().__init__(Qt.Orientation.Vertical, parent)
        self.main_plot = named(
            pg.PlotWidget(), "converter-main-plot", "Deep and shallow functions",
            description="1-D input: the deep network (solid) and the shallow one (dashed) "
            "against x, with a marker at each kink. 2-D input: the map of the deep network's "
            "activation regions; click one for its affine map and constraints.")
        self.diff_plot = named(pg.PlotWidget(), "converter-difference-plot",
                               "Difference deep minus shallow",
                               description="The difference deep − shallow against x (1-D "
                               "input): zero up to rounding when the two are equal.")
        for plot in (self.main_plot, self.diff_plot):
            plot.getPlotItem().setMenuEnabled(False)
            # pyqtgraph's "A" (auto-range) button, after a drag: the panel shows the
            # whole result again with each new one
            plot.getPlotItem().hideButtons()
        # the key sits under the plot: a legend on it would hide the kinks it explains
        self.key = KeyLabel("converter-key", "What the curves and markers mean", KEY)
        self.key.setVisible(False)  # until curves are drawn
        self.deep_curve = self.main_plot.plot([], [])
        self.shallow_curve = self.main_plot.plot([], [])
        self.kink_marks = pg.ScatterPlotItem()
        self.main_plot.addItem(self.kink_marks)
        self.diff_curve = self.diff_plot.plot([], [])
        top = QWidget()
        column = QVBoxLayout(top)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(2)
        column.addWidget(self.main_plot, 1)
        column.addWidget(self.key)
        self.addWidget(top)
        self.addWidget(self.diff_plot)
        self.setChildrenCollapsible(False)
        self.setSizes([600, 260])
        # the 2-D map: one path per colour, and the selected region on top
        self.region_items: list[PathItem] = []
        self.region_polygons: list = []     # the polygons they draw
        self.selected_item: PathItem | None = None

    def apply_theme(self, t) -> None:
        t.style_plot(self.main_plot)
        t.style_plot(self.diff_plot)
        self.deep_curve.setPen(t.pen("target", 2.5))
        self.shallow_curve.setPen(t.pen("approx", 2.5, Qt.PenStyle.DashLine))
        self.kink_marks.setPen(t.pen("accent", 1.5))
        self.kink_marks.setBrush(pg.mkBrush(t.color("accent")))
        self.kink_marks.setSize(t.point_size(7))
        self.diff_curve.setPen(t.pen("error", 2.0))
        self.keep_heights()

    def keep_heights(self) -> None:
        for plot in (self.main_plot, self.diff_plot):
            keep_view_height(plot)

    # -- 1-D input --------------------------------------------------------------
    def draw_curves(self, res: Result, theme) -> None:
        """The deep and the shallow curve (the first output) and the kinks."""
        item = self.main_plot.getPlotItem()
        item.setLabel("bottom", "x")
        item.setLabel("left", "f(x)")
        m = res.conversion.n_out
        theme.set_title(item, "deep (solid) and shallow (dashed)"
                        + (f", output 1 of {m}" if m > 1 else ""))
        self.deep_curve.setVisible(True)
        self.shallow_curve.setVisible(True)
        self.deep_curve.setData(res.curve_x, res.deep_y)
        self.shallow_curve.setData(res.curve_x, res.shallow_y)
        t = res.conversion.one_d.kinks
        if len(t):
            self.kink_marks.setData(t, res.kink_rows[:, 2])
        else:
            self.kink_marks.setData([], [])
        self.kink_marks.setVisible(True)
        self.key.setVisible(True)
        self.main_plot.getPlotItem().getViewBox().setAspectLocked(False)
        item.enableAutoRange()
        self.keep_heights()

    def hide_curves(self) -> None:
        self.deep_curve.setVisible(False)
        self.shallow_curve.setVisible(False)
        self.kink_marks.setVisible(False)
        # its entries are the deep and shallow curves (the regions' colours are
        # explained in words)
        self.key.setVisible(False)

    def draw_difference(self, res: Result, theme) -> None:
        diff = res.deep_y - res.shallow_y
        self.diff_curve.setData(res.curve_x, diff)
        # a short axis label: "deep − shallow" is longer than the plot is high at zoom 1.6
        self.diff_plot.getPlotItem().setLabel("left", "Δ")
        self.diff_plot.getPlotItem().setLabel("bottom", "x")
        # "zero up to rounding" only where the check found it so
        theme.set_title(self.diff_plot, "Δ = deep − shallow: " + (
            "zero up to rounding" if res.verification.ok() else "NOT zero: the check failed"),
            9.5)
        span = max(1e-15, float(np.abs(diff).max()) * 1.2)
        self.diff_plot.setYRange(-span, span, padding=0)
        self.keep_heights()

    def draw_line_difference(self, res: Result, theme) -> None:
        """A line slice's difference: the output where deep and shallow differ most."""
        diff = res.deep_y - res.shallow_y
        worst = np.abs(diff).max(axis=0)
        o = int(np.argmax(worst)) if len(worst) else 0
        self.diff_curve.setData(res.curve_x, diff[:, o])
        item = self.diff_plot.getPlotItem()
        item.setLabel("left", "Δ")
        theme.set_title(item, "Δ = deep − shallow" + (f", output {o}: the largest"
                                                      if diff.shape[1] > 1 else ""), 9.5)
        item.setLabel("bottom", "t")
        self.keep_heights()
        span = max(1e-15, float(np.abs(diff[:, o]).max()) * 1.2)
        self.diff_plot.setYRange(-span, span, padding=0)

    # -- more inputs: the region map -----------------------------------------------
    def name_map(self, conv, theme) -> bool:
        """The main plot's title and axes for a conversion of ``conv.n_in`` > 1 inputs:
        True when it shows a map (2-D input)."""
        item = self.main_plot.getPlotItem()
        n = conv.n_in
        if n != 2:
            theme.set_title(item, f"{n}-D input: no map (regions: {conv.p:,})")
            return False
        # what a click does is said beside the plot (the region's details), not in
        # the title: an exported picture keeps no instructions
        theme.set_title(item, f"{conv.p:,} activation regions on R²")
        item.setLabel("bottom", "x1")
        item.setLabel("left", "x2")
        self.keep_heights()
        return True

    def draw_map(self, polygons: list, theme, selected: int) -> None:
        """The 2-D regions in the view box, one path per colour."""
        vb = self.main_plot.getPlotItem().getViewBox()
        # A few items whatever the number of regions, as the slices are drawn: an item
        # per region takes 50 ms to add and 23 ms to take away for 2,000 regions.
        self.region_polygons = list(polygons)
        by_colour: dict = {}
        for poly in self.region_polygons:
            by_colour.setdefault(poly.index % REGION_COLOURS, []).append(poly.vertices)
        for colour, vertices in sorted(by_colour.items()):
            gi = PathItem(polygons_path(vertices))
            gi.setData(0, colour)
            vb.addItem(gi)
            self.region_items.append(gi)
        self.selected_item = PathItem()
        vb.addItem(self.selected_item)
        self.style_regions(theme, selected)
        vb.setAspectLocked(True)
        x0, x1, y0, y1 = VIEW_2D
        vb.setRange(xRange=(x0, x1), yRange=(y0, y1), padding=0)

    def clear_regions(self) -> None:
        vb = self.main_plot.getPlotItem().getViewBox()
        for gi in self.region_items + [self.selected_item] * (self.selected_item is not None):
            vb.removeItem(gi)
        self.region_items, self.region_polygons, self.selected_item = [], [], None

    def style_regions(self, theme, selected: int) -> None:
        """The regions' colours, and region ``selected`` (−1: none) outlined on top."""
        outline = theme.pen("background", 1.0)
        for gi in self.region_items:
            colour = QColor(theme.series_color(gi.data(0)))
            colour.setAlpha(REGION_ALPHA)
            gi.setBrush(QBrush(colour))
            gi.setPen(outline)
            gi.setZValue(1)
        if self.selected_item is None:
            return
        chosen = [p for p in self.region_polygons if p.index == selected]
        self.selected_item.setPath(polygons_path([p.vertices for p in chosen]))
        colour = QColor(theme.series_color(selected % REGION_COLOURS))
        colour.setAlpha(230)
        self.selected_item.setBrush(QBrush(colour))
        self.selected_item.setPen(theme.pen("selected", 3.0))
        self.selected_item.setZValue(2)

    def clicked_point(self, event) -> tuple[float, float] | None:
        """Where in the main plot's coordinates a click landed (None: outside it)."""
        vb = self.main_plot.getPlotItem().getViewBox()
        if not vb.sceneBoundingRect().contains(event.scenePos()):
            return None
        p = vb.mapSceneToView(event.scenePos())
        return p.x(), p.y()


class Details(QScrollArea):
    """The shallow network's layers, the kink list (1-D) or the selected region (2-D),
    under what was converted."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.explain = Readout("converter-explain", "What the panel shows, in words",
                               "explanation", wrap=True)
        # the technical account (counts, the certificate, the rule) goes with the details
        self.summary_label = Readout("converter-summary", "What was converted", "summary",
                                     wrap=True)
        side = QWidget()
        column = QVBoxLayout(side)
        column.setContentsMargins(0, 0, 0, 0)
        self.layers_label = Readout("converter-shallow-layers", "The shallow network's layers",
                                    "shallow_layers", wrap=True)
        self.kinks = KinkTable(self)
        self.kink_table = named(QTableView(), "converter-kinks", "Kink list")
        self.kink_table.setModel(self.kinks)
        # columns as wide as their numbers (the column scrolls sideways when narrow):
        # stretched to a narrow column they were cut to "0…"
        header = self.kink_table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        # measured on the rows in view only: all of them (986 for 1-512-512-1) held the
        # window for 200-300 ms, and the rows' numbers are alike in width
        header.setResizeContentsPrecision(0)
        header.setStretchLastSection(True)
        self.kink_table.setEditTriggers(QTableView.EditTrigger.NoEditTriggers)
        self.kink_table.verticalHeader().setVisible(False)
        self.region_info = Readout("converter-region-info", "Selected region", "selected_region",
                                   text="Click a region to see its affine map and constraints.",
                                   wrap=True, selectable=True)
        self.region_info.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        column.addWidget(self.explain)
        column.addWidget(self.summary_label)
        column.addWidget(self.layers_label)
        column.addWidget(self.kink_table, 1)
        column.addWidget(self.region_info, 1)
        # The side column scrolls rather than squeezing the plots at a large zoom.
        named(self, "converter-details", "Details of the shallow network")
        self.setWidgetResizable(True)
        self.setFrameShape(QScrollArea.Shape.NoFrame)
        self.setWidget(side)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
