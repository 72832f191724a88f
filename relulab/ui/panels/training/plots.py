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
from PySide6.QtGui import QBrush

from relulab.ui.driver import TimedPlotWidget
from relulab.ui.legend import Entry, KeyLabel
from relulab.ui.panels.base import named
from relulab.ui.panels.training.axes import ReadableAxis
from relulab.ui.panels.training.jobs import (
    DIVERGED_WORD,
    Curves,
    FinalBars,
    KinkPaths,
    Losses,
    curve_y_range,
)

#: A diverged restart's bar: hatched, in the others' grey, full height (no RMSE).
DIVERGED_BRUSH = Qt.BrushStyle.BDiagPattern
#: The small plots' titles, in points at zoom 1 (a third of the width each).
SMALL_TITLE_POINT_SIZE = 9.5


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
        item = pw.getPlotItem()
        item.setAxisItems({"left": ReadableAxis("left"), "bottom": ReadableAxis("bottom")})
        item.hideButtons()
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
            "best restart's curve is the thick one, in the best restart's colour.")
        self.kink_plot = self._plot(
            "training-kinks-plot", "Kink trajectories of the selected restart",
            "Where the selected restart's kinks are (x) at each step (upwards): one path per "
            "neuron, and a marker at each kink now.")
        self.final_plot = self._plot(
            "training-final-plot", "Final RMSE per restart",
            "The RMSE each restart reached, best first and named by restart number (or as a "
            "histogram), with least squares on evenly spaced kinks as a dashed line; a "
            "diverged restart is a hatched full-height bar marked diverged.")

    def _build_curve_items(self) -> None:
        # no legend on the plot, where it hid curves: the key under the plots says it all
        self.zero_line = pg.InfiniteLine(pos=0.0, angle=0, movable=False)
        self.zero_line.setZValue(-10)
        self.curve_plot.addItem(self.zero_line)
        self.target_curve = self.curve_plot.plot(name="target")
        self.ghost_curve = self.curve_plot.plot(name="even kinks, least squares")
        self.restart_curves: list[pg.PlotCurveItem] = []  # curve items: no scatter to make
        self.best_curve = self.curve_plot.plot(name="best restart")
        self.kink_markers = pg.ScatterPlotItem(name="kinks")
        self.curve_plot.addItem(self.kink_markers)

    def _build_small_items(self) -> None:
        # the small plots' titles say what is upwards where they can: a label there
        # takes the width of a column of numbers
        self.loss_plot.setLogMode(y=True)
        self.loss_plot.setLabel("bottom", "step")
        self.loss_curves: list[pg.PlotDataItem] = []
        self.kink_plot.setLabel("bottom", "kink x")  # and the step upwards
        self.kink_paths = self.kink_plot.plot(connect="finite")
        self.kink_now = pg.ScatterPlotItem()
        self.kink_plot.addItem(self.kink_now)
        self.final_bars = pg.BarGraphItem(x=[], height=[], width=0.8)
        self.final_plot.addItem(self.final_bars)
        self.final_ghost_line = pg.InfiniteLine(angle=0, movable=False)
        self.final_plot.addItem(self.final_ghost_line)
        # before the first step there is nothing to compare: the plot says what will come
        self.final_hint = pg.TextItem("", anchor=(0.5, 0.5))
        self.final_plot.addItem(self.final_hint, ignoreBounds=True)
        # across the diverged restarts' hatched bars (they come last), kept in the view
        self.diverged_label = pg.TextItem("", anchor=(0.5, 0.5), ensureInBounds=True)
        self.final_plot.addItem(self.diverged_label, ignoreBounds=True)
        self.key = KeyLabel("training-key", "Key of the plots", (
            Entry("target", "—", "target"),
            Entry("approx", "━", "best restart, in every plot"),
            Entry("muted", "—", "other restarts"),
            Entry("second", "‒ ‒", "even kinks, least squares (the ghost)"),
            Entry("selected", "◆", "kinks now"),
            Entry("muted", "▨", "diverged: no RMSE"),
        ))
        self._kinks_title: str | None = None
        self._kink_role: str | None = None

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

    def draw_kink_paths(self, paths: KinkPaths, selected: int, best: int, restarts: int) -> None:
        """Restart ``selected``'s kink paths, in the best restart's colour when it is the
        best, in the others' otherwise; the title names it."""
        self.kink_paths.setData(paths.x, paths.y, connect="finite")
        self.kink_now.setData(paths.now_x, paths.now_y)
        role = "approx" if selected == best else "muted"
        if self._kink_role != role:
            self._kink_role = role
            self.kink_paths.setPen(self.theme.pen(role, 1.0))  # width 1: the fast path
        title = f"Kinks, restart {selected + 1}"  # "of R" is in the list: no room here
        if self._kinks_title != title:  # retitling re-lays out the plot: only on a change
            self._kinks_title = title
            self.theme.set_title(self.kink_plot, title, SMALL_TITLE_POINT_SIZE)

    def draw_final(self, bars: FinalBars) -> None:
        self.final_hint.setText(bars.hint)
        bottom = self.final_plot.getPlotItem().getAxis("bottom")
        bottom.set_names(bars.ticks)
        lost = np.flatnonzero(bars.diverged)
        self.diverged_label.setText(DIVERGED_WORD if lost.size else "")
        if lost.size:
            self.diverged_label.setPos(float(np.mean(bars.x[lost])), 0.5 * bars.top)
        if bars.best is not None:
            t = self.theme
            brushes = [QBrush(t.color("muted"), DIVERGED_BRUSH) if lost_
                       else pg.mkBrush(t.color("approx" if best else "muted"))
                       for best, lost_ in zip(bars.best, bars.diverged)]
            pens = [t.pen("muted", 1.0) if lost_ else pg.mkPen(None) for lost_ in bars.diverged]
            self.final_bars.setOpts(x=bars.x, height=bars.height, width=bars.width,
                                    brushes=brushes, pens=pens)
        elif len(bars.x):
            self.final_bars.setOpts(x=bars.x, height=bars.height, width=bars.width,
                                    brushes=None, pens=None, brush=self.theme.color("muted"))
        else:
            self.final_bars.setOpts(x=[], height=[], width=1, brushes=None, pens=None)
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
        """Pens of the restarts' curves: the best restart in its colour ("approx") in
        every plot, the others thin grey ("muted"), so when only the best changes, only
        two loss curves are restyled (the main plot draws the best on its own)."""
        R = restarts
        old = self._style_key
        if old == (best, R) and not full:
            return
        self._style_key = (best, R)
        t = self.theme
        if full or old is None or old[1] != R:
            # thin, not faint: the other restarts recede by width (1 px against the
            # best's 3) and stay visible in every theme (3:1 on the background)
            pen = t.pen("muted", 1.0)  # width 1: the fast path
            for item in self.restart_curves[:R]:
                item.setPen(pen)
            restyle = range(R)
        else:
            restyle = {old[0], best}
        for r in restyle:
            item = self.loss_curves[r]
            item.setPen(t.pen("approx", 2.5) if r == best else t.pen("muted", 1.0))
            item.setZValue(1 if r == best else 0)  # the best drawn over the others

    def apply_theme(self) -> None:
        t = self.theme
        t.style_plot(self.curve_plot, "Every restart over the target")
        for plot, title in ((self.loss_plot, "Loss (MSE)"), (self.kink_plot, "Kinks"),
                            (self.final_plot, "RMSE per restart")):
            t.style_plot(plot)
            t.set_title(plot, title, SMALL_TITLE_POINT_SIZE)
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
        # set with the paths: the title names the restart, the pen says if it is the best
        self._kinks_title = self._kink_role = None
        self.kink_now.setSize(size)
        self.kink_now.setBrush(t.color("selected"))
        self.kink_now.setPen(t.pen("foreground", 1))
        self.final_ghost_line.setPen(t.pen("second", 2, Qt.PenStyle.DashLine))
        self.final_hint.setColor(t.color("foreground"))
        self.final_hint.setFont(t.font(9))
        self.diverged_label.setColor(t.color("foreground"))
        self.diverged_label.fill = pg.mkBrush(t.color("background"))  # legible over the hatching
        self.diverged_label.setFont(t.font(9))
        self.key.apply_theme()
