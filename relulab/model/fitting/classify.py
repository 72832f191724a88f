"""Training any MLP as a classifier of points in the plane: two classes or more.

**One output** (two classes): the output z is a logit, the class-1 probability is
p = σ(z) and the predicted class is 1 when z > 0. Two losses:

- cross-entropy  L = (1/n) Σ −y log p − (1−y) log(1−p),  ∂L/∂z = (p − y)/n
- squared error  L = (1/2n) Σ (p − y)²,                    ∂L/∂z = (p − y) p (1 − p)/n

**C ≥ 2 outputs** (C classes, labels 0 … C−1): the outputs z are scores, the class
probabilities p = softmax(z) (p_k = e^{z_k} / Σ_j e^{z_j}) and the predicted class is
argmax z (the lowest index on a tie). With Y the one-hot labels:

- cross-entropy  L = (1/n) Σ log Σ_j e^{z_j} − z_y,         ∂L/∂z = (p − Y)/n
- squared error  L = (1/2n) Σ ‖p − Y‖²,                    ∂L/∂z = p ⊙ (d − p·d), d = (p − Y)/n

The gradient flows back through the layers (``W`` of shape (out, in)), each hidden
layer with its own activation φ_l::

    ∂L/∂W_l = δ_lᵀ h_{l−1},  ∂L/∂b_l = Σ δ_l,  δ_{l−1} = (δ_l W_l) ⊙ φ'_{l−1}(z_{l−1})

and the parameters move by plain gradient descent, or Adam, on the full set or
on mini-batches.

**Regression** (``TrainConfig(loss="mse")``, for the ``regress_*`` datasets): one
output z, the prediction itself (no σ), labels any real targets, and

- mean squared error  L = (1/n) Σ (z − y)²,               ∂L/∂z = 2(z − y)/n

with accuracies NaN (there are no classes). The loss is the caller's choice
(``DatasetSpec.loss`` names the one that suits a dataset), never guessed from labels.

**Regularisation** (``TrainConfig.regularization``, rate r) penalises the weights
only, never the biases, as TensorFlow Playground does:

- L2  P = r · ½ Σ w²: its gradient r·w joins the loss's gradient (for GD and Adam alike);
- L1  P = r · Σ |w|: a proximal step after each update, w ← sign(w)·max(|w| − η·r, 0)
  (η the learning rate), so a weight the data does not hold up becomes exactly 0
  (a subgradient step would only make it jitter around 0).

**Feature inputs** (``Trainer(..., features=["x1^2", "x2^2"])``, see
``relulab.model.fitting.features``): the network's first layer takes one input per
feature, and the trainer maps the points through them once; ``X`` stays the points.

Readouts: a snapshot's ``train_loss`` is what training minimises, the data loss on the
training points plus P (``penalty`` holds P alone); ``test_loss`` is the data loss on
the test points without P, so it measures the fit to unseen points in any setting.

:class:`Trainer` keeps the mutable arrays and has the shape of the other trainer
(``relulab.model.fitting.training.HingeNetTrainer``): ``run(n)`` makes n
updates, ``advance(n)`` makes them and returns an immutable
:class:`ClassifierSnapshot` with a frozen ``MLP``, ``snapshot()`` describes the
current one, ``step`` counts updates and ``lr`` changes the rate without a reset.
An update whose weights stop being finite (or pass 10⁶) is undone, and the
trainer stops and says so.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace

import numpy as np

from relulab.model.data.datasets import circles
from relulab.model.fitting.features import FeatureMap
from relulab.model.fitting.optimizers import supported
from relulab.model.networks.activations import get_activation, sigmoid
from relulab.model.networks.mlp import MLP

LOSSES = {"cross_entropy": "cross-entropy", "squared": "squared error"}
#: the losses for real targets (regression), name -> label
REGRESSION_LOSSES = {"mse": "mean squared error"}
#: the optimisers Trainer supports, name -> label, in the order the Playground lists them
OPTIMIZERS = supported("gd", "adam")
#: the weight penalties TrainConfig.regularization takes, name -> label (None: no penalty)
REGULARIZATIONS = {None: "none", "l1": "L1", "l2": "L2"}
#: Weights larger than this count as diverged.
DIVERGENCE_LIMIT = 1e6


@dataclass(frozen=True)
class TrainConfig:
    """How to train: optimizer ``gd`` or ``adam``, learning rate, loss, batch size
    (0 = full batch), and the seed that shuffles mini-batches."""

    optimizer: str = "gd"
    learning_rate: float = 0.5
    loss: str = "cross_entropy"
    batch_size: int = 0
    seed: int = 0
    beta1: float = 0.9
    beta2: float = 0.999
    eps: float = 1e-8
    regularization: str | None = None
    regularization_rate: float = 0.0

    @property
    def is_regression(self) -> bool:
        """True for a loss on real targets (``mse``)."""
        return self.loss in REGRESSION_LOSSES

    def __post_init__(self):
        if self.optimizer not in OPTIMIZERS:
            raise ValueError(f"optimizer must be one of {', '.join(OPTIMIZERS)}, got {self.optimizer!r}")
        if self.loss not in LOSSES and self.loss not in REGRESSION_LOSSES:
            raise ValueError(f"loss must be one of {', '.join([*LOSSES, *REGRESSION_LOSSES])}, "
                             f"got {self.loss!r}")
        lr = float(self.learning_rate)
        if not (np.isfinite(lr) and lr > 0):
            raise ValueError(f"learning rate must be a positive number, got {self.learning_rate}")
        if int(self.batch_size) < 0:
            raise ValueError(f"batch size must be ≥ 0 (0 = all points), got {self.batch_size}")
        if self.regularization not in REGULARIZATIONS:
            raise ValueError(f"regularization must be None, 'l1' or 'l2', got {self.regularization!r}")
        r = float(self.regularization_rate)
        if not (np.isfinite(r) and r >= 0):
            raise ValueError(f"regularization rate must be a number ≥ 0, got {self.regularization_rate}")


@dataclass(frozen=True)
class ClassifierSnapshot:
    """The classifier after ``step`` updates: the network, its loss and accuracy.
    ``train_loss`` includes the weight penalty ``penalty`` (0 without regularisation);
    ``test_loss`` is the data loss alone."""

    step: int
    net: MLP
    train_loss: float
    train_accuracy: float
    test_loss: float          # NaN without test points
    test_accuracy: float      # NaN without test points
    diverged: bool = False
    message: str = ""
    penalty: float = 0.0
    features: FeatureMap | None = None   # the network's inputs when not the point itself

    @property
    def train_data_loss(self) -> float:
        """The training points' loss without the weight penalty."""
        return self.train_loss - self.penalty


