"""The Training panel's four plots and what draws on them: every restart over the target
(the main plot), the loss curves, the selected restart's kink trajectories and the final
RMSEs, and the key of the small plots.

Each ``draw_*`` puts on screen what :mod:`relulab.ui.panels.training.jobs` computed from
a snapshot; the panel decides when (the main plot every frame, one small plot per tick
while training runs). Axes that do not move every frame are fixed (``set_ranges``), so
that a frame does not re-lay them out.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt

from relulab.ui.driver import TimedPlotWidget
from relulab.ui.legend import Entry, KeyLabel
from relulab.ui.panels.base import named
from relulab.ui.panels.training.jobs import Curves, FinalBars, KinkPaths, Losses, curve_y_range


class TrainingPlots:
    """The plots (``curve_plot``, ``loss_plot``, ``kink_plot``, ``final_plot``), their
    items and the key; ``clock(seconds)`` hears the paint time of each plot."""

    def __init__(self, theme, clock: Callable[[float], None]):
        self.theme = theme
        self._clock = clock
        self._style_key: tuple[int, int] | None = None  # (best, restarts) as styled
        self._final_labels: tuple[str, str] | None = None
        self._build_plots()
        self._build_curve_items()
        self._build_small_items()

    def _plot(self, name: str, accessible: str, description: str) -> TimedPlotWidget:
        pw = named(TimedPlotWidget(self._clock), name, accessible, description=description)
        pw.setMenuEnabled(False)
        pw.getPlotItem().hideButtons()
        return pw

    def _build_plots(self) -> None:
        self.curve_plot = self._plot(
            "training-plot", "Restarts over the target",
            "Every restart's network over the target on the domain: the target thick, the best "
            "restart highlighted, least squares with evenly spaced kinks dashed, and the "
            "selected restart's kinks as diamonds on its curve.")
        self.loss_plot = self._plot(
            "training-loss-plot", "Loss per restart, log scale",
            "Each restart's mean squared error against the training step, on a log scale; the "
            "best restart's curve is the thick one.")
        self.kink_plot = self._plot(
            "training-kinks-plot", "Kink trajectories of the selected restart",
            "Where the selected restart's kinks are (x) at each step (upwards): one path per "
            "neuron, and a marker at each kink now.")
        self.final_plot = self._plot(
            "training-final-plot", "Final RMSE per restart",
            "The RMSE each restart reached, best first (or as a histogram), with least squares "
            "on evenly spaced kinks as a dashed line.")

    def _build_curve_items(self) -> None:
        # one row along the top, where the curves rarely go
        self.legend = self.curve_plot.getPlotItem().addLegend(offset=(-10, 5), colCount=5)
        self.zero_line = pg.InfiniteLine(pos=0.0, angle=0, movable=False)
        self.zero_line.setZValue(-10)
        self.curve_plot.addItem(self.zero_line)
        self.target_curve = self.curve_plot.plot(name="target")
        self.ghost_curve = self.curve_plot.plot(name="even kinks, least squares")
        self.restart_curves: list[pg.PlotCurveItem] = []  # curve items: no scatter to make
        self.best_curve = self.curve_plot.plot(name="best restart")
        # the other restarts are thin curves in the series colours: the key shows one
        self.others_sample = pg.PlotDataItem()
        self.legend.addItem(self.others_sample, "other restarts")
        self.kink_markers = pg.ScatterPlotItem(name="kinks")
        self.curve_plot.addItem(self.kink_markers)

    def _build_small_items(self) -> None:
        self.loss_plot.setLogMode(y=True)
        self.loss_plot.setLabel("bottom", "step")
        self.loss_plot.setLabel("left", "MSE")
        self.loss_curves: list[pg.PlotDataItem] = []
        self.kink_plot.setLabel("bottom", "kink position x")
        self.kink_plot.setLabel("left", "step")
        self.kink_paths = self.kink_plot.plot(connect="finite")
        self.kink_now = pg.ScatterPlotItem()
        self.kink_plot.addItem(self.kink_now)
        self.final_plot.setLabel("bottom", "restarts, best first")
        self.final_plot.setLabel("left", "RMSE")
        self.final_bars = pg.BarGraphItem(x=[], height=[], width=0.8)
        self.final_plot.addItem(self.final_bars)
        self.final_ghost_line = pg.InfiniteLine(angle=0, movable=False)
        self.final_plot.addItem(self.final_ghost_line)
        # before the first step there is nothing to compare: the plot says what will come
        self.final_hint = pg.TextItem("", anchor=(0.5, 0.5))
        self.final_plot.addItem(self.final_hint, ignoreBounds=True)
        self.key = KeyLabel("training-key", "Key of the small plots", (
            Entry(lambda th: th.series_color(0), "—", "loss and kinks: each restart in its colour"),
            Entry("approx", "▮", "best restart"),
            Entry("muted", "▮", "the others"),
            Entry("second", "‒ ‒", "even kinks, least squares (the ghost)"),
            Entry("selected", "◆", "kinks now"),
        ))

    def plots(self) -> dict:
        return {"curves": self.curve_plot, "losses": self.loss_plot, "kinks": self.kink_plot,
                "final": self.final_plot}

    # -- drawing -----------------------------------------------------------------------
    def show_target(self, grid: np.ndarray, target: np.ndarray, ghost: np.ndarray) -> None:
        """The target and the ghost (least squares on evenly spaced kinks) on the grid."""
        self.target_curve.setData(grid, target)
        self.ghost_curve.setData(grid, ghost)

    def set_ranges(self, lo: float, hi: float, target_on_grid: np.ndarray, steps: int) -> None:
        """Fixed view ranges for the domain [lo, hi] and a run of ``steps`` steps: axes
        that do not move every frame are not re-laid out every frame."""
        self.curve_plot.setXRange(lo, hi, padding=0.02)
        self.curve_plot.setYRange(*curve_y_range(target_on_grid), padding=0)
        self.curve_plot.getPlotItem().disableAutoRange()
        # the small plots' ranges are set with their data: pyqtgraph's auto range runs
        # when a plot paints and changes the axes, which paints the plot a second time
        self.loss_plot.getPlotItem().disableAutoRange()
        self.final_plot.getPlotItem().disableAutoRange()
        self.loss_plot.setXRange(0, steps, padding=0.02)
        self.kink_plot.getPlotItem().disableAutoRange()
        self.kink_plot.setXRange(lo, hi, padding=0.02)
        self.kink_plot.setYRange(0, steps, padding=0.02)

    def draw_curves(self, grid: np.ndarray, curves: Curves) -> None:
        """Every restart, the best and the selected restart's kinks; one curve item per
        restart here and in the loss plot, the ones beyond the restarts emptied."""
        R = len(curves.restarts)
        while len(self.restart_curves) < R:
            item = pg.PlotCurveItem(connect="finite")
            self.curve_plot.addItem(item)
            item.setZValue(-1)
            self.restart_curves.append(item)
            self.loss_curves.append(self.loss_plot.plot(connect="finite"))
        for item in self.restart_curves[R:] + self.loss_curves[R:]:
            if item.xData is not None and len(item.xData):
                item.setData([], [])
        for r in range(R):
            self.restart_curves[r].setData(grid, curves.restarts[r])
        self.best_curve.setData(grid, curves.best)
        self.kink_markers.setData(curves.kink_x, curves.kink_y)

    def draw_losses(self, losses: Losses) -> None:
        for item, x, y in zip(self.loss_curves, losses.steps, losses.values):
            item.setData(x, y)
        self.loss_plot.setYRange(*losses.log_range, padding=0.05)  # log scale

    def draw_kink_paths(self, paths: KinkPaths) -> None:
        self.kink_paths.setData(paths.x, paths.y, connect="finite")
        self.kink_now.setData(paths.now_x, paths.now_y)

    def draw_final(self, bars: FinalBars) -> None:
        self.final_hint.setText(bars.hint)
        if bars.best is not None:
            brushes = [self.theme.color("approx") if best else self.theme.color("muted")
                       for best in bars.best]
            self.final_bars.setOpts(x=bars.x, height=bars.height, width=bars.width,
                                    brushes=brushes)
        elif len(bars.x):
            self.final_bars.setOpts(x=bars.x, height=bars.height, width=bars.width,
                                    brushes=None, brush=self.theme.color("accent"))
        else:
            self.final_bars.setOpts(x=[], height=[], width=1, brushes=None)
        self.final_ghost_line.setAngle(bars.angle)
        if bars.hint_pos is not None:
            self.final_hint.setPos(*bars.hint_pos)
        if self._final_labels != bars.labels:  # relabelling re-lays out the plot: only on a change
            self._final_labels = bars.labels
            self.final_plot.setLabel("bottom", bars.labels[0])
            self.final_plot.setLabel("left", bars.labels[1])
        self.final_ghost_line.setValue(bars.ghost)
        self.final_plot.setRange(xRange=bars.x_range, yRange=(0.0, bars.top), padding=0.05)

    def style_series(self, best: int, restarts: int, full: bool = False) -> None:
        """Pens of the restarts' curves; only the best restart's loss curve stands out, so
        when only the best changes, only two curves are restyled."""
        R = restarts
        old = self._style_key
        if old == (best, R) and not full:
            return
        self._style_key = (best, R)
        if full or old is None or old[1] != R:
            for r, item in enumerate(self.restart_curves[:R]):
                # thin, not faint: the other restarts recede by width (1 px against the
                # best's 3) and stay visible in every theme (3:1 on the background)
                item.setPen(self.theme.series_pen(r, 1.0))  # width 1: the fast path
            restyle = range(R)
        else:
            restyle = {old[0], best}
        for r in restyle:
            self.loss_curves[r].setPen(self.theme.series_pen(r, 2.5 if r == best else 1.0))

    def apply_theme(self) -> None:
        t = self.theme
        t.style_plot(self.curve_plot, "Every restart over the target")
        t.style_plot(self.loss_plot, "Loss")
        t.style_plot(self.kink_plot, "Kinks")
        t.style_plot(self.final_plot, "RMSE per restart")
        self._final_labels = None
        # pyqtgraph repaints grid lines with every frame, at ten times the cost of the
        # curves; training redraws many times a second, so these plots go without them
        for pw in self.plots().values():
            pw.getPlotItem().showGrid(x=False, y=False)
        self.zero_line.setPen(t.pen("grid", 1))
        self.target_curve.setPen(t.pen("target", 3))
        self.ghost_curve.setPen(t.pen("second", 2, Qt.PenStyle.DashLine))
        self.best_curve.setPen(t.pen("approx", 3))
        size = t.point_size(9)
        self.kink_markers.setSize(size)
        self.kink_markers.setBrush(t.color("selected"))
        self.kink_markers.setPen(t.pen("foreground", 1))
        self.kink_markers.setSymbol("d")
        self.kink_paths.setPen(t.pen("accent", 1.0))  # width 1: the fast path
        self.kink_now.setSize(size)
        self.kink_now.setBrush(t.color("selected"))
        self.kink_now.setPen(t.pen("foreground", 1))
        self.final_ghost_line.setPen(t.pen("second", 2, Qt.PenStyle.DashLine))
        self.final_hint.setColor(t.color("foreground"))
        self.final_hint.setFont(t.font(9))
        self.others_sample.setPen(t.series_pen(1, 1.0))
