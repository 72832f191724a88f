"""Point sets in the plane for the playground, two classes or more, regression problems,
and their CSV text.

Every generator takes a seed (or a ``numpy.random.Generator``) and returns
``(X, y)``: ``X`` of shape (N, 2) with coordinates roughly in [−1, 1]², ``y`` of
shape (N,) holding the classes 0.0, 1.0, … The same seed gives the same points.
Datasets that have a natural number of classes take ``classes`` (2 to
``MAX_CLASSES``): k rings, k spiral arms, k blobs, a checkerboard in k colours; with
two classes each is exactly the two-class set it always was.

``noise`` is the standard deviation of Gaussian noise added to the coordinates
after the labels are decided, so a noisy point may sit on the "wrong" side.
Reading and writing CSV files is ``relulab.io.points``: the model never touches files.

**Regression problems** (``DatasetSpec.task == "regress"``, names ``regress_*``) give
each point a real target instead of a class: ``y`` holds numbers in about [−1.2, 1.2],
and ``n_per_class`` is the number of points. They are TensorFlow Playground's "plane"
and "multi Gaussian" with its square [−6, 6]² shrunk to [−1, 1]², and a function
f(x₁, x₂) typed by the user (parsed, never evaluated as Python); the target is taken
at the point before the noise moves it, as above. Train them with
``TrainConfig(loss="mse")`` (``relulab.model.fitting.classify``): the loss is chosen by
the caller, not guessed from the labels, and ``DatasetSpec.loss`` names the one that suits.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from relulab.model.data.expression import TWO_VARIABLES, Expression, parse_expression

#: Largest number of points a CSV file or a generator may produce.
MAX_POINTS = 100_000
#: Largest number of classes a dataset, a CSV file or the playground may have.
MAX_CLASSES = 6
#: The boundary dataset's curve when none is given.
DEFAULT_BOUNDARY = "sin(3*x)/2"
#: The typed regression problem's function when none is given: from −1 to 1 on [−1, 1]².
DEFAULT_FORMULA = "sin(3*x1) * x2"


def _rng(seed) -> np.random.Generator:
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.default_rng(seed)


def _check(n_per_class: int, noise: float, classes: int = 2) -> tuple[int, float, int]:
    k = classes
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 2 <= k <= MAX_CLASSES:
        raise ValueError(f"classes must be a whole number from 2 to {MAX_CLASSES}, got {classes!r}")
    k = int(k)
    n = int(n_per_class)
    if n < 1 or k * n > MAX_POINTS:
        raise ValueError(f"points per class must be between 1 and {MAX_POINTS // k}, got {n_per_class}")
    noise = float(noise)
    if not math.isfinite(noise) or noise < 0:
        raise ValueError(f"noise must be a finite number ≥ 0, got {noise}")
    return n, noise, k


def _labels(n: int, k: int) -> np.ndarray:
    return np.repeat(np.arange(k, dtype=float), n)


def circles(seed=0, n_per_class: int = 90, noise: float = 0.12, classes: int = 2):
    """The lesson's circles: a central disc (class 0) inside a ring (class 1).

    Exactly the lesson's draws, in its order, from one ``default_rng(seed)``::

        a0 ~ U(0, 2π), r0 = √U(0, 1) · 1.15            (n points, class 0)
        a1 ~ U(0, 2π), r1 ~ U(1.95, 2.8)               (n points, class 1)
        X  = (polar → Cartesian + noise · N(0, 1)) / 3

    Pass a ``Generator`` to keep drawing from it afterwards (the lesson draws the
    network's weights from the same generator right after the data).

    With k > 2 classes the radii 0 … 2.8 are cut into k equal bands: class 0 is a disc
    and class j the ring in band j, each kept 0.2 of a band away from its neighbours.
    """
    n, noise, k = _check(n_per_class, noise, classes)
    rng = _rng(seed)
    if k == 2:
        bands = [(0.0, 1.15), (1.95, 2.8)]
    else:
        width = 2.8 / k
        bands = [(j * width + (0.2 * width if j else 0.0), (j + 1) * width - 0.2 * width * (j < k - 1))
                 for j in range(k)]
    parts = []
    for j, (lo, hi) in enumerate(bands):
        a = rng.uniform(0, 2 * np.pi, n)
        r = np.sqrt(rng.uniform(0, 1, n)) * hi if j == 0 else rng.uniform(lo, hi, n)
        parts.append(np.c_[r * np.cos(a), r * np.sin(a)])
    X = np.vstack(parts)
    X = (X + noise * rng.normal(size=X.shape)) / 3
    return X, _labels(n, k)


def xor(seed=0, n_per_class: int = 100, noise: float = 0.05):
    """XOR: class 1 where x₁ and x₂ have opposite signs (not linearly separable).

    Each class has n points uniform in its two quadrants of [−1, 1]², kept 0.05
    away from the axes so that the classes are separated before noise.
    """
    n, noise, _ = _check(n_per_class, noise)
    rng = _rng(seed)
    size = rng.uniform(0.05, 1.0, (2 * n, 2))
    s1 = rng.choice([-1.0, 1.0], 2 * n)
    s2 = np.r_[s1[:n], -s1[n:]]  # same signs for class 0, opposite for class 1
    X = size * np.c_[s1, s2]
    y = np.r_[np.zeros(n), np.ones(n)]
    X = X + noise * rng.normal(size=X.shape)
    return X, y


#: The classic XOR's four points, centred: class 0 on one diagonal, class 1 on the other.
XOR_CORNERS = (((-0.5, -0.5), (0.5, 0.5)), ((-0.5, 0.5), (0.5, -0.5)))


def xor_corners(seed=0, n_per_class: int = 2, noise: float = 0.0):
    """The classic XOR: class 0 at (−½, −½) and (½, ½), class 1 at (−½, ½) and (½, −½)
    (the four points of (0, 0), (1, 1) against (0, 1), (1, 0), centred). A class's
    points take its two corners in turn (two per class: exactly the four points), each
    moved by noise · N(0, 1)."""
    n, noise, _ = _check(n_per_class, noise)
    rng = _rng(seed)
    X = np.vstack([np.array(corners)[np.arange(n) % 2] for corners in XOR_CORNERS])
    X = X + noise * rng.normal(size=X.shape)
    return X, np.r_[np.zeros(n), np.ones(n)]


def spirals(seed=0, n_per_class: int = 100, noise: float = 0.03, turns: float = 1.5,
            classes: int = 2):
    """k interleaved spiral arms: r = t, angle = 2π·turns·t + 2πj/k for class j,
    t ∈ (0.05, 1] (two classes: the arms half a turn apart)."""
    n, noise, k = _check(n_per_class, noise, classes)
    rng = _rng(seed)
    t = np.sqrt(rng.uniform(0.0025, 1, k * n))  # more points far out, where the arms are long
    offset = np.pi if k == 2 else 2 * np.pi / k  # the arms 2π/k apart (π for two)
    angle = 2 * np.pi * turns * t + np.repeat(np.arange(k) * offset, n)
    X = np.c_[t * np.cos(angle), t * np.sin(angle)] * 0.95
    X = X + noise * rng.normal(size=X.shape)
    return X, _labels(n, k)


def gaussians(seed=0, n_per_class: int = 100, noise: float = 0.1, classes: int = 2):
    """Gaussian clouds of spread 0.2 + noise: two at (−0.45, −0.45) and (0.45, 0.45);
    k > 2 on a circle of radius 0.7, the spread shrunk by √(2/k) so that neighbours
    stay apart."""
    n, noise, k = _check(n_per_class, noise, classes)
    rng = _rng(seed)
    if k == 2:
        centres, spread = [-0.45, 0.45], 0.2 + noise
    else:
        angle = 1.25 * np.pi + 2 * np.pi * np.arange(k) / k
        centres = list(0.7 * np.c_[np.cos(angle), np.sin(angle)])
        spread = (0.2 + noise) * math.sqrt(2 / k)
    X = np.vstack([rng.normal(c, spread, (n, 2)) for c in centres])
    return X, _labels(n, k)


def checkerboard(seed=0, n_per_class: int = 100, noise: float = 0.0, cells: int = 4,
                 classes: int = 2):
    """[−1, 1]² cut into cells × cells squares, label = (i + j) mod k: 2-D parity for
    two classes, diagonal stripes of k colours for more.

    Points are drawn uniformly until each class has ``n_per_class``.
    """
    n, noise, k = _check(n_per_class, noise, classes)
    cells = int(cells)
    if cells < 1:
        raise ValueError(f"cells must be ≥ 1, got {cells}")
    rng = _rng(seed)
    X = rng.uniform(-1, 1, (4 * k * n + 16, 2))
    ij = np.clip(np.floor((X + 1) * cells / 2).astype(int), 0, cells - 1)
    label = (ij[:, 0] + ij[:, 1]) % k
    if cells == 1:
        keep0 = np.flatnonzero(label == 0)[: 2 * n]
        X, y = X[keep0], np.zeros(len(keep0))
    else:
        keep = [np.flatnonzero(label == j)[:n] for j in range(k)]
        X = np.vstack([X[i] for i in keep])
        y = np.concatenate([np.full(len(i), float(j)) for j, i in enumerate(keep)])
    X = X + noise * rng.normal(size=X.shape)
    return X, y


#: Rounds of drawing before the boundary dataset gives up on filling a class.
BOUNDARY_ROUNDS = 40


def boundary(seed=0, n_per_class: int = 100, noise: float = 0.05,
             expression: str | Expression = DEFAULT_BOUNDARY):
    """Class 1 above the curve y = f(x), class 0 below: x₂ > f(x₁) for a typed
    expression f (parsed, never evaluated as Python), points uniform in [−1, 1]².

    Points are drawn in rounds until each class has ``n_per_class`` (points where f
    is not a finite number belong to neither side and are skipped); a curve that
    leaves a side of the square nearly empty is refused with a message.
    """
    n, noise, _ = _check(n_per_class, noise)
    f = expression if isinstance(expression, Expression) else parse_expression(expression)
    rng = _rng(seed)
    below: list[np.ndarray] = []
    above: list[np.ndarray] = []
    have = [0, 0]
    for _ in range(BOUNDARY_ROUNDS):
        X = rng.uniform(-1, 1, (4 * n + 16, 2))
        fx = f(X[:, 0])
        ok = np.isfinite(fx)
        side = X[:, 1] > fx
        for j, mask, store in ((0, ok & ~side, below), (1, ok & side, above)):
            take = X[mask][: n - have[j]]
            store.append(take)
            have[j] += len(take)
        if min(have) >= n:
            break
    else:
        empty = "above" if have[1] < n else "below"
        raise ValueError(f"the curve y = {f.text} leaves fewer than {n} points {empty} it in "
                         "the square [−1, 1]²; move it into the square")
    X = np.vstack(below + above)
    X = X + noise * rng.normal(size=X.shape)
    return X, np.r_[np.zeros(n), np.ones(n)]


# -- regression problems -----------------------------------------------------------

#: The multi-Gaussian problem's bumps (centre x₁, centre x₂, sign): TensorFlow
#: Playground's six, at (±4, ±2.5) and (0, ±2.5) in its [−6, 6]², here / 6.
REGRESS_BUMPS = tuple((cx / 6, cy / 6, s) for cx, cy, s in (
    (-4, 2.5, 1), (0, 2.5, -1), (4, 2.5, 1), (-4, -2.5, -1), (0, -2.5, 1), (4, -2.5, -1)))
#: A bump's radius: its height falls linearly from 1 at the centre to 0 here (2 / 6).
REGRESS_BUMP_RADIUS = 1 / 3


def _check_points(n_points: int, noise: float) -> tuple[int, float]:
    n = int(n_points)
    if n < 1 or n > MAX_POINTS:
        raise ValueError(f"the number of points must be between 1 and {MAX_POINTS}, got {n_points}")
    noise = float(noise)
    if not math.isfinite(noise) or noise < 0:
        raise ValueError(f"noise must be a finite number ≥ 0, got {noise}")
    return n, noise


def plane_target(X) -> np.ndarray:
    """The plane problem's target 0.6 (x₁ + x₂) (TensorFlow Playground's (x + y)/10 on
    [−6, 6]²): from −1.2 to 1.2 over [−1, 1]²."""
    X = np.asarray(X, float).reshape(-1, 2)
    return 0.6 * (X[:, 0] + X[:, 1])


def bumps_target(X) -> np.ndarray:
    """The multi-Gaussian problem's target: of the six bumps sign · max(0, 1 − d/radius)
    (d the distance to the bump's centre), the one largest in size; 0 away from all."""
    X = np.asarray(X, float).reshape(-1, 2)
    out = np.zeros(len(X))
    for cx, cy, sign in REGRESS_BUMPS:
        h = sign * np.maximum(0.0, 1.0 - np.hypot(X[:, 0] - cx, X[:, 1] - cy) / REGRESS_BUMP_RADIUS)
        out = np.where(np.abs(h) > np.abs(out), h, out)
    return out


def _regression(target: Callable, seed, n_points: int, noise: float):
    n, noise = _check_points(n_points, noise)
    rng = _rng(seed)
    X = rng.uniform(-1, 1, (n, 2))
    y = target(X)
    return X + noise * rng.normal(size=X.shape), y


def parse_formula(text: str | Expression) -> Expression:
    """A typed f(x₁, x₂) for the regression problem: parsed in x1 and x2 (x₁, x₂), and
    finite on a 201 × 201 grid of [−1, 1]²; an ExpressionError (a ValueError) says what
    is wrong in one line."""
    f = text if isinstance(text, Expression) else parse_expression(text, TWO_VARIABLES)
    if f.variables != TWO_VARIABLES:
        raise ValueError(f"f must be a function of x1 and x2, not of {', '.join(f.variables)}")
    f.check_finite_square()
    return f


def formula_target(text: str | Expression) -> Callable:
    """The typed problem's target: X (N, 2) ↦ f(x₁, x₂), refused (an ExpressionError
    naming the point) where a value is not finite."""
    f = parse_formula(text)

    def target(X) -> np.ndarray:
        X = np.asarray(X, float).reshape(-1, 2)
        f.check_finite_at(X)
        return f(X[:, 0], X[:, 1])

    return target


def regression_target(name: str, formula: str | Expression = DEFAULT_FORMULA) -> Callable:
    """The regression problem ``name``'s own function, X (N, 2) ↦ targets without noise
    (``formula``: the typed problem's f)."""
    if name == "regress_formula":
        return formula_target(formula)
    return {"regress_plane": plane_target, "regress_gaussians": bumps_target}[name]


def regress_plane(seed=0, n_points: int = 200, noise: float = 0.0):
    """Regression: ``n_points`` uniform in [−1, 1]², target 0.6 (x₁ + x₂) (a plane)."""
    return _regression(plane_target, seed, n_points, noise)


def regress_gaussians(seed=0, n_points: int = 200, noise: float = 0.0):
    """Regression: ``n_points`` uniform in [−1, 1]², target six cone-shaped bumps of height
    ±1 (TensorFlow Playground's "multi Gaussian", its bumps linear, not Gaussian)."""
    return _regression(bumps_target, seed, n_points, noise)


def regress_formula(seed=0, n_points: int = 200, noise: float = 0.0,
                    formula: str | Expression = DEFAULT_FORMULA):
    """Regression: ``n_points`` uniform in [−1, 1]², target a typed f(x₁, x₂) (parsed,
    never evaluated as Python); a formula not finite there is refused."""
    return _regression(formula_target(formula), seed, n_points, noise)


@dataclass(frozen=True)
class DatasetSpec:
    name: str
    label: str
    make: Callable
    noise: float           # default noise
    n_per_class: int       # default size (a regression problem: the number of points)
    max_classes: int = MAX_CLASSES   # 2: a two-class set only
    test_fraction: float | None = None  # the share held out that suits it (None: any)
    task: str = "classify"  # "classify": labels are classes; "regress": real targets

    @property
    def loss(self) -> str:
        """The loss that suits it: ``cross_entropy`` for classes, ``mse`` for targets."""
        return "mse" if self.task == "regress" else "cross_entropy"


DATASETS: dict[str, DatasetSpec] = {
    d.name: d
    for d in (
        DatasetSpec("circles", "circles (the lesson's)", circles, 0.12, 90),
        DatasetSpec("xor", "XOR", xor, 0.05, 100, 2),
        DatasetSpec("xor_corners", "XOR, four corners", xor_corners, 0.0, 2, 2, 0.0),
        DatasetSpec("spirals", "spirals", spirals, 0.03, 100),
        DatasetSpec("gaussians", "Gaussian blobs", gaussians, 0.1, 100),
        DatasetSpec("checkerboard", "checkerboard (parity)", checkerboard, 0.0, 100),
        DatasetSpec("boundary", "above/below y = f(x)", boundary, 0.05, 100, 2),
        DatasetSpec("regress_plane", "regression: plane", regress_plane, 0.0, 200, 2,
                    task="regress"),
        DatasetSpec("regress_gaussians", "regression: multi-Gaussian", regress_gaussians, 0.0, 200,
                    2, task="regress"),
        DatasetSpec("regress_formula", "regression: typed f(x₁, x₂)", regress_formula, 0.0, 200,
                    2, task="regress"),
    )
}
#: The names of the datasets of each task, in DATASETS' order.
CLASSIFICATION_DATASETS = tuple(k for k, d in DATASETS.items() if d.task == "classify")
REGRESSION_DATASETS = tuple(k for k, d in DATASETS.items() if d.task == "regress")


def make_dataset(name: str, seed=0, n_per_class: int | None = None, noise: float | None = None,
                 classes: int = 2, **options):
    """The dataset ``name`` (a key of ``DATASETS``) with its defaults where not given,
    in ``classes`` classes (2 to ``MAX_CLASSES`` where the dataset has a class count:
    circles, spirals, gaussians, checkerboard). ``options`` go to the generator
    (``turns`` of the spirals, ``cells`` of the checkerboard, ``expression`` f of the
    boundary dataset, ``formula`` f(x₁, x₂) of the typed regression problem). A
    regression problem's ``n_per_class`` is its number of points."""
    try:
        d = DATASETS[name]
    except KeyError:
        raise ValueError(f"unknown dataset {name!r} (known: {', '.join(DATASETS)})") from None
    if d.task == "regress" and classes != 2:
        raise ValueError(f"the {d.label} problem has real targets, not classes")
    if classes != 2:
        if d.max_classes == 2:
            raise ValueError(f"the {d.label} dataset has two classes, not {classes}")
        options["classes"] = classes
    return d.make(seed, d.n_per_class if n_per_class is None else n_per_class,
                  d.noise if noise is None else noise, **options)


def held_out_mask(n: int, test_fraction: float = 0.3, seed=0) -> np.ndarray:
    """A boolean mask choosing round(n · test_fraction) of n points for testing, at random."""
    f = float(test_fraction)
    if not (0 <= f < 1):
        raise ValueError(f"the test fraction must be in [0, 1), got {test_fraction}")
    n = int(n)
    mask = np.zeros(n, dtype=bool)
    mask[_rng(seed).permutation(n)[: round(n * f)]] = True
    return mask


#: The name the panels and scene files' readers import. pytest collects any function
#: named test_* in a test module that imports it, unless ``__test__`` is False.
test_mask = held_out_mask
vars(test_mask)["__test__"] = False


def train_test_split(X, y, test_fraction: float = 0.3, seed=0):
    """``(X_train, y_train, X_test, y_test)`` with a random ``test_fraction`` held out."""
    X, y = np.asarray(X, float), np.asarray(y, float)
    mask = held_out_mask(len(y), test_fraction, seed)
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


_CSV_LABELS = {text: float(k) for k in range(MAX_CLASSES) for text in (str(k), f"{k}.0")}


def points_from_csv(text: str):
    """Parse CSV text into ``(X, y, is_test)``, checking every line first.

    Columns: x1, x2, label (a class 0 … MAX_CLASSES − 1) and optionally set
    (train/test; train when missing). A header line is optional. A ValueError names
    the line and what is wrong with it: too few columns, a number that is not
    finite, a label that is not a class, more than ``MAX_POINTS`` points, or no
    points at all.
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
            raise ValueError(f"line {lineno}: expected x1, x2, label but found "
                             f"{len(cells)} column(s)")
        if len(cells) > 4:
            raise ValueError(f"line {lineno}: expected at most 4 columns (x1, x2, label, set), "
                             f"found {len(cells)}")
        try:
            a, b = float(cells[0]), float(cells[1])
        except ValueError:
            raise ValueError(f"line {lineno}: coordinates must be numbers, got {cells[0]!r}, "
                             f"{cells[1]!r}") from None
        if not (math.isfinite(a) and math.isfinite(b)):
            raise ValueError(f"line {lineno}: coordinates must be finite, got {cells[0]}, {cells[1]}")
        label = _CSV_LABELS.get(cells[2])
        if label is None:
            shown = cells[2] if len(cells[2]) <= 20 else cells[2][:17] + "…"
            raise ValueError(f"line {lineno}: label must be a class from 0 to {MAX_CLASSES - 1}, "
                             f"got {shown!r}")
        kind = cells[3].lower() if len(cells) == 4 else "train"
        if kind not in ("train", "test", ""):
            raise ValueError(f"line {lineno}: set must be 'train' or 'test', got {cells[3]!r}")
        X.append((a, b))
        y.append(label)
        t.append(kind == "test")
        if len(X) > MAX_POINTS:
            raise ValueError(f"line {lineno}: more than {MAX_POINTS} points")
    if not X:
        raise ValueError("the file holds no points")
    return np.array(X, float).reshape(-1, 2), np.array(y, float), np.array(t, bool)
