"""Compiled loops of the region engine (:mod:`relulab.model.regions.arrangement`).

Only sign decisions and bookkeeping live here; everything a decision rests on is
explained in the engine's docstring. Lines and points are homogeneous triples:
a line (a₁, a₂, c) is the zero set of a₁x + a₂y + c, a point (x, y, w) is (x/w, y/w)
for w > 0 and the direction (x, y) at infinity for w = 0. Every triple is kept with
an entrywise bound on its distance from the true triple, and scaled by a power of
two (exactly) when its size is extreme, so that products neither overflow nor
underflow.

A sign is certified by the floating-point filter when |z| exceeds the bound on its
error; otherwise ``_exact_sign_cb`` answers it with integers (the engine registers a
context per run in ``CONTEXTS``). The functions are compiled with numba, cached on
disk where there is a place for it (else in memory); without numba they run as
plain Python (``objmode`` then does nothing), correct but very slow.

Compiling them is the expensive part of a first use (seconds; loading them from the
disk cache takes a fraction of one), so each function is compiled for exactly the
argument types declared with it, by :func:`prepare`, and never again: left to infer
types, numba compiles a helper once more for every new combination of argument types
it meets, and literal constants count as types of their own (``f(x, 0)`` and
``f(x, n)`` are two compilations, as are read-only and writable arrays). Callers
pass C-contiguous, writable float64, int64 and uint64 arrays, Python ints and bools.
"""

from __future__ import annotations

import math
import threading
import time

import numpy as np

from relulab.model.core._numba_source import with_absolute_source

try:
    import numba
    from numba import objmode, types

    i8, u8, f8, b1 = types.int64, types.uint64, types.float64, types.boolean
    I1, I2 = i8[::1], i8[:, ::1]
    U1, U2 = u8[::1], u8[:, ::1]
    F1, F2 = f8[::1], f8[:, ::1]
except ImportError:  # pragma: no cover - numba is a dependency; this keeps the engine usable
    import contextlib

    numba = None
    i8 = u8 = f8 = b1 = I1 = I2 = U1 = U2 = F1 = F2 = None

    def objmode(**kwargs):
        return contextlib.nullcontext()

#: every compiled function -> the argument types it is compiled for
COMPILED: dict = {}
#: entry points made ready -> (how: "loaded from the disk cache" or "compiled", seconds)
PREPARED: dict = {}
_prepare_lock = threading.Lock()


def njit(*signatures, nogil: bool = False):
    """Compile the function for each tuple of argument types in ``signatures``, and for
    no others, when :func:`prepare` asks for it (importing this module compiles nothing)."""
    def wrap(fn):
        if numba is None:  # pragma: no cover
            return fn
        fn = with_absolute_source(fn)
        try:
            compiled = numba.njit(cache=True, nogil=nogil)(fn)
        except RuntimeError:  # no place for a disk cache: compile in memory
            compiled = numba.njit(nogil=nogil)(fn)
        _allow_compile(compiled, False)  # only prepare() compiles, for the declared types
        COMPILED[compiled] = signatures
        return compiled
    return wrap


def prepare(entry, apart: bool = False) -> None:
    """Make the compiled function ``entry`` (``run2`` or ``runnd``) ready to call: load
    it from numba's disk cache or else compile it and the functions it calls, each for
    its declared types only (a call with other types is a ``TypeError``, not a new
    compilation). With ``apart``, a compilation runs in a separate process that fills
    the disk cache, and this loads from there (see :mod:`relulab.model.core._compile_apart`):
    for a thread beside a window. Safe from any thread; returns at once when done before."""
    if entry in PREPARED or numba is None:
        return
    with _prepare_lock:
        if entry in PREPARED:
            return
        t0 = time.perf_counter()
        # From the disk cache the entry point comes with the code of everything it
        # calls; loading each helper as well would more than double a warm start.
        how = "loaded from the disk cache"
        if not _load_cached(entry):
            how = "compiled in a separate process"
            if not (apart and disk_cached(entry) and _compile_apart(entry)
                    and _load_cached(entry)):
                how = "compiled"
                for fn in _callees(entry):
                    if not fn.signatures:
                        _compile(fn)
                _compile(entry)
        PREPARED[entry] = (how, time.perf_counter() - t0)


def disk_cached(entry) -> bool:
    """True when numba keeps ``entry`` in its disk cache (False: compiled in memory,
    there being no place for a cache)."""
    from numba.core.caching import NullCache

    return not isinstance(entry._cache, NullCache)


def _compile_apart(entry) -> bool:
    from relulab.model.core._compile_apart import fill_disk_cache

    return fill_disk_cache("regions-2d" if entry is run2 else "regions-nd")


def _compile(fn) -> None:
    _allow_compile(fn, True)
    try:
        for signature in COMPILED[fn]:
            fn.compile(signature)
    finally:
        _allow_compile(fn, False)


def _load_cached(fn) -> bool:
    """Load ``fn`` for its declared types from numba's disk cache, compiling nothing;
    False when it is not there."""
    from relulab.model.core._compile_apart import load_cached

    return load_cached(fn, COMPILED[fn])


def _allow_compile(fn, allowed: bool) -> None:
    # what numba's disable_compile() sets, which refuses a function not compiled yet
    fn._can_compile = allowed


def _callees(fn, seen=None) -> list:
    """The compiled functions that ``fn`` calls, directly or not, callees first."""
    seen = set() if seen is None else seen
    out = []
    for name in fn.py_func.__code__.co_names:
        callee = fn.py_func.__globals__.get(name)
        if callee in COMPILED and callee not in seen:
            seen.add(callee)
            out += [*_callees(callee, seen), callee]
    return out


U = 2.0 ** -53            # unit roundoff
SLACK = 1.0 + 2.0 ** -40  # covers the rounding of the bound's own computation
FLOOR = 1e-300            # covers underflow in a bound (each underflow costs < 1e-323)
TINY = 1e-140             # entries smaller than this (but non-zero) go to exact arithmetic

# corner flags: the vertex belongs to the cell; the edge to the next corner does
VINC = 1
EINC = 2
# piece kinds
POINT, SEG, POLY = 0, 1, 2
# vertex flags
FINITE = 1
VTINY = 2
# line flags
LTINY = 1
LEXACT = 2
# the line at infinity is line 0 of every run
LINF = 0
# cells visited between two questions "stop?" inside one root (about a millisecond)
STOP_WORK = 20000

#: run contexts by id, for the exact fallback and the stop check (see arrangement.py)
CONTEXTS: dict = {}


def _exact_sign_cb(ctx, v, sg, la1, j1, p1, la2, j2, p2, la, j, p):
    return CONTEXTS[ctx].exact_sign(v, sg, (la1, j1, p1), (la2, j2, p2), (la, j, p))


def _stop_cb(ctx, cells):
    return CONTEXTS[ctx].stop_code(cells)


def _exact_sign_nd_cb(ctx, ray, tight, pattern, origin, la, j):
    return CONTEXTS[ctx].exact_sign_nd(ray, tight, pattern, origin, la, j)


