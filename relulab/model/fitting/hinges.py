"""Sums of hinges: f̂(x) = a + s·x + Σ cᵢ·ReLU(x − kᵢ).

A hinge cᵢ·ReLU(x − kᵢ) lies flat up to its kink kᵢ and rises with slope cᵢ after
it, so f̂ is continuous and piecewise linear, and its slope changes by exactly cᵢ
at kᵢ. This module fits such sums by least squares, builds the interpolating sum
of the lesson with its error bound (b − a)²M/(8n²), and runs the convergence study
(error against the number of hinges). numpy and scipy only.

Least squares without the dense design matrix
---------------------------------------------
The columns [1, x, ReLU(x − kᵢ)] span the continuous piecewise-linear functions
with breakpoints at the kinks, which is also the span of the hat functions on the
knots x_min < u₁ < … < u_m < x_max (the distinct kinks inside the data). In the hat
basis the normal equations are tridiagonal: each data point touches only the two
hats of its interval, so the Gram matrix and the right-hand side are sums over
intervals, gathered in one pass (``np.bincount``) in O(n + K), and solved in O(K)
(an L D Lᵀ factorisation). The hat coefficients are the values of f̂ at the
knots; slopes and slope changes follow by differences. This is well conditioned,
unlike the Gram matrix of the ReLU columns themselves.

Degenerate columns are reduced exactly before that: kinks at or beyond the last
point give zero columns (coefficient 0), equal kinks share one column (its
coefficient split equally), and kinks at or before the first point give x − k,
which lies in the span of 1 and x (the minimum-norm split of the line among a, s
and those cᵢ is solved in closed form). These splits are what the minimum-norm
least-squares solution does, because the blocks are independent. When the
remaining problem is still singular (fewer points than columns, kinks crowded
between the same few data points, …; the Schoenberg–Whitney condition fails), the
normal equations are compressed to at most K + 2 rows through the hat basis and
solved for the minimum-norm solution (LAPACK gelsy). Only data with fewer than two distinct
x fall back to the dense n × (K + 2) solve. No case raises.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

from relulab.model.networks.activations import relu

MODES = ("free", "least squares", "interpolation")
MAX_HINGES = 200
MIN_POINTS, MAX_POINTS = 10, 20000
#: What the panel's controls allow: the domain ends (three decimals, so a domain is
#: at least MIN_WIDTH wide), and the size of kinks and of the hand-set line and slopes
#: (edits clamp to it, so every state can be saved and read back).
DOMAIN_LIMIT = 1000.0
MIN_WIDTH = 1e-3
COEFFICIENT_LIMIT = 1e12
#: A target's values on its domain stay within ±TARGET_LIMIT: squares of residuals,
#: curvatures and plot ranges then stay far inside double precision.
TARGET_LIMIT = 1e12


def evenly_spaced_kinks(a: float, b: float, n: int) -> np.ndarray:
    """n kinks evenly inside (a, b), not on the ends: linspace(a, b, n + 2)[1:-1]
    (the notebook's placement)."""
    return np.linspace(float(a), float(b), int(n) + 2)[1:-1]


def evaluate_hinges(x, intercept: float, slope: float, kinks, coefficients) -> np.ndarray:
    """f̂(x) = a + s·x + Σ cᵢ·ReLU(x − kᵢ), in O((n + K) log K).

    With the kinks sorted, f̂(x) = a + s·x + C(x)·x − D(x) where C(x) = Σ_{kᵢ<x} cᵢ and
    D(x) = Σ_{kᵢ<x} cᵢkᵢ are prefix sums looked up by binary search.
    """
    x = np.asarray(x, dtype=float)
    kinks = np.asarray(kinks, dtype=float).reshape(-1)
    coefficients = np.asarray(coefficients, dtype=float).reshape(-1)
    out = intercept + slope * x
    if kinks.size == 0:
        return out
    order = np.argsort(kinks, kind="stable")
    k, c = kinks[order], coefficients[order]
    C = np.concatenate(([0.0], np.cumsum(c)))
    D = np.concatenate(([0.0], np.cumsum(c * k)))
    j = np.searchsorted(k, x, side="left")
    return out + C[j] * x - D[j]


@dataclass(frozen=True, eq=False)
class HingeFit:
    """A sum of hinges and how well it matches samples (x, y).

    ``kinks`` and ``coefficients`` keep the order they were given in; ``rmse`` is
    √(mean (f̂ − y)²) and ``max_error`` max |f̂ − y| over the samples.
    """

    intercept: float
    slope: float
    kinks: np.ndarray
    coefficients: np.ndarray
    rmse: float
    max_error: float
    method: str = "given"
    residual: np.ndarray | None = field(default=None, repr=False)

    def predict(self, x) -> np.ndarray:
        """f̂(x) = a + s·x + Σ cᵢ·ReLU(x − kᵢ)."""
        return evaluate_hinges(x, self.intercept, self.slope, self.kinks, self.coefficients)

    __call__ = predict

    def vertices(self, a: float, b: float) -> tuple[np.ndarray, np.ndarray]:
        """The corners of f̂ on [a, b] (the ends and the kinks inside): the exact
        polyline, so a plot needs K + 2 points, not a dense grid."""
        k = np.unique(self.kinks[(self.kinks > a) & (self.kinks < b)])
        xs = np.concatenate(([a], k, [b]))
        return xs, self.predict(xs)

    def slope_changes(self) -> np.ndarray:
        """The slope change of f̂ at each kink, measured from f̂ itself: the slope just
        right of kᵢ minus the slope just left of it. It equals the sum of the cᵢ
        that share the kink (cᵢ itself when the kinks are distinct)."""
        if self.kinks.size == 0:
            return np.zeros(0)
        k = np.sort(np.unique(self.kinks))
        gaps = np.diff(k)
        scale = max(1.0, float(np.max(np.abs(k))))
        delta = 0.25 * (float(gaps.min()) if gaps.size else scale)
        delta = min(delta, 0.25 * scale)
        out = np.empty(self.kinks.size)
        for i, ki in enumerate(self.kinks):
            left, mid, right = self.predict(np.array([ki - delta, ki, ki + delta]))
            out[i] = (right - mid) / delta - (mid - left) / delta
        return out

    def slope_change(self, i: int) -> float:
        """The slope change of f̂ at kink i alone, measured from f̂ (see ``slope_changes``):
        (f̂(k + δ) − f̂(k))/δ − (f̂(k) − f̂(k − δ))/δ with δ below the gap to the next kink."""
        k = float(self.kinks[i])
        others = np.abs(self.kinks - k)
        others = others[others > 0]
        scale = max(1.0, abs(k))
        delta = 0.25 * min(float(others.min()) if others.size else scale, scale)
        left, mid, right = self.predict(np.array([k - delta, k, k + delta]))
        return float((right - mid) / delta - (mid - left) / delta)

    def components(self, x) -> np.ndarray:
        """The hinges one by one, cᵢ·ReLU(x − kᵢ), shape (K, len(x))."""
        x = np.asarray(x, dtype=float)
        return self.coefficients[:, None] * relu(x[None, :] - self.kinks[:, None])


def _errors(pred: np.ndarray, y: np.ndarray) -> tuple[float, float, np.ndarray]:
    r = pred - y
    if r.size == 0:
        return float("nan"), float("nan"), r
    worst = float(np.max(np.abs(r)))
    if not 0.0 < worst < np.inf:
        return worst, worst, r
    # scaled by the largest residual, so the squares neither overflow nor underflow
    return worst * float(np.sqrt(np.mean((r / worst) ** 2))), worst, r


def hinge_sum(x, y, intercept: float, slope: float, kinks, coefficients) -> HingeFit:
    """A :class:`HingeFit` for given parameters (Free mode): no fitting, only the errors."""
    x = np.asarray(x, dtype=float).reshape(-1)
    y = np.asarray(y, dtype=float).reshape(-1)
    kinks = np.array(kinks, dtype=float).reshape(-1)
    coefficients = np.array(coefficients, dtype=float).reshape(-1)
    if kinks.shape != coefficients.shape:
        raise ValueError(f"{kinks.size} kinks but {coefficients.size} coefficients")
    pred = evaluate_hinges(x, intercept, slope, kinks, coefficients)
    rmse, worst, r = _errors(pred, y)
    return HingeFit(float(intercept), float(slope), kinks, coefficients, rmse, worst, "given", r)


def design_matrix(x, kinks) -> np.ndarray:
    """The dense columns [1, x, ReLU(x − k₁), …, ReLU(x − k_K)] (n × (K + 2))."""
    x = np.asarray(x, dtype=float).reshape(-1)
    kinks = np.asarray(kinks, dtype=float).reshape(-1)
    return np.column_stack([np.ones_like(x), x, relu(x[:, None] - kinks[None, :])])


def _dense_fit(x, y, kinks) -> tuple[float, float, np.ndarray]:
    A = design_matrix(x, kinks)
    coef, *_ = np.linalg.lstsq(A, y, rcond=None)  # SVD: the minimum-norm solution
    return float(coef[0]), float(coef[1]), coef[2:]


def _schoenberg_whitney(xs: np.ndarray, knots: np.ndarray) -> bool:
    """True when the hat functions on ``knots`` are linearly independent on the
    distinct sorted points ``xs``: hat j (support (τ_{j−1}, τ_{j+1})) can be given
    its own point, in order. Greedy: take the first unused point inside each support."""
    m = knots.size
    # Quick sufficient test: with a point in every [τ_j, τ_{j+1}) each hat j < m − 1 gets
    # one there, and the last hat gets the last point (= τ_{m−1}).
    starts = np.searchsorted(xs, knots, side="left")
    if np.all(np.diff(starts) > 0) and xs[-1] >= knots[-1]:
        return True
    i = 0  # the first point not yet given to a hat
    for j in range(m):
        lo = knots[j - 1] if j > 0 else -np.inf
        hi = knots[j + 1] if j + 1 < m else np.inf
        i = max(i, int(np.searchsorted(xs, lo, side="right")))
        if i >= xs.size or not xs[i] < hi:
            return False
        i += 1
    return True


def _hat_normal_equations(x: np.ndarray, y: np.ndarray, knots: np.ndarray):
    """HᵀH (its diagonal and off-diagonal: it is tridiagonal) and Hᵀy for the hat
    basis H on ``knots`` (which start at min x and end at max x), gathered per
    interval in one pass over the points."""
    m = knots.size
    h = np.diff(knots)
    j = np.clip(np.searchsorted(knots, x, side="right") - 1, 0, m - 2)
    right = (x - knots[j]) / h[j]          # weight of the hat on the right end
    left = 1.0 - right
    n_int = m - 1
    diag = np.zeros(m)
    diag[:-1] += np.bincount(j, left * left, n_int)
    diag[1:] += np.bincount(j, right * right, n_int)
    off = np.bincount(j, left * right, n_int)
    rhs = np.zeros(m)
    rhs[:-1] += np.bincount(j, left * y, n_int)
    rhs[1:] += np.bincount(j, right * y, n_int)
    return diag, off, rhs


def _solve_tridiagonal_spd(diag: np.ndarray, off: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """Solve T v = rhs for a symmetric positive definite tridiagonal T (``diag`` and
    ``off`` its diagonals) by T = L D Lᵀ, as stable as Cholesky for such T. A pivot
    that is not positive means T is not positive definite: LinAlgError.

    Plain Python over at most MAX_HINGES + 2 rows (a fraction of a millisecond), so the
    window opens without importing scipy.linalg (a third of a second)."""
    d, e, r = diag.tolist(), off.tolist(), rhs.tolist()
    m = len(d)
    lower = [0.0] * max(m - 1, 0)
    for i in range(m):
        if i:
            lower[i - 1] = e[i - 1] / d[i - 1]
            d[i] -= lower[i - 1] * e[i - 1]
            r[i] -= lower[i - 1] * r[i - 1]
        if not d[i] > 0.0:
            raise np.linalg.LinAlgError("the hat basis is singular on these points")
    v = [0.0] * m
    for i in range(m - 1, -1, -1):
        v[i] = r[i] / d[i] - (lower[i] * v[i + 1] if i < m - 1 else 0.0)
    return np.array(v)


def _hat_fit(x: np.ndarray, y: np.ndarray, knots: np.ndarray) -> np.ndarray:
    """Least-squares values at ``knots`` of a continuous piecewise-linear f, from the
    tridiagonal normal equations of the hat basis (which must be non-singular)."""
    return _solve_tridiagonal_spd(*_hat_normal_equations(x, y, knots))


def _compressed_fit(x: np.ndarray, y: np.ndarray, kinks: np.ndarray, knots: np.ndarray):
    """The minimum-norm solution when the hat basis is singular on the data.

    Every column of A = [1, x, ReLU(x − kᵢ)] is piecewise linear with breakpoints
    among the knots, so A = H·T with T[j] = (1, τⱼ, ReLU(τⱼ − kᵢ)) (values at the
    knots). With HᵀH = VΛVᵀ (tridiagonal, O(m²)), R = Λ^½VᵀT and z = Λ^−½VᵀHᵀy over
    the positive λ give RᵀR = AᵀA and Rᵀz = Aᵀy: the same normal equations and null
    space, so the minimum-norm solution of R·p ≈ z is pinv(A)·y, with m ≤ K + 2 rows
    instead of n.
    """
    # numpy's dense solvers on at most MAX_HINGES + 2 rows (a few milliseconds), not
    # scipy's tridiagonal ones: importing scipy.linalg on first use took 0.2 s of the
    # GUI thread when a user typed 200 hinges on 200 points
    diag, off, rhs = _hat_normal_equations(x, y, knots)
    lam, V = np.linalg.eigh(np.diag(diag) + np.diag(off, 1) + np.diag(off, -1))
    keep = lam > max(float(lam.max()), 0.0) * 1e-13
    lam, V = lam[keep], V[:, keep]
    T = np.column_stack([np.ones_like(knots), knots, relu(knots[:, None] - kinks[None, :])])
    root = np.sqrt(lam)
    R = root[:, None] * (V.T @ T)
    z = (V.T @ rhs) / root
    coef, *_ = np.linalg.lstsq(R, z, rcond=None)  # SVD: the minimum-norm solution
    return float(coef[0]), float(coef[1]), coef[2:]


#: Kinks closer than this (relative to the data's scale) count as one kink: the
#: exact solution would put slopes of ±1/gap on the gap between them, which floating
#: point cannot add back up, while the merged fit differs from it by about the gap.
MERGE_TOLERANCE = 1e-9


def _merge_close(k: np.ndarray, tol: float) -> tuple[np.ndarray, np.ndarray]:
    """Distinct kinks (the first of each run closer than ``tol``) and, for every
    input kink, the index of its run."""
    if k.size == 0:
        return k, np.zeros(0, dtype=int)
    order = np.argsort(k, kind="stable")
    ks = k[order]
    starts = np.concatenate(([True], np.diff(ks) > tol))
    run = np.cumsum(starts) - 1
    group = np.empty(k.size, dtype=int)
    group[order] = run
    return ks[starts], group


def _fast_fit(x: np.ndarray, y: np.ndarray, kinks: np.ndarray):
    """The minimum-norm least-squares parameters through the hat basis (and the name
    of the path taken), or None when the data have fewer than two distinct x."""
    x_min, x_max = float(x[0]), float(x[-1])
    K = kinks.size
    coefficients = np.zeros(K)
    inside = (kinks > x_min) & (kinks < x_max)
    left_idx = np.flatnonzero(kinks <= x_min)
    if x_max <= x_min:
        return None
    u, group = _merge_close(kinks[inside], MERGE_TOLERANCE * max(1.0, abs(x_min), abs(x_max)))
    knots = np.concatenate(([x_min], u, [x_max]))
    xs = x[np.concatenate(([True], np.diff(x) > 0))]  # the distinct points (x is sorted)
    if xs.size < knots.size or not _schoenberg_whitney(xs, knots):
        return (*_compressed_fit(x, y, kinks, knots), "hat basis, rank-deficient")
    try:
        v = _hat_fit(x, y, knots)
    except (np.linalg.LinAlgError, ValueError):
        return (*_compressed_fit(x, y, kinks, knots), "hat basis, rank-deficient")
    if not np.all(np.isfinite(v)):
        return (*_compressed_fit(x, y, kinks, knots), "hat basis, rank-deficient")
    slopes = np.diff(v) / np.diff(knots)
    line_slope = slopes[0]
    line_intercept = v[0] - line_slope * x_min
    jumps = np.diff(slopes)                     # slope change at each distinct inside kink
    if inside.any():
        counts = np.bincount(group, minlength=u.size)
        coefficients[np.flatnonzero(inside)] = jumps[group] / counts[group]
    if left_idx.size:
        # On the data, ReLU(x − k) = x − k for k ≤ x_min. Minimum-norm (a, s, c_L) with
        # a − Σ c_L k = line_intercept and s + Σ c_L = line_slope: p = Bᵀ(BBᵀ)⁻¹t.
        kl = kinks[left_idx]
        B = np.zeros((2, 2 + kl.size))
        B[0, 0], B[1, 1] = 1.0, 1.0
        B[0, 2:], B[1, 2:] = -kl, 1.0
        p = B.T @ np.linalg.solve(B @ B.T, np.array([line_intercept, line_slope]))
        intercept, slope = p[0], p[1]
        coefficients[left_idx] = p[2:]
    else:
        intercept, slope = line_intercept, line_slope
    return float(intercept), float(slope), coefficients, "hat basis"


def fit_hinges(x, y, kinks, method: str = "auto") -> HingeFit:
    """Least squares over the columns [1, x, ReLU(x − kᵢ)]:

        minimise Σⱼ (a + s·xⱼ + Σᵢ cᵢ·ReLU(xⱼ − kᵢ) − yⱼ)²  over a, s, c,

    taking the minimum-norm solution when it is not unique (equal kinks, kinks
    outside the data, fewer points than columns): it never raises for those.
    ``method`` is "auto" (the O(n + K) hat-basis solve, dense fallback when
    singular) or "dense" (``np.linalg.lstsq`` on the n × (K + 2) matrix).
    Returns a :class:`HingeFit` with ``predict``, ``rmse`` and ``max_error``.
    """
    x = np.asarray(x, dtype=float).reshape(-1)
    y = np.asarray(y, dtype=float).reshape(-1)
    kinks = np.array(kinks, dtype=float).reshape(-1)
    if x.shape != y.shape:
        raise ValueError(f"x has {x.size} values but y has {y.size}")
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y)) and np.all(np.isfinite(kinks))):
        raise ValueError("x, y and the kinks must be finite numbers")
    if method not in ("auto", "dense"):
        raise ValueError(f"unknown method {method!r} (auto or dense)")
    if x.size == 0:
        return HingeFit(0.0, 0.0, kinks, np.zeros(kinks.size), float("nan"), float("nan"),
                        "empty", np.zeros(0))
    params = None
    if method == "auto":
        if x.size > 1 and np.any(np.diff(x) < 0):
            order = np.argsort(x, kind="stable")
            params = _fast_fit(x[order], y[order], kinks)
        else:
            params = _fast_fit(x, y, kinks)
    if params is None:
        params = (*_dense_fit(x, y, kinks), "dense")
    intercept, slope, coefficients, used = params
    pred = evaluate_hinges(x, intercept, slope, kinks, coefficients)
    rmse, worst, r = _errors(pred, y)
    return HingeFit(intercept, slope, kinks, np.asarray(coefficients, dtype=float), rmse, worst,
                    used, r)