def weight_penalty(net_or_weights, regularization: str | None, rate: float) -> float:
    """P = r · Σ|w| (L1) or r · ½ Σ w² (L2) over the weight matrices (not the biases)
    of an ``MLP`` or of a list of matrices; 0 without regularisation."""
    if regularization is None or rate == 0:
        return 0.0
    Ws = [W for W, _ in net_or_weights.layers] if isinstance(net_or_weights, MLP) else net_or_weights
    if regularization == "l1":
        return float(rate * sum(np.abs(W).sum() for W in Ws))
    return float(rate * 0.5 * sum((W * W).sum() for W in Ws))


def classes_of(net: MLP) -> int:
    """How many classes ``net`` tells apart: 2 for one output (a logit), else one per output."""
    return 2 if net.n_out == 1 else net.n_out


def logits(net: MLP, X, features: FeatureMap | None = None) -> np.ndarray:
    """The network's outputs for each point: shape (N,) for one output (the logit z),
    (N, C) for C outputs (the scores). With ``features`` the points (N, 2) go through
    them first."""
    if features is not None:
        X = features.apply(np.asarray(X, float).reshape(-1, 2))
    X = np.asarray(X, float).reshape(-1, net.n_in)
    z = net.forward(X)[-1]
    return z[:, 0] if net.n_out == 1 else z


