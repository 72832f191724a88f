"""The check of a conversion, against a bound on rounding that holds in any units.

In 1-D both networks are affine between neighbouring kinks, so they are compared at
every kink, between kinks, beyond both ends, and on the two rays' slopes. In n-D the
verdict rests on the region-by-region proof of :mod:`.proof` (no point sampled); a
few hundred random points are a sanity check beside it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from relulab.model.networks.exact import gamma
from relulab.model.networks.mlp import MLP

if TYPE_CHECKING:
    from relulab.model.shallow.proof import RegionProof

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


def active_magnitude(net: MLP, X: np.ndarray) -> np.ndarray:
    """M(x) at each point's own scale, per output: :func:`magnitude`, but a neuron that
    floating point proves off at x (its pre-activation below minus a rigorous bound on
    its error) passes nothing on, since its ReLU is exactly 0 in doubles and in exact
    arithmetic. A neuron whose line is far away does not widen the bound near the
    origin; a neuron that may be on counts in full."""
    h = np.asarray(X, dtype=float).reshape(len(X), -1)
    M, E = np.abs(h), np.zeros_like(h)
    for W, b in net.layers[:-1]:
        aW = np.abs(W)
        z = h @ W.T + b
        Mz = M @ aW.T + np.abs(b)
        Ez = (((np.abs(h) @ aW.T + np.abs(b)) * gamma(W.shape[1] + 2) + E @ aW.T) * (1 + 1e-10)
              + (W.shape[1] + 2) * 2.0 ** -1074)
        off = z < -Ez
        M, E, h = np.where(off, 0.0, Mz), np.where(off, 0.0, Ez), np.maximum(z, 0.0)
    W, b = net.layers[-1]
    return M @ np.abs(W).T + np.abs(b)


#: Random points of the sanity check beside the proof (n-D) or the kinks (1-D).
SANITY_POINTS = 256


@dataclass
class Verification:
    max_error_exact_points: float   # 1-D: kinks, midpoints between them and beyond the ends
    n_exact_points: int
    max_error_random: float
    n_random: int
    end_slopes_agree: bool | None = None  # 1-D only
    max_error_at_kinks: float | None = None  # 1-D only, exactly at the kinks
    # largest |deep − shallow| / bound at the points: 1-D, the rounding bound (ROUNDING);
    # n-D, 3τ·M(x) with M at x's own scale (:func:`active_magnitude`: the proof's τ·M(x)
    # in x's region and the rounding of both evaluations)
    max_rounding_ratio: float | None = None
    finite: bool = True
    scale: float = 1.0   # size of what the outputs are summed from, at the points checked
    proof: RegionProof | None = None  # n-D: the region-by-region proof

    def ok(self) -> bool:
        """n-D: the region-by-region proof holds and the sanity points agree within
        3τ·M(x); 1-D: every difference within the rounding bound (ROUNDING) and the end
        slopes agree. Never ok when a value is NaN or infinite."""
        if not self.finite:
            return False
        if self.proof is not None and not self.proof.proven:
            return False
        return (self.max_rounding_ratio is not None and self.max_rounding_ratio <= 1.0
                and self.end_slopes_agree is not False)


def _magnitude(net: MLP, X: np.ndarray) -> float:
    """max over X of Σ|terms| of the network's output: the forward pass with |W|, |b|
    and |x| (the scale of its rounding errors)."""
    h = np.abs(np.asarray(X, dtype=float))
    for W, b in net.layers:
        h = h @ np.abs(W).T + np.abs(b)
    return float(h.max()) if h.size else 0.0
