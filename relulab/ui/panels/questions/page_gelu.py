"""The GELU page: a GELU net within 0.17/a of a ReLU net, drawn at once for each
scale a, and ReLU and GELU nets fitted alike to a smooth target and to a kink (the
job and the words: :mod:`.jobs.gelu`)."""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QVBoxLayout, QWidget

from relulab.model.lessons.questions import GELU_SCALES, GeluSettings
from relulab.ui.legend import Entry, KeyLabel
from relulab.ui.panels.base import signals_blocked
from relulab.ui.panels.questions.controls import _combo, _readout, _spin_seeds
from relulab.ui.panels.questions.jobs.gelu import (
    TWIN_X,
    GeluRun,
    experiment,
    gelu_details,
    gelu_numbers,
    gelu_table,
    gelu_verdict,
    run_gelu,
    twin,
    twin_table,
    twin_text,
)
from relulab.ui.panels.questions.pages import Page
from relulab.ui.panels.questions.plots import _Figure, _positive, make_plot
from relulab.ui.theme import Theme

#: The columns of the error plot: (activation, target), smooth first.
COLUMNS = (("relu", "smooth"), ("gelu", "smooth"), ("relu", "kink"), ("gelu", "kink"))


class GeluControls(QWidget):
    edited = Signal(dict)

    def __init__(self):
        super().__init__()
        c = QVBoxLayout(self)
        c.setContentsMargins(0, 0, 0, 0)
        self.scale = _combo("questions-gelu-scale", "Scale a of the GELU twin",
                            [(f"GELU twin at a = {a}", a) for a in GELU_SCALES],
                            "GELU(a z)/a approaches ReLU(z) as a grows")
        c.addWidget(self.scale)
        self.twin = _readout("questions-gelu-twin", "The GELU twin's gap")
        c.addWidget(self.twin)
        self.seeds = _spin_seeds("questions-gelu-seeds")
        row = QHBoxLayout()
        row.addWidget(QLabel("Seeds"))
        row.addWidget(self.seeds, 1)
        c.addLayout(row)
        c.addStretch(1)
        self.scale.activated.connect(lambda i: self.edited.emit({"scale": self.scale.itemData(i)}))
        self.seeds.valueChanged.connect(lambda v: self.edited.emit({"seeds": v}))

    def show_state(self, s: GeluSettings) -> None:
        with signals_blocked(self.scale, self.seeds):
            self.scale.setCurrentIndex(self.scale.findData(s.scale))
            self.seeds.setValue(s.seeds)
        t = twin(s.scale)
        self.twin.set_value(t.gap, twin_text(t))


class GeluFigure(_Figure):
    """A ReLU net and its GELU twin on [−1, 1]; beside it each seed's test error of
    the ReLU and GELU fits to the smooth target and to the kink, on a log axis."""

    def __init__(self, theme: Theme):
        super().__init__(theme)
        self.plot = make_plot("questions-gelu-plot", "A ReLU net and its GELU twin",
                              "A 1-16-1 ReLU net and the GELU net at scale a that stays "
                              "within 0.17/a of it", log_x=False, log_y=False)
        self.error_plot = make_plot("questions-gelu-errors", "Test error of the fits",
                                    "Test mean squared error of ReLU and GELU nets fitted "
                                    "to sin(πx) and to |x|, each seed", log_x=False)
        self.relu, self.gelu = pg.PlotDataItem(), pg.PlotDataItem()
        for item in (self.relu, self.gelu):
            self.plot.addItem(item)
        self.plot.setLabel("bottom", "x")
        self.points = [pg.PlotDataItem(pen=None, symbol="o" if act == "relu" else "s")
                       for act, _ in COLUMNS]
        for item in self.points:
            self.error_plot.addItem(item)
        self.error_plot.setLabel("left", "test MSE")
        # the label's room keeps "sin(πx)" whole at zoom 1.6
        self.error_plot.setLabel("bottom", "target")
        self.error_plot.getPlotItem().getAxis("bottom").setTicks(
            [[(0.5, "sin(πx)"), (2.5, "|x|")], []])  # one label a target: four overprint
        self.error_plot.setRange(xRange=(-0.5, 3.5), yRange=(-7, -2), padding=0.03)
        self.key = KeyLabel("questions-gelu-key", "Key of the GELU plots", [
            Entry("accent", "—", "ReLU net"), Entry("approx", "‒ ‒", "GELU twin"),
            Entry("accent", "●", "ReLU fit, a seed"), Entry("approx", "■", "GELU fit, a seed")])
        self.plots = {"main": self.plot, "errors": self.error_plot}
        self._shown = GeluSettings()
        self.apply_theme()

    def apply_theme(self) -> None:
        t = self.theme
        for plot in (self.plot, self.error_plot):
            t.style_plot(plot)
        self.relu.setPen(t.pen("accent", 2.5))
        self.gelu.setPen(t.pen("approx", 2.5, Qt.PenStyle.DashLine))
        for item, (act, _) in zip(self.points, COLUMNS):
            role = "accent" if act == "relu" else "approx"
            item.setSymbolSize(t.handle_size(10))
            item.setSymbolBrush(pg.mkBrush(t.color(role)))
            item.setSymbolPen(t.pen("foreground", 1.0))

    def show_settings(self, s: GeluSettings) -> None:
        self._shown = s
        tw = twin(s.scale)
        self.relu.setData(TWIN_X, tw.relu)
        self.gelu.setData(TWIN_X, tw.gelu)
        self.theme.set_title(self.plot, f"a = {s.scale}: gap {tw.gap:.2g}")

    def tables(self) -> dict:
        return {"twin": twin_table(twin(self._shown.scale))}

    def clear(self) -> None:
        self._clear(*self.points)

    def draw(self, run: GeluRun, numbers: dict) -> None:
        f = run.fits
        shown = []
        for i, (item, (act, target)) in enumerate(zip(self.points, COLUMNS)):
            mse = np.asarray(f.mse[f.activations.index(act), f.targets.index(target)], float)
            spread = np.linspace(-0.15, 0.15, len(mse)) if len(mse) > 1 else np.zeros(1)
            item.setData(i + spread, _positive(mse))
            shown.extend(mse[np.isfinite(mse) & (mse > 0)])
        if shown:
            self.error_plot.setRange(xRange=(-0.5, 3.5), yRange=(
                math.log10(min(shown)) - 0.3, math.log10(max(shown)) + 0.3), padding=0)
        self.theme.set_title(self.error_plot, "sin(πx) and |x|, each seed")


PAGE = Page(
    name="gelu", title="GELU", short="gelu", field="gelu",
    question=("And intuitively, GeLU should be more expressible than ReLU. Then why is it only "
              "widely used in transformers?"),
    source="the blog's open questions (Before NN101)",
    work="the ReLU and GELU fits", run=run_gelu, numbers=gelu_numbers, verdict=gelu_verdict,
    details=gelu_details, table=gelu_table, figure=GeluFigure, controls=GeluControls,
    experiment=experiment)
