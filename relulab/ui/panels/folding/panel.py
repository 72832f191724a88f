"""Folding: the tent map composed layer by layer, with certified piece counts.

Each layer of two ReLU neurons folds [0, 1] onto itself, so depth k gives 2^k
pieces from 2k neurons, where one hidden layer needs 2^k − 1. The pieces are
counted by the model (``piecewise_linear``), exact to depth 24 at peak ½ and as
deep as exact arithmetic allows at other peaks; a count that is not certified says
so. The plots keep every peak and valley visible at any depth: a deep tent is drawn
from its extremes per column (:mod:`relulab.model.pieces.envelope`), computed with the tent
on a worker.

Three :class:`~relulab.ui.worker.Worker` s keep the window answering: one for the
tent deeper than ``SYNC_DEPTH`` (the latest depth wins), one that fills the cache
of shallower tents while the panel is idle, and one for the compositions of the
user's fold (those can reach the knot budget slowly).
"""

from __future__ import annotations

import math
from collections import OrderedDict
from dataclasses import replace

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSizePolicy,
    QSlider,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from relulab.model.pieces.envelope import column_extremes
from relulab.model.pieces.folding import (
    FOLD_PRESETS,
    MAX_DEPTH,
    MAX_FOLD_NEURONS,
    PEAK_RANGE,
    Fold,
    FoldCounts,
    FoldingState,
    exact_tent_depth,
    fold_frame,
    tent_counts_formula,
    tent_network,
    tent_peak_value,
)
from relulab.model.pieces.piecewise import EXACT_KNOTS, PiecewiseLinear
from relulab.ui.items.band import Band
from relulab.ui.legend import Entry, KeyLabel
from relulab.ui.panels.base import Key, Panel, named, signals_blocked
from relulab.ui.panels.folding.jobs import (
    COLUMNS,
    LINE,
    SYNC_DEPTH,
    UNIT,
    TentResult,
    compute_tent,
    fold_messages,
    plain_count,
    sync_depth,
    warm_tents,
)
from relulab.ui.readout import Note, Readout
from relulab.ui.theme import current_theme
from relulab.ui.worker import Worker

#: Small plots of g^(1), g^(2), … (the last one always shows g^(k)).
LAYER_PLOTS = 8
#: The fold animation stops adding layers here: 4096 pieces already fill the plot.
ANIMATION_LAYERS = 12
#: A fold is watched: each layer turns over in FRAMES_PER_LAYER frames of FRAME_MS
#: (1.2 s), then rests HOLD_FRAMES (0.5 s) on its result before the next one.
FRAMES_PER_LAYER = 24
FRAME_MS = 50
HOLD_FRAMES = 10
PEAK_STEPS = 100  # the peak slider moves in steps of 0.01

TELGARSKY = (
    "<b>Why depth helps here.</b> Each layer of two neurons folds [0, 1] onto itself, so "
    "k layers (2k neurons) make 2<sup>k</sup> pieces; one hidden layer has at most one kink "
    "per neuron and needs 2<sup>k</sup> − 1. Telgarsky (2016): such sawtooth functions "
    "cannot even be <i>approximated</i> by shallow networks unless they are exponentially "
    "wide. <b>But</b> it is a result about specific functions, not a law: it does not say "
    "that every real task gains equally from depth."
)


def _sup(k: int) -> str:
    return f"g<sup>({k})</sup>"


def _readout(name: str, accessible: str, key: str, wrap: bool = True) -> Readout:
    return Readout(name, accessible, key, wrap=wrap, text_format=Qt.TextFormat.RichText)


def _plot(name: str, accessible: str, description: str) -> pg.PlotWidget:
    pw = named(pg.PlotWidget(), name, accessible, description=description)
    pw.setMenuEnabled(False)
    pw.hideButtons()
    return pw


def _extremes_per_pixel(curve: pg.PlotDataItem) -> None:
    """Draw dense curves as the min and max of each pixel column (pyqtgraph's
    "peak" downsampling), so every peak and valley stays visible at any depth.
    The factor 1 makes a chunk one pixel wide (pyqtgraph's default is 5 pixels'
    worth of samples, five times more points to draw for no visible gain)."""
    curve.opts["autoDownsampleFactor"] = 1.0
    curve.setDownsampling(auto=True, method="peak")


def _smooth_if_sparse(curve: pg.PlotDataItem, n_points: int, pen) -> None:
    """In the small plots a sawtooth near pixel size shows moiré; antialiasing
    fixes it and is cheap for thin lines and a few points per pixel. Denser
    curves become a min/max band anyway. (Smoothing the 2-pixel main curve costs
    hundreds of milliseconds, so it stays off there.) A smoothed line is one pixel
    wide: Qt draws wider antialiased lines fifty times slower (11 ms against 0.2 ms
    for 129 points), and the first picture of g^(6) and g^(7) froze the window."""
    # (the small plots are 100–200 pixels wide; their width is not known yet
    # when the panel first draws, so the limit is a number of points)
    smooth = n_points <= 200
    curve.opts["antialias"] = smooth
    if smooth:
        pen = pg.mkPen(pen)
        pen.setWidthF(1.0)
    curve.setPen(pen)


#: Pieces narrower than this many pixels are drawn with a thin line; narrower than
#: DENSE_PIXELS the curve is shown as the band it fills.
THIN_PIXELS = 6.0
DENSE_PIXELS = 2.0


