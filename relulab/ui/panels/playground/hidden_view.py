"""The hidden space: the points in the coordinates of two neurons of a hidden layer,
live while the network trains, with the output layer's boundary there when it is a
line (the open questions: hidden layers remap the inputs until a line separates the classes).

The choice (layer, neuron i, neuron j) is the view's; when the output is not an affine
function of these two coordinates alone the plot says why instead of drawing lines.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QBoxLayout, QComboBox, QGridLayout, QLabel, QVBoxLayout, QWidget

from relulab.model.lessons.playground import Points
from relulab.model.networks.hidden import HiddenSpace, hidden_space, separating_map
from relulab.model.networks.mlp import MLP
from relulab.model.regions.decisions import affine_decisions
from relulab.ui.driver import TimedPlotWidget
from relulab.ui.panels.base import named, signals_blocked
from relulab.ui.panels.playground.data_map import SYMBOLS, point_items, style_point_items
from relulab.ui.panels.playground.sizing import WholeReadout, fit_left_label

#: The note goes beside the plot where the view holds this many characters a line:
#: two columns of about 28, the plot's and the note's.
BESIDE_CHARACTERS = 56


class HiddenSpaceView(QWidget):
    """``choice_changed((layer, i, j))`` when the user picks other coordinates."""

    choice_changed = Signal(object)

    def __init__(self, clock, theme, parent=None):
        super().__init__(parent)
        named(self, "playground-hidden-space", "Hidden space: the points as a hidden layer sees them")
        self.theme = theme
        self.space: HiddenSpace | None = None
        self._sizes: tuple[int, ...] = ()
        # one row of boxes as wide as their numbers: the plot and the note need the height
        row = QGridLayout()
        row.setContentsMargins(0, 0, 0, 0)
        self.layer_combo = named(QComboBox(), "playground-hidden-layer", "Hidden layer shown",
                                 "The hidden layer whose neurons are the axes")
        self.x_combo = named(QComboBox(), "playground-hidden-x", "Neuron on the horizontal axis",
                             "Neuron on the horizontal axis")
        self.y_combo = named(QComboBox(), "playground-hidden-y", "Neuron on the vertical axis",
                             "Neuron on the vertical axis")
        for c, (label, w) in enumerate((("Layer", self.layer_combo), ("x", self.x_combo),
                                        ("y", self.y_combo))):
            w.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            w.setMinimumContentsLength(2)  # up to MAX_WIDTH = 16 neurons: two digits
            tip = QLabel(label)
            tip.setToolTip(w.toolTip())
            row.addWidget(tip, 0, 2 * c)
            row.addWidget(w, 0, 2 * c + 1)
            row.setColumnStretch(2 * c + 1, 1)
        self.plot = named(TimedPlotWidget(clock), "playground-hidden-plot",
                          "The points in the hidden layer's coordinates", description=(
                              "The points as a hidden layer sees them: one neuron's value "
                              "across, another's up, each point in its class's symbol."))
        self.plot.setMenuEnabled(False)
        self.plot.hideButtons()
        self.plot.setMouseEnabled(False, False)
        self.plot.getPlotItem().disableAutoRange()
        self.boundary_item = pg.PlotDataItem(connect="pairs")
        self.plot.addItem(self.boundary_item)
        self.point_items = point_items()
        for item in self.point_items.values():
            self.plot.addItem(item)
        self.note = WholeReadout("playground-hidden-note", "What the hidden space shows",
                                 "hidden_note", wrap=True)
        self.note.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        # the note under the plot, or beside it where the column is wide (a lecture's
        # projector: under it, its lines took the plot's height)
        self.body = QBoxLayout(QBoxLayout.Direction.TopToBottom)
        self.body.addWidget(self.plot, 1)
        self.body.addWidget(self.note, 0)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(row)
        layout.addLayout(self.body, 1)
        self.layer_combo.activated.connect(self._on_layer)
        self.x_combo.activated.connect(self._on_neurons)
        self.y_combo.activated.connect(self._on_neurons)
        self._range = None

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        wide = self.width() >= BESIDE_CHARACTERS * self.fontMetrics().averageCharWidth()
        direction = QBoxLayout.Direction.LeftToRight if wide else QBoxLayout.Direction.TopToBottom
        if self.body.direction() != direction:
            self.body.setDirection(direction)
            self.body.setStretch(1, 1 if wide else 0)  # beside: the plot and the note halve it

    # -- the choice ------------------------------------------------------------------------
    def show_choice(self, hidden: tuple[int, ...], choice) -> None:
        """Fill the combos for layers ``hidden`` and select ``choice`` (or say none fits)."""
        widgets = (self.layer_combo, self.x_combo, self.y_combo)
        with signals_blocked(*widgets):
            if tuple(hidden) != self._sizes:
                self._sizes = tuple(hidden)
                self.layer_combo.clear()
                for layer, width in enumerate(hidden, start=1):
                    if width >= 2:
                        self.layer_combo.addItem(f"{layer}", layer)
            self._range = None
            if choice is None:
                for w in widgets:
                    w.setEnabled(False)
                self.x_combo.clear()
                self.y_combo.clear()
                return
            for w in widgets:
                w.setEnabled(True)
            layer, i, j = choice
            self.layer_combo.setCurrentIndex(max(0, self.layer_combo.findData(layer)))
            width = hidden[layer - 1]
            for combo, chosen in ((self.x_combo, i), (self.y_combo, j)):
                combo.clear()
                for n in range(width):
                    combo.addItem(f"{n + 1}", n)
                combo.setCurrentIndex(chosen)

    def _on_layer(self, _index: int) -> None:
        layer = self.layer_combo.currentData()
        if layer is not None:
            self.choice_changed.emit((int(layer), 0, 1))

    def _on_neurons(self, _index: int) -> None:
        layer, i, j = self.layer_combo.currentData(), self.x_combo.currentData(), self.y_combo.currentData()
        if layer is None or i is None or j is None:
            return
        if i == j:  # keep two different neurons: the other axis moves on
            j = (i + 1) % self._sizes[layer - 1]
        self.choice_changed.emit((int(layer), int(i), int(j)))

    # -- the picture ------------------------------------------------------------------------
    def show_space(self, net: MLP, points: Points, labels: np.ndarray, choice,
                   check: bool = False, features=None) -> None:
        """The points (training points with the labels training sees, test points with
        theirs) in the chosen coordinates; the output's boundary when it is linear there.
        ``features``: the network's inputs (a FeatureMap) when not the point itself.
        ``check``: also ask whether some line separates the training points (a linear
        program: paused frames only)."""
        if choice is None:
            self.space = None
            for item in self.point_items.values():
                item.setData([], [])
            self.boundary_item.setData([], [])
            self.note.setText("The hidden space needs a hidden layer of two neurons or more.")
            return
        layer, i, j = choice
        X = points.x if features is None else features.apply(points.x)
        space = hidden_space(net, X, layer, i, j)
        self.space = space
        P = space.points
        finite = np.isfinite(P).all(axis=1)
        shown = P[finite]
        lo, hi = (shown.min(axis=0), shown.max(axis=0)) if len(shown) else (np.zeros(2), np.ones(2))
        pad = np.maximum(0.12 * (hi - lo), 1e-9 * np.maximum(1.0, np.abs(hi)))
        box = (lo[0] - pad[0], hi[0] + pad[0], lo[1] - pad[1], hi[1] + pad[1])
        size = 7 * self.theme.zoom ** 0.5
        label = np.asarray(labels, float)
        for (c, test), item in self.point_items.items():
            mask = finite & (label == c) & (points.test == test)
            item.setData(x=P[mask, 0], y=P[mask, 1], size=size, symbol=SYMBOLS[c])
        if space.linear:
            seg = affine_decisions(space.A, space.c, box).boundary
            if len(seg):
                self.boundary_item.setData(seg[:, 0], seg[:, 1])
            else:
                self.boundary_item.setData([], [])
        else:
            self.boundary_item.setData([], [])
        if box != self._range:  # the range follows the points, without a paint of its own
            self._range = box
            self.plot.setXRange(box[0], box[1], padding=0)
            self.plot.setYRange(box[2], box[3], padding=0)
        # the layer is in its box above: short labels fit a short plot's side
        if self.plot.getPlotItem().getAxis("left").labelText != f"neuron {j + 1}":
            self.plot.setLabel("bottom", f"neuron {i + 1}")
            self.plot.setLabel("left", f"neuron {j + 1}")
            fit_left_label(self.plot)
        elif self.plot.getPlotItem().getAxis("bottom").labelText != f"neuron {i + 1}":
            self.plot.setLabel("bottom", f"neuron {i + 1}")
        text = space.note
        if check:
            train = ~points.test & finite
            classes = int(max(2, label.max(initial=0) + 1))
            found = separating_map(P[train], label[train], classes)
            text += (" A line separates the training points here." if found is not None and classes == 2
                     else " Lines (an argmax) separate the training points here." if found is not None
                     else " No separating line found here (a linear program looked).")
        self.note.setText(text)

    def apply_theme(self) -> None:
        th = self.theme
        th.style_plot(self.plot)
        fit_left_label(self.plot)
        self.boundary_item.setPen(th.pen("foreground", 2.5))
        style_point_items(self.point_items, th, outline=1.6)
