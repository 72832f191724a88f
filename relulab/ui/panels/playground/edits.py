"""The Playground's edits of its state, each one undo step: the data (dataset, classes,
boundary curve, the typed regression target, random labels, points added, removed,
loaded or saved as CSV) and the network (layers, widths, activations, fresh weights,
replay, the circles lesson).

Every edit makes a new :class:`~relulab.model.lessons.playground.PlaygroundState` from
the one on screen and commits it (``commit``); one the state refuses (a ValueError) is
said in the strip and changes nothing. :class:`PlaygroundEdits` is a mixin of
:class:`~relulab.ui.panels.playground.panel.PlaygroundPanel`: it uses the panel's
``state``, ``_state``, ``_history``, ``controls``, ``strip``, ``curves``,
``undo_stack`` and ``apply_state``. Scripts call the public methods
(``window.panel('playground').set_hidden((8, 8))``); the private slots turn the
controls' values into the same edits (and keep the class a click adds, a view setting).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from relulab.io.points import load_points_csv, save_points_csv
from relulab.model.lessons.playground import (
    ARCHITECTURE_PRESETS,
    MAX_HIDDEN_LAYERS,
    PlaygroundState,
    Points,
)
from relulab.model.networks.activations import ACTIVATIONS
from relulab.ui import dialogs
from relulab.ui.panels.base import SnapshotCommand


class PlaygroundEdits:
    """The undoable edits of the Playground panel's state (a mixin of the panel)."""

    # -- one undo step ---------------------------------------------------------------------
    def commit(self, after: PlaygroundState, text: str, merge_key=None,
               sets_training: bool = False) -> None:
        """One undo step from the state on screen to ``after``. Undo and redo keep the
        view and the training settings as they are then (they are not edits one
        regrets), unless the edit set them itself (``sets_training``)."""
        before = self.state
        self._state = before
        if after == before:
            return

        def apply(state: PlaygroundState) -> None:
            self.apply_state(state.keeping_settings_of(self.state, training=not sets_training))

        self.undo_stack.push(SnapshotCommand(apply, before, after, text, merge_key))

    def _try(self, make, text: str, sets_training: bool = False) -> bool:
        """Commit the state ``make()`` returns; a ValueError is said, and changes nothing."""
        try:
            after = make()
        except ValueError as e:
            self.strip.message(str(e), error=True)
            self.controls.show_state(self.state)
            return False
        self.commit(after, text, sets_training=sets_training)
        return True

    # -- edits of the data -------------------------------------------------------------
    def _on_data_setting(self, *_args) -> None:
        c = self.controls
        data = self._state.dataset.switched_to(c.dataset_combo.currentData())
        if data.name == self._state.dataset.name:  # a new dataset starts from its own defaults
            data = replace(data, noise=round(c.noise_spin.value(), 6), n_per_class=c.points_spin.value(),
                           test_fraction=round(c.test_spin.value(), 6))
        data = replace(data, seed=c.data_seed_spin.value())
        self._try(lambda: self.state.with_data(data), "change the data")

    def regenerate(self) -> None:
        """New points from the next data seed (reproducible: the seed is shown)."""
        self._try(lambda: self.state.regenerated(), "regenerate the data")

    def set_classes(self, classes: int) -> None:
        """The dataset in ``classes`` classes; the network gets an output each (one
        logit for two)."""
        if classes != self._state.classes:
            self._try(lambda: self.state.with_classes(int(classes)), f"{classes} classes")

    def set_boundary(self, text: str) -> None:
        """The boundary dataset's curve: class 1 where x₂ > f(x₁)."""
        data = replace(self._state.dataset.switched_to("boundary"), expression=text.strip())
        if data != self._state.dataset:
            self._try(lambda: self.state.with_data(data), f"boundary x₂ > {text.strip()}")

    def _on_boundary_edited(self) -> None:
        text = self.controls.boundary_edit.text()
        if text.strip() != self._state.dataset.expression:
            self.set_boundary(text)

    def set_formula(self, text: str) -> bool:
        """The typed regression problem with target f(x₁, x₂) = ``text``. Text that does
        not parse, or whose values are not finite in the square, is said in one line
        under the field and changes nothing: the last good f stays."""
        text = text.strip()
        data = replace(self._state.dataset.switched_to("regress_formula"), formula=text)
        try:
            after = self.state.with_data(data)
        except ValueError as e:
            self.controls.show_formula_error(str(e))
            return False
        self.controls.show_formula_error("")
        self.commit(after, f"f(x₁, x₂) = {text}")
        return True

    def _on_formula_edited(self) -> None:
        text = self.controls.formula_edit.text()
        if text.strip() != self._state.dataset.formula:
            self.set_formula(text)

    def set_random_labels(self, on: bool) -> None:
        """Shuffle the training labels (or stop); the run starts again from its weights."""
        if bool(on) != self._state.dataset.random_labels:
            self._try(lambda: self.state.with_random_labels(bool(on)),
                      "random labels" if on else "the true labels")

    def _on_click_class(self, index: int) -> None:
        if index >= 0:
            self._state = self._state.with_view(click_class=int(index))

    def _on_add_requested(self, x: float, y: float, shift: bool) -> None:
        if self._state.dataset.regress:
            self.add_target_point(x, y)
            return
        label = self._state.view.click_class
        self.add_point(x, y, (label + 1) % self._state.classes if shift else label)

    def add_point(self, x: float, y: float, label: int) -> None:
        """Add a training point of class ``label`` at (x, y) (one undo step)."""
        self._try(lambda: self.state.with_points(self.points.adding(x, y, label)),
                  f"add a class {label} point")

    def add_target_point(self, x: float, y: float) -> None:
        """A regression problem: add a training point at (x, y) whose target is the
        problem's own function there, without noise (one undo step)."""
        self._try(lambda: self.state.with_points(
            self.points.adding(x, y, self._state.dataset.target_at(x, y))),
            "add a point on the target")

    def remove_point(self, index: int) -> None:
        self._try(lambda: self.state.with_points(self.points.removing(index)), "remove a point")

    def load_points(self, path) -> bool:
        """Replace the points by those of a CSV file; a bad file changes nothing."""
        try:
            points = Points(*load_points_csv(path))
        except (OSError, ValueError) as e:
            self.controls.show_data_error(str(e))
            return False
        self._try(lambda: self.state.with_points(points), f"load {Path(path).name}")
        self.controls.show_data_error("")
        self.show_status(f"Loaded {len(points)} points from {Path(path).name}")
        return True

    def save_points(self, path) -> bool:
        p = self.points
        try:
            save_points_csv(path, p.x, p.label, p.test)
        except OSError as e:
            self.controls.show_data_error(f"Could not save {Path(path).name}: {e.strerror or e}")
            return False
        self.controls.show_data_error("")
        self.show_status(f"Saved {len(p)} points to {Path(path).name}")
        return True

    def _load_csv_dialog(self) -> None:
        path, _ = dialogs.open_file_name(self, "Load points", "", "CSV files (*.csv);;All files (*)",
                                         instead="window.panel('playground').load_points(path)")
        if path:
            self.load_points(path)

    def _save_csv_dialog(self) -> None:
        path, _ = dialogs.save_file_name(self, "Save points", "points.csv", "CSV files (*.csv)",
                                         instead="window.panel('playground').save_points(path)")
        if path:
            self.save_points(path)

    # -- edits of the network ------------------------------------------------------------
    def set_hidden(self, hidden, text: str = "change the architecture") -> None:
        """New hidden layer sizes: new initial weights from the seed, curves cleared."""
        self._try(lambda: self.state.with_hidden(hidden), text)

    def add_layer(self) -> None:
        hidden = self._state.architecture.hidden
        if len(hidden) < MAX_HIDDEN_LAYERS:
            self.set_hidden((*hidden, hidden[-1] if hidden else 4), "add a layer")

    def remove_layer(self) -> None:
        hidden = self._state.architecture.hidden
        if hidden:
            self.set_hidden(hidden[:-1], "remove a layer")

    def set_layer_width(self, layer: int, width: int) -> None:
        hidden = list(self._state.architecture.hidden)
        if 1 <= layer <= len(hidden) and hidden[layer - 1] != width:
            hidden[layer - 1] = int(width)
            self.set_hidden(hidden, f"layer {layer}: {width} neurons")

    def _on_preset(self, index: int) -> None:
        label = self.controls.preset_combo.itemData(index)
        if label is not None:
            self.set_hidden(ARCHITECTURE_PRESETS[label], f"preset {label}")

    def set_activation(self, name) -> None:
        """Same weights, another activation for every hidden layer, or a list of one per
        layer (the curves restart)."""
        names = [name] if isinstance(name, str) else list(name)
        if any(n not in ACTIVATIONS for n in names):
            if name == "mixed":  # the combo's entry for "each layer its own": nothing to do
                return
            raise ValueError(f"unknown activation {name!r}")
        self._try(lambda: self.state.with_activation(name),
                  f"activation {name if isinstance(name, str) else ', '.join(names)}")

    def set_layer_activation(self, layer: int, name: str) -> None:
        """Hidden layer ``layer`` (from 1) with activation ``name``; the weights stay."""
        if self._state.architecture.activations[layer - 1] != name:
            self._try(lambda: self.state.with_layer_activation(layer, name),
                      f"layer {layer}: {ACTIVATIONS[name].label}")

    def reset_weights(self, seed: int | None = None) -> None:
        """New initial weights from the weights seed; the step count and curves restart."""
        self._try(lambda: self.state.with_fresh_weights(seed), "reset the weights")

    def replay(self) -> None:
        """Back to the weights this run started from, with the settings as they are now:
        the run before is drawn dashed beside the new one, to compare."""
        before = self._history
        if self._try(lambda: self.state.replayed(), "replay"):
            self._previous = before if len(before) else self._previous
            self.curves.show_previous(self._previous)

    def lesson_setup(self) -> None:
        """The circles lesson exactly: circles and 2-6-1 weights from one default_rng(seed),
        full-batch gradient descent at 0.5 on cross-entropy, stop at 2000 steps."""
        seed = self.controls.data_seed_spin.value()
        if self._try(lambda: self.state.lesson(seed), "circles lesson set-up", sets_training=True):
            self.strip.message(
                "The circles lesson: press Play; after 2000 steps the training accuracy is the lesson's.")
