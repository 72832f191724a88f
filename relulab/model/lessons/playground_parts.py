"""The parts of the Playground's state, one per thing the panel shows: the data and how
it was made (:class:`DataSettings`, :class:`Points`), the network's
:class:`Architecture`, the :class:`TrainingSettings` and how far training went, the
curves so far (:class:`History`), the :class:`View` and the regions-against-depth
study (:class:`DepthStudy`), and the limits they are checked against.

Each part has ``to_dict()`` and a ``from_dict()`` that checks every field, cheap checks
(sizes against the limits) before costly ones (converting long lists), so a hostile
file is refused at once. :mod:`relulab.model.lessons.playground` puts them together
into the whole state (and re-exports them); nothing here imports Qt.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from relulab.model.core.arrays import readonly
from relulab.model.core.fields import Fields
from relulab.model.data.datasets import (
    CLASSIFICATION_DATASETS,
    DATASETS,
    DEFAULT_BOUNDARY,
    DEFAULT_FORMULA,
    MAX_CLASSES,
    REGRESSION_DATASETS,
    DatasetSpec,
    make_dataset,
    parse_formula,
    regression_target,
    test_mask,
)
from relulab.model.data.expression import MAX_LENGTH as MAX_EXPRESSION
from relulab.model.data.expression import parse_expression
from relulab.model.fitting.classify import (
    LOSSES,
    OPTIMIZERS,
    REGRESSION_LOSSES,
    REGULARIZATIONS,
    TrainConfig,
)
from relulab.model.fitting.features import FeatureMap
from relulab.model.fitting.training import SPEED_LABELS_READ, SPEEDS, speed_label
from relulab.model.networks.mlp import MLP, activation_field, normalise_activation
from relulab.model.regions.depth import DepthSample, parameter_count

#: The limits of what the panel trains and draws, stated once. Every training step
#: runs over all the points, and a frame draws a 200 × 200 map of the network: at 4000
#: points and 6 hidden layers of 32 neurons, with the costliest activation, one step
#: and one piece of a frame each fit the event loop's 50 ms (benchmarks/bench_playground.py).
MAX_HIDDEN_LAYERS = 6
MAX_WIDTH = 32
MAX_POINTS = 4000
#: The largest weight penalty rate a file may ask for (TensorFlow Playground's largest preset).
MAX_REGULARIZATION_RATE = 10.0
#: The weight penalty rates offered, TensorFlow Playground's list: steps of about √10.
REGULARIZATION_RATES = (0.0, 0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0)
#: The learning rates offered beside the free spin box, in the same steps.
LEARNING_RATES = (0.0001, 0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0)
#: Weights and biases beyond this size are refused: through six layers of 32 they stay
#: within float64, which the exact region enumeration and the pictures need.
MAX_WEIGHT = 1e12
#: Point coordinates beyond this size are refused (a file could not be read back).
MAX_COORDINATE = 1e12
#: Two to six classes, labelled 0 … C−1. Two classes: the network has one output, a
#: logit (σ, and the the lesson's circles network); C ≥ 3: one output per class (softmax).
MIN_CLASSES = 2
#: The loss and accuracy curves keep at most this many moments (older ones are thinned).
HISTORY_LIMIT = 4000
MAX_STEPS_PER_PRESS = 500
MAX_STOP_STEP = 10 ** 7
MAX_SEED = 10 ** 9
DEPTH_BUDGETS = (10, 400)
DEPTH_MAX_SEEDS = 30
DEPTHS = (1, 2, 3, 4)

#: Architecture presets: label → hidden layer sizes.
ARCHITECTURE_PRESETS = {
    "2-6-1 (the circles lesson)": (6,),
    "2-8-8-8-1 (177 parameters)": (8, 8, 8),
    "2-16-16 (3-class spirals)": (16, 16),
    "2-3-1": (3,),
    "2-2-1 (XOR's hidden space)": (2,),
    "2-1 (no hidden layer)": (),
}


def outputs_for(classes: int) -> int:
    """The network's outputs for ``classes`` classes: one logit for two, one score each
    for more."""
    return 1 if classes == 2 else int(classes)


def classes_for(outputs: int) -> int:
    return 2 if outputs == 1 else int(outputs)


# -- the data ---------------------------------------------------------------------

@dataclass(frozen=True)
class DataSettings:
    """How the points were made: which dataset, its seed, noise, size and test share,
    the number of classes, the curve f of the boundary dataset (class 1 where
    x₂ > f(x₁)), whether the training labels are shuffled (random labels: the
    network can still fit them, and learns nothing that holds on the test points),
    and the typed regression problem's f(x₁, x₂) (``formula``)."""

    name: str = "circles"
    seed: int = 0
    noise: float = 0.12
    n_per_class: int = 90
    test_fraction: float = 0.3
    classes: int = 2
    expression: str = DEFAULT_BOUNDARY
    random_labels: bool = False
    formula: str = DEFAULT_FORMULA

    def __post_init__(self) -> None:
        if not MIN_CLASSES <= self.classes <= MAX_CLASSES:
            raise ValueError(f"dataset.classes: {self.classes} is outside {MIN_CLASSES}…{MAX_CLASSES}")

    def to_dict(self) -> dict:
        return {"name": self.name, "seed": self.seed, "noise": self.noise,
                "n_per_class": self.n_per_class, "test_fraction": self.test_fraction,
                "classes": self.classes, "expression": self.expression,
                "random_labels": self.random_labels
                } | _unless_default({"formula": self.formula}, {"formula": DEFAULT_FORMULA})

    @classmethod
    def from_dict(cls, d: Any) -> DataSettings:
        f = Fields(d, {**cls().to_dict(), "formula": DEFAULT_FORMULA}, "dataset")
        name = f.choice("name", [*CLASSIFICATION_DATASETS, *REGRESSION_DATASETS])
        seed = f.integer("seed", 0, MAX_SEED)
        noise = f.number("noise", 0.0, 10.0)
        classes = f.integer("classes", MIN_CLASSES, MAX_CLASSES)
        n = f.integer("n_per_class", 1, MAX_POINTS // classes)
        test = f.number("test_fraction", 0.0, 0.95)
        expression = f.text("expression", MAX_EXPRESSION)
        try:
            parse_expression(expression)
        except ValueError as e:
            raise ValueError(f"dataset.expression: {e}") from None
        formula = f.text("formula", MAX_EXPRESSION)
        try:
            parse_formula(formula)
        except ValueError as e:
            raise ValueError(f"dataset.formula: {e}") from None
        out = cls(name, seed, noise, n, test, classes, expression, f.flag("random_labels"),
                  formula)
        f.done()
        return out

    @property
    def spec(self) -> DatasetSpec:
        return DATASETS[self.name]

    @property
    def regress(self) -> bool:
        """True for a regression problem: the labels are real targets."""
        return self.spec.task == "regress"

    def switched_to(self, name: str) -> DataSettings:
        """Another dataset, with its own noise, size and test share where it has one (a
        dataset's defaults suit it), and at most as many classes as it makes."""
        if name == self.name:
            return self
        spec = DATASETS[name]
        test = self.test_fraction if spec.test_fraction is None else spec.test_fraction
        return replace(self, name=name, noise=spec.noise, n_per_class=spec.n_per_class,
                       test_fraction=test, classes=min(self.classes, spec.max_classes))

    def points(self) -> Points:
        """The points these settings make (the same settings, the same points)."""
        options = ({"expression": self.expression} if self.name == "boundary" else
                   {"formula": self.formula} if self.name == "regress_formula" else {})
        X, y = make_dataset(self.name, self.seed, self.n_per_class, self.noise, self.classes,
                            **options)
        return Points(X, y, test_mask(len(y), self.test_fraction, self.seed), self.regress)

    def target_at(self, x: float, y: float) -> float:
        """A regression problem's own function at (x, y), without noise (the typed f
        refused, an ExpressionError, where it is not finite)."""
        return float(regression_target(self.name, self.formula)([[x, y]])[0])


@dataclass(frozen=True, eq=False)
class Points:
    """The points in the plane: ``x`` (N, 2), ``label`` (N,) of classes 0.0, 1.0, …
    (``real``: any finite targets, a regression problem's), ``test`` (N,) True for
    points held out of training. Read-only arrays."""

    x: np.ndarray
    label: np.ndarray
    test: np.ndarray
    real: bool = False

    def __post_init__(self) -> None:
        x = np.array(self.x, dtype=float).reshape(-1, 2)
        label = np.array(self.label, dtype=float).reshape(-1)
        test = np.array(self.test, dtype=bool).reshape(-1)
        if not len(x) == len(label) == len(test):
            raise ValueError(f"points: {len(x)} positions, {len(label)} labels, {len(test)} test flags")
        if len(x) > MAX_POINTS:
            raise ValueError(f"points: at most {MAX_POINTS:,} points, got {len(x):,}")
        if not np.all(np.abs(x) <= MAX_COORDINATE):  # NaN fails this too
            raise ValueError(f"points.x: every coordinate must be a finite number of at most "
                             f"{MAX_COORDINATE:g} in size")
        if self.real:
            if not np.all(np.abs(label) <= MAX_COORDINATE):
                raise ValueError(f"points.label: targets must be finite numbers of at most "
                                 f"{MAX_COORDINATE:g} in size")
        elif not np.all(np.isin(label, np.arange(MAX_CLASSES))):
            raise ValueError(f"points.label: labels must be classes 0 to {MAX_CLASSES - 1}")
        object.__setattr__(self, "x", readonly(x))
        object.__setattr__(self, "label", readonly(label))
        object.__setattr__(self, "test", readonly(test))

    def __len__(self) -> int:
        return len(self.label)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Points) and np.array_equal(self.x, other.x)
                and np.array_equal(self.label, other.label) and np.array_equal(self.test, other.test))

    __hash__ = None  # type: ignore[assignment]

    def to_dict(self) -> dict:
        return {"x": self.x.tolist(), "label": self.label.tolist(), "test": self.test.tolist()}

    @classmethod
    def from_dict(cls, d: Any, real: bool = False) -> Points:
        """``real``: the labels are a regression problem's targets, not classes."""
        f = Fields(d, where="points")
        raw = f.get("x")
        if isinstance(raw, (list, tuple)) and len(raw) > MAX_POINTS:  # before reading them
            raise ValueError(f"points.x: at most {MAX_POINTS:,} points, got {len(raw):,}")
        x = f.array("x", (None, 2), 2 * MAX_POINTS, -MAX_COORDINATE, MAX_COORDINATE)
        label = f.array("label", (None,), MAX_POINTS, -MAX_COORDINATE, MAX_COORDINATE)
        bad = np.flatnonzero(~np.isin(label, np.arange(MAX_CLASSES)) & (not real))
        if bad.size:
            raise ValueError(f"points.label[{bad[0]}]: {label[bad[0]]:g} is not a class "
                             f"(0 to {MAX_CLASSES - 1})")
        test = f.get("test")
        if not isinstance(test, (list, tuple)) or len(test) > MAX_POINTS:
            raise ValueError(f"points.test: expected a list of at most {MAX_POINTS:,} true/false flags")
        for i, t in enumerate(test):
            if not isinstance(t, (bool, np.bool_)):
                raise ValueError(f"points.test[{i}]: expected true or false, got {t!r}")
        f.done()
        if not len(x) == len(label) == len(test):
            raise ValueError(f"points: {len(x)} positions, {len(label)} labels and "
                             f"{len(test)} test flags")
        return cls(x, label, np.array(test, dtype=bool), real)

    def adding(self, x: float, y: float, label: float, test: bool = False) -> Points:
        return Points(np.vstack([self.x, [[float(x), float(y)]]]), np.append(self.label, float(label)),
                      np.append(self.test, bool(test)), self.real)

    def removing(self, i: int) -> Points:
        keep = np.arange(len(self)) != int(i)
        return Points(self.x[keep], self.label[keep], self.test[keep], self.real)

    def train(self) -> tuple[np.ndarray, np.ndarray]:
        return self.x[~self.test], self.label[~self.test]

    def held_out(self) -> tuple[np.ndarray, np.ndarray]:
        return self.x[self.test], self.label[self.test]

    @property
    def classes_needed(self) -> int:
        """The fewest classes these labels fit (at least two; two for targets)."""
        if self.real:
            return MIN_CLASSES
        return max(MIN_CLASSES, int(self.label.max(initial=0)) + 1)


