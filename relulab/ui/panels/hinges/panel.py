"""The Hinges panel: drag hinged rulers and watch the fit.

f̂(x) = a + s·x + Σ cᵢ·ReLU(x − kᵢ). Three modes: Free (the learner sets every
kink and slope change), Least squares (the learner moves kinks, the coefficients
are re-solved on every mouse move) and Interpolation (n equally spaced knots, the
measured error next to the bound (b − a)²M/(8n²)). The mathematics is in
:mod:`relulab.model.fitting.hinges`. This module holds the panel's state and turns
input (the controls, the handles, the keys on the plot) into edits of it; the
controls, readouts and plots it shows the state in are the package's other modules.
The convergence study (error against n) runs on a :class:`~relulab.ui.worker.Worker`.
"""

from __future__ import annotations

import contextlib
from dataclasses import replace

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QVBoxLayout, QWidget

from relulab.model.data.targets import PRESETS, target_from_text
from relulab.model.fitting.hinges import (
    COEFFICIENT_LIMIT,
    MAX_HINGES,
    estimate_curvature,
    find_jump,
    fit_hinges,
    hinge_sum,
    interpolate_hinges,
)
from relulab.model.lessons.hinges import HingesState
from relulab.ui.panels.base import Panel
from relulab.ui.panels.hinges.controls import CUSTOM, MODE_LABELS, PLOT_KEYS, HingesControls
from relulab.ui.panels.hinges.drags import HandleDrags
from relulab.ui.panels.hinges.jobs import convergence_job
from relulab.ui.panels.hinges.plots import HingesPlots, plot_tables
from relulab.ui.panels.hinges.readouts import HingesReadouts
from relulab.ui.worker import Worker

#: Samples of the target drawn as its curve (the samples used for fitting may be fewer).
CURVE_POINTS = 2001


