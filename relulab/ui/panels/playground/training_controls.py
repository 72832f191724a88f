"""The Playground's training controls beyond the optimiser's own: the weight penalty
(none, L1 or L2, at a rate from TensorFlow Playground's list) and the learning rate's
presets beside its spin box. They are rows of the controls' Training tab, kept here so
that :class:`~relulab.ui.panels.playground.controls.PlaygroundControls` stays small.
"""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QDoubleSpinBox, QFormLayout, QHBoxLayout, QWidget

from relulab.model.fitting.classify import REGULARIZATIONS
from relulab.model.lessons.playground import (
    LEARNING_RATES,
    REGULARIZATION_RATES,
    TrainingSettings,
)
from relulab.ui.panels.base import named, signals_blocked

#: The combo's entry for no penalty (a combo's data cannot be None and be found again).
NO_PENALTY = "none"


def rate_text(rate: float) -> str:
    return f"{rate:g}"


def choose_number(combo: QComboBox, value: float) -> None:
    """Select ``value`` in a combo of numbers, adding it in order when no entry has it
    (a scene may hold a rate the list does not offer)."""
    at = combo.findData(float(value))
    if at < 0:
        numbers = [combo.itemData(i) for i in range(combo.count())]
        at = sum(1 for v in numbers if v < value)
        combo.insertItem(at, rate_text(value), float(value))
    combo.setCurrentIndex(at)


class PenaltyRows:
    """The weight penalty's two rows: ``regularization_combo`` and
    ``regularization_rate_combo`` (the rate, off while the penalty is none)."""

    def __init__(self, form: QFormLayout):
        self.regularization_combo = named(
            QComboBox(), "playground-regularization", "Weight penalty",
            "Weight penalty added to the training loss: L1 r·Σ|w| (weights the data does not "
            "hold up become exactly 0) or L2 r·½Σw² (every weight shrinks); biases are free")
        for key, label in REGULARIZATIONS.items():
            self.regularization_combo.addItem(label, NO_PENALTY if key is None else key)
        self.regularization_rate_combo = named(
            QComboBox(), "playground-regularization-rate", "Weight penalty rate r",
            "Weight penalty rate r")
        for r in REGULARIZATION_RATES:
            self.regularization_rate_combo.addItem(rate_text(r), float(r))
        form.addRow("Regularisation", self.regularization_combo)
        form.addRow("Penalty rate", self.regularization_rate_combo)

    @property
    def widgets(self) -> tuple[QComboBox, ...]:
        return (self.regularization_combo, self.regularization_rate_combo)

    def chosen(self) -> dict:
        """The penalty as TrainingSettings fields."""
        key = self.regularization_combo.currentData()
        return {"regularization": None if key == NO_PENALTY else key,
                "regularization_rate": float(self.regularization_rate_combo.currentData())}

    def show(self, tr: TrainingSettings) -> None:
        """Show ``tr``'s penalty (signals are blocked by the caller)."""
        key = NO_PENALTY if tr.regularization is None else tr.regularization
        self.regularization_combo.setCurrentIndex(max(0, self.regularization_combo.findData(key)))
        choose_number(self.regularization_rate_combo, tr.regularization_rate)
        self.regularization_rate_combo.setEnabled(tr.regularization is not None)


class RatePresets:
    """The learning rate's presets beside its spin box, a decade every two entries
    (``LEARNING_RATES``); choosing one sets the spin box, whose change trains on. The
    spin box keeps any rate; the combo then reads "preset…"."""

    def __init__(self, spin: QDoubleSpinBox):
        self.spin = spin
        self.combo = named(QComboBox(), "playground-learning-rate-presets",
                           "Learning rate presets", "Learning rates a decade apart, two a decade")
        self.combo.addItem("preset…", None)
        for r in LEARNING_RATES:
            self.combo.addItem(rate_text(r), float(r))
        self.combo.activated.connect(self._chosen)
        self.row = QWidget()
        line = QHBoxLayout(self.row)
        line.setContentsMargins(0, 0, 0, 0)
        line.addWidget(spin, 1)
        line.addWidget(self.combo, 0)

    def _chosen(self, index: int) -> None:
        rate = self.combo.itemData(index)
        if rate is not None:
            self.spin.setValue(rate)

    def show(self, rate: float) -> None:
        at = self.combo.findData(float(rate))
        with signals_blocked(self.combo):
            self.combo.setCurrentIndex(max(0, at))
