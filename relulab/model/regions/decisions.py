"""Decision regions of a piecewise-linear classifier in the plane: where each class wins.

On each linear region of a network with ReLU (or identity) hidden layers the outputs
are affine, s(x) = A x + c, so the class that wins there, argmax_k s_k(x), splits the
region by lines: class k holds the convex piece

    {x in the region : (A_k − A_j)·x + (c_k − c_j) ≥ 0 for every j ≠ k}

(strictly > 0 against a lower class j < k: a tie goes to the lower class, as argmax
and the rule "class 1 when z > 0" decide it). A network with one output z is a
two-class classifier with scores (0, z). The decision boundary is where two classes
tie and none beats them: on each region, the line s_k = s_j clipped to the region
and to s_k ≥ s_m for every other m.

Everything here is computed from each region's affine map, by clipping convex
polygons and lines, never by sampling a grid; the vertices are floating point. A
count of decision regions (pieces of the same class that touch merged) would need
the adjacency decided exactly, which this module does not do: it draws, it counts
nothing.

:func:`decision_regions` is the entry point for a network (``decision_polygons`` for
the pieces alone); :func:`affine_decisions` does the same for one affine map on a
box (the output layer seen from a hidden layer's coordinates).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from relulab.model.core.rows import unique_rows
from relulab.model.networks.collapse import ReluForm, collapse_identity_layers, relu_form
from relulab.model.networks.mlp import MLP
from relulab.model.regions.activation import RegionPolygon, region_polygons


@dataclass(frozen=True, eq=False)
class DecisionPolygon:
    """A convex piece of the plane where class ``label`` wins: ``vertices`` (k, 2) in
    order, inside linear region ``region`` (its index among the region polygons) on
    which the scores are x ↦ A x + c (for one output, A and c of the logit)."""

    vertices: np.ndarray
    label: int
    region: int
    A: np.ndarray
    c: np.ndarray

    @property
    def area(self) -> float:
        v = self.vertices - self.vertices[0]  # far from the origin the terms would cancel
        x, y = v[:, 0], v[:, 1]
        return 0.5 * abs(float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))))


@dataclass(frozen=True, eq=False)
class DecisionRegions:
    """The linear regions in a box, the decision pieces cut from them and the decision
    boundary as segments (an array (2·S, 2): rows 2s and 2s + 1 are the ends of
    segment s), for ``classes`` classes."""

    regions: list[RegionPolygon]
    pieces: list[DecisionPolygon]
    boundary: np.ndarray
    classes: int

    def area_by_class(self) -> np.ndarray:
        """The area each class wins inside the box."""
        out = np.zeros(self.classes)
        for p in self.pieces:
            out[p.label] += p.area
        return out


def regions_as_built(net: MLP, box, should_stop=None) -> list[RegionPolygon]:
    """The linear regions of ``net`` (ReLU and identity hidden layers) with area in
    ``box``, as the network is built: found on its ReLU form (:func:`relu_form`: identity
    layers merged where the exact products are doubles, ReLU pairs otherwise; a merge
    rounded in doubles would move the lines), the pieces with the same pattern of the
    network's own ReLU neurons joined into one region (:func:`own_regions`). ValueError
    for other activations, whose regions are not computed here."""
    if not net.uses_only("relu", "identity"):
        other = sorted(set(net.activations) - {"relu", "identity"})
        raise ValueError(f"decision regions are computed for ReLU and identity layers, not "
                         f"{', '.join(other)}")
    form = relu_form(net)
    if form is None:  # identity only: one affine map on the box
        W, b = collapse_identity_layers(net).layers[0]
        return [_box_polygon(box, W, b)]
    return own_regions(region_polygons(form.net, box, should_stop=should_stop), form)


def own_regions(polygons, form: ReluForm) -> list[RegionPolygon]:
    """The built network's regions in view from those of its ReLU form: the pieces with
    the same pattern of its own neurons are one convex region (their union), drawn as
    the convex hull of their vertices; the count is exact, the outline floating point."""
    if not form.paired:
        return list(polygons)
    whole = getattr(polygons, "pattern", None)  # RegionPolygons: all patterns as one array
    polygons = list(polygons)
    if not polygons:
        return []
    if whole is None:
        whole = np.array([p.pattern for p in polygons])
    _, first, which = unique_rows(np.asarray(whole, dtype=np.int8)[:, form.own])
    order = np.argsort(which, kind="stable")  # the pieces of each region together
    ends = np.cumsum(np.bincount(which, minlength=len(first))).tolist()
    out = []
    for k, start in enumerate(first):
        group = [polygons[j] for j in order[(ends[k - 1] if k else 0):ends[k]]]
        head = polygons[int(start)]
        vertices = (head.vertices if len(group) == 1 else
                    _hull(np.concatenate([np.asarray(g.vertices, float) for g in group])))
        out.append(RegionPolygon(np.asarray(vertices, float), head.pattern[form.own], head.A,
                                 head.c, k))
    return out


def _hull(points: np.ndarray) -> np.ndarray:
    """The convex hull's vertices, counter-clockwise (Andrew's monotone chain)."""
    pts = points[np.lexsort((points[:, 1], points[:, 0]))]  # by x, then y
    pts = pts[np.r_[True, np.any(pts[1:] != pts[:-1], axis=1)]]
    if len(pts) < 3:
        return pts

    def half(seq):
        chain: list = []
        for p in seq:
            while len(chain) >= 2 and _cross(chain[-2], chain[-1], p) <= 0:
                chain.pop()
            chain.append(p)
        return chain

    lower, upper = half(pts), half(pts[::-1])
    return np.array(lower[:-1] + upper[:-1])


def _cross(o, a, b) -> float:
    return float((a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]))


def decision_regions(net: MLP, box, should_stop=None,
                     regions: Sequence[RegionPolygon] | None = None) -> DecisionRegions:
    """The decision regions of a 2-input network with ReLU (or identity) hidden layers
    inside ``box`` = (xmin, xmax, ymin, ymax): every linear region in the box cut into
    the pieces where each class wins, and the boundary between classes.

    ``regions``: the region polygons of ``net`` in ``box`` when already known (from
    :func:`relulab.model.regions.activation.region_polygons`); found here otherwise.
    ``should_stop`` is passed to the region enumeration (a newer request, a closing
    window). Identity hidden layers split nothing; the regions are those of the network
    as built (:func:`regions_as_built`)."""
    if net.n_in != 2:
        raise ValueError(f"decision regions need 2-D input, the network has {net.n_in}")
    if regions is None:
        regions = regions_as_built(net, box, should_stop)
    regions = list(regions)
    pieces, boundary = _decide(regions, net.n_out)
    return DecisionRegions(regions, pieces, boundary, 2 if net.n_out == 1 else net.n_out)


def decision_polygons(net: MLP, box, should_stop=None) -> list[DecisionPolygon]:
    """The pieces of :func:`decision_regions`: convex polygons, each inside one linear
    region, on which one class wins; together they tile the box (tie lines shared)."""
    return decision_regions(net, box, should_stop).pieces


def affine_decisions(A, c, box) -> DecisionRegions:
    """The decision regions of one affine map of the plane, scores x ↦ A x + c (A of
    shape (m, 2); m = 1 is a logit), inside ``box``."""
    A = np.atleast_2d(np.asarray(A, dtype=float))
    c = np.asarray(c, dtype=float).reshape(-1)
    if A.shape[1] != 2 or A.shape[0] != c.shape[0]:
        raise ValueError(f"expected A of shape (m, 2) and c of m values, got {A.shape}, {c.shape}")
    regions = [_box_polygon(box, A, c)]
    pieces, boundary = _decide(regions, A.shape[0])
    return DecisionRegions(regions, pieces, boundary, 2 if A.shape[0] == 1 else A.shape[0])


def _box_polygon(box, A, c) -> RegionPolygon:
    x0, x1, y0, y1 = (float(v) for v in box)
    if not (x0 < x1 and y0 < y1) or not np.all(np.isfinite([x0, x1, y0, y1])):
        raise ValueError(f"box must be (xmin, xmax, ymin, ymax) with min < max, got {box}")
    verts = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
    return RegionPolygon(verts, np.zeros(0, dtype=bool), np.asarray(A, float), np.asarray(c, float), 0)


# ---------------------------------------------------------------------------
# the work, on all regions at once
# ---------------------------------------------------------------------------
def _scores(regions: Sequence[RegionPolygon], n_out: int) -> tuple[np.ndarray, np.ndarray]:
    """Per region the class scores' maps: SA (R, C, 2), Sc (R, C); one output z gives
    the scores (0, z)."""
    A = np.stack([np.asarray(r.A, float).reshape(n_out, 2) for r in regions])
    c = np.stack([np.asarray(r.c, float).reshape(n_out) for r in regions])
    if n_out == 1:
        A = np.concatenate([np.zeros_like(A), A], axis=1)
        c = np.concatenate([np.zeros_like(c), c], axis=1)
    return A, c


def _padded(regions: Sequence[RegionPolygon]) -> tuple[np.ndarray, np.ndarray]:
    """Vertices (R, K, 2), counter-clockwise, padded by repeating the last vertex; counts
    (R,). All regions at once: their orientations from one signed-area sum, each taken
    from its first vertex (far from the origin the terms would cancel)."""
    counts = np.array([len(r.vertices) for r in regions])
    flat = np.concatenate([np.asarray(r.vertices, float) for r in regions])
    first = np.cumsum(counts) - counts
    owner = np.repeat(np.arange(len(regions)), counts)
    local = np.arange(len(flat)) - first[owner]
    nxt = first[owner] + (local + 1) % counts[owner]
    rel = flat - flat[first[owner]]
    twice_area = np.bincount(owner, rel[:, 0] * rel[nxt, 1] - rel[:, 1] * rel[nxt, 0],
                             minlength=len(regions))
    K = int(counts.max())
    j = np.minimum(np.arange(K)[None, :], counts[:, None] - 1)       # (R, K), padded
    j = np.where((twice_area < 0)[:, None], counts[:, None] - 1 - j, j)  # reversed: clockwise ones
    j = np.where(np.arange(K)[None, :] < counts[:, None], j,
                 np.where((twice_area < 0)[:, None], 0, counts[:, None] - 1))
    return flat[first[:, None] + j], counts


def _decide(regions: list[RegionPolygon], n_out: int):
    """The pieces and the boundary. A region whose vertices all go to one class c is
    all class c (s_c − s_j is affine, ≥ 0 at every vertex, so on the whole convex
    polygon): only the others are cut, and only they can hold a boundary (a tie along
    an edge gives that edge's vertices to the lower class, so one of the two regions
    beside it is mixed)."""
    if not regions:
        return [], np.zeros((0, 2))
    SA, Sc = _scores(regions, n_out)
    V, counts = _padded(regions)
    scores = np.matmul(V, SA.transpose(0, 2, 1)) + Sc[:, None, :]  # (R, K, C)
    winner = np.argmax(scores, axis=2)
    pure = np.all(winner == winner[:, :1], axis=1)
    pieces = [DecisionPolygon(np.asarray(regions[r].vertices, float), int(winner[r, 0]),
                              int(regions[r].index), np.asarray(regions[r].A), np.asarray(regions[r].c))
              for r in np.flatnonzero(pure)]
    mixed = np.flatnonzero(~pure)
    if len(mixed):
        sub = [regions[r] for r in mixed]
        pieces += _pieces(sub, SA[mixed], Sc[mixed], V[mixed], counts[mixed])
        boundary = _boundary(SA[mixed], Sc[mixed], V[mixed], counts[mixed])
    else:
        boundary = np.zeros((0, 2))
    return pieces, boundary


def _pieces(regions, SA, Sc, V, counts) -> list[DecisionPolygon]:
    """Every region clipped, for each class k, by s_k − s_j ≥ 0 (> 0 for j < k), all
    regions in one array step per pair (Sutherland–Hodgman on flat arrays)."""
    _R, C = Sc.shape
    out = []
    for k in range(C):
        flat = _Flat.of(V, counts)
        for j in range(C):
            if j == k or not len(flat.owner):
                continue
            a = SA[:, k] - SA[:, j]
            b = Sc[:, k] - Sc[:, j]
            flat = flat.clipped(a, b, strict=j < k)
        for region, verts in flat.polygons():
            out.append(DecisionPolygon(verts, k, int(regions[region].index),
                                       np.asarray(regions[region].A), np.asarray(regions[region].c)))
    return out


@dataclass
class _Flat:
    """Convex polygons as flat arrays: vertices V (T, 2) in order, the region each
    vertex belongs to (``owner``, sorted: a polygon's vertices are one run)."""

    V: np.ndarray
    owner: np.ndarray

    @classmethod
    def of(cls, V: np.ndarray, counts: np.ndarray) -> _Flat:
        keep = np.arange(V.shape[1])[None, :] < counts[:, None]
        return cls(V[keep], np.repeat(np.arange(len(counts)), counts))

    def clipped(self, a: np.ndarray, b: np.ndarray, strict: bool) -> _Flat:
        """Each polygon cut to a_r·x + b_r ≥ 0 (its region r's half-plane). A half-plane
        whose a is zero keeps or drops the whole polygon by the sign of b (b = 0 is a
        tie everywhere: kept unless ``strict``)."""
        V, owner = self.V, self.owner
        ar, br = a[owner], b[owner]
        s = np.einsum("ij,ij->i", V, ar) + br
        flat_region = ~np.any(a != 0, axis=1)
        # vertices within the rounding error of s count as on the line, so a polygon the
        # line only touches is not cut into slivers (this draws; it decides no count)
        tol = 8 * np.finfo(float).eps * (np.einsum("ij,ij->i", np.abs(V), np.abs(ar)) + np.abs(br))
        s = np.where(np.abs(s) <= tol, 0.0, s)
        # a polygon on the line within rounding everywhere is a tie: the lower class's
        # alone, so that no piece of the plane goes to two classes
        undecided = np.bincount(owner, weights=(s != 0), minlength=len(a)) == 0
        whole = flat_region[owner] | undecided[owner]
        keep_whole = np.where(flat_region[owner], (br > 0) | ((br == 0) & (not strict)), not strict)
        s = np.where(whole, np.where(keep_whole, 1.0, -1.0), s)
        # the next vertex of each vertex, within its own polygon
        first = np.r_[True, owner[1:] != owner[:-1]]
        starts = np.flatnonzero(first)
        run = np.diff(np.r_[starts, len(owner)])
        nxt = np.arange(len(owner)) + 1
        nxt[starts + run - 1] = starts
        si, sj = s, s[nxt]
        inside = si >= 0
        crosses = ((si > 0) & (sj < 0)) | ((si < 0) & (sj > 0))
        t = np.divide(si, si - sj, out=np.zeros_like(si), where=crosses)
        P = V + t[:, None] * (V[nxt] - V)
        # each vertex contributes itself (if inside), then the crossing on its edge
        cand = np.stack([V, P], axis=1).reshape(-1, 2)
        mask = np.stack([inside, crosses], axis=1).reshape(-1)
        new_owner = np.repeat(owner, 2)[mask]
        new_V = cand[mask]
        # polygons left with fewer than three vertices vanish
        if len(new_owner):
            n = np.bincount(new_owner, minlength=int(owner.max()) + 1)
            ok = n[new_owner] >= 3
            new_V, new_owner = new_V[ok], new_owner[ok]
        return _Flat(new_V, new_owner)

    def polygons(self):
        if not len(self.owner):
            return
        cuts = np.flatnonzero(self.owner[1:] != self.owner[:-1]) + 1
        for verts, start in zip(np.split(self.V, cuts), np.r_[0, cuts]):
            verts = _without_repeats(verts)
            if len(verts) >= 3:
                yield int(self.owner[start]), verts


def _without_repeats(v: np.ndarray) -> np.ndarray:
    same = np.all(v == np.roll(v, -1, axis=0), axis=1)
    return v[~same] if same.any() else v


def _boundary(SA, Sc, V, counts) -> np.ndarray:
    """Per region and pair of classes (k, j): the line s_k = s_j clipped to the region
    (Cyrus–Beck: its edges are half-planes) and to s_k ≥ s_m for every other m. A pair
    with A_k = A_j has no line (a tie everywhere, or nowhere)."""
    R, C = Sc.shape
    # edges (R, K, 2): the padding repeats the last vertex, so its edges are zero but
    # the last one, which closes the polygon
    E = np.roll(V, -1, axis=1) - V
    valid = np.any(E != 0, axis=2)
    segs = []
    for k in range(C):
        for j in range(k + 1, C):
            a = SA[:, k] - SA[:, j]                          # (R, 2)
            b = Sc[:, k] - Sc[:, j]
            norm2 = np.einsum("ij,ij->i", a, a)
            has_line = norm2 > 0
            if not has_line.any():
                continue
            with np.errstate(invalid="ignore", divide="ignore"):
                p0 = -(b / np.where(has_line, norm2, 1.0))[:, None] * a
            d = np.c_[-a[:, 1], a[:, 0]]
            # edges: cross(e, p(t) − v) ≥ 0 for a counter-clockwise polygon
            alpha = E[..., 0] * (p0[:, None, 1] - V[..., 1]) - E[..., 1] * (p0[:, None, 0] - V[..., 0])
            beta = E[..., 0] * d[:, None, 1] - E[..., 1] * d[:, None, 0]
            cons_a, cons_b, cons_ok = [alpha], [beta], [valid]
            for m in range(C):
                if m in (k, j):
                    continue
                g = SA[:, k] - SA[:, m]
                h = Sc[:, k] - Sc[:, m]
                # a lower class with the very same scores as k (or j) wins every tie:
                # k (or j) wins nowhere, and the line is that class's, drawn once
                for other in (k, j):
                    if m < other:
                        same = np.all(SA[:, other] == SA[:, m], axis=1) & (Sc[:, other] == Sc[:, m])
                        has_line = has_line & ~same
                cons_a.append((np.einsum("ij,ij->i", g, p0) + h)[:, None])
                cons_b.append(np.einsum("ij,ij->i", g, d)[:, None])
                cons_ok.append(np.ones((R, 1), dtype=bool))
            al = np.concatenate(cons_a, axis=1)
            be = np.concatenate(cons_b, axis=1)
            ok = np.concatenate(cons_ok, axis=1)
            with np.errstate(invalid="ignore", divide="ignore"):
                bound = -al / be
            lo = np.max(np.where(ok & (be > 0), bound, -np.inf), axis=1)
            hi = np.min(np.where(ok & (be < 0), bound, np.inf), axis=1)
            never = np.any(ok & (be == 0) & (al < 0), axis=1)
            keep = has_line & ~never & (lo < hi) & np.isfinite(lo) & np.isfinite(hi)
            if keep.any():
                ends = np.empty((int(keep.sum()), 2, 2))
                ends[:, 0] = p0[keep] + lo[keep, None] * d[keep]
                ends[:, 1] = p0[keep] + hi[keep, None] * d[keep]
                segs.append(ends.reshape(-1, 2))
    return np.concatenate(segs) if segs else np.zeros((0, 2))
