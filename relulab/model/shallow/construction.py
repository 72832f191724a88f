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
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import scipy.sparse

from relulab.model.core.cancel import check
from relulab.model.core.rows import unique_rows
from relulab.model.networks.mlp import MLP
from relulab.model.regions.activation import Region, linear_regions

INF = np.inf


# ---------------------------------------------------------------------------
# extended-real networks
# ---------------------------------------------------------------------------
def _ro(a) -> np.ndarray:
    """A read-only float copy of ``a``; an array that is read-only already (such as
    the zero-stride zeros of :func:`_zeros`) is kept as it is."""
    if isinstance(a, np.ndarray) and a.dtype == float and not a.flags.writeable:
        return a
    a = np.array(a, dtype=float)
    a.setflags(write=False)
    return a


def _zeros(shape) -> np.ndarray:
    """Read-only zeros that take no memory (the unused V of a finite layer: 65 MB for
    a network of two thousand regions)."""
    return np.broadcast_to(0.0, shape)


@dataclass(frozen=True, eq=False)
class ExtendedLayer:
    """One layer: pre = W h + b + S ⊙ (V h + v), row by row.

    ``S`` holds 0 (a finite row: V, v unused), +∞ or −∞. ``W``, ``b``, ``V``, ``v``
    are finite; h may hold +∞ or −∞ (from an earlier layer)."""

    W: np.ndarray
    b: np.ndarray
    S: np.ndarray
    V: np.ndarray
    v: np.ndarray

    def __post_init__(self):
        for name in ("W", "b", "S", "V", "v"):
            object.__setattr__(self, name, _ro(getattr(self, name)))
        n_out, n_in = self.W.shape
        if self.b.shape != (n_out,) or self.S.shape != (n_out,) or self.V.shape != (n_out, n_in) \
                or self.v.shape != (n_out,):
            raise ValueError("extended layer: W, b, S, V, v shapes do not agree")
        if not all(np.all(np.isfinite(a)) for a in (self.W, self.b, self.V, self.v)):
            raise ValueError("extended layer: W, b, V, v must be finite (∞ only in S)")
        if not np.all((self.S == 0) | np.isinf(self.S)):
            raise ValueError("extended layer: S must be 0, +inf or -inf")
        # Every distinct affine form is evaluated once, so two rows that share a
        # functional (both senses of one split) see bit-identical values.
        forms = np.concatenate([np.column_stack([self.W, self.b]),
                                np.column_stack([self.V[self.S != 0], self.v[self.S != 0]])])
        # (−0.0 made 0.0: equal values give one form)
        unique, _, inverse = unique_rows(forms + 0.0)
        object.__setattr__(self, "_forms", unique)
        # the construction's layers 2 and 3 are mostly zeros: kept sparse they cost
        # their non-zeros, not rows × columns
        F = unique[:, :-1]
        sparse = F.size > 4096 and np.count_nonzero(F) < 0.1 * F.size
        object.__setattr__(self, "_F", scipy.sparse.csr_matrix(F) if sparse else F)
        object.__setattr__(self, "_finite_idx", inverse[:n_out])
        scaled = np.full(n_out, -1)
        scaled[self.S != 0] = inverse[n_out:]
        object.__setattr__(self, "_scaled_idx", scaled)

    @property
    def n_in(self) -> int:
        return self.W.shape[1]

    @property
    def n_out(self) -> int:
        return self.W.shape[0]

    @property
    def is_finite(self) -> bool:
        return not np.any(self.S != 0)

    @property
    def n_params(self) -> int:
        """Weights and biases, an infinite row counting its bracket and its scale."""
        inf_rows = int(np.count_nonzero(self.S))
        return self.W.size + self.b.size + inf_rows * (self.n_in + 2)

    def pre_activation(self, h: np.ndarray) -> np.ndarray:
        """W h + b + S ⊙ (V h + v) in extended reals, h of shape (N, n_in)."""
        forms = _extended_affine(h, self._F, self._forms[:, -1])
        finite = forms[:, self._finite_idx]
        rows = np.nonzero(self.S != 0)[0]
        out = finite.copy() if rows.size else finite
        if rows.size:
            t = forms[:, self._scaled_idx[rows]]
            s = self.S[rows]
            scaled = np.where(t > 0, s, np.where(t < 0, -s, 0.0))  # S·0 = 0
            base = finite[:, rows]
            if np.any(np.isinf(base) & np.isinf(scaled) & (np.sign(base) != np.sign(scaled))):
                raise ArithmeticError("∞ − ∞ formed in an extended layer")
            out[:, rows] = base + scaled
        return out


