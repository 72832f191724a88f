"""Slices of a network with many inputs: the line through two points, the plane through three.

A network N: Rⁿ → Rᵐ restricted to x = o + Σᵢ tᵢ·dᵢ is again a network, of the k
coordinates t (:meth:`relulab.model.networks.mlp.MLP.restrict`: first layer W·D and W·o + b,
every other layer as it was). So every exact tool for 1 and 2 inputs works on any
slice of any network: the kinks along a line, the regions and decision regions on a
plane, the shallow network of the slice.

Here a slice is given by its points, A and B (a line) or A, B and C (a plane). The
origin is A; the directions are orthonormal (Gram–Schmidt, twice for accuracy), d₁
along B − A and d₂ towards C, so A sits at t = 0, B on the positive t₁ axis, C above
it, and a distance on screen is the distance in input space. The directions are
computed in floating point, so they are orthonormal and the points lie on the slice
up to rounding (relative errors of a few units in the last place); the exact tools
then work on the restricted network, whose first layer is itself rounded once
(see ``MLP.restrict``).

Points are written (in the panel and on the command line) as

* a whole number ``i``: row i of the points file, counting from 0;
* a vector: the n numbers separated by commas (or spaces), brackets optional:
  ``0.5,0,1`` or ``[0.5, 0, 1]``;
* ``zeros``, ``ones``, ``mean`` (the mean of the points file's rows) or ``e<i>``,
  the unit vector along input i (counting from 0).

Text is parsed, never evaluated. Qt-free, and no files: :mod:`relulab.io.points`
reads points files into :class:`InputRows`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from relulab.model.core.fields import Fields, finite_array
from relulab.model.networks.exact import gamma

KINDS = ("line", "plane")
#: How the points were chosen: rows of a points file, a random plane, or typed.
MODES = ("rows", "random", "typed")
POINT_NAMES = ("A", "B", "C")
#: A slice is drawn in the box around its points, this many times their spread.
BOX_SCALE = 1.5
#: Inputs a slice may have: the network files' limit on parameters allows more, but
#: a scene holds the points, and 3 × 100,000 numbers is already 6 MB of JSON.
MAX_SLICE_INPUTS = 100_000
#: Values of points (and of rows of a points file) are within this size.
MAX_COORDINATE = 1e100
MAX_SEED = 999_999
#: Points typed in the panel or on the command line: at most this many characters.
MAX_TEXT = 4_000_000


def points_needed(kind: str) -> int:
    """2 for a line, 3 for a plane."""
    if kind not in KINDS:
        raise ValueError(f"unknown kind of slice {kind!r} (use line or plane)")
    return 2 if kind == "line" else 3


# ---------------------------------------------------------------------------
# rows of inputs (a points file, read by relulab.io.points)
# ---------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class InputRows:
    """Inputs of a network, one per row: ``X`` (N, n); ``labels`` one short text per
    row (or None); ``image_shape`` (h, w) when each row is an h × w picture."""

    X: np.ndarray
    labels: tuple[str, ...] | None = None
    image_shape: tuple[int, int] | None = None
    name: str = "points"

    def __post_init__(self):
        X = np.array(self.X, dtype=float)
        if X.ndim != 2 or X.shape[0] < 1 or X.shape[1] < 1:
            raise ValueError(f"{self.name}: expected rows of numbers, got shape {X.shape}")
        X.setflags(write=False)
        object.__setattr__(self, "X", X)
        if self.labels is not None and len(self.labels) != X.shape[0]:
            raise ValueError(f"{self.name}: {len(self.labels)} labels for {X.shape[0]} rows")
        if self.image_shape is not None:
            h, w = self.image_shape
            if h * w != X.shape[1]:
                raise ValueError(f"{self.name}: pictures of {h}×{w} need {h * w} numbers a row, "
                                 f"the rows have {X.shape[1]}")

    @property
    def n_rows(self) -> int:
        return int(self.X.shape[0])

    @property
    def n_inputs(self) -> int:
        return int(self.X.shape[1])

    def row_label(self, i: int) -> str:
        """'row 17, label 3': the row and, when the file has labels, its label."""
        return f"row {i}" + (f", label {self.labels[i]}" if self.labels is not None else "")

    def spread(self) -> tuple[np.ndarray, float]:
        """(mean row, root-mean-square distance of the rows from it; 1 for one row)."""
        mean = self.X.mean(axis=0)
        rms = float(np.sqrt(np.mean(np.sum((self.X - mean) ** 2, axis=1))))
        return mean, (rms if rms > 0 and math.isfinite(rms) else 1.0)


# ---------------------------------------------------------------------------
# parsing points
# ---------------------------------------------------------------------------
_ROW = re.compile(r"\d{1,9}")
_UNIT = re.compile(r"e(\d{1,9})")
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_SEPARATORS = re.compile(r"[,\s]+")


@dataclass(frozen=True)
class ParsedPoint:
    """One point as read from text: its coordinates, a label for people, and the row
    of the points file it came from (None for a vector or a name)."""

    x: np.ndarray
    label: str
    row: int | None = None


def parse_point(text: str, n: int, rows: InputRows | None = None,
                name: str = "point") -> ParsedPoint:
    """One point of a network with ``n`` inputs from ``text`` (syntax in the module
    docstring). ValueError with a one-line message naming ``name`` otherwise."""
    t = text.strip()
    if not t:
        raise ValueError(f"{name} is empty")
    if len(t) > MAX_TEXT:
        raise ValueError(f"{name}: longer than {MAX_TEXT:,} characters")
    low = t.lower()
    if _ROW.fullmatch(t):
        i = int(t)
        if rows is None:
            raise ValueError(f"{name} = {t}: a row number needs a points file (rows of inputs)")
        if i >= rows.n_rows:
            raise ValueError(f"{name} = {t}: {rows.name} has rows 0 to {rows.n_rows - 1}")
        if rows.n_inputs != n:
            raise ValueError(f"{rows.name} has rows of {rows.n_inputs} numbers; the network has "
                             f"{n} inputs")
        return ParsedPoint(rows.X[i].copy(), rows.row_label(i), i)
    if low in ("zeros", "origin"):
        return ParsedPoint(np.zeros(n), "0")
    if low == "ones":
        return ParsedPoint(np.ones(n), "1")
    if low == "mean":
        if rows is None:
            raise ValueError(f"{name} = mean: the mean needs a points file (rows of inputs)")
        if rows.n_inputs != n:
            raise ValueError(f"{rows.name} has rows of {rows.n_inputs} numbers; the network has "
                             f"{n} inputs")
        return ParsedPoint(rows.X.mean(axis=0), "mean")
    m = _UNIT.fullmatch(low)
    if m:
        i = int(m.group(1))
        if i >= n:
            raise ValueError(f"{name} = {t}: the network has inputs 0 to {n - 1}")
        x = np.zeros(n)
        x[i] = 1.0
        return ParsedPoint(x, f"e{i}")
    return ParsedPoint(_vector(t, n, name), "typed")


def _vector(t: str, n: int, name: str) -> np.ndarray:
    body = t
    if body.startswith("[") or body.endswith("]"):
        if not (body.startswith("[") and body.endswith("]")):
            raise ValueError(f"{name}: unmatched bracket")
        body = body[1:-1]
    cells = [c for c in _SEPARATORS.split(body.strip()) if c]
    if not cells:
        raise ValueError(f"{name}: no numbers")
    for j, c in enumerate(cells):
        if not _NUMBER.fullmatch(c):
            low = c.lower().lstrip("+-")
            if low in ("nan", "inf", "infinity"):
                raise ValueError(f"{name}, entry {j + 1}: {c} is not a finite number")
            shown = c if len(c) <= 20 else c[:17] + "…"
            raise ValueError(f"{name}, entry {j + 1}: {shown!r} is not a number (write numbers "
                             "such as 0.5 or -2e-3, a row number, zeros, ones, mean or e<i>)")
    if len(cells) != n:
        raise ValueError(f"{name} has {len(cells):,} number(s); the network has {n:,} inputs")
    x = np.array([float(c) for c in cells])
    bad = ~(np.abs(x) <= MAX_COORDINATE)
    if bad.any():
        j = int(np.argmax(bad))
        raise ValueError(f"{name}, entry {j + 1}: {cells[j]} is beyond ±{MAX_COORDINATE:g}")
    return x


def parse_points(texts: Sequence[str], n: int, rows: InputRows | None = None
                 ) -> list[ParsedPoint]:
    """Several points (A, B, C, … in order), each parsed by :func:`parse_point`."""
    return [parse_point(t, n, rows, POINT_NAMES[i] if i < len(POINT_NAMES) else f"point {i + 1}")
            for i, t in enumerate(texts)]


def split_points(text: str) -> list[str]:
    """The points of one line of text, separated by semicolons: 'zeros; e0; e1'."""
    return [p.strip() for p in text.split(";") if p.strip()]


# ---------------------------------------------------------------------------
# the slice through points
# ---------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class Slice:
    """The line or plane through ``points`` (2 or 3 rows of n numbers).

    ``origin`` is the first point, ``directions`` (k, n) orthonormal to rounding,
    ``coords`` (k + 1, k) the points' coordinates on the slice (the first is 0).
    """

    points: np.ndarray
    origin: np.ndarray
    directions: np.ndarray
    coords: np.ndarray
    labels: tuple[str, ...] = ()

    @property
    def kind(self) -> str:
        return "line" if self.directions.shape[0] == 1 else "plane"

    @property
    def n_in(self) -> int:
        return int(self.origin.shape[0])

    def restrict(self, net):
        """The network on the slice: ``net.restrict(origin, directions)``."""
        return net.restrict(self.origin, self.directions)

    def to_input(self, t) -> np.ndarray:
        """Points of input space from slice coordinates t (N, k): o + t·D."""
        t = np.atleast_2d(np.asarray(t, dtype=float))
        return self.origin + t @ self.directions

    def box(self, scale: float = BOX_SCALE) -> tuple[float, ...]:
        """Plane: the square (t₁min, t₁max, t₂min, t₂max) centred on the points, its
        half-width ``scale`` times their largest distance from the centre; line: the
        interval (tmin, tmax) likewise."""
        c = self.coords
        centre = (c.max(axis=0) + c.min(axis=0)) / 2
        half = scale * float(np.abs(c - centre).max())
        if not half > 0:
            half = 1.0
        if self.kind == "line":
            return (float(centre[0] - half), float(centre[0] + half))
        return (float(centre[0] - half), float(centre[0] + half),
                float(centre[1] - half), float(centre[1] + half))


def _norm(v: np.ndarray) -> float:
    """|v|, scaled first so that neither tiny (1e-200) nor huge entries under- or
    overflow in the squares."""
    m = float(np.abs(v).max())
    if m == 0 or not math.isfinite(m):
        return m
    return m * float(np.sqrt(np.sum((v / m) ** 2)))


def _collinear_exactly(A: np.ndarray, B: np.ndarray, C: np.ndarray) -> bool:
    """Whether C − A = λ·(B − A) for some λ, in exact rational arithmetic (doubles are
    rationals; B ≠ A)."""
    u = [Fraction(float(b)) - Fraction(float(a)) for a, b in zip(A, B)]
    v = [Fraction(float(c)) - Fraction(float(a)) for a, c in zip(A, C)]
    j = max(range(len(u)), key=lambda i: abs(u[i]))
    U, V = u[j], v[j]
    return all(a * V == b * U for a, b in zip(u, v))


def slice_through(points, labels: Sequence[str] = ()) -> Slice:
    """The line (2 points) or plane (3 points) through ``points`` (rows of n numbers).

    ValueError (one line) for a wrong count or shape, non-finite numbers, coincident
    points, points that are collinear, or collinear up to rounding (the plane they
    span then depends on the rounding of the doubles, not on the points)."""
    P = np.array(points, dtype=float)
    if P.ndim != 2 or P.shape[0] not in (2, 3):
        raise ValueError(f"a slice needs 2 points (a line) or 3 (a plane), got {np.shape(points)}")
    n = P.shape[1]
    if n < 1:
        raise ValueError("the points have no coordinates")
    bad = ~np.isfinite(P)
    if bad.any():
        i, j = (int(v) for v in np.argwhere(bad)[0])
        raise ValueError(f"point {POINT_NAMES[i]}, entry {j + 1}: {P[i, j]} is not a finite number")
    if np.abs(P).max() > MAX_COORDINATE:
        i, j = (int(v) for v in np.argwhere(np.abs(P) > MAX_COORDINATE)[0])
        raise ValueError(f"point {POINT_NAMES[i]}, entry {j + 1}: {P[i, j]:.3g} is beyond "
                         f"±{MAX_COORDINATE:g}")
    A = P[0]
    for i in range(1, len(P)):
        for j in range(i):
            if np.array_equal(P[i], P[j]):
                raise ValueError(f"points {POINT_NAMES[j]} and {POINT_NAMES[i]} are the same "
                                 "point: a slice needs distinct points")
    u = P[1] - A
    nu = _norm(u)
    if not (math.isfinite(nu) and nu > 0):
        raise ValueError("points A and B are too far apart (or too close) for doubles")
    d1 = u / nu
    d1 = d1 / _norm(d1)
    dirs = [d1]
    if len(P) == 3:
        v = P[2] - A
        nv = _norm(v)
        r = v - (v @ d1) * d1
        r = r - (r @ d1) * d1          # twice: the first pass may leave a part along d₁
        nr = _norm(r)
        # the computed r is within about γ_{2n+8}·|v| of the exact one: above a few
        # times that, the points are not collinear; below it, exact arithmetic says
        # whether they are, and if not, r's direction is made of rounding errors
        if not nr > 8 * gamma(2 * n + 8) * nv:
            if _collinear_exactly(A, P[1], P[2]):
                raise ValueError("points A, B and C lie on one line: a plane needs three "
                                 "points that are not collinear")
            raise ValueError("points A, B and C are collinear up to rounding: the plane "
                             "through them is not determined in double precision")
        dirs.append(r / nr)
    D = np.array(dirs)
    coords = (P - A) @ D.T
    coords[0] = 0.0
    for a in (P, A, D, coords):
        a.setflags(write=False)
    labels = tuple(labels) if labels else POINT_NAMES[:len(P)]
    return Slice(P, A.copy(), D, coords, labels)


def random_points(n: int, kind: str, seed: int, centre=None, scale: float = 1.0
                  ) -> np.ndarray:
    """Points of a random slice: the centre (default 0) and the centre plus ``scale``
    times each of k random orthonormal directions (uniform on the sphere: QR of a
    Gaussian matrix with the signs fixed)."""
    k = points_needed(kind) - 1
    if n < k:
        raise ValueError(f"a {kind} needs at least {k} inputs, the network has {n}")
    rng = np.random.default_rng(seed)
    G = rng.normal(size=(n, k))
    Q, R = np.linalg.qr(G)
    Q = Q * np.sign(np.where(np.diag(R) == 0, 1.0, np.diag(R)))
    c = np.zeros(n) if centre is None else np.asarray(centre, dtype=float).reshape(n)
    return np.vstack([c, c + scale * Q.T])


# ---------------------------------------------------------------------------
# the slice as part of a panel's state
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class SliceState:
    """How the Deep → shallow panel slices a network with many inputs.

    ``kind`` line or plane; ``mode`` how the points were chosen (``rows`` of the
    points file ``data``, a ``random`` slice with ``seed``, or ``typed`` as
    ``text``); ``rows`` the row of each point (None for the others); ``points`` the
    points themselves, so a scene brings back the same slice without the file;
    ``labels`` what the view writes beside them; ``image_shape`` (h, w) when the
    inputs are pictures. ``data`` is a file path, or ``example:<name>`` for data
    that ships with the app.
    """

    kind: str = "plane"
    mode: str = "rows"
    points: tuple = ()
    labels: tuple = ()
    rows: tuple = ()
    seed: int = 0
    text: str = ""
    data: str | None = None
    image_shape: tuple | None = None

    def slice(self) -> Slice:
        return slice_through(np.array(self.points, dtype=float), self.labels)

    def to_dict(self) -> dict:
        return {"kind": self.kind, "mode": self.mode,
                "points": [list(p) for p in self.points], "labels": list(self.labels),
                "rows": list(self.rows), "seed": self.seed, "text": self.text,
                "data": self.data,
                "image_shape": None if self.image_shape is None else list(self.image_shape)}

    @classmethod
    def from_dict(cls, d, n_in: int, where: str = "slice") -> SliceState:
        """Validate every field (ValueError naming it); the points must fit a network
        of ``n_in`` inputs and span a line or a plane."""
        f = Fields(d, defaults={"mode": "typed", "labels": [], "rows": [], "seed": 0,
                                "text": "", "data": None, "image_shape": None}, where=where)
        kind = f.choice("kind", KINDS)
        mode = f.choice("mode", MODES)
        k = points_needed(kind)
        if n_in > MAX_SLICE_INPUTS:
            raise ValueError(f"{where}: {n_in:,} inputs; slices take up to {MAX_SLICE_INPUTS:,}")
        P = finite_array(f.get("points"), f.name("points"), (k, n_in), k * n_in,
                         -MAX_COORDINATE, MAX_COORDINATE)
        labels = f.get("labels")
        if not isinstance(labels, list) or len(labels) not in (0, k) or \
                not all(isinstance(s, str) and len(s) <= 200 for s in labels):
            raise ValueError(f"{f.name('labels')}: expected {k} short texts")
        rows = f.get("rows")
        if not isinstance(rows, list) or len(rows) not in (0, k) or not all(
                r is None or (isinstance(r, int) and not isinstance(r, bool) and 0 <= r < 10**9)
                for r in rows):
            raise ValueError(f"{f.name('rows')}: expected {k} row numbers (or nulls)")
        seed = f.integer("seed", 0, MAX_SEED)
        text = f.text("text", 100_000)
        data = None if f.get("data") is None else f.text("data", 4096)
        shape = f.get("image_shape")
        if shape is not None:
            if not (isinstance(shape, list) and len(shape) == 2 and all(
                    isinstance(s, int) and not isinstance(s, bool) and s > 0 for s in shape)
                    and shape[0] * shape[1] == n_in):
                raise ValueError(f"{f.name('image_shape')}: expected [height, width] with "
                                 f"height × width = {n_in}")
            shape = tuple(shape)
        f.done()
        try:
            slice_through(P)
        except ValueError as e:
            raise ValueError(f"{f.name('points')}: {e}") from None
        return cls(kind, mode, tuple(tuple(map(float, p)) for p in P), tuple(labels),
                   tuple(rows), seed, text, data, shape)


def slice_state(kind: str, points: Sequence[ParsedPoint], mode: str, *, seed: int = 0,
                text: str = "", data: str | None = None,
                image_shape: tuple | None = None) -> SliceState:
    """A checked :class:`SliceState` from parsed points (ValueError when they do not
    span a ``kind``)."""
    k = points_needed(kind)
    if len(points) != k:
        raise ValueError(f"a {kind} needs {k} points, got {len(points)}")
    X = np.array([p.x for p in points])
    slice_through(X)
    labels = tuple(f"{POINT_NAMES[i]}: {p.label}" for i, p in enumerate(points))
    return SliceState(kind, mode, tuple(tuple(map(float, x)) for x in X), labels,
                      tuple(p.row for p in points), int(seed), text, data,
                      None if image_shape is None else tuple(image_shape))


__all__ = [
    "BOX_SCALE",
    "KINDS",
    "MODES",
    "InputRows",
    "ParsedPoint",
    "Slice",
    "SliceState",
    "parse_point",
    "parse_points",
    "points_needed",
    "random_points",
    "slice_state",
    "slice_through",
    "split_points",
]
