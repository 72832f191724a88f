"""What the region engine's compiled 2-D pass reads out of its cells at the end, for
the callers' whole arrays: the network's affine map on every cell; in a box every
polygon's vertices; on the plane every region's stored constraints, polygon pieces
and a witness point, with whether floating point proves its pattern.

Nothing here decides a region: the cells, their patterns and which constraints are
stored are the enumeration's (every decision certified there); this copies vertices,
gathers rows of the layers' maps, averages points and checks a witness with a
rigorous error bound, in the same pass and without the interpreter (``run2`` holds
no GIL), instead of a Python loop over the regions. A large array made in a compiled
loop is fresh memory, its pages mapped in again at every run (a millisecond for the
hidden maps of 2,000 cells): the output maps come straight from the last layer's maps
on its roots, never through every cell's hidden maps.
"""

from __future__ import annotations

import math

import numpy as np

from relulab.model.regions._kernels_shared import (
    F1,
    F2,
    FLOOR,
    I1,
    I2,
    POLY,
    SLACK,
    U2,
    U,
    _popcount,
    i8,
    njit,
)

# what run2 reads out after the last layer (its ``read`` argument)
READ_NOTHING = 0    # the count alone
READ_MAPS = 1       # the network's maps on every cell too
READ_POLYGONS = 2   # maps, and in a box every cell's polygon as finite vertices
READ_REGIONS = 3    # maps, and on the plane every region's rows, pieces and witness


