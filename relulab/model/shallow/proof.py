"""The proof that a three-hidden-layer shallow network equals its deep network, region
by region, with no point sampled (docs/deep-to-shallow.md, "The converter's check").

The shallow network is read from its weights, not assumed: its ±∞ detectors and
region units must have the construction's form, and then, in exact arithmetic, it is
x ↦ Â_r x + ĉ_r on the set Q_r where region unit r's detectors all hold. Against the
certified regions P_r of the deep network (where it is A_r x + c_r) four things are
checked:

1. every Q_r is cut out by exactly the stored constraints of P_r, rounded (the same
   doubles, the same senses);
2. those constraints form a tree of splits in which both sides of every split use one
   functional, bit for bit, so the Q_r partition Rⁿ whatever the rounding of the
   functionals (every x lies in exactly one);
3. each stored constraint is within τ of the neuron's exact pre-activation on P_r:
   |n̂ − λ z| ≤ τ λ M_g,r for some λ > 0, τ = ROUNDING·(L + 2)·(n + 2)·u;
4. each shallow map is within τ of the exact deep one: |Â_r − A_r| ≤ τ M_A,r,
   |ĉ_r − c_r| ≤ τ M_c,r.

Every magnitude is the region's own (:func:`magnitude_rows`): the network with |W|,
|b| along r's pattern, a neuron off in r passing nothing, as rows on (|x|, 1); M_r(x)
= M_A,r |x| + M_c,r, and M_g,r(x) for neuron g. These bound the terms summed when the
network is evaluated in r, so a line far away (a bias of 1e20 on a neuron off in r)
does not loosen r's tolerance.

From 2 and 3, where x's regions differ (x ∈ P_s ∩ Q_r, r ≠ s) the paths of r and s in
the tree part at a split whose stored functional and s's exact neuron disagree in sign
at x, so that neuron's pre-activation is within τ·M_g,s(x) of zero. Hence, at every x
where no neuron is that close to switching, x ∈ P_r ∩ Q_r and by 4

    |shallow(x) − deep(x)| ≤ τ·M_r(x).

Nearer a switching surface the ±∞ rows follow the rounded boundary, and the shallow
network may take a neighbouring region's map: no double-valued construction can put
its boundaries exactly on the deep network's (their coefficients are products of
weights, with more digits than a double holds); the result says so.

Checks 3 and 4 are decided by a floating-point filter (the exact rows and maps lie
within a rigorous error bound of the ones computed in doubles: Higham's γ bounds
propagated layer by layer) and, where it cannot decide, in exact rationals from the
weights (integers over powers of two). Small networks are checked in rationals
throughout, which also says whether the two networks are exactly equal everywhere.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from relulab.model.core.cancel import check
from relulab.model.core.rows import count_nonzero, unique_rows
from relulab.model.networks.exact import as_scaled_integers, gamma
from relulab.model.networks.mlp import MLP
from relulab.model.shallow.verify import ROUNDING

U = 2.0 ** -53
#: Up to this many regions × neurons every region is also checked in rationals (a few
#: milliseconds each), so that exact equality can be stated.
EXACT_ALL = 500
TINY = 2.0 ** -1074


class NotProven(Exception):
    """What stops the proof, in one line."""


@dataclass(frozen=True)
class RegionProof:
    """The outcome of :func:`prove`.

    ``proven``: deep and shallow agree within ``tau``·M_r(x) wherever no neuron's
    pre-activation is within ``tau``·M_g,r(x) of zero, r the region of x (see the
    module docstring);
    ``reason`` says why not otherwise. ``map_ratio`` and ``row_ratio``: the largest
    certified |difference| / allowed of the maps and of the constraint rows (≤ 1 when
    proven). ``exact_regions``: regions whose check was made in rationals; ``exact``:
    the maps are equal and every stored constraint is exactly a positive multiple of
    its neuron's, so the shallow network equals the deep one on all of Rⁿ."""

    proven: bool
    reason: str
    regions: int
    constraints: int = 0
    tau: float = 0.0
    map_ratio: float = np.nan
    row_ratio: float = np.nan
    exact_regions: int = 0
    exact: bool = False

    def text(self) -> str:
        """The proof in one sentence (or why there is none), saying plainly what lies
        beyond exact arithmetic."""
        if not self.proven:
            return f"not proven: {self.reason}"
        if self.exact:
            return (f"proven on all {self.regions} regions in exact rationals: every map and "
                    "every boundary is the deep network's, so the two are equal everywhere")
        how = (f", {self.exact_regions} of them in exact rationals" if self.exact_regions
               else "")
        return (f"proven on all {self.regions} regions{how}: each map within "
                f"{self.map_ratio:.2g} of the rounding bound τ·M(x) (τ = {self.tau:.1e}), each "
                "boundary the deep network's up to rounding; only within τ of a neuron's "
                "switching surface may the ±∞ rows take a neighbouring region's map")


    def short(self) -> str:
        """The proof in a few words, for a verdict line."""
        if not self.proven:
            return f"not proven: {self.reason}"
        if self.exact:
            return f"proven everywhere in exact rationals ({self.regions} regions)"
        return (f"proven region by region ({self.regions} regions; maps within "
                f"{self.map_ratio:.2g} of the rounding bound)")