# ---------------------------------------------------------------------------
# 2-D: signs and new vertices
#
# Helpers of the hot loops take and return scalars only: a compiled call with array
# arguments costs ~75 ns (reference counting), more than the arithmetic.
# ---------------------------------------------------------------------------
@njit((i8, i8))
def _stop(ctx, cells):
    """The run's stop code (0: go on; see ``_Run.stop_code``). One object-mode block for
    every place that asks: each block is built the first time it runs, under numba's
    compiler lock, and so waits for any compilation in another thread."""
    with objmode(code="int64"):
        code = _stop_cb(ctx, cells)
    return code


@njit((i8, i8, i8, i8, i8, i8, i8, i8, I2, U2))
def _exact_sign(ctx, v, sg, L1, L2, la, r, j, LS, RPAT):
    """The exact sign of z · v for v = sg·(L1 × L2) and z neuron j of layer la on root r
    (rare: the filter could not decide), from the weights. A stored line's source is
    (layer, root, neuron), or (−1, −1, base line) for the box, axes and the line at
    infinity; a root's pattern says which products of weights make its lines."""
    la1, r1, j1 = LS[L1, 0], LS[L1, 1], LS[L1, 2]
    la2, r2, j2 = LS[L2, 0], LS[L2, 1], LS[L2, 2]
    p1 = RPAT[max(r1, 0)]
    p2 = RPAT[max(r2, 0)]
    p = RPAT[max(r, 0)]
    with objmode(out="int64"):
        out = _exact_sign_cb(ctx, v, sg, la1, j1, p1, la2, j2, p2, la, j, p)
    return out


@njit((f8,) * 12)
def _filter(a0, a1, a2, ea0, ea1, ea2, x0, x1, x2, e0, e1, e2):
    """sign(a · x) when the floating-point filter proves it, else 2.

    |a·x − a*·x*| ≤ Σ |aᵢ| eᵢ + eaᵢ (|xᵢ| + eᵢ) for the true a*, x*, plus γ₃ Σ |aᵢ xᵢ| for
    the rounding of the product; a zero bound means every product is exactly zero."""
    p0 = a0 * x0
    p1 = a1 * x1
    p2 = a2 * x2
    z = p0 + p1 + p2
    ab = abs(p0) + abs(p1) + abs(p2)
    err = (abs(a0) * e0 + abs(a1) * e1 + abs(a2) * e2
           + ea0 * (abs(x0) + e0) + ea1 * (abs(x1) + e1) + ea2 * (abs(x2) + e2))
    bound = (err + 4.0 * U * ab) * SLACK
    if bound > 0.0:
        bound += FLOOR
    if z > bound:
        return 1
    if z < -bound:
        return -1
    if bound == 0.0:
        return 0
    return 2


@njit((F2, I2, I2, i8, F2, F2, i8, i8, i8, f8, f8, f8, f8, f8, f8))
def _new_vertex(V, VQ, VI, v, LX, LE, La, Lb, sg, b0, b1, b2, eb0, eb1, eb2):
    """Vertex v := sg·(a × b) for a = line La of the table and b = (b0, b1, b2) (line Lb,
    its bounds eb), scaled by a power of two, with its error bound and flags."""
    a0, a1, a2 = LX[La, 0], LX[La, 1], LX[La, 2]
    ea0, ea1, ea2 = LE[La, 0], LE[La, 1], LE[La, 2]
    p = a1 * b2
    q = a2 * b1
    c0 = p - q
    f0 = (abs(a1) * eb2 + ea1 * (abs(b2) + eb2) + abs(a2) * eb1 + ea2 * (abs(b1) + eb1)
          + 3.0 * U * (abs(p) + abs(q)))
    p = a2 * b0
    q = a0 * b2
    c1 = p - q
    f1 = (abs(a2) * eb0 + ea2 * (abs(b0) + eb0) + abs(a0) * eb2 + ea0 * (abs(b2) + eb2)
          + 3.0 * U * (abs(p) + abs(q)))
    p = a0 * b1
    q = a1 * b0
    c2 = p - q
    f2 = (abs(a0) * eb1 + ea0 * (abs(b1) + eb1) + abs(a1) * eb0 + ea1 * (abs(b0) + eb0)
          + 3.0 * U * (abs(p) + abs(q)))
    m = max(abs(c0), abs(c1), abs(c2))
    flags = FINITE if La != LINF else 0
    if m > 0.0:
        if not (2.0 ** -64 < m < 2.0 ** 64):
            scale = math.ldexp(1.0, -math.frexp(m)[1])
            c0 *= scale
            c1 *= scale
            c2 *= scale
            f0 *= scale
            f1 *= scale
            f2 *= scale
    else:
        flags |= VTINY  # the float product vanished: only exact arithmetic can say
    f0 *= SLACK
    f1 *= SLACK
    f2 *= SLACK
    if f0 > 0.0:
        f0 += FLOOR
    if f1 > 0.0:
        f1 += FLOOR
    if f2 > 0.0:
        f2 += FLOOR
    if (c0 != 0.0 and abs(c0) < TINY) or (c1 != 0.0 and abs(c1) < TINY) or \
            (c2 != 0.0 and abs(c2) < TINY):
        flags |= VTINY
    V[v, 0] = sg * c0
    V[v, 1] = sg * c1
    V[v, 2] = sg * c2
    V[v, 3] = f0
    V[v, 4] = f1
    V[v, 5] = f2
    VQ[v, 0] = -1
    VQ[v, 1] = 0
    VQ[v, 2] = flags
    VI[v, 0] = La
    VI[v, 1] = Lb
    VI[v, 2] = sg


@njit((I2, i8, i8, i8, i8, i8))
def _corner(K, k, v, line, side, flags):
    """Corner k: vertex v, the line of the edge to the next corner, ι, flags."""
    K[k, 0] = v
    K[k, 1] = line
    K[k, 2] = side
    K[k, 3] = flags


@njit((I2, i8, i8, i8, i8))
def _piece(PK, q, start, m, kind):
    """Piece q: corners start … start + m − 1, of a kind (point, segment, polygon)."""
    PK[q, 0] = start
    PK[q, 1] = m
    PK[q, 2] = kind


@njit((i8, f8, f8, f8, b1, I2, F2, I1))
def _duplicate(v, a0, a1, a2, exact, VI, LX, LF):
    """The line (a0, a1, a2), exact, has the same coefficients as one of v's two lines."""
    if not exact:
        return False
    for t in range(2):
        m = VI[v, t]
        if (LF[m] & LEXACT) and LX[m, 0] == a0 and LX[m, 1] == a1 and LX[m, 2] == a2:
            return True
    return False


@njit((f8,) * 6)
def _scaled(x0, x1, x2, e0, e1, e2):
    """A row and its error bound scaled by a power of two when its size is extreme
    (keeps products clear of overflow and underflow); flags TINY and EXACT."""
    big = max(abs(x0), abs(x1), abs(x2))
    if big > 0.0 and not (2.0 ** -64 < big < 2.0 ** 64):
        scale = math.ldexp(1.0, -math.frexp(big)[1])
        x0 *= scale
        x1 *= scale
        x2 *= scale
        e0 = e0 * scale + FLOOR if e0 > 0.0 else 0.0
        e1 = e1 * scale + FLOOR if e1 > 0.0 else 0.0
        e2 = e2 * scale + FLOOR if e2 > 0.0 else 0.0
    flags = 0
    if e0 == 0.0 and e1 == 0.0 and e2 == 0.0:
        flags |= LEXACT
    if (x0 != 0.0 and abs(x0) < TINY) or (x1 != 0.0 and abs(x1) < TINY) or \
            (x2 != 0.0 and abs(x2) < TINY):
        flags |= LTINY
    return x0, x1, x2, e0, e1, e2, flags


