"""Deep → shallow: an exactly equal shallow network for any deep ReLU network.

After Villani & Schoots, "Any Deep ReLU Network Is Shallow" (ECAI 2025): every
ReLU network N: Rⁿ → Rᵐ equals a network with three hidden layers whose weights
may be ±∞, of width at most max{2n + k, 2n + p, 2pm} (Corollary 1). What is built
here is a reconstruction that reproduces that bound term by term (the paper's own
choices of how k is counted and how boundaries are treated may differ):

* hidden layer 1 (2n + k): ReLU(x), ReLU(−x), and per constraint j of the regions
  a detector, d_j = ReLU(1 − ∞·z_j) for a strict z_j > 0 and d_j = ReLU(z_j) for a
  non-strict z_j ≤ 0 (0 when satisfied, > 0 when violated);
* hidden layer 2 (2n + p): ReLU(x), ReLU(−x) again, and per region r
  o_r = ReLU(+∞·Σ_{j∈J_r} d_j), 0 inside P_r and +∞ outside;
* hidden layer 3 (2pm): q±_{r,i} = ReLU(±(A_r x + c_r)_i − o_r);
* output y_i = Σ_r (q⁺_{r,i} − q⁻_{r,i}). Exactly one o_r is 0 at every x, so y = N(x).

Extended reals follow 0·∞ = 0, ReLU(−∞) = 0, ReLU(+∞) = +∞, and ∞ − ∞ is never
formed. An infinite row is stored factored, S·(v·h + β) with S ∈ {+∞, −∞}: the
finite bracket is evaluated first and S·t becomes ±∞, or 0 when t = 0.

In 1-D the network is a list of kinks, and :func:`to_shallow` gives an ordinary
one-hidden-layer network with finite weights and the least possible width.

The parts: :mod:`.extended` (the extended-real layers and the three-hidden-layer
construction, big M), :mod:`.one_d` (1-D: one finite hidden layer of least width),
:mod:`.verify` (the check). This module holds the Corollary's widths and a whole
conversion, and gives every name of the parts its callers use.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from relulab.model.networks.mlp import MLP
from relulab.model.regions.activation import Region, linear_regions
from relulab.model.shallow.extended import (
    BigMReport,
    ExtendedLayer,
    ExtendedNetwork,
    big_m_network,
    big_m_report,
    region_constraints,
    shallow_from_regions,
)
from relulab.model.shallow.one_d import (
    EXACT_KNOTS_FOR_WIDTH,
    EXHAUSTIVE_KINKS,
    OneDShallow,
    _least_width,
    shallow_1d,
)
from relulab.model.shallow.proof import RegionProof, prove, relative_bound
from relulab.model.shallow.verify import (
    ROUNDING,
    SANITY_POINTS,
    Verification,
    _magnitude,
    active_magnitude,
    magnitude,
    rounding_bound,
)

__all__ = [
    "COROLLARY_TERMS", "EXACT_KNOTS_FOR_WIDTH", "EXHAUSTIVE_KINKS", "MAX_REGIONS",
    "MAX_SECONDS", "ROUNDING", "SANITY_POINTS", "BigMReport", "Conversion", "ExtendedLayer",
    "ExtendedNetwork", "OneDShallow", "RegionProof", "Verification", "big_m_network",
    "big_m_report", "convert", "corollary_bound", "corollary_terms", "magnitude",
    "region_constraints", "rounding_bound", "shallow_1d", "shallow_from_regions",
    "shallow_parameters", "to_shallow", "to_shallow_extended",
]


# ---------------------------------------------------------------------------
# Corollary 1's widths
# ---------------------------------------------------------------------------
#: Corollary 1's three widths, in words; :func:`corollary_terms` gives their values.
COROLLARY_TERMS = ("2n + k", "2n + p", "2pm")


def corollary_terms(n: int, k: int, p: int, m: int) -> tuple[int, int, int]:
    """The widths of the three hidden layers of Corollary 1: 2n + k (x⁺, x⁻ and one
    detector per constraint), 2n + p (x⁺, x⁻ and one indicator per region) and 2pm
    (the positive and negative part of each region's affine map)."""
    return 2 * n + k, 2 * n + p, 2 * p * m


def shallow_parameters(n: int, k: int, p: int, m: int, strict: int | None = None) -> int:
    """The parameters of :func:`shallow_from_regions`'s network for n inputs, k
    constraints (``strict`` of them strict; all k when not given, an upper bound), p
    regions and m outputs, counted as ``ExtendedNetwork.n_params`` counts them, without
    building it (it is dense: 2pm·(2n + p) weights in layer 3)."""
    w1, w2, w3 = corollary_terms(n, k, p, m)
    strict = k if strict is None else strict
    # layer 1: W, b, and a bracket and a scale for every strict detector
    return (w1 * n + w1 + strict * (n + 2)) + (w2 * w1 + w2 + p * (w1 + 2)) \
        + (w3 * w2 + w3) + (m * w3 + m)


def corollary_bound(n: int, k: int, p: int, m: int) -> int:
    """Corollary 1's width bound max{2n + k, 2n + p, 2pm}."""
    return max(corollary_terms(n, k, p, m))



def to_shallow(net: MLP) -> MLP:
    """A one-hidden-layer network with finite weights equal to the 1-D network ``net``
    on the whole line, of least width (N or N + 1 for N kinks); see :func:`shallow_1d`."""
    return shallow_1d(net).net


def to_shallow_extended(net: MLP, regions: Sequence[Region] | None = None) -> ExtendedNetwork:
    """The three-hidden-layer extended-real network equal to ``net`` on all of Rⁿ."""
    if regions is None:
        regions = linear_regions(net)
    return shallow_from_regions(regions)



# ---------------------------------------------------------------------------
# a whole conversion, with its verification (for the command and the panel)
# ---------------------------------------------------------------------------
@dataclass
class Conversion:
    """A deep network, its shallow equal, and what the Corollary says about its size."""

    deep: MLP
    shallow: MLP | ExtendedNetwork       # MLP (1-D) or ExtendedNetwork (n-D)
    one_d: OneDShallow | None = None
    regions: list = field(default_factory=list)
    k: int = 0
    p: int = 0

    @property
    def n_in(self) -> int:
        return self.deep.n_in

    @property
    def n_out(self) -> int:
        return self.deep.n_out

    @property
    def shallow_widths(self) -> list[int]:
        return list(self.shallow.hidden_sizes)

    @property
    def terms(self) -> tuple[int, int, int]:
        """Corollary 1's three widths 2n + k, 2n + p and 2pm for this network."""
        return corollary_terms(self.n_in, self.k, self.p, self.n_out)

    @property
    def bound(self) -> int:
        """Corollary 1: max{2n + k, 2n + p, 2pm}. In 1-D, p counts the activation
        regions along the line and k = 2(p − 1) (two senses per boundary point)."""
        return max(self.terms)

    def bound_text(self) -> str:
        """"max{2n + k, 2n + p, 2pm} = max{…} = bound", with the 1-D reading of k."""
        return (f"max{{{', '.join(COROLLARY_TERMS)}}} = max{{{', '.join(map(str, self.terms))}}}"
                f" = {self.bound}" + (" (k = 2(p − 1) in 1-D)" if self.one_d is not None else ""))

    def scale(self) -> float:
        if self.one_d is not None:
            t = self.one_d.kinks
            return max(1.0, float(np.abs(t).max()) if len(t) else 1.0)
        W = np.abs(np.array([r.witness for r in self.regions]))
        W = W[np.isfinite(W)]   # a region beyond the doubles has no double witness
        return max(1.0, float(W.max()) if W.size else 1.0)

    def _span_1d(self):
        """(centre, reach) of the kinks: in the network's own units."""
        assert self.one_d is not None  # 1-D only
        t = self.one_d.kinks
        if not len(t):
            return 0.0, 1.0
        reach = max(float(t[-1] - t[0]), float(np.abs(t).max()))
        return float((t[0] + t[-1]) / 2), reach if reach > 0 else 1.0

    def exact_points(self) -> np.ndarray:
        """1-D: the kinks, midpoints between neighbouring kinks and one point beyond
        each end (both networks are affine between kinks). n-D: none; the regions are
        compared whole (:mod:`.proof`)."""
        if self.one_d is None:
            return np.zeros((0, self.n_in))
        t = self.one_d.kinks
        if not len(t):
            return np.array([[-1.0], [0.0], [1.0]])
        _, reach = self._span_1d()
        return np.concatenate([t, (t[1:] + t[:-1]) / 2, [t[0] - reach, t[-1] + reach]])[:, None]

    def verify(self, n_random: int = SANITY_POINTS, seed: int = 0,
               should_stop=None) -> Verification:
        """n-D: the region-by-region proof (:func:`relulab.model.shallow.proof.prove`),
        and ``n_random`` random points as a sanity check beside it. 1-D: |deep −
        shallow| at the kinks, between them, beyond the ends and at ``n_random`` random
        points, against the rounding bound (see ROUNDING), and the end slopes. The
        extended network checks ``should_stop`` as it goes."""
        X = self.exact_points()
        shallow = self.shallow

        def d(P):
            if not len(P):
                return np.zeros((0, self.n_out))
            return np.asarray(self.deep(P), dtype=float).reshape(len(P), -1)

        def s(P):
            if not len(P):
                return np.zeros((0, self.n_out))
            return np.asarray(shallow(P, should_stop) if isinstance(shallow, ExtendedNetwork)
                              else shallow(P), dtype=float).reshape(len(P), -1)

        rng = np.random.default_rng(seed)
        proof = None
        if self.one_d is None:
            proof = prove(self.deep, self.regions, shallow, should_stop)
        with np.errstate(over="ignore", invalid="ignore"):
            dX, sX = d(X), s(X)
            exact = float(np.abs(dX - sX).max()) if len(X) else 0.0
            if self.one_d is not None:
                centre, reach = self._span_1d()
                R = rng.normal(centre, 2.0 * reach, (n_random, 1))
            else:
                # finite points: 2·scale may pass the doubles' range
                R = rng.normal(0.0, min(2.0 * self.scale(), 1e300), (n_random, self.n_in))
            dR, sR = d(R), s(R)
            rand = float(np.abs(dR - sR).max()) if n_random else 0.0
        finite = bool(np.all(np.isfinite(dX)) and np.all(np.isfinite(sX))
                      and np.all(np.isfinite(dR)) and np.all(np.isfinite(sR)))
        v = Verification(exact, len(X), rand, n_random, finite=finite, proof=proof)
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            P = np.concatenate([X, R])
            v.scale = _magnitude(self.deep, P)
            diff = np.abs(np.concatenate([dX, dR]) - np.concatenate([sX, sR]))
            if self.one_d is None:
                # the proof's τ·M(x) in x's own region, and each evaluation's own
                # rounding (within τ·M(x)); M(x) at x's scale, not the largest anywhere
                bound = 3 * relative_bound(self.deep) * active_magnitude(self.deep, P)
            else:
                assert isinstance(shallow, MLP)  # 1-D: one finite hidden layer
                bound = (rounding_bound(self.deep, shallow, P)
                         + self.one_d.representation_error(P))
            ratio = np.where(diff == 0, 0.0, diff / bound)
        v.max_rounding_ratio = (float(np.max(ratio, initial=0.0)) if np.all(np.isfinite(ratio))
                                else np.inf)
        if self.one_d is not None:
            t = self.one_d.kinks
            if len(t):
                v.max_error_at_kinks = float(np.abs(d(t[:, None]) - s(t[:, None])).max())
            v.end_slopes_agree = self._end_slopes_agree()
        return v

    def _end_slopes_agree(self) -> bool:
        """The shallow network's slopes on the two rays (read off its weights) against
        the deep network's certified ones: within the proven error of the output weights
        (``weight_errors``: a weight computed from jumps that cancel, as where a ray's
        slope is small beside the others, is off by far more than its own rounding),
        the certified slopes' own error bounds (a flat ray may be certified as 2e-19 ±
        2e-18) and the rounding of the sum."""
        shallow, one = self.shallow, self.one_d
        assert isinstance(shallow, MLP) and one is not None  # 1-D only
        (W1, _b1), (W2, _) = shallow.layers if len(shallow.layers) == 2 else \
            ((np.zeros((0, 1)), np.zeros(0)), (np.zeros((self.n_out, 0)), None))
        w = W1[:, 0]
        EV = one.weight_errors[1] if one.weight_errors is not None else np.zeros_like(W2)
        left = np.asarray(one.slopes_at_ends[0], dtype=float).reshape(-1)
        right = np.asarray(one.slopes_at_ends[1], dtype=float).reshape(-1)
        ends = one.end_slope_errors or (np.zeros_like(left), np.zeros_like(right))
        for want, off, on in ((left, ends[0], w < 0), (right, ends[1], w > 0)):
            terms = W2[:, on] * w[on]
            got = terms.sum(axis=1)
            size = np.abs(terms).sum(axis=1) + np.abs(want)
            proven = (EV[:, on] * np.abs(w[on])).sum(axis=1) + off
            if np.any(np.abs(got - want)
                      > proven + 8 * (len(w) + 2) * 2.0 ** -53 * size * ROUNDING):
                return False
        return True


#: A conversion stops with a one-line :class:`~relulab.model.regions.activation.RegionLimit` beyond
#: these: the three-hidden-layer network is built as dense matrices of about p × k
#: entries (p regions, k constraints), some hundreds of megabytes at 3,000 regions.
MAX_REGIONS = 3000
MAX_SECONDS = 30.0


def convert(net: MLP, regions: Sequence[Region] | None = None, should_stop=None,
            max_regions: int | None = MAX_REGIONS, max_seconds: float | None = MAX_SECONDS
            ) -> Conversion:
    """Deep → shallow for any ReLU network: 1-D input gives a finite one-hidden-layer
    network (:func:`shallow_1d`), n-D input the extended three-hidden-layer one.
    ``should_stop``, ``max_regions`` and ``max_seconds`` are passed to the region
    enumeration (see :func:`linear_regions`)."""
    if net.activation != "relu":
        raise ValueError(f"the converter needs a ReLU network, not {net.activation!r}")
    if not net.is_finite():
        raise ValueError("the network has NaN or infinite weights")
    if net.n_in == 1:
        from relulab.model.pieces.piecewise import line_pieces

        lp = line_pieces(net, should_stop=should_stop)
        one = _least_width(net, lp)
        # regions along the line: the activation boundaries (a superset of the kinks)
        p = len(lp.knots) + 1
        return Conversion(net, one.net, one_d=one, k=2 * (p - 1), p=p)
    if regions is None:
        regions = linear_regions(net, should_stop=should_stop, max_regions=max_regions,
                                 max_seconds=max_seconds)
    regions = list(regions)
    shallow = shallow_from_regions(regions)
    k = shallow.layers[0].n_out - 2 * net.n_in   # detectors: one per distinct constraint
    return Conversion(net, shallow, regions=regions, k=k, p=len(regions))
