"""Networks with ±∞ weights, and the three-hidden-layer construction that makes any
ReLU network of n inputs one of them.

After Villani & Schoots, "Any Deep ReLU Network Is Shallow" (ECAI 2025); see
:mod:`relulab.model.shallow.construction` for the layers and their widths.
Extended reals follow 0·∞ = 0, ReLU(−∞) = 0, ReLU(+∞) = +∞, and ∞ − ∞ is never
formed. An infinite row is stored factored, S·(v·h + β) with S ∈ {+∞, −∞}: the
finite bracket is evaluated first and S·t becomes ±∞, or 0 when t = 0. The big-M
network is a finite stand-in, exact only away from the region boundaries.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import InitVar, dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from relulab.model.core.cancel import check
from relulab.model.core.rows import unique_rows
from relulab.model.networks.mlp import MLP

if TYPE_CHECKING:  # annotations only: reading a network file needs no region engine
    from relulab.model.regions.activation import Region

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
    # made from the five above: the distinct affine forms (their coefficients, sparse
    # when mostly zeros, and constants), and where each row's finite part and bracket
    # are among them
    _F: Any = field(init=False, repr=False, compare=False)
    _f: np.ndarray = field(init=False, repr=False, compare=False)
    _finite_idx: npt.NDArray[np.intp] = field(init=False, repr=False, compare=False)
    _scaled_idx: npt.NDArray[np.intp] = field(init=False, repr=False, compare=False)
    _signs: Any = field(init=False, repr=False, compare=False)  # sparse F: (F > 0, F < 0)
    #: the rows [W b], then [V v] of the ±∞ rows, as a scipy sparse matrix, when the
    #: caller has them so (the construction): the dense arrays are then not scanned
    sparse_rows: InitVar[Any] = None

    def __post_init__(self, sparse_rows):
        for name in ("W", "b", "S", "V", "v"):
            object.__setattr__(self, name, _ro(getattr(self, name)))
        n_out, n_in = self.W.shape
        if self.b.shape != (n_out,) or self.S.shape != (n_out,) or self.V.shape != (n_out, n_in) \
                or self.v.shape != (n_out,):
            raise ValueError("extended layer: W, b, S, V, v shapes do not agree")
        if not np.all((self.S == 0) | np.isinf(self.S)):
            raise ValueError("extended layer: S must be 0, +inf or -inf")
        # Every distinct affine form is evaluated once, so two rows that share a
        # functional (both senses of one split) see bit-identical values.
        scaled = np.flatnonzero(self.S != 0)
        if sparse_rows is not None and _kept_sparse(sparse_rows.shape, sparse_rows.count_nonzero()):
            F, f, inverse = _distinct_csr(sparse_rows, n_in)
        else:
            F, f, inverse = _distinct_forms(self.W, self.b, self.V[scaled], self.v[scaled])
        object.__setattr__(self, "_F", F)
        object.__setattr__(self, "_f", f)
        object.__setattr__(self, "_signs", None if isinstance(F, np.ndarray) else
                           ((F > 0).astype(float).tocsr(), (F < 0).astype(float).tocsr()))
        object.__setattr__(self, "_finite_idx", inverse[:n_out])
        where = np.full(n_out, -1)
        where[scaled] = inverse[n_out:]
        object.__setattr__(self, "_scaled_idx", where)

    @property
    def n_forms(self) -> int:
        """How many distinct affine forms the layer evaluates (−0.0 and 0.0 one value)."""
        return int(self._F.shape[0])

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
        forms = _extended_affine(h, self._F, self._f, self._signs)
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


_FINITE = "extended layer: W, b, V, v must be finite (∞ only in S)"


def _distinct_forms(W, b, V, v):
    """The distinct affine forms among the rows [W b] and then [V v], −0.0 and 0.0 one
    value: (their coefficients, a scipy sparse matrix when mostly zeros, their
    constants, the form of each row).

    The construction's layers 2 and 3 are mostly zeros (65 MB dense for two thousand
    regions): kept sparse they cost their non-zeros, and their rows are told apart
    by a hash of their non-zeros, confirmed entry by entry, instead of a sort of
    every column."""
    shape = (W.shape[0] + V.shape[0], W.shape[1] + 1)
    if _kept_sparse(shape, None) and _kept_sparse(shape, sum(map(np.count_nonzero, (W, b, V, v)))):
        return _distinct_sparse(W, b, V, v)
    forms = np.concatenate([np.column_stack([W, b]), np.column_stack([V, v])])
    if not np.all(np.isfinite(forms)):
        raise ValueError(_FINITE)
    unique, _, inverse = unique_rows(forms + 0.0)
    return unique[:, :-1], unique[:, -1].copy(), inverse


def _kept_sparse(shape, nonzero: int | None) -> bool:
    """Whether forms of this shape with this many non-zeros are kept sparse (None: for
    some count). One rule wherever the forms come from, so that the network read back
    from a file sums in the same order as the one written."""
    size = shape[0] * shape[1]
    return size > 4096 and (nonzero is None or nonzero < 0.1 * size)


def _distinct_sparse(W, b, V, v):
    import scipy.sparse

    A = scipy.sparse.vstack([scipy.sparse.hstack([scipy.sparse.csr_matrix(M),
                                                  scipy.sparse.csr_matrix(c[:, None])])
                             for M, c in ((W, b), (V, v))], format="csr")
    return _distinct_csr(A, W.shape[1])


def _distinct_csr(A, n: int):
    """:func:`_distinct_forms` for the rows as a scipy sparse matrix of n + 1 columns."""
    import scipy.sparse

    A = scipy.sparse.csr_matrix(A, dtype=float)
    A.sum_duplicates()   # canonical: sorted column indices, no repeats
    A.eliminate_zeros()  # (−0.0 is a zero)
    if not np.all(np.isfinite(A.data)):
        raise ValueError(_FINITE)
    ptr, count = A.indptr, np.diff(A.indptr)
    bits = A.data.view(np.uint64)
    col = A.indices.astype(np.uint64) + np.uint64(1)
    keys = [count.astype(np.uint64)]
    for k1, k2 in ((0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9), (0x94D049BB133111EB, 0x2545F4914F6CDD1D)):
        e = bits * np.uint64(k1) + col * np.uint64(k2)
        e ^= e >> np.uint64(31)
        e *= np.uint64(k2)
        h = np.zeros(len(count), dtype=np.uint64)
        full = count > 0
        if len(e):
            h[full] = np.add.reduceat(e, ptr[:-1][full])
        keys.append(h)
    _, first, inverse = unique_rows(np.column_stack(keys).view(np.int64))
    # the hash is the same for equal rows; rows it calls equal are confirmed equal
    dup = np.flatnonzero(first[inverse] != np.arange(len(inverse)))
    if len(dup):
        rep = first[inverse[dup]]
        a, c = _ranges(ptr[dup], count[dup]), _ranges(ptr[rep], count[rep])
        if not (np.array_equal(A.indices[a], A.indices[c]) and np.array_equal(A.data[a], A.data[c])):
            dense = np.asarray(A.todense())
            unique, _, inverse = unique_rows(dense)
            return scipy.sparse.csr_matrix(unique[:, :-1]), unique[:, -1].copy(), inverse
    U = A[first]
    return U[:, :n].tocsr(), np.asarray(U[:, n].todense()).ravel(), inverse


def _csr(rows, cols, values, shape):
    """A scipy sparse matrix with ``values`` at (rows, cols), zeros left out."""
    import scipy.sparse

    keep = values != 0
    return scipy.sparse.csr_matrix((values[keep], (rows[keep], cols[keep])), shape=shape)


def _ranges(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The indices start … start + count − 1 of every (start, count), one after another."""
    if not len(counts):
        return np.zeros(0, dtype=np.intp)
    total = int(counts.sum())
    offsets = np.repeat(starts - np.cumsum(counts) + counts, counts)
    return np.arange(total) + offsets


