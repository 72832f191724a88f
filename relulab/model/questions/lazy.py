"""Lazy training: as the width grows, gradient descent barely moves the weights, and the
trained net is its own linearisation (kernel regression with the empirical NTK).

The net, in NTK parametrisation (the 1/√m outside, every parameter drawn N(0, 1))::

    f(x; θ) = (1/√m) Σ_j a_j ReLU(w_j x + b_j),   θ = (a, w, b) ~ N(0, I)

trained by full-batch gradient descent, rate ``lr``, ``steps`` steps, on the loss
(1/2n) Σ (f(x_i) − y_i)², with n points evenly spaced on [−1, 1] and y = sin(πx).

The linearised model f_lin(x; θ) = f(x; θ₀) + ∇f(x; θ₀)·(θ − θ₀) trained the same way
has a closed form: with K₀ = J₀J₀ᵀ the empirical NTK on the training points
(eigenpairs λ_i, u_i) and r₀ = f(X; θ₀) − y, after T steps
θ − θ₀ = J₀ᵀc, c = −Σ_i u_i (1 − (1 − lr·λ_i/n)^T)/λ_i · (u_i·r₀).

Per width and seed: the relative weight movement ‖θ_T − θ₀‖/‖θ₀‖ and the RMS distance,
on a grid of ``grid_points`` on [−1, 1], between the trained net and the trained
linearisation.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from relulab.model.core.arrays import readonly
from relulab.model.core.cancel import ShouldStop, check
from relulab.model.questions.double_descent import run_steps

Array = np.ndarray[Any, Any]
STEPS = 1000
LEARNING_RATE = 0.5


def lazy_data(n: int) -> tuple[Array, Array]:
    """The n training points: x evenly spaced on [−1, 1], y = sin(πx)."""
    x = np.linspace(-1.0, 1.0, n)
    return x, np.sin(np.pi * x)


def init_params(width: int, seed: int) -> Array:
    """θ₀ as rows (a, w, b), each N(0, I_m), from ``default_rng([seed, width])``."""
    return np.random.default_rng([seed, width]).standard_normal((3, width))


def net(theta: Array, x: Array) -> Array:
    """f(x; θ) for θ = (a, w, b) of shape (3, m)."""
    a, w, b = theta
    return np.maximum(np.outer(x, w) + b, 0.0) @ a / np.sqrt(theta.shape[1])


def jacobian(theta: Array, x: Array) -> Array:
    """∂f(x_k)/∂θ, shape (len(x), 3m), columns in the order (a, w, b)."""
    a, w, b = theta
    z = np.outer(x, w) + b
    on = (z > 0) * a / np.sqrt(theta.shape[1])
    return np.hstack([np.maximum(z, 0.0) / np.sqrt(theta.shape[1]), on * x[:, None], on])


def gradient_step(theta: Array, x: Array, y: Array, lr: float) -> Array:
    """One step of gradient descent on (1/2n)|f(X) − y|²: θ − lr·J(θ)ᵀ r / n, with
    J never formed."""
    a, w, b = theta
    z = np.outer(x, w) + b
    h = np.maximum(z, 0.0)
    scale = 1.0 / (np.sqrt(theta.shape[1]) * len(x))
    r = h @ a * (len(x) * scale) - y
    on = z > 0
    grad = np.array([h.T @ r, a * ((r * x) @ on), a * (r @ on)]) * scale
    return theta - lr * grad


def linearised(theta0: Array, x: Array, y: Array, grid: Array, lr: float, steps: int) -> Array:
    """The trained linearisation on ``grid`` (closed form, module docstring)."""
    J, n = jacobian(theta0, x), len(x)
    lam, U = np.linalg.eigh(J @ J.T)
    lam = np.maximum(lam, 0.0)
    r0 = net(theta0, x) - y
    with np.errstate(divide="ignore", invalid="ignore"):
        gain = np.where(lam > 1e-12 * max(lam.max(), 1e-300),
                        (1 - (1 - lr * lam / n) ** steps) / lam, lr * steps / n)
    c = -U @ (gain * (U.T @ r0))
    return net(theta0, grid) + jacobian(theta0, grid) @ (J.T @ c)


@dataclass(frozen=True)
class LazyTraining:
    """Per seed (rows) and width (columns): weight movement and distance to the kernel
    model; ``train_mse`` of the trained net."""

    widths: Array
    movement: Array       # ‖θ_T − θ₀‖ / ‖θ₀‖
    distance: Array       # RMS of f_T − f_lin on the grid
    train_mse: Array
    seeds: tuple[int, ...]
    n: int
    steps: int
    lr: float
    grid_points: int

    def median(self, name: str = "movement") -> Array:
        return np.median(getattr(self, name), axis=0)

    def to_dict(self) -> dict[str, Any]:
        return {"widths": self.widths.tolist(), "movement": self.movement.tolist(),
                "distance": self.distance.tolist(), "train_mse": self.train_mse.tolist(),
                "seeds": list(self.seeds), "n": self.n, "steps": self.steps, "lr": self.lr,
                "grid_points": self.grid_points}


def lazy_training_steps(widths: Sequence[int] = (16, 64, 256, 1024, 4096),
                        seeds: int | Sequence[int] = 3, *, n: int = 12, steps: int = STEPS,
                        lr: float = LEARNING_RATE, grid_points: int = 201,
                        should_stop: ShouldStop = None
                        ) -> Generator[tuple[int, int], None, LazyTraining]:
    """:func:`lazy_training` one (width, seed) at a time: yields (done, in all)."""
    w = [int(m) for m in widths]
    if not w or min(w) < 1 or n < 2 or steps < 1 or lr <= 0:
        raise ValueError("widths positive, n ≥ 2, steps ≥ 1 and lr > 0 expected")
    seed_list = list(range(seeds)) if isinstance(seeds, int) else [int(s) for s in seeds]
    x, y = lazy_data(n)
    grid = np.linspace(-1.0, 1.0, grid_points)
    shape = (len(seed_list), len(w))
    movement, distance, train = np.empty(shape), np.empty(shape), np.empty(shape)
    for j, m in enumerate(w):
        for i, seed in enumerate(seed_list):
            theta0 = init_params(m, seed)
            theta = theta0
            for t in range(steps):
                if t % 200 == 0:
                    check(should_stop, "lazy training")
                theta = gradient_step(theta, x, y, lr)
            movement[i, j] = np.linalg.norm(theta - theta0) / np.linalg.norm(theta0)
            lin = linearised(theta0, x, y, grid, lr, steps)
            distance[i, j] = np.sqrt(np.mean((net(theta, grid) - lin) ** 2))
            train[i, j] = np.mean((net(theta, x) - y) ** 2)
            yield j * len(seed_list) + i + 1, shape[0] * shape[1]
    return LazyTraining(readonly(np.array(w)), readonly(movement), readonly(distance),
                        readonly(train), tuple(seed_list), int(n), int(steps), float(lr),
                        int(grid_points))


def lazy_training(widths: Sequence[int] = (16, 64, 256, 1024, 4096),
                  seeds: int | Sequence[int] = 3, *, n: int = 12, steps: int = STEPS,
                  lr: float = LEARNING_RATE, grid_points: int = 201,
                  should_stop: ShouldStop = None,
                  progress: Callable[[int, int], object] | None = None) -> LazyTraining:
    """Train a 1-m-1 net in NTK parametrisation per width and seed, and compare it with
    its trained linearisation (module docstring)."""
    return run_steps(lazy_training_steps(widths, seeds, n=n, steps=steps, lr=lr,
                                         grid_points=grid_points, should_stop=should_stop),
                     progress)
