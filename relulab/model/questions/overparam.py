"""Over-parametrisation on the two spirals: width against finding them, and pruning.

The nets are 2-H-1 ReLU classifiers (a logistic output, mean cross-entropy), started
as ``MLP.random([2, H, 1], seed)`` and trained full-batch with Adam exactly as
``relulab.model.fitting.classify.Trainer`` trains them (the same update), but all
seeds of one width at once: one batched numpy step serves every seed, so a sweep runs
live. The data: ``make_dataset("spirals", data_seed)`` (two arms of 100 points, 1.5
turns).

- ``spirals_by_width``: train accuracy per width and seed; a net "finds the spirals"
  when its train accuracy reaches ``FOUND`` (0.9).
- ``pruning``: one net trained, then its weights (both layers' matrices, not the
  biases) set to zero smallest |w| first, globally, at fractions 0 … 0.99; the largest
  fraction whose accuracy stays within ``TOLERANCE`` (0.02) of the unpruned accuracy.
  With shuffled labels a net of 128 units fits the spirals' points only in part
  (about 80% after the same training), and its share that can be pruned was
  smaller in seeds 0-2; one net is one draw, not a rule.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from relulab.model.core.arrays import readonly
from relulab.model.core.cancel import ShouldStop, check
from relulab.model.data.datasets import make_dataset
from relulab.model.networks.mlp import MLP
from relulab.model.questions.double_descent import run_steps

#: A net "finds the spirals" when its train accuracy is at least this.
FOUND = 0.9
#: ``pruning``: the accuracy may fall this much below the unpruned accuracy.
TOLERANCE = 0.02
#: Adam's settings (Trainer's defaults for beta1, beta2, eps).
LEARNING_RATE = 0.03
STEPS = 2000
PRUNE_FRACTIONS = np.r_[np.arange(0, 0.9, 0.05), np.arange(0.9, 0.99, 0.01), 0.99]

Array = np.ndarray[Any, Any]


class _Batch:
    """S nets 2-H-1 trained at once: parameters stacked along a first axis of seeds,
    the first layer kept as (S, 2, H) so that every product is a contiguous matmul."""

    def __init__(self, nets: Sequence[MLP], X: Array, y: Array, lr: float):
        first, second = [net.layers[0] for net in nets], [net.layers[1] for net in nets]
        self.params = [np.array([W.T for W, _ in first]), np.array([b for _, b in first]),
                       np.array([W[0] for W, _ in second]), np.array([b[0] for _, b in second])]
        self.X, self.XT = X, np.ascontiguousarray(X.T)
        self.y, self.lr = y.astype(float), lr
        self.m = [np.zeros_like(p) for p in self.params]
        self.v = [np.zeros_like(p) for p in self.params]
        self.t = 0

    def logits(self, X: Array, params: list[Array] | None = None) -> Array:
        """Outputs (S, N) at X; ``params`` as ``self.params`` (first layer (S, 2, H))."""
        W1t, b1, w2, b2 = self.params if params is None else params
        h = np.maximum(np.matmul(X, W1t) + b1[:, None, :], 0.0)
        return np.matmul(h, w2[:, :, None])[:, :, 0] + b2[:, None]

    def step(self) -> None:
        """One full-batch Adam step on the mean cross-entropy of a logistic output."""
        W1t, b1, w2, b2 = self.params
        z1 = np.matmul(self.X, W1t)                                      # (S, n, H)
        z1 += b1[:, None, :]
        on = z1 > 0
        h = np.maximum(z1, 0.0, out=z1)
        z = np.matmul(h, w2[:, :, None])[:, :, 0] + b2[:, None]
        with np.errstate(over="ignore"):
            dz = (1.0 / (1.0 + np.exp(-z)) - self.y) / len(self.y)      # (S, n)
        dh = np.multiply(dz[:, :, None], w2[:, None, :])
        np.multiply(dh, on, out=dh)
        grads = [np.matmul(self.XT, dh), dh.sum(1), np.matmul(dz[:, None, :], h)[:, 0, :],
                 dz.sum(1)]
        self.t += 1
        b1c, b2c = 1 - 0.9 ** self.t, 1 - 0.999 ** self.t
        for P, G, m, v in zip(self.params, grads, self.m, self.v):
            m *= 0.9
            m += 0.1 * G
            v *= 0.999
            v += 0.001 * G * G
            P -= self.lr * (m / b1c) / (np.sqrt(v / b2c) + 1e-8)

    def accuracy(self, params: list[Array] | None = None) -> Array:
        return np.mean((self.logits(self.X, params) > 0) == (self.y > 0.5), axis=1)

    def net_params(self, s: int) -> list[Array]:
        """Net ``s``'s (W1 (H, 2), b1, w2, b2)."""
        W1t, b1, w2, b2 = self.params
        return [W1t[s].T.copy(), b1[s].copy(), w2[s].copy(), b2[s].copy()]

    def nets(self) -> list[MLP]:
        out = []
        for s in range(len(self.params[3])):
            W1, b1, w2, b2 = self.net_params(s)
            out.append(MLP([(W1, b1), (w2[None, :], b2[None])]))
        return out