# -- interpolation ----------------------------------------------------------------------

def interpolation_bound(a: float, b: float, n: int, M: float) -> float:
    """The error bound of piecewise-linear interpolation at n + 1 equally spaced
    points when |f''| ≤ M on [a, b]:  max |f − f̂| ≤ (b − a)²·M / (8n²)."""
    return (float(b) - float(a)) ** 2 * float(M) / (8.0 * int(n) ** 2)


@dataclass(frozen=True)
class CurvatureEstimate:
    """M ≈ max |f''| on [a, b] from second differences; ``bounded`` is False when
    refining the grid keeps raising it (a corner or a jump: no finite M)."""

    M: float
    bounded: bool
    estimated: bool = True


def estimate_curvature(f: Callable, a: float, b: float, points: int = 4001) -> CurvatureEstimate:
    """M ≈ max |f(x + h) − 2f(x) + f(x − h)| / h² on a grid of ``points`` and on one
    twice as fine. For a smooth f both agree; at a corner the estimate doubles with
    each halving of h (|Δ²f| ≈ |jump of f'|·h), at a jump it quadruples. An estimate,
    not a bound: it can miss a spike narrower than the grid."""
    def at(m):
        x = np.linspace(a, b, m)
        h = x[1] - x[0]
        y = np.asarray(f(x), dtype=float)
        return float(np.max(np.abs(y[2:] - 2 * y[1:-1] + y[:-2]))) / (h * h)

    coarse, fine = at(points), at(2 * points - 1)
    bounded = bool(np.isfinite(fine)) and fine <= 1.5 * coarse + 1e-9
    return CurvatureEstimate(max(coarse, fine), bounded)


