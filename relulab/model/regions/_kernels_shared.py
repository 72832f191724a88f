"""What the region engine's 2-D and n-D loops share: the numbers of the floating-point
filter, the flags, the callbacks into exact arithmetic and the stop check, and the
bookkeeping of growing tables and of the next layer's maps.

Lines and points are homogeneous triples: a line (a₁, a₂, c) is the zero set of
a₁x + a₂y + c, a point (x, y, w) is (x/w, y/w) for w > 0 and the direction (x, y) at
infinity for w = 0. Every triple is kept with an entrywise bound on its distance from
the true triple, and scaled by a power of two (exactly) when its size is extreme, so
that products neither overflow nor underflow. A sign is certified by the
floating-point filter when |z| exceeds the bound on its error; otherwise the exact
callbacks answer it with integers (the engine registers a context per run in
``CONTEXTS``).

Every function here and in ``_kernels_2d`` and ``_kernels_nd`` is declared with
``KERNELS.njit`` and the argument types it is compiled for (see
:mod:`relulab.model.core.compiled`); without numba they run as plain Python
(``objmode`` then does nothing), correct but very slow.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from relulab.model.core.compiled import Kernels, plain_objmode

#: the region engine's compiled functions, one group: an entry point's cached code holds
#: the code of every function it calls, in any of the three files
KERNELS = Kernels()
njit = KERNELS.njit

objmode: Any
if KERNELS.numba is not None:
    objmode = KERNELS.numba.objmode
    _types = KERNELS.numba.types
    i8, u8, f8, b1 = _types.int64, _types.uint64, _types.float64, _types.boolean
    I1, I2 = i8[::1], i8[:, ::1]
    U1, U2 = u8[::1], u8[:, ::1]
    F1, F2 = f8[::1], f8[:, ::1]
else:  # plain Python: the declared types are not used
    objmode = plain_objmode
    i8 = u8 = f8 = b1 = I1 = I2 = U1 = U2 = F1 = F2 = None

U = 2.0 ** -53            # unit roundoff
SLACK = 1.0 + 2.0 ** -40  # covers the rounding of the bound's own computation
FLOOR = 1e-300            # covers underflow in a bound (each underflow costs < 1e-323)
TINY = 1e-140             # entries smaller than this (but non-zero) go to exact arithmetic
LOW = 2.0 ** -960         # products below this may underflow (lose more than u relatively)

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
# The floating-point filter (2-D: lines and points as homogeneous triples)
# ---------------------------------------------------------------------------
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


@njit((f8,))
def _halves(big):
    """Two powers of two whose product scales ``big`` (> 0) into [½, 1), each within
    the doubles' range on its own: a subnormal needs up to 2^1074, beyond the largest
    double, so the scaling is done in two exact steps, x·s₁·s₂."""
    k = -math.frexp(big)[1]
    return math.ldexp(1.0, k // 2), math.ldexp(1.0, k - k // 2)


@njit((f8, f8, f8, f8))
def _may_underflow(a, ea, b, eb):
    """The exact product of a (within ea) and b (within eb) may be non-zero and below
    the normal doubles, where its rounding can lose more than the relative bound says
    (down to 0, and the bound computed from it with it)."""
    return (a != 0.0 or ea > 0.0) and (b != 0.0 or eb > 0.0) and (abs(a) + ea) * (abs(b) + eb) < LOW


@njit((u8,))
def _popcount(x):
    """The number of bits set in x."""
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return (x * np.uint64(0x0101010101010101)) >> np.uint64(56)


# ---------------------------------------------------------------------------
# Exact signs and the stop check: object-mode blocks, one for every place that asks
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


@njit((i8, i8, U1, U1, i8, i8, i8))
def _exact_sign_nd(ctx, ray, tight, pattern, origin, la, j):
    with objmode(out="int64"):
        out = _exact_sign_nd_cb(ctx, ray, tight, pattern, origin, la, j)
    return out


# ---------------------------------------------------------------------------
# Bookkeeping: growing tables, cells, the next layer's maps
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
    side = 1 if on else -1
    found = False
    for j in range(t, t + m):
        if sgn[j] * side > 0:
            found = True
            break
    return found


@njit((F2, F2, F2, F1, f8, i8, i8))
def _add_bias(Z, EZ, NZ, b, gam, d, R):
    """Finish every root's maps Z (n, d·R) = W A + b and their bounds: the bias on each
    root's last column, one rounding more, and the slack of the bound's own rounding.
    NZ counts each entry's terms that are not zero in exact arithmetic (a weight and a
    map entry or its bound both non-zero): such an entry gets FLOOR for what underflow
    can lose even when every computed product, and so its bound, came out 0 (products
    of subnormal weights). False when a map overflows."""
    for r in range(R):
        for j in range(Z.shape[0]):
            Z[j, d * r + d - 1] += b[j]
            EZ[j, d * r + d - 1] += gam * abs(b[j])
            for t in range(d):
                if not (abs(Z[j, d * r + t]) < np.inf):
                    return False
                e = EZ[j, d * r + t] * (1.0 + 1e-10)
                if e > 0.0 or NZ[j, d * r + t] > 0.0 or (t == d - 1 and b[j] != 0.0):
                    e += FLOOR
                EZ[j, d * r + t] = e
    return True


@njit((F2, F2, F2))
def _terms(W, A, EA):
    """How many terms of each entry of W A are not zero in exact arithmetic: a non-zero
    weight times a map entry that is non-zero or not known exactly."""
    return np.dot((W != 0.0).astype(np.float64), ((A != 0.0) | (EA > 0.0)).astype(np.float64))


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
