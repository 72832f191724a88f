"""The why-deep page: the feature x1·x2 against a hidden layer's own features, and
Yarotsky's deep square, whose depth m sets its error 4^−(m+1) exactly (the job and
the words: :mod:`.jobs.why_deep`)."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSlider, QVBoxLayout, QWidget

from relulab.model.lessons.questions import DEPTHS, WhyDeepSettings
from relulab.ui.legend import Entry, KeyLabel
from relulab.ui.panels.base import named, signals_blocked
from relulab.ui.panels.questions.controls import _readout, _spin_seeds
from relulab.ui.panels.questions.jobs.why_deep import (
    DATASET_NAMES,
    WhyDeepRun,
    experiment,
    run_why_deep,
    square,
    square_table,
    square_text,
    why_deep_details,
    why_deep_numbers,
    why_deep_table,
    why_deep_verdict,
)
from relulab.ui.panels.questions.pages import Page
from relulab.ui.panels.questions.plots import _Figure, make_plot
from relulab.ui.theme import Theme

#: The x axis of the square's plot: enough points to show every one of its 2^6 pieces.
GRID = np.linspace(0.0, 1.0, 513)


class WhyDeepControls(QWidget):
    edited = Signal(dict)

    def __init__(self):
        super().__init__()
        c = QVBoxLayout(self)
        c.setContentsMargins(0, 0, 0, 0)
        c.addWidget(QLabel("Depth m of the deep square"))
        self.m = named(QSlider(Qt.Orientation.Horizontal), "questions-deep-m", "Depth m",
                       "Hidden layers of Yarotsky's net for x²: each quarters the error")
        self.m.setRange(*DEPTHS)
        self.m.setPageStep(1)
        c.addWidget(self.m)
        self.square = _readout("questions-deep-square", "The deep square's exact error")
        c.addWidget(self.square)
        self.seeds = _spin_seeds("questions-deep-seeds")
        row = QHBoxLayout()
        row.addWidget(QLabel("Seeds"))
        row.addWidget(self.seeds, 1)
        c.addLayout(row)
        c.addStretch(1)
        self.m.valueChanged.connect(lambda v: self.edited.emit({"m": v}))
        self.seeds.valueChanged.connect(lambda v: self.edited.emit({"seeds": v}))

    def show_state(self, s: WhyDeepSettings) -> None:
        with signals_blocked(self.m, self.seeds):
            self.m.setValue(s.m)
            self.seeds.setValue(s.seeds)
        sq = square(s.m)
        self.square.set_value(float(sq.error), square_text(sq))


class WhyDeepFigure(_Figure):
    """x² and the deep square f_m on [0, 1] with their difference; beside it the test
    accuracy per dataset of the feature x1·x2 and of the 2-16-16-1 nets (medians)."""

    def __init__(self, theme: Theme):
        super().__init__(theme)
        self.plot = make_plot("questions-deep-plot", "The deep square",
                              "x² and the depth-m network's approximation of it on [0, 1], "
                              "and their difference", log_x=False, log_y=False)
        self.bars_plot = make_plot("questions-deep-bars", "Test accuracy per dataset",
                                   "Test accuracy of the feature x1·x2 alone and of a "
                                   "2-16-16-1 net on four datasets", log_x=False, log_y=False)
        self.target = pg.PlotDataItem(GRID, GRID ** 2)
        self.approx = pg.PlotDataItem()
        self.error = pg.PlotDataItem()
        for item in (self.target, self.approx, self.error):
            self.plot.addItem(item)
        self.plot.setLabel("bottom", "x")
        self.plot.setRange(xRange=(0, 1), yRange=(0, 1), padding=0.03)
        self.feature_bars = pg.BarGraphItem(x=[], height=[], width=0.38)
        self.net_bars = pg.BarGraphItem(x=[], height=[], width=0.38)
        self.chance = pg.InfiniteLine(pos=0.5, angle=0, movable=False)
        for item in (self.feature_bars, self.net_bars):
            self.bars_plot.addItem(item)
        self.bars_plot.addItem(self.chance, ignoreBounds=True)
        self.bars_plot.setLabel("left", "test accuracy")
        # the label's room keeps the names' descenders ("spirals") whole at zoom 1.6
        self.bars_plot.setLabel("bottom", "dataset")
        self.bars_plot.setRange(xRange=(-0.6, 3.6), yRange=(0, 1), padding=0.02)
        self.key = KeyLabel("questions-deep-key", "Key of the why-deep plots", [
            Entry("muted", "—", "x²"), Entry("approx", "—", "f_m, depth m"),
            Entry("accent", "‒ ‒", "10 × (f_m − x²)"),
            Entry("second", "▮", "x1·x2 alone"), Entry("approx", "▮", "2-16-16-1 net"),
            Entry("muted", "┆", "chance")])
        self.plots = {"main": self.plot, "accuracy": self.bars_plot}
        self._shown = WhyDeepSettings()
        self._heights: tuple[list, list] = ([], [])
        self.apply_theme()

    def apply_theme(self) -> None:
        t = self.theme
        for plot in (self.plot, self.bars_plot):
            t.style_plot(plot)
        self.target.setPen(t.pen("muted", 4.0))
        self.approx.setPen(t.pen("approx", 2.0))
        self.error.setPen(t.pen("accent", 1.5, Qt.PenStyle.DashLine))
        self.chance.setPen(t.pen("muted", 1.5, Qt.PenStyle.DashLine))
        self._bars()

    def _bars(self) -> None:
        t = self.theme
        feature, net = self._heights
        x = np.arange(len(feature), dtype=float)
        self.feature_bars.setOpts(x=x - 0.2, height=feature, width=0.38,
                                  brush=pg.mkBrush(t.color("second")), pen=t.pen("foreground", 1))
        self.net_bars.setOpts(x=x + 0.2, height=net, width=0.38,
                              brush=pg.mkBrush(t.color("approx")), pen=t.pen("foreground", 1))

    def show_settings(self, s: WhyDeepSettings) -> None:
        self._shown = s
        sq = square(s.m)
        y = sq.net.forward(GRID[:, None])[-1][:, 0]
        self.approx.setData(GRID, y)
        self.error.setData(GRID, 10 * (y - GRID ** 2))
        self.theme.set_title(self.plot, f"m = {s.m}: error {sq.error}")

    def tables(self) -> dict:
        return {"deep square": square_table(square(self._shown.m))}

    def clear(self) -> None:
        self._heights = ([], [])
        self._bars()

    def draw(self, run: WhyDeepRun, numbers: dict) -> None:
        names = run.net.datasets
        self._heights = ([numbers[f"feature_{n}"] for n in names],
                         [numbers[f"net_{n}"] for n in names])
        self._bars()
        self.bars_plot.getPlotItem().getAxis("bottom").setTicks(
            [[(float(i), DATASET_NAMES.get(n, n)) for i, n in enumerate(names)], []])
        self.bars_plot.setRange(xRange=(-0.6, len(names) - 0.4), yRange=(0, 1), padding=0.02)
        self.theme.set_title(self.bars_plot, f"Medians of {numbers['seeds']} seeds")


PAGE = Page(
    name="why-deep", title="Why layers", short="deep", field="why_deep",
    question=("One single perceptron would fail on XOR problems: it draws one hyperplane, and XOR "
              "is not linearly separable. So why are we satisfied with adding more layers to "
              "address this? Especially when we can simply separate it with a nonlinear "
              "boundary x₁ × x₂?"),
    source="the blog's open questions (Before NN101)",
    work="the feature and the nets", run=run_why_deep, numbers=why_deep_numbers,
    verdict=why_deep_verdict, details=why_deep_details, table=why_deep_table,
    figure=WhyDeepFigure, controls=WhyDeepControls, experiment=experiment)
