"""Activation regions of a ReLU network: where each neuron is on or off.

Neuron i of layer l is *on* at x when its pre-activation z_{l,i}(x) > 0 and *off*
when z_{l,i}(x) ≤ 0. The sets P_s = {x : pattern(x) = s} partition Rⁿ; on each
the network is affine, N(x) = A_s x + c_s, with (D_l = diag(s_l), A₀ = I, c₀ = 0)

    Z_l = W_l A_{l−1},  ζ_l = W_l c_{l−1} + b_l,  A_l = D_l Z_l,  c_l = D_l ζ_l,
    A_s = W_out A_L,    c_s = W_out c_L + b_out.

P_s is convex: strict constraints Z_{l,i}·x + ζ_{l,i} > 0 for the on-neurons and
non-strict ones ≤ 0 for the off-neurons. Some patterns live only on lines or points
(|x| + 1 = ReLU(x) + ReLU(−x) + 1 has the region {0}); they are included.

The regions come from the certified region engine (:mod:`relulab.model.regions.arrangement`):
cells split neuron by neuron, every sign decision proven (a floating-point filter
with a rigorous error bound, exact integer arithmetic where the filter cannot
decide), so degenerate networks (lines through one point, duplicate neurons, zero
biases) get their exact counts, and no linear program is solved.

* :func:`linear_regions`: every region on all of Rⁿ, lower-dimensional ones
  included; 2-D input by projective polygon clipping, any input by cones of rays.
* :func:`region_polygons`: the regions with area inside a 2-D view box, for drawing.
* :func:`count_linear_regions`: the number alone (whole space or a box), cheapest.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar, overload

import numpy as np

from relulab.model.core.cancel import Cancelled
from relulab.model.core.rows import unique_rows
from relulab.model.networks.mlp import MLP
from relulab.model.regions import arrangement, witness
from relulab.model.regions.arrangement import RegionLimit as RegionLimit  # callers catch it from here

#: The name the region code's callers know; the same exception as every model loop's.
EnumerationStopped = Cancelled


# ---------------------------------------------------------------------------
# results
# ---------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class Region:
    """One non-empty activation region P_s.

    ``normals``/``offsets``/``on`` are the stored constraints: row j says
    ``normals[j]·x + offsets[j] > 0`` when ``on[j]`` and ``≤ 0`` otherwise, rows
    normalised to ‖normal‖ = 1. Only splitting constraints are stored (a constraint
    implied by the others is left out), so the rows describe P_s exactly but are
    not all the neurons. ``A``, ``c``: the network on P_s is ``x ↦ A x + c``.
    ``witness``: a point of P_s (for a full-dimensional region one whose pattern was
    proven; for a line or point region the nearest doubles to a point of it).
    ``pieces``: for 2-D input, convex polygons in homogeneous coordinates (rows
    (x, y, w), w = 0 a point at infinity) whose union is the closure of P_s; empty
    for lower-dimensional regions and in n-D. ``full_dimensional``: P_s has interior
    points (decided by the enumeration, exactly). ``neurons``: which neuron (numbered
    across the hidden layers) each stored row belongs to, in the rows' order (None
    when not known); the rows are the splits on the way to P_s, in neuron order.
    """

    pattern: np.ndarray
    normals: np.ndarray
    offsets: np.ndarray
    on: np.ndarray
    A: np.ndarray
    c: np.ndarray
    witness: np.ndarray
    pieces: tuple = ()
    layer_sizes: tuple = ()
    full_dimensional: bool = True
    neurons: np.ndarray | None = None

    def __call__(self, x) -> np.ndarray:
        """A x + c for points x of shape (N, n) or (n,)."""
        x = np.asarray(x, dtype=float)
        return x @ self.A.T + self.c

    def margins(self, x) -> np.ndarray:
        """normals·x + offsets for points x (N, n): (N, k)."""
        x = np.atleast_2d(np.asarray(x, dtype=float))
        return x @ self.normals.T + self.offsets

    def contains(self, x, tol: float = 0.0) -> np.ndarray:
        """Whether each point satisfies the stored constraints (to ``tol``)."""
        m = self.margins(x)
        ok = np.where(self.on, m > -tol, m <= tol)
        return np.all(ok, axis=1)

    @property
    def n_constraints(self) -> int:
        return len(self.offsets)

    def is_full_dimensional(self) -> bool:
        """True when P_s has interior points."""
        return bool(self.full_dimensional)

    def pattern_by_layer(self) -> list[np.ndarray]:
        out, start = [], 0
        for size in self.layer_sizes:
            out.append(self.pattern[start:start + size])
            start += size
        return out

    def describe(self, digits: int = 4) -> str:
        """The affine map and the stored constraints as text, one per line."""
        n = self.A.shape[1]
        names = ["x"] if n == 1 else [f"x{i + 1}" for i in range(n)]
        lines = [f"pattern {self.pattern_text()}"]
        for i in range(self.A.shape[0]):
            lhs = "f(x)" if self.A.shape[0] == 1 else f"f{i + 1}(x)"
            lines.append(f"{lhs} = {_affine_text(self.A[i], self.c[i], names, digits)}")
        lines.append(f"{self.n_constraints} stored constraint(s):")
        for a, c, on in zip(self.normals, self.offsets, self.on):
            lines.append(f"  {_affine_text(a, c, names, digits)} {'> 0' if on else '≤ 0'}")
        if not self.is_full_dimensional():
            lines.append("lower-dimensional: no interior points (a line or a point)")
        return "\n".join(lines)

    def pattern_text(self) -> str:
        """'10|011': one digit per neuron (1 = on), layers separated by '|'."""
        return "|".join("".join("1" if b else "0" for b in layer)
                        for layer in self.pattern_by_layer()) or "(no hidden neurons)"


def _affine_text(a, c, names, digits: int) -> str:
    terms = []
    for coef, name in zip(a, names):
        if coef == 0:
            continue
        sign = "−" if coef < 0 else "+"
        terms.append(f"{sign} {abs(coef):.{digits}g} {name}")
    if c != 0 or not terms:
        terms.append(f"{'−' if c < 0 else '+'} {abs(c):.{digits}g}")
    text = " ".join(terms)
    return text[2:] if text.startswith("+ ") else "−" + text[2:]


def region_at(net: MLP, regions: Sequence[Region], x) -> int:
    """Index of the region holding the point ``x`` (its activation pattern), or −1."""
    pattern = net.activation_patterns(np.asarray(x, dtype=float).reshape(1, -1))[0]
    key = pattern.tobytes()
    for i, r in enumerate(regions):
        if r.pattern.tobytes() == key:
            return i
    return -1


@dataclass(frozen=True, eq=False)
class RegionPolygon:
    """A region as drawn in 2-D: a convex polygon ``vertices`` (k, 2) in order,
    its activation ``pattern``, and the affine map ``x ↦ A x + c`` on it."""

    vertices: np.ndarray
    pattern: np.ndarray
    A: np.ndarray
    c: np.ndarray
    index: int = 0

    @property
    def area(self) -> float:
        x, y = self.vertices[:, 0], self.vertices[:, 1]
        return 0.5 * abs(float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))))

    def centroid(self) -> np.ndarray:
        return self.vertices.mean(axis=0)


_T = TypeVar("_T")


class _Items(Sequence[_T], Generic[_T]):
    """A sequence of results kept as whole arrays, item k made when first asked for
    (and kept): an enumeration's readout costs no Python object per region until a
    caller looks at one, as a list of them would."""

    def __init__(self, count: int):
        self._items: list[_T | None] = [None] * count

    def __len__(self) -> int:
        return len(self._items)

    @overload
    def __getitem__(self, k: int) -> _T: ...

    @overload
    def __getitem__(self, k: slice) -> list[_T]: ...

    def __getitem__(self, k):
        if isinstance(k, slice):
            return [self[i] for i in range(*k.indices(len(self)))]
        k = range(len(self._items))[k]  # an int; IndexError out of range
        item = self._items[k]
        if item is None:
            item = self._items[k] = self._make(k, k + 1)[0]
        return item

    def __iter__(self) -> Iterator[_T]:
        if None in self._items:  # every item at once: a third to two thirds of the time
            made = self._make(0, len(self._items))
            self._items = [old if old is not None else new for old, new in zip(self._items, made)]
        return iter(self._items)  # type: ignore[arg-type]  # no None left

    def __eq__(self, other) -> bool:
        """Equal to a list (or another such sequence) of the same items, as a list is."""
        if not isinstance(other, (list, _Items)):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other))

    def __repr__(self) -> str:
        return f"<{type(self).__name__}: {len(self)}>"

    def _make(self, lo: int, hi: int) -> list[_T]:
        """Items lo … hi − 1."""
        raise NotImplementedError


class RegionPolygons(_Items[RegionPolygon]):
    """The polygons of :func:`region_polygons` as whole arrays: ``points`` (T, 2), polygon
    k's vertices being rows ``start[k]`` … ``start[k + 1] − 1``; ``pattern`` (P, N),
    ``A`` (P, m, 2), ``c`` (P, m). Item k is polygon k as a :class:`RegionPolygon`."""

    def __init__(self, points: np.ndarray, start: np.ndarray, pattern: np.ndarray,
                 A: np.ndarray, c: np.ndarray):
        super().__init__(len(pattern))
        self.points, self.start, self.pattern, self.A, self.c = points, start, pattern, A, c

    def _make(self, lo: int, hi: int) -> list[RegionPolygon]:
        s = self.start[lo:hi + 1].tolist()
        rows = zip(self.pattern[lo:hi], self.A[lo:hi], self.c[lo:hi])
        return [RegionPolygon(self.points[s[j]:s[j + 1]], pattern, A, c, lo + j)
                for j, (pattern, A, c) in enumerate(rows)]


class Regions(_Items[Region]):
    """The regions of :func:`linear_regions` as whole arrays: ``pattern`` (C, N),
    ``full`` (C,), ``A`` (C, m, n), ``c`` (C, m), ``witness`` (C, n); region k's stored
    constraints are rows ``row_start[k]`` … ``row_start[k + 1] − 1`` of ``rows`` (S,
    n + 1: normal, offset) and ``on`` (S,); its polygon pieces (2-D) are pieces
    ``cell_pieces[k]`` … ``cell_pieces[k + 1] − 1``, piece q being rows
    ``piece_start[q]`` … ``piece_start[q + 1] − 1`` of ``piece_points`` (homogeneous);
    ``neuron`` (S,) is the neuron each stored row belongs to.
    Item k is region k as a :class:`Region`."""

    piece_points: np.ndarray
    piece_start: np.ndarray
    cell_pieces: np.ndarray

    def __init__(self, pattern, full, A, c, witness, rows, on, row_start, layer_sizes,
                 pieces=None, neuron=None):
        super().__init__(len(pattern))
        self.pattern, self.full, self.A, self.c, self.witness = pattern, full, A, c, witness
        self.rows, self.on, self.row_start = rows, on, row_start
        self.neuron = neuron
        self.layer_sizes = tuple(layer_sizes)
        if pieces is None:  # n-D: none
            pieces = (np.zeros((0, 3)), np.zeros(1, np.int64), np.zeros(len(pattern) + 1, np.int64))
        self.piece_points, self.piece_start, self.cell_pieces = pieces

    def _make(self, lo: int, hi: int) -> list[Region]:
        n = self.A.shape[2]
        normals, offsets, on, P = self.rows[:, :n], self.rows[:, n], self.on, self.piece_points
        s = self.row_start[lo:hi + 1].tolist()
        q = self.cell_pieces[lo:hi + 1].tolist()
        ps = self.piece_start[q[0]:q[-1] + 1].tolist()      # piece q[0] + i: ps[i] …
        q = [i - q[0] for i in q]
        full = self.full[lo:hi].tolist()
        rows = zip(self.pattern[lo:hi], self.A[lo:hi], self.c[lo:hi], self.witness[lo:hi])
        neuron = self.neuron
        return [Region(pattern, normals[s[j]:s[j + 1]], offsets[s[j]:s[j + 1]], on[s[j]:s[j + 1]],
                       A, c, w, tuple(P[ps[i]:ps[i + 1]] for i in range(q[j], q[j + 1])),
                       self.layer_sizes, full[j],
                       None if neuron is None else neuron[s[j]:s[j + 1]])
                for j, (pattern, A, c, w) in enumerate(rows)]


# ---------------------------------------------------------------------------
# enumeration
# ---------------------------------------------------------------------------
def linear_regions(net: MLP, method: str = "auto", stats: dict | None = None,
                   should_stop=None, max_regions: int | None = None,
                   max_seconds: float | None = None) -> Regions:
    """Every non-empty activation region of ``net`` on all of Rⁿ, lower-dimensional ones included.

    ``method``: ``"polygons"`` (2-D input: projective polygon clipping), ``"cones"``
    (any input: cones of rays) or ``"auto"`` (polygons for 2-D, cones otherwise); both
    are exact and give the same regions. ``stats``, if given, receives ``exact`` (signs
    the floating-point filter left to integer arithmetic), ``lps`` (0: none are
    solved), ``seconds`` and ``unproven_witnesses`` (full-dimensional regions too thin
    for a double inside them to be proven). ``should_stop`` is asked as the work goes
    (:class:`EnumerationStopped`); ``max_regions``/``max_seconds`` stop it with
    :class:`~relulab.model.regions.arrangement.RegionLimit` (a one-line message).
    The regions come as a :class:`Regions` sequence (whole arrays; a :class:`Region`
    each when asked for).
    """
    stats = {} if stats is None else stats
    if method == "auto":
        method = "polygons" if net.n_in == 2 else "cones"
    arr: arrangement.Arrangement2D | arrangement.ArrangementND
    if method == "polygons":
        if net.n_in != 2:
            raise ValueError("polygon clipping needs 2-D input")
        arr = arrangement.arrangement_2d(net, should_stop=should_stop, max_regions=max_regions,
                                         max_seconds=max_seconds)
    elif method == "cones":
        arr = arrangement.arrangement_nd(net, should_stop=should_stop, max_regions=max_regions,
                                         max_seconds=max_seconds)
    else:
        raise ValueError(f"unknown method {method!r} (use 'auto', 'polygons' or 'cones')")
    regions = _regions(net, arr, should_stop)
    stats.update(arr.stats)
    stats["unproven_witnesses"] = arr.stats.get("unproven_witnesses", 0)
    return regions


def count_linear_regions(net: MLP, box=None, should_stop=None, max_regions: int | None = None,
                         max_seconds: float | None = None) -> int:
    """The number of activation regions: on all of Rⁿ (lower-dimensional ones
    included), or, for 2-D input, those with area inside ``box`` = (xmin, xmax, ymin,
    ymax). The same enumeration as :func:`linear_regions` without building regions."""
    if net.n_in == 2:
        return arrangement.count_regions_2d(net, box, should_stop, max_regions, max_seconds)
    if box is not None:
        raise ValueError(f"a box needs 2-D input, the network has {net.n_in}")
    return len(arrangement.arrangement_nd(net, should_stop, max_regions, max_seconds))


def region_polygons(net: MLP, box, should_stop=None,
                    max_regions: int | None = None) -> RegionPolygons:
    """The full-dimensional activation regions of a 2-input network inside ``box``
    = (xmin, xmax, ymin, ymax), as convex polygons.

    Each polygon is {x ∈ box : pattern(x) = s}; together they tile the box. Regions
    that only touch the box on a line or at a point are not drawn; for the exact
    partition of R² use :func:`linear_regions`. ``max_regions``: stop with
    :class:`~relulab.model.regions.arrangement.RegionLimit` beyond that many. The
    polygons come as a :class:`RegionPolygons` sequence (whole arrays; a
    :class:`RegionPolygon` each when asked for), read out by the compiled pass.
    """
    if net.n_in != 2:
        raise ValueError(f"region polygons need 2-D input, the network has {net.n_in}")
    arr = arrangement.arrangement_2d(net, box=box, should_stop=should_stop,
                                     max_regions=max_regions)
    A, c, points, start = arr.readout[:4]
    return RegionPolygons(points, start, arr.pattern, A, c)


def regions_in_box(regions: Sequence[Region], box) -> list[RegionPolygon]:
    """Regions (from :func:`linear_regions` on 2-D input) clipped to ``box``, for drawing.

    Regions with no area inside the box (lines, points, regions elsewhere) are left
    out; ``index`` is the region's position in ``regions``. The clipping is in
    floating point: it draws, it decides no count."""
    box = arrangement.check_box(box)
    out = []
    for idx, r in enumerate(regions):
        if not r.pieces:
            continue
        verts = _to_box_polygon(r.pieces, box)
        if verts is not None:
            out.append(RegionPolygon(verts, r.pattern, r.A, r.c, idx))
    return out


# ---------------------------------------------------------------------------
# regions from an enumeration
# ---------------------------------------------------------------------------
def _layer_maps(net: MLP, pattern: np.ndarray):
    """Every cell's pre-activation maps, layer by layer, and its output map.

    Returns (Zs, A, c): Zs[l] (C, n_l, n + 1) rows (a, c) of z_{l,i} = a·x + c on each
    cell, A (C, m, n), c (C, m). Cells with the same pattern before layer l share one
    computation, so their rows are bit-identical (the same boundary seen from both
    sides is one constraint)."""
    hidden, (W_out, b_out) = net.layers[:-1], net.layers[-1]
    C, n = len(pattern), net.n_in
    H = np.eye(n, n + 1)[None]          # the maps of the distinct prefixes
    parent = np.zeros(C, dtype=np.intp)  # each cell's prefix
    Zs = []
    g0 = 0
    for W, b in hidden:
        Z = np.matmul(W, H)
        Z[..., n] += b
        Zs.append(Z[parent])
        nl = W.shape[0]
        bits = pattern[:, g0:g0 + nl]
        key = np.column_stack([parent, bits]).astype(np.int64)
        uniq, first, parent = unique_rows(key)
        H = bits[first][:, :, None] * Z[uniq[:, 0]]
        g0 += nl
    out = np.matmul(W_out, H)
    out[..., n] += b_out
    out = out[parent]
    return Zs, out[..., :n].copy(), out[..., n].copy()


def certified_patterns(net: MLP, X) -> tuple[np.ndarray, np.ndarray]:
    """Activation patterns of points X (N, n) and whether floating point proves each
    bit: z is computed with a rigorous bound on its error, and a bit is proven when
    |z| exceeds it. Returns (pattern, proven), both (N, neurons)."""
    h = np.asarray(X, dtype=float)
    E = np.zeros_like(h)
    pats, proven = [], []
    u = 2.0 ** -53
    for W, b in net.layers[:-1]:
        m = W.shape[1]
        aW = np.abs(W)
        z = h @ W.T + b
        g = (m + 2) * u
        Ez = ((np.abs(h) @ aW.T + np.abs(b)) * g + E @ aW.T) * (1 + 1e-10) + 1e-300
        pats.append(z > 0)
        proven.append(np.abs(z) > Ez)
        h = np.maximum(z, 0.0)
        E = Ez
    if not pats:
        empty = np.zeros((len(h), 0), dtype=bool)
        return empty, empty
    return np.concatenate(pats, axis=1), np.concatenate(proven, axis=1)


def _regions(net: MLP, arr, should_stop) -> Regions:
    """The regions of an enumeration as whole arrays: in 2-D as the compiled pass read
    them out (rows from each layer's maps on its roots, pieces, points to prove as
    witnesses), in n-D from the patterns (:func:`_layer_maps`) and the cones' rays."""
    pattern, full = arr.pattern, arr.full
    pieces = proven = None
    if isinstance(arr, arrangement.Arrangement2D):
        A, c, points, piece_start, cell_pieces, X, proven, rows, on, row_start = arr.readout
        pieces = (points, piece_start, cell_pieces)
    else:
        Zs, A, c = _layer_maps(net, pattern)
        rows, on, row_start = _stored_rows(Zs, pattern, arr.stored, net.n_in)
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            X = _cell_points(arr.flat, len(arr), net.n_in)   # checked below
    if should_stop is not None and should_stop():
        raise EnumerationStopped("building regions")
    witness = _witnesses(net, X, pattern, full, arr, proven)
    _, neuron = np.nonzero(arr.stored)  # cell-major, in neuron order: the rows' order
    if len(neuron) != len(rows):
        raise AssertionError("the stored rows and the stored neurons disagree")
    return Regions(pattern, full, A, c, witness, rows, on, row_start, arr.layer_sizes, pieces,
                   neuron)


