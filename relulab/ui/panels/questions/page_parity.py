"""The parity page: sparse parity races majority of the same bits, and full parity
defeats nearest neighbours but not a net (the job and the words: :mod:`.jobs.parity`)."""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QVBoxLayout, QWidget

from relulab.model.lessons.questions import PARITY_KS, ParitySettings
from relulab.ui.legend import Entry, KeyLabel
from relulab.ui.panels.base import signals_blocked
from relulab.ui.panels.questions.controls import _combo, _spin_seeds
from relulab.ui.panels.questions.jobs.parity import (
    RACE_STEPS,
    ParityRun,
    parity_details,
    parity_numbers,
    parity_table,
    parity_verdict,
    run_parity,
)
from relulab.ui.panels.questions.pages import Page
from relulab.ui.panels.questions.plots import _Figure, _positive, make_plot
from relulab.ui.theme import Theme


class ParityControls(QWidget):
    edited = Signal(dict)

    def __init__(self):
        super().__init__()
        c = QVBoxLayout(self)
        c.setContentsMargins(0, 0, 0, 0)
        self.k = _combo("questions-parity-k", "Relevant bits k",
                        [(f"k = {k} relevant bits", k) for k in PARITY_KS],
                        "How many of the 30 bits decide the label (parity or majority of them)")
        self.seeds = _spin_seeds("questions-parity-seeds")
        c.addWidget(self.k)
        row = QHBoxLayout()
        row.addWidget(QLabel("Seeds"))
        row.addWidget(self.seeds, 1)
        c.addLayout(row)
        c.addStretch(1)
        self.k.activated.connect(lambda i: self.edited.emit({"k": self.k.itemData(i)}))
        self.seeds.valueChanged.connect(lambda v: self.edited.emit({"seeds": v}))

    def show_state(self, s: ParitySettings) -> None:
        with signals_blocked(self.k, self.seeds):
            self.k.setCurrentIndex(self.k.findData(s.k))
            self.seeds.setValue(s.seeds)


