"""The Playground panel: classify points in the plane, two classes or up to six, with
any small network.

Left, Play, Step, Reset and Replay, the controls in tabs (data, network, training,
view), and under them the readouts and what the map or a neuron computes under the
mouse. Right, the data map (the network's picture, its boundary, the points, and for
ReLU networks the exact linear regions and the decision boundary from their maps);
beside it, in tabs, the network diagram (weights, output biases, each neuron's map),
the hidden space (the points as a hidden layer sees them) or the regions-against-depth
study; and below, the loss and accuracy curves. How each asks for room, so that every
plot keeps its height on a laptop and on a projector at zoom 1.6, is in ``sizing``.
This module builds the panel from them and wires them to the state, a
:class:`~relulab.model.lessons.playground.PlaygroundState`: every edit makes a new state
and pushes one undo step (``edits``); the shared training driver plays the classifier's
trainer (``training``); workers picture large networks (``picture``) and find their
exact regions (``overlay``), running the Qt-free ``jobs``.
"""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import (
    QHBoxLayout,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from relulab.model.fitting.classify import DEFAULT_BOX, Trainer
from relulab.model.lessons.playground import (
    History,
    PlaygroundState,
    Points,
    fits,
    hidden_space_choice,
)
from relulab.model.networks.mlp import MLP
from relulab.model.regions.engine import start_warm_up
from relulab.ui.driver import TrainingDriver
from relulab.ui.panels.base import Key, Panel, named
from relulab.ui.panels.playground.controls import PlaygroundControls
from relulab.ui.panels.playground.curves import TrainingCurves
from relulab.ui.panels.playground.data_map import DataMap, class_palette, key_entries
from relulab.ui.panels.playground.depth_study import DepthStudyView
from relulab.ui.panels.playground.diagram import HOVER_HINT, NetworkDiagram
from relulab.ui.panels.playground.edits import PlaygroundEdits
from relulab.ui.panels.playground.features_view import NOT_SENT, PlaygroundFeatures
from relulab.ui.panels.playground.hidden_view import HiddenSpaceView
from relulab.ui.panels.playground.jobs import MapPicture, identity_note, regions_network
from relulab.ui.panels.playground.network_files import PlaygroundNetworkFiles
from relulab.ui.panels.playground.overlay import RegionOverlay
from relulab.ui.panels.playground.picture import PicturePacer
from relulab.ui.panels.playground.readouts import Readouts
from relulab.ui.panels.playground.sizing import WholeKey, WholeReadout, size_to_current_page
from relulab.ui.panels.playground.training import PlaygroundTraining
from relulab.ui.worker import Worker

#: The column beside the map holds at least this many characters a line.
SIDE_CHARACTERS = 44


class PlaygroundPanel(PlaygroundEdits, PlaygroundTraining, PlaygroundFeatures,
                      PlaygroundNetworkFiles, Panel):
    name = "playground"
    title = "Playground"
    state_class = PlaygroundState
    KEYS = (
        Key("Space", "play or pause training", "toggle_play", name="play"),
        Key("N", "train the steps of one Step", "step_once", name="step"),
        Key("R", "reset: new initial weights from the seed", "reset_weights", name="reset"),
        Key("G", "new data from the next seed", "regenerate", name="regenerate"),
    )
    primary_controls = ("playground-play", "playground-step", "playground-reset")
    # on a projector the map needs the height: the caption says what the key and the
    # hover hint would, and the curves are left to it too
    lecture_hidden = ("playground-curves", "playground-key", "playground-neuron-info")

    def __init__(self, host=None, parent=None):
        super().__init__(host, parent)
        self.box = DEFAULT_BOX
        self._state = PlaygroundState()
        self.trainer: Trainer | None = None
        self._history = History()
        self._hover_point: tuple[float, float] | None = None
        self._previous: History | None = None  # the run before a Replay, drawn dashed
        self.driver = TrainingDriver(self, "playground", train=self._train_steps,
                                     steps_left=self._steps_left, frame=self._frame)
        self._picture_worker = Worker("playground-picture", self)
        self._palette = class_palette(self.theme)
        self.pictures = PicturePacer(self._picture_worker, self, self.box, self._show_picture,
                                     lambda: self._palette)
        self._regions_worker = Worker("playground-regions", self)
        self._plane_worker = Worker("playground-plane-count", self)
        start_warm_up()  # the region engine's compiled loops, off the GUI thread
        self._build()
        self._connect()
        self.apply_state(self._state)
        self.apply_theme()

    # -- construction ----------------------------------------------------------------
    def _build(self) -> None:
        clock = self.driver.add_paint_time
        self.controls = PlaygroundControls(self.theme)
        self.data_map = DataMap(clock, self.theme, self.box)
        self.diagram = NetworkDiagram(clock, self.theme, self.box)
        self.hidden_view = HiddenSpaceView(clock, self.theme)
        self.strip = Readouts(self.theme)
        self.curves = TrainingCurves(clock, self.theme)
        self.depth_study = DepthStudyView(self.theme, self.box)
        self.overlay = RegionOverlay(self.data_map, self.strip, self.box, self._regions_worker,
                                     self._plane_worker, self.finished.emit)
        self.side_tabs = named(QTabWidget(), "playground-side-tabs",
                               "Network diagram, hidden space or regions against depth")
        self.side_tabs.setDocumentMode(True)
        self.side_tabs.addTab(self.diagram, "Network")
        self.side_tabs.addTab(self.hidden_view, "Hidden space")
        self.side_tabs.addTab(self.depth_study, "Depth study")
        self.info_label = WholeReadout("playground-neuron-info", "The shown neuron's map",
                                       "neuron_info", text=HOVER_HINT, wrap=True,
                                       selectable=True)
        # The map takes the whole height of its column, its key under it; the tabs the
        # column beside it (the map is square: a strip across both columns took its
        # height and left width unused). The readouts and the
        # hover note sit under the controls, just left of the map: beside it they took
        # the height the diagram and the hidden space need at zoom 1.6. In the lecture
        # layout, where the controls are hidden, the readouts come under the diagram
        # (set_lecture_layout; the hover note is hidden there).
        self.side_column = QVBoxLayout()
        self.side_column.setContentsMargins(0, 0, 0, 0)
        self.side_column.addWidget(self.side_tabs, 1)
        self.side = QWidget()
        self.side.setLayout(self.side_column)
        upper = QWidget()
        top = QHBoxLayout(upper)
        top.setContentsMargins(0, 0, 0, 0)
        left = QVBoxLayout()
        left.addWidget(self.data_map, 1)
        self.key = WholeKey("playground-key", "What the colours and markers of the map mean",
                            tip="Filled markers train the network, hollow ones test it; the "
                                "thick line is the decision boundary, the thin lines the linear "
                                "regions; the stronger the shading, the surer the network.")
        left.addWidget(self.key, 0)
        top.addLayout(left, 3)
        top.addWidget(self.side, 2)
        # the column's width first, then the page's height at that width
        self.side_tabs.currentChanged.connect(lambda _i: self._fit_side())
        size_to_current_page(self.side_tabs)
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        named(self.splitter, "playground-splitter", "Map and the network above, curves below")
        self.splitter.setChildrenCollapsible(False)
        self.splitter.addWidget(upper)
        self.splitter.addWidget(self.curves)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 1)
        self.control_column = QVBoxLayout()
        self.control_column.addWidget(self.controls, 1)
        self.control_column.addWidget(self.strip, 0)
        self.control_column.addWidget(self.info_label, 0)
        outer = QHBoxLayout(self)
        outer.setContentsMargins(4, 4, 4, 4)
        outer.addLayout(self.control_column, 0)
        outer.addWidget(self.splitter, 1)
        self.make_keys()

    def _connect(self) -> None:
        """Every view → state connection, in one place."""
        c = self.controls
        c.dataset_combo.currentIndexChanged.connect(self._on_data_setting)
        for w in (c.noise_spin, c.points_spin, c.test_spin, c.data_seed_spin):
            w.valueChanged.connect(self._on_data_setting)
        c.classes_spin.valueChanged.connect(self.set_classes)
        c.boundary_edit.editingFinished.connect(self._on_boundary_edited)
        c.formula_edit.editingFinished.connect(self._on_formula_edited)
        c.random_labels_check.toggled.connect(self.set_random_labels)
        c.click_class_combo.currentIndexChanged.connect(self._on_click_class)
        c.regenerate_button.clicked.connect(self.regenerate)
        c.load_button.clicked.connect(self._load_csv_dialog)
        c.save_button.clicked.connect(self._save_csv_dialog)
        c.preset_combo.activated.connect(self._on_preset)
        c.add_layer_button.clicked.connect(self.add_layer)
        c.remove_layer_button.clicked.connect(self.remove_layer)
        c.layer_width_changed.connect(self.set_layer_width)
        c.layer_activation_changed.connect(self.set_layer_activation)
        c.activation_combo.currentIndexChanged.connect(
            lambda _i: self.set_activation(c.activation_combo.currentData()))
        c.init_seed_spin.valueChanged.connect(lambda v: self.reset_weights(seed=v))
        for w in (c.optimizer_combo, c.loss_combo, c.speed_combo, *c.penalty.widgets):
            w.currentIndexChanged.connect(self._on_training_setting)
        for w in (c.lr_spin, c.batch_spin, c.press_spin, c.max_steps_spin):
            w.valueChanged.connect(self._on_training_setting)
        c.play_button.toggled.connect(self._set_playing)
        c.step_button.clicked.connect(self.step_once)
        c.reset_button.clicked.connect(lambda: self.reset_weights())
        c.replay_button.clicked.connect(self.replay)
        c.lesson_button.clicked.connect(self.lesson_setup)
        c.regions_check.toggled.connect(self._on_show_regions)
        c.thumbnails_check.toggled.connect(self._on_thumbnails)
        for box in c.features.checks.values():
            box.toggled.connect(self._on_feature_toggled)
        c.toggles.test_check.toggled.connect(self._on_show_test)
        c.toggles.discrete_check.toggled.connect(self._on_discretize)
        c.toggles.space_check.toggled.connect(self._on_feature_space)
        c.send_button.clicked.connect(self.send_network)
        c.export_button.clicked.connect(self._export_network_dialog)
        c.open_button.clicked.connect(self._open_network_dialog)
        c.neuron_combo.currentIndexChanged.connect(self._on_neuron_selected)
        self.data_map.add_requested.connect(self._on_add_requested)
        self.data_map.remove_requested.connect(self.remove_point)
        self.data_map.add_refused.connect(self._on_add_refused)
        self.data_map.hovered.connect(self._on_map_hover)
        self.diagram.hovered.connect(self._on_neuron_hover)
        self.diagram.clicked.connect(self._on_neuron_clicked)
        self.diagram.thumbnails_changed.connect(self._show_thumbnails_check)
        self.hidden_view.choice_changed.connect(self._on_hidden_choice)
        self.side_tabs.currentChanged.connect(lambda _i: self._draw_side(self.net, True))
        self.depth_study.study_changed.connect(self._on_study_changed)
        self.driver.playing_changed.connect(self._on_playing_changed)
        self.driver.finished.connect(self._on_finished)
        self.driver.settled.connect(lambda: self.finished.emit("training"))
        self._regions_worker.finished.connect(self._on_regions)
        self._regions_worker.failed.connect(self.overlay.show_failure)
        self._plane_worker.finished.connect(self.overlay.show_plane_count)
        self._plane_worker.failed.connect(self.overlay.show_plane_failure)
        self.depth_study.worker.idle.connect(lambda: self.finished.emit("depth_study"))

    def set_lecture_layout(self, on: bool) -> None:
        """The readouts go beside the map, under the diagram, while the controls they
        sit under are hidden; and the depth study, an experiment with controls of its own
        that no scene shows, is hidden with them (on a projector at zoom 1.6, under a
        caption, its plot had no room)."""
        super().set_lecture_layout(on)
        depth = self.side_tabs.indexOf(self.depth_study)
        if on and self.side_tabs.currentIndex() == depth:
            self.side_tabs.setCurrentIndex(0)
        self.side_tabs.setTabVisible(depth, not on)
        if on:
            self.side_column.addWidget(self.strip, 0)
        else:
            self.control_column.insertWidget(1, self.strip, 0)
        self.strip.show()  # a widget moved to another parent is hidden until shown again

    # -- state -------------------------------------------------------------------------
    @property
    def state(self) -> PlaygroundState:
        """The state on screen, with the network, step and curves training reached."""
        return self._state.with_progress(self.trainer.net, self.trainer.step, self._history)

    def state_dict(self) -> dict:
        return self.state.to_dict()

    @property
    def net(self) -> MLP:
        return self.trainer.net

    @property
    def points(self) -> Points:
        return self._state.points

    @property
    def history(self) -> History:
        return self._history

    def apply_state(self, state: PlaygroundState) -> None:
        """Make ``state`` the panel's state and redraw everything."""
        self._state = state
        self._history = state.history
        (X, y), (Xt, yt) = state.training_points(), state.points.held_out()
        features = state.architecture.feature_map
        self.trainer = Trainer(state.network, X, y, Xt, yt, state.training.config(),
                               step=state.training.step,
                               features=None if features.is_identity else features)
        self._show_inputs(state)
        self.driver.restart()
        self.driver.set_speed(state.training.steps_per_second)
        self.controls.show_state(state)
        self._show_key(state.classes, state.dataset.regress)
        self.data_map.set_regress(state.dataset.regress)
        self.curves.set_regress(state.dataset.regress)
        self.diagram.set_thumbnails(state.view.thumbnails)
        self._show_thumbnails_check(self.diagram.thumbnails)
        self.data_map.set_show_test(state.view.show_test)
        self.pictures.discrete = state.view.discretize
        self.hidden_view.show_choice(state.architecture.hidden,
                                     hidden_space_choice(state.view, state.architecture))
        if state.depth != self.depth_study.study:
            self.depth_study.show_study(state.depth)
        self.overlay.forget()
        self.strip.message("")
        self.redraw()

    def _show_key(self, classes: int, regress: bool = False) -> None:
        entries = key_entries(classes, regress)
        if [e.text for e in entries] != [e.text for e in self.key.entries]:
            self.key.set_entries(entries)

    # -- view settings (not undo steps) ---------------------------------------------------
    def _on_show_regions(self, on: bool) -> None:
        self._state = self._state.with_view(show_regions=bool(on))
        self._draw_regions(self.drawn_network(self.net), final=not self.is_playing())

    def _on_thumbnails(self, on: bool) -> None:
        """The neurons' maps asked for (or not): no longer as they fit."""
        self._state = self._state.with_view(thumbnails=bool(on))
        self.diagram.set_thumbnails(bool(on))

    def _show_thumbnails_check(self, on: bool) -> None:
        """The toggle shows whether the maps are drawn, also when the diagram chose."""
        check = self.controls.thumbnails_check
        check.blockSignals(True)
        check.setChecked(bool(on))
        check.blockSignals(False)

    def _on_hidden_choice(self, choice) -> None:
        self._state = self._state.with_view(hidden_space=tuple(choice))
        self.hidden_view.show_choice(self._state.architecture.hidden, tuple(choice))
        self._draw_side(self.net, True)

    def _on_study_changed(self, study) -> None:
        self._state = replace(self._state, depth=study)

    def _on_neuron_selected(self, _index: int) -> None:
        data = self.controls.neuron_combo.currentData()
        self._state = self._state.with_view(neuron=tuple(data) if data is not None else None)
        self._draw_picture(self.drawn_network(self.net))

    # -- drawing -------------------------------------------------------------------------
    def redraw(self, points: bool = True) -> None:
        """Everything, after an edit: the first pieces now, the rest in the next ticks
        when a large network makes the frame costly. Points change only with edits."""
        if points:
            p = self._state.points
            self.data_map.show_points(Points(self.map_points(p.x), self._shown_labels(), p.test))
        self.driver.show(self._frame(final=not self.is_playing()))

    def _draw_map(self, net: MLP, final: bool) -> None:
        self._draw_picture(net)
        self._draw_regions(net, final)
        self._show_hover(net)

    def _draw_numbers(self, snap) -> None:
        self.curves.show_history(self._history)
        self._draw_status(snap)
        if self.sampled:
            self.strip.collapse_label.setVisible(False)
        else:
            self.strip.show_collapse(self.drawn_network(snap.net), self.points.x, self.box)

    def _draw_side(self, net: MLP, final: bool) -> None:
        """The diagram, or the hidden space: whichever tab is in sight (the depth study
        draws no network)."""
        if self.side_tabs.currentWidget() is self.depth_study:
            return
        if self.side_tabs.currentWidget() is self.hidden_view:
            s = self._state
            features = s.architecture.feature_map
            self.hidden_view.show_space(net, s.points, self._shown_labels(),
                                        hidden_space_choice(s.view, s.architecture),
                                        check=final and not self.is_playing(),
                                        features=None if features.is_identity else features)
        else:
            self.diagram.show_network(net)

    def _shown_labels(self):
        """The labels the points are drawn with: training points with the labels training
        sees (shuffled, with random labels), test points with their own."""
        p = self._state.points
        labels = p.label.copy()
        if self._state.dataset.random_labels:
            labels[~p.test] = self.trainer.y
        if p.real:  # a target's sign picks its colour, as the map's
            labels = (labels > 0).astype(float)
        return labels

    def _draw_status(self, snap) -> None:
        self.strip.show_status(snap, self.trainer.config, len(self.trainer.y),
                                  len(self.trainer.y_test))

    def shown_neuron(self) -> tuple[int, int] | None:
        """The hovered neuron, else the chosen one, else None (the output)."""
        hover = self.diagram.hover
        if hover is not None and fits(hover, self._state.architecture):
            return hover
        return self._state.view.neuron

    def _draw_picture(self, net: MLP) -> None:
        self.pictures.draw(net, self.shown_neuron(), self.is_playing())

    def _show_picture(self, picture: MapPicture) -> None:
        # the exact boundary of the network on screen stays; the grid's is drawn otherwise
        self.data_map.show_picture(picture, boundary=not self.overlay.boundary_is_exact(picture))
        if self._hover_point is None:
            self.info_label.setText(picture.text or HOVER_HINT)

    def _on_neuron_clicked(self, neuron) -> None:
        """A click on a hidden neuron shows its map (a second click, the output's)."""
        combo = self.controls.neuron_combo
        chosen = None if self._state.view.neuron == tuple(neuron) else list(neuron)
        combo.setCurrentIndex(max(0, combo.findData(chosen)) if chosen is not None else 0)

    def _on_neuron_hover(self, _neuron) -> None:
        self._draw_picture(self.drawn_network(self.net))
        if self._hover_point is not None:
            self._on_map_hover(self._hover_point)

    def _on_map_hover(self, point) -> None:
        """Under the cursor: the affine map of the output (or of the neuron shown) on the
        activation region there."""
        self._hover_point = point
        if point is None:
            picture = self.data_map.picture
            self.info_label.setText((picture.text if picture is not None else "") or HOVER_HINT)
            return
        self._show_hover(self.drawn_network(self.net))

    def _on_regions(self, result) -> None:
        self.overlay.show_found(result, self.drawn_network(self.net), self._state.view.show_regions,
                                self.is_playing())

    # -- other panels ------------------------------------------------------------------
    def send_network(self) -> bool:
        """The network to Deep → shallow as a ReLU network computing exactly the same
        function (identity layers merged where the products are doubles, written as
        ReLU pairs otherwise: a merge rounded in doubles would be another network)."""
        if self.sampled:
            self.strip.message(NOT_SENT, error=True)
            return False
        net = self.drawn_network(self.net)
        flat = regions_network(net)
        if flat is None:
            self.strip.message("The converter takes ReLU networks (identity layers are "
                                  "rewritten) with at least one ReLU layer.", error=True)
            return False
        if flat is not net:
            note = identity_note(net, paired="written as ReLU pairs")
            self.show_status(f"{note[0].upper()}{note[1:]}: the converter gets exactly the "
                             f"same function as {'-'.join(map(str, flat.sizes))}")
        return self.send_to("converter", "network", flat)

    # -- depth study ----------------------------------------------------------------------
    def run_depth_experiment(self) -> None:
        """Count the exact regions of random networks of one budget, 1 to 4 hidden layers,
        on a worker (results arrive one network at a time)."""
        self.depth_study.run()

    def depth_running(self) -> bool:
        return self.depth_study.running

    # -- panel hooks ------------------------------------------------------------------------
    def readouts(self) -> dict:
        """The readouts, and what the status shows in numbers: ``step``,
        ``train_accuracy``, ``test_accuracy`` (fractions, 0 … 1), ``train_loss`` and
        ``test_loss`` (NaN where there is nothing to measure, e.g. no test points);
        ``feature_pieces``, the exact number of linear pieces in feature space over the
        data's feature box (None unless counted), and ``feature_space``, whether the
        map shows it."""
        values = super().readouts() | {"feature_pieces": self.feature_pieces,
                                       "feature_space": self.in_feature_space}
        snap = self.strip.shown
        if snap is not None:
            values.update(step=int(snap.step), train_accuracy=float(snap.train_accuracy),
                          test_accuracy=float(snap.test_accuracy),
                          train_loss=float(snap.train_loss), test_loss=float(snap.test_loss))
        return values

    def plots(self) -> dict:
        return {"map": self.data_map, "loss": self.curves.loss_plot,
                "accuracy": self.curves.accuracy_plot, "network": self.diagram.plot,
                "hidden space": self.hidden_view.plot,
                "activation": self.controls.activation_plot,
                "regions against depth": self.depth_study.plot}

    def data_tables(self) -> dict:
        p, h = self.points, self._history
        tables = {
            "points": (["x1", "x2", "label", "set"],
                       [[float(a), float(b), int(c), "test" if t else "train"]
                        for (a, b), c, t in zip(p.x, p.label, p.test)]),
            "training": (["step", "train loss", "test loss", "train accuracy", "test accuracy"],
                         [list(map(float, r)) for r in zip(h.step, h.train_loss, h.test_loss,
                                                           h.train_accuracy, h.test_accuracy)]),
        }
        samples = self._state.depth.samples
        if samples:
            tables["regions against depth"] = (
                ["hidden layers", "sizes", "parameters", "seed", "regions"],
                [[s.depth, "-".join(map(str, s.sizes)), s.params, s.seed, s.regions] for s in samples])
        return tables | self.overlay.tables()

    def apply_theme(self) -> None:
        self._palette = class_palette(self.theme)
        for part in (self.controls, self.data_map, self.diagram, self.hidden_view, self.curves,
                     self.depth_study):
            part.apply_theme()
        grow = self.theme.zoom ** 0.5
        # the map is as wide as it is tall (see DataMap.resizeEvent); the diagram, the
        # hidden space and the depth study take what is left, up to a width where they
        # still read as one
        self.side.setMaximumWidth(int(520 * grow))
        self._fit_side()
        if self.trainer is not None:
            self.redraw()

    def _fit_side(self) -> None:
        """The column beside the map shows its tabs whole, and for the hidden space at
        least SIDE_CHARACTERS of text a line: narrower, the note took the plot's height
        at zoom 1.6. The diagram and the depth study leave the map that width."""
        least = self.side_tabs.tabBar().sizeHint().width()
        if self.side_tabs.currentWidget() is self.hidden_view:
            least = max(least, QFontMetrics(self.theme.font()).averageCharWidth() * SIDE_CHARACTERS)
        self.side.setMinimumWidth(min(least, self.side.maximumWidth()))

    def shutdown(self) -> None:
        self.driver.shutdown()
        self.pictures.stop()
        for worker in (self._picture_worker, self._regions_worker, self._plane_worker):
            worker.shutdown()
        self.depth_study.shutdown()
        super().shutdown()

