"""Training steps for one-hidden-layer ReLU networks on 1-D data, many restarts at once.

The network of restart r is f(x) = Σᵢ aᵢ·ReLU(wᵢx + bᵢ) + c, trained on the mean
squared error L = (1/N) Σₙ (f(xₙ) − yₙ)².

Why prefix sums: with the points sorted, neuron i is active (wᵢxₙ + bᵢ > 0) on one
contiguous run of them — the points right of its kink kᵢ = −bᵢ/wᵢ when wᵢ > 0, the
points left of it when wᵢ < 0. So f is S(n)·xₙ + T(n) + c where the slope S and the
intercept T change only at the kinks' positions (one binary search per neuron), and
every gradient is a sum of the errors eₙ or of eₙxₙ over one run:

    ∂L/∂aᵢ = (2/N)(wᵢ·Σ eₙxₙ + bᵢ·Σ eₙ),  ∂L/∂wᵢ = (2/N) aᵢ Σ eₙxₙ,
    ∂L/∂bᵢ = (2/N) aᵢ Σ eₙ,               ∂L/∂c  = (2/N) Σₙ eₙ,

the sums running over the points where neuron i is active: a difference of two prefix
sums. A step costs O(N + H log N) instead of the O(N·H) of the dense formulation.

Two implementations of the same step: ``advance_numpy`` (vectorised over restarts,
the reference) and a compiled loop (numba, when it is installed) that runs a whole
chunk of steps per call, which removes the Python overhead per step. Parameters are
packed per restart as [w (H), b (H), a (H), c].

A restart whose loss or new parameters stop being finite is stopped: its parameters
stay at the last finite values and ``diverged_at`` records the step (1-based).
"""

from __future__ import annotations

import sys
import threading

import numpy as np

from relulab.model.core import compiled
from relulab.model.fitting.optimizers import supported

#: the optimisers the step implements, in the order of their codes in the compiled loop
OPTIMIZERS = tuple(supported("adam", "gd", "momentum"))
_OPT_CODE = {name: i for i, name in enumerate(OPTIMIZERS)}


# ---------------------------------------------------------------------------
# numpy reference: all restarts in one vectorised computation per step
# ---------------------------------------------------------------------------
def advance_numpy(x, y, batches, P, m, v, diverged_at, losses, col0, step0, n_steps,
                  hidden, optimizer, lr, beta1, beta2, eps, momentum):
    """Advance every live restart by ``n_steps`` steps, in place.

    x, y: sorted data (N,). batches: int (R, n_steps, B) of sorted point indices, or
    shape (R, 0, 0) for full batch. P, m, v: (R, 3H+1). losses: (R, ≥ col0+n_steps),
    the loss before each step's update is written at col0 + s. step0: steps done so far.
    """
    R, H = P.shape[0], hidden
    full = batches.shape[1] == 0
    N = x.shape[0]
    opt = _OPT_CODE[optimizer]
    w, b, a, c = P[:, :H], P[:, H:2 * H], P[:, 2 * H:3 * H], P[:, 3 * H]
    rows = np.arange(R)[:, None]
    nb = N if full else batches.shape[2]
    C = np.zeros((2 * R, nb + 1))  # prefix sums of e (rows :R) and of e·x (rows R:)
    G = np.empty_like(P)
    scale = 2.0 / nb
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for s in range(n_steps):
            t = step0 + s + 1
            if full:
                xs, ys = x, y
            else:
                idx = batches[:, s, :]
                xs, ys = x[idx], y[idx]
            k = -b / w
            pos = w > 0
            flat_w = not np.all(w)  # a neuron with w = 0 is on everywhere (b > 0) or nowhere
            neg = (w < 0) if flat_w else ~pos
            if full:
                j_right = np.searchsorted(x, k, side="right")
                j_left = np.searchsorted(x, k, side="left")
            else:
                j_right = np.stack([np.searchsorted(xs[r], k[r], side="right") for r in range(R)])
                j_left = np.stack([np.searchsorted(xs[r], k[r], side="left") for r in range(R)])
            # active: n >= j_right when w > 0; n < j_left when w < 0
            j = np.where(pos, j_right, j_left)
            sa, ta = a * w, a * b
            base_s = (sa * neg).sum(axis=1, keepdims=True)
            base_t = (ta * neg).sum(axis=1, keepdims=True)
            if flat_w:
                always = (w == 0) & (b > 0)
                base_t = base_t + (ta * always).sum(axis=1, keepdims=True)
                sign = pos * 1.0 - neg
            else:
                sign = np.where(pos, 1.0, -1.0)
            flat = (j + rows * (nb + 1)).ravel()
            size = R * (nb + 1)
            Ds = np.bincount(flat, weights=(sa * sign).ravel(), minlength=size).reshape(R, nb + 1)
            Dt = np.bincount(flat, weights=(ta * sign).ravel(), minlength=size).reshape(R, nb + 1)
            S = np.cumsum(Ds[:, :nb], axis=1) + base_s
            T = np.cumsum(Dt[:, :nb], axis=1) + base_t
            e = S * xs + T + c[:, None] - ys
            loss = np.einsum("rn,rn->r", e, e) / nb
            C[:R, 1:] = e
            np.multiply(e, xs, out=C[R:, 1:])
            np.cumsum(C[:, 1:], axis=1, out=C[:, 1:])
            E, EX = C[:R, nb:], C[R:, nb:]
            ce_j = np.take_along_axis(C[:R], j, axis=1)
            cx_j = np.take_along_axis(C[R:], j, axis=1)
            s1 = np.where(pos, E - ce_j, ce_j)
            sx = np.where(pos, EX - cx_j, cx_j)
            if flat_w:
                zero = ~pos & ~neg
                s1 = np.where(zero, np.where(always, E, 0.0), s1)
                sx = np.where(zero, np.where(always, EX, 0.0), sx)
            G[:, :H] = scale * a * sx
            G[:, H:2 * H] = scale * a * s1
            G[:, 2 * H:3 * H] = scale * (w * sx + b * s1)
            G[:, 3 * H] = scale * E[:, 0]
            if opt == 0:
                m_new = beta1 * m + (1 - beta1) * G
                v_new = beta2 * v + (1 - beta2) * G * G
                P_new = P - lr * (m_new / (1 - beta1 ** t)) / (np.sqrt(v_new / (1 - beta2 ** t)) + eps)
            elif opt == 2:
                m_new, v_new = momentum * m + G, v
                P_new = P - lr * m_new
            else:
                m_new, v_new = m, v
                P_new = P - lr * G
            alive = diverged_at < 0
            finite_loss = np.isfinite(loss)
            ok = alive & finite_loss & np.isfinite(P_new).all(axis=1)
            if ok.all():  # the usual case: every restart moves on
                losses[:, col0 + s] = loss
                P[:], m[:], v[:] = P_new, m_new, v_new
                continue
            diverged_at[alive & ~ok] = t
            losses[:, col0 + s] = np.where(alive & finite_loss, loss, np.nan)
            keep = ok[:, None]
            P[:] = np.where(keep, P_new, P)
            m[:] = np.where(keep, m_new, m)
            v[:] = np.where(keep, v_new, v)