def softmax(z) -> np.ndarray:
    """p_k = e^{z_k} / Σ_j e^{z_j} along the last axis, without overflow (z − max z)."""
    z = np.asarray(z, float)
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def predict_proba(net: MLP, X, features: FeatureMap | None = None) -> np.ndarray:
    """For one output p = σ(z), the probability of class 1 at each point, shape (N,);
    for C outputs softmax(z), shape (N, C)."""
    z = logits(net, X, features)
    return sigmoid(z) if z.ndim == 1 else softmax(z)


def predicted_classes(z) -> np.ndarray:
    """The class of each point from its outputs: [z > 0] for a logit (N,), argmax for
    scores (N, C) (the lowest class on a tie, as z = 0 gives class 0)."""
    z = np.asarray(z)
    return (z > 0).astype(int) if z.ndim == 1 else np.argmax(z, axis=1)


def predict(net: MLP, X, features: FeatureMap | None = None) -> np.ndarray:
    """The predicted class of each point, integers 0 … C−1."""
    return predicted_classes(logits(net, X, features))


def loss_from_logits(z, y, loss: str = "cross_entropy") -> float:
    """Mean loss from the outputs z ((N,) logits or (N, C) scores) and labels y.

    One output, cross-entropy without overflow:
    −y log σ(z) − (1−y) log(1−σ(z)) = max(z, 0) − y z + log(1 + e^(−|z|)).
    C outputs: log Σ_j e^{z_j} − z_y, the log-sum-exp taken from max z."""
    z, y = np.asarray(z, float), np.asarray(y, float)
    if len(y) == 0:
        return float("nan")
    if loss == "mse":
        return float(np.mean((z.reshape(len(y)) - y) ** 2))
    if loss not in LOSSES:
        raise ValueError(f"unknown loss {loss!r}")
    if z.ndim == 1:
        if loss == "cross_entropy":
            return float(np.mean(np.maximum(z, 0) - y * z + np.log1p(np.exp(-np.abs(z)))))
        return float(0.5 * np.mean((sigmoid(z) - y) ** 2))
    rows = np.arange(len(y))
    labels = y.astype(int)
    if loss == "cross_entropy":
        top = z.max(axis=1)
        lse = top + np.log(np.exp(z - top[:, None]).sum(axis=1))
        return float(np.mean(lse - z[rows, labels]))
    p = softmax(z)
    p[rows, labels] -= 1.0
    return float(0.5 * np.mean(np.sum(p * p, axis=1)))


def accuracy(net: MLP, X, y, features: FeatureMap | None = None) -> float:
    """Share of points whose predicted class equals the label."""
    y = np.asarray(y, float)
    if len(y) == 0:
        return float("nan")
    return float(np.mean(predict(net, X, features) == y))


def _check_data(X, y, n_in: int, what: str, classes: int = 2):
    """``classes`` 0: real targets (regression), any finite numbers."""
    X = np.asarray(X, float)
    y = np.asarray(y, float).reshape(-1)
    if len(y) == 0:
        return X.reshape(0, n_in), y
    if X.ndim != 2 or X.shape != (len(y), n_in):
        raise ValueError(f"{what} points must have shape ({len(y)}, {n_in}), got {X.shape}")
    if not np.all(np.isfinite(X)):
        raise ValueError(f"{what} points must be finite")
    if classes == 0:
        if not np.all(np.isfinite(y)):
            raise ValueError(f"{what} targets must be finite numbers")
        return X, y
    if not np.all(np.isin(y, np.arange(classes))):
        names = "0 or 1" if classes == 2 else f"whole numbers from 0 to {classes - 1}"
        raise ValueError(f"{what} labels must be {names}")
    return X, y


