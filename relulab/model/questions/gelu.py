"""GELU against ReLU: what one can do that the other cannot, honestly framed.

- GELU contains ReLU in the limit: GELU(a z)/a → ReLU(z) as a → ∞, with
  |GELU(t) − ReLU(t)| ≤ ``GAP`` ≈ 0.17 for every t. So ``relu_as_gelu(net, a)``, the
  GELU net with each hidden pre-activation scaled by a and the next layer's weights by
  1/a, is within GAP/a · Σ|w_out| of a one-hidden-layer ReLU net (``relu_as_gelu_bound``):
  a GELU net of the same width is at least as expressive, up to any error.
- Fitted by the same training, the two differ by target: GELU is smooth and fits smooth
  targets better, ReLU's kinks fit a kink better (``gelu_vs_relu``). A GELU net has no
  linear regions, so the region counts of the other panels do not apply to it.

``gelu_vs_relu`` trains 1-H-1 nets (``MLP.random`` initialisations, the same for both
activations) full-batch with Adam on the mean squared error, on ``POINTS`` evenly
spaced points of [−1, 1]; the error is measured on a finer grid.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from relulab.model.core.arrays import readonly
from relulab.model.core.cancel import ShouldStop, check
from relulab.model.networks.activations import gelu, gelu_prime
from relulab.model.networks.mlp import MLP
from relulab.model.questions.double_descent import run_steps

Array = np.ndarray[Any, Any]

#: max_t |GELU(t) − ReLU(t)| = |t*|·Φ(−|t*|) at t* ≈ −0.7518 (found by ``_gap``).
GAP = 0.16997
#: The targets of ``gelu_vs_relu``: a smooth one and one with a kink.
TARGETS: dict[str, Callable[[Array], Array]] = {
    "smooth": lambda x: np.sin(np.pi * x),
    "kink": lambda x: np.abs(x),
}
POINTS = 64
WIDTH = 16
STEPS = 3000
LEARNING_RATE = 0.01


def _gap() -> float:
    """max_t |GELU(t) − ReLU(t)|, on a fine grid (the maximum is near t = −0.75)."""
    t = np.linspace(-3, 3, 600_001)
    return float(np.max(np.abs(gelu(t) - np.maximum(t, 0))))


def relu_as_gelu(net: MLP, a: float) -> MLP:
    """The GELU net computing Σ w_j GELU(a z_j)/a for a ReLU net's Σ w_j ReLU(z_j):
    hidden weights and biases times a, the next layer's weights over a."""
    if a <= 0:
        raise ValueError(f"the scale a must be > 0, got {a}")
    layers = []
    for i, (W, b) in enumerate(net.layers):
        W, b = np.array(W, float), np.array(b, float)
        if i < len(net.layers) - 1:
            W, b = W * a, b * a
        if i > 0:
            W = W / a
        layers.append((W, b))
    return MLP(layers, "gelu")


def relu_as_gelu_bound(net: MLP, a: float) -> float:
    """GAP/a · Σ|w_out|: the bound on |relu_as_gelu(net, a)(x) − net(x)| for every x,
    for a net of one hidden layer and one output."""
    if len(net.layers) != 2 or net.n_out != 1:
        raise ValueError("the bound is for one hidden layer and one output")
    return GAP / a * float(np.abs(net.layers[1][0]).sum())


@dataclass(frozen=True)
class GeluVsRelu:
    """Test mean squared error (activations × targets × seeds) of 1-H-1 fits."""

    activations: tuple[str, ...]
    targets: tuple[str, ...]
    seeds: tuple[int, ...]
    mse: Array
    width: int
    steps: int

    def median(self, activation: str, target: str) -> float:
        return float(np.median(self.mse[self.activations.index(activation),
                                        self.targets.index(target)]))

    def wins(self, activation: str, target: str) -> int:
        """In how many seeds ``activation`` fits ``target`` with the smaller error."""
        i = self.activations.index(activation)
        j = self.targets.index(target)
        return int(np.sum(self.mse[i, j] < self.mse[1 - i, j]))

    def to_dict(self) -> dict[str, Any]:
        return {"activations": list(self.activations), "targets": list(self.targets),
                "seeds": list(self.seeds), "mse": self.mse.tolist(), "width": self.width,
                "steps": self.steps}


