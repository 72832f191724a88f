"""Knots carried through the layers with every decision certified.

Every decision that changes a count (the sign of a pre-activation at a knot, the
order of two roots in one piece, whether a slope changes) is certified: the doubles
carry an error bound (or a proof that they are exact, for networks whose numbers sit
on a coarse binary lattice, such as the tent map). When a bound cannot decide,
:class:`_Uncertain` is raised and :func:`relulab.model.pieces.piecewise.line_pieces`
recomputes the whole line in exact rational arithmetic
(:func:`relulab.model.networks.exact.exact_line`). No tolerance depends on the
input's units. The knots themselves move as in :mod:`.knots`.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from relulab.model.networks.exact import U, gamma
from relulab.model.networks.mlp import MLP
from relulab.model.pieces.knots import (
    _SMALL,
    Stopped,
    TooManyKnots,
    _crossings,
    _crossings_small,
    _interpolate,
    _new_flags,
    _new_positions,
    _old_piece,
    _ray_roots,
    _repeat_index,
    _slopes_on,
    _values_on_ray,
)

CERTIFIED_FLOAT = "certified: floating point with error bounds"
CERTIFIED_LATTICE = "certified: every floating-point operation exact"


class _Uncertain(Exception):
    """A decision that the floating-point filter could not certify."""


#: Long arrays are checked in blocks of this many entries (memory stays flat).
_BLOCK = 1 << 20


def _lattice(a: np.ndarray) -> int:
    """The smallest e with a·2^e integral everywhere (about −1000 for all zeros).

    a = M·2^(E−53) with |M| < 2^53 (frexp); the lowest set bit of M times 2^E is
    the finest power of two that divides the entry."""
    a = np.asarray(a, dtype=float).ravel()
    if a.size == 0:
        return -1100
    if a.size > _BLOCK:
        return max(_lattice(a[k:k + _BLOCK]) for k in range(0, a.size, _BLOCK))
    m, E = np.frexp(a)
    M = (m * 2.0 ** 53).astype(np.int64)
    M |= np.int64(1) << np.int64(62)  # zeros: a huge lowest bit, so they never decide
    M &= -M
    finest = float(np.ldexp(M.astype(float), E).min())  # lowest bit · 2^E = 2^(53 − e)
    return 53 - (int(np.frexp(finest)[1]) - 1)


def _fits(bound: float, e: int) -> bool:
    """Integers of magnitude bound·2^e stay below 2^53, so sums and products of
    numbers on the lattice 2^−e Z are exact in doubles (which hold no finer lattice
    than 2^−1074)."""
    return bound == 0 or (np.isfinite(bound) and np.log2(bound) + e < 52.5 and e <= 1074)


class _State:
    """Knots T, values H at the knots, slopes D on the pieces, region flags, and
    what is known about their accuracy: error bounds ET, EH, ED (None = exact), and
    for exact states the binary lattices eT, eH, eD the numbers live on."""

    __slots__ = (
        "D",
        "Dd",
        "ED",
        "EH",
        "ET",
        "H",
        "T",
        "eD",
        "eH",
        "eT",
        "exact_layers",
        "flags",
    )

    # H and D are let go (deleted) as soon as a layer has read them: at depth 24 they
    # hold near 2 GB
    T: np.ndarray
    H: np.ndarray
    D: np.ndarray
    flags: np.ndarray
    ET: np.ndarray | None
    EH: np.ndarray | None
    ED: np.ndarray | None
    Dd: np.ndarray | None
    eT: int | None
    eH: int | None
    eD: int | None
    exact_layers: int

    def __init__(self) -> None:
        self.T, self.H, self.D = np.zeros(1), np.zeros((1, 1)), np.ones((1, 2))
        self.flags = np.zeros(1, dtype=bool)
        self.ET = self.EH = self.ED = None
        self.eT = self.eH = self.eD = 0
        self.exact_layers = 0
        # Dd[i, k]: may the exact slope of unit i differ across knot k? (False proves
        # equal: a neuron whose every consumer is off bends nothing downstream)
        self.Dd = None

    def slope_changes(self) -> np.ndarray:
        if self.Dd is None:  # exact slopes: compare them directly
            self.Dd = self.D[:, 1:] != self.D[:, :-1]
        return self.Dd

    @property
    def is_exact(self) -> bool:
        return self.ET is None and self.EH is None and self.ED is None

    def lattices(self) -> tuple[int, int, int]:
        """eT, eH, eD of an exact state (every one is known there)."""
        assert self.eT is not None and self.eH is not None and self.eD is not None
        return self.eT, self.eH, self.eD

    def errors(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        z = np.zeros
        return (z(self.T.shape) if self.ET is None else self.ET,
                z(self.H.shape) if self.EH is None else self.EH,
                z(self.D.shape) if self.ED is None else self.ED)


def _affine_bounded(W, H, b, EH):
    """W H + b and a bound on its distance to the exact W h + b, given |H − h| ≤ EH:
    |W| EH + γ_{n+1}(|W| |H| + |b|) (Higham, Accuracy and Stability, §3.5)."""
    Z = W @ H
    if b is not None:
        Z += b[:, None]
    g = gamma(W.shape[1] + 1)
    A = np.abs(W)
    E = A @ (EH + g * np.abs(H))
    if b is not None:
        E += g * np.abs(b)[:, None]
    # a product of two non-zero doubles may underflow: each adds at most 2^−1074
    nonzero_W, nonzero_H = A[A > 0], np.abs(H[H != 0])
    if nonzero_W.size and nonzero_H.size and nonzero_W.min() * nonzero_H.min() < 2.0 ** -960:
        E += 2.0 ** -1073 * ((A > 0).astype(float) @ (H != 0).astype(float))
    return Z, E


def _certify_signs(Z, EZ):
    if EZ is None:
        return
    ok = (np.abs(Z) > EZ) | ((Z == 0) & (EZ == 0))
    if not ok.all():
        raise _Uncertain("the sign of a pre-activation at a knot")


def _lattice_products_exact(pairs) -> bool:
    """Each (max|x|, e_x, max|y|, e_y): the product of two numbers on their lattices
    stays an integer below 2^53 at the combined lattice."""
    return all(_fits(ax * ay, ex + ey) for ax, ex, ay, ey in pairs)


def _layer_certified(st: _State, W: np.ndarray, b: np.ndarray, off_slope) -> None:
    """One hidden layer h ↦ φ(W h + b) with every decision certified (in place).

    First, if everything so far is exact, try to prove this layer exact too: the
    inputs live on binary lattices and every sum, product and root stays an integer
    below 2^53 on its lattice (so rounding never happens; the tent map at peak ½
    and integer networks stay here). Otherwise carry error bounds and raise
    _Uncertain when one cannot decide a sign or an order."""
    T, H, D, flags = st.T, st.H, st.D, st.flags
    del st.H, st.D  # hold no arrays that are no longer needed (depth 24 is near 2 GB)
    n = W.shape[0]
    exact = st.is_exact and off_slope in (0.0, None)
    EZ: np.ndarray | None
    EDz: np.ndarray | None
    if exact:
        eT0, eH0, eD0 = st.lattices()
        eW, eb = _lattice(W), _lattice(b)
        eZ = max(eW + eH0, eb)
        eDz = eW + eD0
        maxH = np.maximum(H.max(axis=1), -H.min(axis=1))
        maxD = np.maximum(D.max(axis=1), -D.min(axis=1))
        A = np.abs(W)
        exact = (_fits(float((A @ maxH + np.abs(b)).max()) * 2, eZ)
                 and _fits(float((A @ maxD).max()), eDz)
                 and _fits(max(float(T.max()), -float(T.min())) * 2, eT0))
    if exact:
        Z = W @ H
        Z += b[:, None]
        Dz = W @ D
        EZ = EDz = None
        ET = None
        inputs = (H, D)  # kept only until the roots are proven exact
    else:
        st.H, st.D = H, D
        ET, EH, ED = st.errors()
        Dd = _spread_changes(W, st.slope_changes())
        del st.H, st.D
        st.Dd = None
        Z, EZ = _affine_bounded(W, H, b, EH)
        Dz, EDz = _affine_bounded(W, D, None, ED)
        del EH, ED
    del H, D
    m = T.size
    if off_slope is None:  # identity: no new knots, no change of slope, no sign to decide
        st.H, st.D, st.EH, st.ED = Z, Dz, EZ, EDz
        st.Dd = None if exact else Dd
        if exact:
            st.eH, st.eD = eZ, eDz
        return
    if not exact:
        _certify_signs(Z, EZ)
    # the rays: their slopes' signs decide whether a neuron crosses out there
    for col in (0, m):
        if EDz is not None:
            _certify_signs(Dz[:, col], EDz[:, col])
    i, lam, r, counts = (_crossings_small if Z.size <= _SMALL else _crossings)(Z, T)
    ni = i.size
    # which neuron each root belongs to (np.repeat would hold the GIL: _repeat_index)
    crossing = np.flatnonzero(counts)
    who = (crossing.astype(np.int16 if n < 2 ** 15 else np.int64)[_repeat_index(counts[crossing])]
           if ni else np.zeros(0, dtype=np.int16 if n < 2 ** 15 else np.int64))
    # Neurons with the same weights differ by a constant, b_k − b_j: at the root of j
    # neuron k is exactly that (when the difference is a double), with no rounding.
    same = _parallel_offsets(W, b)
    all_known = same is not None and bool(same[1].all())
    if all_known:  # every neuron's value at every root is known exactly (the tent)
        Zr = same[0][:, who]
        exact_at_root = None
    else:
        if exact:  # row by row: long rows (a deep fold) stay cache-friendly
            Zr = _interpolate(Z, i, lam)
        else:
            Zr = Z[:, i]
            Zr += lam * (Z[:, i + 1] - Zr)
        Zr[who, np.arange(ni)] = 0.0
        exact_at_root = None if same is None and not exact else np.zeros(Zr.shape, dtype=bool)
        if exact_at_root is not None:
            exact_at_root[who, np.arange(ni)] = True
        if same is not None and ni:
            assert exact_at_root is not None  # made above whenever same is
            offsets, known = same
            for k in range(n):
                hit = known[k, who]
                if hit.any():
                    Zr[k, hit] = offsets[k, who[hit]]
                    exact_at_root[k, hit] = True
    jl, rl = _ray_roots(Z[:, 0], Dz[:, 0], T[0], left=True)
    jr, rr = _ray_roots(Z[:, -1], Dz[:, -1], T[-1], left=False)
    Zl = _values_on_ray(Z[:, 0], Dz[:, 0], T[0], rl, jl)
    Zrr = _values_on_ray(Z[:, -1], Dz[:, -1], T[-1], rr, jr)
    if exact:
        exact = _roots_exact(T, Z, i, r, who, Zr, eT0, eZ, exact_at_root)
        if exact:
            exact = _ray_roots_exact(T, Z, Dz, jl, rl, Zl, jr, rr, Zrr)
        if not exact:  # not provably exact after all: redo this layer with bounds
            del Z, Dz, Zr, Zl, Zrr
            st.H, st.D = inputs
            st.ET, st.eT = np.zeros(T.shape), None
            _layer_certified(st, W, b, off_slope)
            return
        del inputs
        eT = max(eT0, _lattice(r), _lattice(rl), _lattice(rr))
        eH = max(eZ, _lattice(same[0] if all_known else Zr), _lattice(Zl), _lattice(Zrr))
        EZr = EZl = EZrr = ETr = ETl = ETrr = None
    else:
        assert ET is not None and EZ is not None and EDz is not None  # bounds, not exact
        ETr, EZr = _root_bounds(T, ET, Z, EZ, i, lam, r, who, Zr)
        if all_known:
            EZr[:] = 0.0
        elif exact_at_root is not None:
            EZr[exact_at_root] = 0.0
        ETl, EZl = _ray_bounds(T[0], ET[0], Z[:, 0], EZ[:, 0], Dz[:, 0], EDz[:, 0], jl, rl, Zl)
        ETrr, EZrr = _ray_bounds(T[-1], ET[-1], Z[:, -1], EZ[:, -1], Dz[:, -1], EDz[:, -1],
                                 jr, rr, Zrr)
        _certify_signs(Zr, EZr)
        _certify_signs(Zl, EZl)
        _certify_signs(Zrr, EZrr)
        # two roots in one piece, or two on a ray, must be told apart
        if ni:
            order = np.lexsort((r, i))
            one_piece = i[order][1:] == i[order][:-1]
            gap = np.diff(r[order])
            if np.any(one_piece & (gap <= ETr[order][1:] + ETr[order][:-1])):
                raise _Uncertain("the order of two roots in one piece")
        for rays, er in ((rl, ETl), (rr, ETrr)):
            if rays.size > 1 and np.any(np.diff(rays) <= er[1:] + er[:-1]):
                raise _Uncertain("the order of two roots on a ray")
    nl, nr = rl.size, rr.size
    if nl + nr + ni:
        total = m + nl + nr + ni
        per_interval, old_pos, root_pos = _new_positions(i, r, m, nl)
        del i

        def spread(old, ray_l, mid, ray_r, rows=None):
            """Old values at old_pos, new ones at the roots (None = exact zeros)."""
            if rows is None:
                out = np.empty(total)
                out[:nl] = ray_l
                out[old_pos] = old
                out[root_pos] = mid
                out[total - nr:] = ray_r
                return out
            out = np.empty((rows, total))
            out[:, :nl] = ray_l
            out[:, total - nr:] = ray_r
            for o2, o, md in zip(out, old, mid):
                o2[old_pos] = o
                o2[root_pos] = md
            return out

        T = spread(T, rl, r, rr)
        del r
        if ET is not None:
            ET = spread(ET, ETl, ETr, ETrr)
        Z = spread(Z, Zl, Zr, Zrr, n)
        del Zr
        if not exact:  # a new root splits a piece: the same slopes on both sides
            Dd2 = np.zeros((n, total), dtype=bool)
            Dd2[:, old_pos] = Dd
            Dd = Dd2
            del Dd2
        if EZ is not None:
            EZ = spread(EZ, EZl, EZr, EZrr, n)
        flags = _new_flags(flags, old_pos, total)
        del old_pos, root_pos
        piece_of = _old_piece(per_interval, m, nl, nr)
        del per_interval
        Dz = _slopes_on(Dz, piece_of)
        if EDz is not None:
            EDz = EDz[:, piece_of]
        del piece_of
        if exact:
            # exact roots that coincide (two neurons crossing at one point) are one
            # knot; the piece between them has no width and goes
            gaps = np.diff(T)
            if gaps.size and gaps.min() == 0:
                keep = np.concatenate([[True], gaps != 0])
                flags = np.logical_or.reduceat(flags, np.flatnonzero(keep))
                T, Z = T[keep], Z[:, keep]
                Dz = Dz[:, np.concatenate([keep, [True]])]
    else:
        del Zr
    on, flags = _pattern(T, Z, Dz, flags)
    if not exact:
        Dd = _changes_after_activation(Dd, on, Dz, EDz, off_slope)
    if off_slope == 0.0:
        if EZ is not None:
            EZ[Z <= 0] = 0.0
        np.maximum(Z, 0.0, out=Z)
        Dz *= on
        if EDz is not None:
            EDz *= on
    else:
        negative = Z <= 0
        Z = np.where(negative, off_slope * Z, Z)
        if EZ is not None:
            EZ = np.where(negative, off_slope * EZ + U * np.abs(Z), EZ)
        scale = np.where(on, 1.0, off_slope)
        Dz *= scale
        if EDz is not None:
            EDz = EDz * scale + np.where(on, 0.0, U * np.abs(Dz))
    st.T, st.H, st.D, st.flags = T, Z, Dz, flags
    st.ET, st.EH, st.ED = ET, EZ, EDz
    st.Dd = None if exact else Dd
    if exact:
        st.eT, st.eH, st.eD = eT, eH, eDz
        st.exact_layers += 1
    else:
        st.eT = st.eH = st.eD = None


def _spread_changes(W, Dd):
    """Units of the next layer whose slope may change across each knot: those fed by
    a unit whose slope may change, through a non-zero weight."""
    return (np.abs(W) > 0).astype(float) @ Dd.astype(float) > 0


def _changes_after_activation(Dd, on, Dz, EDz, off_slope):
    """Slope changes after the activation: a neuron on (or off) on both sides keeps
    its pre-activation's; one that switches changes unless its slope on the on side
    is exactly zero."""
    left, right = on[:, :-1], on[:, 1:]
    switched = left != right
    out = Dd & (left | (off_slope != 0.0)) & ~switched
    if switched.any():
        side = np.where(left, Dz[:, :-1], Dz[:, 1:])
        eside = np.where(left, EDz[:, :-1], EDz[:, 1:])
        out |= switched & ~((side == 0) & (eside == 0))
    return out


def _pattern(T, Z, Dz, flags):
    """Which neurons are on in each piece, and the knots where the pattern changes.

    z keeps one sign on a piece, so the sum of its two end values has that sign
    (both 0: z ≡ 0 there, off). On a ray the sign is that of z far out, i.e. of its
    slope (or of z when flat). A knot is a region boundary when the pattern changes
    across it or at it (a neuron that only touches zero there makes the knot a
    region of its own)."""
    n = Z.shape[0]
    m = T.size
    on = np.empty((n, m + 1), dtype=bool)
    on[:, 0] = np.where(Dz[:, 0] != 0, Dz[:, 0] < 0, Z[:, 0] > 0)
    on[:, m] = np.where(Dz[:, m] != 0, Dz[:, m] > 0, Z[:, -1] > 0)
    if Z.size <= _SMALL:
        on[:, 1:m] = (Z[:, :-1] + Z[:, 1:]) > 0
        at = Z > 0
        flags |= ((on[:, :-1] != on[:, 1:]) | (at != on[:, :-1]) | (at != on[:, 1:])).any(axis=0)
        return on, flags
    both_ends = np.empty(max(m - 1, 0))
    for o, z in zip(on, Z):
        np.add(z[:-1], z[1:], out=both_ends)
        np.greater(both_ends, 0.0, out=o[1:m])
    del both_ends
    for o, z in zip(on, Z):
        at = z > 0
        changed = o[:-1] != o[1:]
        changed |= at != o[:-1]
        changed |= at != o[1:]
        flags |= changed
    return on, flags


_PROBE = np.random.default_rng(12).uniform(0.5, 1.5, 4096)


def _parallel_offsets(W, b):
    """For neurons k, j with identical weight rows: offsets[k, j] = b_k − b_j and
    known[k, j] True when that difference is exactly a double (and on the diagonal,
    where the offset is 0). None when no two neurons share their weights."""
    n = W.shape[0]
    # distinct projections prove distinct rows (cheaper than comparing every pair)
    if n < 2 or np.unique(W @ _PROBE[:W.shape[1]] if W.shape[1] <= _PROBE.size else
                          W.sum(axis=1)).size == n:
        return None
    equal = np.all(W[:, None, :] == W[None, :, :], axis=2)
    np.fill_diagonal(equal, False)
    if not equal.any():
        return None
    offsets = b[:, None] - b[None, :]
    known = np.eye(n, dtype=bool)  # a neuron is exactly 0 at its own root
    for k, j in zip(*np.nonzero(equal)):
        # a difference past ±1.8e308 is ±inf: not a double, so not known
        known[k, j] = bool(np.isfinite(offsets[k, j])) and (
            Fraction(float(b[k])) - Fraction(float(b[j])) == Fraction(float(offsets[k, j])))
    return offsets, known


def _roots_exact(T, Z, i, r, who, Zr, eT, eZ, exact_at_root) -> bool:
    """Whether every interpolated root and every value there is exactly right (in
    blocks of roots, so that the checks' temporaries stay small)."""
    if i.size == 0:
        return True
    maxT = max(float(T.max()), -float(T.min()))
    maxZ = max(float(Z.max()), -float(Z.min()))
    for k in range(0, i.size, _BLOCK):
        part = slice(k, k + _BLOCK)
        if not _roots_exact_block(T, Z, i[part], r[part], who[part], Zr[:, part], eT, eZ,
                                  None if exact_at_root is None else exact_at_root[:, part],
                                  maxT, maxZ):
            return False
    return True


def _roots_exact_block(T, Z, i, r, who, Zr, eT, eZ, exact_at_root, maxT, maxZ) -> bool:
    """Whether every interpolated root and every value there is exactly right.

    The exact root τ of neuron j between knots a and b satisfies
    (τ − T_a)(z_a − z_b) = z_a (T_b − T_a); on the lattices both sides are computed
    without rounding, so comparing them in doubles decides it exactly. Likewise the
    value v of neuron k there: (v − z_ka)(z_a − z_b) = z_a (z_kb − z_ka)."""
    if i.size == 0:
        return True
    er = _lattice(r)
    ev = -1100 if exact_at_root is None else _lattice(Zr[~exact_at_root])
    eTr, eV = max(er, eT), max(ev, eZ)
    maxT = max(maxT, float(np.abs(r).max()))
    maxV = max(maxZ, float(np.abs(Zr).max())) if exact_at_root is not None else maxZ
    if not (_fits(2 * maxT, eTr) and _fits(2 * maxZ, eZ) and _fits(2 * maxV, eV)):
        return False
    za, zb = Z[who, i], Z[who, i + 1]
    dz = za - zb
    Ta, Tb = T[i], T[i + 1]
    left = r - Ta
    dT = Tb - Ta
    maxdz = float(np.abs(dz).max())
    if not _lattice_products_exact([(float(np.abs(left).max()), eTr, maxdz, eZ),
                                    (float(np.abs(za).max()), eZ, float(np.abs(dT).max()), eT)]):
        return False
    if not np.array_equal(left * dz, za * dT):
        return False
    if exact_at_root is None:
        return True
    for zk, vk, known in zip(Z, Zr, exact_at_root):
        if known.all():
            continue
        ka, kb = zk[i], zk[i + 1]
        dv, dk = vk - ka, kb - ka
        if not _lattice_products_exact([(float(np.abs(dv).max()), eV, maxdz, eZ),
                                        (float(np.abs(za).max()), eZ, float(np.abs(dk).max()),
                                         eZ)]):
            return False
        if not np.array_equal((dv * dz)[~known], (za * dk)[~known]):
            return False
    return True


def _ray_roots_exact(T, Z, Dz, jl, rl, Zl, jr, rr, Zrr) -> bool:
    """The few roots on the rays, checked with exact rationals."""
    from fractions import Fraction as F

    for j, rts, vals, end, col in ((jl, rl, Zl, 0, 0), (jr, rr, Zrr, -1, -1)):
        t0 = F(float(T[end]))
        for k, (jj, t) in enumerate(zip(j, rts)):
            tau = t0 - F(float(Z[jj, end])) / F(float(Dz[jj, col]))
            if F(float(t)) != tau:
                return False
            for q in range(Z.shape[0]):
                v = F(float(Z[q, end])) + F(float(Dz[q, col])) * (tau - t0)
                if F(float(vals[q, k])) != v:
                    return False
    return True


def _root_bounds(T, ET, Z, EZ, i, lam, r, who, Zr):
    """Error bounds of interpolated roots and of every neuron's value there.

    λ = z_a / (z_a − z_b) with |z_a|, |z_b| known to within EZ: |λ̂ − λ| ≤
    (EZ_a + EZ_b) / (|z_a − z_b| − EZ_a − EZ_b) + 4u; the root moves by that times
    the piece's width, plus the knots' own errors and the rounding of r."""
    if i.size == 0:
        return np.zeros(0), np.zeros((Z.shape[0], 0))
    za, zb = Z[who, i], Z[who, i + 1]
    ea, eb = EZ[who, i], EZ[who, i + 1]
    width = np.abs(za - zb)
    slack = width - ea - eb
    if np.any(slack <= 0):
        raise _Uncertain("a root between two knots")
    elam = (ea + eb) / slack * (1 + 4 * U) + 4 * U
    dT = T[i + 1] - T[i]
    ETa, ETb = ET[i], ET[i + 1]
    ETr = (np.maximum(ETa, ETb) + elam * (dT + ETa + ETb) + 4 * U * (dT + np.abs(r))) * (1 + 8 * U)
    A, B = Z[:, i], Z[:, i + 1]
    EA, EB = EZ[:, i], EZ[:, i + 1]
    EZr = np.maximum(EA, EB)
    EZr += elam * (np.abs(B - A) + EA + EB)
    EZr += 4 * U * (np.abs(A) + np.abs(B))
    EZr *= 1 + 8 * U
    EZr[who, np.arange(i.size)] = 0.0  # the crossing neuron is exactly 0 at its root
    return ETr, EZr


def _ray_bounds(t0, et0, z0, ez0, d, ed, j, roots, vals):
    """Error bounds of the roots on one ray, t = t0 − z/d, and of the values there."""
    if roots.size == 0:
        return np.zeros(0), np.zeros((z0.size, 0))
    z, ez, dj, edj = z0[j], ez0[j], d[j], ed[j]
    rel_d = edj / np.abs(dj)
    if np.any(rel_d >= 1):
        raise _Uncertain("a slope on a ray")
    q = np.abs(z / dj)
    eq = q * ((ez / np.abs(z) + rel_d) / (1 - rel_d) + 4 * U)
    ET = (et0 + eq + 2 * U * np.abs(roots)) * (1 + 8 * U)
    dist = np.abs(roots - t0)
    E = (ez0[:, None] + ed[:, None] * (dist + ET + et0) + np.abs(d)[:, None] * (ET + et0)
         + 4 * U * (np.abs(z0)[:, None] + np.abs(d)[:, None] * dist)) * (1 + 8 * U)
    E[j, np.arange(roots.size)] = 0.0
    return ET, E


def _output_certified(st: _State, W: np.ndarray, b: np.ndarray):
    """Values y at the knots, slopes dy on the pieces and their error bounds (None =
    exact) for every output."""
    if st.is_exact:
        eW, eb = _lattice(W), _lattice(b)
        _, eH, eD = st.lattices()
        eY = max(eW + eH, eb)
        A = np.abs(W)
        maxH = np.abs(st.H).max(axis=1)
        maxD = np.abs(st.D).max(axis=1)
        if (_fits(float((A @ maxH + np.abs(b)).max()) * 2, eY)
                and _fits(float((A @ maxD).max()) * 2, eW + eD)):
            y = W @ st.H
            y += b[:, None]
            return y, W @ st.D, None, None
    _, EH, ED = st.errors()
    y, Ey = _affine_bounded(W, st.H, b, EH)
    dy, Edy = _affine_bounded(W, st.D, None, ED)
    return y, dy, Ey, Edy


def _certified_pieces(net: MLP, off_slope, max_knots, should_stop):
    """The knots and outputs of ``net``, every decision certified, or _Uncertain."""
    st = _State()
    for layer, (W, b) in enumerate(net.layers[:-1], start=1):
        if should_stop is not None and should_stop():
            raise Stopped(f"stopped before layer {layer}")
        _layer_certified(st, W, b, off_slope)
        if max_knots is not None and st.T.size > max_knots:
            raise TooManyKnots(f"more than {max_knots:,} knots after layer {layer} "
                               f"({st.T.size:,})")
        if not (np.all(np.isfinite(st.H)) and np.all(np.isfinite(st.D))
                and np.all(np.isfinite(st.T))):
            raise _Uncertain("values beyond the range of doubles")
    W, b = net.layers[-1]
    y, dy, Ey, Edy = _output_certified(st, W, b)
    changes = None if Edy is None else _spread_changes(W, st.slope_changes())
    del st.H, st.D
    st.EH = st.ED = st.Dd = None
    if not (np.all(np.isfinite(y)) and np.all(np.isfinite(dy))):
        raise _Uncertain("outputs beyond the range of doubles")
    jump = dy[:, 1:] - dy[:, :-1]
    if Edy is None:
        Ejump = None
        is_kink = jump != 0
    else:
        assert changes is not None  # computed above whenever Edy is
        Ejump = (Edy[:, 1:] + Edy[:, :-1]) * (1 + 2 * U) + 2 * U * np.abs(jump)
        jump[~changes] = 0.0  # proven equal slopes: exactly no kink
        Ejump[~changes] = 0.0
        _certify_signs(jump, Ejump)
        is_kink = np.abs(jump) > Ejump
    ET = st.ET
    certificate = CERTIFIED_LATTICE if Edy is None and ET is None else CERTIFIED_FLOAT
    return (st.T, ET, st.flags, y, dy, jump, is_kink, certificate, Ejump,
            None if Edy is None else Edy[:, [0, -1]], Ey)