# ---------------------------------------------------------------------------
# compiled loop (numba): one restart at a time, a whole chunk of steps per call
# ---------------------------------------------------------------------------
def _search(xs, nb, k, right):
    """First index n with xs[n] > k (right) or xs[n] >= k (left); nb if none."""
    lo, hi = 0, nb
    if k != k:  # NaN sorts after everything
        return nb
    while lo < hi:
        mid = (lo + hi) // 2
        if xs[mid] < k or (right and xs[mid] == k):
            lo = mid + 1
        else:
            hi = mid
    return lo


def _advance_loop(x, y, batches, P, m, v, diverged_at, losses, col0, step0, n_steps,
                  hidden, opt, lr, beta1, beta2, eps, momentum):
    R = P.shape[0]
    H = hidden
    K = 3 * H + 1
    N = x.shape[0]
    full = batches.shape[1] == 0
    nb = N if full else batches.shape[2]
    xb = np.empty(nb)
    yb = np.empty(nb)
    Ds = np.empty(nb + 1)
    Dt = np.empty(nb + 1)
    Ce = np.empty(nb + 1)
    Cx = np.empty(nb + 1)
    J = np.empty(H, dtype=np.int64)
    G = np.empty(K)
    Pn = np.empty(K)
    mn = np.empty(K)
    vn = np.empty(K)
    scale = 2.0 / nb
    for r in range(R):
        if diverged_at[r] >= 0:
            for s in range(n_steps):
                losses[r, col0 + s] = np.nan
            continue
        for s in range(n_steps):
            t = step0 + s + 1
            if full:
                xs = x
                ys = y
            else:
                for n in range(nb):
                    xb[n] = x[batches[r, s, n]]
                    yb[n] = y[batches[r, s, n]]
                xs = xb
                ys = yb
            for n in range(nb + 1):
                Ds[n] = 0.0
                Dt[n] = 0.0
            base_s = 0.0
            base_t = 0.0
            c = P[r, 3 * H]
            for i in range(H):
                wi = P[r, i]
                bi = P[r, H + i]
                ai = P[r, 2 * H + i]
                if wi > 0:
                    j = _search(xs, nb, -bi / wi, True)
                    Ds[j] += ai * wi
                    Dt[j] += ai * bi
                elif wi < 0:
                    j = _search(xs, nb, -bi / wi, False)
                    base_s += ai * wi
                    base_t += ai * bi
                    Ds[j] -= ai * wi
                    Dt[j] -= ai * bi
                else:
                    j = 0
                    if bi > 0:
                        base_t += ai * bi
                J[i] = j
            S = base_s
            T = base_t
            loss = 0.0
            Ce[0] = 0.0
            Cx[0] = 0.0
            for n in range(nb):
                S += Ds[n]
                T += Dt[n]
                e = S * xs[n] + T + c - ys[n]
                loss += e * e
                Ce[n + 1] = Ce[n] + e
                Cx[n + 1] = Cx[n] + e * xs[n]
            loss /= nb
            E = Ce[nb]
            EX = Cx[nb]
            for i in range(H):
                wi = P[r, i]
                bi = P[r, H + i]
                ai = P[r, 2 * H + i]
                j = J[i]
                if wi > 0:
                    s1 = E - Ce[j]
                    sx = EX - Cx[j]
                elif wi < 0:
                    s1 = Ce[j]
                    sx = Cx[j]
                elif bi > 0:
                    s1 = E
                    sx = EX
                else:
                    s1 = 0.0
                    sx = 0.0
                G[i] = scale * ai * sx
                G[H + i] = scale * ai * s1
                G[2 * H + i] = scale * (wi * sx + bi * s1)
            G[3 * H] = scale * E
            finite = np.isfinite(loss)
            if opt == 0:
                c1 = 1.0 - beta1 ** t
                c2 = 1.0 - beta2 ** t
                for q in range(K):
                    mn[q] = beta1 * m[r, q] + (1 - beta1) * G[q]
                    vn[q] = beta2 * v[r, q] + (1 - beta2) * G[q] * G[q]
                    Pn[q] = P[r, q] - lr * (mn[q] / c1) / (np.sqrt(vn[q] / c2) + eps)
                    finite = finite and np.isfinite(Pn[q])
            elif opt == 2:
                for q in range(K):
                    mn[q] = momentum * m[r, q] + G[q]
                    vn[q] = v[r, q]
                    Pn[q] = P[r, q] - lr * mn[q]
                    finite = finite and np.isfinite(Pn[q])
            else:
                for q in range(K):
                    mn[q] = m[r, q]
                    vn[q] = v[r, q]
                    Pn[q] = P[r, q] - lr * G[q]
                    finite = finite and np.isfinite(Pn[q])
            losses[r, col0 + s] = loss if np.isfinite(loss) else np.nan
            if not finite:
                diverged_at[r] = t
                for s2 in range(s + 1, n_steps):
                    losses[r, col0 + s2] = np.nan
                break
            for q in range(K):
                P[r, q] = Pn[q]
                m[r, q] = mn[q]
                v[r, q] = vn[q]