# ---------------------------------------------------------------------------
# 2-D: the whole run
# ---------------------------------------------------------------------------
@njit((U2, i8), (I2, i8), (F2, i8))
def _grow2(a, need):
    """A copy of the rows of a with room for at least ``need`` rows (and at least
    twice as many as a has). Loops rather than ``b[:m] = a``: a slice assignment
    compiles numba's shape-mismatch error message, seconds of first-use compilation."""
    b = np.empty((max(need, 2 * a.shape[0]), a.shape[1]), a.dtype)
    flat_a = a.reshape(a.size)
    flat_b = b.reshape(b.size)
    for i in range(a.size):
        flat_b[i] = flat_a[i]
    return b


@njit((I1, i8))
def _grow1(a, need):
    b = np.empty(max(need, 2 * a.shape[0]), a.dtype)
    for i in range(a.shape[0]):
        b[i] = a[i]
    return b


@njit((U2, U2, I2, I1, I1, i8, i8, i8, u8, i8, i8))
def _off_child(CP, CS, CR, Cs, Cn, c, C, word, bit, pstart, nP):
    """Cell C becomes cell c's off side: its pattern without this neuron's bit, its
    stored rows and roots, and the pieces pstart … nP − 1."""
    for w in range(CP.shape[1]):
        CP[C, w] = CP[c, w]
        CS[C, w] = CS[c, w]
    CP[C, word] &= ~bit
    for t in range(CR.shape[1]):
        CR[C, t] = CR[c, t]
    Cs[C] = pstart
    Cn[C] = nP - pstart


@njit((I1, i8, i8, b1))
def _has_side(sgn, t, m, on):
    """Some of the m signs from sgn[t] are > 0 (on) or < 0 (not on)."""
    for j in range(t, t + m):
        if (on and sgn[j] > 0) or (not on and sgn[j] < 0):
            return True
    return False


@njit((I1,                                   # st
       i8, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8,  # l n R g0 KB RB C nP nK nv nL
       F2, F2, U2, U2, I2, I1, I1, I2, I2,         # Z EZ CP CS CR Cs Cn PK K
       F2, I2, I2, F2, F2, I1, I2, I1, U2, I1, I1,  # V VQ VI LX LE LF LS LID RPAT sgn xv
       b1, b1, i8, b1, i8, I1))                   # lower exact_only ctx check max_cells counters
