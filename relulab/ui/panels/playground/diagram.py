"""The network diagram: one dot per neuron, one line per weight that matters (solid
positive, dashed negative), and under it what the hovered or chosen neuron computes.
Hovering a hidden neuron asks for its map (``hovered``)."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from relulab.model.mlp import MLP
from relulab.ui.driver import TimedPlotWidget
from relulab.ui.panels.base import named

#: Weights smaller than this share of the layer's largest are not drawn.
WEIGHT_SHARE = 0.1
#: And at most this many lines in all, the strongest of each layer (a dashed line costs
#: its paint per dash: 5000 of them took 200 ms a frame).
MAX_EDGES = 200
HOVER_HINT = "Hover a neuron in the diagram to see its own map."


class NetworkDiagram(QWidget):
    """``hovered(neuron)``: (layer, i) of a hidden neuron under the mouse, or None."""

    hovered = Signal(object)

    def __init__(self, clock, theme, parent=None):
        super().__init__(parent)
        self.setObjectName("playground-diagram")
        self.theme = theme
        self.node_pos = np.zeros((0, 2))
        self._sizes: list[int] | None = None
        self._hover: tuple[int, int] | None = None
        self.plot = named(TimedPlotWidget(clock), "playground-network",
                          "Network diagram: hover a neuron")
        self.plot.setMouseEnabled(False, False)
        self.plot.setMenuEnabled(False)
        self.plot.hideButtons()
        for ax in ("left", "bottom"):
            self.plot.getPlotItem().hideAxis(ax)
        self.plot.setMinimumHeight(90)
        self.edge_pos = pg.PlotDataItem(connect="pairs")
        self.edge_neg = pg.PlotDataItem(connect="pairs")
        self.plot.addItem(self.edge_pos)
        self.plot.addItem(self.edge_neg)
        self.nodes = pg.ScatterPlotItem(hoverable=True, tip=None)
        self.plot.addItem(self.nodes)
        self.label = named(QLabel(HOVER_HINT), "playground-neuron-info", "The shown neuron's map")
        self.label.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.plot, 1)
        layout.addWidget(self.label)
        self.nodes.sigHovered.connect(self._on_hover)

    @property
    def hover(self) -> tuple[int, int] | None:
        return self._hover

    def show_network(self, net: MLP) -> None:
        """Dots for the network's layers (made again only when its sizes change) and
        lines for its weights."""
        if net.sizes != self._sizes:
            self._place_nodes(net.sizes)
        offsets = np.cumsum([0] + net.sizes)
        per_layer = max(1, MAX_EDGES // len(net.layers))
        pos_xy, neg_xy = [], []
        for li, (W, _b) in enumerate(net.layers):
            src = self.node_pos[offsets[li]:offsets[li + 1]]
            dst = self.node_pos[offsets[li + 1]:offsets[li + 2]]
            size = np.abs(W)
            big = size >= WEIGHT_SHARE * max(float(size.max()), 1e-12)
            if big.sum() > per_layer:
                big &= size >= np.partition(size.ravel(), -per_layer)[-per_layer]
            j, i = np.nonzero(big)
            ends = np.empty((2 * len(j), 2))
            ends[0::2], ends[1::2] = src[i], dst[j]
            positive = np.repeat(W[j, i] > 0, 2)
            pos_xy.append(ends[positive])
            neg_xy.append(ends[~positive])
        for item, parts in ((self.edge_pos, pos_xy), (self.edge_neg, neg_xy)):
            xy = np.concatenate(parts) if parts else np.zeros((0, 2))
            item.setData(xy[:, 0], xy[:, 1]) if len(xy) else item.setData([], [])

    def _place_nodes(self, sizes: list[int]) -> None:
        self._sizes = list(sizes)
        pos, data = [], []
        for li, n in enumerate(sizes):
            for i in range(n):
                pos.append((li, (i - (n - 1) / 2) * 1.0))
                data.append((li, i))
        self.node_pos = np.array(pos, float)
        th = self.theme
        brush = {role: pg.mkBrush(th.color(role)) for role in ("muted", "accent", "foreground")}
        roles = ["muted" if li == 0 else "accent" if li == len(sizes) - 1 else "foreground"
                 for li, _i in data]
        self.nodes.setData(pos=self.node_pos, data=data, size=th.point_size(13),
                           brush=[brush[r] for r in roles],
                           pen=th.pen("background", 1.0), hoverable=True,
                           hoverSize=th.point_size(18), hoverBrush=pg.mkBrush(th.color("selected")))
        span = max(sizes)
        self.plot.setRange(xRange=(-0.4, len(sizes) - 0.6), yRange=(-span / 2, span / 2),
                           padding=0.05)

    def _on_hover(self, _item, points, _ev) -> None:
        new = None
        if len(points):
            layer, i = points[0].data()
            new = (int(layer), int(i)) if 0 < layer < len(self._sizes) - 1 else None
        if new != self._hover:
            self._hover = new
            self.hovered.emit(new)

    def apply_theme(self) -> None:
        th = self.theme
        th.style_plot(self.plot)
        self.plot.getPlotItem().showGrid(False, False)
        pos, neg = th.color("class1"), th.color("class0")
        self.edge_pos.setPen(pg.mkPen(pos, width=th.width(1.5)))
        self.edge_neg.setPen(pg.mkPen(neg, width=th.width(1.5), style=Qt.PenStyle.DashLine))
        if self._sizes is not None:
            self._place_nodes(self._sizes)
