"""The Deep → shallow panel: a deep ReLU network and its exactly equal shallow one.

Source: a random network with an editable architecture, a network sent by another
panel, the tent map, or a file (open or drop). 1-D input: deep and shallow curves
overlaid, their difference, the kink list and the verdict. 2-D input: the exact
region map (click a region for its affine map and constraints), the shallow
network's three layers and the verdict. Sizes side by side with Corollary 1's
bound. The conversion runs in a worker thread; the latest request wins.
"""

from __future__ import annotations

import importlib.util
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QKeySequence, QPolygonF, QShortcut
from PySide6.QtWidgets import (
    QComboBox, QFileDialog, QFormLayout, QGraphicsPolygonItem, QHBoxLayout, QHeaderView, QLabel,
    QLineEdit, QPushButton, QScrollArea, QSpinBox, QSplitter, QTableWidget, QTableWidgetItem,
    QVBoxLayout, QWidget,
)

from relulab.io.networks import (
    SUFFIXES, NetworkFileError, load_network, network_from_dict, network_to_dict, save_network,
)
from relulab.model.arrangement import engine_ready, start_warm_up
from relulab.model.mlp import MLP
from relulab.model.regions import EnumerationStopped, region_at, regions_in_box
from relulab.model.shallow import Conversion, Verification, convert
from relulab.ui.panels.base import Panel, SnapshotCommand, run_alone

SOURCES = [("random", "Random network"), ("received", "From another panel"),
           ("tent", "Tent map"), ("file", "File")]
SOURCE_KEYS = [s for s, _ in SOURCES]
DEFAULT_ARCH = [2, 8, 8, 1]
MAX_INPUTS = 4          # the region enumeration grows quickly with the input dimension
MAX_NEURONS_2D = 64     # hidden neurons for n ≥ 2 (the exact map stays around a second)
MAX_NEURONS_1D = 1024
VIEW_2D = (-3.0, 3.0, -3.0, 3.0)     # what the map shows first
DRAW_BOX = (-12.0, 12.0, -12.0, 12.0)  # polygons are clipped here, so panning shows more
CURVE_POINTS = 2001
REGION_ALPHA = 110


def parse_architecture(text: str) -> list[int]:
    """'2-8-8-1' → [2, 8, 8, 1]; raises ValueError saying what is wrong."""
    parts = [p.strip() for p in text.replace(",", "-").replace(" ", "-").split("-") if p.strip()]
    if len(parts) < 3:
        raise ValueError("write inputs-hidden…-outputs with at least one hidden layer, e.g. 2-8-8-1")
    try:
        sizes = [int(p) for p in parts]
    except ValueError:
        raise ValueError(f"{text!r}: layer sizes must be whole numbers") from None
    if min(sizes) < 1:
        raise ValueError("every layer needs at least one neuron")
    check_network_size(sizes)
    return sizes


def check_network_size(sizes) -> None:
    n, hidden = sizes[0], sum(sizes[1:-1])
    if n > MAX_INPUTS:
        raise ValueError(f"{n} inputs: the converter handles 1 to {MAX_INPUTS}")
    limit = MAX_NEURONS_1D if n == 1 else MAX_NEURONS_2D
    if hidden > limit:
        raise ValueError(f"{hidden} hidden neurons: up to {limit} for {n}-D input here "
                         "(use relulab convert for bigger ones)")
    if sizes[-1] > 4:
        raise ValueError(f"{sizes[-1]} outputs: up to 4 here")


def tent_available() -> bool:
    return importlib.util.find_spec("relulab.model.folding") is not None


def tent_network(depth: int) -> MLP:
    from relulab.model.folding import tent_network as make

    return make(depth)


@dataclass
class Result:
    """Everything the view shows, computed off the GUI thread."""

    conversion: Conversion
    verification: Verification
    polygons: list = field(default_factory=list)        # 2-D: RegionPolygon in the view box
    curve_x: np.ndarray | None = None                    # 1-D curves
    deep_y: np.ndarray | None = None
    shallow_y: np.ndarray | None = None
    kink_rows: list = field(default_factory=list)
    lower_dimensional: int = 0