_compiled = None        # the jitted _advance_loop once ready
_compile_error = None   # why it is not available
_cached = False         # whether numba keeps it in its disk cache
_how = ""               # "loaded from the disk cache", "compiled in a separate process", "compiled"
_lock = threading.Lock()


def _compile(apart: bool = False):
    """Jit the loop for the one set of argument types the trainer passes, or load it
    from the disk cache. With ``apart``, a compilation runs in a separate process that
    fills the disk cache (see :mod:`relulab.model.core.compiled`): for a thread beside
    a window. None when numba is off (``RELULAB_NO_NUMBA``) or missing, or fails."""
    global _compiled, _compile_error, _cached, _how
    with _lock:
        if _compiled is not None or _compile_error is not None:
            return _compiled
        numba, why_not = compiled.numba_or_why()
        if numba is None:
            _compile_error = why_not
            return None
        try:
            loop, _how = _jit(numba, apart=apart)
            _cached = compiled.disk_cached(loop)
            _compiled = loop
        except Exception as exc:  # any compiler trouble: the numpy path still works
            _compile_error = f"numba could not compile the training loop ({exc})"
        return _compiled


def _jit(numba, apart: bool = False):
    """The loop compiled for exactly the types ``advance_compiled`` passes, and
    ``_search`` for its own: without declared types numba compiles ``_search`` once
    for ``right=True`` and once more for ``right=False`` (literal constants are types
    of their own), seconds of a first start for nothing. nogil: a replay on a worker
    thread must not hold the GUI thread for a whole chunk. The loop comes from the disk
    cache when it is there (with ``_search``'s code inside it), and with ``apart`` a
    separate process puts it there first. Returns (the loop, how it was made ready)."""
    types = numba.types
    i8, f8, b1 = types.int64, types.float64, types.boolean
    F1, F2, I1, I3 = f8[::1], f8[:, ::1], i8[::1], i8[:, :, ::1]
    # x, y, batches, P, m, v, diverged_at, losses, col0, step0, n_steps, hidden, opt,
    # lr, beta1, beta2, eps, momentum
    signature = (F1, F1, I3, F2, F2, F2, I1, F2, i8, i8, i8, i8, i8, f8, f8, f8, f8, f8)
    search = compiled.jit(numba, _search, nogil=True)
    glob = dict(_advance_loop.__globals__, _search=search)
    loop = compiled.jit(numba, _rebind(_advance_loop, glob), nogil=True)

    def compile_here():
        search.compile((F1, i8, f8, b1))
        search.disable_compile()
        loop.compile(signature)

    how = compiled.make_ready(loop, [signature], "training", apart, compile_here)
    loop.disable_compile()
    return loop, how