def find_jump(f: Callable, a: float, b: float, points: int = 4001) -> tuple[float, float] | None:
    """(size, x) of the largest jump of f on [a, b], or None when f looks continuous.

    The largest step between neighbouring grid values is compared on three grids,
    each twice as fine: for a continuous f it shrinks with h, across a jump it stays.
    Near a jump of size J every continuous approximation is at least J/2 away from f
    somewhere, however many hinges it has.
    """
    def biggest(m):
        x = np.linspace(a, b, m)
        d = np.abs(np.diff(np.asarray(f(x), dtype=float)))
        if not d.size:
            return 0.0, a
        i = int(np.argmax(d))
        return float(d[i]), float(0.5 * (x[i] + x[i + 1]))

    (coarse, _), (fine, _), (finer, where) = (biggest(points), biggest(2 * points - 1),
                                             biggest(4 * points - 3))
    if coarse > 1e-9 and fine > 0.8 * coarse and finer > 0.8 * coarse:
        return finer, where
    return None


@dataclass(frozen=True, eq=False)
class Interpolation:
    """The lesson's construction: knots t_k = a + k·h, h = (b − a)/n (k = 0…n − 1),
    slopes s_k = (f(t_k + h) − f(t_k))/h, and

        f̂(x) = f(a) + s₀·ReLU(x − t₀) + Σ_{k≥1} (s_k − s_{k−1})·ReLU(x − t_k),

    n ReLU neurons that equal f at t₀ … t_n = b. ``max_error`` is measured on a grid
    that refines every piece (midpoints included), ``bound`` is (b − a)²M/(8n²)
    with M = ``curvature.M`` (None when f'' looks unbounded)."""

    n: int
    a: float
    b: float
    knots: np.ndarray
    values: np.ndarray
    fit: HingeFit
    max_error: float
    rmse: float
    curvature: CurvatureEstimate
    bound: float | None


