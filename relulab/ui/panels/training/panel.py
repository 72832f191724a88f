"""The Training panel: Adam places the kinks of a 1 → H → 1 ReLU network, many restarts at once.

View: every restart's curve over the target (best highlighted), the selected restart's
kinks as moving markers and their trajectories over the steps, log-scale loss curves,
final RMSEs sorted or as a histogram, and the least-squares "ghost" with evenly spaced
kinks for comparison.

The state is a :class:`~relulab.model.fitting.training.TrainingState`: the settings of the run
and how far it went. The run itself is not stored: training is deterministic, so a
state's ``step`` steps are replayed from the seeds (on a worker when that takes a
while). The shared :class:`~relulab.ui.driver.TrainingDriver` plays it, a bounded
piece of work per tick; a frame is the main plot first, then one small plot per tick.
The least-squares refit of a large network runs on a worker.

This module is the wiring: the widgets come from ``controls``, the plots from ``plots``,
and what is computed without Qt (the workers' jobs, what a plot shows) from ``jobs``.
"""

from __future__ import annotations

import time
from dataclasses import replace
from functools import partial

import numpy as np
from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QGridLayout, QHBoxLayout, QVBoxLayout

from relulab.model.data.expression import ExpressionError
from relulab.model.data.targets import PRESETS
from relulab.model.fitting import _training_kernels as kernels
from relulab.model.fitting.training import SPEEDS, HingeNetTrainer, fit_even_hinges, refit_output_layer
from relulab.model.lessons.training import TrainingState, replay
from relulab.ui.driver import TrainingDriver
from relulab.ui.panels.base import Key, Panel, signals_blocked
from relulab.ui.panels.training import jobs
from relulab.ui.panels.training.controls import TrainingControls, TrainingReadouts
from relulab.ui.panels.training.plots import TrainingPlots
from relulab.ui.panels.training.room import MIN_PLOT_HEIGHT, NoteGivesWay
from relulab.ui.worker import Worker

REFIT_EVERY = 0.5     # seconds between least-squares refits while training runs