def suited(training: TrainingSettings, dataset: DataSettings) -> TrainingSettings:
    """``training`` with a loss that suits ``dataset``: its own (mean squared error for
    a regression problem, cross-entropy for classes) when the kind differs, else as is."""
    if (training.loss in REGRESSION_LOSSES) == dataset.regress:
        return training
    return replace(training, loss=dataset.spec.loss)


def shuffled_labels(labels: np.ndarray, seed: int) -> np.ndarray:
    """``labels`` in a random order drawn from ``seed``: as many of each class as before,
    on other points (the same seed, the same order)."""
    return np.random.default_rng([int(seed), 3]).permutation(np.asarray(labels, float))


# -- the network ------------------------------------------------------------------

def _unless_default(fields: dict, defaults: dict) -> dict:
    """``fields`` without those at their ``defaults``: a setting added to the state later
    is written only when used, so that a scene that does not use it is written back
    as it was read (from_dict gives a missing field its default)."""
    return {k: v for k, v in fields.items() if v != defaults[k]}


def _activation_to_json(activation: str | Sequence[str]) -> str | list[str]:
    return activation if isinstance(activation, str) else list(activation)


def fitted_activation(activation: str | Sequence[str], n_hidden: int) -> str | tuple[str, ...]:
    """An activation for ``n_hidden`` layers: one name stays; a list is cut, or grown by
    repeating its last name."""
    if isinstance(activation, str):
        return activation
    names = list(activation[:n_hidden]) + [activation[-1]] * max(0, n_hidden - len(activation))
    return normalise_activation(names, n_hidden)