def _extended_affine(h: np.ndarray, F, f: np.ndarray) -> np.ndarray:
    """h Fᵀ + f with h possibly ±∞ and 0·∞ = 0; raises on ∞ − ∞. F: an array or a
    scipy sparse matrix."""
    inf = np.isinf(h)
    if not inf.any():
        return np.asarray(h @ F.T) + f
    finite = np.asarray(np.where(inf, 0.0, h) @ F.T) + f
    cols = np.nonzero(inf.any(axis=0))[0]          # only these inputs can be infinite
    hc = h[:, cols]
    plus = (hc == INF).astype(float)
    minus = (hc == -INF).astype(float)
    if scipy.sparse.issparse(F):
        Fc = F[:, cols]
        Fp = (Fc > 0).astype(float).T.tocsr()
        Fn = (Fc < 0).astype(float).T.tocsr()
    else:
        Fp = np.ascontiguousarray((F[:, cols] > 0).T, dtype=float)
        Fn = np.ascontiguousarray((F[:, cols] < 0).T, dtype=float)
    up = np.asarray(plus @ Fp + minus @ Fn)    # how many terms are +∞ (0·∞ = 0: zeros skipped)
    down = np.asarray(plus @ Fn + minus @ Fp)  # how many terms are −∞
    if np.any((up > 0) & (down > 0)):
        raise ArithmeticError("∞ − ∞ formed in an extended dot product")
    return np.where(up > 0, INF, np.where(down > 0, -INF, finite))