def interpolate_hinges(f: Callable, a: float, b: float, n: int,
                       curvature: CurvatureEstimate | None = None,
                       per_piece: int = 64) -> Interpolation:
    """Build the interpolating sum of n hinges for f on [a, b] (see :class:`Interpolation`)."""
    n = int(n)
    if n < 1:
        raise ValueError("the interpolation needs at least one hinge")
    a, b = float(a), float(b)
    t = np.linspace(a, b, n + 1)
    v = np.asarray(f(t), dtype=float)
    s = np.diff(v) / np.diff(t)
    coefficients = np.concatenate(([s[0]], np.diff(s)))
    x = np.linspace(a, b, n * per_piece + 1)  # every knot and every midpoint is on it
    y = np.asarray(f(x), dtype=float)
    fit = hinge_sum(x, y, v[0], 0.0, t[:-1], coefficients)
    if curvature is None:
        curvature = estimate_curvature(f, a, b)
    bound = interpolation_bound(a, b, n, curvature.M) if curvature.bounded else None
    return Interpolation(n, a, b, t, v, fit, fit.max_error, fit.rmse, curvature, bound)


# -- convergence ----------------------------------------------------------------------

DEFAULT_COUNTS = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 200)


@dataclass(frozen=True)
class ConvergenceRow:
    """Errors with n hinges. ``ls_max_error`` is on the samples (as in the notebook);
    ``ls_sup_error`` is on a grid 16 times finer, which also sees between samples
    (near a jump it stays at about half the jump)."""

    n: int
    ls_rmse: float
    ls_max_error: float
    ls_sup_error: float
    interp_rmse: float
    interp_max_error: float
    bound: float | None