class Trainer:
    """Trains ``net`` on ``(X, y)``; reports on ``(X_test, y_test)`` too.

    A network with one output is a two-class classifier (labels 0 and 1, a logistic
    output); one with C ≥ 2 outputs a C-class one (labels 0 … C−1, softmax).
    ``run(n)`` makes up to n updates (none after divergence or without training
    points) and ``advance(n)`` returns the snapshot after them; once diverged the
    trainer keeps the last finite network.

    ``features`` (a :class:`FeatureMap` or a list of its names): the points (N, 2) go
    through them, and ``net`` takes one input per feature; ``self.X`` and
    ``self.X_test`` hold the network's inputs (the features), ``self.features`` the map.
    """

    def __init__(self, net: MLP, X, y, X_test=None, y_test=None, config: TrainConfig | None = None,
                 step: int = 0, features: FeatureMap | list[str] | None = None):
        self.config = config or TrainConfig()
        if self.config.is_regression and net.n_out != 1:
            raise ValueError(f"regression ({self.config.loss}) needs a network with one output, "
                             f"not {net.n_out}")
        #: the number of classes; 0 for regression (real targets)
        self.classes = 0 if self.config.is_regression else classes_of(net)
        self.features = None if features is None else FeatureMap.of(features)
        n_points = net.n_in
        if self.features is not None:
            if len(self.features) != net.n_in:
                raise ValueError(f"the network's first layer takes {net.n_in} inputs but "
                                 f"{len(self.features)} features are on "
                                 f"({', '.join(self.features.names)})")
            n_points = 2
        X, y = _check_data(X, y, n_points, "training", self.classes)
        if X_test is None:
            X_test, y_test = np.zeros((0, n_points)), np.zeros(0)
        X_test, y_test = _check_data(X_test, y_test, n_points, "test", self.classes)
        if self.features is not None:
            X, X_test = self.features.apply(X), self.features.apply(X_test)
        self.X, self.y, self.X_test, self.y_test = X, y, X_test, y_test
        self.activation = net.activation
        self._phis = [get_activation(a) for a in net.activations]
        self.params = [np.array(a) for W, b in net.layers for a in (W, b)]
        self.step = int(step)
        self._m = [np.zeros_like(p) for p in self.params]
        self._v = [np.zeros_like(p) for p in self.params]
        self._adam_t = 0
        self._rng = np.random.default_rng(self.config.seed)
        self._order = np.zeros(0, dtype=int)
        self._cursor = 0
        self.diverged = False
        self.message = ""
        self._net: MLP | None = net
        self._snapshot: ClassifierSnapshot | None = None

    # -- parameters -----------------------------------------------------------
    @property
    def net(self) -> MLP:
        """The current network (a frozen copy, made again only after updates)."""
        if self._net is None:
            p = self.params
            self._net = MLP([(p[i], p[i + 1]) for i in range(0, len(p), 2)], self.activation)
        return self._net

    @property
    def lr(self) -> float:
        return float(self.config.learning_rate)

    @lr.setter
    def lr(self, value: float) -> None:
        self.set_config(replace(self.config, learning_rate=value))

    def set_config(self, config: TrainConfig) -> None:
        """Change optimizer, rate, loss or batch size without losing the weights (a
        classification loss stays one: the labels were checked for it)."""
        if config.is_regression != self.config.is_regression:
            raise ValueError("the loss cannot switch between classes and real targets; "
                             "start a new trainer")
        if config.optimizer != self.config.optimizer:
            self._m = [np.zeros_like(p) for p in self.params]
            self._v = [np.zeros_like(p) for p in self.params]
            self._adam_t = 0
        self.config = config
        self._snapshot = None  # the loss may have changed

    # -- one update -------------------------------------------------------------
    def _batch(self):
        n, bs = len(self.y), int(self.config.batch_size)
        if bs <= 0 or bs >= n:
            return self.X, self.y
        if self._cursor + bs > len(self._order):
            self._order = self._rng.permutation(n)
            self._cursor = 0
        idx = self._order[self._cursor:self._cursor + bs]
        self._cursor += bs
        return self.X[idx], self.y[idx]

    def _output_gradient(self, z: np.ndarray, y: np.ndarray) -> np.ndarray:
        """∂L/∂z for the outputs z (N, n_out) of the points with labels y."""
        n = len(y)
        if self.config.loss == "mse":
            return 2.0 * (z - y[:, None]) / n
        if z.shape[1] == 1:
            q = sigmoid(z[:, 0])
            if self.config.loss == "cross_entropy":
                return (q - y)[:, None] / n
            return ((q - y) * q * (1 - q))[:, None] / n
        p = softmax(z)
        d = p.copy()
        d[np.arange(n), y.astype(int)] -= 1.0
        d /= n
        if self.config.loss == "cross_entropy":
            return d
        return p * (d - np.sum(p * d, axis=1, keepdims=True))

    def gradients(self, X, y) -> list[np.ndarray]:
        """∂L/∂(W₁, b₁, …, W_L, b_L) on the points (X, y), by backpropagation."""
        p = self.params
        n_layers = len(p) // 2
        hs, zs = [X], []
        h = X
        for i in range(n_layers):
            W, b = p[2 * i], p[2 * i + 1]
            z = h @ W.T + b
            zs.append(z)
            if i < n_layers - 1:
                h = self._phis[i].f(z)
                hs.append(h)
        dz = self._output_gradient(zs[-1], y)
        grads: list[np.ndarray] = [None] * len(p)  # type: ignore[list-item]
        for i in range(n_layers - 1, -1, -1):
            grads[2 * i] = dz.T @ hs[i]
            grads[2 * i + 1] = dz.sum(0)
            if i > 0:
                dz = dz @ p[2 * i]
                dz *= self._phis[i - 1].derivative(zs[i - 1], hs[i])
        return grads

    def _update(self) -> None:
        X, y = self._batch()
        grads = self.gradients(X, y)
        c = self.config
        lr = float(c.learning_rate)
        rate = float(c.regularization_rate)
        if c.regularization == "l2" and rate:
            for W, G in zip(self.params[0::2], grads[0::2]):
                G += rate * W
        self._step(grads, lr)
        if c.regularization == "l1" and rate:
            for W in self.params[0::2]:  # the proximal step of r·|w|: soft thresholding
                np.copyto(W, np.sign(W) * np.maximum(np.abs(W) - lr * rate, 0.0))

    def _step(self, grads: list[np.ndarray], lr: float) -> None:
        if self.config.optimizer == "gd":
            for P, G in zip(self.params, grads):
                P -= lr * G
            return
        c = self.config
        self._adam_t += 1
        t = self._adam_t
        for P, G, m, v in zip(self.params, grads, self._m, self._v):
            m *= c.beta1
            m += (1 - c.beta1) * G
            v *= c.beta2
            v += (1 - c.beta2) * G * G
            m_hat = m / (1 - c.beta1 ** t)
            v_hat = v / (1 - c.beta2 ** t)
            P -= lr * m_hat / (np.sqrt(v_hat) + c.eps)

    def _finite(self) -> bool:
        return all(np.all(np.isfinite(P)) and np.max(np.abs(P), initial=0) <= DIVERGENCE_LIMIT
                   for P in self.params)

    def run(self, n: int = 1) -> int:
        """Make up to n updates without a snapshot; returns how many were made (fewer
        after divergence, none without training points)."""
        if self.diverged or len(self.y) == 0:
            return 0
        made = 0
        for _ in range(int(n)):
            saved = [P.copy() for P in self.params]
            with np.errstate(all="ignore"):
                self._update()
                ok = self._finite()
            if not ok:
                self.params = saved
                self.diverged = True
                self.message = (
                    f"Training diverged at step {self.step + 1}: the weights stopped being "
                    f"finite or passed {DIVERGENCE_LIMIT:g}. Stopped; lower the learning rate "
                    f"(now {self.config.learning_rate:g}) and reset.")
                break
            self.step += 1
            made += 1
        if made or self.diverged:
            self._net = None
            self._snapshot = None
        return made

    def advance(self, n: int = 1) -> ClassifierSnapshot:
        """Make up to n updates and return the snapshot after them."""
        self.run(n)
        return self.snapshot()

    def snapshot(self) -> ClassifierSnapshot:
        """The current network with its loss and accuracy on the training and test
        points (computed once per step). A loss that is no longer finite stops training."""
        if self._snapshot is not None:
            return self._snapshot
        net = self.net
        with np.errstate(all="ignore"):
            z_tr = logits(net, self.X)
            z_te = logits(net, self.X_test)
            loss = self.config.loss
            penalty = weight_penalty(net, self.config.regularization,
                                     float(self.config.regularization_rate))
            train_loss = loss_from_logits(z_tr, self.y, loss) + penalty
            if not self.diverged and len(self.y) and not np.isfinite(train_loss):
                self.diverged = True
                self.message = (f"Training diverged at step {self.step}: the loss is no longer "
                                "finite. Stopped; lower the learning rate and reset.")
            snap = ClassifierSnapshot(
                step=self.step, net=net, train_loss=train_loss,
                train_accuracy=_share_right(z_tr, self.y, self.classes),
                test_loss=loss_from_logits(z_te, self.y_test, loss),
                test_accuracy=_share_right(z_te, self.y_test, self.classes),
                diverged=self.diverged, message=self.message, penalty=penalty,
                features=self.features)
        self._snapshot = snap
        return snap


