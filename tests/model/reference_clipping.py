"""The cell-by-cell polygon clipping the region engine replaced (tests only).

Kept to compare polygons with on random networks: Sutherland–Hodgman in floating
point with a snapping tolerance, and a linear program (HiGHS) where a line touches a
cell. Both make it unreliable on exactly degenerate networks, which is why the
engine replaced it; for those the tests use :mod:`tests.model.exact_regions_reference`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from benchmarks.lp_regions import max_margin as _max_margin
from relulab.model.core.cancel import Cancelled
from relulab.model.networks.mlp import MLP
from relulab.model.regions.activation import Region, RegionPolygon

LP_TOLERANCE = 1e-9


def _hidden_layers(net: MLP):
    return net.layers[:-1], net.layers[-1]


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

    def child(self, bit: bool, row=None, witness=None, pieces=None) -> _Cell:
        normals, offsets, on = self.normals, self.offsets, self.on
        if row is not None:
            normals = [*normals, row[0]]
            offsets = [*offsets, row[1]]
            on = [*on, bit]
        return _Cell([*self.pattern, bit], normals, offsets, on, self.A, self.c,
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
                          np.asarray(w, dtype=float), tuple(cell.pieces), sizes,
                          bool(cell.pieces) or _max_margin(*cell.arrays(n)[:2],
                                                           np.ones(len(cell.on), bool))[0] > LP_TOLERANCE))
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
                raise Cancelled()
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



def reference_region_polygons(net: MLP, box) -> list[RegionPolygon]:
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


def reference_linear_regions(net: MLP, stats: dict | None = None) -> list[Region]:
    """``linear_regions(net, method="polygons")`` by the cell-by-cell clipping (reference)."""
    stats = {} if stats is None else stats
    stats.setdefault("lps", 0)
    if net.n_in != 2:
        raise ValueError("polygon clipping needs 2-D input")
    return _finish(_reference_clip_enumerate(net, _whole_plane(), exact=True, stats=stats),
                   net, 2)