def relative_bound(net: MLP) -> float:
    """τ = ROUNDING·(L + 2)·(n + 2)·u for the deep network (L layers, widest layer n)."""
    return ROUNDING * (len(net.layers) + 2) * (max(net.sizes) + 2) * U


# ---------------------------------------------------------------------------
# the deep side: rows and maps in doubles, each with a rigorous error bound
# ---------------------------------------------------------------------------
def _affine(W, b, H, EH):
    """Rows of W h + b for maps h = H (…, k, n + 1), and a bound on their distance to
    the exact rows when H is within EH of exact: |W| EH + γ_{k+1}(|W||H| + |b|), plus
    what gradual underflow can lose."""
    n = H.shape[-1] - 1
    k = W.shape[1]
    Z = np.matmul(W, H)
    Z[..., n] += b
    aW = np.abs(W)
    size = np.matmul(aW, np.abs(H))
    size[..., n] += np.abs(b)
    E = np.matmul(aW, EH) + gamma(k + 1) * size
    # every non-zero term may lose up to TINY to underflow, even where the computed
    # size underflowed to zero
    terms = np.matmul((W != 0).astype(float), ((H != 0) | (EH > 0)).astype(float))
    terms[..., n] += b != 0
    E = E * (1 + 1e-10) + (k + 2) * TINY * (terms > 0)
    return Z, E


def _certified_maps(net: MLP, pattern: np.ndarray):
    """Every region's pre-activation rows (C, N, n + 1) and output maps (C, m, n + 1)
    in doubles, with bounds on their distance to the exact ones; regions with one
    pattern before a layer share that layer's computation."""
    hidden, (W_out, b_out) = net.layers[:-1], net.layers[-1]
    C, n = len(pattern), net.n_in
    H = np.eye(n, n + 1)[None]
    EH = np.zeros_like(H)
    parent = np.zeros(C, dtype=np.intp)
    Zs, Es = [], []
    g0 = 0
    for W, b in hidden:
        Z, EZ = _affine(W, b, H, EH)
        Zs.append(Z[parent])
        Es.append(EZ[parent])
        nl = W.shape[0]
        bits = pattern[:, g0:g0 + nl]
        uniq, first, parent = unique_rows(np.column_stack([parent, bits]).astype(np.int64))
        on = bits[first][:, :, None]
        H, EH = on * Z[uniq[:, 0]], on * EZ[uniq[:, 0]]
        g0 += nl
    out, Eout = _affine(W_out, b_out, H, EH)
    if Zs:
        rows, rows_E = np.concatenate(Zs, axis=1), np.concatenate(Es, axis=1)
    else:
        rows = rows_E = np.zeros((C, 0, n + 1))
    return rows, rows_E, out[parent], Eout[parent]