@dataclass(frozen=True)
class Architecture:
    """Hidden layer sizes (input 2 and the outputs around them), the activation of the
    hidden layers (one name, or one per layer), the seed of the initial weights, and
    the outputs: 1 (a logit, two classes) or one per class; and the ``features`` the
    first layer takes, one input each (names of
    :mod:`relulab.model.fitting.features`, x₁ and x₂ by default)."""

    hidden: tuple[int, ...] = (6,)
    activation: str | tuple[str, ...] = "relu"
    init_seed: int = 0
    outputs: int = 1
    features: tuple[str, ...] = ("x1", "x2")

    def __post_init__(self) -> None:
        hidden = tuple(int(h) for h in self.hidden)
        if len(hidden) > MAX_HIDDEN_LAYERS or any(not 1 <= h <= MAX_WIDTH for h in hidden):
            raise ValueError(f"architecture.hidden: at most {MAX_HIDDEN_LAYERS} layers of 1 to "
                             f"{MAX_WIDTH} neurons, got {list(hidden)}")
        try:
            activation = normalise_activation(self.activation, len(hidden))
        except ValueError as e:
            raise ValueError(f"architecture.activation: {e}") from None
        if not 1 <= self.outputs <= MAX_CLASSES:
            raise ValueError(f"architecture.outputs: 1 to {MAX_CLASSES}, got {self.outputs}")
        try:
            features = FeatureMap(tuple(self.features)).names
        except (TypeError, ValueError) as e:
            raise ValueError(f"architecture.{e}") from None
        object.__setattr__(self, "hidden", hidden)
        object.__setattr__(self, "activation", activation)
        object.__setattr__(self, "features", features)

    @property
    def feature_map(self) -> FeatureMap:
        return FeatureMap(self.features)

    @property
    def sizes(self) -> list[int]:
        return [len(self.features), *self.hidden, self.outputs]

    @property
    def activations(self) -> tuple[str, ...]:
        """One name per hidden layer."""
        a = self.activation
        return (a,) * len(self.hidden) if isinstance(a, str) else a

    @property
    def classes(self) -> int:
        return classes_for(self.outputs)

    @property
    def n_params(self) -> int:
        return parameter_count(self.sizes)

    def with_hidden(self, hidden: Sequence[int]) -> Architecture:
        """Other layer sizes; a list of activations follows the layers (cut, or grown by
        its last name)."""
        hidden = tuple(int(h) for h in hidden)
        return replace(self, hidden=hidden, activation=fitted_activation(self.activation, len(hidden)))

    def to_dict(self) -> dict:
        return {"hidden": list(self.hidden), "activation": _activation_to_json(self.activation),
                "init_seed": self.init_seed, "outputs": self.outputs
                } | _unless_default({"features": list(self.features)}, {"features": ["x1", "x2"]})

    @classmethod
    def from_dict(cls, d: Any) -> Architecture:
        f = Fields(d, {**cls().to_dict(), "features": ["x1", "x2"]}, "architecture")
        hidden = f.get("hidden")
        if not isinstance(hidden, (list, tuple)):
            raise ValueError("architecture.hidden: expected a list of layer sizes")
        if len(hidden) > MAX_HIDDEN_LAYERS:  # refused before anything else is read
            raise ValueError(f"architecture.hidden: at most {MAX_HIDDEN_LAYERS} hidden layers, "
                             f"got {len(hidden):,}")
        for i, h in enumerate(hidden):
            if isinstance(h, bool) or not isinstance(h, (int, np.integer)) or not 1 <= h <= MAX_WIDTH:
                raise ValueError(f"architecture.hidden[{i}]: expected 1 to {MAX_WIDTH} neurons, "
                                 f"got {h!r}")
        features = f.get("features")
        if not isinstance(features, list) or not all(isinstance(n, str) for n in features):
            raise ValueError("architecture.features: expected a list of feature names")
        out = cls(tuple(hidden), activation_field(f, len(hidden)),
                  f.integer("init_seed", 0, MAX_SEED), f.integer("outputs", 1, MAX_CLASSES),
                  tuple(features))
        f.done()
        return out

    def random_network(self) -> MLP:
        """He-initialised weights from ``init_seed`` (the same seed, the same weights)."""
        return MLP.random(self.sizes, seed=self.init_seed, activation=self.activation)


