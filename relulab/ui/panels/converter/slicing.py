"""Choosing the slice of a network with many inputs, for the Deep → shallow panel.

A network with more inputs than the converter takes whole is looked at on a line
through two points or a plane through three (:mod:`relulab.model.regions.slices`).
:class:`SliceChoice` owns the bar that chooses them
(:class:`~relulab.ui.panels.converter.controls.SliceBar`) and the points file whose rows
they may be (read on a worker of its own: a large CSV takes seconds), and turns what
the person asks for into a new slice. It shows the panel's state and says what it made
of a request: ``chosen(text, slice)`` asks the panel for one undo step to that slice,
``said(text, error)`` is a message for the panel to show (why a request was refused).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np
from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QWidget

from relulab.model.lessons.converter import ConverterState, default_slice, needs_slice
from relulab.model.networks.mlp import MLP
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
from relulab.ui.panels.converter import jobs
from relulab.ui.panels.converter.controls import SliceBar, save_path
from relulab.ui.worker import Worker


class SliceChoice(QObject):
    """The slice bar and the points file of the panel ``parent``, whose state is
    ``state()``; see the module's docstring."""

    chosen = Signal(str, object)   # (the undo step's text, the new SliceState)
    said = Signal(str, bool)       # (a message, whether it is an error)

    def __init__(self, parent: QWidget, state: Callable[[], ConverterState]):
        super().__init__(parent)
        self._panel_state = state
        self.bar = SliceBar()
        #: the points file of the slice (relulab.model.regions.slices.InputRows), read on its
        #: own worker; ``rows_source`` is the path (or example:…) it was read from
        self.rows = None
        self.rows_source: str | None = None
        self._rows_then = None               # what to do once the file is read
        self._worker = Worker("converter-data", self)
        self._worker.finished.connect(self._on_rows_read)
        self._worker.failed.connect(self._on_rows_failed)
        bar = self.bar
        bar.kind_chosen.connect(self.choose_kind)
        bar.mode_chosen.connect(self.choose_mode)
        bar.rows_chosen.connect(self.set_rows)
        bar.seed_chosen.connect(self.set_seed)
        bar.points_typed.connect(self.set_points)
        bar.open_data.connect(self._open_points_dialog)
        bar.export_sliced.connect(self._export_dialog)

    @property
    def net(self) -> MLP:
        return self._panel_state().network

    def show(self) -> None:
        """Put the state's slice on the bar (and read its points file, for the row
        numbers and labels, when it is not read yet)."""
        s = self._panel_state()
        if not s.sliced:
            return
        cut = s.slice
        if cut.data is not None and cut.data != self.rows_source and self._rows_then is None:
            self._read_rows(cut.data, then=None)  # for the row numbers and labels only
        rows = self.rows if (cut.data is not None and cut.data == self.rows_source) else None
        arch = "-".join(map(str, self.net.sizes))
        self.bar.show_state(cut, self.net.n_in, rows,
                            f"{arch}: {self.net.n_in} inputs, shown on a slice")

    def shutdown(self) -> None:
        self._worker.shutdown()

    # -- new slices ---------------------------------------------------------------
    def slice_for(self, net: MLP) -> SliceState | None:
        """The slice to show ``net`` on: none when it is converted whole; the current
        one when it fits; else the first rows of the points file; else a random plane."""
        if not needs_slice(net):
            return None
        cur = self._panel_state().slice
        if cur is not None and len(cur.points[0]) == net.n_in:
            return cur
        if self.rows is not None and self.rows.n_inputs == net.n_in and self.rows.n_rows >= 3:
            return self.rows_slice("plane", (0, 1, 2))
        return default_slice(net)

    def rows_slice(self, kind: str, rows: tuple, data: str | None = None) -> SliceState:
        """The ``kind`` through these rows of the points file."""
        cur = self._panel_state().slice
        R = self.rows
        points = [ParsedPoint(R.X[i], R.row_label(i), i) for i in rows]
        return slice_state(kind, points, "rows", seed=cur.seed if cur else 0,
                           text="; ".join(map(str, rows)),
                           data=data or self.rows_source, image_shape=R.image_shape)

    def _random_slice(self, kind: str, seed: int) -> SliceState:
        n = self.net.n_in
        if self.rows is not None and self.rows.n_inputs == n:
            centre, scale = self.rows.spread()
            names = ("mean", "mean + s·d₁", "mean + s·d₂")
        else:
            centre, scale = None, max(1.0, float(np.sqrt(n)) / 4)  # as default_slice
            names = ("0", "s·d₁", "s·d₂")
        P = random_points(n, kind, seed, centre, scale)
        cur = self._panel_state().slice
        return slice_state(kind, [ParsedPoint(x, name) for x, name in zip(P, names)], "random",
                           seed=seed, text=cur.text if cur else "",
                           data=cur.data if cur else None,
                           image_shape=cur.image_shape if cur else None)

    def _refused(self, what: str, e: Exception) -> None:
        self.said.emit(f"{what}: {e}", True)
        self.show()  # the controls go back to the slice on screen

    # -- what the person asks for -------------------------------------------------
    def set_rows(self, rows) -> bool:
        """Slice through these rows of the points file (2: a line, 3: a plane)."""
        rows = tuple(int(r) for r in rows)
        if self.rows is None or self._panel_state().slice is None:
            self._refused("Rows", ValueError("open a points file first"))
            return False
        if self.rows.n_inputs != self.net.n_in:
            self._refused("Rows", ValueError(
                f"{self.rows.name} has rows of {self.rows.n_inputs} numbers; the network has "
                f"{self.net.n_in} inputs"))
            return False
        try:
            if len(rows) not in (2, 3) or not all(0 <= r < self.rows.n_rows for r in rows):
                raise ValueError(f"choose 2 or 3 rows from 0 to {self.rows.n_rows - 1}")
            cut = self.rows_slice("line" if len(rows) == 2 else "plane", rows)
        except ValueError as e:
            self._refused("Rows", e)
            return False
        self.chosen.emit(f"slice through rows {', '.join(map(str, rows))}", cut)
        return True

    def set_seed(self, seed: int) -> bool:
        """A random line or plane (of the current kind) with this seed."""
        cut = self._panel_state().slice
        if cut is None:
            return False
        try:
            new = self._random_slice(cut.kind, int(seed))
        except ValueError as e:
            self._refused("Random slice", e)
            return False
        self.chosen.emit(f"random slice, seed {seed}", new)
        return True

    def set_points(self, text: str) -> bool:
        """Typed points separated by ';' (2: a line, 3: a plane); see relulab.model.regions.slices
        for what a point may be. Errors are shown, the slice on screen stays."""
        cut = self._panel_state().slice
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
                              data=self.rows_source if rows is not None else cut.data,
                              image_shape=cut.image_shape)
        except ValueError as e:
            self._refused("Typed points", e)
            return False
        self.chosen.emit("typed slice", new)
        return True

    def choose_kind(self, kind: str) -> None:
        """A line or a plane, through points chosen the way the current ones were."""
        cut = self._panel_state().slice
        if cut is None or kind == cut.kind:
            return
        k = points_needed(kind)
        if cut.mode == "rows" and self.rows is not None:
            rows = [r for r in cut.rows if r is not None]
            spare = [r for r in range(self.rows.n_rows) if r not in rows]
            rows = (rows + spare)[:k]
            self.set_rows(tuple(rows))
        elif cut.mode == "random":
            try:
                self.chosen.emit(f"random {kind}", self._random_slice(kind, cut.seed))
            except ValueError as e:
                self._refused("Random slice", e)
        elif k == 2:  # a line through the plane's first two points
            new = replace(cut, kind="line", points=cut.points[:2], labels=cut.labels[:2],
                          rows=cut.rows[:2])
            self.chosen.emit("line through A and B", new)
        else:
            self._refused("Plane", ValueError("type three points separated by ';' (the "
                                              "line has two)"))

    def choose_mode(self, mode: str) -> None:
        """Points from rows of the points file, random ones, or typed ones."""
        cut = self._panel_state().slice
        if cut is None or mode == cut.mode:
            return
        if mode == "rows":
            if self.rows is None or self.rows.n_inputs != self.net.n_in:
                self.show()
                self._open_points_dialog()
                return
            self.set_rows(tuple(range(points_needed(cut.kind))))
        elif mode == "random":
            self.set_seed(cut.seed)
        else:  # typed: the same points, now edited as text
            text = cut.text or "; ".join("[" + ", ".join(f"{v:.6g}" for v in p) + "]"
                                          for p in cut.points)
            self.chosen.emit("typed slice", replace(cut, mode="typed", text=text))

    # -- points files, read on their own worker -------------------------------------
    def load_points(self, path) -> None:
        """Read a points file (CSV or NPZ rows of inputs) and slice through its first
        rows; a problem is shown and changes nothing. The file is read off the GUI
        thread: wait with the panel's ``wait_until_idle``."""
        self._read_rows(str(path), then=self._slice_through_first_rows)

    def use_rows(self, rows, source: str) -> None:
        """Take ``rows`` (InputRows), read from ``source``, as the points file."""
        self.rows, self.rows_source = rows, source

    def _slice_through_first_rows(self) -> None:
        cut = self._panel_state().slice
        if self.rows.n_inputs != self.net.n_in:
            self.said.emit(f"{self.rows.name} has rows of {self.rows.n_inputs} numbers; the "
                           f"network has {self.net.n_in} inputs", True)
            return
        k = points_needed(cut.kind) if cut is not None else 3
        if self.rows.n_rows < k:
            self.said.emit(f"{self.rows.name} has {self.rows.n_rows} row(s); a {cut.kind} "
                           f"needs {k}", True)
            return
        self.set_rows(tuple(range(k)))

    def _read_rows(self, source: str, then) -> None:
        self._rows_then = then
        self._worker.submit(lambda should_stop: (source, jobs.read_rows(source)))

    def _on_rows_read(self, got) -> None:
        source, rows = got
        self.rows, self.rows_source = rows, source
        then, self._rows_then = self._rows_then, None
        if then is not None:
            then()
        self.show()

    def _on_rows_failed(self, exc: Exception) -> None:
        self._rows_then = None
        self.said.emit(str(exc), True)

    def _open_points_dialog(self) -> None:
        filters = "Points (*.csv *.npz);;All files (*)"
        path, _ = dialogs.open_file_name(self.parent(), "Open a points file (rows of inputs)",
                                         "", filters,
                                         instead="window.panel('converter').load_points(path)")
        if path:
            self.load_points(path)

    # -- the sliced network ---------------------------------------------------------
    def export_sliced(self, path) -> bool:
        """Write the restricted network of the slice on screen (format by extension)."""
        from relulab.io.networks import NetworkFileError, save_network

        if self._panel_state().slice is None:
            self.said.emit("Nothing to save: this network is not sliced.", True)
            return False
        try:
            save_network(self._panel_state().slice.slice().restrict(self.net), path)
        except NetworkFileError as e:
            self.said.emit(str(e), True)
            return False
        self.said.emit(f"Saved the sliced network to {Path(path).name}.", False)
        return True

    def _export_dialog(self) -> None:
        path = save_path(self.parent(), "Save the sliced network", "slice.json",
                         "JSON (*.json);;NumPy (*.npz);;ONNX (*.onnx)",
                         instead="window.panel('converter').export_sliced(path)")
        if path:
            self.export_sliced(path)
