"""The strip of readouts: training status, region counts, the collapsed map of an
identity network, and messages. It sits under the controls, and beside the map in the
lecture layout, where the controls are hidden and it stays."""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QVBoxLayout, QWidget

from relulab.model.fitting.classify import (
    LOSSES,
    OPTIMIZERS,
    REGULARIZATIONS,
    ClassifierSnapshot,
    TrainConfig,
)
from relulab.model.networks.collapse import (
    collapse,
    collapse_check,
    collapse_identity_layers,
    format_affine,
    identity_layers,
)
from relulab.model.networks.mlp import MLP
from relulab.ui.panels.base import named
from relulab.ui.panels.playground.sizing import Line
from relulab.ui.readout import Readout


def _percent(v: float) -> str:
    return "—" if not math.isfinite(v) else f"{100 * v:.1f} %"


def _number(v: float) -> str:
    return "—" if not math.isfinite(v) else f"{v:.3g}"


def _at_least(v: float) -> str:
    """v with two significant digits, rounded up: what follows "≤" must not be below it."""
    for k in range(12):
        text = f"{v * (1 + 0.01 * k):.1e}"
        if float(text) >= v:
            return text
    return f"{v:.1e}"  # not finite


def penalty_line(snap: ClassifierSnapshot, config: TrainConfig) -> str:
    """The line that says the training loss includes the weight penalty P (the test
    loss never does); empty without one. Short: the status is not wrapped, and its
    widest line sets the control column's width (a longer one took the map's room at
    zoom 1.6)."""
    if config.regularization is None:
        return ""
    return f"\nTrain loss includes {REGULARIZATIONS[config.regularization]} penalty {_number(snap.penalty)}"


class Readouts(QWidget):
    """The strip of readouts; ``shown`` is the snapshot whose status it shows."""

    def __init__(self, theme, parent=None):
        super().__init__(parent)
        named(self, "playground-readouts", "Training status and region counts")
        self.theme = theme
        self.shown: ClassifierSnapshot | None = None
        # one column: the status, then the counts (it sits beside the map)
        column = QVBoxLayout(self)
        column.setContentsMargins(2, 0, 2, 0)
        self.status_label = Readout("playground-status", "Training status", "status",
                                    text_format=Qt.TextFormat.PlainText)
        column.addWidget(self.status_label)
        self.region_label = Line("playground-region-count", "Number of linear regions",
                                  "regions")
        self.plane_label = Line("playground-region-count-plane",
                                 "Number of linear regions in the whole plane", "plane_regions")
        self.decision_label = Line("playground-decision", "How the decision boundary is drawn",
                                    "decision")
        self.collapse_label = Line("playground-collapse", "Collapsed affine map", "collapse",
                                    selectable=True)
        self.message_label = Line("playground-message", "Messages", "message")
        for label in (self.region_label, self.plane_label, self.decision_label,
                      self.collapse_label, self.message_label):
            label.setWordWrap(True)
            label.setVisible(False)
            column.addWidget(label)

    def show_status(self, snap: ClassifierSnapshot, config: TrainConfig, n_train: int,
                    n_test: int) -> None:
        self.shown = snap
        if config.is_regression:
            self.status_label.setText(
                f"Step {snap.step} · {OPTIMIZERS[config.optimizer]}, rate {config.learning_rate:g}\n"
                f"Train ({n_train}): MSE {_number(snap.train_loss)}\n"
                f"Test ({n_test}): MSE {_number(snap.test_loss)}" + penalty_line(snap, config))
            return
        self.status_label.setText(
            f"Step {snap.step} · {OPTIMIZERS[config.optimizer]}, "
            f"rate {config.learning_rate:g}, {LOSSES[config.loss]}\n"
            f"Train ({n_train}): accuracy {_percent(snap.train_accuracy)}, loss {_number(snap.train_loss)}\n"
            f"Test ({n_test}): accuracy {_percent(snap.test_accuracy)}, loss {_number(snap.test_loss)}"
            + penalty_line(snap, config))

    def show_collapse(self, net: MLP, points: np.ndarray, box) -> None:
        """For identity layers: the one affine map an all-identity network collapses
        into, or what a network with some identity layers collapses to (just those
        layers merged into the next), checked on the points and the box's corners."""
        merged = identity_layers(net)
        if not merged:
            self.collapse_label.setText("")
            self.collapse_label.setVisible(False)
            return
        self.collapse_label.setVisible(True)
        X = np.vstack([points, [[box[0], box[2]], [box[1], box[3]]]])
        # equal by algebra; the check says whether the doubles agree within a proven
        # rounding bound (no fixed tolerance decides it)
        err, _equal, verdict = collapse_check(net, X)
        if net.uses_only("identity"):
            with np.errstate(all="ignore"):
                A, c = collapse(net)
            if net.n_out == 1:
                what = f"z = {format_affine(A[0], float(c[0]))}"
            else:
                what = f"{net.n_out} affine scores (s₁ = {format_affine(A[0], float(c[0]))}, …)"
            self.collapse_label.setText(
                f"Identity: the {len(net.layers)} layers collapse into one, {what}, whose "
                f"boundary is straight; on the points |network − collapsed| ≤ {_at_least(err)} "
                f"({verdict}).")
            return
        flat = collapse_identity_layers(net)
        layers = ", ".join(map(str, merged))
        self.collapse_label.setText(
            f"Identity on layer{'s' if len(merged) > 1 else ''} {layers}: "
            f"{'they merge' if len(merged) > 1 else 'it merges'} into the next layer, "
            f"{'-'.join(map(str, net.sizes))} computes what {'-'.join(map(str, flat.sizes))} "
            f"computes. Checked on the points: max difference {err:.1e} ({verdict}).")

    def message(self, text: str, error: bool = False) -> None:
        self.message_label.setText(text)
        colour = self.theme.color("error_text" if error else "foreground").name()
        self.message_label.setStyleSheet(f"color: {colour};" if text else "")