#: Playground scenes may name a layer's weights ``W`` and its biases ``b`` (and leave
#: out ``format`` and ``version``): they are read as the dict form's keys.
_SHORT_LAYER_KEYS = {"W": "weights", "b": "biases"}


def _with_long_layer_keys(d: Any) -> Any:
    """``d`` with its layers' short keys (``W``, ``b``) renamed to the dict form's, as a
    new dict; a layer that has a long key keeps its keys, and anything else is passed on
    as it is, for MLP.from_dict to judge (more layers than the Playground takes are
    refused there by their count)."""
    layers = d.get("layers") if isinstance(d, dict) else None
    if not isinstance(layers, list) or len(layers) > MAX_HIDDEN_LAYERS + 1:
        return d
    renamed = [{_SHORT_LAYER_KEYS.get(k, k): v for k, v in layer.items()}
               if isinstance(layer, dict) and not layer.keys() & _SHORT_LAYER_KEYS.values()
               else layer for layer in layers]
    return {**d, "layers": renamed}


def network_from_dict(d: Any, architecture: Architecture, where: str = "network") -> MLP:
    """The network stored in a state, in its dict form (:meth:`MLP.to_dict`; layers with
    short keys too): the number of layers and their shapes checked against the
    architecture before any weight is read, then weight by weight (within MAX_WEIGHT)."""
    net = MLP.from_dict(_with_long_layer_keys(d), where=where, max_layers=MAX_HIDDEN_LAYERS + 1,
                        max_parameters=parameter_count(architecture.sizes), max_weight=MAX_WEIGHT,
                        sizes=architecture.sizes)
    if net.activation != architecture.activation:
        raise ValueError(f"{where}.activation: {_activation_to_json(net.activation)!r} differs "
                         f"from the architecture's {_activation_to_json(architecture.activation)!r}")
    return net


