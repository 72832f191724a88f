"""The network diagram: one dot per neuron, one line per weight that matters (solid
positive, dashed negative, wider and stronger the larger the weight), each output's
bias beside it, and, when asked for, each neuron's own map of the plane as a small
picture on its dot. Hovering a hidden neuron asks for its map (``hovered``)."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QVBoxLayout, QWidget

from relulab.model.fitting.classify import DEFAULT_BOX, grid_axes, grid_layers
from relulab.model.fitting.features import FeatureMap
from relulab.model.networks.activations import ACTIVATIONS, get_activation
from relulab.model.networks.mlp import MLP
from relulab.ui.driver import TimedPlotWidget
from relulab.ui.legend import Entry, KeyLabel
from relulab.ui.panels.base import named

#: Weights smaller than this share of the layer's largest are not drawn.
WEIGHT_SHARE = 0.1
#: And at most this many lines in all, the strongest of each layer (a dashed line costs
#: its paint per dash: 5000 of them took 200 ms a frame).
MAX_EDGES = 200
#: Lines come in this many widths, by the weight's share of its layer's largest.
WIDTHS = 4
HOVER_HINT = "Hover the map, or a neuron in the diagram: its affine map there."
#: Pixels per side of a neuron's picture, and of the gap between two in a column.
THUMB = 24
THUMB_GAP = 6
#: A neuron's picture covers this share of the space between two neurons.
TILE = THUMB / (THUMB + THUMB_GAP)
#: Unless the view says, the pictures are shown when they fit: every layer has at most
#: this many neurons and each picture is at least THUMB pixels a side.
FIT_NEURONS = 8


def neuron_pictures(net: MLP, box=DEFAULT_BOX, size: int = THUMB,
                    features: FeatureMap | None = None) -> list[np.ndarray]:
    """Each layer's neurons' values on a size × size grid of the box, scaled to [−1, 1]
    per neuron by its largest |value|: the inputs x₁, x₂ (or the ``features``); each
    hidden neuron's φ(z);
    each output (σ(z) − ½)·2 for one output, else its softmax probability. One array per
    layer, (neurons, size, size) indexed [neuron, row (y), column (x)]."""
    with np.errstate(all="ignore"):
        zs = grid_layers(net, box, size, dtype=np.float32, features=features)
        xs, ys = grid_axes(box, size)  # the pixels the layers are computed at
        inputs = np.stack([np.tile(xs, (size, 1)), np.tile(ys[:, None], (1, size))])
        if features is not None:
            inputs = features.apply(inputs.reshape(2, -1).T).T.reshape(-1, size, size)
        out = [inputs.astype(np.float32)]
        for z, name in zip(zs[:-1], net.activations):
            out.append(get_activation(name).f(z))
        s = zs[-1]
        if net.n_out == 1:
            out.append(2.0 / (1.0 + np.exp(-np.clip(s, -30, 30))) - 1.0)
        else:
            e = np.exp(s - s.max(axis=0))
            out.append(e / e.sum(axis=0))
        scaled = []
        for a in out:
            a = np.nan_to_num(a, nan=0.0, posinf=1.0, neginf=-1.0)
            m = np.abs(a).reshape(len(a), -1).max(axis=1)
            scaled.append(a / np.where(m > 0, m, 1.0)[:, None, None])
    return scaled


class NetworkDiagram(QWidget):
    """``hovered(neuron)``: (layer, i) of a hidden neuron under the mouse, or None;
    ``clicked(neuron)``: a hidden neuron was clicked (to show its map)."""

    hovered = Signal(object)
    clicked = Signal(object)
    #: The pictures were shown or hidden by the diagram itself (no choice made: they fit
    #: or no longer do).
    thumbnails_changed = Signal(bool)

    def __init__(self, clock, theme, box=DEFAULT_BOX, parent=None):
        super().__init__(parent)
        named(self, "playground-diagram", "Network diagram")
        self.theme = theme
        self.box = box
        #: the feature plane's box while the map shows it (the pictures over it, of the
        #: network's own inputs); None: over the plane's box, through the features
        self.space_box: tuple | None = None
        self.node_pos = np.zeros((0, 2))
        self._sizes: list[int] | None = None
        self._hover: tuple[int, int] | None = None
        self.thumbnails = False  # the pictures shown
        self.choice: bool | None = None  # asked for; None: shown when they fit
        self._net: MLP | None = None
        self._widths = None  # the names and the biases' width the range was set for
        self._lut: np.ndarray | None = None  # the pictures' colours, from the theme
        self.features = FeatureMap()  # the inputs, named left of their dots
        self.regress = False  # the output is the prediction z itself (no σ)
        self.plot = named(TimedPlotWidget(clock), "playground-network",
                          "Network diagram: hover a neuron", description=(
                              "The network's layers from the inputs to the outputs: each "
                              "neuron a circle (or its map), each weight a line whose width and "
                              "colour show its size and sign, each layer's activation over its "
                              "column; hover or click a neuron to see its map."))
        self.plot.setMouseEnabled(False, False)
        self.plot.setMenuEnabled(False)
        self.plot.hideButtons()
        for ax in ("left", "bottom"):
            self.plot.getPlotItem().hideAxis(ax)
        self.plot.setMinimumHeight(120)
        self.tiles: list[pg.ImageItem] = []   # one per layer: its neurons' pictures, stacked
        # plain curves: far cheaper to update than data items, one per sign and width
        self.edges = {(sign, w): pg.PlotCurveItem(connect="pairs")
                      for sign in (1, -1) for w in range(WIDTHS)}
        for item in self.edges.values():
            self.plot.addItem(item)
        self.nodes = pg.ScatterPlotItem(hoverable=True, tip=None)
        self.nodes.setZValue(10)
        self.plot.addItem(self.nodes)
        self.bias_labels: list[pg.TextItem] = []
        self.input_labels: list[pg.TextItem] = []  # each input's feature, left of its dot
        self.layer_labels: list[pg.TextItem] = []  # each layer's activation, over its column
        # the lines' key under the diagram they explain, not under the map
        self.key = KeyLabel("playground-diagram-key", "What the diagram's lines mean",
                            [Entry("approx", "—", "positive weight"),
                             Entry("accent", "‒ ‒", "negative weight")])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.plot, 1)
        layout.addWidget(self.key)
        self.nodes.sigHovered.connect(self._on_hover)
        self.nodes.sigClicked.connect(self._on_click)
        vb = self.plot.getPlotItem().getViewBox()
        vb.sigResized.connect(self._set_range)
        vb.sigResized.connect(self._place_tiles)
        vb.sigRangeChanged.connect(self._place_tiles)
        vb.sigResized.connect(self._fit_thumbnails)

    @property
    def hover(self) -> tuple[int, int] | None:
        return self._hover

    def show_network(self, net: MLP) -> None:
        """Dots for the network's layers (made again only when its sizes change), lines
        for its weights, the output biases, and the neurons' pictures when shown."""
        self._net = net
        if net.sizes != self._sizes:
            self._place_nodes(net.sizes)
        offsets = np.cumsum([0, *net.sizes])
        per_layer = max(1, MAX_EDGES // len(net.layers))
        parts: dict = {key: [] for key in self.edges}
        for li, (W, _b) in enumerate(net.layers):
            src = self.node_pos[offsets[li]:offsets[li + 1]]
            dst = self.node_pos[offsets[li + 1]:offsets[li + 2]]
            size = np.abs(W)
            top = max(float(size.max()), 1e-300)
            big = size >= WEIGHT_SHARE * top
            if big.sum() > per_layer:
                big &= size >= np.partition(size.ravel(), -per_layer)[-per_layer]
            j, i = np.nonzero(big)
            share = size[j, i] / top
            width = np.minimum((share * WIDTHS).astype(int), WIDTHS - 1)
            positive = W[j, i] > 0
            for sign, mask in ((1, positive), (-1, ~positive)):
                for w in range(WIDTHS):
                    sel = mask & (width == w)
                    if sel.any():
                        ends = np.empty((2 * int(sel.sum()), 2))
                        ends[0::2], ends[1::2] = src[i[sel]], dst[j[sel]]
                        parts[(sign, w)].append(ends)
        for key, item in self.edges.items():
            xy = np.concatenate(parts[key]) if parts[key] else np.zeros((0, 2))
            item.setData(xy[:, 0], xy[:, 1]) if len(xy) else item.setData([], [])
        _, b_out = net.layers[-1]
        for label, b in zip(self.bias_labels, b_out):
            label.setText(f"b = {b:+.3g}")
        names = ["input"] + [ACTIVATIONS[a].label for a in net.activations] + [
            "z" if self.regress else "σ" if net.n_out == 1 else "softmax"]
        for label, name in zip(self.layer_labels, names):
            label.setText(name)
        # the range follows the texts' widths (to 8 px: not every new digit of a bias)
        widths = (tuple(names), int(max(b.boundingRect().width() for b in self.bias_labels)) // 8)
        if widths != self._widths:
            self._widths = widths
            self._set_range()
        if self.thumbnails:
            self._show_tiles(net)

    def set_thumbnails(self, on: bool | None) -> None:
        """Show or hide each neuron's picture; None: show them when they fit."""
        self.choice = None if on is None else bool(on)
        self._show_thumbnails(self.maps_fit() if on is None else bool(on))

    def maps_fit(self) -> bool:
        """True when every layer has at most FIT_NEURONS neurons and, in the range the
        pictures take, each is at least THUMB pixels a side (:meth:`map_side`)."""
        return (self._sizes is not None and max(self._sizes) <= FIT_NEURONS
                and self.map_side() >= THUMB)

    def map_side(self) -> float:
        """The pixels a side of a neuron's picture when the pictures are shown, at the
        plot's size now (0 before it is laid out)."""
        if self._sizes is None:
            return 0.0
        vb = self.plot.getPlotItem().getViewBox()
        left, right, bottom, top = self._range(True)[:4]
        if vb.width() <= 0 or vb.height() <= 0:
            return 0.0
        # the picture is TILE high and as wide (up to 0.8 of a layer): _place_tiles
        return min(TILE * vb.height() / (top - bottom), 0.8 * vb.width() / (right - left))

    def _fit_thumbnails(self, *_args) -> None:
        """No choice made: show the pictures while they fit, and say so."""
        if self.choice is None and self._sizes is not None:
            on = self.maps_fit()
            if on != self.thumbnails:
                self._show_thumbnails(on)
                self.thumbnails_changed.emit(on)

    def _show_thumbnails(self, on: bool) -> None:
        self.thumbnails = bool(on)
        for item in self.tiles:
            item.setVisible(self.thumbnails)
        for label, (x, y) in zip(self.input_labels, self.node_pos):
            label.setPos(x - 0.1 - (0.45 if self.thumbnails else 0.0), y)
        if self._sizes is not None:
            self._style_nodes()
            self._set_range()
            self._place_tiles()
        if self.thumbnails and self._net is not None:
            self._show_tiles(self._net)

    # -- the pictures ---------------------------------------------------------------------
    def set_inputs(self, features: FeatureMap) -> None:
        """The features the first layer takes, named beside the input dots."""
        if features != self.features:
            self.features = features
            if self._sizes is not None:
                self._place_nodes(self._sizes)
                if self._net is not None:
                    self.show_network(self._net)

    def set_space(self, box: tuple | None) -> None:
        """Picture the neurons where the map does, from the next network shown: over
        the feature plane's ``box`` (None: over the plane). A map in x₁², x₂² beside
        neurons pictured in x₁, x₂ showed the same neuron two ways."""
        self.space_box = box

    def _show_tiles(self, net: MLP) -> None:
        if self._lut is None:
            return  # no theme yet: apply_theme draws them
        if net.n_in != len(self.features):
            return  # the network drawn takes the old inputs: the next frame's takes these
        if self.space_box is not None:
            if net.n_in != 2:
                return  # the network drawn is not yet the one of the feature plane
            pictures = neuron_pictures(net, self.space_box)
        else:
            features = None if self.features.is_identity else self.features
            pictures = neuron_pictures(net, self.box, features=features)
        lut = self._lut
        step = THUMB + THUMB_GAP
        for item, values in zip(self.tiles, pictures):
            n = len(values)
            # [−1, 1] → the table's 256 rows; NaN and ±inf were made finite before
            idx = np.clip((values + 1.0) * 127.5, 0, 255).astype(np.uint8)
            # neuron k's picture, then a gap, down a column: rows of the column grow
            # with y as each picture's own rows do; the image is indexed [x, y]
            stacked = np.zeros((n, step, THUMB, 4), dtype=np.ubyte)
            stacked[:, :THUMB] = lut[idx]                    # (n, rows, cols, 4)
            column = stacked.reshape(n * step, THUMB, 4)[:n * step - THUMB_GAP]
            item.setImage(column.transpose(1, 0, 2), autoLevels=False, levels=(0, 255))
        self._place_tiles()

    def _place_tiles(self, *_args) -> None:
        """Square pictures centred on the dots, whatever the plot's aspect."""
        if self._sizes is None or not self.tiles:
            return
        vb = self.plot.getPlotItem().getViewBox()
        px, py = vb.viewPixelSize()  # data units per pixel, across and up
        height = TILE
        width = min(TILE * px / py, 0.8) if px > 0 and py > 0 else TILE
        for li, (item, n) in enumerate(zip(self.tiles, self._sizes)):
            total = n - 1 + height
            item.setRect(QRectF(li - width / 2, -(n - 1) / 2 - height / 2, width, total))
        self._place_biases(width / 2 if self.thumbnails else 0.0)

    def _place_biases(self, half_width: float) -> None:
        """Each output's bias just right of its dot (or of its picture)."""
        out = self.node_pos[-self._sizes[-1]:]
        for label, (x, y) in zip(self.bias_labels, out):
            label.setPos(x + half_width + 0.1, y)

    # -- the nodes -------------------------------------------------------------------------
    def _place_nodes(self, sizes: list[int]) -> None:
        self._sizes = list(sizes)
        self._hover = None  # the neuron under the mouse may be gone
        pos, data = [], []
        for li, n in enumerate(sizes):
            for i in range(n):
                pos.append((li, (i - (n - 1) / 2) * 1.0))
                data.append((li, i))
        self.node_pos = np.array(pos, float)
        self._node_data = data
        for item in self.tiles:
            self.plot.removeItem(item)
        self.tiles = []
        for _ in sizes:
            item = pg.ImageItem()
            item.setZValue(5)  # over the lines, under the (then invisible) dots
            item.setVisible(self.thumbnails)
            self.plot.addItem(item)
            self.tiles.append(item)
        for label in self.bias_labels + self.layer_labels + self.input_labels:
            self.plot.removeItem(label)
        self.bias_labels, self.input_labels = [], []
        self.layer_labels = []
        span = max(sizes)
        for li in range(len(sizes)):  # each layer's activation over its column
            label = pg.TextItem("", anchor=(0.5, 1.0))
            label.setZValue(20)
            label.setPos(li, span / 2 + 0.1)
            self.plot.addItem(label)
            self.layer_labels.append(label)
        out = self.node_pos[-sizes[-1]:]
        for x, y in out:  # each output's bias to its right
            label = pg.TextItem("", anchor=(0.0, 0.5))
            label.setZValue(20)
            label.setPos(x + 0.1, y)
            self.plot.addItem(label)
            self.bias_labels.append(label)
        for (x, y), text in zip(self.node_pos[:sizes[0]], self.features.labels):
            label = pg.TextItem(text, anchor=(1.0, 0.5))
            label.setZValue(20)
            label.setPos(x - 0.1 - (0.45 if self.thumbnails else 0.0), y)
            self.plot.addItem(label)
            self.input_labels.append(label)
        self._style_nodes()
        self._set_range()
        self._fit_thumbnails()

    def _set_range(self, *_args) -> None:
        """All layers, their names over them and the output biases right of them, in the
        plot's pixels: the range reaches as far right as the widest bias (a margin in
        layers cut it off in a narrow plot), and names wider than the space between two
        columns take two rows, every other one up (they ran into each other)."""
        if self._sizes is None:
            return
        left, right, bottom, top, rows, row, names_at = self._range(self.thumbnails)
        for li, label in enumerate(self.layer_labels):
            label.setPos(li, names_at + (row if rows == 2 and li % 2 else 0.0))
        self.plot.setRange(xRange=(left, right), yRange=(bottom, top), padding=0)

    def _range(self, thumbnails: bool) -> tuple:
        """(left, right, bottom, top) of the plot with or without the pictures, the rows
        the layers' names take, a row's height and where the names sit."""
        sizes = self._sizes
        span, layers = max(sizes), len(sizes)
        vb = self.plot.getPlotItem().getViewBox()
        width, height = vb.width(), vb.height()
        start = layers - 1 + 0.1 + (0.45 if thumbnails else 0.0)  # where a bias begins
        text = max((b.boundingRect().width() for b in self.bias_labels), default=0.0) + 4
        inputs = max((b.boundingRect().width() for b in self.input_labels), default=0.0)
        before = 0.1 + (0.45 if thumbnails else 0.0)  # where an input's name ends, left
        if width > 2 * (text + inputs):
            # u units a pixel: right = start + text·u holds the biases, left =
            # min(−0.5, −before − inputs·u) the inputs' names, and right − left = width·u;
            # the u solving it is the larger of the two cases' (each side grows slower)
            u = max((start + 0.5) / (width - text), (start + before) / (width - text - inputs))
            left, right = min(-0.5, -before - inputs * u), start + text * u
        else:  # a plot not laid out yet
            left, right = min(-0.5, -before), start + 0.75
        per_layer = width / (right - left) if width > 0 else 0.0
        names = [label.boundingRect() for label in self.layer_labels]
        rows = 2 if per_layer and max((r.width() for r in names), default=0) > per_layer - 4 else 1
        bottom, names_at = -span / 2 - 0.4, span / 2 + 0.1
        share = rows * max((r.height() for r in names), default=0.0) / height if height > 0 else 0
        share = min(share, 0.5)
        top = (names_at - share * bottom) / (1 - share)  # the names' rows fill ``share``
        row = (top - bottom) * share / rows
        return left, right, bottom, top, rows, row, names_at

    def _style_nodes(self) -> None:
        th = self.theme
        sizes = self._sizes
        brush = {role: pg.mkBrush(th.color(role)) for role in ("muted", "accent", "foreground")}
        roles = ["muted" if li == 0 else "accent" if li == len(sizes) - 1 else "foreground"
                 for li, _i in self._node_data]
        if self.thumbnails:  # the pictures are the neurons: the dots only answer the mouse
            clear = pg.mkBrush(0, 0, 0, 0)
            self.nodes.setData(pos=self.node_pos, data=self._node_data, size=th.point_size(13),
                               brush=clear, pen=pg.mkPen(0, 0, 0, 0),
                               hoverable=True, hoverSize=th.point_size(8),
                               hoverBrush=pg.mkBrush(th.color("selected")))
        else:
            self.nodes.setData(pos=self.node_pos, data=self._node_data, size=th.point_size(13),
                               brush=[brush[r] for r in roles], pen=th.pen("background", 1.0),
                               hoverable=True, hoverSize=th.point_size(18),
                               hoverBrush=pg.mkBrush(th.color("selected")))
        for label in self.bias_labels + self.layer_labels + self.input_labels:
            label.setColor(th.color("foreground"))
            label.setFont(th.font(8))
        self._widths = None  # another size of type: the range again

    def _on_click(self, _item, points, _ev) -> None:
        if len(points):
            layer, i = points[0].data()
            if 0 < layer < len(self._sizes) - 1:
                self.clicked.emit((int(layer), int(i)))

    def _on_hover(self, _item, points, _ev) -> None:
        new = None
        if len(points):
            layer, i = points[0].data()
            new = (int(layer), int(i)) if 0 < layer < len(self._sizes) - 1 else None
        if new != self._hover:
            self._hover = new
            self.hovered.emit(new)

    def apply_theme(self) -> None:
        from relulab.ui.panels.playground.data_map import diverging_lut

        th = self.theme
        th.style_plot(self.plot)
        self.plot.getPlotItem().showGrid(False, False)
        # zero is a grey of its own, so that a neuron's picture stands out from the plot
        bg, fg = th.color("background"), th.color("foreground")
        zero = QColor(*(int(0.85 * a + 0.15 * b) for a, b in zip(bg.getRgb()[:3], fg.getRgb()[:3])))
        lut = diverging_lut(th.color("class0"), zero, th.color("class1"), strength=0.9)
        self._lut = np.c_[lut, np.full(len(lut), 255, dtype=np.ubyte)]
        for (sign, w), item in self.edges.items():
            colour = th.color("approx" if sign > 0 else "accent")
            # fainter for a weaker weight, never below 3:1 on the background
            colour.setAlpha(max(90 + 50 * w, th.least_alpha(colour)))
            style = Qt.PenStyle.SolidLine if sign > 0 else Qt.PenStyle.DashLine
            item.setPen(pg.mkPen(colour, width=th.width(0.8 + 1.0 * w), style=style))
        if self._sizes is not None:
            self._place_nodes(self._sizes)
            if self._net is not None:
                self.show_network(self._net)