def _extended_affine(h: np.ndarray, F, f: np.ndarray, signs=None) -> np.ndarray:
    """h Fᵀ + f with h possibly ±∞ and 0·∞ = 0; raises on ∞ − ∞. F: an array, or a
    scipy sparse matrix with ``signs`` = (F > 0, F < 0) as sparse matrices of 0 and 1
    (then every product is sparse times dense and costs the non-zeros)."""
    inf = np.isinf(h)
    if signs is not None:
        if not inf.any():
            return np.asarray(F @ h.T).T + f
        out = np.asarray(F @ np.where(inf, 0.0, h).T).T + f
        Fp, Fn = signs
        plus = (h == INF).T.astype(float)
        up, down = Fp @ plus, Fn @ plus       # how many terms are +∞, −∞ (0·∞ = 0)
        if np.any(h == -INF):                 # (after a ReLU there is no −∞)
            minus = (h == -INF).T.astype(float)
            up, down = up + Fn @ minus, down + Fp @ minus
        up, down = np.asarray(up).T > 0, np.asarray(down).T > 0
        if np.any(up & down):
            raise ArithmeticError("∞ − ∞ formed in an extended dot product")
        out[up] = INF
        out[down] = -INF
        return out
    if not inf.any():
        return np.asarray(h @ F.T) + f
    finite = np.asarray(np.where(inf, 0.0, h) @ F.T) + f
    cols = np.nonzero(inf.any(axis=0))[0]          # only these inputs can be infinite
    hc = h[:, cols]
    plus = (hc == INF).astype(float)
    minus = (hc == -INF).astype(float)
    Fp = np.ascontiguousarray((F[:, cols] > 0).T, dtype=float)
    Fn = np.ascontiguousarray((F[:, cols] < 0).T, dtype=float)
    up = plus @ Fp + minus @ Fn    # how many terms are +∞ (0·∞ = 0: zeros skipped)
    down = plus @ Fn + minus @ Fp  # how many terms are −∞
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
    normalised functionals are bit-identical (the same split seen from two cells; an
    offset of −0.0 is 0.0), numbered in the order they first appear."""
    n = regions[0].A.shape[1] if regions else 0
    counts = np.array([len(r.offsets) for r in regions], dtype=np.intp)
    if not counts.sum():
        return np.zeros((0, n)), np.zeros(0), np.zeros(0, dtype=bool), [[] for _ in regions]
    normals = np.concatenate([np.asarray(r.normals, dtype=float).reshape(-1, n) for r in regions])
    offsets = np.concatenate([np.asarray(r.offsets, dtype=float) for r in regions])
    on = np.concatenate([np.asarray(r.on, dtype=bool) for r in regions])
    key = np.column_stack([normals.view(np.int64), (offsets + 0.0).view(np.int64),
                           on.astype(np.int64)])
    _, first, inverse = unique_rows(key)
    order = np.argsort(first, kind="stable")       # numbered by first appearance
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    index = rank[inverse]
    starts = np.cumsum(counts) - counts
    members = [sorted(set(index[a:a + c].tolist())) for a, c in zip(starts, counts)]
    keep = first[order]
    return normals[keep], offsets[keep], on[keep], members


def shallow_from_regions(regions: Sequence[Region]) -> ExtendedNetwork:
    """The three-hidden-layer extended network for a list of regions that partition Rⁿ.

    Widths (2n + k, 2n + p, 2pm) with k distinct constraints and p regions."""
    if not regions:
        raise ValueError("no regions")
    m, n = regions[0].A.shape
    p = len(regions)
    G, g, strict, members = region_constraints(regions)
    if not (np.all(np.isfinite(G)) and np.all(np.isfinite(g))):
        raise ValueError("a region's boundary lies beyond the range of doubles (its normalised "
                         "row overflows: weights near the subnormals or past 1e154), so no "
                         "shallow network with double weights can hold it")
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
    S2[2 * n:] = INF
    V2 = np.zeros((2 * n + p, 2 * n + k))
    unit = np.repeat(np.arange(p), [len(js) for js in members])
    V2[2 * n + unit, 2 * n + np.concatenate([np.asarray(js, dtype=np.intp) for js in members])] = 1.0

    # hidden layer 3: q±_{r,i} = ReLU(±(A_r x + c_r)_i − o_r), x = x⁺ − x⁻; row
    # 2(r m + i) + s, s = 0 for + and 1 for −; output y_i = Σ_r (q⁺_{r,i} − q⁻_{r,i})
    A = np.array([reg.A for reg in regions], dtype=float).reshape(p, m, n)
    c = np.array([reg.c for reg in regions], dtype=float).reshape(p, m)
    sign = np.array([1.0, -1.0])
    W3 = np.zeros((2 * p * m, 2 * n + p))
    a3 = (A[:, :, None, :] * sign[None, None, :, None]).reshape(2 * p * m, n)
    W3[:, :n], W3[:, n:2 * n] = a3, -a3
    W3[np.arange(2 * p * m), 2 * n + np.repeat(np.arange(p), 2 * m)] = -1.0
    b3 = (c[:, :, None] * sign).reshape(2 * p * m)
    W4 = np.zeros((m, 2 * p * m))
    W4[np.tile(np.repeat(np.arange(m), 2), p), np.arange(2 * p * m)] = np.tile(sign, p * m)
    for M in (W1, b1, S1, V1, v1, W2, S2, V2, W3, b3, W4):
        M.setflags(write=False)  # made here and never changed: the layers need no copy
    # the rows of layers 2 and 3 as sparse matrices, from what was put where (the
    # dense arrays hold about 2p²m zeros)
    w2 = 2 * n + k
    carry = np.arange(2 * n)
    rows2 = _csr(np.concatenate([carry, 2 * n + p + unit]),
                 np.concatenate([carry, 2 * n + np.concatenate(
                     [np.asarray(js, dtype=np.intp) for js in members])]),
                 np.ones(2 * n + len(unit)), (2 * n + 2 * p, w2 + 1))
    u = np.arange(2 * p * m)
    cols3 = np.concatenate([np.tile(np.arange(2 * n), 2 * p * m), 2 * n + np.repeat(np.arange(p), 2 * m),
                            np.full(2 * p * m, 2 * n + p)])
    vals3 = np.concatenate([np.column_stack([a3, -a3]).ravel(), np.full(2 * p * m, -1.0), b3])
    rows3 = _csr(np.concatenate([np.repeat(u, 2 * n), u, u]), cols3, vals3,
                 (2 * p * m, 2 * n + p + 1))
    zeros = np.zeros
    layers = (
        ExtendedLayer(W1, b1, S1, V1, v1),
        ExtendedLayer(W2, zeros(2 * n + p), S2, V2, zeros(2 * n + p), sparse_rows=rows2),
        ExtendedLayer(W3, b3, zeros(2 * p * m), _zeros(W3.shape), zeros(2 * p * m),
                      sparse_rows=rows3),
        ExtendedLayer(W4, zeros(m), zeros(m), _zeros(W4.shape), zeros(m)),
    )
    return ExtendedNetwork(layers)



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