# -- training -----------------------------------------------------------------------

@dataclass(frozen=True)
class TrainingSettings:
    """How to train (optimiser, rate, loss, batch size, speed in steps per second,
    steps per press of Step, the step to stop at, 0 = never), the weight penalty
    (``regularization`` None, "l1" or "l2", at ``regularization_rate``) and how far it
    went."""

    optimizer: str = "adam"
    learning_rate: float = 0.03
    loss: str = "cross_entropy"
    batch_size: int = 0
    speed: str = "100 steps/s"  # the circles are learnt in about 100 steps: a second to watch
    steps_per_press: int = 10
    max_steps: int = 0
    step: int = 0
    regularization: str | None = None
    regularization_rate: float = 0.0

    def to_dict(self) -> dict:
        return {"optimizer": self.optimizer, "learning_rate": self.learning_rate,
                "loss": self.loss, "batch_size": self.batch_size, "speed": self.speed,
                "steps_per_press": self.steps_per_press, "max_steps": self.max_steps,
                "step": self.step} | _unless_default(
                    {"regularization": self.regularization,
                     "regularization_rate": self.regularization_rate},
                    {"regularization": None, "regularization_rate": 0.0})

    @classmethod
    def from_dict(cls, d: Any) -> TrainingSettings:
        if isinstance(d, dict) and "steps_per_tick" in d and "steps_per_press" not in d:
            # files written before the speed control: steps per frame was also the Step size
            d = {**d, "steps_per_press": d["steps_per_tick"]}
            del d["steps_per_tick"]
        f = Fields(d, {**cls().to_dict(), "regularization": None, "regularization_rate": 0.0},
                   "training")
        out = cls(f.choice("optimizer", list(OPTIMIZERS)), f.number("learning_rate", 1e-4, 1000.0),
                  f.choice("loss", [*LOSSES, *REGRESSION_LOSSES]),
                  f.integer("batch_size", 0, MAX_POINTS),
                  speed_label(f.choice("speed", SPEED_LABELS_READ)),
                  f.integer("steps_per_press", 1, MAX_STEPS_PER_PRESS),
                  f.integer("max_steps", 0, MAX_STOP_STEP), f.integer("step", 0, 10 ** 12),
                  f.choice("regularization", list(REGULARIZATIONS)),
                  f.number("regularization_rate", 0.0, MAX_REGULARIZATION_RATE))
        f.done()
        return out

    def config(self) -> TrainConfig:
        return TrainConfig(self.optimizer, self.learning_rate, self.loss, self.batch_size,
                           regularization=self.regularization,
                           regularization_rate=self.regularization_rate)

    @property
    def steps_per_second(self) -> int | None:
        return SPEEDS[self.speed]

    def steps_left(self, step: int) -> int | None:
        """Steps before the stop (None: no stop set)."""
        return max(0, self.max_steps - step) if self.max_steps > 0 else None