def magnitude_rows(net: MLP, pattern: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every region's own magnitudes as rows on (|x|, 1): (hidden (C, N, n + 1), output
    (C, m, n + 1)). Along region r's pattern the network is evaluated with |W|, |b|,
    and a neuron off in r passes nothing on (its ReLU gives exactly 0 there), so these
    bound the terms summed when the network is evaluated in r, at r's own scale: a
    neuron whose line is far away, off in r, does not widen r's tolerance. Rounded up;
    regions with one pattern before a layer share that layer's computation."""
    hidden, (W_out, b_out) = net.layers[:-1], net.layers[-1]
    C, n = len(pattern), net.n_in
    H = np.eye(n, n + 1)[None]
    parent = np.zeros(C, dtype=np.intp)
    rows = []
    g0 = 0
    for W, b in hidden:
        G = _magnitude_step(W, b, H)
        rows.append(G[parent])
        nl = W.shape[0]
        bits = pattern[:, g0:g0 + nl]
        uniq, first, parent = unique_rows(np.column_stack([parent, bits]).astype(np.int64))
        H = bits[first][:, :, None] * G[uniq[:, 0]]
        g0 += nl
    out = _magnitude_step(W_out, b_out, H)[parent]
    hid = np.concatenate(rows, axis=1) if rows else np.zeros((C, 0, n + 1))
    return hid, out


def _magnitude_step(W, b, H):
    """|W| H + |b| on the last column, rounded up (H ≥ 0): the relative rounding, and
    for every entry with a non-zero term what gradual underflow can lose (a product
    below the doubles' range rounds to zero, so the computed sum may be 0 when the
    exact one is not)."""
    n, k = H.shape[-1] - 1, W.shape[1]
    G = np.matmul(np.abs(W), H)
    G[..., n] += np.abs(b)
    terms = np.matmul((W != 0).astype(float), (H > 0).astype(float))
    terms[..., n] += b != 0
    return G * (1 + gamma(k + 1)) + (k + 2) * TINY * (terms > 0)


class _Exact:
    """The deep network in integers: layer l's [W b] = M_l / 2^{s_l}; under a pattern
    each pre-activation row is an integer row over 2^{S_l}, S_l = s_1 + … + s_l."""

    def __init__(self, net: MLP):
        self.n = net.n_in
        self.layers = [as_scaled_integers(np.column_stack([W, b])) for W, b in net.layers]

    def maps(self, pattern) -> tuple[list, tuple]:
        """([(integer rows (n_l, n + 1), shift) per hidden layer], (output rows, shift))."""
        n = self.n
        H = np.zeros((n, n + 1), dtype=object)
        for i in range(n):
            H[i, i] = 1
        shift = 0
        hidden: list[tuple[np.ndarray, int]] = []
        g0 = 0
        for l, (M, s) in enumerate(self.layers):
            Z = M[:, :-1].dot(H)
            Z[:, n] = Z[:, n] + np.array([int(v) << shift for v in M[:, -1]], dtype=object)
            shift += s
            if l == len(self.layers) - 1:
                return hidden, (Z, shift)
            hidden.append((Z, shift))
            bits = np.asarray(pattern[g0:g0 + len(Z)], dtype=bool)
            H = np.where(bits[:, None], Z, 0).astype(object)
            g0 += len(Z)
        raise AssertionError("a network has an output layer")


# ---------------------------------------------------------------------------
# the shallow side: read from its weights
# ---------------------------------------------------------------------------
@dataclass
class _Shape:
    functional: np.ndarray   # (k, n + 1) each detector's functional
    strict: np.ndarray       # (k,) the detector is 0 exactly where functional > 0
    members: list            # per region unit: its detectors
    maps: np.ndarray         # (p, m, n + 1) the shallow network on Q_r, exactly


