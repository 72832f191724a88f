"""The readouts above the Hinges plot: the RMSE, the largest error and the selected
hinge in a row, then the interpolation's error against its bound and the caveat for
a target with a jump. They stay in the lecture layout."""

from __future__ import annotations

import numpy as np
from PySide6.QtWidgets import QHBoxLayout, QSizePolicy, QVBoxLayout, QWidget

from relulab.model.fitting.hinges import ConvergenceRow, HingeFit, Interpolation
from relulab.model.lessons.hinges import HingesState, position_of
from relulab.ui.panels.base import named
from relulab.ui.readout import Readout


def _fmt(v: float | None) -> str:
    return "—" if v is None or not np.isfinite(v) else f"{v:.4f}"


def signed(v: float) -> str:
    """A slope change with its sign, the minus a true minus sign: "+0.250", "−1.300"."""
    return f"{v:+.3f}".replace("-", "−")


def readout(name: str, accessible: str, wrap: bool = False, key: str | None = None) -> Readout:
    return Readout(name, accessible, key, wrap=wrap, selectable=True)


class HingesReadouts(QWidget):
    """The readouts; each is an attribute, listed in ``PARTS``."""

    #: The readouts the panel shows as its own attributes (``panel.rmse_label``).
    PARTS = ("readout_row", "rmse_label", "max_label", "selected_label", "bound_label",
             "caveat_label")

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        v = QVBoxLayout(self)
        v.setContentsMargins(0, 0, 0, 0)
        self.readout_row = named(QWidget(self), "hinges-readouts", "Fit readouts")
        row = QHBoxLayout(self.readout_row)
        row.setContentsMargins(4, 0, 4, 0)
        row.setSpacing(18)
        self.rmse_label = readout("hinges-rmse", "RMSE")
        self.max_label = readout("hinges-max-error", "Largest error")
        self.selected_label = readout("hinges-selected", "Selected hinge", wrap=True)
        self.selected_label.key = "selected_hinge"
        self.selected_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        row.addWidget(self.rmse_label)
        row.addWidget(self.max_label)
        row.addStretch(1)
        v.addWidget(self.readout_row)
        # a line of its own: squeezed beside the errors it wrapped into five lines at
        # zoom 1.6 and took the plots' height
        self.selected_label.setContentsMargins(4, 0, 4, 0)
        v.addWidget(self.selected_label)
        #: the selected hinge's line says how to select one (a hint for the one at the
        #: screen, left out of exported pictures) rather than what is selected
        self.selected_is_hint = False
        self.bound_label = readout("hinges-bound", "Interpolation error and bound", wrap=True,
                                   key="interpolation_error")
        self.caveat_label = readout("hinges-caveat", "Jump caveat", wrap=True)
        v.addWidget(self.bound_label)
        v.addWidget(self.caveat_label)

    def show_fit(self, s: HingesState, fit: HingeFit, selected: int | None,
                 interpolation: Interpolation | None) -> None:
        """The errors of ``fit`` on the samples, hinge ``selected`` (None:
        none, or Interpolation mode; numbered by position, left to right) and, in
        Interpolation mode, its error and bound."""
        where = f"on {s.points:,} samples"
        self.rmse_label.set_value(float(fit.rmse), f"RMSE <b>{_fmt(fit.rmse)}</b>")
        self.max_label.set_value(float(fit.max_error),
                                 f"Largest error <b>{_fmt(fit.max_error)}</b> {where}")
        if selected is not None:
            change = fit.slope_change(selected)
            number = position_of(fit.kinks, selected) + 1
            self.selected_label.set_value(
                number, f"Hinge {number} of {fit.kinks.size}: kink "
                f"{fit.kinks[selected]:.3f}, slope change <b>{signed(change)}</b>")
        self.selected_is_hint = selected is None and s.mode != "interpolation"
        if selected is None:
            self.selected_label.set_value(None, "No hinge selected (click one or press Tab on the "
                                          "plot)" if s.mode != "interpolation" else
                                          f"{s.interpolation_n} neurons, knots every "
                                          f"{(s.b - s.a) / s.interpolation_n:.4g}")
        if interpolation is not None:
            it = interpolation
            c = it.curvature
            shown = (f"Interpolation, n = {it.n}: largest error on [a, b] "
                     f"<b>{_fmt(it.max_error)}</b>")
            if it.bound is not None:
                shown += (f" ≤ bound (b − a)²M/(8n²) = <b>{_fmt(it.bound)}</b>, with M = max|f''| "
                          f"≈ {c.M:.4g} (an estimate from second differences)")
            else:
                shown += (". No bound: f'' is unbounded here (a corner or a jump), so "
                          "(b − a)²M/(8n²) does not apply.")
            self.bound_label.set_value(float(it.max_error), shown)
            self.bound_label.setVisible(True)
        else:
            self.bound_label.set_value(None, "")
            self.bound_label.setVisible(False)

    def show_caveat(self, jump: tuple[float, float] | None, rows: list[ConvergenceRow]) -> None:
        """For a target with a jump (``(size, where)``; None: continuous), say why its
        largest error cannot go to zero, with the convergence study's first and last
        rows once there are two."""
        if jump is None:
            self.caveat_label.clear()
            self.caveat_label.setVisible(False)
            return
        size, where = jump
        text = (f"<b>Jump of {size:.3g} at x ≈ {round(where, 2) + 0.0:g}</b>: the largest error "
                f"does not go to zero (a continuous sum of hinges stays ≥ {size / 2:.3g} away "
                "near the jump, however many hinges; the theorem needs a continuous target), "
                "while the RMSE does.")
        if len(rows) >= 2:
            first, last = rows[0], rows[-1]
            text += (f" Least squares: n = {first.n} → RMSE {first.ls_rmse:.3f}, largest "
                     f"{first.ls_sup_error:.3f}; n = {last.n} → RMSE {last.ls_rmse:.3f}, "
                     f"largest {last.ls_sup_error:.3f}.")
        self.caveat_label.setText(text)
        self.caveat_label.setVisible(True)
