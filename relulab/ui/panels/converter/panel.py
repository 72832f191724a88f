"""The Deep → shallow panel: a deep ReLU network and its exactly equal shallow one.

Source: a random network with an editable architecture, a network sent by another
panel, the tent map, a file (open or drop), or the digits classifier that ships with
the app. 1-D input: deep and shallow curves overlaid, their difference, the kink
list and the verdict. 2-D input: the exact region map (click a region for its affine
map and constraints), the shallow network's three layers and the verdict. Sizes side
by side with Corollary 1's bound. A network with more than four inputs is looked at
on a slice, a line through two points or a plane through three
(:mod:`~relulab.ui.panels.converter.slicing`); what is converted is the restricted
network. The state is :class:`relulab.model.lessons.converter.ConverterState`; the
conversion runs on a :class:`~relulab.ui.worker.Worker` (the latest request wins, an
earlier one stops at its next check) and its result is drawn in stages
(:class:`~relulab.ui.staged.StagedDrawing`).
"""

from __future__ import annotations

import functools
from dataclasses import replace
from pathlib import Path

import numpy as np
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QHBoxLayout, QSplitter, QVBoxLayout

from relulab.model.lessons.converter import ConverterState
from relulab.model.regions.engine import engine_ready, start_warm_up
from relulab.model.regions.slices import SliceState
from relulab.ui.panels.base import Key, Panel, fit_controls_width
from relulab.ui.panels.converter import jobs, words
from relulab.ui.panels.converter.controls import (
    ConverterControls,
    SizesRoom,
    save_shallow,
    scrolled_column,
    shallow_path,
)
from relulab.ui.panels.converter.jobs import Result, SliceView
from relulab.ui.panels.converter.plots import ConverterPlots, Details
from relulab.ui.panels.converter.slices import PAINTER_PATHS, SliceDrawing
from relulab.ui.panels.converter.slicing import SliceChoice
from relulab.ui.panels.converter.sources import NETWORK_SUFFIXES, SourceChoice, dropped_path
from relulab.ui.readout import Readout
from relulab.ui.staged import StagedDrawing
from relulab.ui.worker import Worker

#: The controls' column is 330 px wide at zoom 1, growing with the zoom up to this
#: (more if its content needs it): at 1.6 on a 1280 px projector the plots keep the rest.
MOST_CONTROLS_WIDTH = 400


def _forward(part: str, method):
    """A method of the panel that is ``method`` of its ``part`` (the object in that
    attribute), under the name scripts and tests call it by, with its docstring."""

    @functools.wraps(method)
    def forwarded(self, *args):
        return method(getattr(self, part), *args)

    return forwarded


