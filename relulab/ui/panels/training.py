"""The Training panel: Adam places the kinks of a 1 → H → 1 ReLU network, many restarts at once.

View: every restart's curve over the target (best highlighted), the selected restart's
kinks as moving markers and their trajectories over the steps, log-scale loss curves,
final RMSEs sorted or as a histogram, and the least-squares "ghost" with evenly spaced
kinks for comparison. A QTimer drives the model's trainer.

Staying responsive (the event loop answers within 50 ms while training): every tick does
one bounded piece of work and returns to the event loop, which then paints what changed.
A tick trains for as many steps as fit COMPUTE_BUDGET (measured, see ``ChunkSizer``), or
draws one piece of a frame (the curves, the losses, the kinks or the final RMSEs, each
followed by its own paint) and trains in what is left of the budget. The least-squares
refit of a large network runs on a worker thread. Python's full garbage collections,
which walk every object Qt, pyqtgraph and numba made (≈ 80 ms), are kept off the
objects that already exist while training runs (``gc.freeze``).
"""

from __future__ import annotations

import gc
import sys
import threading
import time
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from functools import partial

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QKeySequence, QShortcut, QUndoCommand
from PySide6.QtWidgets import (
    QComboBox, QDoubleSpinBox, QFormLayout, QGridLayout, QHBoxLayout, QLabel, QPushButton,
    QScrollArea, QSizePolicy, QSpinBox, QVBoxLayout, QWidget,
)

from relulab.model import _training_kernels as kernels
from relulab.model.expression import ExpressionError
from relulab.model.targets import DEFAULT_TARGET, PRESETS, target_from_text
from relulab.model.training import (
    INITS, MAX_RESTARTS, OPTIMIZERS, HingeNetTrainer, fit_even_hinges, refit_output_layer,
    rmse_histogram,
)
from relulab.ui.panels.base import Panel, run_alone

#: speed choices: (label, steps per second; None = as many as the time budget allows)
SPEEDS = [("10 steps/s", 10), ("100 steps/s", 100), ("1 000 steps/s", 1000),
          ("10 000 steps/s", 10_000), ("as fast as possible", None)]
OPTIMIZER_LABELS = {"adam": "Adam", "gd": "gradient descent", "momentum": "momentum"}
INIT_LABELS = {"spread": "kinks spread (seed 004)", "he": "He"}
MAX_STEPS = 200_000
MAX_POINTS = 4000
TICK_MS = 10             # training ticks; redraws come every few ticks
COMPUTE_BUDGET = 0.008   # seconds of work per tick at most (training and drawing together)
MIN_TRAIN_SLICE = 0.002  # after a drawing piece, train only if this much budget is left
MIN_REDRAW_INTERVAL = 0.033  # at most 30 redraws a second, fewer when a frame is costly
CURVE_POINTS = 400    # points per drawn curve
LOSS_POINTS = 600     # at most this many points per drawn loss curve
KINK_ROWS = 300       # at most this many moments per drawn kink trajectory
KINK_POINTS = 24_000  # and at most this many points in all trajectories (paint cost is per point)
REFIT_EVERY = 0.5     # seconds between least-squares refits while training runs
REFIT_LIVE_SIZE = 64 * 1000  # larger N·H: refit only while paused, on a worker thread

REPLAY_BUDGET = 2e9   # restarts × steps × (points + 10·hidden) replayed on undo/load (≈ 1 s)

DEFAULTS = {
    "target": DEFAULT_TARGET.name, "a": DEFAULT_TARGET.a, "b": DEFAULT_TARGET.b, "points": 400,
    "hidden": 12, "lr": 0.01, "steps": 20_000, "restarts": 6, "optimizer": "adam",
    "batch_size": 0, "init": "spread", "speed": SPEEDS[-1][0], "selected": -1,
    "final_view": "sorted", "step": 0,
}


class ChunkSizer:
    """How many training steps fit a time budget, learned from the chunks run so far.

    A step costs from a few microseconds (H = 12, 400 points) to a millisecond (32
    restarts, H = 256, 4000 points), so nothing is assumed: the first chunk is one step,
    and then n = budget / (seconds per step), the cost per step being the median of the
    last few chunks: it is the same for every step of a run, and what varies is the
    machine (another process taking the core for a while), which one chunk's time would
    overstate. A chunk is at most ``growth`` times the last one, so that a lucky
    measurement cannot make the next chunk overrun by much.
    """

    def __init__(self, budget: float, growth: float = 2.0, window: int = 5):
        if not budget > 0 or not growth > 1 or window < 1:
            raise ValueError("the budget must be positive, the growth above 1, the window ≥ 1")
        self.budget = budget
        self.growth = growth
        self._recent = deque(maxlen=window)  # seconds per step of the last chunks
        self.last = 0                        # steps in the last chunk

    @property
    def per_step(self) -> float | None:
        """Seconds per step (median of the last chunks), None until measured."""
        return float(np.median(self._recent)) if self._recent else None

    def size(self, budget: float | None = None) -> int:
        """Steps for the next chunk so that it takes at most ``budget`` (default: the
        sizer's budget) seconds; at least one."""
        budget = self.budget if budget is None else budget
        per = self.per_step
        if per is None:
            return 1
        fit = int(budget / per) if per > 0 else sys.maxsize
        return max(1, min(fit, int(max(1, self.last) * self.growth)))

    def record(self, steps: int, seconds: float) -> None:
        """Remember that ``steps`` steps took ``seconds``."""
        if steps <= 0 or not seconds >= 0:
            return
        self._recent.append(seconds / steps)
        self.last = steps


