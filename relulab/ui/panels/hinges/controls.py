"""The Hinges panel's controls: a scrolled column with what a learner changes first
(how the slopes are found, how many hinges, the line and the selected hinge's slope
change) at the top, the target and the views below, and a note on the mouse and keys.

The controls only show a state (:meth:`HingesControls.show_state`, signals blocked so
nothing echoes back as an edit); the panel connects their signals and turns what the
user asked for into edits of its state.
"""

from __future__ import annotations

from PySide6.QtCore import QLocale, Qt, QTimer
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QScrollArea,
    QSizePolicy,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from relulab.model.data.targets import PRESETS
from relulab.model.fitting.hinges import (
    COEFFICIENT_LIMIT,
    DOMAIN_LIMIT,
    MAX_HINGES,
    MAX_POINTS,
    MIN_POINTS,
    HingeFit,
)
from relulab.model.lessons.hinges import HingesState
from relulab.ui.panels.base import Key, fit_controls_width, named, signals_blocked
from relulab.ui.panels.hinges.readouts import readout
from relulab.ui.readout import Note
from relulab.ui.theme import Theme

MODE_LABELS = {"free": "Free", "least squares": "Least squares", "interpolation": "Interpolation"}
MODE_NAMES = {"free": "free", "least squares": "least-squares", "interpolation": "interpolation"}
MODE_TIPS = {
    "free": "Free: you set every kink and every slope change (drag up and down)",
    "least squares": "Least squares: you move the kinks, the slopes are re-solved on every move",
    "interpolation": "Interpolation: n evenly spaced knots on the curve, the error against "
                     "its bound (b − a)²M/(8n²)",
}
#: The preset box's entry for a target typed as an expression.
CUSTOM = "Typed expression"
#: What the slope-change box shows while no hinge is selected.
NO_HINGE = "no hinge selected"
#: Numbers in boxes as in the app's text: a point for decimals, thousands with a comma.
NUMBER_LOCALE = QLocale(QLocale.Language.English, QLocale.Country.UnitedStates)

#: The keys on the plot (it has the focus after a click on it): the panel makes them
#: (``Panel.make_keys``) and Help lists them; the note under the controls says the same.
PLOT_KEYS = (
    Key("Tab", "select the next hinge", "select_step", (1,), "plot", "next"),
    Key("Backtab", "select the previous hinge", "select_step", (-1,), "plot", "previous"),
    Key("Shift+Backtab", "select the previous hinge", "select_step", (-1,), "plot",
        "previous-shift"),
    Key("Left", "move the selected kink left", "nudge_kink", (-1,), "plot", "left"),
    Key("Right", "move the selected kink right", "nudge_kink", (1,), "plot", "right"),
    Key("Shift+Up", "raise the selected slope change (Free)", "nudge_coefficient", (1,),
        "plot", "up"),
    Key("Shift+Right", "raise the selected slope change (Free)", "nudge_coefficient", (1,),
        "plot", "up-right"),
    Key("Shift+Down", "lower the selected slope change (Free)", "nudge_coefficient", (-1,),
        "plot", "down"),
    Key("Shift+Left", "lower the selected slope change (Free)", "nudge_coefficient", (-1,),
        "plot", "down-left"),
    Key("Delete", "delete the selected hinge", "delete_selected", (), "plot", "delete"),
    Key("Backspace", "delete the selected hinge", "delete_selected", (), "plot",
        "backspace"),
    Key("Escape", "leave the plot (Tab selects controls again)", "_leave_plot", (), "plot",
        "leave"),
)


def _number_box(name: str, accessible: str, lo: float, hi: float, decimals: int,
                step: float = 0.5) -> QDoubleSpinBox:
    w = named(QDoubleSpinBox(), name, accessible, accessible)
    w.setRange(lo, hi)
    w.setDecimals(decimals)
    w.setSingleStep(step)
    w.setKeyboardTracking(False)
    w.setLocale(NUMBER_LOCALE)
    w.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
    return w


