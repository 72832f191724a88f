"""The region engine: activation regions cut out neuron by neuron, every decision certified.

A ReLU network's activation regions are what its neurons' zero sets cut the input
space into. Processing the neurons in order (layer by layer), each region found so
far (a *cell*, with the activation pattern of the neurons before) is split by the
next neuron, whose pre-activation is affine on the cell: z = a·x + c. Three
questions decide everything:

* on which side of z = 0 does each vertex of the cell lie (+, − or exactly on it);
* hence: does z = 0 cross the cell (vertices strictly on both sides), leave it
  whole on one side, or touch it (vertices on z = 0, the rest on one side);
* where it touches, is the touching set (a vertex, an edge) part of the cell? Then
  it is a lower-dimensional region of its own ({0} for |x| + 1 = ReLU(x) + ReLU(−x) + 1).

In 2-D a cell is a list of convex polygons of the projective plane (points at
infinity included, so all of R² is covered with no bounding box; in a box, one
polygon). Every vertex is the crossing of two lines, v = σ·(L₁ × L₂) in homogeneous
coordinates, and every line is a neuron's z on a cell of an earlier layer, whose
exact coefficients are products of the weights along that cell's activation pattern
(doubles are dyadic rationals, so these are integers times a power of two). The
sign of z at v is therefore the sign of an exact integer, sign(L · σ(L₁ × L₂)).

Certified signs: the lines are computed in floating point with a rigorous bound on
their error (|fl(W A) − W A| ≤ γₘ |W| |A| propagated through the layers), the vertex
and the product L · v likewise; when |L · v| exceeds its bound the sign is proven,
and otherwise it is computed exactly with Python integers from the weights (the
*exact fallback*, counted in ``stats["exact"]``). σ needs no arithmetic: a vertex
made where L crosses edge (p → q) of a counter-clockwise polygon whose interior lies
on side ι of the edge's line has σ = ι·sign(L·p). Whether a touching vertex or edge
belongs to the cell is kept as flags (a strict constraint z > 0 of the cell vanishes
there or not), so lower-dimensional regions are found without linear programs.

In n dimensions (:func:`arrangement_nd`, any n) a cell is a union of pointed cones
of R^{n+1} (homogeneous points (x, w), w ≥ 0; Rⁿ starts as the n + 1 cones of a fan
around the origin), each kept as its extreme rays with their tight sets (the
constraints that vanish there). Splitting by z is the double description step: a new
ray z_p q − z_q p for every pair of rays p (z > 0), q (z < 0) that span an edge,
which holds exactly when no third ray's tight set contains T(p) ∩ T(q). A ray's exact
coordinates are the null space of its tight constraints, so the fallback is again
integer arithmetic. A touching face belongs to the cell unless a neuron on in the
cell vanishes on all of it, or it lies at infinity.

Degenerate networks (lines through one point, duplicate neurons, zero rows, zero
biases) are then ordinary: a line through a vertex gets the sign 0, exactly. A
network in other units (input scaled, shifted) has the same arrangement: no
decision depends on an absolute tolerance.
"""

from __future__ import annotations

import bisect
import contextlib
import itertools
import math
import threading
import time
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property, lru_cache

import numpy as np

from relulab.model.core import platform
from relulab.model.core.cancel import Cancelled
from relulab.model.networks.exact import as_scaled_integers
from relulab.model.networks.mlp import MLP
from relulab.model.regions import _arrangement_kernels as kern
from relulab.model.regions.vertices import fix_box_corners

_ids = itertools.count(1)
_id_lock = threading.Lock()


class RegionLimit(ValueError):
    """The enumeration stopped at a limit on regions or time (message: one line)."""


def hidden_layers(net: MLP):
    """The hidden layers and the output layer of a ReLU network with finite weights."""
    if net.activation != "relu":
        raise ValueError("activation regions are defined for ReLU networks, "
                         f"not {net.activation!r}")
    if not net.is_finite():
        raise ValueError("the network has NaN or infinite weights")
    return net.layers[:-1], net.layers[-1]


# ---------------------------------------------------------------------------
# exact integers
# ---------------------------------------------------------------------------
def _sign(x: int) -> int:
    return (x > 0) - (x < 0)


