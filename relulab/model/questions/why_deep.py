"""Why add layers when x1·x2 separates XOR: one feature against hidden layers, and depth
making the product itself.

- ``product_feature``: a classifier on the single feature x1·x2 (logistic regression
  on (x1·x2, 1), Newton's method) scores 1.000 on XOR and little better than chance on
  the circles: a hand-made feature suits one dataset. Test points are drawn afresh.
- ``hidden_layer_fits``: a 2-16-16-1 ReLU net (``MLP.random``, trained with Adam as
  the classifier ``Trainer`` trains, all seeds at once) learns its own features and
  fits XOR, the circles, the spirals and the Gaussian blobs (the Playground's datasets).
- ``deep_square(m)``: Yarotsky's construction. The tent g(x) = 2 ReLU(x) − 4 ReLU(x − ½)
  maps [0, 1] onto itself; its s-fold composition g_s is a sawtooth with 2^(s−1) teeth,
  and f_m(x) = x − Σ_{s=1}^m g_s(x) / 4^s is the linear interpolation of x² at the
  2^m + 1 points j/2^m, so max_[0,1] |f_m − x²| = (2^−m)² / 4 = 4^−(m+1) exactly.
  With x·y = ((x + y)² − x² − y²)/2, depth buys the product: error ~4^−m with O(m)
  neurons where one hidden layer needs ~2^m.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import pairwise
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from relulab.model.core.arrays import readonly
from relulab.model.core.cancel import ShouldStop, check
from relulab.model.data.datasets import make_dataset
from relulab.model.networks.mlp import MLP
from relulab.model.questions.double_descent import run_steps

Array = np.ndarray[Any, Any]

#: The datasets of ``hidden_layer_fits`` (keys of the Playground's DATASETS).
DATASETS = ("xor", "circles", "spirals", "gaussians")
#: The hidden net's shape, Adam's rate and steps (the Playground's Adam settings).
HIDDEN = (16, 16)
LEARNING_RATE = 0.03
STEPS = 2000
#: A dataset is "solved" when the test accuracy reaches this.
SOLVED = 0.9


# --- Yarotsky's deep square -----------------------------------------------------------


def deep_square(m: int) -> MLP:
    """An MLP 1 → 3 → … → 3 → 1 (m hidden layers of 3 ReLUs) computing f_m on [0, 1]
    (module docstring); m = 0 is the line f_0(x) = x.

    Hidden layer j holds (ReLU(g_{j−1}), ReLU(g_{j−1} − ½), ReLU(f_{j−1})) with
    g_0 = f_0 = x: from them g_j = 2u − 4v and f_j = f_{j−1} − g_j / 4^j. The carried
    f_{j−1} passes a ReLU unchanged because f_j ≥ x² ≥ 0 on [0, 1]. Every weight is a
    dyadic rational, so the doubles compute f_m exactly at dyadic inputs."""
    m = int(m)
    if m < 0:
        raise ValueError(f"depth m must be ≥ 0, got {m}")
    if m == 0:
        return MLP([(np.ones((1, 1)), np.zeros(1))])
    layers = [(np.array([[1.0], [1.0], [1.0]]), np.array([0.0, -0.5, 0.0]))]
    for j in range(1, m):
        # (u, v, w) → g_j = 2u − 4v, f_j = w − g_j / 4^j
        c = 4.0 ** -j
        g = [2.0, -4.0, 0.0]
        f = [-2.0 * c, 4.0 * c, 1.0]
        layers.append((np.array([g, g, f]), np.array([0.0, -0.5, 0.0])))
    c = 4.0 ** -m
    layers.append((np.array([[-2.0 * c, 4.0 * c, 1.0]]), np.zeros(1)))
    return MLP(layers)


def square_error_bound(m: int) -> Fraction:
    """4^−(m+1): the max error of ``deep_square(m)`` against x² on [0, 1]."""
    return Fraction(1, 4 ** (int(m) + 1))


def exact_max_error(net: MLP, lo: Fraction = Fraction(0), hi: Fraction = Fraction(1)) -> Fraction:
    """max_[lo, hi] |net(x) − x²| in rational arithmetic, from the net's exact pieces
    (``relulab.model.networks.exact.exact_line``): on each piece net(x) − x² is concave,
    so its largest value is at the vertex x = slope/2 when inside the piece, and its
    smallest at an end."""
    from relulab.model.networks.exact import exact_line

    ex = exact_line(net)
    knots = [t for t in ex.knots if lo < t < hi]
    ends = [lo, *knots, hi]

    def piece_of(x: Fraction) -> int:   # the piece right of x (the ray index)
        return sum(1 for t in ex.knots if t <= x)

    def value(x: Fraction, k: int) -> Fraction:
        if k == 0:
            t0 = ex.knots[0] if ex.knots else Fraction(0)
            v0 = ex.values[0][0] if ex.knots else ex.origin_values[0]
            return v0 + ex.slopes[0][0] * (x - t0)
        return ex.values[k - 1][0] + ex.slopes[k][0] * (x - ex.knots[k - 1])

    worst = Fraction(0)
    for a, b in pairwise(ends):
        k = piece_of(a)
        s = ex.slopes[k][0]
        for x in (a, b):
            worst = max(worst, abs(value(x, k) - x * x))
        vertex = s / 2
        if a < vertex < b:
            worst = max(worst, abs(value(vertex, k) - vertex * vertex))
    return worst


# --- one feature against hidden layers --------------------------------------------------


#: Test points per class, drawn afresh (the stream [seed, 1]) so that a score of a
#: few percent is not the noise of a small held-out set.
TEST_PER_CLASS = 500


def _data(name: str, seed: int, noise: float | None = None
          ) -> tuple[Array, Array, Array, Array]:
    """The dataset's default train points from ``seed``, test points from [seed, 1]."""
    X, y = make_dataset(name, seed, noise=noise)
    Xt, yt = make_dataset(name, [seed, 1], TEST_PER_CLASS, noise=noise)
    return X, y, Xt, yt


