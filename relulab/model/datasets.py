"""Two-class point sets in the plane for the playground, and their CSV text.

Every generator takes a seed (or a ``numpy.random.Generator``) and returns
``(X, y)``: ``X`` of shape (N, 2) with coordinates roughly in [−1, 1]², ``y`` of
shape (N,) holding 0.0 or 1.0. The same seed gives the same points.

``noise`` is the standard deviation of Gaussian noise added to the coordinates
after the labels are decided, so a noisy point may sit on the "wrong" side.
Reading and writing CSV files is ``relulab.io.points``: the model never touches files.
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

#: Largest number of points a CSV file or a generator may produce.
MAX_POINTS = 100_000


def _rng(seed) -> np.random.Generator:
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.default_rng(seed)


def _check(n_per_class: int, noise: float) -> tuple[int, float]:
    n = int(n_per_class)
    if n < 1 or 2 * n > MAX_POINTS:
        raise ValueError(f"points per class must be between 1 and {MAX_POINTS // 2}, got {n_per_class}")
    noise = float(noise)
    if not math.isfinite(noise) or noise < 0:
        raise ValueError(f"noise must be a finite number ≥ 0, got {noise}")
    return n, noise


def circles(seed=0, n_per_class: int = 90, noise: float = 0.12):
    """Seed 002's circles: a central disc (class 0) inside a ring (class 1).

    Exactly the lesson's draws, in its order, from one ``default_rng(seed)``::

        a0 ~ U(0, 2π), r0 = √U(0, 1) · 1.15            (n points, class 0)
        a1 ~ U(0, 2π), r1 ~ U(1.95, 2.8)               (n points, class 1)
        X  = (polar → Cartesian + noise · N(0, 1)) / 3

    Pass a ``Generator`` to keep drawing from it afterwards (the lesson draws the
    network's weights from the same generator right after the data).
    """
    n, noise = _check(n_per_class, noise)
    rng = _rng(seed)
    a0, r0 = rng.uniform(0, 2 * np.pi, n), np.sqrt(rng.uniform(0, 1, n)) * 1.15
    a1, r1 = rng.uniform(0, 2 * np.pi, n), rng.uniform(1.95, 2.8, n)
    X = np.vstack([np.c_[r0 * np.cos(a0), r0 * np.sin(a0)],
                   np.c_[r1 * np.cos(a1), r1 * np.sin(a1)]])
    X = (X + noise * rng.normal(size=X.shape)) / 3
    y = np.r_[np.zeros(n), np.ones(n)]
    return X, y


def xor(seed=0, n_per_class: int = 100, noise: float = 0.05):
    """XOR: class 1 where x₁ and x₂ have opposite signs (not linearly separable).

    Each class has n points uniform in its two quadrants of [−1, 1]², kept 0.05
    away from the axes so that the classes are separated before noise.
    """
    n, noise = _check(n_per_class, noise)
    rng = _rng(seed)
    size = rng.uniform(0.05, 1.0, (2 * n, 2))
    s1 = rng.choice([-1.0, 1.0], 2 * n)
    s2 = np.r_[s1[:n], -s1[n:]]  # same signs for class 0, opposite for class 1
    X = size * np.c_[s1, s2]
    y = np.r_[np.zeros(n), np.ones(n)]
    X = X + noise * rng.normal(size=X.shape)
    return X, y


def spirals(seed=0, n_per_class: int = 100, noise: float = 0.03, turns: float = 1.5):
    """Two interleaved spirals: r = t, angle = 2π·turns·t (+π for class 1), t ∈ (0.05, 1]."""
    n, noise = _check(n_per_class, noise)
    rng = _rng(seed)
    t = np.sqrt(rng.uniform(0.0025, 1, 2 * n))  # more points far out, where the arms are long
    angle = 2 * np.pi * turns * t + np.r_[np.zeros(n), np.full(n, np.pi)]
    X = np.c_[t * np.cos(angle), t * np.sin(angle)] * 0.95
    X = X + noise * rng.normal(size=X.shape)
    y = np.r_[np.zeros(n), np.ones(n)]
    return X, y


def gaussians(seed=0, n_per_class: int = 100, noise: float = 0.1):
    """Two Gaussian clouds, centres (−0.45, −0.45) and (0.45, 0.45), spread 0.2 + noise."""
    n, noise = _check(n_per_class, noise)
    rng = _rng(seed)
    spread = 0.2 + noise
    X = np.vstack([rng.normal(-0.45, spread, (n, 2)), rng.normal(0.45, spread, (n, 2))])
    y = np.r_[np.zeros(n), np.ones(n)]
    return X, y


def checkerboard(seed=0, n_per_class: int = 100, noise: float = 0.0, cells: int = 4):
    """2-D parity: [−1, 1]² cut into cells × cells squares, label = (i + j) mod 2.

    Points are drawn uniformly until each class has ``n_per_class``.
    """
    n, noise = _check(n_per_class, noise)
    cells = int(cells)
    if cells < 1:
        raise ValueError(f"cells must be ≥ 1, got {cells}")
    rng = _rng(seed)
    X = rng.uniform(-1, 1, (8 * n + 16, 2))
    ij = np.clip(np.floor((X + 1) * cells / 2).astype(int), 0, cells - 1)
    label = (ij[:, 0] + ij[:, 1]) % 2
    if cells == 1:
        keep0, keep1 = np.flatnonzero(label == 0)[: 2 * n], np.array([], dtype=int)
        X, y = X[keep0], np.zeros(len(keep0))
    else:
        keep0, keep1 = np.flatnonzero(label == 0)[:n], np.flatnonzero(label == 1)[:n]
        X = np.vstack([X[keep0], X[keep1]])
        y = np.r_[np.zeros(len(keep0)), np.ones(len(keep1))]
    X = X + noise * rng.normal(size=X.shape)
    return X, y


@dataclass(frozen=True)
class DatasetSpec:
    name: str
    label: str
    make: Callable
    noise: float           # default noise
    n_per_class: int       # default size


DATASETS: dict[str, DatasetSpec] = {
    d.name: d
    for d in (
        DatasetSpec("circles", "circles (seed 002)", circles, 0.12, 90),
        DatasetSpec("xor", "XOR", xor, 0.05, 100),
        DatasetSpec("spirals", "spirals", spirals, 0.03, 100),
        DatasetSpec("gaussians", "two Gaussians", gaussians, 0.1, 100),
        DatasetSpec("checkerboard", "checkerboard (parity)", checkerboard, 0.0, 100),
    )
}


def make_dataset(name: str, seed=0, n_per_class: int | None = None, noise: float | None = None):
    """The dataset ``name`` (a key of ``DATASETS``) with its defaults where not given."""
    try:
        d = DATASETS[name]
    except KeyError:
        raise ValueError(f"unknown dataset {name!r} (known: {', '.join(DATASETS)})") from None
    return d.make(seed, d.n_per_class if n_per_class is None else n_per_class,
                  d.noise if noise is None else noise)


def test_mask(n: int, test_fraction: float = 0.3, seed=0) -> np.ndarray:
    """A boolean mask choosing round(n · test_fraction) of n points for testing, at random."""
    f = float(test_fraction)
    if not (0 <= f < 1):
        raise ValueError(f"the test fraction must be in [0, 1), got {test_fraction}")
    n = int(n)
    mask = np.zeros(n, dtype=bool)
    mask[_rng(seed).permutation(n)[: int(round(n * f))]] = True
    return mask


test_mask.__test__ = False  # not a pytest test despite its name


def train_test_split(X, y, test_fraction: float = 0.3, seed=0):
    """``(X_train, y_train, X_test, y_test)`` with a random ``test_fraction`` held out."""
    X, y = np.asarray(X, float), np.asarray(y, float)
    mask = test_mask(len(y), test_fraction, seed)
    return X[~mask], y[~mask], X[mask], y[mask]


# -- CSV -----------------------------------------------------------------------

CSV_HEADER = ("x1", "x2", "label", "set")


def points_to_csv(X, y, is_test=None) -> str:
    """CSV text with the header ``x1,x2,label,set`` (set is ``train`` or ``test``)."""
    X, y = np.asarray(X, float).reshape(-1, 2), np.asarray(y, float).reshape(-1)
    is_test = np.zeros(len(y), bool) if is_test is None else np.asarray(is_test, bool)
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(CSV_HEADER)
    for (a, b), lab, t in zip(X, y, is_test):
        w.writerow([repr(float(a)), repr(float(b)), int(lab), "test" if t else "train"])
    return out.getvalue()


def points_from_csv(text: str):
    """Parse CSV text into ``(X, y, is_test)``, checking every line first.

    Columns: x1, x2, label (0 or 1) and optionally set (train/test; train when
    missing). A header line is optional. A ValueError names the line and what
    is wrong with it: too few columns, a number that is not finite, a label
    other than 0/1, more than ``MAX_POINTS`` points, or no points at all.
    """
    rows = list(csv.reader(io.StringIO(text)))
    X, y, t = [], [], []
    for lineno, row in enumerate(rows, start=1):
        cells = [c.strip() for c in row]
        if not cells or all(c == "" for c in cells) or cells[0].startswith("#"):
            continue
        if lineno == 1 and cells[0].lower() in ("x1", "x", "x_1"):
            continue  # header
        if len(cells) < 3:
            raise ValueError(f"line {lineno}: expected x1, x2, label but found {len(cells)} column(s)")
        if len(cells) > 4:
            raise ValueError(f"line {lineno}: expected at most 4 columns (x1, x2, label, set), found {len(cells)}")
        try:
            a, b = float(cells[0]), float(cells[1])
        except ValueError:
            raise ValueError(f"line {lineno}: coordinates must be numbers, got {cells[0]!r}, {cells[1]!r}") from None
        if not (math.isfinite(a) and math.isfinite(b)):
            raise ValueError(f"line {lineno}: coordinates must be finite, got {cells[0]}, {cells[1]}")
        if cells[2] not in ("0", "1", "0.0", "1.0"):
            raise ValueError(f"line {lineno}: label must be 0 or 1, got {cells[2]!r}")
        kind = cells[3].lower() if len(cells) == 4 else "train"
        if kind not in ("train", "test", ""):
            raise ValueError(f"line {lineno}: set must be 'train' or 'test', got {cells[3]!r}")
        X.append((a, b))
        y.append(float(cells[2]))
        t.append(kind == "test")
        if len(X) > MAX_POINTS:
            raise ValueError(f"line {lineno}: more than {MAX_POINTS} points")
    if not X:
        raise ValueError("the file holds no points")
    return np.array(X, float).reshape(-1, 2), np.array(y, float), np.array(t, bool)
