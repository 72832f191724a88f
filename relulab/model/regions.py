"""Activation regions of a ReLU network: where each neuron is on or off.

Neuron i of layer l is *on* at x when its pre-activation z_{l,i}(x) > 0 and *off*
when z_{l,i}(x) ≤ 0. The sets P_s = {x : pattern(x) = s} partition Rⁿ; on each
the network is affine, N(x) = A_s x + c_s, with (D_l = diag(s_l), A₀ = I, c₀ = 0)

    Z_l = W_l A_{l−1},  ζ_l = W_l c_{l−1} + b_l,  A_l = D_l Z_l,  c_l = D_l ζ_l,
    A_s = W_out A_L,    c_s = W_out c_L + b_out.

P_s is convex: strict constraints Z_{l,i}·x + ζ_{l,i} > 0 for the on-neurons and
non-strict ones ≤ 0 for the off-neurons. Some patterns live only on lines or points
(|x| + 1 = ReLU(x) + ReLU(−x) + 1 has the region {0}); they are included.

Three ways to find them, all output-sensitive (never 2^neurons patterns, never a
sampled grid):

* :func:`linear_regions` in any dimension: split cells layer by layer, neuron by
  neuron; a child is kept only if an exact linear program says it is non-empty
  (HiGHS, maximising the margin t of the strict rows). The parent's witness point
  decides one child without a program when it lies clearly on one side.
* For 2-D input :func:`linear_regions` (``method="auto"`` or ``"polygons"``) clips
  convex polygons instead: cells are kept as polygons of the projective plane
  (points at infinity included), so the partition covers all of R² with no bounding
  box, and a linear program runs only where a neuron's line touches a cell without
  crossing it (where lower-dimensional regions can hide).
* :func:`region_polygons` for drawing: the same clipping inside a view box, no
  linear programs at all.

The 2-D clipping keeps every cell in flat arrays (patterns, stored rows, polygon
vertices with their owners) and splits all cells by neuron j in one step: the
signed distances of every vertex to its own cell's line come from one product, only
cells with vertices strictly on both sides are cut, and their crossings are made
together. A neuron costs a fixed number of array operations, not a Python loop over
cells; the cell-by-cell clipping it replaced is kept at the end of this module as
the reference the tests and benchmarks compare with.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
from scipy.optimize import linprog

from relulab.model.cancel import Cancelled
from relulab.model.mlp import MLP

#: A child cell is non-empty when the largest margin t of its strict rows exceeds this.
LP_TOLERANCE = 1e-9


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
    ``witness``: a point of P_s. ``pieces``: for 2-D input, convex polygons in
    homogeneous coordinates (rows (x, y, w), w = 0 a point at infinity) whose union
    is the closure of P_s; empty for lower-dimensional regions and in n-D.
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
        """True when P_s has interior points (solved as a linear program unless known)."""
        if self.pieces:
            return True
        sign = np.where(self.on, 1.0, -1.0)  # interior: every row strictly on its side
        t, _ = _max_margin(sign[:, None] * self.normals, sign * self.offsets,
                           np.ones_like(self.on))
        return t > LP_TOLERANCE

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


def region_at(net: MLP, regions: Sequence["Region"], x) -> int:
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


# ---------------------------------------------------------------------------
# the exact emptiness test
# ---------------------------------------------------------------------------
def _max_margin(normals: np.ndarray, offsets: np.ndarray, strict: np.ndarray):
    """max t s.t. a_i·x + c_i ≥ t (strict rows), a_j·x + c_j ≤ 0 (other rows), t ≤ 1.

    Rows are unit normals, so t is a distance. The set {strict rows > 0, others ≤ 0}
    is non-empty iff t* > 0. Returns (t*, x*) with t* = −inf when infeasible.
    """
    k, n = normals.shape if normals.ndim == 2 else (0, 0)
    if k == 0:
        return 1.0, None
    strict = np.asarray(strict, dtype=bool)
    A_ub = np.zeros((k, n + 1))
    b_ub = np.zeros(k)
    A_ub[strict, :n] = -normals[strict]
    A_ub[strict, n] = 1.0
    b_ub[strict] = offsets[strict]
    A_ub[~strict, :n] = normals[~strict]
    b_ub[~strict] = -offsets[~strict]
    cost = np.zeros(n + 1)
    cost[n] = -1.0
    res = linprog(cost, A_ub=A_ub, b_ub=b_ub, bounds=[(None, None)] * n + [(None, 1.0)],
                  method="highs")
    if res.status != 0:
        return -np.inf, None
    return float(res.x[n]), res.x[:n].copy()


def _central_witness(normals, offsets, on, x, stats):
    """The margin LP may stop on a non-strict row (a·x + c = 0), where rounding can
    flip the neuron: when it did, move to the point deepest inside every row, if the
    region has interior points (lower-dimensional regions keep the boundary point)."""
    m = normals @ x + offsets
    if np.all(m[~on] < -1e-9 * (1.0 + np.abs(offsets[~on]))):
        return x
    sign = np.where(on, 1.0, -1.0)
    stats["lps"] = stats.get("lps", 0) + 1
    t, y = _max_margin(sign[:, None] * normals, sign * offsets, np.ones_like(on))
    return y if t > LP_TOLERANCE else x


# ---------------------------------------------------------------------------
# enumeration in n-D with linear programs
# ---------------------------------------------------------------------------
@dataclass
class _Cell:
    pattern: list
    normals: list            # stored constraint rows (unit normals)
    offsets: list
    on: list
    A: np.ndarray            # hidden vector h_{l-1} = A x + c on the cell
    c: np.ndarray
    witness: np.ndarray | None
    pieces: list = field(default_factory=list)   # homogeneous polygons (2-D only)
    Z: np.ndarray | None = None                  # this layer's pre-activation maps
    zeta: np.ndarray | None = None

    def child(self, bit: bool, row=None, witness=None, pieces=None) -> "_Cell":
        normals, offsets, on = self.normals, self.offsets, self.on
        if row is not None:
            normals = normals + [row[0]]
            offsets = offsets + [row[1]]
            on = on + [bit]
        return _Cell(self.pattern + [bit], normals, offsets, on, self.A, self.c,
                     witness, pieces if pieces is not None else [], self.Z, self.zeta)

    def arrays(self, n: int, extra=None):
        normals, offsets, on = list(self.normals), list(self.offsets), list(self.on)
        if extra is not None:
            normals.append(extra[0])
            offsets.append(extra[1])
            on.append(extra[2])
        if not normals:
            return np.zeros((0, n)), np.zeros(0), np.zeros(0, dtype=bool)
        return np.array(normals), np.array(offsets), np.array(on, dtype=bool)


def _hidden_layers(net: MLP):
    if net.activation != "relu":
        raise ValueError(f"activation regions are defined for ReLU networks, not {net.activation!r}")
    if not net.is_finite():
        raise ValueError("the network has NaN or infinite weights")
    return net.layers[:-1], net.layers[-1]


def _unit_row(a: np.ndarray, c: float):
    norm = float(np.linalg.norm(a))
    return a / norm, c / norm, norm


def _lp_split(cell: _Cell, n: int, a: np.ndarray, c: float, stats: dict,
              margin: float) -> list[_Cell]:
    """Split a cell by the unit row a·x + c (> 0 on, ≤ 0 off) with LPs and the witness."""
    known = {}
    if cell.witness is not None:
        zw = float(a @ cell.witness + c)
        if zw > margin:
            known[True] = cell.witness
        elif zw < -margin:
            known[False] = cell.witness
    alive = {}
    for bit in (True, False):
        if bit in known:
            alive[bit] = known[bit]
            continue
        normals, offsets, on = cell.arrays(n, (a, c, bit))
        stats["lps"] = stats.get("lps", 0) + 1
        t, x = _max_margin(normals, offsets, on)
        if t > LP_TOLERANCE:
            alive[bit] = _central_witness(normals, offsets, on, x, stats)
    if len(alive) == 2:
        return [cell.child(True, (a, c), alive[True]), cell.child(False, (a, c), alive[False])]
    if len(alive) == 1:
        bit, w = next(iter(alive.items()))
        return [cell.child(bit, None, cell.witness if cell.witness is not None else w)]
    return []  # only when the parent itself was empty up to tolerance


def _finish(cells: list[_Cell], net: MLP, n: int) -> list[Region]:
    W_out, b_out = net.layers[-1]
    sizes = tuple(net.hidden_sizes)
    out = []
    for cell in cells:
        normals, offsets, on = cell.arrays(n)
        A = W_out @ cell.A
        c = W_out @ cell.c + b_out
        w = cell.witness
        if w is None:
            _, w = _max_margin(normals, offsets, on)
            w = np.zeros(n) if w is None else w
        out.append(Region(np.array(cell.pattern, dtype=bool), normals, offsets, on, A, c,
                          np.asarray(w, dtype=float), tuple(cell.pieces), sizes))
    return out


def _iter_layers(net: MLP, cells: list[_Cell]):
    """Set Z, ζ on each cell for every hidden layer in turn; yield (layer, W, b)."""
    hidden, _ = _hidden_layers(net)
    for li, (W, b) in enumerate(hidden):
        for cell in cells:
            cell.Z = W @ cell.A
            cell.zeta = W @ cell.c + b
        yield li, W, b
        # after the layer's neurons are split, fold the pattern into the maps
        n_l = W.shape[0]
        for cell in cells:
            d = np.array(cell.pattern[-n_l:], dtype=float)
            cell.A = d[:, None] * cell.Z
            cell.c = d * cell.zeta


# The name the region code's callers know; the same exception as every model loop's.
EnumerationStopped = Cancelled


def linear_regions(net: MLP, method: str = "auto", stats: dict | None = None,
                   should_stop=None) -> list[Region]:
    """Every non-empty activation region of ``net`` on all of Rⁿ, lower-dimensional ones included.

    ``method``: ``"lp"`` (any n: layer-by-layer splitting with exact linear programs),
    ``"polygons"`` (n = 2: projective polygon clipping, programs only where a line
    touches a cell without crossing it) or ``"auto"`` (polygons for n = 2).
    ``stats``, if given, receives counts (``lps``: linear programs solved).
    ``should_stop``, if given, is called after every neuron; when it returns True
    the enumeration raises :class:`EnumerationStopped` (a newer request, a closing window).
    """
    stats = {} if stats is None else stats
    stats.setdefault("lps", 0)
    _hidden_layers(net)
    n = net.n_in
    if method == "auto":
        method = "polygons" if n == 2 else "lp"
    if method == "polygons":
        if n != 2:
            raise ValueError("polygon clipping needs 2-D input")
        cells, table, A, c = _clip_all(net, _whole_plane(), exact=True, stats=stats,
                                       should_stop=should_stop)
        return _regions_from_cells(net, cells, table, A, c)
    if method != "lp":
        raise ValueError(f"unknown method {method!r}")
    cells = [_Cell([], [], [], [], np.eye(n), np.zeros(n), np.zeros(n))]
    for _li, W, _b in _iter_layers(net, cells):
        for i in range(W.shape[0]):
            new = []
            for cell in cells:
                new.extend(_split_by_neuron(cell, i, n, stats))
            cells[:] = new
            if should_stop is not None and should_stop():
                raise EnumerationStopped()
    return _finish(cells, net, n)


def _split_by_neuron(cell: _Cell, i: int, n: int, stats: dict) -> list[_Cell]:
    a, c = cell.Z[i], float(cell.zeta[i])
    if not np.any(a):  # constant on the cell: the constraint is implied
        return [cell.child(c > 0, None, cell.witness)]
    a, c, _ = _unit_row(a, c)
    scale = 1.0 + abs(c) + (float(np.abs(cell.witness).max()) if cell.witness is not None else 0.0)
    return _lp_split(cell, n, a, c, stats, margin=1e-9 * scale)


# ---------------------------------------------------------------------------
# 2-D: convex polygons of the projective plane
# ---------------------------------------------------------------------------
def _normalise_rows(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def _whole_plane() -> list[np.ndarray]:
    """R² as four closed quadrants, each a triangle (origin, two points at infinity)."""
    o = np.array([0.0, 0.0, 1.0])
    dirs = [np.array(d) for d in ([1.0, 0, 0], [0, 1.0, 0], [-1.0, 0, 0], [0, -1.0, 0])]
    return [np.array([o, dirs[k], dirs[(k + 1) % 4]]) for k in range(4)]


def _box(box) -> list[np.ndarray]:
    x0, x1, y0, y1 = (float(v) for v in box)
    if not (x1 > x0 and y1 > y0) or not np.all(np.isfinite([x0, x1, y0, y1])):
        raise ValueError(f"box must be (xmin, xmax, ymin, ymax) with min < max, got {box}")
    return [_normalise_rows(np.array([[x0, y0, 1], [x1, y0, 1], [x1, y1, 1], [x0, y1, 1]]))]


def _split_polygon(P: np.ndarray, z: np.ndarray):
    """Sutherland–Hodgman on a convex polygon of homogeneous points with values
    z = h·v (already snapped: |z| ≤ tol set to 0). Returns (z ≥ 0 part, z ≤ 0 part).

    The crossing on edge (p, q) is (z_p q − z_q p) up to sign: a positive combination
    of p and q, so it stays on the same side of w = 0 (points at infinity included)."""
    pos, neg = [], []
    k = len(P)
    for i in range(k):
        j = i + 1 if i + 1 < k else 0
        zi, zj = z[i], z[j]
        if zi >= 0:
            pos.append(P[i])
        if zi <= 0:
            neg.append(P[i])
        if (zi > 0 > zj) or (zi < 0 < zj):
            q = zi * P[j] - zj * P[i]
            q = q / np.linalg.norm(q)
            if zi < 0:
                q = -q
            pos.append(q)
            neg.append(q)
    return (np.array(pos) if len(pos) >= 3 else None), (np.array(neg) if len(neg) >= 3 else None)


# ---------------------------------------------------------------------------
# 2-D: every cell clipped against its neuron's line at once
# ---------------------------------------------------------------------------
@dataclass
class _Pieces:
    """Convex polygons of the projective plane as flat arrays: piece k owns the
    vertices ``V[start[k] : start[k] + length[k]]`` (rows (x, y, w), in order) and
    belongs to cell ``cell[k]``. A cell's pieces keep their order; with one piece
    per cell (a box) the pieces are in the order of the cells."""

    V: np.ndarray
    length: np.ndarray
    cell: np.ndarray
    vpiece: np.ndarray = None      # vertex → its piece

    def __post_init__(self):
        if self.vpiece is None:
            self.vpiece = np.repeat(np.arange(len(self.length)), self.length)

    @classmethod
    def of(cls, polygons: Sequence[np.ndarray]) -> "_Pieces":
        return cls(np.concatenate(polygons), np.array([len(P) for P in polygons]),
                   np.zeros(len(polygons), dtype=np.intp))

    @property
    def start(self) -> np.ndarray:
        return np.cumsum(self.length) - self.length

    def split_by_cell(self, n_cells: int) -> list[list[np.ndarray]]:
        out: list[list[np.ndarray]] = [[] for _ in range(n_cells)]
        for cell, P in zip(self.cell.tolist(), np.split(self.V, np.cumsum(self.length)[:-1])):
            out[cell].append(P)
        return out


@dataclass
class _Cells:
    """Every cell of the 2-D clipping as flat arrays (C cells, N hidden neurons).

    ``pattern[k, j]``: neuron j on in cell k (for the neurons split so far);
    ``row[k, j]``: index into the table of unit rows (a, c) when neuron j's line is a
    stored constraint of cell k, else −1; ``root[k]``: the cell at the start of the
    current layer that cell k came from (its pre-activation maps Z, ζ are the layer's);
    ``witness[k]``: a point of a lower-dimensional cell (NaN for polygon cells)."""

    pattern: np.ndarray
    row: np.ndarray
    root: np.ndarray
    witness: np.ndarray
    pieces: _Pieces

    def __len__(self) -> int:
        return len(self.root)


class _RowTable:
    """Unit rows (a₁, a₂, c) of every neuron step, appended block by block."""

    def __init__(self):
        self.blocks: list[np.ndarray] = []
        self.size = 0
        self._all: np.ndarray | None = None

    def append(self, H: np.ndarray) -> int:
        start = self.size
        self.blocks.append(H)
        self.size += len(H)
        self._all = None
        return start

    def all(self) -> np.ndarray:
        if self._all is None:
            self._all = np.concatenate(self.blocks) if self.blocks else np.zeros((0, 3))
        return self._all


def _stored_rows(cells: _Cells, k: int, table: _RowTable):
    """Cell k's stored constraints as (normals, offsets, on), in neuron order."""
    j = np.flatnonzero(cells.row[k] >= 0)
    R = table.all()[cells.row[k, j]]
    return R[:, :2].copy(), R[:, 2].copy(), cells.pattern[k, j].copy()


def _lp_children(normals, offsets, on, witness, a, c, stats, margin):
    """Split one cell by the unit row a·x + c with linear programs (as ``_lp_split``):
    a list of (bit, stores the row, witness) for the non-empty children."""
    known = {}
    if witness is not None:
        zw = float(a @ witness + c)
        if zw > margin:
            known[True] = witness
        elif zw < -margin:
            known[False] = witness
    alive = {}
    for bit in (True, False):
        if bit in known:
            alive[bit] = known[bit]
            continue
        N = np.vstack([normals, a[None, :]])
        o = np.append(offsets, c)
        s = np.append(on, bit)
        stats["lps"] = stats.get("lps", 0) + 1
        t, x = _max_margin(N, o, s)
        if t > LP_TOLERANCE:
            alive[bit] = _central_witness(N, o, s, x, stats)
    if len(alive) == 2:
        return [(True, True, alive[True]), (False, True, alive[False])]
    if len(alive) == 1:
        bit, w = next(iter(alive.items()))
        return [(bit, False, witness if witness is not None else w)]
    return []


def _clip_step(cells: _Cells, j: int, lines: np.ndarray, exact: bool, stats: dict,
               table: _RowTable) -> _Cells:
    """Split every cell by its own line of neuron j: ``lines`` (C, 6) holds per cell the
    unit row (a₁, a₂, c), its snapping tolerance, [ζ > 0] and [a ≠ 0] (see :func:`_unit_lines`).

    One array operation gives the signed distance of every vertex of every piece to
    its cell's line; cells with vertices strictly on both sides are cut (all their
    straddling pieces at once, Sutherland–Hodgman on flat arrays), the others keep
    their pieces and take the side their vertices show. With ``exact``, a cell that
    a line only touches, and a lower-dimensional cell, is settled by linear programs.
    Children come in their parents' order, the on-side first, as cell by cell.
    """
    C = len(cells)
    pcs = cells.pieces
    H = lines[:, :3]
    tol = lines[:, 3]
    nonzero = lines[:, 5] > 0
    row_start = table.append(H)

    vpiece = pcs.vpiece
    vcell = pcs.cell[vpiece]
    z = np.einsum("ij,ij->i", pcs.V, H[vcell])
    tv = tol[vcell]
    on_v, off_v = z > tv, z < -tv
    seen_on = np.bincount(vcell, on_v, C) > 0
    seen_off = np.bincount(vcell, off_v, C) > 0

    zero = ~nonzero                                    # constant on the cell: implied
    cut = seen_on & seen_off & nonzero
    keep = zero | (nonzero & (seen_on != seen_off))    # the cell stays whole, on one side
    keep_bit = np.where(zero, lines[:, 4] > 0, seen_on)
    keep_row = np.zeros(C, dtype=bool)
    n_children = keep + 2 * cut
    extra = []                                         # (cell, bit, stores row, witness)
    if exact:
        touching = np.bincount(vcell, ~(on_v | off_v), C) > 0
        has_pieces = np.bincount(pcs.cell, minlength=C) > 0
        for k in np.flatnonzero(keep & nonzero & touching):
            # The other side meets the closed cell only where the line touches it:
            # a lower-dimensional region may live there (|x| + 1 at x = 0).
            normals, offsets, on = _stored_rows(cells, k, table)
            bit = bool(seen_on[k])
            stats["lps"] = stats.get("lps", 0) + 1
            t, x = _max_margin(np.vstack([normals, H[k, None, :2]]), np.append(offsets, H[k, 2]),
                               np.append(on, not bit))
            if t > LP_TOLERANCE:
                keep_row[k] = True
                extra.append((k, not bit, True, x))
        # lower-dimensional cells, and (only for degenerate pieces) a line through every vertex
        for k in np.flatnonzero(nonzero & ~seen_on & ~seen_off):
            normals, offsets, on = _stored_rows(cells, k, table)
            w = None if has_pieces[k] or np.isnan(cells.witness[k, 0]) else cells.witness[k]
            margin = (np.inf if has_pieces[k] else
                      1e-9 * (1.0 + abs(H[k, 2]) + (float(np.abs(w).max()) if w is not None else 0.0)))
            for bit, stores, wit in _lp_children(normals, offsets, on, w, H[k, :2], H[k, 2],
                                                 stats, margin):
                extra.append((k, bit, stores, wit))
        for e in extra:
            n_children[e[0]] += 1

    first = np.cumsum(n_children) - n_children         # each parent's first child
    parent = np.repeat(np.arange(C), n_children)
    bit = np.zeros(len(parent), dtype=bool)
    stores = np.zeros(len(parent), dtype=bool)
    kp, cp = np.flatnonzero(keep), np.flatnonzero(cut)
    bit[first[kp]] = keep_bit[kp]
    stores[first[kp]] = keep_row[kp]
    bit[first[cp]] = True                              # on child, then off child
    stores[first[cp]] = True
    stores[first[cp] + 1] = True
    witness = cells.witness[parent]
    if extra:
        slot = keep.astype(np.intp)                    # extras follow a kept child
        for k, b, s, w in extra:
            pos = first[k] + slot[k]
            slot[k] += 1
            bit[pos], stores[pos], witness[pos] = b, s, w
    pattern = cells.pattern[parent]
    pattern[:, j] = bit
    row = cells.row[parent]
    row[stores, j] = row_start + parent[stores]

    # where each piece goes: whole to a child, cut in two, or nowhere
    n_pieces = len(pcs.length)
    pc = pcs.cell
    zs = np.where(on_v | off_v, z, 0.0)                # snapped: on the line is 0
    has_pos = np.bincount(vpiece, zs > 0, n_pieces) > 0
    has_neg = np.bincount(vpiece, zs < 0, n_pieces) > 0
    f = first[pc]
    cut_p = cut[pc]
    straddle = cut_p & has_pos & has_neg
    dest = np.where(keep[pc] | (cut_p & ~has_neg), f, -1)   # all ≥ 0: the on child
    dest = np.where(cut_p & has_neg & ~has_pos, f + 1, dest)  # all ≤ 0: the off child
    whole_v = (dest >= 0)[vpiece]
    V = pcs.V[whole_v]
    keys = 2 * vpiece[whole_v]                          # piece order; a cut piece: on, off
    if straddle.any():
        start = pcs.start
        nxt = np.arange(len(z)) + 1
        nxt[start + pcs.length - 1] = start             # each piece is a closed loop
        sv = np.flatnonzero(straddle[vpiece])
        zi, zj = zs[sv], zs[nxt[sv]]
        Pi, Pj = pcs.V[sv], pcs.V[nxt[sv]]
        crosses = ((zi > 0) & (zj < 0)) | ((zi < 0) & (zj > 0))
        # the crossing on edge (p, q) is z_p q − z_q p up to sign: a positive
        # combination of p and q, so it stays on the same side of w = 0
        q = zi[crosses, None] * Pj[crosses] - zj[crosses, None] * Pi[crosses]
        q /= np.sqrt(np.einsum("ij,ij->i", q, q))[:, None]
        q[zi[crosses] < 0] *= -1.0
        cand = np.zeros((len(sv), 2, 3))
        cand[:, 0] = Pi
        cand[crosses, 1] = q
        cand = cand.reshape(-1, 3)
        pid = np.repeat(2 * vpiece[sv], 2)
        on_mask = np.empty((len(sv), 2), dtype=bool)
        on_mask[:, 0], on_mask[:, 1] = zi >= 0, crosses
        off_mask = on_mask.copy()
        off_mask[:, 0] = zi <= 0
        on_mask, off_mask = on_mask.ravel(), off_mask.ravel()
        V = np.concatenate([V, cand[on_mask], cand[off_mask]])
        keys = np.concatenate([keys, pid[on_mask], pid[off_mask] + 1])
        order = np.argsort(keys, kind="stable")
        V, keys = V[order], keys[order]
        dest = np.where(straddle, f, dest)
    # the new pieces are the runs of equal keys
    new_run = np.empty(len(keys), dtype=bool)
    new_run[:1] = True
    np.not_equal(keys[1:], keys[:-1], out=new_run[1:])
    starts = np.flatnonzero(new_run)
    lengths = np.empty_like(starts)
    lengths[:-1] = starts[1:] - starts[:-1]
    lengths[-1:] = len(keys) - starts[-1:]
    kept = keys[starts]
    if len(lengths) and lengths.min() < 3:             # a convex cut never leaves fewer
        good = lengths >= 3
        V = V[np.repeat(good, lengths)]
        kept, lengths = kept[good], lengths[good]
    pieces = _Pieces(V, lengths, dest[kept >> 1] + (kept & 1))
    return _Cells(pattern, row, cells.root[parent], witness, pieces)


def _unit_lines(Z: np.ndarray, zeta: np.ndarray) -> np.ndarray:
    """Per cell and neuron (Z (C, n, 2), ζ (C, n)): the unit row (a, c)/‖a‖ (zero when
    a = 0: the neuron is constant on the cell), the tolerance within which a vertex
    counts as on the line, [ζ > 0] and [a ≠ 0], as (C, n, 6)."""
    norm = np.sqrt(Z[..., 0] * Z[..., 0] + Z[..., 1] * Z[..., 1])
    nonzero = norm > 0
    out = np.zeros(Z.shape[:2] + (6,))
    np.divide(Z, norm[..., None], out=out[..., :2], where=nonzero[..., None])
    np.divide(zeta, norm, out=out[..., 2], where=nonzero)
    out[..., 3] = 1e-11 * np.maximum(1.0, np.abs(out[..., 2]))
    out[..., 4] = zeta > 0
    out[..., 5] = nonzero
    return out


def _clip_all(net: MLP, start: list[np.ndarray], exact: bool, stats: dict,
              should_stop=None):
    """Split polygon cells neuron by neuron, all cells of a step at once.
    Returns (cells, row table, A, c): the last hidden layer's h = A x + c per cell."""
    hidden, _ = _hidden_layers(net)
    N = sum(W.shape[0] for W, _ in hidden)
    cells = _Cells(np.zeros((1, N), dtype=bool), np.full((1, N), -1, dtype=np.intp),
                   np.zeros(1, dtype=np.intp), np.full((1, 2), np.nan), _Pieces.of(start))
    table = _RowTable()
    A = np.eye(2)[None]                                  # (cells, width, 2)
    c = np.zeros((1, 2))
    j0 = 0
    for W, b in hidden:
        Z = np.matmul(W, A)                              # each cell's pre-activation maps
        zeta = np.einsum("ij,kj->ki", W, c) + b
        lines = _unit_lines(Z, zeta)
        cells.root = np.arange(len(cells))
        for i in range(W.shape[0]):
            cells = _clip_step(cells, j0 + i, lines[cells.root, i], exact, stats, table)
            if should_stop is not None and should_stop():
                raise EnumerationStopped()
        d = cells.pattern[:, j0:j0 + W.shape[0]].astype(float)
        A = d[:, :, None] * Z[cells.root]
        c = d * zeta[cells.root]
        j0 += W.shape[0]
    return cells, table, A, c


def _output_maps(net: MLP, A: np.ndarray, c: np.ndarray):
    W_out, b_out = net.layers[-1]
    return np.matmul(W_out, A), np.einsum("ij,kj->ki", W_out, c) + b_out


def _piece_witnesses(pieces: _Pieces, n_cells: int) -> np.ndarray:
    """Per cell, a finite interior point of its pieces (as :func:`_piece_witness`):
    finite vertices as (x, y, 1), directions as (d, 0), averaged per piece, summed."""
    V = pieces.V
    w = V[:, 2:3]
    finite = w[:, 0] > 1e-12
    pts = np.where(finite[:, None], V / np.where(finite[:, None], w, 1.0), V)
    piece_of = np.repeat(np.arange(len(pieces.length)), pieces.length)
    pts = pts / pieces.length[piece_of, None]
    vcell = pieces.cell[piece_of]
    total = np.stack([np.bincount(vcell, pts[:, k], minlength=n_cells) for k in range(3)], axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return total[:, :2] / total[:, 2:3]


def _regions_from_cells(net: MLP, cells: _Cells, table: _RowTable, A, c) -> list[Region]:
    A_out, c_out = _output_maps(net, A, c)
    sizes = tuple(net.hidden_sizes)
    polys = cells.pieces.split_by_cell(len(cells))
    witness = np.where(np.isnan(cells.witness), _piece_witnesses(cells.pieces, len(cells)),
                       cells.witness)
    # every cell's stored rows, in neuron order, split per cell
    stored = cells.row >= 0
    cuts = np.cumsum(stored.sum(axis=1))[:-1]
    R = table.all()[cells.row[stored]]
    normals = np.split(R[:, :2], cuts)
    offsets = np.split(R[:, 2], cuts)
    on = np.split(cells.pattern[stored], cuts)
    patterns = cells.pattern.copy()
    out = []
    for k in range(len(cells)):
        w = witness[k]
        if np.isnan(w).any():  # no witness yet: the deepest point of the stored rows
            _, w = _max_margin(normals[k], offsets[k], on[k])
            w = np.zeros(2) if w is None else w
        out.append(Region(patterns[k], normals[k], offsets[k], on[k], A_out[k], c_out[k],
                          w, tuple(polys[k]), sizes))
    return out


def _to_box_polygon(pieces: Sequence[np.ndarray], box) -> np.ndarray | None:
    """The union of convex pieces (one convex region) clipped to ``box``, as (k, 2)."""
    x0, x1, y0, y1 = box
    planes = [np.array(h, dtype=float) for h in
              ([1, 0, -x0], [-1, 0, x1], [0, 1, -y0], [0, -1, y1])]
    pts = []
    for P in pieces:
        Q = P
        for h in planes:
            z = Q @ h
            z[np.abs(z) <= 1e-14 * (1 + abs(h[2]))] = 0.0
            Q, _ = _split_polygon(Q, z)
            if Q is None:
                break
        if Q is not None:
            pts.append(Q[:, :2] / Q[:, 2:3])
    if not pts:
        return None
    return _convex_hull(np.concatenate(pts))


def _convex_hull(points: np.ndarray) -> np.ndarray | None:
    """Counter-clockwise hull (monotone chain) without repeated points; None if flat."""
    pts = np.unique(np.round(points, 12), axis=0)
    if len(pts) < 3:
        return None
    pts = pts[np.lexsort((pts[:, 1], pts[:, 0]))]

    def cross(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower, upper = [], []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(tuple(p))
    for p in pts[::-1]:
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(tuple(p))
    hull = np.array(lower[:-1] + upper[:-1])
    return hull if len(hull) >= 3 else None


def region_polygons(net: MLP, box, should_stop=None) -> list[RegionPolygon]:
    """The full-dimensional activation regions of a 2-input network inside ``box``
    = (xmin, xmax, ymin, ymax), as convex polygons, by clipping (no linear programs).

    Each polygon is {x ∈ box : pattern(x) = s}; together they tile the box. Regions
    that only touch the box on a line or at a point are not drawn; for the exact
    partition of R² use :func:`linear_regions`. Every cell is clipped against its
    neuron's line in the same array operation, so a neuron costs a few numpy calls
    whatever the number of cells. ``should_stop`` is asked after every neuron
    (:class:`EnumerationStopped`).
    """
    if net.n_in != 2:
        raise ValueError(f"region polygons need 2-D input, the network has {net.n_in}")
    _hidden_layers(net)
    cells, _table, A, c = _clip_all(net, _box(box), exact=False, stats={}, should_stop=should_stop)
    A_out, c_out = _output_maps(net, A, c)
    pcs = cells.pieces
    XY = pcs.V[:, :2] / pcs.V[:, 2:3]
    owners = pcs.cell.tolist()
    return [RegionPolygon(verts, cells.pattern[k], A_out[k], c_out[k], index)
            for index, (k, verts) in enumerate(zip(owners, np.split(XY, np.cumsum(pcs.length)[:-1])))]


def regions_in_box(regions: Sequence[Region], box) -> list[RegionPolygon]:
    """Exact regions (from :func:`linear_regions` on 2-D input) clipped to ``box``.

    Regions with no area inside the box (lines, points, regions elsewhere) are left
    out; ``index`` is the region's position in ``regions``."""
    box = tuple(float(v) for v in box)
    _box(box)
    out = []
    for idx, r in enumerate(regions):
        if not r.pieces:
            continue
        verts = _to_box_polygon(r.pieces, box)
        if verts is not None:
            out.append(RegionPolygon(verts, r.pattern, r.A, r.c, idx))
    return out


# ---------------------------------------------------------------------------
# reference: the cell-by-cell clipping, kept to check the flat one against
# ---------------------------------------------------------------------------
def _piece_witness(pieces: list[np.ndarray]) -> np.ndarray:
    """A finite interior point: finite vertices as (x, y, 1), directions as (d, 0), summed."""
    total = np.zeros(3)
    for P in pieces:
        w = P[:, 2:3]
        finite = w[:, 0] > 1e-12
        pts = np.where(finite[:, None], P / np.where(finite[:, None], w, 1.0), P)
        # a positive combination of the vertices lies in the piece's interior
        total += pts.sum(axis=0) / len(P)
    return total[:2] / total[2]


def _reference_clip_enumerate(net: MLP, start: list[np.ndarray], exact: bool, stats: dict,
                              should_stop=None) -> list[_Cell]:
    """Split polygon cells neuron by neuron. With ``exact``, a side that no vertex
    shows strictly but that a vertex touches is settled by a linear program."""
    n = 2
    cells = [_Cell([], [], [], [], np.eye(n), np.zeros(n), None, list(start))]
    for _li, W, _b in _iter_layers(net, cells):
        for i in range(W.shape[0]):
            cells[:] = _reference_clip_neuron(cells, i, exact, stats)
            if should_stop is not None and should_stop():
                raise EnumerationStopped()
    if not exact:
        return cells
    for cell in cells:
        if cell.witness is None and cell.pieces:
            cell.witness = _piece_witness(cell.pieces)
    return cells


def _reference_clip_neuron(cells: list[_Cell], i: int, exact: bool, stats: dict) -> list[_Cell]:
    # Values of every cell's neuron-i functional at every vertex, in one product.
    owners, verts, piece_len = [], [], []
    H = np.zeros((len(cells), 3))
    norms = np.zeros(len(cells))
    for ci, cell in enumerate(cells):
        a, c = cell.Z[i], float(cell.zeta[i])
        norm = float(np.linalg.norm(a))
        norms[ci] = norm
        if norm > 0:
            H[ci] = (a[0] / norm, a[1] / norm, c / norm)
        for P in cell.pieces:
            verts.append(P)
            owners.append(np.full(len(P), ci))
            piece_len.append(len(P))
    if verts:
        V = np.concatenate(verts)
        own = np.concatenate(owners)
        zall = np.einsum("ij,ij->i", V, H[own])
    else:
        zall = np.zeros(0)
    tol_cell = 1e-11 * np.maximum(1.0, np.abs(H[:, 2]))

    out: list[_Cell] = []
    pos = 0
    for ci, cell in enumerate(cells):
        nv = sum(len(P) for P in cell.pieces)
        z = zall[pos:pos + nv]
        pos += nv
        if norms[ci] == 0.0:  # constant on the cell: implied
            out.append(cell.child(float(cell.zeta[i]) > 0, None, cell.witness, cell.pieces))
            continue
        a, c = H[ci, :2], float(H[ci, 2])
        if not cell.pieces:  # a lower-dimensional cell: linear programs only
            if exact:
                scale = 1.0 + abs(c) + (float(np.abs(cell.witness).max())
                                        if cell.witness is not None else 0.0)
                out.extend(_lp_split(cell, 2, a, c, stats, margin=1e-9 * scale))
            continue
        tol = tol_cell[ci]
        seen_on = bool(np.any(z > tol))
        seen_off = bool(np.any(z < -tol))
        touching = bool(np.any(np.abs(z) <= tol))
        if seen_on and seen_off:
            on_pieces, off_pieces = [], []
            k0 = 0
            for P in cell.pieces:
                zp = z[k0:k0 + len(P)].copy()
                k0 += len(P)
                zp[np.abs(zp) <= tol] = 0.0
                if np.all(zp >= 0):
                    on_pieces.append(P)
                    continue
                if np.all(zp <= 0):
                    off_pieces.append(P)
                    continue
                p_on, p_off = _split_polygon(P, zp)
                if p_on is not None:
                    on_pieces.append(p_on)
                if p_off is not None:
                    off_pieces.append(p_off)
            out.append(cell.child(True, (a.copy(), c), None, on_pieces))
            out.append(cell.child(False, (a.copy(), c), None, off_pieces))
            continue
        if not seen_on and not seen_off:
            if exact:  # a line through every vertex cannot happen for a full cell; be safe
                out.extend(_lp_split(cell, 2, a, c, stats, margin=np.inf))
            continue
        bit = seen_on
        if exact and touching:
            # The other side meets the closed cell only where the line touches it:
            # a lower-dimensional region may live there (|x| + 1 at x = 0).
            normals, offsets, on = cell.arrays(2, (a, c, not bit))
            stats["lps"] = stats.get("lps", 0) + 1
            t, x = _max_margin(normals, offsets, on)
            if t > LP_TOLERANCE:
                out.append(cell.child(bit, (a.copy(), c), None, cell.pieces))
                out.append(cell.child(not bit, (a.copy(), c), x, []))
                continue
        out.append(cell.child(bit, None, cell.witness, cell.pieces))
    return out


def _reference_region_polygons(net: MLP, box) -> list[RegionPolygon]:
    """:func:`region_polygons` by the cell-by-cell clipping it replaced (for tests and
    benchmarks: the same polygons, one Python loop per cell and neuron)."""
    if net.n_in != 2:
        raise ValueError(f"region polygons need 2-D input, the network has {net.n_in}")
    _hidden_layers(net)
    cells = _reference_clip_enumerate(net, _box(box), exact=False, stats={})
    W_out, b_out = net.layers[-1]
    out = []
    for cell in cells:
        for P in cell.pieces:
            verts = P[:, :2] / P[:, 2:3]
            out.append(RegionPolygon(verts, np.array(cell.pattern, dtype=bool),
                                     W_out @ cell.A, W_out @ cell.c + b_out, len(out)))
    return out


def _reference_linear_regions(net: MLP, stats: dict | None = None) -> list[Region]:
    """``linear_regions(net, method="polygons")`` by the cell-by-cell clipping (reference)."""
    stats = {} if stats is None else stats
    stats.setdefault("lps", 0)
    if net.n_in != 2:
        raise ValueError("polygon clipping needs 2-D input")
    return _finish(_reference_clip_enumerate(net, _whole_plane(), exact=True, stats=stats),
                   net, 2)
