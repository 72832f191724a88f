"""Softmax against sparsemax: two maps from logits onto the probability simplex.

Both are projections onto the simplex Δ = {p ≥ 0, Σp = 1}:

- ``softmax(z)`` = argmin_{p ∈ Δ} ⟨p, log p⟩ − ⟨p, z⟩, the projection in the KL
  geometry (an entropy-regularised argmax): every class keeps a probability > 0;
- ``sparsemax(z)`` = argmin_{p ∈ Δ} |p − z|², the Euclidean projection
  (Martins & Astudillo 2016): p = max(z − τ, 0) with τ such that Σp = 1, so the
  classes whose logit is below τ get probability exactly 0.

``fit_linear_classifier`` trains a linear classifier z = W (x, 1) full-batch with one
of the two links and records its weights over the steps. With softmax the loss is the
cross-entropy; with sparsemax it is the sparsemax loss, whose gradient in z is
sparsemax(z) − onehot(y), as softmax's is softmax(z) − onehot(y). The sparsemax loss
is zero once the true class's logit leads every other by 1: on separable data the
gradient vanishes at a finite W and the weights stop; the cross-entropy is never zero,
and softmax's weights keep growing (like log t along the max-margin direction).

The data: ``blobs`` (three overlapping Gaussian blobs, the Playground's
``gaussians`` with noise 0.3, a test half drawn with the next seed) and ``separable``
(the same blobs with noise 0, 50 points each, linearly separable).
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike

from relulab.model.core.arrays import readonly
from relulab.model.core.cancel import ShouldStop, check
from relulab.model.data.datasets import make_dataset
from relulab.model.questions.double_descent import run_steps

Array = np.ndarray[Any, Any]
Link = Literal["softmax", "sparsemax"]
LINKS = ("softmax", "sparsemax")

#: The classifier's defaults: full-batch gradient descent.
STEPS = 30_000
LEARNING_RATE = 0.5
#: Steps whose weights ``fit_linear_classifier`` records unless told: 0, log-spaced
#: up to ``steps``, with 1,000 among them (the readout "growth from step 1,000").
RECORD_FROM = 1000


def softmax(z: ArrayLike) -> Array:
    """exp(z) / Σ exp(z) along the last axis (a vector, or each row of a 2-D array)."""
    z = np.asarray(z, dtype=float)
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def sparsemax_threshold(z: ArrayLike) -> Array:
    """τ(z) of sparsemax along the last axis: Σ max(z − τ, 0) = 1 (sorting, O(k log k))."""
    z = np.asarray(z, dtype=float)
    s = -np.sort(-z, axis=-1)
    k = np.arange(1, z.shape[-1] + 1)
    cum = np.cumsum(s, axis=-1) - 1.0
    # The support is the largest j with s_j > (Σ_{i≤j} s_i − 1) / j.
    support = np.sum(s * k > cum, axis=-1, keepdims=True)
    return np.take_along_axis(cum, support - 1, axis=-1) / support


def sparsemax(z: ArrayLike) -> Array:
    """The Euclidean projection of z onto the simplex, along the last axis."""
    z = np.asarray(z, dtype=float)
    return np.maximum(z - sparsemax_threshold(z), 0.0)


def _link(name: str) -> Callable[[Array], Array]:
    if name not in LINKS:
        raise ValueError(f"link must be one of {LINKS}, got {name!r}")
    return softmax if name == "softmax" else sparsemax


def blobs(seed: int = 0, n_per_class: int = 200, noise: float = 0.3
          ) -> tuple[Array, Array, Array, Array]:
    """Three overlapping Gaussian blobs: (X, y) from ``seed``, (X_test, y_test) from
    the stream [seed, 1] (labels 0, 1, 2 as ints)."""
    X, y = make_dataset("gaussians", seed, n_per_class, noise, classes=3)
    Xt, yt = make_dataset("gaussians", [seed, 1], n_per_class, noise, classes=3)
    return X, y.astype(int), Xt, yt.astype(int)


def separable(seed: int = 0) -> tuple[Array, Array]:
    """Three blobs without noise, 50 points each: linearly separable (labels as ints)."""
    X, y = make_dataset("gaussians", seed, 50, 0.0, classes=3)
    return X, y.astype(int)


def default_record(steps: int) -> Array:
    grid = np.geomspace(1, max(steps, 1), 40).round().astype(int)
    marks = [m for m in (RECORD_FROM,) if m <= steps]
    return np.unique(np.r_[0, grid, marks, steps]).astype(int)


@dataclass(frozen=True)
class LinearFit:
    """A linear classifier's training: its weights at the recorded steps and, on the
    test points, its accuracy, log-loss and the share where the true class gets 0."""

    link: str
    record: Array          # (r,) the steps whose weights are kept
    weights: Array         # (r, k, d + 1): W at those steps, the last column the bias
    train_loss: Array      # (r,) the link's loss on the train points
    accuracy: float        # test accuracy (argmax of the logits)
    zero_true: float       # share of test points where the true class's probability is 0
    log_loss: float        # mean −log p(true class) on the test points (inf if any is 0)
    steps: int
    learning_rate: float

    @property
    def W(self) -> Array:
        """The final weights (k, d + 1)."""
        return self.weights[-1]

    def norms(self) -> Array:
        """|W| (Frobenius) at each recorded step."""
        return np.linalg.norm(self.weights.reshape(len(self.record), -1), axis=1)

    def growth(self, start: int = RECORD_FROM) -> float:
        """|W_end| / |W_start| − 1: how much the weights grew after step ``start``."""
        n = self.norms()
        i = int(np.searchsorted(self.record, start))
        if i >= len(self.record) or self.record[i] != start:
            raise ValueError(f"step {start} was not recorded")
        return float(n[-1] / n[i] - 1.0)

    def change(self, start: int = RECORD_FROM) -> float:
        """|W_end − W_start| / |W_start|: how much the weights moved after ``start``."""
        i = int(np.searchsorted(self.record, start))
        if i >= len(self.record) or self.record[i] != start:
            raise ValueError(f"step {start} was not recorded")
        return float(np.linalg.norm(self.weights[-1] - self.weights[i])
                     / np.linalg.norm(self.weights[i]))

    def to_dict(self) -> dict[str, Any]:
        return {"link": self.link, "record": self.record.tolist(),
                "norms": self.norms().tolist(), "weights": self.weights[-1].tolist(),
                "train_loss": self.train_loss.tolist(), "accuracy": self.accuracy,
                "zero_true": self.zero_true,
                "log_loss": None if not np.isfinite(self.log_loss) else self.log_loss,
                "steps": self.steps, "learning_rate": self.learning_rate}


def _loss(link: str, Z: Array, y: Array) -> float:
    zy = Z[np.arange(len(y)), y]
    if link == "softmax":
        m = Z.max(axis=1)
        return float(np.mean(m + np.log(np.exp(Z - m[:, None]).sum(axis=1)) - zy))
    # The sparsemax loss: ½ Σ_{j ∈ S}(z_j² − τ²) + ½ − z_y, S the support.
    tau = sparsemax_threshold(Z)
    on = tau < Z
    return float(np.mean(0.5 * np.sum(np.where(on, Z * Z - tau * tau, 0.0), axis=1)
                         + 0.5 - zy))


def fit_linear_classifier_steps(X: ArrayLike, y: ArrayLike, link: Link = "softmax", *,
                                steps: int = STEPS, lr: float = LEARNING_RATE,
                                X_test: ArrayLike | None = None,
                                y_test: ArrayLike | None = None,
                                record: Sequence[int] | Array | None = None,
                                should_stop: ShouldStop = None, chunk: int = 1000
                                ) -> Generator[tuple[int, int], None, LinearFit]:
    """:func:`fit_linear_classifier` in pieces: yields (steps done, steps)."""
    f = _link(link)
    X = np.asarray(X, dtype=float)
    soft = np.asarray(y, dtype=float) if np.ndim(y) == 2 else None
    yi = np.asarray(y).astype(int) if soft is None else soft.argmax(axis=1)
    if X.ndim != 2 or len(X) != len(yi) or len(yi) == 0 or steps < 0:
        raise ValueError("X must be (n, d) with one label per row, steps ≥ 0")
    Xt = X if X_test is None else np.asarray(X_test, dtype=float)
    yt = yi if y_test is None else np.asarray(y_test).astype(int)
    k = int(max(yi.max(), yt.max())) + 1 if soft is None else soft.shape[1]
    A = np.c_[X, np.ones(len(X))]
    At = np.c_[Xt, np.ones(len(Xt))]
    Y = np.eye(k)[yi] if soft is None else soft
    rec = default_record(steps) if record is None else np.unique(np.asarray(record, int))
    if rec.size == 0 or rec[0] < 0 or rec[-1] > steps:
        raise ValueError("record must hold steps from 0 to steps")
    W = np.zeros((k, A.shape[1]))
    kept = np.empty((len(rec), k, A.shape[1]))
    losses = np.empty(len(rec))
    r = 0
    scale = lr / len(A)
    for t in range(steps + 1):
        if r < len(rec) and rec[r] == t:
            kept[r] = W
            losses[r] = _loss(link, A @ W.T, yi)
            r += 1
        if t == steps:
            break
        if t % chunk == 0:
            check(should_stop, "training")
            if t:
                yield t, steps
        W -= scale * (f(A @ W.T) - Y).T @ A
    yield steps, steps
    Zt = At @ W.T
    P = f(Zt)
    p_true = P[np.arange(len(yt)), yt]
    with np.errstate(divide="ignore"):
        log_loss = float(np.mean(-np.log(p_true)))
    return LinearFit(link, readonly(rec), readonly(kept), readonly(losses),
                     float(np.mean(Zt.argmax(axis=1) == yt)), float(np.mean(p_true == 0)),
                     log_loss, int(steps), float(lr))


def fit_linear_classifier(X: ArrayLike, y: ArrayLike, link: Link = "softmax", *,
                          steps: int = STEPS, lr: float = LEARNING_RATE,
                          X_test: ArrayLike | None = None, y_test: ArrayLike | None = None,
                          record: Sequence[int] | Array | None = None,
                          should_stop: ShouldStop = None,
                          progress: Callable[[int, int], object] | None = None) -> LinearFit:
    """Train z = W (x, 1) with ``link`` (softmax: cross-entropy; sparsemax: the sparsemax
    loss) by full-batch gradient descent from W = 0; the result keeps W at the steps
    ``record`` (default: log-spaced) and scores the test points (default: the train
    points). ``y``: class labels, or soft targets (n, k) whose rows are distributions
    (the gradient is then link(z) − target; ``train_loss`` is against their argmax)."""
    return run_steps(fit_linear_classifier_steps(
        X, y, link, steps=steps, lr=lr, X_test=X_test, y_test=y_test, record=record,
        should_stop=should_stop), progress)