def _share_right(z: np.ndarray, y: np.ndarray, classes: int = 2) -> float:
    if not len(y) or classes == 0:
        return float("nan")
    return float(np.mean(predicted_classes(z) == y))


def train(net: MLP, X, y, steps: int, config: TrainConfig | None = None, X_test=None, y_test=None,
          every: int = 1, features: FeatureMap | list[str] | None = None
          ) -> Iterator[ClassifierSnapshot]:
    """A generator of snapshots, one every ``every`` steps, ending after ``steps``
    updates or at divergence (the last snapshot then says so)."""
    trainer = Trainer(net, X, y, X_test, y_test, config, features=features)
    done = 0
    while done < steps:
        k = min(every, steps - done)
        snap = trainer.advance(k)
        done += k
        yield snap
        if snap.diverged:
            return


# -- the circles lesson -------------------------------------------------------------------

def circles_lesson_network(rng: np.random.Generator, hidden: int) -> MLP:
    """The lesson's 2-H-1 initialisation, drawn from ``rng`` in its order:
    W₁ ~ N(0, √(2/2)) of shape 2×H, b₁ ~ U(−½, ½), W₂ ~ N(0, √(1/H)) of shape H×1, b₂ = 0.

    The lesson stores W as (in, out); ``MLP`` stores (out, in), hence the transposes.
    """
    H = int(hidden)
    W1 = rng.normal(0, np.sqrt(2 / 2), (2, H))
    b1 = rng.uniform(-0.5, 0.5, H)
    W2 = rng.normal(0, np.sqrt(1 / H), (H, 1))
    b2 = np.zeros(1)
    return MLP([(W1.T, b1), (W2.T, b2)], "relu")