HISTORY_KEYS = ("step", "train_loss", "test_loss", "train_accuracy", "test_accuracy")


@dataclass(frozen=True, eq=False)
class History:
    """Loss and accuracy on the training and test points, at the steps in ``step``
    (NaN where there is nothing to measure, such as an empty test set; null in a file,
    so that a state read twice compares equal)."""

    step: np.ndarray = field(default_factory=lambda: np.zeros(0))
    train_loss: np.ndarray = field(default_factory=lambda: np.zeros(0))
    test_loss: np.ndarray = field(default_factory=lambda: np.zeros(0))
    train_accuracy: np.ndarray = field(default_factory=lambda: np.zeros(0))
    test_accuracy: np.ndarray = field(default_factory=lambda: np.zeros(0))

    def __post_init__(self) -> None:
        cols = [np.array(getattr(self, k), dtype=float).reshape(-1) for k in HISTORY_KEYS]
        if len({len(c) for c in cols}) != 1:
            raise ValueError("history: the lists must have the same length")
        for k, c in zip(HISTORY_KEYS, cols):
            object.__setattr__(self, k, readonly(c))

    def __len__(self) -> int:
        return len(self.step)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, History) and all(
            np.array_equal(getattr(self, k), getattr(other, k), equal_nan=True) for k in HISTORY_KEYS)

    __hash__ = None  # type: ignore[assignment]

    def to_dict(self) -> dict:
        return {k: [None if v != v else v for v in getattr(self, k).tolist()]
                for k in HISTORY_KEYS}

    @classmethod
    def from_dict(cls, d: Any) -> History:
        f = Fields(d, {k: [] for k in HISTORY_KEYS}, "history")
        cols = {}
        for k in HISTORY_KEYS:
            v = f.get(k)
            if not isinstance(v, (list, tuple)) or len(v) > HISTORY_LIMIT:
                raise ValueError(f"history.{k}: expected a list of at most {HISTORY_LIMIT} numbers")
            for i, e in enumerate(v):
                if e is not None and (isinstance(e, bool) or not isinstance(e, (int, float))):
                    raise ValueError(f"history.{k}[{i}]: expected a number or null, got {e!r}")
            cols[k] = np.array([np.nan if e is None else e for e in v], dtype=float)
        f.done()
        if not np.all(np.isfinite(cols["step"])) or np.any(cols["step"] < 0):
            raise ValueError("history.step: steps must be finite numbers ≥ 0")
        return cls(**cols)

    def recording(self, steps: ArrayLike, rows: ArrayLike) -> History:
        """This history with more moments ``rows`` of (train loss, test loss, train
        accuracy, test accuracy) at ``steps``, thinned to every other moment when it
        would hold more than HISTORY_LIMIT (the curves keep their shape)."""
        cols = [np.concatenate([self.step, np.asarray(steps, float)])]
        rows = np.asarray(rows, float).reshape(-1, 4)
        cols += [np.concatenate([getattr(self, k), rows[:, j]]) for j, k in enumerate(HISTORY_KEYS[1:])]
        while len(cols[0]) > HISTORY_LIMIT:
            cols = [c[::2] for c in cols]
        return History(*cols)


