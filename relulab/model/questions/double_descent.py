"""Double descent with random ReLU features: the test error against the width.

The model (one seed)::

    x ~ N(0, I_d),  y = β·x + noise·N(0, 1),  β ~ N(0, I_d) normalised to |β| = 1
    φ(x) = ReLU(W x + b) / √F,  rows of W ~ N(0, I/d),  b ~ N(0, bias²/d)
    f(x) = a·φ(x),  a the least-norm least-squares solution (ridge > 0: the minimiser of
           (1/n)|Φa − y|² + ridge·|a|²)

``width`` H is the number of features at scale 1. With ``second_scale = s`` every
width also has ``second_ratio``·H features whose weights and biases are multiplied by s
(ReLU(s·z) = s·ReLU(z)); F is the total count of features, H·(1 + second_ratio).

The test error is measured against the noiseless target β·x (``test_target =
"noiseless"``: the excess risk; the noise floor noise² is not in it); the train error
against the noisy labels the model was fitted to.

One pass per seed: the widest feature matrix is drawn once and every width takes its
first H columns (nested features), so the n × n Gram matrix Φ Φᵀ grows by blocks and
each width costs one n × n eigendecomposition. The least-norm solution is
a = Φᵀ (Φ Φᵀ)⁺ y at every width (Φ⁺ = Φᵀ(ΦΦᵀ)⁺), with the pseudo-inverse over the
min(n, F) largest eigenvalues (the rank of Φ for points in general position) less those
whose singular value is below ``RCOND`` times the largest: the Gram matrix cannot resolve
smaller ones, and it is ``np.linalg.pinv(Φ, rcond=RCOND)`` on the same data.

The infinite width (``kernel_mse``): Φ Φᵀ tends to the arc-cosine kernel of degree 1,
k(x, x') = |x̃||x̃'| (sin θ + (π − θ) cos θ) / (2π d) with x̃ = (x, bias) and θ the angle
between x̃ and x̃' (times (1 + r s²)/(1 + r) with a second scale): kernel regression
with it on the same data is the H = ∞ point of the curve.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from relulab.model.core.arrays import readonly
from relulab.model.core.cancel import ShouldStop, check

#: Singular values of Φ below RCOND × the largest count as zero (√ε of the Gram matrix).
RCOND = 1e-7
#: ``regime()``'s thresholds on (median test MSE at the largest width) / best_small().
BENIGN_BELOW = 1.0
CATASTROPHIC_ABOVE = 5.0
#: ``peaks()``'s default prominence: a factor of 2 above the deeper of the two valleys.
PEAK_PROMINENCE = 2.0

Array = np.ndarray[Any, Any]
Steps = Generator[tuple[int, int], None, Any]


def default_widths(n: int, count: int = 24, top: float = 20.0) -> Array:
    """``count`` widths log-spaced from 1 to ``top``·n, with n, 2n and 4n among them
    (the interpolation threshold and the widths the lesson quotes)."""
    grid = np.geomspace(1, top * n, count).round().astype(int)
    marks = [m for m in (n, 2 * n, 4 * n) if m <= top * n]
    return np.unique(np.r_[grid, marks, round(top * n)].astype(int))


def _check_widths(widths: Sequence[int] | Array) -> Array:
    w = np.unique(np.asarray(widths, dtype=int))
    if w.size == 0 or w[0] < 1:
        raise ValueError(f"widths must be positive integers, got {list(np.asarray(widths))}")
    return w


def _seed_list(seeds: int | Sequence[int]) -> list[int]:
    return list(range(seeds)) if isinstance(seeds, int | np.integer) else [int(s) for s in seeds]


# --- the data and the features of one seed -----------------------------------------------


@dataclass(frozen=True)
class _Data:
    beta: Array
    X: Array        # (n, d) train inputs
    y: Array        # (n,) noisy labels
    X_test: Array   # (t, d)
    y_test: Array   # (t,) noiseless targets β·x


def _draw_data(d: int, n: int, noise: float, test_points: int, seed: int) -> _Data:
    """The seed's data from its own stream ([seed, 0]): the same for every width and
    every feature draw (``lottery`` redraws features only)."""
    rng = np.random.default_rng([seed, 0])
    beta = rng.standard_normal(d)
    beta /= np.linalg.norm(beta)
    X = rng.standard_normal((n, d))
    X_test = rng.standard_normal((test_points, d))
    y = X @ beta + noise * rng.standard_normal(n)
    return _Data(beta, X, y, X_test, X_test @ beta)


def _raw_features(X: Array, rows: Array, bias: float) -> Array:
    """ReLU(W x + b) for the feature rows (W | g), b = bias·g, unnormalised: (N, H)."""
    d = X.shape[1]
    return np.maximum(X @ rows[:, :d].T + bias * rows[:, d], 0.0)


def _feature_rows(d: int, count: int, stream: Sequence[int]) -> Array:
    """``count`` rows (w, g) ~ N(0, I/d): row i is the same whatever ``count`` is, so a
    wider draw extends a narrower one."""
    return np.random.default_rng(list(stream)).standard_normal((count, d + 1)) / np.sqrt(d)


@dataclass(frozen=True)
class _Setup:
    d: int
    n: int
    noise: float
    bias: float
    second_scale: float | None
    second_ratio: int
    test_points: int

    @property
    def ratio(self) -> int:
        return self.second_ratio if self.second_scale is not None else 0

    def features(self, data: _Data, width: int, draw: Sequence[int]) -> tuple[Array, Array]:
        """Unnormalised train and test features for ``width`` (first-scale columns, then
        second-scale ones), from the streams ``[*draw, 1]`` and ``[*draw, 2]``."""
        rows = _feature_rows(self.d, width, [*draw, 1])
        tr, te = _raw_features(data.X, rows, self.bias), _raw_features(data.X_test, rows, self.bias)
        if self.ratio:
            s = float(self.second_scale)  # type: ignore[arg-type]
            rows2 = _feature_rows(self.d, self.ratio * width, [*draw, 2])
            tr = np.hstack([tr, s * _raw_features(data.X, rows2, self.bias)])
            te = np.hstack([te, s * _raw_features(data.X_test, rows2, self.bias)])
        return tr, te

    def kernel(self, A: Array, B: Array) -> Array:
        """The H = ∞ limit of Φ(A) Φ(B)ᵀ (the arc-cosine kernel of degree 1)."""
        Aa = np.hstack([A, np.full((len(A), 1), self.bias)])
        Ba = np.hstack([B, np.full((len(B), 1), self.bias)])
        na, nb = np.linalg.norm(Aa, axis=1), np.linalg.norm(Ba, axis=1)
        outer = np.outer(na, nb)
        with np.errstate(invalid="ignore", divide="ignore"):
            cos = np.clip(np.where(outer > 0, Aa @ Ba.T / outer, 1.0), -1.0, 1.0)
        theta = np.arccos(cos)
        k = outer * (np.sin(theta) + (np.pi - theta) * cos) / (2 * np.pi * self.d)
        if self.ratio:
            s = float(self.second_scale)  # type: ignore[arg-type]
            k *= (1 + self.ratio * s * s) / (1 + self.ratio)
        return k


def _solve(K: Array, y: Array, ridges: Array, rank: int) -> tuple[Array, float]:
    """Dual coefficients α (n, R) with a = Φᵀα for each ridge (0: the pseudo-inverse over
    the ``rank`` largest eigenvalues), and the condition number of Φ over that rank."""
    n = len(y)
    s, U = np.linalg.eigh(K)
    s, U = s[::-1][:rank], U[:, ::-1][:, :rank]
    keep = s > s[0] * RCOND**2 if s.size else s > 0
    s, U = s[keep], U[:, keep]
    c = U.T @ y
    lam = n * ridges[None, :]
    coef = np.where(lam > 0, 1.0 / (s[:, None] + lam), 1.0 / s[:, None])
    condition = float(np.sqrt(s[0] / s[-1])) if s.size else float("inf")
    return U @ (coef * c[:, None]), condition


@dataclass(frozen=True)
class _SeedCurves:
    test: Array      # (R, W)
    train: Array     # (R, W)
    norm: Array      # (R, W)
    condition: Array  # (W,)
    kernel: Array    # (R,)


def _seed_curves(setup: _Setup, widths: Array, ridges: Array, seed: int,
                 should_stop: ShouldStop = None) -> _SeedCurves:
    data = _draw_data(setup.d, setup.n, setup.noise, setup.test_points, seed)
    Ptr, Pte = setup.features(data, int(widths[-1]), [seed])
    r, top = setup.ratio, int(widths[-1])
    R, W = len(ridges), len(widths)
    test, train, norm = np.empty((R, W)), np.empty((R, W)), np.empty((R, W))
    condition = np.empty(W)
    S = np.zeros((setup.n, setup.n))  # unnormalised Φ Φᵀ of the columns taken so far
    done = 0
    for j, H in enumerate(widths):
        check(should_stop, "double descent")
        H = int(H)
        S += Ptr[:, done:H] @ Ptr[:, done:H].T
        if r:
            S += Ptr[:, top + r * done:top + r * H] @ Ptr[:, top + r * done:top + r * H].T
        done = H
        F = H * (1 + r)
        alpha, condition[j] = _solve(S / F, data.y, ridges, min(setup.n, F))
        # The width's columns are two slices (views, no copy): scale 1, then scale s.
        blocks = [slice(0, H)] + ([slice(top, top + r * H)] if r else [])
        parts = [Ptr[:, c].T @ alpha / np.sqrt(F) for c in blocks]   # output weights
        fit = sum(Ptr[:, c] @ a for c, a in zip(blocks, parts)) / np.sqrt(F)
        pred = sum(Pte[:, c] @ a for c, a in zip(blocks, parts)) / np.sqrt(F)
        train[:, j] = np.mean((fit - data.y[:, None]) ** 2, axis=0)
        test[:, j] = np.mean((pred - data.y_test[:, None]) ** 2, axis=0)
        norm[:, j] = np.sqrt(sum(np.sum(a * a, axis=0) for a in parts))
    alpha, _ = _solve(setup.kernel(data.X, data.X), data.y, ridges, setup.n)
    pred = setup.kernel(data.X_test, data.X) @ alpha
    kernel = np.mean((pred - data.y_test[:, None]) ** 2, axis=0)
    return _SeedCurves(test, train, norm, condition, kernel)


# --- the result ---------------------------------------------------------------------------


def _peaks(curve: Array, prominence: float) -> list[int]:
    """Indices of the local maxima of ``curve`` that stand ``prominence`` times above
    the higher of the two lowest points between them and a higher point (or the end)."""
    out = []
    for i in range(1, len(curve) - 1):
        if not (curve[i] > curve[i - 1] and curve[i] >= curve[i + 1]):
            continue
        valleys = []
        for step in (-1, 1):
            j, low = i + step, curve[i]
            while 0 <= j < len(curve) and curve[j] <= curve[i]:
                low = min(low, curve[j])
                j += step
            valleys.append(low)
        if curve[i] >= prominence * max(valleys):
            out.append(i)
    return out


@dataclass(frozen=True)
class DoubleDescent:
    """Test and train error against the width over seeds (rows) and widths (columns).

    ``regime()`` reads the ratio q = (median test MSE at the largest width) /
    ``best_small()``: q < 1 "benign" (the widest model beats every under-parametrised
    one), 1 ≤ q ≤ 5 "tempered", q > 5 "catastrophic".
    """

    widths: Array
    test_mse: Array        # (seeds, widths), against the noiseless target
    train_mse: Array       # (seeds, widths), against the noisy labels
    kernel_mse: Array      # (seeds,): the infinite width, same data
    weight_norm: Array     # (seeds, widths): |a|
    condition: Array       # (seeds, widths): condition number of Φ over its rank
    d: int
    n: int
    noise: float
    ridge: float
    seeds: tuple[int, ...]
    bias: float = 0.0
    second_scale: float | None = None
    second_ratio: int = 4
    test_points: int = 1000
    test_target: str = "noiseless"
    oracle: bool = False   # True when the ridge was chosen by the test error
    ridge_per_width: Array | None = field(default=None)

    def _values(self, name: str) -> Array:
        values = getattr(self, name)
        if not isinstance(values, np.ndarray) or values.ndim not in (1, 2):
            raise ValueError(f"no per-seed values named {name!r}")
        return values

    def median(self, name: str = "test_mse") -> Array:
        """The median over seeds of ``name`` (per width; a number for ``kernel_mse``)."""
        return np.median(self._values(name), axis=0)

    def band(self, name: str = "test_mse", lo: float = 0.1, hi: float = 0.9) -> tuple[Array, Array]:
        """The ``lo`` and ``hi`` quantiles over seeds of ``name``."""
        values = self._values(name)
        return np.quantile(values, lo, axis=0), np.quantile(values, hi, axis=0)

    def _small(self) -> Array:
        small = self.widths < self.n
        if not small.any():
            raise ValueError(f"no width below n = {self.n}")
        return small

    def best_small(self) -> float:
        """The lowest median test MSE over the widths H < n (the best small model)."""
        return float(self.median()[self._small()].min())

    def best_small_width(self) -> int:
        small = self._small()
        return int(self.widths[small][np.argmin(self.median()[small])])

    def ratio(self) -> float:
        """Median test MSE at the largest width / ``best_small()``."""
        return float(self.median()[-1]) / self.best_small()

    def regime(self) -> str:
        """"benign" (ratio < 1), "tempered" (1 … 5) or "catastrophic" (> 5)."""
        q = self.ratio()
        if q < BENIGN_BELOW:
            return "benign"
        return "tempered" if q <= CATASTROPHIC_ABOVE else "catastrophic"

    def wins(self) -> int:
        """In how many seeds the largest width beats that seed's best model with H < n."""
        best = self.test_mse[:, self._small()].min(axis=1)
        return int(np.sum(self.test_mse[:, -1] < best))

    def peaks(self, prominence: float = PEAK_PROMINENCE) -> Array:
        """Widths where the median test curve peaks: local maxima at least ``prominence``
        times the higher of their two valleys (the multiple descents)."""
        return self.widths[_peaks(self.median(), prominence)]

    def to_dict(self) -> dict[str, Any]:
        """Plain numbers: settings, widths, per-seed curves and the readouts."""
        out: dict[str, Any] = {
            "d": self.d, "n": self.n, "noise": self.noise, "ridge": self.ridge,
            "bias": self.bias, "second_scale": self.second_scale,
            "second_ratio": self.second_ratio, "test_points": self.test_points,
            "seeds": list(self.seeds), "test_target": self.test_target, "oracle": self.oracle,
            "widths": self.widths.tolist(),
        }
        for name in ("test_mse", "train_mse", "kernel_mse", "weight_norm", "condition"):
            out[name] = getattr(self, name).tolist()
        if self.ridge_per_width is not None:
            out["ridge_per_width"] = self.ridge_per_width.tolist()
        return out