def circles_lesson_setup(seed: int, hidden: int = 6):
    """``(X, y, net)`` as the lesson makes them: one ``default_rng(seed)`` draws the
    circles and then the weights."""
    rng = np.random.default_rng(seed)
    X, y = circles(rng)
    return X, y, circles_lesson_network(rng, hidden)


def circles_lesson_run(seed: int, hidden: int = 6, steps: int = 2000,
                       learning_rate: float = 0.5) -> ClassifierSnapshot:
    """The lesson's experiment: full-batch gradient descent at rate 0.5 on the
    cross-entropy gradient (p − y)/n for ``steps`` steps; the returned snapshot's
    ``train_accuracy`` is the lesson's printed accuracy (1.0 for H = 6, seeds 0–9)."""
    X, y, net = circles_lesson_setup(seed, hidden)
    trainer = Trainer(net, X, y, config=TrainConfig("gd", learning_rate, "cross_entropy"))
    return trainer.advance(steps)


# -- maps over a grid of the plane ------------------------------------------------

#: The playground's view of the plane: (x_min, x_max, y_min, y_max).
DEFAULT_BOX = (-1.25, 1.25, -1.25, 1.25)


def grid_axes(box=DEFAULT_BOX, resolution: int = 200) -> tuple[np.ndarray, np.ndarray]:
    """Pixel centres along x and y: ``resolution`` points each, half a pixel inside the box."""
    x0, x1, y0, y1 = (float(v) for v in box)
    n = int(resolution)
    if n < 2 or not (x0 < x1 and y0 < y1):
        raise ValueError(f"need resolution ≥ 2 and a non-empty box, got {resolution}, {box}")
    dx, dy = (x1 - x0) / n, (y1 - y0) / n
    return x0 + dx * (np.arange(n) + 0.5), y0 + dy * (np.arange(n) + 0.5)