class _ExactLines:
    """Exact coefficients of the neurons' pre-activations on the cells of each layer.

    A cell of layer l is named by its activation pattern on the neurons before layer
    l (an integer, bit g for neuron g); its maps Z (integer rows over one common
    positive power of two) come from its parent's (the pattern without layer l − 1)
    by integer matrix products, and are kept."""

    def __init__(self, hidden):
        self.hidden = hidden
        self.ints: list[tuple | None] = [None] * len(hidden)
        self.first = [0, *itertools.accumulate(W.shape[0] for W, _ in hidden)]
        self.cache: dict = {}

    def _layer(self, l):
        got = self.ints[l]
        if got is None:
            W, b = self.hidden[l]
            mw, sw = as_scaled_integers(W)
            mb, sb = as_scaled_integers(b)
            got = ([list(row) for row in mw], sw, list(mb), sb)
            self.ints[l] = got
        return got

    def Z(self, l: int, pattern: int):
        """(rows, t): layer l's maps on the cell with ``pattern`` (bits of the neurons
        before layer l), the true rows being rows / 2**t."""
        key = (l, pattern)
        got = self.cache.get(key)
        if got is not None:
            return got
        mw, sw, mb, sb = self._layer(l)
        if l == 0:
            n = len(mw[0])
            t = max(sw, sb)
            rows = [[w << (t - sw) for w in row] + [b << (t - sb)] for row, b in zip(mw, mb)]
        else:
            g0 = self.first[l - 1]
            zp, tp = self.Z(l - 1, pattern & ((1 << g0) - 1))
            on = [k for k in range(len(zp)) if pattern >> (g0 + k) & 1]
            n = len(zp[0]) - 1
            t = max(sw + tp, sb)
            shift, bshift = t - sw - tp, t - sb
            rows = []
            for row, b in zip(mw, mb):
                out = [sum(row[k] * zp[k][d] for k in on) << shift for d in range(n + 1)]
                out[n] += b << bshift
                rows.append(out)
        got = (rows, t)
        self.cache[key] = got
        return got

    def line(self, layer: int, j: int, words) -> list:
        """Row j of the maps of layer ``layer`` on the cell whose pattern words are ``words``."""
        pattern = 0
        for i, w in enumerate(words):
            pattern |= int(w) << (64 * i)
        return self.Z(layer, pattern & ((1 << self.first[layer]) - 1))[0][j]


class _Run:
    """One enumeration's context: exact fallback, stop requests and limits."""

    # n-D runs only: the starting fan (directions, facets), the number of neurons and
    # the exact rays found so far
    fan: tuple[np.ndarray, np.ndarray]
    N: int
    ray_cache: dict

    def __init__(self, hidden, base, should_stop, max_cells, deadline):
        self.exact = _ExactLines(hidden)
        self.base = base              # exact integer lines with ids 0 … len(base) − 1
        self.vertex_cache: dict = {}
        self.should_stop = should_stop
        self.max_cells = max_cells
        self.deadline = deadline
        self.stopped = 0
        with _id_lock:
            self.id = next(_ids)
        kern.CONTEXTS[self.id] = self

    def close(self) -> None:
        kern.CONTEXTS.pop(self.id, None)

    def line(self, source) -> list:
        layer, j, words = source
        if layer < 0:
            return self.base[j]
        return self.exact.line(layer, j, words)

    # called from the compiled loops
    def exact_sign(self, v, sg, s1, s2, s) -> int:
        p = self.vertex_cache.get(v)
        if p is None:
            sg = int(sg)   # a Python int: numpy's would overflow on the products
            a, b = self.line(s1), self.line(s2)
            p = (sg * (a[1] * b[2] - a[2] * b[1]), sg * (a[2] * b[0] - a[0] * b[2]),
                 sg * (a[0] * b[1] - a[1] * b[0]))
            self.vertex_cache[v] = p
        h = self.line(s)
        return _sign(h[0] * p[0] + h[1] * p[1] + h[2] * p[2])

    def exact_sign_nd(self, ray, tight, pattern, origin, la, j) -> int:
        """sign(z · y) for neuron j of layer la on the cell with ``pattern`` and the ray
        y where the constraints in ``tight`` vanish (rank n: y is their null space,
        oriented so that a constraint of the cell that does not vanish is positive)."""
        y = self.ray_cache.get(ray)
        words = [int(w) for w in pattern]
        pat = sum(w << (64 * i) for i, w in enumerate(words))
        if y is None:
            y = self._ray(tight, pat, origin, la, j)
            self.ray_cache[ray] = y
        h = self.exact.Z(la, pat & ((1 << self.exact.first[la]) - 1))[0][j]
        return _sign(sum(a * b for a, b in zip(h, y)))

    def _constraint(self, bit, pat, origin):
        """Constraint ``bit`` of a cell with pattern ``pat`` as (exact row, side) with
        side·row ≥ 0 on the cell."""
        _dirs, G = self.fan
        N, n = self.N, G.shape[1]
        if bit < N:
            l = bisect.bisect_right(self.exact.first, bit) - 1
            first = self.exact.first[l]
            row = self.exact.Z(l, pat & ((1 << first) - 1))[0][bit - first]
            return row, (1 if pat >> bit & 1 else -1)
        if bit < N + n:
            return [int(v) for v in G[origin][bit - N]] + [0], 1
        return [0] * n + [1], 1

    def _ray(self, tight, pat, origin, la, j):
        N, n = self.N, self.fan[1].shape[1]
        t = sum(int(w) << (64 * i) for i, w in enumerate(tight))
        current = self.exact.first[la] + j         # constraints before it are the cell's
        rows: list[int] = []
        others: list[int] = []
        for bit in range(N + n + 1):
            if bit < N and bit >= current:
                continue
            (rows if t >> bit & 1 else others).append(bit)
        M = [[Fraction(v) for v in self._constraint(b, pat, origin)[0]] for b in rows]
        y = _null_vector(M, n + 1)
        for b in others:
            row, side = self._constraint(b, pat, origin)
            s = side * _sign(sum(a * v for a, v in zip(row, y)))
            if s != 0:
                return [v * s for v in y]
        raise AssertionError("a ray of a pointed cone lies on every constraint")

    def stop_code(self, cells) -> int:
        if self.should_stop is not None and self.should_stop():
            self.stopped = 1
        elif cells > self.max_cells:
            self.stopped = -1
        elif self.deadline is not None and time.perf_counter() > self.deadline:
            self.stopped = 2
        return self.stopped