class _TimedPlotWidget(pg.PlotWidget):
    """A PlotWidget that adds the time of each paint to its panel's frame cost (the paint
    of a frame is the larger part of its cost, and it runs after the tick returns)."""

    def __init__(self, panel: "TrainingPanel"):
        super().__init__()
        self._panel = panel

    def paintEvent(self, ev):
        t0 = time.perf_counter()
        super().paintEvent(ev)
        self._panel._paint_seconds += time.perf_counter() - t0


class _SettingsCommand(QUndoCommand):
    """A change of settings that restarted training; undo restores the settings and the
    progress (replayed from the seeds)."""

    def __init__(self, panel: "TrainingPanel", before: dict, after: dict, text: str):
        super().__init__(text)
        self.panel, self.before, self.after = panel, before, after
        self._done = True  # push() calls redo(); the change is already on screen

    def redo(self) -> None:
        if self._done:
            self._done = False
            return
        self.panel._apply_state(self.after)

    def undo(self) -> None:
        self.panel._apply_state(self.before)


class TrainingPanel(Panel):
    name = "training"
    title = "Training"
    summary = ("Adam trains a one-hidden-layer network from many random starts, "
               "against the least-squares optimum.")

    #: emitted after every redraw with the current step (tests and scripts wait on it)
    stepped = Signal(int)
    #: a refit finished on the worker thread: (key, rmse); queued to the GUI thread
    _refit_done = Signal(object, float)

    def __init__(self, host=None, parent=None):
        super().__init__(host, parent)
        self._trainer: HingeNetTrainer | None = None
        self._snap = None
        self._target = DEFAULT_TARGET
        self._ghost = None
        self._sizer = ChunkSizer(COMPUTE_BUDGET)  # steps that fit the budget, learned as we go
        self._owed = 0.0            # fractional steps owed at a fixed speed
        self._last_tick = None
        self._rate = 0.0            # measured steps per second
        self._rate_window = []      # (time, step) over the last second
        self._warm_thread = None
        self._last_refit = 0.0
        self._refit_key = None
        self._refit_pool = None     # one worker thread for large refits, made when needed
        self._refit_future = None
        self._style_key = None
        self._phase = 0
        self._final_labels = None
        self._pieces = deque()      # drawing pieces of the current frame, one per tick
        self._frame_started = 0.0
        self._frame_cost = 0.0      # seconds the current frame has cost so far (drawing + paint)
        self._paint_seconds = 0.0   # added to by the plots' paint events
        self._redraw_interval = MIN_REDRAW_INTERVAL
        self._gc_frozen = False
        self._build_controls()
        self._build_plots()
        self._build_layout()
        self._timer = QTimer(self)
        self._timer.setObjectName("training-timer")
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(self._tick)
        self._connect()
        self._start_warm_up()
        self._reset()
        self.apply_theme()

    # -- construction ------------------------------------------------------------
    def _named(self, widget, name: str, accessible: str, tip: str = ""):
        widget.setObjectName(f"training-{name}")
        widget.setAccessibleName(accessible)
        if tip:
            widget.setToolTip(tip)
        return widget

    def _build_controls(self) -> None:
        self.play_button = self._named(QPushButton("Play"), "play", "Play or pause training",
                                       "Play / pause (Space)")
        self.play_button.setCheckable(True)
        self.step_button = self._named(QPushButton("Step"), "step", "One training step",
                                       "One step (→)")
        self.reset_button = self._named(QPushButton("Reset"), "reset", "Reset training",
                                        "Back to the random starts (R)")
        self.speed = self._named(QComboBox(), "speed", "Training speed")
        for label, _ in SPEEDS:
            self.speed.addItem(label)
        self.speed.setCurrentIndex(len(SPEEDS) - 1)

        self.target = self._named(QComboBox(), "target", "Target function",
                                  "A preset, or type an expression in x and press Enter")
        self.target.setEditable(True)
        self.target.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        for name in PRESETS:
            self.target.addItem(name)
        self.domain_a = self._named(QDoubleSpinBox(), "a", "Domain start")
        self.domain_b = self._named(QDoubleSpinBox(), "b", "Domain end")
        for box in (self.domain_a, self.domain_b):
            box.setRange(-100.0, 100.0)
            box.setDecimals(2)
            box.setKeyboardTracking(False)
        self.target_error = self._named(QLabel(""), "target-error", "Target error message")
        self.target_error.setWordWrap(True)
        self.points = self._named(QSpinBox(), "points", "Number of data points")
        self.points.setRange(10, MAX_POINTS)
        self.points.setKeyboardTracking(False)

        self.hidden = self._named(QSpinBox(), "hidden", "Hidden width (neurons)")
        self.hidden.setRange(1, 256)
        self.lr = self._named(QDoubleSpinBox(), "lr", "Learning rate",
                              "Changing it does not reset training")
        self.lr.setDecimals(5)
        self.lr.setRange(0.00001, 10.0)
        self.lr.setSingleStep(0.001)
        self.lr.setKeyboardTracking(False)
        self.steps = self._named(QSpinBox(), "steps", "Steps to train")
        self.steps.setRange(1, MAX_STEPS)
        self.steps.setSingleStep(1000)
        self.steps.setGroupSeparatorShown(True)
        self.steps.setKeyboardTracking(False)
        self.restarts = self._named(QSpinBox(), "restarts", "Number of restarts")
        self.restarts.setRange(1, MAX_RESTARTS)
        self.optimizer = self._named(QComboBox(), "optimizer", "Optimiser")
        for name in OPTIMIZERS:
            self.optimizer.addItem(OPTIMIZER_LABELS[name], name)
        self.batch = self._named(QSpinBox(), "batch", "Batch size (0 = all points)")
        self.batch.setRange(0, MAX_POINTS)
        self.batch.setSpecialValueText("full batch")
        self.batch.setKeyboardTracking(False)
        self.init = self._named(QComboBox(), "init", "Initialisation")
        for name in INITS:
            self.init.addItem(INIT_LABELS[name], name)
        for box in (self.hidden, self.restarts):
            box.setKeyboardTracking(False)

        self.selected = self._named(QComboBox(), "selected", "Restart whose kinks are shown")
        self.final_view = self._named(QComboBox(), "final-view", "Final losses view")
        self.final_view.addItem("sorted", "sorted")
        self.final_view.addItem("histogram", "histogram")
        self.send_converter = self._named(QPushButton("Send to deep → shallow"), "send-converter",
                                          "Send the selected restart to the deep to shallow panel")
        self.send_hinges = self._named(QPushButton("Send kinks to hinges"), "send-hinges",
                                       "Send the selected restart's kinks to the hinges panel")

        # readouts
        self.step_readout = self._named(QLabel(), "step-readout", "Step")
        self.rate_readout = self._named(QLabel(), "rate-readout", "Steps per second")
        self.best_readout = self._named(QLabel(), "best-readout", "Best restart")
        self.refit_readout = self._named(QLabel(), "refit-readout", "Least-squares refit of the output layer")
        self.ghost_readout = self._named(QLabel(), "ghost-readout", "Least squares with evenly spaced kinks")
        self.status = self._named(QLabel(), "status", "Training status")
        self.status.setWordWrap(True)

    def _build_plots(self) -> None:
        self.curve_plot = self._named(_TimedPlotWidget(self), "plot", "Restarts over the target")
        self.loss_plot = self._named(_TimedPlotWidget(self), "loss-plot", "Loss per restart, log scale")
        self.kink_plot = self._named(_TimedPlotWidget(self), "kinks-plot",
                                     "Kink trajectories of the selected restart")
        self.final_plot = self._named(_TimedPlotWidget(self), "final-plot", "Final RMSE per restart")
        for pw in (self.curve_plot, self.loss_plot, self.kink_plot, self.final_plot):
            pw.setMenuEnabled(False)
            pw.getPlotItem().hideButtons()
        # one row along the top, where the curves rarely go
        self.legend = self.curve_plot.getPlotItem().addLegend(offset=(-10, 5), colCount=4)
        self.zero_line = pg.InfiniteLine(pos=0.0, angle=0, movable=False)
        self.zero_line.setZValue(-10)
        self.curve_plot.addItem(self.zero_line)
        self.target_curve = self.curve_plot.plot(name="target")
        self.ghost_curve = self.curve_plot.plot(name="least squares, even kinks")
        self.restart_curves: list[pg.PlotDataItem] = []
        self.best_curve = self.curve_plot.plot(name="best restart")
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
        self.final_plot.setLabel("left", "final RMSE")
        self.final_bars = pg.BarGraphItem(x=[], height=[], width=0.8)
        self.final_plot.addItem(self.final_bars)
        self.final_ghost_line = pg.InfiniteLine(angle=0, movable=False)
        self.final_plot.addItem(self.final_ghost_line)

    def _build_layout(self) -> None:
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
        form.addRow("Points", self.points)
        form.addRow("Hidden width", self.hidden)
        form.addRow("Learning rate", self.lr)
        form.addRow("Steps", self.steps)
        form.addRow("Restarts", self.restarts)
        form.addRow("Optimiser", self.optimizer)
        form.addRow("Batch size", self.batch)
        form.addRow("Start", self.init)
        form.addRow("Show kinks of", self.selected)
        form.addRow("Final losses", self.final_view)
        form.addRow(self.send_converter)
        form.addRow(self.send_hinges)
        form.addRow(self.status)
        self.controls = QScrollArea()
        self.controls.setObjectName("training-controls")
        self.controls.setAccessibleName("Training controls")
        self.controls.setWidgetResizable(True)
        self.controls.setWidget(form_widget)
        self.controls.setFrameShape(QScrollArea.Shape.NoFrame)

        readouts = QGridLayout()
        readouts.addWidget(self.step_readout, 0, 0)
        readouts.addWidget(self.rate_readout, 0, 1)
        readouts.addWidget(self.best_readout, 0, 2)
        readouts.addWidget(self.refit_readout, 1, 0, 1, 2)
        readouts.addWidget(self.ghost_readout, 1, 2)
        readouts.setColumnStretch(0, 2)
        readouts.setColumnStretch(1, 1)
        readouts.setColumnStretch(2, 3)
        for label in (self.step_readout, self.rate_readout, self.best_readout, self.refit_readout,
                      self.ghost_readout):
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            # changing text neither widens the window nor re-lays out the plots
            label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
            label.setWordWrap(label is not self.step_readout and label is not self.rate_readout)
        plots = QGridLayout()
        plots.addWidget(self.curve_plot, 0, 0, 1, 3)
        plots.addWidget(self.loss_plot, 1, 0)
        plots.addWidget(self.kink_plot, 1, 1)
        plots.addWidget(self.final_plot, 1, 2)
        plots.setRowStretch(0, 3)
        plots.setRowStretch(1, 2)
        right = QVBoxLayout()
        right.addLayout(readouts)
        right.addLayout(plots, 1)
        outer = QHBoxLayout(self)
        outer.addWidget(self.controls)
        outer.addLayout(right, 1)

        for key, slot in ((Qt.Key.Key_Space, self.toggle_play), (Qt.Key.Key_Right, self.step_once),
                          (Qt.Key.Key_R, self.reset_training)):
            sc = QShortcut(QKeySequence(key), self)
            sc.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            sc.activated.connect(slot)

    def _set_defaults(self, d: dict) -> None:
        widgets = (self.target, self.domain_a, self.domain_b, self.points, self.hidden, self.lr,
                   self.steps, self.restarts, self.optimizer, self.batch, self.init, self.speed,
                   self.final_view)
        for w in widgets:
            w.blockSignals(True)
        try:
            self.target.setCurrentText(d["target"])
            self.domain_a.setValue(d["a"])
            self.domain_b.setValue(d["b"])
            self.points.setValue(d["points"])
            self.hidden.setValue(d["hidden"])
            self.lr.setValue(d["lr"])
            self.steps.setValue(d["steps"])
            self.restarts.setValue(d["restarts"])
            self.optimizer.setCurrentIndex(self.optimizer.findData(d["optimizer"]))
            self.batch.setValue(d["batch_size"])
            self.init.setCurrentIndex(self.init.findData(d["init"]))
            self.speed.setCurrentText(d["speed"])
            self.final_view.setCurrentIndex(self.final_view.findData(d["final_view"]))
        finally:
            for w in widgets:
                w.blockSignals(False)

    def _connect(self) -> None:
        """Every control → state connection in one place (mirror: ``shutdown``)."""
        self._set_defaults(DEFAULTS)
        self.play_button.toggled.connect(self._on_play_toggled)
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
        self.selected.currentIndexChanged.connect(self._on_view_changed)
        self.final_view.currentIndexChanged.connect(self._on_view_changed)
        self._refit_done.connect(self._on_refit_done)
        self.send_converter.clicked.connect(self.send_selected_to_converter)
        self.send_hinges.clicked.connect(self.send_selected_to_hinges)

    def _start_warm_up(self) -> None:
        """Compile (or load from cache) the training loop off the GUI thread."""
        if kernels.compiled_ready():
            return
        self._warm_thread = threading.Thread(target=kernels.compiled_available,
                                             name="relulab-training-compile", daemon=True)
        self._warm_thread.start()

    # -- state ----------------------------------------------------------------------
    @property
    def snapshot(self):
        """The latest training snapshot (immutable); while training runs, the drawn one may
        be a few ticks older."""
        if self._trainer is not None and (self._snap is None or self._snap.step != self._trainer.step):
            return self._trainer.snapshot()
        return self._snap

    @property
    def trainer(self) -> HingeNetTrainer | None:
        return self._trainer

    @property
    def running(self) -> bool:
        return self._timer.isActive()

    def _on_preset(self, index: int) -> None:
        preset = PRESETS.get(self.target.itemText(index))
        if preset is not None:
            for box, value in ((self.domain_a, preset.a), (self.domain_b, preset.b)):
                box.blockSignals(True)
                box.setValue(value)
                box.blockSignals(False)
        self._on_setting("Change target")

    def _settings(self) -> dict:
        return {
            "target": self.target.currentText().strip(), "a": self.domain_a.value(),
            "b": self.domain_b.value(), "points": self.points.value(), "hidden": self.hidden.value(),
            "lr": self.lr.value(), "steps": self.steps.value(), "restarts": self.restarts.value(),
            "optimizer": self.optimizer.currentData(), "batch_size": self.batch.value(),
            "init": self.init.currentData(), "speed": self.speed.currentText(),
            "final_view": self.final_view.currentData(),
        }

    def _on_setting(self, label: str, *_args) -> None:
        """A setting that needs new random starts changed: reset, as one undo step."""
        before = self._applied_state()
        if self._reset():
            self.undo_stack.push(_SettingsCommand(self, before, self.state_dict(), label))

    def reset_training(self) -> None:
        """Back to the random starts (R); undo brings the progress back."""
        before = self._applied_state()
        if before["step"] and self._reset():
            self.undo_stack.push(_SettingsCommand(self, before, self.state_dict(), "Reset training"))

    def _applied_state(self) -> dict:
        """The state the panel shows: the settings of the last reset (the controls may have
        moved since) and the progress made."""
        d = dict(self._applied)
        d["lr"] = self.lr.value()
        d["steps"] = self.steps.value()
        d["speed"] = self.speed.currentText()
        d["final_view"] = self.final_view.currentData()
        d["selected"] = int(self.selected.currentData() if self.selected.currentData() is not None else -1)
        d["step"] = int(self._trainer.step) if self._trainer else 0
        return d

    def _apply_state(self, d: dict) -> None:
        """Show a (validated) state: settings, then replay the steps from the seeds when
        that is quick; otherwise start again and say so."""
        self._set_playing(False)
        self._set_defaults(d)
        self._reset()
        i = self.selected.findData(d["selected"])
        self.selected.blockSignals(True)
        self.selected.setCurrentIndex(max(i, 0))
        self.selected.blockSignals(False)
        steps = d["step"]
        cost = steps * d["restarts"] * (d["points"] + 10 * d["hidden"])
        if steps and cost <= REPLAY_BUDGET:
            self._trainer.run(steps)  # deterministic: the same seeds give the same run
            self._snap = self._trainer.snapshot()
            self._redraw()
        elif steps:
            self._set_status(f"Settings restored; the {steps:,} steps made with them would take "
                             "too long to replay, so training starts again.")

    def _reset(self, *_args) -> bool:
        """New random starts with the current settings (the previous run is dropped).
        Returns False (and changes nothing) when the target cannot be used."""
        was_running = self.running
        try:
            target = target_from_text(self.target.currentText().strip(), self.domain_a.value(),
                                      self.domain_b.value())
        except (ExpressionError, ValueError) as exc:
            self.target_error.setText(str(exc))
            self.target_error.setStyleSheet(f"color: {self.theme.color('error').name()};")
            return False
        self.target_error.setText("")
        self._target = target
        x, y = target.sample(self.points.value())
        batch = self.batch.value() or None
        self._trainer = HingeNetTrainer(
            x, y, hidden=self.hidden.value(), seeds=range(self.restarts.value()), lr=self.lr.value(),
            optimizer=self.optimizer.currentData(), batch_size=batch, init=self.init.currentData(),
            domain=(target.a, target.b))
        self._ghost = fit_even_hinges(x, y, self.hidden.value(), target.a, target.b)
        self._grid = np.linspace(target.a, target.b, CURVE_POINTS)
        self._target_on_grid = target(self._grid)
        self._snap = self._trainer.snapshot()
        self._rate, self._rate_window = 0.0, []
        self._sizer = ChunkSizer(COMPUTE_BUDGET)  # a step's cost depends on the settings
        self._pieces.clear()
        self._set_ranges()
        self.target_curve.setData(self._grid, self._target_on_grid)
        self.ghost_curve.setData(self._grid, self._ghost.predict(self._grid))
        self._fill_selected()
        self._redraw()
        if not was_running:
            self._set_playing(False)
        self._applied = self._settings()
        return True

    def _set_ranges(self) -> None:
        """Fixed view ranges: axes that do not move every frame are not re-laid out every frame."""
        lo, hi = self._target.a, self._target.b
        y = self._target_on_grid
        span = float(np.ptp(y)) or 1.0
        self.curve_plot.setXRange(lo, hi, padding=0.02)
        self.curve_plot.setYRange(float(y.min()) - 0.15 * span, float(y.max()) + 0.3 * span, padding=0)
        self.curve_plot.getPlotItem().disableAutoRange()
        steps = self.steps.value()
        # the small plots' ranges are set with their data: pyqtgraph's auto range runs
        # when a plot paints and changes the axes, which paints the plot a second time
        self.loss_plot.getPlotItem().disableAutoRange()
        self.final_plot.getPlotItem().disableAutoRange()
        self.loss_plot.setXRange(0, steps, padding=0.02)
        self.kink_plot.getPlotItem().disableAutoRange()
        self.kink_plot.setXRange(lo, hi, padding=0.02)
        self.kink_plot.setYRange(0, steps, padding=0.02)

    def _fill_selected(self) -> None:
        keep = self.selected.currentData()
        self.selected.blockSignals(True)
        self.selected.clear()
        self.selected.addItem("best restart", -1)
        for r, s in enumerate(self._trainer.seeds):
            self.selected.addItem(f"restart {r + 1} (seed {s})", r)
        i = self.selected.findData(keep)
        self.selected.setCurrentIndex(max(i, 0))
        self.selected.blockSignals(False)

    def selected_restart(self) -> int:
        r = self.selected.currentData()
        if r is None or r < 0 or self._snap is None or r >= self._snap.restarts:
            return self._snap.best if self._snap is not None else 0
        return int(r)

    def _on_lr(self, value: float) -> None:
        if self._trainer is not None:
            self._trainer.lr = value  # no reset: moments and step count carry on

    def _on_steps(self, value: int) -> None:
        self._set_ranges()
        if self._trainer is not None and self._trainer.step >= value and self.running:
            self._set_playing(False)
        self._redraw_readouts()

    def _on_speed(self, _index: int) -> None:
        self._owed = 0.0

    # -- driving ----------------------------------------------------------------------
    def toggle_play(self) -> None:
        self._set_playing(not self.running)

    def _on_play_toggled(self, on: bool) -> None:
        self._set_playing(on)

    def _set_playing(self, on: bool) -> None:
        if on and self._trainer is not None and self._trainer.step >= self.steps.value():
            on = False  # finished: raise the number of steps to go on, or reset
        if on and not self._timer.isActive():
            self._last_tick = time.perf_counter()
            self._owed = 0.0
            self._pieces.clear()
            self._frame_started = time.perf_counter()
            self._frame_cost = self._paint_seconds = 0.0  # paints while paused do not count
            self._freeze_gc()
            self._timer.start()
        elif not on:
            self._timer.stop()
            self._unfreeze_gc()
            self._pieces.clear()
            if self._snap is not None and self._snap.step != self._trainer.step:
                self._snap = self._trainer.snapshot()  # ticks between redraws made none
                self._redraw()
        self.play_button.blockSignals(True)
        self.play_button.setChecked(on)
        self.play_button.setText("Pause" if on else "Play")
        self.play_button.blockSignals(False)
        self._redraw_readouts()

    def _freeze_gc(self) -> None:
        """Move every object alive now out of the garbage collector's reach while training
        runs: a full collection walks them all (Qt wrappers, pyqtgraph items, numba's
        compiler state; ≈ 80 ms) and would stall the event loop. Only the objects made
        while training are then collected; a freeze made elsewhere is left in place."""
        if not self._gc_frozen:
            self._gc_frozen = gc.get_freeze_count() == 0
            gc.freeze()

    def _unfreeze_gc(self) -> None:
        if self._gc_frozen:
            self._gc_frozen = False
            gc.unfreeze()  # cycles that died meanwhile become collectable again

    def play(self) -> None:
        self._set_playing(True)

    def pause(self) -> None:
        self._set_playing(False)

    def step_once(self) -> None:
        """One training step (waits for the compiled loop the first time)."""
        if self._trainer is None:
            return
        self._set_playing(False)
        self._advance(1)

    def _advance(self, n: int) -> None:
        """Train n steps (fewer at the end) and show the result in every view."""
        if self._train(n):
            self._snap = self._trainer.snapshot()
            self._redraw()

    def _train(self, n: int) -> bool:
        """Train n steps (fewer at the end); remember how long they took. True if any ran."""
        n = min(n, self.steps.value() - self._trainer.step)
        if n <= 0:
            return False
        t0 = time.perf_counter()
        self._trainer.run(n)
        now = time.perf_counter()
        self._sizer.record(n, now - t0)
        self._rate_window.append((now, self._trainer.step))
        while len(self._rate_window) > 2 and now - self._rate_window[0][0] > 1.0:
            self._rate_window.pop(0)
        (t_a, s_a), (t_b, s_b) = self._rate_window[0], self._rate_window[-1]
        self._rate = (s_b - s_a) / (t_b - t_a) if t_b > t_a else 0.0
        return True

    def _tick(self) -> None:
        """One bounded piece of work, then back to the event loop (which paints what the
        piece changed before the next tick): a piece of the current frame and training in
        what is left of COMPUTE_BUDGET, or a training chunk that fills it. After the last
        step the rest of the final frame is drawn, one piece per tick, and then the timer
        stops."""
        started = time.perf_counter()
        if not kernels.compiled_ready():
            self._set_status("Preparing the compiled training loop…")
            return
        elapsed = started - (self._last_tick or started)
        self._last_tick = started
        rate = SPEEDS[self.speed.currentIndex()][1]
        if rate is not None:
            # after a stall, catch up at most a quarter of a second's worth of steps
            self._owed = min(self._owed + rate * elapsed, max(1.0, rate * 0.25))
        drawn = 0.0
        if self._pieces:
            self._pieces.popleft()()
            drawn = time.perf_counter() - started
            self._frame_cost += drawn
        elif (self._trainer.step < self.steps.value()
              and started - self._frame_started >= self._redraw_interval):
            self._begin_frame(final=False)
            drawn = time.perf_counter() - started
            self._frame_cost += drawn
        if self._trainer.step >= self.steps.value():
            if not self._pieces:
                self._set_playing(False)   # the final frame is complete
            return
        left = COMPUTE_BUDGET - drawn
        if drawn and left < MIN_TRAIN_SLICE:
            return
        n = self._sizer.size(left)
        if rate is not None:
            n = min(int(self._owed), n)
            self._owed -= n
        if n > 0 and self._train(n) and self._trainer.step >= self.steps.value():
            self._pieces.append(partial(self._begin_frame, final=True))

    def _begin_frame(self, final: bool) -> None:
        """Take a snapshot and draw its main plot now; queue the small plots for the next
        ticks: one of them in turn while training runs, all three for the final frame."""
        now = time.perf_counter()
        if self._frame_cost:
            # drawing may take at most 40 % of the time: a costly frame waits longer
            cost = self._frame_cost + self._paint_seconds
            self._redraw_interval = min(0.5, max(MIN_REDRAW_INTERVAL, 2.5 * cost))
        self._frame_started, self._frame_cost, self._paint_seconds = now, 0.0, 0.0
        self._snap = self._trainer.snapshot()
        self._draw_curves()
        if final:
            self._pieces.extend([self._draw_losses, self._draw_kink_paths, self._draw_final])
        else:
            self._phase = (self._phase + 1) % 3
            self._pieces.append((self._draw_losses, self._draw_kink_paths, self._draw_final)[self._phase])

    def _on_view_changed(self, *_args) -> None:
        """Another restart or final-loss view chosen: redraw now, or while training in
        the next ticks, one piece at a time."""
        if self.running:
            self._pieces.clear()
            self._pieces.extend([self._draw_curves, self._draw_losses, self._draw_kink_paths,
                                 self._draw_final])
        else:
            self._redraw()

    def _set_status(self, text: str) -> None:
        self.status.setText(text)

    # -- drawing -----------------------------------------------------------------------
    def _redraw(self, *_args) -> None:
        """Show the current snapshot in every view at once (after a pause, a step, a reset
        or a change of settings; while training, ``_begin_frame`` spreads this over ticks)."""
        if self._snap is None:
            return
        self._draw_curves(emit=False)
        self._draw_losses()
        self._draw_kink_paths()
        self._draw_final()
        self.stepped.emit(self._snap.step)

    def _draw_curves(self, emit: bool = True) -> None:
        """The main plot (every restart, the best, the selected restart's kinks) and the
        readouts."""
        snap = self._snap
        R = snap.restarts
        best = snap.best
        sel = self.selected_restart()
        while len(self.restart_curves) < R:
            item = pg.PlotDataItem()
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
        if emit:
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
        if hi > 0:
            if hi <= lo:
                lo, hi = lo / 2, hi * 2
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
        view = self.final_view.currentData()
        ghost = self._ghost.rmse if self._ghost is not None else np.nan
        if view == "histogram":
            counts, edges = rmse_histogram(snap.rmse)
            if counts.size:
                self.final_bars.setOpts(x=0.5 * (edges[:-1] + edges[1:]), height=counts,
                                        width=np.diff(edges) * 0.9, brushes=None,
                                        brush=self.theme.color("accent"))
            else:
                self.final_bars.setOpts(x=[], height=[], width=1)
            labels = ("final RMSE", "restarts")
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
            labels = ("restarts, best first", "final RMSE")
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
        if snap is None:
            return
        best = snap.best
        sel = self.selected_restart()
        self.step_readout.setText(f"step {snap.step:,} / {self.steps.value():,}")
        self.rate_readout.setText(f"{self._rate:,.0f} steps/s" if self.running else "paused")
        self.best_readout.setText(
            f"best: restart {best + 1} (seed {snap.seeds[best]}) RMSE {snap.rmse[best]:.4f}")
        now = time.perf_counter()
        key = (snap.step, sel, id(snap))
        small = snap.hidden * self._trainer.x.size <= REFIT_LIVE_SIZE
        if snap.diverged[sel]:
            self._refit_key = None
            self.refit_readout.setText(f"restart {sel + 1}: diverged")
        elif self._refit_key == key:
            pass  # shown, or on its way from the worker
        elif small and (not self.running or now - self._last_refit > REFIT_EVERY):
            self._last_refit = now
            self._refit_key = key
            _, _, refit = refit_output_layer(self._trainer.x, self._trainer.y, snap.w[sel], snap.b[sel])
            self._show_refit(sel, snap.rmse[sel], refit)
        elif not small and not self.running:
            # a least-squares solve costs O(N·H²) (≈ 50 ms at H = 256 on 4000 points):
            # on the worker thread, so that pausing or finishing does not stall the window
            self._refit_key = key
            self._show_refit(sel, snap.rmse[sel], "computing…")
            self._request_refit(key, snap.w[sel], snap.b[sel])
        elif not small:
            self._refit_key = None
            self._show_refit(sel, snap.rmse[sel], "when paused")
        self.ghost_readout.setText(
            f"{snap.hidden} even kinks, least squares: {self._ghost.rmse:.4f}")
        diverged = [f"restart {r + 1} at step {int(d):,}" for r, d in enumerate(snap.diverged_at) if d >= 0]
        parts = []
        if snap.step >= self.steps.value():
            parts.append(f"Finished {snap.step:,} steps.")
        elif self.running:
            parts.append("Training…")
        if diverged:
            parts.append("Diverged (stopped, last finite weights kept): " + ", ".join(diverged)
                         + ". Lower the learning rate.")
        self._set_status(" ".join(parts))
        running_or_none = self.running or snap.step == 0
        self.send_converter.setEnabled(not running_or_none and not snap.diverged[sel])
        self.send_hinges.setEnabled(not running_or_none and not snap.diverged[sel])

    def _show_refit(self, r: int, rmse: float, refit: float | str) -> None:
        shown = refit if isinstance(refit, str) else f"{refit:.4f}"
        self.refit_readout.setText(f"restart {r + 1}: {rmse:.4f}; output layer refit: {shown}")

    def _request_refit(self, key, w, b) -> None:
        """Refit the output layer for (w, b) on the worker thread; the latest request wins."""
        if self._refit_pool is None:
            self._refit_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="relulab-refit")
        if self._refit_future is not None:
            self._refit_future.cancel()  # not started yet: no longer wanted
        x, y = self._trainer.x, self._trainer.y
        self._refit_future = self._refit_pool.submit(refit_output_layer, x, y, w, b)
        self._refit_future.add_done_callback(partial(self._refit_finished, key))

    def _refit_finished(self, key, future) -> None:
        """On the worker thread: hand the result to the GUI thread (a queued signal)."""
        if future.cancelled() or future.exception() is not None:
            return
        self._refit_done.emit(key, future.result()[2])

    def _on_refit_done(self, key, refit: float) -> None:
        snap = self._snap
        if snap is None or key != self._refit_key or key != (snap.step, self.selected_restart(), id(snap)):
            return  # the panel has moved on
        self._show_refit(key[1], snap.rmse[key[1]], refit)

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
                item.setPen(self.theme.series_pen(r, 1.0, alpha=90))  # width 1: the fast path
            restyle = range(R)
        else:
            restyle = {old[0], best}
        for r in restyle:
            self.loss_curves[r].setPen(self.theme.series_pen(r, 2.5 if r == best else 1.0,
                                                             alpha=255 if r == best else 110))

    def _fit_controls_width(self) -> None:
        """Wide enough for the form at the current zoom: no sideways scrolling of controls."""
        need = (self.controls.widget().minimumSizeHint().width()
                + self.controls.verticalScrollBar().sizeHint().width())
        self.controls.setMinimumWidth(max(int(self.theme.width(220)), need))
        self.controls.setMaximumWidth(max(int(self.theme.width(330)), need))

    def apply_theme(self) -> None:
        t = self.theme
        t.style_plot(self.curve_plot, "Every restart over the target")
        t.style_plot(self.loss_plot, "Loss")
        t.style_plot(self.kink_plot, "Kinks")
        t.style_plot(self.final_plot, "Final RMSE")
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
        self.legend.setLabelTextColor(t.color("foreground"))
        self.legend.setLabelTextSize(f"{t.point_size(10):.0f}pt")
        bg = t.color("background")
        bg.setAlpha(200)
        self.legend.setBrush(pg.mkBrush(bg))
        for _, label in self.legend.items:
            label.setText(label.text)  # pyqtgraph applies new label attributes on the next setText
        self.controls.setMinimumWidth(int(t.width(220)))
        self.controls.setMaximumWidth(int(t.width(330)))
        # the new fonts reach the form's size hint only after this event, so fit then
        QTimer.singleShot(0, self._fit_controls_width)
        self.kink_now.setSize(size)
        self.kink_now.setBrush(t.color("selected"))
        self.kink_now.setPen(t.pen("foreground", 1))
        self.final_ghost_line.setPen(t.pen("second", 2, Qt.PenStyle.DashLine))
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
    def state_dict(self) -> dict:
        d = self._settings()
        d["selected"] = int(self.selected.currentData() if self.selected.currentData() is not None else -1)
        d["step"] = int(self._trainer.step if self._trainer else 0)
        return d

    def load_state(self, state: dict) -> None:
        d = self._validate(state)
        self._apply_state(d)
        self.undo_stack.clear()  # a loaded scene starts a new history

    def _validate(self, state) -> dict:
        if not isinstance(state, dict):
            raise ValueError("training state must be a mapping")
        d = dict(DEFAULTS)
        unknown = set(state) - set(DEFAULTS)
        if unknown:
            raise ValueError(f"training state: unknown field {sorted(unknown)[0]!r}")
        d.update(state)

        def number(key, lo, hi, integer=False):
            v = d[key]
            if isinstance(v, bool) or not isinstance(v, (int, float)) or (integer and int(v) != v):
                raise ValueError(f"training state: {key} must be {'an integer' if integer else 'a number'}")
            if not (lo <= v <= hi):
                raise ValueError(f"training state: {key} must be between {lo} and {hi}, got {v}")
            d[key] = int(v) if integer else float(v)

        number("a", -100, 100)
        number("b", -100, 100)
        number("points", 10, MAX_POINTS, True)
        number("hidden", 1, 256, True)
        number("lr", 1e-5, 10)
        number("steps", 1, MAX_STEPS, True)
        number("restarts", 1, MAX_RESTARTS, True)
        number("batch_size", 0, MAX_POINTS, True)
        number("selected", -1, MAX_RESTARTS - 1, True)
        number("step", 0, MAX_STEPS, True)
        if d["step"] > d["steps"]:
            raise ValueError("training state: step must not exceed steps")
        if d["optimizer"] not in OPTIMIZERS:
            raise ValueError(f"training state: unknown optimizer {d['optimizer']!r}")
        if d["init"] not in INITS:
            raise ValueError(f"training state: unknown init {d['init']!r}")
        if d["speed"] not in [s for s, _ in SPEEDS]:
            raise ValueError(f"training state: unknown speed {d['speed']!r}")
        if d["final_view"] not in ("sorted", "histogram"):
            raise ValueError(f"training state: final_view must be 'sorted' or 'histogram'")
        if not isinstance(d["target"], str):
            raise ValueError("training state: target must be text")
        try:
            if d["target"] not in PRESETS:
                target_from_text(d["target"], d["a"], d["b"])
            elif not d["a"] < d["b"]:
                raise ExpressionError("a must be below b")
        except ExpressionError as exc:
            raise ValueError(f"training state: target: {exc}") from exc
        return d

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
        saved = self.state_dict()
        self._set_playing(False)
        try:
            total = self.steps.value() - self._trainer.step
            per_frame = max(1, -(-total // max(1, max_frames)))
            for _ in range(max_frames):
                if self._trainer.step >= self.steps.value():
                    break
                self._advance(per_frame)
                yield self._trainer.step
        finally:
            self.load_state(saved)

    def shutdown(self) -> None:
        self._timer.stop()
        self._unfreeze_gc()
        self._pieces.clear()
        if self._refit_pool is not None:
            self._refit_pool.shutdown(wait=True, cancel_futures=True)
            self._refit_pool = None
        if self._warm_thread is not None:
            self._warm_thread.join()
            self._warm_thread = None
        super().shutdown()


if __name__ == "__main__":
    sys.exit(run_alone(TrainingPanel))
