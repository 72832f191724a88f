"""The targets page: one-hot labels against a teacher's soft targets, on four blobs of
which two look alike (the job and the words: :mod:`.jobs.targets`)."""

from __future__ import annotations

from functools import partial

import numpy as np
import pyqtgraph as pg

from relulab.ui.legend import Entry, KeyLabel
from relulab.ui.panels.questions.controls import SeedsControls
from relulab.ui.panels.questions.jobs.targets import (
    STUDENT_POINTS,
    TargetsRun,
    run_targets,
    targets_details,
    targets_numbers,
    targets_table,
    targets_verdict,
)
from relulab.ui.panels.questions.pages import Page
from relulab.ui.panels.questions.plots import _Figure, make_plot
from relulab.ui.theme import Theme


class TargetsFigure(_Figure):
    """The four blobs (the training points of the first seed); beside it each seed's
    student accuracy on one-hot labels and on soft targets."""

    def __init__(self, theme: Theme):
        super().__init__(theme)
        from relulab.model.questions.targets import lookalike_blobs

        self.plot = make_plot("questions-targets-plot", "Four classes, two alike",
                              "The training points of four Gaussian blobs, classes 1 and 2 "
                              "close together", log_x=False, log_y=False)
        self.student_plot = make_plot("questions-targets-students", "The students' accuracy",
                                      "Test accuracy of a student trained on one-hot labels "
                                      "and on a teacher's soft targets, each seed",
                                      log_x=False, log_y=False)
        self.plot.setAspectLocked(True)
        self.plot.setLabel("bottom", "x₁")  # the inputs; room for the numbers at zoom 1.6
        self.plot.setLabel("left", "x₂")
        X, y = lookalike_blobs([0, 0], 100)
        self.blobs = [pg.PlotDataItem(*X[y == k].T, pen=None, symbol="o") for k in range(4)]
        for item in self.blobs:
            self.plot.addItem(item)
        # a diamond: class 1's dots are the same blue
        self.one_hot = pg.PlotDataItem(symbol="d")
        self.soft = pg.PlotDataItem(symbol="s")
        for item in (self.one_hot, self.soft):
            self.student_plot.addItem(item)
        self.student_plot.setLabel("bottom", "seed")
        self.student_plot.setLabel("left", "test accuracy")
        self.student_plot.setRange(xRange=(-0.5, 4.5), yRange=(0.5, 1), padding=0.03)
        self.key = KeyLabel("questions-targets-key", "Key of the targets plots", [
            *(Entry(f"class{k}", "●", f"class {k + 1}") for k in range(4)),
            Entry("accent", "◆", "student, one-hot labels"),
            Entry("approx", "■", "student, soft targets")])
        self.plots = {"main": self.plot, "students": self.student_plot}
        self.apply_theme()

    def apply_theme(self) -> None:
        t = self.theme
        for plot in (self.plot, self.student_plot):
            t.style_plot(plot)
        for k, item in enumerate(self.blobs):
            item.setSymbolSize(t.handle_size(6))
            item.setSymbolBrush(pg.mkBrush(t.color(f"class{k}")))
            item.setSymbolPen(t.pen("foreground", 0.75))  # light class colours need an outline
        # pyqtgraph's diamond fills less of its size than the square: larger, to match
        for item, role, size in ((self.one_hot, "accent", 13), (self.soft, "approx", 10)):
            item.setPen(t.pen(role, 1.5))
            item.setSymbolSize(t.handle_size(size))
            item.setSymbolBrush(pg.mkBrush(t.color(role)))
            item.setSymbolPen(t.pen("foreground", 1.0))

    def clear(self) -> None:
        self._clear(self.one_hot, self.soft)

    def draw(self, run: TargetsRun, numbers: dict) -> None:
        seeds = np.arange(len(run.soft), dtype=float)
        self.one_hot.setData(seeds, run.one_hot)
        self.soft.setData(seeds, run.soft)
        low = float(min(run.one_hot.min(), run.soft.min()))
        self.student_plot.setRange(xRange=(-0.5, len(seeds) - 0.5),
                                   yRange=(min(low, 0.9) - 0.02, 1.0), padding=0.03)
        self.student_plot.getPlotItem().getAxis("bottom").setTicks(
            [[(float(i), str(i)) for i in range(len(seeds))], []])
        self.theme.set_title(self.plot, "Classes 1 and 2 look alike")
        self.theme.set_title(self.student_plot, f"Students, {STUDENT_POINTS} points a class")


PAGE = Page(
    name="targets", title="One-hot", short="targets", field="targets",
    question=("Why do we take one-hot encoding for granted? Sure, it's better than squeezing "
              "classes into one dimension, since categorical data don't necessarily have a "
              "natural order. But how do we address correlation between dimensions, when some "
              "classes are more similar than others?"),
    source="the blog's open questions (Before NN101)",
    work="the one-hot and soft-target fits", run=run_targets, numbers=targets_numbers,
    verdict=targets_verdict, details=targets_details, table=targets_table,
    figure=TargetsFigure, controls=partial(SeedsControls, "targets"))