# -- the view and the depth study -------------------------------------------------

#: The view's settings added later, at their defaults (written only when used).
_VIEW_ADDED = {"show_test": True, "discretize": False, "feature_space": False}


@dataclass(frozen=True)
class View:
    """Whether the exact regions are drawn, the class a click adds, whose map is shown
    (the network's output, None, or (layer, neuron), counted from 1 and 0), whether the
    diagram shows each neuron's own map (None: when they fit, which the diagram decides
    from its size and the neurons), and the hidden space's coordinates (layer,
    neuron i, neuron j; None: the first layer with two neurons, its first two), whether
    the test points are drawn, whether the output's map is discretised (each
    class's full colour, no shading by how sure the network is), and whether the map
    shows the feature space (two features, at least one nonlinear) instead of the plane
    (kept when the features change, drawn whenever they allow it)."""

    show_regions: bool = True
    click_class: int = 0
    neuron: tuple[int, int] | None = None
    thumbnails: bool | None = None
    hidden_space: tuple[int, int, int] | None = None
    show_test: bool = True
    discretize: bool = False
    feature_space: bool = False

    def to_dict(self) -> dict:
        return {"show_regions": self.show_regions, "click_class": self.click_class,
                "neuron": None if self.neuron is None else list(self.neuron),
                "thumbnails": self.thumbnails,
                "hidden_space": None if self.hidden_space is None else list(self.hidden_space)
                } | _unless_default({"show_test": self.show_test, "discretize": self.discretize,
                                     "feature_space": self.feature_space}, _VIEW_ADDED)

    @classmethod
    def from_dict(cls, d: Any, architecture: Architecture) -> View:
        f = Fields(d, {**cls().to_dict(), **_VIEW_ADDED}, "view")
        neuron = _whole_numbers(f, "neuron", 2, "[layer, neuron]")
        if neuron is not None and not fits(neuron, architecture):
            raise ValueError(f"view.neuron: the network has no neuron {neuron[1] + 1} "
                             f"in hidden layer {neuron[0]}")
        hidden = _whole_numbers(f, "hidden_space", 3, "[layer, neuron, neuron]")
        if hidden is not None and not hidden_fits(hidden, architecture):
            raise ValueError(f"view.hidden_space: the network has no two neurons {hidden[1] + 1} "
                             f"and {hidden[2] + 1} in hidden layer {hidden[0]}")
        thumbnails = None if f.get("thumbnails") is None else f.flag("thumbnails")
        out = cls(f.flag("show_regions"), f.integer("click_class", 0, MAX_CLASSES - 1), neuron,
                  thumbnails, hidden, f.flag("show_test"), f.flag("discretize"),
                  f.flag("feature_space"))
        f.done()
        return out

    def fitted(self, architecture: Architecture) -> View:
        """This view for another architecture: a neuron or hidden space it lacks is
        forgotten, the class a click adds is one of its classes."""
        return replace(self, neuron=self.neuron if fits(self.neuron, architecture) else None,
                       hidden_space=self.hidden_space if hidden_fits(self.hidden_space, architecture)
                       else None, click_class=min(self.click_class, architecture.classes - 1))