def _stored_rows(Zs, pattern, stored, n) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every cell's stored constraints in the order of the neurons: rows (S, n + 1)
    (normal, offset) divided by the normal's length (a row that rounds to a constant:
    kept as computed), whether the neuron is on (S,), and where each cell's rows start
    (C + 1)."""
    C = len(pattern)
    cell, g = np.nonzero(stored)
    rows = np.concatenate(Zs, axis=1)[cell, g] if Zs else np.zeros((0, n + 1))
    with np.errstate(over="ignore"):
        norm = np.linalg.norm(rows[:, :n], axis=1)
    big = ~np.isfinite(norm)  # squares beyond the doubles (rows past about 1e154): scaled first
    if big.any():
        part = rows[:, :n][big]
        top = np.abs(part).max(axis=1)
        norm[big] = top * np.linalg.norm(part / top[:, None], axis=1)
    norm[norm == 0] = 1.0
    start = np.zeros(C + 1, dtype=np.int64)
    np.cumsum(np.bincount(cell, minlength=C), out=start[1:])
    return rows / norm[:, None], pattern[cell, g], start


def _inner_points(flat) -> tuple[np.ndarray, np.ndarray]:
    """Per piece, the mean of its points with finite ones as (x, 1) and directions
    scaled to the size of the finite ones as (d, 0): (sum of x (P, n), weight (P,));
    x / weight lies in the piece's relative interior (weight 0: no finite point)."""
    P = flat.points
    n = P.shape[1] - 1
    w = P[:, n]
    finite = w > 0
    pts = np.where(finite[:, None], P[:, :n] / np.where(finite, w, 1.0)[:, None], 0.0)
    piece = np.repeat(np.arange(len(flat.length)), flat.length)
    size = 1.0 + np.maximum.reduceat(np.abs(pts).max(axis=1), flat.start) if len(P) else \
        np.zeros(0)
    d = P[:, :n]
    big = np.abs(d).max(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        dirs = np.where(finite[:, None], 0.0, d * (size[piece] / big)[:, None])
    total = np.add.reduceat(pts + dirs, flat.start) if len(P) else np.zeros((0, n))
    weight = np.add.reduceat(finite.astype(float), flat.start) if len(P) else np.zeros(0)
    return total / flat.length[:, None], weight / flat.length


def _cell_points(flat, C: int, n: int) -> np.ndarray:
    """A point of every cell: the mean of its pieces' inner points (see
    :func:`_inner_points`), weighted by their finite points."""
    x, wt = _inner_points(flat)
    sx = np.zeros((C, n))
    sw = np.zeros(C)
    np.add.at(sx, flat.cell, x)
    np.add.at(sw, flat.cell, wt)
    return np.divide(sx, sw[:, None], out=np.zeros((C, n)), where=sw[:, None] > 0)


def _witnesses(net, W, pattern, full, arr, proven=None) -> np.ndarray:
    """The cells' points W as witnesses: proven to have the cell's pattern for
    full-dimensional cells (``proven``: already checked so, by the compiled pass);
    other candidates are tried when the first is too close to a boundary to prove in
    floating point, then the candidate is checked in rationals, and where that fails
    too (a point made of rays that cancel, or of subnormal products) the cell's point
    is made again from exact rays (:mod:`.witness`). Lower-dimensional cells whose
    point is not finite get the exact one too. The number of full cells left without
    a proven double goes to ``arr.stats``."""
    if proven is None:
        with np.errstate(invalid="ignore", over="ignore"):
            pat, bits = certified_patterns(net, W)
        proven = bits.all(axis=1) & (pat == pattern).all(axis=1)
    bad = np.flatnonzero(full & ~proven)
    flat = arr.flat if len(bad) else None
    redo: list[int] = []
    deadline = time.perf_counter() + witness.SEARCH_SECONDS
    for k in bad.tolist():
        # candidates made of vanished coordinates are NaN or ±inf: they fail the check
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            for cand in _candidates(flat, k):
                p, ok = certified_patterns(net, cand[None])
                if ok.all() and np.array_equal(p[0], pattern[k]):
                    W[k] = cand
                    break
            else:
                # past the deadline a cell stays unproven without a look
                if time.perf_counter() >= deadline or not witness.in_region(net, W[k], pattern[k]):
                    redo.append(k)
    redo += np.flatnonzero(~full & ~np.isfinite(W).all(axis=1)).tolist()
    unproven = 0
    if redo:
        found = (witness.exact_witnesses(net, pattern, redo, full, arr, deadline)
                 if time.perf_counter() < deadline else {})
        for k in redo:
            x, ok = found.get(k, (W[k], False))
            W[k] = x
            unproven += bool(full[k] and not ok)
    arr.stats["unproven_witnesses"] = unproven
    return W


def _candidates(flat, k):
    """More interior points of cell k: each piece's own, then (2-D) its triangles'."""
    qs = np.flatnonzero(flat.cell == k)
    pieces = [(flat.kind[q], flat.points[flat.start[q]:flat.start[q] + flat.length[q]])
              for q in qs]
    for _, P in pieces:
        q = _inner_point(P)
        if q is not None:
            yield q[:-1] / q[-1]
    for kind, P in pieces:
        if kind != 2 or len(P) < 3:
            continue
        for i in range(1, len(P) - 1):
            q = _inner_point(P[[0, i, i + 1]])
            if q is not None:
                yield q[:-1] / q[-1]


def _inner_point(P: np.ndarray) -> np.ndarray | None:
    """One piece's inner point (see :func:`_inner_points`) as a homogeneous point."""
    w = P[:, -1]
    finite = w > 0
    if not finite.any():
        return None
    pts = P[finite] / w[finite, None]
    size = 1.0 + np.abs(pts[:, :-1]).max()
    dirs = P[~finite]
    if len(dirs):
        dirs = dirs * (size / np.abs(dirs).max(axis=1))[:, None]
    return np.concatenate([pts, dirs]).mean(axis=0)


# ---------------------------------------------------------------------------
# drawing exact regions in a box
# ---------------------------------------------------------------------------
def _clip_polygon(P: np.ndarray, h: np.ndarray) -> np.ndarray | None:
    """The part h·v ≥ 0 of a convex polygon of homogeneous points (Sutherland–Hodgman;
    a crossing z_p q − z_q p is a positive combination, so it keeps w's sign)."""
    z = P @ h
    out = []
    k = len(P)
    for i in range(k):
        j = i + 1 if i + 1 < k else 0
        if z[i] >= 0:
            out.append(P[i])
        if (z[i] > 0 > z[j]) or (z[i] < 0 < z[j]):
            q = z[i] * P[j] - z[j] * P[i]
            out.append(q if z[i] > 0 else -q)
    return np.array(out) if len(out) >= 3 else None


def _clip_to_all(P: np.ndarray, planes: Sequence[np.ndarray]) -> np.ndarray | None:
    """The convex polygon P clipped to every half-plane of ``planes``; None once empty."""
    for h in planes:
        clipped = _clip_polygon(P, h)
        if clipped is None:
            return None
        P = clipped
    return P


def _to_box_polygon(pieces: Sequence[np.ndarray], box) -> np.ndarray | None:
    """The union of convex pieces (one convex region) clipped to ``box``, as (k, 2)."""
    x0, x1, y0, y1 = box
    planes = [np.array(h, dtype=float) for h in
              ([1, 0, -x0], [-1, 0, x1], [0, 1, -y0], [0, -1, y1])]
    pts = []
    for P in pieces:
        Q = _clip_to_all(P, planes)
        if Q is not None:
            pts.append(Q[:, :2] / Q[:, 2:3])
    if not pts:
        return None
    return _convex_hull(np.concatenate(pts))


def _convex_hull(points: np.ndarray) -> np.ndarray | None:
    """Counter-clockwise hull (monotone chain) without repeated points; None if flat.

    In plain Python on purpose: it runs once per region on a worker, and a numpy sort
    of a dozen points gives the interpreter up and takes it straight back. A loop of
    such hand-overs resets the waiting GUI thread's claim each time, and the window
    starved: 68 ms waits beside a loop of these hulls, 113 ms beside a 2-20-20-20-1
    conversion. Pure Python gives the interpreter up at the switch interval (1 ms)."""
    pts = sorted(set(map(tuple, points.tolist())))  # -0.0 and 0.0 are one point
    if len(pts) < 3:
        return None

    def cross(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower: list[tuple] = []
    upper: list[tuple] = []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    hull = lower[:-1] + upper[:-1]
    return np.array(hull, dtype=float) if len(hull) >= 3 else None
