"""The 2-D playground: classify points in the plane with any small network.

Left, the controls (data, architecture, activation, training). Right, the decision
map: a 200 × 200 heat map of σ(net(x)) in the two class colours, the boundary
σ = ½, the points (click adds one, Shift+click one of the other class, right-click
removes), for ReLU networks the exact linear regions from the region enumeration,
and with the identity activation the collapsed affine map, checked live. Below,
loss and accuracy for train and test, and "regions against depth".
"""

from __future__ import annotations

import copy
import importlib.util
import math
import sys
from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt, QThread, QTimer, Signal
from PySide6.QtGui import QKeySequence, QShortcut, QUndoCommand
from PySide6.QtWidgets import (
    QCheckBox, QComboBox, QDoubleSpinBox, QFileDialog, QFormLayout, QGroupBox,
    QHBoxLayout, QLabel, QPushButton, QScrollArea, QSpinBox, QSplitter, QTabWidget,
    QVBoxLayout, QWidget,
)

from relulab.model.activations import ACTIVATIONS, get_activation
from relulab.model.classify import (
    DEFAULT_BOX, LOSSES, OPTIMIZERS, TrainConfig, Trainer, boundary_segments, grid_axes,
    grid_layers, seed002_setup,
)
from relulab.model.collapse import collapse, collapse_error, format_affine, neuron_affine_map
from relulab.io.points import load_points_csv, save_points_csv
from relulab.model.datasets import DATASETS, make_dataset, test_mask
from relulab.model.depth import DepthSample, parameter_count, regions_against_depth, summarise
from relulab.model.mlp import MLP
from relulab.ui.panels.base import Panel, run_alone

RESOLUTION = 200
MAX_HIDDEN_LAYERS = 6
MAX_WIDTH = 64
HISTORY_LIMIT = 4000
#: Up to this many hidden neurons the region overlay of a paused network is computed at
#: once; bigger networks (and every network while training) use the worker thread.
SYNC_REGION_NEURONS = 40
PRESETS = {
    "2-6-1 (seed 002)": [6],
    "2-8-8-8-1 (177 parameters)": [8, 8, 8],
    "2-3-1": [3],
    "2-2-1": [2],
    "2-1 (no hidden layer)": [],
}


def regions_available() -> bool:
    """True once the converter's region enumeration (relulab.model.regions) exists."""
    return importlib.util.find_spec("relulab.model.regions") is not None


def region_polygons(net: MLP, box):
    """The exact activation regions of ``net`` inside ``box`` (the converter's code)."""
    from relulab.model.regions import region_polygons as polygons

    return polygons(net, tuple(box))


def polygon_outline(polygons) -> tuple[np.ndarray, np.ndarray]:
    """All polygon outlines as one x, y pair with NaN between loops (for connect='finite')."""
    if not polygons:
        return np.zeros(0), np.zeros(0)
    parts = []
    gap = np.array([[np.nan, np.nan]])
    for p in polygons:
        v = np.asarray(p.vertices, float)
        parts.extend([v, v[:1], gap])
    xy = np.concatenate(parts)
    return xy[:, 0], xy[:, 1]


def diverging_lut(low, mid, high, n: int = 256, strength: float = 0.6) -> np.ndarray:
    """A colour table from ``low`` through ``mid`` to ``high`` (QColors); the ends are
    mixed with ``mid`` by 1 − strength so that points drawn on top stay visible."""
    lo = np.array(low.getRgb()[:3], float)
    md = np.array(mid.getRgb()[:3], float)
    hi = np.array(high.getRgb()[:3], float)
    t = np.linspace(-1, 1, n)[:, None]
    a = np.abs(t) * strength
    lut = np.where(t < 0, md + (lo - md) * a, md + (hi - md) * a)
    return np.clip(lut, 0, 255).astype(np.ubyte)


#: Settings that are not undo steps: undoing an edit keeps their current values.
_LIVE_TRAINING = ("optimizer", "learning_rate", "loss", "batch_size", "steps_per_tick", "max_steps")
_LIVE_VIEW = ("show_regions", "click_class")


class _Edit(QUndoCommand):
    """One undoable edit, as the panel's state before and after (redo is idempotent).

    Training settings and view switches are not undo steps, so undo and redo keep
    their current values, unless the edit itself set them (``sets_training``)."""

    def __init__(self, panel: "PlaygroundPanel", text: str, before: dict, after: dict,
                 sets_training: bool = False):
        super().__init__(text)
        self.panel, self.before, self.after = panel, before, after
        self.sets_training = sets_training

    def _live(self, state: dict) -> dict:
        state = copy.deepcopy(state)
        current = self.panel._state
        if current:
            if not self.sets_training:
                for k in _LIVE_TRAINING:
                    state["training"][k] = current["training"][k]
            for k in _LIVE_VIEW:
                state["view"][k] = current["view"][k]
        return state

    def redo(self):
        self.panel._apply_state(self._live(self.after))

    def undo(self):
        self.panel._apply_state(self._live(self.before))


class _DepthThread(QThread):
    """Runs the regions-against-depth experiment; results come back by queued signals."""

    sample = Signal(object)
    failed = Signal(str)

    def __init__(self, budget: int, seeds: int, box, parent=None):
        super().__init__(parent)
        self.budget, self.seeds, self.box = budget, seeds, box

    def run(self):
        try:
            for s in regions_against_depth(self.budget, (1, 2, 3, 4), range(self.seeds), self.box):
                if self.isInterruptionRequested():
                    return
                self.sample.emit(s)
        except Exception as e:  # reported in the panel, never raised in the thread
            self.failed.emit(f"{type(e).__name__}: {e}")


class _RegionThread(QThread):
    """Enumerates one network's regions in the view box off the GUI thread."""

    done = Signal(object, int, object)  # network, step, polygons (or an error text)

    def __init__(self, net: MLP, step: int, box, parent=None):
        super().__init__(parent)
        self.net, self.step, self.box = net, step, box

    def run(self):
        try:
            polygons = region_polygons(self.net, self.box)
        except Exception as e:  # shown next to the count, never raised in the thread
            polygons = f"{type(e).__name__}: {e}"
        self.done.emit(self.net, self.step, polygons)


class _PlaneCountThread(QThread):
    """Counts a network's regions in all of R² (the converter's exact enumeration)."""

    done = Signal(object, object)  # network, count (or an error text)

    def __init__(self, net: MLP, parent=None):
        super().__init__(parent)
        self.net = net
        self._stop = False

    def stop(self) -> None:
        """Ask the enumeration to stop after its current neuron (closing never waits long)."""
        self._stop = True

    def run(self):
        from relulab.model.regions import EnumerationStopped, linear_regions

        try:
            result = len(linear_regions(self.net, should_stop=lambda: self._stop))
        except EnumerationStopped:
            return
        except Exception as e:  # shown in the label, never raised in the thread
            result = f"{type(e).__name__}: {e}"
        self.done.emit(self.net, result)