def _split_layer(st, l, n, R, g0, KB, RB, C, nP, nK, nv, nL, Z, EZ,
                 CP, CS, CR, Cs, Cn, PK, K, V, VQ, VI, LX, LE, LF, LS, LID, RPAT, sgn, xv,
                 lower, exact_only, ctx, check, max_cells, counters):
    """Split the roots st[0] … R − 1 of layer l by its n neurons, from neuron st[1] of
    root st[0] on (st[2:8] hold that root's bookkeeping when resuming). Returns
    (status, C, nP, nK, nv, nL): status 0 done, 4 out of room (st[8:14] say how
    much is needed; grow and call again), −1 too many cells, else a stop code."""
    work = 0
    r = st[0]
    i = st[1]
    while r < R:
        if i == 0:
            if check:
                code = _stop(ctx, C)
                if code != 0:
                    return code, C, nP, nK, nv, nL
            st[2] = C                 # the root's cells: r and local … C − 1
            # the root's corners as the layer starts (they stay in the pool): a
            # line with every one of them strictly on one side misses all its cells
            st[3] = PK[Cs[r], 0]
            st[4] = PK[Cs[r] + Cn[r] - 1, 0] + PK[Cs[r] + Cn[r] - 1, 1]
            st[5] = Cn[r]
            st[6] = nK
            st[7] = nP
        local = st[2]
        rk0 = st[3]
        rk1 = st[4]
        rp = st[5]
        nK_root = st[6]
        nP_root = st[7]
        while i < n:
            g = g0 + i
            word = g // 64
            bit = np.uint64(1) << np.uint64(g % 64)
            C0 = C
            # inside a big root (the first layer's is the whole plane) ask again
            # after every few thousand cells visited
            work += C0 - local + 1
            if check and work > STOP_WORK:
                work = 0
                code = _stop(ctx, C)
                if code != 0:
                    return code, C, nP, nK, nv, nL
            # room for the worst case of this step, else back to the caller to grow
            # the arrays (replacing an array inside these loops would cost
            # reference counting at every iteration)
            kspan = nK - nK_root + rk1 - rk0     # the root's cells' corners ≤ this
            pspan = nP - nP_root + rp
            if (C + C0 - local + 1 > CP.shape[0] or nP + 2 * pspan + kspan > PK.shape[0]
                    or nK + 4 * kspan + 2 * pspan > K.shape[0] or nv + kspan > V.shape[0]
                    or nL + 1 > LX.shape[0] or kspan > sgn.shape[0]):
                st[0] = r
                st[1] = i
                st[8] = C + C0 - local + 1
                st[9] = nP + 2 * pspan + kspan
                st[10] = nK + 4 * kspan + 2 * pspan
                st[11] = nv + kspan
                st[12] = nL + 1
                st[13] = kspan
                return 4, C, nP, nK, nv, nL
            key = KB + r * n + i       # names this line in the vertices' sign cache
            a0, a1, a2, ea0, ea1, ea2, lflags = _scaled(
                Z[i, 3 * r], Z[i, 3 * r + 1], Z[i, 3 * r + 2],
                EZ[i, 3 * r], EZ[i, 3 * r + 1], EZ[i, 3 * r + 2])
            ltiny = (lflags & LTINY) != 0 or exact_only
            for idx in range(local - 2, C0):
                if idx < local - 1:          # first the test on the root's corners
                    if local == C0:
                        continue             # the root is still one cell: test that
                    c = -1
                    q0 = q1 = 0
                    k0c = rk0
                    tot = rk1 - rk0
                else:
                    c = r if idx < local else idx
                    q0 = Cs[c]
                    q1 = q0 + Cn[c]
                    k0c = PK[q0, 0]
                    tot = PK[q1 - 1, 0] + PK[q1 - 1, 1] - k0c   # a cell's corners are contiguous
                npos = 0
                nneg = 0
                for t in range(tot):
                    v = K[k0c + t, 0]
                    if VQ[v, 0] == key:
                        s = VQ[v, 1]
                    else:
                        s = 2
                        if not (ltiny or (VQ[v, 2] & VTINY)):
                            s = _filter(a0, a1, a2, ea0, ea1, ea2, V[v, 0], V[v, 1], V[v, 2],
                                        V[v, 3], V[v, 4], V[v, 5])
                        if s == 2 and not exact_only and _duplicate(
                                v, a0, a1, a2, (lflags & LEXACT) != 0, VI, LX, LF):
                            s = 0
                        if s == 2:
                            counters[0] += 1
                            s = _exact_sign(ctx, v, VI[v, 2], VI[v, 0], VI[v, 1], l, RB + r, i,
                                            LS, RPAT)
                        VQ[v, 0] = key
                        VQ[v, 1] = s
                    sgn[t] = s
                    if s > 0:
                        npos += 1
                    elif s < 0:
                        nneg += 1
                if c < 0:
                    if npos == 0:
                        break                # z ≤ 0 on the root: every cell stays, off
                    if npos == tot:          # z > 0 on the root: every cell stays, on
                        CP[r, word] |= bit
                        for cc in range(local, C0):
                            CP[cc, word] |= bit
                        break
                    continue
                if npos == 0:
                    continue                 # z ≤ 0 on the whole cell: it stays, off
                CP[c, word] |= bit
                full = PK[q0, 2] == POLY
                if full and nneg == 0 and not lower:
                    continue                 # z ≥ 0 on the closed cell: it stays, on
                # the line gets a row in the table once it bounds something
                L = LID[key]
                if L < 0:
                    L = nL
                    nL += 1
                    LX[L, 0], LX[L, 1], LX[L, 2] = a0, a1, a2
                    LE[L, 0], LE[L, 1], LE[L, 2] = ea0, ea1, ea2
                    LF[L] = lflags
                    LS[L, 0], LS[L, 1], LS[L, 2] = l, RB + r, i
                    LID[key] = L
                if full and nneg == 0:
                    # z ≥ 0 on the closed cell: it stays, on; the flags of what z = 0
                    # touches drop, and the touching set (what of it is in the cell)
                    # is the off side, a lower-dimensional region
                    pstart = nP
                    t = 0
                    for q in range(q0, q1):
                        k0 = PK[q, 0]
                        mq = PK[q, 1]
                        for jj in range(mq):
                            k = k0 + jj
                            if sgn[t + jj] != 0:
                                continue
                            kn = k0 + (jj + 1) % mq
                            sn = sgn[t + (jj + 1) % mq]
                            sp = sgn[t + (jj + mq - 1) % mq]
                            if sn == 0:
                                if (K[k, 3] & EINC) and K[k, 1] != LINF:
                                    fp = K[k, 3] & VINC if (VQ[K[k, 0], 2] & FINITE) else 0
                                    fq = K[kn, 3] & VINC if (VQ[K[kn, 0], 2] & FINITE) else 0
                                    _corner(K, nK, K[k, 0], K[k, 1], K[k, 2], fp | EINC)
                                    _corner(K, nK + 1, K[kn, 0], -1, 0, fq)
                                    _piece(PK, nP, nK, 2, SEG)
                                    nK += 2
                                    nP += 1
                            elif sp != 0:
                                if (K[k, 3] & VINC) and (VQ[K[k, 0], 2] & FINITE):
                                    _corner(K, nK, K[k, 0], -1, 0, VINC)
                                    _piece(PK, nP, nK, 1, POINT)
                                    nK += 1
                                    nP += 1
                        for jj in range(mq):
                            if sgn[t + jj] == 0:
                                k = k0 + jj
                                K[k, 3] &= ~VINC
                                if sgn[t + (jj + 1) % mq] == 0:
                                    K[k, 3] &= ~EINC
                        t += mq
                    if nP > pstart:
                        CS[c, word] |= bit
                        _off_child(CP, CS, CR, Cs, Cn, c, C, word, bit, pstart, nP)
                        C += 1
                    continue
                if full:
                    # cut: Sutherland–Hodgman on every piece; a crossing is made once
                    # (on pass) as sg·(edge line × L), sg = ι·sign(z at the edge's start)
                    for child in range(2):
                        on = child == 0
                        pstart = nP
                        t = 0
                        for q in range(q0, q1):
                            k0 = PK[q, 0]
                            mq = PK[q, 1]
                            if not _has_side(sgn, t, mq, on):
                                t += mq
                                continue
                            kstart = nK
                            for jj in range(mq):
                                k = k0 + jj
                                s = sgn[t + jj]
                                sn = sgn[t + (jj + 1) % mq]
                                if on and s >= 0:
                                    f = K[k, 3]
                                    if s == 0:
                                        f &= ~VINC
                                        if sn == 0:
                                            f &= ~EINC
                                    if s == 0 and sn < 0:
                                        _corner(K, nK, K[k, 0], L, 1, f & ~EINC)
                                    else:
                                        _corner(K, nK, K[k, 0], K[k, 1], K[k, 2], f)
                                    nK += 1
                                elif not on and s <= 0:
                                    if s == 0 and sn > 0:
                                        _corner(K, nK, K[k, 0], L, -1, K[k, 3] | EINC)
                                    else:
                                        _corner(K, nK, K[k, 0], K[k, 1], K[k, 2], K[k, 3])
                                    nK += 1
                                if (s > 0 and sn < 0) or (s < 0 and sn > 0):
                                    if on:
                                        Le = K[k, 1]
                                        sg = K[k, 2] * s
                                        _new_vertex(V, VQ, VI, nv, LX, LE, Le, L, sg,
                                                    a0, a1, a2, ea0, ea1, ea2)
                                        xv[t + jj] = nv
                                        nv += 1
                                        if s > 0:
                                            _corner(K, nK, nv - 1, L, 1, 0)
                                        else:
                                            _corner(K, nK, nv - 1, Le, K[k, 2], K[k, 3] & EINC)
                                    else:
                                        f = VINC if (K[k, 3] & EINC) else 0
                                        x = xv[t + jj]
                                        if s < 0:
                                            _corner(K, nK, x, L, -1, f | EINC)
                                        else:
                                            _corner(K, nK, x, K[k, 1], K[k, 2], f | (K[k, 3] & EINC))
                                    nK += 1
                            _piece(PK, nP, kstart, nK - kstart, POLY)
                            nP += 1
                            t += mq
                        if on:
                            CS[c, word] |= bit
                            Cs[c] = pstart
                            Cn[c] = nP - pstart
                        else:
                            _off_child(CP, CS, CR, Cs, Cn, c, C, word, bit, pstart, nP)
                            C += 1
                    continue
                # a lower-dimensional cell: segments and points
                has_off = False
                t = 0
                for q in range(q0, q1):
                    k = PK[q, 0]
                    if PK[q, 2] == POINT:
                        has_off |= sgn[t] <= 0
                        t += 1
                    else:
                        sp = sgn[t]
                        sq = sgn[t + 1]
                        has_off |= (sp < 0 or sq < 0 or (sp == 0 and (K[k, 3] & VINC) != 0)
                                    or (sq == 0 and (K[k + 1, 3] & VINC) != 0))
                        t += 2
                for child in range(2):
                    on = child == 0
                    if not on and not has_off:
                        break
                    pstart = nP
                    t = 0
                    for q in range(q0, q1):
                        k = PK[q, 0]
                        if PK[q, 2] == POINT:
                            if (sgn[t] > 0) == on:
                                _corner(K, nK, K[k, 0], -1, 0, K[k, 3])
                                _piece(PK, nP, nK, 1, POINT)
                                nK += 1
                                nP += 1
                            t += 1
                            continue
                        sp = sgn[t]
                        sq = sgn[t + 1]
                        tc = t
                        t += 2
                        fp = K[k, 3]
                        fq = K[k + 1, 3]
                        cross = (sp > 0 and sq < 0) or (sp < 0 and sq > 0)
                        if cross and on:
                            Le = K[k, 1]
                            sg = K[k, 2] * sp
                            _new_vertex(V, VQ, VI, nv, LX, LE, Le, L, sg, a0, a1, a2, ea0, ea1, ea2)
                            xv[tc] = nv
                            nv += 1
                        x = xv[tc]
                        if on:
                            if sp <= 0 and sq <= 0:
                                continue
                            if not cross:            # a touching end leaves the on side
                                if sp == 0:
                                    fp &= ~VINC
                                if sq == 0:
                                    fq &= ~VINC
                                _corner(K, nK, K[k, 0], K[k, 1], K[k, 2], fp)
                                _corner(K, nK + 1, K[k + 1, 0], -1, 0, fq)
                            elif sp > 0:
                                _corner(K, nK, K[k, 0], K[k, 1], K[k, 2], fp)
                                _corner(K, nK + 1, x, -1, 0, 0)
                            else:
                                _corner(K, nK, x, K[k, 1], K[k, 2], EINC)
                                _corner(K, nK + 1, K[k + 1, 0], -1, 0, fq)
                        elif sp <= 0 and sq <= 0:
                            _corner(K, nK, K[k, 0], K[k, 1], K[k, 2], fp)
                            _corner(K, nK + 1, K[k + 1, 0], -1, 0, fq)
                        elif not cross:
                            # only a zero end can be off: a point, if it is in the cell
                            kz = k if sp == 0 else k + 1
                            if (sp if kz == k else sq) != 0 or not (K[kz, 3] & VINC):
                                continue
                            _corner(K, nK, K[kz, 0], -1, 0, VINC)
                            _piece(PK, nP, nK, 1, POINT)
                            nK += 1
                            nP += 1
                            continue
                        elif sp < 0:
                            _corner(K, nK, K[k, 0], K[k, 1], K[k, 2], fp)
                            _corner(K, nK + 1, x, -1, 0, VINC)
                        else:
                            _corner(K, nK, x, K[k, 1], K[k, 2], VINC | EINC)
                            _corner(K, nK + 1, K[k + 1, 0], -1, 0, fq)
                        _piece(PK, nP, nK, 2, SEG)
                        nK += 2
                        nP += 1
                    if on:
                        if has_off:
                            CS[c, word] |= bit
                        Cs[c] = pstart
                        Cn[c] = nP - pstart
                    else:
                        _off_child(CP, CS, CR, Cs, Cn, c, C, word, bit, pstart, nP)
                        C += 1
            i += 1
        if max_cells < C:
            return -1, C, nP, nK, nv, nL
        i = 0
        r += 1
    return 0, C, nP, nK, nv, nL