def _read(shallow, n: int, m: int) -> _Shape:
    """The construction's layers, checked weight by weight (NotProven otherwise)."""
    layers: tuple = tuple(getattr(shallow, "layers", ()))
    if len(layers) != 4 or not hasattr(layers[0], "S"):
        raise NotProven("the shallow network does not have the construction's three ±∞ "
                        "hidden layers")
    L1, L2, L3, L4 = layers
    if L1.n_in != n or L4.n_out != m:
        raise NotProven("the shallow network's inputs or outputs are not the deep one's")
    I = np.eye(n)
    pas = L1.W[:2 * n]
    if not (np.array_equal(pas, np.vstack([I, -I])) and not L1.b[:2 * n].any()
            and not L1.S[:2 * n].any()):
        raise NotProven("layer 1 does not carry x along as ReLU(x), ReLU(−x)")
    # detectors: ReLU(φ) (non-strict, 0 where φ ≤ 0) or ReLU(b − ∞·φ) with b > 0 (strict)
    S1, W1, b1 = L1.S[2 * n:], L1.W[2 * n:], L1.b[2 * n:]
    finite = S1 == 0
    strict = np.isneginf(S1)
    if not np.all(finite | strict):
        raise NotProven("a detector of layer 1 is scaled by +∞")
    if np.any(W1[strict] != 0) or np.any(b1[strict] <= 0):
        raise NotProven("a ±∞ detector of layer 1 has a finite part other than a positive "
                        "constant")
    k = len(S1)
    functional = np.empty((k, n + 1))
    functional[finite, :n], functional[finite, n] = W1[finite], b1[finite]
    functional[strict, :n], functional[strict, n] = L1.V[2 * n:][strict], L1.v[2 * n:][strict]
    # layer 2: x carried along, then o_r = ReLU(+∞ · Σ_{j ∈ J_r} V_rj d_j), V_rj > 0
    p = L2.n_out - 2 * n
    if L2.n_in != 2 * n + k or p < 1:
        raise NotProven("layer 2 does not have one unit per region after x⁺, x⁻")
    carry = np.zeros((2 * n, 2 * n + k))
    carry[:, :2 * n] = np.eye(2 * n)
    if not (np.array_equal(L2.W[:2 * n], carry) and not L2.b[:2 * n].any()
            and not L2.S[:2 * n].any()):
        raise NotProven("layer 2 does not carry x⁺ and x⁻ along")
    if not (np.all(L2.S[2 * n:] == np.inf) and not count_nonzero(L2.W[2 * n:])
            and not L2.b[2 * n:].any() and not L2.v[2 * n:].any()):
        raise NotProven("a region unit of layer 2 is not ReLU(+∞ · Σ detectors)")
    V = L2.V[2 * n:]
    rr, jj = _nonzero(V, L2, L2._scaled_idx[2 * n:])
    if np.any(jj < 2 * n) or np.any(V[rr, jj] < 0):
        raise NotProven("a region unit of layer 2 weighs x or a detector negatively")
    jj = jj - 2 * n
    members = np.split(jj, np.searchsorted(rr, np.arange(1, p)))
    # layer 3: q_u = ReLU(a·x⁺ − a·x⁻ + β − w o_r), w > 0: a·x + β on Q_r, 0 elsewhere
    if L3.n_in != 2 * n + p or L3.S.any():
        raise NotProven("layer 3 is not finite over x⁺, x⁻ and the region units")
    W3 = L3.W
    a = W3[:, :n]
    if not np.array_equal(W3[:, n:2 * n], -a):
        raise NotProven("a unit of layer 3 weighs x⁺ and x⁻ unequally (it bends inside "
                        "its region)")
    uu, col = _nonzero(W3, L3, L3._finite_idx)
    on_unit = col >= 2 * n
    uu, region = uu[on_unit], col[on_unit] - 2 * n
    if not np.array_equal(uu, np.arange(len(W3))) or np.any(W3[uu, 2 * n + region] >= 0):
        raise NotProven("a unit of layer 3 is not switched off by exactly one region unit")
    # output: y_i = Σ_r (q⁺_{r,i} − q⁻_{r,i}); a pair with opposite forms gives a·x + β
    if L4.S.any() or L4.b.any():
        raise NotProven("the output layer has a bias or a ±∞ row")
    W4 = L4.W
    if not np.all((W4 == 0) | (W4 == 1) | (W4 == -1)) or np.any((W4 != 0).sum(axis=0) > 1):
        raise NotProven("an output weight is not ±1 on a unit of its own")
    out, unit = np.nonzero(W4)
    sign = W4[out, unit] > 0
    key = (region[unit] * m + out) * 2 + sign
    order = np.argsort(key, kind="stable")
    key, unit, sign = key[order], unit[order], sign[order]
    if np.any(key[1:] == key[:-1]):
        raise NotProven("a region has two units of one sign for one output")
    plus, minus = unit[sign], unit[~sign]
    if not np.array_equal(key[sign] // 2, key[~sign] // 2):
        raise NotProven("a unit of layer 3 has no partner of opposite sign (the network "
                        "bends inside a region)")
    form = np.column_stack([a, L3.b])
    if not np.array_equal(form[plus], -form[minus]):
        raise NotProven("two partner units of layer 3 are not each other's negatives (the "
                        "network bends inside a region)")
    maps = np.zeros((p, m, n + 1))
    which = key[sign] // 2
    maps[which // m, which % m] = form[plus]
    return _Shape(functional + 0.0, strict, members, maps)


def _nonzero(M: np.ndarray, layer, rows) -> tuple[np.ndarray, np.ndarray]:
    """``np.nonzero(M)`` for a block of a layer's weights. The layer's sparse forms
    (rows ``rows`` of them, when it keeps them sparse) say where the non-zeros should
    be: M is then read there and counted, not searched (a dense scan of the
    construction's layers is most of their 65 MB), and the count proves there are no
    others; where they disagree, M is searched."""
    F = layer._F
    if not isinstance(F, np.ndarray):
        H = F[rows].tocsr()
        H.sort_indices()
        r, c = H.nonzero()
        if len(r) == count_nonzero(M) and np.all(M[r, c] != 0):
            order = np.lexsort((c, r))
            return r[order].astype(np.intp), c[order].astype(np.intp)
    r, c = np.nonzero(M)
    return r, c


# ---------------------------------------------------------------------------
# the proof
# ---------------------------------------------------------------------------
@dataclass
class _Stored:
    """The regions' stored constraints, all regions' rows one after another."""

    pattern: np.ndarray   # (p, N)
    counts: np.ndarray    # (p,) rows per region
    owner: np.ndarray     # (K,) the region of each row
    rows: np.ndarray      # (K, n + 1) normal and offset
    on: np.ndarray        # (K,) the sense: > 0 (True) or ≤ 0
    neuron: np.ndarray    # (K,) the neuron whose zero set it is

    @classmethod
    def of(cls, regions, n: int) -> _Stored:
        counts = np.array([len(r.on) for r in regions], dtype=np.intp)
        K = int(counts.sum())
        rows, on, neuron = np.empty((K, n + 1)), np.empty(K, dtype=bool), np.empty(K, np.intp)
        a = 0
        for r, c in zip(regions, counts):
            rows[a:a + c, :n], rows[a:a + c, n] = r.normals, r.offsets
            on[a:a + c], neuron[a:a + c] = r.on, r.neurons
            a += c
        pattern = np.array([r.pattern for r in regions], dtype=bool).reshape(len(regions), -1)
        return cls(pattern, counts, np.repeat(np.arange(len(regions)), counts), rows, on, neuron)


def _match_and_tree(st: _Stored, shape: _Shape) -> None:
    """Checks 1 and 2: region unit r's detectors are region r's stored constraints, and
    the constraints, in neuron order, form a tree of two-sided splits."""
    k = len(shape.strict)
    counts, rows, senses, owner = st.counts, st.rows, st.on, st.owner
    # one number per functional (bit for bit, −0.0 = 0.0), then per (functional, sense)
    _, _, fid = unique_rows(np.concatenate([shape.functional, rows]) + 0.0)
    sense = np.concatenate([shape.strict, senses]).astype(np.intp)
    key = fid * 2 + sense
    detector = np.full(2 * (fid.max(initial=-1) + 1), -1, dtype=np.intp)
    detector[key[:k][::-1]] = np.arange(k)[::-1]        # the first detector of each key
    path = detector[key[k:]]
    if np.any(path < 0):
        raise NotProven(f"region {owner[np.argmax(path < 0)] + 1}: a stored constraint has "
                        "no detector")
    unit = np.repeat(np.arange(len(counts)), [len(j) for j in shape.members])
    used = detector[key[:k]][np.concatenate(shape.members)] if k else np.zeros(0, np.intp)
    mine = unique_rows(np.column_stack([unit, used]))[0] if len(unit) else np.zeros((0, 2))
    want = unique_rows(np.column_stack([owner, path]))[0] if len(owner) else np.zeros((0, 2))
    if not np.array_equal(mine, want):
        bad = np.setxor1d(mine[:, 0], want[:, 0]) if len(mine) != len(want) else \
            (mine != want).any(axis=1).nonzero()[0][:1]
        raise NotProven(f"region {int(np.r_[bad, 0][0]) + 1}: the detectors of its unit are not "
                        "its stored constraints")
    # the tree: nodes are paths' prefixes; each inner node has one split, both sides
    split: dict[int, int] = {}
    child: dict[tuple, int] = {}
    leaf: dict[int, int] = {}
    f_of, on_of = fid[k:].tolist(), senses.tolist()
    start = 0
    for r, c in enumerate(counts.tolist()):
        node = 0
        for q in range(start, start + c):
            if node in leaf:
                raise NotProven(f"regions {leaf[node] + 1} and {r + 1}: one lies inside the "
                                "other")
            if split.setdefault(node, f_of[q]) != f_of[q]:
                raise NotProven(f"region {r + 1} is split by another constraint than its "
                                "neighbours at the same place (the pieces may overlap)")
            node = child.setdefault((node, on_of[q]), len(child) + 1)
        start += c
        if node in leaf or node in split:
            raise NotProven(f"region {r + 1} and another have the same constraints")
        leaf[node] = r
    for node in split:
        if (node, True) not in child or (node, False) not in child:
            raise NotProven("a split has only one side among the regions (the pieces leave "
                            "a gap)")


def prove(deep: MLP, regions, shallow, should_stop=None) -> RegionProof:
    """The region-by-region proof that ``shallow`` (the three-hidden-layer construction)
    equals ``deep`` up to rounding; see the module docstring."""
    p = len(regions)
    tau = relative_bound(deep)
    try:
        if p == 0:
            raise NotProven("no regions")
        if any(r.neurons is None for r in regions):
            raise NotProven("the regions do not say which neuron each constraint belongs to")
        n, m = deep.n_in, deep.n_out
        shape = _read(shallow, n, m)
        if len(shape.members) != p:
            raise NotProven(f"the shallow network has {len(shape.members)} region units for "
                            f"{p} regions")
        st = _Stored.of(regions, n)
        check(should_stop, "proving")
        _match_and_tree(st, shape)
        check(should_stop, "proving")
        result = _compare(deep, regions, st, shape, tau, should_stop)
    except NotProven as e:
        return RegionProof(False, str(e), p, tau=tau)
    return result


def _compare(deep: MLP, regions, st: _Stored, shape: _Shape, tau: float,
             should_stop) -> RegionProof:
    """Checks 3 and 4: filter, then rationals where the filter cannot decide."""
    n = deep.n_in
    pattern = st.pattern
    with np.errstate(over="ignore", invalid="ignore"):
        mag_rows, mag_out = magnitude_rows(deep, pattern)
        rows, rows_E, maps, maps_E = _certified_maps(deep, pattern)
    if not (np.all(np.isfinite(mag_rows)) and np.all(np.isfinite(mag_out))
            and np.all(np.isfinite(rows_E)) and np.all(np.isfinite(maps_E))):
        raise NotProven("values beyond double range (the magnitudes of the deep network "
                        "overflow), beyond what the doubles can certify")
    # 3: the stored constraints against their neurons' rows
    owner, neuron, stored, senses = st.owner, st.neuron, st.rows, st.on
    if len(owner) and not np.array_equal(pattern[owner, neuron], senses):
        raise NotProven("a stored constraint's sense is not its neuron's state in the region")
    Z, EZ, G = rows[owner, neuron], rows_E[owner, neuron], mag_rows[owner, neuron]
    # λ > 0 is any scale; 1/‖z‖ as the construction's, computed without overflow
    top = np.abs(Z[:, :n]).max(axis=1, initial=0.0)
    top = np.where(top > 0, top, 1.0)
    norm = top * np.linalg.norm(Z[:, :n] / top[:, None], axis=1)
    with np.errstate(over="ignore"):   # a subnormal norm: refused just below
        lam = 1.0 / np.where(norm > 0, norm, 1.0)
    if not np.all((lam > 0) & np.isfinite(lam)):
        raise NotProven("values beyond double range (a constraint's normal has no "
                        "normalisation in doubles)")
    with np.errstate(over="ignore", invalid="ignore"):
        lz = lam[:, None] * Z
        row_err = (np.abs(stored - lz) + U * np.abs(lz) + lam[:, None] * EZ) * (1 + 8 * U)
        row_tol = tau * lam[:, None] * G * (1 - 8 * U)
        # 4: the maps
        map_err = (np.abs(shape.maps - maps) + maps_E) * (1 + 4 * U)
        map_tol = tau * mag_out * (1 - 4 * U)
    row_ok = np.all(row_err <= row_tol, axis=1)
    map_ok = np.all(map_err <= map_tol, axis=(1, 2))
    region_ok = map_ok.copy()
    np.logical_and.at(region_ok, owner, row_ok)
    exact_all = len(regions) * max(1, pattern.shape[1]) <= EXACT_ALL
    todo = np.arange(len(regions)) if exact_all else np.flatnonzero(~region_ok)
    with np.errstate(invalid="ignore", divide="ignore"):
        map_r = np.where(map_err == 0, 0.0, map_err / map_tol).max(axis=(1, 2))
        row_r = np.where(row_err == 0, 0.0, row_err / row_tol).max(axis=1)
    region_map, region_row = map_r, np.zeros(len(regions))
    np.maximum.at(region_row, owner, row_r)
    exact = exact_all
    if len(todo):
        ex = _Exact(deep)
        starts = np.concatenate([[0], np.cumsum(st.counts)])
        for r in todo:
            check(should_stop, "proving in rationals")
            a, b = starts[r], starts[r + 1]
            same, region_map[r], region_row[r] = _exact_region(
                ex, regions[r], shape.maps[r], stored[a:b], lam[a:b], tau, mag_rows[r],
                mag_out[r])
            exact = exact and same
    return RegionProof(True, "", len(regions), len(owner), tau, float(region_map.max()),
                       float(region_row.max()), len(todo), bool(exact))


def _exact_region(ex: _Exact, reg, shallow_map, stored, lam, tau, mag_rows, mag_out):
    """Checks 3 and 4 for one region in rationals; NotProven when they fail. Returns
    (whether its map and its stored constraints are the deep network's exactly, the
    largest |difference| / allowed of the map, of the constraints)."""
    hidden, (out, shift) = ex.maps(reg.pattern)
    n = ex.n
    t = Fraction(tau)

    def ratio(d: Fraction, allowed: Fraction, what: str) -> float:
        if abs(d) > allowed:
            raise NotProven(f"region {_name(reg)}: {what} (in rationals)")
        return 0.0 if d == 0 else float(abs(d) / allowed)

    scale = 1 << shift
    worst_map = 0.0
    same = True
    for i in range(out.shape[0]):
        for j in range(n + 1):
            d = Fraction(float(shallow_map[i, j])) * scale - out[i, j]
            worst_map = max(worst_map, ratio(d, t * Fraction(float(mag_out[i, j])) * scale,
                                             "the shallow map differs from the deep one by "
                                             "more than rounding"))
            same = same and d == 0
    worst_row = 0.0
    offsets = np.cumsum([0] + [len(Z) for Z, _ in hidden])
    for k, g in enumerate(np.asarray(reg.neurons, dtype=np.intp)):
        l = int(np.searchsorted(offsets, g, side="right") - 1)
        Z, s = hidden[l]
        row = Z[g - offsets[l]]
        lk = Fraction(float(lam[k]))
        sc = 1 << s
        mine = [Fraction(float(v)) for v in stored[k]]
        for q in range(n + 1):
            d = mine[q] * sc - lk * row[q]
            worst_row = max(worst_row, ratio(d, t * lk * Fraction(float(mag_rows[g, q])) * sc,
                                             "a stored constraint is not its neuron's up "
                                             "to rounding"))
        # exactly a positive multiple of the neuron's row: the boundary itself
        nz = [q for q in range(n + 1) if row[q] != 0]
        mu = mine[nz[0]] / row[nz[0]] if nz else Fraction(0)
        same = same and mu > 0 and all(mine[q] == mu * row[q] for q in range(n + 1))
    return same, worst_map, worst_row


def _name(reg) -> str:
    return reg.pattern_text() if reg.layer_sizes else "?"