class PlaygroundPanel(Panel):
    name = "playground"
    title = "Playground"
    summary = "2-D classification, activations, linear collapse and exact linear regions."

    def __init__(self, host=None, parent=None):
        super().__init__(host, parent)
        self.box = DEFAULT_BOX
        self._xs, self._ys = grid_axes(self.box, RESOLUTION)
        self.trainer: Trainer | None = None
        self.history: dict[str, list[float]] = self._empty_history()
        self.depth_samples: list[DepthSample] = []
        self._depth_thread: _DepthThread | None = None
        self._hover: tuple[int, int] | None = None
        self._polygons: list = []
        self._regions_for: MLP | None = None
        self._region_thread: _RegionThread | None = None
        self._plane_job: _PlaneCountThread | None = None
        self._plane_pending: MLP | None = None
        self._plane_count: tuple[MLP, int] | None = None
        self._region_pending: MLP | None = None
        self._closing = False
        self._state: dict = {}
        self.timer = QTimer(self)
        self.timer.setInterval(15)
        self.timer.timeout.connect(self._tick)
        self._build_ui()
        self._connect()
        self._apply_state(self._initial_state())
        self.apply_theme()

    # ------------------------------------------------------------------ state
    @staticmethod
    def _empty_history() -> dict[str, list[float]]:
        return {k: [] for k in ("step", "train_loss", "test_loss", "train_accuracy", "test_accuracy")}

    def _initial_state(self) -> dict:
        X, y = make_dataset("circles", 0)
        mask = test_mask(len(y), 0.3, 0)
        net = MLP.random([2, 6, 1], seed=0)
        return {
            "dataset": {"name": "circles", "seed": 0, "noise": 0.12, "n_per_class": 90,
                        "test_fraction": 0.3},
            "points": {"x": X.tolist(), "label": y.tolist(), "test": mask.tolist()},
            "architecture": {"hidden": [6], "activation": "relu", "init_seed": 0},
            "network": _net_to_dict(net),
            "training": {"optimizer": "adam", "learning_rate": 0.03, "loss": "cross_entropy",
                         "batch_size": 0, "steps_per_tick": 10, "max_steps": 0, "step": 0},
            "history": self._empty_history(),
            "view": {"show_regions": True, "click_class": 0, "neuron": None},
        }

    @property
    def net(self) -> MLP:
        return self.trainer.net

    @property
    def points(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        p = self._state["points"]
        return (np.array(p["x"], float).reshape(-1, 2), np.array(p["label"], float),
                np.array(p["test"], bool))

    def state_dict(self) -> dict:
        d = self._current_state()
        d["depth"] = {
            "budget": self.depth_budget.value(), "seeds": self.depth_seeds.value(),
            "samples": [[s.depth, list(s.sizes), s.params, s.seed, s.regions] for s in self.depth_samples],
        }
        return d

    def _current_state(self) -> dict:
        """The state as a JSON-ready dict (network and step taken from the trainer)."""
        d = copy.deepcopy(self._state)
        if self.trainer is not None:
            d["network"] = _net_to_dict(self.trainer.net)
            d["training"]["step"] = self.trainer.step_count
        d["history"] = copy.deepcopy(self.history)
        return d

    def load_state(self, state: dict) -> None:
        checked = _validate_state(state)
        depth = state.get("depth")
        samples = []
        if depth is not None:
            try:
                samples = [DepthSample(int(a), tuple(int(v) for v in b), int(c), int(d), int(e))
                           for a, b, c, d, e in depth.get("samples", [])]
                budget, seeds = int(depth.get("budget", 80)), int(depth.get("seeds", 5))
            except (TypeError, ValueError, AttributeError):
                raise ValueError("depth: samples must be [depth, sizes, params, seed, regions] rows") from None
        self._apply_state(checked)
        if depth is not None:
            self._stop_depth()
            self.depth_samples = samples
            for w, v in ((self.depth_budget, budget), (self.depth_seeds, seeds)):
                w.blockSignals(True)
                w.setValue(v)
                w.blockSignals(False)
            self._draw_depth()

    def _apply_state(self, state: dict) -> None:
        """Make ``state`` (already valid) the panel's state and redraw everything."""
        state = copy.deepcopy(state)
        self._state = state
        X, y, is_test = self.points
        net = _net_from_dict(state["network"])
        t = state["training"]
        config = TrainConfig(t["optimizer"], t["learning_rate"], t["loss"], t["batch_size"])
        self.trainer = Trainer(net, X[~is_test], y[~is_test], X[is_test], y[is_test], config,
                               step=t["step"])
        self.history = copy.deepcopy(state["history"])
        self._hover = None
        self._message("")
        self._sync_widgets()
        self._rebuild_network_items()
        self._polygons = []
        self._regions_for = None
        self.redraw()

    def _edit(self, text: str, mutate, sets_training: bool = False) -> None:
        """Apply ``mutate`` to a copy of the state and push it as one undo step."""
        before = self._current_state()
        after = copy.deepcopy(before)
        try:
            mutate(after)
            after = _validate_state(after)
        except ValueError as e:
            self._message(str(e), error=True)
            self._sync_widgets()
            return
        self.undo_stack.push(_Edit(self, text, before, after, sets_training))

    # ------------------------------------------------------------------ UI
    def _build_ui(self) -> None:
        outer = QHBoxLayout(self)
        outer.setContentsMargins(4, 4, 4, 4)

        scroll = QScrollArea(self)
        scroll.setObjectName("playground-controls")
        scroll.setAccessibleName("Playground controls")
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        inner = QWidget()
        controls = QVBoxLayout(inner)
        controls.setContentsMargins(2, 2, 2, 2)
        scroll.setWidget(inner)
        self._controls_scroll = scroll
        outer.addWidget(scroll, 0)

        # -- data
        data_box = QGroupBox("Data")
        form = QFormLayout(data_box)
        self.dataset_combo = self._named(QComboBox(), "dataset", "Dataset")
        for key, d in DATASETS.items():
            self.dataset_combo.addItem(d.label, key)
        form.addRow("Dataset", self.dataset_combo)
        self.noise_spin = self._named(QDoubleSpinBox(), "noise", "Noise (standard deviation)")
        self.noise_spin.setRange(0.0, 1.0)
        self.noise_spin.setSingleStep(0.01)
        self.noise_spin.setDecimals(3)
        form.addRow("Noise", self.noise_spin)
        self.points_spin = self._named(QSpinBox(), "points", "Points per class")
        self.points_spin.setRange(2, 2000)
        form.addRow("Points per class", self.points_spin)
        self.test_spin = self._named(QDoubleSpinBox(), "test-fraction", "Test fraction")
        self.test_spin.setRange(0.0, 0.9)
        self.test_spin.setSingleStep(0.05)
        self.test_spin.setDecimals(2)
        form.addRow("Test fraction", self.test_spin)
        self.data_seed_spin = self._named(QSpinBox(), "data-seed", "Data seed")
        self.data_seed_spin.setRange(0, 10 ** 6)
        form.addRow("Data seed", self.data_seed_spin)
        for w in (self.noise_spin, self.points_spin, self.test_spin, self.data_seed_spin):
            w.setKeyboardTracking(False)
        self.click_class_combo = self._named(QComboBox(), "click-class", "Class added by a click")
        self.click_class_combo.addItem("class 0 (Shift: class 1)", 0)
        self.click_class_combo.addItem("class 1 (Shift: class 0)", 1)
        form.addRow("Click adds", self.click_class_combo)
        row = QHBoxLayout()
        self.regenerate_button = self._named(QPushButton("Regenerate"), "regenerate",
                                             "Regenerate the data with the next seed")
        self.load_button = self._named(QPushButton("Load CSV…"), "load-csv", "Load points from CSV")
        self.save_button = self._named(QPushButton("Save CSV…"), "save-csv", "Save points as CSV")
        for b in (self.regenerate_button, self.load_button, self.save_button):
            row.addWidget(b)
        form.addRow(row)
        self.data_error = self._named(QLabel(""), "data-error", "Data error")
        self.data_error.setWordWrap(True)
        form.addRow(self.data_error)
        controls.addWidget(data_box)

        # -- network
        net_box = QGroupBox("Network")
        nform = QFormLayout(net_box)
        self.preset_combo = self._named(QComboBox(), "preset", "Architecture preset")
        self.preset_combo.addItem("choose a preset…", None)
        for label in PRESETS:
            self.preset_combo.addItem(label, label)
        nform.addRow("Preset", self.preset_combo)
        self.layers_row = QHBoxLayout()
        self.layers_row.setSpacing(2)
        self.layer_spins: list[QSpinBox] = []
        layers_widget = QWidget()
        layers_widget.setLayout(self.layers_row)
        nform.addRow("Neurons per\nhidden layer", layers_widget)
        row = QHBoxLayout()
        self.add_layer_button = self._named(QPushButton("+ layer"), "add-layer", "Add a hidden layer")
        self.remove_layer_button = self._named(QPushButton("− layer"), "remove-layer",
                                               "Remove the last hidden layer")
        row.addWidget(self.add_layer_button)
        row.addWidget(self.remove_layer_button)
        nform.addRow(row)
        self.param_label = self._named(QLabel(""), "param-count", "Parameter count")
        nform.addRow("Parameters", self.param_label)
        self.activation_combo = self._named(QComboBox(), "activation", "Activation")
        for key, a in ACTIVATIONS.items():
            self.activation_combo.addItem(a.label, key)
        nform.addRow("Activation", self.activation_combo)
        self.activation_plot = self._named(pg.PlotWidget(), "activation-plot",
                                           "Activation and its derivative")
        self.activation_plot.setMinimumHeight(130)
        self.activation_plot.setMaximumHeight(170)
        self.activation_plot.setMouseEnabled(False, False)
        self.activation_plot.setMenuEnabled(False)
        self.activation_plot.hideButtons()
        self.activation_legend = self.activation_plot.addLegend(offset=(4, 4))
        self.phi_curve = self.activation_plot.plot(name="φ(z)")
        self.dphi_curve = self.activation_plot.plot(name="φ′(z)")
        nform.addRow(self.activation_plot)
        self.init_seed_spin = self._named(QSpinBox(), "init-seed", "Seed of the initial weights")
        self.init_seed_spin.setRange(0, 10 ** 6)
        self.init_seed_spin.setKeyboardTracking(False)
        nform.addRow("Weights seed", self.init_seed_spin)
        controls.addWidget(net_box)

        # -- training
        train_box = QGroupBox("Training")
        tform = QFormLayout(train_box)
        self.optimizer_combo = self._named(QComboBox(), "optimizer", "Optimizer")
        for key, label in OPTIMIZERS.items():
            self.optimizer_combo.addItem(label, key)
        tform.addRow("Optimizer", self.optimizer_combo)
        self.lr_spin = self._named(QDoubleSpinBox(), "learning-rate", "Learning rate")
        self.lr_spin.setDecimals(4)
        self.lr_spin.setRange(0.0001, 1000.0)
        self.lr_spin.setSingleStep(0.01)
        tform.addRow("Learning rate", self.lr_spin)
        self.loss_combo = self._named(QComboBox(), "loss", "Loss")
        for key, label in LOSSES.items():
            self.loss_combo.addItem(label, key)
        tform.addRow("Loss (sigmoid output)", self.loss_combo)
        self.batch_spin = self._named(QSpinBox(), "batch-size", "Batch size (all = full batch)")
        self.batch_spin.setRange(0, 100_000)
        self.batch_spin.setSpecialValueText("all points")
        tform.addRow("Batch size", self.batch_spin)
        self.speed_spin = self._named(QSpinBox(), "steps-per-tick", "Steps per frame")
        self.speed_spin.setRange(1, 500)
        tform.addRow("Steps per frame", self.speed_spin)
        self.max_steps_spin = self._named(QSpinBox(), "max-steps", "Stop after this many steps")
        self.max_steps_spin.setRange(0, 10 ** 7)
        self.max_steps_spin.setSpecialValueText("never")
        tform.addRow("Stop at step", self.max_steps_spin)
        for w in (self.lr_spin, self.batch_spin, self.speed_spin, self.max_steps_spin):
            w.setKeyboardTracking(False)
        row = QHBoxLayout()
        self.play_button = self._named(QPushButton("Play"), "play", "Play or pause training (Space)")
        self.play_button.setCheckable(True)
        self.step_button = self._named(QPushButton("Step"), "step", "One frame of training (N)")
        self.reset_button = self._named(QPushButton("Reset"), "reset",
                                        "New initial weights from the seed (R)")
        for b in (self.play_button, self.step_button, self.reset_button):
            row.addWidget(b)
        tform.addRow(row)
        self.lesson_button = self._named(QPushButton("Seed 002 lesson set-up"), "lesson",
                                         "Circles, 2-6-1, the lesson's weights, gradient descent at 0.5 for 2000 steps")
        tform.addRow(self.lesson_button)
        controls.addWidget(train_box)

        # -- regions
        reg_box = QGroupBox("Linear regions")
        rform = QVBoxLayout(reg_box)
        self.regions_check = self._named(QCheckBox("Show the exact linear regions (ReLU)"),
                                         "show-regions", "Show linear regions")
        rform.addWidget(self.regions_check)
        self.send_button = self._named(QPushButton("Send network to Deep → shallow"),
                                       "send-converter", "Send the network to the converter")
        rform.addWidget(self.send_button)
        self.neuron_combo = self._named(QComboBox(), "neuron-select", "Neuron whose map is shown")
        rform.addWidget(QLabel("Map of"))
        rform.addWidget(self.neuron_combo)
        controls.addWidget(reg_box)
        controls.addStretch(1)

        # -- right side: map, readouts, network, lower tabs
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.setObjectName("playground-splitter")
        self.splitter.setChildrenCollapsible(False)
        outer.addWidget(self.splitter, 1)
        upper = QWidget()
        right = QVBoxLayout(upper)
        right.setContentsMargins(0, 0, 0, 0)
        self.splitter.addWidget(upper)
        top = QHBoxLayout()
        right.addLayout(top, 1)
        self.map_plot = self._named(pg.PlotWidget(), "map", "Decision map")
        self.map_plot.setAspectLocked(True)
        self.map_plot.setMouseEnabled(False, False)
        self.map_plot.setMenuEnabled(False)
        self.map_plot.hideButtons()
        self.map_plot.setRange(xRange=self.box[:2], yRange=self.box[2:], padding=0)
        self.map_plot.setLabel("bottom", "x₁")
        self.map_plot.setLabel("left", "x₂")
        self.map_plot.setMinimumSize(260, 260)
        self.heat = pg.ImageItem()
        self._heat_rect = QRectF(self.box[0], self.box[2], self.box[1] - self.box[0],
                                 self.box[3] - self.box[2])
        self.map_plot.addItem(self.heat)
        self.region_item = pg.PlotDataItem(connect="finite")
        self.map_plot.addItem(self.region_item)
        self.boundary_item = pg.PlotDataItem(connect="pairs")
        self.map_plot.addItem(self.boundary_item)
        self.train_scatter = pg.ScatterPlotItem()
        self.test_scatter = pg.ScatterPlotItem()
        self.map_plot.addItem(self.train_scatter)
        self.map_plot.addItem(self.test_scatter)
        top.addWidget(self.map_plot, 3)

        side_widget = QWidget()
        side_widget.setObjectName("playground-diagram")
        self._side_widget = side_widget
        side = QVBoxLayout(side_widget)
        side.setContentsMargins(0, 0, 0, 0)
        top.addWidget(side_widget, 2)
        self.network_plot = self._named(pg.PlotWidget(), "network", "Network diagram: hover a neuron")
        self.network_plot.setMouseEnabled(False, False)
        self.network_plot.setMenuEnabled(False)
        self.network_plot.hideButtons()
        for ax in ("left", "bottom"):
            self.network_plot.getPlotItem().hideAxis(ax)
        self.network_plot.setMinimumHeight(90)
        self.edge_pos = pg.PlotDataItem(connect="pairs")
        self.edge_neg = pg.PlotDataItem(connect="pairs")
        self.network_plot.addItem(self.edge_pos)
        self.network_plot.addItem(self.edge_neg)
        self.node_scatter = pg.ScatterPlotItem(hoverable=True, tip=None)
        self.network_plot.addItem(self.node_scatter)
        side.addWidget(self.network_plot, 1)
        self.neuron_label = self._named(QLabel(""), "neuron-info", "The shown neuron's map")
        self.neuron_label.setWordWrap(True)
        side.addWidget(self.neuron_label)

        # readouts: a strip under the map, kept in the lecture layout
        readouts = QWidget()
        readouts.setObjectName("playground-readouts")
        strip = QHBoxLayout(readouts)
        strip.setContentsMargins(2, 0, 2, 0)
        right.addWidget(readouts, 0)
        self.status_label = self._named(QLabel(""), "status", "Training status")
        self.status_label.setTextFormat(Qt.TextFormat.PlainText)
        strip.addWidget(self.status_label, 1, Qt.AlignmentFlag.AlignTop)
        col = QVBoxLayout()
        strip.addLayout(col, 2)
        self.region_label = self._named(QLabel(""), "region-count", "Number of linear regions")
        self.region_label.setWordWrap(True)
        col.addWidget(self.region_label)
        self.plane_label = self._named(QLabel(""), "region-count-plane",
                                       "Number of linear regions in the whole plane")
        self.plane_label.setWordWrap(True)
        col.addWidget(self.plane_label)
        self.collapse_label = self._named(QLabel(""), "collapse", "Collapsed affine map")
        self.collapse_label.setWordWrap(True)
        self.collapse_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        col.addWidget(self.collapse_label)
        self.message_label = self._named(QLabel(""), "message", "Messages")
        self.message_label.setWordWrap(True)
        col.addWidget(self.message_label)

        self.lower_tabs = self._named(QTabWidget(), "lower-tabs", "Curves and experiments")
        self.splitter.addWidget(self.lower_tabs)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 1)
        curves = QWidget()
        cl = QHBoxLayout(curves)
        cl.setContentsMargins(0, 0, 0, 0)
        self.loss_plot = self._named(pg.PlotWidget(), "loss-plot", "Loss against step")
        self.accuracy_plot = self._named(pg.PlotWidget(), "accuracy-plot", "Accuracy against step")
        for p, ylabel in ((self.loss_plot, "loss"), (self.accuracy_plot, "accuracy")):
            p.setLabel("bottom", "step")
            p.setLabel("left", ylabel)
            p.setMenuEnabled(False)
            p.addLegend(offset=(-4, 4))
            p.getPlotItem().getAxis("left").enableAutoSIPrefix(False)
            cl.addWidget(p)
        self.accuracy_plot.setYRange(0, 1.02)
        self.loss_train_curve = self.loss_plot.plot(name="train")
        self.loss_test_curve = self.loss_plot.plot(name="test")
        self.acc_train_curve = self.accuracy_plot.plot(name="train")
        self.acc_test_curve = self.accuracy_plot.plot(name="test")
        self.lower_tabs.addTab(curves, "Loss and accuracy")

        depth = QWidget()
        dl = QVBoxLayout(depth)
        dl.setContentsMargins(0, 0, 0, 0)
        drow = QHBoxLayout()
        drow.addWidget(QLabel("Parameter budget"))
        self.depth_budget = self._named(QSpinBox(), "depth-budget", "Parameter budget")
        self.depth_budget.setRange(10, 400)
        self.depth_budget.setValue(80)
        drow.addWidget(self.depth_budget)
        drow.addWidget(QLabel("Networks per depth"))
        self.depth_seeds = self._named(QSpinBox(), "depth-seeds", "Random networks per depth")
        self.depth_seeds.setRange(1, 30)
        self.depth_seeds.setValue(5)
        drow.addWidget(self.depth_seeds)
        self.depth_button = self._named(QPushButton("Count regions"), "depth-run",
                                        "Count the regions of random networks of this budget")
        drow.addWidget(self.depth_button)
        self.depth_status = self._named(QLabel(""), "depth-status", "Regions against depth status")
        self.depth_status.setWordWrap(True)
        drow.addWidget(self.depth_status, 1)
        dl.addLayout(drow)
        caption = QLabel(
            "Random He-initialised ReLU networks with the same number of parameters, exact region "
            "counts in the view box. The most regions a network can have grows exponentially with "
            "depth; typical counts at initialisation follow the number of neurons instead "
            "(Hanin & Rolnick 2019).")
        caption.setObjectName("playground-depth-caption")
        caption.setWordWrap(True)
        dl.addWidget(caption)
        self.depth_plot = self._named(pg.PlotWidget(), "depth-plot", "Regions against depth")
        self.depth_plot.setLabel("bottom", "hidden layers (same parameter budget)")
        self.depth_plot.setLabel("left", "linear regions in view")
        self.depth_plot.setMenuEnabled(False)
        self.depth_scatter = pg.ScatterPlotItem()
        self.depth_mean = self.depth_plot.plot()
        self.depth_plot.addItem(self.depth_scatter)
        dl.addWidget(self.depth_plot, 1)
        self.lower_tabs.addTab(depth, "Regions against depth")

        # keyboard, scoped to this panel
        for keys, slot, name in (("Space", self.toggle_play, "play"), ("N", self.step_once, "step"),
                                 ("R", self.reset_weights, "reset"), ("G", self.regenerate, "regenerate")):
            sc = QShortcut(QKeySequence(keys), self)
            sc.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            sc.setObjectName(f"playground-shortcut-{name}")
            sc.activated.connect(slot)

    def _named(self, widget, what: str, accessible: str):
        widget.setObjectName(f"playground-{what}")
        widget.setAccessibleName(accessible)
        if isinstance(widget, (QPushButton, QCheckBox, QComboBox, QSpinBox, QDoubleSpinBox)):
            widget.setToolTip(accessible)
        return widget

    def _connect(self) -> None:
        """Every view-to-state connection, in one place."""
        self.dataset_combo.currentIndexChanged.connect(lambda _i: self._on_data_setting())
        for w in (self.noise_spin, self.points_spin, self.test_spin, self.data_seed_spin):
            w.valueChanged.connect(lambda _v: self._on_data_setting())
        self.click_class_combo.currentIndexChanged.connect(self._on_click_class)
        self.regenerate_button.clicked.connect(self.regenerate)
        self.load_button.clicked.connect(self._load_csv_dialog)
        self.save_button.clicked.connect(self._save_csv_dialog)
        self.preset_combo.activated.connect(self._on_preset)
        self.add_layer_button.clicked.connect(self.add_layer)
        self.remove_layer_button.clicked.connect(self.remove_layer)
        self.activation_combo.currentIndexChanged.connect(
            lambda _i: self.set_activation(self.activation_combo.currentData()))
        self.init_seed_spin.valueChanged.connect(lambda v: self.reset_weights(seed=v))
        for w in (self.optimizer_combo, self.loss_combo):
            w.currentIndexChanged.connect(lambda _i: self._on_training_setting())
        for w in (self.lr_spin, self.batch_spin, self.speed_spin, self.max_steps_spin):
            w.valueChanged.connect(lambda _v: self._on_training_setting())
        self.play_button.toggled.connect(self._on_play_toggled)
        self.step_button.clicked.connect(self.step_once)
        self.reset_button.clicked.connect(lambda: self.reset_weights())
        self.lesson_button.clicked.connect(self.lesson_setup)
        self.regions_check.toggled.connect(self._on_show_regions)
        self.send_button.clicked.connect(self.send_network)
        self.neuron_combo.currentIndexChanged.connect(self._on_neuron_selected)
        self.map_plot.scene().sigMouseClicked.connect(self._on_map_click)
        self.node_scatter.sigHovered.connect(self._on_node_hover)
        self.depth_button.clicked.connect(self._on_depth_button)

    def _sync_widgets(self) -> None:
        """Show the state in the controls, signals blocked so nothing echoes back."""
        s = self._state
        ds, arch, tr, view = s["dataset"], s["architecture"], s["training"], s["view"]
        widgets = [self.dataset_combo, self.noise_spin, self.points_spin, self.test_spin,
                   self.data_seed_spin, self.click_class_combo, self.activation_combo,
                   self.init_seed_spin, self.optimizer_combo, self.lr_spin, self.loss_combo,
                   self.batch_spin, self.speed_spin, self.max_steps_spin, self.regions_check,
                   self.neuron_combo, self.preset_combo]
        for w in widgets:
            w.blockSignals(True)
        try:
            self.dataset_combo.setCurrentIndex(max(0, self.dataset_combo.findData(ds["name"])))
            self.noise_spin.setValue(ds["noise"])
            self.points_spin.setValue(ds["n_per_class"])
            self.test_spin.setValue(ds["test_fraction"])
            self.data_seed_spin.setValue(ds["seed"])
            self.click_class_combo.setCurrentIndex(int(view["click_class"]))
            self.activation_combo.setCurrentIndex(self.activation_combo.findData(arch["activation"]))
            self.init_seed_spin.setValue(arch["init_seed"])
            self.optimizer_combo.setCurrentIndex(self.optimizer_combo.findData(tr["optimizer"]))
            self.lr_spin.setValue(tr["learning_rate"])
            self.loss_combo.setCurrentIndex(self.loss_combo.findData(tr["loss"]))
            self.batch_spin.setValue(tr["batch_size"])
            self.speed_spin.setValue(tr["steps_per_tick"])
            self.max_steps_spin.setValue(tr["max_steps"])
            self.regions_check.setChecked(bool(view["show_regions"]))
            self.preset_combo.setCurrentIndex(0)
            self._fill_neuron_combo()
        finally:
            for w in widgets:
                w.blockSignals(False)
        self._rebuild_layer_spins()
        sizes = [2] + list(arch["hidden"]) + [1]
        self.param_label.setText(f"{'-'.join(map(str, sizes))}: {parameter_count(sizes)} parameters")
        self.remove_layer_button.setEnabled(len(arch["hidden"]) > 0)
        self.add_layer_button.setEnabled(len(arch["hidden"]) < MAX_HIDDEN_LAYERS)
        self._draw_activation()

    def _rebuild_layer_spins(self) -> None:
        hidden = self._state["architecture"]["hidden"]
        if [s.value() for s in self.layer_spins] == list(hidden):
            return
        for s in self.layer_spins:
            self.layers_row.removeWidget(s)
            s.deleteLater()
        self.layer_spins = []
        for i, width in enumerate(hidden, start=1):
            spin = self._named(QSpinBox(), f"layer-{i}-width", f"Neurons in hidden layer {i}")
            spin.setRange(1, MAX_WIDTH)
            spin.setValue(width)
            spin.setKeyboardTracking(False)
            spin.valueChanged.connect(lambda v, i=i: self.set_layer_width(i, v))
            self.layers_row.addWidget(spin)
            self.layer_spins.append(spin)

    def _fill_neuron_combo(self) -> None:
        arch = self._state["architecture"]
        self.neuron_combo.clear()
        self.neuron_combo.addItem("the network's output", None)
        for li, width in enumerate(arch["hidden"], start=1):
            for i in range(width):
                self.neuron_combo.addItem(f"layer {li}, neuron {i + 1}", [li, i])
        chosen = self._state["view"].get("neuron")
        idx = self.neuron_combo.findData(chosen) if chosen is not None else 0
        self.neuron_combo.setCurrentIndex(max(0, idx))

    # ------------------------------------------------------------------ edits
    def _on_data_setting(self) -> None:
        name = self.dataset_combo.currentData()

        def mutate(d):
            old = d["dataset"]["name"]
            d["dataset"].update(name=name, seed=self.data_seed_spin.value(),
                                noise=round(self.noise_spin.value(), 6),
                                n_per_class=self.points_spin.value(),
                                test_fraction=round(self.test_spin.value(), 6))
            if name != old:  # a new dataset starts from its own defaults
                spec = DATASETS[name]
                d["dataset"].update(noise=spec.noise, n_per_class=spec.n_per_class)
            _regenerate_points(d)

        self._edit("change the data", mutate)

    def regenerate(self) -> None:
        """New points from the next data seed (reproducible: the seed is shown)."""
        def mutate(d):
            d["dataset"]["seed"] = int(d["dataset"]["seed"]) + 1
            _regenerate_points(d)

        self._edit("regenerate the data", mutate)

    def _on_click_class(self, index: int) -> None:
        self._state["view"]["click_class"] = int(index)

    def add_point(self, x: float, y: float, label: int) -> None:
        """Add a training point of class ``label`` at (x, y) (one undo step)."""
        def mutate(d):
            d["points"]["x"].append([float(x), float(y)])
            d["points"]["label"].append(float(label))
            d["points"]["test"].append(False)

        self._edit(f"add a class {label} point", mutate)

    def remove_point(self, index: int) -> None:
        def mutate(d):
            for k in ("x", "label", "test"):
                del d["points"][k][index]

        self._edit("remove a point", mutate)

    def load_points(self, path) -> bool:
        """Replace the points by those of a CSV file; a bad file changes nothing."""
        try:
            X, y, is_test = load_points_csv(path)
        except (OSError, ValueError) as e:
            self._data_error(str(e))
            return False

        def mutate(d):
            d["points"] = {"x": X.tolist(), "label": y.tolist(), "test": is_test.tolist()}

        self._edit(f"load {Path(path).name}", mutate)
        self._data_error("")
        self.show_status(f"Loaded {len(y)} points from {Path(path).name}")
        return True

    def save_points(self, path) -> bool:
        X, y, is_test = self.points
        try:
            save_points_csv(path, X, y, is_test)
        except OSError as e:
            self._data_error(f"Could not save {Path(path).name}: {e.strerror or e}")
            return False
        self._data_error("")
        self.show_status(f"Saved {len(y)} points to {Path(path).name}")
        return True

    def _load_csv_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Load points", "", "CSV files (*.csv);;All files (*)")
        if path:
            self.load_points(path)

    def _save_csv_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Save points", "points.csv", "CSV files (*.csv)")
        if path:
            self.save_points(path)

    def set_hidden(self, hidden: list[int], text: str = "change the architecture") -> None:
        """New hidden layer sizes: new initial weights from the seed, history cleared."""
        hidden = [int(h) for h in hidden]

        def mutate(d):
            d["architecture"]["hidden"] = hidden
            _fresh_network(d)

        self._edit(text, mutate)

    def add_layer(self) -> None:
        hidden = list(self._state["architecture"]["hidden"])
        if len(hidden) < MAX_HIDDEN_LAYERS:
            self.set_hidden(hidden + [hidden[-1] if hidden else 4], "add a layer")

    def remove_layer(self) -> None:
        hidden = list(self._state["architecture"]["hidden"])
        if hidden:
            self.set_hidden(hidden[:-1], "remove a layer")

    def set_layer_width(self, layer: int, width: int) -> None:
        hidden = list(self._state["architecture"]["hidden"])
        if 1 <= layer <= len(hidden) and hidden[layer - 1] != width:
            hidden[layer - 1] = int(width)
            self.set_hidden(hidden, f"layer {layer}: {width} neurons")

    def _on_preset(self, index: int) -> None:
        label = self.preset_combo.itemData(index)
        if label is not None:
            self.set_hidden(PRESETS[label], f"preset {label}")

    def set_activation(self, name: str) -> None:
        """Same weights, another activation (the curves restart)."""
        get_activation(name)

        def mutate(d):
            d["architecture"]["activation"] = name
            d["network"]["activation"] = name
            d["training"]["step"] = 0
            d["history"] = self._empty_history()

        self._edit(f"activation {name}", mutate)

    def reset_weights(self, seed: int | None = None) -> None:
        """New initial weights from the weights seed; the step count and curves restart."""
        def mutate(d):
            if seed is not None:
                d["architecture"]["init_seed"] = int(seed)
            _fresh_network(d)

        self._edit("reset the weights", mutate)

    def lesson_setup(self) -> None:
        """Seed 002 exactly: circles and 2-6-1 weights from one default_rng(seed),
        full-batch gradient descent at 0.5 on cross-entropy, stop at 2000 steps."""
        seed = self.data_seed_spin.value()
        X, y, net = seed002_setup(seed, 6)

        def mutate(d):
            d["dataset"].update(name="circles", seed=seed, noise=0.12, n_per_class=90, test_fraction=0.0)
            d["points"] = {"x": X.tolist(), "label": y.tolist(), "test": [False] * len(y)}
            d["architecture"].update(hidden=[6], activation="relu")
            d["network"] = _net_to_dict(net)
            d["training"].update(optimizer="gd", learning_rate=0.5, loss="cross_entropy",
                                 batch_size=0, max_steps=2000, step=0)
            d["history"] = self._empty_history()

        self._edit("seed 002 lesson set-up", mutate, sets_training=True)
        self._message("Seed 002: press Play; after 2000 steps the training accuracy is the lesson's.")

    def _on_training_setting(self) -> None:
        t = self._state["training"]
        try:
            config = TrainConfig(self.optimizer_combo.currentData(), self.lr_spin.value(),
                                 self.loss_combo.currentData(), self.batch_spin.value())
        except ValueError as e:
            self._message(str(e), error=True)
            return
        t.update(optimizer=config.optimizer, learning_rate=config.learning_rate, loss=config.loss,
                 batch_size=config.batch_size, steps_per_tick=self.speed_spin.value(),
                 max_steps=self.max_steps_spin.value())
        self.trainer.set_config(config)
        self._draw_status()

    def _on_show_regions(self, on: bool) -> None:
        self._state["view"]["show_regions"] = bool(on)
        self.redraw()

    def _on_neuron_selected(self, _index: int) -> None:
        data = self.neuron_combo.currentData()
        self._state["view"]["neuron"] = list(data) if data is not None else None
        self.redraw()

    # ------------------------------------------------------------------ training
    def toggle_play(self) -> None:
        self.play_button.toggle()

    def _on_play_toggled(self, on: bool) -> None:
        if on and self.trainer.diverged:
            self.play_button.setChecked(False)
            return
        self.play_button.setText("Pause" if on else "Play")
        if on:
            self.timer.start()
        else:
            self.timer.stop()
            self.redraw()  # the exact overlay of the network where training stopped

    def is_playing(self) -> bool:
        return self.timer.isActive()

    def step_once(self) -> None:
        self._advance()

    def _tick(self) -> None:
        self._advance()

    def _advance(self) -> None:
        t = self._state["training"]
        k = int(t["steps_per_tick"])
        if t["max_steps"] > 0:
            k = min(k, t["max_steps"] - self.trainer.step_count)
            if k <= 0:
                self.play_button.setChecked(False)
                self._message(f"Stopped at step {self.trainer.step_count} (the stop set above).")
                return
        snap = self.trainer.step(k)
        self._record(snap)
        if snap.diverged:
            self.play_button.setChecked(False)
            self._message(snap.message, error=True)
        elif t["max_steps"] > 0 and self.trainer.step_count >= t["max_steps"]:
            self.play_button.setChecked(False)
        self.redraw(points=False)

    def _record(self, snap) -> None:
        h = self.history
        if h["step"] and h["step"][-1] == snap.step:
            return
        for key, value in (("step", snap.step), ("train_loss", snap.train_loss),
                           ("test_loss", snap.test_loss), ("train_accuracy", snap.train_accuracy),
                           ("test_accuracy", snap.test_accuracy)):
            h[key].append(float(value))
        if len(h["step"]) > HISTORY_LIMIT:  # keep every other point: the curve's shape stays
            for key in h:
                h[key] = h[key][::2]

    # ------------------------------------------------------------------ drawing
    def redraw(self, points: bool = True) -> None:
        """Heat map, boundary, regions, points, readouts, curves and diagram: one pass.
        Training frames skip the points, which only edits change."""
        self._draw_map()
        if points:
            self._draw_points()
        self._draw_curves()
        self._draw_network_weights()
        self._draw_status()

    def _shown_neuron(self) -> tuple[int, int] | None:
        if self._hover is not None:
            return self._hover
        n = self._state["view"].get("neuron")
        return tuple(n) if n is not None else None

    def _draw_map(self) -> None:
        net = self.net
        # float32: a picture needs 7 digits, and the grid is ten times faster
        zs = grid_layers(net, self.box, RESOLUTION, dtype=np.float32)
        neuron = self._shown_neuron()
        if neuron is not None and (neuron[0] > len(net.layers) - 1 or
                                   neuron[1] >= net.layers[neuron[0] - 1][0].shape[0]):
            neuron = None
        if neuron is None:
            Z = zs[-1][0]
            # p = σ(z) drawn through the diverging table; levels in z keep it cheap
            P = 1.0 / (1.0 + np.exp(-np.clip(Z, -30, 30)))
            self.heat.setImage(P.T, levels=(0.0, 1.0), autoLevels=False)
            self.heat.setRect(self._heat_rect)
            level_Z = Z
            self.neuron_label.setText("Hover a neuron in the diagram to see its own map.")
        else:
            layer, i = neuron
            z = zs[layer - 1][i]
            phi = get_activation(net.activation)
            V = phi.f(z)
            m = float(np.max(np.abs(V))) or 1.0
            self.heat.setImage(V.T, levels=(-m, m), autoLevels=False)
            self.heat.setRect(self._heat_rect)
            level_Z = z
            self.neuron_label.setText(self._neuron_text(net, layer, i, m))
        seg = boundary_segments(level_Z, self._xs, self._ys)
        self.boundary_item.setData(seg[:, 0], seg[:, 1]) if len(seg) else self.boundary_item.setData([], [])
        self._draw_regions(net)
        self._draw_collapse(net)

    def _neuron_text(self, net: MLP, layer: int, i: int, m: float) -> str:
        act = ACTIVATIONS[net.activation].label
        head = f"Layer {layer}, neuron {i + 1}"
        if net.activation == "identity":
            a, c = neuron_affine_map(net, layer, i)
            return f"{head}: exactly {format_affine(a, c)} (identity network)."
        if layer == 1:
            W, b = net.layers[0]
            return f"{head}: {act}({format_affine(W[i], float(b[i]))}); largest |value| in view {m:.3g}."
        return (f"{head}: {act} of a combination of layer {layer - 1}'s outputs; "
                f"its zero line is drawn; largest |value| in view {m:.3g}.")

    def _draw_regions(self, net: MLP) -> None:
        show = self._state["view"]["show_regions"]
        if not show or net.activation != "relu" or not net.hidden_sizes:
            self._polygons = []
            self._regions_for = None
            self.plane_label.setText("")
            self.region_item.setData([], [])
            if not show:
                self.region_label.setText("Linear regions: hidden.")
            elif net.activation != "relu":
                self.region_label.setText(f"Linear regions: shown for ReLU networks "
                                          f"(this one uses {ACTIVATIONS[net.activation].label}).")
            else:
                self.region_label.setText("Linear regions: 1 (no hidden layer: the logit is affine).")
            return
        if not regions_available():
            self.region_item.setData([], [])
            self.region_label.setText("Linear regions: the region enumeration is not installed.")
            return
        if net is self._regions_for:  # a hover or a neuron choice: same network, same regions
            return
        if self.is_playing() or net.n_hidden_neurons > SYNC_REGION_NEURONS:
            # While training, and for big networks, the exact regions are enumerated in
            # a worker thread so a frame costs only the heat map; the newest network wins.
            if not self.is_playing():
                self.region_item.setData([], [])
                self.region_label.setText("Linear regions: counting…")
            self._request_regions(net)
            return
        self._set_polygons(region_polygons(net, self.box), None, net)

    def _set_polygons(self, polygons, step: int | None, net: MLP | None = None) -> None:
        self._polygons = polygons
        self._regions_for = net
        x, y = polygon_outline(polygons)
        self.region_item.setData(x, y)
        when = "" if step is None else f", step {step}"
        self.region_label.setText(f"Linear regions in view: {len(polygons)} (exact{when})")
        self._show_plane_count(net)

    def _show_plane_count(self, net: MLP | None) -> None:
        """The exact number of regions in all of R² (linear programs, in a worker),
        for a paused network of at most SYNC_REGION_NEURONS hidden neurons."""
        if net is None or net.n_hidden_neurons > SYNC_REGION_NEURONS:
            self.plane_label.setText("")
            return
        if self._plane_count is not None and self._plane_count[0] is net:
            self.plane_label.setText(f"In the whole plane: {self._plane_count[1]} regions (exact).")
            return
        self.plane_label.setText("In the whole plane: counting…")
        if self._plane_job is not None:
            self._plane_pending = net
            return
        job = _PlaneCountThread(net, self)
        job.done.connect(self._on_plane_count)
        job.finished.connect(self._on_plane_job_finished)
        self._plane_job = job
        job.start()

    def _on_plane_count(self, net: MLP, result) -> None:
        if isinstance(result, str):
            self.plane_label.setText(f"In the whole plane: {result}")
            return
        self._plane_count = (net, int(result))
        if net is self._regions_for:
            self._show_plane_count(net)

    def _on_plane_job_finished(self) -> None:
        job, self._plane_job = self._plane_job, None
        if job is not None:
            job.deleteLater()
        pending, self._plane_pending = self._plane_pending, None
        if pending is not None and pending is self._regions_for and not self._closing:
            self._show_plane_count(pending)

    def _request_regions(self, net: MLP) -> None:
        if self._region_thread is not None:
            self._region_pending = net
            return
        th = _RegionThread(net, self.trainer.step_count, self.box, self)
        th.done.connect(self._on_regions_done)
        th.finished.connect(self._on_region_thread_finished)
        self._region_thread = th
        th.start()

    def _on_regions_done(self, net: MLP, step: int, polygons) -> None:
        if isinstance(polygons, str):
            self.region_label.setText(f"Linear regions: {polygons}")
            return
        if not (self._state["view"]["show_regions"] and self.net.activation == "relu"):
            return
        if net is self.net:  # the network on screen: exact and current
            self._set_polygons(polygons, None, net)
        elif self.is_playing() and self.net.sizes == net.sizes:  # a few steps behind
            self._set_polygons(polygons, step)

    def _on_region_thread_finished(self) -> None:
        th, self._region_thread = self._region_thread, None
        if th is not None:
            th.deleteLater()
        pending, self._region_pending = self._region_pending, None
        if pending is not None and not self._closing:
            self._request_regions(pending)

    def _wait_for_regions(self) -> None:
        self._region_pending = self._plane_pending = None
        for attr in ("_region_thread", "_plane_job"):
            th = getattr(self, attr)
            if th is not None:
                if hasattr(th, "stop"):
                    th.stop()
                th.wait()
                setattr(self, attr, None)
                th.deleteLater()

    def _draw_collapse(self, net: MLP) -> None:
        if net.activation != "identity":
            self.collapse_label.setText("")
            self.collapse_label.setVisible(False)
            return
        self.collapse_label.setVisible(True)
        A, c = collapse(net)
        err = collapse_error(net, np.vstack([self.points[0], [[self.box[0], self.box[2]],
                                                              [self.box[1], self.box[3]]]]))
        ok = "equal" if err <= 1e-12 else "NOT equal"
        self.collapse_label.setText(
            f"Identity activation: the {len(net.layers)} layers collapse into one, "
            f"z = {format_affine(A[0], float(c[0]))}. "
            f"Checked on the points: max |network − collapsed| = {err:.1e} ({ok}); "
            "the boundary is a straight line.")

    def _draw_points(self) -> None:
        X, y, is_test = self.points
        th = self.theme
        size = 8 * th.zoom ** 0.5
        pens = [th.pen("foreground", 0.8), th.pen("foreground", 0.8)]
        brushes = [pg.mkBrush(th.color("class0")), pg.mkBrush(th.color("class1"))]
        symbols = ["o", "s"]
        tr = ~is_test
        lab = y.astype(int)
        self.train_scatter.setData(
            x=X[tr, 0], y=X[tr, 1], size=size, symbol=[symbols[v] for v in lab[tr]],
            brush=[brushes[v] for v in lab[tr]], pen=[pens[v] for v in lab[tr]])
        test_pens = [th.pen("class0", 2.0), th.pen("class1", 2.0)]
        self.test_scatter.setData(
            x=X[is_test, 0], y=X[is_test, 1], size=size, symbol=[symbols[v] for v in lab[is_test]],
            brush=pg.mkBrush(0, 0, 0, 0), pen=[test_pens[v] for v in lab[is_test]])

    def _draw_curves(self) -> None:
        h = self.history
        s = np.array(h["step"], float)
        for curve, key in ((self.loss_train_curve, "train_loss"), (self.loss_test_curve, "test_loss"),
                           (self.acc_train_curve, "train_accuracy"),
                           (self.acc_test_curve, "test_accuracy")):
            v = np.array(h[key], float)
            ok = np.isfinite(v)
            curve.setData(s[ok], v[ok])

    def _draw_status(self) -> None:
        snap = self.trainer.snapshot
        n_train, n_test = len(self.trainer.y), len(self.trainer.y_test)

        def pct(v):
            return "—" if not math.isfinite(v) else f"{100 * v:.1f} %"

        def num(v):
            return "—" if not math.isfinite(v) else f"{v:.3g}"

        loss = LOSSES[self.trainer.config.loss]
        self.status_label.setText(
            f"Step {snap.step} · {OPTIMIZERS[self.trainer.config.optimizer]}, "
            f"rate {self.trainer.config.learning_rate:g}, {loss}\n"
            f"Train ({n_train}): accuracy {pct(snap.train_accuracy)}, loss {num(snap.train_loss)}\n"
            f"Test ({n_test}): accuracy {pct(snap.test_accuracy)}, loss {num(snap.test_loss)}")

    def _draw_activation(self) -> None:
        a = get_activation(self._state["architecture"]["activation"])
        z = np.linspace(-4, 4, 401)
        self.phi_curve.setData(z, a.f(z))
        self.dphi_curve.setData(z, a.df(z))
        self.activation_plot.setTitle(f"{a.label} and its derivative")

    def _rebuild_network_items(self) -> None:
        sizes = self.net.sizes
        pos, data = [], []
        for li, n in enumerate(sizes):
            for i in range(n):
                pos.append((li, (i - (n - 1) / 2) * 1.0))
                data.append((li, i))
        self._node_pos = np.array(pos, float)
        self._node_layers = sizes
        th = self.theme
        brushes = []
        for li, _i in data:
            role = "muted" if li == 0 else ("accent" if li == len(sizes) - 1 else "foreground")
            brushes.append(pg.mkBrush(th.color(role)))
        self.node_scatter.setData(pos=self._node_pos, data=data, size=th.point_size(13),
                                  brush=brushes, pen=th.pen("background", 1.0),
                                  hoverable=True, hoverSize=th.point_size(18),
                                  hoverBrush=pg.mkBrush(th.color("selected")))
        span = max(sizes)
        self.network_plot.setRange(xRange=(-0.4, len(sizes) - 0.6), yRange=(-span / 2, span / 2),
                                   padding=0.05)

    def _draw_network_weights(self) -> None:
        sizes = self.net.sizes
        if getattr(self, "_node_layers", None) != sizes:
            self._rebuild_network_items()
        offsets = np.cumsum([0] + sizes)
        pos_xy, neg_xy = [], []
        for li, (W, _b) in enumerate(self.net.layers):
            src = self._node_pos[offsets[li]:offsets[li + 1]]
            dst = self._node_pos[offsets[li + 1]:offsets[li + 2]]
            big = np.abs(W) >= 0.1 * max(float(np.abs(W).max()), 1e-12)
            for j, i in zip(*np.nonzero(big)):
                (pos_xy if W[j, i] > 0 else neg_xy).extend([src[i], dst[j]])
        for item, xy in ((self.edge_pos, pos_xy), (self.edge_neg, neg_xy)):
            xy = np.array(xy, float).reshape(-1, 2)
            item.setData(xy[:, 0], xy[:, 1]) if len(xy) else item.setData([], [])

    # ------------------------------------------------------------------ mouse
    def _on_map_click(self, ev) -> None:
        vb = self.map_plot.getPlotItem().getViewBox()
        if not vb.sceneBoundingRect().contains(ev.scenePos()):
            return
        p = vb.mapSceneToView(ev.scenePos())
        x, y = p.x(), p.y()
        if not (self.box[0] <= x <= self.box[1] and self.box[2] <= y <= self.box[3]):
            return
        if ev.button() == Qt.MouseButton.LeftButton:
            label = int(self._state["view"]["click_class"])
            if ev.modifiers() & Qt.KeyboardModifier.ShiftModifier:
                label = 1 - label
            ev.accept()
            self.add_point(x, y, label)
        elif ev.button() == Qt.MouseButton.RightButton:
            ev.accept()
            X = self.points[0]
            if not len(X):
                return
            # nearest point within 12 screen pixels
            px = vb.viewPixelSize()
            d = np.hypot((X[:, 0] - x) / px[0], (X[:, 1] - y) / px[1])
            i = int(np.argmin(d))
            if d[i] <= 12 * max(1.0, self.theme.zoom):
                self.remove_point(i)

    def _on_node_hover(self, _item, points, _ev) -> None:
        if len(points):
            layer, i = points[0].data()
            new = (int(layer), int(i)) if 0 < layer else None
        else:
            new = None
        if new != self._hover:
            self._hover = new
            self._draw_map()

    # ------------------------------------------------------------------ other panels
    def send_network(self) -> bool:
        net = self.net
        if net.activation != "relu" or not net.hidden_sizes:
            self._message("The converter takes ReLU networks with at least one hidden layer.", error=True)
            return False
        return self.send_to("converter", "network", net)

    def receive(self, kind: str, payload) -> bool:
        if kind != "network" or not isinstance(payload, MLP):
            return False
        if payload.n_in != 2 or payload.n_out != 1:
            self._message(f"The playground needs 2 inputs and 1 output; that network is "
                          f"{'-'.join(map(str, payload.sizes))}.", error=True)
            return False
        net = payload

        def mutate(d):
            d["architecture"].update(hidden=list(net.hidden_sizes), activation=net.activation)
            d["network"] = _net_to_dict(net)
            d["training"]["step"] = 0
            d["history"] = self._empty_history()

        self._edit("receive a network", mutate)
        return True

    # ------------------------------------------------------------------ depth experiment
    def _on_depth_button(self) -> None:
        if self._depth_thread is not None:
            self._stop_depth()
            self.depth_status.setText("Stopped.")
            return
        self.run_depth_experiment()

    def run_depth_experiment(self) -> None:
        """Count the exact regions of random networks of one budget, 1 to 4 hidden layers,
        in a worker thread (results arrive by queued signals)."""
        if not regions_available():
            self.depth_status.setText("Needs the region enumeration (relulab.model.regions).")
            return
        self._stop_depth()
        self.depth_samples = []
        self._draw_depth()
        th = _DepthThread(self.depth_budget.value(), self.depth_seeds.value(), self.box, self)
        th.sample.connect(self._on_depth_sample)
        th.failed.connect(lambda m: self.depth_status.setText(f"Failed: {m}"))
        th.finished.connect(self._on_depth_finished)
        self._depth_thread = th
        self.depth_button.setText("Stop")
        self.depth_status.setText("Counting…")
        th.start()

    def depth_running(self) -> bool:
        return self._depth_thread is not None

    def _on_depth_sample(self, sample: DepthSample) -> None:
        self.depth_samples.append(sample)
        self.depth_status.setText(f"{'-'.join(map(str, sample.sizes))} ({sample.params} parameters), "
                                  f"seed {sample.seed}: {sample.regions} regions")
        self._draw_depth()

    def _on_depth_finished(self) -> None:
        th = self._depth_thread
        self._depth_thread = None
        self.depth_button.setText("Count regions")
        if th is not None:
            th.deleteLater()
        if self.depth_samples and not self.depth_status.text().startswith("Failed"):
            means = ", ".join(f"{d} layer{'s' if d > 1 else ''}: {m:.0f}"
                              for d, m, _lo, _hi in summarise(self.depth_samples))
            self.depth_status.setText(f"Mean regions in view — {means} (exact counts).")

    def _stop_depth(self) -> None:
        th = self._depth_thread
        if th is not None:
            th.requestInterruption()
            th.wait()
            self._on_depth_finished()

    def _draw_depth(self) -> None:
        s = self.depth_samples
        if not s:
            self.depth_scatter.setData([], [])
            self.depth_mean.setData([], [])
            return
        d = np.array([x.depth for x in s], float)
        r = np.array([x.regions for x in s], float)
        jitter = (np.array([x.seed for x in s]) % 7 - 3) * 0.03
        th = self.theme
        self.depth_scatter.setData(d + jitter, r, size=th.point_size(9), brush=pg.mkBrush(th.color("accent")),
                                   pen=th.pen("foreground", 0.8))
        summary = summarise(s)
        self.depth_mean.setData([x[0] for x in summary], [x[1] for x in summary])
        ticks = [[(x[0], f"{x[0]}: {'-'.join(map(str, next(t.sizes for t in s if t.depth == x[0])))}")
                  for x in summary]]
        self.depth_plot.getPlotItem().getAxis("bottom").setTicks(ticks)
        self.depth_plot.setXRange(0.5, max(x[0] for x in summary) + 0.5, padding=0)

    # ------------------------------------------------------------------ messages
    def _message(self, text: str, error: bool = False) -> None:
        self.message_label.setText(text)
        colour = self.theme.color("error" if error else "foreground").name()
        self.message_label.setStyleSheet(f"color: {colour};" if text else "")

    def _data_error(self, text: str) -> None:
        self.data_error.setText(text)
        self.data_error.setStyleSheet(f"color: {self.theme.color('error').name()};" if text else "")

    # ------------------------------------------------------------------ panel hooks
    def plots(self) -> dict:
        return {"map": self.map_plot, "loss": self.loss_plot, "accuracy": self.accuracy_plot,
                "network": self.network_plot, "activation": self.activation_plot,
                "regions against depth": self.depth_plot}

    def data_tables(self) -> dict:
        X, y, is_test = self.points
        h = self.history
        tables = {
            "points": (["x1", "x2", "label", "set"],
                       [[float(a), float(b), int(c), "test" if t else "train"]
                        for (a, b), c, t in zip(X, y, is_test)]),
            "training": (["step", "train loss", "test loss", "train accuracy", "test accuracy"],
                         [list(r) for r in zip(h["step"], h["train_loss"], h["test_loss"],
                                               h["train_accuracy"], h["test_accuracy"])]),
        }
        if self.depth_samples:
            tables["regions against depth"] = (
                ["hidden layers", "sizes", "parameters", "seed", "regions"],
                [[s.depth, "-".join(map(str, s.sizes)), s.params, s.seed, s.regions]
                 for s in self.depth_samples])
        if self._polygons:
            tables["linear regions"] = (
                ["region", "vertices", "area"],
                [[i, len(p.vertices), float(p.area)] for i, p in enumerate(self._polygons)])
        return tables

    def animation_frames(self, max_frames: int = 120):
        """One training frame per yield; the panel is restored afterwards."""
        saved = self._current_state()
        playing = self.is_playing()
        self.play_button.setChecked(False)
        try:
            for _ in range(max_frames):
                self._advance()
                yield
                if self.trainer.diverged:
                    break
        finally:
            self._apply_state(saved)
            if playing:
                self.play_button.setChecked(True)

    def apply_theme(self) -> None:
        th = self.theme
        for p in (self.map_plot, self.loss_plot, self.accuracy_plot, self.activation_plot,
                  self.depth_plot):
            th.style_plot(p)
        th.style_plot(self.network_plot)
        self.network_plot.getPlotItem().showGrid(False, False)
        self.map_plot.getPlotItem().showGrid(False, False)
        self.heat.setLookupTable(diverging_lut(th.color("class0"), th.color("background"),
                                               th.color("class1")))
        self.boundary_item.setPen(th.pen("foreground", 2.5))
        self.region_item.setPen(th.pen("foreground", 0.8, alpha=110))
        self.phi_curve.setPen(th.series_pen(0))
        self.dphi_curve.setPen(th.series_pen(1))
        for train, test in ((self.loss_train_curve, self.loss_test_curve),
                            (self.acc_train_curve, self.acc_test_curve)):
            train.setPen(th.series_pen(0))
            test.setPen(th.series_pen(1))
        self.depth_mean.setPen(th.series_pen(1))
        pos = th.color("class1")
        neg = th.color("class0")
        pos.setAlpha(150)
        neg.setAlpha(150)
        self.edge_pos.setPen(pg.mkPen(pos, width=th.width(1.5)))
        self.edge_neg.setPen(pg.mkPen(neg, width=th.width(1.5), style=Qt.PenStyle.DashLine))
        # grow with the zoom, but slower, so the map keeps most of a projected screen
        grow = th.zoom ** 0.5
        self._controls_scroll.setMinimumWidth(int(340 * grow))
        self._controls_scroll.setMaximumWidth(int(420 * grow))
        self._side_widget.setMaximumWidth(int(300 * grow))
        self.lower_tabs.setMinimumHeight(int(140 * grow))
        if self.trainer is not None:
            self._rebuild_network_items()
            self._draw_depth()
            self.redraw()

    def shutdown(self) -> None:
        self._closing = True
        self.timer.stop()
        self._wait_for_regions()
        self._stop_depth()
        super().shutdown()


