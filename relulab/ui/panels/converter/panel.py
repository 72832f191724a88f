"""The Deep → shallow panel: a deep ReLU network and its exactly equal shallow one.

Source: a random network with an editable architecture, a network sent by another
panel, the tent map, a file (open or drop), or the digits classifier that ships with
the app. 1-D input: deep and shallow curves overlaid, their difference, the kink
list and the verdict. 2-D input: the exact region map (click a region for its affine
map and constraints), the shallow network's three layers and the verdict. Sizes side
by side with Corollary 1's bound. A network with more than four inputs is looked at
on a slice, a line through two points or a plane through three
(:mod:`relulab.ui.panels.converter.slices`); what is converted is the restricted
network. The state is :class:`relulab.model.lessons.converter.ConverterState`; the
conversion runs on a :class:`~relulab.ui.worker.Worker` (the latest request wins, an
earlier one stops at its next check).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from relulab.model.lessons.converter import (
    MAX_SEED,
    MAX_TENT_DEPTH,
    SOURCES,
    ConverterState,
    default_slice,
    needs_slice,
    network_problem,
    parse_architecture,
    tent,
)
from relulab.model.networks.mlp import MLP
from relulab.model.regions.engine import engine_ready, start_warm_up
from relulab.model.regions.slices import (
    ParsedPoint,
    SliceState,
    parse_points,
    points_needed,
    random_points,
    slice_state,
    split_points,
)
from relulab.ui import dialogs
from relulab.ui.items.path_item import PathItem
from relulab.ui.panels.base import Key, Panel, named, signals_blocked
from relulab.ui.panels.converter import jobs
from relulab.ui.panels.converter.jobs import EXAMPLE, EXAMPLE_ROWS, Result, SliceView
from relulab.ui.panels.converter.slices import (
    PAINTER_PATHS,
    SliceBar,
    SliceDrawing,
    polygons_path,
)
from relulab.ui.readout import Readout
from relulab.ui.staged import StagedDrawing
from relulab.ui.worker import Worker

SOURCE_LABELS = {"random": "Random network", "received": "From another panel",
                 "tent": "Tent map", "file": "File", "example": "Example: digits classifier"}
VIEW_2D = (-3.0, 3.0, -3.0, 3.0)     # what the map shows first
REGION_ALPHA = 110
#: Regions take the first series colours in turn (the seventh, black or white, would
#: read as a hole in the map).
REGION_COLOURS = 6
NETWORK_SUFFIXES = (".json", ".npz", ".onnx")  # what relulab.io.networks reads


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
    # the lecture's caption says what these say: the plots and the sizes take the room
    lecture_hidden = ("converter-explain", "converter-details")

    #: ``converted()``: after a conversion is drawn (its verdict is on screen).
    #: ``finished("conversion")`` (see Panel): the same, and also when it failed.
    converted = Signal()

    def __init__(self, host=None, parent=None):
        super().__init__(host, parent)
        self._state = ConverterState()
        self.received: MLP | None = None  # the last network another panel sent
        self.result: Result | None = None
        # the 2-D map: one path per colour, and the selected region on top
        self._region_items: list[PathItem] = []
        self._region_polygons: list = []     # the polygons they draw
        self._selected_item: PathItem | None = None
        self._worker = Worker("converter", self)
        start_warm_up()  # the region engine's compiled loops, off the GUI thread
        #: the points file of the slice (relulab.model.regions.slices.InputRows), read on its
        #: own worker; ``_rows_source`` is the path (or example:…) it was read from
        self.rows = None
        self._rows_source: str | None = None
        self._rows_then = None               # what to do once the file is read
        self._data_worker = Worker("converter-data", self)
        # A result is drawn in stages, one per pass of the event loop, each painted
        # before the next (the words and the table, the plot, the difference): drawn at
        # once, all of it is painted in one go, 60-90 ms for 1-512-512-1.
        self._staged = StagedDrawing(self)
        self.slice_view: SliceView | None = None
        self._lecture_layout = False
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
        return self._worker.busy or self.drawing_pending()

    def drawing_pending(self) -> bool:
        return self._staged.busy

    # -- building -------------------------------------------------------------
    def _build(self) -> None:
        outer = QHBoxLayout(self)
        self._left = named(QWidget(self), "converter-left", "Converter controls and sizes")
        column = QVBoxLayout(self._left)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self._build_controls())
        self.slice_bar = SliceBar()
        column.addWidget(self.slice_bar)
        self.sizes_label = Readout("converter-sizes", "Sizes: deep, shallow, bound", "sizes",
                                   wrap=True, text_format=Qt.TextFormat.RichText)
        self.sizes_label.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        column.addWidget(self.sizes_label)
        column.addStretch(1)
        outer.addWidget(self._left)
        right = QVBoxLayout()
        self.explain = Readout("converter-explain", "What the panel shows, in words",
                               "explanation", wrap=True)
        self.verdict = Readout("converter-verdict", "Verdict", "verdict", wrap=True)
        self.verdict.set_value(None, "converting…")
        # the technical account (counts, the certificate, the rule) goes with the details
        self.summary_label = Readout("converter-summary", "What was converted", "summary",
                                     wrap=True)
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
        self.slice_drawing = SliceDrawing(self.main_plot, self.theme)

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
        self.message = Readout("converter-message", "Messages", "message", wrap=True)
        form.addRow(self.message)
        return controls

    def _build_plots(self) -> QSplitter:
        plots = QSplitter(Qt.Orientation.Vertical)
        self.main_plot = named(
            pg.PlotWidget(), "converter-main-plot", "Deep and shallow functions",
            description="1-D input: the deep network (solid) and the shallow one (dashed) "
            "against x, with a marker at each kink. 2-D input: the map of the deep network's "
            "activation regions; click one for its affine map and constraints.")
        self.main_plot.getPlotItem().setMenuEnabled(False)
        self.diff_plot = named(pg.PlotWidget(), "converter-difference-plot",
                               "Difference deep minus shallow",
                               description="The difference deep − shallow against x (1-D "
                               "input): zero up to rounding when the two are equal.")
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
        self.layers_label = Readout("converter-shallow-layers", "The shallow network's layers",
                                    "shallow_layers", wrap=True)
        self.kinks = KinkTable(self)
        self.kink_table = named(QTableView(), "converter-kinks", "Kink list")
        self.kink_table.setModel(self.kinks)
        self.kink_table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.kink_table.setEditTriggers(QTableView.EditTrigger.NoEditTriggers)
        self.kink_table.verticalHeader().setVisible(False)
        self.region_info = Readout("converter-region-info", "Selected region", "selected_region",
                                   text="Click a region to see its affine map and constraints.",
                                   wrap=True, selectable=True)
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
        self._worker.progress.connect(self._on_slice_drawn)
        self._data_worker.finished.connect(self._on_rows_read)
        self._data_worker.failed.connect(self._on_rows_failed)
        bar = self.slice_bar
        bar.kind_chosen.connect(self._on_slice_kind)
        bar.mode_chosen.connect(self._on_slice_mode)
        bar.rows_chosen.connect(self.set_slice_rows)
        bar.seed_chosen.connect(self.set_slice_seed)
        bar.points_typed.connect(self.set_slice_points)
        bar.open_data.connect(self._open_points_dialog)
        bar.export_sliced.connect(self._export_sliced_dialog)

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
        self._sync_slice_bar()

    def _sync_slice_bar(self) -> None:
        s = self._state
        self.slice_bar.setVisible(s.sliced and not self._lecture_layout)
        # a slice's picture needs the width the sizes column takes (on a projector)
        self._left.setVisible(not (s.sliced and self._lecture_layout))
        if not s.sliced:
            return
        cut = s.slice
        if cut.data is not None and cut.data != self._rows_source and self._rows_then is None:
            self._read_rows(cut.data, then=None)  # for the row numbers and labels only
        rows = self.rows if (cut.data is not None and cut.data == self._rows_source) else None
        arch = "-".join(map(str, self.net.sizes))
        self.slice_bar.show_state(cut, self.net.n_in, rows,
                                  f"{arch}: {self.net.n_in} inputs, shown on a slice")

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
            self._change("network from another panel", source="received", network=self.received,
                         slice=self._slice_for(self.received))
        elif key == "tent":
            self.set_tent_depth(self._state.tent_depth)
        elif key == "file":
            self._sync_controls()
            self._open_dialog()
        elif key == "example":
            self.open_example()

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
                     file=None, slice=self._slice_for(net))

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
                     network=tent(int(depth)), file=None, slice=None)

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
            self._change("tent map from the Folding panel", slice=self._slice_for(net), **changes)
        else:
            self.received = net
            self._change("network from another panel", source="received", network=net, file=None,
                         slice=self._slice_for(net))
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
        more = (f" {net.n_in} inputs: shown on a slice (choose it below)."
                if needs_slice(net) else "")
        self._show_message(f"Opened {path.name}.{more}")
        self._change(f"open {path.name}", source="file", network=net, file=str(path),
                     slice=self._slice_for(net))
        return True

    def _open_dialog(self) -> None:
        filters = "Networks (*.json *.npz *.onnx);;All files (*)"
        path, _ = dialogs.open_file_name(self, "Open a deep network", "", filters,
                                         instead="window.panel('converter').load_file(path)")
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

    # -- slices -----------------------------------------------------------------
    def _slice_for(self, net: MLP) -> SliceState | None:
        """The slice to show ``net`` on: none when it is converted whole; the current
        one when it fits; else the first rows of the points file; else a random plane."""
        if not needs_slice(net):
            return None
        cur = self._state.slice
        if cur is not None and len(cur.points[0]) == net.n_in:
            return cur
        if self.rows is not None and self.rows.n_inputs == net.n_in and self.rows.n_rows >= 3:
            return self._rows_slice("plane", (0, 1, 2))
        return default_slice(net)

    def _rows_slice(self, kind: str, rows: tuple, data: str | None = None) -> SliceState:
        cur = self._state.slice
        R = self.rows
        points = [ParsedPoint(R.X[i], R.row_label(i), i) for i in rows]
        return slice_state(kind, points, "rows", seed=cur.seed if cur else 0,
                           text="; ".join(map(str, rows)),
                           data=data or self._rows_source, image_shape=R.image_shape)

    def _change_slice(self, text: str, cut: SliceState) -> None:
        self._show_message("")
        self.commit(replace(self._state, slice=cut, selected_region=-1), text)
        self._sync_slice_bar()

    def _slice_refused(self, what: str, e: Exception) -> None:
        self._show_message(f"{what}: {e}", error=True)
        self._sync_slice_bar()  # the controls go back to the slice on screen

    def set_slice_rows(self, rows) -> bool:
        """Slice through these rows of the points file (2: a line, 3: a plane)."""
        rows = tuple(int(r) for r in rows)
        if self.rows is None or self._state.slice is None:
            self._slice_refused("Rows", ValueError("open a points file first"))
            return False
        if self.rows.n_inputs != self.net.n_in:
            self._slice_refused("Rows", ValueError(
                f"{self.rows.name} has rows of {self.rows.n_inputs} numbers; the network has "
                f"{self.net.n_in} inputs"))
            return False
        try:
            if len(rows) not in (2, 3) or not all(0 <= r < self.rows.n_rows for r in rows):
                raise ValueError(f"choose 2 or 3 rows from 0 to {self.rows.n_rows - 1}")
            cut = self._rows_slice("line" if len(rows) == 2 else "plane", rows)
        except ValueError as e:
            self._slice_refused("Rows", e)
            return False
        self._change_slice(f"slice through rows {', '.join(map(str, rows))}", cut)
        return True

    def _random_slice(self, kind: str, seed: int) -> SliceState:
        n = self.net.n_in
        if self.rows is not None and self.rows.n_inputs == n:
            centre, scale = self.rows.spread()
            names = ("mean", "mean + s·d₁", "mean + s·d₂")
        else:
            centre, scale = None, max(1.0, float(np.sqrt(n)) / 4)  # as default_slice
            names = ("0", "s·d₁", "s·d₂")
        P = random_points(n, kind, seed, centre, scale)
        cur = self._state.slice
        return slice_state(kind, [ParsedPoint(x, name) for x, name in zip(P, names)], "random",
                           seed=seed, text=cur.text if cur else "",
                           data=cur.data if cur else None,
                           image_shape=cur.image_shape if cur else None)

    def set_slice_seed(self, seed: int) -> bool:
        """A random line or plane (of the current kind) with this seed."""
        cut = self._state.slice
        if cut is None:
            return False
        try:
            new = self._random_slice(cut.kind, int(seed))
        except ValueError as e:
            self._slice_refused("Random slice", e)
            return False
        self._change_slice(f"random slice, seed {seed}", new)
        return True

    def set_slice_points(self, text: str) -> bool:
        """Typed points separated by ';' (2: a line, 3: a plane); see relulab.model.regions.slices
        for what a point may be. Errors are shown, the slice on screen stays."""
        cut = self._state.slice
        if cut is None:
            return False
        parts = split_points(text)
        try:
            if len(parts) not in (2, 3):
                raise ValueError("type 2 points (a line) or 3 (a plane), separated by ';'")
            rows = self.rows if (self.rows is not None
                                 and self.rows.n_inputs == self.net.n_in) else None
            points = parse_points(parts, self.net.n_in, rows)
            new = slice_state("line" if len(parts) == 2 else "plane", points, "typed",
                              seed=cut.seed, text=text.strip(),
                              data=self._rows_source if rows is not None else cut.data,
                              image_shape=cut.image_shape)
        except ValueError as e:
            self._slice_refused("Typed points", e)
            return False
        self._change_slice("typed slice", new)
        return True

    def _on_slice_kind(self, kind: str) -> None:
        cut = self._state.slice
        if cut is None or kind == cut.kind:
            return
        k = points_needed(kind)
        if cut.mode == "rows" and self.rows is not None:
            rows = [r for r in cut.rows if r is not None]
            spare = [r for r in range(self.rows.n_rows) if r not in rows]
            rows = (rows + spare)[:k]
            self.set_slice_rows(tuple(rows))
        elif cut.mode == "random":
            try:
                self._change_slice(f"random {kind}", self._random_slice(kind, cut.seed))
            except ValueError as e:
                self._slice_refused("Random slice", e)
        elif k == 2:  # a line through the plane's first two points
            new = replace(cut, kind="line", points=cut.points[:2], labels=cut.labels[:2],
                          rows=cut.rows[:2])
            self._change_slice("line through A and B", new)
        else:
            self._slice_refused("Plane", ValueError("type three points separated by ';' (the "
                                                    "line has two)"))

    def _on_slice_mode(self, mode: str) -> None:
        cut = self._state.slice
        if cut is None or mode == cut.mode:
            return
        if mode == "rows":
            if self.rows is None or self.rows.n_inputs != self.net.n_in:
                self._sync_slice_bar()
                self._open_points_dialog()
                return
            self.set_slice_rows(tuple(range(points_needed(cut.kind))))
        elif mode == "random":
            self.set_slice_seed(cut.seed)
        else:  # typed: the same points, now edited as text
            text = cut.text or "; ".join("[" + ", ".join(f"{v:.6g}" for v in p) + "]"
                                          for p in cut.points)
            self._change_slice("typed slice", replace(cut, mode="typed", text=text))

    # points files, read on their own worker (a large CSV takes seconds)
    def load_points(self, path) -> None:
        """Read a points file (CSV or NPZ rows of inputs) and slice through its first
        rows; a problem is shown and changes nothing. The file is read off the GUI
        thread: wait with ``wait_until_idle``."""
        self._read_rows(str(path), then=self._slice_through_first_rows)

    def _slice_through_first_rows(self) -> None:
        cut = self._state.slice
        if self.rows.n_inputs != self.net.n_in:
            self._show_message(f"{self.rows.name} has rows of {self.rows.n_inputs} numbers; the "
                               f"network has {self.net.n_in} inputs", error=True)
            return
        k = points_needed(cut.kind) if cut is not None else 3
        if self.rows.n_rows < k:
            self._show_message(f"{self.rows.name} has {self.rows.n_rows} row(s); a {cut.kind} "
                               f"needs {k}", error=True)
            return
        self.set_slice_rows(tuple(range(k)))

    def _read_rows(self, source: str, then) -> None:
        self._rows_then = then
        self._data_worker.submit(lambda should_stop: (source, jobs.read_rows(source)))

    def _on_rows_read(self, got) -> None:
        source, rows = got
        self.rows, self._rows_source = rows, source
        then, self._rows_then = self._rows_then, None
        if then is not None:
            then()
        self._sync_slice_bar()

    def _on_rows_failed(self, exc: Exception) -> None:
        self._rows_then = None
        self._show_message(str(exc), error=True)

    def _open_points_dialog(self) -> None:
        filters = "Points (*.csv *.npz);;All files (*)"
        path, _ = dialogs.open_file_name(self, "Open a points file (rows of inputs)", "", filters,
                                         instead="window.panel('converter').load_points(path)")
        if path:
            self.load_points(path)

    def open_example(self) -> bool:
        """Open the digits classifier that ships with the app, sliced by the plane
        through three of its pictures."""
        from relulab.io.networks import NetworkFileError

        try:
            net = jobs.example_network()
            rows = jobs.read_rows(f"example:{EXAMPLE}")
        except (NetworkFileError, ValueError, OSError) as e:
            self._show_message(f"The example could not be read: {e}", error=True)
            self._sync_controls()
            return False
        self.rows, self._rows_source = rows, f"example:{EXAMPLE}"
        self._show_message("Example: a 64-32-32-10 classifier of 8×8 digits, on the plane "
                           "through three of its pictures.")
        self._change("example: digits classifier", source="example", network=net, file=None,
                     slice=self._rows_slice("plane", EXAMPLE_ROWS))
        return True

    def export_sliced(self, path) -> bool:
        """Write the restricted network of the slice on screen (format by extension)."""
        from relulab.io.networks import NetworkFileError, save_network

        if self._state.slice is None:
            self._show_message("Nothing to save: this network is not sliced.", error=True)
            return False
        try:
            save_network(self._state.slice.slice().restrict(self.net), path)
        except NetworkFileError as e:
            self._show_message(str(e), error=True)
            return False
        self._show_message(f"Saved the sliced network to {Path(path).name}.")
        return True

    def _export_sliced_dialog(self) -> None:
        path, chosen = dialogs.save_file_name(
            self, "Save the sliced network", "slice.json",
            "JSON (*.json);;NumPy (*.npz);;ONNX (*.onnx)",
            instead="window.panel('converter').export_sliced(path)")
        if path:
            if not Path(path).suffix:
                path += "." + chosen.split("*.")[1].rstrip(")")
            self.export_sliced(path)

    # -- export ---------------------------------------------------------------
    def export_shallow(self, path) -> bool:
        """Write the shallow network (format by extension); errors are shown, not raised."""
        from relulab.io.networks import NetworkFileError, save_network

        if self.result is None:
            self._show_message("Nothing to export yet: the conversion is still running."
                               if self.busy else "Nothing to export: the conversion failed.",
                               error=True)
            return False
        if self.result.conversion is None:
            self._show_message(f"Nothing to export: the slice was not converted "
                               f"({self.result.problem})", error=True)
            return False
        try:
            save_network(self.result.conversion.shallow, path)
        except NetworkFileError as e:
            self._show_message(str(e), error=True)
            return False
        self._show_message(f"Saved the shallow network to {Path(path).name}.")
        return True

    def _export_dialog(self) -> None:
        finite = (self.result is not None and self.result.conversion is not None
                  and self.result.conversion.one_d is not None)
        filters = ("JSON (*.json);;NumPy (*.npz);;ONNX (*.onnx)" if finite
                   else "JSON (*.json);;NumPy (*.npz)")
        path, chosen = dialogs.save_file_name(
            self, "Export the shallow network", "shallow.json", filters,
            instead="window.panel('converter').export_shallow(path)")
        if path:
            if not Path(path).suffix:
                path += "." + chosen.split("*.")[1].rstrip(")")
            self.export_shallow(path)

    # -- the worker ------------------------------------------------------------
    def _start_conversion(self) -> None:
        net = self.net
        self.verdict.set_value(None, "converting…" if net.n_in < 2 or engine_ready(net.n_in) else
                               "preparing the exact region engine (first use only), then converting…")
        # The last result belongs to the last network: let it go now rather than hold
        # two conversions (hundreds of MB for thousands of regions) at once, with the
        # stages of its drawing not drawn yet (they would announce a result now gone).
        self.result = None
        self._staged.cancel()
        cut = self._state.slice
        if cut is not None:
            self.verdict.setText("slicing…")
            palette = self.slice_drawing.palette(net.n_out)
            self._worker.submit(lambda should_stop: jobs.compute_sliced(
                net, cut, should_stop, palette, PAINTER_PATHS))
            return
        self._worker.submit(lambda should_stop: jobs.compute(net, should_stop=should_stop))

    def _on_converted(self, result: Result) -> None:
        self.result = result
        if result.slice_view is not None:
            count = len(result.slice_view.polygons)
        else:
            count = len(result.conversion.regions)
        if not 0 <= self.selected_region < count:
            self._state = replace(self._state, selected_region=-1)
        # the first stage now, the others in the next passes; the result is announced
        # once all are drawn
        self._staged.run(self._redraw(), done=self._announce_converted)

    def _announce_converted(self) -> None:
        self.converted.emit()
        self.finished.emit("conversion")

    def _on_slice_drawn(self, view: SliceView) -> None:
        """The slice's picture, before its conversion is done."""
        self._show_slice_picture(view)
        self.verdict.setText("converting the slice…")

    def _on_failed(self, exc: Exception) -> None:
        # shown in the panel; the previous picture stays
        self._show_message(f"Conversion failed: {exc}", error=True)
        self.verdict.set_value("failed", "conversion failed")
        self.finished.emit("conversion")

    # -- drawing ----------------------------------------------------------------
    def _redraw(self) -> list:
        """Draw the result's first stage; returns the stages still to draw."""
        res = self.result
        if res.slice_view is not None:
            self._redraw_slice(res)
            return []
        self.slice_drawing.clear()
        self.slice_view = None
        conv = res.conversion
        one_d = conv.one_d is not None
        self._clear_regions()
        self._draw_sizes(conv)
        self._draw_verdict(res)
        # Between a 1-D and a 2-D result the layout changes (the kink table and the
        # difference plot come or go, and every axis is drawn anew at its new size):
        # a pass of its own, after the words'.
        stages = [lambda: self._show_parts(one_d)]
        return stages + (self._draw_1d(res) if one_d else self._draw_nd(res))

    def _show_parts(self, one_d: bool) -> None:
        """The kink table and the difference plot for a 1-D result, the region's
        details for the others."""
        self.kink_table.setVisible(one_d)
        self.diff_plot.setVisible(one_d)
        self.region_info.setVisible(not one_d)

    def _show_slice_picture(self, view: SliceView) -> None:
        self.slice_view = view
        self._clear_regions()
        line = view.cut.kind == "line"
        self.deep_curve.setVisible(False)
        self.shallow_curve.setVisible(False)
        self.kink_marks.setVisible(False)
        self.legend.setVisible(False)  # its entries are the deep and shallow curves
        self.slice_drawing.theme = self.theme
        cut = self._state.slice
        self.slice_drawing.draw(view, image_shape=cut.image_shape if cut is not None else None)
        self.kink_table.setVisible(line)
        self.diff_plot.setVisible(line)
        self.region_info.setVisible(not line)
        if not 0 <= self.selected_region < len(view.polygons):
            self._state = replace(self._state, selected_region=-1)
        self.slice_drawing.select(self.selected_region)
        self._show_region_info()

    def _redraw_slice(self, res: Result) -> None:
        view = res.slice_view
        if view is not self.slice_drawing.view:
            self._show_slice_picture(view)
        conv = res.conversion
        if conv is None:
            self.sizes_label.setText(self._unbuilt_sizes(res))
            self.layers_label.setText("")
            self.kinks.set_rows(np.zeros((0, 5)))
            self.diff_curve.setData([], [])
            self.verdict.setText(f"The shallow network is not built here: {res.problem}")
            self.verdict.setStyleSheet(f"color: {self.theme.color('foreground').name()};"
                                       " font-weight: bold;")
            self.summary_label.setText(self._slice_summary(res))
            self.explain.setText(self._explanation(res))
            return
        self._draw_sizes(conv)
        self._draw_verdict(res)
        if conv.one_d is not None:
            self.kinks.set_rows(res.kink_rows)
            diff = res.deep_y - res.shallow_y
            worst = np.abs(diff).max(axis=0)
            o = int(np.argmax(worst)) if len(worst) else 0
            self.diff_curve.setData(res.curve_x, diff[:, o])
            item = self.diff_plot.getPlotItem()
            item.setLabel("left", "deep − shallow")
            item.setTitle(f"output {o}, the largest difference" if diff.shape[1] > 1 else None)
            item.setLabel("bottom", "t")
            span = max(1e-15, float(np.abs(diff[:, o]).max()) * 1.2)
            self.diff_plot.setYRange(-span, span, padding=0)
            widths = conv.shallow.hidden_sizes
            self.layers_label.setText(
                f"Shallow network of the slice: 1 → {widths[0] if widths else 0} → {conv.n_out}, "
                "every weight finite; exportable as JSON, NPZ and ONNX.")
        else:
            self._draw_layers_nd(conv)
        self._show_region_info()

    def _unbuilt_sizes(self, res: Result) -> str:
        """The deep network of the slice and Corollary 1's widths, when the shallow one
        is not built (the widths are what it would have)."""
        r = res.slice_view.restricted
        hidden = r.hidden_sizes
        rows = [("hidden layers", len(hidden)), ("widths", "-".join(map(str, hidden))),
                ("neurons", sum(hidden)), ("parameters", r.n_params)]
        cell = 'style="padding: 2px 6px;"'
        html = ["<table>", f"<tr><th></th><th {cell}>deep (slice)</th></tr>"]
        html += [f"<tr><th {cell} align='left'>{a}</th><td {cell} align='center'>{b}</td></tr>"
                 for a, b in rows]
        html.append("</table>")
        if res.terms is not None:
            w, p, k = res.terms
            html.append(f"<p>Corollary 1: width ≤ max{{{', '.join(map(str, w))}}} = {max(w)} "
                        f"(p = {p}, k = {k})</p>")
        return "".join(html)

    def _slice_summary(self, res: Result) -> str:
        view = res.slice_view
        cut = view.cut
        r = view.restricted
        arch = "-".join(map(str, r.sizes))
        rows = [r for r in self._state.slice.rows if r is not None] if self._state.slice else []
        names = ", ".join("ABC"[:len(cut.coords)])
        through = f" (rows {', '.join(map(str, rows))})" if len(rows) == len(cut.coords) else ""
        text = (f"The {cut.kind} through {names}{through}: the restricted network {arch} "
                "(first layer W·D, W·o + b). ")
        conv = res.conversion
        if cut.kind == "line":
            lp = view.pieces
            counts = [o.n_kinks for o in lp.outputs]
            text += (f"{len(lp.kinks)} exact kinks on the whole line ({lp.certificate})"
                     + (f", per output {', '.join(map(str, counts))}"
                        if len(set(counts)) > 1 else
                        (" where every output bends" if len(counts) > 1 else "")) + ".")
            if conv is not None:
                text += f" One hidden layer of width {conv.one_d.width}: {conv.one_d.rule}."
        else:
            text += f"{len(view.polygons)} exact regions in the box"
            if conv is not None:
                text += (f"; p = {conv.p} on the whole plane ({res.lower_dimensional} "
                         f"lower-dimensional), k = {conv.k} constraints")
            elif res.terms is not None:
                text += f"; p = {res.terms[1]} on the whole plane, k = {res.terms[2]} constraints"
            text += "."
            if view.decisions is not None:
                text += " Colours: the class each region's affine map gives (argmax)."
        return text

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
        spoken = "; ".join(f"{r[0]}: {r[1]} hidden layers, widths {r[2]}, {r[3]} neurons, "
                           f"{r[4]} parameters" for r in rows[:2])
        spoken += f"; Corollary 1: width ≤ {conv.bound_text()}"
        self.sizes_label.set_value(spoken, "".join(html), spoken)

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
        if res.slice_view is not None:
            summary = self._slice_summary(res)
        self.verdict.set_value("equal" if ok else "not equal", text)
        self.summary_label.setText(summary)
        self.explain.setText(self._explanation(res))
        self.verdict.setStyleSheet(f"color: {self.theme.color('foreground' if ok else 'error_text').name()};"
                                   " font-weight: bold;")

    def _explanation(self, res: Result) -> str:
        """What the panel shows, in plain words (the formulas are in the details)."""
        if res.slice_view is not None:
            cut = res.slice_view.cut
            shown = ("a line that bends at kinks, drawn against the position t along it"
                     if cut.kind == "line" else
                     "cut into regions, each one flat, affine map (each colour one region)")
            built = ("" if res.conversion is not None else
                     " Its shallow network is too large to build here; its widths are below.")
            return (f"<b>A slice through a network with {self.net.n_in} inputs.</b> On the "
                    f"{cut.kind} through the points chosen the network is {shown}; "
                    f"one hidden layer computes the same function there.{built}")
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

    def _draw_1d(self, res: Result) -> list:
        """The words and the kink table now; returns the next two stages, the curves
        and their difference."""
        self.kinks.set_rows(res.kink_rows)
        widths = res.conversion.shallow.hidden_sizes
        self.layers_label.setText(
            f"Shallow network: {res.conversion.n_in} → {widths[0] if widths else 0} → "
            f"{res.conversion.n_out}, every weight finite; exportable as JSON, NPZ and ONNX.")
        return [lambda: self._draw_curves(res), lambda: self._draw_difference(res)]

    def _draw_curves(self, res: Result) -> None:
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
        self.main_plot.getPlotItem().getViewBox().setAspectLocked(False)
        item.enableAutoRange()

    def _draw_difference(self, res: Result) -> None:
        diff = res.deep_y - res.shallow_y
        self.diff_curve.setData(res.curve_x, diff)
        self.diff_plot.getPlotItem().setLabel("left", "deep − shallow")
        self.diff_plot.getPlotItem().setLabel("bottom", "x")
        self.theme.set_title(self.diff_plot, "their difference: zero up to rounding", 9.5)
        span = max(1e-15, float(np.abs(diff).max()) * 1.2)
        self.diff_plot.setYRange(-span, span, padding=0)

    def _draw_nd(self, res: Result) -> list:
        """The words now; returns the map's stage (2-D input)."""
        conv = res.conversion
        self.deep_curve.setVisible(False)
        self.shallow_curve.setVisible(False)
        self.kink_marks.setVisible(False)
        self.legend.setVisible(False)  # the regions' colours are explained in words
        self.kinks.set_rows(np.zeros((0, 5)))
        item = self.main_plot.getPlotItem()
        n = conv.n_in
        self._draw_layers_nd(conv)
        if n != 2:
            self.theme.set_title(item, f"{n}-D input: no map (regions: {conv.p})")
            return []
        self.theme.set_title(item, f"{conv.p} activation regions on R² (click one)")
        item.setLabel("bottom", "x1")
        item.setLabel("left", "x2")
        # the map in a stage of its own: its first paint (thousands of filled polygons)
        # and the words' would otherwise share one pass of the event loop
        return [lambda: self._draw_map(res)]

    def _draw_map(self, res: Result) -> None:
        """The 2-D regions in the view box, one path per colour."""
        vb = self.main_plot.getPlotItem().getViewBox()
        # A few items whatever the number of regions, as the slices are drawn: an item
        # per region took 50 ms to add and 23 ms to take away for 2,000 regions.
        self._region_polygons = list(res.polygons)
        by_colour: dict = {}
        for poly in self._region_polygons:
            by_colour.setdefault(poly.index % REGION_COLOURS, []).append(poly.vertices)
        for colour, polygons in sorted(by_colour.items()):
            gi = PathItem(polygons_path(polygons))
            gi.setData(0, colour)
            vb.addItem(gi)
            self._region_items.append(gi)
        self._selected_item = PathItem()
        vb.addItem(self._selected_item)
        self._style_regions()
        vb.setAspectLocked(True)
        x0, x1, y0, y1 = VIEW_2D
        vb.setRange(xRange=(x0, x1), yRange=(y0, y1), padding=0)
        self._show_region_info()

    def _draw_layers_nd(self, conv) -> None:
        from relulab.model.shallow.construction import COROLLARY_TERMS

        what = ("x⁺, x⁻ and one detector per constraint",
                "x⁺, x⁻ and o_r (0 inside region r, ∞ outside)", "ReLU(±(A_r x + c_r) − o_r)")
        self.layers_label.setText(
            "Shallow network (3 hidden layers, ±∞ rows):\n"
            + "".join(f"  {i + 1}. {width} = {words}: {does}\n" for i, (width, words, does)
                      in enumerate(zip(conv.terms, COROLLARY_TERMS, what)))
            + "Export as JSON or NPZ (ONNX cannot hold ∞). This follows a reconstruction of "
            "Villani & Schoots' construction; the paper's count of k and its treatment of "
            "region boundaries may differ.")

    def _clear_regions(self) -> None:
        vb = self.main_plot.getPlotItem().getViewBox()
        for gi in self._region_items + [self._selected_item] * (self._selected_item is not None):
            vb.removeItem(gi)
        self._region_items, self._region_polygons, self._selected_item = [], [], None

    def _style_regions(self) -> None:
        outline = self.theme.pen("background", 1.0)
        for gi in self._region_items:
            colour = QColor(self.theme.series_color(gi.data(0)))
            colour.setAlpha(REGION_ALPHA)
            gi.setBrush(QBrush(colour))
            gi.setPen(outline)
            gi.setZValue(1)
        if self._selected_item is None:
            return
        chosen = [p for p in self._region_polygons if p.index == self.selected_region]
        self._selected_item.setPath(polygons_path([p.vertices for p in chosen]))
        colour = QColor(self.theme.series_color(self.selected_region % REGION_COLOURS))
        colour.setAlpha(230)
        self._selected_item.setBrush(QBrush(colour))
        self._selected_item.setPen(self.theme.pen("selected", 3.0))
        self._selected_item.setZValue(2)

    def _selectable(self) -> list:
        """What ``selected_region`` indexes: the slice's regions in its box, or the
        conversion's regions."""
        if self.slice_view is not None and self._state.sliced:
            return self.slice_view.polygons
        return self.result.conversion.regions if self.result else []

    def select_region(self, index: int) -> None:
        """Show region ``index``'s affine map and constraints (−1: none)."""
        regions = self._selectable()
        # a view choice, not an edit: no undo step (scene files keep it)
        self._state = replace(self._state, selected_region=index if 0 <= index < len(regions) else -1)
        if self._state.sliced:
            self.slice_drawing.select(self.selected_region)
        else:
            self._style_regions()
        self._show_region_info()

    def step_region(self, step: int) -> None:
        """Select the next (+1) or previous (−1) region, for keyboard use."""
        regions = self._selectable()
        if not regions:
            return
        p = len(regions)
        start = self.selected_region if self.selected_region >= 0 else (-1 if step > 0 else 0)
        self.select_region((start + step) % p)

    def select_region_at(self, x: float, y: float) -> int:
        """Select the region holding the point (x, y) (on a plane slice: its
        coordinates t₁, t₂); returns its index."""
        if self._state.sliced:
            view = self.slice_view
            if view is None or view.cut.kind != "plane":
                return -1
            pattern = view.restricted.activation_patterns(np.array([[x, y]], dtype=float))[0]
            key = pattern.tobytes()
            idx = next((i for i, p in enumerate(view.polygons) if p.pattern.tobytes() == key), -1)
            self.select_region(idx)
            return idx
        if self.result is None or self.result.conversion.n_in != 2:
            return -1
        from relulab.model.regions.activation import region_at

        idx = region_at(self.result.conversion.deep, self.result.conversion.regions, [x, y])
        self.select_region(idx)
        return idx

    def _show_region_info(self) -> None:
        if self.selected_region < 0 or (self.result is None and self.slice_view is None):
            self.region_info.set_value(None, "Click a region (or press ] and [) to see its "
                                       "affine map and constraints.")
            return
        if self._state.sliced:
            self.region_info.set_value(self.selected_region + 1,
                                       self._slice_region_text(self.selected_region))
            return
        regions = self.result.conversion.regions
        r = regions[self.selected_region]
        self.region_info.set_value(
            self.selected_region + 1,
            f"Region {self.selected_region + 1} of {len(regions)}\n" + r.describe(digits=3))

    def _slice_region_text(self, index: int) -> str:
        view = self.slice_view
        poly = view.polygons[index]
        head = (f"Region {index + 1} of the {len(view.polygons)} in the box, on the plane "
                "x = A + t₁·d₁ + t₂·d₂ (coordinates t1, t2)\n")
        conv = self.result.conversion if self.result is not None else None
        if conv is not None and conv.regions:
            key = poly.pattern.tobytes()
            for r in conv.regions:
                if r.pattern.tobytes() == key:
                    return head + r.describe(digits=3)
        from relulab.model.regions.activation import _affine_text

        lines = [f"pattern {''.join('1' if b else '0' for b in poly.pattern)}"]
        for i in range(poly.A.shape[0]):
            lines.append(f"f{i}(t) = {_affine_text(poly.A[i], poly.c[i], ['t1', 't2'], 3)}")
        return head + "\n".join(lines)

    def _on_plot_click(self, event) -> None:
        if event.button() != Qt.MouseButton.LeftButton:
            return
        if self._state.sliced:
            if self.slice_view is None or self.slice_view.cut.kind != "plane":
                return
        elif self.result is None or self.result.conversion.n_in != 2:
            return
        vb = self.main_plot.getPlotItem().getViewBox()
        if not vb.sceneBoundingRect().contains(event.scenePos()):
            return
        p = vb.mapSceneToView(event.scenePos())
        self.select_region_at(p.x(), p.y())
        event.accept()

    # -- hooks -----------------------------------------------------------------
    def readouts(self) -> dict:
        """The readouts, and what the verdict and the sizes say in numbers:
        ``largest_difference`` (|deep − shallow| at the exact and the random points),
        ``kinks`` (1-D input) or ``regions`` (more inputs), ``deep_neurons``,
        ``shallow_neurons``, ``bound`` (Corollary 1's width bound); None while
        converting."""
        values = super().readouts()
        res = self.result
        conv = res.conversion if res is not None else None
        v = res.verification if res is not None else None
        values.update(
            largest_difference=None if v is None else
            float(max(v.max_error_exact_points, v.max_error_random)),
            kinks=len(conv.one_d.kinks) if conv is not None and conv.one_d is not None else None,
            regions=int(conv.p) if conv is not None and conv.one_d is None else None,
            deep_neurons=None if conv is None else int(conv.deep.n_hidden_neurons),
            shallow_neurons=None if conv is None else int(sum(conv.shallow.hidden_sizes)),
            bound=None if conv is None else int(conv.bound))
        return values

    def plots(self) -> dict:
        if self._state.sliced:
            if self._state.slice.kind == "line":
                return {"functions": self.main_plot, "difference": self.diff_plot}
            return {"regions": self.main_plot}
        if self.result is not None and self.result.conversion.one_d is not None:
            return {"functions": self.main_plot, "difference": self.diff_plot}
        return {"regions": self.main_plot}

    def data_tables(self) -> dict:
        tables = {}
        if self.slice_view is not None and self._state.sliced:
            tables.update(self._slice_tables())
        if self.result is None or self.result.conversion is None:
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

    def _slice_tables(self) -> dict:
        view = self.slice_view
        cut = view.cut
        coords = ["t"] if cut.kind == "line" else ["t1", "t2"]
        points = (["point", "label", *coords, "network's class"],
                  [[name, cut.labels[i] if i < len(cut.labels) else name,
                    *map(float, cut.coords[i]),
                    int(view.winners[i]) if view.winners is not None else ""]
                   for i, name in enumerate(("A", "B", "C")[:len(cut.coords)])])
        out = {"slice points": points}
        if cut.kind == "plane":
            out["regions in the box"] = (
                ["region", "pattern", "area", "A", "c"],
                [[i + 1, "".join("1" if b else "0" for b in p.pattern), p.area, p.A.tolist(),
                  p.c.tolist()] for i, p in enumerate(view.polygons)])
        else:
            rows = []
            for o, pl in enumerate(view.pieces.outputs):
                rows += [[o, float(t), float(y), float(j)]
                         for t, y, j in zip(pl.kinks, pl.values, pl.jumps)]
            out["kinks of each output"] = (["output", "t", "value", "slope jump"], rows)
        return out

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
        # two lines kept for the explanation and the verdict, which take one or two: a
        # new result does not move (and repaint twice over) the plots below them
        for label in (self.explain, self.verdict):
            label.setMinimumHeight(2 * label.fontMetrics().lineSpacing())
        self._style_regions()
        if self.slice_view is not None and self._state.sliced:
            self.slice_drawing.theme = t
            if self.slice_view.raster is not None:  # painted in the old colours: paint again
                self._start_conversion()
            else:
                self.slice_drawing.draw(self.slice_view, image_shape=self._state.slice.image_shape)
                self.slice_drawing.select(self.selected_region)
        if self.result is not None and self.result.conversion is not None:
            self._draw_verdict(self.result)

    def set_lecture_layout(self, on: bool) -> None:
        """The slice bar is a control too: hidden in the lecture layout."""
        super().set_lecture_layout(on)
        self._lecture_layout = on
        self._sync_slice_bar()

    def shutdown(self) -> None:
        self._staged.cancel()
        self._data_worker.shutdown()
        self._worker.shutdown()
        super().shutdown()