def logistic_fit(F: ArrayLike, y: ArrayLike, iterations: int = 50, ridge: float = 1e-6) -> Array:
    """Weights w of logistic regression on the columns of F (a bias column added last),
    by Newton's method with a tiny ridge (so separable data stops at a finite w)."""
    Fa = np.asarray(F, dtype=float)
    A = np.c_[Fa, np.ones(len(Fa))]
    yv = np.asarray(y, dtype=float)
    w = np.zeros(A.shape[1])
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-np.clip(A @ w, -500, 500)))
        g = A.T @ (p - yv) / len(yv) + ridge * w
        H = (A * (p * (1 - p))[:, None]).T @ A / len(yv) + ridge * np.eye(len(w))
        step = np.linalg.solve(H, g)
        w -= step
        if np.max(np.abs(step)) < 1e-10:
            break
    return w


@dataclass(frozen=True)
class FeatureScores:
    """Test accuracy per dataset and seed of one classifier: the feature x1·x2 alone
    (``kind`` "x1·x2") or a 2-16-16-1 net (``kind`` "2-16-16-1")."""

    kind: str
    datasets: tuple[str, ...]
    seeds: tuple[int, ...]
    accuracy: Array         # (datasets, seeds)

    def median(self, name: str) -> float:
        return float(np.median(self.accuracy[self.datasets.index(name)]))

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "datasets": list(self.datasets), "seeds": list(self.seeds),
                "accuracy": self.accuracy.tolist()}


def _seeds(seeds: int | Sequence[int]) -> list[int]:
    return list(range(seeds)) if isinstance(seeds, int) else [int(s) for s in seeds]


def product_feature(datasets: Sequence[str] = ("xor", "circles"),
                    seeds: int | Sequence[int] = 10, noise: float | None = None
                    ) -> FeatureScores:
    """Logistic regression on the single feature x1·x2, fitted on each dataset's
    points (``noise``: the dataset's default unless given) and scored on fresh ones."""
    names, seed_list = tuple(datasets), _seeds(seeds)
    acc = np.empty((len(names), len(seed_list)))
    for i, name in enumerate(names):
        for j, s in enumerate(seed_list):
            X, y, Xt, yt = _data(name, s, noise)
            w = logistic_fit((X[:, 0] * X[:, 1])[:, None], y)
            z = w[0] * Xt[:, 0] * Xt[:, 1] + w[1]
            acc[i, j] = np.mean((z > 0) == (yt > 0.5))
    return FeatureScores("x1·x2", names, tuple(seed_list), readonly(acc))