@njit((F2, F2, F1, f8, i8, i8))
def _add_bias(Z, EZ, b, gam, d, R):
    """Finish every root's maps Z (n, d·R) = W A + b and their bounds: the bias on each
    root's last column, one rounding more, and the slack of the bound's own rounding.
    False when a map overflows."""
    for r in range(R):
        for j in range(Z.shape[0]):
            Z[j, d * r + d - 1] += b[j]
            EZ[j, d * r + d - 1] += gam * abs(b[j])
            for t in range(d):
                if not (abs(Z[j, d * r + t]) < np.inf):
                    return False
                e = EZ[j, d * r + t] * (1.0 + 1e-10)
                EZ[j, d * r + t] = e + FLOOR if e > 0.0 else 0.0
    return True


@njit((U2, U2, I2, I1, I1, i8))
def _grow_cells(CP, CS, CR, Cs, Cn, need):
    return _grow2(CP, need), _grow2(CS, need), _grow2(CR, need), _grow1(Cs, need), _grow1(Cn, need)


@njit((F2, F2, U2, I2, i8, i8, i8, i8, i8))
def _next_maps(Z, EZ, CP, CR, C, l, g0, n, d):
    """h_l = D_l Z(root) on every cell as (n, d·C) maps and their error bounds (row by
    row: the writes run along memory)."""
    A = np.empty((n, d * C))
    EA = np.empty((n, d * C))
    for k in range(n):
        gk = g0 + k
        w = gk // 64
        bit = np.uint64(1) << np.uint64(gk % 64)
        for c in range(C):
            if CP[c, w] & bit:
                r = CR[c, l]
                for t in range(d):
                    A[k, d * c + t] = Z[k, d * r + t]
                    EA[k, d * c + t] = EZ[k, d * r + t]
            else:
                for t in range(d):
                    A[k, d * c + t] = 0.0
                    EA[k, d * c + t] = 0.0
    return A, EA


# The entry points release the GIL (a worker enumerating leaves the GUI thread free);
# the object-mode callbacks inside take it back while they run.
@njit((F1, I1, F1, I1, I1,                     # Wf Wo bf bo sizes
       F2, F2, I1, I2, i8, F2, I2, I2, i8,         # LX0 LE0 LF0 LS0 nL V0 VQ0 VI0 nv
       I2, i8, I2, i8, i8,                         # K0 nK PK0 nP PW
       b1, b1, b1, i8, b1, i8, I1), nogil=True)    # lower exact_only maps ctx check max_cells counters
