"""Loss and accuracy against the step, on the training and the test points (with
random labels: train climbing, test staying near chance), and, after a Replay, the
training curves of the run before, dotted, to compare settings from the same start.
One key beside both plots says which line is which: a legend on a plot sat over the
curves' newest values, at their right end."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QWidget

from relulab.model.lessons.playground import History
from relulab.ui.driver import TimedPlotWidget
from relulab.ui.legend import Entry, KeyLabel
from relulab.ui.panels.base import named
from relulab.ui.panels.playground.sizing import fit_left_label

#: How the theme draws its series 0, 1, 2, … (solid, dashed, dotted, dash-dot, …), as
#: a key writes them.
SERIES_GLYPHS = ("━", "‒ ‒", "···", "‒·‒", "‒··")


def series_entry(k: int, text: str) -> Entry:
    """A key's entry for the theme's series ``k``: its colour and its dashes."""
    return Entry(lambda th: th.series_color(k), SERIES_GLYPHS[k % len(SERIES_GLYPHS)], text)


class TrainingCurves(QWidget):
    def __init__(self, clock, theme, parent=None):
        super().__init__(parent)
        named(self, "playground-curves", "Loss and accuracy")
        self.theme = theme
        self.loss_plot = named(TimedPlotWidget(clock), "playground-loss-plot", "Loss against step",
                               description="Training and test loss against the step.")
        self.accuracy_plot = named(TimedPlotWidget(clock), "playground-accuracy-plot",
                                   "Accuracy against step",
                                   description="Training and test accuracy against the step.")
        # the key in a column right of the plots: under them it took the height they
        # need at zoom 1.6
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.key = KeyLabel("playground-curves-key", "Which line of the loss and accuracy is which",
                            one_per_line=True)
        for p, ylabel in ((self.loss_plot, "loss"), (self.accuracy_plot, "accuracy")):
            p.setLabel("bottom", "step")
            p.setLabel("left", ylabel)
            p.setMenuEnabled(False)
            # the ranges follow the curves (show_history): a drag or a wheel turn would
            # leave them where no button explains how to get back (pyqtgraph's "A" says
            # nothing to a learner), so the plots take neither and show no button
            p.setMouseEnabled(False, False)
            p.hideButtons()
            p.getPlotItem().getAxis("left").enableAutoSIPrefix(False)
            layout.addWidget(p)
        layout.addWidget(self.key, 0, Qt.AlignmentFlag.AlignTop)
        # ranges are set with the data: pyqtgraph's auto range runs when a plot paints and
        # changes the axes, which lays the plot out and paints it a second time
        for p in (self.loss_plot, self.accuracy_plot):
            p.getPlotItem().disableAutoRange()
        self.accuracy_plot.setYRange(-0.05, 1.08, padding=0)
        self._ranges = None
        self.loss_train = self.loss_plot.plot()
        self.loss_test = self.loss_plot.plot()
        self.accuracy_train = self.accuracy_plot.plot()
        self.accuracy_test = self.accuracy_plot.plot()
        # the run before a Replay, faint: the same start, other settings
        self.previous_train = self.accuracy_plot.plot()
        self.previous_loss = self.loss_plot.plot()
        self.previous: History | None = None
        self.show_previous(None)

    def set_regress(self, regress: bool) -> None:
        """A regression has no accuracy: its plot is hidden and the loss (the MSE) takes
        the room."""
        self.accuracy_plot.setVisible(not regress)

    def show_previous(self, history: History | None) -> None:
        """The training curves of the run before the last Replay (None: none)."""
        self.previous = history if history is not None and len(history) else None
        entries = [series_entry(0, "train"), series_entry(1, "test")]
        if self.previous is not None:
            entries.append(Entry("muted", "···", "run before"))
        self.key.set_entries(entries)
        for curve, key in ((self.previous_train, "train_accuracy"),
                           (self.previous_loss, "train_loss")):
            if self.previous is None:
                curve.setData([], [])
                curve.setVisible(False)
                continue
            values = getattr(self.previous, key)
            ok = np.isfinite(values)
            curve.setData(self.previous.step[ok], values[ok])
            curve.setVisible(True)

    def show_history(self, history: History) -> None:
        s = history.step
        for curve, values in ((self.loss_train, history.train_loss),
                              (self.loss_test, history.test_loss),
                              (self.accuracy_train, history.train_accuracy),
                              (self.accuracy_test, history.test_accuracy)):
            ok = np.isfinite(values)
            curve.setData(s[ok], values[ok])
        losses = np.concatenate([history.train_loss, history.test_loss])
        last = float(s[-1]) if len(s) else 1.0
        if self.previous is not None:  # the axes hold the run before too
            losses = np.concatenate([losses, self.previous.train_loss])
            last = max(last, float(self.previous.step[-1]))
        losses = losses[np.isfinite(losses)]
        top = float(losses.max()) if losses.size else 1.0
        # the step axis grows by a quarter when the curves reach its end: it moves a few
        # times in a run, not every frame
        right = self._ranges[0] if self._ranges else 1.0
        if not 0.5 * right <= last <= right:
            right = max(1.0, 1.25 * last)
        ranges = (right, top)
        if ranges != self._ranges:
            self._ranges = ranges
            for p in (self.loss_plot, self.accuracy_plot):
                p.setXRange(0, right, padding=0.02)
            self.loss_plot.setYRange(0, top or 1.0, padding=0.05)

    def apply_theme(self) -> None:
        for p in (self.loss_plot, self.accuracy_plot):
            self.theme.style_plot(p)
            fit_left_label(p)
        for train, test in ((self.loss_train, self.loss_test),
                            (self.accuracy_train, self.accuracy_test)):
            train.setPen(self.theme.series_pen(0))
            test.setPen(self.theme.series_pen(1))
        for curve in (self.previous_train, self.previous_loss):
            curve.setPen(self.theme.pen("muted", 1.5, Qt.PenStyle.DotLine))
