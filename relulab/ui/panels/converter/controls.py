"""The Deep → shallow panel's controls: where the deep network comes from (the left
column) and the bar that chooses the slice of a network with many inputs.

The controls only show a state (``show_state``, signals blocked, so nothing echoes
back) and say through their signals what the person asked for;
:mod:`~relulab.ui.panels.converter.sources` and
:mod:`~relulab.ui.panels.converter.slicing` turn that into edits of the panel's state.
"""

from __future__ import annotations

import math
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QTextDocument, QTextOption
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from relulab.model.lessons.converter import MAX_SEED, MAX_TENT_DEPTH, SOURCES, ConverterState
from relulab.model.regions.slices import MAX_SEED as MAX_SLICE_SEED
from relulab.model.regions.slices import POINT_NAMES, SliceState
from relulab.ui import dialogs
from relulab.ui.panels.base import named, signals_blocked
from relulab.ui.readout import Readout

SOURCE_LABELS = {"random": "Random network", "received": "From another panel",
                 "tent": "Tent map", "file": "File", "example": "Example: digits classifier"}
KIND_LABELS = {"plane": "Plane through 3 points", "line": "Line through 2 points"}
MODE_LABELS = {"rows": "Rows of a points file", "random": "Random plane or line",
               "typed": "Typed points"}