class _Fits:
    """S nets 1-H-1 with one activation, full-batch Adam on the MSE, all at once."""

    def __init__(self, nets: Sequence[MLP], activation: str, lr: float):
        self.p = [np.array([n.layers[0][0][:, 0] for n in nets]),
                  np.array([n.layers[0][1] for n in nets]),
                  np.array([n.layers[1][0][0] for n in nets]),
                  np.array([n.layers[1][1][0] for n in nets])]
        self.gelu = activation == "gelu"
        self.lr = lr
        self.m = [np.zeros_like(q) for q in self.p]
        self.v = [np.zeros_like(q) for q in self.p]
        self.t = 0

    def __call__(self, x: Array) -> Array:
        w1, b1, w2, b2 = self.p
        z = x[None, :, None] * w1[:, None, :] + b1[:, None, :]
        h = gelu(z) if self.gelu else np.maximum(z, 0)
        return np.einsum("snh,sh->sn", h, w2) + b2[:, None]

    def step(self, x: Array, y: Array) -> None:
        w1, b1, w2, b2 = self.p
        z = x[None, :, None] * w1[:, None, :] + b1[:, None, :]
        h, dh = (gelu(z), gelu_prime(z)) if self.gelu else (np.maximum(z, 0), z > 0)
        r = (np.einsum("snh,sh->sn", h, w2) + b2[:, None] - y) * (2 / len(x))
        dz = r[:, :, None] * w2[:, None, :] * dh
        grads = [np.einsum("snh,n->sh", dz, x), dz.sum(1), np.einsum("sn,snh->sh", r, h),
                 r.sum(1)]
        self.t += 1
        c1, c2 = 1 - 0.9 ** self.t, 1 - 0.999 ** self.t
        for P, G, m, v in zip(self.p, grads, self.m, self.v):
            m *= 0.9
            m += 0.1 * G
            v *= 0.999
            v += 0.001 * G * G
            P -= self.lr * (m / c1) / (np.sqrt(v / c2) + 1e-8)


def gelu_vs_relu_steps(targets: Sequence[str] = tuple(TARGETS), seeds: int | Sequence[int] = 10,
                       *, width: int = WIDTH, steps: int = STEPS,
                       learning_rate: float = LEARNING_RATE, should_stop: ShouldStop = None,
                       chunk: int = 250) -> Generator[tuple[int, int], None, GeluVsRelu]:
    """:func:`gelu_vs_relu` in pieces: yields (steps done over all fits, in all)."""
    names = tuple(targets)
    unknown = [t for t in names if t not in TARGETS]
    if unknown:
        raise ValueError(f"targets must be among {tuple(TARGETS)}, got {unknown}")
    seed_list = list(range(seeds)) if isinstance(seeds, int) else [int(s) for s in seeds]
    x = np.linspace(-1, 1, POINTS)
    x_test = np.linspace(-1, 1, 1001)
    acts = ("relu", "gelu")
    mse = np.empty((2, len(names), len(seed_list)))
    total, done = 2 * len(names) * steps, 0
    for i, act in enumerate(acts):
        for j, name in enumerate(names):
            f = TARGETS[name]
            fits = _Fits([MLP.random([1, width, 1], seed=s) for s in seed_list], act,
                         learning_rate)
            y = f(x)
            left = steps
            while left > 0:
                check(should_stop, "training")
                for _ in range(min(chunk, left)):
                    fits.step(x, y)
                done += min(chunk, left)
                left -= min(chunk, left)
                yield done, total
            mse[i, j] = np.mean((fits(x_test) - f(x_test)) ** 2, axis=1)
    return GeluVsRelu(acts, names, tuple(seed_list), readonly(mse), int(width), int(steps))


def gelu_vs_relu(targets: Sequence[str] = tuple(TARGETS), seeds: int | Sequence[int] = 10, *,
                 width: int = WIDTH, steps: int = STEPS, learning_rate: float = LEARNING_RATE,
                 should_stop: ShouldStop = None,
                 progress: Callable[[int, int], object] | None = None) -> GeluVsRelu:
    """Fit 1-``width``-1 ReLU and GELU nets, the same initialisations, to each target
    (module docstring); the test MSE per activation, target and seed."""
    return run_steps(gelu_vs_relu_steps(targets, seeds, width=width, steps=steps,
                                        learning_rate=learning_rate,
                                        should_stop=should_stop), progress)
