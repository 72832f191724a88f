"""The strip under the map: training status, region counts, the collapsed map of an
identity network, and messages. It stays in the lecture layout."""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QVBoxLayout, QWidget

from relulab.model.classify import LOSSES, OPTIMIZERS, ClassifierSnapshot, TrainConfig
from relulab.model.collapse import collapse, collapse_error, format_affine
from relulab.model.mlp import MLP
from relulab.ui.panels.base import named


def _percent(v: float) -> str:
    return "—" if not math.isfinite(v) else f"{100 * v:.1f} %"


def _number(v: float) -> str:
    return "—" if not math.isfinite(v) else f"{v:.3g}"


class Readouts(QWidget):
    def __init__(self, theme, parent=None):
        super().__init__(parent)
        self.setObjectName("playground-readouts")
        self.theme = theme
        strip = QHBoxLayout(self)
        strip.setContentsMargins(2, 0, 2, 0)
        self.status_label = named(QLabel(""), "playground-status", "Training status")
        self.status_label.setTextFormat(Qt.TextFormat.PlainText)
        strip.addWidget(self.status_label, 1, Qt.AlignmentFlag.AlignTop)
        column = QVBoxLayout()
        strip.addLayout(column, 2)
        self.region_label = named(QLabel(""), "playground-region-count", "Number of linear regions")
        self.plane_label = named(QLabel(""), "playground-region-count-plane",
                                 "Number of linear regions in the whole plane")
        self.collapse_label = named(QLabel(""), "playground-collapse", "Collapsed affine map")
        self.collapse_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.message_label = named(QLabel(""), "playground-message", "Messages")
        for label in (self.region_label, self.plane_label, self.collapse_label, self.message_label):
            label.setWordWrap(True)
            column.addWidget(label)

    def show_status(self, snap: ClassifierSnapshot, config: TrainConfig, n_train: int,
                    n_test: int) -> None:
        self.status_label.setText(
            f"Step {snap.step} · {OPTIMIZERS[config.optimizer]}, "
            f"rate {config.learning_rate:g}, {LOSSES[config.loss]}\n"
            f"Train ({n_train}): accuracy {_percent(snap.train_accuracy)}, loss {_number(snap.train_loss)}\n"
            f"Test ({n_test}): accuracy {_percent(snap.test_accuracy)}, loss {_number(snap.test_loss)}")

    def show_collapse(self, net: MLP, points: np.ndarray, box) -> None:
        """For an identity network: the one affine map its layers collapse into,
        checked on the points and the box's corners."""
        if net.activation != "identity":
            self.collapse_label.setText("")
            self.collapse_label.setVisible(False)
            return
        self.collapse_label.setVisible(True)
        with np.errstate(all="ignore"):  # weights near float64's limits overflow: "NOT equal"
            A, c = collapse(net)
            err = collapse_error(net, np.vstack([points, [[box[0], box[2]], [box[1], box[3]]]]))
        ok = "equal" if err <= 1e-12 else "NOT equal"
        self.collapse_label.setText(
            f"Identity activation: the {len(net.layers)} layers collapse into one, "
            f"z = {format_affine(A[0], float(c[0]))}. "
            f"Checked on the points: max |network − collapsed| = {err:.1e} ({ok}); "
            "the boundary is a straight line.")

    def message(self, text: str, error: bool = False) -> None:
        self.message_label.setText(text)
        colour = self.theme.color("error_text" if error else "foreground").name()
        self.message_label.setStyleSheet(f"color: {colour};" if text else "")
