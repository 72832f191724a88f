"""The simplex page: softmax and sparsemax map a logit vector of three classes onto
the triangle of distributions; a linear classifier trained with each link (the job
and the words: :mod:`.jobs.simplex`).

The triangle is drawn to scale: the plane Σp = 1 is mapped onto the page's plane by
p ↦ p₁·(0, 0) + p₂·(1, 0) + p₃·(½, √3/2), a similarity (the unit vectors go to the
corners of an equilateral triangle), so that Euclidean nearest points stay nearest.
The logit vector z is drawn at its projection onto that plane, z − mean(z) + ⅓:
sparsemax is the point of the triangle nearest to it, softmax lies inside.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QObject, QPointF, Qt, Signal
from PySide6.QtWidgets import QDoubleSpinBox, QHBoxLayout, QLabel, QSpinBox, QVBoxLayout, QWidget

from relulab.model.lessons.questions import DATA_SEEDS, LOGIT_RANGE, SimplexSettings
from relulab.ui.items.hinges_handles import HandlesItem
from relulab.ui.legend import Entry, KeyLabel
from relulab.ui.panels.base import named, signals_blocked
from relulab.ui.panels.questions.controls import _readout
from relulab.ui.panels.questions.jobs.simplex import (
    FROM,
    SimplexRun,
    experiment,
    maps,
    maps_text,
    run_simplex,
    simplex_details,
    simplex_numbers,
    simplex_table,
    simplex_verdict,
)
from relulab.ui.panels.questions.pages import Page
from relulab.ui.panels.questions.plots import _Figure, make_plot
from relulab.ui.theme import Theme

H = math.sqrt(3) / 2
CORNERS = np.array([[0.0, 0.0], [1.0, 0.0], [0.5, H]])


def to_plane(p) -> np.ndarray:
    """A point of Σp = 1 (or several, rows) on the page's plane."""
    return np.asarray(p, float) @ CORNERS


def from_plane(x: float, y: float) -> np.ndarray:
    """The point of Σp = 1 drawn at (x, y)."""
    p3 = y / H
    p2 = x - 0.5 * p3
    return np.array([1.0 - p2 - p3, p2, p3])


def logit_point(logits) -> np.ndarray:
    """Where a logit vector is drawn: its projection onto the plane Σp = 1."""
    z = np.asarray(logits, float)
    return to_plane(z - z.mean() + 1.0 / 3.0)


def logits_at(x: float, y: float) -> tuple[float, float, float]:
    """The logit vector of mean 0 drawn at (x, y), each within LOGIT_RANGE, to 0.01."""
    z = [float(round(min(max(v, LOGIT_RANGE[0]), LOGIT_RANGE[1]), 2))
         for v in from_plane(x, y) - 1.0 / 3.0]
    return z[0], z[1], z[2]


class SimplexControls(QWidget):
    edited = Signal(dict)

    def __init__(self):
        super().__init__()
        c = QVBoxLayout(self)
        c.setContentsMargins(0, 0, 0, 0)
        c.addWidget(QLabel("Logits z (or drag the point)"))
        self.z = []
        for i in range(3):
            spin = named(QDoubleSpinBox(), f"questions-simplex-z{i + 1}", f"Logit z{i + 1}",
                         f"The logit of class {i + 1}")
            spin.setRange(*LOGIT_RANGE)
            spin.setSingleStep(0.1)
            spin.setDecimals(2)
            row = QHBoxLayout()
            row.addWidget(QLabel(f"z{i + 1}"))
            row.addWidget(spin, 1)
            c.addLayout(row)
            spin.valueChanged.connect(self._typed)
            self.z.append(spin)
        self.maps = _readout("questions-simplex-maps", "Both maps at z")
        c.addWidget(self.maps)
        self.seed = named(QSpinBox(), "questions-simplex-seed", "Data seed",
                          "The seed of the blobs the classifiers are trained on")
        self.seed.setRange(*DATA_SEEDS)
        row = QHBoxLayout()
        row.addWidget(QLabel("Data seed"))
        row.addWidget(self.seed, 1)
        c.addLayout(row)
        c.addStretch(1)
        self.seed.valueChanged.connect(lambda v: self.edited.emit({"seed": v}))

    def _typed(self) -> None:
        self.edited.emit({"logits": tuple(float(s.value()) for s in self.z)})

    def show_state(self, s: SimplexSettings) -> None:
        with signals_blocked(self.seed, *self.z):
            self.seed.setValue(s.seed)
            for spin, v in zip(self.z, s.logits):
                spin.setValue(v)
        self.maps.set_value(maps(s.logits)["zeros"], maps_text(s.logits))


