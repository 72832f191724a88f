"""The Training panel's widgets: the left column of controls (Play, Step and Reset first,
then the target, the network, training and the view) and the readouts above the plots.

They are built and named here; they show a state (``show_state``, signals blocked so
nothing echoes back as an edit) and read the settings back (``settings``). The panel
connects their signals and turns them into edits of its state.
"""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSpinBox,
    QWidget,
)

from relulab.model.data.targets import PRESETS
from relulab.model.fitting.training import (
    DOMAIN_LIMIT,
    FINAL_VIEWS,
    INITS,
    LR_RANGE,
    MAX_POINTS,
    MAX_RESTARTS,
    MAX_STEPS,
    MAX_WIDTH,
    MIN_POINTS,
    OPTIMIZERS,
    SPEEDS,
    RestartsSnapshot,
)
from relulab.model.lessons.training import TrainingState
from relulab.ui.panels.base import fit_controls_width, named, signals_blocked
from relulab.ui.panels.training.jobs import explanation, restart_name
from relulab.ui.readout import Note, Readout

OPTIMIZER_LABELS = {"adam": "Adam", "gd": "gradient descent", "momentum": "momentum"}
INIT_LABELS = {"spread": "kinks spread (the notebook's)", "he": "He"}


def _item_index(combo: QComboBox, data) -> int:
    return max(0, combo.findData(data))