def _whole_numbers(f: Fields, key: str, count: int, shape: str) -> Any:
    """A tuple of ``count`` whole numbers, or None (null in the file). Typed Any: the
    tuple's length is the caller's ``count``, (layer, neuron) or (layer, i, j)."""
    v = f.get(key)
    if v is None:
        return None
    if (not isinstance(v, (list, tuple)) or len(v) != count
            or any(isinstance(e, bool) or not isinstance(e, int) for e in v)):
        raise ValueError(f"{f.name(key)}: expected {shape} or null")
    return tuple(int(e) for e in v)


def fits(neuron: tuple[int, int] | None, architecture: Architecture) -> bool:
    """True when (layer, i) is a hidden neuron of the architecture (or None)."""
    if neuron is None:
        return True
    layer, i = neuron
    return 1 <= layer <= len(architecture.hidden) and 0 <= i < architecture.hidden[layer - 1]


def hidden_fits(choice: tuple[int, int, int] | None, architecture: Architecture) -> bool:
    """True when (layer, i, j) names two different neurons of a hidden layer (or None)."""
    if choice is None:
        return True
    layer, i, j = choice
    return fits((layer, i), architecture) and fits((layer, j), architecture) and i != j


def hidden_space_choice(view: View, architecture: Architecture) -> tuple[int, int, int] | None:
    """The hidden space shown: the view's choice, else the last hidden layer with two
    neurons or more (a 2-neuron last layer is the bottleneck whose boundary is a line),
    its first two; None when no hidden layer has two neurons."""
    if view.hidden_space is not None and hidden_fits(view.hidden_space, architecture):
        return view.hidden_space
    for layer in range(len(architecture.hidden), 0, -1):
        if architecture.hidden[layer - 1] >= 2:
            return (layer, 0, 1)
    return None


@dataclass(frozen=True)
class DepthStudy:
    """Regions against depth: random networks of one parameter budget, ``seeds`` per
    depth, and the exact region counts found so far."""

    budget: int = 80
    seeds: int = 5
    samples: tuple[DepthSample, ...] = ()

    def to_dict(self) -> dict:
        return {"budget": self.budget, "seeds": self.seeds,
                "samples": [[s.depth, list(s.sizes), s.params, s.seed, s.regions]
                            for s in self.samples]}

    @classmethod
    def from_dict(cls, d: Any) -> DepthStudy:
        f = Fields(d, cls().to_dict(), "depth")
        budget = f.integer("budget", *DEPTH_BUDGETS)
        seeds = f.integer("seeds", 1, DEPTH_MAX_SEEDS)
        rows = f.get("samples")
        if not isinstance(rows, (list, tuple)) or len(rows) > len(DEPTHS) * DEPTH_MAX_SEEDS:
            raise ValueError(f"depth.samples: expected at most {len(DEPTHS) * DEPTH_MAX_SEEDS} rows")
        samples = []
        for i, row in enumerate(rows):
            where = f"depth.samples[{i}]"
            if not isinstance(row, (list, tuple)) or len(row) != 5:
                raise ValueError(f"{where}: expected [depth, sizes, parameters, seed, regions]")
            depth, sizes, params, seed, regions = row
            ints = (depth, params, seed, regions)
            if any(isinstance(v, bool) or not isinstance(v, int) for v in ints):
                raise ValueError(f"{where}: depth, parameters, seed and regions must be whole numbers")
            if (not isinstance(sizes, (list, tuple)) or len(sizes) != depth + 2
                    or any(isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 10_000
                           for v in sizes)):
                raise ValueError(f"{where}: expected the {depth + 2} layer sizes of a network "
                                 f"with {depth} hidden layers")
            if depth not in DEPTHS or params != parameter_count(sizes) or regions < 1 or seed < 0:
                raise ValueError(f"{where}: not a sample of the study (depth {depth}, "
                                 f"{params} parameters, {regions} regions)")
            samples.append(DepthSample(depth, tuple(sizes), params, seed, regions))
        f.done()
        return cls(budget, seeds, tuple(samples))