def _spirals(data_seed: int) -> tuple[Array, Array]:
    X, y = make_dataset("spirals", data_seed)
    return np.asarray(X, dtype=float), np.asarray(y, dtype=float)


def _train(batch: _Batch, steps: int, should_stop: ShouldStop, chunk: int = 250):
    """Train ``steps`` steps, checking ``should_stop`` every ``chunk``; yields steps done."""
    done = 0
    while done < steps:
        check(should_stop, "training")
        for _ in range(min(chunk, steps - done)):
            batch.step()
        done = min(done + chunk, steps)
        yield done


@dataclass(frozen=True)
class SpiralsByWidth:
    """Train accuracy (seeds × widths) of 2-H-1 nets on the two spirals."""

    widths: Array
    train_accuracy: Array   # (seeds, widths)
    seeds: tuple[int, ...]
    steps: int
    learning_rate: float
    data_seed: int = 0
    threshold: float = FOUND

    @property
    def found(self) -> Array:
        """(seeds, widths): train accuracy ≥ ``threshold``."""
        return self.train_accuracy >= self.threshold

    def found_count(self) -> Array:
        """Per width, in how many seeds the net found the spirals."""
        return self.found.sum(axis=0)

    def to_dict(self) -> dict[str, Any]:
        return {"widths": self.widths.tolist(), "train_accuracy": self.train_accuracy.tolist(),
                "found": self.found_count().tolist(), "seeds": list(self.seeds),
                "steps": self.steps, "learning_rate": self.learning_rate,
                "data_seed": self.data_seed, "threshold": self.threshold}


def spirals_by_width_steps(widths: Sequence[int], seeds: int | Sequence[int] = 10, *,
                           steps: int = STEPS, learning_rate: float = LEARNING_RATE,
                           data_seed: int = 0, should_stop: ShouldStop = None
                           ) -> Generator[tuple[int, int], None, SpiralsByWidth]:
    """:func:`spirals_by_width` in pieces: yields (training steps done, in all)."""
    w = [int(h) for h in widths]
    if not w or min(w) < 1 or steps < 1:
        raise ValueError("widths must be positive and steps ≥ 1")
    seed_list = list(range(seeds)) if isinstance(seeds, int) else [int(s) for s in seeds]
    X, y = _spirals(data_seed)
    acc = np.empty((len(seed_list), len(w)))
    total = steps * len(w)
    for j, H in enumerate(w):
        batch = _Batch([MLP.random([2, H, 1], seed=s) for s in seed_list], X, y, learning_rate)
        for done in _train(batch, steps, should_stop):
            yield j * steps + done, total
        acc[:, j] = batch.accuracy()
    return SpiralsByWidth(readonly(np.array(w)), readonly(acc), tuple(seed_list), int(steps),
                          float(learning_rate), int(data_seed))


def spirals_by_width(widths: Sequence[int] = (2, 4, 8, 16, 32, 64),
                     seeds: int | Sequence[int] = 10, *, steps: int = STEPS,
                     learning_rate: float = LEARNING_RATE, data_seed: int = 0,
                     should_stop: ShouldStop = None,
                     progress: Callable[[int, int], object] | None = None) -> SpiralsByWidth:
    """Train a 2-H-1 net per width and seed (``seeds``: a count or a list of init seeds)
    on the same spirals; the result counts the seeds that find them."""
    return run_steps(spirals_by_width_steps(widths, seeds, steps=steps,
                                            learning_rate=learning_rate, data_seed=data_seed,
                                            should_stop=should_stop), progress)