def _null_vector(M, d) -> list:
    """A non-zero integer vector y with M y = 0 (M: rows of Fractions, rank d − 1)."""
    M = [row[:] for row in M]
    pivots = []
    r = 0
    for col in range(d):
        p = next((i for i in range(r, len(M)) if M[i][col] != 0), None)
        if p is None:
            continue
        M[r], M[p] = M[p], M[r]
        inv = 1 / M[r][col]
        M[r] = [v * inv for v in M[r]]
        for i in range(len(M)):
            if i != r and M[i][col] != 0:
                f = M[i][col]
                M[i] = [a - f * b for a, b in zip(M[i], M[r])]
        pivots.append(col)
        r += 1
    free = [c for c in range(d) if c not in pivots]
    if len(free) != 1:
        raise AssertionError(f"the tight constraints of a ray have rank {len(pivots)}, not {d - 1}")
    y = [Fraction(0)] * d
    y[free[0]] = Fraction(1)
    for i, col in enumerate(pivots):
        y[col] = -M[i][free[0]]
    den = 1
    for v in y:
        den = den * v.denominator // math.gcd(den, v.denominator)
    return [int(v * den) for v in y]


def _entries(n_in: int | None) -> tuple:
    """The compiled entry points for networks with ``n_in`` inputs (None: both)."""
    return {None: (kern.run2, kern.runnd), 2: (kern.run2,)}.get(n_in, (kern.runnd,))


def engine_ready(n_in: int | None = None) -> bool:
    """True once the compiled loops for networks with ``n_in`` inputs (2, or more; both
    when None) are ready. Never blocks: until then a first enumeration waits for them."""
    return all(entry in _ready for entry in _entries(n_in))


def engine_status(n_in: int) -> str:
    """How this process made the compiled loops for ``n_in`` inputs ready, e.g.
    "loaded from the disk cache in 0.2 s" or "compiled in 9.1 s" (a first run)."""
    (entry,) = _entries(n_in)
    if kern.KERNELS.numba is None:
        return f"not compiled ({kern.KERNELS.why_not}: plain Python, slow)"
    if entry not in kern.PREPARED:
        return "not loaded yet"
    how, seconds = kern.PREPARED[entry]
    return f"{how} in {seconds:.2f} s"


def warm_up(n_in: int | None = None) -> None:
    """Compile the engine's loops for networks with ``n_in`` inputs (both kinds when
    None), or load them from the disk cache: a fraction of a second when cached,
    seconds the first time. Safe from any thread; enumerations call it themselves
    (at no cost once done), so a thread that warms up early saves the first one the wait."""
    for entry in _entries(n_in):
        _make_ready(entry)


#: entry points loaded and run once
_ready: set = set()
_ready_lock = threading.Lock()