def run2(Wf, Wo, bf, bo, sizes, LX0, LE0, LF0, LS0, nL, V0, VQ0, VI0, nv,
         K0, nK, PK0, nP, PW, lower, exact_only, maps, ctx, check, max_cells, counters):
    """Enumerate the regions of a 2-input network whose hidden layer l has weights
    ``Wf[Wo[l]:Wo[l+1]]`` (row-major, sizes[l] rows) and biases ``bf[bo[l]:bo[l+1]]``,
    starting from one cell made of pieces 0 … nP − 1 (corners K0, vertices V0, base
    lines L*0: exactly nK, nv, nL rows; read, not written).

    Layer by layer, each *root* (a cell when the layer starts) is split by the
    layer's neurons one after the other, root after root (its cells stay close in
    memory). A cut cell keeps its index for the on side (z > 0); the off side, and a
    touching lower-dimensional region, are appended. Vertices: V (x, y, w and their
    error bounds), VQ (the last line asked and its sign, flags), VI (the two lines and
    σ). Returns a status (0 done, 3 overflow, else the context's stop code) and the
    final state; ``maps``: the last layer's maps A too (else the first layer's)."""
    NL = max(1, sizes.shape[0])
    # the arrays grow (doubling) as the cells come: memory asked for up front but not
    # used costs page faults on every run, more than the few regrowths
    cap = 256
    C = 1
    CP = np.empty((cap, PW), np.uint64)
    CS = np.empty((cap, PW), np.uint64)
    CR = np.empty((cap, NL), np.int64)
    Cs = np.empty(cap, np.int64)        # first piece of the cell
    Cn = np.empty(cap, np.int64)        # number of pieces
    CP[0] = 0
    CS[0] = 0
    CR[0] = 0
    Cs[0] = 0
    Cn[0] = nP
    K = _grow2(K0, 8 * cap)             # the templates' rows, with room
    PK = _grow2(PK0, 3 * cap)
    V = _grow2(V0, 3 * cap)
    VQ = _grow2(VQ0, 3 * cap)
    VI = _grow2(VI0, 3 * cap)
    LX = _grow2(LX0, cap)
    LE = _grow2(LE0, cap)
    LF = _grow1(LF0, cap)
    LS = _grow2(LS0, cap)
    RPAT = np.empty((cap, PW), np.uint64)
    nR = 0
    A = np.zeros((2, 3))
    A[0, 0] = 1.0
    A[1, 1] = 1.0
    EA = np.zeros((2, 3))
    sgn = np.empty(256, np.int64)
    xv = np.empty(256, np.int64)
    LID = np.empty(cap, np.int64)      # line key (layer, root, neuron) → row of the table
    KBs = np.zeros(NL, np.int64)       # each layer's first key
    KB = 0
    g0 = 0
    for l in range(sizes.shape[0]):
        n = sizes[l]
        m = A.shape[0]
        W = Wf[Wo[l]:Wo[l + 1]].reshape((n, m))
        b = bf[bo[l]:bo[l + 1]]
        # the layer's roots: today's cells, and their maps Z = W A + b with error bounds
        # |fl(W A) − W A| ≤ γ_m |W| |A|, one more rounding for + b, |W| EA carried along
        R = C
        if nR + R > RPAT.shape[0]:
            RPAT = _grow2(RPAT, nR + R)
        for r in range(R):
            for w in range(PW):
                RPAT[nR + r, w] = CP[r, w]
            CR[r, l] = r
        RB = nR
        nR += R
        Z = np.dot(W, A)
        gam = (m + 2) * U
        EZ = np.dot(np.abs(W), EA + gam * np.abs(A))
        if not _add_bias(Z, EZ, b, gam, 3, R):
            return 3, C, CP, CS, CR, Cs, Cn, PK, nP, K, nK, V, VQ, nv, LX, LF, LS, nL, A, LID, KBs
        if KB + R * n > LID.shape[0]:
            LID = _grow1(LID, KB + R * n)
        LID[KB:KB + R * n] = -1
        KBs[l] = KB
        st = np.zeros(14, np.int64)
        while True:
            status, C, nP, nK, nv, nL = _split_layer(
                st, l, n, R, g0, KB, RB, C, nP, nK, nv, nL, Z, EZ,
                CP, CS, CR, Cs, Cn, PK, K, V, VQ, VI, LX, LE, LF, LS, LID, RPAT, sgn, xv,
                lower, exact_only, ctx, check, max_cells, counters)
            if status != 4:
                break
            if st[8] > CP.shape[0]:
                CP, CS, CR, Cs, Cn = _grow_cells(CP, CS, CR, Cs, Cn, st[8])
            if st[9] > PK.shape[0]:
                PK = _grow2(PK, st[9])
            if st[10] > K.shape[0]:
                K = _grow2(K, st[10])
            if st[11] > V.shape[0]:
                V = _grow2(V, st[11])
                VQ = _grow2(VQ, st[11])
                VI = _grow2(VI, st[11])
            if st[12] > LX.shape[0]:
                LX = _grow2(LX, st[12])
                LE = _grow2(LE, st[12])
                LF = _grow1(LF, st[12])
                LS = _grow2(LS, st[12])
            if st[13] > sgn.shape[0]:
                sgn = np.empty(2 * st[13], np.int64)
                xv = np.empty(2 * st[13], np.int64)
        if status != 0:
            return (status, C, CP, CS, CR, Cs, Cn, PK, nP, K, nK, V, VQ, nv, LX, LF, LS, nL, A,
                    LID, KBs)
        # the next layer's maps on today's cells: h_l = D_l Z(root) (after the last
        # layer only when asked: the output maps)
        if l + 1 < sizes.shape[0] or maps:
            A, EA = _next_maps(Z, EZ, CP, CR, C, l, g0, n, 3)
        g0 += n
        KB += R * n
    return 0, C, CP, CS, CR, Cs, Cn, PK, nP, K, nK, V, VQ, nv, LX, LF, LS, nL, A, LID, KBs


# ---------------------------------------------------------------------------
# n-D: cells as cones of rays (double description)
#
# A cell's closure is a union of pointed cones in R^{n+1} (homogeneous points
# (x, w), w ≥ 0), each stored as its extreme rays. Every corner (a ray in a piece)
# carries its tight set: bit g when neuron g's pre-activation vanishes there, bit
# N + k when facet k of the piece's starting cone does, bit N + n when w = 0 (a ray
# at infinity). Splitting a cone by z: rays with z > 0, < 0, = 0; two rays p (z > 0),
# q (z < 0) span an edge, and give the new ray z_p q − z_q p, when no third ray's
# tight set contains T(p) ∩ T(q) (the combinatorial adjacency test, exact because
# the tight sets are). A touching face (z ≥ 0 on the cone) is part of the cell
# unless a neuron on in the cell vanishes on all of it, or it lies at infinity.
# ---------------------------------------------------------------------------
@njit((i8, i8, U1, U1, i8, i8, i8))
def _exact_sign_nd(ctx, ray, tight, pattern, origin, la, j):
    with objmode(out="int64"):
        out = _exact_sign_nd_cb(ctx, ray, tight, pattern, origin, la, j)
    return out


@njit((u8,))
def _popcount(x):
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return (x * np.uint64(0x0101010101010101)) >> np.uint64(56)


@njit((I1,                                   # st
       i8, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8,  # l nl R g0 KB d N C nP nK nv
       F2, F2, U2, U2, I2, I1, I1, I1, I2, I1,     # Z EZ CP CS CR CL Cs Cn PK PO
       I1, U2, F2, F2, I2, F2, I1, I1, U1, F2,     # KR KT X XE RQ RZ sgn xv acc tmp
       b1, b1, i8, b1, i8, I1))                   # lower exact_only ctx check max_cells counters