class HingesControls(QScrollArea):
    """The column of controls, named ``hinges-controls`` (the lecture layout hides it
    by that name). Its widgets are attributes, listed in ``PARTS``."""

    #: The widgets the panel wires and shows as its own attributes (``panel.count_spin``).
    PARTS = ("preset_box", "expression_edit", "expression_error", "a_spin", "b_spin",
             "points_spin", "mode_group", "mode_buttons", "count_spin", "spread_button",
             "intercept_spin", "slope_spin", "coefficient_spin", "delete_button",
             "components_check", "residual_check", "convergence_check")

    def __init__(self, theme: Theme, parent: QWidget | None = None):
        super().__init__(parent)
        self.theme = theme
        named(self, "hinges-controls", "Hinges controls")
        self.setWidgetResizable(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        box = QWidget()
        cl = QVBoxLayout(box)
        cl.setContentsMargins(4, 0, 4, 0)
        # what a learner changes first (how the slopes are found, how many hinges) at
        # the top; the target and the views below
        for group in (self._build_hinges_box(), self._build_target_box(), self._build_view_box()):
            cl.addWidget(group)
        keys = Note("hinges-help", "Mouse and keys on the plot",
                    "Drag a handle to move its kink (Free: up and down bends it). "
                    "Double-click adds a hinge. F1: the guide and every key.")
        keys.setToolTip("On the plot: Tab/Shift+Tab select a hinge, ←/→ move its kink, "
                        "Shift+↑/↓ change its slope, Delete removes it, Esc leaves the plot. "
                        "Right-click during a drag cancels it.")
        cl.addWidget(keys)
        cl.addStretch(1)
        self.setWidget(box)

    def _build_target_box(self) -> QGroupBox:
        group = QGroupBox("Target")
        form = QFormLayout(group)
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        self.preset_box = named(QComboBox(), "hinges-preset", "Target preset", "Target preset")
        self.preset_box.addItems([*list(PRESETS), CUSTOM])
        form.addRow("Preset", self.preset_box)
        self.expression_edit = named(QLineEdit(), "hinges-expression", "Target expression in x",
                                     "Target expression in x")
        self.expression_edit.setPlaceholderText("e.g. sin(3x) + x^2/4, Enter to apply")
        form.addRow("f(x) =", self.expression_edit)
        self.expression_error = readout("hinges-expression-error", "Expression error", wrap=True)
        self.expression_error.setVisible(False)
        form.addRow(self.expression_error)
        domain = QHBoxLayout()
        self.a_spin = _number_box("hinges-a", "Domain start a", -DOMAIN_LIMIT, DOMAIN_LIMIT, 3)
        self.b_spin = _number_box("hinges-b", "Domain end b", -DOMAIN_LIMIT, DOMAIN_LIMIT, 3)
        domain.addWidget(self.a_spin)
        domain.addWidget(QLabel("to"))
        domain.addWidget(self.b_spin)
        form.addRow("Domain", domain)
        self.points_spin = named(QSpinBox(), "hinges-points", "Number of sample points",
                                 "Number of sample points")
        self.points_spin.setRange(MIN_POINTS, MAX_POINTS)
        self.points_spin.setKeyboardTracking(False)
        self.points_spin.setLocale(NUMBER_LOCALE)
        self.points_spin.setGroupSeparatorShown(True)
        form.addRow("Sample points", self.points_spin)
        return group

    def _build_hinges_box(self) -> QGroupBox:
        """How the slopes are found (the mode), how many hinges, the line and the selected
        hinge's slope change."""
        group = QGroupBox("Hinges")
        grid = QGridLayout(group)
        self.mode_group = QButtonGroup(self)
        self.mode_buttons = {}
        modes = QHBoxLayout()
        for mode, label in MODE_LABELS.items():
            rb = named(QRadioButton(label), f"hinges-mode-{MODE_NAMES[mode]}", f"{label} mode",
                       MODE_TIPS[mode])
            self.mode_group.addButton(rb)
            self.mode_buttons[mode] = rb
            modes.addWidget(rb)
        grid.addLayout(modes, 0, 0, 1, 4)
        self.count_spin = named(QSpinBox(), "hinges-count", "Number of hinges", "Number of hinges")
        self.count_spin.setRange(1, MAX_HINGES)
        self.count_spin.setKeyboardTracking(False)
        grid.addWidget(QLabel("Hinges"), 1, 0)
        grid.addWidget(self.count_spin, 1, 1)
        self.spread_button = named(QPushButton("Spread evenly"), "hinges-spread",
                                   "Spread the kinks evenly", "Spread the kinks evenly")
        grid.addWidget(self.spread_button, 1, 2, 1, 2)
        c = COEFFICIENT_LIMIT
        self.intercept_spin = _number_box("hinges-intercept", "Intercept a of the line a + s·x",
                                          -c, c, 4, 0.1)
        self.slope_spin = _number_box("hinges-slope", "Slope s of the line a + s·x", -c, c, 4, 0.1)
        # one step below the least slope change a state holds: the box's "no hinge" value
        self.coefficient_spin = _number_box("hinges-coefficient",
                                            "Slope change c of the selected hinge", -c - 1, c, 4,
                                            0.1)
        self.coefficient_spin.setSpecialValueText(NO_HINGE)
        # short labels, the words in their tooltips: the line a + s·x, then the selected
        # hinge's slope change c beside the button that deletes it
        for row, (text, box) in enumerate((("line a", self.intercept_spin),
                                           ("line s", self.slope_spin),
                                           ("hinge c", self.coefficient_spin)), start=2):
            label = QLabel(text)
            label.setToolTip(box.accessibleName() + " (set in Free mode)")
            grid.addWidget(label, row, 0)
            grid.addWidget(box, row, 1, 1, 2 if row == 4 else 3)
        self.delete_button = named(QPushButton("Delete"), "hinges-delete",
                                   "Delete the selected hinge", "Delete the selected hinge (Delete)")
        grid.addWidget(self.delete_button, 4, 3)
        grid.setColumnStretch(1, 1)
        return group

    def _build_view_box(self) -> QGroupBox:
        group = QGroupBox("Show")
        column = QVBoxLayout(group)
        self.components_check = named(QCheckBox("Each hinge cᵢ·ReLU(x − kᵢ)"), "hinges-components",
                                      "Show each hinge separately", "Show each hinge separately")
        self.residual_check = named(QCheckBox("Residual plot"), "hinges-residual",
                                    "Show the residual plot", "Show the residual plot")
        self.convergence_check = named(QCheckBox("Convergence (error against n)"),
                                       "hinges-convergence", "Show the convergence plot",
                                       "Show the convergence plot")
        for w in (self.components_check, self.residual_check, self.convergence_check):
            column.addWidget(w)
        return group

    # -- showing ---------------------------------------------------------------------
    def show_state(self, s: HingesState, target_text: str) -> None:
        """Show the state in the controls, with their signals blocked (no echo)."""
        with signals_blocked(self.preset_box, self.expression_edit, self.a_spin, self.b_spin,
                             self.points_spin, self.count_spin, self.intercept_spin,
                             self.slope_spin, self.coefficient_spin, self.components_check,
                             self.residual_check, self.convergence_check, self.mode_group):
            self.preset_box.setCurrentText(s.target if s.target in PRESETS else CUSTOM)
            self.expression_edit.setText(target_text)
            self.a_spin.setValue(s.a)
            self.b_spin.setValue(s.b)
            self.points_spin.setValue(s.points)
            self.mode_buttons[s.mode].setChecked(True)
            n = s.interpolation_n if s.mode == "interpolation" else max(1, len(s.kinks))
            self.count_spin.setValue(n)
            free = s.mode == "free"
            self.intercept_spin.setEnabled(free)
            self.slope_spin.setEnabled(free)
            has_sel = s.selected is not None
            self.coefficient_spin.setEnabled(free and has_sel)
            self.delete_button.setEnabled(has_sel and s.mode != "interpolation")
            self.spread_button.setEnabled(s.mode != "interpolation")
            self.components_check.setChecked(s.show_components)
            self.residual_check.setChecked(s.show_residual)
            self.convergence_check.setChecked(s.show_convergence)

    def show_parameters(self, fit: HingeFit, s: HingesState) -> None:
        """The line and the selected slope change of ``fit`` in their boxes:
        typed in Free mode, computed (and read-only) in the other two."""
        sel = s.selected
        with signals_blocked(self.intercept_spin, self.slope_spin, self.coefficient_spin):
            self.intercept_spin.setValue(fit.intercept)
            self.slope_spin.setValue(fit.slope)
            if sel is not None and sel < fit.coefficients.size and s.mode != "interpolation":
                self.coefficient_spin.setValue(float(fit.coefficients[sel]))
            else:
                self.coefficient_spin.setValue(self.coefficient_spin.minimum())  # NO_HINGE

    def show_error(self, text: str) -> None:
        """Say what is wrong with the typed target or domain next to the box ("": nothing)."""
        self.expression_error.setText(text)
        self.expression_error.setVisible(bool(text))

    # -- theme -----------------------------------------------------------------------
    def apply_theme(self) -> None:
        self.expression_error.setStyleSheet(f"color: {self.theme.color('error_text').name()};")
        self.fit_width()
        # the new fonts reach the controls' size hints only after this event: fit then
        QTimer.singleShot(0, self.fit_width)

    def fit_width(self) -> None:
        fit_controls_width(self, int(min(330 * self.theme.zoom, 470)))