def grid_layers(net: MLP, box=DEFAULT_BOX, resolution: int = 200, dtype=np.float64,
                features: FeatureMap | None = None) -> list[np.ndarray]:
    """Pre-activations z_l of every layer at every pixel centre, each of shape
    (n_l, resolution, resolution) indexed [neuron, row (y), column (x)].

    Computed neuron-major (z = W h + b with h of shape (n, pixels)) as one matrix
    product per layer, several times faster than ``net.forward`` on a (pixels, 2)
    array. The app runs BLAS on one thread (``relulab.app.limit_blas_threads``):
    these products are too small for more. ``dtype=np.float32`` is for pictures:
    several times faster again, with values good to ~1e-6 relative (exact counts and
    maps come from float64 code, never from the picture). With ``features`` the first
    layer sees each pixel centre's features.
    """
    xs, ys = grid_axes(box, resolution)
    n = len(xs)
    h = np.empty((2, n * n), dtype=dtype)
    h[0] = np.tile(xs, n)
    h[1] = np.repeat(ys, n)
    if features is not None:
        h = features.apply(h.T.astype(float)).T.astype(dtype)
    phis = [get_activation(a) for a in net.activations]
    out = []
    for i, (W, b) in enumerate(net.layers):
        z = W.astype(dtype, copy=False) @ h
        z += b.astype(dtype, copy=False)[:, None]
        out.append(z.reshape(-1, n, n))
        if i < len(phis):
            h = phis[i].f(z).astype(dtype, copy=False)
    return out


def decision_map(net: MLP, box=DEFAULT_BOX, resolution: int = 200, dtype=np.float64,
                 features: FeatureMap | None = None) -> np.ndarray:
    """The logit z = net(x) at every pixel centre, shape (resolution, resolution),
    indexed [row (y), column (x)]; the class-1 probability is σ(z). For a network with
    C outputs, the scores: shape (C, resolution, resolution)."""
    z = grid_layers(net, box, resolution, dtype, features)[-1]
    return z[0] if net.n_out == 1 else z


