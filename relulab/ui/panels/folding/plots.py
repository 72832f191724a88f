"""The Folding panel's plots and what draws on them: the tent composed k times, your
fold, the small plots of the first layers and the pieces-against-neurons chart.

A curve with more pieces than the plot has pixels is a :class:`DenseCurve`: a line
while its teeth can be told apart, else the band it fills. A redraw touches only what
changed (one small plot per slider step, the fold's series when it grows): a depth
step must redraw within 50 ms (``benchmarks/bench_folding.py``).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF
from PySide6.QtWidgets import QGridLayout, QHBoxLayout, QWidget

from relulab.model.lessons.folding import FoldingState
from relulab.model.pieces.envelope import column_extremes
from relulab.model.pieces.folding import MAX_DEPTH, FoldCounts
from relulab.model.pieces.piecewise import PiecewiseLinear
from relulab.ui.items.band import Band
from relulab.ui.legend import Entry, KeyLabel
from relulab.ui.panels.base import named
from relulab.ui.panels.folding.jobs import COLUMNS, UNIT, TentResult, plain_count
from relulab.ui.theme import Theme, current_theme

#: Small plots of g^(1), g^(2), g^(3) and g^(k), in one row: four of them keep the
#: height every plot needs (MIN_PLOT_HEIGHT) at a projector's zoom, and still show the
#: pieces doubling from layer to layer.
LAYER_PLOTS = 4
#: No plot of the panel gets less height than this, at 1280 × 720 and zoom 1.6 too:
#: below it the tick labels of a plot run into each other.
MIN_PLOT_HEIGHT = 120

#: The user's fold composed some times and its counts, why it was not computed, or
#: None while the worker computes it.
FoldPieces = tuple[PiecewiseLinear, FoldCounts] | str | None


def sup(k: int) -> str:
    """g^(k) in rich text."""
    return f"g<sup>({k})</sup>"


def layer_depths(depth: int) -> list[int]:
    """The depths the small plots show at ``depth``: the first ones, and g^(k) last."""
    if depth <= LAYER_PLOTS:
        return list(range(1, depth + 1))
    return [*list(range(1, LAYER_PLOTS)), depth]


def nice_step(least: float) -> float:
    """The smallest 1, 2 or 5 × 10ⁿ that is at least ``least`` (> 0)."""
    power = 10.0 ** math.floor(math.log10(least))
    return next((m * power for m in (1.0, 2.0, 5.0) if m * power >= least * (1 - 1e-9)),
                10.0 * power)


#: Steps between the numbered decades of a log axis.
LOG_STEPS = (1, 2, 3, 6, 12, 24)
#: An upright axis numbers about this many ticks at most, however tall.
MAX_LABELS = 6


class UprightAxis(pg.AxisItem):
    """A vertical axis whose numbered ticks are 1.6 lines of its font apart at least
    (and about MAX_LABELS of them at most): pyqtgraph spaces them by the axis's length
    alone, and at a projector's zoom a plot 120 pixels high printed "0 0.2 0.4 0.6 0.8
    1.0" over each other. On a log scale the step is whole decades. Minor ticks are
    not numbered."""

    def __init__(self, orientation: str = "left", **kwargs):
        super().__init__(orientation, **kwargs)
        self.setStyle(maxTextLevel=0)

    def tickSpacing(self, minVal: float, maxVal: float, size: float):
        span = abs(maxVal - minVal)
        if self._tickSpacing is not None or span == 0 or size <= 0:
            return super().tickSpacing(minVal, maxVal, size)
        font = self.style.get("tickFont") or QFont()
        room = 1.6 * QFontMetricsF(font).height()
        least = max(span * room / size, span / MAX_LABELS)
        if self.logMode:  # decades, a step that divides 6, 12, 24
            step = next((float(n) for n in LOG_STEPS if n >= least), float(LOG_STEPS[-1]))
            return [(step, 0.0), (1.0, 0.0)]
        step = nice_step(least)
        return [(step, 0.0), (step / 2, 0.0)]


def _plot(name: str, accessible: str, description: str) -> pg.PlotWidget:
    """A plot without pyqtgraph's menu and "A" (auto-range) button, at least
    MIN_PLOT_HEIGHT tall, its upright numbers never run into each other."""
    pw = named(pg.PlotWidget(axisItems={"left": UprightAxis("left")}), name, accessible,
               description=description)
    pw.setMenuEnabled(False)
    pw.hideButtons()
    pw.setMinimumHeight(MIN_PLOT_HEIGHT)
    return pw


def _zoom_x_only(pw: pg.PlotWidget) -> None:
    """The wheel (and a drag) zooms and pans x only: the height stays the curve's,
    [0, 1], so zooming in brings the teeth into sight instead of cutting their tops."""
    pw.setMouseEnabled(x=True, y=False)


def band_colour(theme: Theme, role: str) -> QColor:
    """The shade of ``role`` a dense curve's band is drawn in: the colour at 43 % on
    the plot's background, opaque (strokes that share a pixel column do not darken it)."""
    fill, back = QColor(theme.color(role)), theme.color("background")
    share = 110 / 255
    fill.setRgbF(*(share * getattr(fill, c)() + (1 - share) * getattr(back, c)()
                   for c in ("redF", "greenF", "blueF")))
    return fill


