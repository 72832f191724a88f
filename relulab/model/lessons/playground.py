"""What the Playground panel shows, as one immutable value: :class:`PlaygroundState`.

The state is made of parts, one per thing the panel shows (the data and how it was
made, the network and its architecture, the training settings and how far training
went, the curves so far, the view, the regions-against-depth study:
:mod:`relulab.model.lessons.playground_parts`, whose names this module re-exports);
each part has ``to_dict()`` and a ``from_dict()`` that checks every field, cheap
checks (sizes against the limits) before costly ones (converting long lists), so a
hostile file is refused at once. A state that ``from_dict`` accepts can always be
shown and trained: its numbers are finite and its sizes within the limits of the
parts.

Edits are methods that return a new state (``with_points``, ``with_hidden``,
``with_activation`` …); nothing here imports Qt.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from relulab.model.core.fields import Fields
from relulab.model.fitting.classify import REGRESSION_LOSSES, circles_lesson_setup
from relulab.model.lessons.playground_parts import (
    ARCHITECTURE_PRESETS,
    DEPTH_BUDGETS,
    DEPTH_MAX_SEEDS,
    DEPTHS,
    HISTORY_KEYS,
    HISTORY_LIMIT,
    LEARNING_RATES,
    MAX_CLASSES,
    MAX_COORDINATE,
    MAX_HIDDEN_LAYERS,
    MAX_POINTS,
    MAX_REGULARIZATION_RATE,
    MAX_SEED,
    MAX_STEPS_PER_PRESS,
    MAX_STOP_STEP,
    MAX_WEIGHT,
    MAX_WIDTH,
    MIN_CLASSES,
    REGULARIZATION_RATES,
    Architecture,
    DataSettings,
    DepthStudy,
    History,
    Points,
    TrainingSettings,
    View,
    classes_for,
    fits,
    fitted_activation,
    hidden_fits,
    hidden_space_choice,
    network_from_dict,
    outputs_for,
    shuffled_labels,
    suited,
)
from relulab.model.networks.mlp import MLP, ActivationSpec, same_network

__all__ = [
    "ARCHITECTURE_PRESETS",
    "DEPTHS",
    "DEPTH_BUDGETS",
    "DEPTH_MAX_SEEDS",
    "HISTORY_KEYS",
    "HISTORY_LIMIT",
    "LEARNING_RATES",
    "MAX_CLASSES",
    "MAX_COORDINATE",
    "MAX_HIDDEN_LAYERS",
    "MAX_POINTS",
    "MAX_REGULARIZATION_RATE",
    "MAX_SEED",
    "MAX_STEPS_PER_PRESS",
    "MAX_STOP_STEP",
    "MAX_WEIGHT",
    "MAX_WIDTH",
    "MIN_CLASSES",
    "REGULARIZATION_RATES",
    "Architecture",
    "DataSettings",
    "DepthStudy",
    "History",
    "PlaygroundState",
    "Points",
    "TrainingSettings",
    "View",
    "classes_for",
    "fits",
    "fitted_activation",
    "hidden_fits",
    "hidden_space_choice",
    "network_from_dict",
    "outputs_for",
    "same_network",
    "shuffled_labels",
    "suited",
]


# -- the whole state ----------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class PlaygroundState:
    """Everything the Playground shows. ``network`` and ``training.step`` are where
    training got to; ``initial`` the weights this run started from (Replay goes back to
    them); ``history`` the curves so far."""

    dataset: DataSettings = field(default_factory=DataSettings)
    points: Points = field(default_factory=lambda: DataSettings().points())
    architecture: Architecture = field(default_factory=Architecture)
    network: MLP = field(default_factory=lambda: Architecture().random_network())
    training: TrainingSettings = field(default_factory=TrainingSettings)
    history: History = field(default_factory=History)
    view: View = field(default_factory=View)
    depth: DepthStudy = field(default_factory=DepthStudy)
    # None (the default) is the network itself: __post_init__ puts it there, so once
    # built a state's initial is always a network.
    initial: MLP = None  # type: ignore[assignment]

    def __post_init__(self) -> None:
        if self.initial is None:
            object.__setattr__(self, "initial", self.network)
        arch = self.architecture
        for what, net in (("network", self.network), ("initial", self.initial)):
            if net.sizes != arch.sizes:
                raise ValueError(f"{what}: sizes {net.sizes} do not match the architecture "
                                 f"{arch.sizes}")
            if net.activation != arch.activation:
                raise ValueError(f"{what}.activation: differs from architecture.activation")
        if arch.classes != self.dataset.classes:
            raise ValueError(f"architecture.outputs: {arch.outputs} output(s) do not tell "
                             f"{self.dataset.classes} classes apart")
        if len(self.points) and self.points.classes_needed > self.dataset.classes:
            i = int(np.argmax(self.points.label >= self.dataset.classes))
            raise ValueError(f"points.label[{i}]: {self.points.label[i]:g} is not a class of "
                             f"{self.dataset.classes}-class data")
        if not fits(self.view.neuron, arch):
            raise ValueError(f"view.neuron: no neuron {self.view.neuron} in this architecture")
        if not hidden_fits(self.view.hidden_space, arch):
            raise ValueError("view.hidden_space: no such neurons in this architecture")
        if self.view.click_class >= self.dataset.classes:
            raise ValueError(f"view.click_class: {self.view.click_class} is not a class of "
                             f"{self.dataset.classes}-class data")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PlaygroundState):
            return NotImplemented
        return (self.dataset == other.dataset and self.points == other.points
                and self.architecture == other.architecture
                and same_network(self.network, other.network)
                and same_network(self.initial, other.initial) and self.training == other.training
                and self.history == other.history and self.view == other.view
                and self.depth == other.depth)

    __hash__ = None  # type: ignore[assignment]

    def to_dict(self) -> dict:
        return {"dataset": self.dataset.to_dict(), "points": self.points.to_dict(),
                "architecture": self.architecture.to_dict(),
                "network": self.network.to_dict(),
                "initial": self.initial.to_dict(), "training": self.training.to_dict(),
                "history": self.history.to_dict(), "view": self.view.to_dict(),
                "depth": self.depth.to_dict()}

    @classmethod
    def from_dict(cls, d: Any) -> PlaygroundState:
        """Validate everything first; a ValueError names the field that is wrong. The
        architecture is read before the network and the points' count before the
        points, so an oversized file is refused before anything large is converted.
        A file without ``initial`` (written before Replay) replays from its network."""
        f = Fields(d, where="playground")

        def part(key: str, read: Callable[..., Any], *args: Any) -> Any:  # missing: the default
            return read(f.get(key), *args) if key in d else read({}, *args)

        dataset = part("dataset", DataSettings.from_dict)
        architecture = Architecture.from_dict(f.get("architecture"))
        network = network_from_dict(f.get("network"), architecture)
        initial = (network_from_dict(f.get("initial"), architecture, "initial")
                   if "initial" in d else network)
        training = part("training", TrainingSettings.from_dict)
        if (training.loss in REGRESSION_LOSSES) != dataset.regress:
            raise ValueError(f"training.loss: {training.loss!r} does not suit the "
                             f"{dataset.spec.label} dataset (its loss: {dataset.spec.loss!r})")
        out = cls(dataset=dataset, points=Points.from_dict(f.get("points"), dataset.regress),
                  architecture=architecture, network=network, training=training,
                  history=part("history", History.from_dict),
                  view=part("view", View.from_dict, architecture),
                  depth=part("depth", DepthStudy.from_dict), initial=initial)
        f.done()
        return out

    # -- what training sees ------------------------------------------------------------
    @property
    def classes(self) -> int:
        return self.dataset.classes

    def training_points(self) -> tuple[np.ndarray, np.ndarray]:
        """The points training fits and their labels: the training points' own, or with
        random labels, the same labels shuffled among them (the test points keep theirs)."""
        X, y = self.points.train()
        if self.dataset.random_labels:
            y = shuffled_labels(y, self.dataset.seed)
        return X, y

    # -- edits: each returns a new state --------------------------------------------
    def with_data(self, dataset: DataSettings) -> PlaygroundState:
        """New settings for the data, and the points they make; another number of
        classes gives the network as many outputs (new initial weights, curves cleared)."""
        points = dataset.points()
        training = suited(self.training, dataset)
        if dataset.classes != self.architecture.classes or training != self.training:
            arch = replace(self.architecture, outputs=outputs_for(dataset.classes))
            out = replace(self, training=training)
            return out._restarted(arch, arch.random_network(), dataset=dataset, points=points)
        return replace(self, dataset=dataset, points=points)

    def with_classes(self, classes: int) -> PlaygroundState:
        """The same dataset in ``classes`` classes (where it makes them: not XOR or a
        boundary), a network with as many outputs."""
        spec = self.dataset.spec
        if classes > spec.max_classes:
            raise ValueError(f"the {spec.label} dataset has two classes; circles, spirals, "
                             f"Gaussian blobs and the checkerboard make up to {MAX_CLASSES}")
        n = min(self.dataset.n_per_class, MAX_POINTS // int(classes))  # within the limit
        return self.with_data(replace(self.dataset, classes=int(classes), n_per_class=n))

    def with_random_labels(self, on: bool) -> PlaygroundState:
        """Shuffle the training labels (or stop): the weights go back to the start of
        this run, since what they learnt was for other labels."""
        return replace(self.replayed(), dataset=replace(self.dataset, random_labels=bool(on)))

    def regenerated(self) -> PlaygroundState:
        """The same dataset from the next seed."""
        return self.with_data(replace(self.dataset, seed=self.dataset.seed + 1))

    def with_points(self, points: Points) -> PlaygroundState:
        """Other points (added, removed, loaded); labels beyond the classes there are
        add classes, and outputs to the network (new initial weights)."""
        needed = points.classes_needed if len(points) else MIN_CLASSES
        if needed > self.dataset.classes:
            arch = replace(self.architecture, outputs=outputs_for(needed))
            return self._restarted(arch, arch.random_network(), points=points,
                                   dataset=replace(self.dataset, classes=needed))
        return replace(self, points=points)

    def _restarted(self, architecture: Architecture, network: MLP,
                   **changes: Any) -> PlaygroundState:
        """A new run of ``network``: step 0, curves cleared, the view fitted to it, and
        ``changes`` to other parts made in the same step."""
        return replace(self, architecture=architecture, network=network, initial=network,
                       training=replace(self.training, step=0), history=History(),
                       view=self.view.fitted(architecture), **changes)

    def with_hidden(self, hidden: Sequence[int]) -> PlaygroundState:
        """Other hidden layer sizes: new initial weights from the seed, curves cleared."""
        arch = self.architecture.with_hidden(hidden)
        return self._restarted(arch, arch.random_network())

    def with_features(self, names: Sequence[str]) -> PlaygroundState:
        """Other feature inputs (at least one): the first layer takes one input each, new
        initial weights from the seed, curves cleared."""
        arch = replace(self.architecture, features=tuple(names))
        return self._restarted(arch, arch.random_network())

    def with_fresh_weights(self, seed: int | None = None) -> PlaygroundState:
        """New initial weights from the weights seed (or ``seed``); curves cleared."""
        arch = self.architecture if seed is None else replace(self.architecture, init_seed=int(seed))
        return self._restarted(arch, arch.random_network())

    def replayed(self) -> PlaygroundState:
        """Back to the weights this run started from, step 0, curves cleared; the
        settings stay, so a run with other settings compares with the last one."""
        return replace(self, network=self.initial, training=replace(self.training, step=0),
                       history=History())

    def with_activation(self, name: ActivationSpec) -> PlaygroundState:
        """The same weights with another activation (one name, or one per hidden
        layer); the curves start again."""
        arch = replace(self.architecture, activation=name if isinstance(name, str) else tuple(name))
        return self._restarted(arch, self.network.with_activation(arch.activation))

    def with_layer_activation(self, layer: int, name: str) -> PlaygroundState:
        """Hidden layer ``layer`` (from 1) with activation ``name``, the others as they are."""
        acts = list(self.architecture.activations)
        if not 1 <= layer <= len(acts):
            raise ValueError(f"the network has {len(acts)} hidden layer(s); no layer {layer}")
        acts[layer - 1] = name
        return self.with_activation(acts)

    def with_network(self, net: MLP, features: Sequence[str] | None = None) -> PlaygroundState:
        """A network from elsewhere (1 output or one per class up to MAX_CLASSES, within
        the limits) taking the ``features`` (x₁, x₂ when None: a file that records none),
        one input each."""
        names = ("x1", "x2") if features is None else tuple(features)
        if net.n_in != len(names) or not 1 <= net.n_out <= MAX_CLASSES:
            inputs = "" if features is None else f" ({', '.join(names)})"
            raise ValueError(f"the playground needs {len(names)} inputs{inputs} and 1 to "
                             f"{MAX_CLASSES} outputs; that network is {'-'.join(map(str, net.sizes))}")
        if not net.is_finite():
            raise ValueError("that network's weights are not all finite")
        largest = max(float(np.abs(a).max(initial=0.0)) for layer in net.layers for a in layer)
        if largest > MAX_WEIGHT:
            raise ValueError(f"that network has a weight of {largest:.3g}; the playground takes "
                             f"weights up to {MAX_WEIGHT:g}")
        classes = classes_for(net.n_out)
        if len(self.points) and self.points.classes_needed > classes:
            raise ValueError(f"that network tells {classes} classes apart; the points have "
                             f"{self.points.classes_needed}")
        arch = replace(self.architecture, hidden=tuple(net.hidden_sizes), activation=net.activation,
                       outputs=net.n_out, features=names)
        return self._restarted(arch, net, dataset=replace(self.dataset, classes=classes))

    def with_training(self, **changes: Any) -> PlaygroundState:
        return replace(self, training=replace(self.training, **changes))

    def with_view(self, **changes: Any) -> PlaygroundState:
        return replace(self, view=replace(self.view, **changes))

    def with_depth(self, **changes: Any) -> PlaygroundState:
        return replace(self, depth=replace(self.depth, **changes))

    def with_progress(self, network: MLP, step: int, history: History) -> PlaygroundState:
        """Where training got to (the network's sizes do not change while it trains)."""
        return replace(self, network=network, training=replace(self.training, step=int(step)),
                       history=history)

    def lesson(self, seed: int) -> PlaygroundState:
        """The circles lesson exactly: the circles and the 2-6-1 weights from one default_rng(seed),
        full-batch gradient descent at 0.5 on cross-entropy, stopping at 2000 steps."""
        X, y, net = circles_lesson_setup(seed, 6)
        data = replace(self.dataset, name="circles", seed=int(seed), noise=0.12, n_per_class=90,
                       test_fraction=0.0, classes=2, random_labels=False)
        out = self._restarted(replace(self.architecture, hidden=(6,), activation="relu", outputs=1),
                              net, dataset=data, points=Points(X, y, np.zeros(len(y), bool)))
        return out.with_training(optimizer="gd", learning_rate=0.5, loss="cross_entropy",
                                 batch_size=0, max_steps=2000)

    def keeping_settings_of(self, current: PlaygroundState, training: bool = True) -> PlaygroundState:
        """This state with the view, the depth study (and unless ``training`` is False,
        the training settings) of ``current``: undoing an edit of the data or the network
        keeps how the user trains and looks at it now, and a study counting meanwhile."""
        view = replace(current.view, neuron=self.view.neuron,
                       hidden_space=self.view.hidden_space).fitted(self.architecture)
        out = replace(self, view=view, depth=current.depth)
        if training:
            out = replace(out, training=suited(replace(current.training, step=self.training.step),
                                               self.dataset))
        return out