def _build(setup: _Setup, widths: Array, seeds: list[int], ridge: float,
           stacks: dict[str, Array], **extra: Any) -> DoubleDescent:
    return DoubleDescent(
        widths=readonly(widths), test_mse=readonly(stacks["test"]),
        train_mse=readonly(stacks["train"]), kernel_mse=readonly(stacks["kernel"]),
        weight_norm=readonly(stacks["norm"]), condition=readonly(stacks["condition"]),
        d=setup.d, n=setup.n, noise=setup.noise, ridge=ridge, seeds=tuple(seeds),
        bias=setup.bias, second_scale=setup.second_scale, second_ratio=setup.second_ratio,
        test_points=setup.test_points, **extra)


def _setup(d: int, n: int, noise: float, bias: float, second_scale: float | None,
           second_ratio: int, test_points: int) -> _Setup:
    if d < 1 or n < 1 or test_points < 1:
        raise ValueError(f"d, n and test_points must be positive, got {d}, {n}, {test_points}")
    if second_scale is not None and (second_scale <= 0 or second_ratio < 1):
        raise ValueError("second_scale must be > 0 and second_ratio ≥ 1")
    return _Setup(int(d), int(n), float(noise), float(bias), second_scale, int(second_ratio),
                  int(test_points))


def double_descent_steps(d: int, n: int, noise: float, widths: Sequence[int] | Array,
                         seeds: int | Sequence[int], *, ridge: float = 0.0, bias: float = 0.0,
                         second_scale: float | None = None, second_ratio: int = 4,
                         test_points: int = 1000,
                         should_stop: ShouldStop = None) -> Generator[tuple[int, int], None,
                                                                      DoubleDescent]:
    """:func:`double_descent` one seed at a time: yields (seeds done, seeds in all) and
    returns the :class:`DoubleDescent` (``StopIteration.value``)."""
    setup = _setup(d, n, noise, bias, second_scale, second_ratio, test_points)
    w, seed_list = _check_widths(widths), _seed_list(seeds)
    if ridge < 0:
        raise ValueError(f"ridge must be ≥ 0, got {ridge}")
    curves = []
    for i, seed in enumerate(seed_list):
        check(should_stop, "double descent")
        curves.append(_seed_curves(setup, w, np.array([float(ridge)]), seed, should_stop))
        yield i + 1, len(seed_list)
    stacks = {name: np.array([getattr(c, name)[0] for c in curves])
              for name in ("test", "train", "norm", "kernel")}
    stacks["condition"] = np.array([c.condition for c in curves])
    return _build(setup, w, seed_list, float(ridge), stacks)


