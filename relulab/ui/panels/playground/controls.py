"""The Playground's controls: Play, Step, Reset and Replay always in sight, and below
them the data, the network, training and the view, one tab each (a 1366 × 768 laptop
shows every tab without scrolling the buttons away).

The controls only show a state (``show_state``, signals blocked so nothing echoes
back) and say what the user asked for through their own signals; the panel turns
that into edits of its state.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from relulab.model.data.datasets import CLASSIFICATION_DATASETS, DATASETS, REGRESSION_DATASETS
from relulab.model.fitting.classify import LOSSES, OPTIMIZERS, REGRESSION_LOSSES
from relulab.model.fitting.training import SPEEDS
from relulab.model.lessons.playground import (
    ARCHITECTURE_PRESETS,
    MAX_CLASSES,
    MAX_HIDDEN_LAYERS,
    MAX_POINTS,
    MAX_SEED,
    MAX_STEPS_PER_PRESS,
    MAX_STOP_STEP,
    MAX_WIDTH,
    MIN_CLASSES,
    PlaygroundState,
)
from relulab.model.networks.activations import ACTIVATIONS, get_activation
from relulab.ui.legend import KeyLabel
from relulab.ui.panels.base import named, signals_blocked
from relulab.ui.panels.playground.curves import series_entry
from relulab.ui.panels.playground.diagram import FIT_NEURONS, THUMB
from relulab.ui.panels.playground.features_view import FeatureChecks
from relulab.ui.panels.playground.training_controls import PenaltyRows, RatePresets
from relulab.ui.panels.playground.view_rows import NoiseSlider, ViewToggles
from relulab.ui.readout import Readout

#: The "every layer" activation combo's entry while the layers differ.
MIXED = "mixed"


def _index(combo: QComboBox, data) -> int:
    return max(0, combo.findData(data))


class PlaygroundControls(QWidget):
    """The left column. ``layer_width_changed(layer, width)`` and
    ``layer_activation_changed(layer, name)`` come from the rows of the hidden layers,
    which are made again when their number changes."""

    layer_width_changed = Signal(int, int)
    layer_activation_changed = Signal(int, str)

    def __init__(self, theme, parent=None):
        super().__init__(parent)
        named(self, "playground-controls", "Playground controls")
        self.theme = theme
        self._neurons_for = None       # the layers the neuron list was filled for
        self._activations_shown = None  # the activations the plot shows
        column = QVBoxLayout(self)
        column.setContentsMargins(2, 2, 2, 2)
        column.addLayout(self._build_buttons())
        self.tabs = named(QTabWidget(), "playground-control-tabs", "Playground settings")
        self.tabs.setDocumentMode(True)
        for title, page in (("Data", self._build_data()), ("Network", self._build_network()),
                            ("Training", self._build_training()), ("View", self._build_view())):
            self.tabs.addTab(self._scrolled(page), title)
        column.addWidget(self.tabs, 1)
        self.layer_spins: list[QSpinBox] = []
        self.layer_combos: list[QComboBox] = []
        for w in (self.noise_spin, self.points_spin, self.test_spin, self.data_seed_spin,
                  self.init_seed_spin, self.lr_spin, self.batch_spin, self.press_spin,
                  self.max_steps_spin, self.classes_spin):
            w.setKeyboardTracking(False)

    @staticmethod
    def _scrolled(page: QWidget) -> QScrollArea:
        """A tab's page at its natural height (the rest of the tab left empty), scrolled
        when the window is shorter."""
        holder = QWidget()
        column = QVBoxLayout(holder)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(page)
        column.addStretch(1)
        area = QScrollArea()
        area.setWidgetResizable(True)
        area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        area.setFrameShape(QScrollArea.Shape.NoFrame)
        area.setWidget(holder)
        return area

    # -- construction, one tab each -------------------------------------------------------
    def _build_buttons(self) -> QHBoxLayout:
        self.play_button = named(QPushButton("Play"), "playground-play",
                                 "Play or pause training (Space)", "Play or pause training (Space)")
        self.play_button.setCheckable(True)
        self.step_button = named(QPushButton("Step"), "playground-step",
                                 "Train the steps of one Step (N)", "Train the steps of one Step (N)")
        self.reset_button = named(QPushButton("Reset"), "playground-reset",
                                  "New initial weights from the seed (R)",
                                  "New initial weights from the seed (R)")
        self.replay_button = named(QPushButton("Replay"), "playground-replay",
                                   "Back to the weights this run started from, to compare settings",
                                   "Back to the weights this run started from, to compare "
                                   "settings: the last run's curves stay, dashed")
        return self._row(self.play_button, self.step_button, self.reset_button, self.replay_button)

    def _build_data(self) -> QWidget:
        page = QWidget()
        form = QFormLayout(page)
        self.dataset_combo = named(QComboBox(), "playground-dataset", "Dataset", "Dataset")
        for key in (*CLASSIFICATION_DATASETS, *REGRESSION_DATASETS):
            self.dataset_combo.addItem(DATASETS[key].label, key)
        self.classes_spin = named(QSpinBox(), "playground-classes", "Number of classes",
                                  "Number of classes (circles, spirals, Gaussian blobs and the "
                                  "checkerboard make up to six)")
        self.classes_spin.setRange(MIN_CLASSES, MAX_CLASSES)
        self.boundary_edit = named(QLineEdit(), "playground-boundary",
                                   "The curve f: class 1 where x₂ > f(x₁)",
                                   "The curve f: class 1 where x₂ > f(x₁) (e.g. sin(3x)/2, x^2 − 0.5)")
        self.formula_edit = named(QLineEdit(), "playground-formula",
                                  "The regression target f(x₁, x₂)",
                                  "The target f(x₁, x₂), typed: e.g. sin(x1) * x2, x1^2 - x2 "
                                  "(Enter to apply; the noise slider adds noise)")
        self.formula_edit.setPlaceholderText("e.g. sin(x1) * x2, Enter to apply")
        self.formula_error = Readout("playground-formula-error", "What is wrong with f",
                                     "formula_error", wrap=True)
        self.noise_spin = named(QDoubleSpinBox(), "playground-noise", "Noise (standard deviation)",
                                "Noise (standard deviation)")
        self.noise_spin.setRange(0.0, 1.0)
        self.noise_spin.setSingleStep(0.01)
        self.noise_spin.setDecimals(3)
        self.points_spin = named(QSpinBox(), "playground-points", "Points per class", "Points per class")
        self.points_spin.setRange(1, MAX_POINTS // MIN_CLASSES)
        self.test_spin = named(QDoubleSpinBox(), "playground-test-fraction", "Test fraction",
                               "Test fraction")
        self.test_spin.setRange(0.0, 0.9)
        self.test_spin.setSingleStep(0.05)
        self.test_spin.setDecimals(2)
        self.data_seed_spin = named(QSpinBox(), "playground-data-seed", "Data seed", "Data seed")
        self.data_seed_spin.setRange(0, min(MAX_SEED, 10 ** 6))
        self.click_class_combo = named(QComboBox(), "playground-click-class", "Class added by a click",
                                       "Class added by a click (Shift+click: the next class)")
        self.random_labels_check = named(
            QCheckBox("Random labels"), "playground-random-labels", "Shuffle the training labels",
            "Shuffle the training labels among the training points (the test points keep "
            "theirs): the network can still fit them, and learns nothing that holds")
        form.addRow("Dataset", self.dataset_combo)
        form.addRow("Classes", self.classes_spin)
        form.addRow("Boundary x₂ >", self.boundary_edit)
        form.addRow("f(x₁, x₂) =", self.formula_edit)
        form.addRow(self.formula_error)
        self.noise_slider = NoiseSlider(self.noise_spin)
        for label, widget in (("Noise", self.noise_slider.row), ("Points per class", self.points_spin),
                              ("Test fraction", self.test_spin), ("Data seed", self.data_seed_spin),
                              ("Click adds", self.click_class_combo)):
            form.addRow(label, widget)
        form.addRow(self.random_labels_check)
        self.regenerate_button = named(QPushButton("Regenerate"), "playground-regenerate",
                                       "Regenerate the data with the next seed",
                                       "Regenerate the data with the next seed")
        self.load_button = named(QPushButton("Load CSV…"), "playground-load-csv",
                                 "Load points from CSV", "Load points from CSV")
        self.save_button = named(QPushButton("Save CSV…"), "playground-save-csv",
                                 "Save points as CSV", "Save points as CSV")
        form.addRow(self._row(self.regenerate_button, self.load_button, self.save_button))
        self.data_error = Readout("playground-data-error", "Data error", "data_error", wrap=True)
        form.addRow(self.data_error)
        self._data_form = form
        return page

    def _build_network(self) -> QWidget:
        page = QWidget()
        form = QFormLayout(page)
        self.preset_combo = named(QComboBox(), "playground-preset", "Architecture preset",
                                  "Architecture preset")
        self.preset_combo.addItem("choose a preset…", None)
        for label in ARCHITECTURE_PRESETS:
            self.preset_combo.addItem(label, label)
        form.addRow("Preset", self.preset_combo)
        self.features = FeatureChecks()
        form.addRow("Inputs", self.features.row)
        self.layers_grid = QGridLayout()
        self.layers_grid.setContentsMargins(0, 0, 0, 0)
        self.layers_grid.setHorizontalSpacing(4)
        self.layers_grid.setVerticalSpacing(2)
        layers = QWidget()
        layers.setLayout(self.layers_grid)
        form.addRow(layers)
        self.add_layer_button = named(QPushButton("+ layer"), "playground-add-layer",
                                      "Add a hidden layer", "Add a hidden layer")
        self.remove_layer_button = named(QPushButton("− layer"), "playground-remove-layer",
                                         "Remove the last hidden layer", "Remove the last hidden layer")
        self.param_label = Readout("playground-param-count", "Parameter count", "parameters")
        # one row for the layer buttons and the count they change: the feature inputs'
        # row above must leave the Network tab whole on a 1280 × 720 projector
        form.addRow(self._row(self.add_layer_button, self.remove_layer_button, self.param_label))
        self.activation_combo = named(QComboBox(), "playground-activation",
                                      "Activation of every hidden layer",
                                      "Activation of every hidden layer (each layer's is above)")
        for key, a in ACTIVATIONS.items():
            self.activation_combo.addItem(a.label, key)
        form.addRow("Every layer", self.activation_combo)
        form.addRow(self._build_activation_plot())
        form.addRow(self.activation_key)
        self.init_seed_spin = named(QSpinBox(), "playground-init-seed", "Seed of the initial weights",
                                    "Seed of the initial weights")
        self.init_seed_spin.setRange(0, min(MAX_SEED, 10 ** 6))
        form.addRow("Weights seed", self.init_seed_spin)
        self.open_button = named(QPushButton("Open…"), "playground-open-network",
                                 "Open a network file",
                                 "Open a network file (JSON, NPZ or ONNX): its weights, and the "
                                 "inputs it records (none: x₁, x₂)")
        self.export_button = named(QPushButton("Export…"), "playground-export-network",
                                   "Save the network as JSON, NPZ or ONNX",
                                   "Save the trained network and its inputs as JSON or NPZ "
                                   "(ONNX: inputs x₁, x₂ only)")
        self.send_button = named(QPushButton("Send to Deep → shallow"),
                                 "playground-send-converter", "Send the network to the converter",
                                 "Send the network to the converter")
        form.addRow(self._row(self.open_button, self.export_button, self.send_button))
        return page

    def _build_activation_plot(self) -> pg.PlotWidget:
        self.activation_plot = named(pg.PlotWidget(), "playground-activation-plot",
                                     "Activation and its derivative",
                                     description="The activation function and its derivative.")
        self.activation_plot.setMinimumHeight(120)
        self.activation_plot.setMaximumHeight(160)
        self.activation_plot.setMouseEnabled(False, False)
        self.activation_plot.setMenuEnabled(False)
        self.activation_plot.hideButtons()
        # under the plot: a legend on it covered φ′ of the identity and of σ. One line,
        # not wrapped: a wrapped label makes the scroll area give the page its preferred
        # height instead of the viewport's, and the buttons under it went out of sight
        self.activation_key = KeyLabel("playground-activation-key",
                                       "Which line of the activation plot is which")
        self.activation_key.setWordWrap(False)
        self.activation_curves: list[pg.PlotDataItem] = []
        return self.activation_plot

    def _build_training(self) -> QWidget:
        page = QWidget()
        form = QFormLayout(page)
        self.optimizer_combo = named(QComboBox(), "playground-optimizer", "Optimizer", "Optimizer")
        for key, label in OPTIMIZERS.items():
            self.optimizer_combo.addItem(label, key)
        self.lr_spin = named(QDoubleSpinBox(), "playground-learning-rate", "Learning rate",
                             "Learning rate")
        self.lr_spin.setDecimals(4)
        self.lr_spin.setRange(0.0001, 1000.0)
        self.lr_spin.setSingleStep(0.01)
        self.loss_combo = named(QComboBox(), "playground-loss", "Loss", "Loss")
        for key, label in LOSSES.items():
            self.loss_combo.addItem(label, key)
        self.batch_spin = named(QSpinBox(), "playground-batch-size", "Batch size (all = full batch)",
                                "Batch size (all = full batch)")
        self.batch_spin.setRange(0, MAX_POINTS)
        self.batch_spin.setSpecialValueText("all points")
        self.speed_combo = named(QComboBox(), "playground-speed", "Training speed", "Training speed")
        self.speed_combo.addItems(list(SPEEDS))
        self.press_spin = named(QSpinBox(), "playground-steps-per-tick", "Steps per press of Step",
                                "Steps per press of Step (N)")
        self.press_spin.setRange(1, MAX_STEPS_PER_PRESS)
        self.max_steps_spin = named(QSpinBox(), "playground-max-steps", "Stop after this many steps",
                                    "Stop after this many steps")
        self.max_steps_spin.setRange(0, MAX_STOP_STEP)
        self.max_steps_spin.setSpecialValueText("never")
        self.lr_presets = RatePresets(self.lr_spin)
        for label, widget in (("Optimizer", self.optimizer_combo), ("Learning rate", self.lr_presets.row),
                              ("Loss", self.loss_combo), ("Batch size", self.batch_spin),
                              ("Speed", self.speed_combo), ("Steps per Step", self.press_spin),
                              ("Stop at step", self.max_steps_spin)):
            form.addRow(label, widget)
        self.penalty = PenaltyRows(form)
        self.output_label = Readout("playground-output-kind", "What the output is", "output_kind",
                                    wrap=True)
        form.addRow(self.output_label)
        lesson = "Circles, 2-6-1, the lesson's weights, gradient descent at 0.5 for 2000 steps"
        self.lesson_button = named(QPushButton("Circles lesson set-up"), "playground-lesson",
                                   lesson, lesson)
        form.addRow(self.lesson_button)
        return page

    def _build_view(self) -> QWidget:
        page = QWidget()
        column = QVBoxLayout(page)
        self.regions_check = named(QCheckBox("Exact linear and decision regions (ReLU)"),
                                   "playground-show-regions", "Show linear regions",
                                   "Show the exact linear regions, and the decision boundary "
                                   "computed from each region's affine map")
        self.thumbnails_check = named(QCheckBox("Each neuron's map in the diagram"),
                                      "playground-thumbnails", "Neuron maps in the diagram",
                                      "Draw each neuron's own output over the plane on its dot "
                                      f"(shown by themselves while they fit: up to {FIT_NEURONS} "
                                      f"neurons a layer, each map at least {THUMB} px)")
        self.neuron_combo = named(QComboBox(), "playground-neuron-select", "Neuron whose map is shown",
                                  "Neuron whose map is shown")
        self.toggles = ViewToggles()
        for widget in (self.regions_check, self.thumbnails_check, *self.toggles.widgets,
                       QLabel("Map of"), self.neuron_combo):
            column.addWidget(widget)
        column.addStretch(1)
        return page

    @staticmethod
    def _row(*widgets) -> QHBoxLayout:
        row = QHBoxLayout()
        for w in widgets:
            row.addWidget(w)
        return row

    # -- showing a state --------------------------------------------------------------
    def show_state(self, s: PlaygroundState) -> None:
        """Every control shows ``s``; nothing echoes back as an edit."""
        ds, arch, tr, view = s.dataset, s.architecture, s.training, s.view
        widgets = (self.dataset_combo, self.noise_spin, self.points_spin, self.test_spin,
                   self.data_seed_spin, self.click_class_combo, self.activation_combo,
                   self.init_seed_spin, self.optimizer_combo, self.lr_spin, self.loss_combo,
                   self.batch_spin, self.speed_combo, self.press_spin, self.max_steps_spin,
                   self.regions_check, self.neuron_combo, self.preset_combo, self.classes_spin,
                   self.boundary_edit, self.formula_edit, self.random_labels_check, self.thumbnails_check,
                   *self.penalty.widgets, *self.toggles.widgets)
        with signals_blocked(*widgets):
            self.dataset_combo.setCurrentIndex(_index(self.dataset_combo, ds.name))
            self.classes_spin.setValue(ds.classes)
            self.classes_spin.setEnabled(ds.spec.max_classes > 2 or ds.classes > 2)
            # a regression has no classes: its points are just points
            self._data_form.setRowVisible(self.classes_spin, not ds.regress)
            points_label = self._data_form.labelForField(self.points_spin)
            if points_label is not None:
                points_label.setText("Points" if ds.regress else "Points per class")
            self.points_spin.setMaximum(MAX_POINTS // ds.classes)
            self.boundary_edit.setText(ds.expression)
            self._data_form.setRowVisible(self.boundary_edit, ds.name == "boundary")
            self.formula_edit.setText(ds.formula)
            self._data_form.setRowVisible(self.formula_edit, ds.name == "regress_formula")
            self.show_formula_error("")
            self.noise_spin.setValue(ds.noise)
            self.noise_slider.show(ds.noise)
            self.points_spin.setValue(ds.n_per_class)
            self.test_spin.setValue(ds.test_fraction)
            self.data_seed_spin.setValue(ds.seed)
            self.random_labels_check.setChecked(ds.random_labels)
            self._fill_click_classes(ds.classes, view.click_class)
            # a regression problem's click adds a point on its own function, of no class
            self._data_form.setRowVisible(self.click_class_combo, not ds.regress)
            uniform = isinstance(arch.activation, str)
            if uniform:
                self.activation_combo.setCurrentIndex(_index(self.activation_combo, arch.activation))
            self._show_mixed(not uniform)
            self.init_seed_spin.setValue(arch.init_seed)
            self.optimizer_combo.setCurrentIndex(_index(self.optimizer_combo, tr.optimizer))
            self.lr_spin.setValue(tr.learning_rate)
            self.lr_presets.show(tr.learning_rate)
            losses = REGRESSION_LOSSES if ds.regress else LOSSES  # the ones that suit the data
            if [self.loss_combo.itemData(i) for i in range(self.loss_combo.count())] != list(losses):
                self.loss_combo.clear()
                for key, label in losses.items():
                    self.loss_combo.addItem(label, key)
            self.loss_combo.setCurrentIndex(_index(self.loss_combo, tr.loss))
            self.batch_spin.setValue(tr.batch_size)
            self.speed_combo.setCurrentText(tr.speed)
            self.press_spin.setValue(tr.steps_per_press)
            self.max_steps_spin.setValue(tr.max_steps)
            self.penalty.show(tr)
            self.regions_check.setChecked(view.show_regions)
            # None: the diagram decides, and the panel shows what it drew
            self.thumbnails_check.setChecked(bool(view.thumbnails))
            self.toggles.show(view)
            self.preset_combo.setCurrentIndex(0)
            self._fill_neurons(arch.hidden, view.neuron)
        self.features.show(arch.features)
        self._show_layers(arch.hidden, arch.activations)
        self.param_label.set_value(arch.n_params,
                                   f"{'-'.join(map(str, arch.sizes))}: {arch.n_params:,} parameters")
        self.remove_layer_button.setEnabled(len(arch.hidden) > 0)
        self.add_layer_button.setEnabled(len(arch.hidden) < MAX_HIDDEN_LAYERS)
        self.output_label.setText(
            "One output z, the prediction of the target (no σ): mean squared error."
            if ds.regress else
            "One output z: class 1 when z > 0, p = σ(z)." if arch.outputs == 1 else
            f"{arch.outputs} outputs, one score per class: the class is the largest, "
            "p = softmax(z).")
        self._show_activations(arch.activations or (arch.activation,))

    def _show_mixed(self, mixed: bool) -> None:
        at = self.activation_combo.findData(MIXED)
        if mixed and at < 0:
            self.activation_combo.addItem("(each layer its own)", MIXED)
        elif not mixed and at >= 0:
            self.activation_combo.removeItem(at)
        if mixed:
            self.activation_combo.setCurrentIndex(self.activation_combo.findData(MIXED))

    def _fill_click_classes(self, classes: int, chosen: int) -> None:
        if self.click_class_combo.count() != classes:
            self.click_class_combo.clear()
            for k in range(classes):
                self.click_class_combo.addItem(f"class {k} (Shift: class {(k + 1) % classes})", k)
        self.click_class_combo.setCurrentIndex(min(chosen, classes - 1))

    def _show_layers(self, hidden: tuple[int, ...], activations: tuple[str, ...]) -> None:
        if [s.value() for s in self.layer_spins] != list(hidden):
            for w in self.layer_spins + self.layer_combos + self._layer_labels():
                self.layers_grid.removeWidget(w)
                w.deleteLater()
            self.layer_spins, self.layer_combos = [], []
            for i, width in enumerate(hidden, start=1):
                label = named(QLabel(f"Layer {i}"), f"playground-layer-{i}-label", f"Hidden layer {i}")
                spin = named(QSpinBox(), f"playground-layer-{i}-width", f"Neurons in hidden layer {i}",
                             f"Neurons in hidden layer {i}")
                spin.setRange(1, MAX_WIDTH)
                spin.setValue(width)
                spin.setKeyboardTracking(False)
                spin.valueChanged.connect(lambda v, i=i: self.layer_width_changed.emit(i, v))
                combo = named(QComboBox(), f"playground-layer-{i}-activation",
                              f"Activation of hidden layer {i}", f"Activation of hidden layer {i}")
                for key, a in ACTIVATIONS.items():
                    combo.addItem(a.label, key)
                combo.activated.connect(
                    lambda _k, i=i, c=combo: self.layer_activation_changed.emit(i, c.currentData()))
                self.layers_grid.addWidget(label, i - 1, 0)
                self.layers_grid.addWidget(spin, i - 1, 1)
                self.layers_grid.addWidget(combo, i - 1, 2)
                self.layer_spins.append(spin)
                self.layer_combos.append(combo)
        for combo, name in zip(self.layer_combos, activations):
            with signals_blocked(combo):
                combo.setCurrentIndex(_index(combo, name))

    def _layer_labels(self) -> list[QWidget]:
        out = []
        for i in range(self.layers_grid.count()):
            w = self.layers_grid.itemAt(i).widget()
            if isinstance(w, QLabel):
                out.append(w)
        return out

    def _fill_neurons(self, hidden: tuple[int, ...], chosen) -> None:
        # filled again only when the layers change: every state shown (each network
        # received, each undo) would otherwise rebuild up to 49 entries
        if self._neurons_for != hidden:
            self.neuron_combo.clear()
            self.neuron_combo.addItem("the network's output", None)
            for li, width in enumerate(hidden, start=1):
                for i in range(width):
                    self.neuron_combo.addItem(f"layer {li}, neuron {i + 1}", [li, i])
            self._neurons_for = tuple(hidden)
        idx = self.neuron_combo.findData(list(chosen)) if chosen is not None else 0
        self.neuron_combo.setCurrentIndex(max(0, idx))

    @property
    def phi_curve(self) -> pg.PlotDataItem:
        """φ of the activation shown (the first layer's when they differ)."""
        return self.activation_curves[0]

    @property
    def dphi_curve(self) -> pg.PlotDataItem:
        """φ′ when one activation is shown (else a second layer's φ)."""
        return self.activation_curves[1]

    def _show_activations(self, names) -> None:
        """One activation: φ and φ′; several (a layer each): each φ."""
        distinct = list(dict.fromkeys(names))
        if distinct == self._activations_shown:
            return  # as drawn (a new theme draws them again: apply_theme forgets them)
        self._activations_shown = distinct
        z = np.linspace(-4, 4, 401)
        curves = [(f"{get_activation(n).label}", get_activation(n).f(z)) for n in distinct]
        if len(distinct) == 1:
            a = get_activation(distinct[0])
            curves = [(f"{a.label} φ(z)", a.f(z)), ("derivative φ′(z)", a.df(z))]
        while len(self.activation_curves) < len(curves):
            self.activation_curves.append(self.activation_plot.plot())
        for k, curve in enumerate(self.activation_curves):
            if k < len(curves):
                curve.setData(z, curves[k][1])
                curve.setPen(self.theme.series_pen(k))
                curve.setVisible(True)
            else:
                curve.setVisible(False)
        # the key names the curves: a title over them took the height of a line more
        self.activation_key.set_entries(series_entry(k, name) for k, (name, _v) in enumerate(curves))

    def show_formula_error(self, text: str) -> None:
        """One line under f(x₁, x₂) saying what is wrong with the text typed (hidden
        when nothing is)."""
        self.formula_error.setText(text)
        self._data_form.setRowVisible(self.formula_error, bool(text))

    def show_data_error(self, text: str) -> None:
        self.data_error.setText(text)
        self.data_error.setStyleSheet(f"color: {self.theme.color('error_text').name()};" if text else "")

    def apply_theme(self) -> None:
        th = self.theme
        # set again with each theme and zoom: a style sheet set once kept the old size of type
        self.formula_error.setStyleSheet(f"color: {th.color('error_text').name()};")
        th.style_plot(self.activation_plot)
        for k, curve in enumerate(self.activation_curves):
            curve.setPen(th.series_pen(k))
        shown, self._activations_shown = self._activations_shown, None
        if shown:
            self._show_activations(shown)  # the title and the key in the theme's type
        # grow with the zoom, but slower, so the map keeps most of a projected screen
        grow = th.zoom ** 0.5
        self.setMinimumWidth(int(340 * grow))
        self.setMaximumWidth(int(420 * grow))