def _extremes_per_pixel(curve: pg.PlotDataItem) -> None:
    """Draw dense curves as the min and max of each pixel column (pyqtgraph's
    "peak" downsampling), so every peak and valley stays visible at any depth.
    The factor 1 makes a chunk one pixel wide (pyqtgraph's default is 5 pixels'
    worth of samples, five times more points to draw for no visible gain)."""
    curve.opts["autoDownsampleFactor"] = 1.0
    curve.setDownsampling(auto=True, method="peak")


def _smooth_if_sparse(curve: pg.PlotDataItem, n_points: int, pen) -> None:
    """In the small plots a sawtooth near pixel size shows moiré; antialiasing
    fixes it and is cheap for thin lines and a few points per pixel. Denser
    curves become a min/max band anyway. (Smoothing the 2-pixel main curve costs
    hundreds of milliseconds, so it stays off there.) A smoothed line is one pixel
    wide: Qt draws wider antialiased lines fifty times slower (11 ms against 0.2 ms
    for 129 points), long enough to freeze the window on the first picture of g^(6)."""
    # (the small plots are 100–200 pixels wide; their width is not known yet
    # when the panel first draws, so the limit is a number of points)
    smooth = n_points <= 200
    curve.opts["antialias"] = smooth
    if smooth:
        pen = pg.mkPen(pen)
        pen.setWidthF(1.0)
    curve.setPen(pen)


#: Pieces narrower than this many pixels are drawn with a thin line; narrower than
#: DENSE_PIXELS the curve is shown as the band it fills.
THIN_PIXELS = 6.0
DENSE_PIXELS = 2.0


