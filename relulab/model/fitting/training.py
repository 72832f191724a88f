"""Training one-hidden-layer ReLU networks on a 1-D target, many restarts at once.

The network of each restart is f(x) = Σᵢ aᵢ·ReLU(wᵢx + bᵢ) + c (1 → H → 1): neuron i
is a hinge with its kink at kᵢ = −bᵢ/wᵢ. Training minimises the mean squared error
L = (1/N) Σₙ (f(xₙ) − yₙ)² with Adam, plain gradient descent or momentum, on all the
data (full batch) or on mini-batches.

Every restart (one per seed) is advanced together by the same call. The steps are
computed with prefix sums over the sorted points (see ``_training_kernels``), by a
compiled loop when numba is installed and by vectorised numpy otherwise.

::

    x = np.linspace(-3, 3, 400); y = np.sin(2 * x) + 0.3 * x ** 2
    result = train_hinge_net(x, y, hidden=12, seeds=range(6), steps=20_000, lr=0.01)
    result.rmse            # final root mean squared error of each restart
    for snap in iter_hinge_net(x, y, hidden=12, seeds=range(6), steps=2000, every=100):
        ...                # immutable snapshots for live display
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from relulab.model.core.arrays import readonly
from relulab.model.fitting import _training_kernels as kernels
from relulab.model.fitting.hinges import HingeFit, evenly_spaced_kinks, fit_hinges
from relulab.model.networks.activations import relu
from relulab.model.networks.mlp import MLP

#: the optimisers HingeNetTrainer supports: those its compiled step implements
OPTIMIZERS = kernels.OPTIMIZERS
INITS = ("spread", "he")
MAX_RESTARTS = 32
MAX_HIDDEN = 1024
#: Kink positions are kept at most this many times; older records are thinned to make room.
MAX_KINK_RECORDS = 1000


def init_hinge_net(seed: int, hidden: int, domain: tuple[float, float] = (-3.0, 3.0),
                   init: str = "spread"
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, float, np.random.Generator]:
    """Initial (w, b, a, c) for one restart, and its random generator (for mini-batches).

    ``init="spread"`` is the notebook's initialisation, kinks spread over the domain [lo, hi]::

        rng = numpy.random.default_rng(seed)
        w = choice([−1, 1], H) · uniform(0.5, 1.5, H)
        b = −w · uniform(lo, hi, H)          # kink −b/w uniform on the domain
        a = normal(0, 0.1, H);  c = 0

    ``init="he"``: w ~ N(0, 2) (He for one input), b ~ U(−0.5, 0.5), a ~ N(0, 2/H), c = 0.
    """
    rng = np.random.default_rng(seed)
    lo, hi = domain
    if init == "spread":
        w = rng.choice([-1, 1], hidden) * rng.uniform(0.5, 1.5, hidden)
        b = -w * rng.uniform(lo, hi, hidden)
        a = rng.normal(0, 0.1, hidden)
    elif init == "he":
        w = rng.normal(0.0, np.sqrt(2.0), hidden)
        b = rng.uniform(-0.5, 0.5, hidden)
        a = rng.normal(0.0, np.sqrt(2.0 / hidden), hidden)
    else:
        raise ValueError(f"unknown initialisation {init!r} (known: {', '.join(INITS)})")
    return w.astype(float), b.astype(float), a.astype(float), 0.0, rng


@dataclass(frozen=True, eq=False)
class RestartsSnapshot:
    """All restarts at one moment of training. Arrays are read-only; nothing changes later.

    ``w, b, a`` are (R, H), ``c`` is (R,), for the R restarts in the order of ``seeds``.
    ``losses[r, s]`` is the mean squared error (on the step's batch) before update s + 1;
    NaN after a restart diverged. ``rmse`` is the root mean squared error of the current
    parameters on all the data. ``diverged_at[r]`` is the step where restart r stopped
    (its loss or parameters stopped being finite), −1 while it runs; its parameters are
    the last finite ones. ``kink_steps``/``kink_history`` (T,), (T, R, H) record the
    kinks −b/w at every snapshot so far.
    """

    step: int
    seeds: tuple[int, ...]
    hidden: int
    w: np.ndarray
    b: np.ndarray
    a: np.ndarray
    c: np.ndarray
    losses: np.ndarray
    rmse: np.ndarray
    diverged_at: np.ndarray
    kink_steps: np.ndarray
    kink_history: np.ndarray
    lr: float
    optimizer: str
    batch_size: int | None
    domain: tuple[float, float]

    @property
    def restarts(self) -> int:
        return len(self.seeds)

    @property
    def diverged(self) -> np.ndarray:
        return self.diverged_at >= 0

    @property
    def kinks(self) -> np.ndarray:
        """(R, H) kink positions kᵢ = −bᵢ/wᵢ (±inf for a neuron with w = 0)."""
        with np.errstate(divide="ignore", invalid="ignore"):
            return -self.b / self.w

    @property
    def best(self) -> int:
        """Index of the restart with the lowest RMSE (diverged ones last)."""
        return int(np.argmin(np.where(self.diverged | ~np.isfinite(self.rmse), np.inf, self.rmse)))

    def kinks_inside(self, r: int) -> np.ndarray:
        """Sorted kinks of restart r that fall inside the domain (where they bend the curve)."""
        k = self.kinks[r]
        lo, hi = self.domain
        return np.sort(k[(k > lo) & (k < hi)])

    def predict(self, x, r: int | None = None) -> np.ndarray:
        """f(x) for every restart, (R, len(x)), or for restart r only, (len(x),).

        Evaluated with prefix sums over the sorted points, O(N + H log N) per restart."""
        x = np.asarray(x, dtype=float).ravel()
        rows = slice(None) if r is None else slice(r, r + 1)
        order = None
        if x.size > 1 and np.any(np.diff(x) < 0):
            order = np.argsort(x, kind="stable")
        xs = x if order is None else x[order]
        f = kernels.evaluate_sorted(xs, self.w[rows], self.b[rows], self.a[rows], self.c[rows])
        if order is not None:
            out = np.empty_like(f)
            out[:, order] = f
            f = out
        return f if r is None else f[0]

    def network(self, r: int) -> MLP:
        """Restart r as an MLP 1 → H → 1."""
        return MLP([(self.w[r][:, None], self.b[r]), (self.a[r][None, :], [self.c[r]])])

    def rmse_order(self) -> np.ndarray:
        """Restart indices sorted by final RMSE, best first (diverged last)."""
        key = np.where(self.diverged | ~np.isfinite(self.rmse), np.inf, self.rmse)
        return np.argsort(key, kind="stable")


class HingeNetTrainer:
    """All restarts of one training run, with the shape of the classifier's trainer
    (``relulab.model.fitting.classify.Trainer``): ``run(n)`` moves every live restart n steps,
    ``advance(n)`` does that and returns the :class:`RestartsSnapshot` after them,
    ``snapshot()`` describes the current one and ``step`` counts the steps.

    ``lr`` can be changed between calls without resetting anything (Adam's moments and
    the step count carry on). ``backend``: "auto" (compiled if numba works, else numpy),
    "numpy" (the vectorised reference) or "compiled".
    """

    def __init__(self, x, y, *, hidden: int = 12, seeds: Sequence[int] = range(6),
                 lr: float = 0.01, optimizer: str = "adam", batch_size: int | None = None,
                 init: str = "spread", domain: tuple[float, float] | None = None,
                 beta1: float = 0.9, beta2: float = 0.999, eps: float = 1e-8,
                 momentum: float = 0.9, backend: str = "auto"):
        x = np.asarray(x, dtype=float).ravel()
        y = np.asarray(y, dtype=float).ravel()
        if x.shape != y.shape:
            raise ValueError(f"x and y differ in length ({x.size} and {y.size})")
        if x.size < 2:
            raise ValueError("training needs at least two points")
        if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
            raise ValueError("the data must be finite numbers")
        hidden = int(hidden)
        if not 1 <= hidden <= MAX_HIDDEN:
            raise ValueError(f"hidden width must be between 1 and {MAX_HIDDEN}, got {hidden}")
        seeds = tuple(int(s) for s in seeds)
        if not 1 <= len(seeds) <= MAX_RESTARTS:
            raise ValueError(f"restarts must number between 1 and {MAX_RESTARTS}, got {len(seeds)}")
        if optimizer not in OPTIMIZERS:
            raise ValueError(f"unknown optimizer {optimizer!r} (known: {', '.join(OPTIMIZERS)})")
        if backend not in ("auto", "numpy", "compiled"):
            raise ValueError(f"unknown backend {backend!r}")
        if batch_size is not None:
            batch_size = int(batch_size)
            if batch_size < 1:
                raise ValueError(f"batch size must be at least 1, got {batch_size}")
            if batch_size >= x.size:
                batch_size = None  # a batch of all points is full batch
        for name, val in (("beta1", beta1), ("beta2", beta2), ("momentum", momentum)):
            if not 0 <= val < 1:
                raise ValueError(f"{name} must be in [0, 1), got {val}")
        if not eps > 0:
            raise ValueError(f"eps must be positive, got {eps}")
        order = np.argsort(x, kind="stable")
        self.x = np.ascontiguousarray(x[order])
        self.y = np.ascontiguousarray(y[order])
        self.domain = (float(self.x[0]), float(self.x[-1])) if domain is None else (
            float(domain[0]), float(domain[1]))
        self.hidden, self.seeds, self.optimizer = hidden, seeds, optimizer
        self.batch_size, self.init = batch_size, init
        self.beta1, self.beta2 = float(beta1), float(beta2)
        self.eps, self.momentum = float(eps), float(momentum)
        self.backend = backend
        self.lr = lr
        R, H = len(seeds), hidden
        self._P = np.zeros((R, 3 * H + 1))
        self._rngs = []
        for r, s in enumerate(seeds):
            w, b, a, c, rng = init_hinge_net(s, H, self.domain, init)
            self._P[r, :H], self._P[r, H:2 * H], self._P[r, 2 * H:3 * H], self._P[r, 3 * H] = w, b, a, c
            self._rngs.append(rng)
        self._m = np.zeros_like(self._P)
        self._v = np.zeros_like(self._P)
        self._diverged_at = np.full(R, -1, dtype=np.int64)
        self._order_left = [np.empty(0, dtype=np.int64) for _ in seeds]  # mini-batch epochs
        self.step = 0
        self._losses = np.empty((R, 1024))
        self._kink_steps = np.empty(64, dtype=np.int64)
        self._kink_hist = np.empty((64, R, H))
        self._n_kinks = 0
        self._kink_gap = 0.0
        self._record_kinks()

    # -- settings that do not reset ------------------------------------------------
    @property
    def lr(self) -> float:
        return self._lr

    @lr.setter
    def lr(self, value: float) -> None:
        value = float(value)
        if not (np.isfinite(value) and value > 0):
            raise ValueError(f"learning rate must be a positive number, got {value}")
        self._lr = value

    # -- stepping -----------------------------------------------------------------------
    def _batches(self, n: int) -> np.ndarray:
        """(R, n, B) sorted point indices; each restart walks through its own shuffled epochs."""
        R, B, N = len(self.seeds), self.batch_size, self.x.size
        if B is None:
            return np.zeros((R, 0, 0), dtype=np.int64)
        out = np.empty((R, n * B), dtype=np.int64)
        for r, rng in enumerate(self._rngs):
            stream = self._order_left[r]
            while stream.size < n * B:
                stream = np.concatenate([stream, rng.permutation(N)])
            out[r] = stream[:n * B]
            self._order_left[r] = stream[n * B:]
        return np.sort(out.reshape(R, n, B), axis=2)

    def _ensure_capacity(self, n: int) -> None:
        need = self.step + n
        if need > self._losses.shape[1]:
            grown = np.empty((self._losses.shape[0], max(need, 2 * self._losses.shape[1])))
            grown[:, :self.step] = self._losses[:, :self.step]
            self._losses = grown  # old snapshots keep their view of the old buffer

    def _record_kinks(self) -> None:
        """Remember the kinks at the current step, evenly in steps, at most MAX_KINK_RECORDS times."""
        n = self._n_kinks
        if n and self.step - self._kink_steps[n - 1] < self._kink_gap:
            return
        if n == self._kink_steps.size:
            if n >= MAX_KINK_RECORDS:
                # thin to every other record, in new buffers: old snapshots keep their views
                keep = np.arange(0, n, 2)
                steps, hist = self._kink_steps[keep].copy(), self._kink_hist[keep].copy()
                self._kink_gap = 2 * (self.step - int(steps[0])) / MAX_KINK_RECORDS
                n = keep.size
            else:
                steps, hist = self._kink_steps[:n], self._kink_hist[:n]
            size = min(2 * self._kink_steps.size, MAX_KINK_RECORDS)
            self._kink_steps = np.empty(size, dtype=np.int64)
            self._kink_hist = np.empty((size, *hist.shape[1:]))
            self._kink_steps[:n], self._kink_hist[:n] = steps, hist
            self._n_kinks = n
        H = self.hidden
        with np.errstate(divide="ignore", invalid="ignore"):
            self._kink_hist[n] = -self._P[:, H:2 * H] / self._P[:, :H]
        self._kink_steps[n] = self.step
        self._n_kinks = n + 1

    def run(self, n: int) -> int:
        """Advance every live restart by n steps without making a snapshot; returns n
        (a diverged restart keeps its last finite weights while the others go on)."""
        n = int(n)
        if n < 0:
            raise ValueError("cannot take a negative number of steps")
        if n == 0:
            return 0
        self._ensure_capacity(n)
        fn = kernels.advance_numpy if self.backend == "numpy" else kernels.advance_compiled
        if self.backend == "auto" and not kernels.compiled_available():
            fn = kernels.advance_numpy
        fn(self.x, self.y, self._batches(n), self._P, self._m, self._v, self._diverged_at,
           self._losses, self.step, self.step, n, self.hidden, self.optimizer, self._lr,
           self.beta1, self.beta2, self.eps, self.momentum)
        self.step += n
        self._record_kinks()
        return n

    def advance(self, n: int) -> RestartsSnapshot:
        """Advance every live restart by n steps and return the snapshot after them."""
        self.run(n)
        return self.snapshot()

    def snapshot(self) -> RestartsSnapshot:
        """Every restart now, with its RMSE on all the data (read-only arrays)."""
        H = self.hidden
        P = self._P.copy()
        w, b, a, c = P[:, :H], P[:, H:2 * H], P[:, 2 * H:3 * H], P[:, 3 * H]
        with np.errstate(over="ignore", invalid="ignore"):  # a diverged restart may overflow
            fitted = kernels.evaluate_sorted(self.x, w, b, a, c)
            rmse = np.sqrt(np.mean((fitted - self.y) ** 2, axis=1))
        rmse[~np.isfinite(rmse)] = np.inf
        return RestartsSnapshot(
            step=self.step, seeds=self.seeds, hidden=H,
            w=readonly(w), b=readonly(b), a=readonly(a), c=readonly(c),
            losses=readonly(self._losses[:, :self.step]), rmse=readonly(rmse),
            diverged_at=readonly(self._diverged_at.copy()),
            kink_steps=readonly(self._kink_steps[:self._n_kinks]),
            kink_history=readonly(self._kink_hist[:self._n_kinks]),
            lr=self._lr, optimizer=self.optimizer, batch_size=self.batch_size, domain=self.domain,
        )


def iter_hinge_net(x, y, *, steps: int, every: int = 100, **options) -> Iterator[RestartsSnapshot]:
    """Train like ``train_hinge_net`` and yield a snapshot at step 0 and every ``every`` steps
    (and at the end). The generator can be dropped at any time."""
    if every < 1:
        raise ValueError("every must be at least 1")
    trainer = HingeNetTrainer(x, y, **options)
    yield trainer.snapshot()
    while trainer.step < steps:
        yield trainer.advance(min(every, steps - trainer.step))


def train_hinge_net(x, y, *, hidden: int = 12, seeds: Sequence[int] = range(6), steps: int = 20_000,
                    lr: float = 0.01, optimizer: str = "adam", batch_size: int | None = None,
                    **options) -> RestartsSnapshot:
    """Train one 1 → H → 1 ReLU network per seed on (x, y), all restarts together.

    Minimises L = (1/N) Σ (Σᵢ aᵢ ReLU(wᵢxₙ + bᵢ) + c − yₙ)² for ``steps`` steps with
    ``optimizer`` ("adam": m ← β₁m + (1−β₁)g, v ← β₂v + (1−β₂)g², θ ← θ − lr·m̂/(√v̂ + ε);
    "momentum": m ← μm + g, θ ← θ − lr·m; "gd": θ ← θ − lr·g). Other options: ``init``,
    ``beta1``, ``beta2``, ``eps``, ``momentum``, ``domain``, ``backend``.
    Returns the final snapshot: ``.rmse`` in the order of ``seeds``, ``.losses``, ``.w`` …
    """
    trainer = HingeNetTrainer(x, y, hidden=hidden, seeds=seeds, lr=lr, optimizer=optimizer,
                              batch_size=batch_size, **options)
    return trainer.advance(steps)


# ---------------------------------------------------------------------------
# least squares references
# ---------------------------------------------------------------------------
def refit_output_layer(x, y, w, b) -> tuple[np.ndarray, float, float]:
    """The best output weights for fixed hidden neurons (fixed kinks), by least squares.

    Solves min over (a, c) of Σₙ (Σᵢ aᵢ ReLU(wᵢxₙ + bᵢ) + c − yₙ)²; returns (a, c, rmse).
    The gap between a trained network's RMSE and this one is what training left on the
    table for the kinks it found.
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    A = np.column_stack([relu(np.outer(x, np.asarray(w, float)) + np.asarray(b, float)), np.ones_like(x)])
    coef, *_ = np.linalg.lstsq(A, y, rcond=None)
    rmse = float(np.sqrt(np.mean((A @ coef - y) ** 2)))
    return coef[:-1], float(coef[-1]), rmse


def fit_even_hinges(x, y, n_kinks: int, lo: float, hi: float) -> HingeFit:
    """The notebook's reference, the "ghost" that training is compared with: n kinks evenly
    spaced inside [lo, hi], a straight line plus one hinge per kink, coefficients by
    least squares (the hinges panel's fit). 12 kinks on sin(2x) + 0.3x² over [−3, 3]
    (400 points) give RMSE 0.0254."""
    return fit_hinges(x, y, evenly_spaced_kinks(lo, hi, n_kinks))


def rmse_histogram(rmse, bins: int = 10) -> tuple[np.ndarray, np.ndarray]:
    """Counts and bin edges of the finite final RMSEs (log-spaced bins when they span a decade)."""
    r = np.asarray(rmse, dtype=float)
    r = r[np.isfinite(r) & (r > 0)]
    if r.size == 0:
        return np.zeros(0, dtype=int), np.zeros(1)
    lo, hi = r.min(), r.max()
    if hi <= lo:
        lo, hi = lo * 0.95, hi * 1.05
    edges = np.geomspace(lo, hi, bins + 1) if hi / lo > 10 else np.linspace(lo, hi, bins + 1)
    counts, edges = np.histogram(r, edges)
    return counts, edges


# ---------------------------------------------------------------------------
# what the Training panel offers (its state: relulab.model.lessons.training)
# ---------------------------------------------------------------------------
#: Speed labels as older scene files spell them (thousands grouped by a space), and the
#: label each reads as: the app's numbers group thousands with a comma.
OLD_SPEED_LABELS = {"1 000 steps/s": "1,000 steps/s", "10 000 steps/s": "10,000 steps/s"}


class _Speeds(dict):
    """label → steps per second; a label of an older file finds its speed too."""

    def __missing__(self, label: str) -> int | None:
        if label in OLD_SPEED_LABELS:
            return self[OLD_SPEED_LABELS[label]]
        raise KeyError(label)


#: Training speeds the panels offer: label → steps per second (None: as many as the
#: time budget of each tick allows). Scene files store the label.
SPEEDS: dict[str, int | None] = _Speeds({
    "10 steps/s": 10, "100 steps/s": 100, "1,000 steps/s": 1000, "10,000 steps/s": 10_000,
    "as fast as possible": None,
})
#: Every label a scene file may hold for a speed (read with :func:`speed_label`).
SPEED_LABELS_READ = (*SPEEDS, *OLD_SPEED_LABELS)


def speed_label(label: str) -> str:
    """The label a stored speed label reads as (an older spelling becomes today's)."""
    return OLD_SPEED_LABELS.get(label, label)
FINAL_VIEWS = ("sorted", "histogram")
#: What the Training panel lets a user set, in its controls and in scene files. The
#: largest run (32 restarts × 256 neurons × 4000 points) still trains in steps that fit
#: the event loop's budget (benchmarks/bench_training.py).
MIN_POINTS, MAX_POINTS = 10, 4000
MAX_WIDTH = 256
MAX_STEPS = 200_000
DOMAIN_LIMIT = 100.0
LR_RANGE = (1e-5, 10.0)