class ParityFigure(_Figure):
    """Test accuracy against steps, every seed (parity solid, majority dashed) with the
    95% line; beside it each seed's steps to 95%, on a log axis."""

    def __init__(self, theme: Theme):
        super().__init__(theme)
        self.plot = make_plot("questions-parity-plot", "Test accuracy against steps",
                              "Test accuracy of each seed's net against the training step, "
                              "for parity and for majority of the same bits",
                              log_x=False, log_y=False)
        self.race_plot = make_plot("questions-parity-race", "Steps to 95% per seed",
                                   "Steps each seed needs to reach 95% test accuracy, for "
                                   "majority and for parity, on a log axis", log_x=False)
        self.parity_curves: list[pg.PlotDataItem] = []
        self.majority_curves: list[pg.PlotDataItem] = []
        self.target = pg.InfiniteLine(pos=0.95, angle=0, movable=False)
        self.plot.addItem(self.target, ignoreBounds=True)
        self.plot.setLabel("bottom", "training step")
        self.plot.setLabel("left", "test accuracy")
        self.majority_points = pg.PlotDataItem(pen=None, symbol="o")
        self.parity_points = pg.PlotDataItem(pen=None, symbol="s")
        self.race_plot.addItem(self.majority_points)
        self.race_plot.addItem(self.parity_points)
        self.race_plot.setLabel("bottom", "seed")
        self.race_plot.setLabel("left", "steps to 95%")
        self.plot.setRange(xRange=(0, RACE_STEPS), yRange=(0.4, 1.0), padding=0.02)
        self.race_plot.setRange(xRange=(-0.5, 4.5), yRange=(1, math.log10(RACE_STEPS)), padding=0.05)
        self.key = KeyLabel("questions-parity-key", "Key of the parity plots", [
            Entry("approx", "—", "parity, one line a seed"),
            Entry("accent", "‒ ‒", "majority"), Entry("muted", "┆", "95%"),
            Entry("approx", "■", "parity: steps to 95%"),
            Entry("accent", "●", "majority: steps to 95%")])
        self.plots = {"main": self.plot, "race": self.race_plot}
        self.apply_theme()

    def apply_theme(self) -> None:
        t = self.theme
        for plot in (self.plot, self.race_plot):
            t.style_plot(plot)
        for c in self.parity_curves:
            self._style(c, self.parity_curves)
        for c in self.majority_curves:
            self._style(c, self.majority_curves)
        self.target.setPen(t.pen("muted", 1.5, Qt.PenStyle.DashLine))
        for points, role in ((self.majority_points, "accent"), (self.parity_points, "approx")):
            points.setSymbolSize(t.handle_size(10))
            points.setSymbolBrush(pg.mkBrush(t.color(role)))
            points.setSymbolPen(t.pen("foreground", 1.0))

    def _style(self, curve: pg.PlotDataItem, store: list) -> None:
        t = self.theme
        curve.setPen(t.pen("approx", 1.5) if store is self.parity_curves
                     else t.pen("accent", 1.5, Qt.PenStyle.DashLine))

    def _curves(self, store: list, count: int) -> list:
        # the curves are kept and given new data; only a seed more than ever before
        # adds one (styled alone: restyling both plots took 10-20 ms of a draw)
        while len(store) < count:
            item = pg.PlotDataItem()
            self._style(item, store)
            self.plot.addItem(item)
            store.append(item)
        for item in store[count:]:
            item.setData([], [])
        return store[:count]

    def clear(self) -> None:
        self._clear(*self.parity_curves, *self.majority_curves, self.majority_points,
                    self.parity_points)

    def stages(self, run: ParityRun, numbers: dict) -> list:
        return [lambda: self.draw_curves(run, numbers), lambda: self.draw_race(run)]

    def draw_curves(self, run: ParityRun, numbers: dict) -> None:
        race = run.race
        steps = np.asarray(race.checkpoints, float)
        S = len(race.seeds)
        for curves, acc in ((self._curves(self.parity_curves, S), race.parity_accuracy),
                            (self._curves(self.majority_curves, S), race.majority_accuracy)):
            for curve, row in zip(curves, np.asarray(acc, float)):
                keep = np.isfinite(row)
                curve.setData(steps[keep], row[keep])
        # the curves end where every seed has reached 95% (or at the race's end)
        measured = ~np.isnan(np.asarray(race.parity_accuracy, float)).all(axis=0)
        last = float(steps[measured][-1]) if measured.any() else float(RACE_STEPS)
        self.plot.setRange(xRange=(0, max(last, 10.0)), yRange=(0.4, 1.0), padding=0.02)
        self.theme.set_title(self.plot, f"k = {numbers['k']} of {numbers['bits']} bits")

    def draw_race(self, run: ParityRun) -> None:
        race = run.race
        S = len(race.seeds)
        seeds = np.arange(S, dtype=float)
        for points, values in ((self.majority_points, race.majority_steps),
                               (self.parity_points, race.parity_steps)):
            # a seed that never reached 95% is drawn at the race's end
            points.setData(seeds, _positive([RACE_STEPS if v is None else max(v, 1)
                                             for v in values]))
        self.race_plot.setRange(xRange=(-0.5, S - 0.5), yRange=(1, math.log10(RACE_STEPS)),
                                padding=0.05)
        self.race_plot.getPlotItem().getAxis("bottom").setTicks(
            [[(float(i), str(seed)) for i, seed in enumerate(race.seeds)], []])
        self.theme.set_title(self.race_plot, "Steps to 95%")


PAGE = Page(
    name="parity", title="Parity", short="parity", field="parity",
    question=("A contrast case: parity functions are notoriously hard for neural networks to "
              "learn. Flip any single input bit and the label flips. Why is that hard?"),
    source="the blog's open questions (Before NN101)",
    work="the parity race", run=run_parity, numbers=parity_numbers, verdict=parity_verdict,
    details=parity_details, table=parity_table, figure=ParityFigure, controls=ParityControls)


