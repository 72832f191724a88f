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
"""

from __future__ import annotations

import time
from dataclasses import replace
from functools import partial

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer, Signal
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
    QVBoxLayout,
    QWidget,
)

from relulab.model.data.expression import ExpressionError
from relulab.model.data.targets import PRESETS
from relulab.model.fitting import _training_kernels as kernels
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
    HingeNetTrainer,
    TrainingState,
    fit_even_hinges,
    refit_output_layer,
    replay,
    rmse_histogram,
)
from relulab.ui.driver import TimedPlotWidget, TrainingDriver
from relulab.ui.legend import Entry, KeyLabel
from relulab.ui.panels.base import (
    Key,
    Panel,
    fit_controls_width,
    named,
    signals_blocked,
)
from relulab.ui.readout import Note, Readout
from relulab.ui.worker import Worker

OPTIMIZER_LABELS = {"adam": "Adam", "gd": "gradient descent", "momentum": "momentum"}
INIT_LABELS = {"spread": "kinks spread (the notebook's)", "he": "He"}
CURVE_POINTS = 400    # points per drawn curve
LOSS_POINTS = 600     # at most this many points per drawn loss curve
KINK_ROWS = 300       # at most this many moments per drawn kink trajectory
KINK_POINTS = 24_000  # and at most this many points in all trajectories (paint cost is per point)
REFIT_EVERY = 0.5     # seconds between least-squares refits while training runs
REFIT_LIVE_SIZE = 64 * 1000  # larger N·H: refit only while paused, on a worker
#: Replaying a state's steps (see TrainingState.replay_cost): up to this much at once on
#: the GUI thread (≈ 5 ms), up to REPLAY_BUDGET on a worker (≈ 5 s), beyond that the run
#: starts again from its seeds.
SYNC_REPLAY = 1e7
REPLAY_BUDGET = 1e10


def _item_index(combo: QComboBox, data) -> int:
    return max(0, combo.findData(data))


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
        self._style_key = None
        self._phase = 0
        self._final_labels = None
        self.driver = TrainingDriver(self, "training", train=self._train_steps,
                                     steps_left=self._steps_left, frame=self._frame,
                                     ready=self._compiled_ready)
        self._refit_worker = Worker("training-refit", self)
        self._replay_worker = Worker("training-replay", self)
        self._compile_worker = Worker("training-compile", self)
        self._build_controls()
        self._build_plots()
        self._build_layout()
        self._connect()
        if not kernels.compiled_ready():  # compile (or load from cache) off the GUI thread
            self._compile_worker.submit(lambda _stop: kernels.compiled_available(apart=True))
        self._show_state(self._state)
        self._new_run(self._state)
        self.apply_theme()

    # -- construction ------------------------------------------------------------
    def _build_controls(self) -> None:
        self._build_run_controls()
        self._build_target_controls()
        self._build_network_controls()
        self._build_view_controls()
        for box in (self.domain_a, self.domain_b, self.points, self.hidden, self.lr, self.steps,
                    self.restarts, self.batch):
            box.setKeyboardTracking(False)

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
        self.step_readout = Readout("training-step-readout", "Step", "step")
        self.rate_readout = Readout("training-rate-readout", "Steps per second", "rate")
        self.best_readout = Readout("training-best-readout", "Best restart", "best_restart")
        self.refit_readout = Readout("training-refit-readout",
                                     "Least-squares refit of the output layer", "refit_rmse")
        self.ghost_readout = Readout("training-ghost-readout",
                                     "Least squares with evenly spaced kinks", "even_kinks_rmse")
        self.status = Readout("training-status", "Training status", "status", wrap=True)
        self.explain = Note("training-explain", "What the plots show")

    def _build_plots(self) -> None:
        def plot(name: str, accessible: str, description: str) -> TimedPlotWidget:
            pw = named(TimedPlotWidget(self.driver.add_paint_time), name, accessible,
                       description=description)
            pw.setMenuEnabled(False)
            pw.getPlotItem().hideButtons()
            return pw

        self.curve_plot = plot(
            "training-plot", "Restarts over the target",
            "Every restart's network over the target on the domain: the target thick, the best "
            "restart highlighted, least squares with evenly spaced kinks dashed, and the "
            "selected restart's kinks as diamonds on its curve.")
        self.loss_plot = plot(
            "training-loss-plot", "Loss per restart, log scale",
            "Each restart's mean squared error against the training step, on a log scale; the "
            "best restart's curve is the thick one.")
        self.kink_plot = plot(
            "training-kinks-plot", "Kink trajectories of the selected restart",
            "Where the selected restart's kinks are (x) at each step (upwards): one path per "
            "neuron, and a marker at each kink now.")
        self.final_plot = plot(
            "training-final-plot", "Final RMSE per restart",
            "The RMSE each restart reached, best first (or as a histogram), with least squares "
            "on evenly spaced kinks as a dashed line.")
        # one row along the top, where the curves rarely go
        self.legend = self.curve_plot.getPlotItem().addLegend(offset=(-10, 5), colCount=5)
        self.zero_line = pg.InfiniteLine(pos=0.0, angle=0, movable=False)
        self.zero_line.setZValue(-10)
        self.curve_plot.addItem(self.zero_line)
        self.target_curve = self.curve_plot.plot(name="target")
        self.ghost_curve = self.curve_plot.plot(name="even kinks, least squares")
        self.restart_curves: list[pg.PlotCurveItem] = []  # curve items: no scatter to make
        self.best_curve = self.curve_plot.plot(name="best restart")
        # the other restarts are thin curves in the series colours: the key shows one
        self.others_sample = pg.PlotDataItem()
        self.legend.addItem(self.others_sample, "other restarts")
        self.kink_markers = pg.ScatterPlotItem(name="kinks")
        self.curve_plot.addItem(self.kink_markers)
        self.loss_plot.setLogMode(y=True)
        self.loss_plot.setLabel("bottom", "step")
        self.loss_plot.setLabel("left", "MSE")
        self.loss_curves: list[pg.PlotDataItem] = []
        self.kink_plot.setLabel("bottom", "kink position x")
        self.kink_plot.setLabel("left", "step")
        self.kink_paths = self.kink_plot.plot(connect="finite")
        self.kink_now = pg.ScatterPlotItem()
        self.kink_plot.addItem(self.kink_now)
        self.final_plot.setLabel("left", "RMSE")
        self.final_bars = pg.BarGraphItem(x=[], height=[], width=0.8)
        self.final_plot.addItem(self.final_bars)
        self.final_ghost_line = pg.InfiniteLine(angle=0, movable=False)
        self.final_plot.addItem(self.final_ghost_line)
        # before the first step there is nothing to compare: the plot says what will come
        self.final_hint = pg.TextItem("", anchor=(0.5, 0.5))
        self.final_plot.addItem(self.final_hint, ignoreBounds=True)
        self.key = KeyLabel("training-key", "Key of the small plots", (
            Entry(lambda th: th.series_color(0), "—", "loss and kinks: each restart in its colour"),
            Entry("approx", "▮", "best restart"),
            Entry("muted", "▮", "the others"),
            Entry("second", "‒ ‒", "even kinks, least squares (the ghost)"),
            Entry("selected", "◆", "kinks now"),
        ))

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

    def _build_readouts(self) -> QGridLayout:
        readouts = QGridLayout()
        readouts.addWidget(self.step_readout, 0, 0)
        readouts.addWidget(self.rate_readout, 0, 1)
        readouts.addWidget(self.best_readout, 0, 2)
        readouts.addWidget(self.refit_readout, 1, 0, 1, 2)
        readouts.addWidget(self.ghost_readout, 1, 2)
        for column, stretch in enumerate((2, 1, 3)):
            readouts.setColumnStretch(column, stretch)
        for label in self._readout_labels():
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            # changing text neither widens the window nor re-lays out the plots
            label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
            label.setWordWrap(label is not self.step_readout and label is not self.rate_readout)
        return readouts

    def _readout_labels(self) -> tuple[QLabel, ...]:
        return (self.step_readout, self.rate_readout, self.best_readout, self.refit_readout,
                self.ghost_readout)

    def _build_layout(self) -> None:
        self.controls = named(QScrollArea(), "training-controls", "Training controls")
        self.controls.setWidgetResizable(True)
        self.controls.setWidget(self._build_form())
        self.controls.setFrameShape(QScrollArea.Shape.NoFrame)
        plots = QGridLayout()
        plots.addWidget(self.curve_plot, 0, 0, 1, 3)
        plots.addWidget(self.loss_plot, 1, 0)
        plots.addWidget(self.kink_plot, 1, 1)
        plots.addWidget(self.final_plot, 1, 2)
        plots.addWidget(self.key, 2, 0, 1, 3)
        plots.setRowStretch(0, 3)
        plots.setRowStretch(1, 2)
        right = QVBoxLayout()
        right.addLayout(self._build_readouts())
        right.addWidget(self.explain)
        right.addLayout(plots, 1)
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
        self._show_state(state)
        self._trainer.lr = state.lr
        self.driver.set_speed(SPEEDS[state.speed])
        if state.run_settings() != current.run_settings() or state.step != current.step:
            self._new_run(state)
        else:
            self._set_ranges()
            self._redraw()

    def _show_state(self, s: TrainingState) -> None:
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

    def _new_run(self, state: TrainingState) -> None:
        """New random starts for ``state``'s settings, trained to its step."""
        self._replay_worker.cancel()
        self._replaying = None
        self._target = state.target_function()
        trainer = state.trainer(self._target)
        cost = state.replay_cost()
        note = ""
        if state.step and cost <= SYNC_REPLAY:
            trainer = replay(state)
        elif state.step and cost <= REPLAY_BUDGET:
            self.driver.pause()
            self._replaying = state.step
            self._replay_worker.submit(partial(replay, state))
            note = f"Replaying the {state.step:,} steps made with these settings…"
        elif state.step:
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
        self._grid = np.linspace(self._target.a, self._target.b, CURVE_POINTS)
        self._target_on_grid = self._target(self._grid)
        self._refit_key = None
        self.driver.restart()  # a step's cost depends on the settings
        self._set_ranges()
        self.target_curve.setData(self._grid, self._target_on_grid)
        self.ghost_curve.setData(self._grid, self._ghost.predict(self._grid))
        self._fill_selected()
        self._explain(trainer)
        self.play_button.setEnabled(self._replaying is None)
        self.step_button.setEnabled(self._replaying is None)
        self._redraw()

    def _explain(self, trainer: HingeNetTrainer) -> None:
        """What the plots show, in words, for these settings."""
        R, H = len(trainer.seeds), trainer.hidden
        nets = "One network" if R == 1 else f"{R} networks"
        word = self.theme.colour_word  # the colours of the theme in use
        self.explain.setText(
            f"{nets} of {H} ReLU neurons learn{'s' if R == 1 else ''} the {word('target')} "
            "curve, "
            f"{'from a random start' if R == 1 else 'each from its own random start (thin lines)'}"
            f"; the best is thick {word('approx')}, its kinks ◆. Dashed {word('second')}: "
            f"least squares with {H} evenly spaced kinks, the best that fixed kinks can do. "
            "Can training beat it?")

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
    def _settings_from_controls(self) -> TrainingState:
        return replace(self.state, target=self.target.currentText().strip(),
                       a=self.domain_a.value(), b=self.domain_b.value(), points=self.points.value(),
                       hidden=self.hidden.value(), restarts=self.restarts.value(),
                       optimizer=self.optimizer.currentData(), batch_size=self.batch.value(),
                       init=self.init.currentData(), step=0)

    def _on_preset(self, index: int) -> None:
        preset = PRESETS.get(self.target.itemText(index))
        if preset is not None:
            with signals_blocked(self.domain_a, self.domain_b):
                self.domain_a.setValue(preset.a)
                self.domain_b.setValue(preset.b)
        self._on_setting("Change target")

    def _on_setting(self, label: str, *_args) -> None:
        """A setting that needs new random starts changed: a new run, one undo step. A
        target that cannot be used is said next to it and changes nothing."""
        after = self._settings_from_controls()
        try:
            after.target_function()
        except ExpressionError as exc:
            self.target_error.setText(str(exc))
            self.target_error.setStyleSheet(f"color: {self.theme.color('error_text').name()};")
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

    def _fill_selected(self) -> None:
        with signals_blocked(self.selected):
            self.selected.clear()
            self.selected.addItem("best restart", -1)
            for r, s in enumerate(self._trainer.seeds):
                self.selected.addItem(f"restart {r + 1} (seed {s})", r)
            self.selected.setCurrentIndex(_item_index(self.selected, self._state.selected))

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

    # -- drawing -----------------------------------------------------------------------
    def _redraw(self) -> None:
        """Show the current snapshot in every view (after a pause, a step, a reset or a
        change of settings): the main plot now, the small ones in the next ticks."""
        if self._snap.step != self._trainer.step:  # a snapshot costs an evaluation on all points
            self._snap = self._trainer.snapshot()
        self.driver.show([self._draw_curves, self._draw_losses, self._draw_kink_paths,
                          self._draw_final])

    def _set_ranges(self) -> None:
        """Fixed view ranges: axes that do not move every frame are not re-laid out every frame."""
        lo, hi = self._target.a, self._target.b
        y = self._target_on_grid
        span = float(np.ptp(y)) or 1.0
        self.curve_plot.setXRange(lo, hi, padding=0.02)
        self.curve_plot.setYRange(float(y.min()) - 0.15 * span, float(y.max()) + 0.3 * span, padding=0)
        self.curve_plot.getPlotItem().disableAutoRange()
        steps = self._state.steps
        # the small plots' ranges are set with their data: pyqtgraph's auto range runs
        # when a plot paints and changes the axes, which paints the plot a second time
        self.loss_plot.getPlotItem().disableAutoRange()
        self.final_plot.getPlotItem().disableAutoRange()
        self.loss_plot.setXRange(0, steps, padding=0.02)
        self.kink_plot.getPlotItem().disableAutoRange()
        self.kink_plot.setXRange(lo, hi, padding=0.02)
        self.kink_plot.setYRange(0, steps, padding=0.02)

    def _draw_curves(self) -> None:
        """The main plot (every restart, the best, the selected restart's kinks) and the
        readouts."""
        snap = self._snap
        R = snap.restarts
        best = snap.best
        sel = self.selected_restart()
        while len(self.restart_curves) < R:
            item = pg.PlotCurveItem(connect="finite")
            self.curve_plot.addItem(item)
            item.setZValue(-1)
            self.restart_curves.append(item)
            self.loss_curves.append(self.loss_plot.plot(connect="finite"))
        for item in self.restart_curves[R:] + self.loss_curves[R:]:
            if item.xData is not None and len(item.xData):
                item.setData([], [])
        preds = snap.predict(self._grid)
        lo, hi = self._finite_range()
        for r in range(R):
            y = preds[r] if not snap.diverged[r] else np.full_like(self._grid, np.nan)
            self.restart_curves[r].setData(self._grid, np.clip(y, lo, hi))
        self.best_curve.setData(self._grid, preds[best] if not snap.diverged[best]
                                else np.full_like(self._grid, np.nan))
        kinks = snap.kinks_inside(sel)
        at = snap.predict(kinks, sel) if kinks.size else np.zeros(0)
        ok = np.isfinite(at)  # a diverged restart's last weights may overflow
        self.kink_markers.setData(kinks[ok], at[ok])
        self._redraw_readouts()
        self._style_series()
        self.stepped.emit(snap.step)

    def _finite_range(self) -> tuple[float, float]:
        y = self._target_on_grid
        span = float(np.ptp(y)) or 1.0
        return float(y.min()) - 2 * span, float(y.max()) + 2 * span

    def _draw_losses(self) -> None:
        snap = self._snap
        steps = snap.losses.shape[1]
        stride = max(1, -(-steps // LOSS_POINTS))
        idx = np.arange(0, steps, stride)
        if steps and idx[-1] != steps - 1:
            idx = np.append(idx, steps - 1)
        lo, hi = np.inf, 0.0
        for r in range(snap.restarts):
            vals = snap.losses[r, idx] if steps else np.zeros(0)
            ok = np.isfinite(vals) & (vals > 0)
            self.loss_curves[r].setData((idx + 1)[ok], vals[ok])
            if ok.any():
                lo, hi = min(lo, vals[ok].min()), max(hi, vals[ok].max())
        if not hi > 0:
            # nothing trained yet: the decades the curves will cross, from the starts'
            # errors down to the ghost's (an empty log axis showed 1 … 10 as a crowd of
            # minor numbers written over each other)
            mse = np.append(np.asarray(snap.rmse, float) ** 2,
                            self._ghost.rmse ** 2 if self._ghost is not None else np.nan)
            mse = mse[np.isfinite(mse) & (mse > 0)]
            lo, hi = (float(mse.min()), float(mse.max())) if mse.size else (1e-3, 1.0)
        if hi <= lo * 10:
            lo, hi = min(lo, hi) / 10, max(lo, hi) * 10  # at least two decades: no crowd
        self.loss_plot.setYRange(np.log10(lo), np.log10(hi), padding=0.05)  # log scale

    def _draw_kink_paths(self) -> None:
        snap, sel = self._snap, self.selected_restart()
        lo, hi = snap.domain
        # painting costs per point: at large H fewer moments per trajectory
        rows = max(2, min(KINK_ROWS, KINK_POINTS // snap.hidden))
        stride = max(1, -(-snap.kink_steps.size // rows))
        hist = snap.kink_history[::stride, sel, :]
        steps = snap.kink_steps[::stride]
        if steps.size == 0 or steps[-1] != snap.step:
            hist = np.vstack([hist, snap.kinks[sel][None, :]])
            steps = np.append(steps, snap.step)
        inside = np.where((hist > lo) & (hist < hi), hist, np.nan)
        # one path per neuron, separated by NaN, in a single item
        xs = np.vstack([inside, np.full((1, inside.shape[1]), np.nan)]).T.ravel()
        ys = np.tile(np.append(steps.astype(float), np.nan), inside.shape[1])
        self.kink_paths.setData(xs, ys, connect="finite")
        now = inside[-1]
        ok = np.isfinite(now)
        self.kink_now.setData(now[ok], np.full(ok.sum(), float(snap.step)))

    def _draw_final(self) -> None:
        snap = self._snap
        view = self._state.final_view
        ghost = self._ghost.rmse if self._ghost is not None else np.nan
        untrained = snap.step == 0
        self.final_hint.setText("press Space to train:\neach restart's RMSE comes here"
                                if untrained else "")
        if untrained:  # the random starts' errors are no result to rank
            self.final_bars.setOpts(x=[], height=[], width=1, brushes=None)
            labels = ("restarts, best first", "RMSE") if view != "histogram" else ("RMSE", "restarts")
            self.final_ghost_line.setAngle(0 if view != "histogram" else 90)
            # the ghost's line an eighth of the way up (across): the hint in the room
            # beyond it, never written over the line, even in a small plot at zoom 1.6
            top = 8 * ghost if np.isfinite(ghost) and ghost > 0 else 1.0
            x_range = (0.5, snap.restarts + 0.5) if view != "histogram" else (0.0, top)
            self.final_hint.setPos(0.5 * (x_range[0] + x_range[1]), 0.58 * top)
            if view == "histogram":
                top = 1.0
                self.final_hint.setPos(0.58 * x_range[1], 0.5)
        elif view == "histogram":
            counts, edges = rmse_histogram(snap.rmse)
            if counts.size:
                self.final_bars.setOpts(x=0.5 * (edges[:-1] + edges[1:]), height=counts,
                                        width=np.diff(edges) * 0.9, brushes=None,
                                        brush=self.theme.color("accent"))
            else:
                self.final_bars.setOpts(x=[], height=[], width=1)
            labels = ("RMSE", "restarts")
            self.final_ghost_line.setAngle(90)
            xs = [edges[0], edges[-1], ghost] if counts.size else [ghost]
            xs = [v for v in xs if np.isfinite(v)] or [0.0, 1.0]
            x_range, top = (min(xs), max(xs)), max(1, int(counts.max()) if counts.size else 1)
        else:
            order = snap.rmse_order()
            heights = np.where(np.isfinite(snap.rmse[order]), snap.rmse[order], 0.0)
            brushes = [self.theme.color("approx") if r == snap.best else self.theme.color("muted")
                       for r in order]
            self.final_bars.setOpts(x=np.arange(len(order)) + 1, height=heights, width=0.8,
                                    brushes=brushes)
            labels = ("restarts, best first", "RMSE")
            self.final_ghost_line.setAngle(0)
            x_range = (0.5, len(order) + 0.5)
            top = max([float(heights.max()) if heights.size else 0.0]
                      + ([ghost] if np.isfinite(ghost) else [])) or 1.0
        if self._final_labels != labels:  # relabelling re-lays out the plot: only on a change
            self._final_labels = labels
            self.final_plot.setLabel("bottom", labels[0])
            self.final_plot.setLabel("left", labels[1])
        self.final_ghost_line.setValue(ghost)
        if x_range[1] <= x_range[0]:
            x_range = (x_range[0] - 0.5, x_range[0] + 0.5)
        self.final_plot.setRange(xRange=x_range, yRange=(0.0, top), padding=0.05)

    def _redraw_readouts(self) -> None:
        snap = self._snap
        best = snap.best
        sel = self.selected_restart()
        self.step_readout.set_value(int(snap.step), f"step {snap.step:,} / {self._state.steps:,}")
        if self.running:
            self.rate_readout.set_value(float(self.driver.rate), f"{self.driver.rate:,.0f} steps/s")
        else:
            self.rate_readout.set_value(None, "paused")
        self.best_readout.set_value(
            best + 1, f"best: restart {best + 1} (seed {snap.seeds[best]}) RMSE {snap.rmse[best]:.4f}")
        self._show_refit(snap, sel)
        self.ghost_readout.set_value(
            float(self._ghost.rmse), f"{snap.hidden} even kinks, least squares: {self._ghost.rmse:.4f}")
        diverged = [f"restart {r + 1} at step {int(d):,}" for r, d in enumerate(snap.diverged_at) if d >= 0]
        parts = []
        if self._replaying is not None:
            parts.append(f"Replaying the {self._replaying:,} steps made with these settings…")
        elif snap.step >= self._state.steps:
            parts.append(f"Finished {snap.step:,} steps.")
        elif self.running:
            parts.append("Training…")
        if diverged:
            parts.append("Diverged (stopped, last finite weights kept): " + ", ".join(diverged)
                         + ". Lower the learning rate.")
        self._set_status(" ".join(parts))
        sendable = not (self.running or snap.step == 0 or snap.diverged[sel])
        self.send_converter.setEnabled(sendable)
        self.send_hinges.setEnabled(sendable)

    def _show_refit(self, snap, sel: int) -> None:
        """The selected restart's RMSE next to the best output layer for its kinks. A
        least-squares solve costs O(N·H²) (≈ 50 ms at H = 256 on 4000 points): small
        ones are solved here, now and then while training; large ones on the worker,
        when training pauses."""
        key = (snap.step, sel, id(snap))
        small = snap.hidden * self._trainer.x.size <= REFIT_LIVE_SIZE
        now = time.perf_counter()
        if snap.diverged[sel]:
            self._refit_key = None
            self.refit_readout.set_value(None, f"restart {sel + 1}: diverged")
        elif self._refit_key == key:
            pass  # shown, or on its way from the worker
        elif small and (not self.running or now - self._last_refit > REFIT_EVERY):
            self._last_refit = now
            self._refit_key = key
            _, _, refit = refit_output_layer(self._trainer.x, self._trainer.y, snap.w[sel], snap.b[sel])
            self._refit_text(sel, snap.rmse[sel], refit)
        elif not small and not self.running:
            self._refit_key = key
            self._refit_text(sel, snap.rmse[sel], "computing…")
            x, y, w, b = self._trainer.x, self._trainer.y, snap.w[sel], snap.b[sel]
            self._refit_worker.submit(lambda _stop: (key, refit_output_layer(x, y, w, b)[2]))
        elif not small:
            self._refit_key = None
            self._refit_worker.cancel()
            self._refit_text(sel, snap.rmse[sel], "when paused")

    def _refit_text(self, r: int, rmse: float, refit: float | str) -> None:
        shown = refit if isinstance(refit, str) else f"{refit:.4f}"
        self.refit_readout.set_value(None if isinstance(refit, str) else float(refit),
                                     f"restart {r + 1}: {rmse:.4f}; output layer refit: {shown}")

    def _on_refit_done(self, result) -> None:
        key, refit = result
        snap = self._snap
        if key == self._refit_key and key == (snap.step, self.selected_restart(), id(snap)):
            self._refit_text(key[1], snap.rmse[key[1]], refit)

    def _style_series(self, full: bool = False) -> None:
        """Pens of the restarts' curves; only the best restart's loss curve stands out, so
        when only the best changes, only two curves are restyled."""
        snap = self._snap
        best, R = snap.best, snap.restarts
        old = self._style_key
        if old == (best, R) and not full:
            return
        self._style_key = (best, R)
        if full or old is None or old[1] != R:
            for r, item in enumerate(self.restart_curves[:R]):
                # thin, not faint: the other restarts recede by width (1 px against the
                # best's 3) and stay visible in every theme (3:1 on the background)
                item.setPen(self.theme.series_pen(r, 1.0))  # width 1: the fast path
            restyle = range(R)
        else:
            restyle = {old[0], best}
        for r in restyle:
            self.loss_curves[r].setPen(self.theme.series_pen(r, 2.5 if r == best else 1.0))

    def _fit_controls_width(self) -> None:
        """Wide enough for the form at the current zoom: no sideways scrolling of controls."""
        fit_controls_width(self.controls, int(self.theme.width(220)), int(self.theme.width(330)))

    def apply_theme(self) -> None:
        t = self.theme
        if getattr(self, "_trainer", None) is not None:
            self._explain(self._trainer)  # its words name the theme's colours
        t.style_plot(self.curve_plot, "Every restart over the target")
        t.style_plot(self.loss_plot, "Loss")
        t.style_plot(self.kink_plot, "Kinks")
        t.style_plot(self.final_plot, "RMSE per restart")
        self._final_labels = None
        # pyqtgraph repaints grid lines with every frame, at ten times the cost of the
        # curves; training redraws many times a second, so these plots go without them
        for pw in self.plots().values():
            pw.getPlotItem().showGrid(x=False, y=False)
        self.zero_line.setPen(t.pen("grid", 1))
        self.target_curve.setPen(t.pen("target", 3))
        self.ghost_curve.setPen(t.pen("second", 2, Qt.PenStyle.DashLine))
        self.best_curve.setPen(t.pen("approx", 3))
        size = t.point_size(9)
        self.kink_markers.setSize(size)
        self.kink_markers.setBrush(t.color("selected"))
        self.kink_markers.setPen(t.pen("foreground", 1))
        self.kink_markers.setSymbol("d")
        self.kink_paths.setPen(t.pen("accent", 1.0))  # width 1: the fast path
        self.controls.setMinimumWidth(int(t.width(220)))
        self.controls.setMaximumWidth(int(t.width(330)))
        # the new fonts reach the form's size hint only after this event, so fit then
        QTimer.singleShot(0, self._fit_controls_width)
        self.kink_now.setSize(size)
        self.kink_now.setBrush(t.color("selected"))
        self.kink_now.setPen(t.pen("foreground", 1))
        self.final_ghost_line.setPen(t.pen("second", 2, Qt.PenStyle.DashLine))
        self.final_hint.setColor(t.color("foreground"))
        self.final_hint.setFont(t.font(9))
        self.others_sample.setPen(t.series_pen(1, 1.0))
        self.explain.setFont(t.font(9.5))
        for label in (self.step_readout, self.rate_readout, self.best_readout, self.refit_readout,
                      self.ghost_readout):
            label.setFont(t.font(11, bold=label is self.best_readout))
        if self._snap is not None:
            self._style_series(full=True)
            self._draw_final()
            self._draw_losses()

    # -- sending ------------------------------------------------------------------------
    def selected_network(self):
        return self._snap.network(self.selected_restart())

    def send_selected_to_converter(self) -> bool:
        return self.send_to("converter", "network", self.selected_network())

    def hinges_payload(self) -> dict:
        r = self.selected_restart()
        return {"kinks": [float(k) for k in self._snap.kinks_inside(r)], "target": self._target.text,
                "a": float(self._target.a), "b": float(self._target.b)}

    def send_selected_to_hinges(self) -> bool:
        return self.send_to("hinges", "hinges", self.hinges_payload())

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
        return {"curves": self.curve_plot, "losses": self.loss_plot, "kinks": self.kink_plot,
                "final": self.final_plot}

    def data_tables(self) -> dict:
        snap = self._snap
        restarts = [[r + 1, snap.seeds[r], float(snap.rmse[r]), int(snap.diverged_at[r])]
                    for r in range(snap.restarts)]
        preds = snap.predict(self._grid)
        curves = [[float(x), float(t), float(g)] + [float(v) for v in preds[:, i]]
                  for i, (x, t, g) in enumerate(zip(self._grid, self._target_on_grid,
                                                    self._ghost.predict(self._grid)))]
        kinks = [[r + 1, float(k)] for r in range(snap.restarts) for k in snap.kinks_inside(r)]
        return {
            "restarts": (["restart", "seed", "final RMSE", "diverged at step"], restarts),
            "curves": (["x", "target", "even kinks (least squares)"]
                       + [f"restart {r + 1}" for r in range(snap.restarts)], curves),
            "kinks": (["restart", "kink"], kinks),
        }

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