@dataclass(frozen=True, eq=False)
class ExtendedNetwork:
    """A ReLU network whose rows may be scaled by ±∞ (see :class:`ExtendedLayer`).

    Every layer but the last is followed by ReLU (ReLU(−∞) = 0, ReLU(+∞) = +∞);
    the last is linear and finite."""

    layers: tuple

    def __post_init__(self):
        layers = tuple(self.layers)
        if not layers:
            raise ValueError("an extended network needs at least one layer")
        for i in range(1, len(layers)):
            if layers[i].n_in != layers[i - 1].n_out:
                raise ValueError(f"layer {i + 1} expects {layers[i].n_in} inputs but layer {i} "
                                 f"has {layers[i - 1].n_out} neurons")
        if not layers[-1].is_finite:
            raise ValueError("the output layer must be finite")
        object.__setattr__(self, "layers", layers)

    @property
    def sizes(self) -> list[int]:
        return [self.layers[0].n_in] + [L.n_out for L in self.layers]

    @property
    def n_in(self) -> int:
        return self.layers[0].n_in

    @property
    def n_out(self) -> int:
        return self.layers[-1].n_out

    @property
    def hidden_sizes(self) -> list[int]:
        return self.sizes[1:-1]

    @property
    def n_params(self) -> int:
        return sum(L.n_params for L in self.layers)

    @property
    def n_nonzero(self) -> int:
        """Parameters that are not 0 (the construction's matrices are mostly zeros)."""
        return sum(int(np.count_nonzero(L.W) + np.count_nonzero(L.b) + np.count_nonzero(L.S)
                       + np.count_nonzero(L.V[L.S != 0]) + np.count_nonzero(L.v[L.S != 0]))
                   for L in self.layers)

    def is_finite(self) -> bool:
        return all(L.is_finite for L in self.layers)

    def hidden(self, x) -> list[np.ndarray]:
        """Post-activations of every hidden layer (may contain +∞)."""
        h = np.atleast_2d(np.asarray(x, dtype=float))
        if self.n_in == 1 and h.shape[0] == 1 and h.shape[1] != 1:
            h = h.T
        out = []
        for L in self.layers[:-1]:
            h = np.maximum(L.pre_activation(h), 0.0)
            out.append(h)
        return out

    def __call__(self, x, should_stop=None) -> np.ndarray:
        """Outputs (N, m) for inputs (N, n); a 1-D input with one output gives (N,).
        ``should_stop`` is checked between blocks of points (see relulab.model.core.cancel)."""
        x = np.asarray(x, dtype=float)
        flat = x.ndim <= 1 and self.n_in == 1
        h = x.reshape(-1, 1) if flat else np.atleast_2d(x)
        if h.shape[1] != self.n_in:
            raise ValueError(f"expected inputs of shape (N, {self.n_in}), got {x.shape}")
        # a few thousand points at a time: the hidden layers are wide (about p and 2pm)
        width = max(self.hidden_sizes, default=1)
        step = max(1, (1 << 22) // max(1, width))
        parts = []
        for i in range(0, max(len(h), 1), step):
            check(should_stop, "evaluating the shallow network")
            g = h[i:i + step]
            for L in self.layers[:-1]:
                g = np.maximum(L.pre_activation(g), 0.0)
            parts.append(self.layers[-1].pre_activation(g))
        y = np.concatenate(parts) if len(parts) > 1 else parts[0]
        return y[:, 0] if flat and self.n_out == 1 else y

    def to_mlp(self) -> MLP:
        """The same network as an :class:`MLP` (only when every weight is finite)."""
        if not self.is_finite():
            raise ValueError("the network has infinite weights; an MLP needs finite ones "
                             "(see big_m_network for a finite stand-in)")
        return MLP([(L.W, L.b) for L in self.layers])

    @classmethod
    def from_mlp(cls, net: MLP) -> ExtendedNetwork:
        return cls(tuple(ExtendedLayer(W, b, np.zeros(len(b)), _zeros(W.shape),
                                       np.zeros(len(b))) for W, b in net.layers))

    def __repr__(self) -> str:
        return f"ExtendedNetwork({'-'.join(map(str, self.sizes))}, params={self.n_params})"


# ---------------------------------------------------------------------------
# n-D: the three-hidden-layer construction
# ---------------------------------------------------------------------------
def region_constraints(regions: Sequence[Region]):
    """The distinct (normalised functional, sense) pairs of the regions' stored constraints.

    Returns (normals (k, n), offsets (k,), strict (k,), members) where ``members[r]``
    lists the constraint indices of region r. Two rows are one constraint when their
    normalised functionals are bit-identical (the same split seen from two cells)."""
    index: dict = {}
    normals, offsets, strict, members = [], [], [], []
    for r in regions:
        mine = []
        for a, c, on in zip(r.normals, r.offsets, r.on):
            key = (a.tobytes(), float(c), bool(on))
            if key not in index:
                index[key] = len(normals)
                normals.append(a)
                offsets.append(float(c))
                strict.append(bool(on))
            mine.append(index[key])
        members.append(sorted(set(mine)))
    n = regions[0].A.shape[1] if regions else 0
    return (np.array(normals).reshape(-1, n), np.array(offsets), np.array(strict, dtype=bool),
            members)


def shallow_from_regions(regions: Sequence[Region]) -> ExtendedNetwork:
    """The three-hidden-layer extended network for a list of regions that partition Rⁿ.

    Widths (2n + k, 2n + p, 2pm) with k distinct constraints and p regions."""
    if not regions:
        raise ValueError("no regions")
    m, n = regions[0].A.shape
    p = len(regions)
    G, g, strict, members = region_constraints(regions)
    k = len(g)
    I = np.eye(n)

    # hidden layer 1: x⁺, x⁻, detectors
    W1 = np.zeros((2 * n + k, n))
    b1 = np.zeros(2 * n + k)
    S1 = np.zeros(2 * n + k)
    V1 = np.zeros((2 * n + k, n))
    v1 = np.zeros(2 * n + k)
    W1[:n], W1[n:2 * n] = I, -I
    rows = 2 * n + np.arange(k)
    # strict z_j > 0: ReLU(1 − ∞·z_j)
    W1[rows[strict]] = 0.0
    b1[rows[strict]] = 1.0
    S1[rows[strict]] = -INF
    V1[rows[strict]] = G[strict]
    v1[rows[strict]] = g[strict]
    # non-strict z_j ≤ 0: ReLU(z_j)
    W1[rows[~strict]] = G[~strict]
    b1[rows[~strict]] = g[~strict]

    # hidden layer 2: x⁺, x⁻, o_r = ReLU(+∞·Σ_{j∈J_r} d_j)
    W2 = np.zeros((2 * n + p, 2 * n + k))
    W2[:2 * n, :2 * n] = np.eye(2 * n)
    S2 = np.zeros(2 * n + p)
    V2 = np.zeros((2 * n + p, 2 * n + k))
    for r, js in enumerate(members):
        S2[2 * n + r] = INF
        V2[2 * n + r, [2 * n + j for j in js]] = 1.0

    # hidden layer 3: q±_{r,i} = ReLU(±(A_r x + c_r)_i − o_r), x = x⁺ − x⁻
    W3 = np.zeros((2 * p * m, 2 * n + p))
    b3 = np.zeros(2 * p * m)
    W4 = np.zeros((m, 2 * p * m))
    for r, reg in enumerate(regions):
        for i in range(m):
            for s, sign in enumerate((1.0, -1.0)):
                row = 2 * (r * m + i) + s
                W3[row, :n] = sign * reg.A[i]
                W3[row, n:2 * n] = -sign * reg.A[i]
                W3[row, 2 * n + r] = -1.0
                b3[row] = sign * reg.c[i]
                W4[i, row] = sign
    zeros = np.zeros
    layers = (
        ExtendedLayer(W1, b1, S1, V1, v1),
        ExtendedLayer(W2, zeros(2 * n + p), S2, V2, zeros(2 * n + p)),
        ExtendedLayer(W3, b3, zeros(2 * p * m), _zeros(W3.shape), zeros(2 * p * m)),
        ExtendedLayer(W4, zeros(m), zeros(m), _zeros(W4.shape), zeros(m)),
    )
    return ExtendedNetwork(layers)


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


# ---------------------------------------------------------------------------
# big M: a finite stand-in, exact only away from the boundaries
# ---------------------------------------------------------------------------
def big_m_network(shallow: ExtendedNetwork, M: float) -> MLP:
    """∞ replaced by a finite M: rows S·(v·h + β) become ±M·(v·h + β).

    Exact where every strict constraint holds with margin ≥ 1/M, every violated
    non-strict one is violated by ≥ |g|/M, and every |A_r x + c_r| ≤ M; wrong in
    slabs of half-width ~max(1, |g|)/M around the region boundaries."""
    M = float(M)
    if not (np.isfinite(M) and M > 0):
        raise ValueError(f"M must be a positive finite number, got {M}")
    layers = []
    for L in shallow.layers:
        s = np.where(L.S > 0, M, np.where(L.S < 0, -M, 0.0))
        layers.append((L.W + s[:, None] * L.V, L.b + s * L.v))
    return MLP(layers)


@dataclass(frozen=True)
class BigMReport:
    M: float
    box: tuple
    max_abs_value: float     # G = max |A_r x + c_r| over the box
    slab_half_width: float   # max(1, G)/M
    fraction_in_slabs: float  # of random points in the box
    max_error: float         # largest |deep − big-M| at those points
    max_error_outside_slabs: float

    def text(self) -> str:
        return (f"big-M with M = {self.M:g}: exact on the box {self.box} except within "
                f"{self.slab_half_width:.3g} of a region boundary ({100 * self.fraction_in_slabs:.2f} % "
                f"of the box); largest error there {self.max_error:.3g}, elsewhere "
                f"{self.max_error_outside_slabs:.3g}. Outside the box, values above M are wrong.")


def big_m_report(deep: MLP, regions: Sequence[Region], M: float, box=None, n_points: int = 20000,
                 seed: int = 0) -> BigMReport:
    """Where the finite big-M network may be wrong, measured on random points of a box
    (default: the witnesses' bounding box, widened by 1)."""
    shallow = shallow_from_regions(regions)
    finite = big_m_network(shallow, M)
    n = deep.n_in
    if box is None:  # where most regions are: the witnesses' 5–95 % range, widened by 1
        W = np.array([r.witness for r in regions])
        lo_q, hi_q = np.quantile(W, 0.05, axis=0) - 1, np.quantile(W, 0.95, axis=0) + 1
        box = tuple(v for lo, hi in zip(lo_q, hi_q) for v in (round(float(lo), 3), round(float(hi), 3)))
    lo = np.array(box[0::2], dtype=float)
    hi = np.array(box[1::2], dtype=float)
    corners = np.array(np.meshgrid(*[[a, b] for a, b in zip(lo, hi)])).reshape(n, -1).T
    G = max(float(np.abs(corners @ r.A.T + r.c).max()) for r in regions)
    half = max(1.0, G) / float(M)
    X = np.random.default_rng(seed).uniform(lo, hi, (n_points, n))
    Gn, gn, _strict, _ = region_constraints(regions)
    dist = np.abs(X @ Gn.T + gn).min(axis=1) if len(gn) else np.full(n_points, np.inf)
    in_slab = dist < half
    err = np.abs(deep(X).reshape(n_points, -1) - finite(X).reshape(n_points, -1)).max(axis=1)
    return BigMReport(float(M), tuple(float(v) for v in box), G, half, float(in_slab.mean()),
                      float(err.max()), float(err[~in_slab].max()) if (~in_slab).any() else 0.0)


# ---------------------------------------------------------------------------
# 1-D: kinks and one finite hidden layer of least width
# ---------------------------------------------------------------------------
#: Up to this many kinks every subset of them is tried (meet in the middle), so a
#: width of N + 1 is proven least; past it only the special subsets are tried.
EXHAUSTIVE_KINKS = 20


class _Jumps:
    """The jump vectors c_t (m × N) and the left slopes s₀ (m) of a network's outputs,
    as doubles with error bounds, and exactly (Fractions) on demand."""

    def __init__(self, net: MLP, lp):
        self.net, self.lp = net, lp
        self.c = np.asarray(lp.jumps, dtype=float).reshape(lp.n_outputs, -1)
        self.s0 = np.asarray(lp.left_slopes, dtype=float)
        self.exact_line = lp.exact
        self.Ec = np.asarray(lp.jump_errors, dtype=float).reshape(self.c.shape)
        self.Es0 = np.asarray(lp.left_slope_errors, dtype=float)
        self.exact_runs = 0

    @property
    def N(self) -> int:
        return self.c.shape[1]

    def exact(self):
        """Exact (jumps m × N, s₀) as Fractions, from the exact walk (made once)."""
        from relulab.model.networks.exact import exact_line

        if self.exact_line is None:
            self.exact_runs += 1
            self.exact_line = exact_line(self.net, max_knots=EXACT_KNOTS_FOR_WIDTH)
        ex = self.exact_line
        m = ex.n_outputs
        jumps = [ex.jumps(i) for i in range(m)]
        cols = [k for k in range(len(ex.knots)) if any(jumps[i][k] != 0 for i in range(m))]
        if len(cols) != self.N:
            raise ArithmeticError("the exact and the certified kinks disagree")
        return ([[jumps[i][k] for k in cols] for i in range(m)], list(ex.slopes[0]))

    def bound(self) -> np.ndarray:
        """One bound (per output) on |ŝ₀ + Σ_F ĉ_t − (s₀ + Σ_F c_t)| for every subset F."""
        from relulab.model.networks.exact import gamma

        return (self.Es0 + self.Ec.sum(axis=1)
                + gamma(self.N + 2) * (np.abs(self.s0) + np.abs(self.c).sum(axis=1))) * 1.01

    def is_zero(self, F) -> bool:
        """Whether s₀ + Σ_F c_t = 0 in every output, decided exactly."""
        R = self.s0 + self.c[:, list(F)].sum(axis=1)
        if np.any(np.abs(R) > self.bound()):
            return False
        if self.exact_line is None and np.all(self.Ec == 0) and np.all(self.Es0 == 0) \
                and np.all(R == 0) and _sum_is_exact(self.s0, self.c[:, list(F)]):
            return True
        c, s0 = self.exact()
        return all(s0[i] + sum(c[i][t] for t in F) == 0 for i in range(len(s0)))


#: The exact walk that decides a subset sum stops here (then: not proven).
EXACT_KNOTS_FOR_WIDTH = 20_000


def _sum_is_exact(s0, C) -> bool:
    """Σ of exact doubles computed without rounding (checked with Fractions)."""
    from fractions import Fraction

    for i in range(len(s0)):
        total = Fraction(float(s0[i])) + sum(Fraction(float(v)) for v in C[i])
        if total != Fraction(float(s0[i] + C[i].sum())):
            return False
    return True


def _flip_set(J: _Jumps):
    """A set F of kinks whose jumps sum to −s₀ in every output (exactly), or None.

    Tries the empty set, all, one, all but one and pairs for any N; every subset when
    N ≤ EXHAUSTIVE_KINKS (meet in the middle). The doubles rule out every subset
    whose sum is farther from −s₀ than its error bound; the rest are decided exactly.
    Returns (F, searched_all)."""
    N = J.N
    bound = J.bound()
    s0, c = J.s0, J.c

    def near(R) -> np.ndarray:  # R: (m, k) residuals of k subsets; may they be zero?
        return np.all(np.abs(R) <= bound[:, None], axis=0)

    tried = []
    for F in ([], list(range(N))):
        if J.is_zero(F):
            return F, True
        tried.append(F)
    total = c.sum(axis=1)
    singles = near(s0[:, None] + c)
    others = near((s0 + total)[:, None] - c)
    for i in np.flatnonzero(singles):
        if J.is_zero([i]):
            return [int(i)], True
    for i in np.flatnonzero(others):
        F = [j for j in range(N) if j != i]
        if J.is_zero(F):
            return F, True
    if 2 <= N <= 1500:
        R0 = s0[0] + c[0][:, None] + c[0][None, :]
        ii, jj = np.nonzero(np.triu(np.abs(R0) <= bound[0], 1))
        for i, j in zip(ii, jj):
            if near((s0 + c[:, i] + c[:, j])[:, None])[0] and J.is_zero([int(i), int(j)]):
                return [int(i), int(j)], True
    if N > EXHAUSTIVE_KINKS:
        return None, False
    half = N // 2
    left, right = list(range(half)), list(range(half, N))

    def sums(idx):
        """All 2^|idx| subset sums (m × 2^|idx|) and the subsets as bit masks."""
        S = np.zeros((c.shape[0], 1))
        for t in idx:
            S = np.concatenate([S, S + c[:, [t]]], axis=1)
        return S

    SL, SR = sums(left), sums(right)
    order = np.argsort(SR[0])
    sr0 = SR[0][order]
    for a in range(SL.shape[1]):
        need = -s0[0] - SL[0, a]  # SR[0] must lie within bound of this
        lo = np.searchsorted(sr0, need - bound[0], side="left")
        hi = np.searchsorted(sr0, need + bound[0], side="right")
        for bidx in order[lo:hi]:
            R = s0 + SL[:, a] + SR[:, bidx]
            if not near(R[:, None])[0]:
                continue
            F = [left[k] for k in range(len(left)) if a >> k & 1] + \
                [right[k] for k in range(len(right)) if bidx >> k & 1]
            if J.is_zero(F):
                return sorted(F), True
    return None, True


@dataclass(frozen=True)
class OneDShallow:
    """The 1-D result: the network, its kinks, and whether its width is provably least.

    ``kinks``: the points where at least one output bends; ``jumps``: their slope
    changes (one output), or ``jump_vectors`` (m × N) for several outputs."""

    net: MLP
    kinks: np.ndarray
    jumps: np.ndarray
    slopes_at_ends: tuple
    width: int
    least_width_proven: bool
    rule: str
    jump_vectors: np.ndarray | None = None
    certificate: str = ""
    # bounds on how far the written weights are from an exactly equal network's:
    # per hidden neuron its kink and its output weights (m × H), and the output biases
    weight_errors: tuple | None = None

    def representation_error(self, X) -> np.ndarray:
        """Bound (N points × m outputs) on |shallow − deep| at X in exact arithmetic:
        Σ_i EV_i (|x − t_i| + Et_i) + |V_i| Et_i + E_bias."""
        X = np.asarray(X, dtype=float).reshape(-1)
        if self.weight_errors is None or self.width == 0:
            return np.zeros((X.size, self.net.n_out))
        Et, EV, Eb = self.weight_errors
        (W1, b1), (W2, _) = self.net.layers
        t = -b1 / W1[:, 0]
        dist = np.abs(X[:, None] - t[None, :]) + Et  # (N, H)
        return dist @ EV.T + (np.abs(W2) @ Et)[None, :] + Eb[None, :]


def shallow_1d(net: MLP) -> OneDShallow:
    """A one-hidden-layer network equal to ``net`` on all of R, of least width.

    With the union of the outputs' kinks t₁ < … < t_N, jump vectors c_t ∈ R^m (one
    entry per output, 0 where that output goes straight on) and left slopes s₀:
    every kink needs a neuron of its own, so N ≤ width. N neurons suffice iff one
    choice of directions (ReLU(x − t) or ReLU(t − x), shared by all outputs) cancels
    the linear parts, i.e. some set F of kinks has Σ_F c_t = −s₀ in every output;
    otherwise N + 1 always do (two neurons at t₁). No kink: width 0 if every output
    is constant, else 2. Subset sums are decided exactly; past EXHAUSTIVE_KINKS kinks
    a width of N + 1 is "not proven" least. See docs/deep-to-shallow.md."""
    from relulab.model.pieces.piecewise import line_pieces

    if net.n_in != 1:
        raise ValueError(f"the 1-D conversion needs one input, the network has {net.n_in}")
    lp = line_pieces(net)
    return _least_width(net, lp)


def _least_width(net: MLP, lp) -> OneDShallow:
    J = _Jumps(net, lp)
    m, N = lp.n_outputs, J.N
    t = np.asarray(lp.kinks, dtype=float)
    s0 = J.s0
    sK = np.array([o.slopes[-1] for o in lp.outputs])  # certified, not a cancelling sum
    ends = (float(s0[0]), float(sK[0])) if m == 1 else (tuple(s0), tuple(sK))
    one = lambda v: np.asarray(v[0] if m == 1 else np.zeros(0))
    vectors = None if m == 1 else J.c
    origin = np.array([float(o(0.0)) for o in lp.outputs])  # every output at x = 0
    if N == 0:
        flat = J.is_zero([])
        if flat:
            out = MLP([(np.zeros((m, 1)), origin)])
            return OneDShallow(out, t, one(J.c), ends, 0, True, "constant: no neuron",
                               vectors, lp.certificate)
        out = MLP([([[1.0], [-1.0]], [0.0, 0.0]), (np.column_stack([s0, -s0]), origin)])
        return OneDShallow(out, t, one(J.c), ends, 2, True,
                           "affine: s₀ ReLU(x) − s₀ ReLU(−x); one neuron cannot draw a "
                           "sloped line without a kink", vectors, lp.certificate)
    values1 = np.array([float(o(t[:1])[0]) for o in lp.outputs])  # f(t₁)
    Et = np.asarray(lp.kink_errors, dtype=float)
    Ey1 = np.asarray(lp.value_errors, dtype=float)[:, 0]
    F, searched_all = _flip_set(J)
    c = J.c
    several = "" if m == 1 else f" in all {m} outputs at once"
    if F is not None:
        flip = np.zeros(N, dtype=bool)
        flip[F] = True
        # c ReLU(x − t) = c (x − t) + c ReLU(t − x): the flipped linear parts cancel s₀ x
        W1 = np.where(flip, -1.0, 1.0)[:, None]
        b1 = np.where(flip, t, -t)
        # f(t₁) − s₀ t₁ − Σ_F c_t t, summed exactly and rounded once (its terms may be
        # far larger than the result)
        bias = np.array([float(Fraction(float(values1[o])) - Fraction(float(s0[o])) * Fraction(float(t[0]))
                               - sum(Fraction(float(c[o, k])) * Fraction(float(t[k])) for k in F))
                         for o in range(m)])
        Eb = (Ey1 + J.Es0 * (abs(t[0]) + Et[0]) + np.abs(s0) * Et[0]
              + (J.Ec[:, flip] * (np.abs(t[flip]) + Et[flip]) + np.abs(c[:, flip]) * Et[flip]).sum(axis=1)
              + 2 * 2.0 ** -53 * np.abs(bias))
        out = MLP([(W1, b1), (c, bias)])
        errors = (Et, J.Ec, Eb)
        rule = (f"width N = {N}: the jumps at {len(F)} kink(s) sum to −s₀{several}, so those "
                "neurons face left and no linear term is left over")
        if not F:
            rule = f"width N = {N}: the left slope s₀ is 0{several}"
        return OneDShallow(out, t, one(c), ends, N, True, rule, vectors, lp.certificate, errors)
    W1 = np.concatenate([[[-1.0]], np.ones((N, 1))])
    b1 = np.concatenate([[t[0]], -t])
    # s₀ + c₁ is the slope right of t₁: read it directly rather than cancel s₀ against c₁
    right = np.array([o.slopes[np.searchsorted(o.kinks, t[0], side="right")]
                      for o in lp.outputs])
    W2 = np.column_stack([-s0, right, c[:, 1:]])
    out = MLP([(W1, b1), (W2, values1)])
    errors = (np.concatenate([Et[:1], Et]), np.column_stack([J.Es0, J.Ec[:, 0] + J.Es0, J.Ec[:, 1:]]),
              Ey1)
    rule = (f"width N + 1 = {N + 1}: no set of kinks has jumps summing to −s₀{several}"
            if searched_all else
            f"width N + 1 = {N + 1}: no set of kinks among those tried (none, all, one, all "
            f"but one, pairs) has jumps summing to −s₀{several}; with N = {N} not every "
            "set was tried, so this width is not proven least")
    return OneDShallow(out, t, one(c), ends, N + 1, searched_all, rule, vectors,
                       lp.certificate, errors)


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


@dataclass
class Conversion:
    """A deep network, its shallow equal, and what the Corollary says about its size."""

    deep: MLP
    shallow: object                      # MLP (1-D) or ExtendedNetwork (n-D)
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
        W = np.array([r.witness for r in self.regions])
        return max(1.0, float(np.abs(W).max()) if W.size else 1.0)

    def _span_1d(self):
        """(centre, reach) of the kinks: in the network's own units."""
        t = self.one_d.kinks
        if not len(t):
            return 0.0, 1.0
        reach = max(float(t[-1] - t[0]), float(np.abs(t).max()))
        return float((t[0] + t[-1]) / 2), reach if reach > 0 else 1.0

    def exact_points(self) -> np.ndarray:
        """Kinks, midpoints between neighbouring kinks and one point beyond each end
        (1-D); witnesses and points on stored boundaries (n-D)."""
        if self.one_d is not None:
            t = self.one_d.kinks
            if not len(t):
                return np.array([[-1.0], [0.0], [1.0]])
            _, reach = self._span_1d()
            return np.concatenate([t, (t[1:] + t[:-1]) / 2, [t[0] - reach, t[-1] + reach]])[:, None]
        pts = [r.witness for r in self.regions]
        for r in self.regions:
            for a, c in zip(r.normals, r.offsets):
                pts.append(r.witness - (a @ r.witness + c) * a)  # on the boundary z = 0
        return np.array(pts).reshape(-1, self.n_in)

    def verify(self, n_random: int = 2000, seed: int = 0, should_stop=None) -> Verification:
        """Largest |deep − shallow| on the exact points and on random points; in 1-D
        also measured against the rounding bound (see ROUNDING) and the end slopes. The
        extended network checks ``should_stop`` as it goes (thousands of regions take
        seconds)."""
        X = self.exact_points()
        d = lambda P: np.asarray(self.deep(P), dtype=float).reshape(len(P), -1)
        extended = isinstance(self.shallow, ExtendedNetwork)
        s = lambda P: np.asarray(self.shallow(P, should_stop) if extended
                                 else self.shallow(P), dtype=float).reshape(len(P), -1)
        rng = np.random.default_rng(seed)
        with np.errstate(over="ignore", invalid="ignore"):
            dX, sX = d(X), s(X)
            exact = float(np.abs(dX - sX).max()) if len(X) else 0.0
            if self.one_d is not None:
                centre, reach = self._span_1d()
                R = rng.normal(centre, 2.0 * reach, (n_random, 1))
            else:
                R = rng.normal(0.0, 2.0 * self.scale(), (n_random, self.n_in))
            dR, sR = d(R), s(R)
            rand = float(np.abs(dR - sR).max())
        finite = bool(np.all(np.isfinite(dX)) and np.all(np.isfinite(sX))
                      and np.all(np.isfinite(dR)) and np.all(np.isfinite(sR)))
        v = Verification(exact, len(X), rand, n_random, finite=finite)
        if self.one_d is None:
            with np.errstate(over="ignore", invalid="ignore"):
                v.scale = _magnitude(self.deep, np.concatenate([X.reshape(-1, self.n_in), R]))
        if self.one_d is not None:
            t = self.one_d.kinks
            if len(t):
                v.max_error_at_kinks = float(np.abs(d(t[:, None]) - s(t[:, None])).max())
            with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
                P = np.concatenate([X, R])
                diff = np.abs(np.concatenate([dX, dR]) - np.concatenate([sX, sR]))
                bound = (rounding_bound(self.deep, self.shallow, P)
                         + self.one_d.representation_error(P))
                ratio = np.where(diff == 0, 0.0, diff / bound)
            v.max_rounding_ratio = float(np.max(ratio)) if np.all(np.isfinite(ratio)) else np.inf
            v.end_slopes_agree = self._end_slopes_agree()
        return v

    def _end_slopes_agree(self) -> bool:
        """The shallow network's slopes on the two rays (read off its weights) against
        the deep network's certified ones: within the proven error of the output weights
        (``weight_errors``: a weight computed from jumps that cancel, as where a ray's
        slope is small beside the others, is off by far more than its own rounding)
        plus the rounding of the sum."""
        (W1, _b1), (W2, _) = self.shallow.layers if len(self.shallow.layers) == 2 else \
            ((np.zeros((0, 1)), np.zeros(0)), (np.zeros((self.n_out, 0)), None))
        w = W1[:, 0]
        one = self.one_d
        EV = one.weight_errors[1] if one.weight_errors is not None else np.zeros_like(W2)
        left = np.asarray(one.slopes_at_ends[0], dtype=float).reshape(-1)
        right = np.asarray(one.slopes_at_ends[1], dtype=float).reshape(-1)
        for want, on in ((left, w < 0), (right, w > 0)):
            terms = W2[:, on] * w[on]
            got = terms.sum(axis=1)
            size = np.abs(terms).sum(axis=1) + np.abs(want)
            proven = (EV[:, on] * np.abs(w[on])).sum(axis=1)
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
    _G, g, _strict, _members = region_constraints(regions)
    return Conversion(net, shallow, regions=regions, k=len(g), p=len(regions))
