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

from collections import OrderedDict
from dataclasses import replace

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QHBoxLayout, QTableWidgetItem, QVBoxLayout

from relulab.model.lessons.folding import FoldingState
from relulab.model.pieces.folding import (
    FOLD_PRESETS,
    MAX_DEPTH,
    MAX_FOLD_NEURONS,
    PEAK_RANGE,
    Fold,
    tent_counts_formula,
    tent_network,
)
from relulab.ui.panels.base import Key, Panel
from relulab.ui.panels.folding.animation import FRAME_MS, FoldAnimation
from relulab.ui.panels.folding.controls import (
    PEAK_STEPS,
    CountReadouts,
    FoldingControls,
    fold_with,
    telgarsky_note,
)
from relulab.ui.panels.folding.jobs import (
    LINE,
    SYNC_DEPTH,
    UNIT,
    TentResult,
    compute_tent,
    fold_messages,
    sync_depth,
    warm_tents,
)
from relulab.ui.panels.folding.plots import FoldingPlots, FoldPieces, layer_depths, sup
from relulab.ui.staged import StagedDrawing
from relulab.ui.worker import Worker


class FoldingPanel(FoldAnimation, Panel):
    name = "folding"
    title = "Folding"
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
        self._fold_cache: dict[int, FoldPieces] = {}
        self._fold_error = ""
        self._closed = False
        self._lecture_layout = False
        self._finished_for = None  # (depth, peak, fold) whose counts finished() announced
        self._frames: list[tuple[int, float]] = []
        self._frame_index = 0
        self._tent_worker = Worker("folding-tent", self)
        self._warm_worker = Worker("folding-warm", self)
        self._fold_worker = Worker("folding-fold", self)
        self._timer = QTimer(self)
        self._timer.setObjectName("folding-animation-timer")
        self._timer.setInterval(FRAME_MS)
        self._staged = StagedDrawing(self)
        self._build()
        self._connect()
        self._sync_widgets()
        self._start_fold_work()
        self.apply_theme()  # styles the plots and draws them

    # -- building ------------------------------------------------------------
    def _build(self) -> None:
        """The controls left; right of them the counts, the plots and Telgarsky's
        statement. The widgets the wiring and tests reach keep their names here."""
        controls, counts = FoldingControls(), CountReadouts()
        figures = FoldingPlots(self.theme)
        self.controls, self.count_readouts, self.figures = controls, counts, figures
        self.telgarsky = telgarsky_note()
        outer = QHBoxLayout(self)
        outer.setContentsMargins(6, 6, 6, 6)
        outer.addWidget(controls.widget)
        right = QVBoxLayout()
        right.addLayout(counts.grid)
        right.addLayout(figures.top, 5)
        right.addLayout(figures.bottom, 3)
        right.addWidget(self.telgarsky)
        outer.addLayout(right, 1)
        c, f = controls, figures
        self.depth_slider, self.peak_slider, self.whole_line = c.depth_slider, c.peak_slider, c.whole_line
        self.play, self.send, self.fold_send, self.fold_show = c.play, c.send, c.fold_send, c.fold_show
        self.fold_preset, self.fold_table, self.fold_c = c.fold_preset, c.fold_table, c.fold_c
        self.fold_add, self.fold_remove, self.fold_error = c.fold_add, c.fold_remove, c.fold_error
        self.count_label, self.neurons_label, self.fold_count_label = (
            counts.count_label, counts.neurons_label, counts.fold_count_label)
        self.precision_label, self.status_label = counts.precision_label, counts.status_label
        self.plot, self.curve, self.tent_view = f.plot, f.curve, f.tent_view
        self.fold_plot, self.fold_curve, self.fold_view = f.fold_plot, f.fold_curve, f.fold_view
        self.layer_plots, self.chart, self.deep_series = f.layer_plots, f.chart, f.deep_series
        self.deep_marker, self.shallow_marker = f.deep_marker, f.shallow_marker
        self.make_keys()  # panel shortcuts: only while the focus is inside this panel

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
        self.controls.show_state(self._state)

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
        field, row, where = self.controls.edited_cell(item)
        kept = f.c if field == "c" else getattr(f, field)[row]
        try:
            value = float(item.text().strip().replace("−", "-"))
            state = replace(self._state, fold=fold_with(f, field, row, value))
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

    def _known_tent(self, depth: int, peak: float) -> TentResult | None:
        """The tent if it is cached or is the latest deep one; asks for nothing new."""
        result = self._cache.get((depth, peak), self._deep)
        return result if result is not None and (result.depth, result.peak) == (depth, peak) else None

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
        self._set_status(f"Could not compute {sup(self._state.depth)}: {exc}")
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
        s = self._state
        if result.peak == s.peak and result.depth in layer_depths(s.depth):
            current = self._tent(s.depth, s.peak) if s.depth <= sync_depth(s.peak) else self._deep
            self.figures.draw_layers(s, current, self._tent)

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
            self.figures.draw_chart(self._state, self._fold_pieces)
            self._say_if_finished()

    def _on_fold_failed(self, exc: Exception) -> None:
        """A composition that raised (a bug, not a budget): every depth not composed
        yet says so, and the panel goes on."""
        for depth in range(1, MAX_DEPTH + 1):
            self._fold_cache.setdefault(depth, f"not computed ({type(exc).__name__}: {exc})")
        a, b = self._view_range()
        self._draw_fold(a, b)
        self.figures.draw_chart(self._state, self._fold_pieces)
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
        """True while the tent or the fold on screen is being computed in the background,
        or a deep tent that arrived is still being drawn."""
        return (self._deep_wanted is not None or self._state.depth not in self._fold_cache
                or self._staged.busy)

    def drawing_pending(self) -> bool:
        return self._staged.busy

    def _fold_pieces(self, depth: int) -> FoldPieces:
        """The user's fold composed ``depth`` times and its counts, why it was not
        computed, or None while the worker computes it."""
        return self._fold_cache.get(depth)

    # -- drawing -----------------------------------------------------------------
    def _view_range(self) -> tuple[float, float]:
        return LINE if self._state.whole_line else UNIT

    def _set_status(self, text: str) -> None:
        self.count_readouts.set_status(text)

    def _refresh(self) -> None:
        """Draw the state. Beyond the depths computed at once (a deep depth asked for, or
        its tent arrived): the tent and its count now, the fold, the layers and the chart
        each in a pass of its own, so that no pass paints all five plots (24-36 ms of the
        GUI thread at depth 24, over the 50 ms rule with a core busy). Shallow depths,
        which a slider drag sweeps through, draw all at once."""
        if self._closed:
            return
        self._staged.cancel()
        self._start_warm_work()
        if self._timer.isActive():
            return  # the animation owns the main curve until it ends
        s = self._state
        staged = s.depth > sync_depth(s.peak)
        if not staged:
            self._forget_deep_request()
        result = self._tent(s.depth, s.peak)
        view = self._view_range()
        self._set_status("")  # (the count and the plot's title say what is computed)
        self.figures.draw_tent(s, result, view)
        self.count_readouts.show_tent(s, result)
        rest = [lambda: self._draw_fold(*view),
                lambda: self.figures.draw_layers(s, result, self._tent),
                lambda: self.figures.draw_chart(s, self._fold_pieces)]
        if staged:
            self._staged.run(rest, done=self._say_if_finished)
            return
        for stage in rest:
            stage()
        self._say_if_finished()

    def _draw_fold(self, a: float, b: float) -> None:
        s = self._state
        self.figures.draw_fold(s, self._fold_pieces(s.depth), (a, b))
        self._update_fold_readout()

    def _update_fold_readout(self) -> None:
        self.fold_error.setText(self._fold_error)
        self.count_readouts.show_fold(self._state, self._fold_pieces(self._state.depth))

    # -- hooks ---------------------------------------------------------------------
    def readouts(self) -> dict:
        """The readouts, and beside the piece count: ``kinks`` (on the whole line),
        ``exact`` (True when the counts are certified), ``shallow_neurons`` (what one
        hidden layer needs: 2^k − 1) and ``fold_kinks``; None while computing."""
        values = super().readouts()
        s = self._state
        result = self._known_tent(s.depth, s.peak)
        fold = self._fold_pieces(s.depth)
        values.update(kinks=int(result.counts.kinks_line) if result is not None else None,
                      exact=bool(result.counts.exact) if result is not None else None,
                      shallow_neurons=2 ** s.depth - 1,
                      fold_kinks=int(fold[1].kinks_line) if isinstance(fold, tuple) else None)
        return values

    def plots(self) -> dict:
        plots = {"main": self.plot, "fold": self.fold_plot, "chart": self.chart}
        for i, pw in enumerate(self.layer_plots):
            if not self.figures.layer_blank[i]:  # an unused one is blank, not a plot to read
                plots[f"layer-{i + 1}"] = pw
        return plots

    def data_tables(self) -> dict:
        s = self._state
        rows = []
        for j in range(1, s.depth + 1):
            pieces, kinks = tent_counts_formula(j)
            exact = self._known_tent(j, s.peak)
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
        """The counts keep their room (CountReadouts.reserve_lines), except in the lecture
        layout, where a projector's height goes to the plots."""
        self.count_readouts.reserve_lines(not self._lecture_layout)

    def set_lecture_layout(self, on: bool) -> None:
        super().set_lecture_layout(on)
        self._lecture_layout = on
        self._reserve_lines()

    def export_hints(self) -> tuple:
        """What tells the user what to do on screen, hidden in an exported picture:
        "Scroll on the plot to zoom in" under a dense curve's band."""
        return self.figures.tent_view.hint, self.figures.fold_view.hint

    def apply_theme(self) -> None:
        t = self.theme
        self.controls.apply_zoom(t.zoom)
        self._reserve_lines()
        self.telgarsky.setFont(t.font(9))
        self.figures.apply_theme()
        self._refresh()

    def shutdown(self) -> None:
        if self._closed:  # called by the main window and again by tests
            return
        self._closed = True
        self._timer.stop()
        self._staged.cancel()
        for worker in (self._tent_worker, self._warm_worker, self._fold_worker):
            worker.shutdown()
        self._deep = None
        self._cache.clear()
        super().shutdown()

