"""The Questions panel's plots: one pair per page, and what draws a run on them.

Widths run over three decades and errors over seven (29 at the peak, 0.2 past it,
3 × 10⁷ between two lottery draws), so the axes are logarithmic where the issue's
numbers need it. pyqtgraph's log mode takes the data as they are and draws their
logarithm; the straight lines (H = n, the kernel limit) are placed at the logarithm
themselves, since an InfiniteLine is not transformed.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt

from relulab.ui.legend import Entry, KeyLabel
from relulab.ui.panels.base import named
from relulab.ui.panels.folding.plots import UprightAxis
from relulab.ui.panels.questions.jobs import (
    DoubleDescentRun,
    InfiniteWidthRun,
    OverparametrisationRun,
)
from relulab.ui.theme import Theme

#: No plot of the panel gets less height than this (the guard tests' least).
MIN_PLOT_HEIGHT = 120
#: What the double-descent plot's y axis reads in each view.
VIEW_LABELS = {"error": "mean squared error", "weight norm": "output-weight norm ‖a‖",
               "condition": "condition number of Φ"}
VIEW_FIELDS = {"weight norm": "weight_norm", "condition": "condition"}


class WidthAxis(pg.AxisItem):
    """A logarithmic axis of widths numbered at whole decades only, as plain numbers
    (10, 100, 1,000): pyqtgraph numbers every minor tick over three decades, and at a
    laptop's width "3·10¹ 4·10¹ 5·10¹" ran into each other."""

    def tickValues(self, minVal, maxVal, size):
        if not self.logMode or self._tickLevels is not None:
            return super().tickValues(minVal, maxVal, size)
        lo, hi = math.floor(minVal), math.ceil(maxVal)
        decades = [float(j) for j in range(lo, hi + 1) if minVal <= j <= maxVal]
        between = [j + math.log10(k) for j in range(lo, hi) for k in range(2, 10)
                   if minVal <= j + math.log10(k) <= maxVal]
        return [(1.0, decades), (None, between)]

    def logTickStrings(self, values, scale, spacing):
        # the decades are numbered; the ticks between them are not
        out = []
        for v in values:
            whole = abs(v - round(v)) < 1e-6
            out.append(f"{10.0 ** round(v):,.10g}" if whole else "")
        return out


def make_plot(name: str, accessible: str, description: str, *, log_x: bool = True,
              log_y: bool = True) -> pg.PlotWidget:
    """A plot without pyqtgraph's menu and "A" button, at least MIN_PLOT_HEIGHT tall,
    with upright numbers that never run into each other."""
    axes = {"left": UprightAxis("left")}
    if log_x:
        axes["bottom"] = WidthAxis("bottom")
    pw = named(pg.PlotWidget(axisItems=axes), name, accessible, description=description)
    pw.setMenuEnabled(False)
    pw.hideButtons()
    pw.setMinimumHeight(MIN_PLOT_HEIGHT)
    pw.setLogMode(x=log_x, y=log_y)
    pw.setMouseEnabled(x=False, y=False)
    return pw


def _positive(values) -> np.ndarray:
    """Values a log axis can draw: what is not positive and finite becomes NaN (a gap)."""
    v = np.asarray(values, float).copy()
    v[~(np.isfinite(v) & (v > 0))] = np.nan
    return v


def width_ticks(plot: pg.PlotWidget, widths) -> None:
    """Number a log axis of a few widths at those widths (2, 4, 8 … or 16, 64, 256 …):
    between them the decades alone would leave one number on the axis."""
    plot.getPlotItem().getAxis("bottom").setTicks(
        [[(math.log10(w), f"{int(w):,}") for w in widths], []])


def _log(x: float) -> float:
    return math.log10(x) if x > 0 and math.isfinite(x) else 0.0