class DenseCurve:
    """A curve that may have more pieces than the plot has pixels.

    While its pieces are at least DENSE_PIXELS wide on screen it is drawn as a line
    (thinner below THIN_PIXELS). Past that the teeth cannot be told apart: every pixel
    column holds a whole tooth, and a line would paint a solid block. The curve is then
    shown as what it is, the band it fills (its lowest and highest value in each pixel
    column, shaded) with a note of how many pieces each pixel holds; zooming in (the
    mouse wheel on the plot) brings the line back. ``curve`` keeps the data either way."""

    def __init__(self, plot: pg.PlotWidget, curve: pg.PlotDataItem, role: str, width: float,
                 explain: bool = True):
        self.plot, self.curve, self.role, self.width = plot, curve, role, width
        self.explain = explain  # the small plots have no room for the note
        # the band's edges are in the plot (without a pen) so that its auto range sees them
        self.low = pg.PlotCurveItem(pen=pg.mkPen(None))
        self.high = pg.PlotCurveItem(pen=pg.mkPen(None))
        # one vertical stroke per pixel column, from its lowest value to its highest
        # (see relulab.ui.items.band: a filled polygon costs 45 ms a paint)
        self.band = Band()
        self.band.setZValue(-1)
        for item in (self.low, self.high, self.band):
            plot.addItem(item)
        # what the band is (above the middle), and how to see the teeth (below it: an
        # instruction, hidden in exported pictures, see FoldingPanel.export_hints)
        self.note = pg.TextItem("", anchor=(0.5, 1.0))
        self.hint = pg.TextItem("Scroll on the plot to zoom in and see the teeth.",
                                anchor=(0.5, 0.0))
        for item in (self.note, self.hint):
            plot.addItem(item, ignoreBounds=True)
        self.pieces = 0
        self.dense = False
        self._x = self._y = np.zeros(0)
        vb = plot.getPlotItem().getViewBox()
        vb.sigRangeChanged.connect(self._on_range)  # zoomed in or out
        vb.sigResized.connect(self._on_range)       # laid out, or the window resized

    def show(self, x: np.ndarray, y: np.ndarray, pieces: int) -> None:
        """Draw ``pieces`` pieces given by x, y (breakpoints or extremes per column)."""
        self._x, self._y, self.pieces = np.asarray(x, float), np.asarray(y, float), int(pieces)
        self.curve.setData(self._x, self._y)
        self._restyle()

    def clear(self) -> None:
        self.show(np.zeros(0), np.zeros(0), 0)

    def _on_range(self, *_args) -> None:
        if self._x.size:
            self._restyle()

    def pixels_per_piece(self) -> float:
        vb = self.plot.getPlotItem().getViewBox()
        (x0, x1), _ = vb.viewRange()
        width = vb.width() if vb.width() > 10 else 600.0  # not laid out yet: a typical width
        span = float(self._x[-1] - self._x[0]) if self._x.size > 1 else 0.0
        if self.pieces <= 0 or span <= 0:
            return np.inf
        shown = self.pieces * min(1.0, max(x1 - x0, 1e-300) / span)
        return width / max(shown, 1.0)

    def _restyle(self) -> None:
        theme = current_theme()
        px = self.pixels_per_piece()
        self.dense = px < DENSE_PIXELS
        self.curve.setVisible(not self.dense)
        for item in (self.band, self.low, self.high):
            item.setVisible(self.dense)
        background = theme.color("background")
        background.setAlpha(225)
        for item in (self.note, self.hint):
            item.setVisible(self.dense and self.explain)
            item.setColor(theme.color("foreground"))
            item.setFont(theme.font(9))
            item.fill = pg.mkBrush(background)
        if not self.dense:
            pen = theme.pen(self.role, self.width if px >= THIN_PIXELS else 1.0)
            self.curve.setPen(pen)
            self.note.setText("")
            return
        vb = self.plot.getPlotItem().getViewBox()
        (x0, x1), (y0, y1) = vb.viewRange()
        # at least one column per pixel, so that the columns' strokes leave no gaps
        columns = int(max(16, min(4096, math.ceil(vb.width()) if vb.width() > 10 else 600)))
        # per pixel column, the lowest and highest value: at its two edges (the curve
        # between its points is straight) or at a point inside it
        x, y = self._x, self._y
        edges = np.linspace(max(x0, x[0]), min(x1, x[-1]), columns + 1)
        at_edges = np.interp(edges, x, y)
        low = np.minimum(at_edges[:-1], at_edges[1:])
        high = np.maximum(at_edges[:-1], at_edges[1:])
        first = np.searchsorted(x, edges)
        filled = np.flatnonzero(first[1:] > first[:-1])
        if filled.size:
            starts, end = first[filled], first[-1]
            low[filled] = np.minimum(low[filled], np.minimum.reduceat(y[:end], starts))
            high[filled] = np.maximum(high[filled], np.maximum.reduceat(y[:end], starts))
        middles = 0.5 * (edges[:-1] + edges[1:])
        self.low.setData(middles, low)
        self.high.setData(middles, high)
        fill = band_colour(theme, self.role)
        # a stroke as wide as its column (cosmetic: in pixels), so columns meet; a
        # whole number of pixels (Qt's fast path: 1.002 pixels cost 100× more)
        column = max(1, round(vb.width() / columns)) if vb.width() > 10 else 1
        pen = pg.mkPen(fill, width=column)
        pen.setCapStyle(Qt.PenCapStyle.FlatCap)
        self.band.setData(np.repeat(middles, 2), np.column_stack([low, high]).ravel(),
                          pen=pen, connect="pairs")
        per = 1.0 / px
        self.note.setText(f"{plain_count(self.pieces)} pieces: about {per:,.0f} in each pixel "
                          "column, so the curve fills this band.")
        for item in (self.note, self.hint):
            item.setTextWidth(max(80.0, vb.width() - 16))  # wrapped inside the plot
            item.setPos(0.5 * (x0 + x1), 0.5 * (y0 + y1))