class TrainingPanel(Panel):
    name = "training"
    title = "Training"
    state_class = TrainingState
    KEYS = (
        Key("Space", "play or pause training", "toggle_play", name="play"),
        Key("Right", "one training step", "step_once", name="step"),
        Key("R", "reset: back to the random starts", "reset_training", name="reset"),
    )
    primary_controls = ("training-play", "training-step", "training-reset")
    lecture_hidden = ("training-explain", "training-key")

    #: ``stepped(step)``: after every redraw of the main plot and the readouts, with the
    #: step shown (while training runs, a few times a second). ``finished("training")``
    #: (see Panel): training reached its last step, or stopped itself (a restart
    #: diverged), and its final frame is drawn.
    stepped = Signal(int)

    def __init__(self, host=None, parent=None):
        super().__init__(host, parent)
        self._state = TrainingState()
        self._target = self._state.target_function()
        self._trainer: HingeNetTrainer | None = None  # made by _new_run
        self._snap = None
        self._ghost = None
        self._replaying: int | None = None  # the step a worker is replaying the run to
        self._last_refit = 0.0
        self._refit_key = None
        self._phase = 0
        self.driver = TrainingDriver(self, "training", train=self._train_steps,
                                     steps_left=self._steps_left, frame=self._frame,
                                     ready=self._compiled_ready)
        self._refit_worker = Worker("training-refit", self)
        self._replay_worker = Worker("training-replay", self)
        self._compile_worker = Worker("training-compile", self)
        self.controls = TrainingControls(self.theme)
        self.readings = TrainingReadouts(self.theme)
        self.view = TrainingPlots(self.theme, self.driver.add_paint_time)
        self._name_parts()
        self._build_layout()
        self._connect()
        if not kernels.compiled_ready():  # compile (or load from cache) off the GUI thread
            self._compile_worker.submit(jobs.compile_training_loop)
        self.controls.show_state(self._state)
        # the driver plays at the speed the box shows from the first Play on
        self.driver.set_speed(SPEEDS[self._state.speed])
        self._new_run(self._state)
        self.apply_theme()

    # -- construction ------------------------------------------------------------
    def _name_parts(self) -> None:
        """The widgets and plot items as the panel's own attributes (``panel.lr``,
        ``panel.best_curve`` …): the wiring below, tests and scripts reach them so."""
        c, r, v = self.controls, self.readings, self.view
        self.play_button, self.step_button, self.reset_button = c.play_button, c.step_button, c.reset_button
        self.speed, self.target, self.domain_a, self.domain_b = c.speed, c.target, c.domain_a, c.domain_b
        self.target_error, self.points, self.hidden, self.lr = c.target_error, c.points, c.hidden, c.lr
        self.steps, self.restarts, self.optimizer, self.batch = c.steps, c.restarts, c.optimizer, c.batch
        self.init, self.selected, self.final_view = c.init, c.selected, c.final_view
        self.send_converter, self.send_hinges, self.status = c.send_converter, c.send_hinges, c.status
        self.step_readout, self.rate_readout, self.best_readout = r.step, r.rate, r.best
        self.refit_readout, self.ghost_readout, self.explain = r.refit, r.ghost, r.explain
        self.curve_plot, self.loss_plot, self.kink_plot = v.curve_plot, v.loss_plot, v.kink_plot
        self.final_plot, self.key, self.zero_line = v.final_plot, v.key, v.zero_line
        self.target_curve, self.ghost_curve, self.best_curve = v.target_curve, v.ghost_curve, v.best_curve
        self.restart_curves, self.loss_curves = v.restart_curves, v.loss_curves  # grown in place
        self.kink_markers, self.kink_paths = v.kink_markers, v.kink_paths
        self.kink_now, self.final_bars, self.final_ghost_line = v.kink_now, v.final_bars, v.final_ghost_line
        self.final_hint, self.diverged_label = v.final_hint, v.diverged_label

    def _build_layout(self) -> None:
        plots = QGridLayout()
        plots.addWidget(self.curve_plot, 0, 0, 1, 3)
        plots.addWidget(self.loss_plot, 1, 0)
        plots.addWidget(self.kink_plot, 1, 1)
        plots.addWidget(self.final_plot, 1, 2)
        plots.addWidget(self.key, 2, 0, 1, 3)
        plots.setRowStretch(0, 3)
        plots.setRowStretch(1, 2)
        for plot in self.plots().values():
            plot.setMinimumHeight(MIN_PLOT_HEIGHT)
        right = QVBoxLayout()
        right.addLayout(self.readings.grid())
        right.addWidget(self.explain)
        right.addLayout(plots, 1)
        self._room = NoteGivesWay(self, self.explain, self.curve_plot, self.loss_plot,
                                  right.spacing(), self.theme)
        outer = QHBoxLayout(self)
        outer.addWidget(self.controls)
        outer.addLayout(right, 1)
        self.make_keys()

    def _connect(self) -> None:
        """Every control → state connection in one place (mirror: ``shutdown``)."""
        self.play_button.toggled.connect(self._set_playing)
        self.step_button.clicked.connect(self.step_once)
        self.reset_button.clicked.connect(self.reset_training)
        self.target.activated.connect(self._on_preset)
        self.target.lineEdit().returnPressed.connect(partial(self._on_setting, "Change target"))
        for box, label in ((self.domain_a, "Change domain"), (self.domain_b, "Change domain"),
                           (self.points, "Change points"), (self.hidden, "Change hidden width"),
                           (self.restarts, "Change restarts"), (self.batch, "Change batch size")):
            box.valueChanged.connect(partial(self._on_setting, label))
        self.optimizer.currentIndexChanged.connect(partial(self._on_setting, "Change optimiser"))
        self.init.currentIndexChanged.connect(partial(self._on_setting, "Change start"))
        self.lr.valueChanged.connect(self._on_lr)
        self.steps.valueChanged.connect(self._on_steps)
        self.speed.currentIndexChanged.connect(self._on_speed)
        self.selected.currentIndexChanged.connect(self._on_selected)
        self.final_view.currentIndexChanged.connect(self._on_final_view)
        self.send_converter.clicked.connect(self.send_selected_to_converter)
        self.send_hinges.clicked.connect(self.send_selected_to_hinges)
        self.driver.playing_changed.connect(self._on_playing_changed)
        self.driver.settled.connect(lambda: self.finished.emit("training"))
        self._refit_worker.finished.connect(self._on_refit_done)
        self._replay_worker.finished.connect(self._on_replayed)
        self._replay_worker.failed.connect(self._on_replay_failed)

    # -- state ----------------------------------------------------------------------
    @property
    def state(self) -> TrainingState:
        """The state on screen, with the progress made so far (a run being replayed is
        already at the step it is replayed to)."""
        step = self._trainer.step if self._replaying is None else self._replaying
        return replace(self._state, step=int(step))

    @property
    def snapshot(self):
        """The latest training snapshot (immutable); while training runs, the drawn one may
        be a few ticks older."""
        if self._snap is None or self._snap.step != self._trainer.step:
            return self._trainer.snapshot()
        return self._snap

    @property
    def trainer(self) -> HingeNetTrainer:
        return self._trainer

    @property
    def running(self) -> bool:
        """True while training (the final frame may still be drawing after a pause)."""
        return self.driver.playing

    def state_dict(self) -> dict:
        return self.state.to_dict()

    def commit(self, after: TrainingState, text: str, merge_key=None) -> None:
        self._state = self.state  # the steps made since the last edit belong to "before"
        super().commit(after, text, merge_key)

    def apply_state(self, state: TrainingState) -> None:
        """Show ``state``: its settings, and its run replayed from the seeds to its step
        (at once when that is quick, on a worker when it takes longer, not at all when
        it would take too long: the run then starts again and says so)."""
        current = self.state
        self._state = state
        self.controls.show_state(state)
        self._trainer.lr = state.lr
        self.driver.set_speed(SPEEDS[state.speed])
        if state.run_settings() != current.run_settings() or state.step != current.step:
            self._new_run(state)
        else:
            self._set_ranges()
            self._redraw()

    def _new_run(self, state: TrainingState) -> None:
        """New random starts for ``state``'s settings, trained to its step."""
        self._replay_worker.cancel()
        self._replaying = None
        self._target = state.target_function()
        trainer = state.trainer(self._target)
        plan = jobs.replay_plan(state)
        note = ""
        if plan == "now":
            trainer = replay(state)
        elif plan == "worker":
            self.driver.pause()
            self._replaying = state.step
            self._replay_worker.submit(partial(jobs.replay_run, state))
            note = f"Replaying the {state.step:,} steps made with these settings…"
        elif plan == "restart":
            self._state = replace(state, step=0)
            note = (f"Settings restored; the {state.step:,} steps made with them would take "
                    "too long to replay, so training starts again.")
        self._use_trainer(trainer)
        if note:
            self._set_status(note)

    def _use_trainer(self, trainer: HingeNetTrainer) -> None:
        x, y = trainer.x, trainer.y
        self._trainer = trainer
        self._snap = trainer.snapshot()
        self._ghost = fit_even_hinges(x, y, trainer.hidden, self._target.a, self._target.b)
        self._grid = np.linspace(self._target.a, self._target.b, jobs.CURVE_POINTS)
        self._target_on_grid = self._target(self._grid)
        self._refit_key = None
        self.driver.restart()  # a step's cost depends on the settings
        self._set_ranges()
        self.view.show_target(self._grid, self._target_on_grid, self._ghost.predict(self._grid))
        self.controls.fill_selected(trainer.seeds, self._state.selected)
        self._explain()
        self.play_button.setEnabled(self._replaying is None)
        self.step_button.setEnabled(self._replaying is None)
        self._redraw()

    def _on_replayed(self, trainer: HingeNetTrainer) -> None:
        self._replaying = None
        trainer.lr = self._state.lr  # changed meanwhile, perhaps
        self._use_trainer(trainer)
        self._set_status("")

    def _on_replay_failed(self, exc: Exception) -> None:
        self._replaying = None
        self._use_trainer(self._trainer)
        self._set_status(f"Could not replay the run ({exc}); training starts again.")

    # -- edits ------------------------------------------------------------------------
    def _on_preset(self, index: int) -> None:
        preset = PRESETS.get(self.target.itemText(index))
        if preset is not None:
            self.controls.show_domain(preset.a, preset.b)
        self._on_setting("Change target")

    def _on_setting(self, label: str, *_args) -> None:
        """A setting that needs new random starts changed: a new run, one undo step. A
        target that cannot be used is said next to it and changes nothing."""
        after = self.controls.settings(self.state)
        try:
            after.target_function()
        except ExpressionError as exc:
            self.target_error.setText(str(exc))  # in the theme's error colour
            return
        if after.selected >= after.restarts:
            after = replace(after, selected=-1)
        self.commit(after, label)

    def reset_training(self) -> None:
        """Back to the random starts (R); undo brings the progress back."""
        if self.state.step:
            self.commit(replace(self.state, step=0), "Reset training")

    def _on_lr(self, value: float) -> None:
        self._state = replace(self._state, lr=value)
        self._trainer.lr = value  # no reset: moments and step count carry on

    def _on_steps(self, value: int) -> None:
        if value < self._trainer.step:  # a run cannot be shorter than what it has trained
            with signals_blocked(self.steps):
                self.steps.setValue(self._state.steps)
            self._set_status(f"Already at step {self._trainer.step:,}: reset to train fewer steps.")
            return
        self._state = replace(self._state, steps=value)
        self._set_ranges()
        self._redraw_readouts()

    def _on_speed(self, _index: int) -> None:
        self._state = replace(self._state, speed=self.speed.currentText())
        self.driver.set_speed(SPEEDS[self._state.speed])

    def _on_selected(self, _index: int) -> None:
        """Another restart's kinks: the main plot now, its trajectories in the next tick."""
        selected = self.selected.currentData()
        self._state = replace(self._state, selected=-1 if selected is None else int(selected))
        self.driver.show([self._draw_curves, self._draw_kink_paths])

    def _on_final_view(self, _index: int) -> None:
        self._state = replace(self._state, final_view=self.final_view.currentData())
        self.driver.show([self._draw_final])

    def selected_restart(self) -> int:
        r = self._state.selected
        if r < 0 or r >= self._snap.restarts:
            return self._snap.best
        return r

    # -- driving ----------------------------------------------------------------------
    def toggle_play(self) -> None:
        self._set_playing(not self.running)

    def play(self) -> None:
        self._set_playing(True)

    def pause(self) -> None:
        self._set_playing(False)

    def _set_playing(self, on: bool) -> None:
        if on and self._replaying is None:
            self.driver.play()  # refuses when finished: raise the steps to go on, or reset
        else:
            self.driver.pause()
        self._on_playing_changed(self.driver.playing)

    def _on_playing_changed(self, on: bool) -> None:
        with signals_blocked(self.play_button):
            self.play_button.setChecked(on)
            self.play_button.setText("Pause" if on else "Play")
        self._redraw_readouts()

    def step_once(self) -> None:
        """One training step (waits for the compiled loop the first time)."""
        if self._replaying is None:
            self._advance(1)

    def _advance(self, n: int) -> None:
        """Train n steps now (fewer at the end) and show the result."""
        if self.driver.step(n):
            self._redraw()

    def _train_steps(self, n: int) -> int:
        return self._trainer.run(n)

    def _steps_left(self) -> int:
        return max(0, self._state.steps - self._trainer.step)

    def _compiled_ready(self) -> bool:
        ready = kernels.compiled_ready()
        if not ready:
            self._set_status("Preparing the compiled training loop…")
        return ready

    def _frame(self, final: bool) -> list:
        """A snapshot and the pieces that draw it: the main plot first, then one small
        plot in turn while training runs, all three for the final frame."""
        self._snap = self._trainer.snapshot()
        small = [self._draw_losses, self._draw_kink_paths, self._draw_final]
        if final:
            return [self._draw_curves, *small]
        self._phase = (self._phase + 1) % 3
        return [self._draw_curves, small[self._phase]]

    def _set_status(self, text: str) -> None:
        self.status.setText(text)

    def set_lecture_layout(self, on: bool) -> None:
        super().set_lecture_layout(on)
        self._room.lecture = on
        self._room.fit()

    def _explain(self) -> None:
        """The note on the plots, also the main plot's tooltip (when the note gives way)."""
        self.readings.explain_run(len(self._trainer.seeds), self._trainer.hidden)
        self.curve_plot.setToolTip(self.explain.text())

    # -- drawing -----------------------------------------------------------------------
    def _redraw(self) -> None:
        """Show the current snapshot in every view (after a pause, a step, a reset or a
        change of settings): the main plot now, the small ones in the next ticks."""
        if self._snap.step != self._trainer.step:  # a snapshot costs an evaluation on all points
            self._snap = self._trainer.snapshot()
        self.driver.show([self._draw_curves, self._draw_losses, self._draw_kink_paths,
                          self._draw_final])

    def _set_ranges(self) -> None:
        self.view.set_ranges(self._target.a, self._target.b, self._target_on_grid, self._state.steps)

    def _draw_curves(self) -> None:
        """The main plot (every restart, the best, the selected restart's kinks) and the
        readouts."""
        snap = self._snap
        self.view.draw_curves(self._grid, jobs.curves(snap, self.selected_restart(), self._grid,
                                                      self._target_on_grid))
        self._redraw_readouts()
        self._style_series()
        self.stepped.emit(snap.step)

    def _ghost_rmse(self) -> float:
        return self._ghost.rmse if self._ghost is not None else np.nan

    def _draw_losses(self) -> None:
        self.view.draw_losses(jobs.losses(self._snap, self._ghost_rmse()))

    def _draw_kink_paths(self) -> None:
        sel, snap = self.selected_restart(), self._snap
        self.view.draw_kink_paths(jobs.kink_paths(snap, sel), sel, snap.best, snap.restarts)

    def _draw_final(self) -> None:
        self.view.draw_final(jobs.final_bars(self._snap, self._state.final_view, self._ghost_rmse()))

    def _redraw_readouts(self) -> None:
        snap, sel = self._snap, self.selected_restart()
        self.readings.show(snap, self._state.steps, self.driver.rate if self.running else None,
                           self._ghost.rmse)
        self._show_refit(snap, sel)
        self._set_status(jobs.status_text(snap, self._state.steps, self._replaying, self.running))
        sendable = not (self.running or snap.step == 0 or snap.diverged[sel])
        self.send_converter.setEnabled(sendable)
        self.send_hinges.setEnabled(sendable)

    def _show_refit(self, snap, sel: int) -> None:
        """The selected restart's RMSE next to the best output layer for its kinks. A
        least-squares solve costs O(N·H²) (≈ 50 ms at H = 256 on 4000 points): small
        ones are solved here, now and then while training; large ones on the worker,
        when training pauses."""
        key = (snap.step, sel, id(snap))
        small = jobs.refit_is_live(snap.hidden, self._trainer.x.size)
        now = time.perf_counter()
        if snap.diverged[sel]:
            self._refit_key = None
            self.readings.show_diverged(sel, snap.restarts)
        elif self._refit_key == key:
            pass  # shown, or on its way from the worker
        elif small and (not self.running or now - self._last_refit > REFIT_EVERY):
            self._last_refit = now
            self._refit_key = key
            _, _, refit = refit_output_layer(self._trainer.x, self._trainer.y, snap.w[sel], snap.b[sel])
            self.readings.show_refit(sel, snap.restarts, snap.rmse[sel], refit)
        elif not small and not self.running:
            self._refit_key = key
            self.readings.show_refit(sel, snap.restarts, snap.rmse[sel], "computing…")
            x, y, w, b = self._trainer.x, self._trainer.y, snap.w[sel], snap.b[sel]
            self._refit_worker.submit(partial(jobs.refit_rmse, key, x, y, w, b))
        elif not small:
            self._refit_key = None
            self._refit_worker.cancel()
            self.readings.show_refit(sel, snap.restarts, snap.rmse[sel], "when paused")

    def _on_refit_done(self, result) -> None:
        key, refit = result
        snap = self._snap
        if key == self._refit_key and key == (snap.step, self.selected_restart(), id(snap)):
            self.readings.show_refit(key[1], snap.restarts, snap.rmse[key[1]], refit)

    def _style_series(self, full: bool = False) -> None:
        self.view.style_series(self._snap.best, self._snap.restarts, full)

    def apply_theme(self) -> None:
        if getattr(self, "_trainer", None) is not None:
            # its words name the theme's colours
            self._explain()
            QTimer.singleShot(0, self._room.fit)  # the fonts changed its lines
        self.view.apply_theme()
        self.controls.apply_theme()
        self.readings.apply_theme()
        if self._snap is not None:
            self._style_series(full=True)
            self._draw_final()
            self._draw_losses()
            self._draw_kink_paths()

    # -- sending ------------------------------------------------------------------------
    def selected_network(self):
        return self._snap.network(self.selected_restart())

    def send_selected_to_converter(self) -> bool:
        return self.send_to("converter", "network", self.selected_network())

    def send_selected_to_hinges(self) -> bool:
        """Send the selected restart's kinks to Hinges; no kink is left out without a
        word: the status bar says how many and why (``jobs.hinges_kinks``)."""
        sent_kinks = jobs.hinges_kinks(self._snap, self.selected_restart())
        t, note = self._target, sent_kinks.note
        payload = {"kinks": sent_kinks.kinks, "target": t.text, "a": float(t.a), "b": float(t.b)}
        sent = self.send_to("hinges", "hinges", payload)
        if sent and note:
            self.show_status(note, 15000)
        return sent

    # -- hooks ---------------------------------------------------------------------------
    def readouts(self) -> dict:
        """The readouts, and what the best and the selected restart's readouts show beside
        their main number: ``steps`` (to train), ``best_seed``, ``best_rmse``,
        ``selected_restart`` (1 …) and ``selected_rmse``."""
        values = super().readouts()
        snap, sel = self._snap, self.selected_restart()
        values.update(steps=int(self._state.steps), best_seed=int(snap.seeds[snap.best]),
                      best_rmse=float(snap.rmse[snap.best]), selected_restart=sel + 1,
                      selected_rmse=float(snap.rmse[sel]))
        return values

    def plots(self) -> dict:
        return self.view.plots()

    def export_hints(self) -> list:
        """The RMSE plot's "press Space to train" (a note on diverged restarts stays)."""
        return [self.final_hint] if self.final_hint.toPlainText() == jobs.UNTRAINED_HINT else []

    def data_tables(self) -> dict:
        return jobs.data_tables(self._snap, self._grid, self._target_on_grid, self._ghost)

    def animation_frames(self, max_frames: int = 120):
        saved = self.state
        self.pause()
        try:
            total = saved.steps - self._trainer.step
            per_frame = max(1, -(-total // max(1, max_frames)))
            for _ in range(max_frames):
                if self._trainer.step >= saved.steps:
                    break
                self._advance(per_frame)
                self.driver.draw_all()
                yield self._trainer.step
        finally:
            self.apply_state(saved)
            self.driver.draw_all()

    def shutdown(self) -> None:
        self.driver.shutdown()
        for worker in (self._refit_worker, self._replay_worker, self._compile_worker):
            worker.shutdown()
        super().shutdown()