class _Adam:
    """S ReLU classifiers of one shape (a logistic output) trained at once, full batch,
    each on its own points X (S, N, d), with Adam exactly as the classifier ``Trainer``
    updates (beta 0.9 / 0.999, eps 1e-8, mean cross-entropy)."""

    def __init__(self, nets: Sequence[MLP], X: Array, y: Array, lr: float):
        self.W = [np.array([net.layers[i][0].T for net in nets]) for i in range(len(nets[0].layers))]
        self.b = [np.array([net.layers[i][1] for net in nets]) for i in range(len(nets[0].layers))]
        self.X, self.y, self.lr = X, y, lr
        self.m = [np.zeros_like(p) for p in self.W + self.b]
        self.v = [np.zeros_like(p) for p in self.W + self.b]
        self.t = 0

    def outputs(self, X: Array) -> Array:
        h = X
        for i, (W, b) in enumerate(zip(self.W, self.b)):
            h = np.matmul(h, W) + b[:, None, :]
            if i < len(self.W) - 1:
                h = np.maximum(h, 0.0)
        return h[:, :, 0]

    def step(self) -> None:
        hs, h = [self.X], self.X
        for i, (W, b) in enumerate(zip(self.W, self.b)):
            h = np.matmul(h, W) + b[:, None, :]
            if i < len(self.W) - 1:
                h = np.maximum(h, 0.0)
                hs.append(h)
        with np.errstate(over="ignore"):
            d = (1.0 / (1.0 + np.exp(-h)) - self.y[:, :, None]) / self.y.shape[1]
        gW, gb = [], []
        for i in range(len(self.W) - 1, -1, -1):
            gW.append(np.matmul(np.swapaxes(hs[i], 1, 2), d))
            gb.append(d.sum(axis=1))
            if i:
                d = np.matmul(d, np.swapaxes(self.W[i], 1, 2)) * (hs[i] > 0)
        grads = gW[::-1] + gb[::-1]
        self.t += 1
        c1, c2 = 1 - 0.9 ** self.t, 1 - 0.999 ** self.t
        for P, G, m, v in zip(self.W + self.b, grads, self.m, self.v):
            m *= 0.9
            m += 0.1 * G
            v *= 0.999
            v += 0.001 * G * G
            P -= self.lr * (m / c1) / (np.sqrt(v / c2) + 1e-8)


def hidden_layer_fits_steps(datasets: Sequence[str] = DATASETS,
                            seeds: int | Sequence[int] = 10, *, steps: int = STEPS,
                            learning_rate: float = LEARNING_RATE,
                            hidden: Sequence[int] = HIDDEN, should_stop: ShouldStop = None,
                            chunk: int = 250) -> Generator[tuple[int, int], None, FeatureScores]:
    """:func:`hidden_layer_fits` in pieces: yields (steps done over the datasets, in all).
    The seeds of one dataset train at once (``MLP.random`` nets, the seed's points)."""
    names, seed_list = tuple(datasets), _seeds(seeds)
    acc = np.empty((len(names), len(seed_list)))
    total = len(names) * steps
    for i, name in enumerate(names):
        data = [_data(name, s) for s in seed_list]
        batch = _Adam([MLP.random([2, *hidden, 1], seed=s) for s in seed_list],
                      np.array([d[0] for d in data]), np.array([d[1] for d in data]),
                      learning_rate)
        done = 0
        while done < steps:
            check(should_stop, "training")
            k = min(chunk, steps - done)
            for _ in range(k):
                batch.step()
            done += k
            yield i * steps + done, total
        z = batch.outputs(np.array([d[2] for d in data]))
        acc[i] = np.mean((z > 0) == (np.array([d[3] for d in data]) > 0.5), axis=1)
    label = "-".join(str(n) for n in (2, *hidden, 1))
    return FeatureScores(label, names, tuple(seed_list), readonly(acc))


def hidden_layer_fits(datasets: Sequence[str] = DATASETS, seeds: int | Sequence[int] = 10, *,
                      steps: int = STEPS, learning_rate: float = LEARNING_RATE,
                      hidden: Sequence[int] = HIDDEN, should_stop: ShouldStop = None,
                      progress: Callable[[int, int], object] | None = None) -> FeatureScores:
    """Train a 2-16-16-1 ReLU net per dataset and seed on the dataset's points (Adam,
    ``steps`` full-batch steps) and score it on fresh points."""
    return run_steps(hidden_layer_fits_steps(datasets, seeds, steps=steps,
                                             learning_rate=learning_rate, hidden=hidden,
                                             should_stop=should_stop), progress)
