"""One-hot against soft targets: which classes look alike, and what a teacher adds.

The data: four Gaussian blobs (spread ``SPREAD``), two of them close together (classes
0 and 1, the look-alikes) and two far away. The classifiers are the softmax linear
classifiers of :mod:`relulab.model.questions.simplex` (full-batch gradient descent).

- ``one_hot_similarity``: trained on one-hot labels only, the classifier still gives a
  point of class 0 a sizeable probability of class 1 and almost none of the far
  classes: it learns which classes look alike on its own.
- ``soft_targets``: a student trained on a few points per class, once on their one-hot
  labels and once on a teacher's probabilities for the same points (the teacher: the
  same classifier trained on many points). The soft targets carry the teacher's
  knowledge of the boundaries into the few points, and the student scores higher.

Not here, because it does not hold reliably in the prototypes (4–7 of 10 seeds):
hierarchy-aware labels or label smoothing as an improvement.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from relulab.model.core.arrays import readonly
from relulab.model.questions.simplex import fit_linear_classifier, softmax

Array = np.ndarray[Any, Any]

CENTRES = np.array([[-0.55, 0.35], [-0.15, 0.35], [0.6, 0.35], [0.0, -0.6]])
SPREAD = 0.15
LOOKALIKE = (0, 1)
STEPS = 2000
LEARNING_RATE = 1.0


def lookalike_blobs(seed, n_per_class: int) -> tuple[Array, Array]:
    """``n_per_class`` points around each of ``CENTRES`` (labels 0 … 3)."""
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal(c, SPREAD, (n_per_class, 2)) for c in CENTRES])
    return X, np.repeat(np.arange(len(CENTRES)), n_per_class)


def _seeds(seeds: int | Sequence[int]) -> list[int]:
    return list(range(seeds)) if isinstance(seeds, int) else [int(s) for s in seeds]


@dataclass(frozen=True)
class Similarity:
    """Per seed: the mean probability a one-hot-trained classifier gives class 1 (the
    look-alike) and the far classes (each) on test points of class 0."""

    seeds: tuple[int, ...]
    lookalike: Array
    others: Array

    def to_dict(self) -> dict[str, Any]:
        return {"seeds": list(self.seeds), "lookalike": self.lookalike.tolist(),
                "others": self.others.tolist()}


def one_hot_similarity(seeds: int | Sequence[int] = 10, n_per_class: int = 100,
                       steps: int = STEPS) -> Similarity:
    """Train on one-hot labels, read the probabilities on fresh points of class 0."""
    seed_list = _seeds(seeds)
    look, far = np.empty(len(seed_list)), np.empty(len(seed_list))
    for i, s in enumerate(seed_list):
        X, y = lookalike_blobs([s, 0], n_per_class)
        Xt, yt = lookalike_blobs([s, 1], 200)
        fit = fit_linear_classifier(X, y, "softmax", steps=steps, lr=LEARNING_RATE,
                                    record=[0, steps])
        P = softmax(np.c_[Xt, np.ones(len(Xt))] @ fit.W.T)[yt == LOOKALIKE[0]]
        look[i] = P[:, LOOKALIKE[1]].mean()
        far[i] = P[:, 2:].mean()
    return Similarity(tuple(seed_list), readonly(look), readonly(far))


@dataclass(frozen=True)
class SoftTargets:
    """Per seed: test accuracy of the student on one-hot labels and on soft targets."""

    seeds: tuple[int, ...]
    one_hot: Array
    soft: Array
    n_per_class: int

    def gain(self) -> Array:
        return self.soft - self.one_hot

    def to_dict(self) -> dict[str, Any]:
        return {"seeds": list(self.seeds), "one_hot": self.one_hot.tolist(),
                "soft": self.soft.tolist(), "n_per_class": self.n_per_class}


def soft_targets(seeds: int | Sequence[int] = 10, n_per_class: int = 3,
                 teacher_per_class: int = 500, steps: int = STEPS) -> SoftTargets:
    """The teacher trains on ``teacher_per_class`` points a class; the students on
    ``n_per_class`` other points, one-hot or the teacher's probabilities."""
    seed_list = _seeds(seeds)
    hard, soft = np.empty(len(seed_list)), np.empty(len(seed_list))
    for i, s in enumerate(seed_list):
        Xb, yb = lookalike_blobs([s, 2], teacher_per_class)
        teacher = fit_linear_classifier(Xb, yb, "softmax", steps=steps, lr=LEARNING_RATE,
                                        record=[0, steps])
        X, y = lookalike_blobs([s, 3], n_per_class)
        Xt, yt = lookalike_blobs([s, 1], 200)
        Q = softmax(np.c_[X, np.ones(len(X))] @ teacher.W.T)
        hard[i], soft[i] = (
            fit_linear_classifier(X, target, "softmax", steps=steps, lr=LEARNING_RATE,
                                  X_test=Xt, y_test=yt, record=[0, steps]).accuracy
            for target in (y, Q))
    return SoftTargets(tuple(seed_list), readonly(hard), readonly(soft), int(n_per_class))