class _Figure:
    """A plot and its key, restyled with the theme; subclasses add their items."""

    def __init__(self, theme: Theme):
        self.theme = theme

    def draw(self, run, *args) -> None:
        """Draw ``run`` on every plot at once (scripts, exports, tests)."""
        for stage in self.stages(run, *args):
            stage()

    def stages(self, run, *args) -> list:
        """The drawing of ``run`` in stages (callables), one plot each: the panel runs
        them one per pass of the event loop (relulab.ui.staged). Subclasses give one
        per plot, or define ``draw`` alone (then it is the one stage)."""
        if type(self).draw is _Figure.draw:
            return []
        return [lambda: self.draw(run, *args)]

    @staticmethod
    def _clear(*items) -> None:
        for item in items:
            item.setData([], [])


class DoubleDescentFigure(_Figure):
    """Test (and train) error against H with a 10–90% band over seeds, H = n and the
    kernel limit; or the weight norm or the condition number against H. Beside it the
    lottery: each feature draw's test error at one width, their median and ensemble."""

    def __init__(self, theme: Theme):
        super().__init__(theme)
        self.plot = make_plot("questions-dd-plot", "Error against the width H",
                              "Median test and train error of the random ReLU features over "
                              "seeds, against the number of features H, on log axes")
        self.lottery_plot = make_plot("questions-dd-lottery", "The lottery: feature draws",
                                      "Test error of each of ten feature draws at one width, "
                                      "their median and their ensemble", log_x=False)
        p = self.plot
        self.band_lo, self.band_hi = pg.PlotDataItem(), pg.PlotDataItem()
        self.band = pg.FillBetweenItem(self.band_lo, self.band_hi)
        self.test = pg.PlotDataItem()
        self.train = pg.PlotDataItem()
        for item in (self.band_lo, self.band_hi, self.band, self.train, self.test):
            p.addItem(item)
        self.threshold = pg.InfiniteLine(angle=90, movable=False)
        self.kernel = pg.InfiniteLine(angle=0, movable=False)
        p.addItem(self.threshold, ignoreBounds=True)
        p.addItem(self.kernel, ignoreBounds=True)
        p.setLabel("bottom", "features H")
        lp = self.lottery_plot
        # a PlotDataItem, not a ScatterPlotItem: only the former follows the log mode
        self.draws = pg.PlotDataItem(pen=None, symbol="o")
        self.ensemble = pg.InfiniteLine(angle=0, movable=False)
        self.draw_median = pg.InfiniteLine(angle=0, movable=False)
        lp.addItem(self.draws)
        lp.addItem(self.ensemble, ignoreBounds=True)
        lp.addItem(self.draw_median, ignoreBounds=True)
        lp.setLabel("bottom", "feature draw")
        # ranges until a result comes (an empty plot still reads as a plot)
        p.setRange(xRange=(0, 3), yRange=(-1, 2), padding=0)
        lp.setRange(xRange=(0.5, 10.5), yRange=(-1, 2), padding=0)
        self.key = KeyLabel("questions-dd-key", "Key of the double-descent plots", ())
        self.view = "error"
        self.apply_theme()

    def set_key(self, view: str, show_train: bool) -> None:
        if view == "error":
            entries = [Entry("approx", "—", "test, median of seeds"),
                       Entry("approx", "▮", "10–90% of seeds")]
            if show_train:
                entries.append(Entry("accent", "‒ ‒", "train"))
            entries += [Entry("muted", "┆", "H = n"), Entry("second", "···", "kernel limit H = ∞")]
        else:
            entries = [Entry("approx", "—", f"{view}, median of seeds"),
                       Entry("approx", "▮", "10–90% of seeds"), Entry("muted", "┆", "H = n")]
        entries += [Entry("selected", "●", "lottery draws"), Entry("second", "—", "ensemble"),
                    Entry("muted", "‒ ‒", "draws' median")]
        self.key.set_entries(entries)

    def apply_theme(self) -> None:
        t = self.theme
        for plot in (self.plot, self.lottery_plot):
            t.style_plot(plot)
        self.test.setPen(t.pen("approx", 2.5))
        self.train.setPen(t.pen("accent", 2.0, Qt.PenStyle.DashLine))
        for edge in (self.band_lo, self.band_hi):
            edge.setPen(pg.mkPen(None))
        fill = t.color("approx")
        fill.setAlpha(60)
        self.band.setBrush(pg.mkBrush(fill))
        self.threshold.setPen(t.pen("muted", 1.5, Qt.PenStyle.DashLine))
        self.kernel.setPen(t.pen("second", 2.0, Qt.PenStyle.DotLine))
        self.draws.setSymbolPen(t.pen("foreground", 1.0))
        self.draws.setSymbolBrush(pg.mkBrush(t.color("selected")))
        self.draws.setSymbolSize(t.handle_size(10))
        self.ensemble.setPen(t.pen("second", 2.0))
        self.draw_median.setPen(t.pen("muted", 1.5, Qt.PenStyle.DashLine))
        self.plot.setLabel("left", VIEW_LABELS[self.view])
        self.lottery_plot.setLabel("left", "test error")

    def clear(self) -> None:
        self._clear(self.test, self.train, self.band_lo, self.band_hi)
        self.draws.setData([], [])
        for line in (self.threshold, self.kernel, self.ensemble, self.draw_median):
            line.hide()
        self.theme.set_title(self.plot, "")
        self.theme.set_title(self.lottery_plot, "")

    def stages(self, run: DoubleDescentRun, view: str, show_train: bool) -> list:
        return [lambda: self.draw_sweep(run, view, show_train), lambda: self.draw_lottery(run)]

    def draw_sweep(self, run: DoubleDescentRun, view: str, show_train: bool) -> None:
        self.view = view
        self.set_key(view, show_train)
        sweep, s = run.shown, run.settings
        widths = np.asarray(sweep.widths, float)
        name = "test_mse" if view == "error" else VIEW_FIELDS[view]
        lo, hi = sweep.band(name)
        self.band_lo.setData(widths, _positive(lo))
        self.band_hi.setData(widths, _positive(hi))
        self.test.setData(widths, _positive(sweep.median(name)))
        # the range is the band's: a train error of 10⁻²⁸ (interpolation, in floating
        # point) would squeeze every test error into the top of the plot
        shown = np.r_[_positive(lo), _positive(hi)]
        if view == "error":
            shown = np.r_[shown, _positive(sweep.kernel_mse)]
        shown = shown[np.isfinite(shown)]
        if shown.size:
            self.plot.setYRange(math.log10(shown.min()) - 0.2, math.log10(shown.max()) + 0.2,
                                padding=0)
        self.plot.setXRange(math.log10(widths.min()), math.log10(widths.max()), padding=0.02)
        if view == "error" and show_train:
            self.train.setData(widths, _positive(sweep.median("train_mse")))
        else:
            self.train.setData([], [])
        self.threshold.setPos(_log(s.n))
        self.threshold.show()
        kernel = float(np.median(np.asarray(sweep.kernel_mse, float)))
        self.kernel.setPos(_log(kernel))
        self.kernel.setVisible(view == "error" and kernel > 0)
        self.plot.setLabel("left", VIEW_LABELS[view])
        ridge = ("the oracle's ridge" if run.tuned is not None
                 else f"ridge {s.ridge:g}" if s.ridge else "min-norm")
        self.theme.set_title(self.plot, f"d = {s.d}, n = {s.n}, noise {s.noise:g}, {ridge}")

    def draw_lottery(self, run: DoubleDescentRun) -> None:
        s = run.settings
        lot = run.lottery
        if lot is None:
            self.draws.setData([], [])
            self.ensemble.hide()
            self.draw_median.hide()
            return
        errors = _positive(lot.test_mse)
        self.draws.setData(np.arange(1, len(errors) + 1, dtype=float), errors)
        for line, value in ((self.ensemble, lot.ensemble_mse),
                            (self.draw_median, float(np.median(lot.test_mse)))):
            line.setPos(_log(float(value)))
            line.show()
        shown = np.r_[errors, lot.ensemble_mse]
        shown = shown[np.isfinite(shown) & (shown > 0)]
        self.lottery_plot.setRange(xRange=(0.5, len(errors) + 0.5),
                                   yRange=(math.log10(shown.min()) - 0.3,
                                           math.log10(shown.max()) + 0.3), padding=0)
        self.theme.set_title(self.lottery_plot, f"Lottery at H = {s.lottery_ratio * s.n:,}")