@dataclass(frozen=True)
class Pruning:
    """Train accuracy of one net as its smallest weights are set to zero."""

    fractions: Array       # share of the weights set to zero
    accuracy: Array        # train accuracy at each fraction
    width: int
    seed: int
    shuffled: bool
    net: MLP               # the trained, unpruned net
    tolerance: float = TOLERANCE

    @property
    def unpruned(self) -> float:
        return float(self.accuracy[0])

    def prunable(self) -> float:
        """The largest fraction whose accuracy is ≥ unpruned − ``tolerance``."""
        ok = self.accuracy >= self.unpruned - self.tolerance
        return float(self.fractions[ok].max())

    def to_dict(self) -> dict[str, Any]:
        return {"fractions": self.fractions.tolist(), "accuracy": self.accuracy.tolist(),
                "width": self.width, "seed": self.seed, "shuffled": self.shuffled,
                "tolerance": self.tolerance, "prunable": self.prunable()}


def prune(params: list[Array], fraction: float) -> list[Array]:
    """Copies of ``params`` (W1, b1, w2, b2 of one net) with the ⌊fraction·N⌋ weights of
    least |w| among W1 and w2 set to zero (biases kept; ties broken by position)."""
    W1, b1, w2, b2 = params
    flat = np.r_[W1.ravel(), w2.ravel()]
    cut = int(np.floor(fraction * flat.size + 1e-9))
    keep = np.ones(flat.size, dtype=bool)
    keep[np.argsort(np.abs(flat), kind="stable")[:cut]] = False
    flat = np.where(keep, flat, 0.0)
    return [flat[:W1.size].reshape(W1.shape), b1, flat[W1.size:].reshape(w2.shape), b2]


def pruning_steps(width: int, seed: int = 0, shuffled: bool = False, *, steps: int = STEPS,
                  learning_rate: float = LEARNING_RATE, data_seed: int = 0,
                  fractions: Sequence[float] | Array | None = None,
                  should_stop: ShouldStop = None) -> Generator[tuple[int, int], None, Pruning]:
    """:func:`pruning` in pieces: yields (training steps done, in all)."""
    X, y = _spirals(data_seed)
    if shuffled:
        y = np.random.default_rng([data_seed, seed, 7]).permutation(y)
    fr = np.asarray(PRUNE_FRACTIONS if fractions is None else fractions, dtype=float)
    if fr.size == 0 or fr[0] != 0 or np.any(np.diff(fr) <= 0) or fr[-1] >= 1:
        raise ValueError("fractions must rise from 0 and stay below 1")
    batch = _Batch([MLP.random([2, int(width), 1], seed=seed)], X, y, learning_rate)
    for done in _train(batch, steps, should_stop):
        yield done, steps
    one = batch.net_params(0)
    acc = np.empty(len(fr))
    for i, f in enumerate(fr):
        W1, b1, w2, b2 = prune(one, float(f))
        acc[i] = batch.accuracy([W1.T[None], b1[None], w2[None], b2[None]])[0]
    return Pruning(readonly(fr), readonly(acc), int(width), int(seed), bool(shuffled),
                   batch.nets()[0])


def pruning(width: int, seed: int = 0, shuffled: bool = False, *, steps: int = STEPS,
            learning_rate: float = LEARNING_RATE, data_seed: int = 0,
            fractions: Sequence[float] | Array | None = None, should_stop: ShouldStop = None,
            progress: Callable[[int, int], object] | None = None) -> Pruning:
    """Train one 2-``width``-1 net on the spirals (``shuffled``: on the same points with
    their labels permuted), then prune it by magnitude (module docstring)."""
    return run_steps(pruning_steps(width, seed, shuffled, steps=steps,
                                   learning_rate=learning_rate, data_seed=data_seed,
                                   fractions=fractions, should_stop=should_stop), progress)
