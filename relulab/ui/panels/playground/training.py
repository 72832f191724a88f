"""The Playground's training: Play, Pause and Step, played by the shared training
driver (``relulab.ui.driver``) on the classifier's trainer, and the training settings,
which take effect at once and are not undo steps.

The driver asks for steps (``_train_steps``), for how many are left before the stop
(``_steps_left``) and for the pieces of a frame (``_frame``: the map, the curves and
readouts, the diagram or the hidden space), which also records the curves' history.
:class:`PlaygroundTraining` is a mixin of
:class:`~relulab.ui.panels.playground.panel.PlaygroundPanel`: it uses the panel's
``trainer``, ``driver``, ``_state``, ``_history``, ``controls``, ``strip`` and its
drawing methods.
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial

from relulab.ui.panels.base import signals_blocked


class PlaygroundTraining:
    """Play, Pause and Step, the driver's callbacks and the live training settings (a
    mixin of the panel)."""

    # -- live settings (not undo steps) ---------------------------------------------------
    def _on_training_setting(self, *_args) -> None:
        c = self.controls
        settings = replace(self._state.training, optimizer=c.optimizer_combo.currentData(),
                           learning_rate=c.lr_spin.value(), loss=c.loss_combo.currentData(),
                           batch_size=c.batch_spin.value(), speed=c.speed_combo.currentText(),
                           steps_per_press=c.press_spin.value(), max_steps=c.max_steps_spin.value(),
                           **c.penalty.chosen())
        try:
            config = settings.config()
        except ValueError as e:
            self.strip.message(str(e), error=True)
            return
        self._state = replace(self._state, training=settings)
        c.penalty.regularization_rate_combo.setEnabled(settings.regularization is not None)
        c.lr_presets.show(settings.learning_rate)
        self.trainer.set_config(config)
        self.driver.set_speed(settings.steps_per_second)
        self._draw_status(self.trainer.snapshot())

    # -- playing ----------------------------------------------------------------------------
    def toggle_play(self) -> None:
        self.controls.play_button.toggle()

    def is_playing(self) -> bool:
        return self.driver.playing

    def _set_playing(self, on: bool) -> None:
        if not on:
            self.driver.pause()
        elif self.trainer.diverged:
            self.strip.message(self.trainer.message, error=True)
        elif not self.driver.play():
            self.strip.message(f"Stopped at step {self.trainer.step} (the stop set above).")
        self._on_playing_changed(self.driver.playing)

    def _on_playing_changed(self, on: bool) -> None:
        button = self.controls.play_button
        with signals_blocked(button):
            button.setChecked(on)
            button.setText("Pause" if on else "Play")

    def _on_finished(self) -> None:
        if self.trainer.diverged:
            self.strip.message(self.trainer.message, error=True)

    def step_once(self) -> None:
        """Train the steps of one press of Step, and show the result."""
        if self._steps_left() == 0:
            self.strip.message(f"Stopped at step {self.trainer.step} (the stop set above).")
            return
        self.driver.step(self._state.training.steps_per_press)
        if self.trainer.diverged:
            self.strip.message(self.trainer.message, error=True)
        self.redraw(points=False)

    def _train_steps(self, n: int) -> int:
        return self.trainer.run(n)

    def _steps_left(self) -> int | None:
        return self._state.training.steps_left(self.trainer.step)

    def _frame(self, final: bool) -> list:
        """The pieces of a frame: the map (and the regions), the curves and readouts,
        the diagram's weights."""
        snap = self.trainer.snapshot()
        if snap.step > (self._history.step[-1] if len(self._history) else 0):
            self._history = self._history.recording(
                [snap.step], [[snap.train_loss, snap.test_loss, snap.train_accuracy, snap.test_accuracy]])
        net = snap.net
        return [partial(self._draw_map, self.drawn_network(net), final),
                partial(self._draw_numbers, snap), partial(self._draw_side, net, final)]

    def animation_frames(self, max_frames: int = 120):
        """One press of Step per yield; the panel is restored afterwards."""
        saved, playing = self.state, self.is_playing()
        self.driver.pause()
        try:
            for _ in range(max_frames):
                self.step_once()
                self.driver.draw_all()
                yield
                if self.trainer.diverged:
                    break
        finally:
            self.apply_state(saved)
            self.driver.draw_all()
            if playing:
                self._set_playing(True)