class DenseCurve:
    """A curve that may have more pieces than the plot has pixels.

    While its pieces are at least DENSE_PIXELS wide on screen it is drawn as a line
    (thinner below THIN_PIXELS). Past that the teeth cannot be told apart: every pixel
    column holds a whole tooth, and a line would paint a solid block. The curve is then
    shown as what it is, the band it fills (its lowest and highest value in each pixel
    column, shaded) with a note of how many pieces each pixel holds; zooming in (the
    mouse wheel on the plot) brings the line back. ``curve`` keeps the data either way."""

    def __init__(self, plot: pg.PlotWidget, curve: pg.PlotDataItem, role: str, width: float,
                 explain: bool = True):
        self.plot, self.curve, self.role, self.width = plot, curve, role, width
        self.explain = explain  # the small plots have no room for the note
        # the band's edges are in the plot (without a pen) so that its auto range sees them
        self.low = pg.PlotCurveItem(pen=pg.mkPen(None))
        self.high = pg.PlotCurveItem(pen=pg.mkPen(None))
        # one vertical stroke per pixel column, from its lowest value to its highest:
        # filling the polygon between the two edges instead cost 45 ms a paint where
        # the edges zigzag (every scan line crosses hundreds of its edges)
        self.band = Band()
        self.band.setZValue(-1)
        for item in (self.low, self.high, self.band):
            plot.addItem(item)
        self.note = pg.TextItem("", anchor=(0.5, 0.5))
        plot.addItem(self.note, ignoreBounds=True)
        self.pieces = 0
        self.dense = False
        self._x = self._y = np.zeros(0)
        vb = plot.getPlotItem().getViewBox()
        vb.sigRangeChanged.connect(self._on_range)  # zoomed in or out
        vb.sigResized.connect(self._on_range)       # laid out, or the window resized

    def show(self, x: np.ndarray, y: np.ndarray, pieces: int) -> None:
        """Draw ``pieces`` pieces given by x, y (breakpoints or extremes per column)."""
        self._x, self._y, self.pieces = np.asarray(x, float), np.asarray(y, float), int(pieces)
        self.curve.setData(self._x, self._y)
        self._restyle()

    def clear(self) -> None:
        self.show(np.zeros(0), np.zeros(0), 0)

    def _on_range(self, *_args) -> None:
        if self._x.size:
            self._restyle()

    def pixels_per_piece(self) -> float:
        vb = self.plot.getPlotItem().getViewBox()
        (x0, x1), _ = vb.viewRange()
        width = vb.width() if vb.width() > 10 else 600.0  # not laid out yet: a typical width
        span = float(self._x[-1] - self._x[0]) if self._x.size > 1 else 0.0
        if self.pieces <= 0 or span <= 0:
            return np.inf
        shown = self.pieces * min(1.0, max(x1 - x0, 1e-300) / span)
        return width / max(shown, 1.0)

    def _restyle(self) -> None:
        theme = current_theme()
        px = self.pixels_per_piece()
        self.dense = px < DENSE_PIXELS
        self.curve.setVisible(not self.dense)
        for item in (self.band, self.low, self.high):
            item.setVisible(self.dense)
        self.note.setVisible(self.dense and self.explain)
        colour = theme.color(self.role)
        if not self.dense:
            pen = theme.pen(self.role, self.width if px >= THIN_PIXELS else 1.0)
            self.curve.setPen(pen)
            self.note.setText("")
            return
        vb = self.plot.getPlotItem().getViewBox()
        (x0, x1), (y0, y1) = vb.viewRange()
        # at least one column per pixel, so that the columns' strokes leave no gaps
        columns = int(max(16, min(4096, math.ceil(vb.width()) if vb.width() > 10 else 600)))
        # per pixel column, the lowest and highest value: at its two edges (the curve
        # between its points is straight) or at a point inside it
        x, y = self._x, self._y
        edges = np.linspace(max(x0, x[0]), min(x1, x[-1]), columns + 1)
        at_edges = np.interp(edges, x, y)
        low = np.minimum(at_edges[:-1], at_edges[1:])
        high = np.maximum(at_edges[:-1], at_edges[1:])
        first = np.searchsorted(x, edges)
        filled = np.flatnonzero(first[1:] > first[:-1])
        if filled.size:
            starts, end = first[filled], first[-1]
            low[filled] = np.minimum(low[filled], np.minimum.reduceat(y[:end], starts))
            high[filled] = np.maximum(high[filled], np.maximum.reduceat(y[:end], starts))
        middles = 0.5 * (edges[:-1] + edges[1:])
        self.low.setData(middles, low)
        self.high.setData(middles, high)
        # the shade of the colour at 43 % on the background, opaque: strokes that
        # share a pixel column do not darken it
        fill = QColor(colour)
        back = theme.color("background")
        share = 110 / 255
        fill.setRgbF(*(share * getattr(fill, c)() + (1 - share) * getattr(back, c)()
                       for c in ("redF", "greenF", "blueF")))
        # a stroke as wide as its column (cosmetic: in pixels), so columns meet; a
        # whole number of pixels (Qt's fast path: 1.002 pixels cost 100× more)
        column = max(1, round(vb.width() / columns)) if vb.width() > 10 else 1
        pen = pg.mkPen(fill, width=column)
        pen.setCapStyle(Qt.PenCapStyle.FlatCap)
        self.band.setData(np.repeat(middles, 2), np.column_stack([low, high]).ravel(),
                          pen=pen, connect="pairs")
        per = 1.0 / px
        self.note.setText(f"{plain_count(self.pieces)} pieces: about {per:,.0f} in each pixel "
                          "column, so the curve fills this band.\nScroll on the plot to zoom in "
                          "and see the teeth.")
        self.note.setColor(theme.color("foreground"))
        self.note.setFont(theme.font(9))
        background = theme.color("background")
        background.setAlpha(225)
        self.note.fill = pg.mkBrush(background)
        self.note.setTextWidth(max(80.0, vb.width() - 16))  # wrapped inside the plot
        self.note.setPos(0.5 * (x0 + x1), 0.5 * (y0 + y1))