def run_steps(steps: Generator[tuple[int, int], None, Any],
              progress: Callable[[int, int], object] | None = None) -> Any:
    """Drive a ``..._steps`` generator to its end, passing each (done, total) to
    ``progress``; returns the generator's result."""
    while True:
        try:
            done, total = next(steps)
        except StopIteration as stop:
            return stop.value
        if progress is not None:
            progress(done, total)


def double_descent(d: int, n: int, noise: float, widths: Sequence[int] | Array,
                   seeds: int | Sequence[int], *, ridge: float = 0.0, bias: float = 0.0,
                   second_scale: float | None = None, second_ratio: int = 4,
                   test_points: int = 1000, should_stop: ShouldStop = None,
                   progress: Callable[[int, int], object] | None = None) -> DoubleDescent:
    """Test error of random-ReLU-feature regression against the width (module docstring).

    ``seeds`` is a count (seeds 0 … k−1) or a list. ``progress(done, total)`` is called
    after each seed; ``should_stop`` is checked between seeds and widths.
    """
    return run_steps(double_descent_steps(
        d, n, noise, widths, seeds, ridge=ridge, bias=bias, second_scale=second_scale,
        second_ratio=second_ratio, test_points=test_points, should_stop=should_stop), progress)


# --- the oracle ridge ---------------------------------------------------------------------