@njit((F1, i8, F2))
def _append_rows(ZT, nz, Z):
    """ZT with a layer's maps Z (n, 3·R: neuron i on root r at Z[i, 3r … 3r + 2])
    written from nz on root by root, ZT[nz + 3(r·n + i) …] (the rows a cell reads are
    together); grown (doubling) when short."""
    need = nz + Z.size
    if need > ZT.shape[0]:
        grown = np.empty(max(need, 2 * ZT.shape[0]))
        for t in range(nz):
            grown[t] = ZT[t]
        ZT = grown
    n = Z.shape[0]
    for r in range(Z.shape[1] // 3):
        for i in range(n):
            k = nz + 3 * (r * n + i)
            ZT[k] = Z[i, 3 * r]
            ZT[k + 1] = Z[i, 3 * r + 1]
            ZT[k + 2] = Z[i, 3 * r + 2]
    return ZT


@njit((F2, U2, I2, i8, I1, F2, F1))
def _output_maps(ZL, CP, CR, C, sizes, Wout, bout):
    """The network on every cell, x ↦ MA[k] x + Mc[k]: W_out D_L Z_L(root) + b_out, with
    ZL the last hidden layer's maps on its roots (n, 3·R) and D_L the cell's pattern
    on that layer (no hidden layer: ZL is the identity, one cell)."""
    L = sizes.shape[0]
    n = ZL.shape[0]
    m = Wout.shape[0]
    g0 = 0
    for l in range(L - 1):
        g0 += sizes[l]
    MA = np.empty((C, m, 2))
    Mc = np.empty((C, m))
    for c in range(C):
        r = CR[c, L - 1] if L > 0 else 0
        for o in range(m):
            s0 = 0.0
            s1 = 0.0
            s2 = 0.0
            for k in range(n):
                g = g0 + k
                if L > 0 and not CP[c, g // 64] & (np.uint64(1) << np.uint64(g % 64)):
                    continue
                w = Wout[o, k]
                s0 += w * ZL[k, 3 * r]
                s1 += w * ZL[k, 3 * r + 1]
                s2 += w * ZL[k, 3 * r + 2]
            MA[c, o, 0] = s0
            MA[c, o, 1] = s1
            Mc[c, o] = s2 + bout[o]
    return MA, Mc


@njit((I1, F1, F1, I1, F2, U2, I2, i8))
def _certify(sizes, ZT, ET, ZO, X, CP, CR, C):
    """Whether floating point proves that point X[k] has cell k's pattern. Layer by
    layer: once the neurons before layer l are proven to have the cell's pattern at x,
    layer l's pre-activations at x are its maps on the cell's root of that layer
    (ZT, computed with the entrywise error bounds ET) applied to (x, y, 1), and the
    filter proves each sign from those bounds (``_filter`` for an exact point): z > 0
    for the neurons on in the cell, z < 0 for the others (as
    ``activation.certified_patterns`` demands: |z| above the bound). Stops at the
    first neuron it cannot prove."""
    OK = np.empty(C, np.bool_)
    for c in range(C):
        x = X[c, 0]
        y = X[c, 1]
        ax = abs(x)
        ay = abs(y)
        ok = True
        g = 0
        for l in range(sizes.shape[0]):
            n = sizes[l]
            base = ZO[l] + 3 * n * CR[c, l]
            for i in range(n):
                k = base + 3 * i
                p0 = ZT[k] * x
                p1 = ZT[k + 1] * y
                a2 = ZT[k + 2]
                z = p0 + p1 + a2
                bound = (ET[k] * ax + ET[k + 1] * ay + ET[k + 2]
                         + 4.0 * U * (abs(p0) + abs(p1) + abs(a2))) * SLACK
                if bound > 0.0:
                    bound += FLOOR
                on = CP[c, g // 64] & (np.uint64(1) << np.uint64(g % 64))
                ok = z > bound if on else z < -bound
                if not ok:
                    break
                g += 1
            if not ok:
                break
        OK[c] = ok
    return OK


@njit((F2, I2, I2, I1, i8))
def _box_polygons(V, K, PK, Cs, C):
    """In a box every cell is one polygon (piece Cs[k]): its vertices (x/w, y/w) in
    counter-clockwise order, cell after cell, as rows PS[k] … PS[k + 1] − 1 of PV."""
    PS = np.empty(C + 1, np.int64)
    T = 0
    for c in range(C):
        PS[c] = T
        T += PK[Cs[c], 1]
    PS[C] = T
    PV = np.empty((T, 2))
    t = 0
    for c in range(C):
        k0 = PK[Cs[c], 0]
        for j in range(PK[Cs[c], 1]):
            v = K[k0 + j, 0]
            if V[v, 2] != 0.0:
                PV[t, 0] = V[v, 0] / V[v, 2]
                PV[t, 1] = V[v, 1] / V[v, 2]
            else:  # w vanished in floats: the exact corner is filled in afterwards
                PV[t, 0] = np.nan
                PV[t, 1] = np.nan
            t += 1
    return PV, PS


@njit((F2, I2, I2, I1, I1, i8))
def _plane_pieces(V, K, PK, Cs, Cn, C):
    """On the plane: the polygon pieces of every cell as homogeneous vertices (x, y, w),
    piece q's rows PS[q] … PS[q + 1] − 1 of PP and cell k's pieces CQ[k] … CQ[k + 1] − 1;
    and a point of every cell, WX: the mean of its pieces' inner points (each piece's:
    the mean of its finite points, and of its points at infinity as directions scaled
    to 1 + the largest finite coordinate), weighted by their finite points."""
    Q = 0
    T = 0
    for c in range(C):
        for q in range(Cs[c], Cs[c] + Cn[c]):
            if PK[q, 2] == POLY:
                Q += 1
                T += PK[q, 1]
    PP = np.empty((T, 3))
    PS = np.empty(Q + 1, np.int64)
    CQ = np.empty(C + 1, np.int64)
    WX = np.zeros((C, 2))
    t = 0
    p = 0
    for c in range(C):
        CQ[c] = p
        sx = 0.0
        sy = 0.0
        sw = 0.0
        for q in range(Cs[c], Cs[c] + Cn[c]):
            k0 = PK[q, 0]
            m = PK[q, 1]
            size = 0.0
            for j in range(m):
                v = K[k0 + j, 0]
                w = V[v, 2]
                if w > 0.0:
                    size = max(size, abs(V[v, 0] / w), abs(V[v, 1] / w))
            size += 1.0
            tx = 0.0
            ty = 0.0
            finite = 0
            for j in range(m):
                v = K[k0 + j, 0]
                x = V[v, 0]
                y = V[v, 1]
                w = V[v, 2]
                if w > 0.0:
                    tx += x / w
                    ty += y / w
                    finite += 1
                elif x != 0.0 or y != 0.0:
                    s = size / max(abs(x), abs(y))
                    tx += x * s
                    ty += y * s
                # else a vertex whose float coordinates all vanished (products below
                # the doubles): no position here; the witness is then made exactly
            sx += tx / m
            sy += ty / m
            sw += finite / m
            if PK[q, 2] == POLY:
                PS[p] = t
                for j in range(m):
                    v = K[k0 + j, 0]
                    PP[t, 0] = V[v, 0]
                    PP[t, 1] = V[v, 1]
                    PP[t, 2] = V[v, 2]
                    t += 1
                p += 1
        if sw > 0.0:
            WX[c, 0] = sx / sw
            WX[c, 1] = sy / sw
    PS[Q] = T
    CQ[C] = Q
    return PP, PS, CQ, WX


@njit((I1, F1, I1, U2, U2, I2, i8))
def _stored_rows(sizes, ZT, ZO, CP, CS, CR, C):
    """Every cell's stored constraints, in the order of the neurons: the row of neuron g
    (layer l, i-th) is the map of its layer on the cell's root of that layer (see
    ``_append_rows``), divided by the length of its normal (a zero normal: kept as
    computed). Cells with one root share the row, bit for bit (one line seen from
    both sides is one constraint). Returns SR (S, 3), SO (S,) (the neuron is on in
    the cell) and SS: cell k's rows are SS[k] … SS[k + 1] − 1."""
    NL = sizes.shape[0]
    N = 0
    for l in range(NL):
        N += sizes[l]
    layer = np.empty(N, np.int64)
    index = np.empty(N, np.int64)
    g = 0
    for l in range(NL):
        for i in range(sizes[l]):
            layer[g] = l
            index[g] = i
            g += 1
    SS = np.empty(C + 1, np.int64)
    S = np.int64(0)
    for c in range(C):
        SS[c] = S
        for w in range(CS.shape[1]):
            S += np.int64(_popcount(CS[c, w]))
    SS[C] = S
    SR = np.empty((S, 3))
    SO = np.empty(S, np.bool_)
    s = 0
    one = np.uint64(1)
    for c in range(C):
        for w in range(CS.shape[1]):
            bits = CS[c, w]
            while bits:
                low = bits & (~bits + one)          # the lowest bit set
                bits ^= low
                b = 64 * w + np.int64(_popcount(low - one))   # the neuron
                l = layer[b]
                k = ZO[l] + 3 * (sizes[l] * CR[c, l] + index[b])
                # the length scaled by the larger entry first: squares of rows past
                # about 1e154 overflow, and a row divided by inf would become zeros
                top = max(abs(ZT[k]), abs(ZT[k + 1]))
                if top == 0.0:
                    norm = 1.0
                else:
                    a, b = ZT[k] / top, ZT[k + 1] / top
                    norm = top * math.sqrt(a * a + b * b)
                SR[s, 0] = ZT[k] / norm
                SR[s, 1] = ZT[k + 1] / norm
                SR[s, 2] = ZT[k + 2] / norm
                SO[s] = (CP[c, w] & low) != 0
                s += 1
    return SR, SO, SS


@njit((i8, I1, F2, F1, F2,                           # read sizes Wout bout ZL
       F2, I2, I2, I1, I1, i8, F1, F1, I1, U2, U2, I2))  # V K PK Cs Cn C ZT ET ZO CP CS CR
def _readout(read, sizes, Wout, bout, ZL, V, K, PK, Cs, Cn, C, ZT, ET, ZO, CP, CS, CR):
    """What ``read`` asks for, as (MA, Mc, PV, PS, CQ, WX, OK, SR, SO, SS) (see
    ``_output_maps``, ``_box_polygons``, ``_plane_pieces``, ``_certify`` and
    ``_stored_rows``); arrays not asked for are empty. In a box (READ_POLYGONS) PV
    holds finite vertices (T, 2) and PS indexes cells; on the plane (READ_REGIONS) PV
    holds the polygon pieces' homogeneous vertices (T, 3), and OK[k] says that
    WX[k] is proven to lie in cell k."""
    MA = np.empty((0, Wout.shape[0], 2))
    Mc = np.empty((0, Wout.shape[0]))
    PV = np.empty((0, 2))
    PS = np.empty(0, np.int64)
    CQ = np.empty(0, np.int64)
    WX = np.empty((0, 2))
    OK = np.empty(0, np.bool_)
    SR = np.empty((0, 3))
    SO = np.empty(0, np.bool_)
    SS = np.empty(0, np.int64)
    if read != READ_NOTHING:
        MA, Mc = _output_maps(ZL, CP, CR, C, sizes, Wout, bout)
    if read == READ_POLYGONS:
        PV, PS = _box_polygons(V, K, PK, Cs, C)
    elif read == READ_REGIONS:
        PV, PS, CQ, WX = _plane_pieces(V, K, PK, Cs, Cn, C)
        OK = _certify(sizes, ZT, ET, ZO, WX, CP, CR, C)
        SR, SO, SS = _stored_rows(sizes, ZT, ZO, CP, CS, CR, C)
    return MA, Mc, PV, PS, CQ, WX, OK, SR, SO, SS