class ConverterPanel(Panel):
    """A deep network from its source (``sources``), on a slice when it has many inputs
    (``slicing``), converted on a worker and its result drawn in stages: the words and
    sizes at once, then the layout, the curves and the difference or the map."""

    name = "converter"
    title = "Deep → shallow"
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
        self.result: Result | None = None
        self._worker = Worker("converter", self)
        start_warm_up()  # the region engine's compiled loops, off the GUI thread
        # A result is drawn in stages, one per pass of the event loop, each painted
        # before the next (the words and the table, the plot, the difference): drawn at
        # once, all of it is painted in one go, 60-90 ms for 1-512-512-1.
        self._staged = StagedDrawing(self)
        self.slice_view: SliceView | None = None
        self._lecture_layout = False
        # the labels coloured by a style sheet, with their theme role and weight: a
        # theme switch colours them again (the palette does not reach a style sheet)
        self._coloured: dict = {}
        self._build()
        self._connect()
        self.setAcceptDrops(True)
        self.apply_theme()
        self._sync_controls()
        self._start_conversion()

    # -- what is on screen, read from the state ---------------------------------
    net = property(lambda self: self._state.network, doc="The deep network (MLP).")
    source = property(lambda self: self._state.source)
    seed = property(lambda self: self._state.seed)
    architecture = property(lambda self: self._state.architecture)
    selected_region = property(lambda self: self._state.selected_region)
    received = property(lambda self: self.sources.received,
                        doc="The last network another panel sent (MLP or None).")
    rows = property(lambda self: self.slicing.rows,
                    doc="The slice's points file (relulab.model.regions.slices.InputRows) or None.")
    # the 2-D map's items: one path per colour, and the selected region on top
    _region_items = property(lambda self: self.plot_area.region_items)
    _region_polygons = property(lambda self: self.plot_area.region_polygons)
    _selected_item = property(lambda self: self.plot_area.selected_item)

    @property
    def busy(self) -> bool:
        """True while the latest conversion has not been drawn yet."""
        return self._worker.busy or self.drawing_pending()

    def drawing_pending(self) -> bool:
        return self._staged.busy

    # -- building -------------------------------------------------------------
    def _build(self) -> None:
        outer = QHBoxLayout(self)
        self.controls = c = ConverterControls()
        self.slicing = SliceChoice(self, lambda: self._state)
        self.sources = SourceChoice(self, c, self.slicing, lambda: self._state)
        self.slice_bar = self.slicing.bar
        self.sizes_label = Readout("converter-sizes", "Sizes: deep, shallow, bound", "sizes",
                                   wrap=True, text_format=Qt.TextFormat.RichText)
        self.sizes_label.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self._sizes_room = SizesRoom(self.sizes_label, self._fit_left)
        self._left = scrolled_column("converter-left", "Converter controls and sizes",
                                     (c, self.slice_bar, self.sizes_label))
        outer.addWidget(self._left)
        right = QVBoxLayout()
        self.verdict = Readout("converter-verdict", "Verdict", "verdict", wrap=True)
        self.verdict.set_value(None, "converting…")
        right.addWidget(self.verdict)
        split = QSplitter(Qt.Orientation.Horizontal)
        self.plot_area = p = ConverterPlots()
        self.details = d = Details()
        # the words go beside the plots, with the details: above them, they took the
        # height the difference plot needs on a projector
        self.explain = d.explain
        split.addWidget(p)
        split.addWidget(d)
        split.setChildrenCollapsible(False)
        split.setStretchFactor(0, 7)
        split.setStretchFactor(1, 3)
        split.setSizes([700, 300])
        right.addWidget(split, 1)
        outer.addLayout(right, 1)
        self.make_keys()
        self.slice_drawing = SliceDrawing(p.main_plot, self.theme)
        # the widgets scripts and tests reach for, by their names in the panel
        self.source_box, self.random_button, self.arch_edit = c.source_box, c.random_button, c.arch_edit
        self.seed_spin, self.tent_spin, self.message = c.seed_spin, c.tent_spin, c.message
        self.open_button, self.export_button = c.open_button, c.export_button
        self.main_plot, self.diff_plot, self.key = p.main_plot, p.diff_plot, p.key
        self.deep_curve, self.shallow_curve = p.deep_curve, p.shallow_curve
        self.kink_marks, self.diff_curve = p.kink_marks, p.diff_curve
        self.summary_label, self.layers_label = d.summary_label, d.layers_label
        self.kinks, self.kink_table, self.region_info = d.kinks, d.kink_table, d.region_info

    def _connect(self) -> None:
        self.export_button.clicked.connect(self._export_dialog)
        self.main_plot.scene().sigMouseClicked.connect(self._on_plot_click)
        self._worker.finished.connect(self._on_converted)
        self._worker.failed.connect(self._on_failed)
        self._worker.progress.connect(self._on_slice_drawn)
        self.slicing.chosen.connect(self._change_slice)
        self.slicing.said.connect(self._show_message)
        self.sources.chosen.connect(lambda text, changes: self._change(text, **changes))
        self.sources.said.connect(self._show_message)
        self.sources.restore.connect(self._sync_controls)
        self.sources.seed_kept.connect(self._keep_seed)
        self.sources.typed.connect(self.take_focus)  # Enter applies; then N, ] and [ work

    # -- state ----------------------------------------------------------------
    def apply_state(self, state: ConverterState) -> None:
        """Show ``state`` and convert its network (undo, redo, scenes)."""
        self._state = state
        if state.source == "received":
            self.sources.received = state.network
        self._sync_controls()
        self._start_conversion()

    def _change(self, text: str, **changes) -> None:
        """One undoable step to a new network (the selected region is dropped)."""
        self.commit(replace(self._state, selected_region=-1, **changes), text)

    def _keep_seed(self, seed: int) -> None:
        """The seed of the next random network; the network on screen stays."""
        self._state = replace(self._state, seed=seed)

    def _sync_controls(self) -> None:
        self.controls.show_state(self._state)
        self._sync_slice_bar()

    def _sync_slice_bar(self) -> None:
        s = self._state
        self.slice_bar.setVisible(s.sliced and not self._lecture_layout)
        # a slice's picture needs the width the sizes column takes (on a projector)
        self._left.setVisible(not (s.sliced and self._lecture_layout))
        self.slicing.show()
        self._fit_left()  # the slice's bar may need more width than the controls

    def _show_message(self, text: str, error: bool = False) -> None:
        self.message.setText(text)
        self._colour(self.message, "error_text" if error else "foreground", bold=error)
        if text:
            self.show_status(text)

    def _colour(self, label, role: str, bold: bool = False) -> None:
        """Colour ``label`` by the theme's ``role`` now and after every theme switch."""
        self._coloured[label] = (role, bold)
        label.setStyleSheet(f"color: {self.theme.color(role).name()};"
                            + (" font-weight: bold;" if bold else ""))

    # -- where the network comes from (self.sources) and its slice (self.slicing) ------
    new_random = _forward("sources", SourceChoice.new_random)
    _on_architecture = _forward("sources", SourceChoice.architecture_entered)
    set_tent_depth = _forward("sources", SourceChoice.set_tent_depth)
    receive = _forward("sources", SourceChoice.receive)
    load_file = _forward("sources", SourceChoice.load_file)
    open_example = _forward("sources", SourceChoice.open_example)
    set_slice_rows = _forward("slicing", SliceChoice.set_rows)
    set_slice_seed = _forward("slicing", SliceChoice.set_seed)
    set_slice_points = _forward("slicing", SliceChoice.set_points)
    _on_slice_kind = _forward("slicing", SliceChoice.choose_kind)
    load_points = _forward("slicing", SliceChoice.load_points)
    export_sliced = _forward("slicing", SliceChoice.export_sliced)

    # drag and drop of a file onto the panel
    def dragEnterEvent(self, event) -> None:
        path = dropped_path(event)
        if path and Path(path).suffix.lower() in NETWORK_SUFFIXES:
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event) -> None:
        path = dropped_path(event)
        if path:
            event.acceptProposedAction()
            self.load_file(path)

    def _change_slice(self, text: str, cut: SliceState) -> None:
        self._show_message("")
        self.commit(replace(self._state, slice=cut, selected_region=-1), text)
        self._sync_slice_bar()

    # -- export ---------------------------------------------------------------
    def export_shallow(self, path) -> bool:
        """Write the shallow network (format by extension); errors are shown, not raised."""
        saved, said = save_shallow(self.result, self.busy, path)
        self._show_message(said, error=not saved)
        return saved

    def _export_dialog(self) -> None:
        path = shallow_path(self, self.result)
        if path:
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
        view = result.slice_view
        count = len(view.polygons) if view is not None else len(result.conversion.regions)
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
        self.controls.show_export(False)
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
        self.plot_area.clear_regions()
        self.controls.show_export(words.nothing_to_export(res, False) is None)
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
        self.plot_area.clear_regions()
        self.plot_area.hide_curves()
        self.slice_drawing.theme = self.theme
        cut = self._state.slice
        self.slice_drawing.draw(view, image_shape=cut.image_shape if cut is not None else None)
        self.plot_area.keep_heights()
        self._show_parts(view.cut.kind == "line")
        if not 0 <= self.selected_region < len(view.polygons):
            self._state = replace(self._state, selected_region=-1)
        self.slice_drawing.select(self.selected_region)
        self._show_region_info()

    def _redraw_slice(self, res: Result) -> None:
        view = res.slice_view
        if view is not self.slice_drawing.view:
            self._show_slice_picture(view)
        conv = res.conversion
        self.controls.show_export(words.nothing_to_export(res, False) is None)
        if conv is None:
            self.sizes_label.setText(words.unbuilt_sizes(res))
            self.layers_label.setText("")
            self.kinks.set_rows(np.zeros((0, 5)))
            self.diff_curve.setData([], [])
            text, more = words.unbuilt(res)
            self.verdict.setText(text)
            self.verdict.setToolTip(more)
            self._colour(self.verdict, "foreground", bold=True)
            self.summary_label.setText(words.slice_summary(res, self._state.slice))
            self.explain.setText(words.explanation(res, self.net.n_in))
            return
        self._draw_sizes(conv)
        self._draw_verdict(res)
        if conv.one_d is not None:
            self.kinks.set_rows(res.kink_rows)
            self.plot_area.draw_line_difference(res, self.theme)
            self.layers_label.setText(words.layers_1d(conv, of_slice=True,
                                                      checked=res.verification.ok()))
        else:
            self.layers_label.setText(words.layers_nd(conv))
        self._show_region_info()

    def size_rows(self) -> list[list[str]]:
        """[row name, hidden layers, widths, neurons, parameters] for deep, shallow, bound."""
        return [] if self.result is None else words.size_rows(self.result.conversion)

    def _draw_sizes(self, conv) -> None:
        spoken, html = words.sizes(conv)
        self.sizes_label.set_value(spoken, html, spoken)

    def _draw_verdict(self, res: Result) -> None:
        ok, text, summary = words.verdict(res, self._state.slice)
        self.verdict.set_value("equal" if ok else "not equal", text)
        self.verdict.setToolTip("")
        self.summary_label.setText(summary)
        self.explain.setText(words.explanation(res, self.net.n_in))
        self._colour(self.verdict, "foreground" if ok else "error_text", bold=True)

    def _draw_1d(self, res: Result) -> list:
        """The words and the kink table now; returns the next two stages, the curves
        and their difference."""
        self.kinks.set_rows(res.kink_rows)
        self.layers_label.setText(words.layers_1d(res.conversion,
                                                  checked=res.verification.ok()))
        return [lambda: self._draw_curves(res), lambda: self._draw_difference(res)]

    def _draw_curves(self, res: Result) -> None:
        self.plot_area.draw_curves(res, self.theme)

    def _draw_difference(self, res: Result) -> None:
        self.plot_area.draw_difference(res, self.theme)

    def _draw_nd(self, res: Result) -> list:
        """The words now; returns the map's stage (2-D input)."""
        self.plot_area.hide_curves()
        self.kinks.set_rows(np.zeros((0, 5)))
        self.layers_label.setText(words.layers_nd(res.conversion))
        if not self.plot_area.name_map(res.conversion, self.theme):
            return []
        # the map in a stage of its own: its first paint (thousands of filled polygons)
        # and the words' would otherwise share one pass of the event loop
        return [lambda: self._draw_map(res)]

    def _draw_map(self, res: Result) -> None:
        self.plot_area.draw_map(res.polygons, self.theme, self.selected_region)
        self._show_region_info()

    # -- regions ------------------------------------------------------------------
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
            self.plot_area.style_regions(self.theme, self.selected_region)
        self._show_region_info()

    def step_region(self, step: int) -> None:
        """Select the next (+1) or previous (−1) region, for keyboard use."""
        regions = self._selectable()
        if not regions:
            return
        p = len(regions)
        start = self.selected_region if self.selected_region >= 0 else (-1 if step > 0 else 0)
        self.select_region((start + step) % p)

    def _map_shown(self) -> bool:
        """A map whose regions a click selects: a plane slice's, or of 2-D input."""
        if self._state.sliced:
            return self.slice_view is not None and self.slice_view.cut.kind == "plane"
        return self.result is not None and self.result.conversion.n_in == 2

    def select_region_at(self, x: float, y: float) -> int:
        """Select the region holding the point (x, y) (on a plane slice: its
        coordinates t₁, t₂); returns its index."""
        if not self._map_shown():
            return -1
        if self._state.sliced:
            idx = self.slice_view.region_at(x, y)
        else:
            from relulab.model.regions.activation import region_at

            idx = region_at(self.result.conversion.deep, self.result.conversion.regions, [x, y])
        self.select_region(idx)
        return idx

    def _show_region_info(self) -> None:
        i = self.selected_region
        if i < 0 or (self.result is None and self.slice_view is None):
            self.region_info.set_value(None, "Click a region (or press ] and [) to see its "
                                       "affine map and constraints.")
        elif self._state.sliced:
            conv = self.result.conversion if self.result is not None else None
            self.region_info.set_value(i + 1, words.slice_region_text(self.slice_view, conv, i))
        else:
            self.region_info.set_value(i + 1, words.region_text(self.result.conversion.regions, i))

    def _on_plot_click(self, event) -> None:
        if event.button() != Qt.MouseButton.LeftButton or not self._map_shown():
            return
        point = self.plot_area.clicked_point(event)
        if point is not None:
            self.select_region_at(*point)
            event.accept()

    # -- hooks -----------------------------------------------------------------
    def readouts(self) -> dict:
        """The readouts, and what the verdict and the sizes say in numbers:
        ``largest_difference`` (|deep − shallow| at the exact and the random points),
        ``kinks`` (1-D input) or ``regions`` (more inputs), ``deep_neurons``,
        ``shallow_neurons``, ``bound`` (Corollary 1's width bound); None while
        converting."""
        values = super().readouts()
        values.update(words.numbers(self.result))
        return values

    def plots(self) -> dict:
        if self._state.sliced:
            line = self._state.slice.kind == "line"
        else:
            line = self.result is not None and self.result.conversion.one_d is not None
        if line:
            return {"functions": self.main_plot, "difference": self.diff_plot}
        return {"regions": self.main_plot}

    def data_tables(self) -> dict:
        sliced = self.slice_view is not None and self._state.sliced
        return words.tables(self.result, self.slice_view if sliced else None)

    def apply_theme(self) -> None:
        t = self.theme
        self._fit_left()
        # the new fonts reach the controls' size hints only after this event: fit then
        QTimer.singleShot(0, self._sizes_room.refit)
        self.plot_area.apply_theme(t)
        self.explain.setFont(t.font(10))
        self.summary_label.setFont(t.font(9))
        # two lines kept for the verdict, which takes one or two: a new result does not
        # move (and repaint twice over) the plots below it
        self.verdict.setMinimumHeight(2 * self.verdict.fontMetrics().lineSpacing())
        self.plot_area.style_regions(t, self.selected_region)
        if self.slice_view is not None and self._state.sliced:
            self.slice_drawing.theme = t
            if self.slice_view.raster is not None:  # painted in the old colours: paint again
                self._start_conversion()
            else:
                self.slice_drawing.draw(self.slice_view, image_shape=self._state.slice.image_shape)
                self.slice_drawing.select(self.selected_region)
        for label, (role, bold) in list(self._coloured.items()):
            self._colour(label, role, bold)
        self.plot_area.keep_heights()  # the titles and axes at the new size

    def _fit_left(self) -> None:
        fit_controls_width(self._left, int(min(330 * self.theme.zoom, MOST_CONTROLS_WIDTH)))

    def set_lecture_layout(self, on: bool) -> None:
        """The slice bar is a control too: hidden in the lecture layout."""
        super().set_lecture_layout(on)
        self._lecture_layout = on
        self._sync_slice_bar()

    def shutdown(self) -> None:
        self._staged.cancel()
        self.slicing.shutdown()
        self._worker.shutdown()
        super().shutdown()