#: ``tuned_ridge``'s default grid (mean-square ridge, as ``double_descent``'s).
RIDGE_GRID = np.logspace(-7, 1, 17)


def tuned_ridge_steps(d: int, n: int, noise: float, widths: Sequence[int] | Array,
                      seeds: int | Sequence[int], *, ridges: Sequence[float] | Array | None = None,
                      bias: float = 0.0, second_scale: float | None = None,
                      second_ratio: int = 4, test_points: int = 1000,
                      should_stop: ShouldStop = None) -> Generator[tuple[int, int], None,
                                                                   DoubleDescent]:
    """:func:`tuned_ridge` one seed at a time: yields (seeds done, seeds in all)."""
    setup = _setup(d, n, noise, bias, second_scale, second_ratio, test_points)
    w, seed_list = _check_widths(widths), _seed_list(seeds)
    grid = np.asarray(RIDGE_GRID if ridges is None else ridges, dtype=float)
    if grid.ndim != 1 or grid.size == 0 or np.any(grid < 0):
        raise ValueError("ridges must be a non-empty list of numbers ≥ 0")
    curves = []
    for i, seed in enumerate(seed_list):
        check(should_stop, "tuned ridge")
        curves.append(_seed_curves(setup, w, grid, seed, should_stop))
        yield i + 1, len(seed_list)
    test = np.array([c.test for c in curves])                      # (seeds, R, W)
    pick = np.argmin(np.median(test, axis=0), axis=0)              # (W,)
    cols = np.arange(len(w))
    stacks = {name: np.array([getattr(c, name)[pick, cols] for c in curves])
              for name in ("test", "train", "norm")}
    kernel = np.array([c.kernel for c in curves])                  # (seeds, R)
    stacks["kernel"] = kernel[:, np.argmin(np.median(kernel, axis=0))]
    stacks["condition"] = np.array([c.condition for c in curves])
    return _build(setup, w, seed_list, float("nan"), stacks, oracle=True,
                  ridge_per_width=readonly(grid[pick]))