# ---------------------------------------------------------------------- helpers
def _net_to_dict(net: MLP) -> dict:
    return {"activation": net.activation,
            "layers": [{"W": W.tolist(), "b": b.tolist()} for W, b in net.layers]}


def _net_from_dict(d: dict) -> MLP:
    return MLP([(layer["W"], layer["b"]) for layer in d["layers"]], d["activation"])


def _regenerate_points(d: dict) -> None:
    ds = d["dataset"]
    X, y = make_dataset(ds["name"], ds["seed"], ds["n_per_class"], ds["noise"])
    mask = test_mask(len(y), ds["test_fraction"], ds["seed"])
    d["points"] = {"x": X.tolist(), "label": y.tolist(), "test": mask.tolist()}


def _fresh_network(d: dict) -> None:
    arch = d["architecture"]
    sizes = [2] + list(arch["hidden"]) + [1]
    net = MLP.random(sizes, seed=int(arch["init_seed"]), activation=arch["activation"])
    d["network"] = _net_to_dict(net)
    d["training"]["step"] = 0
    d["history"] = PlaygroundPanel._empty_history()


def _validate_state(state) -> dict:
    """A checked deep copy of a playground state; ValueError names the bad field."""
    if not isinstance(state, dict):
        raise ValueError("playground state must be a mapping")
    s = copy.deepcopy(state)

    def need(path: str):
        cur = s
        for part in path.split("."):
            if not isinstance(cur, dict) or part not in cur:
                raise ValueError(f"{path}: missing")
            cur = cur[part]
        return cur

    ds = need("dataset")
    if need("dataset.name") not in DATASETS:
        raise ValueError(f"dataset.name: unknown dataset {ds['name']!r}")
    for key, lo, hi in (("seed", 0, 10 ** 9), ("n_per_class", 1, 50_000)):
        v = need(f"dataset.{key}")
        if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or not lo <= v <= hi:
            raise ValueError(f"dataset.{key}: must be an integer in [{lo}, {hi}], got {v!r}")
    for key, lo, hi in (("noise", 0.0, 10.0), ("test_fraction", 0.0, 0.95)):
        v = need(f"dataset.{key}")
        if not isinstance(v, (int, float)) or isinstance(v, bool) or not (lo <= v <= hi):
            raise ValueError(f"dataset.{key}: must be a number in [{lo}, {hi}], got {v!r}")

    pts = need("points")
    try:
        X = np.array(need("points.x"), float).reshape(-1, 2)
        y = np.array(need("points.label"), float).reshape(-1)
        t = np.array(need("points.test")).reshape(-1)
    except (TypeError, ValueError):
        raise ValueError("points: x must be [x1, x2] pairs, label numbers, test booleans") from None
    if not (len(X) == len(y) == len(t)):
        raise ValueError(f"points: {len(X)} positions, {len(y)} labels and {len(t)} test flags")
    if not np.all(np.isfinite(X)):
        raise ValueError("points.x: every coordinate must be finite")
    if not np.all((y == 0) | (y == 1)):
        raise ValueError("points.label: labels must be 0 or 1")
    if t.dtype != bool and len(t):
        raise ValueError("points.test: flags must be true or false")
    pts.update(x=X.tolist(), label=y.tolist(), test=[bool(v) for v in t])

    arch = need("architecture")
    hidden = need("architecture.hidden")
    if (not isinstance(hidden, list) or len(hidden) > MAX_HIDDEN_LAYERS
            or not all(isinstance(h, (int, np.integer)) and not isinstance(h, bool) and 1 <= h <= MAX_WIDTH
                       for h in hidden)):
        raise ValueError(f"architecture.hidden: at most {MAX_HIDDEN_LAYERS} layers of 1 to "
                         f"{MAX_WIDTH} neurons, got {hidden!r}")
    arch["hidden"] = [int(h) for h in hidden]
    if need("architecture.activation") not in ACTIVATIONS:
        raise ValueError(f"architecture.activation: unknown activation {arch['activation']!r}")
    seed = need("architecture.init_seed")
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"architecture.init_seed: must be an integer ≥ 0, got {seed!r}")

    try:
        net = _net_from_dict(need("network"))
    except ValueError as e:
        raise ValueError(f"network: {e}") from None
    except (TypeError, KeyError):
        raise ValueError("network: needs layers of {W, b} and an activation") from None
    if net.sizes != [2] + arch["hidden"] + [1]:
        raise ValueError(f"network: sizes {net.sizes} do not match architecture.hidden {arch['hidden']}")
    if net.activation != arch["activation"]:
        raise ValueError("network.activation: differs from architecture.activation")
    if not net.is_finite():
        raise ValueError("network: weights must be finite")

    tr = need("training")
    try:
        TrainConfig(need("training.optimizer"), need("training.learning_rate"), need("training.loss"),
                    need("training.batch_size"))
    except (TypeError, ValueError) as e:
        raise ValueError(f"training: {e}") from None
    for key, lo, hi in (("steps_per_tick", 1, 500), ("max_steps", 0, 10 ** 7), ("step", 0, 10 ** 12),
                        ("batch_size", 0, 10 ** 6)):
        v = need(f"training.{key}")
        if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or not lo <= v <= hi:
            raise ValueError(f"training.{key}: must be an integer in [{lo}, {hi}], got {v!r}")
    tr["learning_rate"] = float(tr["learning_rate"])

    hist = need("history")
    keys = ("step", "train_loss", "test_loss", "train_accuracy", "test_accuracy")
    if not isinstance(hist, dict) or set(hist) != set(keys):
        raise ValueError(f"history: needs the lists {', '.join(keys)}")
    try:
        cols = {k: [float(v) for v in hist[k]] for k in keys}
    except (TypeError, ValueError):
        raise ValueError("history: values must be numbers") from None
    if len({len(v) for v in cols.values()}) != 1:
        raise ValueError("history: the lists must have the same length")
    s["history"] = cols

    view = need("view")
    if not isinstance(need("view.show_regions"), bool):
        raise ValueError("view.show_regions: must be true or false")
    if need("view.click_class") not in (0, 1):
        raise ValueError("view.click_class: must be 0 or 1")
    neuron = view.get("neuron")
    if neuron is not None:
        if (not isinstance(neuron, (list, tuple)) or len(neuron) != 2
                or not 1 <= int(neuron[0]) <= len(arch["hidden"])
                or not 0 <= int(neuron[1]) < arch["hidden"][int(neuron[0]) - 1]):
            view["neuron"] = None  # a neuron of an older architecture: show the output
        else:
            view["neuron"] = [int(neuron[0]), int(neuron[1])]
    else:
        view["neuron"] = None
    s.pop("depth", None)
    return s


if __name__ == "__main__":
    sys.exit(run_alone(PlaygroundPanel))