class TrainingControls(QScrollArea):
    """The left column ("training-controls", hidden in the lecture layout), scrolled
    when the window is short."""

    def __init__(self, theme, parent=None):
        super().__init__(parent)
        self.theme = theme
        named(self, "training-controls", "Training controls")
        self._build_run_controls()
        self._build_target_controls()
        self._build_network_controls()
        self._build_view_controls()
        for box in (self.domain_a, self.domain_b, self.points, self.hidden, self.lr, self.steps,
                    self.restarts, self.batch):
            box.setKeyboardTracking(False)
        self.setWidgetResizable(True)
        self.setWidget(self._build_form())
        self.setFrameShape(QScrollArea.Shape.NoFrame)

    def _build_run_controls(self) -> None:
        self.play_button = named(QPushButton("Play"), "training-play", "Play or pause training",
                                 "Play / pause (Space)")
        self.play_button.setCheckable(True)
        self.step_button = named(QPushButton("Step"), "training-step", "One training step",
                                 "One step (→)")
        self.reset_button = named(QPushButton("Reset"), "training-reset", "Reset training",
                                  "Back to the random starts (R)")
        self.speed = named(QComboBox(), "training-speed", "Training speed")
        self.speed.addItems(list(SPEEDS))

    def _build_target_controls(self) -> None:
        self.target = named(QComboBox(), "training-target", "Target function",
                            "A preset, or type an expression in x and press Enter")
        self.target.setEditable(True)
        self.target.lineEdit().setAccessibleName("Target function: a preset or an expression in x")
        self.target.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.target.addItems(list(PRESETS))
        self.domain_a = named(QDoubleSpinBox(), "training-a", "Domain start")
        self.domain_b = named(QDoubleSpinBox(), "training-b", "Domain end")
        for box in (self.domain_a, self.domain_b):
            box.setRange(-DOMAIN_LIMIT, DOMAIN_LIMIT)
            box.setDecimals(2)
        self.target_error = Readout("training-target-error", "Target error message",
                                    "target_error", wrap=True)
        self.points = named(QSpinBox(), "training-points", "Number of data points")
        self.points.setRange(MIN_POINTS, MAX_POINTS)

    def _build_network_controls(self) -> None:
        self.hidden = named(QSpinBox(), "training-hidden", "Hidden width (neurons)")
        self.hidden.setRange(1, MAX_WIDTH)
        self.lr = named(QDoubleSpinBox(), "training-lr", "Learning rate",
                        "Changing it does not reset training")
        self.lr.setDecimals(5)
        self.lr.setRange(*LR_RANGE)
        self.lr.setSingleStep(0.001)
        self.steps = named(QSpinBox(), "training-steps", "Steps to train")
        self.steps.setRange(1, MAX_STEPS)
        self.steps.setSingleStep(1000)
        self.steps.setGroupSeparatorShown(True)
        self.restarts = named(QSpinBox(), "training-restarts", "Number of restarts")
        self.restarts.setRange(1, MAX_RESTARTS)
        self.optimizer = named(QComboBox(), "training-optimizer", "Optimiser")
        for name in OPTIMIZERS:
            self.optimizer.addItem(OPTIMIZER_LABELS[name], name)
        self.batch = named(QSpinBox(), "training-batch", "Batch size (0 = all points)")
        self.batch.setRange(0, MAX_POINTS)
        self.batch.setSpecialValueText("full batch")
        self.init = named(QComboBox(), "training-init", "Initialisation")
        for name in INITS:
            self.init.addItem(INIT_LABELS[name], name)

    def _build_view_controls(self) -> None:
        self.selected = named(QComboBox(), "training-selected", "Restart whose kinks are shown")
        self.final_view = named(QComboBox(), "training-final-view", "RMSE plot: sorted bars or a histogram")
        for view in FINAL_VIEWS:
            self.final_view.addItem(view, view)
        self.send_converter = named(QPushButton("Send to deep → shallow"), "training-send-converter",
                                    "Send the selected restart to the deep to shallow panel")
        self.send_hinges = named(QPushButton("Send kinks to hinges"), "training-send-hinges",
                                 "Send the selected restart's kinks to the hinges panel")
        self.status = Readout("training-status", "Training status", "status", wrap=True)

    def _build_form(self) -> QWidget:
        form_widget = QWidget()
        form = QFormLayout(form_widget)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        buttons = QHBoxLayout()
        for b in (self.play_button, self.step_button, self.reset_button):
            buttons.addWidget(b)
        form.addRow(buttons)
        form.addRow("Speed", self.speed)
        form.addRow("Target", self.target)
        domain = QHBoxLayout()
        domain.addWidget(self.domain_a)
        domain.addWidget(QLabel("to"))
        domain.addWidget(self.domain_b)
        form.addRow("Domain", domain)
        form.addRow(self.target_error)
        for label, widget in (("Points", self.points), ("Hidden width", self.hidden),
                              ("Learning rate", self.lr), ("Steps", self.steps),
                              ("Restarts", self.restarts), ("Optimiser", self.optimizer),
                              ("Batch size", self.batch), ("Start", self.init),
                              ("Show kinks of", self.selected), ("RMSE plot", self.final_view)):
            form.addRow(label, widget)
        for widget in (self.send_converter, self.send_hinges, self.status):
            form.addRow(widget)
        return form_widget

    def show_state(self, s: TrainingState) -> None:
        """The state in the controls, signals blocked so nothing echoes back as an edit."""
        widgets = (self.target, self.domain_a, self.domain_b, self.points, self.hidden, self.lr,
                   self.steps, self.restarts, self.optimizer, self.batch, self.init, self.speed,
                   self.final_view)
        with signals_blocked(*widgets):
            self.target.setCurrentText(s.target)
            self.domain_a.setValue(s.a)
            self.domain_b.setValue(s.b)
            self.points.setValue(s.points)
            self.hidden.setValue(s.hidden)
            self.lr.setValue(s.lr)
            self.steps.setValue(s.steps)
            self.restarts.setValue(s.restarts)
            self.optimizer.setCurrentIndex(_item_index(self.optimizer, s.optimizer))
            self.batch.setValue(s.batch_size)
            self.init.setCurrentIndex(_item_index(self.init, s.init))
            self.speed.setCurrentText(s.speed)
            self.final_view.setCurrentIndex(_item_index(self.final_view, s.final_view))
        self.target_error.setText("")

    def settings(self, state: TrainingState) -> TrainingState:
        """``state`` with the run's settings as the controls show them, at step 0 (new
        settings mean new random starts)."""
        return replace(state, target=self.target.currentText().strip(),
                       a=self.domain_a.value(), b=self.domain_b.value(), points=self.points.value(),
                       hidden=self.hidden.value(), restarts=self.restarts.value(),
                       optimizer=self.optimizer.currentData(), batch_size=self.batch.value(),
                       init=self.init.currentData(), step=0)

    def show_domain(self, a: float, b: float) -> None:
        """A preset's domain, without an edit of its own (the preset makes one)."""
        with signals_blocked(self.domain_a, self.domain_b):
            self.domain_a.setValue(a)
            self.domain_b.setValue(b)

    def fill_selected(self, seeds, selected: int) -> None:
        """The restarts to show the kinks of ("best restart", then each as "restart 3 of
        6 (random seed 2)": restarts count from 1, the seeds they start from from 0),
        ``selected`` chosen (−1: the best)."""
        with signals_blocked(self.selected):
            self.selected.clear()
            self.selected.addItem("best restart", -1)
            for r, s in enumerate(seeds):
                self.selected.addItem(f"{restart_name(r, len(seeds))} (random seed {s})", r)
            self.selected.setCurrentIndex(_item_index(self.selected, selected))

    def fit_width(self) -> None:
        """Wide enough for the form at the current zoom: no sideways scrolling of controls."""
        fit_controls_width(self, int(self.theme.width(220)), int(self.theme.width(330)))

    def apply_theme(self) -> None:
        self.target_error.setStyleSheet(f"color: {self.theme.color('error_text').name()};")
        self.setMinimumWidth(int(self.theme.width(220)))
        self.setMaximumWidth(int(self.theme.width(330)))
        # the new fonts reach the form's size hint only after this event, so fit then
        QTimer.singleShot(0, self.fit_width)