def boundary_segments(Z: np.ndarray, xs: np.ndarray, ys: np.ndarray, level: float = 0.0,
                      cells: np.ndarray | None = None) -> np.ndarray:
    """Line segments of the contour Z = level (marching squares, vectorised).

    ``Z`` is indexed [row (y), column (x)] at the points ``xs`` × ``ys``; on every
    grid edge whose ends lie on different sides of ``level`` the crossing is found
    by linear interpolation, and the two crossings of a cell are joined. A saddle
    cell (four crossings) is joined by the sign of its centre value. Only the cells
    the contour crosses (corners on both sides) are worked on, and of those only the
    ones ``cells`` (a boolean array of cells, rows − 1 × columns − 1) allows. Returns an
    array of shape (2·segments, 2): consecutive rows are the two ends of a segment.
    """
    Z = np.asarray(Z)
    above = level < Z
    p00, p01 = above[:-1, :-1], above[:-1, 1:]
    p11, p10 = above[1:, 1:], above[1:, :-1]
    crossed = (p00 != p01) | (p00 != p11) | (p00 != p10)
    if cells is not None:
        crossed &= cells
    r, k = np.nonzero(crossed)
    if not len(r):
        return np.zeros((0, 2))
    a = Z[r, k].astype(float) - level          # bottom-left
    b = Z[r, k + 1].astype(float) - level      # bottom-right
    c = Z[r + 1, k + 1].astype(float) - level  # top-right
    d = Z[r + 1, k].astype(float) - level      # top-left
    x0, x1 = xs[k], xs[k + 1]
    y0, y1 = ys[r], ys[r + 1]

    def cross(p, q):
        with np.errstate(divide="ignore", invalid="ignore"):
            return (p > 0) != (q > 0), p / (p - q)

    # crossing points on the four edges: bottom (a→b), right (b→c), top (d→c), left (a→d)
    eb, tb = cross(a, b)
    er, tr = cross(b, c)
    et, tt = cross(d, c)
    el, tl = cross(a, d)
    pts = {
        "b": (x0 + (x1 - x0) * tb, y0),
        "r": (x1, y0 + (y1 - y0) * tr),
        "t": (x0 + (x1 - x0) * tt, y1),
        "l": (x0, y0 + (y1 - y0) * tl),
    }
    edges = {"b": eb, "r": er, "t": et, "l": el}
    count = eb.astype(int) + er + et + el
    segs = []
    two = count == 2
    pairs = [("b", "r"), ("b", "t"), ("b", "l"), ("r", "t"), ("r", "l"), ("t", "l")]
    for p, q in pairs:
        m = two & edges[p] & edges[q]
        if m.any():
            segs.append((pts[p][0][m], pts[p][1][m], pts[q][0][m], pts[q][1][m]))
    four = count == 4
    if four.any():
        centre_pos = ((a + b + c + d) > 0)[four]
        same = centre_pos == (a[four] > 0)  # corner a's side joins through the centre
        for (p, q), (u2, v2) in ((("b", "l"), ("r", "t")), (("b", "r"), ("t", "l"))):
            m = four.copy()
            m[four] = ~same if p == "b" and q == "l" else same
            for u, v in ((p, q), (u2, v2)):
                if m.any():
                    segs.append((pts[u][0][m], pts[u][1][m], pts[v][0][m], pts[v][1][m]))
    if not segs:
        return np.zeros((0, 2))
    xa = np.concatenate([s[0] for s in segs])
    ya = np.concatenate([s[1] for s in segs])
    xb = np.concatenate([s[2] for s in segs])
    yb = np.concatenate([s[3] for s in segs])
    out = np.empty((2 * len(xa), 2))
    out[0::2, 0], out[0::2, 1] = xa, ya
    out[1::2, 0], out[1::2, 1] = xb, yb
    return out


def class_boundary_segments(S: np.ndarray, xs: np.ndarray, ys: np.ndarray,
                            winner: np.ndarray | None = None) -> np.ndarray:
    """Where the predicted class changes on a grid of scores ``S`` (C, rows, columns):
    for each class k but the last, the contour d_k = 0 of its lead over the best other
    class, d_k = s_k − max_{j≠k} s_j (marching squares, as :func:`boundary_segments`),
    in the cells whose corners it wins only in part. Every boundary between two
    classes is in the contour of the lower one. ``winner``: argmax of S over the
    classes, when known. A picture's lines: for piecewise-linear networks
    ``relulab.model.regions.decisions`` computes them from the regions' maps instead."""
    S = np.asarray(S)
    if S.shape[0] == 1:
        return boundary_segments(S[0], xs, ys)
    if winner is None:
        winner = np.argmax(S, axis=0)
    # the best and the second-best score: two maxima over the classes, several times
    # faster than a partition along the first axis (a strided one)
    top = np.take_along_axis(S, winner[None], axis=0)[0]
    others = S.copy()
    np.put_along_axis(others, winner[None], -np.inf, axis=0)
    second = others.max(axis=0)
    parts = []
    for k in range(S.shape[0] - 1):
        wins = winner == k
        w00, w01, w11, w10 = wins[:-1, :-1], wins[:-1, 1:], wins[1:, 1:], wins[1:, :-1]
        some = w00 | w01 | w11 | w10
        if not some.any():
            continue
        cells = some & ~(w00 & w01 & w11 & w10)  # k wins some corners, not all
        lead = S[k] - np.where(wins, second, top)
        parts.append(boundary_segments(lead, xs, ys, cells=cells))
    return np.concatenate(parts) if parts else np.zeros((0, 2))