class FoldingPlots:
    """The plots right of the controls, in two rows: ``top`` (the tent and your fold)
    and ``bottom`` (the small plots of the layers, the chart and its key)."""

    def __init__(self, theme: Theme):
        self.theme = theme
        self.layer_shown: list = [None] * LAYER_PLOTS
        self.layer_blank: list = [None] * LAYER_PLOTS
        self.fold_series_shown = None
        self.layer_pen = None  # the theme's, set in apply_theme
        self.top = self._build_main_plots()
        self.bottom = self._build_layers_and_chart()

    def title(self, pw: pg.PlotWidget, html: str, size: float = 11) -> None:
        self.theme.set_title(pw, html, size)
        if not html:  # pyqtgraph hides a title it is told to drop but keeps its text,
            pw.getPlotItem().titleLabel.text = ""  # which a theme's restyle showed again

    def _build_main_plots(self) -> QHBoxLayout:
        top = QHBoxLayout()
        self.plot = _plot("folding-plot", "The tent network composed k times",
                          "The tent map composed k times, g^(k)(x), on [0, 1] or the whole line: "
                          "each layer of two neurons folds [0, 1] onto itself, so k layers make "
                          "2^k pieces. A deep tent is drawn from its extremes per pixel column.")
        _zoom_x_only(self.plot)
        self.curve = self.plot.plot()
        _extremes_per_pixel(self.curve)
        self.curve.setClipToView(True)
        self.tent_view = DenseCurve(self.plot, self.curve, "approx", 2.0)
        top.addWidget(self.plot, 3)
        self.fold_plot = _plot("folding-fold-plot", "Your fold composed k times",
                               "Your fold u composed k times, u^(k)(x), on the same range as "
                               "the tent.")
        _zoom_x_only(self.fold_plot)
        self.fold_curve = self.fold_plot.plot()
        _extremes_per_pixel(self.fold_curve)
        self.fold_curve.setClipToView(True)
        self.fold_view = DenseCurve(self.fold_plot, self.fold_curve, "second", 1.6)
        top.addWidget(self.fold_plot, 2)
        return top

    def _build_layers_and_chart(self) -> QHBoxLayout:
        bottom = QHBoxLayout()
        strip = named(QWidget(), "folding-layers", "Small plots of the tent after each layer")
        grid = QGridLayout(strip)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setSpacing(2)
        self.layer_plots: list[pg.PlotWidget] = []
        self.layer_curves = []
        self.layer_views: list[DenseCurve] = []
        for i in range(LAYER_PLOTS):
            pw = _plot(f"folding-layer-{i + 1}", f"Small plot {i + 1} of the layers",
                       "The tent after one of the first layers on [0, 1].")
            pw.setMinimumWidth(60)
            pw.getPlotItem().hideAxis("left")
            pw.getPlotItem().hideAxis("bottom")
            pw.setMouseEnabled(False, False)
            curve = pw.plot()
            _extremes_per_pixel(curve)
            self.layer_plots.append(pw)
            self.layer_curves.append(curve)
            self.layer_views.append(DenseCurve(pw, curve, "approx", 1.2, explain=False))
            grid.addWidget(pw, 0, i)
        bottom.addWidget(strip, 3)
        self.chart = _plot("folding-chart", "Pieces against neurons, deep against shallow",
                           "Log-log chart of pieces against neurons: k tent layers (2k neurons, "
                           "2^k pieces) against one hidden layer (m neurons, m + 1 pieces at "
                           "most), your fold, and circles at the depth shown.")
        self.chart.setLogMode(x=True, y=True)
        self.chart.setMouseEnabled(False, False)
        # the key beside the chart, not on it: a legend on so small a plot hides the
        # one-layer diagonal and, at a projector's zoom, is cut off at the top; under
        # it, the key's line takes the height the chart needs
        self.chart_key = KeyLabel(
            "folding-chart-key", "Key of the pieces-against-neurons chart",
            [Entry("approx", "●", "k layers: 2ᵏ (ideal)"), Entry("accent", "‒ ‒", "one layer"),
             Entry("second", "■", "your fold"), Entry("muted", "○", "depth shown")],
            one_per_line=True)
        self.chart_key.setAlignment(Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft)
        self.deep_series = self.chart.plot()
        self.shallow_series = self.chart.plot()
        self.fold_series = self.chart.plot()
        self.match_line = self.chart.plot()
        self.deep_marker = self.chart.plot()
        self.shallow_marker = self.chart.plot()
        bottom.addWidget(self.chart, 2)
        bottom.addWidget(self.chart_key)
        return bottom

    # -- drawing -----------------------------------------------------------------
    def draw_tent(self, s: FoldingState, result: TentResult | None, view: tuple[float, float]) -> None:
        """g^(k) on ``view``, and its title; while a worker computes it (``result``
        None) the plot is empty and its title says so: the curve of the depth shown
        before, and its note's count, under this depth's title would pass for its own."""
        a, b = view
        where = "on the whole line" if s.whole_line else "on [0, 1]"
        computing = ": computing…" if result is None else ""
        self.title(self.plot, f"{sup(s.depth)}(x) {where}, peak p = {s.peak:.2f}{computing}")
        if result is None:
            self.tent_view.clear()
        else:
            x, y = result.curve(view)
            c = result.counts
            self.tent_view.show(x, y, c.kinks_line + 1 if s.whole_line else c.pieces_unit)
            # on [0, 1] every tent stays in [0, 1]; on the line depth 1 goes below 0
            low = min(0.0, float(y.min())) if s.whole_line else 0.0
            self.plot.setYRange(low, 1.0, padding=0.04)
        self.plot.setXRange(a, b, padding=0.02)

    def draw_frame(self, x: np.ndarray, y: np.ndarray, layer: int, share: float) -> None:
        """A frame of the fold animation: g^(layer − 1) turning into g^(layer)."""
        self.tent_view.show(x, y, max(1, len(x) - 1))
        self.plot.setXRange(0, 1, padding=0.02)
        self.title(self.plot, f"folding: {sup(layer - 1)} → {sup(layer)} ({round(100 * share)} %)")

    def draw_fold(self, s: FoldingState, fold: FoldPieces, view: tuple[float, float]) -> None:
        """Your fold composed k times, shown while ``s.show_fold``."""
        a, b = view
        self.fold_plot.setVisible(s.show_fold)
        if s.show_fold:
            if isinstance(fold, tuple):
                x, y = column_extremes(fold[0], a, b, COLUMNS)
                c = fold[1]
                self.fold_view.show(x, y, c.kinks_line + 1 if s.whole_line else c.pieces_unit)
            else:
                self.fold_view.clear()
            note = {str: ": not computed", type(None): ": computing…"}.get(type(fold), "")
            self.title(self.fold_plot, f"your fold u<sup>({s.depth})</sup>(x){note}")
            self.fold_plot.setXRange(a, b, padding=0.02)
            self.fold_plot.enableAutoRange(axis="y")

    def draw_layers(self, s: FoldingState, current: TentResult | None,
                    tent: Callable[[int, float], TentResult | None]) -> None:
        """Small plots of g^(1), g^(2), … (``current`` is g^(k), ``tent`` gives the
        others); only the ones whose content changed are touched, so a slider step
        repaints one small plot, not eight."""
        depths = layer_depths(s.depth)
        for i, (pw, curve) in enumerate(zip(self.layer_plots, self.layer_curves)):
            if i >= len(depths):
                if self.layer_shown[i] is not None:
                    self.layer_views[i].clear()
                    self.title(pw, "", 9)
                    self.layer_shown[i] = None
                self.blank_layer(i, True)
                continue
            self.blank_layer(i, False)
            j = depths[i]
            result = current if j == s.depth else tent(j, s.peak)
            shown = (j, s.peak, result is not None, self.theme.zoom)
            if self.layer_shown[i] == shown:
                continue
            self.layer_shown[i] = shown
            dots = "… " if i == LAYER_PLOTS - 1 and j != i + 1 else ""
            self.title(pw, f"{dots}{sup(j)}", 9)
            pw.setXRange(0, 1, padding=0.02)
            pw.setYRange(0, 1, padding=0.05)
            view = self.layer_views[i]
            if result is None:
                view.clear()
            else:
                x, y = result.curve(UNIT)
                view.show(x, y, result.counts.pieces_unit)
                if not view.dense:
                    _smooth_if_sparse(curve, x.size, self.layer_pen)

    def blank_layer(self, i: int, blank: bool) -> None:
        """An unused small plot is blank in the window's colour instead of hidden:
        showing hidden plots again (depth 4 to 24 in one step) lays them out and
        resizes them, 28 ms, and the window then repaints every plot."""
        if self.layer_blank[i] == blank:
            return
        self.layer_blank[i] = blank
        pw = self.layer_plots[i]
        pw.setBackground(self.theme.color("window" if blank else "background"))
        pw.setAccessibleDescription("Not used at this depth." if blank else
                                    "The tent after one of the first layers on [0, 1].")

    def draw_chart_series(self) -> None:
        """The two fixed curves: 2k neurons → 2^k pieces, and m neurons → m + 1."""
        k = np.arange(1, MAX_DEPTH + 1)
        self.deep_series.setData(2.0 * k, 2.0 ** k)
        m = np.unique(np.round(np.logspace(0, np.log10(2.0 ** MAX_DEPTH), 60)))
        self.shallow_series.setData(m, m + 1)
        top = np.log10(2.0 ** MAX_DEPTH)  # log-log: the view is in decades
        self.chart.setXRange(0, top, padding=0.03)
        self.chart.setYRange(0, top, padding=0.03)

    def draw_chart(self, s: FoldingState, fold_pieces: Callable[[int], FoldPieces]) -> None:
        """The circles at depth k and your fold's pieces for every depth composed so
        far (``fold_pieces(j)`` is your fold composed j times)."""
        n_deep, pieces = 2 * s.depth, 2.0 ** s.depth
        self.deep_marker.setData([n_deep], [pieces])
        self.shallow_marker.setData([pieces - 1 if pieces > 1 else 1], [pieces])
        self.match_line.setData([n_deep, max(pieces - 1, 1)], [pieces, pieces])
        # the user's fold: pieces on [0, 1] for every depth computed so far
        xs, ys = [], []
        if s.show_fold:
            for j in range(1, s.depth + 1):
                fold = fold_pieces(j)
                if not isinstance(fold, tuple):
                    break
                xs.append(j * s.fold.n_neurons)
                ys.append(fold[1].pieces_unit)
        if (xs, ys) != self.fold_series_shown:
            self.fold_series_shown = (xs, ys)
            self.fold_series.setData(xs, ys)

    def apply_theme(self) -> None:
        """Styles every plot in the theme's colours and sizes; the small plots are
        drawn and blanked anew, and the chart's fixed curves drawn again."""
        t = self.theme
        t.style_plot(self.plot)
        # no grid behind the sawtooth: the curve fills the plot anyway, and the
        # translucent grid lines cost more to paint than the curve (slider budget)
        self.plot.getPlotItem().showGrid(x=False, y=False)
        self.plot.setLabel("bottom", "x")
        self.plot.setLabel("left", "g(x)")
        for view in (self.tent_view, self.fold_view):
            view.curve.setPen(t.pen(view.role, view.width))
        t.style_plot(self.fold_plot)
        self.fold_plot.getPlotItem().showGrid(x=False, y=False)
        self.fold_plot.setLabel("bottom", "x")
        self.fold_plot.setLabel("left", "u(x)")

        for pw, curve in zip(self.layer_plots, self.layer_curves):
            t.style_plot(pw)
            pw.getPlotItem().showGrid(x=False, y=False)
            curve.setPen(t.pen("approx", 1.2))
        self.layer_pen = t.pen("approx", 1.2)
        self.layer_shown = [None] * LAYER_PLOTS
        self.layer_blank = [None] * LAYER_PLOTS  # styled again: blank or not, decided anew
        t.style_plot(self.chart)
        self.chart.setLabel("bottom", "neurons")
        self.chart.setLabel("left", "pieces")
        self.deep_series.setPen(t.pen("approx", 2.0))
        self.deep_series.setSymbol("o")
        self.deep_series.setSymbolSize(t.width(5))
        self.deep_series.setSymbolBrush(t.color("approx"))
        self.deep_series.setSymbolPen(None)
        self.shallow_series.setPen(t.pen("accent", 2.0, Qt.PenStyle.DashLine))
        self.fold_series.setPen(t.pen("second", 1.5, Qt.PenStyle.DotLine))
        self.fold_series.setSymbol("s")
        self.fold_series.setSymbolSize(t.width(5))
        self.fold_series.setSymbolBrush(t.color("second"))
        self.fold_series.setSymbolPen(None)
        self.match_line.setPen(t.pen("muted", 1.2, Qt.PenStyle.DotLine))
        for marker, role in ((self.deep_marker, "approx"), (self.shallow_marker, "accent")):
            marker.setPen(None)
            marker.setSymbol("o")
            marker.setSymbolSize(t.width(12))
            marker.setSymbolBrush(None)
            marker.setSymbolPen(t.pen(role, 2.5))
        self.draw_chart_series()