class HingesPanel(HandleDrags, Panel):
    name = "hinges"
    title = "Hinges"
    state_class = HingesState
    KEYS = PLOT_KEYS
    primary_controls = ("hinges-mode-free", "hinges-mode-least-squares", "hinges-mode-interpolation",
                        "hinges-count")

    def __init__(self, host=None, parent=None):
        super().__init__(host, parent)
        self._state = HingesState()
        self._target = target_from_text(self._state.target, self._state.a, self._state.b)
        self._fit = None            # the HingeFit on screen
        self._interp = None         # the Interpolation, in that mode
        self._drag = None           # (index, snapshot, press position, kink, coefficient)
        self._fit_method = "auto"   # "dense" only for the benchmark's baseline
        self._conv_rows: list = []
        self._conv_key = None
        self._convergence = Worker("hinges-convergence", self)
        self._build()
        self._connect()
        self._load_target_caches()
        self._sync_widgets()
        self._refresh(full=True)

    # -- building ------------------------------------------------------------------
    def _build(self) -> None:
        outer = QHBoxLayout(self)
        outer.setContentsMargins(4, 4, 4, 4)
        left = QWidget(self)
        lv = QVBoxLayout(left)
        lv.setContentsMargins(0, 0, 0, 0)
        self.readout_strip = HingesReadouts()
        lv.addWidget(self.readout_strip)
        self.view = HingesPlots(self.theme)
        lv.addWidget(self.view, 1)
        outer.addWidget(left, 1)
        self.controls = HingesControls(self.theme, self)
        outer.addWidget(self.controls)
        # the parts' widgets and items are the panel's attributes too (panel.plot,
        # panel.count_spin): the keys name the plot so, and tests, benchmarks and
        # scripts reach them through the panel
        for part in (self.readout_strip, self.view, self.controls):
            for name in part.PARTS:
                setattr(self, name, getattr(part, name))
        # keyboard editing, only while the plot has focus (so text boxes keep their keys)
        self.make_keys()
        self.apply_theme()

    # -- wiring (all of it here; shutdown undoes it) ---------------------------------------
    def _connect(self) -> None:
        self.handles.drag_started.connect(self._on_drag_start)
        self.handles.drag_moved.connect(self._on_drag_move)
        self.handles.drag_finished.connect(self._on_drag_finish)
        self.handles.drag_cancelled.connect(self._on_drag_cancel)
        self.handles.clicked.connect(self._on_handle_clicked)
        self.plot.scene().sigMouseClicked.connect(self._on_scene_clicked)
        self.preset_box.activated.connect(self._on_preset)
        self.expression_edit.returnPressed.connect(self._on_expression)
        self.a_spin.valueChanged.connect(self._on_domain)
        self.b_spin.valueChanged.connect(self._on_domain)
        self.points_spin.valueChanged.connect(self._on_points)
        self.mode_group.buttonClicked.connect(self._on_mode)
        self.count_spin.valueChanged.connect(self._on_count)
        self.spread_button.clicked.connect(self.spread_evenly)
        self.delete_button.clicked.connect(self.delete_selected)
        self.intercept_spin.valueChanged.connect(self._on_line)
        self.slope_spin.valueChanged.connect(self._on_line)
        self.coefficient_spin.valueChanged.connect(self._on_coefficient)
        self.components_check.toggled.connect(lambda on: self._set_view(show_components=on))
        self.residual_check.toggled.connect(lambda on: self._set_view(show_residual=on))
        self.convergence_check.toggled.connect(lambda on: self._set_view(show_convergence=on))
        self._convergence.progress.connect(self._on_convergence_row)
        self._convergence.idle.connect(self._on_convergence_done)

    def shutdown(self) -> None:
        if self._convergence.closed:  # called by the main window and again by tests
            return
        self._convergence.shutdown()
        with contextlib.suppress(RuntimeError, TypeError):
            self.plot.scene().sigMouseClicked.disconnect(self._on_scene_clicked)
        super().shutdown()

    # -- state ----------------------------------------------------------------------
    @property
    def fit(self):
        """The HingeFit on screen (least squares, free or the interpolation)."""
        return self._fit

    @property
    def interpolation(self):
        return self._interp

    @property
    def target(self):
        return self._target

    def apply_state(self, state: HingesState) -> None:
        old = self._state
        target_changed = (state.target, state.a, state.b) != (old.target, old.a, old.b)
        if target_changed:
            self._target = target_from_text(state.target, state.a, state.b)
        self._state = state
        if target_changed or state.points != old.points:
            self._load_target_caches()
        self._sync_widgets()
        self._refresh(full=True)

    def _load_target_caches(self) -> None:
        s = self._state
        self._x = np.linspace(s.a, s.b, s.points)
        self._y = self._target(self._x)
        self._x_dense = np.linspace(s.a, s.b, CURVE_POINTS)
        self._y_dense = self._target(self._x_dense)
        self._curvature = estimate_curvature(self._target, s.a, s.b)
        self._jump = find_jump(self._target, s.a, s.b)
        self._conv_key = None
        self._range_dirty = True

    def _sync_widgets(self) -> None:
        """Show the state in the controls (their signals blocked: no echo) and the views."""
        self.controls.show_state(self._state, self._target.text)
        self.view.show_views(self._state)

    # -- computing and drawing ------------------------------------------------------------
    def _compute(self) -> None:
        s = self._state
        self._interp = None
        if s.mode == "least squares":
            self._fit = fit_hinges(self._x, self._y, s.kinks, method=self._fit_method)
        elif s.mode == "free":
            self._fit = hinge_sum(self._x, self._y, s.intercept, s.slope, s.kinks, s.coefficients)
        else:
            it = interpolate_hinges(self._target, s.a, s.b, s.interpolation_n, self._curvature)
            self._interp = it
            f = it.fit
            self._fit = hinge_sum(self._x, self._y, f.intercept, f.slope, f.kinks, f.coefficients)

    def _refresh(self, full: bool = False) -> None:
        """Refit and redraw what depends on the hinges; ``full`` also redraws the target,
        the view range and the convergence study."""
        s = self._state
        self._compute()
        fit = self._fit
        if full:
            self.view.draw_target(self._x_dense, self._y_dense)
            if self._range_dirty:
                self.view.set_ranges(s.a, s.b, self._y_dense)
                self._range_dirty = False
        hx, hy = self.view.draw_fit(s, fit, s.selected if s.mode != "interpolation" else None)
        if s.show_residual:
            self.view.draw_residual(self._x, fit.residual, rescale=self._drag is None)
        if self._drag is None:  # the boxes catch up when the drag ends
            self.controls.show_parameters(fit, s)
        self._update_readouts(hx, hy)
        if s.show_convergence and full:
            self._start_convergence()
        elif s.show_convergence and self._drag is None:
            self._mark_convergence_n()

    def _update_readouts(self, hx, hy) -> None:
        s, fit = self._state, self._fit
        sel = s.selected
        if sel is None or s.mode == "interpolation" or sel >= fit.kinks.size:
            sel = None
            self.view.show_slope_change(None, None)
        else:
            self.view.show_slope_change(float(hx[sel]), float(hy[sel]), fit.slope_change(sel))
        self.readout_strip.show_fit(s, fit, sel, self._interp)
        self._update_caveat()

    def _update_caveat(self) -> None:
        self.readout_strip.show_caveat(self._jump, self._conv_rows)

    # -- convergence study (a generator on the worker, one row at a time) -----------------
    def _start_convergence(self) -> None:
        s = self._state
        key = (s.target, s.a, s.b, s.points)
        if key == self._conv_key:
            self._mark_convergence_n()
            return
        self._conv_key = key
        self._conv_rows = []
        self.view.clear_convergence()
        self._convergence.submit(convergence_job(self._target, s.a, s.b, s.points))
        self._mark_convergence_n()

    def _on_convergence_row(self, row) -> None:
        self._conv_rows.append(row)
        self._draw_convergence()

    def _on_convergence_done(self) -> None:
        self._draw_convergence()
        self.finished.emit("convergence")

    @property
    def convergence_done(self) -> bool:
        return not self._convergence.busy and bool(self._conv_rows)

    @property
    def convergence_rows(self) -> list:
        return list(self._conv_rows)

    def _draw_convergence(self) -> None:
        if not self._conv_rows:
            return
        done = not self._convergence.busy
        self.view.draw_convergence(self._conv_rows, done)
        if done:
            self._update_caveat()

    def _mark_convergence_n(self) -> None:
        s = self._state
        self.view.mark_n(s.interpolation_n if s.mode == "interpolation" else max(1, len(s.kinks)))

    # -- edits -------------------------------------------------------------------------
    def _kink_step(self) -> float:
        return (self._state.b - self._state.a) / 200.0

    def select_step(self, step: int) -> None:
        if self._state.mode == "interpolation":
            return
        self._state = self._state.select_next(step)
        self._sync_widgets()
        self._refresh()

    def select(self, i: int | None) -> None:
        if i is not None and not 0 <= i < len(self._state.kinks):
            raise IndexError(f"no hinge {i}")
        self._state = replace(self._state, selected=i)
        self._sync_widgets()
        self._refresh()

    def _leave_plot(self) -> None:
        """Esc: drop the selection and give the focus back to the controls (Tab is
        taken by hinge selection while the plot has the focus)."""
        if self._state.selected is not None:
            self.select(None)
        self.preset_box.setFocus(Qt.FocusReason.TabFocusReason)

    def delete_selected(self) -> None:
        s = self._state
        if s.mode == "interpolation" or s.selected is None:
            return
        if len(s.kinks) <= 1:
            self.show_status("At least one hinge stays.")
            return
        self.commit(s.remove_kink(s.selected), "Delete hinge")

    def add_hinge(self, x: float) -> None:
        s = self._state
        if s.mode == "interpolation":
            self.show_status("Interpolation places its own knots; change the count instead.")
            return
        if len(s.kinks) >= MAX_HINGES:
            self.show_status(f"At most {MAX_HINGES} hinges.")
            return
        self.commit(s.add_kink(x), "Add hinge")

    def nudge_kink(self, direction: int) -> None:
        s = self._state
        if s.mode == "interpolation" or s.selected is None:
            return
        k = s.kinks[s.selected] + direction * self._kink_step()
        self.commit(s.move_kink(s.selected, k), "Move kink", ("kink", s.selected))

    def nudge_coefficient(self, direction: int) -> None:
        s = self._state
        if s.selected is None or s.mode == "interpolation":
            return
        if s.mode != "free":
            self.show_status("Least squares sets the slopes; switch to Free to change them.")
            return
        c = s.coefficients[s.selected] + direction * 0.1
        self.commit(s.set_coefficient(s.selected, round(c, 10)), "Change slope",
                     ("slope", s.selected))

    def spread_evenly(self) -> None:
        s = self._state
        if s.mode == "interpolation":
            return
        self.commit(self._with_free_coefficients(s.spread_evenly(len(s.kinks) or 1)),
                     "Spread kinks evenly")

    def set_mode(self, mode: str) -> None:
        s = self._state
        if mode == s.mode:
            return
        new = replace(s, mode=mode)
        if mode == "free":
            # start from what is on screen, so switching does not change the picture
            f = self._fit
            if s.mode == "interpolation":
                new = new.with_kinks(f.kinks, f.coefficients, None)
            else:
                new = new.with_kinks(f.kinks, f.coefficients)
            new = new.with_line(round(f.intercept, 12), round(f.slope, 12))
        self.commit(new, f"{MODE_LABELS[mode]} mode")

    def set_count(self, n: int) -> None:
        s = self._state
        n = min(max(int(n), 1), MAX_HINGES)
        if s.mode == "interpolation":
            self.commit(replace(s, interpolation_n=n), "Number of neurons")
        else:
            self.commit(self._with_free_coefficients(s.spread_evenly(n)), "Number of hinges")

    def _with_free_coefficients(self, s: HingesState, x=None, y=None) -> HingesState:
        """In Free mode new kinks start from their least-squares slopes (a sensible
        shape to edit from) instead of a flat line; (x, y) are the samples to fit
        (default: the target's on screen)."""
        if s.mode != "free":
            return s
        f = fit_hinges(self._x if x is None else x, self._y if y is None else y, s.kinks)
        return s.with_kinks(s.kinks, f.coefficients, None).with_line(f.intercept, f.slope)

    def set_target(self, text: str, a: float | None = None, b: float | None = None) -> bool:
        """Change the target (a preset name or an expression) and maybe the domain.
        On error the message goes next to the box, and nothing else changes."""
        s = self._state
        new = replace(s, target=text.strip(), a=s.a if a is None else float(a),
                      b=s.b if b is None else float(b))
        try:
            new = HingesState.from_dict(new.to_dict())  # what a scene file could hold
        except ValueError as e:
            self.controls.show_error(str(e).removeprefix("target: "))
            self._sync_widgets()
            self.expression_edit.setText(text)
            return False
        if (new.a, new.b) != (s.a, s.b):
            # the kinks go with the domain (mapped onto it), so that the handles, the
            # errors and the convergence study speak of the same hinges
            new = replace(s, target=new.target).with_domain(new.a, new.b)
            if new.mode == "free":
                x = np.linspace(new.a, new.b, new.points)
                new = self._with_free_coefficients(new, x, target_from_text(new.target, new.a,
                                                                            new.b)(x))
        self.controls.show_error("")
        self.commit(new, "Change target")
        return True

    # -- control slots -------------------------------------------------------------------
    def _on_preset(self, index: int) -> None:
        name = self.preset_box.itemText(index)
        if name == CUSTOM:
            self.expression_edit.setFocus()
            self.expression_edit.selectAll()
            return
        p = PRESETS[name]
        self.set_target(name, p.a, p.b)

    def _on_expression(self) -> None:
        self.set_target(self.expression_edit.text())

    def _on_domain(self, _=None) -> None:
        a, b = self.a_spin.value(), self.b_spin.value()
        if not a < b:
            self.controls.show_error(f"The domain [{a:g}, {b:g}] is empty: a must be below b.")
            return
        self.set_target(self._state.target, a, b)

    def _on_points(self, n: int) -> None:
        self.commit(replace(self._state, points=int(n)), "Sample points")

    def _on_mode(self, button) -> None:
        for mode, rb in self.mode_buttons.items():
            if rb is button:
                self.set_mode(mode)

    def _on_count(self, n: int) -> None:
        self.set_count(n)

    def _on_line(self, _=None) -> None:
        if self._state.mode == "free":
            self.commit(replace(self._state, intercept=self.intercept_spin.value(),
                                 slope=self.slope_spin.value()), "Change line")

    def _on_coefficient(self, value: float) -> None:
        s = self._state
        if s.mode == "free" and s.selected is not None:
            self.commit(s.set_coefficient(s.selected, value), "Change slope")

    def _set_view(self, **flags) -> None:
        # view toggles are not edits a learner regrets: no undo step
        self._state = replace(self._state, **flags)
        self._sync_widgets()
        self._refresh(full=True)

    # -- mouse -------------------------------------------------------------------------
    def _on_handle_clicked(self, i: int) -> None:
        self.plot.setFocus(Qt.FocusReason.MouseFocusReason)
        if self._state.mode != "interpolation":
            self.select(i)

    def _on_scene_clicked(self, ev) -> None:
        if not ev.double() or ev.button() != Qt.MouseButton.LeftButton:
            return
        vb = self.plot.getPlotItem().getViewBox()
        if not vb.sceneBoundingRect().contains(ev.scenePos()):
            return
        p = vb.mapSceneToView(ev.scenePos())
        self.add_hinge(p.x())

    # -- panel hooks -------------------------------------------------------------------
    def receive(self, kind: str, payload) -> bool:
        if kind != "hinges" or not isinstance(payload, dict):
            return False
        s = self._state
        kinks = payload.get("kinks", [])
        try:
            if not isinstance(kinks, (list, tuple)) or not kinks:
                raise ValueError(f"between 1 and {MAX_HINGES} finite kinks are needed")
            # a neuron with a tiny input weight has its kink far away: kept, but clamped
            # to the range a scene holds (it stays outside the domain either way)
            kinks = [min(max(float(k), -COEFFICIENT_LIMIT), COEFFICIENT_LIMIT) for k in kinks]
            d = replace(s, mode="least squares", selected=None).to_dict()
            d.update(kinks=kinks, coefficients=[0.0] * len(kinks),
                     **{k: payload[k] for k in ("target", "a", "b") if k in payload})
            new = HingesState.from_dict(d)
        except (TypeError, ValueError) as e:
            self.show_status(f"Hinges: cannot show those kinks ({e}).")
            return False
        self.commit(new, "Kinks from training")
        return True

    def readouts(self) -> dict:
        """The readouts, and ``bound``: the interpolation's error bound (None outside
        Interpolation mode or where f'' is unbounded)."""
        values = super().readouts()
        it = self._interp
        values["bound"] = None if it is None or it.bound is None else float(it.bound)
        return values

    def handle_positions(self) -> list[tuple[float, float]]:
        """Where the handles are, in the main plot's data coordinates: handle i at
        (kᵢ, f̂(kᵢ)), its kink on the x axis and the sum of hinges there (for
        :func:`relulab.testing.drag`). In Interpolation mode they cannot be dragged."""
        fit = self._fit
        return [(float(k), float(y)) for k, y in zip(fit.kinks, fit.predict(fit.kinks))]

    def set_lecture_layout(self, on: bool) -> None:
        super().set_lecture_layout(on)
        self.view.set_lecture_layout(on)

    def export_hints(self) -> tuple:
        """"No hinge selected (click one or press Tab on the plot)" tells the one at the
        screen what to do: exported pictures (File ▸ Export, the lecture's handout and
        thumbnails) leave it out. A selected hinge's line says what is shown and stays."""
        return (self.selected_label,) if self.readout_strip.selected_is_hint else ()

    def plots(self) -> dict:
        return {"main": self.plot, "residual": self.residual_plot,
                "convergence": self.convergence_plot}

    def data_tables(self) -> dict:
        return plot_tables(self._fit, self._x, self._y, self._conv_rows)

    def animation_frames(self, max_frames: int = 120):
        """Least squares with 1, 2, … evenly spaced hinges, one count per frame."""
        saved = self._state
        try:
            base = replace(saved, mode="least squares", selected=None)
            for n in range(1, min(max_frames, MAX_HINGES, 48) + 1):
                self.apply_state(base.spread_evenly(n))
                yield n
        finally:
            self.apply_state(saved)

    def apply_theme(self) -> None:
        self.controls.apply_theme()
        self.view.apply_theme()
        if getattr(self, "_fit", None) is not None:
            self._refresh(full=True)