class FoldingPanel(Panel):
    name = "folding"
    title = "Folding"
    summary = "the tent map composed layer by layer doubles the pieces each time; exact counts."
    state_class = FoldingState
    KEYS = (
        Key("]", "one layer deeper", "step_depth", (1,), name="deeper"),
        Key("[", "one layer shallower", "step_depth", (-1,), name="shallower"),
        Key("F", "play or stop the fold animation", "toggle_animation", name="fold"),
        Key("L", "the whole line or only [0, 1]", "whole_line.toggle", name="whole-line"),
    )
    primary_controls = ("folding-depth", "folding-play")
    lecture_hidden = ("folding-telgarsky",)

    def __init__(self, host=None, parent=None):
        super().__init__(host, parent)
        self._state = FoldingState()
        self._drag_before: FoldingState | None = None
        self._cache: OrderedDict[tuple[int, float], TentResult] = OrderedDict()
        self._deep: TentResult | None = None  # the latest deep tent (only one is kept)
        self._deep_wanted: tuple[int, float] | None = None  # what the tent worker computes
        self._warm_peak: float | None = None                # what the warm worker fills
        self._fold_cache: dict[int, PiecewiseLinear | str] = {}
        self._fold_error = ""
        self._closed = False
        self._finished_for = None  # (depth, peak, fold) whose counts finished() announced
        self._frames: list[tuple[int, float]] = []
        self._layer_shown: list = [None] * LAYER_PLOTS
        self._layer_blank: list = [None] * LAYER_PLOTS
        self._fold_series_shown = None
        self._frame_index = 0
        self._tent_worker = Worker("folding-tent", self)
        self._warm_worker = Worker("folding-warm", self)
        self._fold_worker = Worker("folding-fold", self)
        self._timer = QTimer(self)
        self._timer.setObjectName("folding-animation-timer")
        self._timer.setInterval(FRAME_MS)
        self._build()
        self._connect()
        self._sync_widgets()
        self._start_fold_work()
        self.apply_theme()  # styles the plots and draws them

    # -- building ------------------------------------------------------------
    def _title(self, pw: pg.PlotWidget, html: str, size: float = 11) -> None:
        self.theme.set_title(pw, html, size)

    def _build(self) -> None:
        outer = QHBoxLayout(self)
        outer.setContentsMargins(6, 6, 6, 6)
        outer.addWidget(self._build_controls())
        right = QVBoxLayout()
        right.addLayout(self._build_readouts())
        right.addLayout(self._build_main_plots(), 5)
        right.addLayout(self._build_layers_and_chart(), 3)
        self.telgarsky = Note("folding-telgarsky", "Telgarsky's statement and its caveat",
                              TELGARSKY)
        self.telgarsky.setTextFormat(Qt.TextFormat.RichText)
        self.telgarsky.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        right.addWidget(self.telgarsky)
        outer.addLayout(right, 1)
        self._build_shortcuts()

    def _build_controls(self) -> QWidget:
        """Depth, peak, view and send buttons, then the user's fold (hidden in the
        lecture layout)."""
        controls = named(QWidget(), "folding-controls", "Folding controls")
        controls.setMaximumWidth(340)
        controls.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        c = QVBoxLayout(controls)
        c.setContentsMargins(0, 0, 0, 0)
        self.depth_label = _readout("folding-depth-label", "Depth", "depth", wrap=False)
        self.depth_slider = named(QSlider(Qt.Orientation.Horizontal), "folding-depth",
                                  "Depth: number of tent layers",
                                  "Layers of the tent network ( [ and ] step by one )")
        self.depth_slider.setRange(1, MAX_DEPTH)
        self.depth_slider.setPageStep(4)
        self.depth_slider.setTickPosition(QSlider.TickPosition.TicksBelow)
        self.depth_slider.setTickInterval(4)
        self.peak_label = _readout("folding-peak-label", "Peak", "peak", wrap=False)
        self.peak_slider = named(QSlider(Qt.Orientation.Horizontal), "folding-peak",
                                 "Peak of the tent", "Where the tent has its top: ½ is the "
                                 "symmetric tent")
        self.peak_slider.setRange(round(PEAK_RANGE[0] * PEAK_STEPS), round(PEAK_RANGE[1] * PEAK_STEPS))
        self.peak_slider.setPageStep(5)
        self.whole_line = named(QCheckBox("Whole line (not only [0, 1])"), "folding-whole-line",
                                "Show the whole line", "Shortcut: L")
        self.play = named(QPushButton("Fold ▶"), "folding-play", "Play the folding animation",
                          "Fold [0, 1] onto itself one layer at a time (F)")
        self.play.setCheckable(True)
        self.send = named(QPushButton("Send to Deep → shallow"), "folding-send",
                          "Send the tent network to the Deep to shallow panel",
                          "The converter builds the equal one-hidden-layer network")
        for w in (self.depth_label, self.depth_slider, self.play, self.peak_label,
                  self.peak_slider, self.whole_line, self.send):
            c.addWidget(w)
        c.addWidget(self._build_fold_box())
        c.addStretch(1)
        return controls

    def _build_fold_box(self) -> QGroupBox:
        box = named(QGroupBox("Your own fold u(x) = Σ aᵢ ReLU(wᵢ x + bᵢ) + c"),
                    "folding-fold-box", "Your own fold")
        f = QVBoxLayout(box)
        self.fold_preset = named(QComboBox(), "folding-fold-preset", "Fold preset")
        self.fold_preset.addItem("choose a preset…")
        self.fold_preset.addItems(list(FOLD_PRESETS))
        f.addWidget(self.fold_preset)
        self.fold_table = named(QTableWidget(0, 3), "folding-fold-table",
                                "Weights of your fold: w, b and a per neuron")
        self.fold_table.setHorizontalHeaderLabels(["w", "b", "a"])
        for j, tip in enumerate(("input weight wᵢ", "bias bᵢ", "output weight aᵢ")):
            self.fold_table.horizontalHeaderItem(j).setToolTip(tip)
        self.fold_table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.fold_table.verticalHeader().setDefaultSectionSize(24)
        self.fold_table.setMinimumHeight(100)
        self.fold_table.setMaximumHeight(170)
        f.addWidget(self.fold_table)
        row = QHBoxLayout()
        row.addWidget(QLabel("c (output bias)"))
        self.fold_c = named(QTableWidget(1, 1), "folding-fold-c", "Output bias c of your fold")
        self.fold_c.horizontalHeader().hide()
        self.fold_c.verticalHeader().hide()
        self.fold_c.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.fold_c.setFixedHeight(28)
        self.fold_c.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.fold_c.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        row.addWidget(self.fold_c)
        f.addLayout(row)
        row = QHBoxLayout()
        self.fold_add = named(QPushButton("Add neuron"), "folding-fold-add",
                              "Add a neuron to your fold")
        self.fold_remove = named(QPushButton("Remove last"), "folding-fold-remove",
                                 "Remove the last neuron of your fold")
        row.addWidget(self.fold_add)
        row.addWidget(self.fold_remove)
        f.addLayout(row)
        self.fold_show = named(QCheckBox("Show u composed k times"), "folding-fold-show",
                               "Show your fold composed k times")
        self.fold_error = _readout("folding-fold-error", "Problem with your fold", "fold_error")
        self.fold_send = named(QPushButton("Send your fold to Deep → shallow"),
                               "folding-fold-send", "Send your composed fold to the converter")
        for w in (self.fold_show, self.fold_error, self.fold_send):
            f.addWidget(w)
        return box

    def _build_readouts(self) -> QGridLayout:
        self.count_label = _readout("folding-count", "Piece count", "pieces")
        self.neurons_label = _readout("folding-neurons", "Neurons used against one hidden layer",
                                      "neurons")
        self.fold_count_label = _readout("folding-fold-count", "Counts of your fold",
                                         "fold_pieces")
        self.precision_label = _readout("folding-precision", "Precision note", "precision_note")
        self.status_label = _readout("folding-status", "Computation status", "status", wrap=False)
        # its line stays when it is empty: showing and hiding it moved the plots, which
        # then repainted, and the band of a deep tent was computed again (16 million
        # pieces: 40 ms on the GUI thread, as a deep result arrived)
        self._lecture_layout = False
        grid = QGridLayout()
        grid.addWidget(self.count_label, 0, 0)
        grid.addWidget(self.neurons_label, 0, 1)
        grid.addWidget(self.fold_count_label, 1, 0)
        grid.addWidget(self.precision_label, 1, 1)
        grid.addWidget(self.status_label, 2, 0, 1, 2)
        grid.setColumnStretch(0, 1)
        grid.setColumnStretch(1, 1)
        grid.setHorizontalSpacing(24)  # the two columns' sentences must not run together
        return grid

    def _build_main_plots(self) -> QHBoxLayout:
        top = QHBoxLayout()
        self.plot = _plot("folding-plot", "The tent network composed k times",
                          "The tent map composed k times, g^(k)(x), on [0, 1] or the whole line: "
                          "each layer of two neurons folds [0, 1] onto itself, so k layers make "
                          "2^k pieces. A deep tent is drawn from its extremes per pixel column.")
        self.curve = self.plot.plot()
        _extremes_per_pixel(self.curve)
        self.curve.setClipToView(True)
        self.tent_view = DenseCurve(self.plot, self.curve, "approx", 2.0)
        top.addWidget(self.plot, 3)
        self.fold_plot = _plot("folding-fold-plot", "Your fold composed k times",
                               "Your fold u composed k times, u^(k)(x), on the same range as "
                               "the tent.")
        self.fold_curve = self.fold_plot.plot()
        _extremes_per_pixel(self.fold_curve)
        self.fold_curve.setClipToView(True)
        self.fold_view = DenseCurve(self.fold_plot, self.fold_curve, "second", 1.6)
        top.addWidget(self.fold_plot, 2)
        return top

    def _build_layers_and_chart(self) -> QHBoxLayout:
        bottom = QHBoxLayout()
        strip = named(QWidget(), "folding-layers", "Small plots of the tent after each layer")
        grid = QGridLayout(strip)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setSpacing(2)
        self.layer_plots: list[pg.PlotWidget] = []
        self.layer_curves = []
        self.layer_views: list[DenseCurve] = []
        for i in range(LAYER_PLOTS):
            pw = _plot(f"folding-layer-{i + 1}", f"Small plot {i + 1} of the layers",
                       "The tent after one of the first layers on [0, 1].")
            pw.setMinimumSize(60, 60)
            pw.getPlotItem().hideAxis("left")
            pw.getPlotItem().hideAxis("bottom")
            pw.setMouseEnabled(False, False)
            curve = pw.plot()
            _extremes_per_pixel(curve)
            self.layer_plots.append(pw)
            self.layer_curves.append(curve)
            self.layer_views.append(DenseCurve(pw, curve, "approx", 1.2, explain=False))
            grid.addWidget(pw, i // 4, i % 4)
        bottom.addWidget(strip, 3)
        self.chart = _plot("folding-chart", "Pieces against neurons, deep against shallow",
                           "Log-log chart of pieces against neurons: k tent layers (2k neurons, "
                           "2^k pieces) against one hidden layer (m neurons, m + 1 pieces at "
                           "most), your fold, and circles at the depth shown.")
        self.chart.setLogMode(x=True, y=True)
        self.chart.setMouseEnabled(False, False)
        # the key beside the chart, not on it: a legend on so small a plot hid the
        # one-layer diagonal and, at a projector's zoom, was cut off at the top; under
        # it, the key's line took the height the chart needs
        self.chart_key = KeyLabel(
            "folding-chart-key", "Key of the pieces-against-neurons chart",
            [Entry("approx", "●", "deep (k layers)"), Entry("accent", "‒ ‒", "one layer"),
             Entry("second", "■", "your fold"), Entry("muted", "○", "depth shown")],
            one_per_line=True)
        self.chart_key.setAlignment(Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft)
        self.deep_series = self.chart.plot()
        self.shallow_series = self.chart.plot()
        self.fold_series = self.chart.plot()
        self.match_line = self.chart.plot()
        self.deep_marker = self.chart.plot()
        self.shallow_marker = self.chart.plot()
        bottom.addWidget(self.chart, 2)
        bottom.addWidget(self.chart_key)
        return bottom

    def _build_shortcuts(self) -> None:
        """Panel shortcuts: only while this panel has focus somewhere inside it."""
        self.make_keys()

    def _connect(self) -> None:
        self.depth_slider.sliderPressed.connect(self._on_slider_pressed)
        self.peak_slider.sliderPressed.connect(self._on_slider_pressed)
        self.depth_slider.valueChanged.connect(self._on_depth_slider)
        self.peak_slider.valueChanged.connect(self._on_peak_slider)
        self.depth_slider.sliderReleased.connect(self._on_slider_released)
        self.peak_slider.sliderReleased.connect(self._on_slider_released)
        self.whole_line.toggled.connect(
            lambda on: self.commit(replace(self._state, whole_line=on), "whole line"))
        self.fold_show.toggled.connect(
            lambda on: self.commit(replace(self._state, show_fold=on), "show your fold"))
        self.play.toggled.connect(self._on_play)
        self.send.clicked.connect(self.send_tent)
        self.fold_send.clicked.connect(self.send_fold)
        self.fold_preset.activated.connect(self._on_preset)
        self.fold_table.itemChanged.connect(self._on_fold_edited)
        self.fold_c.itemChanged.connect(self._on_fold_edited)
        self.fold_add.clicked.connect(self.add_fold_neuron)
        self.fold_remove.clicked.connect(self.remove_fold_neuron)
        self._timer.timeout.connect(self._animation_tick)
        self._tent_worker.finished.connect(self._on_deep_tent)
        self._tent_worker.failed.connect(self._on_deep_failed)
        self._warm_worker.progress.connect(self._on_warm_tent)
        self._fold_worker.progress.connect(self._on_fold_composed)
        self._fold_worker.failed.connect(self._on_fold_failed)

    # -- state ---------------------------------------------------------------
    def apply_state(self, state: FoldingState) -> None:
        self._stop_animation()
        fold_changed = state.fold != self._state.fold
        self._state = state
        if fold_changed:
            self._fold_error = ""
            self._start_fold_work()
        self._sync_widgets()
        self._refresh()

    def _set_live(self, state: FoldingState) -> None:
        """Show ``state`` during a slider drag without an undo step yet."""
        self._stop_animation()
        self._state = state
        self._sync_widgets()
        self._refresh()

    def _sync_widgets(self) -> None:
        s = self._state
        with signals_blocked(self.depth_slider, self.peak_slider, self.whole_line,
                             self.fold_show, self.fold_table, self.fold_c):
            self.depth_slider.setValue(s.depth)
            self.peak_slider.setValue(round(s.peak * PEAK_STEPS))
            self.whole_line.setChecked(s.whole_line)
            self.fold_show.setChecked(s.show_fold)
            fold = s.fold
            self.fold_table.setRowCount(fold.n_neurons)
            for i in range(fold.n_neurons):
                for j, v in enumerate((fold.w[i], fold.b[i], fold.a[i])):
                    self.fold_table.setItem(i, j, QTableWidgetItem(f"{v:g}"))
            self.fold_table.setVerticalHeaderLabels([f"neuron {i + 1}" for i in range(fold.n_neurons)])
            self.fold_c.setItem(0, 0, QTableWidgetItem(f"{fold.c:g}"))
        layers = "layer" if s.depth == 1 else "layers"
        self.depth_label.set_value(s.depth, f"Depth k = <b>{s.depth}</b> {layers} of 2 neurons")
        self.peak_label.set_value(s.peak, f"Peak p = <b>{s.peak:.2f}</b>")
        self.fold_add.setEnabled(s.fold.n_neurons < MAX_FOLD_NEURONS)
        self.fold_remove.setEnabled(s.fold.n_neurons > 1)

    # -- user actions ----------------------------------------------------------
    def set_depth(self, depth: int) -> None:
        self.commit(replace(self._state, depth=int(min(max(depth, 1), MAX_DEPTH))),
                    f"depth {depth}")

    def step_depth(self, step: int) -> None:
        self.set_depth(self._state.depth + step)

    def set_peak(self, peak: float) -> None:
        lo, hi = PEAK_RANGE
        self.commit(replace(self._state, peak=round(min(max(peak, lo), hi), 2)), f"peak {peak:.2f}")

    def set_fold(self, fold: Fold, text: str = "edit your fold") -> None:
        """Show ``fold``; one outside what a scene may hold (weights beyond ±FOLD_LIMIT)
        raises ValueError and changes nothing."""
        self.commit(replace(self._state, fold=fold), text)

    def add_fold_neuron(self) -> None:
        f = self._state.fold
        if f.n_neurons < MAX_FOLD_NEURONS:
            self.set_fold(Fold((*f.w, 1.0), (*f.b, -1.0), (*f.a, 0.0), f.c), "add a neuron")

    def remove_fold_neuron(self) -> None:
        f = self._state.fold
        if f.n_neurons > 1:
            self.set_fold(Fold(f.w[:-1], f.b[:-1], f.a[:-1], f.c), "remove a neuron")

    def send_tent(self) -> bool:
        """Hand the current tent network to the Deep → shallow panel."""
        return self._send(tent_network(self._state.depth, self._state.peak))

    def send_fold(self) -> bool:
        """Hand your fold composed k times to the Deep → shallow panel."""
        return self._send(self._state.fold.network(self._state.depth))

    def _send(self, net) -> bool:
        sent = self.send_to("converter", "network", net)
        if not sent:
            self._set_status("Open the main window to send the network to Deep → shallow."
                             if self.host is None else
                             "The Deep → shallow panel did not take the network.")
        return sent

    def _on_slider_pressed(self) -> None:
        self._drag_before = self._state

    def _on_slider_released(self) -> None:
        if self._drag_before is not None:
            after, self._state = self._state, self._drag_before
            self._drag_before = None
            self.commit(after, f"depth {after.depth}, peak {after.peak:.2f}")

    def _slider_dragging(self) -> bool:
        return self.depth_slider.isSliderDown() or self.peak_slider.isSliderDown()

    def _on_depth_slider(self, value: int) -> None:
        if self._slider_dragging():
            self._set_live(replace(self._state, depth=value))
        else:
            self.set_depth(value)

    def _on_peak_slider(self, value: int) -> None:
        peak = value / PEAK_STEPS
        if self._slider_dragging():
            self._set_live(replace(self._state, peak=peak))
        else:
            self.set_peak(peak)

    def _on_preset(self, index: int) -> None:
        if index <= 0:
            return
        name = self.fold_preset.itemText(index)
        self.fold_preset.setCurrentIndex(0)
        self.set_fold(FOLD_PRESETS[name], f"fold preset: {name}")

    def _on_fold_edited(self, item: QTableWidgetItem) -> None:
        """Parse the edited cell; a bad number is reported and the cell restored."""
        f = self._state.fold
        if item.tableWidget() is self.fold_c:
            field, row = "c", 0
        else:
            field, row = ("w", "b", "a")[item.column()], item.row()
        where = "c (output bias)" if field == "c" else f"{field} of neuron {row + 1}"
        kept = f.c if field == "c" else getattr(f, field)[row]
        try:
            value = float(item.text().strip().replace("−", "-"))
            if field == "c":
                new = Fold(f.w, f.b, f.a, value)
            else:
                values = {k: list(getattr(f, k)) for k in ("w", "b", "a")}
                values[field][row] = value
                new = Fold(c=f.c, **values)
            state = replace(self._state, fold=new)
        except ValueError as e:
            problem = ("is not a finite number" if "finite" in str(e) or "could not" in str(e)
                       else f"is refused ({str(e).removeprefix('fold: ')})")
            self._fold_error = f"{where}: “{item.text()}” {problem}; kept {kept:g}."
            self._sync_widgets()
            self._update_fold_readout()
            return
        self._fold_error = ""
        self.commit(state, f"set {where} to {value:g}")

    # -- computing -------------------------------------------------------------
    def _tent(self, depth: int, peak: float) -> TentResult | None:
        """The tent's exact pieces: at once for shallow depths, else the worker's
        latest result (None while it computes)."""
        key = (depth, peak)
        if key in self._cache:
            self._cache.move_to_end(key)
            return self._cache[key]
        if depth <= sync_depth(peak):
            self._remember(compute_tent(depth, peak))
            return self._cache[key]
        if self._deep is not None and (self._deep.depth, self._deep.peak) == key:
            return self._deep
        if self._deep_wanted != key:
            self._deep = None  # free its memory before the next one is built
            self._deep_wanted = key
            self._tent_worker.submit(lambda should_stop: compute_tent(depth, peak, should_stop))
        return None

    def _forget_deep_request(self) -> None:
        """The deep tent being computed is no longer wanted: stop it now."""
        if self._deep_wanted is not None:
            self._tent_worker.cancel()
            self._deep_wanted = None

    def _remember(self, result: TentResult) -> None:
        self._cache[(result.depth, result.peak)] = result
        while len(self._cache) > 4 * SYNC_DEPTH:
            self._cache.popitem(last=False)

    def _on_deep_tent(self, result: TentResult) -> None:
        self._deep, self._deep_wanted = result, None
        self._refresh()

    def _on_deep_failed(self, exc: Exception) -> None:
        self._deep_wanted = None
        self._set_status(f"Could not compute {_sup(self._state.depth)}: {exc}")
        self._say_if_finished()

    def _start_warm_work(self) -> None:
        """Fill the cache for every depth up to SYNC_DEPTH at the current peak, so that
        later slider steps only redraw."""
        peak = self._state.peak
        missing = [d for d in range(1, sync_depth(peak) + 1) if (d, peak) not in self._cache]
        if not missing or self._closed or (self._warm_worker.busy and self._warm_peak == peak):
            return
        self._warm_peak = peak
        self._warm_worker.submit(lambda should_stop: warm_tents(missing, peak, should_stop))

    def _on_warm_tent(self, result: TentResult) -> None:
        if (result.depth, result.peak) in self._cache:
            return
        self._remember(result)
        if result.peak == self._state.peak and result.depth in self._layer_depths():
            self._draw_layers(self._tent(self._state.depth, self._state.peak)
                              if self._state.depth <= sync_depth(self._state.peak) else self._deep)

    def _start_fold_work(self) -> None:
        self._fold_cache = {}
        if self._closed:
            return
        fold = self._state.fold
        self._fold_worker.submit(lambda should_stop: fold_messages(fold, should_stop))

    def _on_fold_composed(self, message) -> None:
        fold, depth, pieces = message
        if fold != self._state.fold:
            return
        self._fold_cache[depth] = pieces
        if depth <= self._state.depth and not self._timer.isActive():
            a, b = self._view_range()
            if depth == self._state.depth:
                self._draw_fold(a, b)
            self._draw_chart()
            self._say_if_finished()

    def _on_fold_failed(self, exc: Exception) -> None:
        """A composition that raised (a bug, not a budget): every depth not composed
        yet says so, and the panel goes on."""
        for depth in range(1, MAX_DEPTH + 1):
            self._fold_cache.setdefault(depth, f"not computed ({type(exc).__name__}: {exc})")
        a, b = self._view_range()
        self._draw_fold(a, b)
        self._draw_chart()
        self._say_if_finished()

    def _say_if_finished(self) -> None:
        """``finished("counts")``, once per change of depth, peak or fold, when the tent
        and your fold at the depth shown are counted (or why not is said)."""
        s = self._state
        shown = (s.depth, s.peak, s.fold)
        if (self._closed or self.computing() or self._timer.isActive()
                or shown == self._finished_for):
            return
        self._finished_for = shown
        self.finished.emit("counts")

    def warmed_up(self) -> bool:
        """True once every depth up to SYNC_DEPTH is cached for the current peak and
        the user's fold is composed as far as it goes."""
        return not (self._warm_worker.busy or self._fold_worker.busy)

    def computing(self) -> bool:
        """True while the tent or the fold on screen is being computed in the background."""
        return self._deep_wanted is not None or self._state.depth not in self._fold_cache

    def _fold_pieces(self, depth: int) -> tuple[PiecewiseLinear, FoldCounts] | str | None:
        """The user's fold composed ``depth`` times and its counts, why it was not
        computed, or None while the worker computes it."""
        return self._fold_cache.get(depth)

    # -- drawing -----------------------------------------------------------------
    def _view_range(self) -> tuple[float, float]:
        return LINE if self._state.whole_line else UNIT

    def _set_status(self, text: str) -> None:
        self.status_label.setText(text)
        self.status_label.setVisible(bool(text))

    def _refresh(self) -> None:
        if self._closed:
            return
        self._start_warm_work()
        if self._timer.isActive():
            return  # the animation owns the main curve until it ends
        s = self._state
        if s.depth <= sync_depth(s.peak):
            self._forget_deep_request()
        result = self._tent(s.depth, s.peak)
        a, b = self._view_range()
        where = "on the whole line" if s.whole_line else "on [0, 1]"
        self._title(self.plot, f"{_sup(s.depth)}(x) {where}, peak p = {s.peak:.2f}")
        if result is None:
            self._set_status(f"Computing the exact kinks of {_sup(s.depth)} "
                             f"({plain_count(2 ** s.depth)} pieces)…")
        else:
            self._set_status("")
            x, y = result.curve((a, b))
            c = result.counts
            self.tent_view.show(x, y, c.kinks_line + 1 if s.whole_line else c.pieces_unit)
            # on [0, 1] every tent stays in [0, 1]; on the line depth 1 goes below 0
            low = min(0.0, float(y.min())) if s.whole_line else 0.0
            self.plot.setYRange(low, 1.0, padding=0.04)
        self.plot.setXRange(a, b, padding=0.02)
        self._draw_fold(a, b)
        self._update_readouts(result)
        self._draw_layers(result)
        self._draw_chart()
        self._say_if_finished()

    def _draw_fold(self, a: float, b: float) -> None:
        s = self._state
        self.fold_plot.setVisible(s.show_fold)
        if s.show_fold:
            fold = self._fold_pieces(s.depth)
            if isinstance(fold, tuple):
                x, y = column_extremes(fold[0], a, b, COLUMNS)
                c = fold[1]
                self.fold_view.show(x, y, c.kinks_line + 1 if s.whole_line else c.pieces_unit)
            else:
                self.fold_view.clear()
            note = {str: ": not computed", type(None): ": computing…"}.get(type(fold), "")
            self._title(self.fold_plot, f"your fold u<sup>({s.depth})</sup>(x){note}")
            self.fold_plot.setXRange(a, b, padding=0.02)
            self.fold_plot.enableAutoRange(axis="y")
        self._update_fold_readout()

    def _update_fold_readout(self) -> None:
        s = self._state
        self.fold_error.setText(self._fold_error)
        self.fold_count_label.setVisible(s.show_fold)  # about a fold that is not shown
        fold = self._fold_pieces(s.depth)
        if fold is None:
            self.fold_count_label.set_value(None, f"Your fold u<sup>({s.depth})</sup>: computing…")
            return
        if isinstance(fold, str):
            self.fold_count_label.set_value(None, f"Your fold u<sup>({s.depth})</sup>: {fold}")
            return
        counts = fold[1]
        self.fold_count_label.set_value(
            int(counts.pieces_unit),
            f"Your fold u<sup>({s.depth})</sup>: <b>{plain_count(counts.pieces_unit)}</b> pieces "
            f"on [0, 1], {plain_count(counts.kinks_line)} kinks on the line; "
            f"{counts.neurons} neurons")

    def _update_readouts(self, result: TentResult | None) -> None:
        s = self._state
        pieces, kinks = tent_counts_formula(s.depth)
        if result is None:
            self.count_label.set_value(None, f"{_sup(s.depth)}: computing… (theory: "
                                     f"{plain_count(pieces)} pieces on [0, 1])")
        else:
            c = result.counts
            self.count_label.set_value(
                int(c.pieces_unit),
                f"{_sup(s.depth)}: <b>{plain_count(c.pieces_unit)}</b> pieces on [0, 1]; "
                f"{plain_count(c.kinks_line)} kinks on the whole line "
                + ("(exact)" if c.exact else "(floating point only, not certified)"))
        self.neurons_label.set_value(
            2 * s.depth,
            f"<b>{2 * s.depth}</b> neurons in {s.depth} layer{'s' if s.depth > 1 else ''}; "
            f"one hidden layer needs <b>{plain_count(2 ** s.depth - 1)}</b>")
        notes = []
        if result is not None and not result.counts.exact:
            notes.append(f"At peak {s.peak:.2f}, depth {s.depth} is beyond exact arithmetic "
                         f"here: 1/p is not a double, so doubles cannot certify the kinks, and "
                         f"exact rationals would need more than {plain_count(EXACT_KNOTS)} "
                         f"knots. Exact to depth {exact_tent_depth(s.peak)} at this peak.")
        if (result is not None and result.counts.exact
                and (result.counts.pieces_unit, result.counts.kinks_line) != (pieces, kinks)):
            high, _ = tent_peak_value(s.peak)
            why = (f"its weights are doubles, so its top is 1 {'+' if high > 0 else '−'} "
                   f"{abs(float(high)):.1e} and values above 1 fold once more"
                   if high != 0 else "its weights are doubles near 1/p")
            notes.append(f"The ideal tent has {plain_count(pieces)} pieces on [0, 1] and "
                         f"{plain_count(kinks)} kinks; this network differs: {why}.")
        self.precision_label.setText(" ".join(notes))
        self.precision_label.setVisible(bool(notes))  # an empty row is room lost

    def _layer_depths(self) -> list[int]:
        k = self._state.depth
        if k <= LAYER_PLOTS:
            return list(range(1, k + 1))
        return [*list(range(1, LAYER_PLOTS)), k]

    def _draw_layers(self, current: TentResult | None) -> None:
        """Small plots of g^(1), g^(2), …; only the ones whose content changed are
        touched, so a slider step repaints one small plot, not eight."""
        s = self._state
        depths = self._layer_depths()
        for i, (pw, curve) in enumerate(zip(self.layer_plots, self.layer_curves)):
            if i >= len(depths):
                if self._layer_shown[i] is not None:
                    self.layer_views[i].clear()
                    self._title(pw, "", 9)
                    self._layer_shown[i] = None
                self._blank_layer(i, True)
                continue
            self._blank_layer(i, False)
            j = depths[i]
            result = current if j == s.depth else self._tent(j, s.peak)
            shown = (j, s.peak, result is not None, self.theme.zoom)
            if self._layer_shown[i] == shown:
                continue
            self._layer_shown[i] = shown
            dots = "… " if i == LAYER_PLOTS - 1 and j != i + 1 else ""
            self._title(pw, f"{dots}{_sup(j)}", 9)
            pw.setXRange(0, 1, padding=0.02)
            pw.setYRange(0, 1, padding=0.05)
            view = self.layer_views[i]
            if result is None:
                view.clear()
            else:
                x, y = result.curve(UNIT)
                view.show(x, y, result.counts.pieces_unit)
                if not view.dense:
                    _smooth_if_sparse(curve, x.size, self._layer_pen)

    def _blank_layer(self, i: int, blank: bool) -> None:
        """An unused small plot is blank in the window's colour instead of hidden:
        showing hidden plots again (depth 4 to 24 in one step) laid out and resized
        them, 28 ms, and the window then repainted every plot."""
        if self._layer_blank[i] == blank:
            return
        self._layer_blank[i] = blank
        pw = self.layer_plots[i]
        pw.setBackground(self.theme.color("window" if blank else "background"))
        pw.setAccessibleDescription("Not used at this depth." if blank else
                                    "The tent after one of the first layers on [0, 1].")

    def _draw_chart_series(self) -> None:
        """The two fixed curves: 2k neurons → 2^k pieces, and m neurons → m + 1."""
        k = np.arange(1, MAX_DEPTH + 1)
        self.deep_series.setData(2.0 * k, 2.0 ** k)
        m = np.unique(np.round(np.logspace(0, np.log10(2.0 ** MAX_DEPTH), 60)))
        self.shallow_series.setData(m, m + 1)
        self._title(self.chart, "pieces against neurons", 10)
        top = np.log10(2.0 ** MAX_DEPTH)  # log-log: the view is in decades
        self.chart.setXRange(0, top, padding=0.03)
        self.chart.setYRange(0, top, padding=0.03)

    def _draw_chart(self) -> None:
        s = self._state
        n_deep, pieces = 2 * s.depth, 2.0 ** s.depth
        self.deep_marker.setData([n_deep], [pieces])
        self.shallow_marker.setData([pieces - 1 if pieces > 1 else 1], [pieces])
        self.match_line.setData([n_deep, max(pieces - 1, 1)], [pieces, pieces])
        # the user's fold: pieces on [0, 1] for every depth computed so far
        xs, ys = [], []
        if s.show_fold:
            for j in range(1, s.depth + 1):
                fold = self._fold_pieces(j)
                if not isinstance(fold, tuple):
                    break
                xs.append(j * s.fold.n_neurons)
                ys.append(fold[1].pieces_unit)
        if (xs, ys) != self._fold_series_shown:
            self._fold_series_shown = (xs, ys)
            self.fold_series.setData(xs, ys)


    # -- animation -----------------------------------------------------------------
    def _animation_plan(self, max_frames: int | None = None) -> list[tuple[int, float]]:
        """(layer, share folded) per frame; the live animation rests on each finished
        layer, an export (``max_frames``) spends its frames on the folding."""
        layers = min(self._state.depth, ANIMATION_LAYERS, sync_depth(self._state.peak))
        steps, hold = FRAMES_PER_LAYER, HOLD_FRAMES
        if max_frames is not None:
            steps, hold = max(2, min(steps, max_frames // layers)), 0
        return [(layer, min(i, steps - 1) / (steps - 1)) for layer in range(1, layers + 1)
                for i in range(steps + hold)]

    def _show_frame(self, layer: int, s: float) -> None:
        peak = self._state.peak
        before = None if layer == 1 else self._tent(layer - 1, peak)
        after = self._tent(layer, peak)
        x, y = fold_frame(None if before is None else before.pl, after.pl, s)
        self.tent_view.show(x, y, max(1, len(x) - 1))
        self.plot.setXRange(0, 1, padding=0.02)
        self._title(self.plot, f"folding: {_sup(layer - 1)} → {_sup(layer)} ({round(100 * s)} %)")
        self._set_status(f"Layer {layer}: the part above p = {peak:.2f} turns over, "
                                  "the part below stretches.")

    def _stop_animation(self) -> None:
        """A change of depth, peak or fold ends a running animation."""
        if self._timer.isActive():
            self._timer.stop()
            with signals_blocked(self.play):
                self.play.setChecked(False)
            self.play.setText("Fold ▶")
            self._set_status("")

    def toggle_animation(self) -> None:
        self.play.toggle()

    def _on_play(self, on: bool) -> None:
        if on:
            self._frames = self._animation_plan()
            self._frame_index = 0
            self.play.setText("Stop ■")
            self._timer.start()
        else:
            self._timer.stop()
            self.play.setText("Fold ▶")
            self._set_status("")
            self._refresh()

    def _animation_tick(self) -> None:
        if self._frame_index >= len(self._frames):
            self.play.setChecked(False)  # ends the animation and redraws g^(k)
            return
        self._show_frame(*self._frames[self._frame_index])
        self._frame_index += 1

    def animation_running(self) -> bool:
        return self._timer.isActive()

    def animation_frames(self, max_frames: int = 120):
        """Folding [0, 1] one layer at a time, one yield per frame (for GIF export)."""
        self.play.setChecked(False)
        try:
            for layer, s in self._animation_plan(max_frames)[:max_frames]:
                self._show_frame(layer, s)
                yield
        finally:
            self._refresh()

    # -- hooks ---------------------------------------------------------------------
    def readouts(self) -> dict:
        """The readouts, and beside the piece count: ``kinks`` (on the whole line),
        ``exact`` (True when the counts are certified), ``shallow_neurons`` (what one
        hidden layer needs: 2^k − 1) and ``fold_kinks``; None while computing."""
        values = super().readouts()
        s = self._state
        result = self._cache.get((s.depth, s.peak), self._deep)  # asks for nothing new
        current = result is not None and (result.depth, result.peak) == (s.depth, s.peak)
        fold = self._fold_pieces(s.depth)
        values.update(kinks=int(result.counts.kinks_line) if current else None,
                      exact=bool(result.counts.exact) if current else None,
                      shallow_neurons=2 ** s.depth - 1,
                      fold_kinks=int(fold[1].kinks_line) if isinstance(fold, tuple) else None)
        return values

    def plots(self) -> dict:
        plots = {"main": self.plot, "fold": self.fold_plot, "chart": self.chart}
        for i, pw in enumerate(self.layer_plots):
            if not self._layer_blank[i]:  # an unused one is blank, not a plot to read
                plots[f"layer-{i + 1}"] = pw
        return plots

    def data_tables(self) -> dict:
        s = self._state
        rows = []
        for j in range(1, s.depth + 1):
            pieces, kinks = tent_counts_formula(j)
            exact = self._cache.get((j, s.peak))
            deep = self._deep
            if exact is None and deep is not None and (deep.depth, deep.peak) == (j, s.peak):
                exact = self._deep
            if exact is not None:
                pieces, kinks = exact.counts.pieces_unit, exact.counts.kinks_line
            source = ("formula" if exact is None else "exact" if exact.counts.exact
                      else "floating point")
            rows.append([j, 2 * j, pieces, kinks, pieces - 1, source])
        tables = {"counts": (["depth", "neurons", "pieces on [0, 1]", "kinks on the line",
                              "neurons in one hidden layer", "source"], rows)}
        result = self._tent(s.depth, s.peak) if s.depth <= sync_depth(s.peak) else self._deep
        if result is not None and (result.depth, result.peak) == (s.depth, s.peak):
            table = result.kink_table()
            n = len(table)
            name = "kinks" if n == result.n_kinks else f"kinks (first {n} of {result.n_kinks})"
            tables[name] = (["x", "g(x)", "slope to the right"], table.tolist())
        return tables

    def _reserve_lines(self) -> None:
        """The counts (and what is said of your fold) wrap onto a second line at great
        depths, and the status line comes and goes with deep computations: their room
        is kept, so a deep result does not move (and repaint) every plot below. Not in
        the lecture layout, where a projector's height goes to the plots."""
        keep = not self._lecture_layout
        two_lines = 2 * self.count_label.fontMetrics().lineSpacing() if keep else 0
        for label in (self.count_label, self.neurons_label, self.fold_count_label):
            label.setMinimumHeight(two_lines)
        policy = self.status_label.sizePolicy()
        policy.setRetainSizeWhenHidden(keep)
        self.status_label.setSizePolicy(policy)

    def set_lecture_layout(self, on: bool) -> None:
        super().set_lecture_layout(on)
        self._lecture_layout = on
        self._reserve_lines()

    def apply_theme(self) -> None:
        t = self.theme
        self.findChild(QWidget, "folding-controls").setMaximumWidth(int(330 * t.zoom))
        self._reserve_lines()
        self.telgarsky.setFont(t.font(9))
        t.style_plot(self.plot)
        # no grid behind the sawtooth: the curve fills the plot anyway, and the
        # translucent grid lines cost more to paint than the curve (slider budget)
        self.plot.getPlotItem().showGrid(x=False, y=False)
        self.plot.setLabel("bottom", "x")
        self.plot.setLabel("left", "g(x)")
        for view in (self.tent_view, self.fold_view):
            view.curve.setPen(t.pen(view.role, view.width))
        t.style_plot(self.fold_plot)
        self.fold_plot.getPlotItem().showGrid(x=False, y=False)
        self.fold_plot.setLabel("bottom", "x")
        self.fold_plot.setLabel("left", "u(x)")

        for pw, curve in zip(self.layer_plots, self.layer_curves):
            t.style_plot(pw)
            pw.getPlotItem().showGrid(x=False, y=False)
            curve.setPen(t.pen("approx", 1.2))
        self._layer_pen = t.pen("approx", 1.2)
        self._layer_shown = [None] * LAYER_PLOTS
        self._layer_blank = [None] * LAYER_PLOTS  # styled again: blank or not, decided anew
        t.style_plot(self.chart)
        self.chart.setLabel("bottom", "neurons")
        self.chart.setLabel("left", "pieces")
        self.deep_series.setPen(t.pen("approx", 2.0))
        self.deep_series.setSymbol("o")
        self.deep_series.setSymbolSize(t.width(5))
        self.deep_series.setSymbolBrush(t.color("approx"))
        self.deep_series.setSymbolPen(None)
        self.shallow_series.setPen(t.pen("accent", 2.0, Qt.PenStyle.DashLine))
        self.fold_series.setPen(t.pen("second", 1.5, Qt.PenStyle.DotLine))
        self.fold_series.setSymbol("s")
        self.fold_series.setSymbolSize(t.width(5))
        self.fold_series.setSymbolBrush(t.color("second"))
        self.fold_series.setSymbolPen(None)
        self.match_line.setPen(t.pen("muted", 1.2, Qt.PenStyle.DotLine))
        for marker, role in ((self.deep_marker, "approx"), (self.shallow_marker, "accent")):
            marker.setPen(None)
            marker.setSymbol("o")
            marker.setSymbolSize(t.width(12))
            marker.setSymbolBrush(None)
            marker.setSymbolPen(t.pen(role, 2.5))
        self._draw_chart_series()
        self._refresh()

    def shutdown(self) -> None:
        if self._closed:  # called by the main window and again by tests
            return
        self._closed = True
        self._timer.stop()
        for worker in (self._tent_worker, self._warm_worker, self._fold_worker):
            worker.shutdown()
        self._deep = None
        self._cache.clear()
        super().shutdown()

