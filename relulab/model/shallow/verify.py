"""The check of a conversion: deep and shallow compared at exact points and at random
ones, against a bound on rounding that holds in any units.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from relulab.model.networks.mlp import MLP

#: In 1-D, deep and shallow agree "up to rounding" at x when
#: |deep(x) − shallow(x)| ≤ ROUNDING · (L + 2) · (n + 2) · u · (M_deep(x) + M_shallow(x)),
#: with u = 2⁻⁵³, L layers, n the widest layer and M the network with every weight,
#: bias and x replaced by its absolute value (the size of the terms that are summed;
#: doubling x's units doubles M, so the bound holds in any units).
ROUNDING = 16.0


def magnitude(net: MLP, X: np.ndarray) -> np.ndarray:
    """M(x): the network with |W|, |b| evaluated at |x| (no activation needed, all
    terms are ≥ 0); it bounds the size of every number summed when evaluating net(x)."""
    h = np.abs(np.asarray(X, dtype=float).reshape(len(X), -1))
    for W, b in net.layers:
        h = h @ np.abs(W).T + np.abs(b)
    return h


def rounding_bound(deep: MLP, shallow: MLP, X: np.ndarray) -> np.ndarray:
    """The scale-relative bound above, at the points X, per output."""
    L = max(len(deep.layers), len(shallow.layers))
    n = max(max(deep.sizes), max(shallow.sizes))
    return ROUNDING * (L + 2) * (n + 2) * 2.0 ** -53 * (magnitude(deep, X) + magnitude(shallow, X))


@dataclass
class Verification:
    max_error_exact_points: float   # kinks and midpoints between them / witnesses and boundary points
    n_exact_points: int
    max_error_random: float
    n_random: int
    end_slopes_agree: bool | None = None  # 1-D only
    max_error_at_kinks: float | None = None  # 1-D only, exactly at the kinks
    max_rounding_ratio: float | None = None  # 1-D only: largest |deep − shallow| / bound
    finite: bool = True
    scale: float = 1.0   # n-D: size of what the outputs are summed from, at the points checked

    def tolerance(self, rel: float = 1e-9) -> float:
        """n-D: what "equal" allows, ``rel`` times the size of the summed terms (rounding
        grows with them, so a network in other units verifies the same)."""
        return rel * max(1.0, self.scale)

    def ok(self, tol: float | None = None) -> bool:
        """1-D: every difference within the rounding bound (ROUNDING); n-D: within
        ``tol`` (default :meth:`tolerance`). Never ok when a value is NaN or infinite."""
        if not self.finite:
            return False
        if self.max_rounding_ratio is not None:
            return self.max_rounding_ratio <= 1.0 and self.end_slopes_agree is not False
        tol = self.tolerance() if tol is None else tol
        return (self.max_error_exact_points <= tol and self.max_error_random <= tol
                and self.end_slopes_agree is not False)


def _magnitude(net: MLP, X: np.ndarray) -> float:
    """max over X of Σ|terms| of the network's output: the forward pass with |W|, |b|
    and |x| (the scale of its rounding errors)."""
    h = np.abs(np.asarray(X, dtype=float))
    for W, b in net.layers:
        h = h @ np.abs(W).T + np.abs(b)
    return float(h.max()) if h.size else 0.0