class OverparametrisationFigure(_Figure):
    """How many seeds find the spirals against the width; the accuracy of a trained net
    against the share of its weights pruned, with real and with shuffled labels."""

    def __init__(self, theme: Theme):
        super().__init__(theme)
        self.plot = make_plot("questions-over-plot", "Seeds that find the spirals",
                              "How many of the seeds fit the two spirals, against the width "
                              "of the network", log_y=False)
        self.pruning_plot = make_plot("questions-over-pruning", "Accuracy after pruning",
                                      "Train accuracy against the share of weights pruned, "
                                      "with the real and with shuffled labels",
                                      log_x=False, log_y=False)
        self.found = pg.PlotDataItem()
        self.plot.addItem(self.found)
        self.plot.setLabel("bottom", "hidden units")
        self.plot.setLabel("left", "seeds that fit")
        self.real, self.shuffled = pg.PlotDataItem(), pg.PlotDataItem()
        self.real_cut = pg.InfiniteLine(angle=90, movable=False)
        self.shuffled_cut = pg.InfiniteLine(angle=90, movable=False)
        for item in (self.real, self.shuffled):
            self.pruning_plot.addItem(item)
        for line in (self.real_cut, self.shuffled_cut):
            self.pruning_plot.addItem(line, ignoreBounds=True)
        self.pruning_plot.setLabel("bottom", "share of weights pruned")
        self.pruning_plot.setLabel("left", "train accuracy")
        self.plot.setRange(xRange=(math.log10(2), math.log10(64)), yRange=(0, 10), padding=0.05)
        self.pruning_plot.setRange(xRange=(0, 1), yRange=(0, 1), padding=0.05)
        self.key = KeyLabel("questions-over-key", "Key of the over-parametrisation plots", [
            Entry("approx", "●", "seeds that fit the spirals"),
            Entry("approx", "—", "real labels"), Entry("accent", "‒ ‒", "shuffled labels"),
            Entry("muted", "┆", "most pruned at equal accuracy")])
        self.apply_theme()

    def apply_theme(self) -> None:
        t = self.theme
        for plot in (self.plot, self.pruning_plot):
            t.style_plot(plot)
        self.found.setPen(t.pen("approx", 2.0))
        self.found.setSymbol("o")
        self.found.setSymbolSize(t.handle_size(9))
        self.found.setSymbolBrush(pg.mkBrush(t.color("approx")))
        self.found.setSymbolPen(t.pen("foreground", 1.0))
        self.real.setPen(t.pen("approx", 2.5))
        self.shuffled.setPen(t.pen("accent", 2.5, Qt.PenStyle.DashLine))
        self.real_cut.setPen(t.pen("approx", 1.5, Qt.PenStyle.DotLine))
        self.shuffled_cut.setPen(t.pen("accent", 1.5, Qt.PenStyle.DotLine))

    def clear(self) -> None:
        self._clear(self.found, self.real, self.shuffled)
        self.real_cut.hide()
        self.shuffled_cut.hide()

    def stages(self, run: OverparametrisationRun, numbers: dict) -> list:
        return [lambda: self.draw_spirals(numbers), lambda: self.draw_pruning(run)]

    def draw_spirals(self, numbers: dict) -> None:
        self.found.setData(np.asarray(numbers["widths"], float),
                           np.asarray(numbers["found"], float))
        width_ticks(self.plot, numbers["widths"])
        self.plot.setRange(xRange=(math.log10(min(numbers["widths"])),
                                   math.log10(max(numbers["widths"]))),
                           yRange=(0, numbers["seeds"]), padding=0.08)
        self.theme.set_title(self.plot, "Two spirals")

    def draw_pruning(self, run: OverparametrisationRun) -> None:
        lowest = min(float(np.min(r.accuracy)) for r in (run.real, run.shuffled))
        self.pruning_plot.setRange(xRange=(0, 1), yRange=(min(lowest, 0.5), 1), padding=0.05)
        for curve, line, result in ((self.real, self.real_cut, run.real),
                                    (self.shuffled, self.shuffled_cut, run.shuffled)):
            curve.setData(np.asarray(result.fractions, float), np.asarray(result.accuracy, float))
            line.setPos(result.prunable())
            line.show()
        self.theme.set_title(self.pruning_plot, f"Pruning {run.settings.prune_width} units")