def tuned_ridge(d: int, n: int, noise: float, widths: Sequence[int] | Array,
                seeds: int | Sequence[int], *, ridges: Sequence[float] | Array | None = None,
                bias: float = 0.0, second_scale: float | None = None, second_ratio: int = 4,
                test_points: int = 1000, should_stop: ShouldStop = None,
                progress: Callable[[int, int], object] | None = None) -> DoubleDescent:
    """An ORACLE: at each width the ridge of the grid ``ridges`` (default ``RIDGE_GRID``)
    with the lowest median test MSE over the seeds, read off the test error itself, so
    it is the best any ridge can do, not what a model could choose from its training
    data. The result says so (``oracle=True``); ``ridge_per_width`` holds the choices
    and ``ridge`` is NaN. The kernel's ridge is chosen the same way. One
    eigendecomposition per width serves every ridge of the grid.
    """
    return run_steps(tuned_ridge_steps(
        d, n, noise, widths, seeds, ridges=ridges, bias=bias, second_scale=second_scale,
        second_ratio=second_ratio, test_points=test_points, should_stop=should_stop), progress)


# --- the lottery of feature draws ---------------------------------------------------------


@dataclass(frozen=True)
class Lottery:
    """One width, ``draws`` feature draws on the same data: each draw's test MSE (against
    the noiseless target), their spread max/min, and the test MSE of the ensemble (the
    average of the draws' predictions)."""

    width: int
    test_mse: Array       # (draws,)
    ensemble_mse: float
    d: int
    n: int
    noise: float
    ridge: float
    data_seed: int
    test_target: str = "noiseless"

    @property
    def spread(self) -> float:
        """max / min of the draws' test MSE."""
        return float(self.test_mse.max() / self.test_mse.min())

    def to_dict(self) -> dict[str, Any]:
        return {"width": self.width, "test_mse": self.test_mse.tolist(),
                "ensemble_mse": self.ensemble_mse, "spread": self.spread, "d": self.d,
                "n": self.n, "noise": self.noise, "ridge": self.ridge,
                "data_seed": self.data_seed, "test_target": self.test_target}