class TrainingReadouts:
    """The numbers above the plots (step, speed, best restart, the selected restart's
    refit, the ghost) and the note on what the plots show."""

    def __init__(self, theme):
        self.theme = theme
        self.step = Readout("training-step-readout", "Step", "step")
        self.rate = Readout("training-rate-readout", "Steps per second", "rate")
        self.best = Readout("training-best-readout", "Best restart", "best_restart")
        self.refit = Readout("training-refit-readout",
                             "Least-squares refit of the output layer", "refit_rmse")
        self.ghost = Readout("training-ghost-readout",
                             "Least squares with evenly spaced kinks", "even_kinks_rmse")
        self.explain = Note("training-explain", "What the plots show")

    def labels(self) -> tuple[QLabel, ...]:
        return (self.step, self.rate, self.best, self.refit, self.ghost)

    def grid(self) -> QGridLayout:
        readouts = QGridLayout()
        readouts.addWidget(self.step, 0, 0)
        readouts.addWidget(self.rate, 0, 1)
        readouts.addWidget(self.best, 0, 2)
        readouts.addWidget(self.refit, 1, 0, 1, 2)
        readouts.addWidget(self.ghost, 1, 2)
        for column, stretch in enumerate((2, 1, 3)):
            readouts.setColumnStretch(column, stretch)
        for label in self.labels():
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            # changing text neither widens the window nor re-lays out the plots
            label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
            label.setWordWrap(label is not self.step and label is not self.rate)
        return readouts

    def show(self, snap: RestartsSnapshot, steps: int, rate: float | None, ghost_rmse: float) -> None:
        """The step of ``steps``, the speed (``rate`` steps/s, None while paused), the best
        restart and the ghost's RMSE."""
        best = snap.best
        self.step.set_value(int(snap.step), f"step {snap.step:,} / {steps:,}")
        if rate is None:
            self.rate.set_value(None, "paused")
        else:
            self.rate.set_value(float(rate), f"{rate:,.0f} steps/s")
        self.best.set_value(
            best + 1, f"best: {restart_name(best, snap.restarts)}, RMSE {snap.rmse[best]:.4f}")
        self.ghost.set_value(
            float(ghost_rmse), f"{snap.hidden} even kinks, least squares: {ghost_rmse:.4f}")

    def show_refit(self, r: int, restarts: int, rmse: float, refit: float | str) -> None:
        """Restart r's RMSE beside the best output layer for its kinks, or a word on that
        refit ("computing…", "when paused")."""
        shown = refit if isinstance(refit, str) else f"{refit:.4f}"
        self.refit.set_value(None if isinstance(refit, str) else float(refit),
                             f"{restart_name(r, restarts)}: {rmse:.4f}; output layer refit: {shown}")

    def show_diverged(self, r: int, restarts: int) -> None:
        self.refit.set_value(None, f"{restart_name(r, restarts)}: diverged")

    def explain_run(self, restarts: int, hidden: int) -> None:
        """What the plots show, in words, for these settings (the words name the colours
        of the theme in use)."""
        self.explain.setText(explanation(restarts, hidden, self.theme.colour_word))

    def apply_theme(self) -> None:
        self.explain.setFont(self.theme.font(9.5))
        for label in self.labels():
            label.setFont(self.theme.font(11, bold=label is self.best))
