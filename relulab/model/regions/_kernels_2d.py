"""The region engine's compiled 2-D loop: a network with two inputs, cells as convex
polygons of the projective plane (see :mod:`relulab.model.regions.arrangement` for
every decision, and ``_kernels_shared`` for the filter's numbers and the flags).
"""

from __future__ import annotations

import numpy as np

from relulab.model.regions._kernels_readout import (
    READ_NOTHING,
    READ_REGIONS,
    _append_rows,
    _readout,
)
from relulab.model.regions._kernels_shared import (
    EINC,
    F1,
    F2,
    FINITE,
    FLOOR,
    I1,
    I2,
    LEXACT,
    LINF,
    LOW,
    LTINY,
    POINT,
    POLY,
    SEG,
    SLACK,
    STOP_WORK,
    TINY,
    U2,
    VINC,
    VTINY,
    U,
    _add_bias,
    _exact_sign,
    _filter,
    _grow1,
    _grow2,
    _grow_cells,
    _halves,
    _has_side,
    _may_underflow,
    _next_maps,
    _off_child,
    _stop,
    _terms,
    b1,
    f8,
    i8,
    njit,
)


# ---------------------------------------------------------------------------
# 2-D: signs and new vertices
#
# Helpers of the hot loops take and return scalars only: a compiled call with array
# arguments costs ~75 ns (reference counting), more than the arithmetic.
# ---------------------------------------------------------------------------
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
    # a product of non-zero numbers may underflow to 0, and its bound with it: FLOOR
    # before any scaling up
    if f0 > 0.0 or _may_underflow(a1, ea1, b2, eb2) or _may_underflow(a2, ea2, b1, eb1):
        f0 += FLOOR
    if f1 > 0.0 or _may_underflow(a2, ea2, b0, eb0) or _may_underflow(a0, ea0, b2, eb2):
        f1 += FLOOR
    if f2 > 0.0 or _may_underflow(a0, ea0, b1, eb1) or _may_underflow(a1, ea1, b0, eb0):
        f2 += FLOOR
    m = max(abs(c0), abs(c1), abs(c2))
    flags = FINITE if La != LINF else 0
    if m > 0.0:
        if not (2.0 ** -64 < m < 2.0 ** 64):
            s1, s2 = _halves(m)
            # scaling down may underflow too
            d0, d1, d2 = c0 * s1 * s2, c1 * s1 * s2, c2 * s1 * s2
            f0 = f0 * s1 * s2 + (FLOOR if f0 > 0.0 or (c0 != 0.0 and abs(d0) < LOW) else 0.0)
            f1 = f1 * s1 * s2 + (FLOOR if f1 > 0.0 or (c1 != 0.0 and abs(d1) < LOW) else 0.0)
            f2 = f2 * s1 * s2 + (FLOOR if f2 > 0.0 or (c2 != 0.0 and abs(d2) < LOW) else 0.0)
            c0, c1, c2 = d0, d1, d2
    else:
        flags |= VTINY  # the float product vanished: only exact arithmetic can say
    f0 *= SLACK
    f1 *= SLACK
    f2 *= SLACK
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
        s1, s2 = _halves(big)
        x0 = x0 * s1 * s2
        x1 = x1 * s1 * s2
        x2 = x2 * s1 * s2
        e0 = e0 * s1 * s2 + FLOOR if e0 > 0.0 else 0.0
        e1 = e1 * s1 * s2 + FLOOR if e1 > 0.0 else 0.0
        e2 = e2 * s1 * s2 + FLOOR if e2 > 0.0 else 0.0
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
                            elif sp != 0 and (K[k, 3] & VINC) and (VQ[K[k, 0], 2] & FINITE):
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


# The entry points release the GIL (a worker enumerating leaves the GUI thread free);
# the object-mode callbacks inside take it back while they run.
@njit((F1, I1, F1, I1, I1, F2, F1,             # Wf Wo bf bo sizes Wout bout
       F2, F2, I1, I2, i8, F2, I2, I2, i8,         # LX0 LE0 LF0 LS0 nL V0 VQ0 VI0 nv
       I2, i8, I2, i8, i8,                         # K0 nK PK0 nP PW
       b1, b1, i8, i8, b1, i8, I1), nogil=True)    # lower exact_only read ctx check max_cells counters
def run2(Wf, Wo, bf, bo, sizes, Wout, bout, LX0, LE0, LF0, LS0, nL, V0, VQ0, VI0, nv,
         K0, nK, PK0, nP, PW, lower, exact_only, read, ctx, check, max_cells, counters):
    """Enumerate the regions of a 2-input network whose hidden layer l has weights
    ``Wf[Wo[l]:Wo[l+1]]`` (row-major, sizes[l] rows) and biases ``bf[bo[l]:bo[l+1]]``
    (output layer Wout, bout), starting from one cell made of pieces 0 … nP − 1
    (corners K0, vertices V0, base lines L*0: exactly nK, nv, nL rows; read, not
    written).

    Layer by layer, each *root* (a cell when the layer starts) is split by the
    layer's neurons one after the other, root after root (its cells stay close in
    memory). A cut cell keeps its index for the on side (z > 0); the off side, and a
    touching lower-dimensional region, are appended. Vertices: V (x, y, w and their
    error bounds), VQ (the last line asked and its sign, flags), VI (the two lines and
    σ). Returns a status (0 done, 3 overflow, else the context's stop code), the
    final state and what ``read`` asks for (``_kernels_readout``)."""
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
    ZL = A                             # the last layer's maps on its roots
    # READ_REGIONS: every layer's maps on its roots and their error bounds, for the
    # stored constraints' rows and the witnesses' proofs
    ZT = np.empty(0)
    ET = np.empty(0)
    ZO = np.zeros(NL, np.int64)        # where layer l's maps start in ZT
    nz = 0
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
        if not _add_bias(Z, EZ, _terms(W, A, EA), b, gam, 3, R):
            return (3, C, CP, CS, CR, Cs, Cn, PK, nP, K, nK, V, VQ, nv, LX, LF, LS, nL, A, LID,
                    KBs, _readout(READ_NOTHING, sizes, Wout, bout, ZL, V, K, PK, Cs, Cn, C,
                                  ZT, ET, ZO, CP, CS, CR))
        ZL = Z
        if read == READ_REGIONS:
            ZO[l] = nz
            ZT = _append_rows(ZT, nz, Z)
            ET = _append_rows(ET, nz, EZ)
            nz += Z.size
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
                    LID, KBs, _readout(READ_NOTHING, sizes, Wout, bout, ZL, V, K, PK, Cs, Cn, C,
                                       ZT, ET, ZO, CP, CS, CR))
        # the next layer's maps on today's cells: h_l = D_l Z(root) (the output maps
        # come from the last layer's Z, in the readout)
        if l + 1 < sizes.shape[0]:
            A, EA = _next_maps(Z, EZ, CP, CR, C, l, g0, n, 3)
        g0 += n
        KB += R * n
    return (0, C, CP, CS, CR, Cs, Cn, PK, nP, K, nK, V, VQ, nv, LX, LF, LS, nL, A, LID, KBs,
            _readout(read, sizes, Wout, bout, ZL, V, K, PK, Cs, Cn, C, ZT, ET, ZO, CP, CS, CR))