def _make_ready(entry, apart: bool = False) -> None:
    """Load or compile ``entry``, then run it once on a tiny network, stopping and
    exact signs included: each object-mode callback inside is built the first time it
    runs, under numba's compiler lock, which a compilation in another thread (the
    other entry point, the training loop) holds for seconds. Built now, a later
    enumeration never waits for it."""
    if entry in _ready:
        return
    with _ready_lock:
        if entry in _ready:
            return
        kern.prepare(entry, apart=apart)
        _ready.add(entry)  # before the runs, which enumerate through _prepare
        if kern.KERNELS.numba is not None:
            n = 2 if entry is kern.run2 else 3
            tiny = MLP([(np.eye(n), np.zeros(n)), (np.ones((1, n)), np.zeros(1))])
            run = count_regions_2d if n == 2 else arrangement_nd
            run(tiny, should_stop=lambda: False)
            (arrangement_2d if n == 2 else arrangement_nd)(tiny, exact_only=True)


_warm_threads: dict = {}
_warm_start_lock = threading.Lock()


def start_warm_up(n_in: int | None = 2) -> None:
    """Warm up for networks with ``n_in`` inputs (None: both kinds) on threads of their
    own and return at once. The threads belong to the process, not to a panel: a
    compilation cannot be interrupted, so nothing waits for one to end, and
    enumerations given a ``should_stop`` wait for it in a way they can stop (a closing
    panel does not hang)."""
    for entry in _entries(n_in):
        with _warm_start_lock:
            thread = _warm_threads.get(entry)
            if entry in _ready or (thread is not None and thread.is_alive()):
                continue
            thread = threading.Thread(target=_make_ready_quietly, args=(entry,), daemon=True,
                                      name="relulab-region-engine")
            _warm_threads[entry] = thread
            thread.start()


def _make_ready_quietly(entry) -> None:
    # below the GUI thread, as the panels' workers run (Linux; elsewhere as it is):
    # a compilation takes a core for seconds
    platform.lower_this_thread(10)
    with contextlib.suppress(Exception):
        _make_ready(entry, apart=True)  # a compilation in a process of its own


def _prepare(entry, should_stop) -> None:
    """Make a compiled entry point ready. With ``should_stop`` the compilation runs on
    a warm-up thread and this waits for it, raising Cancelled when asked to stop;
    without, it compiles here if no other thread is already doing so."""
    if entry in _ready:
        return
    if should_stop is not None:
        start_warm_up(2 if entry is kern.run2 else 3)
        thread = _warm_threads.get(entry)
        while thread is not None and thread.is_alive() and entry not in _ready:
            if should_stop():
                raise Cancelled("preparing the region engine")
            thread.join(0.05)
    _make_ready(entry)  # at once when ready; else here (and any compile error raised here)


def _check_status(status: int, cells: int, max_cells: int, seconds) -> None:
    """Raise what a compiled run's status says: stopped, overflowed, past a limit."""
    if status == 0:
        return
    if status == 1:
        raise Cancelled("region enumeration")
    if status == 3:
        raise ValueError("the weights are too large for exact region enumeration "
                         "(a pre-activation overflows)")
    if status == -1:
        raise RegionLimit(f"more than {max_cells:,} activation regions (the limit): too many "
                          "to enumerate and convert; try a smaller network")
    raise RegionLimit(f"the region enumeration passed its time limit of {seconds or 0:g} s with "
                      f"{cells:,} regions so far; try a smaller network")


def _flat_weights(hidden):
    """The hidden layers' weights and biases end to end, and where each layer starts."""
    if hidden:  # new arrays: contiguous, writable float64, what the compiled loop takes
        Wf = np.concatenate([W.ravel() for W, _ in hidden]).astype(np.float64, copy=False)
        bf = np.concatenate([b for _, b in hidden]).astype(np.float64, copy=False)
    else:
        Wf = bf = np.zeros(0)
    Wo = np.array([0, *itertools.accumulate(W.size for W, _ in hidden)], dtype=np.int64)
    bo = np.array([0, *itertools.accumulate(b.size for _, b in hidden)], dtype=np.int64)
    return Wf, Wo, bf, bo


def unpack_bits(words: np.ndarray, n_bits: int) -> np.ndarray:
    """Bit g of row k (word g // 64, bit g % 64) as a bool array (rows, n_bits)."""
    if n_bits == 0:
        return np.zeros((len(words), 0), dtype=bool)
    b = np.unpackbits(np.ascontiguousarray(words).view(np.uint8).reshape(len(words), -1),
                      axis=1, bitorder="little")
    return b[:, :n_bits].astype(bool)