def _rebind(fn, glob):
    import types

    return types.FunctionType(fn.__code__, glob, fn.__name__, fn.__defaults__, fn.__closure__)


def compiled_available(apart: bool = False) -> bool:
    """True once the compiled loop is ready (compiles it on first call; with ``apart``
    in a separate process, see :func:`_compile`)."""
    return _compile(apart) is not None


def compiled_cached() -> bool:
    """True when the compiled loop is ready and numba keeps it in its disk cache."""
    return _compiled is not None and _cached


def compiled_status() -> str:
    """How this process made the loop ready: "loaded from the disk cache", "compiled in
    a separate process" or "compiled"; why not, when it is not available; "" before."""
    return _how if _compiled is not None else (_compile_error or "")


def compiled_ready() -> bool:
    """True if the compiled loop is already compiled (never blocks)."""
    return _compiled is not None or _compile_error is not None


def advance_compiled(x, y, batches, P, m, v, diverged_at, losses, col0, step0, n_steps,
                     hidden, optimizer, lr, beta1, beta2, eps, momentum):
    """The same as ``advance_numpy``, compiled; falls back to numpy when unavailable."""
    loop = _compile()
    if loop is None:
        return advance_numpy(x, y, batches, P, m, v, diverged_at, losses, col0, step0, n_steps,
                             hidden, optimizer, lr, beta1, beta2, eps, momentum)
    loop(x, y, batches, P, m, v, diverged_at, losses, int(col0), int(step0), int(n_steps),
         int(hidden), _OPT_CODE[optimizer], float(lr), float(beta1), float(beta2), float(eps),
         float(momentum))


def evaluate_sorted(x, w, b, a, c):
    """f_r(xₙ) = Σᵢ a_ri ReLU(w_ri xₙ + b_ri) + c_r for sorted x, every restart, by prefix sums.

    O(R·(N + H log N)) instead of O(R·N·H): the slope and intercept of f change only at
    the kinks, so f = S(n)·xₙ + T(n) + c with S, T cumulative sums over the kinks' positions.
    """
    x = np.asarray(x, dtype=float)
    R, N = w.shape[0], x.size
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        k = -b / w
        pos, neg = w > 0, w < 0
        j = np.where(pos, np.searchsorted(x, k, side="right"),
                     np.where(neg, np.searchsorted(x, k, side="left"), 0))
        sa, ta = a * w, a * b
        always = (w == 0) & (b > 0)
        sign = np.where(pos, 1.0, np.where(neg, -1.0, 0.0))
        flat = (j + np.arange(R)[:, None] * (N + 1)).ravel()
        Ds = np.bincount(flat, weights=(sa * sign).ravel(), minlength=R * (N + 1)).reshape(R, N + 1)
        Dt = np.bincount(flat, weights=(ta * sign).ravel(), minlength=R * (N + 1)).reshape(R, N + 1)
        S = np.cumsum(Ds[:, :N], axis=1) + np.where(neg, sa, 0.0).sum(axis=1, keepdims=True)
        T = (np.cumsum(Dt[:, :N], axis=1)
             + (np.where(neg, ta, 0.0) + np.where(always, ta, 0.0)).sum(axis=1, keepdims=True))
        return S * x + T + np.asarray(c, dtype=float)[:, None]


def compile_for_cache(target: str) -> int:
    """In a compiling child (:mod:`relulab.model.core._compile_apart`): compile the
    training loop; its exit status (0 cached, ``NOT_CACHED``, 1 failed)."""
    from relulab.model.core._compile_apart import NOT_CACHED

    if not compiled_available():
        print(_compile_error, file=sys.stderr)
        return 1
    return 0 if compiled_cached() else NOT_CACHED
