"""Regions against depth: random ReLU networks of one parameter budget, 1 to 4 hidden
layers, and the exact number of regions each carves out of the view box. The counts
come from a worker, one network at a time; the study is part of the panel's state."""

from __future__ import annotations

from dataclasses import replace
from functools import partial

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QSpinBox, QVBoxLayout, QWidget

from relulab.model.lessons.playground import DEPTH_BUDGETS, DEPTH_MAX_SEEDS, DepthStudy
from relulab.model.regions.depth import summarise
from relulab.ui.panels.base import named, signals_blocked
from relulab.ui.panels.playground.jobs import depth_samples
from relulab.ui.panels.playground.sizing import WholeNote, WholeReadout, fit_left_label
from relulab.ui.worker import Worker

CAPTION = ("The most regions a network can have grows exponentially with depth; typical "
           "counts follow the number of neurons (Hanin & Rolnick 2019).")
#: What the plot shows, for its tooltip and screen readers.
DESCRIPTION = (
    "The exact number of linear regions in view of random He-initialised ReLU networks with "
    "the same number of parameters, against their number of hidden layers: one dot per "
    "network and a line through the means.")


class DepthStudyView(QWidget):
    """``study_changed(study)`` whenever the budget, the number of networks or the
    samples change (the panel keeps the study in its state)."""

    study_changed = Signal(object)

    def __init__(self, theme, box, parent=None):
        super().__init__(parent)
        self.theme = theme
        self.box = box
        self.study = DepthStudy()
        self.worker = Worker("playground-depth", self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        # two rows: the study sits in the column beside the map; the status beside the
        # button, the caption under them, each whole (a wrapped caption squeezed by the
        # splitter was drawn over the plot)
        layout.addLayout(self._build_settings())
        layout.addLayout(self._build_run())
        layout.addWidget(WholeNote("playground-depth-caption", "About regions against depth",
                                   CAPTION))
        self.plot = named(pg.PlotWidget(), "playground-depth-plot", "Regions against depth",
                          DESCRIPTION, DESCRIPTION)
        # short labels: the left one stands along a plot that may be 120 px high
        self.plot.setLabel("bottom", "hidden layers (same budget)")
        self.plot.setLabel("left", "regions")
        self.plot.setMenuEnabled(False)
        # the range is set with the samples (draw): no drag to undo, no "A" button
        self.plot.setMouseEnabled(False, False)
        self.plot.hideButtons()
        self.scatter = pg.ScatterPlotItem()
        self.mean = self.plot.plot()
        self.plot.addItem(self.scatter)
        layout.addWidget(self.plot, 1)
        self._connect()

    def _build_settings(self) -> QHBoxLayout:
        row = QHBoxLayout()
        row.addWidget(QLabel("Parameters"))
        self.budget = named(QSpinBox(), "playground-depth-budget", "Parameter budget",
                            "Parameter budget: every network counted has this many parameters")
        self.budget.setRange(*DEPTH_BUDGETS)
        self.budget.setValue(self.study.budget)
        row.addWidget(self.budget)
        row.addWidget(QLabel("Networks"))
        self.seeds = named(QSpinBox(), "playground-depth-seeds", "Random networks per depth",
                           "Random networks per depth")
        self.seeds.setRange(1, DEPTH_MAX_SEEDS)
        self.seeds.setValue(self.study.seeds)
        row.addWidget(self.seeds)
        row.addStretch(1)
        return row

    def _build_run(self) -> QHBoxLayout:
        row = QHBoxLayout()
        self.button = named(QPushButton("Count regions"), "playground-depth-run",
                            "Count the regions of random networks of this budget")
        row.addWidget(self.button, 0, Qt.AlignmentFlag.AlignTop)
        self.status = WholeReadout("playground-depth-status", "Regions against depth status",
                                   "depth_status", wrap=True)
        row.addWidget(self.status, 1)
        return row

    def _connect(self) -> None:
        self.button.clicked.connect(self._on_button)
        self.budget.valueChanged.connect(self._on_settings)
        self.seeds.valueChanged.connect(self._on_settings)
        self.worker.progress.connect(self._on_sample)
        self.worker.finished.connect(self._on_finished)
        self.worker.failed.connect(self._on_failed)

    @property
    def running(self) -> bool:
        return self.worker.busy

    def show_study(self, study: DepthStudy) -> None:
        """Show a study (from a loaded state); one still counting is stopped."""
        if self.running:
            self.stop()
        self.study = study
        with signals_blocked(self.budget, self.seeds):
            self.budget.setValue(study.budget)
            self.seeds.setValue(study.seeds)
        self.draw()

    def run(self) -> None:
        """Count the exact regions of random networks of the budget, on the worker."""
        self._set_study(replace(self.study, samples=()))
        budget, seeds, box = self.study.budget, self.study.seeds, self.box
        self.worker.submit(partial(depth_samples, budget, seeds, box))
        self.button.setText("Stop")
        self.status.setText("Counting…")

    def stop(self) -> None:
        self.worker.cancel()
        self.button.setText("Count regions")
        self.status.setText("Stopped.")

    def shutdown(self) -> None:
        self.worker.shutdown()

    def _on_button(self) -> None:
        self.stop() if self.running else self.run()

    def _on_settings(self, _value: int) -> None:
        self._set_study(replace(self.study, budget=self.budget.value(), seeds=self.seeds.value()))

    def _set_study(self, study: DepthStudy) -> None:
        self.study = study
        self.draw()
        self.study_changed.emit(study)

    def _on_sample(self, sample) -> None:
        self._set_study(replace(self.study, samples=(*self.study.samples, sample)))
        self.status.setText(f"{'-'.join(map(str, sample.sizes))}, seed {sample.seed}: "
                            f"{sample.regions} regions")

    def _on_finished(self, _result) -> None:
        self.button.setText("Count regions")
        if self.study.samples:
            summary = summarise(self.study.samples)
            depths = f"{summary[0][0]} to {summary[-1][0]}" if len(summary) > 1 else f"{summary[0][0]}"
            means = ", ".join(f"{m:.0f}" for _d, m, _lo, _hi in summary)
            # short: at zoom 1.6 each line beside the button is the plot's height
            self.status.setText(f"Mean regions, {depths} layers: {means}.")

    def _on_failed(self, exc: Exception) -> None:
        self.button.setText("Count regions")
        self.status.setText(f"Failed: {type(exc).__name__}: {exc}")

    def draw(self) -> None:
        s = self.study.samples
        if not s:
            self.scatter.setData([], [])
            self.mean.setData([], [])
            return
        d = np.array([x.depth for x in s], float)
        r = np.array([x.regions for x in s], float)
        jitter = (np.array([x.seed for x in s]) % 7 - 3) * 0.03
        th = self.theme
        self.scatter.setData(d + jitter, r, size=th.point_size(9),
                             brush=pg.mkBrush(th.color("accent")), pen=th.pen("foreground", 0.8))
        summary = summarise(s)
        self.mean.setData([x[0] for x in summary], [x[1] for x in summary])
        ticks = [[(x[0], f"{x[0]}: {'-'.join(map(str, next(t.sizes for t in s if t.depth == x[0])))}")
                  for x in summary]]
        self.plot.getPlotItem().getAxis("bottom").setTicks(ticks)
        self.plot.setXRange(0.5, max(x[0] for x in summary) + 0.5, padding=0)

    def apply_theme(self) -> None:
        self.theme.style_plot(self.plot)
        fit_left_label(self.plot)
        self.mean.setPen(self.theme.series_pen(1))
        self.draw()
