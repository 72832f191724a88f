"""The region engine's compiled n-D loop: a network with any number of inputs, cells as
cones of rays (see :mod:`relulab.model.regions.arrangement` for every decision, and
``_kernels_shared`` for the filter's numbers and the flags).

A cell's closure is a union of pointed cones in R^{n+1} (homogeneous points
(x, w), w ≥ 0), each stored as its extreme rays. Every corner (a ray in a piece)
carries its tight set: bit g when neuron g's pre-activation vanishes there, bit
N + k when facet k of the piece's starting cone does, bit N + n when w = 0 (a ray
at infinity). Splitting a cone by z: rays with z > 0, < 0, = 0; two rays p (z > 0),
q (z < 0) span an edge, and give the new ray z_p q − z_q p, when no third ray's
tight set contains T(p) ∩ T(q) (the combinatorial adjacency test, exact because
the tight sets are). A touching face (z ≥ 0 on the cone) is part of the cell
unless a neuron on in the cell vanishes on all of it, or it lies at infinity.
"""

from __future__ import annotations

import numpy as np

from relulab.model.regions._kernels_shared import (
    F1,
    F2,
    FINITE,
    FLOOR,
    I1,
    I2,
    LOW,
    SLACK,
    STOP_WORK,
    TINY,
    U1,
    U2,
    VTINY,
    U,
    _add_bias,
    _exact_sign_nd,
    _grow1,
    _grow2,
    _grow_cells,
    _halves,
    _has_side,
    _may_underflow,
    _next_maps,
    _off_child,
    _popcount,
    _stop,
    _terms,
    b1,
    i8,
    njit,
)


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
            s1 = s2 = 1.0
            if big > 0.0 and not (2.0 ** -64 < big < 2.0 ** 64):
                s1, s2 = _halves(big)
            ltiny = exact_only
            for t in range(d):
                a = Z[i, d * r + t] * s1 * s2
                tmp[0, t] = a
                e = EZ[i, d * r + t] * s1 * s2
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
                            cnt = np.int64(0)
                            for w in range(MW):
                                cnt += np.int64(_popcount(KT[kp, w] & KT[kn, w]))
                            if cnt < n - 1:
                                continue
                            adjacent = True
                            for jt in range(mq):
                                if jt in (jp, jn):
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
                                # a product of non-zero numbers may underflow to 0, and
                                # its bound with it: FLOOR before any scaling up
                                if e > 0.0 or _may_underflow(zp, bp, X[vq, u], XE[vq, u]) \
                                        or _may_underflow(zq, bq, X[vp, u], XE[vp, u]):
                                    e += FLOOR
                                X[nv, u] = x
                                XE[nv, u] = e * SLACK
                                big = max(big, abs(x))
                            fl = 0
                            if (RQ[vp, 2] & FINITE) or (RQ[vq, 2] & FINITE):
                                fl |= FINITE
                            if big > 0.0 and not (2.0 ** -64 < big < 2.0 ** 64):
                                s1, s2 = _halves(big)
                                for u in range(d):
                                    x = X[nv, u]
                                    X[nv, u] = x * s1 * s2
                                    XE[nv, u] = XE[nv, u] * s1 * s2
                                    # scaling down may underflow too
                                    if XE[nv, u] > 0.0 or (x != 0.0 and abs(X[nv, u]) < LOW):
                                        XE[nv, u] += FLOOR
                            elif big == 0.0:
                                fl |= VTINY
                            for u in range(d):
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
        if not _add_bias(Z, EZ, _terms(W, A, EA), b, gam, d, R):
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