class ConverterControls(QWidget):
    """Source, architecture, seed, tent depth, files and messages (hidden in the
    lecture layout)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        named(self, "converter-controls", "Converter controls")
        form = QFormLayout(self)
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
        self._form = form

    def show_state(self, s: ConverterState) -> None:
        with signals_blocked(self.source_box, self.arch_edit, self.seed_spin, self.tent_spin):
            self.source_box.setCurrentIndex(SOURCES.index(s.source))
            self.arch_edit.setText("-".join(map(str, s.architecture)))
            self.seed_spin.setValue(s.seed)
            self.tent_spin.setValue(s.tent_depth)
        # only what shapes the network on screen: a random network's architecture and
        # seed, the tent's depth (N and the file button choose another source)
        self._form.setRowVisible(self.arch_edit, s.source == "random")
        self._form.setRowVisible(self.seed_spin, s.source == "random")
        self._form.setRowVisible(self.tent_spin, s.source == "tent")

    def show_export(self, possible: bool) -> None:
        """The export button, when there is a shallow network to export."""
        self._form.setRowVisible(self.export_button, possible)


def scrolled_column(name: str, accessible: str, widgets) -> QScrollArea:
    """``widgets`` one under the other in a column that scrolls rather than squeezing
    them (the example's caption was cut to one line when a slice's bar joined the
    controls)."""
    area = named(QScrollArea(), name, accessible)
    area.setWidgetResizable(True)
    area.setFrameShape(QScrollArea.Shape.NoFrame)
    area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    inner = QWidget()
    column = QVBoxLayout(inner)
    column.setContentsMargins(0, 0, 0, 0)
    for widget in widgets:
        column.addWidget(widget)
    column.addStretch(1)
    area.setWidget(inner)
    return area


class SizesRoom:
    """The room the sizes table takes in its column: it wraps in the width the column
    has and widens it only when it needs more than any table before it (``fit`` sets
    the column's width from what its content needs). Following each table's width, the
    column widened and narrowed as results arrived, and the plots were laid out again
    and the whole panel repainted each time (20–24 ms of the GUI thread); with no say
    at all, the table was cut in the lecture layout, where it is the column's only
    content."""

    def __init__(self, label: Readout, fit):
        self.label, self.fit = label, fit
        policy = label.sizePolicy()  # (keeping its height for width)
        policy.setHorizontalPolicy(QSizePolicy.Policy.Ignored)  # its minimum is set below
        label.setSizePolicy(policy)
        label.valueChanged.connect(self.widen)

    def widen(self, _value=None) -> None:
        """Room for the table shown, if it needs more than the column has kept: its
        text laid out as narrow as it goes (the label's own hint rounds it down)."""
        doc = QTextDocument()
        doc.setDocumentMargin(0)  # as a label lays out its text: no margin, whole words
        option = doc.defaultTextOption()
        option.setWrapMode(QTextOption.WrapMode.WordWrap)
        doc.setDefaultTextOption(option)
        doc.setDefaultFont(self.label.font())
        doc.setHtml(self.label.text())
        doc.setTextWidth(0)
        need = math.ceil(doc.idealWidth())
        if need > self.label.minimumWidth():
            self.label.setMinimumWidth(need)
            self.fit()

    def refit(self) -> None:
        """After a zoom: the room the table shown needs in the new fonts."""
        self.label.setMinimumWidth(0)
        self.widen()
        self.fit()


def save_path(parent: QWidget, caption: str, start: str, filters: str, *, instead: str) -> str:
    """A file name from the save dialog, with the chosen filter's suffix when none was
    typed ("" when cancelled); ``instead`` is the call that saves without the dialog."""
    path, chosen = dialogs.save_file_name(parent, caption, start, filters, instead=instead)
    if path and not Path(path).suffix:
        path += "." + chosen.split("*.")[1].rstrip(")")
    return path


def save_shallow(result, busy: bool, path) -> tuple[bool, str]:
    """Write ``result``'s shallow network to ``path`` (format by extension):
    (saved, what to say)."""
    from relulab.io.networks import NetworkFileError, save_network
    from relulab.ui.panels.converter.words import nothing_to_export

    refused = nothing_to_export(result, busy)
    if refused:
        return False, refused
    try:
        save_network(result.conversion.shallow, path)
    except NetworkFileError as e:
        return False, str(e)
    return True, f"Saved the shallow network to {Path(path).name}."


def shallow_path(parent: QWidget, result) -> str:
    """Where to export ``result``'s shallow network, from the save dialog ("": cancelled);
    ONNX only for finite weights (1-D input)."""
    finite = (result is not None and result.conversion is not None
              and result.conversion.one_d is not None)
    filters = ("JSON (*.json);;NumPy (*.npz);;ONNX (*.onnx)" if finite
               else "JSON (*.json);;NumPy (*.npz)")
    return save_path(parent, "Export the shallow network", "shallow.json", filters,
                     instead="window.panel('converter').export_shallow(path)")


class SliceBar(QWidget):
    """Line or plane; through rows of a points file, a random one, or typed points.

    Signals carry what the person asked for;
    :class:`~relulab.ui.panels.converter.slicing.SliceChoice` turns it into a new slice
    (one undo step of the panel) and calls :meth:`show_state` back."""

    kind_chosen = Signal(str)
    mode_chosen = Signal(str)
    rows_chosen = Signal(tuple)
    seed_chosen = Signal(int)
    points_typed = Signal(str)
    open_data = Signal()
    export_sliced = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        named(self, "converter-slice", "Slice of a network with many inputs")
        form = QFormLayout(self)
        form.setContentsMargins(0, 4, 0, 0)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.title = Readout("converter-slice-title", "What is sliced", wrap=True)
        form.addRow(self.title)
        self.kind_box = named(QComboBox(), "converter-slice-kind", "Line or plane",
                              "A line through two points (exact kinks of every output) or a "
                              "plane through three (exact regions)")
        for key, text in KIND_LABELS.items():
            self.kind_box.addItem(text, key)
        form.addRow("Slice", self.kind_box)
        self.mode_box = named(QComboBox(), "converter-slice-mode", "How the points are chosen")
        for key, text in MODE_LABELS.items():
            self.mode_box.addItem(text, key)
        form.addRow("Points", self.mode_box)
        data_row = QWidget()
        h = QHBoxLayout(data_row)
        h.setContentsMargins(0, 0, 0, 0)
        self.data_label = Readout("converter-slice-data", "The points file",
                                  text="no points file", wrap=True)
        self.data_button = named(QPushButton("Open…"), "converter-slice-open-data",
                                 "Open a points file",
                                 "Rows of inputs: CSV (one row a line, an optional header, a "
                                 "label column) or NPZ (X, y)")
        h.addWidget(self.data_label, 1)
        h.addWidget(self.data_button)
        form.addRow("File", data_row)
        self._data_row = data_row
        rows_row = QWidget()
        h = QHBoxLayout(rows_row)
        h.setContentsMargins(0, 0, 0, 0)
        self.row_spins = []
        for name in POINT_NAMES:
            spin = named(QSpinBox(), f"converter-slice-row-{name.lower()}",
                         f"Row of point {name}", f"Point {name}: a row of the points file "
                         "(counting from 0; Enter applies)")
            spin.setPrefix(f"{name} ")
            spin.setKeyboardTracking(False)
            spin.setRange(0, 0)
            h.addWidget(spin, 1)
            self.row_spins.append(spin)
        form.addRow("Rows", rows_row)
        self._rows_row = rows_row
        self.seed_spin = named(QSpinBox(), "converter-slice-seed", "Seed of the random slice")
        self.seed_spin.setRange(0, MAX_SLICE_SEED)
        self.seed_spin.setKeyboardTracking(False)
        form.addRow("Seed", self.seed_spin)
        self.points_edit = named(QLineEdit(), "converter-slice-points", "Typed points",
                                 "Points separated by ';', each a row number, numbers separated "
                                 "by commas, zeros, ones, mean or e<i> (Enter applies)")
        self.points_edit.setPlaceholderText("e.g. 0; 17; 42  or  zeros; e0; e1")
        form.addRow("Typed", self.points_edit)
        self.export_button = named(QPushButton("Save the sliced network…"),
                                   "converter-slice-export", "Save the sliced network",
                                   "The restricted network of 1 or 2 inputs (JSON, NPZ or ONNX), "
                                   "as relulab slice writes it")
        form.addRow(self.export_button)
        self.info = Readout("converter-slice-info", "About the slice", wrap=True)
        form.addRow(self.info)
        self._form = form
        self.kind_box.activated.connect(lambda i: self.kind_chosen.emit(self.kind_box.itemData(i)))
        self.mode_box.activated.connect(lambda i: self.mode_chosen.emit(self.mode_box.itemData(i)))
        for spin in self.row_spins:
            spin.valueChanged.connect(self._on_rows)
        self.seed_spin.valueChanged.connect(self.seed_chosen.emit)
        self.points_edit.returnPressed.connect(lambda: self.points_typed.emit(self.points_edit.text()))
        self.data_button.clicked.connect(self.open_data.emit)
        self.export_button.clicked.connect(self.export_sliced.emit)

    def _on_rows(self, _value=None) -> None:
        k = 2 if self.kind_box.currentData() == "line" else 3
        self.rows_chosen.emit(tuple(s.value() for s in self.row_spins[:k]))

    def show_state(self, cut: SliceState, n_in: int, rows=None, what: str = "") -> None:
        """Put ``cut`` on the controls (signals blocked), for a network of ``n_in``
        inputs and the points file ``rows`` (InputRows or None)."""
        k = 2 if cut.kind == "line" else 3
        widgets = [self.kind_box, self.mode_box, self.seed_spin, self.points_edit, *self.row_spins]
        with signals_blocked(*widgets):
            self.kind_box.setCurrentIndex(list(KIND_LABELS).index(cut.kind))
            self.mode_box.setCurrentIndex(list(MODE_LABELS).index(cut.mode))
            self.seed_spin.setValue(cut.seed)
            if cut.mode == "typed" or not self.points_edit.text():
                self.points_edit.setText(cut.text)
            top = rows.n_rows - 1 if rows is not None else 0
            for i, spin in enumerate(self.row_spins):
                spin.setRange(0, max(0, top))
                row = cut.rows[i] if i < len(cut.rows) else None
                if row is not None:
                    spin.setValue(min(row, max(0, top)))
                spin.setVisible(i < k)
        self._form.setRowVisible(self._rows_row, cut.mode == "rows")
        self._form.setRowVisible(self.seed_spin, cut.mode == "random")
        self._form.setRowVisible(self.points_edit, cut.mode == "typed")
        if rows is not None:
            self.data_label.setText(f"{rows.name}: {rows.n_rows:,} rows of {rows.n_inputs}")
        else:
            self.data_label.setText("no points file" if cut.data is None else
                                    f"{_short(cut.data)} (not loaded)")
        self.title.setText(what)
        self.info.setText("Distances on the map are distances in input space. Exact for the "
                          "restricted network (its first layer rounded once).")
        self.info.setToolTip(
            "The directions are orthonormal. The regions and kinks are exact for the "
            "restricted network, whose first layer W·D, W·o + b is computed in floating point: "
            "they are the slice's up to that rounding.")


def _short(path: str) -> str:
    if path.startswith("example:"):
        return path.split(":", 1)[1]
    return path.replace("\\", "/").rsplit("/", 1)[-1]
