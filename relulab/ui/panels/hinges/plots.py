"""The Hinges panel's plots and what draws on them: the target and the sum of hinges
with its handles above; the residual and the convergence study (error against n,
log-log) below, or beside in the lecture layout.

A drag refits and redraws on every mouse move, and both must fit in a frame: 8 ms
at 100 hinges and 1,000 samples (``benchmarks/bench_hinges.py``). So what does not
move during a drag (the target, the axes and the grid) is painted once into cached
pixmaps, the separate hinges are one polyline, and the residual plot keeps its range
until the drag ends.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QGraphicsItem, QSplitter, QVBoxLayout, QWidget

from relulab.model.fitting.hinges import ConvergenceRow, HingeFit, log_log_slope
from relulab.model.lessons.hinges import HingesState, by_position
from relulab.ui.items.hinges_handles import HandlesItem, SelectedMarker
from relulab.ui.legend import key_html
from relulab.ui.panels.base import named
from relulab.ui.panels.hinges.readouts import signed
from relulab.ui.readout import Note
from relulab.ui.theme import Theme

#: The least height of every plot's data area, in pixels: below it the axes and the
#: title leave the data a strip (seen: 40 px at 1280 × 720, zoom 1.6).
MIN_PLOT_HEIGHT = 120
#: What a plot's axis (numbers and label) and title take of its height, in pixels at
#: zoom 1 (measured: 33 and 19 at zoom 1.6, over 1.6); they grow with the zoom.
AXIS_HEIGHT, TITLE_HEIGHT = 33, 19


def _plot(name: str, accessible: str, description: str) -> pg.PlotWidget:
    pw = named(pg.PlotWidget(), name, accessible, description=description)
    pw.setMenuEnabled(False)
    pw.getPlotItem().hideButtons()  # the "A" (auto-range) button: the panel sets the ranges
    return pw


def plot_tables(fit: HingeFit, x: np.ndarray, y: np.ndarray,
                rows: list[ConvergenceRow]) -> dict:
    """The data behind the plots as {name: (column headers, rows)}, for CSV export: the
    hinges of ``fit`` (numbered left to right, as the readout numbers them), the samples
    (x, y) with the fit's residual, the study's rows."""
    hinges = [["intercept a", "", fit.intercept], ["slope s", "", fit.slope]]
    hinges += [[f"hinge {n + 1}", float(fit.kinks[i]), float(fit.coefficients[i])]
               for n, i in enumerate(by_position(fit.kinks))]
    samples = [[float(xi), float(yi), float(yi + r), float(r)]
               for xi, yi, r in zip(x, y, fit.residual)]
    conv = [[r.n, r.ls_rmse, r.ls_max_error, r.ls_sup_error, r.interp_max_error,
             "" if r.bound is None else r.bound] for r in rows]
    return {
        "hinges": (["term", "kink", "coefficient"], hinges),
        "samples": (["x", "target", "approximation", "residual"], samples),
        "convergence": (["n", "least squares RMSE", "least squares largest error (samples)",
                         "least squares largest error (fine grid)",
                         "interpolation largest error", "bound"], conv),
    }


class KeyedPlot(QWidget):
    """A plot with its key under it. Its least height is the plot's and the key's at
    the width it has (a splitter asks for the least height, not for the height at a
    width: without this a wrapped key of three lines lay over the plot's axis)."""

    def __init__(self, plot: pg.PlotWidget, key: Note):
        super().__init__()
        self.plot, self.key = plot, key
        v = QVBoxLayout(self)
        v.setContentsMargins(0, 0, 0, 0)
        v.setSpacing(0)
        v.addWidget(plot, 1)
        v.addWidget(key)

    def fit_key(self) -> None:
        """Ask for the plot's least height and the key's lines at this width."""
        width = max(self.width(), 1)
        need = self.plot.minimumHeight() + max(self.key.heightForWidth(width), 0)
        if self.minimumHeight() != need:
            self.setMinimumHeight(need)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self.fit_key()


class HingesPlots(QSplitter):
    """The main plot above, the residual and the convergence plot below it. The plots
    and their items are attributes, listed in ``PARTS``."""

    #: The plots and items the panel shows as its own attributes (``panel.plot``; the
    #: keys on the plot name it so).
    PARTS = ("plot", "residual_plot", "convergence_plot", "target_curve", "approx_curve",
             "components_curve", "handles", "selected_marker", "slope_text", "residual_curve",
             "residual_zero", "conv_ls_rmse", "conv_ls_max", "conv_interp", "conv_bound",
             "conv_guide", "conv_now", "convergence_box", "convergence_key", "main_box",
             "main_key")

    def __init__(self, theme: Theme, parent: QWidget | None = None):
        super().__init__(Qt.Orientation.Vertical, parent)
        self.theme = theme
        self._build_main_plot()
        self._build_residual_plot()
        self._build_convergence_plot()
        # What does not change during a drag (target, axes and grid) is painted once
        # into a cached pixmap, so a mouse move repaints only the moving items.
        cache = QGraphicsItem.CacheMode.DeviceCoordinateCache
        self.target_curve.curve.setCacheMode(cache)
        for pw in (self.plot, self.residual_plot, self.convergence_plot):
            for axis in ("left", "bottom", "right", "top"):
                pw.getPlotItem().getAxis(axis).setCacheMode(cache)
        self._build_layout()

    # -- building ----------------------------------------------------------------------
    def _build_main_plot(self) -> None:
        self.plot = _plot(
            "hinges-plot", "Target and sum of hinges",
            "The target f(x), solid, and the sum of hinges f̂(x), dashed, over the domain "
            "[a, b]. A round handle sits on the sum at each kink: drag it sideways to move the "
            "kink, up or down (Free mode) to change its slope change; double-click adds a hinge.")
        self.plot.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        pi = self.plot.getPlotItem()
        pi.setLabel("bottom", "x")
        # no legend on the plot: every corner holds the curve for one target or
        # another; the key is under the plot (main_key)
        self.target_curve = pi.plot(name="target f(x)", antialias=True)
        self.approx_curve = pi.plot(name="sum of hinges f̂(x)", antialias=True)
        # Thin, solid and not antialiased: 200 hinges are 200 lines across the plot;
        # dotted antialiased ones take 0.7 s to paint, solid aliased ones 3 ms.
        self.components_curve = pg.PlotDataItem(connect="finite", antialias=False)
        pi.addItem(self.components_curve)
        self.handles = HandlesItem()
        pi.addItem(self.handles)
        self.selected_marker = SelectedMarker()
        pi.addItem(self.selected_marker)
        self.slope_text = pg.TextItem(anchor=(0.5, 1.4))
        pi.addItem(self.slope_text)

    def _build_residual_plot(self) -> None:
        self.residual_plot = _plot("hinges-residual-plot",
                                   "Residual f̂(x) − f(x) at the sample points",
                                   "The residual f̂(x) − f(x) at every sample point, against x, "
                                   "around a dashed zero line.")
        rp = self.residual_plot.getPlotItem()
        rp.setLabel("left", "f̂ − f")
        rp.setLabel("bottom", "x")
        # drawn as a polyline of at most ~2 points per pixel column (min and max), so
        # 20,000 samples cost what a few thousand do
        self.residual_curve = rp.plot(antialias=False, autoDownsample=True, downsampleMethod="peak",
                                      clipToView=True)
        self.residual_zero = pg.InfiniteLine(0, angle=0)
        rp.addItem(self.residual_zero)

    def _build_convergence_plot(self) -> None:
        self.convergence_plot = _plot(
            "hinges-convergence-plot", "Error against the number of hinges, log-log",
            "Log-log plot of the error against the number of hinges n: least squares "
            "with evenly spaced kinks (RMSE and largest error), the interpolation's largest "
            "error, its bound (b − a)²M/(8n²), a guide line of slope −2, and a vertical line at "
            "the n on screen.")
        cp = self.convergence_plot.getPlotItem()
        cp.setLogMode(True, True)
        cp.setLabel("bottom", "hinges n")
        cp.setLabel("left", "error")
        self.conv_ls_rmse = cp.plot(name="least squares: RMSE", symbol="o")
        self.conv_ls_max = cp.plot(name="least squares: largest", symbol="s")
        self.conv_interp = cp.plot(name="interpolation: largest", symbol="t")
        self.conv_bound = cp.plot(name="bound")
        self.conv_guide = cp.plot(name="slope −2")
        # the powers of four always, those of two between them where there is room: at
        # zoom 1.6 the eight numbers ran into each other ("64128")
        cp.getAxis("bottom").setTicks([[(np.log10(n), str(n)) for n in (1, 4, 16, 64)],
                                       [(np.log10(n), str(n)) for n in (2, 8, 32, 128)]])
        self.conv_now = pg.InfiniteLine(angle=90)
        cp.addItem(self.conv_now)

    def _build_layout(self) -> None:
        """The main plot above; the residual and the convergence plot below it."""
        self.main_key = Note("hinges-key", "Key of the main plot")
        self.main_box = KeyedPlot(self.plot, self.main_key)
        self.addWidget(self.main_box)
        self.bottom = QSplitter(Qt.Orientation.Horizontal)
        self.bottom.addWidget(self.residual_plot)
        # the key sits under the plot, not over it: the plot is small and every corner
        # of it holds data for one target or another
        self.convergence_key = Note("hinges-convergence-key", "Key of the convergence plot")
        self.convergence_box = KeyedPlot(self.convergence_plot, self.convergence_key)
        self.bottom.addWidget(self.convergence_box)
        self.addWidget(self.bottom)
        self.setStretchFactor(0, 3)
        self.setStretchFactor(1, 2)
        self.setSizes([480, 300])
        self.setChildrenCollapsible(False)

    def set_lecture_layout(self, on: bool) -> None:
        """In the lecture layout the residual and the convergence plot stand beside the
        main plot, one above the other: a projector's screen is wide and short."""
        self.setOrientation(Qt.Orientation.Horizontal if on else Qt.Orientation.Vertical)
        self.bottom.setOrientation(Qt.Orientation.Vertical if on else Qt.Orientation.Horizontal)
        total = self.width() if on else self.height()
        self.setSizes([int(total * 0.6), int(total * 0.4)] if on else [480, 300])
        # the convergence plot carries its key below it: it gets the larger share
        self.bottom.setStretchFactor(0, 2 if on else 1)
        self.bottom.setStretchFactor(1, 3 if on else 1)
        self.bottom.setSizes([2000, 3000] if on else [1000, 1000])

    def show_views(self, s: HingesState) -> None:
        """The views the state asks for; the handles drag except in Interpolation mode."""
        self.residual_plot.setVisible(s.show_residual)
        self.convergence_box.setVisible(s.show_convergence)
        self.bottom.setVisible(s.show_residual or s.show_convergence)
        self.handles.draggable = s.mode != "interpolation"

    # -- the main plot -------------------------------------------------------------------
    def draw_target(self, x: np.ndarray, y: np.ndarray) -> None:
        self.target_curve.setData(x, y)

    def set_ranges(self, a: float, b: float, y: np.ndarray) -> None:
        """Fit both plots to the domain [a, b], the main one also to the target's
        values ``y``; then they keep it (a drag does not move the view)."""
        lo, hi = float(np.min(y)), float(np.max(y))
        pad = 0.12 * max(hi - lo, 1e-6)
        vb = self.plot.getPlotItem().getViewBox()
        vb.setRange(xRange=(a, b), yRange=(lo - pad, hi + pad), padding=0.02)
        vb.disableAutoRange()
        rvb = self.residual_plot.getPlotItem().getViewBox()
        rvb.setXRange(a, b, padding=0.02)
        rvb.disableAutoRange()

    def draw_fit(self, s: HingesState, fit: HingeFit,
                 selected: int | None) -> tuple[np.ndarray, np.ndarray]:
        """The sum of hinges, a handle on it at each kink (a ring under hinge
        ``selected``) and, if the state shows them, each hinge on its own. Returns the
        handles' positions (the kinks and the sum there)."""
        th = self.theme
        xs, ys = fit.vertices(s.a, s.b)
        self.approx_curve.setData(xs, ys)
        hx = fit.kinks
        hy = fit.predict(hx)
        self.handles.set_handles(hx, hy, self._brush, self._handle_pen, th.point_size(11))
        if selected is not None and selected < hx.size:
            self.selected_marker.show_at(float(hx[selected]), float(hy[selected]),
                                         self._selected_brush, self._handle_pen,
                                         th.point_size(19))
        else:
            self.selected_marker.show_at(None, None, None, None, 0)
        if s.show_components and fit.kinks.size:
            self._draw_components(s, fit)
            self.components_curve.setVisible(True)
        else:
            self.components_curve.setVisible(False)
        return hx, hy

    def _draw_components(self, s: HingesState, fit: HingeFit) -> None:
        """The line a + s·x and each hinge cᵢ·ReLU(x − kᵢ), as one polyline broken by
        NaNs (one item whatever the number of hinges)."""
        k, c = fit.kinks, fit.coefficients
        n = k.size
        px = np.empty((n, 4))
        py = np.empty((n, 4))
        px[:, 0], px[:, 1], px[:, 2], px[:, 3] = s.a, np.clip(k, s.a, s.b), s.b, np.nan
        py[:, 0], py[:, 1] = 0.0, 0.0
        py[:, 2] = c * np.maximum(s.b - k, 0.0)
        py[:, 3] = np.nan
        # the line a + s·x is the first part of the sum
        lx = [s.a, s.b, np.nan]
        ly = [fit.intercept + fit.slope * s.a, fit.intercept + fit.slope * s.b, np.nan]
        self.components_curve.setData(np.concatenate((lx, px.ravel())),
                                      np.concatenate((ly, py.ravel())))

    def show_slope_change(self, x: float | None, y: float | None, change: float = 0.0) -> None:
        """"Δslope" over the selected handle at (x, y); None: no hinge selected."""
        if x is None:
            self.slope_text.setVisible(False)
            return
        self.slope_text.setText(f"Δslope {signed(change)}")
        self.slope_text.setPos(x, y)
        self.slope_text.setVisible(True)

    # -- the residual ----------------------------------------------------------------------
    def draw_residual(self, x: np.ndarray, residual: np.ndarray, rescale: bool) -> None:
        """The residual at the samples; ``rescale``: fit the y range to it too (not
        during a drag: a moving range would repaint the axes and grid on every move)."""
        self.residual_curve.setData(x, residual)
        if rescale:
            self._range_residual(residual)

    def _range_residual(self, r: np.ndarray) -> None:
        """Fit the residual plot's y range to the residual ``r``, symmetric about 0."""
        top = float(np.max(np.abs(r))) if r.size else 1.0
        top = top * 1.1 if top > 0 else 1.0
        vb = self.residual_plot.getPlotItem().getViewBox()
        (lo, hi) = vb.viewRange()[1]
        if not (0.5 * hi < top <= hi) or abs(lo + hi) > 1e-9 * hi:
            vb.setYRange(-top, top, padding=0)

    # -- the convergence study -------------------------------------------------------------
    def clear_convergence(self) -> None:
        for item in (self.conv_ls_rmse, self.conv_ls_max, self.conv_interp, self.conv_bound,
                     self.conv_guide):
            item.setData([], [])

    def draw_convergence(self, rows: list[ConvergenceRow], done: bool) -> None:
        """The study's rows so far; once it is ``done``, the measured slope in the title."""
        if not rows:
            return
        n = np.array([r.n for r in rows], dtype=float)
        self.conv_ls_rmse.setData(n, [r.ls_rmse for r in rows])
        self.conv_ls_max.setData(n, [r.ls_sup_error for r in rows])
        self.conv_interp.setData(n, [r.interp_max_error for r in rows])
        bn = [(r.n, r.bound) for r in rows if r.bound is not None]
        if bn:
            self.conv_bound.setData([b[0] for b in bn], [b[1] for b in bn])
        else:
            self.conv_bound.setData([], [])
        # the guide: slope −2 through the interpolation error at the middle n
        mid = rows[len(rows) // 2]
        e0 = mid.interp_max_error if mid.interp_max_error > 0 else mid.ls_rmse
        if e0 > 0 and len(rows) > 1:
            g = np.array([n[0], n[-1]])
            self.conv_guide.setData(g, e0 * 1.6 * (g / mid.n) ** -2.0)
        self.convergence_plot.getPlotItem().getViewBox().enableAutoRange()
        if done:
            slope = log_log_slope(n[n >= 6], [r.ls_rmse for r in rows if r.n >= 6])
            self.theme.set_title(
                self.convergence_plot,
                f"measured slope {slope:.2f}".replace("-", "−"), 9)

    def mark_n(self, n: int) -> None:
        """The vertical line at the number of hinges on screen."""
        if self.conv_now.value() != np.log10(n):
            self.conv_now.setValue(np.log10(n))

    # -- theme ---------------------------------------------------------------------------
    def apply_theme(self) -> None:
        th = self.theme
        for pw, title in ((self.plot, None), (self.residual_plot, None),
                          (self.convergence_plot, None)):
            th.style_plot(pw, title)
        # the data area keeps MIN_PLOT_HEIGHT whatever the zoom makes the axes and title
        decoration = AXIS_HEIGHT * th.zoom
        for pw in (self.plot, self.residual_plot):
            pw.setMinimumHeight(round(MIN_PLOT_HEIGHT + decoration))
        self.convergence_plot.setMinimumHeight(
            round(MIN_PLOT_HEIGHT + decoration + TITLE_HEIGHT * th.zoom))
        self.main_key.setFont(th.font(8.5))
        self.main_key.setText(key_html([(th.color("target"), "━", "target f(x)"),
                                        (th.color("approx"), "‒ ‒", "sum of hinges f̂(x)"),
                                        (th.color("handle"), "●", "kink")]))
        self.target_curve.setPen(th.pen("target", 4.0))
        self.approx_curve.setPen(th.pen("approx", 2.5, Qt.PenStyle.DashLine))
        self.components_curve.setPen(th.pen("muted", 1.0))
        self.residual_curve.setPen(th.pen("error", 1.0))  # 1 px: the fast raster path
        self.residual_zero.setPen(th.pen("muted", 1.0, Qt.PenStyle.DashLine))
        self._brush = pg.mkBrush(th.color("handle"))
        self._selected_brush = pg.mkBrush(th.color("selected"))
        self._handle_pen = th.pen("background", 1.5)
        self.slope_text.setColor(th.color("foreground"))
        self.slope_text.setFont(th.font(11, bold=True))
        for i, item in enumerate((self.conv_ls_rmse, self.conv_ls_max, self.conv_interp)):
            item.setPen(th.series_pen(i, 2.0))
            item.setSymbolBrush(pg.mkBrush(th.series_color(i)))
            item.setSymbolPen(th.series_pen(i, 1.0))
            item.setSymbolSize(th.point_size(7))
        self.conv_bound.setPen(th.pen("muted", 2.0, Qt.PenStyle.DashLine))
        self.conv_guide.setPen(th.pen("foreground", 1.5, Qt.PenStyle.DotLine))
        self.conv_now.setPen(th.pen("selected", 1.5))
        key = [(th.series_color(0), "●", "LS RMSE"),
               (th.series_color(1), "■", "LS largest error"),
               (th.series_color(2), "▼", "interpolation largest"),
               (th.color("muted"), "‒ ‒", "bound"),
               (th.color("foreground"), "···", "slope −2: ×2 hinges → error ÷4")]
        self.convergence_key.setFont(th.font(8.5))
        self.convergence_key.setToolTip("LS = least squares with evenly spaced kinks; "
                                        "bound = (b − a)²M/(8n²) for the interpolation")
        self.convergence_key.setText(key_html(key))
        for box in (self.main_box, self.convergence_box):
            box.fit_key()