class InfiniteWidthFigure(_Figure):
    """The relative weight movement and the distance to the kernel model against the
    width, both on log axes: they fall together as the net gets lazy."""

    def __init__(self, theme: Theme):
        super().__init__(theme)
        self.plot = make_plot("questions-lazy-plot", "Relative weight movement",
                              "How far training moves the weights, relative to where they "
                              "started, against the width")
        self.kernel_plot = make_plot("questions-lazy-kernel", "Distance to the kernel model",
                                     "RMS distance between the trained network and its "
                                     "linearised (kernel) model, against the width")
        self.movement, self.distance = pg.PlotDataItem(), pg.PlotDataItem()
        self.plot.addItem(self.movement)
        self.kernel_plot.addItem(self.distance)
        for plot in (self.plot, self.kernel_plot):
            plot.setLabel("bottom", "hidden units")
        self.plot.setLabel("left", "weight movement ‖Δθ‖ / ‖θ₀‖")
        self.kernel_plot.setLabel("left", "RMS to kernel model")
        for plot in (self.plot, self.kernel_plot):
            plot.setRange(xRange=(math.log10(16), math.log10(4096)), yRange=(-2, 0.5), padding=0.05)
        self.key = KeyLabel("questions-lazy-key", "Key of the infinite-width plots", [
            Entry("approx", "●", "relative weight movement"),
            Entry("accent", "■", "distance to the kernel model")])
        self.apply_theme()

    def apply_theme(self) -> None:
        t = self.theme
        for plot in (self.plot, self.kernel_plot):
            t.style_plot(plot)
        for curve, role, symbol in ((self.movement, "approx", "o"), (self.distance, "accent", "s")):
            curve.setPen(t.pen(role, 2.0))
            curve.setSymbol(symbol)
            curve.setSymbolSize(t.handle_size(9))
            curve.setSymbolBrush(pg.mkBrush(t.color(role)))
            curve.setSymbolPen(t.pen("foreground", 1.0))

    def clear(self) -> None:
        self._clear(self.movement, self.distance)

    def stages(self, run: InfiniteWidthRun, numbers: dict) -> list:
        return [lambda: self._draw_one(self.plot, self.movement, numbers, "movement",
                                       "Weights move less"),
                lambda: self._draw_one(self.kernel_plot, self.distance, numbers, "distance",
                                       "The net becomes its kernel")]

    def _draw_one(self, plot, curve, numbers: dict, name: str, title: str) -> None:
        widths = np.asarray(numbers["widths"], float)
        v = _positive(numbers[name])
        curve.setData(widths, v)
        width_ticks(plot, numbers["widths"])
        v = v[np.isfinite(v)]
        if v.size:
            plot.setRange(xRange=(math.log10(widths.min()), math.log10(widths.max())),
                          yRange=(math.log10(v.min()), math.log10(v.max())), padding=0.08)
        self.theme.set_title(plot, title)
