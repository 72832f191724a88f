"""1-D input: a network R → Rᵐ is a list of kinks, and one finite hidden layer of the
least width reproduces it (N + 1 neurons for N kinks, or N when a subset of the kinks
allows it).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from relulab.model.networks.exact import gamma
from relulab.model.networks.mlp import MLP

# ---------------------------------------------------------------------------
# 1-D: kinks and one finite hidden layer of least width
# ---------------------------------------------------------------------------
#: Up to this many kinks every subset of them is tried (meet in the middle), so a
#: width of N + 1 is proven least; past it only the special subsets are tried.
EXHAUSTIVE_KINKS = 20


class _Jumps:
    """The jump vectors c_t (m × N) and the left slopes s₀ (m) of a network's outputs,
    as doubles with error bounds, and exactly (Fractions) on demand."""

    def __init__(self, net: MLP, lp):
        self.net, self.lp = net, lp
        self.c = np.asarray(lp.jumps, dtype=float).reshape(lp.n_outputs, -1)
        self.s0 = np.asarray(lp.left_slopes, dtype=float)
        self.exact_line = lp.exact
        self.Ec = np.asarray(lp.jump_errors, dtype=float).reshape(self.c.shape)
        self.Es0 = np.asarray(lp.left_slope_errors, dtype=float)
        self.exact_runs = 0
        self.candidates = 0  # subsets that passed a window and were compared in every output

    @property
    def N(self) -> int:
        return self.c.shape[1]

    def exact(self):
        """Exact (jumps m × N, s₀) as Fractions, from the exact walk (made once)."""
        from relulab.model.networks.exact import exact_line

        if self.exact_line is None:
            self.exact_runs += 1
            self.exact_line = exact_line(self.net, max_knots=EXACT_KNOTS_FOR_WIDTH)
        ex = self.exact_line
        m = ex.n_outputs
        jumps = [ex.jumps(i) for i in range(m)]
        cols = [k for k in range(len(ex.knots)) if any(jumps[i][k] != 0 for i in range(m))]
        if len(cols) != self.N:
            raise ArithmeticError("the exact and the certified kinks disagree")
        return ([[jumps[i][k] for k in cols] for i in range(m)], list(ex.slopes[0]))

    def bound(self) -> np.ndarray:
        """One bound (per output) on |ŝ₀ + Σ_F ĉ_t − (s₀ + Σ_F c_t)| for every subset F."""
        return (self.Es0 + self.Ec.sum(axis=1)
                + gamma(self.N + 2) * (np.abs(self.s0) + np.abs(self.c).sum(axis=1))) * 1.01

    def is_zero(self, F) -> bool:
        """Whether s₀ + Σ_F c_t = 0 in every output, decided exactly."""
        R = self.s0 + self.c[:, list(F)].sum(axis=1)
        if np.any(np.abs(R) > self.bound()):
            return False
        if self.exact_line is None and np.all(self.Ec == 0) and np.all(self.Es0 == 0) \
                and np.all(R == 0) and _sum_is_exact(self.s0, self.c[:, list(F)]):
            return True
        c, s0 = self.exact()
        return all(s0[i] + sum(c[i][t] for t in F) == 0 for i in range(len(s0)))


def _exact_origin(net: MLP) -> tuple[np.ndarray, np.ndarray]:
    """Every output at x = 0, exactly, rounded to doubles, and a bound on each rounding
    (0 where the value is a double)."""
    from relulab.model.networks.exact import ExactNet

    values = ExactNet(net).output_at(Fraction(0))[0]
    try:
        origin = np.array([float(v) for v in values])
    except OverflowError:
        raise ValueError("the network's values lie beyond the range of doubles "
                         "(±1.8e308)") from None
    gaps = [abs(Fraction(float(r)) - v) for r, v in zip(origin, values)]
    return origin, np.array([np.nextafter(float(g), np.inf) if g else 0.0 for g in gaps])


#: The exact walk that decides a subset sum stops here (then: not proven).
EXACT_KNOTS_FOR_WIDTH = 20_000


def _sum_is_exact(s0, C) -> bool:
    """Σ of exact doubles computed without rounding (checked with Fractions)."""
    from fractions import Fraction

    for i in range(len(s0)):
        total = Fraction(float(s0[i])) + sum(Fraction(float(v)) for v in C[i])
        if total != Fraction(float(s0[i] + C[i].sum())):
            return False
    return True


def _flip_set(J: _Jumps):
    """A set F of kinks whose jumps sum to −s₀ in every output (exactly), or None.

    Tries the empty set, all, one, all but one and pairs for any N; every subset when
    N ≤ EXHAUSTIVE_KINKS (meet in the middle). The doubles rule out every subset
    whose sum is farther from −s₀ than its error bound; the rest are decided exactly.
    Returns (F, searched_all)."""
    N = J.N
    bound = J.bound()
    s0, c = J.s0, J.c

    def near(R) -> np.ndarray:  # R: (m, k) residuals of k subsets; may they be zero?
        return np.all(np.abs(R) <= bound[:, None], axis=0)

    tried = []
    for F in ([], list(range(N))):
        if J.is_zero(F):
            return F, True
        tried.append(F)
    total = c.sum(axis=1)
    singles = near(s0[:, None] + c)
    others = near((s0 + total)[:, None] - c)
    for i in np.flatnonzero(singles):
        if J.is_zero([i]):
            return [int(i)], True
    for i in np.flatnonzero(others):
        F = [j for j in range(N) if j != i]
        if J.is_zero(F):
            return F, True
    # pairs and subsets are windowed on one combination of all outputs, not on one
    # output: an output that is flat (or bends at few kinks) lets every subset through
    ps0, pc, pbound = _projection(s0, c, bound)
    if 2 <= N <= 1500:
        R0 = ps0 + pc[:, None] + pc[None, :]
        ii, jj = np.nonzero(np.triu(np.abs(R0) <= pbound, 1))
        for i, j in zip(ii, jj):
            J.candidates += 1
            if near((s0 + c[:, i] + c[:, j])[:, None])[0] and J.is_zero([int(i), int(j)]):
                return [int(i), int(j)], True
    if N > EXHAUSTIVE_KINKS:
        return None, False
    half = N // 2
    left, right = list(range(half)), list(range(half, N))

    def sums(idx, rows):
        """All 2^|idx| subset sums (rows × 2^|idx|) and the subsets as bit masks."""
        S = np.zeros((rows.shape[0], 1))
        for t in idx:
            S = np.concatenate([S, S + rows[:, [t]]], axis=1)
        return S

    SL, SR = sums(left, c), sums(right, c)
    PL, PR = sums(left, pc[None, :])[0], sums(right, pc[None, :])[0]
    order = np.argsort(PR)
    pr = PR[order]
    for a in range(SL.shape[1]):
        need = -ps0 - PL[a]  # PR must lie within pbound of this
        lo = np.searchsorted(pr, need - pbound, side="left")
        hi = np.searchsorted(pr, need + pbound, side="right")
        for bidx in order[lo:hi]:
            J.candidates += 1
            R = s0 + SL[:, a] + SR[:, bidx]
            if not near(R[:, None])[0]:
                continue
            F = [left[k] for k in range(len(left)) if a >> k & 1] + \
                [right[k] for k in range(len(right)) if bidx >> k & 1]
            if J.is_zero(F):
                return sorted(F), True
    return None, True


def _projection(s0, c, bound):
    """(w·s₀, w·c_t for every kink, a window) for one combination w of the outputs, each
    scaled by a power of two to about 1 and weighted by a number of its own (so that
    distinct jump vectors rarely project alike). Every subset whose sum is within
    ``bound`` of −s₀ in each output has its projected sum within the window of −w·s₀:
    the window adds the rounding of the products and sums, and underflow (2⁻¹⁰⁷⁴ a
    product)."""
    m, N = c.shape
    top = np.maximum(np.abs(s0), np.abs(c).max(axis=1, initial=0.0))
    # 2^e·top < 1/(N + 2), so no sum of the projections passes 2 (and none overflows);
    # an output of subnormal size gets at most 2^1000, never ∞
    e = np.minimum(-np.frexp(top)[1] - int(np.ceil(np.log2(N + 2))), 1000)
    w = np.where(top > 0, np.ldexp(1.0 + (np.arange(m) * 0.6180339887498949) % 1.0, e), 0.0)
    g = gamma(N + m + 4)
    size = float(w @ np.abs(s0) + (w @ np.abs(c)).sum())
    within = float(np.where(w > 0, w * bound, 0.0).sum())
    pbound = 2 * (within * (1 + g) + g * size + (N + 1) * (m + 1) * 2.0 ** -1073)
    return float(w @ s0), w @ c, pbound


@dataclass(frozen=True)
class OneDShallow:
    """The 1-D result: the network, its kinks, and whether its width is provably least.

    ``kinks``: the points where at least one output bends; ``jumps``: their slope
    changes (one output), or ``jump_vectors`` (m × N) for several outputs."""

    net: MLP
    kinks: np.ndarray
    jumps: np.ndarray
    slopes_at_ends: tuple
    width: int
    least_width_proven: bool
    rule: str
    jump_vectors: np.ndarray | None = None
    certificate: str = ""
    # bounds on how far the written weights are from an exactly equal network's:
    # per hidden neuron its kink and its output weights (m × H), and the output biases
    weight_errors: tuple | None = None
    # bounds on |slopes_at_ends − the exact slopes on the rays|: (left, right), per output
    end_slope_errors: tuple | None = None

    def representation_error(self, X) -> np.ndarray:
        """Bound (N points × m outputs) on |shallow − deep| at X in exact arithmetic:
        Σ_i EV_i (|x − t_i| + Et_i) + |V_i| Et_i + E_bias."""
        X = np.asarray(X, dtype=float).reshape(-1)
        if self.weight_errors is None:
            return np.zeros((X.size, self.net.n_out))
        Et, EV, Eb = self.weight_errors
        if self.width == 0:  # a constant: only its rounding
            return np.broadcast_to(Eb, (X.size, self.net.n_out)).copy()
        (W1, b1), (W2, _) = self.net.layers
        t = -b1 / W1[:, 0]
        dist = np.abs(X[:, None] - t[None, :]) + Et  # (N, H)
        return dist @ EV.T + (np.abs(W2) @ Et)[None, :] + Eb[None, :]


def shallow_1d(net: MLP) -> OneDShallow:
    """A one-hidden-layer network equal to ``net`` on all of R, of least width.

    With the union of the outputs' kinks t₁ < … < t_N, jump vectors c_t ∈ R^m (one
    entry per output, 0 where that output goes straight on) and left slopes s₀:
    every kink needs a neuron of its own, so N ≤ width. N neurons suffice iff one
    choice of directions (ReLU(x − t) or ReLU(t − x), shared by all outputs) cancels
    the linear parts, i.e. some set F of kinks has Σ_F c_t = −s₀ in every output;
    otherwise N + 1 always do (two neurons at t₁). No kink: width 0 if every output
    is constant, else 2. Subset sums are decided exactly; past EXHAUSTIVE_KINKS kinks
    a width of N + 1 is "not proven" least. See docs/deep-to-shallow.md."""
    from relulab.model.pieces.piecewise import line_pieces

    if net.n_in != 1:
        raise ValueError(f"the 1-D conversion needs one input, the network has {net.n_in}")
    lp = line_pieces(net)
    return _least_width(net, lp)


def _least_width(net: MLP, lp) -> OneDShallow:
    J = _Jumps(net, lp)
    m, N = lp.n_outputs, J.N
    t = np.asarray(lp.kinks, dtype=float)
    s0 = J.s0
    sK = np.array([o.slopes[-1] for o in lp.outputs])  # certified, not a cancelling sum
    ends = (float(s0[0]), float(sK[0])) if m == 1 else (tuple(s0), tuple(sK))
    end_errors = (J.Es0, np.zeros(m) if lp.right_slope_errors is None
                  else np.asarray(lp.right_slope_errors, dtype=float))

    def one(v):
        return np.asarray(v[0] if m == 1 else np.zeros(0))

    vectors = None if m == 1 else J.c
    if N == 0:
        origin, Eb = _exact_origin(net)  # every output at x = 0, rounded once
        flat = J.is_zero([])
        if flat:
            out = MLP([(np.zeros((m, 1)), origin)])
            return OneDShallow(out, t, one(J.c), ends, 0, True, "constant: no neuron",
                               vectors, lp.certificate, (np.zeros(0), np.zeros((m, 0)), Eb),
                               end_errors)
        out = MLP([([[1.0], [-1.0]], [0.0, 0.0]), (np.column_stack([s0, -s0]), origin)])
        return OneDShallow(out, t, one(J.c), ends, 2, True,
                           "affine: s₀ ReLU(x) − s₀ ReLU(−x); one neuron cannot draw a "
                           "sloped line without a kink", vectors, lp.certificate,
                           (np.zeros(2), np.column_stack([J.Es0, J.Es0]), Eb), end_errors)
    # f(t₁) and, below, the slope right of t₁ are read by the kink's index: distinct
    # kinks may round to one double, and a search by value would pass them all
    values1 = np.asarray(lp.kink_values, dtype=float)[:, 0]
    Et = np.asarray(lp.kink_errors, dtype=float)
    Ey1 = np.asarray(lp.value_errors, dtype=float)[:, 0]
    F, searched_all = _flip_set(J)
    c = J.c
    several = "" if m == 1 else f" in all {m} outputs at once"
    if F is not None:
        flip = np.zeros(N, dtype=bool)
        flip[F] = True
        # c ReLU(x − t) = c (x − t) + c ReLU(t − x): the flipped linear parts cancel s₀ x
        W1 = np.where(flip, -1.0, 1.0)[:, None]
        b1 = np.where(flip, t, -t)
        # f(t₁) − s₀ t₁ − Σ_F c_t t, summed exactly and rounded once (its terms may be
        # far larger than the result)
        bias = np.array([float(Fraction(float(values1[o])) - Fraction(float(s0[o])) * Fraction(float(t[0]))
                               - sum(Fraction(float(c[o, k])) * Fraction(float(t[k])) for k in F))
                         for o in range(m)])
        Eb = (Ey1 + J.Es0 * (abs(t[0]) + Et[0]) + np.abs(s0) * Et[0]
              + (J.Ec[:, flip] * (np.abs(t[flip]) + Et[flip]) + np.abs(c[:, flip]) * Et[flip]).sum(axis=1)
              + 2 * 2.0 ** -53 * np.abs(bias))
        out = MLP([(W1, b1), (c, bias)])
        errors = (Et, J.Ec, Eb)
        rule = (f"width N = {N}: the jumps at {len(F)} kink(s) sum to −s₀{several}, so those "
                "neurons face left and no linear term is left over")
        if not F:
            rule = f"width N = {N}: the left slope s₀ is 0{several}"
        return OneDShallow(out, t, one(c), ends, N, True, rule, vectors, lp.certificate, errors,
                           end_errors)
    W1 = np.concatenate([[[-1.0]], np.ones((N, 1))])
    b1 = np.concatenate([[t[0]], -t])
    # s₀ + c₁ is the slope right of t₁: read it directly rather than cancel s₀ against c₁
    right = np.asarray(lp.piece_slopes, dtype=float)[:, 1]
    W2 = np.column_stack([-s0, right, c[:, 1:]])
    out = MLP([(W1, b1), (W2, values1)])
    errors = (np.concatenate([Et[:1], Et]), np.column_stack([J.Es0, J.Ec[:, 0] + J.Es0, J.Ec[:, 1:]]),
              Ey1)
    rule = (f"width N + 1 = {N + 1}: no set of kinks has jumps summing to −s₀{several}"
            if searched_all else
            f"width N + 1 = {N + 1}: no set of kinks among those tried (none, all, one, all "
            f"but one, pairs) has jumps summing to −s₀{several}; with N = {N} not every "
            "set was tried, so this width is not proven least")
    return OneDShallow(out, t, one(c), ends, N + 1, searched_all, rule, vectors,
                       lp.certificate, errors, end_errors)