def _split_layer_nd(st, l, nl, R, g0, KB, d, N, C, nP, nK, nv, Z, EZ,
                    CP, CS, CR, CL, Cs, Cn, PK, PO, KR, KT, X, XE, RQ, RZ, sgn, xv, acc, tmp,
                    lower, exact_only, ctx, check, max_cells, counters):
    """Split the roots st[0] … R − 1 of layer l by its nl neurons (see ``_split_layer``
    for the resumption protocol; st[8:13] say how much room is needed). Room for the
    new rays is checked cell by cell (a cut cell with m rays can make m²/4 of them),
    so a return for room may come in the middle of a neuron: st[15] = 1, and the loop
    over cells resumes at cell st[13] of the st[14] there were."""
    PW = CP.shape[1]
    MW = KT.shape[1]
    n = d - 1
    wbit = N + n
    work = 0
    r = st[0]
    i = st[1]
    while r < R:
        if i == 0 and not st[15]:
            if check:
                code = _stop(ctx, C)
                if code != 0:
                    return code, C, nP, nK, nv
            st[2] = C
            st[6] = nK
            st[7] = nP
            st[3] = 0
            for q in range(Cs[r], Cs[r] + Cn[r]):
                st[3] += PK[q, 1]
            st[5] = Cn[r]
        local = st[2]
        nP_root = st[7]
        rp = st[5]
        while i < nl:
            g = g0 + i
            word = g // 64
            bit = np.uint64(1) << np.uint64(g % 64)
            if st[15]:                   # resuming inside this neuron's loop over cells
                C0 = st[14]
                idx0 = st[13]
                st[15] = 0
            else:
                C0 = C
                idx0 = local - 1
                work += C0 - local + 1
                if check and work > STOP_WORK // 8:
                    work = 0
                    code = _stop(ctx, C)
                    if code != 0:
                        return code, C, nP, nK, nv
                pspan = nP - nP_root + rp
                if C + C0 - local + 1 > CP.shape[0] or nP + 2 * pspan + 1 > PK.shape[0]:
                    st[0] = r
                    st[1] = i
                    st[8] = C + C0 - local + 1
                    st[9] = nP + 2 * pspan + 1
                    st[10] = st[11] = st[12] = 0
                    return 4, C, nP, nK, nv
            key = KB + r * nl + i
            # the line, scaled when extreme
            big = 0.0
            for t in range(d):
                big = max(big, abs(Z[i, d * r + t]))
            scale = 1.0
            if big > 0.0 and not (2.0 ** -64 < big < 2.0 ** 64):
                scale = math.ldexp(1.0, -math.frexp(big)[1])
            ltiny = exact_only
            for t in range(d):
                a = Z[i, d * r + t] * scale
                tmp[0, t] = a
                e = EZ[i, d * r + t] * scale
                tmp[1, t] = e + FLOOR if e > 0.0 else 0.0
                if a != 0.0 and abs(a) < TINY:
                    ltiny = True
            for idx in range(idx0, C0):
                c = r if idx < local else idx
                q0 = Cs[c]
                q1 = q0 + Cn[c]
                k0c = PK[q0, 0]
                tot = PK[q1 - 1, 0] + PK[q1 - 1, 1] - k0c
                if tot > sgn.shape[0]:
                    st[0], st[1], st[13], st[14], st[15] = r, i, idx, C0, 1
                    st[8] = st[9] = st[10] = st[11] = 0
                    st[12] = tot
                    return 4, C, nP, nK, nv
                npos = 0
                nneg = 0
                for q in range(q0, q1):
                    for k in range(PK[q, 0], PK[q, 0] + PK[q, 1]):
                        v = KR[k]
                        if RQ[v, 0] != key:
                            # z = a · x and its bound (the 2-D filter, in d coordinates)
                            z = 0.0
                            ab = 0.0
                            err = 0.0
                            for u in range(d):
                                p = tmp[0, u] * X[v, u]
                                z += p
                                ab += abs(p)
                                err += (abs(tmp[0, u]) * XE[v, u]
                                        + tmp[1, u] * (abs(X[v, u]) + XE[v, u]))
                            bound = (err + (d + 1) * U * ab) * SLACK
                            if bound > 0.0:
                                bound += FLOOR
                            s = 2
                            if not (ltiny or (RQ[v, 2] & VTINY)):
                                if z > bound:
                                    s = 1
                                elif z < -bound:
                                    s = -1
                                elif bound == 0.0:
                                    s = 0
                            if s == 2:
                                counters[0] += 1
                                s = _exact_sign_nd(ctx, v, KT[k], CP[c], PO[q], l, i)
                                if s == 0:
                                    z = 0.0
                                    bound = 0.0
                            RQ[v, 0] = key
                            RQ[v, 1] = s
                            RZ[v, 0] = z
                            RZ[v, 1] = bound
                        s = RQ[v, 1]
                        sgn[k - k0c] = s
                        if s > 0:
                            npos += 1
                        elif s < 0:
                            nneg += 1
                if npos == 0:
                    continue                     # z ≤ 0 on the whole cell: off
                # room for this cell's children: ≤ npos·nneg new rays
                nnew = npos * nneg
                if nK + 3 * (tot + nnew) > KR.shape[0] or nv + nnew > X.shape[0] \
                        or nnew > xv.shape[0]:
                    st[0], st[1], st[13], st[14], st[15] = r, i, idx, C0, 1
                    st[8] = st[9] = 0
                    st[10] = nK + 3 * (tot + nnew)
                    st[11] = nv + nnew
                    st[12] = nnew
                    return 4, C, nP, nK, nv
                CP[c, word] |= bit
                if nneg == 0:
                    # z ≥ 0 on the cell: it stays, on; zero rays get bit g; each piece's
                    # touching face is the off side where it belongs to the cell
                    pstart = nP
                    t = 0
                    for q in range(q0, q1):
                        kq = PK[q, 0]
                        mq = PK[q, 1]
                        if lower:
                            # acc = the touching face's tight set: no neuron on in the cell
                            # (but this one, off there) may vanish on it, nor may w
                            nz = 0
                            for jj in range(mq):
                                if sgn[t + jj] == 0:
                                    if nz == 0:
                                        for w in range(MW):
                                            acc[w] = KT[kq + jj, w]
                                    else:
                                        for w in range(MW):
                                            acc[w] &= KT[kq + jj, w]
                                    nz += 1
                            ok = nz > 0
                            if ok:
                                for w in range(PW):
                                    on = CP[c, w]
                                    if w == word:
                                        on &= ~bit
                                    if acc[w] & on:
                                        ok = False
                                if (acc[wbit // 64] >> np.uint64(wbit % 64)) & np.uint64(1):
                                    ok = False
                            if ok:
                                kstart = nK
                                for jj in range(mq):
                                    if sgn[t + jj] == 0:
                                        KR[nK] = KR[kq + jj]
                                        for w in range(MW):
                                            KT[nK, w] = KT[kq + jj, w]
                                        KT[nK, word] |= bit
                                        nK += 1
                                PK[nP, 0] = kstart
                                PK[nP, 1] = nK - kstart
                                PO[nP] = PO[q]
                                nP += 1
                        for jj in range(mq):
                            if sgn[t + jj] == 0:
                                KT[kq + jj, word] |= bit
                        t += mq
                    if nP > pstart:
                        CS[c, word] |= bit
                        _off_child(CP, CS, CR, Cs, Cn, c, C, word, bit, pstart, nP)
                        CL[C] = 1
                        C += 1
                    continue
                # cut: every piece with rays on both sides gets the new rays of its edges
                nnew = 0
                t = 0
                for q in range(q0, q1):
                    kq = PK[q, 0]
                    mq = PK[q, 1]
                    for jp in range(mq):
                        if sgn[t + jp] <= 0:
                            continue
                        for jn in range(mq):
                            if sgn[t + jn] >= 0:
                                continue
                            kp = kq + jp
                            kn = kq + jn
                            cnt = 0
                            for w in range(MW):
                                cnt += np.int64(_popcount(KT[kp, w] & KT[kn, w]))
                            if cnt < n - 1:
                                continue
                            adjacent = True
                            for jt in range(mq):
                                if jt == jp or jt == jn:
                                    continue
                                kt = kq + jt
                                inside = True
                                for w in range(MW):
                                    if (KT[kp, w] & KT[kn, w]) & ~KT[kt, w]:
                                        inside = False
                                        break
                                if inside:
                                    adjacent = False
                                    break
                            if not adjacent:
                                continue
                            # the new ray z_p q − z_q p, its bound and flags
                            vp = KR[kp]
                            vq = KR[kn]
                            zp = RZ[vp, 0]
                            bp = RZ[vp, 1]
                            zq = RZ[vq, 0]
                            bq = RZ[vq, 1]
                            big = 0.0
                            for u in range(d):
                                x = zp * X[vq, u] - zq * X[vp, u]
                                e = (abs(zp) * XE[vq, u] + bp * (abs(X[vq, u]) + XE[vq, u])
                                     + abs(zq) * XE[vp, u] + bq * (abs(X[vp, u]) + XE[vp, u])
                                     + 3.0 * U * (abs(zp * X[vq, u]) + abs(zq * X[vp, u])))
                                X[nv, u] = x
                                XE[nv, u] = e * SLACK
                                big = max(big, abs(x))
                            fl = 0
                            if (RQ[vp, 2] & FINITE) or (RQ[vq, 2] & FINITE):
                                fl |= FINITE
                            if big > 0.0 and not (2.0 ** -64 < big < 2.0 ** 64):
                                sc = math.ldexp(1.0, -math.frexp(big)[1])
                                for u in range(d):
                                    X[nv, u] *= sc
                                    XE[nv, u] *= sc
                            elif big == 0.0:
                                fl |= VTINY
                            for u in range(d):
                                if XE[nv, u] > 0.0:
                                    XE[nv, u] += FLOOR
                                if X[nv, u] != 0.0 and abs(X[nv, u]) < TINY:
                                    fl |= VTINY
                            RQ[nv, 0] = -1
                            RQ[nv, 1] = 0
                            RQ[nv, 2] = fl
                            # the corner: the edge's tight set and z = 0
                            KR[nK + nnew] = nv
                            for w in range(MW):
                                KT[nK + nnew, w] = KT[kp, w] & KT[kn, w]
                            KT[nK + nnew, word] |= bit
                            xv[nnew] = q
                            nnew += 1
                            nv += 1
                    t += mq
                # the new corners sit at nK … nK + nnew − 1 (xv: their piece); the
                # children's pieces follow them
                knew = nK
                nK += nnew
                for child in range(2):
                    on = child == 0
                    pstart = nP
                    t = 0
                    for q in range(q0, q1):
                        kq = PK[q, 0]
                        mq = PK[q, 1]
                        if not _has_side(sgn, t, mq, on):
                            t += mq
                            continue
                        kstart = nK
                        for jj in range(mq):
                            s = sgn[t + jj]
                            if (on and s >= 0) or (not on and s <= 0):
                                KR[nK] = KR[kq + jj]
                                for w in range(MW):
                                    KT[nK, w] = KT[kq + jj, w]
                                if s == 0:
                                    KT[nK, word] |= bit
                                nK += 1
                        for jj in range(nnew):
                            if xv[jj] == q:
                                KR[nK] = KR[knew + jj]
                                for w in range(MW):
                                    KT[nK, w] = KT[knew + jj, w]
                                nK += 1
                        PK[nP, 0] = kstart
                        PK[nP, 1] = nK - kstart
                        PO[nP] = PO[q]
                        nP += 1
                        t += mq
                    if on:
                        CS[c, word] |= bit
                        Cs[c] = pstart
                        Cn[c] = nP - pstart
                    else:
                        _off_child(CP, CS, CR, Cs, Cn, c, C, word, bit, pstart, nP)
                        CL[C] = CL[c]
                        C += 1
            i += 1
        if max_cells < C:
            return -1, C, nP, nK, nv
        i = 0
        r += 1
    return 0, C, nP, nK, nv


@njit((F1, I1, F1, I1, I1, i8,                 # Wf Wo bf bo sizes d
       I1, U2, I2, I1, i8, i8, F2, F2, I2, i8, i8,  # KR KT PK PO nP nK X XE RQ nv PW
       b1, i8, b1, i8, I1), nogil=True)            # exact_only ctx check max_cells counters
def runnd(Wf, Wo, bf, bo, sizes, d, KR, KT, PK, PO, nP, nK, X, XE, RQ, nv, PW,
          exact_only, ctx, check, max_cells, counters):
    """Enumerate the regions of a network with d − 1 inputs on all of R^{d−1},
    starting from one cell made of the pieces 0 … nP − 1 (corners KR/KT, rays X).
    Returns (status, C, CP, CS, CR, CL, Cs, Cn, PK, PO, nP, KR, KT, nK, X, nv, A)."""
    NL = max(1, sizes.shape[0])
    N = 0
    for l in range(sizes.shape[0]):
        N += sizes[l]
    C = 1
    cap = 64
    CP = np.zeros((cap, PW), np.uint64)
    CS = np.zeros((cap, PW), np.uint64)
    CR = np.zeros((cap, NL), np.int64)
    CL = np.zeros(cap, np.int64)
    Cs = np.zeros(cap, np.int64)
    Cn = np.zeros(cap, np.int64)
    Cn[0] = nP
    RZ = np.zeros((X.shape[0], 2))
    A = np.zeros((d - 1, d))
    for t in range(d - 1):
        A[t, t] = 1.0
    EA = np.zeros((d - 1, d))
    sgn = np.empty(64, np.int64)
    xv = np.empty(64, np.int64)
    acc = np.zeros(KT.shape[1], np.uint64)
    tmp = np.zeros((2, d))
    g0 = 0
    KB = 0
    for l in range(sizes.shape[0]):
        n = sizes[l]
        m = A.shape[0]
        W = Wf[Wo[l]:Wo[l + 1]].reshape((n, m))
        b = bf[bo[l]:bo[l + 1]]
        R = C
        for r in range(R):
            CR[r, l] = r
        Z = np.dot(W, A)
        gam = (m + 2) * U
        EZ = np.dot(np.abs(W), EA + gam * np.abs(A))
        if not _add_bias(Z, EZ, b, gam, d, R):
            return 3, C, CP, CS, CR, CL, Cs, Cn, PK, PO, nP, KR, KT, nK, X, nv, A
        st = np.zeros(16, np.int64)
        while True:
            status, C, nP, nK, nv = _split_layer_nd(
                st, l, n, R, g0, KB, d, N, C, nP, nK, nv, Z, EZ,
                CP, CS, CR, CL, Cs, Cn, PK, PO, KR, KT, X, XE, RQ, RZ, sgn, xv, acc, tmp,
                True, exact_only, ctx, check, max_cells, counters)
            if status != 4:
                break
            if st[8] > CP.shape[0]:
                CP, CS, CR, Cs, Cn = _grow_cells(CP, CS, CR, Cs, Cn, st[8])
                CL = _grow1(CL, st[8])
            if st[9] > PK.shape[0]:
                PK = _grow2(PK, st[9])
                PO = _grow1(PO, st[9])
            if st[10] > KR.shape[0]:
                KR = _grow1(KR, st[10])
                KT = _grow2(KT, st[10])
            if st[11] > X.shape[0]:
                X = _grow2(X, st[11])
                XE = _grow2(XE, st[11])
                RQ = _grow2(RQ, st[11])
                RZ = _grow2(RZ, st[11])
            if st[12] > sgn.shape[0]:
                sgn = np.empty(2 * st[12], np.int64)
                xv = np.empty(2 * st[12], np.int64)
        if status != 0:
            return status, C, CP, CS, CR, CL, Cs, Cn, PK, PO, nP, KR, KT, nK, X, nv, A
        A, EA = _next_maps(Z, EZ, CP, CR, C, l, g0, n, d)
        g0 += n
        KB += R * n
    return 0, C, CP, CS, CR, CL, Cs, Cn, PK, PO, nP, KR, KT, nK, X, nv, A


def compile_for_cache(target: str) -> int:
    """In a compiling child (:mod:`relulab.model.core._compile_apart`): compile the
    2-D (``regions-2d``) or n-D engine; 0 when it is in the disk cache, else
    ``NOT_CACHED``."""
    from relulab.model.core._compile_apart import NOT_CACHED

    entry = run2 if target == "regions-2d" else runnd
    prepare(entry)
    return 0 if disk_cached(entry) else NOT_CACHED
