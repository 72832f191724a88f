"""The Deep → shallow panel: a deep ReLU network and its exactly equal shallow one.

Source: a random network with an editable architecture, a network sent by another
panel, the tent map, or a file (open or drop). 1-D input: deep and shallow curves
overlaid, their difference, the kink list and the verdict. 2-D input: the exact
region map (click a region for its affine map and constraints), the shallow
network's three layers and the verdict. Sizes side by side with Corollary 1's
bound. The state is :class:`relulab.model.converter.ConverterState`; the
conversion runs on a :class:`~relulab.ui.worker.Worker` (the latest request wins,
an earlier one stops at its next check).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPointF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QPolygonF
from PySide6.QtWidgets import (
    QComboBox, QFileDialog, QFormLayout, QGraphicsPolygonItem, QHBoxLayout, QHeaderView, QLabel,
    QLineEdit, QPushButton, QScrollArea, QSpinBox, QSplitter, QTableView, QVBoxLayout, QWidget,
)

from relulab.model.cancel import check
from relulab.model.converter import (
    MAX_SEED, MAX_TENT_DEPTH, SOURCES, ConverterState, network_problem, parse_architecture, tent,
)
from relulab.model.mlp import MLP
from relulab.ui.panels.base import Key, Panel, named, run_alone, signals_blocked
from relulab.ui.worker import Worker

SOURCE_LABELS = {"random": "Random network", "received": "From another panel",
                 "tent": "Tent map", "file": "File"}
VIEW_2D = (-3.0, 3.0, -3.0, 3.0)     # what the map shows first
DRAW_BOX = (-12.0, 12.0, -12.0, 12.0)  # polygons are clipped here, so panning shows more
CURVE_POINTS = 2001
REGION_ALPHA = 110
#: Regions take the first series colours in turn (the seventh, black or white, would
#: read as a hole in the map).
REGION_COLOURS = 6
NETWORK_SUFFIXES = (".json", ".npz", ".onnx")  # what relulab.io.networks reads


@dataclass
class Result:
    """Everything the view shows, computed off the GUI thread."""

    conversion: object                                   # relulab.model.shallow.Conversion
    verification: object                                # relulab.model.shallow.Verification
    polygons: list = field(default_factory=list)        # 2-D: RegionPolygon in the view box
    curve_x: np.ndarray | None = None                    # 1-D curves
    deep_y: np.ndarray | None = None
    shallow_y: np.ndarray | None = None
    kink_rows: np.ndarray | None = None                  # 1-D: (index, t, f(t), jump, |Δ|)
    lower_dimensional: int = 0


def compute(net: MLP, box=DRAW_BOX, should_stop=None) -> Result:
    """Convert, verify and prepare the pictures (model calls only; runs in a worker)."""
    from relulab.model.regions import regions_in_box
    from relulab.model.shallow import convert

    conv = convert(net, should_stop=should_stop)
    check(should_stop, "verifying")
    ver = conv.verify(should_stop=should_stop)
    check(should_stop, "drawing")
    res = Result(conv, ver)
    if conv.one_d is not None:
        t = conv.one_d.kinks
        lo, hi = (float(t.min()), float(t.max())) if len(t) else (-1.0, 1.0)
        pad = max(1.0, 0.25 * (hi - lo))
        x = np.linspace(lo - pad, hi + pad, CURVE_POINTS)
        x = np.sort(np.concatenate([x, t]))
        res.curve_x = x
        # the first output is drawn (a 1-D network usually has one)
        res.deep_y = np.asarray(net(x[:, None]), float).reshape(len(x), -1)[:, 0]
        res.shallow_y = np.asarray(conv.shallow(x[:, None]), float).reshape(len(x), -1)[:, 0]
        res.kink_rows = np.zeros((0, 5))
        if len(t):
            dt = np.asarray(net(t[:, None]), float).reshape(len(t), -1)
            st = np.asarray(conv.shallow(t[:, None]), float).reshape(len(t), -1)
            jumps = conv.one_d.jumps if len(conv.one_d.jumps) == len(t) else np.full(len(t), np.nan)
            res.kink_rows = np.column_stack([np.arange(1, len(t) + 1), t, dt[:, 0], jumps,
                                             np.abs(dt - st).max(axis=1)])
    else:
        res.lower_dimensional = sum(not r.is_full_dimensional() for r in conv.regions)
        if net.n_in == 2:
            res.polygons = regions_in_box(conv.regions, box)
    return res


class KinkTable(QAbstractTableModel):
    """The kink list as a table model: the rows are formatted when shown, so a
    network with thousands of kinks fills the table at once."""

    HEADERS = ("#", "t", "f(t)", "jump", "|Δ| at t")
    FORMATS = ("{:.0f}", "{:.5g}", "{:.4g}", "{:.3g}", "{:.0e}")

    def __init__(self, parent=None):
        super().__init__(parent)
        self.rows = np.zeros((0, 5))

    def set_rows(self, rows: np.ndarray) -> None:
        self.beginResetModel()
        self.rows = rows
        self.endResetModel()

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.HEADERS)

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if role == Qt.ItemDataRole.DisplayRole and index.isValid():
            return self.FORMATS[index.column()].format(self.rows[index.row(), index.column()])
        return None

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return self.HEADERS[section]
        return None


class ConverterPanel(Panel):
    name = "converter"
    title = "Deep → shallow"
    summary = "any deep ReLU network turned into an exactly equal shallow one, verified."
    state_class = ConverterState
    KEYS = (
        Key("N", "a new random network (the next seed)", "new_random", name="new-random"),
        Key("]", "select the next region (2-D input)", "step_region", (1,), name="next-region"),
        Key("[", "select the previous region", "step_region", (-1,), name="previous-region"),
    )
    primary_controls = ("converter-source", "converter-new-random")

    #: emitted after every redraw of a finished conversion (tests and scripts wait on it)
    converted = Signal()

    def __init__(self, host=None, parent=None):
        super().__init__(host, parent)
        self._state = ConverterState()
        self.received: MLP | None = None  # the last network another panel sent
        self.result: Result | None = None
        self._region_items: list[QGraphicsPolygonItem] = []
        self._worker = Worker("converter", self)
        self._build()
        self._connect()
        self.setAcceptDrops(True)
        self.apply_theme()
        self._sync_controls()
        self._start_conversion()

    # -- what is on screen, read from the state ---------------------------------
    @property
    def net(self) -> MLP:
        return self._state.network

    @property
    def source(self) -> str:
        return self._state.source

    @property
    def seed(self) -> int:
        return self._state.seed

    @property
    def architecture(self) -> tuple[int, ...]:
        return self._state.architecture

    @property
    def selected_region(self) -> int:
        return self._state.selected_region

    @property
    def busy(self) -> bool:
        """True while the latest conversion has not been drawn yet."""
        return self._worker.busy

    # -- building -------------------------------------------------------------
    def _build(self) -> None:
        outer = QHBoxLayout(self)
        self._left = named(QWidget(self), "converter-left", "Converter controls and sizes")
        column = QVBoxLayout(self._left)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self._build_controls())
        self.sizes_label = named(QLabel(""), "converter-sizes", "Sizes: deep, shallow, bound")
        self.sizes_label.setTextFormat(Qt.TextFormat.RichText)
        self.sizes_label.setWordWrap(True)
        self.sizes_label.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        column.addWidget(self.sizes_label)
        column.addStretch(1)
        outer.addWidget(self._left)
        right = QVBoxLayout()
        self.explain = named(QLabel(""), "converter-explain", "What the panel shows, in words")
        self.explain.setWordWrap(True)
        self.verdict = named(QLabel("converting…"), "converter-verdict", "Verdict")
        self.verdict.setWordWrap(True)
        # the technical account (counts, the certificate, the rule) goes with the details
        self.summary_label = named(QLabel(""), "converter-summary", "What was converted")
        self.summary_label.setWordWrap(True)
        right.addWidget(self.explain)
        right.addWidget(self.verdict)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self._build_plots())
        split.addWidget(self._build_details())
        split.setChildrenCollapsible(False)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        split.setSizes([640, 360])
        right.addWidget(split, 1)
        outer.addLayout(right, 1)
        self._build_shortcuts()

    def _build_controls(self) -> QWidget:
        """Source, architecture, seed, tent depth, files and messages (hidden in the
        lecture layout)."""
        controls = named(QWidget(), "converter-controls", "Converter controls")
        form = QFormLayout(controls)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.source_box = named(QComboBox(), "converter-source", "Source of the deep network")
        for key in SOURCES:
            self.source_box.addItem(SOURCE_LABELS[key], key)
        form.addRow("Source", self.source_box)
        self.random_button = named(QPushButton("New random network (N)"), "converter-new-random",
                                   "New random network")
        form.addRow(self.random_button)
        self.arch_edit = named(QLineEdit(), "converter-architecture",
                               "Architecture of the random network",
                               "inputs-hidden…-outputs, e.g. 1-16-16-1 or 2-8-8-1 (Enter applies)")
        form.addRow("Architecture", self.arch_edit)
        self.seed_spin = named(QSpinBox(), "converter-seed", "Random seed")
        self.seed_spin.setRange(0, MAX_SEED)
        self.seed_spin.setKeyboardTracking(False)  # typing 123 is one change, not three
        form.addRow("Seed", self.seed_spin)
        self.tent_spin = named(QSpinBox(), "converter-tent-depth", "Tent map depth")
        self.tent_spin.setRange(1, MAX_TENT_DEPTH)
        self.tent_spin.setKeyboardTracking(False)
        form.addRow("Tent depth", self.tent_spin)
        self.open_button = named(QPushButton("Open network file…"), "converter-open",
                                 "Open a network file",
                                 "JSON, NPZ or ONNX; you can also drop a file on the panel")
        form.addRow(self.open_button)
        self.export_button = named(QPushButton("Export shallow network…"), "converter-export",
                                   "Export the shallow network")
        form.addRow(self.export_button)
        self.message = named(QLabel(""), "converter-message", "Messages")
        self.message.setWordWrap(True)
        form.addRow(self.message)
        return controls

    def _build_plots(self) -> QSplitter:
        plots = QSplitter(Qt.Orientation.Vertical)
        self.main_plot = named(pg.PlotWidget(), "converter-main-plot", "Deep and shallow functions")
        self.main_plot.getPlotItem().setMenuEnabled(False)
        self.diff_plot = named(pg.PlotWidget(), "converter-difference-plot",
                               "Difference deep minus shallow")
        self.diff_plot.getPlotItem().setMenuEnabled(False)
        self.legend = self.main_plot.getPlotItem().addLegend(offset=(10, 10))
        self.deep_curve = self.main_plot.plot([], [], name="deep network")
        self.shallow_curve = self.main_plot.plot([], [], name="shallow network (one hidden layer)")
        self.kink_marks = pg.ScatterPlotItem(name="kinks: one hidden neuron each")
        self.main_plot.addItem(self.kink_marks)
        self.diff_curve = self.diff_plot.plot([], [])
        plots.addWidget(self.main_plot)
        plots.addWidget(self.diff_plot)
        plots.setSizes([600, 220])
        return plots

    def _build_details(self) -> QScrollArea:
        """The shallow network's layers, the kink list (1-D) or the selected region (2-D)."""
        side = QWidget()
        column = QVBoxLayout(side)
        column.setContentsMargins(0, 0, 0, 0)
        self.layers_label = named(QLabel(""), "converter-shallow-layers",
                                  "The shallow network's layers")
        self.layers_label.setWordWrap(True)
        self.kinks = KinkTable(self)
        self.kink_table = named(QTableView(), "converter-kinks", "Kink list")
        self.kink_table.setModel(self.kinks)
        self.kink_table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.kink_table.setEditTriggers(QTableView.EditTrigger.NoEditTriggers)
        self.kink_table.verticalHeader().setVisible(False)
        self.region_info = named(QLabel("Click a region to see its affine map and constraints."),
                                 "converter-region-info", "Selected region")
        self.region_info.setWordWrap(True)
        self.region_info.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.region_info.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        column.addWidget(self.summary_label)
        column.addWidget(self.layers_label)
        column.addWidget(self.kink_table, 1)
        column.addWidget(self.region_info, 1)
        # The side column scrolls rather than squeezing the plots at a large zoom.
        scroll = named(QScrollArea(), "converter-details", "Details of the shallow network")
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setWidget(side)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        return scroll

    def _build_shortcuts(self) -> None:
        self.make_keys()

    def _connect(self) -> None:
        self.source_box.activated.connect(self._on_source_chosen)
        self.arch_edit.returnPressed.connect(self._on_architecture)
        self.seed_spin.valueChanged.connect(self._on_seed)
        self.random_button.clicked.connect(self.new_random)
        self.tent_spin.valueChanged.connect(self._on_tent_depth)
        self.open_button.clicked.connect(self._open_dialog)
        self.export_button.clicked.connect(self._export_dialog)
        self.main_plot.scene().sigMouseClicked.connect(self._on_plot_click)
        self._worker.finished.connect(self._on_converted)
        self._worker.failed.connect(self._on_failed)

    # -- state ----------------------------------------------------------------
    def apply_state(self, state: ConverterState) -> None:
        """Show ``state`` and convert its network (undo, redo, scenes)."""
        self._state = state
        if state.source == "received":
            self.received = state.network
        self._sync_controls()
        self._start_conversion()

    def _change(self, text: str, **changes) -> None:
        """One undoable step to a new network (the selected region is dropped)."""
        self.commit(replace(self._state, selected_region=-1, **changes), text)

    def _sync_controls(self) -> None:
        s = self._state
        with signals_blocked(self.source_box, self.arch_edit, self.seed_spin, self.tent_spin):
            self.source_box.setCurrentIndex(SOURCES.index(s.source))
            self.arch_edit.setText("-".join(map(str, s.architecture)))
            self.seed_spin.setValue(s.seed)
            self.tent_spin.setValue(s.tent_depth)

    # -- sources --------------------------------------------------------------
    def _show_message(self, text: str, error: bool = False) -> None:
        self.message.setText(text)
        role = "error_text" if error else "foreground"
        self.message.setStyleSheet(f"color: {self.theme.color(role).name()};"
                                   + (" font-weight: bold;" if error else ""))
        if text:
            self.show_status(text)

    def _on_source_chosen(self, index: int) -> None:
        key = self.source_box.itemData(index)
        if key == "random":
            self._use_random(self.architecture, self.seed, "random network")
        elif key == "received":
            if self.received is None:
                self._show_message("No network has been sent here yet: use 'Send to converter' "
                                   "in the Training or Playground panel.", error=True)
                self._sync_controls()
                return
            self._change("network from another panel", source="received", network=self.received)
        elif key == "tent":
            self.set_tent_depth(self._state.tent_depth)
        elif key == "file":
            self._sync_controls()
            self._open_dialog()

    def _on_architecture(self) -> None:
        try:
            sizes = parse_architecture(self.arch_edit.text())
        except ValueError as e:
            self._show_message(f"Architecture: {e}", error=True)
            return
        self._use_random(sizes, self.seed, f"architecture {'-'.join(map(str, sizes))}")

    def _on_seed(self, value: int) -> None:
        if self.source == "random":
            self._use_random(self.architecture, value, f"seed {value}")
        else:  # kept for the next random network; the network on screen stays
            self._state = replace(self._state, seed=value)

    def _use_random(self, sizes, seed, text) -> None:
        net = MLP.random(sizes, seed=seed)
        self._show_message("")
        self._change(text, source="random", architecture=tuple(sizes), seed=int(seed), network=net,
                     file=None)

    def new_random(self) -> None:
        """A new random network of the current architecture (next seed)."""
        sizes = self.architecture
        if self.source == "random":
            try:
                sizes = parse_architecture(self.arch_edit.text())
            except ValueError as e:
                self._show_message(f"Architecture: {e}", error=True)
                return
        seed = (self.seed + 1) % (MAX_SEED + 1)
        self._use_random(sizes, seed, f"random network, seed {seed}")

    def _on_tent_depth(self, depth: int) -> None:
        self.set_tent_depth(depth)

    def set_tent_depth(self, depth: int) -> None:
        self._show_message("")
        self._change(f"tent map, depth {depth}", source="tent", tent_depth=int(depth),
                     network=tent(int(depth)), file=None)

    def receive(self, kind: str, payload) -> bool:
        """Take ``"network"`` (an MLP) or ``"tent"`` (an MLP, or {"network": MLP, "depth": k})."""
        if kind not in ("network", "tent"):
            return False
        net, depth = payload, None
        if isinstance(payload, dict):
            net, depth = payload.get("network"), payload.get("depth")
        problem = network_problem(net)
        if problem:
            self._show_message(f"Received network not taken: {problem}.", error=True)
            return False
        self._show_message("")
        if kind == "tent":
            changes = {"source": "tent", "network": net, "file": None}
            if isinstance(depth, int) and not isinstance(depth, bool) and 1 <= depth <= MAX_TENT_DEPTH:
                changes["tent_depth"] = depth
            self._change("tent map from the Folding panel", **changes)
        else:
            self.received = net
            self._change("network from another panel", source="received", network=net, file=None)
        return True

    def load_file(self, path) -> bool:
        """Read a deep network from a file; on any problem say so and keep the current one."""
        from relulab.io.networks import NetworkFileError, load_network

        path = Path(path)
        try:
            net = load_network(path)
        except NetworkFileError as e:
            self._show_message(str(e), error=True)
            return False
        if not isinstance(net, MLP):
            self._show_message(f"{path.name}: already an extended (±∞) shallow network, "
                               "not a deep one", error=True)
            return False
        problem = network_problem(net)
        if problem:
            self._show_message(f"{path.name}: {problem}", error=True)
            return False
        self._show_message(f"Opened {path.name}.")
        self._change(f"open {path.name}", source="file", network=net, file=str(path))
        return True

    def _open_dialog(self) -> None:
        filters = "Networks (*.json *.npz *.onnx);;All files (*)"
        path, _ = QFileDialog.getOpenFileName(self, "Open a deep network", "", filters)
        if path:
            self.load_file(path)

    # drag and drop of a file onto the panel
    def _dropped_path(self, event) -> str | None:
        md = event.mimeData()
        if not md.hasUrls():
            return None
        urls = [u for u in md.urls() if u.isLocalFile()]
        if len(urls) != 1:
            return None
        return urls[0].toLocalFile()

    def dragEnterEvent(self, event) -> None:
        path = self._dropped_path(event)
        if path and Path(path).suffix.lower() in NETWORK_SUFFIXES:
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event) -> None:
        path = self._dropped_path(event)
        if path:
            event.acceptProposedAction()
            self.load_file(path)

    # -- export ---------------------------------------------------------------
    def export_shallow(self, path) -> bool:
        """Write the shallow network (format by extension); errors are shown, not raised."""
        from relulab.io.networks import NetworkFileError, save_network

        if self.result is None:
            self._show_message("Nothing to export yet: the conversion is still running."
                               if self.busy else "Nothing to export: the conversion failed.",
                               error=True)
            return False
        try:
            save_network(self.result.conversion.shallow, path)
        except NetworkFileError as e:
            self._show_message(str(e), error=True)
            return False
        self._show_message(f"Saved the shallow network to {Path(path).name}.")
        return True

    def _export_dialog(self) -> None:
        finite = self.result is not None and self.result.conversion.one_d is not None
        filters = ("JSON (*.json);;NumPy (*.npz);;ONNX (*.onnx)" if finite
                   else "JSON (*.json);;NumPy (*.npz)")
        path, chosen = QFileDialog.getSaveFileName(self, "Export the shallow network",
                                                   "shallow.json", filters)
        if path:
            if not Path(path).suffix:
                path += "." + chosen.split("*.")[1].rstrip(")")
            self.export_shallow(path)

    # -- the worker ------------------------------------------------------------
    def _start_conversion(self) -> None:
        net = self.net
        self.verdict.setText("converting…")
        # The last result belongs to the last network: let it go now rather than hold
        # two conversions (hundreds of MB for thousands of regions) at once.
        self.result = None
        self._worker.submit(lambda should_stop: compute(net, should_stop=should_stop))

    def _on_converted(self, result: Result) -> None:
        self.result = result
        if not 0 <= self.selected_region < len(result.conversion.regions):
            self._state = replace(self._state, selected_region=-1)
        self._redraw()
        self.converted.emit()

    def _on_failed(self, exc: Exception) -> None:
        # shown in the panel; the previous picture stays
        self._show_message(f"Conversion failed: {exc}", error=True)
        self.verdict.setText("conversion failed")

    # -- drawing ----------------------------------------------------------------
    def _redraw(self) -> None:
        res = self.result
        conv = res.conversion
        one_d = conv.one_d is not None
        self._clear_regions()
        self.kink_table.setVisible(one_d)
        self.diff_plot.setVisible(one_d)
        self.region_info.setVisible(not one_d)
        self._draw_sizes(conv)
        self._draw_verdict(res)
        if one_d:
            self._draw_1d(res)
        else:
            self._draw_nd(res)

    def size_rows(self) -> list[list[str]]:
        """[row name, hidden layers, widths, neurons, parameters] for deep, shallow, bound."""
        if self.result is None:
            return []
        conv = self.result.conversion
        deep, shallow = conv.deep, conv.shallow
        return [
            ["deep", str(len(deep.hidden_sizes)), "-".join(map(str, deep.hidden_sizes)),
             str(deep.n_hidden_neurons), str(deep.n_params)],
            ["shallow", str(len(shallow.hidden_sizes)),
             "-".join(map(str, shallow.hidden_sizes)) or "0", str(sum(shallow.hidden_sizes)),
             str(shallow.n_params)],
            ["Corollary 1", "3", f"max{{{', '.join(map(str, conv.terms))}}} = {conv.bound}",
             f"≤ {3 * conv.bound}", ""],
        ]

    def _draw_sizes(self, conv) -> None:
        rows = self.size_rows()
        cell = 'style="padding: 2px 6px;"'
        names = ["layers", "widths", "neurons", "parameters"]
        heads = ["deep", "shallow", "bound"]
        html = ["<table>", "<tr><th></th>" + "".join(f"<th {cell}>{h}</th>" for h in heads) + "</tr>"]
        bound = [rows[2][1], f"≤ {conv.bound} each", rows[2][3], ""]
        for i, name in enumerate(names):
            vals = [rows[0][i + 1], rows[1][i + 1], bound[i]]
            html.append(f"<tr><th {cell} align='left'>{name}</th>"
                        + "".join(f"<td {cell} align='center'>{v}</td>" for v in vals) + "</tr>")
        html.append("</table>")
        html.append(f"<p>Corollary 1: width ≤ {conv.bound_text()}</p>")
        self.sizes_label.setText("".join(html))

    def _draw_verdict(self, res: Result) -> None:
        conv, v = res.conversion, res.verification
        # 1-D: within the scale-relative rounding bound (model.shallow.ROUNDING); n-D:
        # within 1e-9 of the size of the terms the outputs are summed from
        ok = v.ok()
        within = f" up to rounding (≤ {v.tolerance():.2g})"
        if conv.one_d is not None:
            at_kinks = v.max_error_at_kinks if v.max_error_at_kinks is not None else 0.0
            text = (f"{'Equal up to rounding' if ok else 'NOT equal'}: largest |deep − shallow| "
                    f"{max(v.max_error_exact_points, v.max_error_random):.2g} "
                    f"({v.max_rounding_ratio:.2g} of the rounding bound); at every kink "
                    f"{at_kinks:.2g} ({len(conv.one_d.kinks)} kinks, and between them); end "
                    f"slopes {'agree' if v.end_slopes_agree else 'DIFFER'}.")
            summary = (f"1-D: K = {len(conv.one_d.kinks)} kinks ({conv.one_d.certificate}) → one "
                       f"hidden layer of width {conv.one_d.width} with finite weights. "
                       f"{conv.one_d.rule}.")
        else:
            text = (f"{'Equal' if ok else 'NOT equal'}{within}: largest |deep − shallow| "
                    f"{v.max_error_exact_points:.2g} at {v.n_exact_points} region witnesses and "
                    f"boundary points, {v.max_error_random:.2g} at {v.n_random} random points.")
            shown = f", {len(res.polygons)} drawn" if conv.n_in == 2 else \
                " (the map is drawn for 2-D input only)"
            space = "R" + "²³⁴"[conv.n_in - 2]
            summary = (f"{conv.n_in}-D: p = {conv.p} activation regions on all of {space} "
                       f"({res.lower_dimensional} lower-dimensional{shown}), k = {conv.k} "
                       "constraints. Regions are not pieces: neighbours may share one affine map.")
        self.verdict.setText(text)
        self.summary_label.setText(summary)
        self.explain.setText(self._explanation(res))
        self.verdict.setStyleSheet(f"color: {self.theme.color('foreground' if ok else 'error_text').name()};"
                                   " font-weight: bold;")

    def _explanation(self, res: Result) -> str:
        """What the panel shows, in plain words (the formulas are in the details)."""
        conv = res.conversion
        deep = "-".join(map(str, conv.deep.sizes))
        if conv.one_d is not None:
            k, width = len(conv.one_d.kinks), conv.one_d.width
            return (f"<b>One hidden layer computes the same function.</b> The deep network "
                    f"{deep} is a line that bends at {k} kink{'s' if k != 1 else ''}; one hidden "
                    f"layer of {width} neuron{'s' if width != 1 else ''}, one per kink, draws the "
                    "same line: deep solid, shallow dashed. Below, their difference: zero up "
                    "to rounding.")
        if conv.n_in == 2:
            return (f"<b>The same function, region by region.</b> The deep network {deep} cuts "
                    f"the plane into {conv.p} regions (each colour one region; colours repeat); "
                    "in each it is one flat, affine map. The shallow network, three hidden "
                    "layers, rebuilds every region. Click one to see its map.")
        return (f"<b>The same function, region by region.</b> The deep network {deep} cuts "
                f"R{'²³⁴'[conv.n_in - 2]} into {conv.p} regions, in each of which it is one affine "
                "map; the shallow network, three hidden layers, rebuilds every one.")

    def _draw_1d(self, res: Result) -> None:
        item = self.main_plot.getPlotItem()
        item.setLabel("bottom", "x")
        item.setLabel("left", "f(x)")
        m = res.conversion.n_out
        self.theme.set_title(item, "deep (solid) and shallow (dashed)"
                             + (f", output 1 of {m}" if m > 1 else ""))
        self.deep_curve.setVisible(True)
        self.shallow_curve.setVisible(True)
        self.deep_curve.setData(res.curve_x, res.deep_y)
        self.shallow_curve.setData(res.curve_x, res.shallow_y)
        t = res.conversion.one_d.kinks
        if len(t):
            self.kink_marks.setData(t, res.kink_rows[:, 2])
        else:
            self.kink_marks.setData([], [])
        self.kink_marks.setVisible(True)
        self.legend.setVisible(True)
        diff = res.deep_y - res.shallow_y
        self.diff_curve.setData(res.curve_x, diff)
        self.diff_plot.getPlotItem().setLabel("left", "deep − shallow")
        self.diff_plot.getPlotItem().setLabel("bottom", "x")
        self.theme.set_title(self.diff_plot, "their difference: zero up to rounding", 9.5)
        span = max(1e-15, float(np.abs(diff).max()) * 1.2)
        self.diff_plot.setYRange(-span, span, padding=0)
        self.main_plot.getPlotItem().getViewBox().setAspectLocked(False)
        item.enableAutoRange()
        self.kinks.set_rows(res.kink_rows)
        widths = res.conversion.shallow.hidden_sizes
        self.layers_label.setText(
            f"Shallow network: {res.conversion.n_in} → {widths[0] if widths else 0} → "
            f"{res.conversion.n_out}, every weight finite; exportable as JSON, NPZ and ONNX.")

    def _draw_nd(self, res: Result) -> None:
        conv = res.conversion
        self.deep_curve.setVisible(False)
        self.shallow_curve.setVisible(False)
        self.kink_marks.setVisible(False)
        self.legend.setVisible(False)  # the regions' colours are explained in words
        from relulab.model.shallow import COROLLARY_TERMS

        self.kinks.set_rows(np.zeros((0, 5)))
        item = self.main_plot.getPlotItem()
        n = conv.n_in
        what = ("x⁺, x⁻ and one detector per constraint",
                "x⁺, x⁻ and o_r (0 inside region r, ∞ outside)", "ReLU(±(A_r x + c_r) − o_r)")
        self.layers_label.setText(
            "Shallow network (3 hidden layers, ±∞ rows):\n"
            + "".join(f"  {i + 1}. {width} = {words}: {does}\n" for i, (width, words, does)
                      in enumerate(zip(conv.terms, COROLLARY_TERMS, what)))
            + "Export as JSON or NPZ (ONNX cannot hold ∞). This follows a reconstruction of "
            "Villani & Schoots' construction; the paper's count of k and its treatment of "
            "region boundaries may differ.")
        if n != 2:
            self.theme.set_title(item, f"{n}-D input: no map (regions: {conv.p})")
            return
        self.theme.set_title(item, f"{conv.p} activation regions on R² (click one)")
        item.setLabel("bottom", "x1")
        item.setLabel("left", "x2")
        vb = item.getViewBox()
        for poly in res.polygons:
            q = QPolygonF([QPointF(float(x), float(y)) for x, y in poly.vertices])
            gi = QGraphicsPolygonItem(q)
            gi.setData(0, poly.index)
            vb.addItem(gi)
            self._region_items.append(gi)
        self._style_regions()
        vb.setAspectLocked(True)
        x0, x1, y0, y1 = VIEW_2D
        vb.setRange(xRange=(x0, x1), yRange=(y0, y1), padding=0)
        self._show_region_info()

    def _clear_regions(self) -> None:
        vb = self.main_plot.getPlotItem().getViewBox()
        for gi in self._region_items:
            vb.removeItem(gi)
        self._region_items = []

    def _style_regions(self) -> None:
        outline = self.theme.pen("background", 1.0)
        selected_pen = self.theme.pen("selected", 3.0)
        for gi in self._region_items:
            idx = gi.data(0)
            colour = QColor(self.theme.series_color(idx % REGION_COLOURS))
            colour.setAlpha(REGION_ALPHA if idx != self.selected_region else 230)
            gi.setBrush(QBrush(colour))
            gi.setPen(selected_pen if idx == self.selected_region else outline)
            gi.setZValue(2 if idx == self.selected_region else 1)

    def select_region(self, index: int) -> None:
        """Show region ``index``'s affine map and constraints (−1: none)."""
        regions = self.result.conversion.regions if self.result else []
        # a view choice, not an edit: no undo step (scene files keep it)
        self._state = replace(self._state, selected_region=index if 0 <= index < len(regions) else -1)
        self._style_regions()
        self._show_region_info()

    def step_region(self, step: int) -> None:
        """Select the next (+1) or previous (−1) region, for keyboard use."""
        if self.result is None or not self.result.conversion.regions:
            return
        p = len(self.result.conversion.regions)
        start = self.selected_region if self.selected_region >= 0 else (-1 if step > 0 else 0)
        self.select_region((start + step) % p)

    def select_region_at(self, x: float, y: float) -> int:
        """Select the region holding the point (x, y); returns its index."""
        if self.result is None or self.result.conversion.n_in != 2:
            return -1
        from relulab.model.regions import region_at

        idx = region_at(self.result.conversion.deep, self.result.conversion.regions, [x, y])
        self.select_region(idx)
        return idx

    def _show_region_info(self) -> None:
        if self.result is None or self.selected_region < 0:
            self.region_info.setText("Click a region (or press ] and [) to see its affine map "
                                     "and constraints.")
            return
        r = self.result.conversion.regions[self.selected_region]
        self.region_info.setText(f"Region {self.selected_region + 1} of {len(self.result.conversion.regions)}\n"
                                 + r.describe(digits=3))

    def _on_plot_click(self, event) -> None:
        if event.button() != Qt.MouseButton.LeftButton or self.result is None:
            return
        if self.result.conversion.n_in != 2:
            return
        vb = self.main_plot.getPlotItem().getViewBox()
        if not vb.sceneBoundingRect().contains(event.scenePos()):
            return
        p = vb.mapSceneToView(event.scenePos())
        self.select_region_at(p.x(), p.y())
        event.accept()

    # -- hooks -----------------------------------------------------------------
    def plots(self) -> dict:
        if self.result is not None and self.result.conversion.one_d is not None:
            return {"functions": self.main_plot, "difference": self.diff_plot}
        return {"regions": self.main_plot}

    def data_tables(self) -> dict:
        tables = {}
        if self.result is None:
            return tables
        conv = self.result.conversion
        if conv.one_d is not None:
            tables["kinks"] = (["index", "t", "f(t)", "slope jump", "abs difference at t"],
                               self.result.kink_rows.tolist())
        else:
            tables["regions"] = (
                ["region", "pattern", "full-dimensional", "A", "c", "constraints", "witness"],
                [[i + 1, r.pattern_text(), r.is_full_dimensional(), r.A.tolist(), r.c.tolist(),
                  r.n_constraints, r.witness.tolist()] for i, r in enumerate(conv.regions)])
        tables["sizes"] = (["", "hidden layers", "widths", "neurons", "parameters"],
                           self.size_rows())
        return tables

    def apply_theme(self) -> None:
        t = self.theme
        self._left.setFixedWidth(int(330 * t.zoom))
        t.style_plot(self.main_plot)
        t.style_plot(self.diff_plot)
        self.deep_curve.setPen(t.pen("target", 2.5))
        self.shallow_curve.setPen(t.pen("approx", 2.5, Qt.PenStyle.DashLine))
        self.kink_marks.setPen(t.pen("accent", 1.5))
        self.kink_marks.setBrush(pg.mkBrush(t.color("accent")))
        self.kink_marks.setSize(t.point_size(7))
        self.diff_curve.setPen(t.pen("error", 2.0))
        self.explain.setFont(t.font(10))
        self.summary_label.setFont(t.font(9))
        self._style_regions()
        if self.result is not None:
            self._draw_verdict(self.result)

    def shutdown(self) -> None:
        self._worker.shutdown()
        super().shutdown()


if __name__ == "__main__":
    sys.exit(run_alone(ConverterPanel))