def _draw_stream(data_seed: int, draw: int) -> list[int]:
    """Draw 0 is ``double_descent``'s features for seed ``data_seed``; others their own."""
    return [data_seed] if draw == 0 else [data_seed, draw]


def lottery_steps(d: int, n: int, noise: float, H: int, draws: int = 10, data_seed: int = 0, *,
                  ridge: float = 0.0, bias: float = 0.0, second_scale: float | None = None,
                  second_ratio: int = 4, test_points: int = 1000,
                  should_stop: ShouldStop = None) -> Generator[tuple[int, int], None, Lottery]:
    """:func:`lottery` one draw at a time: yields (draws done, draws in all)."""
    setup = _setup(d, n, noise, bias, second_scale, second_ratio, test_points)
    if H < 1 or draws < 1:
        raise ValueError(f"H and draws must be positive, got {H}, {draws}")
    data = _draw_data(setup.d, setup.n, setup.noise, setup.test_points, data_seed)
    F = H * (1 + setup.ratio)
    preds = []
    for k in range(draws):
        check(should_stop, "lottery")
        Ptr, Pte = setup.features(data, H, _draw_stream(data_seed, k))
        alpha, _ = _solve(Ptr @ Ptr.T / F, data.y, np.array([float(ridge)]), min(n, F))
        preds.append(Pte @ (Ptr.T @ alpha[:, 0]) / F)
        yield k + 1, draws
    P = np.array(preds)
    test = np.mean((P - data.y_test) ** 2, axis=1)
    ensemble = float(np.mean((P.mean(axis=0) - data.y_test) ** 2))
    return Lottery(int(H), readonly(test), ensemble, setup.d, setup.n, setup.noise,
                   float(ridge), int(data_seed))


def lottery(d: int, n: int, noise: float, H: int, draws: int = 10, data_seed: int = 0, *,
            ridge: float = 0.0, bias: float = 0.0, second_scale: float | None = None,
            second_ratio: int = 4, test_points: int = 1000, should_stop: ShouldStop = None,
            progress: Callable[[int, int], object] | None = None) -> Lottery:
    """``draws`` feature draws of width ``H`` on the data of seed ``data_seed`` (draw 0 is
    ``double_descent``'s draw for that seed): how much the test error depends on the
    draw, and what averaging the draws gives."""
    return run_steps(lottery_steps(
        d, n, noise, H, draws, data_seed, ridge=ridge, bias=bias, second_scale=second_scale,
        second_ratio=second_ratio, test_points=test_points, should_stop=should_stop), progress)