class _Drags(QObject):
    edited = Signal(dict)


class SimplexFigure(_Figure):
    """The triangle with the logit point (draggable), softmax's and sparsemax's points
    and the segment from z to its nearest point; beside it |W| over training on
    separable data, both links."""

    def __init__(self, theme: Theme):
        super().__init__(theme)
        self.plot = make_plot("questions-simplex-plot", "The simplex",
                              "The triangle of distributions over three classes, the logit "
                              "vector and its softmax and sparsemax", log_x=False, log_y=False)
        self.norm_plot = make_plot("questions-simplex-norms", "Weights over training",
                                   "The norm of the weights of a linear classifier on "
                                   "separable data against the step, softmax and sparsemax",
                                   log_y=False)
        p = self.plot
        p.setAspectLocked(True)
        p.hideAxis("left")
        p.hideAxis("bottom")
        self.triangle = pg.PlotDataItem(*np.r_[CORNERS, CORNERS[:1]].T)
        self.link = pg.PlotDataItem()
        self.soft = pg.PlotDataItem(pen=None, symbol="o")
        self.sparse = pg.PlotDataItem(pen=None, symbol="s")
        self.handle = HandlesItem()
        self.labels = [pg.TextItem(f"class {i + 1}", anchor=a) for i, a in
                       enumerate(((1, 0), (0, 0), (0.5, 1)))]
        for item in (self.triangle, self.link, self.soft, self.sparse, self.handle, *self.labels):
            p.addItem(item)
        for label, corner in zip(self.labels, CORNERS):
            label.setPos(*corner)
        self.drags = _Drags()
        self.edited = self.drags.edited
        self.handle.drag_moved.connect(self._moved)
        self.handle.drag_finished.connect(self._finished)
        self.handle.drag_cancelled.connect(lambda _i: self.show_settings(self._shown))
        self._dragged: tuple[float, float, float] | None = None
        self._shown = SimplexSettings()
        self.soft_curve, self.sparse_curve = pg.PlotDataItem(), pg.PlotDataItem()
        self.start = pg.InfiniteLine(pos=math.log10(FROM), angle=90, movable=False)
        for item in (self.soft_curve, self.sparse_curve):
            self.norm_plot.addItem(item)
        self.norm_plot.addItem(self.start, ignoreBounds=True)
        self.norm_plot.setLabel("bottom", "step")
        self.norm_plot.setLabel("left", "|W|")
        self.norm_plot.setRange(xRange=(0, math.log10(3000)), yRange=(0, 10), padding=0.05)
        self.key = KeyLabel("questions-simplex-key", "Key of the simplex plots", [
            Entry("foreground", "◆", "logits z, projected"), Entry("approx", "●", "softmax"),
            Entry("accent", "■", "sparsemax"), Entry("muted", "‒ ‒", "z to its nearest point"),
            Entry("approx", "—", "|W| softmax"), Entry("accent", "‒ ‒", "|W| sparsemax")])
        self.plots = {"main": self.plot, "norms": self.norm_plot}
        self.apply_theme()

    def apply_theme(self) -> None:
        t = self.theme
        for plot in (self.plot, self.norm_plot):
            t.style_plot(plot)
        self.triangle.setPen(t.pen("foreground", 2.0))
        self.link.setPen(t.pen("muted", 1.5, Qt.PenStyle.DashLine))
        for points, role in ((self.soft, "approx"), (self.sparse, "accent")):
            points.setSymbolSize(t.handle_size(12))
            points.setSymbolBrush(pg.mkBrush(t.color(role)))
            points.setSymbolPen(t.pen("foreground", 1.0))
        self.handle.setSymbol("d")
        self.handle.setSize(t.handle_size(16))
        self.handle.setBrush(pg.mkBrush(t.color("foreground")))
        self.handle.setPen(t.pen("background", 1.0))
        for label in self.labels:
            label.setColor(t.color("foreground"))
            label.setFont(t.font(9))
        self.soft_curve.setPen(t.pen("approx", 2.5))
        self.sparse_curve.setPen(t.pen("accent", 2.5, Qt.PenStyle.DashLine))
        self.start.setPen(t.pen("muted", 1.5, Qt.PenStyle.DotLine))

    # -- the logit vector: drawn from the settings, no job -------------------------
    def _draw_logits(self, logits) -> None:
        m = maps(logits)
        z = logit_point(logits)
        self.handle.setData([z[0]], [z[1]])
        soft, sparse = to_plane(m["softmax"]), to_plane(m["sparsemax"])
        self.soft.setData([soft[0]], [soft[1]])
        self.sparse.setData([sparse[0]], [sparse[1]])
        self.link.setData([z[0], sparse[0]], [z[1], sparse[1]])
        self.theme.set_title(self.plot, f"sparsemax: {m['zeros']} of 3 at 0")

    def show_settings(self, s: SimplexSettings) -> None:
        self._shown = s
        self._draw_logits(s.logits)
        z = logit_point(s.logits)
        xs = np.r_[CORNERS[:, 0], z[0]]
        ys = np.r_[CORNERS[:, 1], z[1]]
        self.plot.setRange(xRange=(xs.min() - 0.25, xs.max() + 0.25),
                           yRange=(ys.min() - 0.2, ys.max() + 0.25), padding=0)  # the apex's label

    def _moved(self, _i: int, pos: QPointF) -> None:
        self._dragged = logits_at(pos.x(), pos.y())
        self._draw_logits(self._dragged)

    def _finished(self, _i: int) -> None:
        if self._dragged is not None:
            logits, self._dragged = self._dragged, None
            self.edited.emit({"logits": logits})

    # -- the job's result ----------------------------------------------------------
    def clear(self) -> None:
        self._clear(self.soft_curve, self.sparse_curve)

    def draw(self, run: SimplexRun, numbers: dict) -> None:
        soft, sparse = run.separable
        steps = np.asarray(soft.record, float)
        keep = steps > 0  # a log axis: step 0 (W = 0) is not drawn
        self.soft_curve.setData(steps[keep], soft.norms()[keep])
        self.sparse_curve.setData(steps[keep], sparse.norms()[keep])
        top = float(max(soft.norms().max(), sparse.norms().max()))
        self.norm_plot.setRange(xRange=(0, math.log10(steps[-1])), yRange=(0, top),
                                padding=0.05)
        self.theme.set_title(self.norm_plot, "Separable blobs: |W|")


PAGE = Page(
    name="simplex", title="Softmax", short="simplex", field="simplex",
    question=("Softmax just projects any given vector into a distribution. There are infinitely "
              "many ways for such a projection. It isn't even a projection in the geometric "
              "sense: the Euclidean projection onto the probability simplex is sparsemax. Then "
              "why softmax?"),
    source="the blog's open questions (Before NN101)",
    work="the two classifiers", run=run_simplex, numbers=simplex_numbers,
    verdict=simplex_verdict, details=simplex_details, table=simplex_table,
    figure=SimplexFigure, controls=SimplexControls, experiment=experiment)