def convergence_study(f: Callable, a: float, b: float, counts: Sequence[int] = DEFAULT_COUNTS,
                      points: int = 400) -> Iterator[ConvergenceRow]:
    """Error against the number of hinges n, one row per n (a generator, so a UI can
    spread the work over timer ticks): least squares with n evenly spaced kinks on
    ``points`` samples, and the interpolation construction with its bound."""
    x = np.linspace(a, b, int(points))
    y = np.asarray(f(x), dtype=float)
    fine = np.linspace(a, b, 16 * (int(points) - 1) + 1)
    y_fine = np.asarray(f(fine), dtype=float)
    curvature = estimate_curvature(f, a, b)
    for n in counts:
        ls = fit_hinges(x, y, evenly_spaced_kinks(a, b, n))
        sup = float(np.max(np.abs(ls.predict(fine) - y_fine)))
        it = interpolate_hinges(f, a, b, n, curvature)
        yield ConvergenceRow(int(n), ls.rmse, ls.max_error, sup, it.rmse, it.max_error, it.bound)


def log_log_slope(ns, errors) -> float:
    """The slope of log(error) against log(n) by least squares (−2 means doubling the
    hinges divides the error by four)."""
    ns = np.asarray(ns, dtype=float)
    e = np.asarray(errors, dtype=float)
    ok = (ns > 0) & (e > 0) & np.isfinite(e)
    if ok.sum() < 2:
        return float("nan")
    return float(np.polyfit(np.log(ns[ok]), np.log(e[ok]), 1)[0])