# ---------------------------------------------------------------------------
# 2-D
# ---------------------------------------------------------------------------
def ranges(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The indices start[i] … start[i] + count[i] − 1 of every i, concatenated."""
    starts = np.asarray(starts, dtype=np.int64)
    counts = np.asarray(counts, dtype=np.int64)
    offsets = np.cumsum(counts) - counts
    return np.arange(int(counts.sum()), dtype=np.int64) - np.repeat(offsets - starts, counts)


@dataclass
class Flat:
    """Every cell's pieces in cell order: piece q belongs to cell ``cell[q]``, has kind
    ``kind[q]`` (2 polygon, 1 segment, 0 point, −1 a cone of rays) and the points
    ``points[start[q] : start[q] + length[q]]`` (homogeneous, w = 0 at infinity)."""

    points: np.ndarray
    start: np.ndarray
    length: np.ndarray
    kind: np.ndarray
    cell: np.ndarray


class _Cells:
    """What both enumerations leave: C cells, their patterns (bits), stored rows and
    ranges of pieces."""

    def __init__(self, C, CP, CS, Cs, Cn, PK, sizes, stats):
        self.n_cells = int(C)
        self._CP, self._CS, self._Cs, self._Cn, self._PK = CP[:C], CS[:C], Cs[:C], Cn[:C], PK
        self.layer_sizes = sizes
        self.stats = stats

    def __len__(self) -> int:
        return self.n_cells

    @cached_property
    def pattern(self) -> np.ndarray:
        """(C, N): neuron g is on in cell k."""
        return unpack_bits(self._CP, sum(self.layer_sizes))

    @cached_property
    def stored(self) -> np.ndarray:
        """(C, N): neuron g's line is a stored constraint of cell k."""
        return unpack_bits(self._CS, sum(self.layer_sizes))


class Arrangement2D(_Cells):
    """The cells of one 2-D enumeration, as the compiled loop left them.

    ``len()`` is the number of regions (cheap); the rest is read out on demand:
    ``pattern``/``stored``, ``full`` (polygons, or segments and points), ``pieces(k)``
    (cell k's pieces as homogeneous vertices (x, y, w), w = 0 at infinity), ``flat``
    (every piece at once) and ``maps`` (the network's affine map on each cell).
    ``readout``: what the compiled pass read out, (MA, Mc, PV, PS, CQ, WX, OK, SR, SO,
    SS) (see ``_kernels_readout``): the maps, and in a box the polygons, on the plane
    the pieces, witnesses and stored rows."""

    def __init__(self, C, CP, CS, CR, Cs, Cn, PK, K, V, VQ, readout, sizes, stats):
        super().__init__(C, CP, CS, Cs, Cn, PK, sizes, stats)
        self._K, self._VX, self._VQ = K, V[:, :3], VQ
        self.readout = readout

    @cached_property
    def full(self) -> np.ndarray:
        """Per cell: full-dimensional (polygons) or not (segments and points)."""
        return self._PK[self._Cs, 2] == kern.POLY

    def pieces(self, k: int) -> list[tuple[int, np.ndarray]]:
        """Cell k's pieces: (kind, homogeneous vertices (m, 3)); kind 2 polygon (in
        counter-clockwise order), 1 segment, 0 point."""
        out = []
        for q in range(self._Cs[k], self._Cs[k] + self._Cn[k]):
            k0, m, kind = self._PK[q]
            out.append((int(kind), self._VX[self._K[k0:k0 + m, 0]]))
        return out

    @cached_property
    def flat(self) -> Flat:
        q = ranges(self._Cs, self._Cn)
        k0, m, kind = self._PK[q].T
        pts = self._VX[self._K[ranges(k0, m), 0]]
        return Flat(pts, np.cumsum(m) - m, m, kind,
                    np.repeat(np.arange(self.n_cells), self._Cn))

    @property
    def maps(self) -> tuple[np.ndarray, np.ndarray]:
        """(A (C, m, 2), c (C, m)): the network is x ↦ A[k] x + c[k] on cell k."""
        return self.readout[0], self.readout[1]


_Vertex = tuple[int, int, tuple[float, float, float]]
_Corner = tuple[_Vertex, int, int, int, int]


def _base_2d(box):
    """Exact base lines, their float rows and the starting pieces (box or plane).

    Pieces: lists of (vertex (l1, l2, point), edge line to the next corner, ι, vinc, einc)."""
    lines: list[tuple[float, float, float]]
    pieces: list[list[_Corner]]
    if box is None:
        lines = [(0, 0, 1), (0, 1, 0), (1, 0, 0)]          # L∞, the x-axis, the y-axis
        O, E1, E2, W1, W2 = ((1, 2, (0, 0, 1)), (1, 0, (1, 0, 0)), (2, 0, (0, 1, 0)),
                             (1, 0, (-1, 0, 0)), (2, 0, (0, -1, 0)))
        X, Y, INF = 1, 2, 0
        pieces = [
            [(O, X, 1, 1, 1), (E1, INF, 1, 0, 0), (E2, Y, 1, 0, 1)],
            [(O, Y, -1, 1, 1), (E2, INF, 1, 0, 0), (W1, X, 1, 0, 1)],
            [(O, X, -1, 1, 1), (W1, INF, 1, 0, 0), (W2, Y, -1, 0, 1)],
            [(O, Y, 1, 1, 1), (W2, INF, 1, 0, 0), (E1, X, -1, 0, 1)],
        ]
        return lines, pieces
    x0, x1, y0, y1 = box
    lines = [(0.0, 0.0, 1.0), (0.0, 1.0, -y0), (1.0, 0.0, -x1), (0.0, 1.0, -y1), (1.0, 0.0, -x0)]
    BL, BR, TR, TL = ((4, 1, (x0, y0, 1.0)), (1, 2, (x1, y0, 1.0)), (2, 3, (x1, y1, 1.0)),
                      (3, 4, (x0, y1, 1.0)))
    pieces = [[(BL, 1, 1, 1, 1), (BR, 2, -1, 1, 1), (TR, 3, -1, 1, 1), (TL, 4, 1, 1, 1)]]
    return lines, pieces


def _exact_row(row) -> tuple:
    ints, _ = as_scaled_integers(np.array(row, dtype=float))
    return tuple(ints)


def check_box(box) -> tuple:
    x0, x1, y0, y1 = (float(v) for v in box)
    if not (np.all(np.isfinite([x0, x1, y0, y1])) and x1 > x0 and y1 > y0):
        raise ValueError(f"box must be (xmin, xmax, ymin, ymax) with min < max, got {box}")
    return x0, x1, y0, y1


def arrangement_2d(net: MLP, box=None, lower: bool = True, should_stop=None,
                   max_regions: int | None = None, max_seconds: float | None = None,
                   exact_only: bool = False) -> Arrangement2D:
    """Enumerate the activation regions of a 2-input ReLU network.

    ``box`` = (xmin, xmax, ymin, ymax): the regions with area inside the box, one
    polygon each; ``None``: all of R², as projective polygons. ``lower``: also the
    lower-dimensional regions (lines and points; whole plane only). ``should_stop``
    is asked after every root cell of a layer (:class:`~relulab.model.core.cancel.Cancelled`);
    ``max_regions``/``max_seconds`` raise :class:`RegionLimit`. ``exact_only``: decide
    every sign with integers (slow; the tests compare it with the filter).
    """
    t0 = time.perf_counter()
    read = kern.READ_REGIONS if box is None else kern.READ_POLYGONS
    out, counters, sizes = _run_2d(net, box, lower, should_stop, max_regions, max_seconds,
                                   exact_only, read)
    _status, C, CP, CS, CR, Cs, Cn, PK, _nP, K, _nK, V, VQ, *_ = out
    stats = {"exact": int(counters[0]), "lps": 0, "seconds": time.perf_counter() - t0}
    return Arrangement2D(C, CP, CS, CR, Cs, Cn, PK, K, V, VQ, out[-1], sizes, stats)


def count_regions_2d(net: MLP, box=None, should_stop=None, max_regions: int | None = None,
                     max_seconds: float | None = None) -> int:
    """The number of activation regions of a 2-input network: with area in ``box``, or
    on all of R² (lower-dimensional ones included) when ``box`` is None. The same
    enumeration as :func:`arrangement_2d`, without reading anything else out."""
    return int(_run_2d(net, box, True, should_stop, max_regions, max_seconds)[0][1])


def _run_2d(net, box, lower, should_stop, max_regions, max_seconds, exact_only=False,
            read=kern.READ_NOTHING):
    if net.activation != "relu":
        raise ValueError("activation regions are defined for ReLU networks, "
                         f"not {net.activation!r}")
    if net.n_in != 2:
        raise ValueError(f"this enumeration needs 2-D input, the network has {net.n_in}")
    hidden = net.layers[:-1]
    W_out, b_out = net.layers[-1]
    Wf, Wo, bf, bo = _flat_weights(hidden)
    # one sum is finite unless a weight is not (or the sum overflows: then look closer)
    if not np.isfinite(Wf.sum() + bf.sum() + W_out.sum() + b_out.sum()) and not net.is_finite():
        raise ValueError("the network has NaN or infinite weights")
    if box is not None:
        box = check_box(box)
        lower = False
    sizes = tuple(W.shape[0] for W, _ in hidden)
    N = sum(sizes)
    max_cells = int(max_regions) if max_regions is not None else _NO_LIMIT
    _prepare(kern.run2, should_stop)     # a first compile does not count against max_seconds
    deadline = time.perf_counter() + max_seconds if max_seconds is not None else None
    base, *start = _start_2d(box)        # templates: the kernel copies them
    run = _Run(hidden, base, should_stop, max_cells, deadline)
    try:
        counters = np.zeros(2, dtype=np.int64)
        check = should_stop is not None or deadline is not None or max_cells != _NO_LIMIT
        out = kern.run2(Wf, Wo, bf, bo, np.array(sizes, dtype=np.int64),
                        np.array(W_out, dtype=np.float64), np.array(b_out, dtype=np.float64),
                        *start,
                        max(1, -(-N // 64)), bool(lower), bool(exact_only), int(read),
                        run.id, check, max_cells, counters)
        if read == kern.READ_POLYGONS and out[0] == 0:
            fix_box_corners(out, run.exact, base)
    finally:
        run.close()
    _check_status(out[0], out[1], max_cells, max_seconds)
    return out, counters, sizes


_NO_LIMIT = np.iinfo(np.int64).max


@lru_cache(maxsize=16)
def _start_2d(box):
    """Exact base lines; the kernel's starting line table, vertices and pieces, each
    exactly as long as its content (each run copies them into arrays with room).

    They stay writable although nothing writes them: the compiled loop is compiled
    for writable arrays only, and a read-only array would compile it a second time."""
    base_rows, pieces = _base_2d(box)
    base = [_exact_row(r) for r in base_rows]
    nb = len(base_rows)
    cap = 256
    LX = np.zeros((cap, 3))
    LE = np.zeros((cap, 3))
    LF = np.zeros(cap, dtype=np.int64)
    LS = np.zeros((cap, 3), dtype=np.int64)
    rows = np.array(base_rows, dtype=float)
    _, k = np.frexp(np.abs(rows).max(axis=1))
    LX[:nb] = np.ldexp(rows, -k[:, None])
    LF[:nb] = kern.LEXACT | np.where(((LX[:nb] != 0) & (np.abs(LX[:nb]) < kern.TINY)).any(axis=1),
                                     kern.LTINY, 0)
    LS[:nb] = np.column_stack([np.full(nb, -1), np.full(nb, -1), np.arange(nb)])
    verts: dict[_Vertex, int] = {}
    for piece in pieces:
        for vx, *_ in piece:
            verts.setdefault(vx, len(verts))
    nv = len(verts)
    V = np.zeros((max(cap, 4 * nv), 6))
    VQ = np.zeros((len(V), 3), dtype=np.int64)
    VI = np.zeros((len(V), 3), dtype=np.int64)
    for (l1, l2, pt), v in verts.items():
        # σ from exact arithmetic so that σ(L₁ × L₂) is a positive multiple of the point
        a, b = base[l1], base[l2]
        cross = (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])
        sg = 1 if sum(float(c) * p for c, p in zip(cross, pt)) > 0 else -1
        p = np.array(pt, dtype=float)
        _, e = np.frexp(np.abs(p).max())
        V[v, :3] = np.ldexp(p, -e)
        tiny = ((V[v, :3] != 0) & (np.abs(V[v, :3]) < kern.TINY)).any()
        VQ[v] = (-1, 0, (kern.FINITE if pt[2] != 0 else 0) | (kern.VTINY if tiny else 0))
        VI[v] = (l1, l2, sg)
    K = np.zeros((cap, 4), dtype=np.int64)
    PK = np.zeros((cap, 3), dtype=np.int64)
    nK = 0
    for q, piece in enumerate(pieces):
        PK[q] = (nK, len(piece), kern.POLY)
        for vx, line, side, vinc, einc in piece:
            K[nK] = (verts[vx], line, side, (kern.VINC if vinc else 0) | (kern.EINC if einc else 0))
            nK += 1
    nP = len(pieces)
    return (base, LX[:nb].copy(), LE[:nb].copy(), LF[:nb].copy(), LS[:nb].copy(), nb,
            V[:nv].copy(), VQ[:nv].copy(), VI[:nv].copy(), nv, K[:nK].copy(), nK,
            PK[:nP].copy(), nP)


# ---------------------------------------------------------------------------
# n-D
# ---------------------------------------------------------------------------
@lru_cache(maxsize=8)
def _fan(n: int):
    """R^n as n + 1 simplicial cones around the origin: cone o is spanned by the
    directions e₁ … eₙ, −(1, …, 1) but the o-th. Returns the directions (n + 1, n)
    and each cone's facet normals G[o] (row k vanishes on every direction but the
    cone's k-th, where it is 1), as integer arrays."""
    dirs = np.vstack([np.eye(n, dtype=np.int64), -np.ones((1, n), dtype=np.int64)])
    G = []
    for o in range(n + 1):
        M = np.delete(dirs, o, axis=0).T              # columns: the cone's directions
        inv = np.linalg.inv(M.astype(float))
        Gi = np.rint(inv).astype(np.int64)             # det ±1: the inverse is integer
        assert np.array_equal(Gi @ M, np.eye(n, dtype=np.int64))
        G.append(Gi)
    return dirs, np.array(G)


class ArrangementND(_Cells):
    """The cells of an n-D enumeration (see :class:`Arrangement2D`): ``len()``,
    ``pattern``, ``stored``, ``full`` and ``flat`` (every cell's cones as homogeneous
    rays (x, w), w = 0 at infinity)."""

    def __init__(self, out, n_in, sizes, stats):
        (_status, C, CP, CS, _CR, CL, Cs, Cn, PK, PO, _nP, KR, KT, _nK, X, _nv, _A) = out
        super().__init__(C, CP, CS, Cs, Cn, PK, sizes, stats)
        self.n_in = n_in
        self._CL, self._KR, self._X = CL[:C], KR, X
        self._KT, self._PO = KT, PO   # corners' tight sets, pieces' starting cones

    @cached_property
    def full(self) -> np.ndarray:
        return self._CL == 0

    @cached_property
    def flat(self) -> Flat:
        q = ranges(self._Cs, self._Cn)
        k0, m = self._PK[q].T
        pts = self._X[self._KR[ranges(k0, m)]]
        return Flat(pts, np.cumsum(m) - m, m, np.full(len(q), -1),
                    np.repeat(np.arange(self.n_cells), self._Cn))


def arrangement_nd(net: MLP, should_stop=None, max_regions: int | None = None,
                   max_seconds: float | None = None, exact_only: bool = False) -> ArrangementND:
    """Every activation region of a ReLU network on all of Rⁿ, lower-dimensional ones
    included, by splitting cones of rays (any n ≥ 1; see the module docstring)."""
    if net.activation != "relu":
        raise ValueError("activation regions are defined for ReLU networks, "
                         f"not {net.activation!r}")
    if not net.is_finite():
        raise ValueError("the network has NaN or infinite weights")
    _prepare(kern.runnd, should_stop)  # a first compile does not count against max_seconds
    t0 = time.perf_counter()
    hidden = net.layers[:-1]
    n = net.n_in
    d = n + 1
    sizes = tuple(W.shape[0] for W, _ in hidden)
    N = sum(sizes)
    MW = max(1, -(-(N + d) // 64))
    dirs, G = _fan(n)
    # rays: the origin, then the n + 1 directions at infinity
    X = np.zeros((256, d))
    X[0, n] = 1.0
    X[1:n + 2, :n] = dirs
    XE = np.zeros_like(X)
    RQ = np.zeros((len(X), 3), dtype=np.int64)
    RQ[:, 0] = -1
    RQ[0, 2] = kern.FINITE
    KR = np.zeros(1024, dtype=np.int64)
    KT = np.zeros((1024, MW), dtype=np.uint64)
    PK = np.zeros((256, 2), dtype=np.int64)
    PO = np.zeros(256, dtype=np.int64)

    def setbit(k, b):
        KT[k, b // 64] |= np.uint64(1) << np.uint64(b % 64)

    nK = 0
    for o in range(n + 1):
        PK[o] = (nK, n + 1)
        PO[o] = o
        KR[nK] = 0
        for f in range(n):
            setbit(nK, N + f)                     # the origin is on every facet
        nK += 1
        for k, dk in enumerate(x for x in range(n + 1) if x != o):
            KR[nK] = 1 + dk
            for f in range(n):
                if f != k:
                    setbit(nK, N + f)
            setbit(nK, N + n)                     # at infinity
            nK += 1
    max_cells = int(max_regions) if max_regions is not None else _NO_LIMIT
    deadline = t0 + max_seconds if max_seconds is not None else None
    run = _Run(hidden, [], should_stop, max_cells, deadline)
    run.fan = (dirs, G)
    run.N = N
    run.ray_cache = {}
    try:
        Wf, Wo, bf, bo = _flat_weights(hidden)
        counters = np.zeros(2, dtype=np.int64)
        check = should_stop is not None or deadline is not None or max_cells != _NO_LIMIT
        out = kern.runnd(Wf, Wo, bf, bo, np.array(sizes, dtype=np.int64), d, KR, KT, PK, PO,
                         n + 1, nK, X, XE, RQ, n + 2, max(1, -(-N // 64)), bool(exact_only), run.id,
                         check, max_cells, counters)
    finally:
        run.close()
    _check_status(out[0], out[1], max_cells, max_seconds)
    stats = {"exact": int(counters[0]), "lps": 0, "seconds": time.perf_counter() - t0}
    return ArrangementND(out, n, sizes, stats)