def compute(net: MLP, box=DRAW_BOX, should_stop=None) -> Result:
    """Convert, verify and prepare the pictures (model calls only; runs in a worker)."""
    conv = convert(net, should_stop=should_stop)
    ver = conv.verify()
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
        if len(t):
            dt = np.asarray(net(t[:, None]), float).reshape(len(t), -1)
            st = np.asarray(conv.shallow(t[:, None]), float).reshape(len(t), -1)
            jumps = conv.one_d.jumps if len(conv.one_d.jumps) == len(t) else np.full(len(t), np.nan)
            res.kink_rows = [[i + 1, float(t[i]), float(dt[i, 0]), float(jumps[i]),
                              float(np.abs(dt[i] - st[i]).max())] for i in range(len(t))]
    else:
        res.lower_dimensional = sum(not r.is_full_dimensional() for r in conv.regions)
        if net.n_in == 2:
            res.polygons = regions_in_box(conv.regions, box)
    return res


class ConverterPanel(Panel):
    name = "converter"
    title = "Deep → shallow"
    summary = "any deep ReLU network turned into an exactly equal shallow one, verified."

    #: emitted after every redraw of a finished conversion (tests and scripts wait on it)
    converted = Signal()
    _worker_done = Signal(int, object)

    def __init__(self, host=None, parent=None):
        super().__init__(host, parent)
        self.net: MLP = MLP.random(DEFAULT_ARCH, seed=0)
        self.source = "random"
        self.architecture = list(DEFAULT_ARCH)
        self.seed = 0
        self.tent_depth = 3
        self.file_path: str | None = None
        self.received: MLP | None = None
        self.result: Result | None = None
        self.selected_region = -1
        self._request = 0
        self._done_request = 0
        self._threads: list[threading.Thread] = []
        self._closing = False
        self._region_items: list[QGraphicsPolygonItem] = []
        start_warm_up()  # the region engine's compiled loops, off the GUI thread
        self._build()
        self._connect()
        self.setAcceptDrops(True)
        self.apply_theme()
        self._start_conversion()

    # -- building -------------------------------------------------------------
    def _named(self, widget, name: str, accessible: str):
        widget.setObjectName(f"converter-{name}")
        widget.setAccessibleName(accessible)
        return widget

    def _build(self) -> None:
        outer = QHBoxLayout(self)
        controls = QWidget(self)
        controls.setObjectName("converter-controls")
        controls.setAccessibleName("Converter controls")
        form = QFormLayout(controls)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)

        self.source_box = self._named(QComboBox(), "source", "Source of the deep network")
        for key, label in SOURCES:
            self.source_box.addItem(label, key)
        form.addRow("Source", self.source_box)

        self.arch_edit = self._named(QLineEdit("-".join(map(str, DEFAULT_ARCH))), "architecture",
                                     "Architecture of the random network")
        self.arch_edit.setToolTip("inputs-hidden…-outputs, e.g. 1-16-16-1 or 2-8-8-1 (Enter applies)")
        form.addRow("Architecture", self.arch_edit)
        self.seed_spin = self._named(QSpinBox(), "seed", "Random seed")
        self.seed_spin.setRange(0, 999_999)
        self.seed_spin.setKeyboardTracking(False)  # typing 123 is one change, not three
        form.addRow("Seed", self.seed_spin)
        self.random_button = self._named(QPushButton("New random network (N)"), "new-random",
                                         "New random network")
        form.addRow(self.random_button)
        self.tent_spin = self._named(QSpinBox(), "tent-depth", "Tent map depth")
        self.tent_spin.setRange(1, 8)
        self.tent_spin.setKeyboardTracking(False)
        self.tent_spin.setValue(self.tent_depth)
        if not tent_available():
            self.tent_spin.setToolTip("the tent map arrives from the Folding panel")
        form.addRow("Tent depth", self.tent_spin)
        self.open_button = self._named(QPushButton("Open network file…"), "open",
                                       "Open a network file")
        self.open_button.setToolTip("JSON, NPZ or ONNX; you can also drop a file on the panel")
        form.addRow(self.open_button)
        self.export_button = self._named(QPushButton("Export shallow network…"), "export",
                                         "Export the shallow network")
        form.addRow(self.export_button)

        self.message = self._named(QLabel(""), "message", "Messages")
        self.message.setWordWrap(True)
        form.addRow(self.message)

        # Left column: the controls (hidden in the lecture layout), then the sizes readout.
        left = QWidget(self)
        left.setObjectName("converter-left")
        ll = QVBoxLayout(left)
        ll.setContentsMargins(0, 0, 0, 0)
        ll.addWidget(controls)
        self.sizes_label = self._named(QLabel(""), "sizes", "Sizes: deep, shallow, bound")
        self.sizes_label.setTextFormat(Qt.TextFormat.RichText)
        self.sizes_label.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        ll.addWidget(self.sizes_label)
        ll.addStretch(1)
        self._controls = controls
        self._left = left
        outer.addWidget(left)

        right = QVBoxLayout()
        self.verdict = self._named(QLabel("converting…"), "verdict", "Verdict")
        self.verdict.setWordWrap(True)
        self.summary_label = self._named(QLabel(""), "summary", "What was converted")
        self.summary_label.setWordWrap(True)
        right.addWidget(self.verdict)
        right.addWidget(self.summary_label)

        plots = QSplitter(Qt.Orientation.Vertical)
        self.main_plot = self._named(pg.PlotWidget(), "main-plot", "Deep and shallow functions")
        self.main_plot.getPlotItem().setMenuEnabled(False)
        self.diff_plot = self._named(pg.PlotWidget(), "difference-plot",
                                     "Difference deep minus shallow")
        self.diff_plot.getPlotItem().setMenuEnabled(False)
        self.deep_curve = self.main_plot.plot([], [], name="deep")
        self.shallow_curve = self.main_plot.plot([], [], name="shallow")
        self.kink_marks = pg.ScatterPlotItem()
        self.main_plot.addItem(self.kink_marks)
        self.diff_curve = self.diff_plot.plot([], [])
        plots.addWidget(self.main_plot)
        plots.addWidget(self.diff_plot)
        plots.setSizes([600, 220])

        side = QWidget()
        side_layout = QVBoxLayout(side)
        side_layout.setContentsMargins(0, 0, 0, 0)
        self.layers_label = self._named(QLabel(""), "shallow-layers", "The shallow network's layers")
        self.layers_label.setWordWrap(True)
        self.kink_table = self._named(QTableWidget(0, 5), "kinks", "Kink list")
        self.kink_table.setHorizontalHeaderLabels(["#", "t", "f(t)", "jump", "|Δ| at t"])
        self.kink_table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.kink_table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.kink_table.verticalHeader().setVisible(False)
        self.region_info = self._named(QLabel("Click a region to see its affine map and constraints."),
                                       "region-info", "Selected region")
        self.region_info.setWordWrap(True)
        self.region_info.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.region_info.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        side_layout.addWidget(self.layers_label)
        side_layout.addWidget(self.kink_table, 1)
        side_layout.addWidget(self.region_info, 1)
        # The side column scrolls rather than squeezing the plots at a large zoom.
        side_scroll = QScrollArea()
        side_scroll.setObjectName("converter-details")
        side_scroll.setWidgetResizable(True)
        side_scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        side_scroll.setWidget(side)
        side_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)

        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(plots)
        split.addWidget(side_scroll)
        split.setChildrenCollapsible(False)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        split.setSizes([640, 360])
        right.addWidget(split, 1)
        outer.addLayout(right, 1)

        self._shortcuts = []
        for key, name, slot in (("N", "new-random", self.new_random),
                                ("]", "next-region", lambda: self.step_region(1)),
                                ("[", "previous-region", lambda: self.step_region(-1))):
            shortcut = QShortcut(QKeySequence(key), self)
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut.setObjectName(f"converter-shortcut-{name}")
            shortcut.activated.connect(slot)
            self._shortcuts.append(shortcut)

    def _connect(self) -> None:
        self.source_box.activated.connect(self._on_source_chosen)
        self.arch_edit.returnPressed.connect(self._on_architecture)
        self.seed_spin.valueChanged.connect(self._on_seed)
        self.random_button.clicked.connect(self.new_random)
        self.tent_spin.valueChanged.connect(self._on_tent_depth)
        self.open_button.clicked.connect(self._open_dialog)
        self.export_button.clicked.connect(self._export_dialog)
        self.main_plot.scene().sigMouseClicked.connect(self._on_plot_click)
        self._worker_done.connect(self._on_worker_done)

    # -- state ----------------------------------------------------------------
    def state_dict(self) -> dict:
        return {
            "source": self.source,
            "architecture": list(self.architecture),
            "seed": int(self.seed),
            "tent_depth": int(self.tent_depth),
            "file": self.file_path,
            "network": network_to_dict(self.net),
            "selected_region": int(self.selected_region),
        }

    def load_state(self, state: dict) -> None:
        checked = self._validate_state(state)
        self._apply_state(checked)

    def _validate_state(self, state) -> dict:
        if not isinstance(state, dict):
            raise ValueError("converter state must be an object")
        source = state.get("source", "random")
        if source not in SOURCE_KEYS:
            raise ValueError(f"source: {source!r} is not one of {', '.join(SOURCE_KEYS)}")
        arch = state.get("architecture", DEFAULT_ARCH)
        if not isinstance(arch, list) or not all(isinstance(a, int) and not isinstance(a, bool)
                                                 for a in arch):
            raise ValueError("architecture: a list of whole numbers")
        try:
            parse_architecture("-".join(map(str, arch)))
        except ValueError as e:
            raise ValueError(f"architecture: {e}") from None
        seed = state.get("seed", 0)
        if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= 999_999:
            raise ValueError("seed: a whole number from 0 to 999999")
        depth = state.get("tent_depth", 3)
        if not isinstance(depth, int) or isinstance(depth, bool) or not 1 <= depth <= 8:
            raise ValueError("tent_depth: a whole number from 1 to 8")
        file_path = state.get("file")
        if file_path is not None and not isinstance(file_path, str):
            raise ValueError("file: a path or null")
        sel = state.get("selected_region", -1)
        if not isinstance(sel, int) or isinstance(sel, bool):
            raise ValueError("selected_region: a whole number")
        if "network" in state:
            try:
                net = network_from_dict(state["network"], "network")
            except NetworkFileError as e:
                raise ValueError(str(e)) from None
            if not isinstance(net, MLP):
                raise ValueError("network: must be a deep network with finite weights")
            problem = self._network_problem(net)
            if problem:
                raise ValueError(f"network: {problem}")
        else:
            net = MLP.random(arch, seed=seed)
        return {"source": source, "architecture": list(arch), "seed": seed, "tent_depth": depth,
                "file": file_path, "network": net, "selected_region": sel}

    def _apply_state(self, s: dict) -> None:
        """Set everything from a validated snapshot (``network`` an MLP or its dict)."""
        net = s["network"]
        if isinstance(net, dict):
            net = network_from_dict(net, "network")
        self.source = s["source"]
        self.architecture = list(s["architecture"])
        self.seed = int(s["seed"])
        self.tent_depth = int(s["tent_depth"])
        self.file_path = s["file"]
        if self.source == "received":
            self.received = net
        self.net = net
        self.selected_region = int(s.get("selected_region", -1))
        self._sync_controls()
        self._start_conversion()

    def _snapshot(self) -> dict:
        return {"source": self.source, "architecture": list(self.architecture), "seed": self.seed,
                "tent_depth": self.tent_depth, "file": self.file_path, "network": self.net,
                "selected_region": -1}

    def _change(self, text: str, **changes) -> None:
        """One undoable step from the current snapshot to one with ``changes``."""
        before = self._snapshot()
        after = dict(before, **changes)
        self.undo_stack.push(SnapshotCommand(self._apply_state, before, after, text))

    def _sync_controls(self) -> None:
        widgets = (self.source_box, self.arch_edit, self.seed_spin, self.tent_spin)
        for w in widgets:
            w.blockSignals(True)
        self.source_box.setCurrentIndex(SOURCE_KEYS.index(self.source))
        self.arch_edit.setText("-".join(map(str, self.architecture)))
        self.seed_spin.setValue(self.seed)
        self.tent_spin.setValue(self.tent_depth)
        for w in widgets:
            w.blockSignals(False)

    # -- sources --------------------------------------------------------------
    @staticmethod
    def _network_problem(net) -> str | None:
        if not isinstance(net, MLP):
            return f"expected a network, got {type(net).__name__}"
        if net.activation != "relu":
            return f"the converter needs ReLU hidden layers, this network uses {net.activation}"
        if len(net.layers) < 2:
            return "the network has no hidden layer: it is already shallow"
        if not net.is_finite():
            return "the network has NaN or infinite weights"
        try:
            check_network_size(net.sizes)
        except ValueError as e:
            return str(e)
        return None

    def _show_message(self, text: str, error: bool = False) -> None:
        self.message.setText(text)
        role = "error" if error else "muted"
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
            self.set_tent_depth(self.tent_depth)
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
        else:
            self.seed = value

    def _use_random(self, sizes, seed, text) -> None:
        net = MLP.random(sizes, seed=seed)
        self._show_message("")
        self._change(text, source="random", architecture=list(sizes), seed=int(seed), network=net,
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
        seed = (self.seed + 1) % 1_000_000
        self._use_random(sizes, seed, f"random network, seed {seed}")

    def _on_tent_depth(self, depth: int) -> None:
        self.set_tent_depth(depth)

    def set_tent_depth(self, depth: int) -> None:
        if not tent_available():
            self._show_message("The tent map comes from the Folding panel: send it from there.",
                               error=True)
            self._sync_controls()
            return
        self._show_message("")
        self._change(f"tent map, depth {depth}", source="tent", tent_depth=int(depth),
                     network=tent_network(int(depth)), file=None)

    def receive(self, kind: str, payload) -> bool:
        """Take ``"network"`` (an MLP) or ``"tent"`` (an MLP, or {"network": MLP, "depth": k})."""
        if kind not in ("network", "tent"):
            return False
        net, depth = payload, None
        if isinstance(payload, dict):
            net, depth = payload.get("network"), payload.get("depth")
        problem = self._network_problem(net)
        if problem:
            self._show_message(f"Received network not taken: {problem}.", error=True)
            return False
        self._show_message("")
        if kind == "tent":
            changes = {"source": "tent", "network": net, "file": None}
            if isinstance(depth, int) and 1 <= depth <= 8:
                changes["tent_depth"] = depth
            self._change("tent map from the Folding panel", **changes)
        else:
            self.received = net
            self._change("network from another panel", source="received", network=net, file=None)
        return True

    def load_file(self, path) -> bool:
        """Read a deep network from a file; on any problem say so and keep the current one."""
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
        problem = self._network_problem(net)
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
        if path and Path(path).suffix.lower() in SUFFIXES:
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
        if self.result is None:
            self._show_message("Nothing to export yet: the conversion is still running.", error=True)
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
        self._request += 1
        req = self._request
        net = self.net
        self.verdict.setText("converting…" if net.n_in < 2 or engine_ready(net.n_in) else
                             "preparing the exact region engine (first use only), then converting…")
        self._threads = [t for t in self._threads if t.is_alive()]

        def stale() -> bool:  # a newer request or a closing panel: stop early
            return self._closing or req != self._request

        def work():
            try:
                out = compute(net, should_stop=stale)
            except EnumerationStopped:
                return
            except Exception as e:  # shown in the panel, the previous picture stays
                out = e
            if not self._closing:
                try:
                    self._worker_done.emit(req, out)
                except RuntimeError:  # the panel was deleted meanwhile
                    pass

        t = threading.Thread(target=work, name=f"converter-{req}", daemon=True)
        self._threads.append(t)
        t.start()

    @property
    def busy(self) -> bool:
        """True while the latest conversion has not been drawn yet."""
        return self._done_request != self._request

    def _on_worker_done(self, req: int, out) -> None:
        if req != self._request or self._closing:
            return  # a newer request is running: the latest wins
        self._done_request = req
        if isinstance(out, Exception):
            self._show_message(f"Conversion failed: {out}", error=True)
            self.verdict.setText("conversion failed")
            return
        self.result = out
        if not (0 <= self.selected_region < len(out.conversion.regions)):
            self.selected_region = -1
        self._redraw()
        self.converted.emit()

    def wait_for_result(self, timeout: float = 30.0) -> None:
        """Block until the worker of the latest request has finished (for scripts)."""
        for t in list(self._threads):
            t.join(timeout)

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
        n, m = conv.n_in, conv.n_out
        terms = (2 * n + conv.k, 2 * n + conv.p, 2 * conv.p * m)
        return [
            ["deep", str(len(deep.hidden_sizes)), "-".join(map(str, deep.hidden_sizes)),
             str(deep.n_hidden_neurons), str(deep.n_params)],
            ["shallow", str(len(shallow.hidden_sizes)),
             "-".join(map(str, shallow.hidden_sizes)) or "0", str(sum(shallow.hidden_sizes)),
             str(shallow.n_params)],
            ["Corollary 1", "3", f"max{{{terms[0]}, {terms[1]}, {terms[2]}}} = {conv.bound}",
             f"≤ {3 * conv.bound}", ""],
        ]

    def _draw_sizes(self, conv: Conversion) -> None:
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
        n, m = conv.n_in, conv.n_out
        html.append(f"<p>Corollary 1: width ≤ max{{2n + k, 2n + p, 2pm}} = max{{{2 * n + conv.k}, "
                    f"{2 * n + conv.p}, {2 * conv.p * m}}} = {conv.bound}"
                    + (" (k = 2(p − 1) in 1-D)" if conv.one_d is not None else "") + "</p>")
        self.sizes_label.setText("".join(html))
        self.sizes_label.setWordWrap(True)

    def _draw_verdict(self, res: Result) -> None:
        conv, v = res.conversion, res.verification
        tol = v.tolerance()
        if conv.one_d is not None:
            at_kinks = v.max_error_at_kinks if v.max_error_at_kinks is not None else 0.0
            ok = v.ok()  # within the scale-relative rounding bound (model.shallow.ROUNDING)
            text = (f"{'Equal up to rounding' if ok else 'NOT equal'}: largest |deep − shallow| "
                    f"{max(v.max_error_exact_points, v.max_error_random):.2g} "
                    f"({v.max_rounding_ratio:.2g} of the rounding bound); at every kink "
                    f"{at_kinks:.2g} ({len(conv.one_d.kinks)} kinks, and between them); end "
                    f"slopes {'agree' if v.end_slopes_agree else 'DIFFER'}.")
            summary = (f"1-D: K = {len(conv.one_d.kinks)} kinks ({conv.one_d.certificate}) → one "
                       f"hidden layer of width {conv.one_d.width} with finite weights. "
                       f"{conv.one_d.rule}.")
        else:
            ok = v.max_error_exact_points <= tol and v.max_error_random <= tol
            text = (f"{'Equal' if ok else 'NOT equal'}: largest |deep − shallow| "
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
        self.verdict.setStyleSheet(f"color: {self.theme.color('foreground' if ok else 'error').name()};"
                                   " font-weight: bold;")

    def _draw_1d(self, res: Result) -> None:
        item = self.main_plot.getPlotItem()
        item.setLabel("bottom", "x")
        item.setLabel("left", "f(x)")
        m = res.conversion.n_out
        item.setTitle("deep (solid) and shallow (dashed)" + (f", output 1 of {m}" if m > 1 else ""))
        self.deep_curve.setVisible(True)
        self.shallow_curve.setVisible(True)
        self.deep_curve.setData(res.curve_x, res.deep_y)
        self.shallow_curve.setData(res.curve_x, res.shallow_y)
        t = res.conversion.one_d.kinks
        if len(t):
            self.kink_marks.setData(t, [row[2] for row in res.kink_rows])
        else:
            self.kink_marks.setData([], [])
        self.kink_marks.setVisible(True)
        diff = res.deep_y - res.shallow_y
        self.diff_curve.setData(res.curve_x, diff)
        self.diff_plot.getPlotItem().setLabel("left", "deep − shallow")
        self.diff_plot.getPlotItem().setLabel("bottom", "x")
        span = max(1e-15, float(np.abs(diff).max()) * 1.2)
        self.diff_plot.setYRange(-span, span, padding=0)
        self.main_plot.getPlotItem().getViewBox().setAspectLocked(False)
        item.enableAutoRange()
        self.kink_table.setRowCount(len(res.kink_rows))
        for r, row in enumerate(res.kink_rows):
            texts = [str(row[0]), f"{row[1]:.5g}", f"{row[2]:.4g}", f"{row[3]:.3g}", f"{row[4]:.0e}"]
            for c, text in enumerate(texts):
                self.kink_table.setItem(r, c, QTableWidgetItem(text))
        widths = res.conversion.shallow.hidden_sizes
        self.layers_label.setText(
            f"Shallow network: {res.conversion.n_in} → {widths[0] if widths else 0} → "
            f"{res.conversion.n_out}, every weight finite; exportable as JSON, NPZ and ONNX.")

    def _draw_nd(self, res: Result) -> None:
        conv = res.conversion
        self.deep_curve.setVisible(False)
        self.shallow_curve.setVisible(False)
        self.kink_marks.setVisible(False)
        self.kink_table.setRowCount(0)
        item = self.main_plot.getPlotItem()
        w = conv.shallow_widths
        n, m = conv.n_in, conv.n_out
        self.layers_label.setText(
            "Shallow network (3 hidden layers, ±∞ rows):\n"
            f"  1. {w[0]} = 2n + k = {2 * n} + {conv.k}: x⁺, x⁻ and one detector per constraint\n"
            f"  2. {w[1]} = 2n + p = {2 * n} + {conv.p}: x⁺, x⁻ and o_r (0 inside region r, ∞ outside)\n"
            f"  3. {w[2]} = 2pm = 2·{conv.p}·{m}: ReLU(±(A_r x + c_r) − o_r)\n"
            "Export as JSON or NPZ (ONNX cannot hold ∞). This follows a reconstruction of "
            "Villani & Schoots' construction; the paper's count of k and its treatment of "
            "region boundaries may differ.")
        if n != 2:
            item.setTitle(f"{n}-D input: no map (regions: {conv.p})")
            return
        item.setTitle(f"{conv.p} activation regions on R² (click one)")
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
            colour = QColor(self.theme.series_color(idx % 7))
            colour.setAlpha(REGION_ALPHA if idx != self.selected_region else 230)
            gi.setBrush(QBrush(colour))
            gi.setPen(selected_pen if idx == self.selected_region else outline)
            gi.setZValue(2 if idx == self.selected_region else 1)

    def select_region(self, index: int) -> None:
        """Show region ``index``'s affine map and constraints (−1: none)."""
        regions = self.result.conversion.regions if self.result else []
        self.selected_region = index if 0 <= index < len(regions) else -1
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
                               [list(r) for r in self.result.kink_rows])
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
        self._style_regions()
        if self.result is not None:
            self._draw_verdict(self.result)

    def shutdown(self) -> None:
        self._closing = True
        for t in self._threads:
            t.join(30.0)
        self._threads = []
        super().shutdown()


if __name__ == "__main__":
    sys.exit(run_alone(ConverterPanel))
